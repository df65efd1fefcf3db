//! Decoding a captured frame down to its TCP header: link layer, IP (with tunnels), TCP.

pub mod ip;
pub mod link;
pub mod mptcp;
pub mod tcp;

pub use tcp::TcpHeader;

use std::net::IpAddr;

/// Why a frame was not decoded to a TCP segment (counted, never fatal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// A link type vho does not read.
    UnknownLinkType,
    /// Not IP, or IP carrying something other than TCP.
    NotTcp,
    /// The snap length (or a corrupt length field) cut the headers.
    TruncatedHeaders,
    /// A non-first IP fragment: no TCP header in it.
    Fragment,
    /// An IP or TCP header that contradicts itself (bad version, header length).
    Malformed,
}

/// A TCP segment as captured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub ts_ns: u64,
    pub src: IpAddr,
    pub dst: IpAddr,
    /// IPv4 identification (0 for IPv6).
    pub ip_id: u16,
    /// TTL (IPv4) or hop limit (IPv6) of the innermost IP header.
    pub ttl: u8,
    /// Number of IP-in-IP encapsulations removed to reach this header.
    pub tunnels: u8,
    /// Addresses of the outermost IP header when `tunnels > 0`.
    pub outer: Option<(IpAddr, IpAddr)>,
    pub tcp: TcpHeader,
    /// Payload length from the IP length fields (not limited by the snap length).
    pub payload_len: u32,
}

/// Decodes one frame; `Err` says why it is not a TCP segment.
pub fn decode(ts_ns: u64, linktype: u32, frame: &[u8]) -> Result<Segment, Skip> {
    let (proto, l3) = link::strip(linktype, frame)?;
    let ip = ip::parse(proto, l3)?;
    let tcp = tcp::parse(ip.payload)?;
    let payload_len = ip
        .payload_len
        .checked_sub(tcp.header_len as u32)
        .ok_or(Skip::Malformed)?;
    Ok(Segment {
        ts_ns,
        src: ip.src,
        dst: ip.dst,
        ip_id: ip.ip_id,
        ttl: ip.ttl,
        tunnels: ip.tunnels,
        outer: ip.outer,
        tcp,
        payload_len,
    })
}
