//! Sans-IO TCP: segments and timer expiries in, segments and the next deadline out.
//!
//! Read first: RFC 9293 (the protocol), RFC 5681 (congestion control), RFC 6582 (NewReno),
//! RFC 2018 and RFC 6675 (SACK and SACK-based loss recovery), RFC 6298 (the retransmission
//! timer), RFC 1122 §4.2.3.2 (delayed ACKs), RFC 7323 (timestamps, window scale).
//!
//! vho models a bulk transfer as two endpoints, like ns-2's one-way agents but speaking real
//! TCP: a [`TcpSender`] that has N bytes to send and a [`TcpReceiver`] that absorbs them and
//! acknowledges. Neither reads a clock: the driver (the simulator's event loop or the
//! emulator's wall clock) passes `now` into every call.
//!
//! Both endpoints have the same kinds of method, called in this order by a driver:
//! 1. `handle_segment(now, &seg)` for every arriving segment, `handle_timeout(now)` when the
//!    time from `poll_timeout()` has come (a stale or early wake-up is harmless);
//! 2. `poll_transmit(now)` until it returns `None`, sending each segment;
//! 3. `poll_timeout()` for the next deadline to wake up at.
//!
//! Getters (`stats()`, `probe()`) never change state.
//!
//! Mechanisms, one file each: `rtt.rs` (RFC 6298 estimator), `cc/` (congestion controllers),
//! `sack.rs` (scoreboard, RFC 6675), `timer.rs` (timer table), `options.rs` (negotiation),
//! `profile.rs` (named defaults), `spurious/` (detectors of spurious retransmissions),
//! `dupthresh.rs` (the duplicate-ACK threshold, adaptive after a handover), `rack.rs` (RACK
//! loss detection, RFC 8985, and Linux's reordering degree), `oracle.rs` (the
//! oracle sender's rules: the bound remedies are measured against).
//! `sender.rs` and `receiver.rs` connect them.

pub mod cc;
pub mod config;
pub mod dupthresh;
pub mod options;
pub mod oracle;
pub mod profile;
pub mod prr;
pub mod rack;
pub mod receiver;
pub mod rtt;
pub mod rtt_linux;
pub mod sack;
pub mod segment;
pub mod sender;
pub mod seq;
pub mod spurious;
pub mod timer;

#[cfg(test)]
mod tests;

pub use config::TcpConfig;
pub use receiver::{ReceiverStats, TcpReceiver};
pub use segment::{Flags, Segment, TcpOptions, Transmit, TxKind};
pub use sender::{SenderProbe, SenderStats, TcpSender};
pub use seq::SeqNum;
