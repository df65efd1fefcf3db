//! The remedies that act on the handover notification (`handover.notify`): `rto-reset`
//! (thesis §8.1), `new-path` (thesis §7.1.5; Daniel & Kojo §8), `rtt-injection`
//! (Cottingham & Vidales §7) and `adaptive-dupthresh` (Daniel & Kojo §2). Each switches its TCP
//! response on and, where the flow's mobile does not announce its handovers yet, makes it
//! announce them at the instant.

use super::Remedy;
use crate::spec::Spec;

/// `handover.notify_offset` when not given: how long before (or after) the instant a
/// `before` (`after`) notification comes. vho's choice: the sources give no figure (Chen et
/// al. raise it on a link-layer trigger, the thesis proposes it without timing).
pub const DEFAULT_NOTIFY_OFFSET_MS: u64 = 100;

pub const RTO_RESET: &str = "on the handover notification reset the RTO to its initial value \
                             and forget the RTT estimate (thesis §8.1)";
pub const RTT_INJECTION: &str = "before the handover raise the RTT estimate to the one last \
                                 measured on the interface taken, plus 25 % (Cottingham & \
                                 Vidales §7); nothing on an interface's first visit";
pub const NEW_PATH: &str = "on the handover notification start over as a new connection: \
                            RTO, cwnd and ssthresh initial (thesis §7.1.5; Daniel & Kojo §8)";

pub const ADAPTIVE_DUPTHRESH: &str = "on a notification of a handover to a faster link raise \
                                      the duplicate-ACK threshold to the segments outstanding, \
                                      back to its value once they are acknowledged: segments \
                                      still on the slower path trigger no fast retransmit \
                                      (Daniel & Kojo §2; Hansmann & Frank's rule, their [5], \
                                      unverified; RFC 4653's form)";

pub fn apply(r: Remedy, spec: &mut Spec, flow: usize) {
    let f = &mut spec.flows[flow];
    // Cottingham & Vidales §7 inject "before the connection is handed off": the
    // notification comes ahead of the instant; the others act at it.
    let when = match r {
        Remedy::RtoReset => {
            f.tcp.rto_reset = true;
            0
        }
        Remedy::NewPath => {
            f.tcp.new_path = true;
            0
        }
        Remedy::AdaptiveDupthresh => {
            f.tcp.adaptive_dupthresh = true;
            0
        }
        Remedy::RttInjection => {
            f.tcp.rtt_injection = true;
            -((DEFAULT_NOTIFY_OFFSET_MS * 1_000_000) as i64)
        }
        _ => return,
    };
    let ends = [f.src, f.dst];
    for h in &mut spec.handovers {
        if ends.contains(&spec.mobiles[h.mobile].node) && h.notify.is_none() {
            h.notify = Some(when);
        }
    }
}
