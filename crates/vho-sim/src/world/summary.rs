//! The run's summary (`summary.json`): per flow, per handover, per link direction, and the
//! run itself. Field order is fixed by the structs, so the JSON is byte-identical for the
//! same scenario and seed. The wall-clock time is not here: the driver writes it apart.

use super::{RunOutput, World};
use crate::link::DropCause;
use crate::spec::{HandoverKind, InFlight};
use crate::time::Time;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub run: RunInfo,
    pub flows: Vec<FlowSummary>,
    pub handovers: Vec<HandoverSummary>,
    pub links: Vec<LinkDirSummary>,
    /// What each node function did (absent when the scenario has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub node_functions: Vec<NodeFunctionSummary>,
    /// A NEMO soft handover's bicasting and combining (`[nemo]`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nemo: Option<super::nemo::NemoSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeFunctionSummary {
    pub node: String,
    pub kind: &'static str,
    /// Its counters by name (see `net::window_clamp`, `net::flow_control`).
    pub counters: std::collections::BTreeMap<&'static str, u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    pub scenario: String,
    pub seed: u64,
    pub vho_version: &'static str,
    /// Filled in by the driver (the hash of the resolved scenario).
    pub scenario_hash: String,
    pub events: u64,
    pub simulated_s: f64,
    /// What ended the run: "completed" (every flow done), "stop_time" (`run.stop` came first;
    /// `simulated_s` is then the stop time) or "idle" (nothing left to happen: the flows not
    /// completed are stuck; `simulated_s` is the last event).
    pub ended_by: &'static str,
    /// Most packets in the network at once.
    pub peak_packets_in_network: usize,
    /// Packet conservation held on every link direction.
    pub conservation_ok: bool,
    /// What a user should know about how the run went (a handover the run never reached, a
    /// run cut by its stop time or stuck), each one line; `vho run` prints them on stderr.
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DropRow {
    pub link: String,
    pub from: String,
    pub to: String,
    pub cause: &'static str,
    pub packets: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    pub tcp_profile: &'static str,
    pub bytes: u64,
    pub bytes_delivered: u64,
    pub completed: bool,
    pub start_s: f64,
    /// From the flow's start to the last byte delivered in order at the receiver.
    pub transfer_time_s: Option<f64>,
    pub goodput_bps: Option<f64>,
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
    pub drops: Vec<DropRow>,
    /// Cottingham & Vidales §5, after the flow's first handover; `null` without one.
    pub adaptation_time_s: Option<f64>,
    /// When t_a starts: the first data packet the receiver got over the new link.
    pub first_on_new_link_s: Option<f64>,
    /// Goodput over `[record] goodput_from`..`goodput_until` (bits/s of data delivered in
    /// order in the window over its length); only with that window set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_goodput_bps: Option<f64>,
    /// `tcp.adaptive_dupthresh` only: the notifications that raised the duplicate-ACK
    /// threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dupthresh_raises: Option<u64>,
    /// `tcp.oracle` only (the remedies oracle, oracle-system): what the oracle did and was
    /// told, as flat `oracle_*` keys (a sweep's table takes them as columns).
    #[serde(flatten)]
    pub oracle: Option<OracleSummary>,
    /// A TFRC flow's record (`kind = "tfrc"`; absent for TCP, whose fields above are then
    /// zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tfrc: Option<TfrcSummary>,
    /// A cross-traffic flow's record (`kind = "pareto"`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross: Option<super::CrossSummary>,
    /// TCP Probe's or TFRC Probe's record (Chen et al. §3; `null` without the probe).
    pub probe: Option<ProbeSummary>,
}

/// A TFRC flow (RFC 5348) from its start to the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct TfrcSummary {
    pub packet_size: u32,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    /// Data bytes the receiver got (TFRC does not retransmit: a loss stays lost).
    pub bytes_received: u64,
    /// Data bits sent over the flow's time (start to end of run), bits per second.
    pub mean_sending_rate_bps: f64,
    /// Data bits received over the same time.
    pub mean_throughput_bps: f64,
    /// X, the allowed sending rate at the end of the run, bits per second.
    pub final_rate_bps: f64,
    /// The receiver's loss event rate p (§5.4) at the end, and time-weighted over the flow.
    pub final_p: f64,
    pub mean_p: f64,
    /// The sender's R at the end (`null` before its first feedback).
    pub final_rtt_s: Option<f64>,
    pub packets_lost: u64,
    pub loss_events: u64,
    pub feedback_sent: u64,
    pub feedback_received: u64,
    /// Feedback the receiver sent early because p rose (§6.1).
    pub expedited_feedback: u64,
    /// Expiries of the sender's nofeedback timer (§4.4).
    pub nofeedback_expiries: u64,
}

/// TCP Probe or TFRC Probe (Chen et al. §3): its pairs, its estimate, the handoffs it learnt
/// of.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeSummary {
    /// Pairs the receiver measured, and pairs refused for having no dispersion.
    pub pairs: u64,
    pub pairs_refused: u64,
    /// The CapProbe estimate at the end (TFRC Probe's receiver's, TCP Probe's sender's), bit/s.
    pub final_estimate_bps: Option<u64>,
    /// Every IHN or EHN in order, with what the sender did.
    pub detections: Vec<DetectionSummary>,
}

/// One handoff as the sender learnt it.
#[derive(Clone, Debug, Serialize)]
pub struct DetectionSummary {
    pub at_s: f64,
    /// "ihn" or "ehn".
    pub by: &'static str,
    /// "low-to-high" or "high-to-low".
    pub direction: &'static str,
    /// The capacities before and after: the estimates C and C' (IHN), the interfaces'
    /// nominal rates (EHN); bit/s.
    pub from_bps: u64,
    pub to_bps: u64,
    /// "fra", "err" or `null`.
    pub action: Option<&'static str>,
    /// From the nearest handover's instant to this (negative: before it); IHN's detection
    /// lag. `null` in a run without handovers.
    pub after_handover_s: Option<f64>,
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

#[derive(Clone, Debug, Serialize)]
pub struct HandoverSummary {
    pub at_s: f64,
    pub mobile: String,
    pub from: String,
    pub to: String,
    pub kind: &'static str,
    pub delay_s: f64,
    /// From the instant to the first packet reaching the mobile host over the new link.
    pub interruption_s: Option<f64>,
    /// Whether the run reached the handover's instant (a run that ends first, every flow
    /// done or the stop time, never hands over).
    pub happened: bool,
    /// With `[mipv6]`: the network-layer latency and its parts, as the signalling made them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mipv6: Option<MipHandoverSummary>,
}

/// A Mobile IPv6 handover's latency, T_n = t_d + t_c + t_r (Cottingham & Vidales eq. 1-4):
/// durations in seconds from the instant (`null` for a step that did not happen), and the
/// instants of the steps (simulated seconds).
#[derive(Clone, Debug, Serialize)]
pub struct MipHandoverSummary {
    /// Movement detection: from the instant to the mobile's decision to move.
    pub t_d_s: Option<f64>,
    /// Configuration: from that decision to the new care-of address being usable.
    pub t_c_s: Option<f64>,
    /// Registration: from then to the first packet route-optimised to the new care-of
    /// address (to the first one tunnelled there, without route optimisation).
    pub t_r_s: Option<f64>,
    pub t_n_s: Option<f64>,
    pub detected_s: Option<f64>,
    pub configured_s: Option<f64>,
    pub bu_sent_s: Option<f64>,
    pub ba_s: Option<f64>,
    pub bu_cn_sent_s: Option<f64>,
    pub first_tunnelled_s: Option<f64>,
    pub first_route_optimised_s: Option<f64>,
    /// Binding Updates sent to the home agent for this handover (1 without a loss).
    pub bu_transmissions: u32,
    /// Why T_n ends where it does, when that is not what `mipv6.route_optimisation` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// The note of a handover whose T_n ends at the first tunnelled packet though route
/// optimisation is on: nothing can be optimised (issue 40 item 21: T_n never ended).
pub const NO_CORRESPONDENT_NOTE: &str = "route optimisation is on but there is no \
    correspondent to optimise (mipv6.correspondents is empty, as with NEMO's network nodes): \
    T_n ends at the first packet tunnelled to the new care-of address";

impl MipHandoverSummary {
    /// `route_optimisation`: whether T_n ends at the first route-optimised packet; `note`,
    /// why it does not though the scenario asks for route optimisation.
    pub fn new(
        t: &crate::mip::mobile::HandoverTimes,
        route_optimisation: bool,
        note: Option<&'static str>,
    ) -> Self {
        let s = |x: Option<crate::time::Time>| x.map(|x| x.as_secs_f64());
        let since = |a: Option<crate::time::Time>, b: Option<crate::time::Time>| match (a, b) {
            (Some(a), Some(b)) => Some(b.saturating_since(a).as_secs_f64()),
            _ => None,
        };
        let end = if route_optimisation {
            t.first_route_optimised
        } else {
            t.first_tunnelled
        };
        MipHandoverSummary {
            t_d_s: since(Some(t.at), t.detected),
            t_c_s: since(t.detected, t.configured),
            t_r_s: since(t.configured, end),
            t_n_s: since(Some(t.at), end),
            detected_s: s(t.detected),
            configured_s: s(t.configured),
            bu_sent_s: s(t.bu_sent),
            ba_s: s(t.ba),
            bu_cn_sent_s: s(t.bu_cn_sent),
            first_tunnelled_s: s(t.first_tunnelled),
            first_route_optimised_s: s(t.first_route_optimised),
            bu_transmissions: t.bu_transmissions,
            note,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkDirSummary {
    pub link: String,
    pub from: String,
    pub to: String,
    pub offered: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub moved_in: u64,
    pub moved_out: u64,
    pub dropped_queue_overflow: u64,
    pub dropped_handover_flush: u64,
    pub dropped_random_loss: u64,
    /// RED's early drops; only on a direction whose queue runs RED (absent otherwise, so a
    /// drop-tail run's summary is as it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_early_drop: Option<u64>,
    /// Lost to a scheduled blackhole or interface down (`link::change`); only on a direction
    /// a `[[schedule]]` gives a state (absent otherwise, as `dropped_early_drop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_link_state: Option<u64>,
    /// Discarded by the direction's link layer (RLC's MaxDAT, DCF's retry limit); only on a
    /// direction with a link layer (absent otherwise, as `dropped_early_drop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_link_layer_discard: Option<u64>,
    /// On the air or propagating when the interface went down (a hard handover losing what
    /// is in flight, a scheduled state down; issue 33 point 4); only on a direction of a link
    /// a hard handover leaves with `in_flight = "lost"` or a `[[schedule]]` gives a state
    /// (absent otherwise, as `dropped_early_drop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_in_flight: Option<u64>,
    /// What the direction's link layer did, on a direction with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_layer: Option<LinkLayerSummary>,
    /// RED's mean average queue (bytes) over the arrivals it judged, on a RED direction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red_mean_avg_bytes: Option<f64>,
    pub still_in_network: u64,
    pub conserved: bool,
}

/// A direction's link layer over the run (`link::layer`).
#[derive(Clone, Debug, Serialize)]
pub struct LinkLayerSummary {
    /// `rlc-am` or `dcf`.
    pub kind: &'static str,
    /// RLC blocks or DCF data frames put on the air, retransmissions included.
    pub transmissions: u64,
    pub retransmissions: u64,
    /// Blocks in error, data frames corrupted.
    pub lost: u64,
    /// Packets discarded (as `dropped_link_layer_discard`).
    pub discarded: u64,
}

pub fn kind_name(k: HandoverKind) -> &'static str {
    match k {
        HandoverKind::SoftDrainOld => "soft",
        HandoverKind::SoftReconfigure { shrink: false } => "soft-reconfigure",
        HandoverKind::SoftReconfigure { shrink: true } => "soft-shrink",
        HandoverKind::Hard { .. } => "hard",
    }
}

impl World {
    pub(super) fn finish(mut self, ended: super::EndedBy) -> RunOutput {
        // Serialisers are lazy: bring every direction up to the end of the run.
        for d in 0..self.dirs.len() {
            self.dirs[d].advance(self.now);
            self.book(d as crate::net::routes::DirIdx);
        }
        let spec = &self.spec;
        let node = |i: usize| spec.nodes[i].name.clone();
        let dir_names = |d: usize| {
            let l = &spec.links[d / 2];
            let (from, to) = if d.is_multiple_of(2) {
                (l.a, l.b)
            } else {
                (l.b, l.a)
            };
            (l.name.clone(), node(from), node(to))
        };
        let mut flows = Vec::new();
        let handover_instants: Vec<Time> = self
            .handovers
            .iter()
            .filter(|h| h.happened)
            .map(|h| h.at)
            .collect();
        for (f, fs) in spec.flows.iter().enumerate() {
            let flow = &self.flows[f];
            let truth = flow.truth.counts();
            let st = flow.sender.stats();
            let rs = flow.receiver.stats();
            let transfer = flow
                .completed_at
                .map(|t| t.saturating_since(fs.start).as_secs_f64());
            let mut drops = Vec::new();
            for (d, per_cause) in flow.drops.iter().enumerate() {
                for (c, &n) in per_cause.iter().enumerate() {
                    if n > 0 {
                        let (link, from, to) = dir_names(d);
                        drops.push(DropRow {
                            link,
                            from,
                            to,
                            cause: DropCause::ALL[c].name(),
                            packets: n,
                        });
                    }
                }
            }
            flows.push(FlowSummary {
                name: fs.name.clone(),
                from: node(fs.src),
                to: node(fs.dst),
                tcp_profile: fs.tcp.profile,
                bytes: fs.bytes,
                bytes_delivered: flow.receiver.delivered_bytes(),
                completed: flow.completed_at.is_some(),
                start_s: fs.start.as_secs_f64(),
                transfer_time_s: transfer,
                goodput_bps: transfer
                    .filter(|&t| t > 0.0)
                    .map(|t| fs.bytes as f64 * 8.0 / t),
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
                drops,
                // Cottingham & Vidales §5, over the data the receiver got (vho-trace's method).
                adaptation_time_s: flow.tput.adaptation_time_s(),
                first_on_new_link_s: flow.first_on_new_link.map(|t| t.as_secs_f64()),
                window_goodput_bps: flow.window.map(|w| w.goodput_bps()),
                dupthresh_raises: fs
                    .tcp
                    .adaptive_dupthresh
                    .then(|| flow.sender.dupthresh_raises()),
                oracle: flow.sender.oracle_stats().map(|o| {
                    let mss = flow.sender.mss();
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
                cross: self.cross[f].as_ref().map(|c| {
                    let dropped = flow.drops.iter().flatten().sum();
                    c.summary(fs.start, self.now, dropped)
                }),
                tfrc: flow.tfrc.as_deref().map(|t| t.summary(fs.start, self.now)),
                probe: fs.probe.enabled.then(|| match flow.tfrc.as_deref() {
                    Some(t) => t.probe_summary(&handover_instants),
                    None => {
                        let (pairs, refused) = flow.sender.probe_pairs();
                        let detections = flow.sender.probe_detections().iter();
                        probe_summary(
                            (pairs, refused),
                            flow.sender.capacity_estimate(),
                            detections.map(|d| (d.handoff, d.action)),
                            &handover_instants,
                        )
                    }
                }),
            });
        }
        let mip_times = self.mip_records_by_handover();
        let ro_asked = spec.mipv6.as_ref().is_some_and(|m| m.route_optimisation);
        let ro = ro_asked
            && spec
                .mipv6
                .as_ref()
                .is_some_and(|m| !m.correspondents.is_empty());
        let note = (ro_asked && !ro).then_some(NO_CORRESPONDENT_NOTE);
        let handovers = spec
            .handovers
            .iter()
            .zip(&self.handovers)
            .zip(&mip_times)
            .map(|((h, st), mt)| HandoverSummary {
                at_s: st.at.as_secs_f64(),
                mobile: node(spec.mobiles[h.mobile].node),
                from: spec.links[h.from].name.clone(),
                to: spec.links[h.to].name.clone(),
                kind: kind_name(h.kind),
                delay_s: h.delay.as_secs_f64(),
                interruption_s: st.interruption.map(|d| d.as_secs_f64()).or_else(|| {
                    // With Mobile IPv6: the first data the new link brought, tunnelled or not.
                    let t = mt.as_ref()?;
                    let first = match (t.first_tunnelled, t.first_route_optimised) {
                        (Some(a), Some(b)) => a.min(b),
                        (a, b) => a.or(b)?,
                    };
                    Some(first.saturating_since(t.at).as_secs_f64())
                }),
                happened: st.happened,
                mipv6: mt.as_ref().map(|t| MipHandoverSummary::new(t, ro, note)),
            })
            .collect();
        let links: Vec<LinkDirSummary> = self
            .dirs
            .iter()
            .enumerate()
            .map(|(d, dir)| {
                let (link, from, to) = dir_names(d);
                let c = &dir.counters;
                LinkDirSummary {
                    link,
                    from,
                    to,
                    offered: c.offered,
                    delivered: c.delivered,
                    delivered_bytes: c.delivered_bytes,
                    moved_in: c.moved_in,
                    moved_out: c.moved_out,
                    dropped_queue_overflow: c.dropped[0],
                    dropped_handover_flush: c.dropped[1],
                    dropped_random_loss: c.dropped[2],
                    dropped_early_drop: dir.red().map(|_| c.dropped[3]),
                    dropped_link_state: spec
                        .schedules
                        .iter()
                        .any(|s| {
                            let on = if d % 2 == 0 { s.ab } else { s.ba };
                            s.state.is_some() && on && s.link == d / 2
                        })
                        .then_some(c.dropped[DropCause::LinkState.slot()]),
                    dropped_link_layer_discard: dir
                        .link_layer()
                        .stats()
                        .map(|_| c.dropped[DropCause::LinkLayerDiscard.slot()]),
                    dropped_in_flight: (spec.handovers.iter().any(|h| {
                        matches!(h.kind, HandoverKind::Hard { .. })
                            && h.in_flight == InFlight::Lost
                            && h.from == d / 2
                    }) || spec.schedules.iter().any(|s| {
                        let on = if d % 2 == 0 { s.ab } else { s.ba };
                        s.state.is_some() && on && s.link == d / 2
                    }))
                    .then_some(c.dropped[DropCause::InFlight.slot()]),
                    link_layer: dir.link_layer().stats().map(|st| LinkLayerSummary {
                        kind: super::build::dir_spec(spec, d as crate::net::routes::DirIdx)
                            .link_layer
                            .name(),
                        transmissions: st.transmissions,
                        retransmissions: st.retransmissions,
                        lost: st.lost,
                        discarded: st.discarded,
                    }),
                    red_mean_avg_bytes: dir.red().map(|r| {
                        let st = r.stats();
                        if st.arrivals == 0 {
                            0.0
                        } else {
                            st.avg_sum / st.arrivals as f64
                        }
                    }),
                    still_in_network: dir.in_system(),
                    conserved: dir.conserves_packets(),
                }
            })
            .collect();
        let mut summary = Summary {
            run: RunInfo {
                scenario: spec.name.clone(),
                seed: spec.seed,
                vho_version: env!("CARGO_PKG_VERSION"),
                scenario_hash: String::new(),
                events: self.events,
                simulated_s: self.now.as_secs_f64(),
                ended_by: ended.name(),
                peak_packets_in_network: self.slab.capacity_used(),
                conservation_ok: links.iter().all(|l| l.conserved),
                warnings: Vec::new(),
            },
            flows,
            handovers,
            links,
            node_functions: self
                .functions
                .iter()
                .enumerate()
                .flat_map(|(n, fns)| {
                    fns.chain.iter().map(move |f| NodeFunctionSummary {
                        node: spec.nodes[n].name.clone(),
                        kind: f.kind(),
                        counters: f.counters().into_iter().collect(),
                    })
                })
                .collect(),
            nemo: self.nemo_summary(),
        };
        summary.run.warnings = warnings(&summary, ended);
        let tcp_series = self.flows.iter_mut().map(|f| f.series.take()).collect();
        let tfrc_series = self
            .flows
            .iter_mut()
            .map(|f| f.tfrc.as_mut().and_then(|t| t.series.take()))
            .collect();
        let probe_series = self
            .flows
            .iter_mut()
            .map(|f| match f.tfrc.as_mut() {
                Some(t) => t.probe_series.take(),
                None => f.probe_series.take(),
            })
            .collect();
        let rx_bins = self.flows.iter().map(|f| f.rx_bins.clone()).collect();
        let cross_bins = self
            .cross
            .iter_mut()
            .map(|c| c.as_mut().map(|c| std::mem::take(&mut c.bins)))
            .collect();
        let taps = std::mem::take(&mut self.taps);
        RunOutput {
            summary,
            tcp_series,
            tfrc_series,
            cross_bins,
            probe_series,
            queue_series: self.queue_series.take(),
            drop_series: self.drop_series.take(),
            rx_bins,
            taps,
        }
    }
}

/// The run's warnings (see [`RunInfo::warnings`]).
fn warnings(s: &Summary, ended: super::EndedBy) -> Vec<String> {
    let end = s.run.simulated_s;
    let mut out = Vec::new();
    for (i, h) in s.handovers.iter().enumerate() {
        if !h.happened {
            out.push(format!(
                "handover {i} ({} -> {} at {} s) not reached: the run ended at {end:.3} s",
                h.from, h.to, h.at_s
            ));
        }
    }
    let stuck: Vec<&str> = s
        .flows
        .iter()
        // A TFRC flow does not retransmit, cross traffic has no end: both run to the stop
        // time by design.
        .filter(|f| !f.completed && f.tfrc.is_none() && f.cross.is_none())
        .map(|f| f.name.as_str())
        .collect();
    match ended {
        super::EndedBy::Completed => {}
        _ if stuck.is_empty() => {}
        super::EndedBy::StopTime => out.push(format!(
            "stopped by run.stop at {end:.3} s before flow {} completed; to let it run longer: \
             --set run.stop=\"{:.0} s\"",
            stuck.join(", "),
            (2.0 * end).max(1.0)
        )),
        super::EndedBy::Idle => out.push(format!(
            "nothing was left to happen at {end:.3} s: flow {} cannot complete",
            stuck.join(", ")
        )),
    }
    out
}

/// A probe's record: its pairs (measured, refused), final estimate and detections, each
/// with its time from the nearest handover's instant.
pub(super) fn probe_summary(
    (pairs, pairs_refused): (u64, u64),
    final_estimate_bps: Option<u64>,
    detections: impl Iterator<Item = (crate::probe::Handoff, Option<crate::probe::Action>)>,
    handovers: &[Time],
) -> ProbeSummary {
    let nearest = |at: Time| {
        handovers
            .iter()
            .map(|&h| at.as_secs_f64() - h.as_secs_f64())
            .min_by(|a, b| a.abs().total_cmp(&b.abs()))
    };
    ProbeSummary {
        pairs,
        pairs_refused,
        final_estimate_bps,
        detections: detections
            .map(|(h, action)| DetectionSummary {
                at_s: h.at.as_secs_f64(),
                by: h.by.name(),
                direction: h.direction.name(),
                from_bps: h.from_bps,
                to_bps: h.to_bps,
                action: action.map(|a| a.name()),
                after_handover_s: nearest(h.at),
            })
            .collect(),
    }
}
