//! `link-flow-control`: flow control between the IP layer and a slow link's device queue
//! (thesis §7.2.3, 003 l.1994-1999: "the packets already sent to the link layer queue, cannot
//! possibly be rerouted to another interface. To reduce the number of packets queued in the
//! link layer buffer, the IP sending process should delay putting packets in the queue of a
//! slow link … flow control between the IP layer and the link layer"; §8.1 l.2047-2049). It
//! is the remedy `link-flow-control`.
//!
//! The node keeps an IP-layer queue in front of its access links. A packet whose route leaves
//! on an access link enters that link's device queue only while the device queue holds less
//! than the link's bandwidth-delay product (and always when the device queue is empty: one
//! packet waits besides the one on the air, whatever the product); otherwise it waits in the
//! IP queue, in arrival order. A waiting packet is routed when it leaves the IP queue, so after
//! a handover it takes the new link: only what the device queue holds drains over the old one.
//! The IP queue and the device queue of a packet's link together hold no more than the largest
//! configured limit among the links the function governs (the slow link's, as a rule), so the
//! remedy moves the slow link's queue up a layer without making it longer, and what it holds
//! at a handover to a link with a shorter queue is not lost for that.

use super::function::{Counters, Fabric, Hop, LinkView, Verdict};
use super::routes::DirIdx;
use crate::link::queue::Limit;
use crate::packet::{Packet, PktIdx};
use crate::spec::NodeIdx;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
struct Held {
    idx: PktIdx,
    dst: NodeIdx,
    size: u32,
    /// The direction its route named when it was held.
    egress: DirIdx,
}

pub struct LinkFlowControl {
    /// Per direction leaving the node (indexed by `DirIdx`): the device queue's allowance in
    /// bytes, for the access links' directions this function governs.
    budget: Vec<Option<u64>>,
    /// What the IP queue and a device queue hold together at most.
    capacity: Limit,
    held: VecDeque<Held>,
    held_bytes: u64,
    // Counters.
    total_held: u64,
    released: u64,
    rerouted: u64,
    dropped: u64,
    max_held: usize,
}

impl LinkFlowControl {
    pub fn new(budget: Vec<Option<u64>>, capacity: Limit) -> Self {
        LinkFlowControl {
            budget,
            capacity,
            held: VecDeque::new(),
            held_bytes: 0,
            total_held: 0,
            released: 0,
            rerouted: 0,
            dropped: 0,
            max_held: 0,
        }
    }

    fn budget_of(&self, d: DirIdx) -> Option<u64> {
        self.budget.get(d as usize).copied().flatten()
    }

    /// Whether a packet of `size` may join the device queue now.
    fn device_has_room(view: &LinkView, size: u32, budget: u64) -> bool {
        view.waiting_packets == 0 || view.waiting_bytes + size as u64 <= budget
    }

    pub fn held(&self) -> usize {
        self.held.len()
    }

    pub fn on_packet(
        &mut self,
        idx: PktIdx,
        pkt: &Packet,
        hop: Hop,
        fabric: &dyn Fabric,
    ) -> Verdict {
        let Some(budget) = self.budget_of(hop.egress) else {
            return Verdict::Pass;
        };
        let view = fabric.link(hop.egress);
        let size = pkt.wire_bytes;
        if self.held.is_empty() && Self::device_has_room(&view, size, budget) {
            return Verdict::Pass;
        }
        // Room in the two queues together, counted as the capacity counts.
        let fits = match self.capacity {
            Limit::Packets(n) => (self.held.len() + view.waiting_packets) < n as usize,
            Limit::Bytes(b) => self.held_bytes + view.waiting_bytes + size as u64 <= b,
        };
        if !fits {
            self.dropped += 1;
            return Verdict::Drop;
        }
        self.held.push_back(Held {
            idx,
            dst: pkt.dst as NodeIdx,
            size,
            egress: hop.egress,
        });
        self.held_bytes += size as u64;
        self.total_held += 1;
        self.max_held = self.max_held.max(self.held.len());
        Verdict::Hold
    }

    /// The head of the IP queue, if its route's device queue has room now (or its route
    /// leaves on a direction this function does not govern, or on none: the world then drops
    /// it as it drops any packet without a route).
    pub fn poll_release(&mut self, _now: Time, fabric: &dyn Fabric) -> Option<PktIdx> {
        let head = *self.held.front()?;
        if let Some(d) = fabric.route(head.dst) {
            if let Some(budget) = self.budget_of(d) {
                if !Self::device_has_room(&fabric.link(d), head.size, budget) {
                    return None;
                }
            }
            if d != head.egress {
                self.rerouted += 1;
            }
        }
        self.held.pop_front();
        self.held_bytes -= head.size as u64;
        self.released += 1;
        Some(head.idx)
    }

    /// When the head's device queue next shrinks.
    pub fn poll_timeout(&self, fabric: &dyn Fabric) -> Option<Time> {
        let head = self.held.front()?;
        let d = fabric.route(head.dst)?;
        fabric.link(d).next_dequeue
    }

    pub fn counters(&self) -> Counters {
        vec![
            ("packets_held", self.total_held),
            ("packets_released", self.released),
            ("packets_rerouted", self.rerouted),
            ("packets_dropped", self.dropped),
            ("max_held", self.max_held as u64),
            ("held_at_end", self.held.len() as u64),
        ]
    }
}
