//! A packet in the simulated network: a TCP segment with the fields routing and recording
//! need. Packets live in a slab and move between components by index; nothing is allocated
//! per packet once the slab has grown to the largest number in the network at once.

use crate::tcp::{Segment, TxKind};
use crate::time::Time;

pub type PktIdx = u32;

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub seg: Segment,
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// True for segments from the data sender towards the data receiver.
    pub to_receiver: bool,
    pub src: u32,
    pub dst: u32,
    /// Bytes on the wire (IP header included): what links serialise and queues count.
    pub wire_bytes: u32,
    /// IPv4 identification field (per-sender counter), for captures.
    pub ip_id: u16,
    /// Why the sender emitted it (ground truth; invisible to the receiver).
    pub kind: TxKind,
    /// Which copy of its bytes this is (ground truth, see `record::truth`).
    pub copy: u16,
    /// When it left its sender.
    pub sent_at: Time,
}

/// Storage for packets in the network, reused through a free list.
#[derive(Default)]
pub struct Slab {
    slots: Vec<Packet>,
    free: Vec<PktIdx>,
}

impl Slab {
    #[inline(always)]
    pub fn insert(&mut self, p: Packet) -> PktIdx {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktIdx
        }
    }
    pub fn get(&self, i: PktIdx) -> &Packet {
        &self.slots[i as usize]
    }
    pub fn get_mut(&mut self, i: PktIdx) -> &mut Packet {
        &mut self.slots[i as usize]
    }
    /// Frees a slot whose packet has been read in place.
    pub fn release(&mut self, i: PktIdx) {
        self.free.push(i);
    }
    pub fn remove(&mut self, i: PktIdx) -> Packet {
        self.free.push(i);
        self.slots[i as usize]
    }
    /// Packets currently stored.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    /// Slots ever allocated: the high-water mark of packets in the network.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
