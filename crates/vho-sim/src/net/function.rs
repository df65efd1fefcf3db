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
use super::routes::DirIdx;
use super::window_clamp::WindowClamp;
use crate::link::queue::Limit;
use crate::packet::{Packet, PktIdx};
use crate::spec::NodeIdx;
use crate::time::{Dur, Time};

/// What a function does with a packet it was handed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// On to the next function, then to the link its route names (possibly rewritten).
    Pass,
    /// The function keeps it and releases it later through `poll_release`.
    Hold,
    /// Dropped for want of room (booked as a queue overflow on `egress`).
    Drop,
}

/// A link direction leaving the node, as the node sees it at the present instant.
#[derive(Clone, Copy, Debug)]
pub struct LinkView {
    pub rate_bps: u64,
    /// Bytes and packets waiting in the direction's queue (the one on the air excluded).
    pub waiting_bytes: u64,
    pub waiting_packets: usize,
    /// The queue's configured limit.
    pub limit: Limit,
    /// When the queue next shrinks (the packet on the air finishes, or a blocked direction
    /// may start); `None` when nothing is on the air or waiting.
    pub next_dequeue: Option<Time>,
}

/// What the world lets a node function see: the node's routes and the links leaving it.
pub trait Fabric {
    /// The link direction a packet for `dst` leaves on now.
    fn route(&self, dst: NodeIdx) -> Option<DirIdx>;
    /// A direction leaving the node, brought up to the present.
    fn link(&self, d: DirIdx) -> LinkView;
}

/// Where a packet handed to a function came from and where it is going.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    /// The direction it arrived over; `None` when the node originated it.
    pub ingress: Option<DirIdx>,
    /// The direction its route names.
    pub egress: DirIdx,
}

/// Per-function counters for `summary.json` (`functions`): name, value pairs.
pub type Counters = Vec<(&'static str, u64)>;

/// Every kind of node function.
pub enum AnyFunction {
    WindowClamp(WindowClamp),
    LinkFlowControl(LinkFlowControl),
}

impl AnyFunction {
    /// The name a scenario gives it (`[[node_function]] kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            AnyFunction::WindowClamp(_) => "window-clamp",
            AnyFunction::LinkFlowControl(_) => "link-flow-control",
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
        }
    }

    /// A held packet that may go on now (routed afresh: a handover meanwhile sends it over
    /// the new link).
    pub fn poll_release(&mut self, now: Time, fabric: &dyn Fabric) -> Option<PktIdx> {
        match self {
            AnyFunction::WindowClamp(_) => None,
            AnyFunction::LinkFlowControl(f) => f.poll_release(now, fabric),
        }
    }

    /// When to call `poll_release` again.
    pub fn poll_timeout(&self, fabric: &dyn Fabric) -> Option<Time> {
        match self {
            AnyFunction::WindowClamp(_) => None,
            AnyFunction::LinkFlowControl(f) => f.poll_timeout(fabric),
        }
    }

    /// Whether it holds packets (`poll_release` can have something to say).
    pub fn holds(&self) -> bool {
        match self {
            AnyFunction::WindowClamp(_) => false,
            AnyFunction::LinkFlowControl(f) => f.held() > 0,
        }
    }

    pub fn counters(&self) -> Counters {
        match self {
            AnyFunction::WindowClamp(f) => f.counters(),
            AnyFunction::LinkFlowControl(f) => f.counters(),
        }
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
