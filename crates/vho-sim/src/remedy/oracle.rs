//! `oracle` and `oracle-system`: the bound every remedy is measured against (issue 19 item 3;
//! the digest's §4). `oracle` is the sender-oracle (`tcp::oracle`): the flow's own stack until
//! a handover, then the world's ground truth of the new path and of every drop, and no loss of
//! its own making. `oracle-system` adds `flush-on-handover`: at a soft handover to a faster
//! link the old link's waiting packets move to the new one, which the sender-oracle cannot do
//! (digest §4.4: after PPP -> WaveLAN "the rwnd is full of segments queued at the HA's PPP
//! buffer").
//!
//! The digest (and the brief) moved the queue whatever the direction of the rate change.
//! Towards a slower link that only delays the packets, and the system-oracle then lost to the
//! sender-oracle and to `frto` (thesis example, WaveLAN -> GSM: 196.9 s against 185.2 s and
//! 192.3 s; `vho run scenarios/examples/thesis-wavelan-gsm.toml --set
//! 'flow.0.remedies=["oracle-system"]'` with the queue moved both ways), so it is not a bound.
//! An oracle of the system moves the queue where the move pays: to a faster link.

use super::{flush, Remedy};
use crate::spec::Spec;

pub const ORACLE: &str = "the bound: the flow's own TCP until a handover, then told the new \
                          path's rate and base RTT at the instant (SRTT, RTO, cwnd = capacity \
                          + 1 segment, paced at the bottleneck rate), it resends only what the \
                          network really dropped, one base RTT after the drop, and never fills \
                          a queue (vho's bound for every remedy: docs/design/issue-19-oracle.md; the \
                          thesis §7.1.3)";
pub const ORACLE_SYSTEM: &str = "oracle, and flush-on-handover: at a soft handover to a faster \
                                 link the old link's waiting packets move to the new one \
                                 (the thesis §7.2: after GSM -> WaveLAN the window is full of segments \
                                 queued on the old link)";

pub fn apply(r: Remedy, spec: &mut Spec, flow: usize) {
    spec.flows[flow].tcp.oracle = true;
    if r == Remedy::OracleSystem {
        flush::apply(spec, flow);
    }
}
