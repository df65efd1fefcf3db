//! How the data sender cuts its data into segments: Linux's data fragments and, for the
//! transfer's short tail, Nagle's algorithm with Minshall's rule.

use super::*;

/// The data segments (DSN, length) the sender sent in each round of a lossless transfer of
/// `size` over the initial subflow: each round, what it sends, handed to the receiver, whose
/// ACKs (its delayed ones too) come back.
fn rounds(size: &str) -> Vec<Vec<(u64, u32)>> {
    let spec = load(&scenario(size, "60 s", "")).expect("loads");
    let (mut s, mut r) = ends(&spec);
    let mut t = Time::ZERO;
    r.start(t);
    let mut out = Vec::new();
    for _ in 0..200 {
        let sent = drain(&mut s, t);
        out.push(
            sent.iter()
                .map(parts)
                .filter(|(seg, _, _)| seg.len > 0)
                .map(|(seg, opt, _)| (opt.maps()[0].dsn, seg.len))
                .collect(),
        );
        for a in &sent {
            let (p, pl) = packet(a, true);
            r.handle_packet(t, &p, &pl);
        }
        t += Dur::from_millis(50);
        if r.poll_timeout().is_some_and(|d| d <= t) {
            r.handle_timeout(t);
        }
        for a in drain(&mut r, t) {
            let (p, pl) = packet(&a, false);
            s.handle_packet(t, &p, &pl);
        }
        if s.is_complete() {
            return out;
        }
    }
    panic!("the transfer completes");
}

#[test]
fn segments_end_at_each_data_fragment_and_the_short_tail_waits_for_the_last_short_one() {
    // Linux: each `mptcp_data_frag` holds the data of one 32 KiB page fragment less its
    // 40-byte header (`mptcp_carve_data_frag`), and `mptcp_sendmsg_frag` maps one fragment
    // at a time, so no segment crosses a fragment's end and the one there is short. The
    // transfer's tail, short and last in the subflow's queue, waits while a short segment is
    // unacknowledged (`tcp_nagle_test` → `tcp_nagle_check`, `tcp_minshall_check`,
    // net/ipv4/tcp_output.c). Measured in 25 of 27 kernel runs of Daniel & Kojo's WLAN ->
    // GPRS 200 KB cells: 1400-byte segments end at 163,640 and 196,368 and the last 784
    // bytes leave a GPRS round trip after the rest, when the 1400 bytes are acknowledged
    // (docs/design/mptcp.md).
    let frag = sched::DFRAG_BYTES;
    let r = rounds("200 KB");
    let all: Vec<(u64, u32)> = r.iter().flatten().copied().collect();
    for &(dsn, len) in &all {
        let end = dsn + u64::from(len);
        assert_eq!(
            dsn / frag,
            (end - 1) / frag,
            "[{dsn}, {end}) crosses a fragment's end"
        );
    }
    let mss = all.iter().map(|&(_, l)| l).max().expect("data");
    for k in 1..=(200_000 / frag) {
        let short = all
            .iter()
            .find(|&&(d, l)| d + u64::from(l) == k * frag)
            .expect("a segment ends at each fragment's end");
        assert!(short.1 < mss, "the one at {} is short", k * frag);
    }
    let tail = r
        .iter()
        .position(|round| round.iter().any(|&(d, l)| d + u64::from(l) == 200_000))
        .expect("the tail");
    let last_frag = r
        .iter()
        .position(|round| round.iter().any(|&(d, l)| d + u64::from(l) == 6 * frag))
        .expect("the last fragment's end");
    assert!(
        tail > last_frag,
        "the tail waits for the short segment before it to be acknowledged"
    );
}
