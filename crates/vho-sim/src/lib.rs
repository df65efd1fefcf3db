//! vho-sim: a packet-level simulator of TCP across vertical handovers.
//!
//! The crate is pure models: it never reads a clock, a file, a socket, an environment variable
//! or a global. Time is passed in (`time::Time`, integer nanoseconds), randomness comes from
//! per-element streams of the run's seed (`rng`), and output leaves through the recorders the
//! caller attaches.
//!
//! Layers, bottom up:
//! - `time`, `rng`: the clock's units and the deterministic random streams;
//! - `tcp`: sans-IO TCP endpoints (sender, receiver, RTT estimator, congestion controllers,
//!   SACK scoreboard), driven by whichever clock owns them;
//! - `probe`: CapProbe capacity estimation and handoff notification (IHN, EHN; FRA, ERR), for
//!   TFRC Probe (`tfrc::probe`) and TCP Probe;
//! - `packet`: what a packet is and carries (a Mobile IPv6 message, `packet::signal`; a bicast
//!   copy's identifier);
//! - `config`, `spec`: the models' parameters as a scenario gives them, below the models;
//! - `link`, `handover`: links with queues and loss, handover models;
//! - `function`: the node-function contract; `mip` (Mobile IPv6's entities, and the header
//!   handling at an address's owner, `mip::inbound`) and `net` (nodes' functions, routes) above it;
//! - `sched`, `world`: the event clock that drives everything in simulated time;
//! - `record`: pcap, time series, counters and the ground truth of what really happened;
//! - `scenario`: the TOML schema, validated with the location of every error.

pub mod agent;
pub mod config;
pub mod function;
pub mod handover;
pub mod link;
pub mod mip;
pub mod net;
pub mod packet;
pub mod probe;
pub mod record;
pub mod remedy;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod spec;
pub mod tcp;
pub mod tfrc;
pub mod time;
pub mod traffic;
pub mod world;
