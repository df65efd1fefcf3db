//! The remedies that act on the handover notification (`handover.notify`): `rto-reset`
//! (thesis §8.1) and `new-path` (thesis §7.1.5; Daniel & Kojo §8). Each switches its TCP
//! response on and, where the flow's mobile does not announce its handovers yet, makes it
//! announce them at the instant.

use super::Remedy;
use crate::spec::Spec;

pub const RTO_RESET: &str = "on the handover notification reset the RTO to its initial value \
                             and forget the RTT estimate (thesis §8.1)";
pub const NEW_PATH: &str = "on the handover notification start over as a new connection: \
                            RTO, cwnd and ssthresh initial (thesis §7.1.5; Daniel & Kojo §8)";

pub fn apply(r: Remedy, spec: &mut Spec, flow: usize) {
    let f = &mut spec.flows[flow];
    match r {
        Remedy::RtoReset => f.tcp.rto_reset = true,
        Remedy::NewPath => f.tcp.new_path = true,
        _ => return,
    }
    let ends = [f.src, f.dst];
    for h in &mut spec.handovers {
        if ends.contains(&spec.mobiles[h.mobile].node) && h.notify.is_none() {
            h.notify = Some(0);
        }
    }
}
