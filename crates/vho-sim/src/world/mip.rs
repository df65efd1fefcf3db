//! Driving Mobile IPv6 (`crate::mip`): the run's addresses and routes to them, the protocol
//! entities at their nodes, packets addressed to a node's care-of address or through a tunnel
//! it ends (their headers are `mip::inbound`'s business; the world does what it answers), and
//! a handover as a link event the mobile node reacts to with signalling.
//!
//! Routing in a Mobile IPv6 run is by address. Each care-of address is reached over its own
//! access link (the route table is computed over the graph in which each access link ends at
//! the care-of address rather than at the mobile), a home address is routed to its home agent,
//! and a mobile sends each packet over the interface its source address belongs to.

use super::handover::Mechanism;
use super::World;
use crate::link::DropCause;
use crate::mip::correspondent::Correspondent;
use crate::mip::home_agent::HomeAgent;
use crate::mip::inbound::{self, Inbound};
use crate::mip::mobile::{HandoverTimes, IfaceSetup, MobileNode};
use crate::mip::router::AccessRouter;
use crate::mip::{Addr, Addresses, MipSpec};
use crate::net::function::AnyFunction;
use crate::net::routes::{dir_index, DirIdx, Routes, NO_ROUTE};
use crate::packet::PktIdx;
use crate::rng::Rng;
use crate::spec::{HandoverKind, InFlight, LinkIdx, NodeIdx, Spec};

/// What a Mobile IPv6 run keeps beside the world.
pub(super) struct MipWorld {
    pub(super) addresses: Addresses,
    /// Link ends with each mobile's access links ending at the care-of address.
    route_ends: Vec<(NodeIdx, NodeIdx)>,
    home_agent: NodeIdx,
    /// The mobile nodes, in `Spec::mobiles` order.
    mobiles: Vec<NodeIdx>,
    /// A mobile router's network (`world::nemo`).
    network: super::nemo::NetworkRoutes,
}

impl MipWorld {
    /// Routes to every address over the links up now.
    pub(super) fn routes(&self, up: &[bool]) -> Routes {
        let mut r = Routes::compute(self.addresses.count(), &self.route_ends, up);
        r.route_by_address();
        for &m in &self.mobiles {
            r.alias(m, self.home_agent);
        }
        super::nemo::route(&mut r, &self.network, self.home_agent);
        r
    }
}

/// The links up at time zero in a Mobile IPv6 run: the mobiles' interfaces attached then
/// (`[mipv6] attached`) come up beside the initial one; `up` unchanged in any other run.
pub(super) fn initial_up(spec: &Spec, up: &mut [bool]) {
    let Some(mip) = &spec.mipv6 else { return };
    for (m, ms) in spec.mobiles.iter().enumerate() {
        for &l in &ms.interfaces {
            up[l] = mip.attached.get(m).is_none_or(|a| a.contains(&l)) || l == ms.initial;
        }
    }
}

/// How the run's handovers are carried out: with `[mipv6]` the link layer's part, the rest
/// the mobile node's signalling (`World::apply_mip_handover`); else a link-level switch
/// (`World::apply_handover`).
pub(super) fn handover_mechanism(spec: &Spec) -> Mechanism {
    match spec.mipv6 {
        Some(_) => Mechanism::MobileIpv6,
        None => Mechanism::LinkSwitch,
    }
}

/// With `[mipv6]`, the Mobile IPv6 entities built into the nodes' chains (`build`) and what the
/// world keeps of the run's addressing; `None` in any other run.
pub(super) fn attach(
    spec: &Spec,
    up: &[bool],
    functions: &mut [super::functions::NodeFunctions],
) -> Option<Box<MipWorld>> {
    let m = spec.mipv6.as_ref()?;
    let mut chains: Vec<Vec<_>> = functions
        .iter_mut()
        .map(|f| std::mem::take(&mut f.chain))
        .collect();
    let w = build(spec, m, up, &mut chains);
    for (f, c) in functions.iter_mut().zip(chains) {
        f.chain = c;
    }
    Some(Box::new(w))
}

/// Builds the Mobile IPv6 entities into the nodes' chains (first in each chain: a home agent
/// tunnels before any other function sees the packet).
fn build(spec: &Spec, mip: &MipSpec, up: &[bool], chains: &mut [Vec<AnyFunction>]) -> MipWorld {
    let addresses = Addresses::new(spec.nodes.len(), &spec.mobiles);
    let mut route_ends: Vec<(NodeIdx, NodeIdx)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
    for m in &spec.mobiles {
        for &l in &m.interfaces {
            let coa = addresses.coa(m.node, l).unwrap_or(NO_ROUTE) as NodeIdx;
            let (a, b) = route_ends[l];
            route_ends[l] = if b == m.node { (a, coa) } else { (coa, b) };
        }
    }
    let coa_initial = |m: &crate::spec::MobileSpec| addresses.coa(m.node, m.initial).unwrap_or(0);
    let homes: Vec<(Addr, Addr)> = spec
        .mobiles
        .iter()
        .map(|m| (m.node as Addr, coa_initial(m)))
        .collect();
    let ha = mip.home_agent;
    chains[ha].insert(
        0,
        AnyFunction::HomeAgent(HomeAgent::new(ha as Addr, addresses.clone(), &homes)),
    );
    for &cn in &mip.correspondents {
        let cache: &[(Addr, Addr)] = if mip.route_optimisation && mip.cn_bound {
            &homes
        } else {
            &[]
        };
        chains[cn].insert(
            0,
            AnyFunction::Correspondent(Correspondent::new(cn as Addr, addresses.clone(), cache)),
        );
    }
    // Routers, grouped by node.
    let mut by_node: Vec<(NodeIdx, Vec<(crate::mip::RouterSpec, Addr)>)> = Vec::new();
    for r in &mip.routers {
        let Some(m) = spec.mobiles.iter().find(|m| m.interfaces.contains(&r.link)) else {
            continue;
        };
        let coa = addresses.coa(m.node, r.link).unwrap_or(0);
        match by_node.iter_mut().find(|(n, _)| *n == r.node) {
            Some((_, v)) => v.push((*r, coa)),
            None => by_node.push((r.node, vec![(*r, coa)])),
        }
    }
    for (node, links) in by_node {
        let rng = Rng::stream(
            spec.seed,
            &format!("mipv6:router:{}", spec.nodes[node].name),
        );
        chains[node].push(AnyFunction::AccessRouter(AccessRouter::new(
            node as Addr,
            &links,
            rng,
        )));
    }
    let mut mobiles = Vec::new();
    for (mi, m) in spec.mobiles.iter().enumerate() {
        let setups: Vec<IfaceSetup> = m
            .interfaces
            .iter()
            .map(|&l| {
                let router = mip.routers.iter().find(|r| r.link == l);
                let link = &spec.links[l];
                let ar = if link.a == m.node { link.b } else { link.a };
                let attached = up[l];
                IfaceSetup {
                    link: l,
                    coa: addresses.coa(m.node, l).unwrap_or(0),
                    router_addr: router.map_or(ar, |r| r.node) as Addr,
                    up: attached,
                    ready: attached && (mip.preconfigured || l == m.initial),
                    sllao: router.is_none_or(|r| r.link_layer),
                    interval: router
                        .map_or(crate::time::Dur::from_secs(3), |r| r.advertised_interval()),
                }
            })
            .collect();
        let primary = m
            .interfaces
            .iter()
            .position(|&l| l == m.initial)
            .unwrap_or(0);
        let peers: Vec<Addr> = mip.correspondents.iter().map(|&c| c as Addr).collect();
        let rng = Rng::stream(spec.seed, &format!("mipv6:mobile:{mi}"));
        let mn = MobileNode::new(
            m.node as Addr,
            ha as Addr,
            mip,
            &setups,
            primary,
            &peers,
            rng,
        );
        chains[m.node].insert(0, AnyFunction::MobileNode(Box::new(mn)));
        mobiles.push(m.node);
    }
    let network = match &spec.nemo {
        Some(n) => super::nemo::build(spec, n, ha, &addresses, chains),
        None => Vec::new(),
    };
    MipWorld {
        addresses,
        route_ends,
        home_agent: ha,
        mobiles,
        network,
    }
}

impl World {
    /// Mobile `m`'s Mobile IPv6 entity (in its node's chain).
    fn mobile_entity(&mut self, m: usize) -> Option<&mut MobileNode> {
        let node = *self.mip.as_ref()?.mobiles.get(m)?;
        self.functions[node].chain.iter_mut().find_map(|f| match f {
            AnyFunction::MobileNode(mn) => Some(mn.as_mut()),
            _ => None,
        })
    }

    fn mobile_entity_ref(&self, m: usize) -> Option<&MobileNode> {
        let node = *self.mip.as_ref()?.mobiles.get(m)?;
        self.functions[node].chain.iter().find_map(|f| match f {
            AnyFunction::MobileNode(mn) => Some(mn.as_ref()),
            _ => None,
        })
    }

    /// Per handover of the spec, the times its mobile node stamped (`None` without Mobile
    /// IPv6, or for a handover the run did not reach).
    pub(super) fn mip_records_by_handover(&self) -> Vec<Option<HandoverTimes>> {
        let mut taken = vec![0usize; self.spec.mobiles.len()];
        let mut out = Vec::with_capacity(self.spec.handovers.len());
        for h in 0..self.spec.handovers.len() {
            let m = self.spec.handovers[h].mobile;
            let happened = self.handovers[h].happened;
            let rec = if happened {
                let i = taken[m];
                taken[m] += 1;
                self.mobile_entity_ref(m)
                    .and_then(|mn| mn.records.get(i).copied())
            } else {
                None
            };
            out.push(rec);
        }
        out
    }

    /// The direction packet `idx` leaves `node` on: a mobile's by the interface of its source
    /// address, any other node's by its route to the destination.
    pub(super) fn egress(&self, node: NodeIdx, idx: PktIdx) -> Option<DirIdx> {
        let pkt = self.slab.get(idx);
        if let Some(w) = &self.mip {
            if w.mobiles.contains(&node) {
                let Some(link) = w.addresses.link(pkt.src) else {
                    // A mobile router forwarding to its mobile network (`world::nemo`); none
                    // of a mobile host's own packets has a route before its entity
                    // addresses it.
                    return self.routes.next_hop(node, pkt.dst as NodeIdx);
                };
                if !self.up[link] {
                    return None;
                }
                let (a, _) = self.ends[link];
                return Some(dir_index(link, a == node));
            }
        }
        self.routes.next_hop(node, pkt.dst as NodeIdx)
    }

    /// A packet that reached `node` in a run routed by address (`Routes::by_address`), or one
    /// with extension headers or signalling at its destination: one addressed to an address
    /// `node` owns has its Mobile IPv6 headers taken off (`mip::inbound`) and goes where that
    /// says; any other is forwarded.
    #[cold]
    #[inline(never)]
    pub(super) fn arrive_addressed(&mut self, node: NodeIdx, via: DirIdx, idx: PktIdx) {
        let Some(w) = self.mip.as_deref() else {
            self.forward(node, idx, Some(via));
            return;
        };
        let pkt = self.slab.get(idx);
        if w.addresses.owner(pkt.dst) != node {
            self.forward(node, idx, Some(via));
            return;
        }
        let to_addr = pkt.dst;
        if self.rec.captures(node) {
            let pkt = *pkt;
            self.tap(node, &pkt);
        }
        let now = self.now;
        let Some(w) = self.mip.as_deref() else { return };
        let entities = self.functions[node].chain.as_mut_slice();
        let pkt = self.slab.get_mut(idx);
        match inbound::receive(now, node, pkt, &w.addresses, entities) {
            Inbound::ForwardInner => {
                // A mobile router's network: the first data over the new link counts where
                // the tunnel ends, the router (the last hop to the LFN is its own link).
                if pkt.is_tcp() && pkt.to_receiver && pkt.seg.len > 0 {
                    let flow = &mut self.flows[pkt.flow as usize];
                    if flow.await_new_link == Some(crate::net::routes::dir_link(via)) {
                        flow.await_new_link = None;
                        flow.first_on_new_link = Some(now);
                        flow.tput.set_first_new(now.as_nanos());
                    }
                }
                self.forward(node, idx, Some(via));
            }
            Inbound::Refused => {
                // The correspondent's Binding Error goes out.
                self.free_dropped(idx, None, DropCause::HandoverFlush);
                self.pump_functions(node);
            }
            Inbound::ToAgent => self.deliver(via, idx),
            Inbound::ToEntities => {
                let pkt = self.slab.remove(idx);
                for i in 0..self.functions[node].chain.len() {
                    self.functions[node].chain[i].on_deliver(now, &pkt, to_addr);
                }
                self.pump_functions(node);
            }
        }
    }

    /// Handover `h` in a Mobile IPv6 run: the link layer's part only. A hard handover takes
    /// the old link down (what waits in its queues is lost); the new link comes up if it was
    /// down; the mobile node is told, and the rest is its signalling.
    pub(super) fn apply_mip_handover(&mut self, h: usize) {
        self.handovers[h].happened = true;
        let now = self.now;
        let hs = self.spec.handovers[h].clone();
        let mobile_node = self.spec.mobiles[hs.mobile].node;
        let hard = matches!(hs.kind, HandoverKind::Hard { .. });
        let mut events: Vec<(LinkIdx, bool)> = Vec::new();
        if !self.up[hs.to] {
            self.up[hs.to] = true;
            events.push((hs.to, true));
        }
        if hard && self.up[hs.from] {
            self.up[hs.from] = false;
            events.push((hs.from, false));
            self.flush_link(hs.from, hs.in_flight == InFlight::Lost);
        }
        if let Some(w) = &self.mip {
            self.routes = w.routes(&self.up);
        }
        if let Some(mn) = self.mobile_entity(hs.mobile) {
            for &(l, up) in &events {
                mn.link_event(now, l, up);
            }
            mn.start_handover(now, hs.from, hs.to, !hard);
        }
        for (f, fs) in self.spec.flows.iter().enumerate() {
            let flow = &mut self.flows[f];
            let served = crate::spec::reached_through(&self.spec, hs.mobile, fs.dst);
            if served && flow.first_on_new_link.is_none() {
                flow.await_new_link = Some(hs.to);
            }
        }
        self.pump_functions(mobile_node);
        self.routes_changed();
    }

    /// A link went down: what waits in its two queues is lost, and with `in_flight` what is
    /// on its air or propagating (issue 33 point 4).
    fn flush_link(&mut self, link: LinkIdx, in_flight: bool) {
        let mut dropped = Vec::new();
        for d in [dir_index(link, true), dir_index(link, false)] {
            self.advance(d);
            crate::handover::discard_queue(&mut self.dirs[d as usize], &mut dropped);
            for idx in dropped.drain(..) {
                self.free_dropped(idx, Some(d), DropCause::HandoverFlush);
            }
            if in_flight {
                let now = self.now;
                self.dirs[d as usize].discard_in_flight(now, &mut dropped);
                for idx in dropped.drain(..) {
                    self.free_dropped(idx, Some(d), DropCause::InFlight);
                }
            }
            self.took_effect(d);
            self.sample_queue(d);
        }
    }
}
