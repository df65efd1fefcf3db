//! Node functions: what a node does to the packets it forwards, besides routing them.
//!
//! A node function sits on a node's forwarding path (a home agent's window-clamping proxy,
//! an IP-layer queue that keeps a slow link's device queue short; later a home agent's
//! binding cache and tunnels, a mobile router's packet combining). It is sans-IO like a TCP
//! endpoint: the world hands it each packet the node forwards, with the time, and it answers
//! with a [`Verdict`]; a function that holds packets hands them back through
//! [`AnyFunction::poll_release`] and says when to ask again through
//! [`AnyFunction::poll_timeout`]. It sees the world only through a [`Fabric`]: the node's
//! routes and the state of the link directions leaving it, as the node itself could see
//! them. It never reads ground truth.
//!
//! Dispatch is by `enum` ([`AnyFunction`]), as the congestion controllers', so the hot path
//! pays one branch per forwarded packet at a node without functions and nothing else.

use super::flow_control::LinkFlowControl;
use super::nemo_combiner::NemoCombiner;
use super::tunnel::IpInIp;
use super::window_clamp::WindowClamp;
pub use crate::function::{Counters, Fabric, Hop, LinkView, Verdict};
use crate::mip::correspondent::Correspondent;
use crate::mip::home_agent::HomeAgent;
use crate::mip::mobile::MobileNode;
use crate::mip::router::AccessRouter;
use crate::packet::{Packet, PktIdx};
use crate::time::{Dur, Time};

/// Every kind of node function. The Mobile IPv6 entities (`crate::mip`) are node functions
/// that also originate packets (`poll_transmit`) and terminate signalling (`on_deliver`).
pub enum AnyFunction {
    WindowClamp(WindowClamp),
    LinkFlowControl(LinkFlowControl),
    IpInIp(IpInIp),
    MobileNode(Box<MobileNode>),
    HomeAgent(HomeAgent),
    Correspondent(Correspondent),
    AccessRouter(AccessRouter),
    NemoCombiner(NemoCombiner),
}

impl AnyFunction {
    /// The name a scenario gives it (`[[node_function]] kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            AnyFunction::WindowClamp(_) => "window-clamp",
            AnyFunction::LinkFlowControl(_) => "link-flow-control",
            AnyFunction::IpInIp(_) => "ip-in-ip",
            AnyFunction::MobileNode(_) => "mipv6-mobile-node",
            AnyFunction::HomeAgent(_) => "mipv6-home-agent",
            AnyFunction::Correspondent(_) => "mipv6-correspondent",
            AnyFunction::AccessRouter(_) => "mipv6-access-router",
            AnyFunction::NemoCombiner(_) => "nemo-combiner",
        }
    }

    pub fn on_packet(
        &mut self,
        now: Time,
        idx: PktIdx,
        pkt: &mut Packet,
        hop: Hop,
        fabric: &dyn Fabric,
    ) -> Verdict {
        match self {
            AnyFunction::WindowClamp(f) => f.on_packet(now, pkt, hop),
            AnyFunction::LinkFlowControl(f) => f.on_packet(idx, pkt, hop, fabric),
            AnyFunction::IpInIp(f) => f.on_packet(pkt, hop),
            AnyFunction::MobileNode(f) => {
                if pkt.is_tcp() && pkt.ext & crate::packet::ext::TUNNEL == 0 {
                    if hop.ingress.is_none() && !f.serves(pkt.dst) {
                        f.on_output(pkt);
                    } else if hop.ingress.is_some() && f.serves(pkt.src) && !f.serves(pkt.dst) {
                        f.on_forward(now, pkt);
                    }
                }
                Verdict::Pass
            }
            AnyFunction::HomeAgent(f) => f.on_packet(now, pkt),
            AnyFunction::NemoCombiner(f) => f.on_packet(now, idx, pkt, hop),
            AnyFunction::Correspondent(f) => f.on_packet(pkt, hop.ingress.is_none()),
            AnyFunction::AccessRouter(_) => Verdict::Pass,
        }
    }

    /// A signalling message addressed to the node (`via`: the address it was sent to).
    pub fn on_deliver(&mut self, now: Time, pkt: &Packet, via: crate::mip::Addr) {
        match self {
            AnyFunction::MobileNode(f) => f.on_deliver(now, pkt, via),
            AnyFunction::HomeAgent(f) => f.on_deliver(now, pkt),
            AnyFunction::Correspondent(f) => f.on_deliver(now, pkt),
            AnyFunction::AccessRouter(f) => {
                if matches!(pkt.sig, crate::mip::Signal::RouterSolicitation { .. }) {
                    f.on_solicitation(now, pkt.src);
                }
            }
            _ => {}
        }
    }

    /// Whether a TCP packet addressed to the node may be delivered: a correspondent refuses
    /// a Home Address option its binding cache does not match (RFC 6275 §9.3.1) and answers
    /// with a Binding Error (sent through `poll_transmit`).
    pub fn admit(&mut self, now: Time, pkt: &Packet) -> bool {
        match self {
            AnyFunction::Correspondent(f) => f.admit_home_option(now, pkt),
            _ => true,
        }
    }

    /// A packet the function originates now (a signalling message).
    pub fn poll_transmit(&mut self) -> Option<Packet> {
        match self {
            AnyFunction::MobileNode(f) => f.poll_transmit(),
            AnyFunction::HomeAgent(f) => f.poll_transmit(),
            AnyFunction::Correspondent(f) => f.poll_transmit(),
            AnyFunction::AccessRouter(f) => f.poll_transmit(),
            _ => None,
        }
    }

    /// Its timer, when `poll_timeout` said so.
    pub fn handle_timeout(&mut self, now: Time) {
        match self {
            AnyFunction::MobileNode(f) => f.handle_timeout(now),
            AnyFunction::AccessRouter(f) => f.handle_timeout(now),
            _ => {}
        }
    }

    /// A held packet that may go on now (routed afresh: a handover meanwhile sends it over
    /// the new link).
    pub fn poll_release(&mut self, now: Time, fabric: &dyn Fabric) -> Option<PktIdx> {
        match self {
            AnyFunction::LinkFlowControl(f) => f.poll_release(now, fabric),
            AnyFunction::NemoCombiner(f) => f.poll_release(now),
            _ => None,
        }
    }

    /// When to call `poll_release` again.
    pub fn poll_timeout(&self, fabric: &dyn Fabric) -> Option<Time> {
        match self {
            AnyFunction::LinkFlowControl(f) => f.poll_timeout(fabric),
            AnyFunction::MobileNode(f) => f.poll_timeout(),
            AnyFunction::AccessRouter(f) => f.poll_timeout(),
            AnyFunction::NemoCombiner(f) => f.poll_timeout(),
            _ => None,
        }
    }

    /// Whether it holds packets (`poll_release` can have something to say).
    pub fn holds(&self) -> bool {
        match self {
            AnyFunction::LinkFlowControl(f) => f.held() > 0,
            AnyFunction::NemoCombiner(f) => f.holds(),
            _ => false,
        }
    }

    /// Whether it made a packet to send at once (a home agent's bicast copy).
    pub fn has_output(&self) -> bool {
        match self {
            AnyFunction::HomeAgent(f) => f.has_output(),
            AnyFunction::MobileNode(f) => f.has_output(),
            _ => false,
        }
    }

    pub fn counters(&self) -> Counters {
        match self {
            AnyFunction::WindowClamp(f) => f.counters(),
            AnyFunction::LinkFlowControl(f) => f.counters(),
            AnyFunction::IpInIp(f) => f.counters(),
            AnyFunction::MobileNode(f) => f.counters(),
            AnyFunction::HomeAgent(f) => f.counters(),
            AnyFunction::Correspondent(f) => f.counters(),
            AnyFunction::AccessRouter(f) => f.counters(),
            AnyFunction::NemoCombiner(f) => f.counters(),
        }
    }
}

/// A node's chain as Mobile IPv6's header processing asks it (`mip::inbound`): its mobile
/// node entity reads inbound data, every function may refuse a Home Address option.
impl crate::mip::inbound::Entities for [AnyFunction] {
    fn on_inbound(&mut self, now: Time, pkt: &Packet, to: crate::mip::Addr) {
        for f in self.iter_mut() {
            if let AnyFunction::MobileNode(mn) = f {
                mn.on_inbound(now, pkt, to);
                return;
            }
        }
    }
    fn admit(&mut self, now: Time, pkt: &Packet) -> bool {
        self.iter_mut().all(|f| f.admit(now, pkt))
    }
}

/// The timing of a path through one access link, as a proxy configured for that link knows
/// it: what a bandwidth-delay product is computed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathTiming {
    /// The bottleneck rate of the data's direction (the slowest link on the path).
    pub rate_bps: u64,
    /// Round-trip propagation delay of the path.
    pub propagation_rtt: Dur,
    /// Seconds per byte summed over the data direction's links, and over the ACKs'.
    pub data_s_per_byte: f64,
    pub ack_s_per_byte: f64,
}

/// IPv4 + TCP header bytes of a segment without options (RFC 791, RFC 9293).
pub const HEADER_BYTES: u32 = 40;

impl PathTiming {
    /// The base round trip of a full segment: propagation, plus one segment of `smss`
    /// payload serialised on every link one way and an ACK the other way, no queueing.
    pub fn base_rtt(&self, smss: u32) -> Dur {
        let ser = (smss + HEADER_BYTES) as f64 * self.data_s_per_byte
            + HEADER_BYTES as f64 * self.ack_s_per_byte;
        self.propagation_rtt + Dur((ser * 1e9).round() as u64)
    }

    /// Bytes the path holds in flight at its bottleneck rate over the base round trip.
    pub fn bdp_bytes(&self, smss: u32) -> u64 {
        let rtt = self.base_rtt(smss);
        (self.rate_bps as u128 * rtt.as_nanos() as u128).div_ceil(8 * 1_000_000_000) as u64
    }
}
