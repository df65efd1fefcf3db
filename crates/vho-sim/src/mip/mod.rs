//! Mobile IPv6 (RFC 6275) as packets: a mobile node's movement detection, address
//! configuration and registration, a home agent's binding cache and tunnels, a correspondent
//! node's route optimisation, access routers' advertisements. Each is a protocol entity at a
//! node, sans-IO like a TCP endpoint: packets in, packets out, a timer, and the world as a
//! driver (`world::mip`). They are node functions (`net::function`) that also originate and
//! terminate packets. What a node does with a packet for one of its addresses, the headers
//! taken off and where it goes next, is [`inbound`]; the messages themselves are
//! `packet::signal` (re-exported as [`message`]), the settings `config::mip`.
//!
//! A handover's network-layer latency falls out of these packets crossing the simulated links:
//! T_n = t_d + t_c + t_r (Cottingham & Vidales eq. 1-4, `000_2dceaee3c96622fa.txt` l.73-106),
//! each component stamped per handover by the mobile node ([`mobile::HandoverTimes`]).

pub mod backoff;
pub mod bicast;
pub mod correspondent;
pub mod home_agent;
pub mod inbound;
pub mod mobile;
pub mod router;

pub use crate::config::mip::{Dad, Detection, MipSpec, RoStart, RouterSpec};
pub use crate::packet::signal as message;
use crate::spec::{LinkIdx, NodeIdx};
use crate::time::Dur;
pub use message::{Addr, Signal};

/// RFC 6275 §12: INITIAL_BINDACK_TIMEOUT, the first wait for a Binding Acknowledgement (and
/// for a HoT or CoT, §11.8).
pub const INITIAL_BINDACK_TIMEOUT: Dur = Dur::from_secs(1);
/// RFC 6275 §13: InitialBindackTimeoutFirstReg, the first wait of a first home registration.
pub const INITIAL_BINDACK_TIMEOUT_FIRST_REG: Dur = Dur::from_millis(1500);
/// RFC 6275 §12: MAX_BINDACK_TIMEOUT, the longest wait of the exponential back-off.
pub const MAX_BINDACK_TIMEOUT: Dur = Dur::from_secs(32);
/// RFC 4861 §10: RETRANS_TIMER, RetransTimer's default: the wait after a DAD Neighbor
/// Solicitation before the address is taken (RFC 4862 §5.4.3).
pub const RETRANS_TIMER: Dur = Dur::from_secs(1);
/// RFC 4861 §10: MAX_RTR_SOLICITATION_DELAY, the random delay before a first Router
/// Solicitation (RFC 4861 §6.3.7) and before a first DAD Neighbor Solicitation on an interface
/// that has just come up (RFC 4862 §5.4.2).
pub const MAX_RTR_SOLICITATION_DELAY: Dur = Dur::from_secs(1);
/// RFC 4861 §10: RTR_SOLICITATION_INTERVAL and MAX_RTR_SOLICITATIONS.
pub const RTR_SOLICITATION_INTERVAL: Dur = Dur::from_secs(4);
pub const MAX_RTR_SOLICITATIONS: u32 = 3;
/// RFC 4861 §10: MAX_RA_DELAY_TIME, a router's random delay before a solicited advertisement
/// (§6.2.6).
pub const MAX_RA_DELAY_TIME: Dur = Dur::from_millis(500);
/// RFC 4861 §10: MIN_DELAY_BETWEEN_RAS, the shortest gap between two multicast Router
/// Advertisements a router leaves before a solicited one (§6.2.6); RFC 6275 §7.5 and §13 make
/// it a configuration variable, MinDelayBetweenRAs, of this default.
pub const MIN_DELAY_BETWEEN_RAS: Dur = Dur::from_secs(3);
/// RFC 6275 §7.5: the smallest MinDelayBetweenRAs and MinRtrAdvInterval a router may be given,
/// 30 ms, and the smallest MaxRtrAdvInterval, 70 ms.
pub const MIN_RA_INTERVAL_FLOOR: Dur = Dur::from_millis(30);
pub const MAX_RA_INTERVAL_FLOOR: Dur = Dur::from_millis(70);
/// RFC 6275 §7.5: routers "SHOULD add 20 ms to any Advertisement Intervals sent in RAs that
/// are below 200 ms", for the scheduling granularity of the mobile's timers.
pub const ADV_INTERVAL_SLACK: Dur = Dur::from_millis(20);
/// Lifetime a mobile asks for in its Binding Updates, in 4-s units (RFC 6275 §6.1.7); 420 s is
/// MAX_RR_BINDING_LIFETIME (§12), longer than any run here: bindings never expire mid-run.
pub const BINDING_LIFETIME_4S: u16 = 105;

impl RouterSpec {
    /// The Advertisement Interval option's value: MaxRtrAdvInterval, plus 20 ms when below
    /// 200 ms (RFC 6275 §7.5).
    pub fn advertised_interval(&self) -> Dur {
        if self.ra_max < Dur::from_millis(200) {
            self.ra_max + ADV_INTERVAL_SLACK
        } else {
            self.ra_max
        }
    }
}

/// The run's addresses: every node's own, then one care-of address per mobile interface.
#[derive(Clone, Debug, Default)]
pub struct Addresses {
    pub nodes: usize,
    /// Per care-of address (index `nodes + i`): its mobile node and access link.
    pub coas: Vec<(NodeIdx, LinkIdx)>,
}

impl Addresses {
    pub fn new(nodes: usize, mobiles: &[crate::spec::MobileSpec]) -> Addresses {
        let coas = mobiles
            .iter()
            .flat_map(|m| m.interfaces.iter().map(move |&l| (m.node, l)))
            .collect();
        Addresses { nodes, coas }
    }
    pub fn count(&self) -> usize {
        self.nodes + self.coas.len()
    }
    /// The care-of address of `mobile` on `link`.
    pub fn coa(&self, mobile: NodeIdx, link: LinkIdx) -> Option<Addr> {
        self.coas
            .iter()
            .position(|&c| c == (mobile, link))
            .map(|i| (self.nodes + i) as Addr)
    }
    /// The node an address belongs to.
    #[inline]
    pub fn owner(&self, a: Addr) -> NodeIdx {
        let a = a as usize;
        if a < self.nodes {
            a
        } else {
            self.coas[a - self.nodes].0
        }
    }
    /// The access link of a care-of address.
    pub fn link(&self, a: Addr) -> Option<LinkIdx> {
        (a as usize)
            .checked_sub(self.nodes)
            .and_then(|i| self.coas.get(i))
            .map(|c| c.1)
    }
}

/// A signalling packet from `src` to `dst`, sent now: its size is the message's own
/// (`Signal::wire_bytes`), its extension headers the ones the message carries.
pub fn signal_packet(
    now: crate::time::Time,
    src: Addr,
    dst: Addr,
    sig: Signal,
) -> crate::packet::Packet {
    use crate::packet::ext;
    let ext = match sig {
        Signal::BindingUpdate { .. } => ext::HAO,
        Signal::BindingAck { .. } => ext::RH2,
        _ => 0,
    };
    crate::packet::Packet {
        seg: Default::default(),
        flow: crate::packet::NO_FLOW,
        to_receiver: false,
        src,
        dst,
        wire_bytes: sig.wire_bytes(),
        ip_id: 0,
        kind: Default::default(),
        copy: 0,
        sent_at: now,
        proto: crate::packet::Proto::Signal,
        ext,
        inner_src: 0,
        inner_dst: 0,
        sig,
        pio: Default::default(),
    }
}

/// Wraps `pkt` in an IPv6 tunnel from `src` to `dst` (RFC 2473 §3).
pub fn encapsulate(pkt: &mut crate::packet::Packet, src: Addr, dst: Addr) {
    pkt.inner_src = pkt.src;
    pkt.inner_dst = pkt.dst;
    pkt.src = src;
    pkt.dst = dst;
    pkt.wire_bytes += message::TUNNEL_BYTES;
    // The tunnel re-addresses the packet: a binding to the sender's link is not the tunnel's.
    pkt.ext = (pkt.ext | crate::packet::ext::TUNNEL) & !crate::packet::ext::PINNED;
}

/// Takes the tunnel off `pkt` (RFC 2473 §3.2, at the tunnel's exit point), with the
/// Destination Options header that carries a Packet Identifier Option after it (its bytes;
/// the option's value and `ext::PIO` stay for a combiner). `inner_src` keeps the tunnel's
/// source, the care-of address a reverse-tunnelled copy came from (what the home agent's
/// combiner tells the links apart by).
pub fn decapsulate(pkt: &mut crate::packet::Packet) {
    std::mem::swap(&mut pkt.src, &mut pkt.inner_src);
    pkt.dst = pkt.inner_dst;
    pkt.wire_bytes -= message::TUNNEL_BYTES;
    if pkt.ext & crate::packet::ext::PIO != 0 {
        pkt.wire_bytes -= message::PIO_BYTES;
    }
    pkt.ext &= !crate::packet::ext::TUNNEL;
}
