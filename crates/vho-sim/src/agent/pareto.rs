//! Cross traffic as an agent (`[[flow]] kind = "pareto"`): a Pareto on/off source
//! (`crate::traffic::pareto`, ns-2.35's `Application/Traffic/Pareto`) sending datagrams from
//! its host to a counting sink ([`super::Sink`]), as ns-2's source over `Agent/UDP` to an
//! `Agent/Null` (Chen et al., "Improving TCP/TFRC over vertical handoffs", 2005, §5: 16 such
//! flows, shape 1.9, 25 Mb/s in all).
//!
//! A datagram's `wire_bytes` is the source's packet size: ns-2's `Agent/UDP` sends
//! `packetSize_` bytes as given, with no header added, and so does vho, so that both load the
//! links alike. Nothing rides beside it. The source speaks only when it sends: one wake-up per
//! datagram, the next one due when it goes (`TrafficGenerator::timeout` in ns-2's trafgen.cc).
//!
//! Recorded as aggregates, never per packet: per flow the datagrams and bytes sent, delivered
//! and dropped (by link and cause, in the flow's ledger as for TCP), and the bytes sent and
//! delivered per [`CROSS_INTERVAL`] (`series_cross.parquet`). Cross traffic is left out of
//! the captures unless `record.pcap_cross` asks for it.

use super::{Agent, AgentSeries, Arrival, Payload, Transmit};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::spec::{FlowSpec, Spec};
use crate::time::{Dur, Time};
use crate::traffic::pareto::{ParetoConfig, ParetoOnOff};
use serde::Serialize;

/// The bin of cross traffic's rate series: one row per flow per second. vho's choice: the
/// paper plots no cross traffic; a second is Chen et al.'s coarsest plotting unit (Figs. 6-9)
/// and keeps 1200 s × 16 flows at 19,200 rows.
pub const CROSS_INTERVAL: Dur = Dur::from_secs(1);

/// Bytes per [`CROSS_INTERVAL`], sent by the source and delivered to the sink.
#[derive(Clone, Debug, Default)]
pub struct CrossBins {
    pub interval: Dur,
    pub sent: Vec<u64>,
    pub delivered: Vec<u64>,
}

/// The bin of a byte count the clock is in, and when it ends: a datagram sent or delivered
/// within it is added by one comparison, the clock never running back; only a datagram past
/// its end divides to find the next (a 64-bit division per datagram, two per datagram sent
/// and delivered, costs tens of cycles each).
#[derive(Clone, Debug, Default)]
pub(super) struct Bins {
    pub(super) bytes: Vec<u64>,
    i: usize,
    end: Time,
}

impl Bins {
    #[inline(always)]
    pub(super) fn add(&mut self, now: Time, bytes: u64) {
        if now >= self.end {
            self.enter(now);
        }
        self.bytes[self.i] += bytes;
    }

    /// Moves to the bin `now` is in. Out of line: inlined, its division was hoisted ahead of
    /// the test into every send's path.
    #[cold]
    #[inline(never)]
    fn enter(&mut self, now: Time) {
        let i = now.as_nanos() / CROSS_INTERVAL.as_nanos();
        self.i = i as usize;
        self.end = Time((i + 1).saturating_mul(CROSS_INTERVAL.as_nanos()));
        if self.bytes.len() <= self.i {
            self.bytes.resize(self.i + 1, 0);
        }
    }
}

/// A Pareto on/off source.
pub struct ParetoSource {
    source: ParetoOnOff,
    /// When the next datagram is due, and its size (the source gives both with the gap).
    next_at: Option<Time>,
    next_size: u32,
    packets_sent: u64,
    bytes_sent: u64,
    sent: Bins,
    /// `record.pcap_cross`.
    captured: bool,
}

impl ParetoSource {
    /// Drawing from its own stream of the run's seed, named after the flow.
    pub fn new(spec: &Spec, fs: &FlowSpec, cfg: ParetoConfig) -> Self {
        let rng = Rng::stream(spec.seed, &format!("flow:{}:pareto", fs.name));
        let source = ParetoOnOff::new(cfg, rng)
            .expect("invariant: the scenario validated the source's parameters");
        ParetoSource {
            source,
            next_at: None,
            next_size: cfg.packet_size,
            packets_sent: 0,
            bytes_sent: 0,
            sent: Bins::default(),
            captured: spec.record.pcap_cross,
        }
    }

    fn draw(&mut self, now: Time) {
        let (gap, size) = self.source.next_gap();
        self.next_size = size;
        self.next_at = Some(now + gap);
    }
}

impl Agent for ParetoSource {
    /// The first datagram comes one gap after the start (an idle time and an interval, as
    /// ns-2's `TrafficGenerator::start`).
    fn start(&mut self, now: Time) {
        self.draw(now);
    }

    #[inline(always)]
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        if self.next_at.is_none_or(|t| t > now) {
            return None;
        }
        let size = self.next_size;
        self.packets_sent += 1;
        self.bytes_sent += u64::from(size);
        self.sent.add(now, u64::from(size));
        self.draw(now);
        Some(Transmit::datagram(Payload::None, size))
    }

    #[inline(always)]
    fn poll_timeout(&self) -> Option<Time> {
        self.next_at
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn handle_packet(&mut self, _: Time, _: &Packet, _: &Payload) -> Arrival {
        Arrival::default()
    }

    fn captured(&self) -> bool {
        self.captured
    }

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            cross_sent: Some(std::mem::take(&mut self.sent.bytes)),
            ..Default::default()
        }
    }
}

/// What `summary.json` says of a cross-traffic flow (`flows[].cross`).
#[derive(Clone, Debug, Serialize)]
pub struct CrossSummary {
    /// The source's parameters as run.
    pub rate_bps: u64,
    pub packet_size: u32,
    pub burst_time_s: f64,
    pub idle_time_s: f64,
    pub shape: f64,
    /// ns-2's long-run mean: rate × burst_time / (burst_time + idle_time).
    pub configured_mean_bps: f64,
    pub bursts: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Every drop on the way, all causes (the flow's `drops` has them by link and cause).
    pub packets_dropped: u64,
    /// Bits sent (delivered) over the flow's time, start to end of run.
    pub mean_sent_bps: f64,
    pub mean_delivered_bps: f64,
}

/// The flow's record, run from `start` to `now`; `dropped` its drops of every cause on every
/// link.
pub fn summary(
    s: &ParetoSource,
    r: &super::Sink,
    start: Time,
    now: Time,
    dropped: u64,
) -> CrossSummary {
    let cfg = s.source.config();
    let span = now.saturating_since(start).as_secs_f64();
    let per_s = |bytes: u64| {
        if span > 0.0 {
            bytes as f64 * 8.0 / span
        } else {
            0.0
        }
    };
    CrossSummary {
        rate_bps: cfg.rate_bps,
        packet_size: cfg.packet_size,
        burst_time_s: cfg.burst_time.as_secs_f64(),
        idle_time_s: cfg.idle_time.as_secs_f64(),
        shape: cfg.shape,
        configured_mean_bps: cfg.mean_rate_bps(),
        bursts: s.source.bursts,
        packets_sent: s.packets_sent,
        bytes_sent: s.bytes_sent,
        packets_delivered: r.packets,
        bytes_delivered: r.bytes,
        packets_dropped: dropped,
        mean_sent_bps: per_s(s.bytes_sent),
        mean_delivered_bps: per_s(r.bytes),
    }
}
