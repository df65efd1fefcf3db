//! Time series, kept as columns: per flow the sender's TCP state at every change, per link
//! direction the queue length at every change. Only recorded when the scenario asks.
//!
//! A series holds its rows until the run ends, or, given a [`RowSink`] ([`Rows::spill_to`]),
//! hands them to it [`SPILL_ROWS`] at a time as fixed-width little-endian rows, so that what a
//! run holds does not grow with its length (issue 40 item 14: a 10,000 s TFRC run's queue
//! series held 48 M rows). Each series' row layout is given on its `Rows` impl; `vho run`
//! reads the rows back with the same layout (`vho.runner.ROWS`).

use crate::record::pcap::{CaptureSink, WriteSink};
use crate::time::Time;

/// Rows a series gathers before it hands them to its sink, when it has one: 16 Ki rows, at
/// most 704 KiB (a TCP row is the widest, 44 bytes) held per series.
pub const SPILL_ROWS: usize = 1 << 14;

/// Which series a sink takes (a run opens one sink per recorded series).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeriesId {
    /// A TCP flow's sender, by the flow's index in the scenario.
    Tcp(usize),
    /// A TFRC flow's sender, by the flow's index.
    Tfrc(usize),
    /// A flow's TFRC or TCP Probe capacity estimate, by the flow's index.
    Probe(usize),
    /// Every link direction's queue.
    Queues,
    /// Every data segment dropped in the network.
    Drops,
}

impl SeriesId {
    /// A name for the series' file (`tcp-0`, `queues`, ...).
    pub fn name(self) -> String {
        match self {
            SeriesId::Tcp(f) => format!("tcp-{f}"),
            SeriesId::Tfrc(f) => format!("tfrc-{f}"),
            SeriesId::Probe(f) => format!("probe-{f}"),
            SeriesId::Queues => "queues".to_string(),
            SeriesId::Drops => "drops".to_string(),
        }
    }
}

/// Where a series' rows go as it records them: whole rows, `Rows::ROW_BYTES` each.
pub trait RowSink: Send {
    fn rows(&mut self, bytes: &[u8]);
    /// Called once after the run: flush, and report the first failure.
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

impl RowSink for Vec<u8> {
    fn rows(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A buffered file, as for captures: the first error is kept and reported by `finish`.
impl<W: std::io::Write + Send> RowSink for WriteSink<W> {
    fn rows(&mut self, bytes: &[u8]) {
        self.write_bytes(bytes);
    }
    fn finish(&mut self) -> Result<(), String> {
        WriteSink::finish(self).map_err(|e| e.to_string())
    }
}

/// A series' sink and the rows handed to it so far.
pub struct Spill {
    sink: Box<dyn RowSink>,
    buf: Vec<u8>,
    rows: u64,
}

impl std::fmt::Debug for Spill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Spill {{ rows: {} }}", self.rows)
    }
}

/// A series as rows of a fixed width: what its sink receives, and what `vho-py` hands Python
/// for a run held in memory.
pub trait Rows {
    /// Bytes a row.
    const ROW_BYTES: usize;
    /// Rows held (those not handed to a sink yet).
    fn held(&self) -> usize;
    /// Writes held row `i` into `out` (`ROW_BYTES` long).
    fn write_row(&self, i: usize, out: &mut [u8]);
    /// Forgets the held rows (they went to the sink); the last state stays for the next
    /// row's comparison.
    fn clear_held(&mut self);
    fn spill_slot(&mut self) -> &mut Option<Spill>;

    /// Writes every held row into `out` (`held() · ROW_BYTES` long).
    fn encode(&self, out: &mut [u8]) {
        for (i, row) in out.chunks_exact_mut(Self::ROW_BYTES).enumerate() {
            self.write_row(i, row);
        }
    }

    /// From now on, hands the rows to `sink` [`SPILL_ROWS`] at a time (those held first).
    fn spill_to(&mut self, sink: Box<dyn RowSink>) {
        *self.spill_slot() = Some(Spill {
            sink,
            buf: Vec::new(),
            rows: 0,
        });
        self.spill_held();
    }

    /// After a push: hands the rows on once `SPILL_ROWS` are held, when spilling.
    #[inline]
    fn after_push(&mut self) {
        if self.held() >= SPILL_ROWS && self.spill_slot().is_some() {
            self.spill_held();
        }
    }

    /// Hands every held row to the sink, if there is one.
    fn spill_held(&mut self) {
        let Some(mut spill) = self.spill_slot().take() else {
            return;
        };
        let n = self.held();
        if n == 0 {
            *self.spill_slot() = Some(spill);
            return;
        }
        spill.buf.resize(n * Self::ROW_BYTES, 0);
        self.encode(&mut spill.buf);
        spill.sink.rows(&spill.buf);
        spill.rows += n as u64;
        self.clear_held();
        *self.spill_slot() = Some(spill);
    }

    /// After the run: hands on the last rows and finishes the sink. `None` when the series
    /// has no sink; else the rows it took in all, or its sink's first failure.
    fn end_spill(&mut self) -> Option<Result<u64, String>> {
        self.spill_held();
        let spill = self.spill_slot().as_mut()?;
        Some(spill.sink.finish().map(|()| spill.rows))
    }
}

/// Little-endian field writers for `Rows::write_row`.
struct Le<'a>(&'a mut [u8], usize);

impl Le<'_> {
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0[self.1..self.1 + 8].copy_from_slice(&v.to_le_bytes());
        self.1 += 8;
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0[self.1..self.1 + 4].copy_from_slice(&v.to_le_bytes());
        self.1 += 4;
        self
    }
    fn f64(&mut self, v: f64) -> &mut Self {
        self.u64(v.to_bits())
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0[self.1] = v;
        self.1 += 1;
        self
    }
}

/// The sender state the series follow (a `TcpSender::probe()` reduced to numbers).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TcpSample {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_ns: u64,
    pub rttvar_ns: u64,
    pub rto_ns: u64,
    pub flight: u32,
}

#[derive(Debug, Default)]
pub struct TcpSeries {
    pub t_ns: Vec<u64>,
    pub cwnd: Vec<u32>,
    pub ssthresh: Vec<u32>,
    pub srtt_ns: Vec<u64>,
    pub rttvar_ns: Vec<u64>,
    pub rto_ns: Vec<u64>,
    pub flight: Vec<u32>,
    last: Option<TcpSample>,
    spill: Option<Spill>,
}

impl TcpSeries {
    /// Appends a row if the state differs from the last row.
    pub fn push(&mut self, now: Time, s: TcpSample) {
        if self.last == Some(s) {
            return;
        }
        self.last = Some(s);
        self.t_ns.push(now.as_nanos());
        self.cwnd.push(s.cwnd);
        self.ssthresh.push(s.ssthresh);
        self.srtt_ns.push(s.srtt_ns);
        self.rttvar_ns.push(s.rttvar_ns);
        self.rto_ns.push(s.rto_ns);
        self.flight.push(s.flight);
        self.after_push();
    }
    /// Rows held.
    pub fn len(&self) -> usize {
        self.t_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }
}

/// A row: t_ns u64, cwnd u32, ssthresh u32, srtt_ns u64, rttvar_ns u64, rto_ns u64, flight
/// u32 (44 bytes).
impl Rows for TcpSeries {
    const ROW_BYTES: usize = 44;
    fn held(&self) -> usize {
        self.t_ns.len()
    }
    fn write_row(&self, i: usize, out: &mut [u8]) {
        Le(out, 0)
            .u64(self.t_ns[i])
            .u32(self.cwnd[i])
            .u32(self.ssthresh[i])
            .u64(self.srtt_ns[i])
            .u64(self.rttvar_ns[i])
            .u64(self.rto_ns[i])
            .u32(self.flight[i]);
    }
    fn clear_held(&mut self) {
        self.t_ns.clear();
        self.cwnd.clear();
        self.ssthresh.clear();
        self.srtt_ns.clear();
        self.rttvar_ns.clear();
        self.rto_ns.clear();
        self.flight.clear();
    }
    fn spill_slot(&mut self) -> &mut Option<Spill> {
        &mut self.spill
    }
}

#[derive(Debug, Default)]
pub struct QueueSeries {
    pub t_ns: Vec<u64>,
    /// Link direction index (2·link for a → b, 2·link + 1 for b → a).
    pub dir: Vec<u32>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    spill: Option<Spill>,
}

impl QueueSeries {
    pub fn push(&mut self, now: Time, dir: u32, packets: usize, bytes: u64) {
        self.t_ns.push(now.as_nanos());
        self.dir.push(dir);
        self.packets.push(packets as u32);
        self.bytes.push(bytes);
        self.after_push();
    }
}

/// A row: t_ns u64, dir u32, packets u32, bytes u64 (24 bytes).
impl Rows for QueueSeries {
    const ROW_BYTES: usize = 24;
    fn held(&self) -> usize {
        self.t_ns.len()
    }
    fn write_row(&self, i: usize, out: &mut [u8]) {
        Le(out, 0)
            .u64(self.t_ns[i])
            .u32(self.dir[i])
            .u32(self.packets[i])
            .u64(self.bytes[i]);
    }
    fn clear_held(&mut self) {
        self.t_ns.clear();
        self.dir.clear();
        self.packets.clear();
        self.bytes.clear();
    }
    fn spill_slot(&mut self) -> &mut Option<Spill> {
        &mut self.spill
    }
}

/// Data segments dropped in the network, as only the simulator knows them (for the
/// time-sequence graph's drop marks: the studies' key event).
#[derive(Debug, Default)]
pub struct DropSeries {
    pub t_ns: Vec<u64>,
    /// The flow's index in the scenario.
    pub flow: Vec<u32>,
    /// Offset of the segment's first byte from the flow's first data byte (mod 2^32, as
    /// sequence numbers on the wire).
    pub seq: Vec<u32>,
    /// Payload bytes.
    pub len: Vec<u32>,
    /// The link direction it was dropped at (as [`QueueSeries::dir`]), `u32::MAX` for none.
    pub dir: Vec<u32>,
    /// Index into `DropCause::ALL`.
    pub cause: Vec<u8>,
    spill: Option<Spill>,
}

impl DropSeries {
    pub fn push(&mut self, now: Time, flow: u32, seq: u32, len: u32, dir: Option<u32>, cause: u8) {
        self.t_ns.push(now.as_nanos());
        self.flow.push(flow);
        self.seq.push(seq);
        self.len.push(len);
        self.dir.push(dir.unwrap_or(u32::MAX));
        self.cause.push(cause);
        self.after_push();
    }
}

/// A row: t_ns u64, flow u32, seq u32, len u32, dir u32 (`u32::MAX`: none), cause u8 (25
/// bytes).
impl Rows for DropSeries {
    const ROW_BYTES: usize = 25;
    fn held(&self) -> usize {
        self.t_ns.len()
    }
    fn write_row(&self, i: usize, out: &mut [u8]) {
        Le(out, 0)
            .u64(self.t_ns[i])
            .u32(self.flow[i])
            .u32(self.seq[i])
            .u32(self.len[i])
            .u32(self.dir[i])
            .u8(self.cause[i]);
    }
    fn clear_held(&mut self) {
        self.t_ns.clear();
        self.flow.clear();
        self.seq.clear();
        self.len.clear();
        self.dir.clear();
        self.cause.clear();
    }
    fn spill_slot(&mut self) -> &mut Option<Spill> {
        &mut self.spill
    }
}

/// A TFRC sender's state at one instant (`agent::tfrc`): what RFC 5348 §4.3 computes at each
/// feedback, and what the nofeedback timer (§4.4) changes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TfrcSample {
    /// X, the allowed sending rate, bytes per second.
    pub x: f64,
    /// X_recv of the last feedback, bytes per second.
    pub x_recv: f64,
    /// p of the last feedback.
    pub p: f64,
    /// R, the sender's smoothed RTT (0 before the first feedback).
    pub rtt_ns: u64,
}

/// A TFRC flow's sender over time, one row per change (`series_tfrc.parquet`).
#[derive(Debug, Default)]
pub struct TfrcSeries {
    pub t_ns: Vec<u64>,
    pub x_bps: Vec<f64>,
    pub x_recv_bps: Vec<f64>,
    pub p: Vec<f64>,
    pub rtt_ns: Vec<u64>,
    last: Option<TfrcSample>,
    spill: Option<Spill>,
}

impl TfrcSeries {
    /// Appends a row if the state differs from the last row; rates go in as bytes per second
    /// and are stored in bits per second.
    pub fn push(&mut self, now: Time, s: TfrcSample) {
        if self.last == Some(s) {
            return;
        }
        self.last = Some(s);
        self.t_ns.push(now.as_nanos());
        self.x_bps.push(s.x * 8.0);
        self.x_recv_bps.push(s.x_recv * 8.0);
        self.p.push(s.p);
        self.rtt_ns.push(s.rtt_ns);
        self.after_push();
    }
}

/// A row: t_ns u64, x_bps f64, x_recv_bps f64, p f64, rtt_ns u64 (40 bytes).
impl Rows for TfrcSeries {
    const ROW_BYTES: usize = 40;
    fn held(&self) -> usize {
        self.t_ns.len()
    }
    fn write_row(&self, i: usize, out: &mut [u8]) {
        Le(out, 0)
            .u64(self.t_ns[i])
            .f64(self.x_bps[i])
            .f64(self.x_recv_bps[i])
            .f64(self.p[i])
            .u64(self.rtt_ns[i]);
    }
    fn clear_held(&mut self) {
        self.t_ns.clear();
        self.x_bps.clear();
        self.x_recv_bps.clear();
        self.p.clear();
        self.rtt_ns.clear();
    }
    fn spill_slot(&mut self) -> &mut Option<Spill> {
        &mut self.spill
    }
}

/// TFRC Probe's capacity estimate over time, one row per change of the receiver's estimate
/// (`series_probe.parquet`; Chen et al. §3.1).
#[derive(Debug, Default)]
pub struct ProbeSeries {
    pub t_ns: Vec<u64>,
    pub estimate_bps: Vec<u64>,
    last: Option<u64>,
    spill: Option<Spill>,
}

impl ProbeSeries {
    /// Appends a row if the estimate changed.
    pub fn push(&mut self, now: Time, estimate_bps: u64) {
        if self.last == Some(estimate_bps) {
            return;
        }
        self.last = Some(estimate_bps);
        self.t_ns.push(now.as_nanos());
        self.estimate_bps.push(estimate_bps);
        self.after_push();
    }
}

/// A row: t_ns u64, estimate_bps u64 (16 bytes).
impl Rows for ProbeSeries {
    const ROW_BYTES: usize = 16;
    fn held(&self) -> usize {
        self.t_ns.len()
    }
    fn write_row(&self, i: usize, out: &mut [u8]) {
        Le(out, 0).u64(self.t_ns[i]).u64(self.estimate_bps[i]);
    }
    fn clear_held(&mut self) {
        self.t_ns.clear();
        self.estimate_bps.clear();
    }
    fn spill_slot(&mut self) -> &mut Option<Spill> {
        &mut self.spill
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn unchanged_state_adds_no_row() {
        let mut s = TcpSeries::default();
        let a = TcpSample {
            cwnd: 10,
            ..Default::default()
        };
        s.push(Time(1), a);
        s.push(Time(2), a);
        s.push(Time(3), TcpSample { cwnd: 11, ..a });
        assert_eq!(s.t_ns, vec![1, 3]);
    }

    /// A sink the test can read after the series has it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<(Vec<u8>, usize)>>);

    impl RowSink for Shared {
        fn rows(&mut self, bytes: &[u8]) {
            let mut g = self.0.lock().expect("invariant: not poisoned");
            g.0.extend_from_slice(bytes);
            g.1 += 1;
        }
    }

    #[test]
    fn a_spilling_series_holds_at_most_spill_rows_and_its_sink_gets_every_row_in_order() {
        // Issue 40 item 14: what a run holds must not grow with its length.
        let sink = Shared::default();
        let mut q = QueueSeries::default();
        q.spill_to(Box::new(sink.clone()));
        let n = 2 * SPILL_ROWS + 5;
        for i in 0..n {
            q.push(Time(i as u64), (i % 7) as u32, i % 3, 1500 * i as u64);
            assert!(q.held() < SPILL_ROWS, "row {i}: {} held", q.held());
        }
        assert_eq!(q.end_spill(), Some(Ok(n as u64)));
        let g = sink.0.lock().expect("invariant: not poisoned");
        // Two full chunks, then the last five rows at the end.
        assert_eq!(g.1, 3);
        assert_eq!(g.0.len(), n * QueueSeries::ROW_BYTES);
        let row = |i: usize| &g.0[i * 24..(i + 1) * 24];
        let mut want = Vec::new();
        want.extend_from_slice(&(n as u64 - 1).to_le_bytes());
        want.extend_from_slice(&(((n - 1) % 7) as u32).to_le_bytes());
        want.extend_from_slice(&(((n - 1) % 3) as u32).to_le_bytes());
        want.extend_from_slice(&(1500 * (n as u64 - 1)).to_le_bytes());
        assert_eq!(row(n - 1), &want[..]);
        assert_eq!(&row(SPILL_ROWS)[..8], &(SPILL_ROWS as u64).to_le_bytes());
    }

    #[test]
    fn dropping_rows_keeps_the_last_state_so_a_repeat_after_a_chunk_adds_no_row() {
        let mut p = ProbeSeries::default();
        p.spill_to(Box::new(Vec::new()));
        for i in 0..SPILL_ROWS as u64 {
            p.push(Time(i), i);
        }
        assert_eq!(p.held(), 0, "the chunk went to the sink");
        p.push(Time(SPILL_ROWS as u64), SPILL_ROWS as u64 - 1);
        assert_eq!(p.held(), 0, "the same estimate again is no row");
        assert_eq!(p.end_spill(), Some(Ok(SPILL_ROWS as u64)));
    }

    #[test]
    fn each_row_has_its_documented_width() {
        let mut out = vec![0u8; DropSeries::ROW_BYTES];
        let mut d = DropSeries::default();
        d.push(Time(7), 1, 2, 3, None, 4);
        d.encode(&mut out);
        let mut want = 7u64.to_le_bytes().to_vec();
        for v in [1u32, 2, 3, u32::MAX] {
            want.extend_from_slice(&v.to_le_bytes());
        }
        want.push(4);
        assert_eq!(out, want);
        let mut t = TcpSeries::default();
        t.push(Time(1), TcpSample::default());
        let mut out = vec![0u8; TcpSeries::ROW_BYTES];
        t.encode(&mut out);
        assert_eq!(out[..8], 1u64.to_le_bytes());
        assert_eq!(TfrcSeries::ROW_BYTES, 8 * 5);
        assert_eq!(ProbeSeries::ROW_BYTES, 16);
    }
}
