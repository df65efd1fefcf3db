//! The node-function contract: what the world hands a function on a node's forwarding path
//! (the packet, where it came from and goes, a `Fabric` to look at the node's routes and links)
//! and what the function answers (a `Verdict`; its counters for the summary). Below the models
//! that implement it (`mip/`'s entities, `net/`'s functions) and above the links whose state it
//! shows; the functions' enum, `net::function::AnyFunction`, is above both.

use crate::config::{DirIdx, NodeIdx};
use crate::link::queue::Limit;
use crate::time::Time;

/// What a function does with a packet it was handed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// On to the next function, then to the link its route names (possibly rewritten).
    Pass,
    /// The function keeps it and releases it later through `poll_release`.
    Hold,
    /// Dropped for want of room (booked as a queue overflow on `egress`).
    Drop,
    /// A copy made redundant by another (a combiner's duplicate): freed, no loss booked.
    Absorb,
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
