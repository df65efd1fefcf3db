use super::*;
use crate::mip::{encapsulate, signal_packet};
use crate::spec::{MobileSpec, NodeKind, NodeSpec};
use crate::tcp::{Flags, SeqNum};
use crate::time::Time;

/// cn(0) ha(1) ar(2) mn(3); the mobile's interfaces are links 2 and 3 (care-of addresses 4, 5):
/// cn - ha (0), ha - ar (1), ar - mn (2), ha - mn (3).
fn plan() -> Ipv6Plan {
    let nodes = ["cn", "ha", "ar", "mn"]
        .iter()
        .map(|n| NodeSpec {
            name: n.to_string(),
            kind: if *n == "mn" {
                NodeKind::Mobile
            } else {
                NodeKind::Host
            },
        })
        .collect::<Vec<_>>();
    let mobiles = [MobileSpec {
        node: 3,
        interfaces: vec![2, 3],
        initial: 2,
    }];
    Ipv6Plan {
        addresses: Addresses::new(nodes.len(), &mobiles),
        home_agent: 1,
        hops: Hops::over(nodes.len(), &[(0, 1), (1, 2), (2, 3), (1, 3)]),
    }
}

const COA: Addr = 4;

fn every_signal() -> Vec<Packet> {
    let t = Time::ZERO;
    let mut hoti = signal_packet(t, 3, 0, Signal::HomeTestInit { cookie: 7 });
    encapsulate(&mut hoti, COA, 1);
    vec![
        signal_packet(t, COA, 2, Signal::RouterSolicitation { sllao: true }),
        signal_packet(t, COA, 2, Signal::RouterSolicitation { sllao: false }),
        signal_packet(
            t,
            2,
            COA,
            Signal::RouterAdvertisement {
                interval_ms: 90,
                sllao: true,
            },
        ),
        signal_packet(
            t,
            COA,
            2,
            Signal::NeighborSolicitation {
                target: COA,
                link_local: false,
            },
        ),
        signal_packet(
            t,
            COA,
            2,
            Signal::NeighborSolicitation {
                target: COA,
                link_local: true,
            },
        ),
        signal_packet(t, COA, 2, Signal::NeighborAdvertisement { target: COA }),
        signal_packet(
            t,
            COA,
            1,
            Signal::BindingUpdate {
                seq: 2,
                lifetime_4s: 105,
                home: true,
                ack: true,
            },
        ),
        signal_packet(
            t,
            1,
            COA,
            Signal::BindingAck {
                status: 0,
                seq: 2,
                lifetime_4s: 105,
            },
        ),
        hoti,
        signal_packet(t, COA, 0, Signal::CareOfTestInit { cookie: 8 }),
        signal_packet(
            t,
            0,
            3,
            Signal::HomeTest {
                nonce: 0,
                cookie: 7,
                token: 9,
            },
        ),
        signal_packet(
            t,
            0,
            COA,
            Signal::CareOfTest {
                nonce: 0,
                cookie: 8,
                token: 9,
            },
        ),
        signal_packet(
            t,
            COA,
            0,
            Signal::BindingUpdate {
                seq: 1,
                lifetime_4s: 105,
                home: false,
                ack: false,
            },
        ),
        // RFC 6275 §6.1.9, from the correspondent to the care-of address (§9.3.3).
        signal_packet(t, 0, COA, Signal::BindingError { status: 1, home: 3 }),
    ]
}

#[test]
fn every_signal_is_as_long_as_the_simulator_counts_it() {
    for p in every_signal() {
        let mut out = Vec::new();
        let zeros = encode(&mut out, &p, &plan(), 0);
        assert_eq!(out.len() as u32 + zeros, p.wire_bytes, "{:?}", p.sig);
        // The IPv6 payload length field agrees.
        let payload = u16::from_be_bytes([out[4], out[5]]) as usize;
        assert_eq!(payload + 40, out.len(), "{:?}", p.sig);
    }
}

/// The upper-layer checksum (RFC 8200 §8.1) of the last header of `out`, verified with the
/// given pseudo-header addresses: the one's-complement sum folds to zero.
fn verifies(out: &[u8], at: usize, nh: u8, src: &[u8; 16], dst: &[u8; 16]) -> bool {
    let body = &out[at..];
    fold(pseudo(src, dst, nh) + body.len() as u32 + sum16(body)) == 0
}

#[test]
fn mobility_and_icmpv6_checksums_verify_with_rfc_6275_pseudo_headers() {
    let pl = plan();
    let home = pl.global(3);
    for p in every_signal() {
        let mut out = Vec::new();
        encode(&mut out, &p, &pl, 0);
        let (mut at, mut nh) = (40usize, out[6]);
        let mut src: [u8; 16] = out[8..24].try_into().unwrap();
        let mut dst: [u8; 16] = out[24..40].try_into().unwrap();
        if nh == NH_IPV6 {
            src = out[48..64].try_into().unwrap();
            dst = out[64..80].try_into().unwrap();
            (at, nh) = (80, out[46]);
        }
        if nh == NH_DEST_OPTS {
            // RFC 6275 §6.1.1: the home address in the option is the source.
            src = home;
            (at, nh) = (at + 24, out[at]);
        } else if nh == NH_ROUTING {
            dst = home;
            (at, nh) = (at + 24, out[at]);
        }
        assert!(nh == NH_MOBILITY || nh == NH_ICMPV6, "{:?}", p.sig);
        assert!(verifies(&out, at, nh, &src, &dst), "{:?}", p.sig);
        if nh == NH_MOBILITY {
            // Header Len in 8-octet units, not counting the first 8; Payload Proto 59.
            assert_eq!((out[at + 1] as usize + 1) * 8, out.len() - at);
            assert_eq!(out[at], NH_NONE);
        } else {
            assert_eq!(out[7], 255, "ND hop limit (RFC 4861 §6.1)");
        }
    }
}

#[test]
fn a_route_optimised_segment_carries_the_home_address_and_checksums_over_it() {
    let pl = plan();
    let seg = crate::tcp::Segment {
        src_port: 5001,
        dst_port: 40001,
        seq: SeqNum(1),
        ack: SeqNum(1),
        flags: Flags::ACK,
        window: 100,
        len: 1400,
        ..Default::default()
    };
    let pkt = Packet {
        seg,
        src: 0,
        dst: COA,
        ext: ext::RH2,
        wire_bytes: 40 + 24 + 20 + 1400,
        ..Default::default()
    };
    let mut out = Vec::new();
    let zeros = encode(&mut out, &pkt, &pl, 0);
    assert_eq!(out.len() as u32 + zeros, pkt.wire_bytes);
    assert_eq!(out[6], NH_ROUTING);
    assert_eq!(&out[24..40], &pl.global(COA));
    assert_eq!(
        &out[48..64],
        &pl.global(3),
        "the routing header holds the home address"
    );
    // TCP checksum over the final destination, the payload zeros counted by length only.
    let tcp = &out[64..];
    let len = tcp.len() as u32 + 1400;
    let sum = pseudo(&pl.global(0), &pl.global(3), NH_TCP) + len + sum16(tcp);
    assert_eq!(fold(sum), 0);
}

#[test]
fn addresses_follow_the_plan() {
    let pl = plan();
    let hex = |a: [u8; 16]| std::net::Ipv6Addr::from(a).to_string();
    assert_eq!(hex(pl.global(0)), "2001:db8::1");
    assert_eq!(hex(pl.global(1)), "2001:db8:0:1::1");
    // Home address on the home agent's prefix, care-of addresses on their links' prefixes.
    assert_eq!(hex(pl.global(3)), "2001:db8:0:1::103");
    assert_eq!(hex(pl.global(4)), "2001:db8:3::103");
    assert_eq!(hex(pl.global(5)), "2001:db8:4::103");
}

#[test]
fn a_bicast_copy_carries_the_packet_identifier_option_after_the_tunnel_header() {
    // Seed 002 §IV-B: "a new IPv6 destination option is inserted after IPv6-in-IPv6 tunnel
    // header"; Fig. 3: 16-bit sequence number, 16-bit timestamp.
    let pl = plan();
    let seg = crate::tcp::Segment {
        src_port: 5001,
        dst_port: 40001,
        flags: Flags::ACK,
        len: 1392,
        ..Default::default()
    };
    let mut pkt = Packet {
        seg,
        src: 0,
        dst: 3,
        ext: ext::PIO,
        pio: crate::net::combine::Pio {
            seq: 0x1234,
            sent_ms: 5001,
        },
        wire_bytes: 40 + 20 + 1392 + crate::mip::message::PIO_BYTES,
        ..Default::default()
    };
    encapsulate(&mut pkt, 1, COA);
    let mut out = Vec::new();
    let zeros = encode(&mut out, &pkt, &pl, 0);
    assert_eq!(out.len() as u32 + zeros, pkt.wire_bytes);
    assert_eq!(out[6], NH_DEST_OPTS, "the outer header's next header");
    assert_eq!(
        &out[40..48],
        &[NH_IPV6, 0, PIO_OPTION_TYPE, 4, 0x12, 0x34, 0x13, 0x89]
    );
    assert_eq!(out[48] >> 4, 6, "the inner IPv6 header follows");
    assert_eq!(&out[48 + 24..48 + 40], &pl.global(3));
}

// ---- Hop limits ----

#[test]
fn a_capture_shows_the_hop_limit_less_one_per_router_and_the_tunnel_entry() {
    // RFC 8200 §3: the hop limit is "decremented by 1 by each node that forwards the packet";
    // RFC 2473 §3.1: the tunnel entry point forwards the original packet into the tunnel.
    let pl = plan();
    let seg = crate::tcp::Segment {
        flags: Flags::ACK,
        ..Default::default()
    };
    let mut p = signal_packet(Time::ZERO, 0, 3, Signal::None);
    p.seg = seg;
    p.proto = crate::packet::Proto::Tcp;
    p.ext = 0;
    let hop = |out: &[u8]| out[7];
    let mut out = Vec::new();
    encode(&mut out, &p, &pl, 0);
    assert_eq!(hop(&out), 64, "as the correspondent sent it");
    out.clear();
    encode(&mut out, &p, &pl, 3);
    assert_eq!(hop(&out), 63, "at the mobile, through the home agent");
    // Tunnelled from the home agent to the care-of address on link 3 (ha - mn): the outer
    // header straight from ha, the inner one forwarded by ha into the tunnel.
    encapsulate(&mut p, 1, COA + 1);
    out.clear();
    encode(&mut out, &p, &pl, 3);
    assert_eq!(
        hop(&out),
        64,
        "the outer header: ha is the mobile's neighbour"
    );
    assert_eq!(
        out[40 + 7],
        63,
        "the inner header: one less at the tunnel's entry"
    );
}
