//! A packet at the node that owns its destination address (a node's own, or one of a mobile's
//! care-of addresses): the Mobile IPv6 headers it carries taken off, and what the node then does
//! with it. Sans-IO: the driver hands in the packet and the node's entities, and is told whether
//! to forward the inner packet, drop it, or give it to the node's agent or its entities.
//!
//! The order is the receiving stack's: the tunnel first (RFC 2473 §3.2, the outermost header),
//! then the type 2 routing header (RFC 6275 §6.4), then the Home Address option, which the node
//! first checks against its binding (RFC 6275 §9.3.1).

use super::{decapsulate, message, Addr, Addresses};
use crate::packet::{ext, Packet};
use crate::spec::NodeIdx;
use crate::time::Time;

/// The node's Mobile IPv6 entities, as header processing asks them; the driver implements it
/// over the node's functions.
pub trait Entities {
    /// A data packet reached the node tunnelled or with a routing header, as it came (before
    /// anything is stripped), sent to `to`: what a mobile node reads of its correspondents
    /// (RFC 6275 §11.3.1, route optimisation started on traffic).
    fn on_inbound(&mut self, now: Time, pkt: &Packet, to: Addr);
    /// Whether the node accepts a packet with a Home Address option (RFC 6275 §9.3.1: a
    /// correspondent needs a binding for the care-of address it came from).
    fn admit(&mut self, now: Time, pkt: &Packet) -> bool;
}

/// What the node does with the packet once its headers are off.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Inbound {
    /// A tunnel ended here and the packet inside is for another node (a mobile router's
    /// network): the exit point forwards it (RFC 2473 §3.2).
    ForwardInner,
    /// Refused at the correspondent (RFC 6275 §9.3.1): sent from a care-of address its binding
    /// does not have, a handover's loss.
    Refused,
    /// For the node's agent (a flow's endpoint), addressed as the agent knows it.
    ToAgent,
    /// For the node's entities (signalling, or a packet no agent takes).
    ToEntities,
}

/// Takes the Mobile IPv6 headers off `pkt`, which reached `node`, the owner of its destination
/// address. A data packet's addresses become the ones its endpoints know (the home
/// addresses); signalling keeps its wire addresses, as an entity reads the care-of address from
/// the source and the home address from its owner (what RFC 6275 §9.3.1's option swap would
/// give it).
pub fn receive<E: Entities + ?Sized>(
    now: Time,
    node: NodeIdx,
    pkt: &mut Packet,
    addresses: &Addresses,
    entities: &mut E,
) -> Inbound {
    let data = pkt.is_tcp();
    if data && pkt.ext & (ext::TUNNEL | ext::RH2) != 0 {
        entities.on_inbound(now, pkt, pkt.dst);
    }
    if pkt.ext & ext::TUNNEL != 0 {
        decapsulate(pkt);
        if pkt.dst as NodeIdx != node {
            return Inbound::ForwardInner;
        }
    }
    if data && pkt.ext & ext::RH2 != 0 {
        pkt.dst = node as Addr;
        pkt.wire_bytes -= message::RH2_BYTES;
        pkt.ext &= !ext::RH2;
    }
    if data && pkt.ext & ext::HAO != 0 {
        if !entities.admit(now, pkt) {
            return Inbound::Refused;
        }
        pkt.src = addresses.owner(pkt.src) as Addr;
        pkt.wire_bytes -= message::HAO_BYTES;
        pkt.ext &= !ext::HAO;
    }
    if pkt.proto.is_agent() {
        Inbound::ToAgent
    } else {
        Inbound::ToEntities
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mip::{encapsulate, signal_packet, Signal};
    use crate::packet::Proto;

    /// Nodes 0 (correspondent), 1 (home agent), 2 (mobile); care-of addresses 3 and 4, the
    /// mobile's on links 0 and 1.
    fn addresses() -> Addresses {
        Addresses {
            nodes: 3,
            coas: vec![(2, 0), (2, 1)],
        }
    }

    #[derive(Default)]
    struct Seen {
        inbound: Vec<Addr>,
        admit: bool,
        asked: u32,
    }

    impl Entities for Seen {
        fn on_inbound(&mut self, _: Time, _: &Packet, to: Addr) {
            self.inbound.push(to);
        }
        fn admit(&mut self, _: Time, _: &Packet) -> bool {
            self.asked += 1;
            self.admit
        }
    }

    fn data(src: Addr, dst: Addr) -> Packet {
        Packet {
            src,
            dst,
            wire_bytes: 1500,
            ..Packet::default()
        }
    }

    #[test]
    fn a_tunnel_exit_for_another_node_forwards_the_inner_packet() {
        // RFC 2473 §3.2: the exit point takes the tunnel header off and forwards what it
        // unwrapped by its own destination (a mobile router's network node, 0 here).
        let mut p = data(1, 0);
        encapsulate(&mut p, 1, 3);
        let mut e = Seen::default();
        assert_eq!(
            receive(Time::ZERO, 2, &mut p, &addresses(), &mut e),
            Inbound::ForwardInner
        );
        assert_eq!((p.src, p.dst, p.wire_bytes), (1, 0, 1500));
        assert_eq!(p.ext, 0);
        // The mobile saw it arrive tunnelled at its care-of address.
        assert_eq!(e.inbound, vec![3]);
    }

    #[test]
    fn a_routing_header_gives_the_agent_the_home_address() {
        // RFC 6275 §9.3.2: a correspondent sends to the care-of address with a type 2 routing
        // header naming the home address; the mobile's stack delivers it to the home address.
        let mut p = data(0, 4);
        p.ext = ext::RH2;
        p.wire_bytes += message::RH2_BYTES;
        let mut e = Seen::default();
        assert_eq!(
            receive(Time::ZERO, 2, &mut p, &addresses(), &mut e),
            Inbound::ToAgent
        );
        assert_eq!((p.dst, p.wire_bytes, p.ext), (2, 1500, 0));
        assert_eq!(e.inbound, vec![4]);
    }

    #[test]
    fn a_home_address_option_without_a_binding_is_refused_else_the_source_is_the_home() {
        // RFC 6275 §9.3.1: a packet with a Home Address option is accepted only with a binding
        // for its care-of address; accepted, its source becomes the home address.
        let mut p = data(3, 0);
        p.ext = ext::HAO;
        p.wire_bytes += message::HAO_BYTES;
        let mut refusing = Seen::default();
        let mut q = p;
        assert_eq!(
            receive(Time::ZERO, 0, &mut q, &addresses(), &mut refusing),
            Inbound::Refused
        );
        assert_eq!(q.src, 3);
        let mut admitting = Seen {
            admit: true,
            ..Seen::default()
        };
        assert_eq!(
            receive(Time::ZERO, 0, &mut p, &addresses(), &mut admitting),
            Inbound::ToAgent
        );
        assert_eq!((p.src, p.wire_bytes, p.ext), (2, 1500, 0));
        assert!(refusing.inbound.is_empty() && admitting.inbound.is_empty());
    }

    #[test]
    fn signalling_keeps_its_wire_addresses_for_the_entities() {
        // A Binding Acknowledgement carries a routing header (RFC 6275 §6.1.8) and a Binding
        // Update a Home Address option; the entities read the care-of address from them.
        let ba = Signal::BindingAck {
            status: 0,
            seq: 1,
            lifetime_4s: 1,
        };
        let mut p = signal_packet(Time::ZERO, 1, 4, ba);
        let before = p;
        let mut e = Seen::default();
        assert_eq!(
            receive(Time::ZERO, 2, &mut p, &addresses(), &mut e),
            Inbound::ToEntities
        );
        assert_eq!(
            (p.dst, p.wire_bytes, p.ext),
            (before.dst, before.wire_bytes, ext::RH2)
        );
        assert_eq!(p.proto, Proto::Signal);
        assert!(e.inbound.is_empty() && e.asked == 0);
    }
}
