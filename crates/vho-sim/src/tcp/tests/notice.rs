//! The handover notification (issue 19): the mobile's receiver carries it on its next ACK, at
//! once; the sender's remedies act on it and nothing else does.

use super::*;
use crate::tcp::segment::{HandoverNotice, RateChange};

fn established_receiver() -> TcpReceiver {
    let mut c = cfg("linux-2.0");
    c.handshake = false;
    let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(0));
    r.handle_segment(Time::ZERO, &data(1, 1460));
    while r.poll_transmit(Time::ZERO).is_some() {}
    r
}

#[test]
fn the_receiver_sends_the_notice_once_on_an_immediate_ack() {
    let mut r = established_receiver();
    let t = Time::from_millis(5);
    assert!(r.poll_transmit(t).is_none());
    r.notify_handover(HandoverNotice {
        from: 0,
        to: 1,
        rate: RateChange::Same,
    });
    let ack = r
        .poll_transmit(t)
        .expect("an ACK at once, not a delayed one");
    assert_eq!(
        ack.segment.options.handover_notice,
        Some(HandoverNotice {
            from: 0,
            to: 1,
            rate: RateChange::Same,
        })
    );
    // RFC 6994 experimental option: 7 bytes and a NOP on the wire.
    assert_eq!(ack.segment.options.wire_len(), 8);
    r.handle_segment(t, &data(1461, 1460));
    r.handle_segment(t, &data(2921, 1460));
    let next = r.poll_transmit(t).expect("an ACK");
    assert!(next.segment.options.handover_notice.is_none());
}

#[test]
fn a_receiver_that_has_heard_nothing_carries_the_notice_on_its_first_ack_not_at_once() {
    // A one-way receiver waiting for ns-2's modelled SYN: a pure ACK now would acknowledge a
    // SYN it has not seen (and let the sender start early). The notice waits for its first
    // ACK instead.
    let mut c = cfg("ns2");
    c.handshake = false;
    let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(0));
    let notice = HandoverNotice {
        from: 1,
        to: 0,
        rate: RateChange::Faster,
    };
    r.notify_handover(notice);
    assert!(r.poll_transmit(Time::from_millis(5)).is_none());
    r.handle_segment(Time::from_millis(9), &data(1, 1460));
    let mut first = None;
    while let Some(tx) = r.poll_transmit(Time::from_millis(300)) {
        first.get_or_insert(tx);
    }
    let first = first.or_else(|| {
        let t = r.poll_timeout().expect("the delayed-ACK timer");
        r.handle_timeout(t);
        r.poll_transmit(t)
    });
    assert_eq!(
        first.expect("an ACK").segment.options.handover_notice,
        Some(notice)
    );
}

/// A sender with 10 segments out and an RTO backed off twice.
fn backed_off(c: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let mut cf = cfg("linux-2.0");
    cf.handshake = false;
    cf.fin = false;
    cf.initial_window_segments = 10;
    c(&mut cf);
    let mut s = TcpSender::new(&cf, 1, 2, SeqNum(0), 100_000);
    drain_sender(&mut s, Time::ZERO);
    s.handle_segment(Time::from_millis(100), &ack(1461, &[]));
    drain_sender(&mut s, Time::from_millis(100));
    for _ in 0..2 {
        let t = s.poll_timeout().expect("timer");
        s.handle_timeout(t);
        drain_sender(&mut s, t);
    }
    s
}

fn notice(n: u32) -> Segment {
    let mut a = ack(n, &[]);
    a.options.handover_notice = Some(HandoverNotice {
        from: 0,
        to: 1,
        rate: RateChange::Same,
    });
    a
}

#[test]
fn rto_reset_puts_the_initial_rto_back_on_a_notice_and_nothing_else_does() {
    // Thesis §8.1: "reset the RTO value after a handover to an initial value".
    let mut s = backed_off(|c| c.rto_reset = true);
    let before = s.probe().rto;
    assert!(before > Dur::from_secs(1));
    let t = Time::from_secs(5);
    s.handle_segment(t, &notice(1461));
    assert_eq!(s.probe().rto, Dur::from_secs(3)); // Linux 2.0's TCP_TIMEOUT_INIT
    assert_eq!(s.poll_timeout(), Some(t + Dur::from_secs(3)));
    assert_eq!(s.stats().handover_notices, 1);
    // Not a duplicate ACK (it repeats SND.UNA only to carry the notice).
    assert_eq!(s.stats().dupacks_received, 0);
    // Without the remedy the notice changes nothing.
    let mut plain = backed_off(|_| {});
    let rto = plain.probe().rto;
    plain.handle_segment(t, &notice(1461));
    assert_eq!(plain.probe().rto, rto);
    assert_eq!(plain.stats().handover_notices, 1);
}

#[test]
fn new_path_also_restarts_the_window_from_the_initial_one() {
    // Thesis §7.1.5 / Daniel & Kojo §8: a new connection on the new path.
    let mut s = backed_off(|c| {
        c.new_path = true;
        c.initial_window_segments = 10;
    });
    s.handle_segment(Time::from_secs(5), &notice(1461));
    let p = s.probe();
    assert_eq!(p.cwnd, 10 * 1460);
    assert_eq!(p.ssthresh, 0x7fff_ffff);
    assert_eq!(p.rto, Dur::from_secs(3));
}

#[test]
fn rtt_injection_raises_the_estimate_on_a_return_to_a_known_interface() {
    // Cottingham & Vidales §7: "the last RTT seen on that particular type of interface,
    // possibly with a small fraction added on for safety". Interface 1 is slow (2 s RTT), 0
    // fast (20 ms): leaving 1 records its RTT; coming back to it injects 2 s + 25 %.
    let mut cf = cfg("rfc");
    cf.handshake = false;
    cf.fin = false;
    cf.rtt_injection = true;
    let mut s = TcpSender::new(&cf, 1, 2, SeqNum(0), 1_000_000);
    drain_sender(&mut s, Time::ZERO);
    s.handle_segment(Time::from_secs(2), &ack(1461, &[]));
    assert_eq!(s.probe().srtt, Dur::from_secs(2));
    let leave_slow = |n: u32, from: u8, to: u8| {
        let mut a = ack(n, &[]);
        a.options.handover_notice = Some(HandoverNotice {
            from,
            to,
            rate: RateChange::Same,
        });
        a
    };
    // 1 -> 0: nothing known of 0 yet.
    s.handle_segment(Time::from_secs(3), &leave_slow(1461, 1, 0));
    assert_eq!(s.stats().rtt_injections_without_hint, 1);
    assert_eq!(s.probe().srtt, Dur::from_secs(2));
    // The fast path's samples bring SRTT down (timestamps off: one timed segment each).
    let mut t = Time::from_secs(3);
    let mut una = 1461;
    for _ in 0..40 {
        drain_sender(&mut s, t);
        t += Dur::from_millis(20);
        una += 1460;
        s.handle_segment(t, &ack(una, &[]));
    }
    let fast = s.probe().srtt;
    assert!(fast < Dur::from_millis(1500), "{fast:?}");
    // 0 -> 1: back to the slow interface: SRTT >= 2 s + 25 %, RTO above it.
    s.handle_segment(t, &leave_slow(una, 0, 1));
    assert_eq!(s.stats().rtt_injections, 1);
    assert_eq!(s.probe().srtt, Dur::from_millis(2500));
    assert!(s.probe().rto > Dur::from_millis(2500));
}

// ---- Tests for adaptive-dupthresh (Daniel & Kojo §2; the rule: tcp/dupthresh.rs) ----

/// A NewReno sender (SMSS 1000, no Limited Transmit) with 8 segments out (1..8001) and the
/// adaptive threshold on.
fn eight_out() -> TcpSender {
    let mut c = super::plain(8, false, crate::tcp::config::CcAlgorithm::NewReno);
    c.limited_transmit = false;
    c.adaptive_dupthresh = true;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 8);
    s
}

fn notice_to(rate: RateChange) -> Segment {
    let mut a = ack(1, &[]);
    a.options.handover_notice = Some(HandoverNotice {
        from: 0,
        to: 1,
        rate,
    });
    a
}

/// Feeds `n` duplicate ACKs of `una` at `t`; returns what the sender sent on them.
fn dupacks(s: &mut TcpSender, una: u32, n: u32, t: Time) -> Vec<Transmit> {
    let mut out = Vec::new();
    for _ in 0..n {
        s.handle_segment(t, &ack(una, &[]));
        out.extend(drain_sender(s, t));
    }
    out
}

#[test]
fn after_a_move_to_a_faster_link_reordering_within_the_old_flight_makes_no_fast_retransmit() {
    // Daniel & Kojo §2 / §3.2 Fig. 2: after GPRS -> WLAN the segments sent over WLAN overtake
    // those still on GPRS; each makes a duplicate ACK. With 8 segments out when the notice
    // comes, the threshold is 8: seven duplicate ACKs (all the segments above the first
    // one) cannot trigger a fast retransmit.
    let mut s = eight_out();
    let t = Time::from_millis(100);
    s.handle_segment(t, &notice_to(RateChange::Faster));
    assert_eq!((s.dupthresh(), s.dupthresh_raises()), (8, 1));
    assert!(dupacks(&mut s, 1, 7, t).is_empty());
    assert_eq!(s.stats().fast_retransmits, 0);
    // The late segment arrives: everything sent before the notice is acknowledged, the
    // threshold is 3 again (RFC 5681 §3.2), and a real loss after it is repaired at the third
    // duplicate ACK.
    s.handle_segment(t, &ack(8001, &[]));
    assert_eq!(s.dupthresh(), 3);
    drain_sender(&mut s, t);
    let out = dupacks(&mut s, 8001, 3, t + Dur::from_millis(10));
    assert_eq!(out[0].kind, TxKind::RetransmitFast);
    assert_eq!(out[0].segment.seq, SeqNum(8001));
}

#[test]
fn a_move_to_a_slower_link_or_no_move_leaves_the_threshold_at_three() {
    // Fast -> slow: what is on the old, faster path arrives first; nothing to tolerate. A
    // notice without a rate change, or none: the same.
    for notice in [Some(RateChange::Slower), Some(RateChange::Same), None] {
        let mut s = eight_out();
        let t = Time::from_millis(100);
        if let Some(rate) = notice {
            s.handle_segment(t, &notice_to(rate));
        }
        assert_eq!((s.dupthresh(), s.dupthresh_raises()), (3, 0));
        let out = dupacks(&mut s, 1, 3, t);
        assert_eq!(out[0].kind, TxKind::RetransmitFast, "{notice:?}");
    }
    // Without the remedy a move to a faster link changes nothing either.
    let mut c = super::plain(8, false, crate::tcp::config::CcAlgorithm::NewReno);
    c.limited_transmit = false;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    drain_sender(&mut s, Time::ZERO);
    s.handle_segment(Time::from_millis(100), &notice_to(RateChange::Faster));
    assert_eq!(s.dupthresh(), 3);
}
