//! `red`: Random Early Detection on the wireless link queues, "at both endpoints of the
//! wireless link" (thesis §7.1.5: "RED drops packets before the queues are filled up";
//! §8.1, §8.2; its ref. [30] is RFC 2309). Both directions of every access link of the
//! mobile host the flow runs to or from get ns-2.35's RED (`link::red`) with the automatic
//! parameters, unless the scenario already gave that direction RED with its own.

use crate::spec::{QueueModel, Spec};

pub const RED: &str = "RED (ns-2.35's Queue/RED, automatic parameters) on both directions of \
                       the mobile's access links, \"at both endpoints of the wireless link\" \
                       (thesis §7.1.5, §8.2; RFC 2309)";

pub fn apply(spec: &mut Spec, flow: usize) {
    let f = &spec.flows[flow];
    let ends = [f.src, f.dst];
    for m in &spec.mobiles {
        if !ends.contains(&m.node) {
            continue;
        }
        for &l in &m.interfaces {
            let link = &mut spec.links[l];
            link.ab.queue_model = QueueModel::Red;
            link.ba.queue_model = QueueModel::Red;
        }
    }
}
