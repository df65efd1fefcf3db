//! Applying a handover to the world: queues per the handover's kind, the new link blocked
//! for the handover delay, routes recomputed, the interruption measured.

use super::World;
use crate::handover::transfer_queue;
use crate::link::DropCause;
use crate::net::routes::{dir_index, dir_link, DirIdx, Routes};
use crate::rng::Rng;
use crate::spec::Spec;
use crate::spec::{HandoverKind, InFlight};
use crate::spec::{LinkIdx, NodeIdx};
use crate::tcp::segment::{HandoverNotice, RateChange};
use crate::time::{Dur, Time};

/// How a handover is carried out, resolved when the world is built
/// (`world::mip::handover_mechanism`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Mechanism {
    /// The link layer switches the mobile's traffic to the new link: queues per the
    /// handover's kind, routes recomputed (`World::apply_handover`).
    LinkSwitch,
    /// The link layer's part only; the mobile node's Mobile IPv6 signalling does the rest
    /// (`World::apply_mip_handover`).
    MobileIpv6,
}

pub(super) struct HandoverState {
    pub(super) mechanism: Mechanism,
    pub(super) at: Time,
    pub(super) interruption: Option<Dur>,
    /// The run reached the instant and carried the handover out.
    pub(super) happened: bool,
}

struct MobileState {
    /// (handover index, new link) awaiting the first packet over the new link.
    pending_interruption: Option<(usize, LinkIdx)>,
}

/// The run's handovers as they are carried out, the mobiles they move, and the measure of
/// each one's interruption (until the first packet reaches the mobile over its new link).
pub(super) struct Handovers {
    states: Vec<HandoverState>,
    mobiles: Vec<MobileState>,
    /// Mobiles whose handover awaits its first packet over the new link.
    awaiting: usize,
    /// The handover whose mobile still sends over its old link (`uplink_delay`).
    pinned_uplink: Option<usize>,
    /// A multipath host's world (`World::multihome`): an interface a handover brings up is
    /// an address added for the agents there.
    pub(super) multihome: bool,
}

impl Handovers {
    pub(super) fn build(spec: &Spec, mechanism: Mechanism) -> Self {
        Handovers {
            states: spec
                .handovers
                .iter()
                .enumerate()
                .map(|(i, h)| HandoverState {
                    mechanism,
                    at: crate::handover::draw_instant(h, spec.seed, i),
                    interruption: None,
                    happened: false,
                })
                .collect(),
            mobiles: spec
                .mobiles
                .iter()
                .map(|_| MobileState {
                    pending_interruption: None,
                })
                .collect(),
            awaiting: 0,
            pinned_uplink: None,
            multihome: false,
        }
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, HandoverState> {
        self.states.iter()
    }

    /// Handover `h` moved `mobile` to `link`: its interruption lasts until the first packet
    /// over `link`.
    fn switched(&mut self, h: usize, mobile: usize, link: LinkIdx) {
        let m = &mut self.mobiles[mobile];
        if m.pending_interruption.is_none() {
            self.awaiting += 1;
        }
        m.pending_interruption = Some((h, link));
    }
}

impl std::ops::Index<usize> for Handovers {
    type Output = HandoverState;
    #[inline(always)]
    fn index(&self, h: usize) -> &HandoverState {
        &self.states[h]
    }
}

impl std::ops::IndexMut<usize> for Handovers {
    #[inline(always)]
    fn index_mut(&mut self, h: usize) -> &mut HandoverState {
        &mut self.states[h]
    }
}

impl World {
    /// The mobile's handover manager tells every agent about handover `h`; each kind decides
    /// what it makes of it (`agent::HandoverNote`): a TCP receiver at the mobile sends the
    /// notification on its next ACK, a sender there learns it directly, endpoints elsewhere
    /// learn only from what crosses the network, but for the probes' explicit notification
    /// (Chen et al. §5), sent to the sender wherever it runs.
    pub(super) fn notify_handover(&mut self, h: usize) {
        let hs = &self.spec.handovers[h];
        let m = &self.spec.mobiles[hs.mobile];
        let index = |l| m.interfaces.iter().position(|&i| i == l).unwrap_or(0) as u8;
        // The handover manager knows its own interfaces' nominal rates (as flush-on-handover
        // judges "faster": the higher of the link's two directions).
        let rate = |l: usize| {
            let link = &self.spec.links[l];
            link.ab.rate_bps.max(link.ba.rate_bps)
        };
        let notice = HandoverNotice {
            from: index(hs.from),
            to: index(hs.to),
            rate: match rate(hs.to).cmp(&rate(hs.from)) {
                std::cmp::Ordering::Greater => RateChange::Faster,
                std::cmp::Ordering::Less => RateChange::Slower,
                std::cmp::Ordering::Equal => RateChange::Same,
            },
        };
        let mobile = m.node;
        let now = self.now;
        let (from_bps, to_bps) = (rate(hs.from), rate(hs.to));
        for f in 0..self.flows.len() {
            if !self.flows[f].started {
                continue;
            }
            let (src, dst) = (self.spec.flows[f].src, self.spec.flows[f].dst);
            // The sink first: a receiver at the mobile sends the notification on its next ACK.
            for (side, node) in [(1, dst), (0, src)] {
                let note = crate::agent::HandoverNote {
                    notice,
                    from_bps,
                    to_bps,
                    here: node == mobile,
                    flow_at_mobile: src == mobile || dst == mobile,
                };
                if self.flows[f].agents[side].notify_handover(now, &note) {
                    self.pump(f, side);
                }
            }
        }
    }

    pub(super) fn apply_handover(&mut self, h: usize) {
        self.handovers[h].happened = true;
        self.handovers.pinned_uplink = None;
        let now = self.now;
        let spec = self.spec.handovers[h].clone();
        let mut rng = Rng::stream(self.spec.seed, &format!("handover:{h}:loss"));
        let mut dropped = Vec::new();
        let mut in_flight = Vec::new();
        // A hard handover takes the old interface down: what is on its air or propagating
        // is lost too, unless the scenario keeps ns-2's single reconfigured link (issue 33
        // point 4). A soft one leaves it up.
        let lose_in_flight =
            matches!(spec.kind, HandoverKind::Hard { .. }) && spec.in_flight == InFlight::Lost;
        let mobile_node = self.spec.mobiles[spec.mobile].node;
        for towards_mobile in [true, false] {
            let old = self.dir_of(spec.from, mobile_node, towards_mobile);
            let new = self.dir_of(spec.to, mobile_node, towards_mobile);
            self.advance(old);
            self.advance(new);
            let (o, n) = (old as usize, new as usize);
            let (a, b) = if o < n {
                let (lo, hi) = self.dirs.split_at_mut(n);
                (&mut lo[o], &mut hi[0])
            } else {
                let (lo, hi) = self.dirs.split_at_mut(o);
                (&mut hi[0], &mut lo[n])
            };
            if lose_in_flight {
                // Before the queue moves: the new link need not wait for a packet the old
                // one no longer finishes.
                a.discard_in_flight(now, &mut in_flight);
            }
            transfer_queue(spec.kind, spec.flush, a, b, now, &mut rng, &mut dropped);
            if spec.delay.as_nanos() > 0 {
                b.block_until(now + spec.delay);
            }
            // Book the flushed packets where the link counters put them: a hard handover
            // loses them on the old link, shrink_queue on the new one.
            let at = if matches!(
                spec.kind,
                HandoverKind::Hard { .. } | HandoverKind::SoftDrainOld
            ) {
                old
            } else {
                new
            };
            for idx in dropped.drain(..) {
                self.free_dropped(idx, Some(at), DropCause::HandoverFlush);
            }
            for idx in in_flight.drain(..) {
                self.free_dropped(idx, Some(old), DropCause::InFlight);
            }
            self.kick(new);
            self.took_effect(old);
            self.sample_queue(old);
        }
        // In a multipath host's world, a link down until now is an interface whose address
        // appears (`World::multihome`).
        let appeared = self.handovers.multihome && !self.up[spec.to];
        self.up[spec.from] = false;
        self.up[spec.to] = true;
        self.handovers.switched(h, spec.mobile, spec.to);
        // t_a counts from the receiver's first handover only (Cottingham & Vidales §5).
        for (f, fs) in self.spec.flows.iter().enumerate() {
            let flow = &mut self.flows[f];
            let served = crate::spec::reached_through(&self.spec, spec.mobile, fs.dst);
            if served && flow.first_on_new_link.is_none() {
                flow.await_new_link = Some(spec.to);
            }
        }
        self.routes = Routes::compute(self.spec.nodes.len(), &self.ends, &self.up);
        if spec.uplink_delay > crate::time::Dur::ZERO {
            // Until its registration completes the mobile keeps sending over the old link.
            let old_up = self.dir_of(spec.from, mobile_node, false);
            self.routes.pin_node(mobile_node, old_up);
            self.handovers.pinned_uplink = Some(h);
            self.queue
                .schedule(now + spec.uplink_delay, super::Event::UplinkMove(h as u32));
        }
        self.routes_changed();
        self.tell_oracles(h);
        if appeared {
            self.address_added(h);
        }
    }

    /// Handover `h` brought its mobile's interface `to` up in a multipath host's world: every
    /// flow's agents learn that the mobile's address on it was added (Linux: an endpoint added
    /// when the address appears, `mptcp_pm_nl_add_addr_doit`), the ones at the mobile first
    /// hand. A flow not started yet learns it too (its path manager will find the address).
    #[cold]
    fn address_added(&mut self, h: usize) {
        let hs = &self.spec.handovers[h];
        let m = &self.spec.mobiles[hs.mobile];
        let iface = m.interfaces.iter().position(|&i| i == hs.to).unwrap_or(0) as u8;
        let mobile = m.node;
        let now = self.now;
        for f in 0..self.flows.len() {
            let (src, dst) = (self.spec.flows[f].src, self.spec.flows[f].dst);
            if src != mobile && dst != mobile {
                continue;
            }
            for (side, node) in [(1, dst), (0, src)] {
                let act = self.flows[f].agents[side].address_added(now, iface, node == mobile);
                if act && self.flows[f].started {
                    self.pump(f, side);
                }
            }
        }
    }

    /// Handover `h`'s mobile sends over the new link from now on (unless a later handover
    /// has already recomputed the routes).
    pub(super) fn move_uplink(&mut self, h: usize) {
        if self.handovers.pinned_uplink == Some(h) {
            self.handovers.pinned_uplink = None;
            self.routes = Routes::compute(self.spec.nodes.len(), &self.ends, &self.up);
            self.routes_changed();
        }
    }

    /// The direction of `link` towards (or away from) the mobile node.
    fn dir_of(&self, link: LinkIdx, mobile: NodeIdx, towards_mobile: bool) -> DirIdx {
        let (_, b) = self.ends[link];
        let a_to_b = (b == mobile) == towards_mobile;
        dir_index(link, a_to_b)
    }

    /// The first packet to reach a mobile host over its new link ends the interruption.
    #[inline]
    pub(super) fn note_mobile_arrival(&mut self, node: NodeIdx, via: DirIdx) {
        // Most arrivals come when no handover waits for its first packet.
        if self.handovers.awaiting > 0 {
            self.note_interruption_end(node, via);
        }
    }

    #[cold]
    fn note_interruption_end(&mut self, node: NodeIdx, via: DirIdx) {
        let hs = &mut self.handovers;
        for m in 0..hs.mobiles.len() {
            if self.spec.mobiles[m].node != node {
                continue;
            }
            if let Some((h, link)) = hs.mobiles[m].pending_interruption {
                if dir_link(via) == link {
                    let st = &mut hs.states[h];
                    st.interruption = Some(self.now.saturating_since(st.at));
                    hs.mobiles[m].pending_interruption = None;
                    hs.awaiting -= 1;
                }
            }
        }
    }
}
