//! What a run says of a probe (TCP Probe or TFRC Probe, Chen et al. §3): its pairs, its
//! estimate and the handoffs its sender learnt of, each with its time from the nearest
//! handover (`summary.json`'s `flows[].probe`).

use crate::time::Time;
use serde::Serialize;

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

/// A probe's record: its pairs (measured, refused), final estimate and detections, each
/// with its time from the nearest handover's instant.
pub fn probe_summary(
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
