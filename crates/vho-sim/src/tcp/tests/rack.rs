//! RACK at the sender (`LossDetection::Rack`, RFC 8985 §6; Linux's `tcp_rack_mark_lost`,
//! `tcp_time_to_recover`, `tcp_xmit_retransmit_queue`).

use super::*;
use crate::tcp::config::LossDetection;

/// `linux_bare`, ten segments out.
fn linux_sender(ld: LossDetection) -> TcpSender {
    let mut c = linux_bare();
    c.tlp = false; // the timer here is the RTO, with no tail loss probe before it
    c.initial_window_segments = 10;
    c.loss_detection = ld;
    TcpSender::new(&c, 1, 2, SeqNum(0), 1_000_000)
}

#[test]
fn a_lost_retransmission_is_sent_again_without_waiting_for_the_timer() {
    // RFC 8985 §6.2 (RACK judges retransmissions like originals; Linux counts them in
    // LINUX_MIB_TCPLOSTRETRANSMIT): segment 1 is lost twice. Ten segments leave at 0 ms; from
    // 101 ms one duplicate ACK a millisecond SACKs each of segments 2-10. RACK marks segment
    // 1 lost on the third (3 SACKed = reordering: reo_wnd 0) and it is resent; PRR lets new
    // segments out behind it. Its retransmission is lost too: when the first of those new
    // segments is SACKed, a round trip later, RACK marks it lost again (it was sent before
    // them and RACK.rtt has passed) and it goes a third time, with no timeout. RFC 6675's
    // NextSeg never resends below HighRxt: it waits for the retransmission timer (at 1 s).
    let run = |ld| {
        let mut s = linux_sender(ld);
        let first = step(&mut s, Time::ZERO);
        assert_eq!(first.len(), 10);
        let mut head = 1; // sends of segment 1 (sequence number 1)
        let mut new_segments = vec![];
        let mut retransmitted_at = Time::ZERO;
        for k in 1..=9u32 {
            let now = Time::from_millis(100 + k as u64);
            s.handle_segment(now, &ack(1, &[(1001, 1 + (k + 1) * 1000)]));
            for seq in step(&mut s, now) {
                if seq == 1 {
                    head += 1;
                    retransmitted_at = now;
                } else {
                    new_segments.push((seq, now));
                }
            }
        }
        assert_eq!(head, 2, "one fast retransmission");
        assert!(!new_segments.is_empty());
        // Limited transmit sent the first two new segments before the retransmission: the
        // first SACK that can show it lost is that of the first new segment sent after it.
        let first_after = new_segments
            .iter()
            .position(|&(_, at)| at >= retransmitted_at)
            .expect("new data after the retransmission");
        assert_eq!(first_after, 2);
        let mut third_at = None;
        for (i, &(seq, _)) in new_segments.clone().iter().enumerate() {
            let now = Time::from_millis(201 + i as u64);
            s.handle_segment(now, &ack(1, &[(1001, seq + 1000)]));
            for seq in step(&mut s, now) {
                if seq == 1 && third_at.is_none() {
                    third_at = Some(now);
                }
            }
        }
        // Well before the retransmission timer (1 s without an RTT sample).
        step(&mut s, Time::from_millis(400));
        assert_eq!(s.stats().timeouts, 0);
        third_at
    };
    assert_eq!(run(LossDetection::Rack), Some(Time::from_millis(203)));
    assert_eq!(run(LossDetection::Rfc6675), None);
}

#[test]
fn with_fewer_than_reordering_segments_sacked_the_reorder_timer_starts_recovery() {
    // RFC 8985 §6.2 step 4 and §6.3 (tcp_rack_reo_wnd, tcp_rack_reo_timeout): one segment
    // SACKed after segment 1 is missing is not yet a loss (reo_wnd = min_rtt/4 = 25 ms with
    // RACK.rtt 100 ms); the reorder timer fires 100 + 25 ms after segment 1 was sent (+ 2
    // jiffies, TCP_TIMEOUT_MIN), marks it lost and starts recovery with its retransmission.
    // RFC 6675 needs DupThresh duplicate ACKs and sends nothing.
    let run = |ld| {
        let mut s = linux_sender(ld);
        step(&mut s, Time::ZERO);
        s.handle_segment(Time::from_millis(100), &ack(1, &[(9001, 10001)]));
        let mut sent = step(&mut s, Time::from_millis(100));
        sent.retain(|&q| q == 1);
        assert!(sent.is_empty(), "not at the first duplicate ACK");
        let deadline = s.poll_timeout().expect("a timer");
        let out = step(&mut s, deadline);
        (deadline, out.contains(&1), s.stats().fast_retransmits)
    };
    let (at, resent, fr) = run(LossDetection::Rack);
    assert_eq!(at, Time::from_millis(100 + 25 + 2));
    assert!(resent && fr == 1);
    let (at, resent, fr) = run(LossDetection::Rfc6675);
    assert_eq!(at, Time::from_secs(1)); // the retransmission timer
    assert!(resent && fr == 0); // ... and it is a timeout's resend
}

#[test]
fn resending_the_head_in_recovery_restarts_the_retransmission_timer() {
    // tcp_xmit_retransmit_queue: a retransmission of the head (skb == rtx_head) while the
    // slot holds no reorder timer calls tcp_rearm_rto, a full RTO from then. The sequence of
    // the first test: segment 1 goes at 0 ms, again at 103 ms (recovery at the third SACKed
    // segment; the timer restarts: 103 ms + the RTO then) and a third time at 203 ms, when
    // RACK finds its retransmission lost. The timer now runs from 203 ms, not from 103 ms.
    let mut s = linux_sender(LossDetection::Rack);
    step(&mut s, Time::ZERO);
    let mut new_segments = vec![];
    let mut resent_at = vec![];
    let mut rto_at_entry = None;
    for k in 1..=9u32 {
        let now = Time::from_millis(100 + k as u64);
        s.handle_segment(now, &ack(1, &[(1001, 1 + (k + 1) * 1000)]));
        for seq in step(&mut s, now) {
            if seq == 1 {
                resent_at.push(now);
                rto_at_entry = Some(s.probe().rto);
            } else {
                new_segments.push(seq);
            }
        }
    }
    assert_eq!(resent_at, [Time::from_millis(103)]);
    let entry_deadline = Time::from_millis(103) + rto_at_entry.expect("resent");
    assert_eq!(s.poll_timeout(), Some(entry_deadline));
    let mut rto_at_resend = None;
    for (i, &seq) in new_segments.iter().enumerate() {
        let now = Time::from_millis(201 + i as u64);
        s.handle_segment(now, &ack(1, &[(1001, seq + 1000)]));
        for seq in step(&mut s, now) {
            if seq == 1 {
                resent_at.push(now);
                rto_at_resend = Some(s.probe().rto);
            }
        }
    }
    assert_eq!(resent_at[1], Time::from_millis(203));
    let deadline = Time::from_millis(203) + rto_at_resend.expect("resent again");
    assert!(deadline > entry_deadline);
    assert_eq!(s.poll_timeout(), Some(deadline));
    // Nothing else moved the timer: it fires then, and not before.
    step(&mut s, deadline - Dur::from_millis(1));
    assert_eq!(s.stats().timeouts, 0);
    step(&mut s, deadline);
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn a_sack_of_a_never_retransmitted_segment_is_an_rtt_sample() {
    // tcp_clean_rtx_queue / tcp_ack_update_rtt: an ACK that acknowledges nothing new but
    // SACKs a segment never retransmitted times it (sack_rtt_us = now - its send time; no
    // seq_rtt_us without a cumulative ACK). Ten segments at 0 ms; at 100 ms one duplicate ACK
    // SACKs segment 2: the first sample, m = 100 ms, gives (tcp_rtt_estimator) srtt = 100 ms
    // and mdev = 2m = 200 ms, rttvar = max(mdev, tcp_rto_min 200 ms) = 200 ms, and
    // (__tcp_set_rto) RTO = srtt + rttvar = 300 ms. RFC 6675's linux profile takes no sample
    // from it: the RTO stays the initial 1 s (RFC 6298 (2.1)).
    let run = |ld| {
        let mut s = linux_sender(ld);
        step(&mut s, Time::ZERO);
        s.handle_segment(Time::from_millis(100), &ack(1, &[(1001, 2001)]));
        (s.probe().srtt, s.probe().rto, s.stats().rtt_samples)
    };
    assert_eq!(
        run(LossDetection::Rack),
        (Dur::from_millis(100), Dur::from_millis(300), 1)
    );
    assert_eq!(
        run(LossDetection::Rfc6675),
        (Dur::ZERO, Dur::from_secs(1), 0)
    );
}

// ---- RACK at a retransmission timeout ----

#[test]
fn a_timeout_resends_only_what_rack_marks_lost_not_what_was_sent_within_rack_rtt() {
    // tcp_timeout_mark_lost (net/ipv4/tcp_input.c) with RACK: the head is marked lost, another
    // segment only if sent at least rack.rtt ago (tcp_rack_skb_timeout(tp, skb, 0) <= 0); in
    // TCP_CA_Loss tcp_xmit_retransmit_queue resends only segments marked lost. Ten segments
    // leave at 0 ms; segment 1 is lost and the path slows down: SACKs of segments 2-10 come at
    // 100 ms and then ever later (rack.rtt grows to 390 ms), each letting new data out in the
    // fast recovery they start (PRR), while the retransmission of segment 1 is delayed too.
    // The timer fires: the new data, sent within the last rack.rtt, is not marked lost, and
    // not resent when the ACK of segment 1 opens the window; go-back-N resent all of it.
    let mut s = linux_sender(LossDetection::Rack);
    assert_eq!(step(&mut s, Time::ZERO).len(), 10);
    let mut new_data = vec![];
    for (k, at) in [100u64, 101, 102, 150, 200, 250, 300, 350, 390]
        .into_iter()
        .enumerate()
    {
        let now = Time::from_millis(at);
        s.handle_segment(now, &ack(1, &[(1001, 2001 + k as u32 * 1000)]));
        new_data.extend(step(&mut s, now).into_iter().filter(|&q| q >= 10_001));
    }
    assert!(new_data.len() >= 3, "{new_data:?}");
    let rto = s.poll_timeout().expect("armed");
    assert!(rto > Time::from_millis(390), "{rto:?}");
    assert_eq!(step(&mut s, rto), vec![1]);
    assert_eq!(s.stats().timeouts, 1);
    // The first retransmission of segment 1 arrives, delayed like the rest: the cumulative
    // ACK covers 1-10 10 ms after the timer's resend, sooner than min_rtt (100 ms), so RACK
    // cannot tell which copy arrived and judges nothing (tcp_rack_advance). What follows is
    // new data only: the data sent since 102 ms is still in flight, not lost.
    let later = rto + Dur::from_millis(10);
    s.handle_segment(later, &ack(10_001, &[]));
    let next = drain_sender(&mut s, later);
    assert!(!next.is_empty());
    assert!(
        next.iter().all(|t| t.kind == TxKind::New),
        "{:?}",
        next.iter()
            .map(|t| (t.segment.seq.0, t.kind))
            .collect::<Vec<_>>()
    );
    assert!(next[0].segment.seq.0 > *new_data.last().unwrap_or(&0));
    // Had that data been lost, RACK judges it once a segment sent after it is SACKed a
    // rack.rtt later; still in TCP_CA_Loss (below the recovery point), the lowest lost segment
    // goes first (tcp_xmit_retransmit_queue), though SND.NXT has passed it.
    let first_new = next[0].segment.seq.0;
    let sacked_at = later + Dur::from_millis(150);
    s.handle_segment(sacked_at, &ack(10_001, &[(first_new, first_new + 1000)]));
    let resent = drain_sender(&mut s, sacked_at);
    assert_eq!(
        resent.first().map(|t| (t.segment.seq.0, t.kind)),
        Some((10_001, TxKind::RetransmitRecovery))
    );
}
