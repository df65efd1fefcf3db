//! Cross traffic in the world (`[[flow]] kind = "pareto"`): a Pareto on/off source
//! (`crate::traffic::pareto`, ns-2.35's `Application/Traffic/Pareto`) sending datagrams from
//! its host to its sink, as ns-2's source over `Agent/UDP` to an `Agent/Null` (Chen et al.,
//! seed 004 §5: 16 such flows, shape 1.9, 25 Mb/s in all).
//!
//! A datagram is a [`Packet`] with the `net::CROSS` bit and `wire_bytes` = the source's
//! packet size: ns-2's `Agent/UDP` sends `packetSize_` bytes as given, with no header added,
//! and so does vho, so that both load the links alike. Nothing rides beside it; the sink only
//! counts it. The source speaks only when it sends: one `Event::CrossSend` per datagram, the
//! next one scheduled when it goes (`TrafficGenerator::timeout` in ns-2's trafgen.cc).
//!
//! Recorded as aggregates, never per packet: per flow the datagrams and bytes sent, delivered
//! and dropped (by link and cause, in the flow's `drops` as for TCP), and the bytes sent and
//! delivered per [`CROSS_INTERVAL`] (`series_cross.parquet`). Cross traffic is left out of
//! the captures unless `record.pcap_cross` asks for it (`PacketTap::cross_packet`). Its packets take the not-TCP branches of the forwarding path (`net != 0`), so
//! the TCP path tests nothing more than before.

use super::{Event, World};
use crate::link::DropCause;
use crate::net::routes::DirIdx;
use crate::packet::{net, Packet, PktIdx};
use crate::rng::Rng;
use crate::spec::{FlowKind, NodeIdx, Spec};
use crate::time::{Dur, Time};
use crate::traffic::pareto::ParetoOnOff;

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

/// The bin of [`CrossBins`] the clock is in, and when it ends: a datagram sent or delivered
/// within it is added by one comparison, the clock never running back; only a datagram past
/// its end divides to find the next (a 64-bit division per datagram, two per datagram sent
/// and delivered, costs tens of cycles each).
#[derive(Clone, Copy, Default)]
struct BinCursor {
    i: usize,
    end: Time,
}

impl BinCursor {
    #[inline(always)]
    fn add(&mut self, v: &mut Vec<u64>, now: Time, bytes: u64) {
        if now >= self.end {
            let i = now.as_nanos() / CROSS_INTERVAL.as_nanos();
            self.i = i as usize;
            self.end = Time((i + 1).saturating_mul(CROSS_INTERVAL.as_nanos()));
            if v.len() <= self.i {
                v.resize(self.i + 1, 0);
            }
        }
        v[self.i] += bytes;
    }
}

/// One cross-traffic flow: its source and its counts.
pub(super) struct CrossFlow {
    source: ParetoOnOff,
    /// The flow's host and sink (the spec's, kept beside the counts the send updates).
    src: NodeIdx,
    dst: NodeIdx,
    /// The size of the datagram due at the next `CrossSend` (the source gives it with the gap).
    next_size: u32,
    packets_sent: u64,
    bytes_sent: u64,
    packets_delivered: u64,
    bytes_delivered: u64,
    ip_id: u16,
    pub(super) bins: CrossBins,
    /// Where `bins.sent` and `bins.delivered` are adding.
    sent_bin: BinCursor,
    delivered_bin: BinCursor,
}

/// What `summary.json` says of a cross-traffic flow (`flows[].cross`).
#[derive(Clone, Debug, serde::Serialize)]
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

/// The sources of every Pareto flow (`None` for the others), each drawing from its own
/// stream of the run's seed, named after the flow.
pub(super) fn build(spec: &Spec) -> Vec<Option<CrossFlow>> {
    spec.flows
        .iter()
        .map(|fs| match fs.kind {
            FlowKind::Pareto(cfg) => {
                let rng = Rng::stream(spec.seed, &format!("flow:{}:pareto", fs.name));
                let source = ParetoOnOff::new(cfg, rng)
                    .expect("invariant: the scenario validated the source's parameters");
                Some(CrossFlow {
                    source,
                    src: fs.src,
                    dst: fs.dst,
                    next_size: cfg.packet_size,
                    packets_sent: 0,
                    bytes_sent: 0,
                    packets_delivered: 0,
                    bytes_delivered: 0,
                    ip_id: 0,
                    bins: CrossBins {
                        interval: CROSS_INTERVAL,
                        ..Default::default()
                    },
                    sent_bin: BinCursor::default(),
                    delivered_bin: BinCursor::default(),
                })
            }
            _ => None,
        })
        .collect()
}

impl World {
    fn cross_flow(&mut self, f: usize) -> &mut CrossFlow {
        self.cross[f]
            .as_mut()
            .expect("invariant: a cross-traffic event names a Pareto flow")
    }

    /// The flow starts: its first datagram comes one gap later (an idle time and an
    /// interval, as ns-2's `TrafficGenerator::start`).
    pub(super) fn start_cross(&mut self, f: usize) {
        self.flows[f].started = true;
        self.schedule_cross(f);
    }

    fn schedule_cross(&mut self, f: usize) {
        let now = self.now;
        let flow = self.cross_flow(f);
        let (gap, size) = flow.source.next_gap();
        flow.next_size = size;
        self.queue.schedule(now + gap, Event::CrossSend(f as u32));
    }

    /// Sends the datagram due now and schedules the next.
    pub(super) fn on_cross_send(&mut self, f: usize) {
        let now = self.now;
        let flow = self.cross_flow(f);
        let (src, dst) = (flow.src, flow.dst);
        let size = flow.next_size;
        let ip_id = flow.ip_id;
        flow.ip_id = ip_id.wrapping_add(1);
        flow.packets_sent += 1;
        flow.bytes_sent += u64::from(size);
        flow.sent_bin.add(&mut flow.bins.sent, now, u64::from(size));
        let idx = self.slab.insert_default();
        let pkt = self.slab.get_mut(idx);
        pkt.flow = f as u32;
        pkt.to_receiver = true;
        pkt.src = src as u32;
        pkt.dst = dst as u32;
        pkt.wire_bytes = size;
        pkt.ip_id = ip_id;
        pkt.sent_at = now;
        pkt.net = net::CROSS;
        if self.capture[src] && self.spec.record.pcap_cross {
            self.tap_cross(src, idx);
        }
        self.forward(src, idx, None);
        self.schedule_cross(f);
    }

    /// A datagram reached its sink: counted, freed.
    #[inline(always)]
    pub(super) fn deliver_cross(&mut self, node: NodeIdx, idx: PktIdx) {
        if self.capture[node] && self.spec.record.pcap_cross {
            self.tap_cross(node, idx);
        }
        let now = self.now;
        let (f, size) = {
            let pkt = self.slab.get(idx);
            (pkt.flow as usize, u64::from(pkt.wire_bytes))
        };
        self.slab.release(idx);
        let flow = self.cross_flow(f);
        flow.packets_delivered += 1;
        flow.bytes_delivered += size;
        flow.delivered_bin.add(&mut flow.bins.delivered, now, size);
    }

    #[cold]
    #[inline(never)]
    fn tap_cross(&mut self, node: NodeIdx, idx: PktIdx) {
        let (now, pkt) = (self.now, *self.slab.get(idx));
        for (n, tap) in self.taps.iter_mut() {
            if *n == node {
                tap.cross_packet(now, &pkt);
            }
        }
    }

    /// Books a dropped datagram to its flow, by link direction and cause.
    pub(super) fn book_cross_drop(&mut self, pkt: &Packet, d: Option<DirIdx>, cause: DropCause) {
        if let (Some(d), Some(flow)) = (d, self.flows.get_mut(pkt.flow as usize)) {
            flow.drops[d as usize][cause.slot()] += 1;
        }
    }
}

impl CrossFlow {
    /// What `summary.json` says of the flow, run from `start` to `now`; `drops` its drops of
    /// every cause on every link.
    pub(super) fn summary(&self, start: Time, now: Time, drops: u64) -> CrossSummary {
        let cfg = self.source.config();
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
            bursts: self.source.bursts,
            packets_sent: self.packets_sent,
            bytes_sent: self.bytes_sent,
            packets_delivered: self.packets_delivered,
            bytes_delivered: self.bytes_delivered,
            packets_dropped: drops,
            mean_sent_bps: per_s(self.bytes_sent),
            mean_delivered_bps: per_s(self.bytes_delivered),
        }
    }
}
