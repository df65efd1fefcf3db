//! TCP's two ends as agents: `crate::tcp`'s sender and receiver, with what the run keeps of
//! them (the flow's ground truth, `record::truth`, kept at the sender whose bytes it follows;
//! the sender's series; TCP Probe's estimate).

use super::{Agent, AgentSeries, Arrival, Body, Fate, FateOut, HandoverNote, Payload, Transmit};
use crate::packet::Packet;
use crate::record::series::{ProbeSeries, RowSink, Rows, SeriesId, TcpSample, TcpSeries};
use crate::record::truth::FlowTruth;
use crate::rng::Rng;
use crate::spec::{FlowSpec, Spec};
use crate::tcp::config::{HeaderModel, RtoAlgorithm};
use crate::tcp::{SeqNum, TcpReceiver, TcpSender};
use crate::time::{Dur, Time};
use serde::Serialize;

/// Port of a flow's data sender and receiver (arbitrary; distinct per flow).
pub const SENDER_PORT_BASE: u16 = 5001;
pub const RECEIVER_PORT_BASE: u16 = 40001;

/// The data sender.
pub struct TcpSource {
    pub sender: TcpSender,
    header_model: HeaderModel,
    /// What really happened to every byte sent (ground truth).
    pub truth: FlowTruth,
    /// Sequence number of the first data byte (learnt from the first data segment).
    pub data_base: Option<SeqNum>,
    /// The oracle learns of a segment really lost (`tcp.oracle`).
    oracle: bool,
    /// TCP Probe's explicit handoff notification reaches the sender wherever it runs (Chen et
    /// al. §5: "sent directly to TCP/TFRC applications").
    ehn: bool,
    series: Option<TcpSeries>,
    /// TCP Probe's estimate over time (series and the probe on).
    probe_series: Option<ProbeSeries>,
}

/// The data receiver.
pub struct TcpSink {
    pub receiver: TcpReceiver,
    header_model: HeaderModel,
}

/// The two ends of TCP flow `f`: initial sequence numbers and the RTO clock's phase from the
/// flow's own streams of the run's seed.
pub fn build(spec: &Spec, f: usize) -> (TcpSource, TcpSink) {
    let fs = &spec.flows[f];
    let (iss_s, iss_r) = if fs.tcp.handshake {
        let mut rng = Rng::stream(spec.seed, &format!("flow:{}:iss", fs.name));
        (SeqNum(rng.next_u64() as u32), SeqNum(rng.next_u64() as u32))
    } else {
        (SeqNum(0), SeqNum(0))
    };
    let mut tcp = fs.tcp;
    if matches!(
        tcp.rto.algorithm,
        RtoAlgorithm::Ns2Ticks | RtoAlgorithm::Linux20
    ) {
        // ns-2's boot_time_ = Random::uniform(tcp_tick_) (tcp.cc:481), per flow; a kernel's
        // jiffies are as unrelated to the connection's start.
        let mut rng = Rng::stream(spec.seed, &format!("flow:{}:tick-phase", fs.name));
        tcp.rto.tick_phase = Dur(rng.below(tcp.rto.granularity.as_nanos().max(1)));
    }
    let sp = SENDER_PORT_BASE.wrapping_add(f as u16);
    let rp = RECEIVER_PORT_BASE.wrapping_add(f as u16);
    let series = spec.record.series;
    (
        TcpSource {
            sender: TcpSender::new(&tcp, sp, rp, iss_s, fs.bytes).with_probe(&fs.probe),
            header_model: tcp.header_model,
            truth: FlowTruth::default(),
            data_base: None,
            oracle: tcp.oracle,
            ehn: fs.probe.ehn,
            series: series.then(TcpSeries::default),
            probe_series: (series && fs.probe.enabled).then(ProbeSeries::default),
        },
        TcpSink {
            receiver: TcpReceiver::new(&tcp, rp, sp, iss_r),
            header_model: tcp.header_model,
        },
    )
}

fn due(t: Option<Time>, now: Time) -> bool {
    t.is_some_and(|t| t <= now)
}

impl Agent for TcpSource {
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        let tx = self.sender.poll_transmit(now)?;
        let seg = tx.segment;
        let mut copy = 0;
        let seq_len = seg.data_seq_len();
        if seq_len > 0 {
            let base = *self.data_base.get_or_insert(seg.seq);
            copy = self
                .truth
                .on_send(seg.seq - base, seq_len, tx.kind, seg.len > 0);
        }
        Some(Transmit {
            body: Body::Tcp(seg),
            wire_bytes: self.header_model.segment_bytes(&seg),
            kind: tx.kind,
            copy,
        })
    }

    #[inline(always)]
    fn poll_timeout(&self) -> Option<Time> {
        self.sender.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Time) {
        if due(self.sender.poll_timeout(), now) {
            self.sender.handle_timeout(now);
        }
    }

    #[inline(always)]
    fn handle_packet(&mut self, now: Time, pkt: &Packet, _: &Payload) -> Arrival {
        self.sender.handle_segment(now, &pkt.seg);
        Arrival {
            respond: true,
            ..Arrival::default()
        }
    }

    #[inline(always)]
    fn fate(&mut self, now: Time, pkt: &Packet, _: &Payload, fate: Fate) -> FateOut {
        let len = pkt.seg.data_seq_len();
        let (Some(base), true) = (self.data_base, len > 0) else {
            return FateOut::default();
        };
        let offset = pkt.seg.seq - base;
        match fate {
            Fate::Delivered => self.truth.on_deliver(offset, pkt.copy),
            Fate::Copied => self.truth.on_network_copy(offset),
            Fate::Absorbed => self.truth.on_absorb(offset),
            Fate::Dropped => {
                let gone = self.truth.on_drop(offset, pkt.copy, pkt.seg.len > 0);
                if gone && self.oracle {
                    // The oracle alone learns of a segment that is really lost.
                    self.sender.handle_drop_truth(now, pkt.seg.seq, len);
                }
                return FateOut {
                    drop_ref: Some((offset, pkt.seg.len)),
                    source_finished: false,
                };
            }
        }
        FateOut::default()
    }

    fn notify_handover(&mut self, now: Time, h: &HandoverNote) -> bool {
        if h.here {
            self.sender.notify_handover(now, h.notice);
        }
        if self.ehn {
            // TCP Probe's EHN, to the sender wherever it runs, with the rates ERR needs.
            self.sender.notify_probe_handover(now, h.from_bps, h.to_bps);
        }
        h.here || self.ehn
    }

    #[inline(always)]
    fn is_complete(&self) -> bool {
        self.sender.is_complete()
    }

    #[inline(always)]
    fn sample(&mut self, now: Time) {
        if let Some(series) = &mut self.series {
            let p = self.sender.probe();
            series.push(
                now,
                TcpSample {
                    cwnd: p.cwnd,
                    ssthresh: p.ssthresh,
                    srtt_ns: p.srtt.as_nanos(),
                    rttvar_ns: p.rttvar.as_nanos(),
                    rto_ns: p.rto.as_nanos(),
                    flight: p.flight_size,
                },
            );
            if let (Some(ps), Some(c)) = (&mut self.probe_series, self.sender.capacity_estimate()) {
                ps.push(now, c);
            }
        }
    }

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            tcp: self.series.take(),
            probe: self.probe_series.take(),
            ..Default::default()
        }
    }

    fn spill_series(&mut self, f: usize, open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>) {
        if let Some(s) = &mut self.series {
            s.spill_to(open(SeriesId::Tcp(f)));
        }
        if let Some(s) = &mut self.probe_series {
            s.spill_to(open(SeriesId::Probe(f)));
        }
    }
}

impl Agent for TcpSink {
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        let tx = self.receiver.poll_transmit(now)?;
        Some(Transmit {
            body: Body::Tcp(tx.segment),
            wire_bytes: self.header_model.segment_bytes(&tx.segment),
            kind: tx.kind,
            copy: 0,
        })
    }

    #[inline(always)]
    fn poll_timeout(&self) -> Option<Time> {
        self.receiver.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Time) {
        if due(self.receiver.poll_timeout(), now) {
            self.receiver.handle_timeout(now);
        }
    }

    #[inline(always)]
    fn handle_packet(&mut self, now: Time, pkt: &Packet, _: &Payload) -> Arrival {
        let data = (pkt.seg.len > 0).then_some(u64::from(pkt.seg.len));
        self.receiver.handle_segment(now, &pkt.seg);
        Arrival {
            data,
            delivered: Some(self.receiver.delivered_bytes()),
            respond: true,
        }
    }

    fn notify_handover(&mut self, _now: Time, h: &HandoverNote) -> bool {
        if h.here {
            // The receiver sends the notification on its next ACK (issue 19).
            self.receiver.notify_handover(h.notice);
        }
        h.here
    }
}

impl TcpSource {
    /// TCP Probe's pairs, estimate and detections.
    pub fn probe_summary(&self, handovers: &[Time]) -> crate::probe::summary::ProbeSummary {
        let detections = self.sender.probe_detections().iter();
        crate::probe::summary::probe_summary(
            self.sender.probe_pairs(),
            self.sender.capacity_estimate(),
            detections.map(|d| (d.handoff, d.action)),
            handovers,
        )
    }
}

/// A TCP flow's own numbers (`summary.json`'s flows, beside what every flow has).
#[derive(Clone, Debug)]
pub struct TcpFlowSummary {
    pub profile: &'static str,
    pub counts: TcpCounts,
    /// `tcp.adaptive_dupthresh` only: the notifications that raised the duplicate-ACK
    /// threshold.
    pub dupthresh_raises: Option<u64>,
    /// `tcp.oracle` only.
    pub oracle: Option<OracleSummary>,
}

/// What a TCP flow's sender did and its receiver saw, and the ground truth of both.
#[derive(Clone, Debug, Serialize)]
pub struct TcpCounts {
    pub data_packets_sent: u64,
    pub retransmissions: u64,
    pub spurious_retransmissions: u64,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub fast_retransmits: u64,
    /// Timeouts the sender itself found spurious (`tcp.spurious_rto`; 0 when off), beside
    /// the ground truth's `spurious_timeouts`.
    pub spurious_timeouts_detected: u64,
    /// Fast retransmits the sender found spurious (D-SACK, RFC 3708).
    pub spurious_fast_retransmits_detected: u64,
    /// Tail loss probes sent (`tcp.tlp`; Linux's TCPLossProbes).
    pub tlp_probes: u64,
    /// Probes whose ACK showed they repaired a lost tail (Linux's TCPLossProbeRecovery).
    pub tlp_recoveries: u64,
    /// Probes that resent a segment (the rest sent new data).
    pub tlp_retransmissions: u64,
    /// Handover notifications that reached the sender (`handover.notify`).
    pub handover_notices: u64,
    /// `rtt_injection`: RTTs injected at a notification, and notifications that found no RTT
    /// recorded for the interface taken (its first visit).
    pub rtt_injections: u64,
    pub rtt_injections_without_hint: u64,
    /// Segments the receiver got above a hole (lost or late data before them).
    pub out_of_order_deliveries: u64,
    /// First transmissions the network reordered (`record::truth`, ground truth): a segment
    /// sent once arriving after one sent later. Naoe et al.'s "out-of order delivery".
    pub reordered_deliveries: u64,
    pub duplicate_acks: u64,
}

/// The oracle sender's record (see `tcp::oracle`).
#[derive(Clone, Debug, Serialize)]
pub struct OracleSummary {
    /// Handovers whose ground truth it was told.
    pub oracle_handovers: u64,
    /// Its retransmissions of segments the network really dropped (after a handover, its only
    /// ones).
    pub oracle_repairs: u64,
    /// The last path it was told of: base RTT, the bottleneck's rate in payload bits/s, and
    /// the window it took (the capacity plus one segment).
    pub oracle_base_rtt_s: Option<f64>,
    pub oracle_bottleneck_payload_bps: Option<f64>,
    pub oracle_cwnd_segments: Option<u32>,
}

/// The flow's TCP record from its two ends.
pub fn summary(s: &TcpSource, r: &TcpSink, fs: &FlowSpec) -> TcpFlowSummary {
    let truth = s.truth.counts();
    let st = s.sender.stats();
    let rs = r.receiver.stats();
    TcpFlowSummary {
        profile: fs.tcp.profile,
        counts: TcpCounts {
            data_packets_sent: truth.data_packets_sent,
            retransmissions: truth.retransmissions,
            spurious_retransmissions: truth.spurious_retransmissions,
            timeouts: st.timeouts,
            spurious_timeouts: truth.spurious_timeouts,
            fast_retransmits: st.fast_retransmits,
            spurious_timeouts_detected: st.spurious_timeouts_detected,
            spurious_fast_retransmits_detected: st.spurious_fast_retransmits_detected,
            tlp_probes: st.tlp_probes,
            tlp_recoveries: st.tlp_recoveries,
            tlp_retransmissions: st.tlp_retransmissions,
            handover_notices: st.handover_notices,
            rtt_injections: st.rtt_injections,
            rtt_injections_without_hint: st.rtt_injections_without_hint,
            out_of_order_deliveries: rs.out_of_order_segments,
            reordered_deliveries: truth.reordered_deliveries,
            duplicate_acks: st.dupacks_received,
        },
        dupthresh_raises: fs
            .tcp
            .adaptive_dupthresh
            .then(|| s.sender.dupthresh_raises()),
        oracle: s.sender.oracle_stats().map(|o| {
            let mss = s.sender.mss();
            OracleSummary {
                oracle_handovers: o.handovers,
                oracle_repairs: o.repairs,
                oracle_base_rtt_s: o.path.map(|p| p.base_rtt.as_secs_f64()),
                oracle_bottleneck_payload_bps: o
                    .path
                    .map(|p| mss as f64 * 8.0 / p.segment_time.as_secs_f64().max(1e-12)),
                oracle_cwnd_segments: o.path.map(|p| p.window_segments()),
            }
        }),
    }
}
