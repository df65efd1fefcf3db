//! A correspondent node's part in route optimisation (RFC 6275 §9): it answers the return
//! routability test (a Home Test to the home address for a Home Test Init, a Care-of Test to
//! the care-of address for a Care-of Test Init, §9.4), keeps a binding cache from a Binding
//! Update (§9.5) whose sequence numbers only move forward (§9.5.1), sends to a cached mobile's
//! care-of address with a type 2 routing header carrying the home address (§9.3.2), and
//! refuses a Home Address option its cache does not match with a Binding Error (§9.3.1,
//! §9.3.3). Tokens are not computed: the simulated network has no attacker, so a Binding
//! Update that completes a test is accepted as valid.

use super::message::{Addr, RH2_BYTES};
use super::{signal_packet, Addresses, Signal, BINDING_LIFETIME_4S};
use crate::function::{Counters, Verdict};
use crate::packet::{ext, Packet};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// The shortest gap between two Binding Errors about one home address. RFC 6275 §9.3.3 asks
/// that Binding Errors be rate-limited without giving a rate; one a second per home address is
/// this simulator's choice (ICMPv6's token-bucket default, RFC 4443 §2.4(f), is of that order).
pub const BINDING_ERROR_MIN_GAP: Dur = Dur::from_secs(1);

/// Binding Error status 1: "unknown binding for Home Address destination option" (§6.1.9).
pub const BE_UNKNOWN_HAO: u8 = 1;

/// One binding cache entry (RFC 6275 §9.1).
#[derive(Clone, Copy, Debug)]
struct Entry {
    home: Addr,
    coa: Addr,
    /// The last sequence number accepted (`None`: in place at time zero).
    seq: Option<u16>,
}

pub struct Correspondent {
    addr: Addr,
    addresses: Addresses,
    cache: Vec<Entry>,
    out: VecDeque<Packet>,
    nonce: u16,
    route_optimised: u64,
    updates: u64,
    /// Binding Updates refused as out of sequence (status 135).
    stale_updates: u64,
    /// Packets dropped for a Home Address option without a matching binding, and the Binding
    /// Errors sent about them.
    refused_hao: u64,
    errors_sent: u64,
    /// (home address, when the last Binding Error about it went).
    last_error: Vec<(Addr, Time)>,
}

impl Correspondent {
    /// `cache`: the bindings in place at time zero.
    pub fn new(addr: Addr, addresses: Addresses, cache: &[(Addr, Addr)]) -> Correspondent {
        Correspondent {
            addr,
            addresses,
            cache: cache
                .iter()
                .map(|&(home, coa)| Entry {
                    home,
                    coa,
                    seq: None,
                })
                .collect(),
            out: VecDeque::new(),
            nonce: 0,
            route_optimised: 0,
            updates: 0,
            stale_updates: 0,
            refused_hao: 0,
            errors_sent: 0,
            last_error: Vec::new(),
        }
    }

    pub fn binding(&self, home: Addr) -> Option<Addr> {
        self.cache.iter().find(|b| b.home == home).map(|b| b.coa)
    }

    /// Whether a TCP packet arriving with a Home Address option may be delivered (RFC 6275
    /// §9.3.1: "Packets containing a Home Address option MUST be dropped if there is no
    /// corresponding Binding Cache entry ... the currently registered care-of address MUST be
    /// equal to the source address of the packet"). A packet refused is answered with a
    /// Binding Error, status 1, to its source address (§9.3.3), rate-limited.
    pub fn admit_home_option(&mut self, now: Time, pkt: &Packet) -> bool {
        if pkt.ext & ext::HAO == 0 || !pkt.is_tcp() {
            return true;
        }
        let coa = pkt.src;
        let home = self.addresses.owner(coa) as Addr;
        if self.binding(home) == Some(coa) {
            return true;
        }
        self.refused_hao += 1;
        let recent = self
            .last_error
            .iter()
            .any(|&(h, t)| h == home && now < t + BINDING_ERROR_MIN_GAP);
        if !recent {
            self.last_error.retain(|&(h, _)| h != home);
            self.last_error.push((home, now));
            let be = Signal::BindingError {
                status: BE_UNKNOWN_HAO,
                home,
            };
            self.out.push_back(signal_packet(now, self.addr, coa, be));
            self.errors_sent += 1;
        }
        false
    }

    /// A packet the node sends: TCP for a cached home address goes to its care-of address.
    pub fn on_packet(&mut self, pkt: &mut Packet, originated: bool) -> Verdict {
        if originated && pkt.is_tcp() {
            if let Some(coa) = self.binding(pkt.dst) {
                pkt.dst = coa;
                pkt.ext |= ext::RH2;
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
                // RFC 6275 §9.5.1: a sequence number not greater than the last accepted
                // (modulo 2^16) is refused, status 135, "and the last accepted sequence number
                // in the Sequence Number field of the Binding Acknowledgement".
                let (status, ba_seq) = match self.cache.iter_mut().find(|b| b.home == home) {
                    Some(b) => match b.seq {
                        Some(last) if seq.wrapping_sub(last) as i16 <= 0 => (135, last),
                        _ => {
                            (b.coa, b.seq) = (pkt.src, Some(seq));
                            (0, seq)
                        }
                    },
                    None => {
                        self.cache.push(Entry {
                            home,
                            coa: pkt.src,
                            seq: Some(seq),
                        });
                        (0, seq)
                    }
                };
                if status == 0 {
                    self.updates += 1;
                } else {
                    self.stale_updates += 1;
                }
                ack.then_some(Signal::BindingAck {
                    status,
                    seq: ba_seq,
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
        let mut v = vec![
            ("packets_route_optimised", self.route_optimised),
            ("binding_updates", self.updates),
        ];
        // Only where they happened, so that a run without them reports as before.
        if self.stale_updates > 0 {
            v.push(("binding_updates_out_of_sequence", self.stale_updates));
        }
        if self.refused_hao > 0 {
            v.push(("packets_refused_unknown_binding", self.refused_hao));
            v.push(("binding_errors_sent", self.errors_sent));
        }
        v
    }
}

/// A stand-in for RFC 6275 §5.2.5's keygen tokens: distinct per correspondent, address and
/// test, so that captures show plausible values (no security is modelled).
fn token(cn: Addr, addr: Addr, which: u32) -> u32 {
    crate::rng::fnv1a64(&[cn.to_be_bytes(), addr.to_be_bytes()].concat()) as u32 ^ which
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mip::signal_packet;

    // Addresses: nodes 0 (cn), 1 (mn); care-of addresses 2 and 3 are mn's on links 0 and 1.
    fn cn() -> Correspondent {
        let addresses = Addresses {
            nodes: 2,
            coas: vec![(1, 0), (1, 1)],
        };
        Correspondent::new(0, addresses, &[(1, 2)])
    }

    fn bu(seq: u16, from: Addr) -> Packet {
        let sig = Signal::BindingUpdate {
            seq,
            lifetime_4s: BINDING_LIFETIME_4S,
            home: false,
            ack: true,
        };
        signal_packet(Time::ZERO, from, 0, sig)
    }

    fn tcp_with_hao(from: Addr) -> Packet {
        let mut p = signal_packet(Time::ZERO, from, 0, Signal::None);
        p.proto = crate::packet::Proto::Tcp;
        p.ext = ext::HAO;
        p
    }

    #[test]
    fn a_binding_update_older_than_the_last_accepted_is_refused_with_status_135() {
        // RFC 6275 §9.5.1: the binding does not move back, and the acknowledgement carries
        // the last accepted sequence number.
        let mut c = cn();
        c.on_deliver(Time::ZERO, &bu(7, 3));
        assert_eq!(c.binding(1), Some(3));
        c.on_deliver(Time::ZERO, &bu(6, 2));
        assert_eq!(
            c.binding(1),
            Some(3),
            "an old update moved the binding back"
        );
        let acks: Vec<Signal> = std::iter::from_fn(|| c.poll_transmit())
            .map(|p| p.sig)
            .collect();
        assert_eq!(
            acks,
            [
                Signal::BindingAck {
                    status: 0,
                    seq: 7,
                    lifetime_4s: BINDING_LIFETIME_4S
                },
                Signal::BindingAck {
                    status: 135,
                    seq: 7,
                    lifetime_4s: BINDING_LIFETIME_4S
                },
            ]
        );
        // Sequence numbers compare modulo 2^16 (§9.5.1): 2 follows 65535.
        c.on_deliver(Time::ZERO, &bu(65535, 2));
        c.on_deliver(Time::ZERO, &bu(2, 3));
        assert_eq!(c.binding(1), Some(3));
    }

    #[test]
    fn a_home_address_option_from_an_unregistered_care_of_address_is_dropped_with_a_binding_error()
    {
        // RFC 6275 §9.3.1: dropped unless the cache maps the home address to the packet's
        // source; §9.3.3: a Binding Error, status 1, to that source, rate-limited.
        let mut c = cn();
        assert!(c.admit_home_option(Time::ZERO, &tcp_with_hao(2)));
        assert!(c.poll_transmit().is_none());
        assert!(!c.admit_home_option(Time::ZERO, &tcp_with_hao(3)));
        let be = c.poll_transmit().expect("a Binding Error");
        assert_eq!((be.src, be.dst), (0, 3));
        assert_eq!(be.sig, Signal::BindingError { status: 1, home: 1 });
        // A second refusal within the rate limit sends nothing more; after it, one more.
        assert!(!c.admit_home_option(Time::from_millis(500), &tcp_with_hao(3)));
        assert!(c.poll_transmit().is_none());
        assert!(!c.admit_home_option(Time::from_millis(1000), &tcp_with_hao(3)));
        assert!(c.poll_transmit().is_some());
        // Once the mobile registers the new address, its packets pass.
        c.on_deliver(Time::ZERO, &bu(1, 3));
        assert!(c.admit_home_option(Time::from_secs(2), &tcp_with_hao(3)));
    }
}
