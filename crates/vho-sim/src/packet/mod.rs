//! A packet in the simulated network: a TCP segment, an agent's datagram (`crate::agent`), or
//! a signalling message of Mobile IPv6 (`crate::mip`), with the fields routing and recording
//! need. Packets live in a slab and move
//! between components by index; nothing is allocated per packet once the slab has grown to the
//! largest number in the network at once.
//!
//! Addresses are dense indices: below the number of nodes, a node's own address (a mobile
//! node's is its home address); above, a mobile interface's care-of address
//! (`crate::mip::Addresses`). A packet's `src`/`dst` are its outermost header's, what routers
//! route on; a tunnelled packet keeps its inner header's in `inner_src`/`inner_dst`.

pub mod signal;

use crate::tcp::{Segment, TxKind};
use crate::time::Time;
pub use signal::Signal;

pub type PktIdx = u32;

/// `Packet::flow` of a packet that belongs to no TCP flow (a signalling message).
pub const NO_FLOW: u32 = u32::MAX;

/// What a packet is: exactly one of these (its extension headers are [`ext`] bits apart).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Proto {
    /// A TCP segment of a flow (`Packet::seg`).
    #[default]
    Tcp,
    /// A Mobile IPv6 signalling message (`Packet::sig`), not a TCP segment.
    Signal,
    /// A packet from outside the simulator (the emulator's real packets, `world::external`):
    /// `Packet::flow` is the driver's token for its bytes; nothing in the world reads more
    /// than its addresses and size, and `inner_dst`: when not zero, one more than the access
    /// link it must cross at the mobile's end (a multipath host's per-interface address).
    External,
    /// An agent's UDP datagram (`crate::agent`: TFRC, CBR): `seg` is unused, what it carries
    /// rides beside the slab (`agent::Payload`).
    Datagram,
    /// An agent's datagram that carries nothing but its size and addresses (cross traffic): no
    /// payload is written or read for it.
    BareDatagram,
}

/// `Packet::ext` bits: the headers a packet carries beyond its own, any combination, and one
/// binding that puts nothing on the wire (`PINNED`).
pub mod ext {
    /// IPv6 in IPv6 (RFC 2473): `src`/`dst` are the tunnel's, `inner_*` the packet's.
    pub const TUNNEL: u8 = 1;
    /// A Home Address destination option (RFC 6275 §6.3): sent from a care-of address on
    /// behalf of the home address, the source's owner.
    pub const HAO: u8 = 2;
    /// A type 2 routing header (RFC 6275 §6.4): sent to a care-of address for the home
    /// address, the destination's owner.
    pub const RH2: u8 = 4;
    /// A Packet Identifier Option in a Destination Options header right after the tunnel
    /// header (Naoe et al., "Mobility transparent ... bicasting", §IV-B, Fig. 3): a copy the
    /// home agent bicast (`Packet::pio`). Kept after the tunnel exit strips the option's
    /// bytes, so that the mobile router's combiner (`net::nemo_combiner`) can read it; the
    /// combiner clears it.
    pub const PIO: u8 = 8;
    /// Bound to an access link, as a socket bound to its interface (`SO_BINDTODEVICE`), not a
    /// header: the packet leaves a multipath host over, or reaches it across, the link
    /// `inner_dst - 1` whatever the route says (an MPTCP subflow's segment, an outside packet
    /// of `vho emulate --multipath`; `World::multihome`). Only an untunnelled packet has it.
    pub const PINNED: u8 = 16;
    /// The bits a packet's end looks at before it delivers it (`PINNED` only chose the link).
    pub const HEADERS: u8 = TUNNEL | HAO | RH2 | PIO;
}

#[derive(Clone, Copy, Debug, Default)]
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
    /// What the packet is.
    pub proto: Proto,
    /// `ext::*` bits: the extension headers it carries; zero for a plain packet (every
    /// packet of an IPv4 run).
    pub ext: u8,
    /// The inner header's addresses of a tunnelled packet (`ext::TUNNEL`).
    pub inner_src: u32,
    pub inner_dst: u32,
    /// The signalling message (`Proto::Signal`); `Signal::None` otherwise.
    pub sig: Signal,
    /// The Packet Identifier Option of a bicast copy (`ext::PIO`); zero otherwise. Two u16
    /// that fit in the struct's padding: `Packet` stays 136 bytes (tested).
    pub pio: Pio,
}

impl Proto {
    /// Whether a packet of this kind belongs to a flow's agents (`crate::agent`).
    #[inline(always)]
    pub fn is_agent(self) -> bool {
        matches!(self, Proto::Tcp | Proto::Datagram | Proto::BareDatagram)
    }
    /// Whether it is an agent's datagram (UDP).
    #[inline(always)]
    pub fn is_datagram(self) -> bool {
        matches!(self, Proto::Datagram | Proto::BareDatagram)
    }
}

impl Packet {
    /// Whether it carries a TCP segment of a flow (not a signalling message, not an outside
    /// packet, not an agent's datagram).
    #[inline(always)]
    pub fn is_tcp(&self) -> bool {
        self.proto == Proto::Tcp
    }
}

/// The Packet Identifier Option of one copy (Fig. 3; §IV-B): "a 16-bit sequence number field
/// and a 16-bit timestamp field". The sequence number "is incremented by one each time the HA
/// duplicates a packet"; the timestamp is T_sent^n, "the elapsed time from T_bicasting" "with
/// 1 ms clock resolution". Both wrap modulo 2^16 and are compared with serial-number
/// arithmetic (`net::combine::serial_diff`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Pio {
    pub seq: u16,
    pub sent_ms: u16,
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
    /// A slot holding `Packet::default()`, to be filled in place: a small packet built on the
    /// stack and then copied in stalls the copy's loads on the narrower stores just made (a
    /// cross-traffic datagram's `insert`: 5 % of the event loop's cycles by `perf annotate`).
    #[inline(always)]
    pub fn insert_default(&mut self) -> PktIdx {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = Packet::default();
            i
        } else {
            self.slots.push(Packet::default());
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_packet_stays_136_bytes() {
        // The slab's hot copies (`World::emit`) are sized by it: the PIO's two u16 (seed
        // 002 Fig. 3) had to fit in padding, and a TFRC flow's header rides beside the slab
        // (`agent::Payload`) rather than growing every packet.
        assert_eq!(std::mem::size_of::<super::Packet>(), 136);
    }
}
