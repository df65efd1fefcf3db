//! Driving the world from outside its own event loop: the emulator (`vho-emu`) hands it real
//! packets at the instants the wall clock says, and takes the ones that reach a host.
//!
//! The world stays the only driver of the models: the same link directions, queues, loss
//! models, handovers and routes carry an emulated packet as they carry a simulated one. An
//! outside packet is a [`Packet`] of [`Proto::External`], its `flow` the driver's token for
//! its bytes (the world never sees them), its size the real IP packet's. The driver's loop:
//! [`World::run_until`] the present, [`World::inject`] what arrived from the hosts, hand what
//! [`World::take_external`] returns to the hosts, sleep until [`World::next_event_at`].

use super::{SimError, World};
use crate::link::DropCause;
use crate::net::routes::{dir_index, DirIdx, Routes};
use crate::packet::{Packet, PktIdx, Proto};
use crate::spec::{LinkIdx, NodeIdx};
use crate::time::Time;

/// What happened to outside packets since the driver last looked.
#[derive(Default, Debug)]
pub struct ExternalOut {
    /// Packets that reached their destination host: (instant, host, token), in order.
    pub delivered: Vec<(Time, NodeIdx, u32)>,
    /// Packets the network dropped: (token, the direction, or `None` for no route, cause).
    pub dropped: Vec<(u32, Option<DirIdx>, DropCause)>,
}

impl World {
    /// Puts the run's fixed instants (handovers, link schedules, node functions' first
    /// words) on the clock; call once before stepping the world with [`World::run_until`].
    /// The spec's flows are not started: their endpoints are the driver's (they still size
    /// the `bdp` queues, as in a simulation of the same scenario).
    pub fn start_external(&mut self) {
        self.external_out = Some(Box::default());
        self.schedule_start(false);
    }

    /// The world's clock.
    pub fn now(&self) -> Time {
        self.now
    }

    /// When the next event is due (`None`: nothing pending).
    pub fn next_event_at(&self) -> Option<Time> {
        self.queue.peek_time()
    }

    /// Runs every event due by `t`, then sets the clock to `t` (never back).
    pub fn run_until(&mut self, t: Time) -> Result<(), SimError> {
        self.run_events(t)?;
        self.now = self.now.max(t);
        Ok(())
    }

    /// Hands the world an outside packet of `wire_bytes` (IP header included) from host `src`
    /// to host `dst`, now. Its fate is reported by [`World::take_external`]. With `via`, the
    /// packet crosses that access link at the mobile's end, whatever the routes say (a
    /// multipath host's interface, see [`World::multihome`]); it is dropped if the link is
    /// down.
    pub fn inject(
        &mut self,
        src: NodeIdx,
        dst: NodeIdx,
        wire_bytes: u32,
        token: u32,
        via: Option<LinkIdx>,
    ) {
        let idx = self.slab.insert(Packet {
            flow: token,
            src: src as u32,
            dst: dst as u32,
            wire_bytes,
            sent_at: self.now,
            proto: Proto::External,
            ext: if via.is_some() {
                crate::packet::ext::PINNED
            } else {
                0
            },
            inner_dst: via.map_or(0, |l| l as u32 + 1),
            ..Packet::default()
        });
        self.forward(src, idx, None);
    }

    /// Every mobile's interfaces up at once (a multipath host, as a phone with WLAN and
    /// cellular both associated), but those a handover brings up (`handover::appearing`: the
    /// faster network entered), down until then: a handover then takes its `from` link down
    /// and brings its `to` link up, and the Multipath TCP agents at the mobile learn of an
    /// interface that came up (`Agent::address_added`). Packets injected with `via` take their
    /// own link; the forwarding path tests for them (the flag that otherwise says a node has
    /// functions).
    pub fn multihome(&mut self) {
        for (m, ms) in self.spec.mobiles.iter().enumerate() {
            let later = crate::handover::appearing(&self.spec, m);
            for &l in &ms.interfaces {
                if !later.iter().any(|&(_, x)| x == l) {
                    self.up[l] = true;
                }
            }
        }
        self.handovers.multihome = true;
        self.routes = Routes::compute(self.spec.nodes.len(), &self.ends, &self.up);
        self.functions.any = true;
    }

    /// The direction an outside packet pinned to an access link leaves `node` on: across
    /// that link when `node` is the mobile sending it, or the link's other end with the packet
    /// for the mobile; else the route. `Err` (a drop) when that link is down.
    pub(super) fn pinned_egress(&self, node: NodeIdx, idx: PktIdx) -> Result<DirIdx, DropCause> {
        let pkt = self.slab.get(idx);
        let link = (pkt.inner_dst - 1) as LinkIdx;
        let (a, b) = self.ends[link];
        let mobile_is_b = self.spec.mobiles.iter().any(|m| m.node == b);
        let (mobile, other) = if mobile_is_b { (b, a) } else { (a, b) };
        let across = (node == mobile && pkt.src as NodeIdx == mobile)
            || (node == other && pkt.dst as NodeIdx == mobile);
        if !across {
            return self
                .routes
                .next_hop(node, pkt.dst as NodeIdx)
                .ok_or(DropCause::QueueOverflow);
        }
        if !self.up[link] {
            return Err(DropCause::LinkState);
        }
        Ok(dir_index(link, node == a))
    }

    /// What outside packets did since the last call (the driver empties both lists).
    pub fn take_external(&mut self) -> Option<&mut ExternalOut> {
        self.external_out.as_deref_mut()
    }

    /// Ends the run now: every link brought up to the clock, the summary of its links and
    /// handovers (flows are the driver's to measure).
    pub fn finish_external(self) -> super::Summary {
        self.finish(super::EndedBy::StopTime).summary
    }

    /// An outside packet reached its destination host.
    #[cold]
    #[inline(never)]
    pub(super) fn deliver_external(&mut self, node: NodeIdx, idx: PktIdx) {
        let token = self.slab.get(idx).flow;
        self.slab.release(idx);
        let now = self.now;
        if let Some(out) = &mut self.external_out {
            out.delivered.push((now, node, token));
        }
    }

    /// A packet that belongs to no agent dropped: a signalling message (nothing to book
    /// beyond the link's own counters) or an outside packet (its driver is told).
    #[cold]
    #[inline(never)]
    pub(super) fn drop_not_agent(&mut self, idx: PktIdx, d: Option<DirIdx>, cause: DropCause) {
        let pkt = self.slab.remove(idx);
        if pkt.proto == Proto::External {
            if let Some(out) = &mut self.external_out {
                out.dropped.push((pkt.flow, d, cause));
            }
        }
    }
}
