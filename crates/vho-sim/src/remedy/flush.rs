//! `flush-on-handover`: at a soft handover the packets waiting in the old link's queue (at
//! the home agent going down, at the mobile going up) move to the new link instead of draining
//! over the old one (thesis §7.2.3: after PPP -> WaveLAN the home agent's PPP queue drained for
//! about 15 s while WaveLAN idled; §8.1). The thesis proposed discarding them; `move` loses
//! nothing, and a scenario can ask for `discard` with `[[handover]] flush = "discard"`.

use crate::spec::{Flush, HandoverKind, Spec};

pub const FLUSH_ON_HANDOVER: &str = "at a soft handover to a faster link move the packets \
                                     waiting on the old link to the new one (thesis §7.2.3, \
                                     §8.1)";

/// Every soft handover to a faster link of the mobile the flow runs to or from, not already
/// flushing. The thesis proposes it "in the case of a handover from the slower PPP link to
/// WaveLAN" (§7.2.3); moving a fast link's queue onto a slow one only delays it (the thesis
/// reproduction measured new data flowing again 41 s after WaveLAN -> GSM instead of 24 s).
pub fn apply(spec: &mut Spec, flow: usize) {
    let f = &spec.flows[flow];
    let ends = [f.src, f.dst];
    let rate = |l: usize| spec.links[l].ab.rate_bps.max(spec.links[l].ba.rate_bps);
    let faster: Vec<bool> = spec
        .handovers
        .iter()
        .map(|h| rate(h.to) > rate(h.from))
        .collect();
    for (h, faster) in spec.handovers.iter_mut().zip(faster) {
        let mobile = spec.mobiles[h.mobile].node;
        if faster
            && ends.contains(&mobile)
            && h.kind == HandoverKind::SoftDrainOld
            && h.flush == Flush::Off
        {
            h.flush = Flush::Move;
        }
    }
}
