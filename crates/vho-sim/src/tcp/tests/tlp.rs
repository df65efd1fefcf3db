//! The tail loss probe (`tlp`, RFC 8985 §7; Linux's `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe`, `tcp_process_tlp_ack`).

use super::*;

/// `linux_bare`, `iw` segments first, a transfer of `segments` segments; `tlp` as given.
fn linux_sender(iw: u32, segments: u64, tlp: bool) -> TcpSender {
    let mut c = linux_bare();
    c.initial_window_segments = iw;
    c.tlp = tlp;
    TcpSender::new(&c, 1, 2, SeqNum(0), segments * 1000)
}

fn ms(t: u64) -> Time {
    Time::from_millis(t)
}

#[test]
fn a_lost_tail_segment_is_repaired_by_a_probe_at_two_srtt_plus_the_delayed_ack_allowance() {
    // tcp_schedule_loss_probe: PTO = 2·SRTT + tcp_rto_min (200 ms) with one segment out,
    // armed by the ACK (tcp_set_xmit_timer); tcp_send_loss_probe resends the highest segment
    // when there is no new data. Four segments: 1 and 1001 at 0 ms (timed: RTT 100 ms at the
    // ACK at 100 ms), 2001 and 3001 at 100 ms (2001 timed: RTT 500 ms at 600 ms). SRTT =
    // 7/8·100 + 1/8·500 = 150 ms. Segment 3001 is lost: the probe goes at 600 + 2·150 + 200
    // = 1100 ms, before the RTO (600 ms + RTO), and its ACK ends the transfer with no
    // timeout. Without TLP the RTO resends it.
    let run = |tlp| {
        let mut s = linux_sender(2, 4, tlp);
        assert_eq!(step(&mut s, ms(0)), vec![1, 1001]);
        s.handle_segment(ms(100), &ack(2001, &[]));
        assert_eq!(step(&mut s, ms(100)), vec![2001, 3001]);
        s.handle_segment(ms(600), &ack(3001, &[]));
        assert!(step(&mut s, ms(600)).is_empty());
        let p = s.probe();
        assert_eq!(p.srtt, Dur::from_millis(150));
        let rto_at = ms(600) + p.rto;
        let at = s.poll_timeout().expect("a timer");
        let sent = step(&mut s, at);
        assert_eq!(sent, vec![3001]);
        s.handle_segment(at + Dur::from_millis(150), &ack(4001, &[]));
        assert!(s.is_complete());
        (at, rto_at, s.stats().timeouts, s.stats().tlp_probes)
    };
    let (at, rto_at, timeouts, probes) = run(true);
    assert_eq!(at, ms(1100));
    assert!(at < rto_at, "the probe comes before the RTO ({rto_at:?})");
    assert_eq!((timeouts, probes), (0, 1));
    let (at, rto_at, timeouts, probes) = run(false);
    assert_eq!(at, rto_at);
    assert_eq!((timeouts, probes), (1, 0));
}

#[test]
fn the_probe_timeout_is_capped_by_the_rto() {
    // tcp_schedule_loss_probe: "If the RTO formula yields an earlier time, then use that
    // time" (tcp_rto_delta_us after a send). One RTT sample of 100 ms: SRTT 100 ms, Linux's
    // RTO 100 + 200 = 300 ms, less than 2·SRTT + 200 ms = 400 ms with one segment out. The
    // third segment, sent at 100 ms and lost, is probed at 100 + 300 ms — the probe, not a
    // timeout — and the RTO runs again from there (tcp_rearm_rto).
    let mut s = linux_sender(2, 3, true);
    step(&mut s, ms(0));
    s.handle_segment(ms(100), &ack(2001, &[]));
    assert_eq!(step(&mut s, ms(100)), vec![2001]);
    let p = s.probe();
    assert_eq!(
        (p.srtt, p.rto),
        (Dur::from_millis(100), Dur::from_millis(300))
    );
    assert_eq!(s.poll_timeout(), Some(ms(400)));
    assert_eq!(step(&mut s, ms(400)), vec![2001]);
    assert_eq!((s.stats().tlp_probes, s.stats().timeouts), (1, 0));
    assert_eq!(s.poll_timeout(), Some(ms(400) + s.probe().rto));
    // At most one probe per episode: the next expiry is the RTO.
    let at = s.poll_timeout().expect("the RTO");
    step(&mut s, at);
    assert_eq!((s.stats().tlp_probes, s.stats().timeouts), (1, 1));
}

#[test]
fn no_probe_is_scheduled_in_recovery() {
    // tcp_schedule_loss_probe returns at once outside Open (and CWR): RACK's recovery of
    // segment 1 (nine later segments SACKed) whose retransmission is lost too ends in the
    // retransmission timer, with no probe before it.
    let mut s = linux_sender(10, 10, true);
    assert_eq!(step(&mut s, ms(0)).len(), 10);
    let mut resent = false;
    for k in 1..=9u32 {
        let now = ms(100 + k as u64);
        s.handle_segment(now, &ack(1, &[(1001, 1 + (k + 1) * 1000)]));
        resent |= step(&mut s, now).contains(&1);
    }
    assert!(resent && s.stats().fast_retransmits == 1);
    let at = s.poll_timeout().expect("a timer");
    step(&mut s, at);
    assert_eq!((s.stats().tlp_probes, s.stats().timeouts), (0, 1));
}

#[test]
fn a_probe_whose_duplicate_is_d_sacked_reduces_nothing_but_one_that_repaired_a_loss_does() {
    // tcp_process_tlp_ack: a probe that resent a segment (tlp_retrans) and an ACK beyond
    // tlp_high_seq without D-SACK means the probe repaired a loss: tcp_init_cwnd_reduction,
    // CWR, tcp_end_cwnd_reduction (cwnd = ssthresh). A D-SACK of the probe (FLAG_DSACK_TLP)
    // says the original arrived too: no reduction. Ten segments at 0 ms; the ACK at 100 ms
    // covers nine and shrinks the window to 1000 bytes, so the probe cannot send new data and
    // resends 9001 (tlp_high_seq 10001). Then the ACK of 10001 (with the D-SACK or without),
    // the window reopens, and the ACK of new data at 11001 decides.
    let run = |dsack: bool| {
        let mut s = linux_sender(10, 100, true);
        assert_eq!(step(&mut s, ms(0)).len(), 10);
        let mut a = ack(9001, &[]);
        a.window = 1000;
        s.handle_segment(ms(100), &a);
        assert!(step(&mut s, ms(100)).is_empty());
        let at = s.poll_timeout().expect("the probe timer");
        assert_eq!(step(&mut s, at), vec![9001]);
        assert_eq!(s.stats().tlp_probes, 1);
        let t = at + Dur::from_millis(100);
        let blocks: &[(u32, u32)] = if dsack { &[(9001, 10001)] } else { &[] };
        s.handle_segment(t, &ack(10001, blocks));
        let cwnd_before = s.probe().cwnd;
        let sent = step(&mut s, t);
        assert_eq!(sent.first(), Some(&10001));
        s.handle_segment(t + Dur::from_millis(100), &ack(11001, &[]));
        (
            cwnd_before,
            s.probe().cwnd,
            s.probe().ssthresh,
            s.stats().tlp_recoveries,
        )
    };
    let (before, after, ssthresh, recoveries) = run(false);
    assert_eq!(recoveries, 1);
    assert!(after < before && after == ssthresh, "{before} -> {after}");
    let (before, after, _, recoveries) = run(true);
    assert_eq!(recoveries, 0);
    assert!(after >= before, "{before} -> {after}");
}

#[test]
fn the_sack_of_a_probe_lets_rack_mark_the_lost_tail_and_recover() {
    // RFC 8985 §7.1: the probe's SACK gives RACK a newer delivered segment, by which the
    // earlier segments of the tail, sent before it and unacknowledged for longer than
    // RACK.rtt + reo_wnd, are lost (tcp_rack_detect_loss): fast recovery resends the first,
    // with no timeout. Ten segments at 0 ms; the ACK at 100 ms covers 1-3 (RTT 100 ms), 4-10
    // are lost; the probe resends 10 (no new data: the window is shrunk to nothing more).
    let mut s = linux_sender(10, 100, true);
    assert_eq!(step(&mut s, ms(0)).len(), 10);
    let mut a = ack(3001, &[]);
    a.window = 7000;
    s.handle_segment(ms(100), &a);
    assert!(step(&mut s, ms(100)).is_empty());
    let at = s.poll_timeout().expect("the probe timer");
    assert_eq!(step(&mut s, at), vec![9001]);
    let t = at + Dur::from_millis(100);
    let mut a = ack(3001, &[(9001, 10001)]);
    a.window = 7000;
    s.handle_segment(t, &a);
    let sent = step(&mut s, t);
    assert_eq!(s.stats().fast_retransmits, 1, "{sent:?}");
    assert_eq!(sent.first(), Some(&3001));
    assert_eq!(s.stats().timeouts, 0);
}
