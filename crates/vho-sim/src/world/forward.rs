//! Packets moving: endpoints transmitting, nodes forwarding, links delivering, drops.

use super::{Event, World};
use crate::link::{DropCause, Held};
use crate::net::routes::{dir_link, DirIdx};
use crate::packet::{Packet, PktIdx};
use crate::record::series::TcpSample;
use crate::spec::NodeIdx;
use crate::tcp::Transmit;

/// Sender side 0, receiver side 1.
const SENDER: usize = 0;

impl World {
    /// Lets one endpoint transmit all it wants now, then re-arms its wake-up.
    pub(super) fn pump(&mut self, f: usize, side: usize) {
        let now = self.now;
        if !self.flows[f].started {
            return;
        }
        loop {
            let flow = &mut self.flows[f];
            let tx = if side == SENDER {
                flow.sender.poll_transmit(now)
            } else {
                flow.receiver.poll_transmit(now)
            };
            let Some(tx) = tx else { break };
            self.emit(f, side, tx);
        }
        let flow = &mut self.flows[f];
        let next = if side == SENDER {
            flow.sender.poll_timeout()
        } else {
            flow.receiver.poll_timeout()
        };
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
        if side == SENDER {
            self.sample_tcp(f);
        }
    }

    fn sample_tcp(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        if let Some(series) = &mut flow.series {
            let p = flow.sender.probe();
            series.push(
                self.now,
                TcpSample {
                    cwnd: p.cwnd,
                    ssthresh: p.ssthresh,
                    srtt_ns: p.srtt.as_nanos(),
                    rttvar_ns: p.rttvar.as_nanos(),
                    rto_ns: p.rto.as_nanos(),
                    flight: p.flight_size,
                },
            );
            if let (Some(ps), Some(c)) = (&mut flow.probe_series, flow.sender.capacity_estimate()) {
                ps.push(self.now, c);
            }
        }
    }

    /// Wraps a segment into a packet at its host and sends it on its way.
    fn emit(&mut self, f: usize, side: usize, tx: Transmit) {
        let spec = &self.spec.flows[f];
        let (src, dst) = if side == SENDER {
            (spec.src, spec.dst)
        } else {
            (spec.dst, spec.src)
        };
        let seg = tx.segment;
        let wire_bytes = spec.tcp.header_model.segment_bytes(&seg);
        let flow = &mut self.flows[f];
        let ip_id = flow.ip_id[side];
        flow.ip_id[side] = ip_id.wrapping_add(1);
        let mut copy = 0;
        let seq_len = seg.data_seq_len();
        if side == SENDER && seq_len > 0 {
            let base = *flow.data_base.get_or_insert(seg.seq);
            copy = flow
                .truth
                .on_send(seg.seq - base, seq_len, tx.kind, seg.len > 0);
        }
        // Written straight into its slot: a packet built on the stack and then copied in
        // stalled the copy (`perf annotate`: a fifth of `pump`'s cycles on that store).
        let idx = self.slab.insert(Packet {
            seg,
            flow: f as u32,
            to_receiver: side == SENDER,
            src: src as u32,
            dst: dst as u32,
            wire_bytes,
            ip_id,
            kind: tx.kind,
            copy,
            sent_at: self.now,
            net: 0,
            inner_src: 0,
            inner_dst: 0,
            sig: crate::mip::Signal::None,
            pio: Default::default(),
        });
        if self.capture[src] {
            let pkt = *self.slab.get(idx);
            self.tap(src, &pkt);
        }
        self.forward(src, idx, None);
    }

    pub(super) fn tap(&mut self, node: NodeIdx, pkt: &Packet) {
        if !self.capture[node] {
            return;
        }
        let now = self.now;
        for (n, tap) in self.taps.iter_mut() {
            if *n == node {
                tap.packet(now, pkt);
            }
        }
    }

    /// Offers the packet at `node` (arrived over `ingress`, or originated there) to the link
    /// its route names, through the node's functions.
    #[inline(always)]
    pub(super) fn forward(&mut self, node: NodeIdx, idx: PktIdx, ingress: Option<DirIdx>) {
        // One flag on the usual path (no node function anywhere): passing the ingress and
        // testing the node's list on every hop cost 0.9 % to 3.3 % of the 20 MB cell's
        // instructions (callgrind, run_timed).
        if self.any_functions {
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
        if self.multihomed {
            let pkt = self.slab.get(idx);
            if pkt.net & crate::packet::net::EXTERNAL != 0 && pkt.inner_dst != 0 {
                match self.pinned_egress(node, idx) {
                    Ok(d) => self.offer_on(self.held(idx), Some(d)),
                    Err(cause) => self.free_dropped(idx, None, cause),
                }
                return;
            }
        }
        if !self.functions[node].is_empty() {
            let egress = match self.egress(node, idx) {
                Some(d) => Some(d),
                // A Mobile IPv6 entity may give a packet with no route yet one (a home agent
                // tunnels a packet for a home address).
                None => self.mip.is_some().then_some(crate::net::routes::NO_ROUTE),
            };
            if let Some(d) = egress {
                if !self.run_functions(node, idx, ingress, d, first) {
                    return;
                }
            }
        }
        if self.mip.is_some() {
            let d = self.egress(node, idx);
            self.offer_on(self.held(idx), d);
        } else {
            self.route_and_offer(node, idx);
        }
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

    fn arrive(&mut self, node: NodeIdx, via: DirIdx, p: Held) {
        self.note_mobile_arrival(node, via);
        let idx = p.idx;
        if p.dst as NodeIdx != node {
            // In transit: routed by hops, whatever it carries (cross traffic crosses two
            // routers for every sink it reaches), unless Mobile IPv6 routes by address. On
            // the usual path the packet's slot is not read: the link held its size and
            // destination.
            if self.mip.is_some() {
                self.arrive_other(node, via, idx);
            } else if self.any_functions {
                self.forward_from(node, idx, Some(via), 0);
            } else {
                self.route_held(node, p);
            }
            return;
        }
        let pkt = self.slab.get(idx);
        if pkt.net != 0 {
            if pkt.net == crate::packet::net::CROSS {
                // A quarter of the events of Chen et al.'s world: kept off the cold chain.
                self.deliver_cross(node, idx);
            } else {
                self.arrive_other(node, via, idx);
            }
            return;
        }
        if self.capture[node] {
            let pkt = *self.slab.get(idx);
            self.tap(node, &pkt);
        }
        self.deliver_tcp(via, idx);
    }

    /// A packet that is more than a plain TCP segment, or any packet of a Mobile IPv6 run
    /// (routed by address): an outside packet at its host goes to the driver.
    #[cold]
    #[inline(never)]
    fn arrive_other(&mut self, node: NodeIdx, via: DirIdx, idx: PktIdx) {
        let pkt = self.slab.get(idx);
        if pkt.net & crate::packet::net::EXTERNAL != 0 && pkt.dst as NodeIdx == node {
            self.deliver_external(node, idx);
        } else if pkt.net == crate::packet::net::TFRC && pkt.dst as NodeIdx == node {
            self.deliver_tfrc(node, via, idx);
        } else if pkt.net == crate::packet::net::CROSS && pkt.dst as NodeIdx == node {
            self.deliver_cross(node, idx);
        } else if self.mip.is_some() {
            self.mip_arrive(node, via, idx);
        } else {
            self.forward(node, idx, Some(via));
        }
    }

    /// Hands a TCP packet that reached its destination to its endpoint.
    #[inline(always)]
    pub(super) fn deliver_tcp(&mut self, via: DirIdx, idx: PktIdx) {
        // Read in its slot, freed once handed over (copying it out stalls as its copy in did,
        // see `emit`).
        let pkt = self.slab.get(idx);
        let now = self.now;
        let f = pkt.flow as usize;
        let flow = &mut self.flows[f];
        if pkt.to_receiver {
            if let (Some(base), true) = (flow.data_base, pkt.seg.data_seq_len() > 0) {
                flow.truth.on_deliver(pkt.seg.seq - base, pkt.copy);
            }
            if pkt.seg.len > 0 {
                flow.tput.push(now.as_nanos(), pkt.seg.len as u64);
                if flow.await_new_link == Some(dir_link(via)) {
                    flow.await_new_link = None;
                    flow.first_on_new_link = Some(now);
                    flow.tput.set_first_new(now.as_nanos());
                }
            }
            let before = flow.receiver.delivered_bytes();
            flow.receiver.handle_segment(now, &pkt.seg);
            self.slab.release(idx);
            let after = flow.receiver.delivered_bytes();
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
                self.maybe_done |= flow.sender.is_complete();
            }
            // Only the endpoint that received can have something new to say (the two are
            // separate machines).
            self.pump(f, 1);
        } else {
            flow.sender.handle_segment(now, &pkt.seg);
            self.slab.release(idx);
            self.maybe_done |= flow.completed_at.is_some() && flow.sender.is_complete();
            self.pump(f, 0);
        }
    }

    /// Frees a dropped packet and books the drop to its flow (and the ground truth).
    pub(super) fn free_dropped(&mut self, idx: PktIdx, d: Option<DirIdx>, cause: DropCause) {
        if !self.slab.get(idx).is_tcp() {
            self.drop_not_tcp(idx, d, cause);
            return;
        }
        let pkt = self.slab.remove(idx);
        let flow = &mut self.flows[pkt.flow as usize];
        let slot = DropCause::ALL.iter().position(|&c| c == cause).unwrap_or(0);
        if let Some(d) = d {
            flow.drops[d as usize][slot] += 1;
        }
        if pkt.to_receiver && pkt.seg.data_seq_len() > 0 {
            if let Some(base) = flow.data_base {
                let offset = pkt.seg.seq - base;
                let gone = flow.truth.on_drop(offset, pkt.copy, pkt.seg.len > 0);
                if gone && self.spec.flows[pkt.flow as usize].tcp.oracle {
                    // The oracle alone learns of a segment that is really lost.
                    let len = pkt.seg.data_seq_len();
                    flow.sender.handle_drop_truth(self.now, pkt.seg.seq, len);
                }
                if let Some(ds) = &mut self.drop_series {
                    ds.push(self.now, pkt.flow, offset, pkt.seg.len, d, slot as u8);
                }
            }
        }
    }
}
