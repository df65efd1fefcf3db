//! Behaviour tests of the TCP endpoints, each citing the rule it checks. Single-segment stories
//! feed one segment in at a given time and check exactly what comes out; multi-segment stories
//! run a sender and a receiver over an in-memory link in virtual time ([`Pair`]).

use super::config::TcpConfig;
use super::profile::profile;
use super::*;
use crate::time::{Dur, Time};

fn cfg(name: &str) -> TcpConfig {
    profile(name).expect("profile exists")
}

/// An rfc-profile sender without handshake, SMSS 1000, initial window `iw`.
fn plain(iw: u32, sack: bool, cc: config::CcAlgorithm) -> TcpConfig {
    let mut c = cfg("rfc");
    c.handshake = false;
    c.fin = false;
    c.mss = 1000;
    c.initial_window_segments = iw;
    c.sack = sack;
    c.cc = cc;
    c
}

fn drain_sender(s: &mut TcpSender, now: Time) -> Vec<Transmit> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// The linux profile without handshake, FIN, timestamps or window scaling (the tests' ACKs
/// advertise 65,535 unscaled), SMSS 1000: whole-segment arithmetic for hand-built sequences.
fn linux_bare() -> TcpConfig {
    let mut c = cfg("linux");
    c.handshake = false;
    c.fin = false;
    c.timestamps = false;
    c.window_scale = None;
    c.mss = 1000;
    c
}

/// Fires the timers due by `now`, then sends what may go; the segments' starts.
fn step(s: &mut TcpSender, now: Time) -> Vec<u32> {
    while let Some(at) = s.poll_timeout() {
        if at > now {
            break;
        }
        s.handle_timeout(at);
    }
    drain_sender(s, now)
        .into_iter()
        .map(|t| t.segment.seq.0)
        .collect()
}

fn ack(n: u32, sack: &[(u32, u32)]) -> Segment {
    let mut options = TcpOptions::default();
    for &(l, r) in sack {
        options.sack.push(SeqNum(l), SeqNum(r));
    }
    Segment {
        src_port: 2,
        dst_port: 1,
        seq: SeqNum(1),
        ack: SeqNum(n),
        flags: Flags::ACK,
        window: 65_535,
        options,
        len: 0,
    }
}

fn data(seq: u32, len: u32) -> Segment {
    Segment {
        src_port: 1,
        dst_port: 2,
        seq: SeqNum(seq),
        ack: SeqNum(1),
        flags: Flags::ACK,
        window: 65_535,
        options: TcpOptions::default(),
        len,
    }
}

// ---- Tests for fast retransmit and fast recovery ----

#[test]
fn sack_starts_recovery_once_dupthresh_segments_are_sacked_unless_ns2() {
    // RFC 6675 §5: recovery on the DupThresh-th duplicate ACK "or" when IsLost(HighACK + 1),
    // i.e. DupThresh segments SACKed above it. The first duplicate ACK here already SACKs
    // three segments (an ACK was lost), so the rfc profile retransmits at once; ns-2's Sack1
    // (sack_is_lost_trigger off) waits for its third duplicate ACK (numdupacks_).
    for (is_lost_trigger, dupacks_needed) in [(true, 1), (false, 3)] {
        let mut c = plain(8, true, config::CcAlgorithm::NewReno);
        c.sack_is_lost_trigger = is_lost_trigger;
        c.limited_transmit = false;
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 20_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 8);
        let t = Time::from_millis(100);
        for k in 1..=3u32 {
            // Segment 1 (seq 1) lost; each duplicate ACK SACKs one more segment above it.
            s.handle_segment(t, &ack(1, &[(1001, 3001 + k * 1000)]));
            let out = drain_sender(&mut s, t);
            let retransmitted = out.iter().any(|x| x.kind == TxKind::RetransmitFast);
            assert_eq!(
                retransmitted,
                k == dupacks_needed,
                "trigger {is_lost_trigger}, dupack {k}"
            );
        }
    }
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicate_acks() {
    // RFC 3042 §2 (RFC 5681 §3.2 step 1): on the first and second duplicate ACK a segment
    // of previously unsent data goes out if FlightSize stays <= cwnd + 2 SMSS; cwnd is not
    // changed; the third duplicate ACK still triggers fast retransmit.
    let c = plain(4, false, config::CcAlgorithm::NewReno);
    assert!(
        c.limited_transmit,
        "the rfc profile uses it (RFC 5681 SHOULD)"
    );
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 20_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 4);
    let t = Time::from_millis(100);
    let cwnd = s.probe().cwnd;
    for k in 1..=2u32 {
        s.handle_segment(t, &ack(1, &[]));
        let out = drain_sender(&mut s, t);
        assert_eq!(out.len(), 1, "dupack {k}: one segment");
        assert_eq!(out[0].kind, TxKind::New);
        assert_eq!(out[0].segment.seq, SeqNum(1 + (3 + k) * 1000));
        assert_eq!(s.probe().cwnd, cwnd, "cwnd unchanged");
    }
    s.handle_segment(t, &ack(1, &[]));
    let out = drain_sender(&mut s, t);
    assert_eq!(out[0].kind, TxKind::RetransmitFast);
    assert_eq!(out[0].segment.seq, SeqNum(1));
    // RFC 5681 §3.2 step 2: ssthresh = FlightSize / 2, the limited-transmit segments
    // included (6 segments in flight).
    assert_eq!(s.probe().ssthresh, 3000);
}

#[test]
fn fast_retransmit_on_the_third_duplicate_ack() {
    // RFC 5681 §3.2 step 2: the third duplicate ACK triggers the retransmission of the
    // first unacknowledged segment; the first two only count (Limited Transmit off here:
    // see the next test).
    let mut c = plain(4, false, config::CcAlgorithm::NewReno);
    c.limited_transmit = false;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 10_000);
    let t0 = Time::ZERO;
    assert_eq!(drain_sender(&mut s, t0).len(), 4);
    let t = Time::from_millis(100);
    s.handle_segment(t, &ack(1001, &[]));
    assert_eq!(drain_sender(&mut s, t).len(), 2); // slow start: cwnd 5 segments, 4 in flight
    for k in 1..=2 {
        s.handle_segment(t + Dur::from_millis(k), &ack(1001, &[]));
        assert!(
            drain_sender(&mut s, t).is_empty(),
            "dupack {k} must not retransmit"
        );
    }
    s.handle_segment(t + Dur::from_millis(3), &ack(1001, &[]));
    let out = drain_sender(&mut s, t + Dur::from_millis(3));
    assert_eq!(out[0].kind, TxKind::RetransmitFast);
    assert_eq!(out[0].segment.seq, SeqNum(1001));
    assert_eq!(s.stats().fast_retransmits, 1);
    // RFC 5681 §3.2 step 2: ssthresh = FlightSize / 2 = 5000 / 2.
    assert_eq!(s.probe().ssthresh, 2500);
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_and_stays_in_recovery() {
    // RFC 6582 §3.2 step 5: a partial ACK retransmits the first unacknowledged segment and
    // fast recovery continues until the recovery point is acknowledged (step 6).
    let mut s = TcpSender::new(
        &plain(6, false, config::CcAlgorithm::NewReno),
        1,
        2,
        SeqNum(0),
        6_000,
    );
    drain_sender(&mut s, Time::ZERO);
    // Segments 1 and 3 (seq 1 and 2001) lost: dupacks for 2, 4, 5, 6.
    let t = Time::from_millis(100);
    for _ in 0..3 {
        s.handle_segment(t, &ack(1, &[]));
    }
    let out = drain_sender(&mut s, t);
    assert_eq!(
        (out[0].kind, out[0].segment.seq),
        (TxKind::RetransmitFast, SeqNum(1))
    );
    s.handle_segment(t, &ack(1, &[])); // the fourth duplicate
    let t2 = Time::from_millis(200);
    s.handle_segment(t2, &ack(2001, &[])); // partial: covers 1..2001, recovery point is 6001
    let out = drain_sender(&mut s, t2);
    assert_eq!(
        (out[0].kind, out[0].segment.seq),
        (TxKind::RetransmitRecovery, SeqNum(2001))
    );
    assert!(s.probe().in_recovery);
    s.handle_segment(Time::from_millis(300), &ack(6001, &[]));
    assert!(!s.probe().in_recovery);
    assert!(s.is_complete());
}

#[test]
fn reno_with_sack_stays_in_recovery_until_the_recovery_point_and_resends_the_next_hole() {
    // RFC 6675 §5: "RecoveryPoint = HighData. When the TCP sender receives a cumulative ACK
    // for this data octet, the loss recovery phase is terminated": with SACK, Reno's window
    // rules do not end recovery at a partial ACK (RFC 5681 §3.2 step 6 is for Reno without
    // SACK; Linux's tcp_fastretrans_alert keeps TCP_CA_Recovery until high_seq). Leaving it
    // there left the holes above unsent until the timer, as no new recovery may start below
    // the recovery point (RFC 6675 §5.1). 10 segments, the whole transfer; segments 1 and 2
    // (seq 1 and 1001) lost; ssthresh = cwnd = 5000 after the fast retransmit.
    let mut c = plain(10, true, config::CcAlgorithm::Reno);
    c.limited_transmit = false;
    c.prr = false;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 10_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    let t = Time::from_millis(100);
    // Three segments SACKed above seq 1: IsLost(1), the fast retransmit; then the pipe
    // (the retransmission and segments 6-10, 6000 bytes) is above cwnd, nothing more.
    s.handle_segment(t, &ack(1, &[(2001, 5001)]));
    let out = drain_sender(&mut s, t);
    assert_eq!(
        out.iter()
            .map(|x| (x.kind, x.segment.seq))
            .collect::<Vec<_>>(),
        vec![(TxKind::RetransmitFast, SeqNum(1))]
    );
    // The retransmission of segment 1 arrives: a partial ACK (the recovery point is 10001).
    // Pipe is segments 6-10, 5000 bytes: still nothing to send.
    let t2 = Time::from_millis(200);
    s.handle_segment(t2, &ack(1001, &[(2001, 5001)]));
    assert!(
        s.probe().in_recovery,
        "a partial ACK does not end SACK recovery"
    );
    assert!(drain_sender(&mut s, t2).is_empty());
    // Segment 6 arrives: pipe 4000, room for one; NextSeg rule 1 resends segment 2 now,
    // not at the timer.
    s.handle_segment(t2, &ack(1001, &[(2001, 6001)]));
    let out = drain_sender(&mut s, t2);
    assert_eq!(
        out.iter()
            .map(|x| (x.kind, x.segment.seq))
            .collect::<Vec<_>>(),
        vec![(TxKind::RetransmitRecovery, SeqNum(1001))]
    );
    s.handle_segment(Time::from_millis(300), &ack(10_001, &[]));
    assert!(!s.probe().in_recovery);
    assert!(s.is_complete());
}

#[test]
fn reno_leaves_recovery_on_the_first_new_ack() {
    // RFC 5681 §3.2 step 6: Reno deflates to ssthresh on the next ACK of new data.
    let mut s = TcpSender::new(
        &plain(6, false, config::CcAlgorithm::Reno),
        1,
        2,
        SeqNum(0),
        6_000,
    );
    drain_sender(&mut s, Time::ZERO);
    for _ in 0..3 {
        s.handle_segment(Time::from_millis(100), &ack(1, &[]));
    }
    drain_sender(&mut s, Time::from_millis(100));
    s.handle_segment(Time::from_millis(200), &ack(2001, &[]));
    assert!(!s.probe().in_recovery);
    assert_eq!(s.probe().cwnd, s.probe().ssthresh);
}

// ---- Tests for the retransmission timer ----

#[test]
fn rto_doubles_under_backoff_and_karn_takes_no_sample_from_a_retransmission() {
    // RFC 6298 (5.5): each expiry doubles the RTO (1, 2, 4, 8 s from the 1 s initial value);
    // RFC 6298 §3 (Karn): the ACK of a retransmitted segment gives no RTT sample.
    let mut s = TcpSender::new(
        &plain(1, false, config::CcAlgorithm::NewReno),
        1,
        2,
        SeqNum(0),
        1000,
    );
    drain_sender(&mut s, Time::ZERO);
    let mut fired = Vec::new();
    for _ in 0..4 {
        let at = s.poll_timeout().expect("timer armed");
        s.handle_timeout(at);
        let out = drain_sender(&mut s, at);
        assert_eq!(out[0].kind, TxKind::RetransmitTimeout);
        fired.push(at.as_nanos() / 1_000_000);
    }
    assert_eq!(fired, vec![1000, 3000, 7000, 15000]);
    assert_eq!(s.stats().timeouts, 4);
    s.handle_segment(Time::from_millis(15_100), &ack(1001, &[]));
    assert!(s.is_complete());
    assert_eq!(s.stats().rtt_samples, 0);
}

#[test]
fn a_timeout_resends_from_snd_una_with_a_loss_window() {
    // RFC 5681 §3.1: after the RTO, cwnd = 1 SMSS and ssthresh = FlightSize / 2; RFC 6298
    // (5.4): retransmit the earliest unacknowledged segment.
    let mut s = TcpSender::new(
        &plain(4, false, config::CcAlgorithm::NewReno),
        1,
        2,
        SeqNum(0),
        4000,
    );
    drain_sender(&mut s, Time::ZERO);
    let at = s.poll_timeout().expect("armed");
    s.handle_timeout(at);
    let out = drain_sender(&mut s, at);
    assert_eq!(out.len(), 1);
    assert_eq!(
        (out[0].kind, out[0].segment.seq),
        (TxKind::RetransmitTimeout, SeqNum(1))
    );
    assert_eq!((s.probe().cwnd, s.probe().ssthresh), (1000, 2000));
    // The ACK of it lets slow start resend the next two, marked as retransmissions.
    s.handle_segment(at + Dur::from_millis(50), &ack(1001, &[]));
    let out = drain_sender(&mut s, at + Dur::from_millis(50));
    assert_eq!(
        out.iter().map(|t| t.kind).collect::<Vec<_>>(),
        vec![TxKind::RetransmitRecovery; 2]
    );
}

// ---- Tests for the receiver: delayed ACKs and SACK ----

fn receiver(delack_ms: u64) -> TcpReceiver {
    let mut c = plain(2, true, config::CcAlgorithm::NewReno);
    c.delack.timeout = Dur::from_millis(delack_ms);
    TcpReceiver::new(&c, 2, 1, SeqNum(0))
}

#[test]
fn delayed_ack_waits_for_a_second_segment_or_the_timer() {
    // RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK at least every second full-sized segment, and
    // no later than the delayed-ACK timeout after the first unacknowledged one.
    let mut r = receiver(200);
    r.handle_segment(Time::ZERO, &data(1, 1000));
    assert!(r.poll_transmit(Time::ZERO).is_none());
    assert_eq!(r.poll_timeout(), Some(Time::from_millis(200)));
    r.handle_timeout(Time::from_millis(200));
    let a = r.poll_transmit(Time::from_millis(200)).expect("timer ACK");
    assert_eq!(a.segment.ack, SeqNum(1001));
    r.handle_segment(Time::from_millis(300), &data(1001, 1000));
    assert!(r.poll_transmit(Time::from_millis(300)).is_none());
    r.handle_segment(Time::from_millis(301), &data(2001, 1000));
    let a = r
        .poll_transmit(Time::from_millis(301))
        .expect("second segment ACKed at once");
    assert_eq!(a.segment.ack, SeqNum(3001));
    assert!(r.poll_timeout().is_none());
}

#[test]
fn out_of_order_data_is_acked_at_once_with_sack_blocks_most_recent_first() {
    // RFC 5681 §4.2: immediate ACK of an out-of-order segment; RFC 2018 §4: the first SACK
    // block holds the most recently received segment.
    let mut r = receiver(200);
    r.handle_segment(Time::ZERO, &data(2001, 1000));
    let a = r.poll_transmit(Time::ZERO).expect("immediate");
    assert_eq!(a.segment.ack, SeqNum(1));
    assert_eq!(
        a.segment.options.sack.as_slice(),
        &[(SeqNum(2001), SeqNum(3001))]
    );
    r.handle_segment(Time::ZERO, &data(4001, 1000));
    let a = r.poll_transmit(Time::ZERO).expect("immediate");
    assert_eq!(
        a.segment.options.sack.as_slice(),
        &[(SeqNum(4001), SeqNum(5001)), (SeqNum(2001), SeqNum(3001))]
    );
    // Filling the first hole is acknowledged at once too.
    r.handle_segment(Time::ZERO, &data(1, 2000));
    let a = r.poll_transmit(Time::ZERO).expect("hole filled");
    assert_eq!(a.segment.ack, SeqNum(3001));
    assert_eq!(r.delivered_bytes(), 3000);
    assert_eq!(r.stats().out_of_order_segments, 2);
}

// ---- Whole-connection stories over an in-memory link ----

/// A sender and a receiver joined by a link with a rate and a one-way delay per direction,
/// stepping virtual time to the earliest event. Data segments whose sequence number is in
/// `drop_once` are lost on their first transmission.
struct Pair {
    s: TcpSender,
    r: TcpReceiver,
    now: Time,
    rate_bps: u64,
    delay: Dur,
    free: [Time; 2],
    wire: Vec<(Time, usize, Segment)>,
    drop_once: Vec<u32>,
    /// Lose the first FIN the sender sends.
    drop_fin_once: bool,
    /// Data segments (by sequence number) whose first transmission takes this much longer:
    /// reordering.
    delay_once: Vec<(u32, Dur)>,
    log: Vec<(Time, Transmit)>,
}

impl Pair {
    fn new(c: &TcpConfig, bytes: u64, rate_bps: u64, delay: Dur) -> Pair {
        Pair::with_iss(c, bytes, rate_bps, delay, SeqNum(0))
    }

    /// With the sender's initial sequence number `iss` (meaningful with a handshake, where the
    /// receiver learns it from the SYN-ACK).
    fn with_iss(c: &TcpConfig, bytes: u64, rate_bps: u64, delay: Dur, iss: SeqNum) -> Pair {
        Pair {
            s: TcpSender::new(c, 1, 2, iss, bytes),
            r: TcpReceiver::new(c, 2, 1, SeqNum(0)),
            now: Time::ZERO,
            rate_bps,
            delay,
            free: [Time::ZERO; 2],
            wire: Vec::new(),
            drop_once: Vec::new(),
            drop_fin_once: false,
            delay_once: Vec::new(),
            log: Vec::new(),
        }
    }

    fn send(&mut self, side: usize, tx: Transmit) {
        let size = 40 + tx.segment.len;
        let start = self.free[side].max(self.now);
        let done = start + Dur::serialization(size, self.rate_bps);
        self.free[side] = done;
        if side == 0 {
            self.log.push((self.now, tx));
            if let Some(i) = self
                .drop_once
                .iter()
                .position(|&q| q == tx.segment.seq.0 && tx.segment.len > 0)
            {
                self.drop_once.remove(i);
                return;
            }
            if self.drop_fin_once && tx.segment.flags.contains(Flags::FIN) {
                self.drop_fin_once = false;
                return;
            }
        }
        let mut extra = Dur::ZERO;
        if side == 0 {
            if let Some(i) = self
                .delay_once
                .iter()
                .position(|&(q, _)| q == tx.segment.seq.0 && tx.segment.len > 0)
            {
                extra = self.delay_once.remove(i).1;
            }
        }
        self.wire
            .push((done + self.delay + extra, side, tx.segment));
    }

    fn pump(&mut self) {
        while let Some(tx) = self.s.poll_transmit(self.now) {
            self.send(0, tx);
        }
        while let Some(tx) = self.r.poll_transmit(self.now) {
            self.send(1, tx);
        }
    }

    fn run(&mut self, until: Time) {
        self.pump();
        while !self.s.is_complete() {
            let next_wire = self.wire.iter().map(|w| w.0).min();
            let next = [next_wire, self.s.poll_timeout(), self.r.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            let Some(t) = next else { break };
            if t > until {
                break;
            }
            self.now = t;
            if let Some(i) = self.wire.iter().position(|w| w.0 == t) {
                let (_, side, seg) = self.wire.remove(i);
                if side == 0 {
                    self.r.handle_segment(t, &seg);
                } else {
                    self.s.handle_segment(t, &seg);
                }
            } else {
                self.s.handle_timeout(t);
                self.r.handle_timeout(t);
            }
            self.pump();
        }
    }

    fn retransmissions_of(&self, seq: u32) -> Vec<TxKind> {
        self.log
            .iter()
            .filter(|(_, t)| t.segment.seq.0 == seq && t.kind.is_retransmission())
            .map(|(_, t)| t.kind)
            .collect()
    }
}

#[test]
fn sack_recovery_retransmits_each_hole_of_a_multi_loss_window_once() {
    // RFC 6675 §5: with three segments of one window lost, each is retransmitted exactly once
    // during one fast recovery, and no timeout is needed.
    let mut c = plain(10, true, config::CcAlgorithm::NewReno);
    c.delack.enabled = false;
    let mut p = Pair::new(&c, 30_000, 10_000_000, Dur::from_millis(20));
    p.drop_once = vec![3001, 5001, 8001];
    p.run(Time::from_secs(10));
    assert!(p.s.is_complete());
    for seq in [3001, 5001, 8001] {
        assert_eq!(p.retransmissions_of(seq).len(), 1, "segment {seq}");
    }
    assert_eq!(p.s.stats().retransmissions, 3);
    assert_eq!((p.s.stats().timeouts, p.s.stats().fast_retransmits), (0, 1));
    assert_eq!(p.r.delivered_bytes(), 30_000);
}

#[test]
fn without_sack_newreno_needs_one_rtt_per_hole_but_no_timeout() {
    // RFC 6582 §3.2: each partial ACK repairs the next hole.
    let mut c = plain(10, false, config::CcAlgorithm::NewReno);
    c.delack.enabled = false;
    let mut p = Pair::new(&c, 30_000, 10_000_000, Dur::from_millis(20));
    p.drop_once = vec![3001, 5001, 8001];
    p.run(Time::from_secs(10));
    assert!(p.s.is_complete());
    assert_eq!(p.s.stats().timeouts, 0);
    assert_eq!(p.retransmissions_of(3001), vec![TxKind::RetransmitFast]);
    assert_eq!(p.retransmissions_of(5001), vec![TxKind::RetransmitRecovery]);
    assert_eq!(p.retransmissions_of(8001), vec![TxKind::RetransmitRecovery]);
}

#[test]
fn handshake_carries_the_mss_option_and_data_uses_the_smaller_mss() {
    // RFC 9293 §3.7.1: each side sends its MSS on the SYN; segments respect the peer's.
    // RFC 6691 §2: the option counts no TCP options (1448 payload + 12 timestamp bytes).
    let mut c = cfg("linux");
    c.delack.enabled = false;
    let mut p = Pair::new(&c, 20_000, 10_000_000, Dur::from_millis(5));
    let mut rc = c;
    rc.mss = 1000;
    p.r = TcpReceiver::new(&rc, 2, 1, SeqNum(7));
    p.run(Time::from_secs(5));
    assert!(p.s.is_complete());
    let synack = p
        .log
        .iter()
        .find(|(_, t)| t.segment.flags.contains(Flags::SYN))
        .expect("SYN-ACK");
    assert_eq!(synack.1.segment.options.mss, Some(1460));
    // The receiver's MSS option says 1012; less the 12 timestamp bytes: 1000 of payload.
    assert!(p.log.iter().all(|(_, t)| t.segment.len <= 1000));
    assert!(p.log.iter().any(|(_, t)| t.segment.len == 1000));
    assert_eq!(p.r.delivered_bytes(), 20_000);
}

#[test]
fn a_delay_spike_makes_a_spurious_timeout() {
    // RFC 6298 §5 with a 200 ms minimum: an ACK path that suddenly takes 2 s more than the
    // RTO expects makes the sender time out although nothing was lost.
    let mut c = cfg("linux");
    c.handshake = false;
    c.fin = false;
    let mut p = Pair::new(&c, 200_000, 5_000_000, Dur::from_millis(5));
    p.run(Time::from_millis(100));
    p.delay = Dur::from_secs(2);
    p.run(Time::from_secs(60));
    assert!(p.s.is_complete());
    assert!(p.s.stats().timeouts >= 1);
    assert_eq!(p.r.delivered_bytes(), 200_000);
}

#[test]
fn ns2_profile_sends_its_modelled_syn_one_round_trip_before_data() {
    // ns-2 Agent/TCP with syn_ true and delay_growth_ true (ns-default.tcl:937, :1062;
    // tcp.cc:436, :711, :1829): packet 0 is a header-only SYN, cwnd is 1 until it is
    // acknowledged, then windowInit_ (2) data packets leave together.
    let c = cfg("ns2");
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 10_000);
    let first = drain_sender(&mut s, Time::ZERO);
    assert_eq!(first.len(), 1);
    assert!(first[0].segment.flags.contains(Flags::SYN));
    assert_eq!((first[0].segment.len, first[0].segment.seq), (0, SeqNum(0)));
    let mut synack = ack(1, &[]);
    synack.seq = SeqNum(1);
    s.handle_segment(Time::from_millis(100), &synack);
    let data = drain_sender(&mut s, Time::from_millis(100));
    assert_eq!(data.len(), 2, "windowInit_ 2 once the SYN is acknowledged");
    assert!(data
        .iter()
        .all(|t| t.segment.len == 1000 && !t.segment.flags.contains(Flags::SYN)));
    assert_eq!(data[0].segment.seq, SeqNum(1));
    // The SYN was timed: the first RTT sample is its round trip.
    assert_eq!(s.stats().rtt_samples, 1);
    assert_eq!(s.probe().srtt, Dur::from_millis(100));
}

#[test]
fn a_lost_ns2_syn_is_resent_after_the_initial_rto() {
    // ns-default.tcl:976 rtxcur_init_ 3.0: the lost SYN goes again at 3 s, not timed (Karn).
    let c = cfg("ns2");
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 10_000);
    drain_sender(&mut s, Time::ZERO);
    assert_eq!(s.poll_timeout(), Some(Time::from_secs(3)));
    s.handle_timeout(Time::from_secs(3));
    let again = drain_sender(&mut s, Time::from_secs(3));
    assert_eq!(again.len(), 1);
    assert!(again[0].segment.flags.contains(Flags::SYN));
    assert_eq!(again[0].kind, TxKind::RetransmitTimeout);
    let mut synack = ack(1, &[]);
    synack.seq = SeqNum(1);
    s.handle_segment(Time::from_millis(3100), &synack);
    assert_eq!(
        s.stats().rtt_samples,
        0,
        "Karn: no sample from a retransmitted SYN"
    );
    // RFC 5681 §3.1 as ns-2 does it (tcp.cc timeout -> slowdown with cwnd_ 1, bugfix_ss_):
    // one segment once the SYN is through, and ssthresh_ 2, so that growth is linear from 2
    // (benches/ns2_daniel_kojo.py: a 3 s handover delay in the first half second).
    assert_eq!((s.probe().cwnd, s.probe().ssthresh), (1000, 2000));
    assert_eq!(drain_sender(&mut s, Time::from_millis(3100)).len(), 1);
}

#[test]
fn after_a_lost_syn_ack_the_initial_window_is_one_segment_and_the_rto_3_s() {
    // RFC 5681 §3.1: "if the SYN or SYN/ACK is lost, the initial window used by a sender
    // after a correctly transmitted SYN MUST be one segment". The data sender is the passive
    // opener here: its SYN-ACK times out once.
    let c = cfg("rfc");
    let mss = c.mss;
    let mut lost = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    let mut fine = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    let mut syn = data(7, 0);
    syn.flags = Flags::SYN;
    syn.ack = SeqNum(0);
    syn.options.mss = Some(mss as u16);
    let mut ack_of_synack = ack(1, &[]);
    ack_of_synack.seq = SeqNum(8);
    for s in [&mut lost, &mut fine] {
        s.handle_segment(Time::ZERO, &syn);
        assert_eq!(drain_sender(s, Time::ZERO).len(), 1, "SYN-ACK");
    }
    let rto = lost.poll_timeout().expect("SYN-ACK timer");
    lost.handle_timeout(rto);
    assert_eq!(drain_sender(&mut lost, rto).len(), 1, "SYN-ACK again");
    let t = rto + Dur::from_millis(100);
    lost.handle_segment(t, &ack_of_synack);
    fine.handle_segment(Time::from_millis(100), &ack_of_synack);
    assert_eq!(drain_sender(&mut lost, t).len(), 1);
    // RFC 6298 §5.7: no RTT sample from the handshake, so the RTO for the data is 3 s (the
    // rfc profile's 1 s initial RTO, backed off once, would give 2 s).
    assert_eq!(lost.poll_timeout(), Some(t + Dur::from_secs(3)));
    let iw = drain_sender(&mut fine, Time::from_millis(100)).len();
    assert_eq!(iw as u32 * mss, c.initial_window_segments * mss);
    assert!(iw > 1);
}

#[test]
fn a_duplicate_of_the_last_segment_is_acked_at_once_except_by_ns2s_delack_sink() {
    // RFC 9293 §3.10.7.4: a duplicate is acknowledged at once. ns-2.35's DelAckSink::recv
    // (tcp-sink.cc) delays when the packet's seqno equals the highest in-order seqno, which
    // a duplicate of that packet also satisfies; a second in-order packet then ACKs at once.
    for (ns2, acked_at_once) in [(false, true), (true, false)] {
        let mut c = plain(2, true, config::CcAlgorithm::NewReno);
        c.delack.timeout = Dur::from_millis(100);
        c.delack.duplicate_of_last_is_in_order = ns2;
        let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(0));
        r.handle_segment(Time::ZERO, &data(1, 1000));
        r.handle_segment(Time::ZERO, &data(1001, 1000));
        assert!(
            r.poll_transmit(Time::ZERO).is_some(),
            "second segment ACKed"
        );
        let t = Time::from_millis(10);
        r.handle_segment(t, &data(1001, 1000));
        assert_eq!(r.poll_transmit(t).is_some(), acked_at_once, "ns2 = {ns2}");
        if ns2 {
            assert_eq!(r.poll_timeout(), Some(t + Dur::from_millis(100)));
            r.handle_segment(t, &data(2001, 1000));
            let a = r.poll_transmit(t).expect("the pair completes");
            assert_eq!(a.segment.ack, SeqNum(3001));
        }
    }
}

#[test]
fn the_loss_basis_decides_what_a_second_timeout_halves() {
    // After a timeout and one ACK, cwnd is 2 segments while 9 are outstanding. RFC 5681
    // eq. (4) halves FlightSize (4.5 segments); Linux's tcp_reno_ssthresh halves snd_cwnd
    // in packets, at least 2 (net/ipv4/tcp_cong.c); ns-2.35's TcpAgent::slowdown halves
    // int(min(cwnd_, window_)), at least 2 (tcp.cc). The first timeout, with cwnd = flight =
    // 10 segments, gives 5 in all three.
    use config::LossBasis;
    for (basis, expected) in [
        (LossBasis::FlightSize, 4500),
        (LossBasis::LinuxCwnd, 2000),
        (LossBasis::Ns2Window, 2000),
    ] {
        let mut c = plain(10, false, config::CcAlgorithm::NewReno);
        c.loss_basis = basis;
        c.send_window_cap = 20 * 1000;
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 20_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
        let first = s.poll_timeout().expect("armed");
        s.handle_timeout(first);
        assert_eq!(
            (s.probe().cwnd, s.probe().ssthresh),
            (1000, 5000),
            "{basis:?}"
        );
        drain_sender(&mut s, first);
        s.handle_segment(first + Dur::from_millis(50), &ack(1001, &[]));
        drain_sender(&mut s, first + Dur::from_millis(50));
        assert_eq!(s.probe().cwnd, 2000);
        let second = s.poll_timeout().expect("armed");
        s.handle_timeout(second);
        assert_eq!(s.probe().ssthresh, expected, "{basis:?}");
    }
}

// ---- ns-2's Sack1 duplicate-ACK rules (tcp-sack1.cc recv()) ----

/// A SACK sender as ns-2's Sack1 runs (its controller, window_ of 40 segments, recovery on
/// the third duplicate ACK only, the scoreboard forgotten at new ACKs), Limited Transmit off so
/// that only recovery sends, initial window `iw`, recovering by `recovery`.
fn ns2_recovery(iw: u32, recovery: config::SackRecovery) -> TcpConfig {
    let mut c = plain(iw, true, config::CcAlgorithm::Ns2Sack1);
    c.sack_recovery = recovery;
    c.sack_forget_on_new_ack = true;
    c.limited_transmit = false;
    c.sack_is_lost_trigger = false;
    c.loss_basis = config::LossBasis::Ns2Window;
    c.send_window_cap = 40_000;
    c
}

#[test]
fn after_a_timeout_ns2_counts_duplicate_acks_again_from_the_first_new_ack() {
    // tcp-sack1.cc: the first ACK of new data after a timeout clears timeout_, and the next
    // duplicate ACK counts and send_one() sends t_seqno_, which the timeout set back
    // (Limited Transmit on go-back-N data). RFC 6582 §3.2 counts none until everything
    // outstanding at the timeout is acknowledged.
    for ns2 in [false, true] {
        let mut c = plain(4, true, config::CcAlgorithm::NewReno);
        c.dupacks_after_timeout_new_ack = ns2;
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 20_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 4);
        let rto = s.poll_timeout().expect("retransmission timer");
        s.handle_timeout(rto);
        let out = drain_sender(&mut s, rto);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, TxKind::RetransmitTimeout);
        let t = rto + Dur::from_millis(100);
        s.handle_segment(t, &ack(1001, &[]));
        let out = drain_sender(&mut s, t);
        assert_eq!(out.len(), 2, "cwnd 2 after the new ACK");
        assert_eq!(out[1].segment.seq, SeqNum(2001));
        // The original of segment 4 arrives late: a duplicate ACK SACKing it.
        s.handle_segment(t, &ack(1001, &[(3001, 4001)]));
        let out = drain_sender(&mut s, t);
        if ns2 {
            assert_eq!(out.len(), 1, "send_one()");
            assert_eq!(out[0].segment.seq, SeqNum(3001));
        } else {
            assert!(out.is_empty(), "RFC 6582: not counted before recover");
        }
    }
}

#[test]
fn ns2_forgets_the_sack_scoreboard_at_a_new_ack_so_a_repeated_block_counts_again() {
    // tcp-sack1.cc recv(): ClearScoreBoard() on an ACK of new data outside fast recovery, so
    // a duplicate ACK repeating a SACK block seen before it is new to the scoreboard and
    // counts (here: Limited Transmit sends). RFC 6675 §2 keeps the scoreboard: no new SACK
    // information, no duplicate ACK.
    for forget in [false, true] {
        let mut c = plain(4, true, config::CcAlgorithm::NewReno);
        c.sack_forget_on_new_ack = forget;
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 40_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 4);
        let t = Time::from_millis(100);
        s.handle_segment(t, &ack(1, &[(2001, 3001)]));
        assert_eq!(drain_sender(&mut s, t).len(), 1, "Limited Transmit");
        s.handle_segment(t, &ack(1001, &[(2001, 3001)]));
        drain_sender(&mut s, t);
        s.handle_segment(t, &ack(1001, &[(2001, 3001)]));
        let out = drain_sender(&mut s, t);
        assert_eq!(out.len(), usize::from(forget), "forget {forget}");
    }
}

#[test]
fn ns2_sack1_recovery_sends_once_its_pipe_estimate_falls_below_cwnd() {
    // tcp-sack1.cc: at the fast retransmit pipe_ = maxseq_ - highest_ack_ - numdupacks_
    // (10 out, less 3: 7) and cwnd_ halves (10 -> 5); every further ACK takes one off pipe_
    // and send_much() sends while pipe_ < int(cwnd_), one more per packet: the next hole
    // with SACKed data above it (GetNextRetran), else new data. Segments 1 and 3 are lost:
    // the 6th duplicate ACK (pipe 4) retransmits segment 3, the 7th and 8th send new data.
    // RFC 6675's pipe (from the scoreboard) lets the 5th retransmit already.
    let run = |recovery| {
        let c = ns2_recovery(10, recovery);
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 40_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
        let t = Time::from_millis(100);
        let mut sent = Vec::new();
        for k in 1..=9u32 {
            // Duplicate ACK k: segment 2, then 2 and 4..=k+2, SACKed; ACK 9 is partial.
            let a = match k {
                1 => ack(1, &[(1001, 2001)]),
                9 => ack(2001, &[(3001, 10_001)]),
                _ => ack(1, &[(1001, 2001), (3001, 3001 + (k - 1) * 1000)]),
            };
            s.handle_segment(t, &a);
            for tx in drain_sender(&mut s, t) {
                sent.push((k, tx.kind, tx.segment.seq.0));
            }
        }
        sent
    };
    assert_eq!(
        run(config::SackRecovery::Ns2Sack1),
        [
            (3, TxKind::RetransmitFast, 1),
            (6, TxKind::RetransmitRecovery, 2001),
            (7, TxKind::New, 10_001),
            (8, TxKind::New, 11_001),
            // A partial ACK (segment 1's retransmission arrived): with partial_ack_ 0 pipe_
            // loses two (5 -> 3), so two new packets go out.
            (9, TxKind::New, 12_001),
            (9, TxKind::New, 13_001),
        ]
    );
    assert_ne!(
        run(config::SackRecovery::Rfc6675),
        run(config::SackRecovery::Ns2Sack1)
    );
}

#[test]
fn ns2_sack1_starting_recovery_sends_only_the_retransmission_and_keeps_sack_on_partial_acks() {
    // tcp-sack1.cc recv(): the ACK that calls dupack_action() sends nothing more (send_much
    // only `if (dupacks_ == 0)`), even with pipe_ (8 - 3) below the halved cwnd_ (10); and a
    // partial ACK keeps the scoreboard (ClearScoreBoard() only outside recovery), so the hole
    // at segment 3 is retransmitted at once. The transfer is 8 segments: no new data.
    let c = ns2_recovery(20, config::SackRecovery::Ns2Sack1);
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 8_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 8);
    let t = Time::from_millis(100);
    let mut sent = Vec::new();
    let acks = [
        ack(1, &[(1001, 2001)]),
        ack(1, &[(1001, 2001), (3001, 4001)]),
        ack(1, &[(1001, 2001), (3001, 5001)]),
        ack(2001, &[(3001, 5001)]),
    ];
    for (k, a) in acks.iter().enumerate() {
        s.handle_segment(t, a);
        for tx in drain_sender(&mut s, t) {
            sent.push((k + 1, tx.kind, tx.segment.seq.0));
        }
    }
    assert_eq!(
        sent,
        [
            (3, TxKind::RetransmitFast, 1),
            (4, TxKind::RetransmitRecovery, 2001)
        ]
    );
}

#[test]
fn ns2_sack1_may_start_recovery_again_at_the_old_recovery_point() {
    // tcp-sack1.cc sets recover_ = 0 when fast recovery ends, so a loss of the first packet
    // sent after the fast retransmit (at the old recovery point, 10001) is fast-retransmitted
    // on its third duplicate ACK; RFC 6582 §3.2 step 1 would wait for an ACK beyond it.
    let c = ns2_recovery(10, config::SackRecovery::Ns2Sack1);
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 40_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    let t = Time::from_millis(100);
    for k in 1..=9u32 {
        s.handle_segment(t, &ack(1, &[(1001, 1001 + k * 1000)]));
        drain_sender(&mut s, t);
    }
    // Segment 1's retransmission arrives: everything below the recovery point is in.
    s.handle_segment(t, &ack(10_001, &[]));
    drain_sender(&mut s, t);
    let mut fast = Vec::new();
    for k in 1..=3u32 {
        s.handle_segment(t, &ack(10_001, &[(11_001, 11_001 + k * 1000)]));
        for tx in drain_sender(&mut s, t) {
            if tx.kind == TxKind::RetransmitFast {
                fast.push((k, tx.segment.seq.0));
            }
        }
    }
    assert_eq!(fast, [(3, 10_001)]);
}

#[test]
fn ns2_sack1_restarts_the_timer_on_every_partial_ack() {
    // tcp-sack1.cc recv() with partial_ack_ 0: every partial ACK calls newtimer(), so the
    // retransmission timer runs from the latest one; RFC 6582 §3.2 step 5 resets it "for the
    // first partial ACK" only, so a second partial ACK leaves it where the first one set it.
    let timer_after_partials = |recovery| {
        let c = ns2_recovery(10, recovery);
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 10_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
        // Segments 1, 3 and 5 lost: three duplicate ACKs start recovery.
        let t = Time::from_millis(100);
        for a in [
            ack(1, &[(1001, 2001)]),
            ack(1, &[(1001, 2001), (3001, 4001)]),
            ack(1, &[(1001, 2001), (3001, 4001), (5001, 6001)]),
        ] {
            s.handle_segment(t, &a);
            drain_sender(&mut s, t);
        }
        let t1 = Time::from_millis(200);
        s.handle_segment(t1, &ack(2001, &[(3001, 4001), (5001, 10_001)]));
        drain_sender(&mut s, t1);
        let after_first = s.poll_timeout().expect("timer running");
        let t2 = Time::from_millis(300);
        s.handle_segment(t2, &ack(4001, &[(5001, 10_001)]));
        drain_sender(&mut s, t2);
        assert!(s.probe().in_recovery, "both ACKs are partial");
        (
            after_first,
            s.poll_timeout().expect("timer running"),
            t2 + s.probe().rto,
        )
    };
    // With SACK, RFC 6298 (5.3) in both recoveries (tests/rules.rs: without SACK, the first
    // partial ACK only).
    for recovery in [
        config::SackRecovery::Ns2Sack1,
        config::SackRecovery::Rfc6675,
    ] {
        let (_, after_second, t2_plus_rto) = timer_after_partials(recovery);
        assert_eq!(after_second, t2_plus_rto, "{recovery:?}");
    }
}

mod dsack;
mod notice;
mod pacing;
mod paws;
mod rack;
mod rules;
mod spurious;
mod tlp;
mod undo;
