//! Sans-IO TFRC, TCP Friendly Rate Control (RFC 5348): data packets and feedback in, data
//! packets, feedback and the next deadline out.
//!
//! Read first: RFC 5348 (the protocol; it obsoletes RFC 3448), RFC 3390 (the initial window
//! the initial rate is taken from), Padhye et al. 1998 (the throughput equation).
//!
//! A `TfrcSender` sends `s`-byte packets at the allowed rate X; a `TfrcReceiver` measures
//! the loss event rate p and the receive rate X_recv and feeds them back about once per RTT.
//! As the TCP endpoints in `tcp/`, neither reads a clock: the driver passes `now` into every
//! call, and calls, in this order:
//! 1. `handle_data(now, &pkt)` (receiver) / `handle_feedback(now, &fb)` (sender) for every
//!    arrival, `handle_timeout(now)` when the time from `poll_timeout()` has come (a stale or
//!    early wake-up is harmless);
//! 2. `poll_transmit(now)` until it returns `None`, sending each packet;
//! 3. `poll_timeout()` for the next deadline to wake up at.
//!
//! Getters (`stats()`, `probe()`, `rate()`, `loss_event_rate()`) never change state.
//!
//! Mechanisms, one file each, so far: `equation.rs` (§3.1 and its inverse, §4.2's W_init),
//! `loss_events.rs` (§5.1 lost packets, §5.2 loss events), `loss_history.rs` (§5.3 loss
//! intervals, §5.4 the weighted average of eight), `receiver.rs` (§6), `config.rs` (named
//! defaults). The sender follows.
//!

pub mod config;
pub mod equation;
pub mod loss_events;
pub mod loss_history;
pub mod receiver;

pub use config::TfrcConfig;
pub use receiver::{ReceiverStats, TfrcReceiver};

use crate::time::{Dur, Time};

/// A data packet (RFC 5348 §3.2.1): "a sequence number", "a timestamp", "the sender's current
/// estimate of the round-trip time" (zero before it has one), and `size` = s bytes of data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TfrcPacket {
    pub seq: u64,
    /// When the sender sent it.
    pub timestamp: Time,
    /// The sender's R.
    pub rtt: Dur,
    pub size: u32,
}

/// A feedback packet (RFC 5348 §3.2.2): "the timestamp of the last data packet received"
/// (t_recvdata), "the amount of time elapsed between the receipt of the last data packet at
/// the receiver and the generation of this feedback report" (t_delay), "the rate at which the
/// receiver estimates that data was received since the last feedback report was sent"
/// (X_recv, bytes per second), and "the receiver's current estimate of the loss event rate,
/// p".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    pub timestamp_echo: Time,
    pub elapsed: Dur,
    pub x_recv: f64,
    pub p: f64,
}
