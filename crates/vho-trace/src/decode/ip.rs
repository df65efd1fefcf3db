//! IPv4 (RFC 791) and IPv6 (RFC 8200, extension headers) down to TCP, unwrapping IP-in-IP
//! tunnels (protocol 4, RFC 2003; protocol 41, RFC 2473) as Mobile IP's home agent uses them.
//!
//! Mobile IPv6's route optimisation (RFC 6275 §6.3, §6.4, §9.3) puts the care-of address on
//! the wire and the home address in an extension header: a Home Address destination option
//! (type 0xC9) from the mobile, a type 2 routing header (segments left 1) to it. The
//! transport sees the home address (§9.3.1: the option's address replaces the source before
//! the upper layer; §6.4: the routing header's is the final destination), and so does
//! Wireshark's TCP conversation (`tcp.stream`): the home address is the segment's source or
//! destination here, and the wire's addresses are kept as `outer`, as a tunnel's are.

use super::link::L3;
use super::Skip;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const PROTO_TCP: u8 = 6;
const PROTO_IPIP: u8 = 4;
const PROTO_IPV6: u8 = 41;
/// RFC 6275 §6.3: the Home Address destination option.
const OPT_HOME_ADDRESS: u8 = 0xc9;
/// RFC 6275 §6.4: the type 2 routing header.
const ROUTING_TYPE_2: u8 = 2;
/// Tunnels deeper than this are treated as malformed (a loop in a crafted file).
const MAX_TUNNELS: u8 = 4;

pub struct Ip<'a> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub ip_id: u16,
    /// TTL (IPv4) or hop limit (IPv6) of the innermost header.
    pub ttl: u8,
    pub tunnels: u8,
    /// Source and destination of the outermost header when they are not the transport's:
    /// with `tunnels > 0`, a Mobile IP home agent's tunnel to the care-of address (RFC 6275
    /// §10.4.1, RFC 5944 §4.2); without, a route-optimised packet's wire addresses, the
    /// care-of address among them, where `src` or `dst` is the home address (§6.3, §6.4).
    pub outer: Option<(IpAddr, IpAddr)>,
    /// The TCP header and payload as captured (may be cut by the snap length).
    pub payload: &'a [u8],
    /// Length of the TCP header and payload according to the IP header.
    pub payload_len: u32,
}

pub fn parse(l3: L3, mut b: &[u8]) -> Result<Ip<'_>, Skip> {
    let mut version = match l3 {
        L3::Ipv4 => 4,
        L3::Ipv6 => 6,
        L3::Ip => b.first().ok_or(Skip::TruncatedHeaders)? >> 4,
    };
    let mut tunnels = 0;
    let mut outer = None;
    loop {
        let (proto, ip) = match version {
            4 => v4(b)?,
            6 => v6(b)?,
            _ => return Err(Skip::Malformed),
        };
        match proto {
            PROTO_TCP => {
                return Ok(Ip {
                    tunnels,
                    outer: outer.or(ip.outer),
                    ..ip
                })
            }
            PROTO_IPIP | PROTO_IPV6 if tunnels < MAX_TUNNELS => {
                if tunnels == 0 {
                    outer = Some(ip.outer.unwrap_or((ip.src, ip.dst)));
                }
                tunnels += 1;
                version = if proto == PROTO_IPIP { 4 } else { 6 };
                b = ip.payload;
            }
            PROTO_IPIP | PROTO_IPV6 => return Err(Skip::Malformed),
            _ => return Err(Skip::NotTcp),
        }
    }
}

fn v4(b: &[u8]) -> Result<(u8, Ip<'_>), Skip> {
    if b.len() < 20 {
        return Err(Skip::TruncatedHeaders);
    }
    if b[0] >> 4 != 4 {
        return Err(Skip::Malformed);
    }
    let ihl = ((b[0] & 0x0f) as usize) * 4;
    let total = u16::from_be_bytes([b[2], b[3]]) as usize;
    if ihl < 20 || total < ihl {
        return Err(Skip::Malformed);
    }
    let frag = u16::from_be_bytes([b[6], b[7]]);
    if frag & 0x1fff != 0 {
        return Err(Skip::Fragment);
    }
    let payload = b.get(ihl..).ok_or(Skip::TruncatedHeaders)?;
    // Ethernet pads short frames: the IP total length bounds the payload.
    let payload = &payload[..payload.len().min(total - ihl)];
    Ok((
        b[9],
        Ip {
            src: IpAddr::V4(Ipv4Addr::new(b[12], b[13], b[14], b[15])),
            dst: IpAddr::V4(Ipv4Addr::new(b[16], b[17], b[18], b[19])),
            ip_id: u16::from_be_bytes([b[4], b[5]]),
            ttl: b[8],
            tunnels: 0,
            outer: None,
            payload,
            payload_len: (total - ihl) as u32,
        },
    ))
}

fn v6(b: &[u8]) -> Result<(u8, Ip<'_>), Skip> {
    if b.len() < 40 {
        return Err(Skip::TruncatedHeaders);
    }
    if b[0] >> 4 != 6 {
        return Err(Skip::Malformed);
    }
    let plen = u16::from_be_bytes([b[4], b[5]]) as usize;
    let addr = |i: usize| {
        let mut a = [0u8; 16];
        a.copy_from_slice(&b[i..i + 16]);
        IpAddr::V6(Ipv6Addr::from(a))
    };
    let mut next = b[6];
    let mut off = 40;
    let mut ext_len = 0usize;
    // The home address of a route-optimised packet: (as source, as destination).
    let (mut home_src, mut home_dst) = (None, None);
    // Extension headers (RFC 8200 §4): hop-by-hop 0, routing 43, fragment 44,
    // destination options 60, mobility 135 (RFC 6275; carries no upper layer).
    loop {
        match next {
            0 | 43 | 60 => {
                let h = b.get(off..off + 2).ok_or(Skip::TruncatedHeaders)?;
                let len = (h[1] as usize + 1) * 8;
                let hdr = b.get(off..off + len).ok_or(Skip::TruncatedHeaders)?;
                match next {
                    43 => home_dst = home_dst.or(routing_type_2(hdr)),
                    60 => home_src = home_src.or(home_address_option(hdr)),
                    _ => {}
                }
                next = h[0];
                off += len;
                ext_len += len;
            }
            44 => {
                let h = b.get(off..off + 8).ok_or(Skip::TruncatedHeaders)?;
                if u16::from_be_bytes([h[2], h[3]]) & 0xfff8 != 0 {
                    return Err(Skip::Fragment);
                }
                next = h[0];
                off += 8;
                ext_len += 8;
            }
            _ => break,
        }
    }
    let payload = b.get(off..).ok_or(Skip::TruncatedHeaders)?;
    let payload_len = plen.checked_sub(ext_len).ok_or(Skip::Malformed)?;
    let payload = &payload[..payload.len().min(payload_len)];
    let (wire_src, wire_dst) = (addr(8), addr(24));
    let outer = (home_src.is_some() || home_dst.is_some()).then_some((wire_src, wire_dst));
    Ok((
        next,
        Ip {
            src: home_src.map_or(wire_src, IpAddr::V6),
            dst: home_dst.map_or(wire_dst, IpAddr::V6),
            ip_id: 0,
            ttl: b[7],
            tunnels: 0,
            outer,
            payload,
            payload_len: payload_len as u32,
        },
    ))
}

/// The home address of a type 2 routing header (RFC 6275 §6.4: 8 bytes, then the address)
/// that still has it to visit (segments left 1); `hdr` is the whole header.
fn routing_type_2(hdr: &[u8]) -> Option<Ipv6Addr> {
    if hdr.len() != 24 || hdr[2] != ROUTING_TYPE_2 || hdr[3] != 1 {
        return None;
    }
    let a: [u8; 16] = hdr[8..24].try_into().ok()?;
    Some(Ipv6Addr::from(a))
}

/// The Home Address option (RFC 6275 §6.3: type 0xC9, 16 bytes) among a destination
/// options header's options (RFC 8200 §4.2: Pad1 is one byte, every other option a type, a
/// length and that many bytes); `hdr` is the whole header.
fn home_address_option(hdr: &[u8]) -> Option<Ipv6Addr> {
    let mut i = 2;
    while i < hdr.len() {
        let kind = hdr[i];
        if kind == 0 {
            i += 1;
            continue;
        }
        let len = *hdr.get(i + 1)? as usize;
        let v = hdr.get(i + 2..i + 2 + len)?;
        if kind == OPT_HOME_ADDRESS && len == 16 {
            let a: [u8; 16] = v.try_into().ok()?;
            return Some(Ipv6Addr::from(a));
        }
        i += 2 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const CN: &str = "2001:db8:c::1";
    const HOA: &str = "2001:db8:1::100";
    const COA: &str = "2001:db8:3::100";
    const HA: &str = "2001:db8:1::1";

    fn a(s: &str) -> [u8; 16] {
        s.parse::<Ipv6Addr>().expect("address").octets()
    }

    fn v6(src: &str, dst: &str, nh: u8, payload: &[u8]) -> Vec<u8> {
        let mut p = vec![0x60, 0, 0, 0];
        p.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        p.extend_from_slice(&[nh, 64]);
        p.extend_from_slice(&a(src));
        p.extend_from_slice(&a(dst));
        p.extend_from_slice(payload);
        p
    }

    /// 20 bytes of TCP header.
    const TCP: [u8; 20] = [
        0x13, 0x89, 0x9c, 0x40, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x10, 0xff, 0xff, 0, 0, 0, 0,
    ];

    fn rh2(nh: u8, segments_left: u8, home: &str) -> Vec<u8> {
        let mut h = vec![nh, 2, ROUTING_TYPE_2, segments_left, 0, 0, 0, 0];
        h.extend_from_slice(&a(home));
        h
    }

    fn hao(nh: u8, home: &str) -> Vec<u8> {
        // PadN of 4 puts the option at 8n+6 (RFC 6275 §6.3's alignment).
        let mut h = vec![nh, 2, 1, 2, 0, 0, OPT_HOME_ADDRESS, 16];
        h.extend_from_slice(&a(home));
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("address")
    }

    // -- Route optimisation (RFC 6275 §6.3, §6.4) ------------------------------------------

    #[test]
    fn a_type_2_routing_header_makes_the_home_address_the_destination() {
        // RFC 6275 §6.4: the CN sends to the care-of address, the home address in the header.
        let p = v6(CN, COA, 43, &[rh2(6, 1, HOA), TCP.to_vec()].concat());
        let r = parse(L3::Ip, &p).expect("TCP");
        assert_eq!((r.src, r.dst), (ip(CN), ip(HOA)));
        assert_eq!(r.outer, Some((ip(CN), ip(COA))));
        assert_eq!((r.tunnels, r.payload_len), (0, 20));
    }

    #[test]
    fn a_home_address_option_makes_the_home_address_the_source() {
        // RFC 6275 §9.3.1: the option's address replaces the source before the upper layer.
        let p = v6(COA, CN, 60, &[hao(6, HOA), TCP.to_vec()].concat());
        let r = parse(L3::Ip, &p).expect("TCP");
        assert_eq!((r.src, r.dst), (ip(HOA), ip(CN)));
        assert_eq!(r.outer, Some((ip(COA), ip(CN))));
    }

    #[test]
    fn a_routing_header_with_no_segment_left_keeps_the_wire_destination() {
        // Already processed: the wire's destination is the final one.
        let p = v6(CN, HOA, 43, &[rh2(6, 0, COA), TCP.to_vec()].concat());
        let r = parse(L3::Ip, &p).expect("TCP");
        assert_eq!((r.dst, r.outer), (ip(HOA), None));
    }

    #[test]
    fn a_tunnel_keeps_its_outer_header_and_the_inner_endpoints() {
        // RFC 2473: the home agent's tunnel to the care-of address.
        let inner = v6(CN, HOA, 6, &TCP);
        let outer = v6(HA, COA, 41, &inner);
        let r = parse(L3::Ip, &outer).expect("TCP");
        assert_eq!((r.src, r.dst, r.tunnels), (ip(CN), ip(HOA), 1));
        assert_eq!(r.outer, Some((ip(HA), ip(COA))));
    }

    #[test]
    fn signalling_is_not_tcp() {
        // A binding update: HAO, then a Mobility Header (135); an ICMPv6 RA (58).
        let mh = [59, 1, 5, 0, 0, 0, 0, 1, 0xf0, 0, 0, 100, 1, 2, 0, 0];
        let bu = v6(COA, HA, 60, &[hao(135, HOA), mh.to_vec()].concat());
        assert!(matches!(parse(L3::Ip, &bu), Err(Skip::NotTcp)));
        let ra = v6(
            "fe80::1",
            "ff02::1",
            58,
            &[134, 0, 0, 0, 64, 0, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0],
        );
        assert!(matches!(parse(L3::Ip, &ra), Err(Skip::NotTcp)));
    }
}
