//! Linux's pacing (`pacing`; `tcp_update_pacing_rate`, `tcp_update_skb_after_send`,
//! `tcp_pacing_check`).

use super::*;

/// `linux_bare` without TLP, an initial window of 10, 40 segments to send; `pacing` as
/// given.
fn linux_sender(pacing: bool) -> TcpSender {
    let mut c = linux_bare();
    c.tlp = false;
    c.pacing = pacing;
    TcpSender::new(&c, 1, 2, SeqNum(0), 40 * 1000)
}

fn us(t: u64) -> Time {
    Time::from_nanos(t * 1000)
}

#[test]
fn after_the_first_ten_segments_each_leaves_len_over_the_rate_after_the_last() {
    // The initial window leaves at once (no RTT sample: no rate; data_segs_out < 10). The ACK
    // of all ten at 100 ms: RTT 100 ms = SRTT, cwnd 20 segments in slow start (below half
    // ssthresh): rate = 200 % · 20 000 B / 100 ms = 400 000 B/s, a segment every 2.5 ms.
    let mut s = linux_sender(true);
    assert_eq!(step(&mut s, us(0)).len(), 10);
    s.handle_segment(us(100_000), &ack(10_001, &[]));
    assert_eq!(step(&mut s, us(100_000)), vec![10_001]);
    assert_eq!(s.poll_timeout(), Some(us(102_500)));
    assert_eq!(step(&mut s, us(102_500)), vec![11_001]);
    assert_eq!(step(&mut s, us(104_000)), Vec::<u32>::new());
    assert_eq!(step(&mut s, us(105_000)), vec![12_001]);
    // Woken 7.5 ms late, the next leaves at once and the one after it 2.5 ms less half of
    // that (tcp_update_skb_after_send: len_ns -= min(len_ns / 2, credit)).
    assert_eq!(step(&mut s, us(115_000)), vec![13_001]);
    assert_eq!(s.poll_timeout(), Some(us(116_250)));
    // Without pacing the window goes at once.
    let mut s = linux_sender(false);
    step(&mut s, us(0));
    s.handle_segment(us(100_000), &ack(10_001, &[]));
    assert_eq!(step(&mut s, us(100_000)).len(), 20);
}
