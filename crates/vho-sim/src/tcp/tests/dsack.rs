//! D-SACK (RFC 2883): the receiver's D-SACK blocks, checked against the examples of RFC 2883
//! §4.1 and §4.2, and a sender that is not misled by them (RFC 2883 §2 and §5, RFC 6675 §2).

use super::*;

/// An rfc-profile receiver with `dsack` on and every segment acknowledged at once as in RFC
/// 2883's tables (then `change`), whose handshake sets RCV.NXT to 0: the SYN-ACK carries
/// sequence number 2^32 − 1, so that byte numbers are those of the RFC ("assuming the first
/// sequence number is zero", §4.1). The SYN-ACK permits SACK if `sack_permitted`.
fn rfc2883_receiver(sack_permitted: bool, change: impl FnOnce(&mut TcpConfig)) -> TcpReceiver {
    let mut c = cfg("rfc");
    c.dsack = true;
    c.delack.enabled = false;
    change(&mut c);
    let timestamps = c.timestamps;
    let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(0));
    let syn = r.poll_transmit(Time::ZERO).expect("the SYN");
    assert!(syn.segment.flags.contains(Flags::SYN));
    let mut synack = ack(1, &[]);
    synack.seq = SeqNum(u32::MAX);
    synack.flags = Flags::SYN | Flags::ACK;
    synack.options.mss = Some(1460);
    synack.options.sack_permitted = sack_permitted;
    synack.options.timestamps = timestamps.then_some((1, 1));
    r.handle_segment(Time::ZERO, &synack);
    let a = r.poll_transmit(Time::ZERO).expect("the handshake's ACK");
    assert_eq!(a.segment.ack, SeqNum(0));
    r
}

/// Bytes `first..=last` arrive (the RFC's "3000-3499"); returns the ACK sent at once, as the
/// RFC writes it: the cumulative ACK and the SACK blocks `[left, right)`.
fn arrive(r: &mut TcpReceiver, first: u32, last: u32) -> (u32, Vec<(u32, u32)>) {
    let mut seg = data(first, last + 1 - first);
    seg.options.timestamps = Some((2, 1));
    r.handle_segment(Time::ZERO, &seg);
    let a = r
        .poll_transmit(Time::ZERO)
        .expect("an ACK for every segment");
    let blocks = a.segment.options.sack.as_slice();
    (
        a.segment.ack.0,
        blocks.iter().map(|b| (b.0 .0, b.1 .0)).collect(),
    )
}

/// RFC 2883 §4.1: "the data receiver has first received eight segments of 500 bytes each, and
/// has sent an acknowledgement with the cumulative acknowledgement field set to 4000".
fn after_eight_segments(dsack: bool) -> TcpReceiver {
    let mut r = rfc2883_receiver(true, |c| c.dsack = dsack);
    for k in 0..8 {
        arrive(&mut r, k * 500, k * 500 + 499);
    }
    r
}

// ---- Tests for the receiver: RFC 2883 §4 ----

#[test]
fn example_1_a_duplicate_below_the_cumulative_ack_is_reported_once() {
    // RFC 2883 §4.1.1: after lost ACKs the sender resends 3000-3499; the receiver answers
    // "4000, SACK=3000-3500". Rule (2): the next ACK does not repeat it.
    let mut r = after_eight_segments(true);
    assert_eq!(arrive(&mut r, 3000, 3499), (4000, vec![(3000, 3500)]));
    assert_eq!(arrive(&mut r, 4000, 4499), (4500, vec![]));
    assert_eq!(r.stats().dsacks_sent, 1);
    // Rule (2): a second duplicate is a second report.
    assert_eq!(arrive(&mut r, 3000, 3499), (4500, vec![(3000, 3500)]));
}

#[test]
fn example_2_the_d_sack_block_comes_before_the_sack_blocks() {
    // RFC 2883 §4.1.2: 4000-4499 is lost, 4500-4999 arrives, then a duplicate of 3000-3499:
    // "4000, SACK=3000-3500, 4500-5000".
    let mut r = after_eight_segments(true);
    assert_eq!(arrive(&mut r, 4500, 4999), (4000, vec![(4500, 5000)]));
    assert_eq!(
        arrive(&mut r, 3000, 3499),
        (4000, vec![(3000, 3500), (4500, 5000)])
    );
}

#[test]
fn example_3_a_duplicate_of_out_of_order_data_is_followed_by_its_block() {
    // RFC 2883 §4.1.3: rule (4), the second block is the (larger) block holding the
    // duplicate: "4000, SACK=5000-5500, 4500-5500".
    let mut r = after_eight_segments(true);
    assert_eq!(arrive(&mut r, 4500, 4999), (4000, vec![(4500, 5000)]));
    assert_eq!(arrive(&mut r, 5000, 5499), (4000, vec![(4500, 5500)]));
    assert_eq!(
        arrive(&mut r, 5000, 5499),
        (4000, vec![(5000, 5500), (4500, 5500)])
    );
}

#[test]
fn example_4_a_segment_partly_below_rcv_nxt_reports_its_duplicate_part() {
    // RFC 2883 §4.2.1: the sender grows its segments from 500 to 1000 bytes; 1000-1999
    // arrives after the delayed 1000-1499: "2500, SACK=1000-1500".
    let mut r = rfc2883_receiver(true, |_| {});
    arrive(&mut r, 0, 499);
    assert_eq!(arrive(&mut r, 500, 999), (1000, vec![]));
    assert_eq!(arrive(&mut r, 2000, 2499), (1000, vec![(2000, 2500)]));
    assert_eq!(arrive(&mut r, 1000, 1499), (1500, vec![(2000, 2500)]));
    assert_eq!(arrive(&mut r, 1000, 1999), (2500, vec![(1000, 1500)]));
}

#[test]
fn example_5_of_two_duplicate_runs_below_the_ack_only_the_first_is_reported() {
    // RFC 2883 §4.2.2: 1000-2499 holds two non-contiguous duplicates, 1000-1499 and
    // 2000-2499; "the first D-SACK block reports the first duplicate sub-segment" (§4.2):
    // "2500, SACK=1000-1500, 3000-3500".
    let mut r = rfc2883_receiver(true, |_| {});
    arrive(&mut r, 0, 499);
    assert_eq!(arrive(&mut r, 500, 999), (1000, vec![]));
    assert_eq!(arrive(&mut r, 3000, 3499), (1000, vec![(3000, 3500)]));
    assert_eq!(arrive(&mut r, 1000, 1499), (1500, vec![(3000, 3500)]));
    assert_eq!(
        arrive(&mut r, 2000, 2499),
        (1500, vec![(2000, 2500), (3000, 3500)])
    );
    assert_eq!(
        arrive(&mut r, 1000, 2499),
        (2500, vec![(1000, 1500), (3000, 3500)])
    );
}

#[test]
fn example_6_duplicates_above_the_ack_report_the_first_run_then_its_block() {
    // RFC 2883 §4.2.3, its arrivals as printed. The RFC's table keeps 1500-2000 and
    // 2000-2500 as two blocks although they touch; vho merges them (RFC 2018 §3: each block
    // is "contiguous and isolated"), so the duplicate run of 1500-2999 is 1500-2499 (rule (3):
    // the first duplicate *contiguous* sequence), where the RFC prints 1500-2000. The rest is
    // as printed: the D-SACK block, then the block holding it, then 3500-4000.
    let mut r = rfc2883_receiver(true, |_| {});
    arrive(&mut r, 0, 499);
    assert_eq!(arrive(&mut r, 500, 999), (1000, vec![]));
    assert_eq!(arrive(&mut r, 3500, 3999), (1000, vec![(3500, 4000)]));
    assert_eq!(
        arrive(&mut r, 1500, 1999),
        (1000, vec![(1500, 2000), (3500, 4000)])
    );
    assert_eq!(
        arrive(&mut r, 2000, 2499),
        (1000, vec![(1500, 2500), (3500, 4000)])
    );
    assert_eq!(
        arrive(&mut r, 1500, 2999),
        (1000, vec![(1500, 2500), (1500, 3000), (3500, 4000)])
    );
    // The case the section's title names: two duplicate runs that do not touch (1500-1999
    // and 2500-2999) above the ACK; the first is reported, then the block holding it.
    let mut r = rfc2883_receiver(true, |_| {});
    arrive(&mut r, 0, 999);
    arrive(&mut r, 3500, 3999);
    arrive(&mut r, 1500, 1999);
    assert_eq!(
        arrive(&mut r, 2500, 2999),
        (1000, vec![(2500, 3000), (1500, 2000), (3500, 4000)])
    );
    assert_eq!(
        arrive(&mut r, 1500, 2999),
        (1000, vec![(1500, 2000), (1500, 3000), (3500, 4000)])
    );
}

#[test]
fn the_d_sack_block_takes_one_of_the_three_blocks_beside_timestamps() {
    // RFC 2018 §3: with the 10 bytes of timestamps, three blocks fit in the 40 option bytes;
    // RFC 2883 §4 (4)-(5): the D-SACK block, its holder, then the most recent other block.
    let mut r = rfc2883_receiver(true, |c| c.timestamps = true);
    arrive(&mut r, 0, 499);
    for first in [1000, 2000, 3000, 4000] {
        arrive(&mut r, first, first + 499);
    }
    assert_eq!(
        arrive(&mut r, 2000, 2499),
        (500, vec![(2000, 2500), (2000, 2500), (4000, 4500)])
    );
}

#[test]
fn a_delayed_ack_reports_only_the_most_recent_packets_duplicate() {
    // RFC 2883 §4 (1): "the most recent packet"; §2: the moment of the ACK is unchanged. A
    // segment partly below RCV.NXT that advances it in order may wait for a second segment
    // (RFC 5681 §4.2); if one comes, its ACK has no D-SACK block; if the timer fires first,
    // the D-SACK block goes with the delayed ACK.
    let mut r = rfc2883_receiver(true, |c| {
        c.delack.enabled = true;
        c.mss = 1000; // full-sized segments wait (a short one is ACKed at once)
    });
    let seg = |first: u32, last: u32| data(first, last + 1 - first);
    r.handle_segment(Time::ZERO, &seg(0, 999));
    r.handle_segment(Time::ZERO, &seg(1000, 1999));
    assert!(
        r.poll_transmit(Time::ZERO).is_some(),
        "every second segment"
    );
    r.handle_segment(Time::ZERO, &seg(1500, 2499));
    assert!(r.poll_transmit(Time::ZERO).is_none(), "delayed");
    r.handle_segment(Time::ZERO, &seg(2500, 3499));
    let a = r.poll_transmit(Time::ZERO).expect("the second segment");
    assert_eq!(a.segment.ack, SeqNum(3500));
    assert!(a.segment.options.sack.is_empty());
    r.handle_segment(Time::ZERO, &seg(3000, 3999));
    assert!(r.poll_transmit(Time::ZERO).is_none(), "delayed");
    let t = r.poll_timeout().expect("the delayed-ACK timer");
    r.handle_timeout(t);
    let a = r.poll_transmit(t).expect("the timer's ACK");
    assert_eq!(a.segment.ack, SeqNum(4000));
    assert_eq!(
        a.segment.options.sack.as_slice(),
        &[(SeqNum(3000), SeqNum(3500))]
    );
}

#[test]
fn no_d_sack_without_the_key_or_without_sack_negotiated() {
    // RFC 2883 §2: D-SACK needs no negotiation of its own beyond SACK's; off, a duplicate
    // below the ACK gets a plain ACK (RFC 2018 sends SACK only with out-of-order data).
    let mut r = after_eight_segments(false);
    assert_eq!(arrive(&mut r, 3000, 3499), (4000, vec![]));
    let mut r = rfc2883_receiver(false, |_| {});
    arrive(&mut r, 0, 499);
    assert_eq!(arrive(&mut r, 0, 499), (500, vec![]));
    assert_eq!(r.stats().dsacks_sent, 0);
}

// ---- Tests for the sender: D-SACK blocks are no news (RFC 2883 §2 and §5) ----

#[test]
fn d_sack_acks_neither_sack_new_data_nor_start_recovery() {
    // RFC 6675 §2: a duplicate ACK (for loss detection) SACKs "previously unacknowledged and
    // un-SACKed octets"; RFC 2883 §5.1: an ACK whose D-SACK block lies below its ACK field
    // reports a duplicate. Eight 1000-byte segments out; ACK 3001, then segment 6 SACKed
    // once; then three ACKs that only report duplicates, below the ACK (segment 2) or inside
    // the second block (segment 6): no recovery, nothing retransmitted.
    let mut c = plain(8, true, config::CcAlgorithm::NewReno);
    c.limited_transmit = false;
    let mut s = TcpSender::new(&c, 1, 2, SeqNum(0), 100_000);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 8);
    let t = Time::from_millis(100);
    s.handle_segment(t, &ack(3001, &[]));
    let new = drain_sender(&mut s, t);
    assert!(new.iter().all(|x| x.kind == TxKind::New));
    s.handle_segment(t, &ack(3001, &[(5001, 6001)]));
    for sack in [
        &[(1001, 2001), (5001, 6001)][..],
        &[(5001, 6001), (5001, 6001)][..],
        &[(1001, 2001), (5001, 6001)][..],
    ] {
        s.handle_segment(t, &ack(3001, sack));
        assert!(drain_sender(&mut s, t).is_empty());
    }
    assert_eq!(s.stats().dupacks_received, 4);
    assert_eq!(s.stats().fast_retransmits, 0);
    assert!(!s.probe().in_recovery);
}

#[test]
fn a_spurious_timeout_with_d_sack_sends_exactly_what_it_sends_without() {
    // RFC 2883 §2: "the TCP sender will simply discard any D-SACK blocks, and process the
    // other SACK blocks". The delay spike of `a_delay_spike_makes_a_spurious_timeout`: its
    // go-back-N resends arrive as duplicates (RFC 2883 §5.4), each reported by a D-SACK
    // block; the sender (not yet using them, issue 19) sends the same segments at the same
    // times as when the receiver sends none.
    let run = |dsack: bool| {
        let mut c = cfg("linux");
        c.handshake = false;
        c.fin = false;
        c.dsack = dsack;
        let mut p = Pair::new(&c, 200_000, 5_000_000, Dur::from_millis(5));
        p.run(Time::from_millis(100));
        p.delay = Dur::from_secs(2);
        p.run(Time::from_secs(60));
        assert!(p.s.is_complete());
        let log: Vec<_> = p
            .log
            .iter()
            .map(|(t, x)| (*t, x.segment.seq, x.segment.len, x.kind))
            .collect();
        (log, p.r.stats().dsacks_sent, p.s.stats().timeouts)
    };
    let (with, dsacks, timeouts) = run(true);
    let (without, none, _) = run(false);
    assert!(timeouts >= 1);
    assert!(dsacks >= 1, "the resends were reported");
    assert_eq!(none, 0);
    assert_eq!(with, without);
}
