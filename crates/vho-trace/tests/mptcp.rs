//! Multipath TCP connections from hand-built segments (RFC 8684): the token join, DSS
//! mappings over several segments, reinjections, data-level retransmissions and DSN order.

use std::net::IpAddr;

use vho_trace::analysis::mptcp::{seg, MptcpTable, Role};
use vho_trace::decode::mptcp::{token_of, Dss, Mapping, MptcpOption};
use vho_trace::decode::{Segment, TcpHeader};

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const CLIENT_KEY: u64 = 0x1111_2222_3333_4444;
const SERVER_KEY: u64 = 0x5555_6666_7777_8888;
/// Subflow ISNs: the server's on the initial subflow and on the joined one.
const ISN0: u32 = 1_000;
const ISN1: u32 = 900_000;

fn ip(s: &str) -> IpAddr {
    s.parse().expect("address")
}

/// A segment from (addr, port) to (addr, port).
fn seg(
    from: (&str, u16),
    to: (&str, u16),
    flags: u8,
    seq: u32,
    len: u32,
    mptcp: Vec<MptcpOption>,
) -> Segment {
    Segment {
        ts_ns: 0,
        src: ip(from.0),
        dst: ip(to.0),
        ip_id: 0,
        ttl: 64,
        tunnels: 0,
        outer: None,
        tcp: TcpHeader {
            sport: from.1,
            dport: to.1,
            seq,
            flags,
            header_len: 40,
            mptcp,
            ..TcpHeader::default()
        },
        payload_len: len,
    }
}

const WLAN: (&str, u16) = ("10.0.1.2", 40000);
const GPRS: (&str, u16) = ("10.0.2.2", 40001);
const SERVER: (&str, u16) = ("10.0.0.1", 80);

fn capable(sender: Option<u64>, receiver: Option<u64>) -> MptcpOption {
    MptcpOption::Capable {
        version: 1,
        flags: 0x01,
        sender_key: sender,
        receiver_key: receiver,
        data_len: None,
        checksum: None,
    }
}

fn dss(dsn: u64, ssn: u32, len: u16, wide: bool) -> MptcpOption {
    MptcpOption::Dss(Dss {
        data_ack: None,
        mapping: Some(Mapping {
            dsn,
            dsn_wide: wide,
            ssn,
            data_len: len,
            checksum: None,
        }),
        data_fin: false,
    })
}

/// Feeds the MP_CAPABLE handshake (conversation 0) and an MP_JOIN naming `token`
/// (conversation 1): RFC 8684 §3.1 and §3.2.
fn handshakes(t: &mut MptcpTable, token: u32) {
    let mut frame = 0;
    let mut push = |t: &mut MptcpTable, conv: usize, s: Segment| {
        frame += 1;
        t.push(frame, conv, &s);
    };
    push(
        t,
        0,
        seg(WLAN, SERVER, SYN, 5, 0, vec![capable(None, None)]),
    );
    push(
        t,
        0,
        seg(
            SERVER,
            WLAN,
            SYN | ACK,
            ISN0,
            0,
            vec![capable(Some(SERVER_KEY), None)],
        ),
    );
    push(
        t,
        0,
        seg(
            WLAN,
            SERVER,
            ACK,
            6,
            0,
            vec![capable(Some(CLIENT_KEY), Some(SERVER_KEY))],
        ),
    );
    let join = MptcpOption::JoinSyn {
        backup: true,
        addr_id: 2,
        token,
        nonce: 7,
    };
    push(t, 1, seg(GPRS, SERVER, SYN, 50, 0, vec![join]));
    let synack = MptcpOption::JoinSynAck {
        backup: false,
        addr_id: 0,
        hmac: 0,
        nonce: 8,
    };
    push(t, 1, seg(SERVER, GPRS, SYN | ACK, ISN1, 0, vec![synack]));
}

#[test]
fn a_join_naming_the_servers_token_joins_its_connection() {
    // RFC 8684 §3.2: the SYN's token is the receiver's; §3.1: SHA-256 of its key, top 32 bits.
    let (token, _) = token_of(SERVER_KEY);
    let mut t = MptcpTable::default();
    handshakes(&mut t, token);
    let r = t.finish();
    assert_eq!(r.connections.len(), 1);
    let c = &r.connections[0];
    assert_eq!(c.server.token, Some(format!("{token:08x}")));
    assert_eq!(c.client.key, Some(format!("{CLIENT_KEY:016x}")));
    let roles: Vec<_> = c.subflows.iter().map(|s| (s.index, s.role)).collect();
    assert_eq!(roles, [(0, Role::Initial), (1, Role::Join)]);
    let j = &c.subflows[1];
    assert_eq!((j.client.addr_id, j.client.backup), (Some(2), true));
    assert_eq!((j.server.addr_id, j.server.backup), (Some(0), false));
    assert!(r.unjoined_subflows.is_empty());
}

#[test]
fn a_join_naming_an_unknown_token_joins_nothing() {
    let mut t = MptcpTable::default();
    handshakes(&mut t, 0xdead_beef);
    let r = t.finish();
    assert_eq!(r.connections[0].subflows.len(), 1);
    assert_eq!(r.unjoined_subflows.len(), 1);
    assert_eq!(r.unjoined_subflows[0].token.as_deref(), Some("deadbeef"));
}

/// The connection after the handshakes, with data segments of the server fed in order.
fn with_data(
    data: &[(usize, u32, u32, Vec<MptcpOption>)],
) -> vho_trace::analysis::mptcp::MptcpResult {
    let (token, _) = token_of(SERVER_KEY);
    let mut t = MptcpTable::default();
    handshakes(&mut t, token);
    for (i, (conv, ssn, len, opts)) in data.iter().enumerate() {
        let (to, isn) = if *conv == 0 {
            (WLAN, ISN0)
        } else {
            (GPRS, ISN1)
        };
        let s = seg(SERVER, to, ACK, isn.wrapping_add(*ssn), *len, opts.clone());
        t.push(100 + i as u64, *conv, &s);
    }
    t.finish()
}

#[test]
fn a_mapping_covers_the_segments_after_the_one_that_carried_it() {
    // RFC 8684 §3.3.1: a mapping of 2,896 bytes from subflow sequence 1 (a TSO packet cut in
    // two: the second segment may repeat the option or not).
    let (_, idsn) = token_of(SERVER_KEY);
    let r = with_data(&[
        (0, 1, 1448, vec![dss(idsn + 1, 1, 2896, true)]),
        (0, 1449, 1448, vec![]),
    ]);
    assert_eq!(r.segments.dsn, [1, 1449]);
    assert_eq!(r.segments.dsn_raw, [idsn + 1, idsn + 1449]);
    assert_eq!(r.segments.mapping_frame, [100, 100]);
    assert_eq!(r.connections[0].server_to_client.mappings, 1);
    assert_eq!(r.connections[0].server_to_client.unique_bytes, 2896);
}

#[test]
fn a_32_bit_dsn_takes_its_upper_half_from_the_idsn() {
    // RFC 8684 §3.3: a 4-octet DSN is the lower 32 bits of the 64-bit one.
    let (_, idsn) = token_of(SERVER_KEY);
    let low = (idsn + 1) as u32;
    let r = with_data(&[(0, 1, 1000, vec![dss(u64::from(low), 1, 1000, false)])]);
    assert_eq!(r.segments.dsn_raw, [idsn + 1]);
    assert_eq!(r.segments.dsn, [1]);
}

#[test]
fn the_same_dsn_on_another_subflow_is_a_reinjection_on_the_same_one_a_retransmission() {
    // Wireshark's mptcp.reinjection_of / reinjected_in: overlap with another subflow's
    // segment; a copy on the same subflow is TCP's retransmission, not a reinjection.
    let (_, idsn) = token_of(SERVER_KEY);
    let r = with_data(&[
        (0, 1, 1000, vec![dss(idsn + 1, 1, 1000, true)]),
        (0, 1, 1000, vec![dss(idsn + 1, 1, 1000, true)]),
        (1, 1, 1000, vec![dss(idsn + 1, 1, 1000, true)]),
    ]);
    let f = &r.segments.flags;
    assert_eq!(f[0], seg::REINJECTED_LATER);
    assert_eq!(f[1], seg::REINJECTED_LATER | seg::DATA_RETRANSMISSION);
    assert_eq!(f[2], seg::REINJECTION | seg::DATA_RETRANSMISSION);
    let d = &r.connections[0].server_to_client;
    assert_eq!(
        (d.reinjections, d.reinjected_bytes, d.reinjected_later),
        (1, 1000, 2)
    );
    assert_eq!((d.data_retransmissions, d.retransmitted_bytes), (2, 2000));
    assert_eq!((d.bytes, d.unique_bytes), (3000, 1000));
}

#[test]
fn ranges_that_only_touch_are_not_reinjections() {
    // Wireshark keeps a segment's range as [dsn, dsn + len - 1]: adjacent is not overlapping.
    let (_, idsn) = token_of(SERVER_KEY);
    let r = with_data(&[
        (0, 1, 1000, vec![dss(idsn + 1, 1, 1000, true)]),
        (1, 1, 1000, vec![dss(idsn + 1001, 1, 1000, true)]),
    ]);
    assert_eq!(r.segments.flags, [0, 0]);
}

#[test]
fn data_below_the_highest_dsn_on_another_path_is_out_of_dsn_order() {
    // Segments sent on two paths arrive interleaved: the later DSNs over the fast path first.
    let (_, idsn) = token_of(SERVER_KEY);
    let r = with_data(&[
        (0, 1, 1000, vec![dss(idsn + 1001, 1, 1000, true)]),
        (1, 1, 1000, vec![dss(idsn + 1, 1, 1000, true)]),
    ]);
    assert_eq!(r.segments.flags, [0, seg::OUT_OF_ORDER]);
    let d = &r.connections[0].server_to_client;
    assert_eq!((d.out_of_order, d.max_out_of_order_bytes), (1, 2000));
}

#[test]
fn a_dsn_at_the_top_of_the_space_does_not_wrap_its_range() {
    // A crafted 64-bit DSN 10 below 2^64 with 1,000 bytes: counted, no panic.
    let r = with_data(&[
        (0, 1, 1000, vec![dss(u64::MAX - 10, 1, 1000, true)]),
        (1, 1, 1000, vec![dss(u64::MAX - 10, 1, 1000, true)]),
    ]);
    assert_eq!(
        r.segments.flags[1],
        seg::REINJECTION | seg::DATA_RETRANSMISSION
    );
    assert_eq!(r.connections[0].server_to_client.unique_bytes, 10);
}

#[test]
fn a_capture_without_mptcp_costs_no_subflow() {
    let mut t = MptcpTable::default();
    t.push(1, 0, &seg(WLAN, SERVER, SYN, 5, 0, vec![]));
    assert!(t.is_empty());
    assert!(t.finish().connections.is_empty());
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;
    use vho_trace::decode::mptcp::parse;

    /// An MPTCP option from arbitrary bytes (kind and length set as the option walk does).
    fn option(mut body: Vec<u8>) -> MptcpOption {
        body.splice(0..0, [30u8, 0]);
        body[1] = body.len() as u8;
        parse(&body)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_option_bytes_parse_without_panic(body in proptest::collection::vec(any::<u8>(), 0..38)) {
            let _ = option(body);
        }

        #[test]
        fn any_segments_are_analysed_without_panic(
            segs in proptest::collection::vec(
                (0usize..3, any::<bool>(), any::<u8>(), any::<u32>(), 0u32..3000,
                 proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..30), 0..3)),
                0..40,
            ),
            wide_dsn in any::<u64>(),
        ) {
            let mut t = MptcpTable::default();
            // A real handshake first, so that data meets a connection.
            let (token, _) = token_of(SERVER_KEY);
            handshakes(&mut t, token);
            for (i, (conv, from_server, flags, seq, len, bodies)) in segs.into_iter().enumerate() {
                let mut opts: Vec<MptcpOption> = bodies.into_iter().map(option).collect();
                if i % 5 == 0 {
                    opts.push(dss(wide_dsn, seq, len as u16, true));
                }
                let client = if conv == 1 { GPRS } else { WLAN };
                let (a, b) = if from_server { (SERVER, client) } else { (client, SERVER) };
                t.push(100 + i as u64, conv, &seg(a, b, flags, seq, len, opts));
            }
            let _ = t.finish();
        }
    }
}
