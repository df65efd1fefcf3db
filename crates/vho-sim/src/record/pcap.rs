//! Classic pcap with nanosecond timestamps (magic 0xa1b23c4d), link type RAW (101: each record
//! is an IPv4 packet). Each segment becomes a real IPv4 + TCP header, options included, with
//! valid checksums, followed by its payload as zero bytes, so that tshark and Wireshark read
//! lengths, sequence numbers and options as on a real wire.
//!
//! vho-sim does no I/O: the writer hands bytes to a [`CaptureSink`] the driver provides.

use crate::tcp::{Flags, Segment};
use crate::time::Time;

/// Where capture bytes go.
pub trait CaptureSink {
    fn write_bytes(&mut self, bytes: &[u8]);
}

impl CaptureSink for Vec<u8> {
    fn write_bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A sink over any writer the driver opened (a buffered file): the first error is kept and
/// the rest of the capture skipped, to be reported once the run is over ([`WriteSink::finish`]).
pub struct WriteSink<W: std::io::Write> {
    out: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> WriteSink<W> {
    pub fn new(out: W) -> Self {
        WriteSink { out, error: None }
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Flushes; the first error of the whole capture, if any.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

impl<W: std::io::Write> CaptureSink for WriteSink<W> {
    fn write_bytes(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }
}

pub use crate::config::SNAPLEN;
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
pub const LINKTYPE_RAW: u32 = 101;
/// The least `record.snaplen`: the longest header vho writes fits (outer IPv6 40 + a
/// destination option 8 + inner IPv6 40 + type 2 routing header 24 + home address option 24
/// + TCP with 40 bytes of options 60 = 196).
pub const MIN_SNAPLEN: u32 = 256;
/// The largest `record.snaplen`: tcpdump's MAXIMUM_SNAPLEN (262144).
pub const MAX_SNAPLEN: u32 = 262_144;
const ZEROS: [u8; 4096] = [0; 4096];

pub struct PcapWriter<S: CaptureSink> {
    sink: S,
    buf: Vec<u8>,
    snaplen: u32,
}

impl<S: CaptureSink> PcapWriter<S> {
    /// Writes the file header; whole packets are kept.
    pub fn new(sink: S) -> Self {
        Self::with_snaplen(sink, SNAPLEN)
    }

    /// Writes the file header; the first `snaplen` bytes of each packet are kept (tcpdump's
    /// `-s`), each record's original length the packet's.
    pub fn with_snaplen(mut sink: S, snaplen: u32) -> Self {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NANOS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&snaplen.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        sink.write_bytes(&h);
        PcapWriter {
            sink,
            buf: Vec::with_capacity(128),
            snaplen,
        }
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    pub fn into_sink(self) -> S {
        self.sink
    }

    /// Appends one packet seen at `ts`, its IPv4 TTL `ttl` (`record::hops`), with `extra`
    /// option bytes (an MPTCP option, `agent::mptcp::wire`; none for a plain segment) laid
    /// after the segment's own and before its SACK blocks, which get what room is left
    /// (Linux `tcp_established_options`).
    #[allow(clippy::too_many_arguments)]
    pub fn write_segment(
        &mut self,
        ts: Time,
        src: [u8; 4],
        dst: [u8; 4],
        ip_id: u16,
        ttl: u8,
        seg: &Segment,
        extra: &[u8],
    ) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        encode_headers(&mut buf, src, dst, ip_id, ttl, seg, extra);
        self.write_record(ts, &buf, seg.len);
        self.buf = buf;
    }

    /// Appends one packet seen at `ts`: `headers` then `zeros` payload bytes of zero.
    pub fn write_record(&mut self, ts: Time, headers: &[u8], zeros: u32) {
        let total = headers.len() as u32 + zeros;
        let caplen = total.min(self.snaplen);
        let ns = ts.as_nanos();
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&caplen.to_le_bytes());
        rec[12..16].copy_from_slice(&total.to_le_bytes());
        self.sink.write_bytes(&rec);
        let shown = headers.len().min(caplen as usize);
        self.sink.write_bytes(&headers[..shown]);
        let mut left = caplen as usize - shown;
        while left > 0 {
            let n = left.min(ZEROS.len());
            self.sink.write_bytes(&ZEROS[..n]);
            left -= n;
        }
    }
}

/// An IPv4 header (20 bytes, no options, DF, TTL `ttl`) for a packet of `total` bytes
/// carrying `protocol` (6 TCP, 17 UDP), its checksum filled in (RFC 791).
pub(crate) fn ipv4_header(
    total: u32,
    ip_id: u16,
    ttl: u8,
    protocol: u8,
    src: [u8; 4],
    dst: [u8; 4],
) -> [u8; 20] {
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&(total.min(u16::MAX as u32) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6] = 0x40; // DF
    ip[8] = ttl;
    ip[9] = protocol;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let ipsum = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&ipsum.to_be_bytes());
    ip
}

/// IPv4 (20 bytes, DF, TTL `ttl`) and TCP headers of `seg`, checksums filled in, with
/// `extra` option bytes after the segment's own (see [`PcapWriter::write_segment`]; none for
/// a plain segment). The payload is zeros, which add nothing to the TCP checksum but their
/// length in the pseudo-header.
#[allow(clippy::too_many_arguments)]
pub fn encode_headers(
    out: &mut Vec<u8>,
    src: [u8; 4],
    dst: [u8; 4],
    ip_id: u16,
    ttl: u8,
    seg: &Segment,
    extra: &[u8],
) {
    // Pseudo-header (RFC 9293 §3.1): src, dst, zero, protocol 6, TCP length.
    let (tcp, tcp_len) = encode_tcp(seg, sum16(&src) + sum16(&dst) + 6, extra);
    let total = 20 + tcp_len as u32 + seg.len;
    out.extend_from_slice(&ipv4_header(total, ip_id, ttl, 6, src, dst));
    out.extend_from_slice(&tcp[..tcp_len]);
}

/// The TCP header of `seg` (options included) and its length, the checksum computed over
/// `pseudo` (the pseudo-header's sum without the TCP length, which is added here) and the
/// header, `extra` option bytes after the segment's own; the payload is zeros, which add
/// nothing but their length.
pub(crate) fn encode_tcp(seg: &Segment, pseudo: u32, extra: &[u8]) -> ([u8; 60], usize) {
    let mut tcp = [0u8; 60];
    let opt_len = encode_options(&mut tcp[20..], seg, extra);
    let tcp_len = 20 + opt_len;
    tcp[0..2].copy_from_slice(&seg.src_port.to_be_bytes());
    tcp[2..4].copy_from_slice(&seg.dst_port.to_be_bytes());
    tcp[4..8].copy_from_slice(&seg.seq.0.to_be_bytes());
    let ack = if seg.flags.contains(Flags::ACK) {
        seg.ack.0
    } else {
        0
    };
    tcp[8..12].copy_from_slice(&ack.to_be_bytes());
    tcp[12] = ((tcp_len / 4) as u8) << 4;
    tcp[13] = seg.flags.0;
    tcp[14..16].copy_from_slice(&seg.window.to_be_bytes());
    let seg_len = tcp_len as u32 + seg.len;
    let sum = pseudo + (seg_len >> 16) + (seg_len & 0xffff) + sum16(&tcp[..tcp_len]);
    tcp[16..18].copy_from_slice(&fold(sum).to_be_bytes());
    (tcp, tcp_len)
}

/// Lays the options out as Linux does (MSS, SACK-permitted, timestamps, window scale; SACK
/// blocks after timestamps), NOP-padded to 32-bit words; returns their length.
/// `extra` (whole 32-bit words: an MPTCP option) goes after the segment's own options and
/// before its SACK blocks, left out if it does not fit.
fn encode_options(out: &mut [u8], seg: &Segment, extra: &[u8]) -> usize {
    let o = &seg.options;
    let mut n = 0;
    let put = |out: &mut [u8], n: &mut usize, bytes: &[u8]| {
        if *n + bytes.len() <= 40 {
            out[*n..*n + bytes.len()].copy_from_slice(bytes);
            *n += bytes.len();
        }
    };
    if let Some(mss) = o.mss {
        let m = mss.to_be_bytes();
        put(out, &mut n, &[2, 4, m[0], m[1]]);
    }
    if o.sack_permitted {
        put(out, &mut n, &[1, 1, 4, 2]);
    }
    if let Some((val, ecr)) = o.timestamps {
        let (v, e) = (val.to_be_bytes(), ecr.to_be_bytes());
        put(
            out,
            &mut n,
            &[1, 1, 8, 10, v[0], v[1], v[2], v[3], e[0], e[1], e[2], e[3]],
        );
    }
    if let Some(ws) = o.window_scale {
        put(out, &mut n, &[1, 3, 3, ws]);
    }
    if let Some(h) = o.handover_notice {
        let x = crate::tcp::segment::HANDOVER_NOTICE_EXID.to_be_bytes();
        put(
            out,
            &mut n,
            &[1, 253, 7, x[0], x[1], h.from, h.to, h.rate.byte()],
        );
    }
    if !extra.is_empty() {
        put(out, &mut n, extra);
    }
    if !o.sack.is_empty() {
        let room = (40usize.saturating_sub(n + 4)) / 8;
        let blocks = &o.sack.as_slice()[..o.sack.len().min(room)];
        if !blocks.is_empty() {
            let mut b = vec![1, 1, 5, (2 + 8 * blocks.len()) as u8];
            for &(l, r) in blocks {
                b.extend_from_slice(&l.0.to_be_bytes());
                b.extend_from_slice(&r.0.to_be_bytes());
            }
            put(out, &mut n, &b);
        }
    }
    n
}

pub(crate) fn sum16(b: &[u8]) -> u32 {
    let mut s = 0u32;
    for c in b.chunks(2) {
        s += u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0));
    }
    s
}

pub(crate) fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{SeqNum, TcpOptions};

    fn seg() -> Segment {
        let mut options = TcpOptions {
            timestamps: Some((100, 50)),
            ..TcpOptions::default()
        };
        options.sack.push(SeqNum(3000), SeqNum(4000));
        Segment {
            src_port: 40001,
            dst_port: 5001,
            seq: SeqNum(1),
            ack: SeqNum(1001),
            flags: Flags::ACK,
            window: 1024,
            options,
            len: 0,
        }
    }

    #[test]
    fn header_lengths_match_the_option_layout() {
        let s = seg();
        let mut out = Vec::new();
        encode_headers(&mut out, [10, 0, 0, 1], [10, 0, 0, 3], 7, 64, &s, &[]);
        // 20 IP + 20 TCP + 12 timestamps + 12 one SACK block = 64 = 20 + s.header_len().
        assert_eq!(out.len(), 64);
        assert_eq!(out.len() as u32, 20 + s.header_len());
        assert_eq!(out[20 + 12] >> 4, 11); // data offset in 32-bit words
    }

    #[test]
    fn checksums_verify_to_zero() {
        // RFC 1071: the one's-complement sum over the covered bytes, checksum included, is
        // all ones (folds to zero after complement).
        let mut s = seg();
        s.len = 1000;
        let mut out = Vec::new();
        encode_headers(&mut out, [10, 0, 0, 1], [10, 0, 0, 3], 7, 64, &s, &[]);
        assert_eq!(fold(sum16(&out[..20])), 0);
        let tcp_len = (out.len() - 20) as u32 + s.len;
        let pseudo = sum16(&[10, 0, 0, 1]) + sum16(&[10, 0, 0, 3]) + 6 + tcp_len;
        assert_eq!(fold(pseudo + sum16(&out[20..])), 0);
    }

    #[test]
    fn records_carry_nanosecond_time_and_full_length() {
        let mut w = PcapWriter::new(Vec::new());
        let mut s = seg();
        s.len = 1460;
        w.write_segment(
            Time(1_500_000_123),
            [10, 0, 0, 1],
            [10, 0, 0, 3],
            1,
            64,
            &s,
            &[],
        );
        let b = w.into_sink();
        assert_eq!(&b[0..4], &MAGIC_NANOS.to_le_bytes());
        assert_eq!(u32::from_le_bytes([b[24], b[25], b[26], b[27]]), 1);
        assert_eq!(
            u32::from_le_bytes([b[28], b[29], b[30], b[31]]),
            500_000_123
        );
        let len = u32::from_le_bytes([b[36], b[37], b[38], b[39]]);
        assert_eq!(len, 64 + 1460);
        assert_eq!(b.len(), 24 + 16 + len as usize);
    }

    #[test]
    fn a_snap_length_keeps_the_headers_and_the_original_length() {
        // pcap(5): caplen is what the record holds, len the packet's length on the wire; the
        // file header's snaplen the most any record holds.
        let mut w = PcapWriter::with_snaplen(Vec::new(), MIN_SNAPLEN);
        let mut s = seg();
        s.len = 1460;
        w.write_segment(Time(1), [10, 0, 0, 1], [10, 0, 0, 3], 1, 64, &s, &[]);
        s.len = 0;
        w.write_segment(Time(2), [10, 0, 0, 1], [10, 0, 0, 3], 2, 64, &s, &[]);
        let b = w.into_sink();
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        assert_eq!(u32_at(16), MIN_SNAPLEN);
        assert_eq!((u32_at(32), u32_at(36)), (MIN_SNAPLEN, 64 + 1460));
        assert_eq!(
            &b[40..40 + 64][..20],
            &{
                let mut h = Vec::new();
                let mut s = seg();
                s.len = 1460;
                encode_headers(&mut h, [10, 0, 0, 1], [10, 0, 0, 3], 1, 64, &s, &[]);
                h
            }[..20]
        );
        let second = 40 + MIN_SNAPLEN as usize;
        assert_eq!((u32_at(second + 8), u32_at(second + 12)), (64, 64));
        assert_eq!(b.len(), second + 16 + 64);
    }
}
