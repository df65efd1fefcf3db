//! The flow table holds the conversations open at a time, not the capture's: closed ones
//! leave it once quiet for TIME_WAIT (flow.rs, CLOSED_LINGER_NS).

use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

use vho_trace::analysis::{analyze_reader, AnalyzeOptions, FlowStream};

const LINKTYPE_RAW: u32 = 101;

/// A nanosecond pcap of raw IPv4/TCP frames (checksums left 0: the analysis does not read
/// them).
struct Pcap(Vec<u8>);

impl Pcap {
    fn new() -> Self {
        let mut b = Vec::new();
        b.extend(0xa1b2_3c4du32.to_le_bytes());
        b.extend(2u16.to_le_bytes());
        b.extend(4u16.to_le_bytes());
        b.extend([0u8; 8]);
        b.extend(65535u32.to_le_bytes());
        b.extend(LINKTYPE_RAW.to_le_bytes());
        Pcap(b)
    }

    #[allow(clippy::too_many_arguments)]
    fn seg(&mut self, t_ns: u64, client: bool, port: u16, seq: u32, ack: u32, flags: u8, len: u16) {
        self.seg_opts(t_ns, client, port, seq, ack, flags, len, &[]);
    }

    /// A segment with TCP option bytes `opts` (padded to a multiple of 4 with NOPs).
    #[allow(clippy::too_many_arguments)]
    fn seg_opts(
        &mut self,
        t_ns: u64,
        client: bool,
        port: u16,
        seq: u32,
        ack: u32,
        flags: u8,
        len: u16,
        opts: &[u8],
    ) {
        let mut opts = opts.to_vec();
        opts.truncate(40);
        while !opts.len().is_multiple_of(4) {
            opts.push(1);
        }
        let (src, dst, sport, dport) = if client {
            ([10, 1, 0, 1], [10, 2, 0, 1], port, 80u16)
        } else {
            ([10, 2, 0, 1], [10, 1, 0, 1], 80, port)
        };
        let total = 40 + len;
        let mut f = vec![
            0x45,
            0,
            (total >> 8) as u8,
            total as u8,
            0,
            0,
            0x40,
            0,
            64,
            6,
            0,
            0,
        ];
        f.extend(src);
        f.extend(dst);
        f.extend(sport.to_be_bytes());
        f.extend(dport.to_be_bytes());
        f.extend(seq.to_be_bytes());
        f.extend(ack.to_be_bytes());
        f.extend([
            (((20 + opts.len()) / 4) << 4) as u8,
            flags,
            0xff,
            0xff,
            0,
            0,
            0,
            0,
        ]);
        f.extend(&opts);
        f.extend(vec![0u8; len as usize]);
        self.0.extend(((t_ns / 1_000_000_000) as u32).to_le_bytes());
        self.0.extend(((t_ns % 1_000_000_000) as u32).to_le_bytes());
        self.0.extend((f.len() as u32).to_le_bytes());
        self.0.extend((f.len() as u32).to_le_bytes());
        self.0.extend(f);
    }

    /// A whole short connection from `port` at `t0`: handshake, 1000 bytes, both FINs.
    fn connection(&mut self, t0: u64, port: u16) {
        const SYN: u8 = 0x02;
        const ACK: u8 = 0x10;
        const FIN: u8 = 0x01;
        let ms = 1_000_000;
        let (c, s) = (1000u32, 9000u32);
        self.seg(t0, true, port, c, 0, SYN, 0);
        self.seg(t0 + ms, false, port, s, c + 1, SYN | ACK, 0);
        self.seg(t0 + 2 * ms, true, port, c + 1, s + 1, ACK, 0);
        self.seg(t0 + 3 * ms, false, port, s + 1, c + 1, ACK, 1000);
        self.seg(t0 + 4 * ms, true, port, c + 1, s + 1001, ACK, 0);
        self.seg(t0 + 5 * ms, false, port, s + 1001, c + 1, FIN | ACK, 0);
        self.seg(t0 + 6 * ms, true, port, c + 1, s + 1002, FIN | ACK, 0);
        self.seg(t0 + 7 * ms, false, port, s + 1002, c + 2, ACK, 0);
    }
}

#[test]
fn closed_conversations_leave_the_table_and_their_results_stay() {
    // 20,000 connections, one a second, each on its own port: with a 60 s TIME_WAIT, 61 wait
    // in the table, plus the 512 connections (8 segments each) that arrive between two
    // sweeps of SWEEP_EVERY = 4096 segments: at most 573, never thousands.
    let mut p = Pcap::new();
    let n = 20_000u64;
    for i in 0..n {
        p.connection(i * 1_000_000_000, 1024 + (i % 60_000) as u16);
    }
    let a = analyze_reader(&p.0[..], "mem").expect("valid");
    assert_eq!(a.flows.len(), n as usize);
    assert!(
        a.summary.max_open_flows <= 61 + 4096 / 8,
        "{}",
        a.summary.max_open_flows
    );
    for (i, f) in a.flows.iter().enumerate() {
        assert_eq!(f.index, i);
        assert_eq!(f.server.unique_bytes, 1000);
        assert!(f.fin_seen && f.syn_seen);
    }
}

/// A byte stream that tells how much of it has been read.
struct Counting<'a>(&'a [u8], Rc<Cell<usize>>);

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1.set(self.1.get() + n);
        Ok(n)
    }
}

#[test]
fn a_closed_conversations_result_comes_out_while_the_capture_is_read() {
    // Issue 17: results streamed as conversations end, not held until the end of the file.
    let mut p = Pcap::new();
    let n = 2_000u64;
    for i in 0..n {
        p.connection(i * 1_000_000_000, 1024 + i as u16);
    }
    let read = Rc::new(Cell::new(0));
    let mut s = FlowStream::new(
        Counting(&p.0, read.clone()),
        "mem",
        AnalyzeOptions::default(),
    )
    .expect("valid");
    let first = s.next_flow().expect("valid").expect("a flow");
    assert_eq!(first.index, 0);
    // Flow 0 closed at 7 ms and left at the first sweep after 60 s of quiet (segment 4096,
    // connection 512): long before the end of the 2,000 connections.
    assert!(
        read.get() < p.0.len() / 2,
        "{} of {}",
        read.get(),
        p.0.len()
    );
    let mut seen = 1;
    while let Some(f) = s.next_flow().expect("valid") {
        assert_eq!(
            f.index, seen,
            "each conversation once, in the order they ended"
        );
        seen += 1;
    }
    assert_eq!(seen, n as usize);
    assert_eq!(s.summary().packets, 8 * n);
}

#[test]
fn lone_syns_are_reported_in_the_order_they_came() {
    // A SYN flood: every conversation one segment, none closed.
    let mut p = Pcap::new();
    for i in 0..5_000u32 {
        p.seg(
            u64::from(i) * 1000,
            true,
            (1024 + i % 60_000) as u16,
            i,
            0,
            0x02,
            0,
        );
    }
    let a = analyze_reader(&p.0[..], "mem").expect("valid");
    assert_eq!(a.flows.len(), 5_000);
    assert_eq!(a.summary.max_open_flows, 5_000);
    for (i, f) in a.flows.iter().enumerate() {
        assert_eq!((f.index, f.packets, f.syn_seen), (i, 1, true));
        assert_eq!(f.client.port, 1024 + i as u16);
        assert_eq!(f.client.segments, 1);
    }
}

#[test]
fn a_capture_cut_inside_its_last_packet_is_analysed_up_to_it_with_a_warning() {
    // tshark analyses what is there and says the file "appears to have been cut short in
    // the middle of a packet".
    let mut p = Pcap::new();
    for i in 0..3u64 {
        p.connection(i * 1_000_000_000, 4000 + i as u16);
    }
    let whole = analyze_reader(&p.0[..], "mem").expect("valid");
    assert!(whole.summary.warnings.is_empty());
    let cut = &p.0[..p.0.len() - 10];
    let a = analyze_reader(cut, "mem").expect("what is there is analysed");
    assert_eq!(a.summary.packets, whole.summary.packets - 1);
    assert_eq!(a.flows.len(), 3);
    assert_eq!(a.flows[2].packets, whole.flows[2].packets - 1);
    assert_eq!(a.summary.warnings.len(), 1);
    let w = &a.summary.warnings[0];
    assert!(w.starts_with("mem: byte "), "{w}");
    assert!(
        w.contains("cut short in the middle of a packet; the 23 packets before it"),
        "{w}"
    );
}

#[test]
fn an_open_conversation_is_never_let_go() {
    // One connection that never closes, and quiet for longer than TIME_WAIT: still one.
    let mut p = Pcap::new();
    let s = 60 * 1_000_000_000u64;
    p.seg(0, true, 5000, 1, 0, 0x02, 0);
    p.seg(1, false, 5000, 100, 2, 0x12, 0);
    for k in 1..5000u64 {
        // Data from the client every 100 ms, then a 3-minute pause, then more.
        let t = if k < 2500 {
            k * 100_000_000
        } else {
            3 * s + k * 100_000_000
        };
        p.seg(t, true, 5000, 2 + (k as u32 - 1) * 100, 101, 0x10, 100);
    }
    let a = analyze_reader(&p.0[..], "mem").expect("valid");
    assert_eq!(a.flows.len(), 1);
    assert_eq!(a.flows[0].client.data_segments, 4999);
}

/// Found by `damaged_captures_never_panic` (a damaged timestamp): two segments 31 years
/// apart made the data-rate series ask for 300 GB; it is now binned coarser (MAX_RATE_BINS).
#[test]
fn regression_a_damaged_timestamp_spanning_decades_is_analysed_in_bounded_memory() {
    let mut p = Pcap::new();
    p.connection(0, 4000);
    p.seg(
        1_000_000_000 * 1_000_000_000,
        true,
        4000,
        1001,
        9001,
        0x10,
        100,
    );
    p.seg(8 * 1_000_000, true, 4000, 1101, 9001, 0x10, 100);
    let a = analyze_reader(&p.0[..], "mem").expect("valid");
    assert_eq!(a.flows.len(), 1);
}

/// A capture that steps back in time (merged files, a damaged record): no underflow.
#[test]
fn regression_time_going_backwards_is_not_an_underflow() {
    let mut p = Pcap::new();
    for k in 0..50u64 {
        let t = if k % 2 == 0 {
            5_000_000_000 - k * 90_000_000
        } else {
            k * 90_000_000
        };
        p.seg(t, false, 4000, 9001 + k as u32 * 1000, 1001, 0x10, 1000);
    }
    let a = analyze_reader(&p.0[..], "mem").expect("valid");
    assert_eq!(
        a.flows[0].client.data_segments + a.flows[0].server.data_segments,
        50
    );
}

mod fuzz {
    //! Random conversations through the whole analysis (decode, flow table, every
    //! mechanism): no input may panic. Sequence and ACK numbers are drawn near each other
    //! (and across the 2^32 wrap) so that retransmissions, overlaps, D-SACKs and stale ACKs
    //! happen; options are random bytes, so malformed SACK and timestamp options too.
    use super::*;
    use proptest::prelude::*;

    /// The CI count, or PROPTEST_CASES for a long local run (`with_cases` would ignore it).
    fn cases(ci: u32) -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(ci)
    }

    fn segment() -> impl Strategy<Value = (u64, bool, u16, u32, u32, u8, u16, Vec<u8>)> {
        (
            0u64..2_000_000_000,
            any::<bool>(),
            prop_oneof![Just(5000u16), Just(5001u16), any::<u16>()],
            prop_oneof![0u32..20_000, (u32::MAX - 10_000)..=u32::MAX, any::<u32>()],
            prop_oneof![0u32..20_000, (u32::MAX - 10_000)..=u32::MAX, any::<u32>()],
            any::<u8>(),
            prop_oneof![Just(0u16), Just(1000u16), 0u16..1500],
            proptest::collection::vec(any::<u8>(), 0..40),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(300)))]
        #[test]
        fn random_conversations_never_panic(segs in proptest::collection::vec(segment(), 1..120)) {
            let mut p = Pcap::new();
            let mut t = 0u64;
            for (dt, client, port, seq, ack, flags, len, opts) in segs {
                t += dt;
                p.seg_opts(t, client, port, seq, ack, flags, len, &opts);
            }
            let _ = analyze_reader(&p.0[..], "fuzz");
        }

        #[test]
        fn damaged_captures_never_panic(
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..16),
            cut in any::<usize>(),
        ) {
            let mut p = Pcap::new();
            for i in 0..3u64 {
                p.connection(i * 500_000_000, 4000 + i as u16);
            }
            let mut b = p.0.clone();
            for (at, v) in edits {
                let n = b.len();
                b[at % n] = v;
            }
            b.truncate(cut % (b.len() + 1));
            let _ = analyze_reader(&b[..], "fuzz");
        }
    }
}
