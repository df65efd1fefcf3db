//! TCP analysis of hand-built captures with known answers, worked out by hand from
//! Wireshark's `tcp_analyze_sequence_number` rules; and, when tshark is installed, the same
//! captures counted by `tshark -Y tcp.analysis.*` for a one-to-one comparison.
//!
//! Every scenario: client 10.0.0.1:40000, server 10.0.0.2:80, client ISN 1000, server ISN
//! 5000, SYN at 0 ms, SYN-ACK at 25 ms, ACK at 50 ms (handshake RTT 50 ms, Wireshark's
//! out-of-order threshold), then the server sends 1000-byte segments.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use vho_trace::analysis::{analyze, analyze_reader, Analysis, FlowResult};

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const FIN: u8 = 0x01;
const PSH: u8 = 0x08;
const C_ISN: u32 = 1000;
const S_ISN: u32 = 5000;
/// First byte of the server's data.
const S0: u32 = S_ISN + 1;
/// First byte of the client's data.
const C0: u32 = C_ISN + 1;
const WIN: u16 = 65535;

#[derive(Clone, Default)]
struct Opts {
    ts: Option<(u32, u32)>,
    sack: Vec<(u32, u32)>,
    syn_opts: bool,
}

/// An in-memory classic pcap (microseconds, Ethernet) of one conversation.
struct Cap {
    buf: Vec<u8>,
    /// Time of t = 0 in µs since the Unix epoch.
    epoch_us: u64,
}

impl Cap {
    fn new() -> Self {
        Cap::starting_at(1_700_000_000_000_000)
    }

    fn starting_at(epoch_us: u64) -> Self {
        let mut buf = Vec::new();
        buf.extend(0xa1b2_c3d4u32.to_le_bytes());
        buf.extend(2u16.to_le_bytes());
        buf.extend(4u16.to_le_bytes());
        buf.extend([0u8; 8]);
        buf.extend(65535u32.to_le_bytes());
        buf.extend(1u32.to_le_bytes()); // LINKTYPE_ETHERNET
        Cap { buf, epoch_us }
    }

    /// One segment at `t_us` µs; `from_client` picks the direction.
    #[allow(clippy::too_many_arguments)]
    fn seg(
        &mut self,
        t_us: u64,
        from_client: bool,
        seq: u32,
        ack: u32,
        flags: u8,
        win: u16,
        len: usize,
        o: &Opts,
    ) -> &mut Self {
        let (src, dst, sport, dport) = if from_client {
            ([10, 0, 0, 1], [10, 0, 0, 2], 40000u16, 80u16)
        } else {
            ([10, 0, 0, 2], [10, 0, 0, 1], 80, 40000)
        };
        let mut opts = Vec::new();
        if o.syn_opts {
            opts.extend([2, 4, 0x05, 0xb4, 4, 2, 1, 1]); // MSS 1460, SACK-permitted, NOP NOP
        }
        if let Some((v, e)) = o.ts {
            opts.extend([1, 1, 8, 10]);
            opts.extend(v.to_be_bytes());
            opts.extend(e.to_be_bytes());
        }
        if !o.sack.is_empty() {
            opts.extend([1, 1, 5, 2 + 8 * o.sack.len() as u8]);
            for (l, r) in &o.sack {
                opts.extend(l.to_be_bytes());
                opts.extend(r.to_be_bytes());
            }
        }
        while opts.len() % 4 != 0 {
            opts.push(1);
        }
        let hl = 20 + opts.len();
        let mut tcp = Vec::new();
        tcp.extend(sport.to_be_bytes());
        tcp.extend(dport.to_be_bytes());
        tcp.extend(seq.to_be_bytes());
        tcp.extend(ack.to_be_bytes());
        tcp.extend([((hl / 4) as u8) << 4, flags]);
        tcp.extend(win.to_be_bytes());
        tcp.extend([0, 0, 0, 0]);
        tcp.extend(opts);
        tcp.extend(vec![0x61u8; len]);
        // TCP checksum over the pseudo-header (RFC 9293 §3.1).
        let mut pseudo = Vec::new();
        pseudo.extend(src);
        pseudo.extend(dst);
        pseudo.extend([0, 6]);
        pseudo.extend((tcp.len() as u16).to_be_bytes());
        pseudo.extend(&tcp);
        let c = checksum(&pseudo);
        tcp[16..18].copy_from_slice(&c.to_be_bytes());
        let total = 20 + tcp.len();
        let mut ip = vec![
            0x45,
            0,
            (total >> 8) as u8,
            total as u8,
            0,
            1,
            0x40,
            0,
            64,
            6,
            0,
            0,
        ];
        ip.extend(src);
        ip.extend(dst);
        let c = checksum(&ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        let mut frame = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00];
        frame.extend(ip);
        frame.extend(tcp);
        let t = self.epoch_us + t_us;
        self.buf.extend(((t / 1_000_000) as u32).to_le_bytes());
        self.buf.extend(((t % 1_000_000) as u32).to_le_bytes());
        self.buf.extend((frame.len() as u32).to_le_bytes());
        self.buf.extend((frame.len() as u32).to_le_bytes());
        self.buf.extend(frame);
        self
    }

    /// Server data segment `[seq, seq + 1000)` at `t_ms`.
    fn data(&mut self, t_ms: u64, seq: u32) -> &mut Self {
        self.seg(
            t_ms * 1000,
            false,
            seq,
            C0,
            ACK | PSH,
            WIN,
            1000,
            &Opts::default(),
        )
    }

    /// Client pure ACK at `t_ms`.
    fn ack(&mut self, t_ms: u64, ack: u32, win: u16) -> &mut Self {
        self.seg(t_ms * 1000, true, C0, ack, ACK, win, 0, &Opts::default())
    }

    fn ack_sack(&mut self, t_ms: u64, ack: u32, sack: Vec<(u32, u32)>) -> &mut Self {
        let o = Opts {
            sack,
            ..Opts::default()
        };
        self.seg(t_ms * 1000, true, C0, ack, ACK, WIN, 0, &o)
    }

    /// SYN at 0, SYN-ACK at 25 ms, ACK at 50 ms.
    fn handshake(&mut self) -> &mut Self {
        let o = Opts {
            syn_opts: true,
            ..Opts::default()
        };
        self.seg(0, true, C_ISN, 0, SYN, WIN, 0, &o);
        self.seg(25_000, false, S_ISN, C0, SYN | ACK, WIN, 0, &o);
        self.ack(50, S0, WIN)
    }

    fn analysis(&self) -> Analysis {
        analyze_reader(&self.buf[..], "mem").expect("a valid capture")
    }
}

fn checksum(b: &[u8]) -> u16 {
    let mut s: u32 = b
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

fn only_flow(a: &Analysis) -> &FlowResult {
    assert_eq!(a.flows.len(), 1, "one conversation");
    &a.flows[0]
}

// ---------------------------------------------------------------- scenarios

/// Handshake, five segments each ACKed, FIN exchange: no flag at all.
fn clean() -> Cap {
    let mut c = Cap::new();
    c.handshake();
    for i in 0..5u32 {
        c.data(100 + u64::from(i) * 10, S0 + i * 1000);
        c.ack(125 + u64::from(i) * 10, S0 + (i + 1) * 1000, WIN);
    }
    let fin = S0 + 5000;
    c.seg(200_000, false, fin, C0, FIN | ACK, WIN, 0, &Opts::default());
    c.seg(
        225_000,
        true,
        C0,
        fin + 1,
        FIN | ACK,
        WIN,
        0,
        &Opts::default(),
    );
    c.seg(
        250_000,
        false,
        fin + 1,
        C0 + 1,
        ACK,
        WIN,
        0,
        &Opts::default(),
    );
    c
}

/// A segment sent at 100 ms is lost; the RTO resends it at 400 ms; ACKed at 425 ms.
fn rto() -> Cap {
    let mut c = Cap::new();
    c.handshake()
        .data(100, S0)
        .data(400, S0)
        .ack(425, S0 + 1000, WIN);
    c
}

/// Segments 1..4 at 100..103 ms, segment 1 lost; three duplicate ACKs with SACK at 125..127
/// ms; the fast retransmission at 128 ms; the ACK of all four at 153 ms.
fn fast() -> Cap {
    let mut c = Cap::new();
    c.handshake();
    for i in 0..4u32 {
        c.data(100 + u64::from(i), S0 + i * 1000);
    }
    for i in 1..4u32 {
        c.ack_sack(
            124 + u64::from(i),
            S0,
            vec![(S0 + 1000, S0 + (i + 1) * 1000)],
        );
    }
    c.data(128, S0).ack(153, S0 + 4000, WIN);
    c
}

/// Segment at 100 ms, ACKed at 125 ms, resent anyway at 400 ms (spurious timeout); the
/// client answers with a D-SACK for it at 425 ms (a duplicate ACK too).
fn spurious() -> Cap {
    let mut c = Cap::new();
    c.handshake()
        .data(100, S0)
        .ack(125, S0 + 1000, WIN)
        .data(400, S0);
    c.ack_sack(425, S0 + 1000, vec![(S0, S0 + 1000)]);
    c
}

/// Segment 2 at 100 ms, then segment 1 at 101 ms (reordered before the capture point).
fn reordered() -> Cap {
    let mut c = Cap::new();
    c.handshake()
        .data(100, S0 + 1000)
        .data(101, S0)
        .ack(126, S0 + 2000, WIN);
    c
}

/// Two segments, the client closes its window (125 ms), a zero-window probe (300 ms) and
/// its ACK (325 ms, window still 0), a window update (500 ms), more data (501 ms).
fn zero_window() -> Cap {
    let mut c = Cap::new();
    c.handshake()
        .data(100, S0)
        .data(101, S0 + 1000)
        .ack(125, S0 + 2000, 0);
    c.seg(300_000, false, S0 + 2000, C0, ACK, WIN, 1, &Opts::default());
    c.ack(325, S0 + 2000, 0)
        .ack(500, S0 + 2000, WIN)
        .data(501, S0 + 2000);
    c.ack(526, S0 + 3000, WIN);
    c
}

/// Cases where Wireshark versions differ or rules interact: a resend of acknowledged data
/// within the out-of-order threshold (SPURIOUS in tshark 4.0, OUT-OF-ORDER before 3.x), a
/// keep-alive and its ACK, a segment filling the advertised window, an ACK of data never
/// captured.
fn tricky() -> Cap {
    let mut c = Cap::new();
    c.handshake()
        .data(100, S0)
        .data(101, S0 + 1000)
        .ack(110, S0 + 2000, WIN);
    c.data(115, S0); // acked already, 14 ms after nextseq moved
                     // Keep-alive: one byte before nextseq, then its ACK.
    c.seg(
        2_000_000,
        false,
        S0 + 1999,
        C0,
        ACK,
        WIN,
        0,
        &Opts::default(),
    );
    c.ack(2_025, S0 + 2000, WIN);
    // The client's window shrinks to 2000: two segments fill it exactly.
    c.ack(2_030, S0 + 2000, 2000);
    c.data(2_100, S0 + 2000).data(2_101, S0 + 3000);
    // ACKs for data beyond anything captured (segments 4000..6000 never seen), twice.
    c.ack(2_200, S0 + 5000, WIN).ack(2_300, S0 + 6000, WIN);
    c
}

/// Segment 2 at 100 ms, segment 1 at 110 ms: 10 ms late, more than 3 ms, less than the
/// 50 ms handshake RTT.
fn late() -> Cap {
    late_from(Cap::new())
}

fn late_from(mut c: Cap) -> Cap {
    c.handshake()
        .data(100, S0 + 1000)
        .data(110, S0)
        .ack(135, S0 + 2000, WIN);
    c
}

/// A resend 30 ms after three duplicate ACKs (too late to be fast: 20 ms), then a
/// zero-window probe whose byte the receiver takes (its ACK is one higher, window still 0).
fn slow_and_probe() -> Cap {
    let mut c = Cap::new();
    c.handshake();
    for i in 0..4u32 {
        c.data(100 + u64::from(i), S0 + i * 1000);
    }
    for i in 1..4u32 {
        c.ack(124 + u64::from(i), S0, WIN);
    }
    c.data(157, S0).ack(182, S0 + 4000, 0);
    c.seg(400_000, false, S0 + 4000, C0, ACK, WIN, 1, &Opts::default());
    c.ack(425, S0 + 4001, 0)
        .ack(600, S0 + 4001, WIN)
        .data(601, S0 + 4001);
    c
}

// ---------------------------------------------------------------- known answers

#[test]
fn a_clean_transfer_has_no_flags() {
    let a = clean().analysis();
    let f = only_flow(&a);
    assert_eq!(f.total, Default::default());
    assert_eq!(f.client.port, 40000);
    assert_eq!(f.server.unique_bytes, 5000);
    assert_eq!(f.server.acked_bytes, 5000);
    assert_eq!(f.server.bytes, 5000);
    assert!(f.fin_seen && f.syn_seen && !f.rst_seen);
    // Handshake SYN 0 ms -> ACK 50 ms.
    assert_eq!(f.handshake_rtt_s, Some(0.05));
    // Each segment ACKed 25 ms later; the SYN-ACK (25 -> 50 ms) and the FIN too.
    assert_eq!(f.server.rtt.samples, 7);
    assert_eq!(f.server.rtt.min_s, Some(0.025));
    assert_eq!(f.server.rtt.max_s, Some(0.025));
    // Duration 0..250 ms, 5000 bytes acked: 40000 bit / 0.25 s.
    assert!((f.server.goodput_bps - 160_000.0).abs() < 1e-6);
    assert!((f.server.longest_stall_s - 0.025).abs() < 1e-9);
}

#[test]
fn a_timeout_retransmission_is_a_plain_retransmission() {
    // tcp_analyze_sequence_number: seq < nextseq, 300 ms after it (> 50 ms handshake RTT),
    // no duplicate ACKs, not yet acked -> RETRANSMISSION.
    let a = rto().analysis();
    let f = only_flow(&a);
    assert_eq!(f.server.counters.retransmissions, 1);
    assert_eq!(f.server.counters.fast_retransmissions, 0);
    assert_eq!(f.server.counters.spurious_retransmissions, 0);
    assert_eq!(f.total.retransmissions, 1);
    assert_eq!(f.total.duplicate_acks, 0);
    assert_eq!(f.total.out_of_order, 0);
    // Karn: the resent segment gives no sample; only the SYN-ACK's 25 ms.
    assert_eq!(f.server.rtt.samples, 1);
    // Stall: data outstanding from 100 ms to the ACK at 425 ms.
    assert!((f.server.longest_stall_s - 0.325).abs() < 1e-9);
    assert_eq!(f.server.unique_bytes, 1000);
    assert_eq!(f.server.bytes, 2000);
}

#[test]
fn a_retransmission_after_three_duplicate_acks_is_fast() {
    // >= 2 duplicate ACKs for exactly this seq from the client, the last 1 ms before.
    let a = fast().analysis();
    let f = only_flow(&a);
    assert_eq!(f.client.counters.duplicate_acks, 3);
    assert_eq!(f.server.counters.fast_retransmissions, 1);
    assert_eq!(f.server.counters.retransmissions, 1);
    assert_eq!(f.total.spurious_retransmissions, 0);
    assert_eq!(f.total.out_of_order, 0);
    assert_eq!(f.client.sack_blocks, 3);
    assert_eq!(f.client.dsack_blocks, 0);
    // Karn: the ACK at 153 ms is timed on the newest segment it covers, segment 4 (sent
    // once, at 103 ms): 50 ms. Segment 1 was resent and gives no sample.
    assert_eq!(f.server.rtt.max_s, Some(0.05));
}

#[test]
fn resending_acknowledged_data_is_spurious_and_the_dsack_is_counted() {
    let a = spurious().analysis();
    let f = only_flow(&a);
    assert_eq!(f.server.counters.spurious_retransmissions, 1);
    // tcp.analysis.retransmission matches spurious ones too.
    assert_eq!(f.server.counters.retransmissions, 1);
    assert_eq!(f.server.counters.fast_retransmissions, 0);
    // RFC 2883 §4.1.1: the block below the cumulative ACK is a D-SACK.
    assert_eq!(f.client.dsack_blocks, 1);
    assert_eq!(f.client.sack_blocks, 1);
    // The D-SACK ACK repeats seq, ack and window: a duplicate ACK for Wireshark.
    assert_eq!(f.client.counters.duplicate_acks, 1);
}

#[test]
fn a_late_segment_within_the_handshake_rtt_is_out_of_order() {
    let a = reordered().analysis();
    let f = only_flow(&a);
    // Segment 2 first: "previous segment not captured".
    assert_eq!(f.server.counters.lost_segment, 1);
    // Segment 1, 1 ms later (< 50 ms), not ending at nextseq: OUT-OF-ORDER.
    assert_eq!(f.server.counters.out_of_order, 1);
    assert_eq!(f.total.retransmissions, 0);
    assert_eq!(f.total.ack_lost_segment, 0);
}

#[test]
fn the_out_of_order_threshold_is_the_handshake_rtt() {
    // tcp_analyze_sequence_number: ooo_thres = ts_first_rtt (50 ms here); 10 ms late is
    // out of order.
    let f = late().analysis();
    assert_eq!(only_flow(&f).server.counters.out_of_order, 1);
    assert_eq!(only_flow(&f).server.counters.retransmissions, 0);
}

#[test]
fn a_syn_at_the_epoch_gives_no_handshake_rtt_and_a_3_ms_threshold() {
    // Wireshark: ts_mru_syn of zero is "no SYN" (nstime_is_zero), so ooo_thres = 3 ms and
    // 10 ms late is a retransmission. The capture of `late`, its SYN at the epoch.
    let f = late_from(Cap::starting_at(0)).analysis();
    assert_eq!(only_flow(&f).handshake_rtt_s, None);
    assert_eq!(only_flow(&f).server.counters.retransmissions, 1);
    assert_eq!(only_flow(&f).server.counters.out_of_order, 0);
}

#[test]
fn a_closed_window_its_probe_and_the_reopening_are_flagged() {
    let a = zero_window().analysis();
    let f = only_flow(&a);
    // The ACK closing the window and the probe's ACK (still 0).
    assert_eq!(f.client.counters.zero_window, 2);
    assert_eq!(f.server.counters.zero_window_probe, 1);
    assert_eq!(f.client.counters.window_update, 1);
    assert_eq!(f.total.retransmissions, 0);
    assert_eq!(f.total.duplicate_acks, 0);
    assert_eq!(f.server.unique_bytes, 3000);
}

#[test]
fn both_directions_map_to_one_flow_and_a_reused_port_starts_another() {
    let mut c = clean();
    // A new SYN with another ISN on the same ports (Wireshark: "TCP Port numbers reused").
    let o = Opts {
        syn_opts: true,
        ..Opts::default()
    };
    c.seg(1_000_000, true, 90_000, 0, SYN, WIN, 0, &o);
    let a = c.analysis();
    assert_eq!(a.flows.len(), 2);
    assert_eq!(a.flows[0].packets, 16);
    assert_eq!(a.flows[1].packets, 1);
    assert_eq!(a.summary.tcp_segments, 17);
}

#[test]
fn timestamps_give_rtt_samples_from_tsecr() {
    // RFC 7323 §4.1: the client echoes the server's TSval; sample = now - first send.
    let mut c = Cap::new();
    c.handshake();
    let ts = |v, e| Opts {
        ts: Some((v, e)),
        ..Opts::default()
    };
    c.seg(100_000, false, S0, C0, ACK, WIN, 1000, &ts(10, 1));
    c.seg(130_000, true, C0, S0 + 1000, ACK, WIN, 0, &ts(2, 10));
    let a = c.analysis();
    let f = only_flow(&a);
    assert_eq!(f.server.rtt_ts.samples, 1);
    assert_eq!(f.server.rtt_ts.mean_s, Some(0.03));
}

#[test]
fn analyze_names_a_missing_file() {
    let e = analyze("/nonexistent/x.pcap").expect_err("no such file");
    assert!(
        e.to_string()
            .starts_with("/nonexistent/x.pcap: byte 0: cannot open"),
        "{e}"
    );
}

#[test]
fn the_result_serializes_to_json() {
    let a = fast().analysis();
    let j = serde_json::to_value(&a).expect("serializable");
    assert_eq!(j["flows"][0]["server"]["fast_retransmissions"], 1);
    assert_eq!(j["flows"][0]["client"]["duplicate_acks"], 3);
}

// ---------------------------------------------------------------- tshark, one to one

/// (display filter, our count over both directions).
fn our_counts(f: &FlowResult) -> Vec<(&'static str, u64)> {
    let t = &f.total;
    vec![
        ("tcp.analysis.retransmission", t.retransmissions),
        ("tcp.analysis.fast_retransmission", t.fast_retransmissions),
        (
            "tcp.analysis.spurious_retransmission",
            t.spurious_retransmissions,
        ),
        ("tcp.analysis.duplicate_ack", t.duplicate_acks),
        ("tcp.analysis.out_of_order", t.out_of_order),
        ("tcp.analysis.lost_segment", t.lost_segment),
        ("tcp.analysis.ack_lost_segment", t.ack_lost_segment),
        ("tcp.analysis.zero_window", t.zero_window),
        ("tcp.analysis.zero_window_probe", t.zero_window_probe),
        ("tcp.analysis.window_update", t.window_update),
        ("tcp.analysis.window_full", t.window_full),
        ("tcp.analysis.keep_alive", t.keep_alive),
    ]
}

/// Frames matching each filter, from one tshark run: `-z io,stat,0,F1,F2,...` counts, in one
/// interval spanning the capture, the frames each display filter matches (the same count as
/// `tshark -r FILE -Y F | wc -l`, which `tshark_lines` checks for one filter).
fn tshark_counts(file: &Path, filters: &[&str]) -> Vec<u64> {
    let mut stat = String::from("io,stat,0");
    for f in filters {
        stat.push_str(&format!(",{f}"));
    }
    let out = tshark(&[
        OsStr::new("-q"),
        OsStr::new("-r"),
        file.as_os_str(),
        OsStr::new("-z"),
        OsStr::new(&stat),
    ]);
    // The last table row: "| 0.000 <> 2.300 |  1 |  1054 |  0 |  0 | ...": frames, bytes per filter.
    let row = out
        .lines()
        .rev()
        .find(|l| l.contains("<>"))
        .unwrap_or_else(|| panic!("no io,stat row in:\n{out}"));
    let cells: Vec<u64> = row
        .split('|')
        .skip(2)
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    assert_eq!(cells.len(), 2 * filters.len(), "row {row}");
    cells.iter().step_by(2).copied().collect()
}

fn tshark_lines(file: &Path, filter: &str) -> u64 {
    let out = tshark(&[
        OsStr::new("-r"),
        file.as_os_str(),
        OsStr::new("-Y"),
        OsStr::new(filter),
    ]);
    out.lines().count() as u64
}

fn tshark(args: &[&OsStr]) -> String {
    let out = Command::new("tshark")
        .arg("-n")
        .args(args)
        .output()
        .expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn counts_match_tshark_filter_for_filter() {
    if Command::new("tshark").arg("-v").output().is_err() {
        eprintln!("skipped: tshark is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("vho-trace-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scenarios = [
        ("clean", clean()),
        ("rto", rto()),
        ("fast", fast()),
        ("spurious", spurious()),
        ("reordered", reordered()),
        ("zero_window", zero_window()),
        ("tricky", tricky()),
        ("late", late()),
        ("slow_and_probe", slow_and_probe()),
        ("late_at_epoch", late_from(Cap::starting_at(0))),
    ];
    let mut mismatches = Vec::new();
    for (name, cap) in &scenarios {
        let path = dir.join(format!("{name}.pcap"));
        std::fs::write(&path, &cap.buf).expect("write pcap");
        let a = analyze(&path).expect("analysis");
        let ours = our_counts(only_flow(&a));
        let filters: Vec<&str> = ours.iter().map(|o| o.0).collect();
        let theirs = tshark_counts(&path, &filters);
        for ((filter, n), t) in ours.iter().zip(theirs) {
            if *n != t {
                mismatches.push(format!("{name}: {filter}: vho {n}, tshark {t}"));
            }
        }
        // The io,stat count is the `-Y FILTER | wc -l` count.
        let lines = tshark_lines(&path, "tcp.analysis.retransmission");
        if lines != ours[0].1 {
            mismatches.push(format!(
                "{name}: -Y retransmission | wc -l: vho {}, tshark {lines}",
                ours[0].1
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "captures kept in {}:\n{}",
        dir.display(),
        mismatches.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Mobile IPv6 capture of `tests/data/mipv6_handover.pcap` (written by
/// `tests/mipv6_capture.py`): a download route-optimised to one care-of address, tunnelled by
/// the home agent to another, then route-optimised to it, with RA, NS, BU, BA and HoTI.
fn mipv6_capture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/mipv6_handover.pcap")
}

#[test]
fn a_mobile_ipv6_connection_is_one_flow_of_its_home_address_and_signalling_is_skipped() {
    // RFC 6275 §6.3, §6.4 (route optimisation), §10.4.1 (the tunnel): the transport's
    // endpoints are the home address and the CN's, whatever the care-of address on the wire.
    let a = analyze(mipv6_capture()).expect("analysis");
    assert_eq!(a.summary.skipped.not_tcp, 6, "RA, NS, 2 BUs, BA, HoTI");
    assert_eq!(a.summary.skipped.malformed, 0);
    let f = only_flow(&a);
    let ends = [
        (f.client.addr.as_str(), f.client.port),
        (f.server.addr.as_str(), f.server.port),
    ];
    assert_eq!(ends, [("2001:db8:1::100", 40000), ("2001:db8:c::1", 5001)]);
    assert_eq!(f.packets, a.summary.tcp_segments);
    // Hand-counted (see the generator): 55's retransmission through the tunnel and 59's
    // copy; 64 a millisecond after 65; the holes before 56 and 65; one duplicate ACK.
    let t = &f.total;
    assert_eq!((t.retransmissions, t.out_of_order), (2, 1));
    assert_eq!((t.lost_segment, t.duplicate_acks), (2, 1));
    if Command::new("tshark").arg("-v").output().is_err() {
        eprintln!("tshark comparison skipped: tshark is not installed");
        return;
    }
    let ours = our_counts(f);
    let filters: Vec<&str> = ours.iter().map(|o| o.0).collect();
    let theirs = tshark_counts(&mipv6_capture(), &filters);
    for ((filter, n), t) in ours.iter().zip(theirs) {
        assert_eq!(*n, t, "{filter}: vho {n}, tshark {t}");
    }
}
