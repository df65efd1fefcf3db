//! A constant-bit-rate UDP stream as two agents (`[[flow]] kind = "cbr"`): a source sending a
//! datagram of `packet_size` payload bytes every `packet_size · 8 / rate` seconds, each with a
//! sequence number, and a receiver that measures every datagram's one-way delay (its arrival
//! less `Packet::sent_at`: the simulator's clocks agree) and what was lost (sequence numbers
//! never seen), reordered or duplicated. What users run beside TCP to see a link's own
//! behaviour across a handover: the outage is the longest gap between two arrivals, the
//! delay spike the queue the handover built.
//!
//! Jitter is RFC 3550 §6.4.1's interarrival jitter, J += (|D(i−1, i)| − J) / 16, over the
//! datagrams in arrival order.

use super::{Agent, AgentSeries, Arrival, Payload, Transmit};
use crate::packet::Packet;
use crate::spec::FlowSpec;
use crate::time::Time;
use crate::traffic::cbr::{CbrConfig, CBR_HEADER_BYTES};
use serde::Serialize;

/// What a CBR datagram carries: its sequence number, from 0 (its send time is
/// `Packet::sent_at`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CbrHeader {
    pub seq: u64,
}

/// The source.
pub struct CbrSource {
    cfg: CbrConfig,
    /// The flow's bytes (`flow.size`; unbounded by default): it stops once it has sent them.
    offered: u64,
    next_at: Option<Time>,
    seq: u64,
    bytes_sent: u64,
}

/// One datagram as the receiver saw it (`series_cbr.parquet`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbrArrival {
    pub seq: u64,
    pub sent: Time,
    pub arrived: Time,
}

/// The receiver.
pub struct CbrSink {
    packets: u64,
    bytes: u64,
    duplicates: u64,
    reordered: u64,
    /// Which sequence numbers arrived (a bit each): what never did was lost.
    seen: Vec<u64>,
    highest: Option<u64>,
    /// One-way delays, ns, in arrival order (for the percentiles).
    delays: Vec<u64>,
    jitter_ns: f64,
    last: Option<CbrArrival>,
    max_gap_ns: u64,
    max_gap_after: Option<Time>,
    series: Option<Vec<CbrArrival>>,
}

impl CbrSource {
    pub fn new(cfg: CbrConfig, fs: &FlowSpec) -> Self {
        CbrSource {
            cfg,
            offered: fs.bytes,
            next_at: None,
            seq: 0,
            bytes_sent: 0,
        }
    }
}

impl CbrSink {
    pub fn new(_cfg: CbrConfig, series: bool) -> Self {
        CbrSink {
            packets: 0,
            bytes: 0,
            duplicates: 0,
            reordered: 0,
            seen: Vec::new(),
            highest: None,
            delays: Vec::new(),
            jitter_ns: 0.0,
            last: None,
            max_gap_ns: 0,
            max_gap_after: None,
            series: series.then(Vec::new),
        }
    }

    /// Records a sequence number; whether it was new.
    fn mark(&mut self, seq: u64) -> bool {
        let (word, bit) = ((seq / 64) as usize, seq % 64);
        if self.seen.len() <= word {
            self.seen.resize(word + 1, 0);
        }
        let new = self.seen[word] & (1 << bit) == 0;
        self.seen[word] |= 1 << bit;
        new
    }
}

impl Agent for CbrSource {
    /// The first datagram goes at the flow's start.
    fn start(&mut self, now: Time) {
        self.next_at = Some(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        let t = self.next_at.filter(|&t| t <= now)?;
        let size = self.cfg.packet_size;
        if self.bytes_sent.saturating_add(u64::from(size)) > self.offered {
            self.next_at = None; // the flow's size is sent
            return None;
        }
        let hdr = CbrHeader { seq: self.seq };
        self.seq += 1;
        self.bytes_sent += u64::from(size);
        // Paced from the schedule, not from `now`: a late wake-up does not slow the stream.
        self.next_at = Some(t + self.cfg.interval());
        Some(Transmit::datagram(
            Payload::Cbr(hdr),
            size + CBR_HEADER_BYTES,
        ))
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_at
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn handle_packet(&mut self, _: Time, _: &Packet, _: &Payload) -> Arrival {
        Arrival::default()
    }
}

impl Agent for CbrSink {
    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit> {
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn handle_packet(&mut self, now: Time, pkt: &Packet, payload: &Payload) -> Arrival {
        let Payload::Cbr(h) = payload else {
            return Arrival::default();
        };
        if !self.mark(h.seq) {
            self.duplicates += 1;
            return Arrival::default();
        }
        let size = u64::from(pkt.wire_bytes.saturating_sub(CBR_HEADER_BYTES));
        let before = self.bytes;
        self.packets += 1;
        self.bytes += size;
        match self.highest {
            Some(top) if h.seq < top => self.reordered += 1,
            _ => self.highest = Some(h.seq),
        }
        let a = CbrArrival {
            seq: h.seq,
            sent: pkt.sent_at,
            arrived: now,
        };
        let delay = now.saturating_since(pkt.sent_at).as_nanos();
        self.delays.push(delay);
        if let Some(last) = self.last {
            // RFC 3550 §6.4.1: D(i−1, i) = (R_i − R_{i−1}) − (S_i − S_{i−1}).
            let d = (now.as_nanos() as f64 - last.arrived.as_nanos() as f64)
                - (pkt.sent_at.as_nanos() as f64 - last.sent.as_nanos() as f64);
            self.jitter_ns += (d.abs() - self.jitter_ns) / 16.0;
            let gap = now.saturating_since(last.arrived).as_nanos();
            if gap > self.max_gap_ns {
                self.max_gap_ns = gap;
                self.max_gap_after = Some(last.arrived);
            }
        }
        self.last = Some(a);
        if let Some(s) = &mut self.series {
            s.push(a);
        }
        Arrival {
            data: Some(self.bytes - before),
            delivered: Some(self.bytes),
            respond: false,
        }
    }

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            cbr: self.series.take(),
            ..Default::default()
        }
    }
}

/// What `summary.json` says of a CBR flow (`flows[].cbr`).
#[derive(Clone, Debug, Serialize)]
pub struct CbrSummary {
    pub rate_bps: u64,
    pub packet_size: u32,
    pub packets_sent: u64,
    pub packets_received: u64,
    /// Sequence numbers below the highest received that never arrived (RFC 3550 §6.4.1's
    /// cumulative loss), and their share of those expected (the highest plus one).
    pub packets_lost: u64,
    pub loss_ratio: f64,
    /// Sent after the highest received: on the way when the run ended, or lost at the tail.
    pub packets_after_last: u64,
    /// Datagrams that arrived after one sent later, and second copies.
    pub packets_reordered: u64,
    pub duplicates: u64,
    /// One-way delay over the datagrams received, seconds (`null` before the first).
    pub delay_min_s: Option<f64>,
    pub delay_mean_s: Option<f64>,
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_max_s: Option<f64>,
    /// RFC 3550 §6.4.1's interarrival jitter at the end, seconds.
    pub jitter_s: f64,
    /// The longest time between two arrivals (a handover's outage), and when it began.
    pub max_gap_s: f64,
    pub max_gap_from_s: Option<f64>,
}

/// The flow's record from its two ends.
pub fn summary(s: &CbrSource, r: &CbrSink) -> CbrSummary {
    let mut d = r.delays.clone();
    d.sort_unstable();
    let secs = |ns: u64| ns as f64 / 1e9;
    // The nearest-rank percentile (the smallest delay at or above the fraction q of them).
    let pct = |q: f64| {
        (!d.is_empty()).then(|| {
            let rank = ((q * d.len() as f64).ceil() as usize).clamp(1, d.len());
            secs(d[rank - 1])
        })
    };
    // RFC 3550 §6.4.1's count: expected is the highest sequence number received plus one
    // (they start at 0), lost what was expected and never came; what was sent after the
    // highest is not yet expected (on the way when the run ended, or lost at the tail).
    let expected = r.highest.map_or(0, |h| h + 1);
    let lost = expected.saturating_sub(r.packets);
    CbrSummary {
        rate_bps: s.cfg.rate_bps,
        packet_size: s.cfg.packet_size,
        packets_sent: s.seq,
        packets_received: r.packets,
        packets_lost: lost,
        loss_ratio: if expected > 0 {
            lost as f64 / expected as f64
        } else {
            0.0
        },
        packets_after_last: s.seq.saturating_sub(expected),
        packets_reordered: r.reordered,
        duplicates: r.duplicates,
        delay_min_s: d.first().map(|&x| secs(x)),
        delay_mean_s: (!d.is_empty()).then(|| secs(d.iter().sum::<u64>() / d.len() as u64)),
        delay_p50_s: pct(0.5),
        delay_p95_s: pct(0.95),
        delay_max_s: d.last().map(|&x| secs(x)),
        jitter_s: r.jitter_ns / 1e9,
        max_gap_s: secs(r.max_gap_ns),
        max_gap_from_s: r.max_gap_after.map(|t| t.as_secs_f64()),
    }
}
