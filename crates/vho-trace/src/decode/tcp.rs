//! The TCP header (RFC 9293 §3.1) and the options vho reads: MSS (RFC 9293 §3.2), window
//! scale and timestamps (RFC 7323), SACK-permitted and SACK blocks (RFC 2018), and Multipath
//! TCP's (RFC 8684, see [`super::mptcp`]).

use super::mptcp::{self, MptcpOption};
use super::Skip;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    /// The flag bits (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10, URG 0x20, ECE 0x40,
    /// CWR 0x80).
    pub flags: u8,
    pub window: u16,
    pub header_len: u8,
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    /// (TSval, TSecr).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks (left, right), at most four (RFC 2018 §3).
    pub sack: Vec<(u32, u32)>,
    /// Multipath TCP options (kind 30), in header order; a malformed one is
    /// [`MptcpOption::Malformed`].
    pub mptcp: Vec<MptcpOption>,
}

pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const ACK: u8 = 0x10;

pub fn parse(b: &[u8]) -> Result<TcpHeader, Skip> {
    if b.len() < 20 {
        return Err(Skip::TruncatedHeaders);
    }
    let be16 = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    let be32 = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let header_len = ((b[12] >> 4) as usize) * 4;
    if header_len < 20 {
        return Err(Skip::Malformed);
    }
    let opts = b.get(20..header_len).ok_or(Skip::TruncatedHeaders)?;
    let mut h = TcpHeader {
        sport: be16(0),
        dport: be16(2),
        seq: be32(4),
        ack: be32(8),
        flags: b[13],
        window: be16(14),
        header_len: header_len as u8,
        ..TcpHeader::default()
    };
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        match kind {
            0 => break,
            1 => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let Some(&len) = opts.get(i + 1) else { break };
        let len = len as usize;
        if len < 2 || i + len > opts.len() {
            if kind == mptcp::KIND {
                h.mptcp.push(MptcpOption::Malformed {
                    subtype: opts.get(i + 2).map_or(0xff, |b| b >> 4),
                    len: len as u8,
                });
            }
            break; // a malformed option ends option parsing, as in Wireshark
        }
        let v = &opts[i + 2..i + len];
        match (kind, v.len()) {
            (2, 2) => h.mss = Some(u16::from_be_bytes([v[0], v[1]])),
            (3, 1) => h.wscale = Some(v[0]),
            (4, 0) => h.sack_permitted = true,
            (5, n) if n % 8 == 0 => {
                for c in v.chunks_exact(8).take(4) {
                    let l = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
                    let r = u32::from_be_bytes([c[4], c[5], c[6], c[7]]);
                    h.sack.push((l, r));
                }
            }
            (8, 8) => {
                h.timestamps = Some((
                    u32::from_be_bytes([v[0], v[1], v[2], v[3]]),
                    u32::from_be_bytes([v[4], v[5], v[6], v[7]]),
                ))
            }
            (mptcp::KIND, _) => h.mptcp.push(mptcp::parse(&opts[i..i + len])),
            _ => {}
        }
        i += len;
    }
    Ok(h)
}
