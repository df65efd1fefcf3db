//! Driving the node functions (`net::function`): building them from the spec, handing them
//! the packets their node forwards, releasing what they hold, waking them when they asked.
//!
//! A node's functions run in the order the spec lists them. A packet a function holds and
//! later releases is routed afresh (a handover meanwhile sends it over the new link) and goes
//! on through the functions after the one that held it.

use super::{Event, World};
use crate::link::queue::Limit;
use crate::link::{DropCause, LinkDir};
use crate::net::flow_control::LinkFlowControl;
use crate::net::function::{AnyFunction, Fabric, Hop, LinkView, PathTiming, Verdict};
use crate::net::routes::{dir_link, DirIdx, Routes, NO_ROUTE};
use crate::net::tunnel::IpInIp;
use crate::net::window_clamp::WindowClamp;
use crate::packet::PktIdx;
use crate::spec::{FunctionKind, NodeIdx, Spec};
use crate::time::Time;

/// The world as a node sees it: its routes and its links, brought up to the present by the
/// caller.
struct NodeFabric<'a> {
    node: NodeIdx,
    routes: &'a Routes,
    dirs: &'a [LinkDir],
}

impl Fabric for NodeFabric<'_> {
    fn route(&self, dst: NodeIdx) -> Option<DirIdx> {
        self.routes.next_hop(self.node, dst)
    }
    fn link(&self, d: DirIdx) -> LinkView {
        let dir = &self.dirs[d as usize];
        LinkView {
            rate_bps: dir.rate_bps(),
            waiting_bytes: dir.queue.bytes(),
            waiting_packets: dir.queue.len(),
            limit: dir.queue.limit(),
            next_dequeue: dir.next_dequeue(),
        }
    }
}

/// A node's functions and its pending wake-up.
#[derive(Default)]
pub(super) struct NodeFunctions {
    pub(super) chain: Vec<AnyFunction>,
    wake: Option<Time>,
    /// The directions leaving the node (brought up to date before a function looks).
    out: Vec<DirIdx>,
}

impl NodeFunctions {
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.chain.is_empty()
    }
}

/// Every node's functions, and the one flag the forwarding path tests for them.
pub(super) struct Functions {
    nodes: Vec<NodeFunctions>,
    /// Whether the forwarding path must offer packets to the node functions' path
    /// (`World::forward_from`): some node has a function, or (`World::multihome`) outside
    /// packets may be pinned to their link. Off, a packet goes straight to its route.
    pub(super) any: bool,
}

impl std::ops::Deref for Functions {
    type Target = [NodeFunctions];
    #[inline(always)]
    fn deref(&self) -> &[NodeFunctions] {
        &self.nodes
    }
}

impl std::ops::DerefMut for Functions {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [NodeFunctions] {
        &mut self.nodes
    }
}

impl World {
    /// Sends what node `node`'s functions originate now, then re-arms its wake-up.
    pub(super) fn pump_functions(&mut self, node: NodeIdx) {
        for i in 0..self.functions[node].chain.len() {
            while let Some(p) = self.functions[node].chain[i].poll_transmit() {
                let idx = self.slab.insert(p);
                if p.is_tcp() {
                    self.note_copy(idx);
                }
                if self.rec.captures(node) {
                    let pkt = *self.slab.get(idx);
                    self.tap(node, &pkt);
                }
                self.forward_from(node, idx, None, i + 1);
            }
        }
        self.release_held(node);
    }

    /// Tells node `node`'s functions the time (each acts on what is due), then lets them send.
    pub(super) fn wake_functions(&mut self, node: NodeIdx) {
        let now = self.now;
        for f in &mut self.functions[node].chain {
            f.handle_timeout(now);
        }
        self.pump_functions(node);
    }

    /// Runs node `node`'s functions from the `first`-th on packet `idx`, bound for `egress`.
    /// True when the packet goes on to the link; false when a function held or dropped it.
    pub(super) fn run_functions(
        &mut self,
        node: NodeIdx,
        idx: PktIdx,
        ingress: Option<DirIdx>,
        egress: DirIdx,
        first: usize,
    ) -> bool {
        let mut egress = egress;
        if egress != NO_ROUTE {
            self.advance(egress);
        }
        for i in first..self.functions[node].chain.len() {
            if self.routes.by_address() && i > first {
                // Routed by address, a function may have readdressed it (a Mobile IPv6
                // tunnel, a care-of address).
                egress = self.egress(node, idx).unwrap_or(NO_ROUTE);
            }
            let hop = Hop { ingress, egress };
            let fabric = NodeFabric {
                node,
                routes: &self.routes,
                dirs: &self.dirs,
            };
            let pkt = self.slab.get_mut(idx);
            let verdict = self.functions[node].chain[i].on_packet(self.now, idx, pkt, hop, &fabric);
            if self.functions[node].chain[i].has_output() {
                // A home agent's bicast copy leaves with the packet it copies.
                self.pump_functions(node);
            }
            match verdict {
                Verdict::Pass => {}
                Verdict::Hold => {
                    self.arm_functions(node);
                    return false;
                }
                Verdict::Drop => {
                    self.free_dropped(idx, Some(egress), DropCause::QueueOverflow);
                    return false;
                }
                Verdict::Absorb => {
                    self.absorb_copy(idx);
                    self.arm_functions(node);
                    return false;
                }
            }
        }
        true
    }

    /// Lets node `node`'s functions release what may go on now, then re-arms its wake-up.
    pub(super) fn release_held(&mut self, node: NodeIdx) {
        for i in 0..self.functions[node].chain.len() {
            loop {
                self.advance_out(node);
                let fabric = NodeFabric {
                    node,
                    routes: &self.routes,
                    dirs: &self.dirs,
                };
                let Some(idx) = self.functions[node].chain[i].poll_release(self.now, &fabric)
                else {
                    break;
                };
                self.forward_from(node, idx, None, i + 1);
            }
        }
        self.arm_functions(node);
    }

    pub(super) fn on_node_wake(&mut self, node: NodeIdx) {
        let fns = &mut self.functions[node];
        if fns.wake == Some(self.now) {
            fns.wake = None;
        }
        self.wake_functions(node);
    }

    /// After the routes changed: every node holding packets looks again.
    pub(super) fn routes_changed(&mut self) {
        for node in 0..self.functions.len() {
            if self.functions[node].chain.iter().any(|f| f.holds()) {
                self.release_held(node);
            }
        }
    }

    fn advance_out(&mut self, node: NodeIdx) {
        for k in 0..self.functions[node].out.len() {
            let d = self.functions[node].out[k];
            self.advance(d);
        }
    }

    /// Schedules node `node`'s wake-up for the earliest instant one of its functions asked.
    pub(super) fn arm_functions(&mut self, node: NodeIdx) {
        self.advance_out(node);
        let fabric = NodeFabric {
            node,
            routes: &self.routes,
            dirs: &self.dirs,
        };
        let fns = &self.functions[node];
        let Some(t) = fns
            .chain
            .iter()
            .filter_map(|f| f.poll_timeout(&fabric))
            .min()
        else {
            return;
        };
        let t = t.max(self.now);
        let fns = &mut self.functions[node];
        if fns.wake.is_none_or(|w| t < w || w < self.now) {
            fns.wake = Some(t);
            self.queue.schedule(t, Event::NodeWake(node as u32));
        }
    }
}

impl Functions {
    /// The nodes' functions as built (`build`, then `world::mip::attach`).
    pub(super) fn new(nodes: Vec<NodeFunctions>) -> Self {
        let any = nodes.iter().any(|f| !f.is_empty());
        Functions { nodes, any }
    }
}

/// Builds every node's functions from the spec.
pub(super) fn build(spec: &Spec, dirs: &[LinkDir]) -> Vec<NodeFunctions> {
    let mut out: Vec<NodeFunctions> = (0..spec.nodes.len())
        .map(|_| NodeFunctions::default())
        .collect();
    for (node, fns) in out.iter_mut().enumerate() {
        fns.out = (0..dirs.len() as DirIdx)
            .filter(|&d| dirs[d as usize].from == node)
            .collect();
    }
    for fs in &spec.functions {
        let f = match fs.kind {
            FunctionKind::WindowClamp => {
                // Keyed by the direction the clamped segment (an ACK) crosses.
                let timing = (0..dirs.len() as DirIdx)
                    .map(|d| {
                        let dir = &dirs[d as usize];
                        (dir.from == fs.node || dir.to == fs.node)
                            .then(|| best_timing(spec, dirs, d, Crossing::Acks))
                            .flatten()
                            .map(|(t, _)| t)
                    })
                    .collect();
                let link_of = (0..dirs.len() as DirIdx)
                    .map(|d| {
                        let dir = &dirs[d as usize];
                        let access = spec
                            .mobiles
                            .iter()
                            .any(|m| m.interfaces.contains(&dir_link(d)));
                        (access && (dir.from == fs.node || dir.to == fs.node))
                            .then_some(dir_link(d))
                    })
                    .collect();
                let mut clamp = WindowClamp::new(timing, link_of);
                for (f, flow) in spec.flows.iter().enumerate() {
                    if !flow.tcp.handshake {
                        // No SYN to read the scale from: both ends scale as configured
                        // (tcp::options::Negotiated::assumed).
                        let ws = flow.tcp.window_scale.unwrap_or(0);
                        let port = |base: u16| base.wrapping_add(f as u16);
                        clamp.know(
                            (flow.src as u32, port(crate::agent::tcp::SENDER_PORT_BASE)),
                            ws,
                            (flow.dst as u32, port(crate::agent::tcp::RECEIVER_PORT_BASE)),
                            ws,
                        );
                    }
                }
                AnyFunction::WindowClamp(clamp)
            }
            FunctionKind::LinkFlowControl => {
                let budget: Vec<Option<u64>> = (0..dirs.len() as DirIdx)
                    .map(|d| {
                        (dirs[d as usize].from == fs.node)
                            .then(|| best_timing(spec, dirs, d, Crossing::Data))
                            .flatten()
                            .map(|(t, mss)| t.bdp_bytes(mss))
                    })
                    .collect();
                // The largest limit among the governed directions, compared as bytes of
                // full-sized packets (the `bdp` rule's default MTU).
                let as_bytes = |l: Limit| match l {
                    Limit::Packets(n) => n as u64 * 1500,
                    Limit::Bytes(b) => b,
                };
                let capacity = budget
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.is_some())
                    .map(|(d, _)| dirs[d].queue.limit())
                    .max_by_key(|&l| as_bytes(l))
                    .unwrap_or(Limit::Packets(0));
                AnyFunction::LinkFlowControl(LinkFlowControl::new(budget, capacity))
            }
            FunctionKind::IpInIp => {
                let towards_mobile = (0..dirs.len())
                    .map(|d| {
                        let dir = &dirs[d];
                        dir.from == fs.node
                            && spec.mobiles.iter().any(|m| {
                                m.node == dir.to && m.interfaces.contains(&dir_link(d as DirIdx))
                            })
                    })
                    .collect();
                AnyFunction::IpInIp(IpInIp::new(towards_mobile))
            }
        };
        out[fs.node].chain.push(f);
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Crossing {
    Data,
    Acks,
}

/// For direction `d` of a mobile host's access link: the timing of the flow path whose data
/// (or whose ACKs) cross `d` with the mobile on that link, the one with the longest
/// propagation round trip, and that flow's MSS. `None` for a direction of a wired link or one
/// no flow crosses.
fn best_timing(
    spec: &Spec,
    dirs: &[LinkDir],
    d: DirIdx,
    crossing: Crossing,
) -> Option<(PathTiming, u32)> {
    let link = dir_link(d);
    if !spec.mobiles.iter().any(|m| m.interfaces.contains(&link)) {
        return None;
    }
    let ends: Vec<(NodeIdx, NodeIdx)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
    let routes = super::build::routes_via(spec, &ends, link);
    let dir_to = |x: DirIdx| dirs[x as usize].to;
    let spec_of = |x: DirIdx| super::build::dir_spec(spec, x);
    let mut best: Option<(PathTiming, u32)> = None;
    for f in &spec.flows {
        let (Some(data), Some(acks)) = (
            routes.path(f.src, f.dst, dir_to),
            routes.path(f.dst, f.src, dir_to),
        ) else {
            continue;
        };
        let crosses = match crossing {
            Crossing::Data => &data,
            Crossing::Acks => &acks,
        };
        if !crosses.contains(&d) {
            continue;
        }
        let s_per_byte = |p: &[DirIdx]| {
            p.iter()
                .map(|&x| 8.0 / spec_of(x).rate_bps.max(1) as f64)
                .sum::<f64>()
        };
        let timing = PathTiming {
            rate_bps: data.iter().map(|&x| spec_of(x).rate_bps).min().unwrap_or(0),
            propagation_rtt: data
                .iter()
                .chain(&acks)
                .fold(crate::time::Dur::ZERO, |acc, &x| acc + spec_of(x).delay),
            data_s_per_byte: s_per_byte(&data),
            ack_s_per_byte: s_per_byte(&acks),
        };
        if best.is_none_or(|(b, _)| timing.propagation_rtt > b.propagation_rtt) {
            best = Some((timing, f.tcp.mss));
        }
    }
    best
}
