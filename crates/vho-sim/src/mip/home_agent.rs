//! The home agent (RFC 6275 §10): a binding cache from home address to care-of address, kept
//! by Binding Updates it acknowledges (§10.3.1), and the tunnel that carries every packet for a
//! registered home address to its care-of address (§10.4.1, IPv6 in IPv6 per RFC 2473).
//! Packets the mobile reverse-tunnels to it are unwrapped by the world, as at any tunnel exit.
//!
//! A mobile router's mobile network (NEMO Basic Support, RFC 3963 §6.1-6.2) is tunnelled as its
//! home address is; during a bicasting window ([`Bicast`], seed 002 §IV-B) each such packet
//! leaves twice, once per care-of address, both copies with one Packet Identifier Option.

use super::bicast::Bicast;
use super::message::{Addr, PIO_BYTES};
use super::{encapsulate, signal_packet, Addresses, Signal};
use crate::function::{Counters, Verdict};
use crate::packet::{ext, Packet};
use crate::time::Time;
use std::collections::VecDeque;

pub struct HomeAgent {
    addr: Addr,
    addresses: Addresses,
    /// (home address, care-of address, last sequence number accepted).
    bindings: Vec<(Addr, Addr, u16)>,
    out: VecDeque<Packet>,
    encapsulated: u64,
    updates: u64,
    no_binding: u64,
    /// (mobile network node, its mobile router's home address): RFC 3963 §6.1's prefix
    /// table, one node per entry.
    network: Vec<(Addr, Addr)>,
    bicast: Option<Bicast>,
}

impl HomeAgent {
    /// `bindings`: the (home, care-of) registrations in place at time zero.
    pub fn new(addr: Addr, addresses: Addresses, bindings: &[(Addr, Addr)]) -> HomeAgent {
        HomeAgent {
            addr,
            addresses,
            bindings: bindings.iter().map(|&(h, c)| (h, c, 0)).collect(),
            out: VecDeque::new(),
            encapsulated: 0,
            updates: 0,
            no_binding: 0,
            network: Vec::new(),
            bicast: None,
        }
    }

    /// Serves `router`'s mobile network `nodes` (RFC 3963 §6.2), bicasting per `bicast`.
    pub fn serve_network(&mut self, router: Addr, nodes: &[Addr], bicast: Option<Bicast>) {
        self.network.extend(nodes.iter().map(|&n| (n, router)));
        self.bicast = bicast;
    }

    /// Packets duplicated by bicasting so far.
    pub fn bicast_count(&self) -> u64 {
        self.bicast.as_ref().map_or(0, |b| b.duplicated)
    }

    /// Whether a bicast copy waits in `poll_transmit` (the world sends it at once).
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }

    /// The care-of address registered for `home`.
    pub fn binding(&self, home: Addr) -> Option<Addr> {
        self.bindings.iter().find(|b| b.0 == home).map(|b| b.1)
    }

    /// A packet forwarded through the home agent: one for a registered home address is
    /// tunnelled to its care-of address; one for an unregistered home address is dropped.
    pub fn on_packet(&mut self, now: Time, pkt: &mut Packet) -> Verdict {
        if pkt.ext & ext::TUNNEL != 0 {
            return Verdict::Pass;
        }
        let home = self
            .network
            .iter()
            .find(|n| n.0 == pkt.dst)
            .map_or(pkt.dst, |n| n.1);
        if let Some(bc) = self.bicast.as_mut().filter(|b| b.applies(now, pkt.dst)) {
            // Seed 002 §IV-B: "the HA captures a packet destined for the MR, duplicates it
            // and routes them to the MR through the two tunnels", the PIO "inserted after
            // IPv6-in-IPv6 tunnel header".
            let pio = bc.stamp(now);
            let coas = bc.coas;
            pkt.pio = pio;
            pkt.ext |= ext::PIO;
            pkt.wire_bytes += PIO_BYTES;
            let mut copy = *pkt;
            encapsulate(pkt, self.addr, coas[0]);
            encapsulate(&mut copy, self.addr, coas[1]);
            self.encapsulated += 2;
            self.out.push_back(copy);
            return Verdict::Pass;
        }
        let Some(b) = self.bindings.iter().find(|b| b.0 == home) else {
            if self.is_home_address(pkt.dst) {
                self.no_binding += 1;
                return Verdict::Drop;
            }
            return Verdict::Pass;
        };
        encapsulate(pkt, self.addr, b.1);
        self.encapsulated += 1;
        Verdict::Pass
    }

    fn is_home_address(&self, a: Addr) -> bool {
        self.addresses.coas.iter().any(|c| c.0 as Addr == a)
    }

    /// A signalling message for the home agent: a home registration is accepted (RFC 6275
    /// §10.3.1: a sequence number newer than the last accepted, modulo 2^16) and
    /// acknowledged to the care-of address it came from.
    pub fn on_deliver(&mut self, now: Time, pkt: &Packet) {
        let Signal::BindingUpdate {
            seq,
            lifetime_4s,
            home: true,
            ack,
        } = pkt.sig
        else {
            return;
        };
        let coa = pkt.src;
        let home = self.addresses.owner(coa) as Addr;
        let (status, ba_seq) = match self.bindings.iter_mut().find(|b| b.0 == home) {
            Some(b) if seq.wrapping_sub(b.2) as i16 > 0 || b.2 == 0 => {
                (b.1, b.2) = (coa, seq);
                (0, seq)
            }
            // §9.5.1: a sequence number not newer than the last accepted is rejected with
            // status 135 (§6.1.8), "and the last accepted sequence number in the Sequence
            // Number field of the Binding Acknowledgement".
            Some(b) => (135, b.2),
            None => {
                self.bindings.push((home, coa, seq));
                (0, seq)
            }
        };
        self.updates += 1;
        if ack {
            let ba = Signal::BindingAck {
                status,
                seq: ba_seq,
                lifetime_4s,
            };
            self.out.push_back(signal_packet(now, self.addr, coa, ba));
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    pub fn counters(&self) -> Counters {
        vec![
            ("packets_tunnelled", self.encapsulated),
            ("binding_updates", self.updates),
            ("dropped_without_binding", self.no_binding),
            ("packets_bicast", self.bicast_count()),
        ]
    }
}
