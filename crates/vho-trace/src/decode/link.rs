//! Link layers: strips the link header and says which network protocol follows. Link type
//! numbers are tcpdump.org's LINKTYPE_* registry.

use super::Skip;

pub const LINKTYPE_NULL: u32 = 0;
pub const LINKTYPE_ETHERNET: u32 = 1;
pub const LINKTYPE_RAW: u32 = 101;
/// Some systems write raw IP as the DLT values 12 or 14.
pub const LINKTYPE_RAW_DLT12: u32 = 12;
pub const LINKTYPE_RAW_DLT14: u32 = 14;
pub const LINKTYPE_LOOP: u32 = 108;
pub const LINKTYPE_LINUX_SLL: u32 = 113;
pub const LINKTYPE_IPV4: u32 = 228;
pub const LINKTYPE_IPV6: u32 = 229;
pub const LINKTYPE_LINUX_SLL2: u32 = 276;

/// What follows the link header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L3 {
    Ipv4,
    Ipv6,
    /// Raw IP: the version nibble decides.
    Ip,
}

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETHERTYPE_VLAN: u16 = 0x8100;
const ETHERTYPE_QINQ: u16 = 0x88a8;

fn be16(b: &[u8], i: usize) -> Result<u16, Skip> {
    b.get(i..i + 2)
        .map(|x| u16::from_be_bytes([x[0], x[1]]))
        .ok_or(Skip::TruncatedHeaders)
}

fn ethertype(t: u16) -> Result<L3, Skip> {
    match t {
        ETHERTYPE_IPV4 => Ok(L3::Ipv4),
        ETHERTYPE_IPV6 => Ok(L3::Ipv6),
        _ => Err(Skip::NotTcp),
    }
}

/// BSD loopback's address family (host byte order for NULL, network order for LOOP): 2 is
/// IPv4; 24, 28 and 30 are IPv6 on the BSDs and macOS.
fn family(af: u32) -> Result<L3, Skip> {
    match af {
        2 => Ok(L3::Ipv4),
        24 | 28 | 30 => Ok(L3::Ipv6),
        _ => Err(Skip::NotTcp),
    }
}

pub fn strip(linktype: u32, f: &[u8]) -> Result<(L3, &[u8]), Skip> {
    let rest = |n: usize| f.get(n..).ok_or(Skip::TruncatedHeaders);
    match linktype {
        LINKTYPE_ETHERNET => {
            let mut off = 12;
            let mut t = be16(f, off)?;
            // 802.1Q / 802.1ad tags, possibly stacked.
            while t == ETHERTYPE_VLAN || t == ETHERTYPE_QINQ {
                off += 4;
                t = be16(f, off)?;
            }
            Ok((ethertype(t)?, rest(off + 2)?))
        }
        LINKTYPE_RAW | LINKTYPE_RAW_DLT12 | LINKTYPE_RAW_DLT14 => Ok((L3::Ip, f)),
        LINKTYPE_IPV4 => Ok((L3::Ipv4, f)),
        LINKTYPE_IPV6 => Ok((L3::Ipv6, f)),
        LINKTYPE_LINUX_SLL => Ok((ethertype(be16(f, 14)?)?, rest(16)?)),
        LINKTYPE_LINUX_SLL2 => Ok((ethertype(be16(f, 0)?)?, rest(20)?)),
        LINKTYPE_NULL => {
            let b = f.get(0..4).ok_or(Skip::TruncatedHeaders)?;
            // Host byte order of the capturing machine: try both.
            let le = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let be = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            let l3 = family(le).or_else(|_| family(be))?;
            Ok((l3, rest(4)?))
        }
        LINKTYPE_LOOP => {
            let b = f.get(0..4).ok_or(Skip::TruncatedHeaders)?;
            Ok((
                family(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))?,
                rest(4)?,
            ))
        }
        _ => Err(Skip::UnknownLinkType),
    }
}
