//! `ip-in-ip`: the home agent tunnels what it forwards to a mobile host to the mobile's
//! care-of address, IP in IP (RFC 2003 §3: an outer IPv4 header of 20 bytes, no options), as
//! Mobile IPv4 requires of every home agent (RFC 5944 §1.10; thesis §2, 003 l.225, l.241-251).
//! The tunnel's only effect on TCP is its size: every packet crossing an access link towards
//! the mobile is 20 bytes longer there. Packets from the mobile go straight to the
//! correspondent host (triangle routing, the thesis's testbed: l.1521-1522), untunnelled.
//! Captures at the end hosts show the inner packets, as a capture after decapsulation does.

use super::function::{Counters, Hop, Verdict};
use crate::packet::Packet;

/// RFC 2003 §3.1: the outer IP header, 20 bytes without options.
pub const OUTER_HEADER_BYTES: u32 = 20;

pub struct IpInIp {
    /// Per direction index: whether it is an access link's direction towards a mobile host.
    towards_mobile: Vec<bool>,
    encapsulated: u64,
}

impl IpInIp {
    pub fn new(towards_mobile: Vec<bool>) -> Self {
        IpInIp {
            towards_mobile,
            encapsulated: 0,
        }
    }

    pub fn on_packet(&mut self, pkt: &mut Packet, hop: Hop) -> Verdict {
        if self.towards_mobile.get(hop.egress as usize) == Some(&true) {
            pkt.wire_bytes += OUTER_HEADER_BYTES;
            self.encapsulated += 1;
        }
        Verdict::Pass
    }

    pub fn counters(&self) -> Counters {
        vec![("packets_encapsulated", self.encapsulated)]
    }
}
