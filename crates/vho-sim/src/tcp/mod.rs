//! Sans-IO TCP: segments and timer expiries in, segments and the next deadline out.
//!
//! Read first: RFC 9293 (the protocol), RFC 5681 (congestion control), RFC 6582 (NewReno),
//! RFC 2018 and RFC 6675 (SACK and SACK-based loss recovery), RFC 6298 (the retransmission
//! timer), RFC 1122 §4.2.3.2 (delayed ACKs), RFC 7323 (timestamps, window scale).
//!
//! vho models a bulk transfer as two endpoints, like ns-2's one-way agents but speaking real
//! TCP: a [`sender::TcpSender`] that has N bytes to send and a [`receiver::TcpReceiver`] that
//! absorbs them and acknowledges. Neither reads a clock: the driver (the simulator's event loop
//! or the emulator's wall clock) passes `now` into every call.
//!
//! Both endpoints have the same four kinds of method, called in this order by a driver:
//! 1. `handle_segment(now, &seg)` for every arriving segment, `handle_timeout(now)` when the
//!    time from `poll_timeout()` has come (a stale or early wake-up is harmless);
//! 2. `poll_transmit(now)` until it returns `None`, sending each segment;
//! 3. `poll_timeout()` for the next deadline to wake up at.
//!
//! Getters (`stats()`, `probe()`) never change state.

pub mod config;
pub mod segment;
pub mod seq;

pub use config::TcpConfig;
pub use segment::{Flags, Segment, TcpOptions, Transmit, TxKind};
pub use seq::SeqNum;
