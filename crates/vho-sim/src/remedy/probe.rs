//! The remedies of Chen et al. (the seed 004), for TFRC Probe (`tfrc::probe`) and TCP Probe
//! (`tcp::sender::probe`): `probe` (the packet pairs and the capacity estimate alone: the
//! paper's "original TCP/TFRC Probe"), `ihn` and
//! `ehn` (who tells the sender of a handoff), `fra` and `err` (what it does then). Each switches
//! its part of `FlowSpec::probe` on, and the probe with it; `ehn`, where the flow's mobile does
//! not announce its handovers yet, makes it announce them at the instant (EHN(a); for EHN(b)
//! give `handover.notify = "before"` with `notify_offset` one one-way delay).

use super::Remedy;
use crate::spec::Spec;

pub const PROBE: &str = "capacity probing with CapProbe's minimum delay-sum filter: TFRC \
                         Probe sends a back-to-back pair every n = 20 packets and the receiver's \
                         estimate rides on its feedback (Chen et al. §3.1); TCP Probe times the \
                         ACKs of the back-to-back segments TCP sends (§3.2); [flow.probe] sets \
                         n, the window, alpha and beta";
pub const IHN: &str = "implicit handoff notification: a capacity estimate above alpha = 5 or \
                       below beta = 0.2 times the previous one is a LOW-to-HIGH or HIGH-to-LOW \
                       handoff (Chen et al. §3.3)";
pub const EHN: &str = "explicit handoff notification: the mobile's handover manager tells the \
                       sender, with both interfaces' nominal rates, at handover.notify (Chen et \
                       al. §4: EHN(a) at the handoff, EHN(b) one one-way delay before)";
pub const FRA: &str = "fast rate adaptation on a LOW-to-HIGH handoff: slow start (TCP: \
                       ssthresh back to its initial value; TFRC: the rate doubling once per RTT \
                       until the first loss, then halved; flow.probe.fra_cap stops it at the \
                       new capacity) (Chen et al. §3.3)";
pub const ERR: &str = "early rate reduction on a HIGH-to-LOW handoff: the rate R to R*C2/C1 \
                       (TCP: cwnd and ssthresh; TFRC: X, held until reports describe packets \
                       sent after the cut) (Chen et al. §4)";

/// Whether `r` is one of these (the only remedies a TFRC flow takes).
pub fn is_probe_remedy(r: Remedy) -> bool {
    matches!(
        r,
        Remedy::Probe | Remedy::Ihn | Remedy::Ehn | Remedy::Fra | Remedy::Err
    )
}

pub fn apply(r: Remedy, spec: &mut Spec, flow: usize) {
    let f = &mut spec.flows[flow];
    f.probe.enabled = true;
    match r {
        Remedy::Ihn => f.probe.ihn = true,
        Remedy::Ehn => f.probe.ehn = true,
        Remedy::Fra => f.probe.fra = true,
        Remedy::Err => f.probe.err = true,
        _ => {}
    }
    if r == Remedy::Ehn {
        let ends = [f.src, f.dst];
        for h in &mut spec.handovers {
            if ends.contains(&spec.mobiles[h.mobile].node) && h.notify.is_none() {
                h.notify = Some(0);
            }
        }
    }
}
