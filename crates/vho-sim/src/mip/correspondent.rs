//! A correspondent node's part in route optimisation (RFC 6275 §9): it answers the return
//! routability test (a Home Test to the home address for a Home Test Init, a Care-of Test to
//! the care-of address for a Care-of Test Init, §9.4), keeps a binding cache from a Binding
//! Update (§9.5), and sends to a cached mobile's care-of address with a type 2 routing header
//! carrying the home address (§9.3.2). Tokens are not computed: the simulated network has no
//! attacker, so a Binding Update that completes a test is accepted as valid.

use super::message::{Addr, RH2_BYTES};
use super::{signal_packet, Addresses, Signal, BINDING_LIFETIME_4S};
use crate::net::function::{Counters, Verdict};
use crate::packet::{net, Packet};
use crate::time::Time;
use std::collections::VecDeque;

pub struct Correspondent {
    addr: Addr,
    addresses: Addresses,
    /// (home address, care-of address).
    cache: Vec<(Addr, Addr)>,
    out: VecDeque<Packet>,
    nonce: u16,
    route_optimised: u64,
    updates: u64,
}

impl Correspondent {
    /// `cache`: the bindings in place at time zero.
    pub fn new(addr: Addr, addresses: Addresses, cache: &[(Addr, Addr)]) -> Correspondent {
        Correspondent {
            addr,
            addresses,
            cache: cache.to_vec(),
            out: VecDeque::new(),
            nonce: 0,
            route_optimised: 0,
            updates: 0,
        }
    }

    pub fn binding(&self, home: Addr) -> Option<Addr> {
        self.cache.iter().find(|b| b.0 == home).map(|b| b.1)
    }

    /// A packet the node sends: TCP for a cached home address goes to its care-of address.
    pub fn on_packet(&mut self, pkt: &mut Packet, originated: bool) -> Verdict {
        if originated && pkt.is_tcp() {
            if let Some(coa) = self.binding(pkt.dst) {
                pkt.dst = coa;
                pkt.net |= net::RH2;
                pkt.wire_bytes += RH2_BYTES;
                self.route_optimised += 1;
            }
        }
        Verdict::Pass
    }

    pub fn on_deliver(&mut self, now: Time, pkt: &Packet) {
        let reply = match pkt.sig {
            Signal::HomeTestInit { cookie } => Some(Signal::HomeTest {
                nonce: self.nonce,
                cookie,
                token: token(self.addr, pkt.src, 0),
            }),
            Signal::CareOfTestInit { cookie } => Some(Signal::CareOfTest {
                nonce: self.nonce,
                cookie,
                token: token(self.addr, pkt.src, 1),
            }),
            Signal::BindingUpdate {
                seq,
                home: false,
                ack,
                ..
            } => {
                let home = self.addresses.owner(pkt.src) as Addr;
                match self.cache.iter_mut().find(|b| b.0 == home) {
                    Some(b) => b.1 = pkt.src,
                    None => self.cache.push((home, pkt.src)),
                }
                self.updates += 1;
                ack.then_some(Signal::BindingAck {
                    status: 0,
                    seq,
                    lifetime_4s: BINDING_LIFETIME_4S,
                })
            }
            _ => None,
        };
        if let Some(sig) = reply {
            self.out
                .push_back(signal_packet(now, self.addr, pkt.src, sig));
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    pub fn counters(&self) -> Counters {
        vec![
            ("packets_route_optimised", self.route_optimised),
            ("binding_updates", self.updates),
        ]
    }
}

/// A stand-in for RFC 6275 §5.2.5's keygen tokens: distinct per correspondent, address and
/// test, so that captures show plausible values (no security is modelled).
fn token(cn: Addr, addr: Addr, which: u32) -> u32 {
    crate::rng::fnv1a64(&[cn.to_be_bytes(), addr.to_be_bytes()].concat()) as u32 ^ which
}
