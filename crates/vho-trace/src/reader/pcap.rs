//! Classic pcap: a 24-byte file header, then 16-byte record headers each followed by the
//! captured bytes (the format of libpcap's savefile.c, as documented in
//! draft-ietf-opsawg-pcap §4-5). Magic 0xa1b2c3d4 (microseconds) or 0xa1b23c4d
//! (nanoseconds), in either byte order.

use super::{Counted, Head, Next, MAX_RECORD};
use crate::error::TraceError;
use std::io::Read;

pub(crate) struct State {
    big_endian: bool,
    nanos: bool,
    linktype: u32,
}

impl State {
    pub fn open<R: Read>(
        src: &mut Counted<R>,
        label: &str,
        magic: [u8; 4],
    ) -> Result<Self, TraceError> {
        let (big_endian, nanos) = match (u32::from_le_bytes(magic), u32::from_be_bytes(magic)) {
            (0xa1b2_c3d4, _) => (false, false),
            (0xa1b2_3c4d, _) => (false, true),
            (_, 0xa1b2_c3d4) => (true, false),
            (_, 0xa1b2_3c4d) => (true, true),
            _ => {
                return Err(TraceError::at(label, 0, format!(
                        "not a capture: expected a pcap magic number (a1b2c3d4 or a1b23c4d, either byte order) or pcapng, got {:02x}{:02x}{:02x}{:02x}",
                        magic[0], magic[1], magic[2], magic[3]
                    )))
            }
        };
        let mut rest = [0u8; 20];
        let n = src
            .fill(&mut rest)
            .map_err(|e| TraceError::io(label, 4, e))?;
        if n < 20 {
            return Err(TraceError::at(
                label,
                4,
                format!(
                    "pcap file header truncated (expected 24 bytes, got {})",
                    4 + n
                ),
            ));
        }
        let u32_at = |i: usize| read_u32(&rest[i..i + 4], big_endian);
        // Bytes 16..20 of the header: LinkType and additional information (FCS length) in
        // the top bits; the link type is the low 16 bits.
        let linktype = u32_at(16) & 0xffff;
        Ok(State {
            big_endian,
            nanos,
            linktype,
        })
    }

    /// Reads the next record into `buf`.
    pub fn next<R: Read>(
        &mut self,
        src: &mut Counted<R>,
        label: &str,
        buf: &mut Vec<u8>,
    ) -> Result<Next, TraceError> {
        let at = src.offset;
        let mut h = [0u8; 16];
        let n = src.fill(&mut h).map_err(|e| TraceError::io(label, at, e))?;
        if n == 0 {
            return Ok(Next::End);
        }
        if n < 16 {
            return Ok(Next::CutShort(TraceError::at(
                label,
                at,
                format!("record header truncated (expected 16 bytes, got {n})"),
            )));
        }
        let sec = read_u32(&h[0..4], self.big_endian) as u64;
        let frac = read_u32(&h[4..8], self.big_endian) as u64;
        let incl = read_u32(&h[8..12], self.big_endian) as usize;
        let orig = read_u32(&h[12..16], self.big_endian);
        if incl > MAX_RECORD {
            return Err(TraceError::at(label, at, format!(
                    "record length {incl} is not plausible (expected at most {MAX_RECORD}): the file is corrupt"
                )));
        }
        buf.resize(incl, 0);
        let got = src
            .fill(buf)
            .map_err(|e| TraceError::io(label, at + 16, e))?;
        if got < incl {
            return Ok(Next::CutShort(TraceError::at(
                label,
                at + 16,
                format!("record truncated (expected {incl} bytes, got {got})"),
            )));
        }
        let ts = sec * 1_000_000_000 + if self.nanos { frac } else { frac * 1000 };
        Ok(Next::Record(Head {
            ts_ns: ts,
            linktype: self.linktype,
            orig_len: orig,
            start: 0,
            end: incl,
        }))
    }
}

pub(crate) fn read_u32(b: &[u8], big_endian: bool) -> u32 {
    let a = [b[0], b[1], b[2], b[3]];
    if big_endian {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}
