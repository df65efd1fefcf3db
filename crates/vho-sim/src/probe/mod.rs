//! Capacity probing and handoff notification (Chen et al., "Service agility in vertical
//! handoffs", the seed 004): TFRC Probe and TCP Probe measure the path's capacity from packet
//! pairs with CapProbe's filter (`capprobe.rs`); a drastic change is an Implicit Handoff
//! Notification (`ihn.rs`, §3.3); a handoff manager at the mobile may give an Explicit one
//! (EHN, §4: `World::notify_handover`, the notification the remedies share). The sender
//! answers a LOW-to-HIGH handoff with Fast Rate Adaptation (FRA, §3.3: slow start) and a
//! HIGH-to-LOW one with Early Rate Reduction (ERR, §4: the rate R to R·C_2/C_1), as
//! [`response`] decides.
//!
//! Sans-IO as the rest: the estimators take the delays the caller measured and the time it
//! passes in. The senders that use them: `tfrc::probe` (TFRC Probe: a back-to-back pair
//! every [`DEFAULT_PAIR_EVERY`] packets, the receiver's estimate on the feedback) and
//! `tcp::sender::probe` (TCP Probe: the ACKs of back-to-back segments timed at the sender).
//!
//! Scenario: `[[flow]] remedies = ["probe" | "ihn" | "ehn" | "fra" | "err", ...]` switch them
//! on (`remedy::probe`), `[flow.probe]` sets α, β, n and the window.

pub mod capprobe;
pub mod ihn;
pub mod summary;

pub use capprobe::{CapProbe, Filter, PairSample, RoundTripRule};
pub use ihn::Ihn;

use crate::time::Time;

/// n: "TFRC Probe creates a back-to-back sampling packet pair every n packets. The default
/// value of n is set to 20 in our experiments" (Chen et al. §3.1).
pub const DEFAULT_PAIR_EVERY: u32 = 20;

/// What a flow probes and how it answers (`[[flow]] remedies`, `[flow.probe]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeConfig {
    /// Send packet pairs and estimate the capacity (remedy `probe`, implied by the others).
    pub enabled: bool,
    /// n, a pair every n packets (§3.1).
    pub pair_every: u32,
    /// How CapProbe's filter makes estimates (`capprobe::DEFAULT_FILTER`).
    pub filter: Filter,
    /// The filter's window (or run), in pairs (`capprobe::DEFAULT_WINDOW_PAIRS`).
    pub window: usize,
    /// α and β of IHN (§3.3).
    pub alpha: f64,
    pub beta: f64,
    /// IHN: a drastic change of the estimate is a handoff (remedy `ihn`).
    pub ihn: bool,
    /// EHN: the mobile's handover manager tells the sender (remedy `ehn`; when, from
    /// `handover.notify`: "at" is the paper's EHN(a), "before" by one one-way delay EHN(b)).
    pub ehn: bool,
    /// FRA on a LOW-to-HIGH handoff (remedy `fra`).
    pub fra: bool,
    /// TFRC's FRA stops doubling at the capacity the handoff announced (`flow.probe.fra_cap`).
    /// Off by default: Chen et al.'s footnote to FRA (seed 004 l.110) has the sender double
    /// "every RTT ... until the first packet loss occurs", with no cap; the cap is vho's
    /// variant (issue 33 point 10).
    pub fra_cap: bool,
    /// ERR on a HIGH-to-LOW handoff (remedy `err`).
    pub err: bool,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            enabled: false,
            pair_every: DEFAULT_PAIR_EVERY,
            filter: capprobe::DEFAULT_FILTER,
            window: capprobe::DEFAULT_WINDOW_PAIRS,
            alpha: ihn::DEFAULT_ALPHA,
            beta: ihn::DEFAULT_BETA,
            ihn: false,
            ehn: false,
            fra: false,
            fra_cap: false,
            err: false,
        }
    }
}

/// Which way the capacity went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    LowToHigh,
    HighToLow,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::LowToHigh => "low-to-high",
            Direction::HighToLow => "high-to-low",
        }
    }
}

/// Who told the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Its own capacity estimates (§3.3).
    Ihn,
    /// The mobile's handover manager (§4).
    Ehn,
}

impl Notice {
    pub fn name(self) -> &'static str {
        match self {
            Notice::Ihn => "ihn",
            Notice::Ehn => "ehn",
        }
    }
}

/// A handoff as the sender learnt it: when, from whom, which way, and the capacities before
/// and after (the estimates C and C' for IHN; the interfaces' nominal rates for EHN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handoff {
    pub at: Time,
    pub by: Notice,
    pub direction: Direction,
    pub from_bps: u64,
    pub to_bps: u64,
}

/// What the sender does about a handoff.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// FRA: enter slow start (§3.3).
    Fra,
    /// ERR: the rate (TFRC) or window (TCP) times C_2/C_1 (§4).
    Err { ratio: f64 },
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Fra => "fra",
            Action::Err { .. } => "err",
        }
    }
}

/// The response `cfg` asks for to handoff `h`: FRA on LOW-to-HIGH if `fra`, ERR on
/// HIGH-to-LOW if `err` (whichever notification brought it; §5.2 runs ERR with EHN only,
/// "IHN cannot detect it in a timely manner", but a late cut is still the cut).
pub fn response(cfg: &ProbeConfig, h: &Handoff) -> Option<Action> {
    match h.direction {
        Direction::LowToHigh if cfg.fra => Some(Action::Fra),
        Direction::HighToLow if cfg.err && h.from_bps > 0 => Some(Action::Err {
            ratio: h.to_bps as f64 / h.from_bps as f64,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handoff(direction: Direction, from_bps: u64, to_bps: u64) -> Handoff {
        Handoff {
            at: Time::ZERO,
            by: Notice::Ehn,
            direction,
            from_bps,
            to_bps,
        }
    }

    #[test]
    fn fra_answers_low_to_high_and_err_high_to_low() {
        // Chen et al. §3.3: FRA "when the handoff is from low to high capacity"; §4: ERR
        // "reduces the ... sending rate from R to RC_2/C_1": 5 Mb/s -> 150 kb/s is 0.03.
        let cfg = ProbeConfig {
            fra: true,
            err: true,
            ..ProbeConfig::default()
        };
        let up = handoff(Direction::LowToHigh, 150_000, 5_000_000);
        let down = handoff(Direction::HighToLow, 5_000_000, 150_000);
        assert_eq!(response(&cfg, &up), Some(Action::Fra));
        assert_eq!(response(&cfg, &down), Some(Action::Err { ratio: 0.03 }));
        // Each only if asked for.
        let only_fra = ProbeConfig {
            fra: true,
            ..ProbeConfig::default()
        };
        assert_eq!(response(&only_fra, &down), None);
        assert_eq!(response(&ProbeConfig::default(), &up), None);
    }

    #[test]
    fn the_defaults_are_the_papers() {
        // Chen et al. §3.1 n = 20; §3.3 α = 5, β = 0.2.
        let c = ProbeConfig::default();
        assert_eq!((c.pair_every, c.alpha, c.beta), (20, 5.0, 0.2));
        assert!(!c.enabled && !c.ihn && !c.ehn && !c.fra && !c.err);
    }
}
