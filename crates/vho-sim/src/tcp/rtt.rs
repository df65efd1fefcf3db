//! The retransmission timer's estimator (RFC 6298), with a real OS's granularity and bounds.
//!
//! Two arithmetics:
//! - [`RtoAlgorithm::Rfc6298`]: RFC 6298 §2 in nanoseconds: on the first sample
//!   SRTT = R, RTTVAR = R/2; then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R
//!   (§2.3); RTO = SRTT + max(G, 4·RTTVAR) (§2.2–2.3), clamped to [min, max] (§2.4–2.5).
//! - [`RtoAlgorithm::Ns2Ticks`]: ns-2.35's `TcpAgent::rtt_update` (tcp/tcp.cc:576-620): the
//!   sample is the number of clock ticks crossed between send and ACK (a BSD-style ticking
//!   clock whose phase `boot_time_` is uniform in one tick, tcp.cc:481 and 582-585), at least
//!   one; SRTT kept ×8 and RTTVAR ×4 as integers; RTO = ((RTTVAR << (rttvar_exp + SRTT_BITS −
//!   RTTVAR_BITS)) + SRTT) >> SRTT_BITS ticks (the same 1/8, 1/4 and K = 4). After more than
//!   three backoffs SRTT is folded into RTTVAR and forgotten (`rtt_backoff`, tcp.cc:629-637).
//!
//! - [`RtoAlgorithm::Linux20`]: Linux 2.0's `tcp_rtt_estimator` (net/ipv4/tcp_input.c, the
//!   kernel of the thesis testbed): the same integer arithmetic in jiffies, but the first
//!   sample sets RTTVAR to RTT/2 ("make sure rto = 3*rtt") and RTO = R + R/4 + R >> (cwnd − 1)
//!   with R = SRTT + 4·RTTVAR ("We diverge from Jacobson's algorithm here").
//!
//! - [`RtoAlgorithm::Linux`]: a modern Linux kernel's `tcp_rtt_estimator` and `__tcp_set_rto`
//!   (`rtt_linux.rs`): µs, `mdev_max` per flight, RTO >= SRTT + TCP_RTO_MIN, whole jiffies.
//!
//! All: the minimum is applied before the backoff, as RFC 6298 (2.4) then (5.5) and ns-2's
//! `rtt_timeout` with `rfc2988_` true (tcp.cc:543-549) do, and the maximum after. Backoff is
//! cleared by the next valid sample.

use super::config::{RtoAlgorithm, RtoConfig};
use super::rtt_linux::{Flight, LinuxRtt};
use crate::time::{Dur, Time};

/// ns-2's fixed-point widths (tcp/tcp.h `T_SRTT_BITS`, `T_RTTVAR_BITS`) and `rttvar_exp_`
/// (ns-default.tcl): K = 2^rttvar_exp = 4.
const NS2_SRTT_BITS: u32 = 3;
const NS2_RTTVAR_BITS: u32 = 2;
const NS2_RTTVAR_EXP: u32 = 2;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RtoConfig,
    /// Smoothed RTT and variation in ns (RFC 6298), or in scaled ticks (ns-2).
    srtt: u64,
    rttvar: u64,
    has_sample: bool,
    /// RTO before backoff and bounds.
    base_rto: Dur,
    backoff_shift: u32,
    /// The last samples, for the `fast-rto-decrease` remedy (`None`: off).
    fast: Option<FastDecrease>,
    fast_decreases: u64,
    /// [`RtoAlgorithm::Linux`]'s state (`srtt` and `rttvar` above are unused then).
    linux: LinuxRtt,
}

/// What the sender knows when it takes a sample, for the estimators that read it.
#[derive(Clone, Copy, Debug, Default)]
pub struct SampleContext {
    /// cwnd in whole segments (Linux 2.0's RTO reads it).
    pub cwnd_segments: u32,
    /// SND.UNA after the ACK and the highest SND.NXT (Linux's per-flight `rtt_seq`).
    pub flight: Flight,
}

/// The remedy `fast-rto-decrease` (thesis §7.2.2 and §8.1: "if the RTT suddenly decreases
/// significantly and several RTT measurements show the same value, the RTO should be decreased
/// to a value close to the new RTT, instead of adding the variance"). The thesis states no
/// numbers; vho's rule (docs/design/issue-19-sources.md §2): when the last
/// [`FAST_DECREASE_SAMPLES`] samples are all below SRTT / [`FAST_DECREASE_DROP`] and within a
/// ratio of [`FAST_DECREASE_SPREAD`] of each other, SRTT becomes their mean and RTTVAR
/// max(G, SRTT/4, max − min). Increases follow the ordinary rule.
#[derive(Clone, Copy, Debug, Default)]
struct FastDecrease {
    recent: [u64; FAST_DECREASE_SAMPLES],
    n: usize,
}

/// Samples that must agree (vho's choice: three, the fewest that say "several").
pub const FAST_DECREASE_SAMPLES: usize = 3;
/// How far below SRTT they must all be (vho's choice: the thesis's drop was ×200; 4 leaves
/// ordinary jitter alone).
pub const FAST_DECREASE_DROP: u64 = 4;
/// Their largest over their smallest at most this, in tenths ("the same value": 1.5).
pub const FAST_DECREASE_SPREAD_TENTHS: u64 = 15;
/// [`FAST_DECREASE_SPREAD_TENTHS`] as a ratio, for the docs.
pub const FAST_DECREASE_SPREAD: f64 = 1.5;

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RttEstimator {
            cfg,
            srtt: 0,
            rttvar: 0,
            has_sample: false,
            base_rto: cfg.initial,
            backoff_shift: 0,
            fast: None,
            fast_decreases: 0,
            linux: LinuxRtt::default(),
        }
    }

    /// With the remedy `fast-rto-decrease` on (see [`FastDecrease`]).
    pub fn with_fast_decrease(mut self, on: bool) -> Self {
        self.fast = on.then(FastDecrease::default);
        self
    }

    /// A valid RTT measurement of a segment sent at `sent` and acknowledged at `now` (never
    /// a retransmitted segment: RFC 6298 §3, Karn).
    pub fn on_sample(&mut self, sent: Time, now: Time) {
        self.on_sample_in(
            sent,
            now,
            SampleContext {
                cwnd_segments: 1,
                ..SampleContext::default()
            },
        );
    }

    /// [`RttEstimator::on_sample`] with what the sender knows (Linux 2.0's RTO reads the
    /// window, modern Linux's the flight).
    pub fn on_sample_in(&mut self, sent: Time, now: Time, ctx: SampleContext) {
        if self.fast.is_some() && self.fast_decrease(now.saturating_since(sent)) {
            self.has_sample = true;
            self.backoff_shift = 0;
            return;
        }
        match self.cfg.algorithm {
            RtoAlgorithm::Rfc6298 => self.sample_rfc6298(now.saturating_since(sent)),
            RtoAlgorithm::Ns2Ticks => self.sample_ns2(sent, now),
            RtoAlgorithm::Linux20 => self.sample_linux20(sent, now, ctx.cwnd_segments),
            RtoAlgorithm::Linux => self.sample_linux(now.saturating_since(sent), ctx.flight),
        }
        self.has_sample = true;
        self.backoff_shift = 0;
    }

    /// The remedy's rule on a new sample `r`; true when it set the estimate.
    #[cold]
    fn fast_decrease(&mut self, r: Dur) -> bool {
        let srtt = self.srtt().as_nanos();
        let Some(f) = self.fast.as_mut() else {
            return false;
        };
        f.recent[f.n % FAST_DECREASE_SAMPLES] = r.as_nanos();
        f.n += 1;
        if !self.has_sample || f.n < FAST_DECREASE_SAMPLES {
            return false;
        }
        let (lo, hi) = f
            .recent
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        let drop = f
            .recent
            .iter()
            .all(|&x| x.saturating_mul(FAST_DECREASE_DROP) < srtt);
        let same = hi.saturating_mul(10) <= lo.max(1).saturating_mul(FAST_DECREASE_SPREAD_TENTHS);
        if !(drop && same) {
            return false;
        }
        let mean = f.recent.iter().sum::<u64>() / FAST_DECREASE_SAMPLES as u64;
        f.n = 0;
        let g = self.cfg.granularity.as_nanos();
        let rttvar = g.max(mean / 4).max(hi - lo);
        self.set_estimate(mean, rttvar);
        self.base_rto = Dur(mean + g.max(4 * rttvar));
        self.fast_decreases += 1;
        true
    }

    /// Sets SRTT and RTTVAR (ns) in the algorithm's own units.
    fn set_estimate(&mut self, srtt_ns: u64, rttvar_ns: u64) {
        match self.cfg.algorithm {
            RtoAlgorithm::Rfc6298 => {
                self.srtt = srtt_ns;
                self.rttvar = rttvar_ns;
            }
            RtoAlgorithm::Ns2Ticks | RtoAlgorithm::Linux20 => {
                let tick = self.cfg.granularity.as_nanos().max(1);
                self.srtt = (srtt_ns << NS2_SRTT_BITS) / tick;
                self.rttvar = (rttvar_ns << NS2_RTTVAR_BITS) / tick;
            }
            RtoAlgorithm::Linux => {
                let min_us = self.cfg.min.as_nanos() / 1000;
                self.linux.set(srtt_ns / 1000, rttvar_ns / 1000, min_us);
            }
        }
    }

    /// Modern Linux (`rtt_linux.rs`): the sample in whole µs (`tcp_stamp_us_delta`).
    fn sample_linux(&mut self, r: Dur, flight: Flight) {
        let min_us = self.cfg.min.as_nanos() / 1000;
        self.linux
            .on_sample(r.as_nanos() / 1000, !self.has_sample, flight, min_us);
        let jiffy_us = self.cfg.granularity.as_nanos() / 1000;
        self.base_rto = Dur::from_micros(self.linux.rto_us(jiffy_us));
    }

    fn sample_rfc6298(&mut self, r: Dur) {
        let r = r.as_nanos();
        if !self.has_sample {
            // RFC 6298 (2.2)
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            // RFC 6298 (2.3): beta = 1/4, alpha = 1/8.
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        let g = self.cfg.granularity.as_nanos();
        self.base_rto = Dur(self.srtt + g.max(4 * self.rttvar));
    }

    fn sample_ns2(&mut self, sent: Time, now: Time) {
        let tick = self.cfg.granularity.as_nanos().max(1);
        let phase = self.cfg.tick_phase.as_nanos();
        // t_rtt_ = int((tao + fmod(sendtime + boot_time_, tick)) / tick), at least 1.
        let ticks_at = |t: Time| (t.as_nanos() + phase) / tick;
        let t_rtt = (ticks_at(now).saturating_sub(ticks_at(sent))).max(1) as i64;
        let (mut srtt, mut rttvar) = (self.srtt as i64, self.rttvar as i64);
        if self.has_sample {
            let mut delta = t_rtt - (srtt >> NS2_SRTT_BITS);
            srtt += delta;
            if srtt <= 0 {
                srtt = 1;
            }
            delta = delta.abs() - (rttvar >> NS2_RTTVAR_BITS);
            rttvar += delta;
            if rttvar <= 0 {
                rttvar = 1;
            }
        } else {
            srtt = t_rtt << NS2_SRTT_BITS;
            rttvar = t_rtt << (NS2_RTTVAR_BITS - 1);
        }
        self.srtt = srtt as u64;
        self.rttvar = rttvar as u64;
        let ticks = ((rttvar << (NS2_RTTVAR_EXP + NS2_SRTT_BITS - NS2_RTTVAR_BITS)) + srtt)
            >> NS2_SRTT_BITS;
        self.base_rto = Dur(ticks as u64 * tick);
    }

    /// RFC 4015 §3.1 step (11), after a spurious timeout, on the first RTT sample of data
    /// sent after it: SRTT = max(SRTT_prev, R), RTTVAR = max(RTTVAR_prev, R/2),
    /// RTO = SRTT + max(G, 4·RTTVAR). ns-2's tick arithmetic has no such step: unchanged.
    pub fn adapt_after_spurious(&mut self, r: Dur, srtt_prev: Dur, rttvar_prev: Dur) {
        if self.cfg.algorithm != RtoAlgorithm::Rfc6298 {
            return;
        }
        let r = r.as_nanos();
        self.srtt = srtt_prev.as_nanos().max(r);
        self.rttvar = rttvar_prev.as_nanos().max(r / 2);
        let g = self.cfg.granularity.as_nanos();
        self.base_rto = Dur(self.srtt + g.max(4 * self.rttvar));
        self.has_sample = true;
        self.backoff_shift = 0;
    }

    /// Forgets the estimate: the RTO goes back to its initial value, the backoff is cleared,
    /// and the next sample is taken as the first (RFC 6298 (2.1)-(2.2)).
    pub fn reset(&mut self) {
        self.srtt = 0;
        self.rttvar = 0;
        self.linux = LinuxRtt::default();
        self.has_sample = false;
        self.base_rto = self.cfg.initial;
        self.backoff_shift = 0;
        if let Some(f) = self.fast.as_mut() {
            f.n = 0;
        }
    }

    /// `rtt-injection`: SRTT and RTTVAR raised to at least `srtt` and `rttvar` (an estimate
    /// without a sample takes them as its first), the RTO recomputed from them, the backoff
    /// cleared.
    pub fn inject(&mut self, srtt: Dur, rttvar: Dur) {
        let (s, v) = if self.has_sample {
            (self.srtt().max(srtt), self.rttvar().max(rttvar))
        } else {
            (srtt, rttvar)
        };
        self.set_estimate(s.as_nanos(), v.as_nanos());
        let g = self.cfg.granularity.as_nanos();
        self.base_rto = Dur(s.as_nanos() + g.max(4 * v.as_nanos()));
        self.has_sample = true;
        self.backoff_shift = 0;
    }

    /// How many times `fast-rto-decrease` set the estimate.
    pub fn fast_decreases(&self) -> u64 {
        self.fast_decreases
    }

    /// The timer's granularity G.
    pub fn granularity(&self) -> Dur {
        self.cfg.granularity
    }

    fn sample_linux20(&mut self, sent: Time, now: Time, cwnd_segments: u32) {
        let tick = self.cfg.granularity.as_nanos().max(1);
        let phase = self.cfg.tick_phase.as_nanos();
        let jiffies = |t: Time| (t.as_nanos() + phase) / tick;
        // m = jiffies - oskb->when; if (m <= 0) m = 1;
        let m = (jiffies(now).saturating_sub(jiffies(sent))).max(1) as i64;
        let (mut rtt, mut mdev) = (self.srtt as i64, self.rttvar as i64);
        if self.has_sample {
            let mut err = m - (rtt >> 3);
            rtt += err; // rtt = 7/8 rtt + 1/8 new
            err = err.abs() - (mdev >> 2);
            mdev += err; // mdev = 3/4 mdev + 1/4 new
        } else {
            rtt = m << 3; // "take the measured time to be rtt"
            mdev = m << 1; // "make sure rto = 3*rtt"
        }
        self.srtt = rtt.max(0) as u64;
        self.rttvar = mdev.max(0) as u64;
        let mut rto = (rtt >> 3) + mdev;
        // "We diverge from Jacobson's algorithm here": rto += rto/4 + rto >> (cwnd - 1).
        let shift = cwnd_segments.saturating_sub(1).min(63);
        rto += (rto >> 2) + (rto >> shift);
        self.base_rto = Dur(rto.max(0) as u64 * tick);
    }

    /// The timer expired: back off (RFC 6298 §5.5).
    pub fn on_rto(&mut self) {
        if self.backoff_shift < self.cfg.max_backoff_shift {
            self.backoff_shift += 1;
        }
        if self.cfg.algorithm == RtoAlgorithm::Ns2Ticks && self.backoff_shift > 3 && self.has_sample
        {
            // ns-2 rtt_backoff: t_backoff_ > 8 folds SRTT into RTTVAR; the next sample
            // starts the estimate afresh.
            self.rttvar += self.srtt >> NS2_SRTT_BITS;
            self.srtt = 0;
            self.has_sample = false;
        }
    }

    /// RFC 6298 §5.7: the SYN (or SYN-ACK) timed out and the handshake gave no RTT sample, so
    /// when data transmission begins an RTO below 3 s goes back to 3 s (Linux:
    /// TCP_TIMEOUT_FALLBACK in tcp_init_transfer).
    pub fn on_data_start_after_syn_timeout(&mut self) {
        const FALLBACK: Dur = Dur::from_secs(3);
        if !self.has_sample && self.rto() < FALLBACK {
            self.base_rto = FALLBACK;
            self.backoff_shift = 0;
        }
    }

    /// The current RTO: at least the minimum (RFC 6298 (2.4)), doubled per backoff (5.5), at
    /// most the maximum (2.5).
    pub fn rto(&self) -> Dur {
        self.base_rto
            .max(self.cfg.min)
            .saturating_mul(1 << self.backoff_shift)
            .min(self.cfg.max)
    }

    pub fn srtt(&self) -> Dur {
        match self.cfg.algorithm {
            RtoAlgorithm::Rfc6298 => Dur(self.srtt),
            RtoAlgorithm::Ns2Ticks | RtoAlgorithm::Linux20 => {
                Dur((self.srtt * self.cfg.granularity.as_nanos()) >> NS2_SRTT_BITS)
            }
            RtoAlgorithm::Linux => Dur::from_micros(self.linux.srtt_us()),
        }
    }

    /// RTTVAR (Linux 2.0: mdev is 4·D, kept ×4 as ns-2's RTTVAR is: the same scaling).
    pub fn rttvar(&self) -> Dur {
        match self.cfg.algorithm {
            RtoAlgorithm::Rfc6298 => Dur(self.rttvar),
            RtoAlgorithm::Ns2Ticks | RtoAlgorithm::Linux20 => {
                Dur((self.rttvar * self.cfg.granularity.as_nanos()) >> NS2_RTTVAR_BITS)
            }
            RtoAlgorithm::Linux => Dur::from_micros(self.linux.rttvar_us()),
        }
    }

    pub fn has_sample(&self) -> bool {
        self.has_sample
    }

    pub fn backoff_shift(&self) -> u32 {
        self.backoff_shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rfc(min_ms: u64, g_ms: u64) -> RtoConfig {
        RtoConfig {
            algorithm: RtoAlgorithm::Rfc6298,
            initial: Dur::from_secs(1),
            min: Dur::from_millis(min_ms),
            max: Dur::from_secs(60),
            granularity: Dur::from_millis(g_ms),
            tick_phase: Dur::ZERO,
            max_backoff_shift: 6,
        }
    }

    /// A sample of `ms` milliseconds sent at `at_ms`.
    fn sample(e: &mut RttEstimator, at_ms: u64, ms: u64) {
        e.on_sample(Time::from_millis(at_ms), Time::from_millis(at_ms + ms));
    }

    // ---- RFC 6298 arithmetic ----

    #[test]
    fn initial_rto_before_any_sample() {
        // RFC 6298 (2.1): until a measurement is made, RTO = 1 s.
        assert_eq!(RttEstimator::new(rfc(1000, 1)).rto(), Dur::from_secs(1));
    }

    #[test]
    fn rto_sequence_follows_the_rfc_formulas() {
        // RFC 6298 (2.2)/(2.3), worked by hand with min RTO 0 and G = 1 ms:
        // R1 = 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 4*50 = 300 ms.
        // R2 = 200 ms: RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
        //              RTO = 112.5 + 250 = 362.5 ms.
        let mut e = RttEstimator::new(rfc(0, 1));
        sample(&mut e, 0, 100);
        assert_eq!(e.rto(), Dur::from_millis(300));
        sample(&mut e, 100, 200);
        assert_eq!(e.srtt(), Dur::from_micros(112_500));
        assert_eq!(e.rttvar(), Dur::from_micros(62_500));
        assert_eq!(e.rto(), Dur::from_micros(362_500));
    }

    #[test]
    fn granularity_is_the_floor_of_the_variance_term() {
        // RFC 6298 (2.3): RTO = SRTT + max(G, K*RTTVAR). Four equal 10 ms samples shrink RTTVAR
        // to 5 * (3/4)^3 = 2.109 ms, so 4*RTTVAR = 8.4 ms < G = 500 ms: RTO = 10 + 500 ms.
        let mut e = RttEstimator::new(rfc(0, 500));
        for k in 0..4 {
            sample(&mut e, 100 * k, 10);
        }
        assert_eq!(e.rto(), Dur::from_millis(510));
    }

    #[test]
    fn minimum_rto_bounds_small_estimates() {
        // RFC 6298 (2.4): RTO below 1 s is rounded up to 1 s (the rfc profile).
        let mut e = RttEstimator::new(rfc(1000, 1));
        sample(&mut e, 0, 3);
        assert_eq!(e.rto(), Dur::from_secs(1));
        // The minimum applies before the backoff (RFC 6298 (2.4) then (5.5)): 1 s, 2 s.
        e.on_rto();
        assert_eq!(e.rto(), Dur::from_secs(2));
        // Linux: TCP_RTO_MIN = 200 ms.
        let mut e = RttEstimator::new(rfc(200, 1));
        sample(&mut e, 0, 3);
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    #[test]
    fn backoff_doubles_until_the_cap_and_a_sample_clears_it() {
        // RFC 6298 (5.5): RTO <- RTO * 2 on each expiry; (2.5) maximum 60 s.
        let mut e = RttEstimator::new(rfc(1000, 1));
        let seq: Vec<u64> = (0..8)
            .map(|_| {
                let r = e.rto().as_nanos() / 1_000_000;
                e.on_rto();
                r
            })
            .collect();
        assert_eq!(
            seq,
            vec![1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]
        );
        sample(&mut e, 0, 100);
        assert_eq!(e.backoff_shift(), 0);
        assert_eq!(e.rto(), Dur::from_secs(1));
    }

    // ---- ns-2 tick arithmetic ----

    fn ns2() -> RtoConfig {
        RtoConfig {
            algorithm: RtoAlgorithm::Ns2Ticks,
            initial: Dur::from_secs(3),
            min: Dur::from_millis(200),
            max: Dur::from_secs(60),
            granularity: Dur::from_millis(10),
            tick_phase: Dur::ZERO,
            max_backoff_shift: 6,
        }
    }

    #[test]
    fn ns2_first_sample_counts_tick_boundaries() {
        // ns-2 rtt_update, boot_time_ 0, tcpTick_ 10 ms: sent at 0, ACKed at 95 ms crosses 9
        // tick boundaries: t_rtt = 9; t_srtt = 72, t_rttvar = 18;
        // RTO = ((18 << 3) + 72) >> 3 = 216 >> 3 = 27 ticks = 270 ms; SRTT = 72/8 ticks = 90 ms.
        let mut e = RttEstimator::new(ns2());
        sample(&mut e, 0, 95);
        assert_eq!(e.rto(), Dur::from_millis(270));
        assert_eq!(e.srtt(), Dur::from_millis(90));
    }

    #[test]
    fn ns2_second_sample_uses_integer_deltas() {
        // Then sent at 100 ms, ACKed at 140 ms: t_rtt = 14 - 10 = 4; delta = 4 - (72 >> 3) = -5;
        // t_srtt = 67; |delta| - (18 >> 2) = 1; t_rttvar = 19;
        // RTO = ((19 << 3) + 67) >> 3 = 219 >> 3 = 27 ticks = 270 ms.
        let mut e = RttEstimator::new(ns2());
        sample(&mut e, 0, 95);
        sample(&mut e, 100, 40);
        assert_eq!(e.rto(), Dur::from_millis(270));
        // minrto_: a 1 ms path gives t_rtt = 1 tick -> RTO 3 ticks = 30 ms, clamped to 200 ms,
        // and backed off from the clamped value (rfc2988_ true): 400 ms.
        let mut e = RttEstimator::new(ns2());
        sample(&mut e, 0, 1);
        assert_eq!(e.rto(), Dur::from_millis(200));
        e.on_rto();
        assert_eq!(e.rto(), Dur::from_millis(400));
    }

    #[test]
    fn ns2_tick_phase_shifts_the_boundaries() {
        // boot_time_ = 5 ms: a 6 ms sample sent at 0 crosses the boundary at 5 ms: 1 tick;
        // sent at 0 and ACKed at 4 ms crosses none: still 1 tick (the floor is one).
        let mut cfg = ns2();
        cfg.tick_phase = Dur::from_millis(5);
        let mut e = RttEstimator::new(cfg);
        sample(&mut e, 0, 16);
        // (16 + 5) / 10 - 5 / 10 = 2 ticks: SRTT 20 ms.
        assert_eq!(e.srtt(), Dur::from_millis(20));
    }

    #[test]
    fn after_a_spurious_timeout_the_first_new_sample_sets_srtt_and_rttvar_from_it() {
        // RFC 4015 §3.1 step (11): SRTT = max(SRTT_prev, R), RTTVAR = max(RTTVAR_prev, R/2),
        // RTO = SRTT + max(G, 4·RTTVAR), with the backoff cleared.
        let mut e = RttEstimator::new(rfc(200, 1));
        e.on_sample(Time::ZERO, Time::from_millis(100));
        e.on_rto();
        e.on_rto();
        e.adapt_after_spurious(
            Dur::from_millis(2000),
            Dur::from_millis(102),
            Dur::from_millis(50),
        );
        assert_eq!(e.srtt(), Dur::from_millis(2000));
        assert_eq!(e.rttvar(), Dur::from_millis(1000));
        assert_eq!(e.rto(), Dur::from_millis(6000));
        assert_eq!(e.backoff_shift(), 0);
        // A sample below the previous estimate keeps the previous one.
        e.adapt_after_spurious(
            Dur::from_millis(10),
            Dur::from_millis(102),
            Dur::from_millis(50),
        );
        assert_eq!(e.srtt(), Dur::from_millis(102));
        assert_eq!(e.rttvar(), Dur::from_millis(50));
    }

    fn cwnd(segments: u32) -> SampleContext {
        SampleContext {
            cwnd_segments: segments,
            ..SampleContext::default()
        }
    }

    fn linux20() -> RtoConfig {
        RtoConfig {
            algorithm: RtoAlgorithm::Linux20,
            initial: Dur::from_secs(3),
            min: Dur::from_millis(200),
            max: Dur::from_secs(120),
            granularity: Dur::from_millis(10),
            tick_phase: Dur::ZERO,
            max_backoff_shift: 16,
        }
    }

    #[test]
    fn linux_2_0_sets_rto_from_a_sample_and_the_congestion_window() {
        // Linux 2.0 tcp_rtt_estimator: a first sample of 50 jiffies gives rtt = 50 << 3 and
        // mdev = 50 << 1, so R = A + 4D = 50 + 100 = 150 jiffies ("make sure rto = 3*rtt");
        // RTO = R + R/4 + R >> (cwnd - 1): 150 + 37 + 75 = 262 jiffies with cwnd 2, and
        // 150 + 37 + 150 = 337 with cwnd 1.
        let mut e = RttEstimator::new(linux20());
        e.on_sample_in(Time::ZERO, Time::from_millis(500), cwnd(2));
        assert_eq!(e.rto(), Dur::from_millis(2620));
        assert_eq!(e.srtt(), Dur::from_millis(500));
        let mut e = RttEstimator::new(linux20());
        e.on_sample_in(Time::ZERO, Time::from_millis(500), cwnd(1));
        assert_eq!(e.rto(), Dur::from_millis(3370));
        // A second sample of 10 jiffies: err = 10 - 50 = -40, rtt = 400 - 40 = 360;
        // mdev = 100 + (40 - 25) = 115; R = 45 + 115 = 160; with cwnd 4: 160 + 40 + 20.
        e.on_sample_in(Time::ZERO, Time::from_millis(100), cwnd(4));
        assert_eq!(e.rto(), Dur::from_millis(2200));
    }

    #[test]
    fn linux_2_0_floors_the_rto_at_200_ms_and_counts_a_sample_under_a_jiffy_as_one() {
        // WaveLAN's 3.5 ms round trip is under a jiffy: m = 1 ("if (m <= 0) m = 1" counts
        // whole jiffies), R = 3, RTO far below HZ/5, so 200 ms: the thesis's "RTO value is
        // 200 ms when the handover occurs".
        let mut e = RttEstimator::new(linux20());
        for k in 0..20u64 {
            let t = Time::from_millis(10 * k);
            e.on_sample_in(t, t + Dur::from_micros(3500), cwnd(11));
        }
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    #[test]
    fn fast_rto_decrease_fires_when_three_samples_agree_far_below_srtt() {
        // Thesis §7.2.2: after slow -> fast the samples fall from seconds to milliseconds; the
        // ordinary rule lets the RTO climb (the variance term), the remedy brings it down.
        let mut plain = RttEstimator::new(rfc(200, 1));
        let mut fast = RttEstimator::new(rfc(200, 1)).with_fast_decrease(true);
        for e in [&mut plain, &mut fast] {
            for k in 0..5 {
                let t = Time::from_secs(k);
                e.on_sample(t, t + Dur::from_secs(16));
            }
        }
        for ms in [40u64, 50, 45] {
            for e in [&mut plain, &mut fast] {
                e.on_sample(Time::ZERO, Time::from_millis(ms));
            }
        }
        assert_eq!(fast.fast_decreases(), 1);
        assert_eq!(fast.srtt(), Dur::from_millis(45)); // the mean of 40, 50, 45
                                                       // RTTVAR = max(G, SRTT/4, max - min) = 11.25 ms; RTO = 45 + 45 = 90 ms, floored at 200.
        assert_eq!(fast.rttvar(), Dur::from_micros(11_250));
        assert_eq!(fast.rto(), Dur::from_millis(200));
        assert!(plain.rto() > Dur::from_secs(20), "{:?}", plain.rto());
        assert_eq!(plain.fast_decreases(), 0);
    }

    #[test]
    fn fast_rto_decrease_leaves_jitter_and_spread_samples_alone() {
        // ±50 % around 100 ms: never a quarter of SRTT. A drop whose samples disagree by
        // more than x1.5 is not "the same value".
        let mut e = RttEstimator::new(rfc(200, 1)).with_fast_decrease(true);
        for (k, ms) in [100u64, 150, 50, 140, 60, 100, 149, 51]
            .iter()
            .cycle()
            .take(200)
            .enumerate()
        {
            let t = Time::from_millis(k as u64 * 10);
            e.on_sample(t, t + Dur::from_millis(*ms));
        }
        assert_eq!(e.fast_decreases(), 0);
        let mut e = RttEstimator::new(rfc(200, 1)).with_fast_decrease(true);
        e.on_sample(Time::ZERO, Time::from_secs(10));
        for ms in [10u64, 30, 10] {
            e.on_sample(Time::ZERO, Time::from_millis(ms));
        }
        assert_eq!(e.fast_decreases(), 0);
    }
}
