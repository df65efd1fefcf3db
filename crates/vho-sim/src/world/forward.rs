//! Packets moving: endpoints transmitting, nodes forwarding, links delivering, drops.

use super::{Event, World};
use crate::agent::{with_ends, Body, Ends, Fate, FateOut, Kind, Payload, Transmit};
use crate::link::{DropCause, Held};
use crate::net::routes::{dir_link, DirIdx};
use crate::packet::{Packet, PktIdx, Proto};
use crate::spec::NodeIdx;

impl World {
    /// Lets one agent send all it wants now, then re-arms its wake-up.
    pub(super) fn pump(&mut self, f: usize, side: usize) {
        with_ends!(self.flows[f].ends, S, R => if side == 0 {
            self.pump_as::<S>(f, 0)
        } else {
            self.pump_as::<R>(f, 1)
        })
    }

    /// `pump` for an agent of kind `A`.
    #[inline(never)]
    pub(super) fn pump_as<A: Kind>(&mut self, f: usize, side: usize) {
        let now = self.now;
        if !self.flows[f].started {
            return;
        }
        // `side & 1`: the index is known to be in bounds.
        let side = side & 1;
        while let Some(tx) = A::of(&mut self.flows[f].agents[side]).poll_transmit(now) {
            // Known per kind at compile time: nothing more for TCP's own segments.
            let beside = if A::TCP_PAYLOAD {
                A::of(&mut self.flows[f].agents[side]).tcp_payload()
            } else {
                None
            };
            self.emit(f, side, tx, beside);
        }
        let flow = &mut self.flows[f];
        // Its state recorded (with series), then its next timer.
        let agent = A::of(&mut flow.agents[side]);
        agent.sample(now);
        let next = agent.poll_timeout();
        let ev = Event::Wake {
            flow: f as u32,
            side: side as u8,
        };
        match (next, flow.wake[side]) {
            (Some(t), w) => {
                let t = t.max(now);
                if w.is_none_or(|w| t < w || w < now) {
                    flow.wake[side] = Some(t);
                    self.queue.schedule(t, ev);
                }
            }
            // The timer was stopped (a delayed ACK went out before its timer): its wake-up
            // would find nothing due. Unscheduled while that is cheap; otherwise it stays and
            // finds nothing (a wake-up is always allowed to be early).
            (None, Some(w)) if w > now => {
                if self.queue.cancel(w, &ev) {
                    flow.wake[side] = None;
                }
            }
            (None, _) => {}
        }
    }

    /// Wraps what an agent sends into a packet at its node and sends it on its way.
    #[inline(always)]
    fn emit(&mut self, f: usize, side: usize, tx: Transmit, beside: Option<(Payload, u32)>) {
        let flow = &mut self.flows[f];
        let (src, dst) = (flow.nodes[side] as NodeIdx, flow.nodes[side ^ 1] as NodeIdx);
        let ip_id = flow.ip_id[side];
        flow.ip_id[side] = ip_id.wrapping_add(1);
        let (seg, proto) = match tx.body {
            Body::Tcp(seg) => (seg, Proto::Tcp),
            Body::Datagram(Payload::None) => (Default::default(), Proto::BareDatagram),
            Body::Datagram(_) => (Default::default(), Proto::Datagram),
        };
        // An MPTCP subflow's segment: pinned to its interface's link (`pinned_egress`).
        let via = beside.map_or(0, |(_, via)| via);
        // Written straight into its slot: a packet built on the stack and then copied in
        // stalled the copy (`perf annotate`: a fifth of `pump`'s cycles on that store).
        let idx = self.slab.insert(Packet {
            seg,
            flow: f as u32,
            to_receiver: side == 0,
            src: src as u32,
            dst: dst as u32,
            wire_bytes: tx.wire_bytes,
            ip_id,
            kind: tx.kind,
            copy: tx.copy,
            sent_at: self.now,
            proto,
            ext: if via != 0 {
                crate::packet::ext::PINNED
            } else {
                0
            },
            inner_src: 0,
            inner_dst: via,
            sig: crate::mip::Signal::None,
            pio: Default::default(),
        });
        // A bare datagram (cross traffic, a quarter of the events of Chen et al.'s world)
        // writes no payload: `payload` reads none for it.
        let payload = match (tx.body, proto) {
            (Body::Datagram(payload), Proto::Datagram) => Some(payload),
            _ => beside.map(|(p, _)| p),
        };
        if let Some(payload) = payload {
            let i = idx as usize;
            if self.payloads.len() <= i {
                self.payloads.resize(i + 1, Payload::None);
            }
            self.payloads[i] = payload;
        }
        if self.rec.captures(src) {
            self.tap_at(src, idx);
        }
        self.forward(src, idx, None);
    }

    /// The payload beside slot `idx` (none for a TCP packet, whose segment it carries).
    #[inline(always)]
    pub(super) fn payload(&self, idx: PktIdx) -> Payload {
        match self.slab.get(idx).proto {
            Proto::Datagram => self.payloads[idx as usize],
            _ => Payload::None,
        }
    }

    /// Shows the packet in slot `idx` to node `node`'s taps: a TCP segment or a signalling
    /// message as it is, an agent's datagram with its payload if its agent is captured.
    pub(super) fn tap_at(&mut self, node: NodeIdx, idx: PktIdx) {
        let pkt = *self.slab.get(idx);
        if pkt.proto.is_datagram() {
            let captured =
                self.flows[pkt.flow as usize].agents[usize::from(!pkt.to_receiver)].captured();
            if captured {
                let (now, payload) = (self.now, self.payload(idx));
                self.rec.datagram(now, node, &pkt, &payload);
            }
            return;
        }
        // A subflow's segment: its MPTCP option rides beside it (`Agent::tcp_payload`).
        if pkt.proto == Proto::Tcp && self.flows[pkt.flow as usize].ends == Ends::Mptcp {
            let (now, payload) = (self.now, self.payloads[idx as usize]);
            self.rec.segment_with(now, node, &pkt, &payload);
            return;
        }
        self.tap(node, &pkt);
    }

    pub(super) fn tap(&mut self, node: NodeIdx, pkt: &Packet) {
        self.rec.packet(self.now, node, pkt);
    }

    /// Offers the packet at `node` (arrived over `ingress`, or originated there) to the link
    /// its route names, through the node's functions.
    #[inline(always)]
    pub(super) fn forward(&mut self, node: NodeIdx, idx: PktIdx, ingress: Option<DirIdx>) {
        // One flag on the usual path (no node function anywhere): passing the ingress and
        // testing the node's list on every hop cost 0.9 % to 3.3 % of the 20 MB cell's
        // instructions (callgrind, run_timed).
        if self.functions.any {
            self.forward_from(node, idx, ingress, 0);
        } else {
            self.route_and_offer(node, idx);
        }
    }

    /// As `forward`, from the node's `first`-th function on (a function releasing a packet it
    /// held hands it to the ones after it).
    #[cold]
    #[inline(never)]
    pub(super) fn forward_from(
        &mut self,
        node: NodeIdx,
        idx: PktIdx,
        ingress: Option<DirIdx>,
        first: usize,
    ) {
        // An outside packet or an MPTCP subflow's segment bound to its interface.
        if self.slab.get(idx).ext & crate::packet::ext::PINNED != 0 {
            match self.pinned_egress(node, idx) {
                Ok(d) => self.offer_on(self.held(idx), Some(d)),
                Err(cause) => self.free_dropped(idx, None, cause),
            }
            return;
        }
        if !self.functions[node].is_empty() {
            let egress = match self.egress(node, idx) {
                Some(d) => Some(d),
                // Routed by address, a function may give a packet with no route yet one (a
                // Mobile IPv6 home agent tunnels a packet for a home address).
                None => self
                    .routes
                    .by_address()
                    .then_some(crate::net::routes::NO_ROUTE),
            };
            if let Some(d) = egress {
                if !self.run_functions(node, idx, ingress, d, first) {
                    return;
                }
            }
        }
        let d = self.egress(node, idx);
        self.offer_on(self.held(idx), d);
    }

    /// Offers the packet at `node` to the link its route names.
    #[inline(always)]
    fn route_and_offer(&mut self, node: NodeIdx, idx: PktIdx) {
        self.route_held(node, self.held(idx));
    }

    /// As `route_and_offer`, for a packet whose size and destination are known.
    #[inline(always)]
    fn route_held(&mut self, node: NodeIdx, p: Held) {
        let d = self.routes.next_hop(node, p.dst as NodeIdx);
        self.offer_on(p, d);
    }

    /// The packet in slot `idx` as a link direction holds it.
    #[inline(always)]
    fn held(&self, idx: PktIdx) -> Held {
        let pkt = self.slab.get(idx);
        Held {
            idx,
            size: pkt.wire_bytes,
            dst: pkt.dst,
        }
    }

    /// Offers the packet to direction `d` (`None`: it has no route and is dropped). The one
    /// caller of `LinkDir::offer`, which stays inlined only so (a second call site cost 3 %).
    fn offer_on(&mut self, p: Held, d: Option<DirIdx>) {
        let now = self.now;
        let Some(d) = d else {
            // Unreachable by construction (the world checks routes of every flow, and a
            // mobile host always has one active link); counted as a queue drop on no link.
            self.free_dropped(p.idx, None, DropCause::QueueOverflow);
            return;
        };
        if let Err(cause) = self.dirs[d as usize].offer(now, p) {
            self.free_dropped(p.idx, Some(d), cause);
        }
        self.took_effect(d);
        self.sample_queue(d);
    }

    pub(super) fn on_arrive(&mut self, d: DirIdx) {
        let (i, now) = (d as usize, self.now);
        if self.pending[i].arrive == Some(now) {
            self.pending[i].arrive = None;
        }
        self.dirs[i].advance(now);
        self.book(d);
        let node = self.dirs[i].to;
        while let Some(p) = self.dirs[i].pop_arrived(now) {
            self.arrive(node, d, p);
        }
        self.arm(d);
    }

    #[inline(always)]
    fn arrive(&mut self, node: NodeIdx, via: DirIdx, p: Held) {
        self.note_mobile_arrival(node, via);
        let idx = p.idx;
        if p.dst as NodeIdx != node {
            // In transit: routed by hops, whatever it carries (cross traffic crosses two
            // routers for every sink it reaches), unless the routes are by address (Mobile
            // IPv6's care-of addresses). On the usual path the packet's slot is not read: the
            // link held its size and destination.
            if self.routes.by_address() {
                self.arrive_other(node, via, idx);
            } else if self.functions.any {
                self.forward_from(node, idx, Some(via), 0);
            } else {
                self.route_held(node, p);
            }
            return;
        }
        let pkt = self.slab.get(idx);
        if pkt.ext & crate::packet::ext::HEADERS != 0 || !pkt.proto.is_agent() {
            self.arrive_other(node, via, idx);
            return;
        }
        if self.rec.captures(node) {
            self.tap_at(node, idx);
        }
        self.deliver(via, idx);
    }

    /// A packet with extension headers, a signalling message, an outside packet, or any
    /// packet in transit when routed by address: an outside packet at its host goes to the
    /// driver, any other to the node's addresses (`arrive_addressed`).
    #[cold]
    #[inline(never)]
    fn arrive_other(&mut self, node: NodeIdx, via: DirIdx, idx: PktIdx) {
        let pkt = self.slab.get(idx);
        if pkt.proto == Proto::External && pkt.dst as NodeIdx == node {
            self.deliver_external(node, idx);
        } else {
            self.arrive_addressed(node, via, idx);
        }
    }

    /// Hands an agent's packet that reached its destination to its agent, tells the agent
    /// that sent it (ground truth), and keeps the flow's ledger.
    #[inline(always)]
    pub(super) fn deliver(&mut self, via: DirIdx, idx: PktIdx) {
        let f = self.slab.get(idx).flow as usize;
        with_ends!(self.flows[f].ends, S, R => self.deliver_as::<S, R>(f, via, idx))
    }

    /// `deliver` for a flow whose source is of kind `S` and sink of kind `R`.
    #[inline(always)]
    fn deliver_as<S: Kind, R: Kind>(&mut self, f: usize, via: DirIdx, idx: PktIdx) {
        const NONE: Payload = Payload::None;
        let now = self.now;
        // Read in its slot, freed once handed over (copying it out stalls as its copy in did,
        // see `emit`).
        let pkt = self.slab.get(idx);
        let payload = match pkt.proto {
            Proto::Datagram => &self.payloads[idx as usize],
            // Known per kind at compile time: nothing more on a TCP flow's path.
            Proto::Tcp if S::TCP_PAYLOAD => &self.payloads[idx as usize],
            _ => &NONE,
        };
        let flow = &mut self.flows[f];
        if !pkt.to_receiver {
            let source = S::of(&mut flow.agents[0]);
            source.handle_packet(now, pkt, payload);
            self.slab.release(idx);
            self.done
                .note(flow.completed_at.is_some() && source.is_complete());
            self.pump_as::<S>(f, 0);
            return;
        }
        let finished = S::of(&mut flow.agents[0])
            .fate(now, pkt, payload, Fate::Delivered)
            .source_finished;
        let arrival = R::of(&mut flow.agents[1]).handle_packet(now, pkt, payload);
        self.slab.release(idx);
        if let Some(bytes) = arrival.data {
            flow.tput.push(now.as_nanos(), bytes);
            if flow.await_new_link == Some(dir_link(via)) {
                flow.await_new_link = None;
                flow.first_on_new_link = Some(now);
                flow.tput.set_first_new(now.as_nanos());
            }
        }
        if let Some(after) = arrival.delivered {
            let before = std::mem::replace(&mut flow.delivered, after);
            if let Some(w) = &mut flow.window {
                w.note(now, after);
            }
            if let Some(bins) = &mut flow.rx_bins {
                if after > before {
                    bins.add(now, after - before);
                }
            }
            if flow.completed_at.is_none() && after >= self.spec.flows[f].bytes {
                flow.completed_at = Some(now);
                self.done.note(S::of(&mut flow.agents[0]).is_complete());
            }
        }
        if finished {
            self.finish_source(f);
        }
        // Only the agent that received can have something new to say (the two are separate
        // machines).
        if arrival.respond {
            self.pump_as::<R>(f, 1);
        }
    }

    /// Flow `f`'s source has sent all it will and none of it is left in the network: its
    /// sink is told, and the flow is complete if it was not by its bytes.
    #[cold]
    fn finish_source(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        if !flow.source_done {
            flow.source_done = true;
            flow.agents[1].peer_finished();
        }
        if flow.completed_at.is_none() {
            flow.completed_at = Some(now);
        }
        self.done.note(true);
    }

    /// Tells the agent that sent the packet in slot `idx` of its `fate` in the network (a
    /// copy made or absorbed; drops go through `free_dropped`).
    pub(super) fn tell_fate(&mut self, idx: PktIdx, fate: Fate) {
        let pkt = self.slab.get(idx);
        if !pkt.proto.is_agent() {
            return;
        }
        let payload = self.payload(idx);
        let pkt = *pkt;
        self.fate(&pkt, &payload, fate);
    }

    /// Tells the agent that sent `pkt` of its `fate`, and what it made of it.
    #[inline(always)]
    fn fate(&mut self, pkt: &Packet, payload: &Payload, fate: Fate) -> FateOut {
        let now = self.now;
        let flow = &mut self.flows[pkt.flow as usize];
        with_ends!(flow.ends, S, R => if pkt.to_receiver {
            S::of(&mut flow.agents[0]).fate(now, pkt, payload, fate)
        } else {
            R::of(&mut flow.agents[1]).fate(now, pkt, payload, fate)
        })
    }

    /// Frees a dropped packet and books the drop to its flow (and to the agent that sent it:
    /// ground truth).
    pub(super) fn free_dropped(&mut self, idx: PktIdx, d: Option<DirIdx>, cause: DropCause) {
        let proto = self.slab.get(idx).proto;
        if !proto.is_agent() {
            self.drop_not_agent(idx, d, cause);
            return;
        }
        let payload = self.payload(idx);
        let pkt = self.slab.remove(idx);
        let f = pkt.flow as usize;
        let slot = cause.slot();
        let flow = &mut self.flows[f];
        if let Some(d) = d {
            flow.drops[d as usize][slot] += 1;
        }
        let out = self.fate(&pkt, &payload, Fate::Dropped);
        if let (Some(ds), Some((offset, len))) = (&mut self.rec.drops, out.drop_ref) {
            ds.push(self.now, pkt.flow, offset, len, d, slot as u8);
        }
        if out.source_finished {
            self.finish_source(f);
        }
    }
}
