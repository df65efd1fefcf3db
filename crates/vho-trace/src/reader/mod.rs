//! Streaming capture readers: classic pcap (micro- and nanosecond, either byte order) and
//! pcapng. One record at a time into a reused buffer: memory does not grow with the file.
//!
//! A file that ends inside its last record (a capture stopped mid-write, a copy cut short)
//! ends there, as tshark does ("The file appears to have been cut short in the middle of a
//! packet"): the records before it are read, and [`Reader::cut_short`] says where it ended.
//! Damage elsewhere (an implausible length, a bad block) is still an error.
//!
//! Each record carries its stamp and its time from the capture's origin ([`clock`]).

pub mod clock;
mod pcap;
mod pcapng;

use crate::error::TraceError;
use clock::Clock;
use std::io::Read;

/// Records larger than this are refused as corrupt rather than allocated (Wireshark's
/// largest snap length is 256 KiB: wiretap's WTAP_MAX_PACKET_SIZE_STANDARD).
pub const MAX_RECORD: usize = 256 * 1024;

/// One captured packet, borrowed from the reader's buffer.
#[derive(Debug)]
pub struct Record<'a> {
    /// Capture time in nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// Time from the capture's origin in nanoseconds (see [`clock`]): what vho reports.
    pub t_ns: u64,
    /// Link type of the interface it was captured on (LINKTYPE_* numbers).
    pub linktype: u32,
    /// The captured bytes (possibly cut by the snap length).
    pub data: &'a [u8],
    /// The packet's length on the wire.
    pub orig_len: u32,
}

/// What a format reader found next.
pub(crate) enum Next {
    Record(Head),
    /// A clean end of file.
    End,
    /// The file ends inside a record or block: where, and what was missing.
    CutShort(TraceError),
}

/// What a format reader found: the record's bytes are `buf[start..end]`.
pub(crate) struct Head {
    pub ts_ns: u64,
    pub linktype: u32,
    pub orig_len: u32,
    pub start: usize,
    pub end: usize,
}

enum Format {
    Pcap(pcap::State),
    PcapNg(pcapng::State),
}

/// A capture being read.
pub struct Reader<R: Read> {
    src: Counted<R>,
    label: String,
    format: Format,
    buf: Vec<u8>,
    cut_short: Option<TraceError>,
    clock: Clock,
}

/// A reader that knows how many bytes it has consumed (for error offsets).
pub(crate) struct Counted<R: Read> {
    inner: R,
    pub offset: u64,
}

impl<R: Read> Counted<R> {
    /// Reads exactly `buf.len()` bytes; returns how many were read before the end.
    pub fn fill(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.inner.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

impl<R: Read> Reader<R> {
    /// Opens a capture, telling pcap from pcapng by the magic number.
    pub fn new(inner: R, label: &str) -> Result<Self, TraceError> {
        let mut src = Counted { inner, offset: 0 };
        let mut magic = [0u8; 4];
        let n = src
            .fill(&mut magic)
            .map_err(|e| TraceError::io(label, 0, e))?;
        if n < 4 {
            return Err(TraceError::at(
                label,
                0,
                format!("file too short for a capture header (expected at least 4 bytes, got {n})"),
            ));
        }
        let format = if u32::from_le_bytes(magic) == pcapng::SHB_TYPE {
            Format::PcapNg(pcapng::State::open(&mut src, label)?)
        } else {
            Format::Pcap(pcap::State::open(&mut src, label, magic)?)
        };
        Ok(Reader {
            src,
            label: label.to_string(),
            format,
            buf: Vec::with_capacity(2048),
            cut_short: None,
            clock: Clock::default(),
        })
    }

    /// The next record, `None` at the end of the file, or where it was cut short inside a
    /// record (see [`Reader::cut_short`]).
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, TraceError> {
        if self.cut_short.is_some() {
            return Ok(None);
        }
        let next = match &mut self.format {
            Format::Pcap(s) => s.next(&mut self.src, &self.label, &mut self.buf)?,
            Format::PcapNg(s) => s.next(&mut self.src, &self.label, &mut self.buf)?,
        };
        match next {
            Next::Record(h) => Ok(Some(Record {
                ts_ns: h.ts_ns,
                t_ns: self.clock.relative(h.ts_ns),
                linktype: h.linktype,
                data: &self.buf[h.start..h.end],
                orig_len: h.orig_len,
            })),
            Next::End => Ok(None),
            Next::CutShort(e) => {
                self.cut_short = Some(e);
                Ok(None)
            }
        }
    }

    /// Where the file ended inside a record, once [`Reader::next_record`] has reached it:
    /// the records before it were whole.
    pub fn cut_short(&self) -> Option<&TraceError> {
        self.cut_short.as_ref()
    }

    /// The capture's clock: its origin and the latest time read so far.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}
