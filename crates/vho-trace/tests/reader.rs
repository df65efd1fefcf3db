//! Reading captures built byte by byte: every format, byte order, time resolution, link
//! type and tunnel vho claims to read, and a clear error for each kind of damage.

use std::net::IpAddr;
use vho_trace::decode::tcp::{ACK, SYN};
use vho_trace::{decode, Reader, Skip};

/// IPv4 + TCP: 10.0.0.1:1000 -> 10.0.0.2:2000, seq 7, ack 9, with MSS, SACK-permitted,
/// timestamps and one SACK block; `payload` bytes of zeros.
fn ipv4_tcp(payload: usize, proto_inner: Option<Vec<u8>>) -> Vec<u8> {
    let inner = proto_inner.unwrap_or_else(|| tcp(payload));
    let proto = match inner.first().map(|b| b >> 4) {
        Some(4) if inner.len() >= 20 && is_ip(&inner) => 4,
        Some(6) if is_ip(&inner) => 41,
        _ => 6,
    };
    let total = 20 + inner.len();
    let mut b = vec![
        0x45,
        0,
        (total >> 8) as u8,
        total as u8,
        0x12,
        0x34,
        0x40,
        0,
        64,
        proto,
        0,
        0,
    ];
    b.extend([10, 0, 0, 1, 10, 0, 0, 2]);
    b.extend(inner);
    b
}

fn is_ip(b: &[u8]) -> bool {
    // The test's IP packets start 0x45 (v4) or 0x60 (v6); a TCP header starts with port 1000.
    b[0] == 0x45 || b[0] == 0x60
}

fn ipv6_tcp(payload: usize, with_ext: bool, inner: Option<Vec<u8>>) -> Vec<u8> {
    let inner = inner.unwrap_or_else(|| tcp(payload));
    let upper = if is_ip(&inner) {
        if inner[0] == 0x45 {
            4
        } else {
            41
        }
    } else {
        6
    };
    let mut ext = Vec::new();
    let next = if with_ext {
        // Destination options, 8 bytes (PadN), then the upper layer.
        ext.extend([upper, 0, 1, 4, 0, 0, 0, 0]);
        60
    } else {
        upper
    };
    let plen = ext.len() + inner.len();
    let mut b = vec![0x60, 0, 0, 0, (plen >> 8) as u8, plen as u8, next, 64];
    b.extend(
        [0x20, 1, 0x0d, 0xb8]
            .iter()
            .chain([0u8; 11].iter())
            .chain([1u8].iter()),
    );
    b.extend(
        [0x20, 1, 0x0d, 0xb8]
            .iter()
            .chain([0u8; 11].iter())
            .chain([2u8].iter()),
    );
    b.extend(ext);
    b.extend(inner);
    b
}

fn tcp(payload: usize) -> Vec<u8> {
    let mut o = vec![2, 4, 0x05, 0xb4, 4, 2, 3, 3, 2, 1, 1, 1, 8, 10];
    o.extend(100u32.to_be_bytes());
    o.extend(50u32.to_be_bytes());
    o.extend([1, 1, 5, 10]);
    o.extend(1000u32.to_be_bytes());
    o.extend(2000u32.to_be_bytes());
    o.extend([0, 0]);
    let hl = 20 + o.len();
    assert_eq!(hl % 4, 0);
    let mut b = vec![
        0x03,
        0xe8,
        0x07,
        0xd0,
        0,
        0,
        0,
        7,
        0,
        0,
        0,
        9,
        ((hl / 4) << 4) as u8,
        SYN | ACK,
        0xff,
        0xff,
        0,
        0,
        0,
        0,
    ];
    b.extend(o);
    b.extend(vec![0u8; payload]);
    b
}

fn pcap(big_endian: bool, nanos: bool, linktype: u32, frames: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let w32 = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let w16 = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut b = Vec::new();
    b.extend(w32(if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 }));
    b.extend(w16(2));
    b.extend(w16(4));
    b.extend(w32(0));
    b.extend(w32(0));
    b.extend(w32(65535));
    b.extend(w32(linktype));
    for (ts_ns, f) in frames {
        let (s, frac) = (ts_ns / 1_000_000_000, ts_ns % 1_000_000_000);
        b.extend(w32(s as u32));
        b.extend(w32(if nanos { frac } else { frac / 1000 } as u32));
        b.extend(w32(f.len() as u32));
        b.extend(w32(f.len() as u32));
        b.extend(f);
    }
    b
}

fn pcapng(
    big_endian: bool,
    linktype: u16,
    tsresol: Option<u8>,
    frames: &[(u64, Vec<u8>)],
) -> Vec<u8> {
    let w32 = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let w16 = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let block = |kind: u32, body: Vec<u8>| {
        let total = 12 + body.len();
        let mut b = Vec::new();
        b.extend(w32(kind));
        b.extend(w32(total as u32));
        b.extend(body);
        b.extend(w32(total as u32));
        b
    };
    let mut out = Vec::new();
    let mut shb = Vec::new();
    shb.extend(w32(0x1a2b_3c4d));
    shb.extend(w16(1));
    shb.extend(w16(0));
    shb.extend([0xff; 8]);
    out.extend(block(0x0a0d_0d0a, shb));
    // A block vho does not read (Name Resolution), to be skipped.
    out.extend(block(4, vec![0, 0, 0, 0]));
    let mut idb = Vec::new();
    idb.extend(w16(linktype));
    idb.extend(w16(0));
    idb.extend(w32(0));
    if let Some(r) = tsresol {
        idb.extend(w16(9));
        idb.extend(w16(1));
        idb.extend([r, 0, 0, 0]);
        idb.extend([0, 0, 0, 0]);
    }
    out.extend(block(1, idb));
    for (ts, f) in frames {
        let units = match tsresol {
            None => ts / 1000,
            Some(9) => *ts,
            Some(r) if r & 0x80 != 0 => (((*ts as u128) << (r & 0x7f)) / 1_000_000_000) as u64,
            Some(_) => unreachable!(),
        };
        let mut epb = Vec::new();
        epb.extend(w32(0));
        epb.extend(w32((units >> 32) as u32));
        epb.extend(w32(units as u32));
        epb.extend(w32(f.len() as u32));
        epb.extend(w32(f.len() as u32));
        epb.extend(f);
        while epb.len() % 4 != 0 {
            epb.push(0);
        }
        out.extend(block(6, epb));
    }
    out
}

fn segments(bytes: &[u8]) -> Vec<Result<vho_trace::Segment, Skip>> {
    let mut r = Reader::new(bytes, "t.pcap").expect("opens");
    let mut out = Vec::new();
    while let Some(rec) = r.next_record().expect("reads") {
        out.push(decode(rec.ts_ns, rec.linktype, rec.data));
    }
    out
}

fn ether(ethertype: u16, vlan: bool, ip: Vec<u8>) -> Vec<u8> {
    let mut b = vec![0u8; 12];
    if vlan {
        b.extend([0x81, 0x00, 0, 5]);
    }
    b.extend(ethertype.to_be_bytes());
    b.extend(ip);
    b
}

#[test]
fn every_pcap_variant_gives_the_same_segment() {
    let t = 1_700_000_000_123_456_789u64;
    for be in [false, true] {
        for nanos in [false, true] {
            let s = segments(&pcap(be, nanos, 101, &[(t, ipv4_tcp(100, None))]));
            let seg = s[0].as_ref().expect("tcp");
            assert_eq!(seg.ts_ns, if nanos { t } else { t / 1000 * 1000 });
            assert_eq!(
                (seg.tcp.sport, seg.tcp.dport, seg.tcp.seq, seg.tcp.ack),
                (1000, 2000, 7, 9)
            );
            assert_eq!(seg.payload_len, 100);
            assert_eq!(seg.tcp.mss, Some(1460));
            assert_eq!(seg.tcp.wscale, Some(2));
            assert!(seg.tcp.sack_permitted);
            assert_eq!(seg.tcp.timestamps, Some((100, 50)));
            assert_eq!(seg.tcp.sack, vec![(1000, 2000)]);
            assert_eq!(seg.ip_id, 0x1234);
            assert_eq!(seg.src, "10.0.0.1".parse::<IpAddr>().expect("addr"));
        }
    }
}

#[test]
fn pcapng_in_both_byte_orders_and_time_resolutions() {
    let t = 1_700_000_000_123_456_789u64;
    for be in [false, true] {
        for (res, want) in [(None, t / 1000 * 1000), (Some(9), t), (Some(0x80 | 30), t)] {
            let s = segments(&pcapng(
                be,
                1,
                res,
                &[(t, ether(0x0800, false, ipv4_tcp(3, None)))],
            ));
            let seg = s[0].as_ref().expect("tcp");
            assert!(
                seg.ts_ns.abs_diff(want) <= 1,
                "{res:?}: {} vs {want}",
                seg.ts_ns
            );
            assert_eq!(seg.payload_len, 3);
        }
    }
}

#[test]
fn link_types_ethernet_vlan_sll_sll2_null_loop_raw() {
    let v4 = ipv4_tcp(10, None);
    let v6 = ipv6_tcp(10, false, None);
    let mut sll = vec![0u8; 14];
    sll.extend(0x0800u16.to_be_bytes());
    sll.extend(&v4);
    let mut sll2 = 0x86ddu16.to_be_bytes().to_vec();
    sll2.extend([0u8; 18]);
    sll2.extend(&v6);
    let mut null = 2u32.to_le_bytes().to_vec();
    null.extend(&v4);
    let mut lo = 30u32.to_be_bytes().to_vec();
    lo.extend(&v6);
    for (lt, frame) in [
        (1, ether(0x0800, false, v4.clone())),
        (1, ether(0x86dd, true, v6.clone())),
        (113, sll),
        (276, sll2),
        (0, null),
        (108, lo),
        (101, v6.clone()),
        (12, v4.clone()),
        (228, v4.clone()),
        (229, v6.clone()),
    ] {
        let s = segments(&pcap(false, true, lt, &[(1, frame)]));
        let seg = s[0]
            .as_ref()
            .unwrap_or_else(|e| panic!("linktype {lt}: {e:?}"));
        assert_eq!((seg.tcp.seq, seg.payload_len), (7, 10), "linktype {lt}");
    }
    let s = segments(&pcap(false, true, 147, &[(1, v4)]));
    assert_eq!(s[0], Err(Skip::UnknownLinkType));
}

#[test]
fn ipv6_extension_headers_and_tunnels_are_unwrapped() {
    let s = segments(&pcap(
        false,
        true,
        101,
        &[
            (1, ipv6_tcp(5, true, None)),
            (2, ipv4_tcp(0, Some(ipv4_tcp(5, None)))),
            (3, ipv6_tcp(0, false, Some(ipv6_tcp(5, true, None)))),
            (4, ipv6_tcp(0, false, Some(ipv4_tcp(5, None)))),
        ],
    ));
    let tunnels: Vec<u8> = s.iter().map(|x| x.as_ref().expect("tcp").tunnels).collect();
    assert_eq!(tunnels, [0, 1, 1, 1]);
    assert!(s.iter().all(|x| x.as_ref().expect("tcp").payload_len == 5));
}

#[test]
fn headers_cut_by_the_snap_length_are_a_counted_skip_not_an_error() {
    let mut f = ipv4_tcp(100, None);
    f.truncate(30);
    let s = segments(&pcap(false, true, 101, &[(1, f)]));
    assert_eq!(s[0], Err(Skip::TruncatedHeaders));
    // Payload cut by the snap length: still a segment, with the length the IP header gives.
    let mut f = ipv4_tcp(100, None);
    f.truncate(20 + 56 + 10);
    let s = segments(&pcap(false, true, 101, &[(1, f)]));
    assert_eq!(s[0].as_ref().expect("tcp").payload_len, 100);
}

#[test]
fn non_first_fragments_and_non_tcp_are_skipped() {
    let mut frag = ipv4_tcp(8, None);
    frag[6] = 0x00;
    frag[7] = 0x10;
    let mut udp = ipv4_tcp(8, None);
    udp[9] = 17;
    let s = segments(&pcap(false, true, 101, &[(1, frag), (2, udp)]));
    assert_eq!(s, vec![Err(Skip::Fragment), Err(Skip::NotTcp)]);
}

fn open_err(bytes: &[u8]) -> String {
    match Reader::new(bytes, "bad.pcap") {
        Err(e) => e.to_string(),
        Ok(mut r) => loop {
            match r.next_record() {
                Err(e) => break e.to_string(),
                Ok(Some(_)) => {}
                Ok(None) => panic!("expected an error"),
            }
        },
    }
}

#[test]
fn damage_is_one_line_with_the_byte_offset() {
    let good = pcap(
        false,
        true,
        101,
        &[(1, ipv4_tcp(10, None)), (2, ipv4_tcp(10, None))],
    );
    assert_eq!(
        open_err(b"GIF89a..........................."),
        "bad.pcap: byte 0: not a capture: expected a pcap magic number (a1b2c3d4 or a1b23c4d, either byte order) or pcapng, got 47494638"
    );
    assert_eq!(
        open_err(&good[..2]),
        "bad.pcap: byte 0: file too short for a capture header (expected at least 4 bytes, got 2)"
    );
    assert_eq!(
        open_err(&good[..10]),
        "bad.pcap: byte 4: pcap file header truncated (expected 24 bytes, got 10)"
    );
    let mut huge = good.clone();
    huge[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(open_err(&huge).contains("byte 24: record length 4294967295 is not plausible"));
    assert_eq!(open_err(&huge).lines().count(), 1);
}

/// Where the last block of a pcapng starts (its trailing length gives its size).
fn last_block(ng: &[u8]) -> usize {
    let n = ng.len();
    ng.len() - u32::from_le_bytes([ng[n - 4], ng[n - 3], ng[n - 2], ng[n - 1]]) as usize
}

/// The records a reader gives before it ends, and where it was cut short, if it was.
fn read_all(bytes: &[u8]) -> (usize, Option<String>) {
    let mut r = Reader::new(bytes, "cut.pcap").expect("a capture header");
    let mut n = 0;
    while r
        .next_record()
        .expect("cut short is not an error")
        .is_some()
    {
        n += 1;
    }
    (n, r.cut_short().map(|e| e.to_string()))
}

#[test]
fn a_pcap_cut_inside_its_last_record_gives_the_records_before_it() {
    // tshark: "The file appears to have been cut short in the middle of a packet", and the
    // packets before it are analysed.
    let good = pcap(
        false,
        true,
        101,
        &[(1, ipv4_tcp(10, None)), (2, ipv4_tcp(10, None))],
    );
    assert_eq!(read_all(&good), (2, None));
    let first = 24 + 16 + ipv4_tcp(10, None).len();
    assert_eq!(
        read_all(&good[..first + 7]),
        (
            1,
            Some(format!(
                "cut.pcap: byte {first}: record header truncated (expected 16 bytes, got 7)"
            ))
        )
    );
    assert_eq!(
        read_all(&good[..good.len() - 3]),
        (
            1,
            Some(format!(
                "cut.pcap: byte {}: record truncated (expected {} bytes, got {})",
                first + 16,
                first - 40,
                first - 43
            ))
        )
    );
}

#[test]
fn a_pcapng_cut_inside_its_last_block_gives_the_packets_before_it() {
    let frame = |t| (t, ether(0x0800, false, ipv4_tcp(1, None)));
    let ng = pcapng(false, 1, None, &[frame(1), frame(2)]);
    assert_eq!(read_all(&ng), (2, None));
    let (n, cut) = read_all(&ng[..ng.len() - 5]);
    assert_eq!(n, 1);
    assert!(cut.expect("cut short").contains("block truncated"));
    let at = last_block(&ng);
    assert_eq!(
        read_all(&ng[..at + 5]),
        (
            1,
            Some(format!(
                "cut.pcap: byte {at}: block header truncated (expected 8 bytes, got 5)"
            ))
        )
    );
}

#[test]
fn damage_before_the_end_is_still_refused() {
    // An implausible record length in the first of two records: corrupt, not cut short.
    let mut good = pcap(
        false,
        true,
        101,
        &[(1, ipv4_tcp(10, None)), (2, ipv4_tcp(10, None))],
    );
    good[24 + 8..24 + 12].copy_from_slice(&(1u32 << 20).to_le_bytes());
    assert!(open_err(&good).contains("byte 24: record length 1048576 is not plausible"));
    // A pcapng block length that is not a multiple of 4.
    let ng = pcapng(
        false,
        1,
        None,
        &[(1, ether(0x0800, false, ipv4_tcp(1, None)))],
    );
    let mut bad = ng.clone();
    let epb = last_block(&ng);
    bad[epb + 4..epb + 8].copy_from_slice(&13u32.to_le_bytes());
    assert!(
        open_err(&bad).contains("block length 13 is not valid"),
        "{}",
        open_err(&bad)
    );
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// The CI count, or PROPTEST_CASES for a long local run (`with_cases` would ignore it).
    fn cases(ci: u32) -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(ci)
    }

    fn drain(bytes: &[u8]) {
        if let Ok(mut r) = Reader::new(bytes, "f") {
            // Each call either consumes bytes or ends: no hang.
            for _ in 0..10_000 {
                match r.next_record() {
                    Ok(Some(rec)) => {
                        let _ = decode(rec.ts_ns, rec.linktype, rec.data);
                    }
                    _ => break,
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(2000)))]
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            drain(&bytes);
        }

        #[test]
        fn mutated_captures_never_panic(
            which in 0usize..3,
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..12),
            cut in any::<usize>(),
        ) {
            let mut b = match which {
                0 => pcap(false, true, 1, &[(1, ether(0x86dd, true, ipv6_tcp(20, true, None))), (2, ether(0x0800, false, ipv4_tcp(5, None)))]),
                1 => pcapng(true, 113, Some(9), &[(5, { let mut s = vec![0u8; 14]; s.extend(0x0800u16.to_be_bytes()); s.extend(ipv4_tcp(0, Some(ipv4_tcp(9, None)))); s })]),
                _ => pcap(true, false, 101, &[(3, ipv6_tcp(1, false, Some(ipv6_tcp(2, true, None))))]),
            };
            for (i, v) in edits {
                let n = b.len();
                b[i % n] = v;
            }
            let n = b.len();
            b.truncate(cut % (n + 1));
            drain(&b);
        }
    }
}
