//! `cwnd-clamp` and `link-flow-control`: remedies that are functions of the node in front of
//! the mobile host's access links (the home agent), not changes to TCP
//! (`net::window_clamp`, `net::flow_control`). Applying one adds the node function to every
//! router at the far end of an access link of the mobile the flow runs to or from, so the
//! resolved scenario shows it as a `[[node_function]]`.

use crate::spec::{FunctionKind, FunctionSpec, NodeKind, Spec};

pub const CWND_CLAMP: &str = "at the home agent, rewrite the window advertised to the sender to \
                              the access link's bandwidth-delay product plus one segment \
                              (Cottingham & Vidales §7, after Chakravorty et al.; thesis \
                              §7.1.3): the node function window-clamp";
pub const LINK_FLOW_CONTROL: &str = "at the home agent, keep each access link's device queue \
                                     within its bandwidth-delay product and hold the rest in an \
                                     IP-layer queue routed on leaving it, so a handover takes \
                                     it to the new link (thesis §7.2.3, §8.1): the node \
                                     function link-flow-control";

pub fn apply(kind: FunctionKind, spec: &mut Spec, flow: usize) {
    let f = &spec.flows[flow];
    let ends = [f.src, f.dst];
    let mut nodes = Vec::new();
    for m in spec.mobiles.iter().filter(|m| ends.contains(&m.node)) {
        for &l in &m.interfaces {
            let link = &spec.links[l];
            let far = if link.a == m.node { link.b } else { link.a };
            if spec.nodes[far].kind == NodeKind::Router && !nodes.contains(&far) {
                nodes.push(far);
            }
        }
    }
    for node in nodes {
        let fs = FunctionSpec { node, kind };
        if !spec.functions.contains(&fs) {
            spec.functions.push(fs);
        }
    }
}
