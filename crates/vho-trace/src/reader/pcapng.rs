//! pcapng (draft-ietf-opsawg-pcapng): a sequence of blocks, each `type, total length, body,
//! total length`. Section headers set the byte order; interface descriptions give each
//! interface's link type and time resolution; packets come in Enhanced, Simple or (obsolete)
//! Packet blocks. Other blocks are skipped without being held in memory.

use super::pcap::read_u32;
use super::{Counted, Head, Next, MAX_RECORD};
use crate::error::TraceError;
use std::io::Read;

/// Section Header Block type; the same in both byte orders.
pub const SHB_TYPE: u32 = 0x0a0d_0d0a;
const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
const IDB: u32 = 1;
const OBSOLETE_PB: u32 = 2;
const SPB: u32 = 3;
const EPB: u32 = 6;

struct Interface {
    linktype: u32,
    snaplen: u32,
    /// Nanoseconds per timestamp unit, as a ratio (numerator, denominator).
    unit_ns: (u64, u64),
}

pub(crate) struct State {
    big_endian: bool,
    interfaces: Vec<Interface>,
}

impl State {
    /// Reads the first Section Header Block (its type was already consumed).
    pub fn open<R: Read>(src: &mut Counted<R>, label: &str) -> Result<Self, TraceError> {
        let mut s = State {
            big_endian: false,
            interfaces: Vec::new(),
        };
        let mut scratch = Vec::new();
        s.read_shb(src, label, 0, &mut scratch)?;
        Ok(s)
    }

    /// The rest of a Section Header Block starting at `at` (type already read).
    fn read_shb<R: Read>(
        &mut self,
        src: &mut Counted<R>,
        label: &str,
        at: u64,
        scratch: &mut Vec<u8>,
    ) -> Result<(), TraceError> {
        let mut h = [0u8; 8];
        let n = src
            .fill(&mut h)
            .map_err(|e| TraceError::io(label, at + 4, e))?;
        if n < 8 {
            return Err(TraceError::at(
                label,
                at,
                format!(
                    "section header truncated (expected at least 12 bytes, got {})",
                    4 + n
                ),
            ));
        }
        let [l0, l1, l2, l3, m0, m1, m2, m3] = h;
        self.shb_body(src, label, at, [l0, l1, l2, l3], [m0, m1, m2, m3], scratch)
    }

    /// A Section Header Block whose length and byte-order magic have been read: sets the
    /// byte order, forgets the interfaces of the previous section, skips the rest.
    fn shb_body<R: Read>(
        &mut self,
        src: &mut Counted<R>,
        label: &str,
        at: u64,
        len: [u8; 4],
        bom: [u8; 4],
        scratch: &mut Vec<u8>,
    ) -> Result<(), TraceError> {
        self.big_endian = match (u32::from_le_bytes(bom), u32::from_be_bytes(bom)) {
            (BYTE_ORDER_MAGIC, _) => false,
            (_, BYTE_ORDER_MAGIC) => true,
            _ => {
                return Err(TraceError::at(
                    label,
                    at + 8,
                    "section header: expected the byte-order magic 1a2b3c4d",
                ))
            }
        };
        let total = read_u32(&len, self.big_endian) as usize;
        if total < 28 || !total.is_multiple_of(4) || total > MAX_RECORD {
            return Err(TraceError::at(
                label,
                at + 4,
                format!(
                    "section header length {total} is not valid (expected a multiple of 4 from 28)"
                ),
            ));
        }
        self.interfaces.clear();
        scratch.resize(total - 12, 0);
        let got = src
            .fill(scratch)
            .map_err(|e| TraceError::io(label, at + 12, e))?;
        if got < total - 12 {
            return Err(TraceError::at(
                label,
                at,
                format!("section header truncated (expected {total} bytes)"),
            ));
        }
        Ok(())
    }

    pub fn next<R: Read>(
        &mut self,
        src: &mut Counted<R>,
        label: &str,
        buf: &mut Vec<u8>,
    ) -> Result<Next, TraceError> {
        loop {
            let at = src.offset;
            let mut h = [0u8; 8];
            let n = src.fill(&mut h).map_err(|e| TraceError::io(label, at, e))?;
            if n == 0 {
                return Ok(Next::End);
            }
            if n < 8 {
                return Ok(Next::CutShort(TraceError::at(
                    label,
                    at,
                    format!("block header truncated (expected 8 bytes, got {n})"),
                )));
            }
            let kind = read_u32(&h[0..4], self.big_endian);
            if kind == SHB_TYPE {
                // A new section, in its own byte order: the magic follows the length.
                let mut bom = [0u8; 4];
                if src
                    .fill(&mut bom)
                    .map_err(|e| TraceError::io(label, at + 8, e))?
                    < 4
                {
                    return Err(TraceError::at(label, at, "section header truncated"));
                }
                let len = [h[4], h[5], h[6], h[7]];
                self.shb_body(src, label, at, len, bom, buf)?;
                continue;
            }
            let total = read_u32(&h[4..8], self.big_endian) as usize;
            if total < 12 || !total.is_multiple_of(4) {
                return Err(TraceError::at(
                    label,
                    at + 4,
                    format!(
                        "block length {total} is not valid (expected a multiple of 4, at least 12)"
                    ),
                ));
            }
            let body = total - 8; // body and trailing length
            if !matches!(kind, IDB | OBSOLETE_PB | SPB | EPB) {
                if let Some(cut) = skip(src, label, at, body as u64)? {
                    return Ok(Next::CutShort(cut));
                }
                continue;
            }
            if total > MAX_RECORD + 64 {
                return Err(TraceError::at(label,
                    at + 4,
                    format!("block length {total} is not plausible (expected at most {}): the file is corrupt", MAX_RECORD + 64),
                ));
            }
            buf.resize(body, 0);
            let got = src
                .fill(buf)
                .map_err(|e| TraceError::io(label, at + 8, e))?;
            if got < body {
                return Ok(Next::CutShort(TraceError::at(
                    label,
                    at,
                    format!("block truncated (expected {total} bytes, got {})", got + 8),
                )));
            }
            let b = &buf[..body - 4];
            match kind {
                IDB => {
                    let iface = self.parse_idb(b, label, at)?;
                    self.interfaces.push(iface);
                }
                EPB | OBSOLETE_PB => {
                    if b.len() < 20 {
                        return Err(TraceError::at(
                            label,
                            at,
                            "packet block too short (expected at least 32 bytes)",
                        ));
                    }
                    let id = if kind == EPB {
                        read_u32(&b[0..4], self.big_endian) as usize
                    } else {
                        read_u16(&b[0..2], self.big_endian) as usize
                    };
                    let hi = read_u32(&b[4..8], self.big_endian) as u64;
                    let lo = read_u32(&b[8..12], self.big_endian) as u64;
                    let cap = read_u32(&b[12..16], self.big_endian) as usize;
                    let orig = read_u32(&b[16..20], self.big_endian);
                    if 20 + cap > b.len() {
                        return Err(TraceError::at(
                            label,
                            at,
                            format!("packet block: captured length {cap} exceeds the block"),
                        ));
                    }
                    let iface = self.interfaces.get(id).ok_or_else(|| {
                        TraceError::at(
                            label,
                            at,
                            format!(
                                "packet block names interface {id}, but only {} were described",
                                self.interfaces.len()
                            ),
                        )
                    })?;
                    let units = (hi << 32) | lo;
                    let ts_ns = (units as u128 * iface.unit_ns.0 as u128 / iface.unit_ns.1 as u128)
                        .min(u64::MAX as u128) as u64;
                    return Ok(Next::Record(Head {
                        ts_ns,
                        linktype: iface.linktype,
                        orig_len: orig,
                        start: 20,
                        end: 20 + cap,
                    }));
                }
                SPB => {
                    if b.len() < 4 {
                        return Err(TraceError::at(label, at, "simple packet block too short"));
                    }
                    let iface = self.interfaces.first().ok_or_else(|| {
                        TraceError::at(
                            label,
                            at,
                            "simple packet block before any interface description",
                        )
                    })?;
                    let orig = read_u32(&b[0..4], self.big_endian);
                    let mut cap = (orig as usize).min(b.len() - 4);
                    if iface.snaplen > 0 {
                        cap = cap.min(iface.snaplen as usize);
                    }
                    // Simple packet blocks carry no time stamp.
                    return Ok(Next::Record(Head {
                        ts_ns: 0,
                        linktype: iface.linktype,
                        orig_len: orig,
                        start: 4,
                        end: 4 + cap,
                    }));
                }
                _ => unreachable!("filtered above"),
            }
        }
    }

    fn parse_idb(&self, b: &[u8], label: &str, at: u64) -> Result<Interface, TraceError> {
        if b.len() < 8 {
            return Err(TraceError::at(
                label,
                at,
                "interface description too short (expected at least 20 bytes)",
            ));
        }
        let linktype = read_u16(&b[0..2], self.big_endian) as u32;
        let snaplen = read_u32(&b[4..8], self.big_endian);
        let mut unit_ns = (1000u64, 1u64); // default if_tsresol 6: microseconds
        let mut o = 8;
        while o + 4 <= b.len() {
            let code = read_u16(&b[o..o + 2], self.big_endian);
            let len = read_u16(&b[o + 2..o + 4], self.big_endian) as usize;
            let v = o + 4;
            if code == 0 || v + len > b.len() {
                break;
            }
            if code == 9 && len >= 1 {
                let r = b[v];
                unit_ns = if r & 0x80 == 0 {
                    let e = (r & 0x7f) as u32;
                    if e <= 9 {
                        (10u64.pow(9 - e), 1)
                    } else if e <= 18 {
                        (1, 10u64.pow(e - 9))
                    } else {
                        return Err(TraceError::at(
                            label,
                            at,
                            format!(
                                "if_tsresol 10^-{e} is not supported (expected at most 10^-18)"
                            ),
                        ));
                    }
                } else {
                    let e = (r & 0x7f) as u32;
                    if e > 63 {
                        return Err(TraceError::at(
                            label,
                            at,
                            format!("if_tsresol 2^-{e} is not supported"),
                        ));
                    }
                    (1_000_000_000, 1u64 << e)
                };
            }
            o = v + len.div_ceil(4) * 4;
        }
        Ok(Interface {
            linktype,
            snaplen,
            unit_ns,
        })
    }
}

fn read_u16(b: &[u8], big_endian: bool) -> u16 {
    let a = [b[0], b[1]];
    if big_endian {
        u16::from_be_bytes(a)
    } else {
        u16::from_le_bytes(a)
    }
}

/// Discards `n` bytes without holding them.
/// Skips `n` bytes of the block at `at`; `Some` if the file ends first (cut short).
fn skip<R: Read>(
    src: &mut Counted<R>,
    label: &str,
    at: u64,
    n: u64,
) -> Result<Option<TraceError>, TraceError> {
    let mut left = n;
    let mut chunk = [0u8; 4096];
    while left > 0 {
        let want = left.min(chunk.len() as u64) as usize;
        let got = src
            .fill(&mut chunk[..want])
            .map_err(|e| TraceError::io(label, at, e))?;
        if got < want {
            return Ok(Some(TraceError::at(
                label,
                at,
                format!("block truncated (expected {} more bytes)", left),
            )));
        }
        left -= got as u64;
    }
    Ok(None)
}
