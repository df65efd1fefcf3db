//! The run's summary (`summary.json`): per flow, per handover, per link direction, and the
//! run itself. Field order is fixed by the structs, so the JSON is byte-identical for the
//! same scenario and seed. The wall-clock time is not here: the driver writes it apart.

use super::{RunOutput, World};
pub use crate::agent::tcp::{OracleSummary, TcpCounts};
pub use crate::agent::KindRecord;
pub use crate::agent::{CbrSummary, TfrcSummary};
use crate::link::DropCause;
pub use crate::probe::summary::{probe_summary, DetectionSummary, ProbeSummary};
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

/// A flow's record: what every flow has (its ledger), and its kind's own numbers (its two
/// agents' record read together, `agent::summarise`).
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    /// "tcp", "tfrc", "pareto", "cbr" or "mptcp" (`[[flow]] kind`).
    pub kind: &'static str,
    /// A TCP flow's profile (absent for the other kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_profile: Option<&'static str>,
    /// The flow's size, bytes; `null` for a flow that sends until the run ends.
    pub bytes: Option<u64>,
    /// Bytes the receiving end delivered in order (TCP), or received (TFRC, CBR; cross
    /// traffic's sink counts wire bytes in `cross`).
    pub bytes_delivered: u64,
    pub completed: bool,
    pub start_s: f64,
    /// From the flow's start to the last byte delivered in order at the receiver.
    pub transfer_time_s: Option<f64>,
    pub goodput_bps: Option<f64>,
    /// A TCP flow's counts (absent for the other kinds).
    #[serde(flatten)]
    pub tcp: Option<TcpCounts>,
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
    /// Another kind's record under its own key: `tfrc` (`kind = "tfrc"`), `cross`
    /// (`kind = "pareto"`), `cbr` (`kind = "cbr"`), `mptcp` (`kind = "mptcp"`); absent for
    /// TCP.
    #[serde(flatten)]
    pub record: Option<KindRecord>,
    /// TCP Probe's or TFRC Probe's record (Chen et al. §3; `null` without the probe).
    pub probe: Option<ProbeSummary>,
}

impl FlowSummary {
    /// A TCP flow's counts (a test's or a bench's shorthand).
    ///
    /// # Panics
    /// On a flow of another kind.
    pub fn tcp(&self) -> &TcpCounts {
        self.tcp.as_ref().expect("a TCP flow")
    }
    /// A TFRC flow's record.
    pub fn tfrc(&self) -> Option<&TfrcSummary> {
        match &self.record {
            Some(KindRecord::Tfrc(t)) => Some(t),
            _ => None,
        }
    }
    /// A cross-traffic flow's record.
    pub fn cross(&self) -> Option<&super::CrossSummary> {
        match &self.record {
            Some(KindRecord::Cross(c)) => Some(c),
            _ => None,
        }
    }
    /// An MPTCP flow's record.
    pub fn mptcp(&self) -> Option<&crate::agent::MptcpSummary> {
        match &self.record {
            Some(KindRecord::Mptcp(m)) => Some(m),
            _ => None,
        }
    }
    /// A CBR flow's record.
    pub fn cbr(&self) -> Option<&CbrSummary> {
        match &self.record {
            Some(KindRecord::Cbr(c)) => Some(c),
            _ => None,
        }
    }
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
            let dropped = flow.drops.iter().flatten().sum();
            let kind =
                crate::agent::summarise(&flow.agents, fs, self.now, dropped, &handover_instants);
            let tcp = kind.tcp;
            flows.push(FlowSummary {
                name: fs.name.clone(),
                from: node(fs.src),
                to: node(fs.dst),
                kind: fs.kind.name(),
                tcp_profile: tcp.as_ref().map(|t| t.profile),
                bytes: (fs.bytes != u64::MAX).then_some(fs.bytes),
                bytes_delivered: flow.delivered,
                completed: flow.completed_at.is_some(),
                start_s: fs.start.as_secs_f64(),
                transfer_time_s: transfer,
                goodput_bps: transfer
                    .filter(|&t| t > 0.0)
                    .map(|t| fs.bytes as f64 * 8.0 / t),
                drops,
                // Cottingham & Vidales §5, over the data the receiver got (vho-trace's method).
                adaptation_time_s: flow.tput.adaptation_time_s(),
                first_on_new_link_s: flow.first_on_new_link.map(|t| t.as_secs_f64()),
                window_goodput_bps: flow.window.map(|w| w.goodput_bps()),
                dupthresh_raises: tcp.as_ref().and_then(|t| t.dupthresh_raises),
                oracle: tcp.as_ref().and_then(|t| t.oracle.clone()),
                tcp: tcp.map(|t| t.counts),
                record: kind.record,
                probe: kind.probe,
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
            .zip(self.handovers.iter())
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
        let series = self
            .flows
            .iter_mut()
            .map(|f| {
                let [a, b] = &mut f.agents;
                crate::agent::AgentSeries::merge(a.take_series(), b.take_series())
            })
            .collect();
        let rx_bins = self.flows.iter().map(|f| f.rx_bins.clone()).collect();
        let taps = std::mem::take(&mut self.rec.taps);
        RunOutput {
            summary,
            series,
            queue_series: self.rec.queues.take(),
            drop_series: self.rec.drops.take(),
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
        // A flow without a size (TFRC's, cross traffic's, CBR's by default) runs to the stop
        // time by design.
        .filter(|f| !f.completed && f.bytes.is_some())
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
