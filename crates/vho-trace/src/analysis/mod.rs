//! Analyses over decoded captures (and over the simulator's own packet streams).
//!
//! - [`adaptation`]: throughput points and the adaptation time t_a;
//! - [`tcp_analysis`]: Wireshark's per-segment flags (retransmission, duplicate ACK, ...);
//! - [`rtt`], [`sack`], [`stall`]: RTT samples, SACK/D-SACK blocks, the longest stall;
//! - [`spurious`]: spurious retransmissions with their evidence, and the capture point;
//! - [`handover`]: finding a change of path (a handover) with its evidence;
//! - [`mptcp`]: Multipath TCP connections, their subflows joined by token, DSN mappings;
//! - [`flow`]: a conversation, the state that connects the mechanisms;
//! - [`table`]: the open conversations, each costing what it holds;
//! - [`summary`]: the [`analyze`] entry point and its serializable result.

pub mod adaptation;
pub mod flow;
pub mod handover;
pub mod mptcp;
pub mod rtt;
pub mod sack;
pub mod spurious;
pub mod stall;
pub mod summary;
pub mod table;
pub mod tcp_analysis;

pub use adaptation::{AdaptationTime, TaMean};
pub use spurious::CapturePoint;
pub use summary::{
    analyze, analyze_reader, analyze_reader_with, analyze_with, AdaptationByMean, Analysis,
    AnalyzeOptions, DirectionResult, FlowResult, FlowStream, SkipCounts, Summary,
};
