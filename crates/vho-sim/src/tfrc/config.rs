//! Everything a TFRC sender and receiver depend on, as one plain struct; each default cites
//! the clause of RFC 5348 (or the ns-2.35 default) it comes from.

use crate::time::Dur;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcConfig {
    /// s, the segment size in bytes: every data packet carries `s` bytes (§3.1: "s is the
    /// segment size in bytes (excluding IP and transport protocol headers)"). Default 1000:
    /// ns-2.35's `Agent/TFRC set packetSize_ 1000`, the peer issue 23 holds us against.
    pub segment_size: u32,
    /// t_mbi, the maximum back-off interval: the rate never falls below s/t_mbi (§4.3: "t_mbi
    /// = 64 seconds").
    pub t_mbi: Dur,
    /// b, the packets acknowledged by one TCP ACK, in the equation (§3.1: "b ... is 1").
    pub b: f64,
    /// t_RTO = `rto_factor` * R in the equation (§3.1: "t_RTO = 4*R").
    pub rto_factor: u32,
    /// q, the weight of the old R in the RTT EWMA (§4.3 step 2: "a value of 0.9 is
    /// RECOMMENDED").
    pub q: f64,
    /// The nofeedback timer before the first feedback (§4.2: "the nofeedback timer is set to
    /// expire after 2 seconds").
    pub initial_nofeedback: Dur,
    /// The rate before any RTT is known, in bytes per second; `None` for s bytes per second,
    /// one packet a second (§4.2: "the value of X is set to 1 packet/second").
    pub initial_rate: Option<f64>,
    /// An RTT known before the first feedback (a handshake's, §4.2: "If the sender is ready to
    /// send data when it does not yet have a round-trip sample ..."; with one, the sender
    /// starts at W_init/R). `None`: no handshake, as ns-2's Agent/TFRC.
    pub initial_rtt: Option<Dur>,
    /// NDUPACK: a packet is lost once this many packets above it have arrived (§5.1: "the
    /// same as TCP, namely 3").
    pub ndupack: u32,
    /// Oscillation prevention (§4.5, optional: "the sender MAY ..."): pace at X_inst = X *
    /// R_sqmean / sqrt(R_sample) instead of X. Off by default (ns-2's `ca_ 1` is a variant of
    /// it and is on there: see `tfrc/mod.rs`).
    pub oscillation_prevention: bool,
    /// q2, the weight of the old R_sqmean (§4.5: "q2 ... we recommend ... 0.9").
    pub q2: f64,
    /// Deviation (the `ns2` profile only): raise X towards the equation's rate by at most
    /// s/R per RTT (up to twice that after a long gap), as ns-2.35's `increase_rate`
    /// (tcp/tfrc.cc), instead of setting it at once (§4.3 step 4). A cut still takes effect
    /// at once, as in both.
    pub gradual_increase: bool,
    /// Deviation (the `ns2` profile only): t_RTO in the sender's equation from ns-2.35's
    /// tick-based TCP estimator on this tick (`tcp_tick_`; `tfrc/ns2_rto.rs`) instead of
    /// `rto_factor` * R (§3.1). `None`: the RFC's.
    pub ns2_rto_tick: Option<Dur>,
    /// Deviation (the `ns2` profile only): a loss begins a new loss event only if the
    /// sender has had a report since the last event began (ns-2.35's `PreciseLoss_ 1`,
    /// `round_id` in tfrc-sink.cc `new_loss`), besides §5.2's one RTT.
    pub round_loss_events: bool,
    /// History discounting (RFC 5348 §5.5, optional): after a long loss-free run the older
    /// intervals weigh less, so p falls faster. Off in the RFC profile (§5.5 makes it
    /// optional); on in the `ns2` profile (Agent/TFRCSink `discount_ 1`).
    pub history_discounting: bool,
    /// Deviation (the `ns2` profile only): ns-2.35's nofeedback timer (tcp/tfrc.cc `recv`
    /// and `reduce_rate_on_no_feedback`): it runs max(2*R, 2*s/X) after each report, not
    /// §4.3's max(4*R, 2*s/X), and its expiry halves X itself (`rate_*=0.5` for a sender
    /// not data-limited), not §4.4's limit through the cached X_recv.
    pub ns2_nofeedback: bool,
    /// Deviation (the `ns2` profile only): recv_limit from the last report alone, as
    /// ns-2.35's `maxrate_ = 2*rate_since_last_report*size_` (tcp/tfrc.cc `recv`), at least
    /// s/R (`increase_rate`, `decrease_rate`: `maxrate_>size_/rtt_ ? ...`), instead of
    /// §4.3's 2*max(X_recv_set) over the last two RTTs.
    pub ns2_recv_limit: bool,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            segment_size: 1000,
            t_mbi: Dur::from_secs(64),
            b: 1.0,
            rto_factor: 4,
            q: 0.9,
            initial_nofeedback: Dur::from_secs(2),
            initial_rate: None,
            initial_rtt: None,
            ndupack: 3,
            oscillation_prevention: false,
            q2: 0.9,
            gradual_increase: false,
            ns2_rto_tick: None,
            round_loss_events: false,
            history_discounting: false,
            ns2_nofeedback: false,
            ns2_recv_limit: false,
        }
    }
}

impl TfrcConfig {
    /// The `ns2` profile: the parameters of RFC 5348 that ns-2.35's Agent/TFRC and
    /// Agent/TFRCSink set otherwise (`tcl/lib/ns-default.tcl`; `tfrc/mod.rs` lists every
    /// difference, and which ones are mechanisms this profile does not copy).
    pub fn ns2() -> Self {
        let s = 1000;
        let init_rate = 300.0; // Agent/TFRC set InitRate_ 300 (bytes per second)
        TfrcConfig {
            segment_size: s, // packetSize_ 1000
            q: 0.95,         // df_ 0.95: rtt_ = df_*rtt_ + (1-df_)*sample
            initial_rate: Some(init_rate),
            // tfrc.cc start(): NoFeedbacktimer_.resched(2*size_/rate_).
            initial_nofeedback: Dur::from_secs_f64(2.0 * s as f64 / init_rate),
            ndupack: 1, // Agent/TFRCSink set numPkts_ 1
            // ca_ 1: xrate = rate_ * sqrtrtt_/sqrt(rttcur_), sqrtrtt_ with df_.
            oscillation_prevention: true,
            q2: 0.95,
            gradual_increase: true,
            ns2_rto_tick: Some(Dur::from_millis(100)), // Agent/TFRC set tcp_tick_ 0.1
            round_loss_events: true,                   // Agent/TFRCSink set PreciseLoss_ 1
            history_discounting: true,                 // Agent/TFRCSink set discount_ 1
            ns2_nofeedback: true,                      // tfrc.cc: t = 2*rtt_, rate_*=0.5
            ns2_recv_limit: true,                      // tfrc.cc: maxrate_ from the last report
            ..TfrcConfig::default()
        }
    }

    /// s/t_mbi, the floor of the allowed sending rate (§4.3), bytes per second.
    pub fn min_rate(&self) -> f64 {
        self.segment_size as f64 / self.t_mbi.as_secs_f64()
    }
    /// t_RTO for an RTT `r` (§3.1).
    pub fn t_rto(&self, r: Dur) -> Dur {
        r.saturating_mul(self.rto_factor as u64)
    }
}
