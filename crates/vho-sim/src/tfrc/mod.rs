//! Sans-IO TFRC, TCP Friendly Rate Control (RFC 5348): data packets and feedback in, data
//! packets, feedback and the next deadline out.
//!
//! Read first: RFC 5348 (the protocol; it obsoletes RFC 3448), RFC 3390 (the initial window
//! the initial rate is taken from), Padhye et al. 1998 (the throughput equation).
//!
//! A [`TfrcSender`] sends `s`-byte packets at the allowed rate X; a [`TfrcReceiver`] measures
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
//! Mechanisms, one file each: `equation.rs` (§3.1 and its inverse, §4.2's W_init),
//! `loss_events.rs` (§5.1 lost packets, §5.2 loss events), `loss_history.rs` (§5.3 loss
//! intervals, §5.4 the weighted average of eight), `receiver.rs` (§6), `sender.rs` (§4: the
//! rate, X_recv_set, slow start, the nofeedback timer, pacing), `config.rs` (named defaults).
//!
//! Choices within RFC 5348:
//! - §4.3's X_recv_set is kept as RFC 5348 says (not RFC 3448's single X_recv): a sender that
//!   sees one low report in a round of normal ones is not cut, and the §4.4 halving goes
//!   through the cached X_recv. The sender is always backlogged, so the data-limited and idle
//!   branches of §4.3 and §4.4 do not arise.
//! - §4.5 oscillation prevention is implemented and off by default (`oscillation_prevention`).
//! - §4.6: the packet times are exact (no timer granularity, so no sending early by t_delta);
//!   a new X takes effect at once (the next packet goes one new t_ipi after the last one).
//! - §5.5 history discounting (optional) is implemented (`loss_history.rs`,
//!   `LossHistory::with_discounting`) and off by default (`history_discounting`); the `ns2`
//!   profile turns it on (Agent/TFRCSink `discount_ 1`).
//! - §6: before the sender has an RTT (its packets carry R = 0) the receiver answers every
//!   packet; §6.3.1: the first interval is 1/p for the p that gives X_recv exactly (bisection,
//!   not "within 5 %"); a loss before any rate was measured takes the packets before it.
//!
//! Where RFC 5348 and ns-2.35's Agent/TFRC (`tcp/tfrc.cc`, `tcp/tfrc-sink.cc`, defaults in
//! `tcl/lib/ns-default.tcl`, read in the hbatmit/ns2.35 mirror of the ns-2.35 release) differ,
//! vho follows the RFC. The `ns2` profile ([`TfrcConfig::ns2`], `[flow.tfrc] profile =
//! "ns2"`) takes ns-2's start (InitRate_, its nofeedback timer), df_, numPkts_, ca_, its
//! gradual increase, its t_RTO (`ns2_rto.rs`), its round-based loss events
//! (`PreciseLoss_`, `LossDetector::note_round`) and its history discounting (`discount_ 1`,
//! RFC 5348 §5.5, `loss_history.rs`); not yet its feedback timing, loss placement by sender
//! timestamps or equation caps. The differences, for the
//! comparison issue 23 asks for (benches/ns2_tfrc.py):
//! - Start: ns-2 starts at `InitRate_ 300` B/s with the nofeedback timer at 2*size_/rate_
//!   (6.7 s at 1000 B); the RFC at one packet a second with 2 s. Both then go to W_init/R at
//!   the first feedback (ns-2's `rfc3390()`: 4 packets up to 1095 B, 3 up to 2190 B, else 2:
//!   the same as min(4s, max(2s, 4380)) for those sizes), but ns-2 holds it for two reports.
//! - Slow start: ns-2 caps doubling by 2*X_recv of the last report only (no X_recv_set),
//!   halves to ss_maxrate_/2 when the rate is above that cap, and with `slow_increase_ 1`
//!   ramps the rate up packet by packet over the RTT instead of stepping; it leaves slow start
//!   at the first report with p > 0 by setting the rate to the equation's (the RFC: min(X_Bps,
//!   recv_limit)).
//! - Congestion avoidance: ns-2 raises the rate by at most s/R per RTT (`increase_rate`, up
//!   to twice that after a long gap) towards the equation's rate, capped by 2*X_recv; the
//!   RFC sets X = min(X_Bps, recv_limit) at once. ns-2 lowers it to the equation's rate at
//!   once, as the RFC.
//! - RTT: ns-2 smooths R with `df_ 0.95`, the RFC with q = 0.9.
//! - t_RTO in the equation: ns-2 uses TCP's srtt + 4*rttvar on a 100 ms tick (`tcp_tick_
//!   0.1`, `minrto_ 0`); the RFC 4*R.
//! - Equation: ns-2's `p_to_b` (`formula.h`) caps 3*sqrt(3*b*p/8) at 1 (it matters for p >
//!   0.296) and the rate at 25 MB/s; the RFC has neither.
//! - Oscillation: ns-2 paces at rate*sqrt(R)/sqrt(R_sample) by default (`ca_ 1`, EWMA with
//!   0.95); the RFC's §4.5 is optional (q2 = 0.9) and off here unless configured.
//! - Nofeedback timer: ns-2 halves its rate itself and restarts after max(2*R, 2*s/X); the
//!   RFC halves through X_recv_set (Update_Limits) and restarts after max(4*R, 2*s/X).
//! - Loss detection: ns-2 declares a packet lost as soon as one later packet arrives
//!   (`numPkts_ 1`), the RFC after NDUPACK = 3; ns-2 places a loss by interpolating the
//!   *sender's* timestamps and also needs a new round (`PreciseLoss_ 1`: the sender's report
//!   count) to start a new event; the RFC interpolates arrival times.
//! - Average loss interval: the same weights and the same I_0 rule (ns-2's `smooth_ 1` shifts
//!   its nine weights to the same effect), but ns-2 discounts old history (`discount_ 1`,
//!   RFC §5.5, optional): the `ns2` profile does too, the RFC profile only when
//!   `history_discounting` is set. ns-2's I_0 counts one packet fewer (the sequence numbers
//!   after the event's first loss up to the highest, `sample[0]`); vho's counts the first
//!   loss too (§5.3). With ns-2's count the `ns2` profile's p at 10 % loss moves from -1.5 %
//!   to -0.5 % of ns-2's (benches/ns2_tfrc.py, 20 seeds, 300 s): not copied.
//! - First loss interval: ns-2 inverts the equation to within 5 % (`b_to_p`, 30 bisection
//!   steps) from the rate since the last report; vho exactly, from X_recv of the last R_m.
//! - Feedback: ns-2's sink reports when a packet arrives at least R after the last report,
//!   on every new loss event, and otherwise from a timer of 1.5*R (`nextpkt`); its X_recv is
//!   the packets since the last report over the time since it (or those of the last R). The
//!   RFC: a timer of R_m, early only when p rises, X_recv over the last R_m.
//! - Sizes: ns-2 adds `headersize_ 32` to every packet on the wire (`useHeaders_ true`); a
//!   [`TfrcPacket`] is `s` bytes of payload and the world adds the headers.

pub mod config;
pub mod equation;
pub mod loss_events;
pub mod loss_history;
pub mod ns2_rto;
pub mod probe;
pub mod receiver;
pub mod sender;

#[cfg(test)]
mod tests;

pub use config::TfrcConfig;
pub use receiver::{ReceiverStats, TfrcReceiver};
pub use sender::{SenderProbe, SenderStats, TfrcSender};

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
    /// The feedback reports the sender has had, and nofeedback expiries (ns-2's `round_id`,
    /// read only with `TfrcConfig::round_loss_events`; RFC 5348 has no such field).
    pub round: u64,
    /// TFRC Probe's packet-pair mark (Chen et al. §3.1; RFC 5348 has no such field).
    pub pair: PairMark,
}

/// Where a data packet stands in a TFRC Probe packet pair (`crate::probe`): the two go back
/// to back, both stamped with their sending time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairMark {
    #[default]
    None,
    First,
    Second,
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
    /// TFRC Probe's capacity estimate, bit/s (Chen et al. §3.1: "reported to the sender using
    /// ... the original ACKs"); `None` without the probe or before its first pair. Counted in
    /// no header bytes: as in the paper's ns-2 code, it costs no traffic.
    pub capacity_bps: Option<u64>,
    /// The first lost packet of the newest loss event, as the Loss Intervals option of RFC
    /// 4342 §8.6 tells a CCID 3 sender where each interval begins; `None` before any loss.
    /// TFRC Probe's FRA ends at the first loss of a packet it sent (`tfrc/probe.rs`). Counted
    /// in no header bytes, as `capacity_bps`.
    pub loss_start: Option<u64>,
}

/// What a TFRC packet carries in the world (`agent::tfrc`): data or feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TfrcHeader {
    Data(TfrcPacket),
    Feedback(Feedback),
}

/// Header bytes of a TFRC packet on the wire below its payload: IPv4 20 + UDP 8 + the TFRC
/// header vho writes in captures (`record::pcap`): for data 12 (sequence number, timestamp
/// and RTT in microseconds, 32 bits each: the fields of RFC 5348 §3.2.1 and of ns-2's
/// `hdr_tfrc` seqno/timestamp/rtt), for feedback 16 (timestamp echo, elapsed time, X_recv in
/// bytes per second, p as a fraction of 2^32: §3.2.2).
pub const DATA_HEADER_BYTES: u32 = 20 + 8 + 12;
pub const FEEDBACK_BYTES: u32 = 20 + 8 + 16;
