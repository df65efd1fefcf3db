//! IPv4 (RFC 791) and IPv6 (RFC 8200, extension headers) down to TCP, unwrapping IP-in-IP
//! tunnels (protocol 4, RFC 2003; protocol 41, RFC 2473) as Mobile IP's home agent uses them.

use super::link::L3;
use super::Skip;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const PROTO_TCP: u8 = 6;
const PROTO_IPIP: u8 = 4;
const PROTO_IPV6: u8 = 41;
/// Tunnels deeper than this are treated as malformed (a loop in a crafted file).
const MAX_TUNNELS: u8 = 4;

pub struct Ip<'a> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub ip_id: u16,
    /// TTL (IPv4) or hop limit (IPv6) of the innermost header.
    pub ttl: u8,
    pub tunnels: u8,
    /// Source and destination of the outermost header when `tunnels > 0` (a Mobile IP home
    /// agent's tunnel to the care-of address, RFC 6275 §10.4.1, RFC 5944 §4.2).
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
                    outer,
                    ..ip
                })
            }
            PROTO_IPIP | PROTO_IPV6 if tunnels < MAX_TUNNELS => {
                if tunnels == 0 {
                    outer = Some((ip.src, ip.dst));
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
    // Extension headers (RFC 8200 §4): hop-by-hop 0, routing 43, fragment 44,
    // destination options 60, mobility 135 (RFC 6275; carries no upper layer).
    loop {
        match next {
            0 | 43 | 60 => {
                let h = b.get(off..off + 2).ok_or(Skip::TruncatedHeaders)?;
                let len = (h[1] as usize + 1) * 8;
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
    Ok((
        next,
        Ip {
            src: addr(8),
            dst: addr(24),
            ip_id: 0,
            ttl: b[7],
            tunnels: 0,
            outer: None,
            payload,
            payload_len: payload_len as u32,
        },
    ))
}
