//! The capture analysis entry points: stream a file through the reader, decoder and
//! [`FlowTable`], and summarize each conversation.
//!
//! [`FlowStream`] hands out each conversation's [`FlowResult`] as the conversation leaves the
//! table (closed and quiet, or at the end of the capture), so that what it holds is bounded
//! by the conversations open at once, not by the capture; [`analyze`] collects them all.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use serde::Serialize;

use super::adaptation::{AdaptationTime, TaMean, ThroughputPoints};
use super::flow::Flow;
use super::handover::PathChange;
use super::mptcp::{MptcpResult, MptcpTable};
use super::rtt::RttStats;
use super::spurious::{point_from_handshake, CapturePoint, SpuriousResult};
use super::table::{FlowTable, Remaining};
use super::tcp_analysis::Counters;
use crate::decode::{decode, Skip};
use crate::error::TraceError;
use crate::reader::clock::Origin;
use crate::reader::Reader;

/// Frames that were not TCP segments, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SkipCounts {
    pub unknown_link_type: u64,
    pub not_tcp: u64,
    pub truncated_headers: u64,
    pub fragment: u64,
    pub malformed: u64,
}

impl SkipCounts {
    fn add(&mut self, s: Skip) {
        match s {
            Skip::UnknownLinkType => self.unknown_link_type += 1,
            Skip::NotTcp => self.not_tcp += 1,
            Skip::TruncatedHeaders => self.truncated_headers += 1,
            Skip::Fragment => self.fragment += 1,
            Skip::Malformed => self.malformed += 1,
        }
    }
}

/// One direction of a conversation: the data it sent and what happened to it. The
/// duplicate-ACK and SACK counts are of the ACKs it sent.
#[derive(Clone, Debug, Serialize)]
pub struct DirectionResult {
    pub addr: String,
    pub port: u16,
    pub segments: u64,
    pub data_segments: u64,
    /// SYNs and FINs without data sent again (data segments sent again are
    /// `spurious.retransmitted_segments`).
    pub control_segments_resent: u64,
    /// Payload bytes, retransmissions included.
    pub bytes: u64,
    /// Sequence span of the data (each byte once, segments not captured included).
    pub unique_bytes: u64,
    /// Data bytes acknowledged by the other side.
    pub acked_bytes: u64,
    /// `acked_bytes` * 8 over the conversation's duration.
    pub goodput_bps: f64,
    #[serde(flatten)]
    pub counters: Counters,
    /// Karn-safe data/ACK RTT samples.
    pub rtt: RttStats,
    /// RTT samples from TCP timestamps (TSecr).
    pub rtt_ts: RttStats,
    /// SACK blocks sent (D-SACK included).
    pub sack_blocks: u64,
    /// D-SACK blocks sent (RFC 2883).
    pub dsack_blocks: u64,
    /// Longest time with data outstanding and no new data acknowledged.
    pub longest_stall_s: f64,
    /// Per-packet throughput of this direction's data (Cottingham & Vidales §5), for t_a.
    pub throughput: ThroughputPoints,
    /// Changes of path found in this direction's data (see [`super::handover`]).
    pub path_changes: Vec<PathChange>,
    /// The first data segment after the handover: after the given instant, else at the first
    /// change of path found.
    pub first_after_handover_s: Option<f64>,
    /// Adaptation time t_a from that segment (Cottingham & Vidales §5), against the mean
    /// [`AnalyzeOptions::ta_mean`] selects.
    pub adaptation_time_s: Option<f64>,
    /// t_a from that segment against each span of the mean, with the mean.
    pub adaptation_by_mean: AdaptationByMean,
    /// vho's spurious-retransmission count with its evidence (see [`super::spurious`]);
    /// Wireshark's own count is `spurious_retransmissions` among the counters.
    pub spurious: SpuriousResult,
}

/// t_a against each [`TaMean`] (`None`s without a handover instant).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct AdaptationByMean {
    pub whole_connection: AdaptationTime,
    pub after_handover: AdaptationTime,
}

/// One conversation.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Order of its first packet among the capture's conversations (like `tcp.stream`).
    pub index: usize,
    pub first_s: f64,
    pub duration_s: f64,
    pub packets: u64,
    pub syn_seen: bool,
    pub fin_seen: bool,
    pub rst_seen: bool,
    /// SYN to the handshake's ACK (Wireshark's `tcp.analysis.initial_rtt`).
    pub handshake_rtt_s: Option<f64>,
    pub client: DirectionResult,
    pub server: DirectionResult,
    /// Both directions' flag counts added, comparable with `tshark -Y FILTER | wc -l` when
    /// the capture holds this conversation alone.
    pub total: Counters,
}

/// What a capture's analysis found besides its conversations: complete once
/// [`FlowStream::next_flow`] has returned `None`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub file: String,
    pub packets: u64,
    pub tcp_segments: u64,
    pub skipped: SkipCounts,
    /// The most conversations the flow table held at once (its memory is bounded by this,
    /// not by the capture's size).
    pub max_open_flows: usize,
    /// What was read in spite of a fault, one sentence each: a file cut short inside its
    /// last record (see [`crate::reader`]), packets stamped before the first.
    pub warnings: Vec<String>,
    /// Where time zero is: every time reported is from it (see [`crate::reader::clock`]).
    pub time_origin: Origin,
    /// Time zero's stamp in seconds since the Unix epoch (0 for a simulator's clock).
    pub time_origin_epoch_s: f64,
    /// The latest packet's time from the origin: the capture spans 0 to this.
    pub end_s: f64,
}

/// The result of [`analyze`]: the capture's [`Summary`] (serialized inline) and every
/// conversation.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    #[serde(flatten)]
    pub summary: Summary,
    /// Every conversation, in the order its first packet appeared.
    pub flows: Vec<FlowResult>,
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn direction(f: &Flow, k: usize, opts: &AnalyzeOptions) -> DirectionResult {
    let d = &f.dirs[k];
    let duration_ns = f.last_ns.saturating_sub(f.first_ns);
    let acked = d.acked_bytes();
    let handshake = match f.handshake_ns {
        [Some(syn), Some(synack), Some(ack)] if synack >= syn && ack >= synack => Some(
            point_from_handshake(synack - syn, ack - synack, k == f.client()),
        ),
        _ => None,
    };
    let mut path_changes = d.path.detect();
    for c in &mut path_changes {
        // Each change's own t_a: its instant is the first data segment that went the new way.
        c.adaptation_time_s = d.throughput.adaptation_time_s_over(opts.ta_mean, c.at_ns);
    }
    let first_after = d
        .path
        .first_after_given_ns()
        .or(path_changes.first().map(|c| c.at_ns));
    let by_mean = |span| {
        first_after.map_or(AdaptationTime::default(), |t| {
            d.throughput.adaptation(span, t)
        })
    };
    let adaptation_by_mean = AdaptationByMean {
        whole_connection: by_mean(TaMean::WholeConnection),
        after_handover: by_mean(TaMean::AfterHandover),
    };
    DirectionResult {
        addr: d.src.0.to_string(),
        port: d.src.1,
        segments: d.segments,
        data_segments: d.data_segments,
        control_segments_resent: d.control_segments_resent,
        bytes: d.bytes,
        unique_bytes: d.unique_bytes(),
        acked_bytes: acked,
        goodput_bps: if duration_ns > 0 {
            acked as f64 * 8.0 / secs(duration_ns)
        } else {
            0.0
        },
        counters: d.counters,
        rtt: d.rtt.seq,
        rtt_ts: d.rtt.ts,
        sack_blocks: d.sack.blocks,
        dsack_blocks: d.sack.dsack_blocks,
        longest_stall_s: secs(d.stall.longest_ns),
        throughput: d.throughput.clone(),
        first_after_handover_s: first_after.map(secs),
        adaptation_time_s: match opts.ta_mean {
            TaMean::WholeConnection => adaptation_by_mean.whole_connection,
            TaMean::AfterHandover => adaptation_by_mean.after_handover,
        }
        .adaptation_time_s,
        adaptation_by_mean,
        path_changes,
        spurious: d.spurious.finish(opts.capture_point, handshake),
    }
}

impl FlowResult {
    fn of(f: &Flow, opts: &AnalyzeOptions) -> Self {
        let dur = f.last_ns.saturating_sub(f.first_ns);
        let c = f.client();
        let client = direction(f, c, opts);
        let server = direction(f, 1 - c, opts);
        FlowResult {
            index: f.index,
            first_s: secs(f.first_ns),
            duration_s: secs(dur),
            packets: f.packets,
            syn_seen: f.syn_seen,
            fin_seen: f.fin_seen,
            rst_seen: f.rst_seen,
            handshake_rtt_s: f.handshake.first_rtt_ns.map(secs),
            total: client.counters.plus(&server.counters),
            client,
            server,
        }
    }
}

/// What the caller knows about the capture.
#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    /// The handover instant in capture time (`--handover-at`); t_a is measured from the first
    /// data segment at or after it. Without it, from the first change of path found.
    pub handover_at_ns: Option<u64>,
    /// Where the capture was taken, relative to every direction's data; found per direction
    /// from the handshake or the timing when not given.
    pub capture_point: Option<CapturePoint>,
    /// The span of the mean t_a is measured against (`--ta-mean`): the whole connection
    /// unless told.
    pub ta_mean: TaMean,
}

/// Analyses a capture file: per-conversation TCP analysis and the frames skipped.
pub fn analyze(path: impl AsRef<Path>) -> Result<Analysis, TraceError> {
    analyze_with(path, &AnalyzeOptions::default())
}

/// [`analyze`] with what the caller knows about the capture.
pub fn analyze_with(path: impl AsRef<Path>, opts: &AnalyzeOptions) -> Result<Analysis, TraceError> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let file =
        File::open(path).map_err(|e| TraceError::at(&label, 0, format!("cannot open: {e}")))?;
    analyze_reader_with(BufReader::with_capacity(1 << 16, file), &label, opts)
}

/// [`analyze`] over any byte stream; `label` names it in errors.
pub fn analyze_reader<R: Read>(inner: R, label: &str) -> Result<Analysis, TraceError> {
    analyze_reader_with(inner, label, &AnalyzeOptions::default())
}

/// [`analyze_with`] over any byte stream; `label` names it in errors.
pub fn analyze_reader_with<R: Read>(
    inner: R,
    label: &str,
    opts: &AnalyzeOptions,
) -> Result<Analysis, TraceError> {
    let mut stream = FlowStream::new(inner, label, opts.clone())?;
    let mut flows = Vec::new();
    while let Some(f) = stream.next_flow()? {
        flows.push(f);
    }
    flows.sort_by_key(|f| f.index);
    Ok(Analysis {
        summary: stream.summary,
        flows,
    })
}

/// A capture's analysis, one conversation at a time: each [`FlowResult`] as its
/// conversation leaves the table (closed and quiet for the TIME_WAIT linger, or replaced by
/// a new connection on the same ports), then those still open at the end of the capture in
/// the order their first packet appeared. Nothing is kept of a conversation handed out.
pub struct FlowStream<R: Read> {
    reader: Reader<R>,
    /// `None` once the capture has been read.
    table: Option<FlowTable>,
    /// Conversations that left the table and are not handed out yet.
    ready: VecDeque<Flow>,
    /// The conversations open at the end of the capture.
    remaining: Option<Remaining>,
    opts: AnalyzeOptions,
    summary: Summary,
    /// Multipath TCP connections (see [`super::mptcp`]): costs nothing without MPTCP.
    mptcp: MptcpTable,
}

impl FlowStream<BufReader<File>> {
    /// Opens a capture file.
    pub fn open(path: impl AsRef<Path>, opts: AnalyzeOptions) -> Result<Self, TraceError> {
        let path = path.as_ref();
        let label = path.display().to_string();
        let file =
            File::open(path).map_err(|e| TraceError::at(&label, 0, format!("cannot open: {e}")))?;
        FlowStream::new(BufReader::with_capacity(1 << 16, file), &label, opts)
    }
}

impl<R: Read> FlowStream<R> {
    /// Reads the capture header of `inner`; `label` names it in errors.
    pub fn new(inner: R, label: &str, opts: AnalyzeOptions) -> Result<Self, TraceError> {
        Ok(FlowStream {
            reader: Reader::new(inner, label)?,
            table: Some(FlowTable::with_handover_at(opts.handover_at_ns)),
            ready: VecDeque::new(),
            remaining: None,
            opts,
            summary: Summary {
                file: label.to_string(),
                ..Summary::default()
            },
            mptcp: MptcpTable::default(),
        })
    }

    /// The next conversation's result, `None` when all have been handed out.
    pub fn next_flow(&mut self) -> Result<Option<FlowResult>, TraceError> {
        loop {
            if let Some(f) = self.ready.pop_front() {
                return Ok(Some(FlowResult::of(&f, &self.opts)));
            }
            if let Some(rest) = &mut self.remaining {
                return Ok(rest.next().map(|f| FlowResult::of(&f, &self.opts)));
            }
            let Some(table) = &mut self.table else {
                return Ok(None);
            };
            let a = &mut self.summary;
            match self.reader.next_record()? {
                Some(rec) => {
                    a.packets += 1;
                    if a.packets == 1 {
                        table.set_origin(Origin::of(rec.ts_ns));
                    }
                    match decode(rec.t_ns, rec.linktype, rec.data) {
                        Ok(seg) => {
                            a.tcp_segments += 1;
                            let conv = table.push(&seg);
                            self.mptcp.push(a.packets, conv, &seg);
                            self.ready.extend(table.take_done());
                        }
                        Err(s) => a.skipped.add(s),
                    }
                }
                None => {
                    a.max_open_flows = table.max_open;
                    let clock = self.reader.clock();
                    a.time_origin = clock.origin();
                    a.time_origin_epoch_s = clock.origin_ns().map_or(0.0, secs);
                    a.end_s = secs(clock.last_ns());
                    if clock.before_origin > 0 {
                        a.warnings.push(format!(
                            "{} packets are stamped before the capture's first (its clock \
                             stepped back): they were analysed at time 0",
                            clock.before_origin
                        ));
                    }
                    if let Some(e) = self.reader.cut_short() {
                        // tshark: "The file appears to have been cut short in the middle of
                        // a packet" (wiretap's WTAP_ERR_SHORT_READ), and it keeps the rest.
                        a.warnings.push(format!(
                            "{e}: the capture appears to have been cut short in the middle of \
                             a packet; the {} packets before it were analysed",
                            a.packets
                        ));
                    }
                    self.remaining = self.table.take().map(FlowTable::finish);
                }
            }
        }
    }

    /// What the analysis found besides the conversations (complete after the last one).
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The capture's Multipath TCP connections, once every conversation has been handed out;
    /// `None` before, for a capture without an MPTCP option, and after the first call.
    pub fn take_mptcp(&mut self) -> Option<MptcpResult> {
        if self.table.is_some() || self.mptcp.is_empty() {
            return None;
        }
        Some(std::mem::take(&mut self.mptcp).finish())
    }
}
