//! Rules of loss recovery, the FIN, timestamps, the handshake and the sequence space that a
//! review against the RFCs, ns-2.35 and Linux found missing (each test fails without its rule).

use super::*;
use crate::tcp::config::{
    CcAlgorithm, CwndValidation, FastRetransmitTimer, LossBasis, TimeoutSsthresh,
};

/// `plain` with SACK, NewReno, no Limited Transmit: recovery starts on the third duplicate
/// ACK (or IsLost) and nothing else is sent on the first two.
fn sack_sender(iw: u32, bytes: u64, c: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let mut cf = plain(iw, true, CcAlgorithm::NewReno);
    cf.limited_transmit = false;
    c(&mut cf);
    TcpSender::new(&cf, 1, 2, SeqNum(0), bytes)
}

/// Three duplicate ACKs of `una`, SACKing the 1000-byte segments after the next one by one.
fn three_dupacks(s: &mut TcpSender, una: u32, t: Time) -> Vec<Transmit> {
    let mut out = Vec::new();
    for k in 1..=3u32 {
        s.handle_segment(t, &ack(una, &[(una + 1000, una + 1000 + k * 1000)]));
        out.extend(drain_sender(s, t));
    }
    out
}

// ---- Tests for the retransmission timer in loss recovery ----

#[test]
fn fast_retransmit_restarts_the_timer_and_ns2_also_stops_timing() {
    // ns-2.35 tcp-sack1.cc dupack_action(): reset_rtx_timer(1, 0) restarts the timer and
    // sets rtt_active_ = 0; Linux re-arms the RTO when it retransmits the head
    // (tcp_xmit_retransmit_queue). Left running, the timer keeps the deadline of the last new
    // ACK. RTO here: 1 s (RFC 6298 (2.4) minimum, the profile's).
    for (rule, deadline_ms, samples) in [
        (FastRetransmitTimer::Keep, 1100, 2),
        (FastRetransmitTimer::Restart, 1900, 2),
        (FastRetransmitTimer::Ns2Reset, 1900, 1),
    ] {
        let mut s = sack_sender(8, 100_000, |c| c.timer_at_fast_retransmit = rule);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 8);
        // A new ACK at 100 ms: first RTT sample, timer to 1.1 s; slow start sends two more,
        // the first of them timed.
        let t = Time::from_millis(100);
        s.handle_segment(t, &ack(1001, &[]));
        assert_eq!(drain_sender(&mut s, t).len(), 2);
        assert_eq!(s.poll_timeout(), Some(Time::from_millis(1100)));
        let t = Time::from_millis(900);
        let out = three_dupacks(&mut s, 1001, t);
        assert_eq!(out[0].kind, TxKind::RetransmitFast);
        assert_eq!(
            s.poll_timeout(),
            Some(Time::from_millis(deadline_ms)),
            "{rule:?}"
        );
        // All acknowledged: the segment timed at 100 ms gives a sample unless ns-2 dropped it.
        s.handle_segment(Time::from_millis(1000), &ack(10_001, &[]));
        assert_eq!(s.stats().rtt_samples, samples, "{rule:?}");
    }
}

#[test]
fn without_sack_only_the_first_partial_ack_restarts_the_timer() {
    // RFC 6582 §3.2 step 5: "reset the retransmit timer" on the first partial ACK only (the
    // Impatient variant); with SACK every ACK of new data restarts it (RFC 6298 (5.3); see
    // ns2_sack1_restarts_the_timer_on_every_partial_ack).
    let mut c = plain(10, false, CcAlgorithm::NewReno);
    c.limited_transmit = false;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 10_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    let t = Time::from_millis(100);
    for _ in 0..3 {
        s.handle_segment(t, &ack(1, &[]));
        drain_sender(&mut s, t);
    }
    let t1 = Time::from_millis(200);
    s.handle_segment(t1, &ack(2001, &[]));
    drain_sender(&mut s, t1);
    let after_first = s.poll_timeout().expect("timer running");
    assert_eq!(after_first, t1 + s.probe().rto);
    let t2 = Time::from_millis(300);
    s.handle_segment(t2, &ack(4001, &[]));
    drain_sender(&mut s, t2);
    assert!(s.probe().in_recovery);
    assert_eq!(s.poll_timeout(), Some(after_first));
}

// ---- Tests for when a new recovery may start ----

#[test]
fn a_sack_sender_may_recover_again_once_the_ack_reaches_the_recovery_point() {
    // RFC 6675 §5.1: no new recovery "until HighACK is greater than or equal to the new value
    // of RecoveryPoint" (HighACK = SND.UNA - 1, RecoveryPoint = HighData = recover - 1): at
    // SND.UNA = recover it may start. (RFC 6582's "covers more than recover" is for NewReno
    // without SACK; ns-2's Sack1 clears its recover_ when recovery ends.)
    let mut s = sack_sender(10, 100_000, |_| {});
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    // Segment 1 lost: nine duplicate ACKs SACK segments 2..10; recovery from the third,
    // RecoveryPoint 10001, new data as the pipe drains.
    let t = Time::from_millis(100);
    for k in 1..=9u32 {
        s.handle_segment(t, &ack(1, &[(1001, 1001 + k * 1000)]));
        drain_sender(&mut s, t);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    // The retransmission arrives: everything up to the recovery point is acknowledged.
    let t = Time::from_millis(200);
    s.handle_segment(t, &ack(10_001, &[]));
    let sent = drain_sender(&mut s, t);
    assert!(!s.probe().in_recovery);
    let highest = sent
        .iter()
        .map(|x| x.segment.seq + x.segment.len)
        .max()
        .expect("sends");
    assert!(highest >= SeqNum(14_001), "{highest:?}");
    // Segment 10001 is lost now: three duplicate ACKs at SND.UNA = 10001 = recover.
    let t = Time::from_millis(300);
    for k in 1..=3u32 {
        s.handle_segment(t, &ack(10_001, &[(11_001, 11_001 + k * 1000)]));
        drain_sender(&mut s, t);
    }
    assert_eq!(
        s.stats().fast_retransmits,
        2,
        "a second recovery at the point"
    );
    assert_eq!(s.stats().timeouts, 0);
}

// ---- Tests for the FIN ----

#[test]
fn an_out_of_order_fin_is_kept_and_acknowledged_when_the_hole_fills() {
    // RFC 9293 §3.10.7.4: a FIN above a hole takes effect when RCV.NXT reaches it.
    let mut r = receiver(200);
    let mut last = data(1001, 1000);
    last.flags = Flags::ACK | Flags::FIN;
    r.handle_segment(Time::ZERO, &last);
    let a = r
        .poll_transmit(Time::ZERO)
        .expect("out of order: ACK at once");
    assert_eq!(a.segment.ack, SeqNum(1));
    r.handle_segment(Time::from_millis(1), &data(1, 1000));
    let a = r
        .poll_transmit(Time::from_millis(1))
        .expect("the FIN is ACKed at once");
    assert_eq!(a.segment.ack, SeqNum(2002), "data and FIN");
    assert_eq!(r.delivered_bytes(), 2000);
}

#[test]
fn a_timeout_with_only_the_fin_outstanding_resends_the_fin() {
    // RFC 6298 (5.4): the earliest segment not acknowledged goes again: here the FIN, not an
    // empty data segment.
    let mut c = plain(4, true, CcAlgorithm::NewReno);
    c.fin = true;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 1000);
    let first = drain_sender(&mut s, Time::ZERO);
    assert_eq!(first.len(), 2);
    assert!(first[1].segment.flags.contains(Flags::FIN));
    s.handle_segment(Time::from_millis(100), &ack(1001, &[]));
    let at = s.poll_timeout().expect("FIN outstanding");
    s.handle_timeout(at);
    let out = drain_sender(&mut s, at);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, TxKind::RetransmitTimeout);
    assert!(out[0].segment.flags.contains(Flags::FIN));
    assert_eq!((out[0].segment.seq, out[0].segment.len), (SeqNum(1001), 0));
    s.handle_segment(at + Dur::from_millis(100), &ack(1002, &[]));
    assert!(s.is_complete());
}

#[test]
fn a_transfer_whose_fin_arrives_before_a_repaired_hole_ends_without_a_timeout() {
    // The Fig. 1 case in small: a segment lost near the end, the FIN arrives above the hole;
    // the fast retransmission fills it and the receiver's ACK covers the FIN at once.
    let mut c = cfg("rfc");
    c.delack.enabled = false;
    let mut p = Pair::new(&c, 14_600, 10_000_000, Dur::from_millis(20));
    p.drop_once = vec![1 + 5 * 1460];
    p.run(Time::from_secs(30));
    assert!(p.s.is_complete());
    assert_eq!((p.s.stats().timeouts, p.s.stats().fast_retransmits), (0, 1));
    assert_eq!(p.r.delivered_bytes(), 14_600);
}

#[test]
fn a_lost_fin_is_resent_by_the_timer() {
    let mut c = cfg("rfc");
    c.delack.enabled = false;
    let mut p = Pair::new(&c, 14_600, 10_000_000, Dur::from_millis(20));
    p.drop_fin_once = true;
    p.run(Time::from_secs(30));
    assert!(p.s.is_complete());
    assert_eq!(p.s.stats().timeouts, 1);
    let fins: Vec<TxKind> = p
        .log
        .iter()
        .filter(|(_, t)| t.segment.flags.contains(Flags::FIN))
        .map(|(_, t)| t.kind)
        .collect();
    assert_eq!(fins, vec![TxKind::New, TxKind::RetransmitTimeout]);
}

// ---- Tests for ssthresh at a retransmission timeout ----

#[test]
fn linux_keeps_ssthresh_on_back_to_back_timeouts_and_ns2_halves_again() {
    // Linux tcp_enter_loss reduces ssthresh only outside Loss (or once an ACK reset the
    // backoff): a second timeout keeps the first's, CUBIC's 10·717/1024 = 7 packets. ns-2's
    // slowdown() halves min(cwnd_, window_) = 1 again: 2 packets. (RFC 5681 §3.1 holds it
    // as Linux does: next test.)
    let mut c = cfg("linux");
    c.tlp = false; // the timer here is the RTO, with no tail loss probe before it
    c.handshake = false;
    c.fin = false;
    let mss = c.mss;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    for _ in 0..2 {
        let at = s.poll_timeout().expect("timer");
        s.handle_timeout(at);
        drain_sender(&mut s, at);
        assert_eq!(s.probe().ssthresh, 7 * mss);
        assert_eq!(s.probe().cwnd, mss);
    }
    let mut c = cfg("ns2");
    c.one_way_syn = false;
    let mss = c.mss;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    drain_sender(&mut s, Time::ZERO);
    let at = s.poll_timeout().expect("timer");
    s.handle_timeout(at);
    assert_eq!(
        s.probe().ssthresh,
        2 * mss,
        "min(cwnd_ 2, window_) / 2 -> 2"
    );
    let at = s.poll_timeout().expect("timer");
    s.handle_timeout(at);
    assert_eq!(s.probe().ssthresh, 2 * mss);
}

#[test]
fn rfc5681_holds_ssthresh_when_the_timers_own_retransmission_times_out() {
    // RFC 5681 §3.1: "when ... the given segment has already been retransmitted by way of the
    // retransmission timer at least once, the value of ssthresh is held constant". Shown with
    // a cwnd-based halving, where a second eq. (4) would give 2 SMSS.
    for (rule, second) in [
        (TimeoutSsthresh::Rfc5681, 4000),
        (TimeoutSsthresh::Always, 2000),
    ] {
        let mut s = sack_sender(8, 100_000, |c| {
            c.timeout_ssthresh = rule;
            c.loss_basis = LossBasis::Ns2Window;
        });
        drain_sender(&mut s, Time::ZERO);
        let at = s.poll_timeout().expect("timer");
        s.handle_timeout(at);
        assert_eq!(s.probe().ssthresh, 4000, "half of cwnd 8000");
        let at = s.poll_timeout().expect("timer");
        s.handle_timeout(at);
        assert_eq!(s.probe().ssthresh, second, "{rule:?}");
    }
}

#[test]
fn linux_keeps_the_fast_retransmit_ssthresh_at_a_timeout_during_recovery() {
    // tcp_enter_loss in Recovery before high_seq: no second reduction (ssthresh stays
    // CUBIC's 10·717/1024 = 7 packets of the fast retransmit); cwnd goes to the loss window.
    let mut c = cfg("linux");
    c.handshake = false;
    c.fin = false;
    c.timestamps = false;
    c.limited_transmit = false;
    let mss = c.mss;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    let t = Time::from_millis(100);
    for k in 1..=3u32 {
        s.handle_segment(t, &ack(1, &[(1 + mss, 1 + (k + 1) * mss)]));
        drain_sender(&mut s, t);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.probe().ssthresh, 7 * mss);
    let at = s.poll_timeout().expect("timer");
    s.handle_timeout(at);
    assert_eq!((s.probe().ssthresh, s.probe().cwnd), (7 * mss, mss));
}

// ---- Tests for SACK after a retransmission timeout ----

#[test]
fn after_a_timeout_what_the_scoreboard_shows_sacked_is_not_resent() {
    // RFC 6675 §5.1: "A SACK TCP sender SHOULD utilize all SACK information made available
    // during the loss recovery following an RTO" (Linux keeps its SACKed marks). ns-2's Sack1
    // clears the scoreboard and goes back N.
    for (keeps, expect) in [
        (true, vec![1, 1001, 2001, 5001, 6001]),
        (false, vec![1, 1001, 2001, 3001, 4001]),
    ] {
        let mut s = sack_sender(8, 8000, |c| c.rto_keeps_sack = keeps);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 8);
        // One duplicate ACK SACKs segments 4 and 5: not enough for recovery.
        s.handle_segment(Time::from_millis(100), &ack(1, &[(3001, 5001)]));
        assert!(drain_sender(&mut s, Time::from_millis(100)).is_empty());
        let at = s.poll_timeout().expect("timer");
        s.handle_timeout(at);
        let mut resent: Vec<u32> = drain_sender(&mut s, at)
            .iter()
            .map(|t| t.segment.seq.0)
            .collect();
        // The ACKs of the first two resent segments, still SACKing 4 and 5: slow start opens
        // cwnd to 3 segments; what the scoreboard shows is not counted in flight nor resent.
        for (k, una) in [(1u64, 1001), (2, 2001)] {
            let t = at + Dur::from_millis(100 * k);
            s.handle_segment(t, &ack(una, &[(3001, 5001)]));
            resent.extend(drain_sender(&mut s, t).iter().map(|x| x.segment.seq.0));
        }
        assert_eq!(resent, expect, "keeps SACK: {keeps}");
    }
}

// ---- Tests for NextSeg (RFC 6675 §4) ----

#[test]
fn a_rescue_retransmission_repairs_a_lost_tail_once_per_recovery() {
    // RFC 6675 §4 NextSeg rule (4): when rules (1)-(3) find nothing and unSACKed data is
    // outstanding, one segment holding the highest unSACKed octet, once per recovery.
    // Segments 1 and 5 of 5 lost; the fast retransmission of 1 is ACKed up to 4001.
    for (rescue, expect) in [(true, vec![4001]), (false, vec![])] {
        let mut s = sack_sender(5, 5000, |c| c.rescue_retransmission = rescue);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 5);
        let out = three_dupacks(&mut s, 1, Time::from_millis(100));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].segment.seq, SeqNum(1));
        let t = Time::from_millis(200);
        s.handle_segment(t, &ack(4001, &[]));
        let out = drain_sender(&mut s, t);
        let seqs: Vec<u32> = out.iter().map(|x| x.segment.seq.0).collect();
        assert_eq!(seqs, expect, "rescue: {rescue}");
        assert!(out.iter().all(|x| x.kind == TxKind::RetransmitRecovery));
        // Once per recovery: a further partial ACK does not rescue again.
        s.handle_segment(t, &ack(4001, &[]));
        assert!(drain_sender(&mut s, t).is_empty());
    }
}

#[test]
fn a_new_recovery_does_not_resend_a_segment_whose_retransmission_is_in_flight() {
    // Linux's tcp_xmit_retransmit_queue skips a segment marked TCPCB_SACKED_RETRANS (set by
    // tcp_retransmit_skb, cleared when it is (S)ACKed or tcp_mark_skb_lost marks it lost
    // again); RFC 6675's HighRxt, reset to SND.UNA at each recovery (§5 step 4), does not
    // remember it. Segment 1 is lost, and so is the first new segment sent in its recovery,
    // N = 10001: NextSeg rule 1 resends N once three segments above it are SACKed. The
    // ACK of segment 1's retransmission reaches the recovery point (10001) and ends the
    // recovery; the next SACK starts a new one at SND.UNA = N, whose retransmission is in
    // flight: with the marks it is not sent a third time.
    let run = |marks: bool| {
        let mut s = sack_sender(10, 1_000_000, |c| {
            c.rescue_retransmission = false;
            c.retransmission_marks = marks;
        });
        let mut all: Vec<Transmit> = Vec::new();
        let n = |all: &[Transmit]| {
            all.iter()
                .filter(|t| t.segment.seq == SeqNum(10_001))
                .count()
        };
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
        let t = Time::from_millis(100);
        let out = three_dupacks(&mut s, 1, t);
        assert_eq!(out[0].segment.seq, SeqNum(1));
        all.extend(out);
        for k in 4..=9u32 {
            let t = Time::from_millis(100 + k as u64);
            s.handle_segment(t, &ack(1, &[(1001, 1001 + k * 1000)]));
            all.extend(drain_sender(&mut s, t));
        }
        assert_eq!(n(&all), 1, "N went out new in the first recovery");
        // N lost: 11001.. SACKed one by one; the third makes N lost (IsLost).
        for k in 1..=3u32 {
            let t = Time::from_millis(200 + k as u64);
            s.handle_segment(t, &ack(1, &[(11_001, 11_001 + k * 1000), (1001, 10_001)]));
            all.extend(drain_sender(&mut s, t));
        }
        assert_eq!(n(&all), 2, "N resent once in the first recovery");
        // Segment 1's retransmission acknowledged: the recovery point, the end of recovery.
        let t = Time::from_millis(210);
        s.handle_segment(t, &ack(10_001, &[(11_001, 14_001)]));
        all.extend(drain_sender(&mut s, t));
        assert!(!s.probe().in_recovery);
        let high = all.iter().map(|t| t.segment.seq.0 + t.segment.len).max();
        assert!(high >= Some(15_001), "{high:?}");
        // One more segment above N SACKed: IsLost(SND.UNA), a new recovery.
        let t = Time::from_millis(220);
        s.handle_segment(t, &ack(10_001, &[(11_001, 15_001)]));
        all.extend(drain_sender(&mut s, t));
        assert!(s.probe().in_recovery);
        n(&all)
    };
    assert_eq!(run(true), 2);
    assert_eq!(run(false), 3, "RFC 6675 alone resends it");
}

// ---- Tests for timestamps ----

#[test]
fn ts_recent_is_taken_only_up_to_the_last_ack_sent() {
    // RFC 7323 §4.3 (2): SEG.TSval goes to TS.Recent only if SEG.SEQ <= Last.ACK.sent: with
    // an ACK delayed over two segments, it echoes the first one's TSval, so the sender's RTT
    // sample includes the delay.
    let mut c = cfg("linux");
    c.handshake = false;
    c.delack.quickack_segments = 0;
    c.mss = 1000;
    let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(0));
    let mut first = data(1, 1000);
    first.options.timestamps = Some((10, 0));
    r.handle_segment(Time::from_millis(10), &first);
    assert!(r.poll_transmit(Time::from_millis(10)).is_none(), "delayed");
    let mut second = data(1001, 1000);
    second.options.timestamps = Some((30, 0));
    r.handle_segment(Time::from_millis(30), &second);
    let a = r
        .poll_transmit(Time::from_millis(30))
        .expect("every second");
    assert_eq!(a.segment.ack, SeqNum(2001));
    assert_eq!(a.segment.options.timestamps.map(|t| t.1), Some(10));
    // The next segment starts at Last.ACK.sent: its TSval is taken.
    let mut third = data(2001, 1000);
    third.options.timestamps = Some((50, 0));
    r.handle_segment(Time::from_millis(50), &third);
    r.handle_timeout(Time::from_millis(90));
    let a = r.poll_transmit(Time::from_millis(90)).expect("timer");
    assert_eq!(a.segment.options.timestamps.map(|t| t.1), Some(50));
}

// ---- Tests for the handshake ----

#[test]
fn the_handshake_gives_an_rtt_sample_unless_the_syn_ack_was_resent() {
    // RFC 6298 §2 allows it; Linux's passive side takes it (tcp_synack_rtt_meas). Karn: not
    // from a retransmitted SYN-ACK.
    let c = cfg("rfc");
    let syn = |r: &mut TcpReceiver| r.poll_transmit(Time::ZERO).expect("SYN").segment;
    for lose_first in [false, true] {
        let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(100));
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(5000), 10_000);
        s.handle_segment(Time::ZERO, &syn(&mut r));
        let mut synack = drain_sender(&mut s, Time::ZERO).remove(0).segment;
        let mut t = Time::ZERO;
        if lose_first {
            t = s.poll_timeout().expect("SYN-ACK timer");
            s.handle_timeout(t);
            synack = drain_sender(&mut s, t).remove(0).segment;
        }
        let t_ack = t + Dur::from_millis(80);
        r.handle_segment(t_ack, &synack);
        let ack_of_synack = r.poll_transmit(t_ack).expect("ACK").segment;
        s.handle_segment(t_ack, &ack_of_synack);
        assert_eq!(s.stats().rtt_samples, u64::from(!lose_first));
        if !lose_first {
            assert_eq!(s.probe().srtt, Dur::from_millis(80));
        }
    }
}

// ---- Tests for congestion window validation ----

#[test]
fn cwnd_stops_growing_when_the_receive_window_limits_the_sender() {
    // Linux tcp_is_cwnd_limited (RFC 7661 §4.3's rule): in slow start cwnd grows only while
    // below twice the most segments out; the receiver here holds the sender to 4 segments.
    // Without validation (RFC 5681 as written, ns-2) cwnd grows by SMSS per ACK regardless.
    for (rule, bound) in [
        (CwndValidation::CwndLimited, 21_000u32),
        (CwndValidation::Off, u32::MAX),
    ] {
        let mut s = sack_sender(10, 10_000_000, |c| {
            c.cwnd_validation = rule;
            c.window_scale = None;
        });
        let mut t = Time::ZERO;
        let mut out = drain_sender(&mut s, t);
        let mut next_ack = SeqNum(1);
        for _ in 0..200 {
            t += Dur::from_millis(10);
            let Some(tx) = out.first().cloned() else {
                break;
            };
            out.remove(0);
            next_ack = next_ack.max(tx.segment.seq + tx.segment.len);
            let mut a = ack(next_ack.0, &[]);
            a.window = 4000;
            s.handle_segment(t, &a);
            out.extend(drain_sender(&mut s, t));
        }
        let cwnd = s.probe().cwnd;
        if rule == CwndValidation::Off {
            assert!(cwnd > 150_000, "{cwnd}");
        } else {
            assert!(cwnd <= bound, "{cwnd}");
        }
    }
}

// ---- Tests for the sequence space ----

#[test]
fn a_transfer_crosses_the_32_bit_wrap_with_losses_on_both_sides_of_it() {
    // RFC 9293 §3.4: sequence numbers are modulo 2^32; comparisons hold within a window. The
    // sender's ISS puts the wrap in the 14th segment; the 13th and the 15th are lost.
    let c = cfg("rfc");
    let iss = SeqNum(u32::MAX - 20_000);
    let mut p = Pair::with_iss(&c, 200_000, 10_000_000, Dur::from_millis(10), iss);
    let seg = |k: u32| (iss + 1 + k * 1460).0;
    assert!(seg(13) > seg(14), "the 14th segment starts past the wrap");
    p.drop_once = vec![seg(12), seg(14)];
    p.run(Time::from_secs(30));
    assert!(p.s.is_complete());
    assert_eq!(p.r.delivered_bytes(), 200_000);
    assert_eq!(p.retransmissions_of(seg(12)).len(), 1);
    assert_eq!(p.retransmissions_of(seg(14)).len(), 1);
    assert_eq!(p.s.stats().timeouts, 0);
}

#[test]
fn transfers_of_2_gib_and_more_start_and_end_where_they_should() {
    // 2^31 bytes and more are handed to the sender a buffer at a time: it sends from the
    // start, and is complete only when the last byte (and FIN) is acknowledged, however many
    // times the sequence numbers wrap.
    for bytes in [(1u64 << 31) + 1000, 5 << 30] {
        let mut s = sack_sender(4, bytes, |c| c.fin = true);
        let out = drain_sender(&mut s, Time::ZERO);
        assert_eq!(out.len(), 4, "{bytes}");
        assert!(out.iter().all(|t| t.segment.len == 1000));
        assert!(!s.is_complete());
    }
}

#[test]
fn sack_recovery_sends_new_data_when_nothing_is_sacked() {
    // RFC 6675 §4 NextSeg rule (2) does not depend on SACK information: after a partial ACK
    // that leaves no SACKed block, new data may still go out while pipe < cwnd.
    let mut s = sack_sender(5, 100_000, |_| {});
    drain_sender(&mut s, Time::ZERO);
    three_dupacks(&mut s, 1, Time::from_millis(100));
    let t = Time::from_millis(200);
    s.handle_segment(t, &ack(4001, &[]));
    let out = drain_sender(&mut s, t);
    assert!(
        s.probe().in_recovery,
        "4001 is below the recovery point 5001"
    );
    assert!(out.iter().any(|x| x.kind == TxKind::New), "{out:?}");
}

#[test]
fn linux_2_0_after_a_timeout_sends_no_new_data_and_times_nothing_until_all_is_acked() {
    // Linux 2.0 tcp_ack: `if (sk->retransmits) flag |= 2` (no RTT sample) and the write queue
    // moves only while `sk->retransmits == 0`, which is cleared when the retransmission queue
    // empties.
    let mut c = cfg("linux-2.0");
    c.handshake = false;
    c.fin = false;
    c.initial_window_segments = 4;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    let mut sent = drain_sender(&mut s, Time::ZERO);
    assert_eq!(sent.len(), 4);
    s.handle_segment(Time::from_millis(100), &ack(1461, &[]));
    sent.extend(drain_sender(&mut s, Time::from_millis(100)));
    let max = sent
        .iter()
        .map(|t| t.segment.seq + t.segment.len)
        .max()
        .expect("sent");
    let samples = s.stats().rtt_samples;
    assert_eq!(samples, 1);
    let t = s.poll_timeout().expect("timer");
    s.handle_timeout(t);
    drain_sender(&mut s, t);
    // ACKs below everything sent: segments freed, no sample, nothing new sent.
    let t2 = t + Dur::from_millis(50);
    s.handle_segment(t2, &ack(4381, &[]));
    let out = drain_sender(&mut s, t2);
    assert!(
        out.iter().all(|x| x.segment.seq < max),
        "new data while retransmitting"
    );
    assert_eq!(s.stats().rtt_samples, samples);
    // Everything outstanding acknowledged: new data flows, and the next ACK is timed.
    let t3 = t2 + Dur::from_millis(50);
    s.handle_segment(t3, &ack(max.0, &[]));
    let out = drain_sender(&mut s, t3);
    assert!(out.iter().any(|x| x.segment.seq >= max));
    assert_eq!(s.stats().rtt_samples, samples);
    let t4 = t3 + Dur::from_millis(50);
    s.handle_segment(t4, &ack(max.0 + 1460, &[]));
    assert_eq!(s.stats().rtt_samples, samples + 1);
}

// ---- Tests for Proportional Rate Reduction (RFC 6937) ----

#[test]
fn prr_sends_in_proportion_while_pipe_exceeds_ssthresh_where_rfc6675_waits() {
    // RFC 6937 §3 / Linux tcp_cwnd_reduction: 20 segments out (cwnd 20, CUBIC ssthresh
    // 20·717/1024 = 14), segment 1 lost, each duplicate ACK SACKing one more. Recovery starts
    // on the third (IsLost: 3 SACKed): pipe = 20 − 1 lost − 3 SACKed = 16 > 14; PRR allows
    // ceil(14·1/20) − 0 = 1, the fast retransmission (pipe 17). The fourth delivers one more:
    // ceil(14·2/20) − 1 = 1 new segment, while RFC 6675 (cwnd = ssthresh = 14 < pipe 16)
    // sends nothing until pipe falls below 14.
    let sent_after_4th = |prr: bool| {
        let mut c = cfg("linux");
        c.handshake = false;
        c.fin = false;
        c.timestamps = false;
        c.limited_transmit = false;
        c.initial_window_segments = 20;
        c.prr = prr;
        let mss = c.mss;
        let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 1_000_000);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 20);
        let t = Time::from_millis(100);
        let mut out = vec![];
        for k in 1..=4u32 {
            s.handle_segment(t, &ack(1, &[(1 + mss, 1 + (k + 1) * mss)]));
            out.push(drain_sender(&mut s, t).len());
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.probe().ssthresh, 14 * mss);
        out
    };
    assert_eq!(sent_after_4th(true), vec![0, 0, 1, 1]);
    assert_eq!(sent_after_4th(false), vec![0, 0, 1, 0]);
}
