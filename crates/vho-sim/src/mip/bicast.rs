//! Bicasting at a NEMO home agent (Naoe, Wetterwald & Bonnet, seed 002, §IV, Fig. 1-3): during
//! a soft handover the home agent duplicates each packet for the mobile network and sends one
//! copy through each of the mobile router's two tunnels (one per care-of address, RFC 5648's
//! multiple bindings), stamping both with the same Packet Identifier Option.
//!
//! The window is a flow-binding policy (RFC 6089's N-casting action, the paper's "Flow
//! Identification Option") given by the scenario: from the handover's trigger to its
//! completion (§V-C: 5 s and 15 s). In the paper the MR's Binding Update starts it and
//! T_bicasting is "initialized on the HA when the BU arrives" (§IV-B); here both bases are the
//! window's start, the BU's transit being the clock offset §IV-B shows cancels in eq. 2.

use super::message::Addr;
pub use crate::config::mip::NemoSpec;
use crate::packet::Pio;
use crate::time::{Time, NANOS_PER_MILLI};

/// The home agent's bicasting policy for one mobile router.
#[derive(Clone, Debug)]
pub struct Bicast {
    /// The mobile router's home address (its binding's key).
    pub router: Addr,
    /// The nodes of its mobile network (RFC 3963 §6.1: the mobile network prefix's hosts).
    pub network: Vec<Addr>,
    /// Its two care-of addresses, one per tunnel.
    pub coas: [Addr; 2],
    /// T_bicasting, the window's start, and its end.
    pub from: Time,
    pub until: Time,
    /// The next sequence number: "incremented by one each time the HA duplicates a packet"
    /// (§IV-B).
    next_seq: u16,
    pub duplicated: u64,
}

impl Bicast {
    pub fn new(router: Addr, network: Vec<Addr>, coas: [Addr; 2], from: Time, until: Time) -> Self {
        Bicast {
            router,
            network,
            coas,
            from,
            until,
            next_seq: 0,
            duplicated: 0,
        }
    }

    /// Whether a packet for `dst` is bicast at `now`.
    pub fn applies(&self, now: Time, dst: Addr) -> bool {
        self.in_window(now) && self.network.contains(&dst)
    }

    pub fn in_window(&self, now: Time) -> bool {
        now >= self.from && now < self.until
    }

    /// The option for the next duplicated packet: its sequence number and T_sent^n, the ms
    /// elapsed since T_bicasting, truncated to the PIO's 1 ms resolution, modulo 2^16 (§IV-B).
    pub fn stamp(&mut self, now: Time) -> Pio {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        self.duplicated += 1;
        let ms = now.saturating_since(self.from).as_nanos() / NANOS_PER_MILLI;
        Pio {
            seq,
            sent_ms: ms as u16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    #[test]
    fn stamps_count_duplicates_and_ms_since_t_bicasting() {
        // §IV-B: sequence +1 per duplicated packet; timestamp = elapsed ms since T_bicasting.
        let t0 = Time::ZERO + Dur::from_secs(5);
        let mut b = Bicast::new(3, vec![4], [5, 6], t0, t0 + Dur::from_secs(10));
        assert!(!b.applies(t0 - Dur::from_millis(1), 4));
        assert!(b.applies(t0, 4));
        assert!(!b.applies(t0, 3), "only the mobile network's packets");
        assert!(
            !b.applies(t0 + Dur::from_secs(10), 4),
            "the window ends at completion"
        );
        let p0 = b.stamp(t0 + Dur::from_micros(1_999));
        let p1 = b.stamp(t0 + Dur::from_millis(70_000));
        assert_eq!(p0, Pio { seq: 0, sent_ms: 1 });
        // 70 000 ms modulo 65 536.
        assert_eq!(
            p1,
            Pio {
                seq: 1,
                sent_ms: 4_464
            }
        );
        assert_eq!(b.duplicated, 2);
    }

    #[test]
    fn the_home_agent_sends_two_copies_with_one_option_inside_the_window_only() {
        // §IV-B: "the HA captures a packet destined for the MR, duplicates it and routes them
        // to the MR through the two tunnels", the PIO after the tunnel header; outside the
        // window one tunnel (the binding) and no option.
        use crate::mip::home_agent::HomeAgent;
        use crate::mip::Addresses;
        use crate::packet::{ext, Packet};
        use crate::spec::MobileSpec;
        // cn 0, ha 1, mr 2, lfn 3; the MR's care-of addresses 4 (link 0) and 5 (link 1).
        let addresses = Addresses::new(
            4,
            &[MobileSpec {
                node: 2,
                interfaces: vec![0, 1],
                initial: 0,
            }],
        );
        let mut ha = HomeAgent::new(1, addresses, &[(2, 4)]);
        let t0 = Time::from_secs(5);
        let window = Bicast::new(2, vec![3], [4, 5], t0, Time::from_secs(15));
        ha.serve_network(2, &[3], Some(window));
        let data = Packet {
            src: 0,
            dst: 3,
            wire_bytes: 1452,
            ..Default::default()
        };
        let mut before = data;
        ha.on_packet(Time::from_secs(4), &mut before);
        assert_eq!((before.dst, before.inner_dst), (4, 3));
        assert_eq!(before.ext & ext::PIO, 0);
        assert!(ha.poll_transmit().is_none(), "one copy outside the window");
        for (k, at_ms) in [(0u16, 5_000u64), (1, 7_250)] {
            let mut a = data;
            ha.on_packet(Time::from_millis(at_ms), &mut a);
            let b = ha.poll_transmit().expect("a second copy");
            assert!(ha.poll_transmit().is_none());
            assert_eq!((a.dst, b.dst), (4, 5), "one copy per care-of address");
            assert_eq!((a.inner_dst, b.inner_dst), (3, 3));
            let pio = Pio {
                seq: k,
                sent_ms: (at_ms - 5_000) as u16,
            };
            assert_eq!((a.pio, b.pio), (pio, pio));
            assert!(a.ext & b.ext & ext::PIO != 0 && a.ext & b.ext & ext::TUNNEL != 0);
            // Tunnel (40) and option (8) on each.
            assert_eq!(a.wire_bytes, 1452 + 48);
            assert_eq!(b.wire_bytes, 1452 + 48);
        }
        let mut after = data;
        ha.on_packet(Time::from_secs(15), &mut after);
        assert!(
            ha.poll_transmit().is_none(),
            "the window ends at completion"
        );
    }
}
