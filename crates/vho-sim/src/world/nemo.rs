//! Driving a NEMO soft handover (`[nemo]`, Naoe et al., seed 002): the mobile router's mobile
//! network routed through its home agent and reverse-tunnelled back (RFC 3963), the home
//! agent's bicasting (`mip::bicast`) and the router's combining (`net::nemo_combiner`), built
//! into the Mobile IPv6 world's chains; the ground truth told of the copies the network makes
//! and discards.

use super::World;
use crate::mip::bicast::{Bicast, NemoSpec};
use crate::mip::{Addr, Addresses};
use crate::net::combine::apc::Apc;
use crate::net::combine::sequence_table::{NemoSho, DEFAULT_TABLE_SIZE};
use crate::net::combine::{AnyCombiner, LinkClass};
use crate::net::function::AnyFunction;
use crate::net::nemo_combiner::{Combining, NemoCombiner};
use crate::net::routes::{dir_index, DirIdx, Routes};
use crate::packet::PktIdx;
use crate::spec::{NodeIdx, Spec};

/// Routes of the mobile network: (node behind the router, the router, the node's direction
/// towards the router).
pub(super) type NetworkRoutes = Vec<(NodeIdx, NodeIdx, DirIdx)>;

/// Builds the entities' NEMO parts into the chains; returns the mobile network's routes.
pub(super) fn build(
    spec: &Spec,
    nemo: &NemoSpec,
    home_agent: NodeIdx,
    addresses: &Addresses,
    chains: &mut [Vec<AnyFunction>],
) -> NetworkRoutes {
    let Some(m) = spec.mobiles.get(nemo.router) else {
        return Vec::new();
    };
    let mr = m.node;
    let network: Vec<Addr> = nemo.network.iter().map(|&n| n as Addr).collect();
    // The nominal rate of each interface (§IV: "the MR has information about the link rate
    // per interface beforehand"): the faster of its link's two directions.
    let rate = |l: usize| {
        let link = &spec.links[l];
        link.ab.rate_bps.max(link.ba.rate_bps)
    };
    let fastest = m.interfaces.iter().map(|&l| rate(l)).max().unwrap_or(0);
    let mut class = vec![None; 2 * spec.links.len()];
    for &l in &m.interfaces {
        let towards = dir_index(l, spec.links[l].b == mr);
        class[towards as usize] = Some(if rate(l) == fastest {
            LinkClass::Fast
        } else {
            LinkClass::Slow
        });
    }
    let coa = |l: usize| addresses.coa(mr, l).unwrap_or(0);
    let other = m
        .interfaces
        .iter()
        .copied()
        .find(|&l| l != m.initial)
        .unwrap_or(m.initial);
    let bicast = nemo.bicast.map(|(from, until)| {
        Bicast::new(
            mr as Addr,
            network.clone(),
            [coa(m.initial), coa(other)],
            from,
            until,
        )
    });
    for f in chains[home_agent].iter_mut() {
        if let AnyFunction::HomeAgent(ha) = f {
            ha.serve_network(mr as Addr, &network, bicast.clone());
        }
    }
    let uplink = bicast.clone().filter(|_| nemo.uplink);
    for f in chains[mr].iter_mut() {
        if let AnyFunction::MobileNode(mn) = f {
            mn.serve_network(&network, uplink.clone());
        }
    }
    // T_combining: "initialized on the MR when the BU is sent" (§IV-B), the window's start.
    let t_combining = nemo.bicast.map_or(crate::time::Time::ZERO, |w| w.0);
    // The handover's completion, the window's end (§V-C: 15 s): the MR sends the BU that
    // stops bicasting (§IV-C). Here the home agent stops at that instant too (the window is
    // the policy, `mip::bicast`), the BU's transit left out as it is at the start.
    let completion = nemo.bicast.map(|w| w.1);
    let combiner = || match nemo.combining {
        Combining::None => None,
        Combining::NemoSho => NemoSho::new(DEFAULT_TABLE_SIZE)
            .ok()
            .map(AnyCombiner::NemoSho),
        Combining::Apc(cfg) => Apc::new(cfg, t_combining).ok().map(AnyCombiner::Apc),
    };
    if uplink.is_some() {
        // Upward copies are combined at the home agent, told apart by their care-of address.
        let class_by_coa = m
            .interfaces
            .iter()
            .filter_map(|&l| {
                let towards = dir_index(l, spec.links[l].b == mr) as usize;
                Some((coa(l), class[towards]?))
            })
            .collect();
        chains[home_agent].push(AnyFunction::NemoCombiner(
            NemoCombiner::at_home_agent(class_by_coa, combiner()).completing_at(completion),
        ));
    }
    chains[mr].push(AnyFunction::NemoCombiner(
        NemoCombiner::new(class, combiner()).completing_at(completion),
    ));
    nemo.network
        .iter()
        .filter_map(|&n| {
            let l = spec
                .links
                .iter()
                .position(|k| (k.a == n && k.b == mr) || (k.b == n && k.a == mr))?;
            Some((n, mr, dir_index(l, spec.links[l].a == n)))
        })
        .collect()
}

/// The mobile network's routes on top of the Mobile IPv6 ones: its nodes reached through the
/// home agent (whose binding cache tunnels to the router), and reaching out through the router.
pub(super) fn route(r: &mut Routes, network: &NetworkRoutes, home_agent: NodeIdx) {
    for &(n, mr, d) in network {
        r.alias_behind(n, home_agent, mr);
        r.default_route(n, d);
    }
}

/// `summary.json`'s `nemo`: what the home agent bicast and what the mobile router's combiner
/// did with the copies (the same counters as its `node_functions` entry, named for the study;
/// downward only: upward bicasting's counters are the MR's and the HA's `node_functions`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct NemoSummary {
    pub router: String,
    pub combining: &'static str,
    /// Packets the home agent duplicated (each sent through both tunnels).
    pub packets_bicast: u64,
    /// Copies carrying a Packet Identifier Option that reached the router.
    pub copies: u64,
    /// Copies forwarded to the mobile network (at once or released).
    pub forwarded: u64,
    /// Copies discarded as duplicates (or outside the Sequence Number Table).
    pub duplicates_dropped: u64,
    /// Fast-link copies APC held (eq. 2), and the longest hold.
    pub held: u64,
    pub max_hold_s: f64,
    /// Held copies released at the handover's completion (§IV-C), ahead of the packets
    /// tunnelled after it.
    pub released_at_completion: u64,
}

impl World {
    /// The run's `nemo` summary (`None` without `[nemo]`).
    pub(super) fn nemo_summary(&self) -> Option<NemoSummary> {
        let n = self.spec.nemo.as_ref()?;
        let mr = self.spec.mobiles.get(n.router)?.node;
        let mut out = NemoSummary {
            router: self.spec.nodes[mr].name.clone(),
            combining: match n.combining {
                Combining::None => "none",
                Combining::NemoSho => "nemo-sho",
                Combining::Apc(_) => "apc",
            },
            packets_bicast: 0,
            copies: 0,
            forwarded: 0,
            duplicates_dropped: 0,
            held: 0,
            max_hold_s: 0.0,
            released_at_completion: 0,
        };
        let ha = self.spec.mipv6.as_ref()?.home_agent;
        for node in [ha, mr] {
            for f in &self.functions[node].chain {
                match f {
                    AnyFunction::HomeAgent(ha) => out.packets_bicast += ha.bicast_count(),
                    AnyFunction::NemoCombiner(c) if node == mr => {
                        let s = c.totals();
                        out.copies += s.copies;
                        out.forwarded += s.forwarded;
                        out.duplicates_dropped += s.absorbed;
                        out.held += s.held;
                        out.max_hold_s = out.max_hold_s.max(c.max_hold().as_secs_f64());
                        out.released_at_completion += c.released_at_completion();
                    }
                    _ => {}
                }
            }
        }
        Some(out)
    }

    /// A packet the network copied (a home agent's bicast copy) joins its segment's copies in
    /// flight.
    pub(super) fn note_copy(&mut self, idx: PktIdx) {
        self.tell_fate(idx, crate::agent::Fate::Copied);
    }

    /// A copy a combiner discarded (the other went on): freed, no loss booked.
    pub(super) fn absorb_copy(&mut self, idx: PktIdx) {
        self.tell_fate(idx, crate::agent::Fate::Absorbed);
        self.slab.release(idx);
    }
}
