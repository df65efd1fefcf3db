//! A Pareto on/off source, as ns-2.35's `Application/Traffic/Pareto` (`tools/pareto.cc`,
//! `POO_Traffic`): during a burst, packets of `packet_size` bytes at `rate`; a burst's number of
//! packets and an idle period's length are Pareto distributed with shape `shape` and the means
//! `burst_time / interval` and `idle_time`. Enough of them multiplexed give long-range
//! dependent aggregate traffic.
//!
//! ns-2's arithmetic, kept exactly (`POO_Traffic::init` and `next_interval`):
//! - `interval = 8 · packet_size / rate`; `burstlen = burst_time / interval` packets;
//! - scales `p1 = burstlen · (shape − 1) / shape`, `p2 = idle_time · (shape − 1) / shape`, so
//!   that a Pareto variable of scale `p` and shape `a` (mean `p · a / (a − 1)`) has the means
//!   above;
//! - each gap to the next packet is `interval`; when a burst is over, the next burst's length
//!   is drawn, `int(pareto(p1) + 0.5)` packets and at least one, and the gap also takes the idle
//!   time `pareto(p2)`;
//! - the first packet comes one gap after the start (`TrafficGenerator::start` schedules the
//!   first `next_interval`): an idle period, then the first burst's first packet.
//!
//! `pareto(scale, shape) = scale / u^(1/shape)` with `u` uniform in (0, 1] (ns-2's
//! `RNG::pareto`, rng.h, with `uniform()` in (0, 1)); our `u` is `1 − next_f64()`, never zero.
//! The draws come from the source's own stream of the run's seed, in ns-2's order (burst
//! length, then idle time); ns-2's own random numbers are not reproduced.

use crate::rng::Rng;
use crate::time::Dur;

/// A source's parameters; `Default` is ns-2.35's (`tcl/lib/ns-default.tcl`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParetoConfig {
    /// Mean burst length (`burst_time_`): 500 ms.
    pub burst_time: Dur,
    /// Mean idle time (`idle_time_`): 500 ms.
    pub idle_time: Dur,
    /// Sending rate during a burst, bits per second (`rate_`): 64 kb/s.
    pub rate_bps: u64,
    /// Bytes per packet (`packetSize_`): 210.
    pub packet_size: u32,
    /// Pareto shape (`shape_`): 1.5.
    pub shape: f64,
}

impl Default for ParetoConfig {
    fn default() -> Self {
        ParetoConfig {
            burst_time: Dur::from_millis(500),
            idle_time: Dur::from_millis(500),
            rate_bps: 64_000,
            packet_size: 210,
            shape: 1.5,
        }
    }
}

#[derive(Debug, PartialEq, thiserror::Error)]
pub enum ParetoError {
    #[error("shape must be above 1 (the means are infinite at or below it), got {0}")]
    Shape(f64),
    #[error("rate and packet size must be positive")]
    Zero,
}

impl ParetoConfig {
    pub fn validate(&self) -> Result<(), ParetoError> {
        // Written to refuse NaN too.
        if !(self.shape > 1.0 && self.shape.is_finite()) {
            return Err(ParetoError::Shape(self.shape));
        }
        if self.rate_bps == 0 || self.packet_size == 0 {
            return Err(ParetoError::Zero);
        }
        Ok(())
    }

    /// The time between two packets of a burst (`interval_`), seconds.
    pub fn interval_s(&self) -> f64 {
        8.0 * self.packet_size as f64 / self.rate_bps as f64
    }

    /// The long-run mean rate, bits per second: the burst rate times the share of time on
    /// (each burst of `n` packets lasts `n` intervals).
    pub fn mean_rate_bps(&self) -> f64 {
        let on = self.burst_time.as_secs_f64();
        let off = self.idle_time.as_secs_f64();
        self.rate_bps as f64 * on / (on + off)
    }
}

/// One source's state.
pub struct ParetoOnOff {
    cfg: ParetoConfig,
    interval: f64,
    /// `interval` as a duration: the gap inside a burst, converted once.
    interval_dur: Dur,
    p1: f64,
    p2: f64,
    /// Packets left in the current burst (`rem_`).
    rem: u64,
    rng: Rng,
    /// Bursts begun, packets sent (for the record).
    pub bursts: u64,
    pub packets: u64,
}

impl ParetoOnOff {
    pub fn new(cfg: ParetoConfig, rng: Rng) -> Result<ParetoOnOff, ParetoError> {
        cfg.validate()?;
        let interval = cfg.interval_s();
        let burstlen = cfg.burst_time.as_secs_f64() / interval;
        let k = (cfg.shape - 1.0) / cfg.shape;
        Ok(ParetoOnOff {
            cfg,
            interval,
            interval_dur: Dur::from_secs_f64(interval),
            p1: burstlen * k,
            p2: cfg.idle_time.as_secs_f64() * k,
            rem: 0,
            rng,
            bursts: 0,
            packets: 0,
        })
    }

    /// The parameters it runs with.
    pub fn config(&self) -> &ParetoConfig {
        &self.cfg
    }

    fn pareto(&mut self, scale: f64) -> f64 {
        let u = 1.0 - self.rng.next_f64(); // in (0, 1]
        scale / u.powf(1.0 / self.cfg.shape)
    }

    /// The time from now (the start, or the packet just sent) to the next packet, and that
    /// packet's size (`next_interval`).
    #[inline]
    pub fn next_gap(&mut self) -> (Dur, u32) {
        self.packets += 1;
        if self.rem > 0 {
            self.rem -= 1;
            return (self.interval_dur, self.cfg.packet_size);
        }
        self.next_burst()
    }

    /// `next_gap` at the end of a burst: the next burst's length and the idle time before it
    /// (kept out of line: inside a burst, the usual case, the gap is one comparison).
    #[inline(never)]
    fn next_burst(&mut self) -> (Dur, u32) {
        // ns-2: int(x + .5), at least 1.
        let n = (self.pareto(self.p1) + 0.5).min(u64::MAX as f64) as u64;
        self.rem = n.max(1) - 1;
        let t = self.interval + self.pareto(self.p2);
        self.bursts += 1;
        (Dur::from_secs_f64(t), self.cfg.packet_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(cfg: ParetoConfig, seed: u64) -> ParetoOnOff {
        ParetoOnOff::new(cfg, Rng::stream(seed, "pareto")).unwrap()
    }

    #[test]
    fn within_a_burst_packets_are_one_interval_apart_and_a_burst_starts_after_an_idle_time() {
        // ns-2's next_interval: the gap is interval_ inside a burst; interval_ plus an idle
        // time drawn from pareto(p2) >= p2 when a burst begins. 210 B at 64 kb/s: 26.25 ms;
        // p2 = 0.5 · (1.5 − 1)/1.5 = 0.1667 s, the smallest idle time.
        let cfg = ParetoConfig::default();
        let mut s = source(cfg, 1);
        let interval = Dur::from_secs_f64(0.02625);
        let mut bursts_seen = 0;
        for _ in 0..10_000 {
            let before = s.bursts;
            let (gap, size) = s.next_gap();
            assert_eq!(size, 210);
            if s.bursts > before {
                bursts_seen += 1;
                assert!(
                    gap >= interval + Dur::from_secs_f64(0.5 / 3.0) - Dur(2),
                    "{gap:?}"
                );
            } else {
                assert!(gap.as_nanos().abs_diff(interval.as_nanos()) <= 1, "{gap:?}");
            }
        }
        assert!(bursts_seen > 100);
    }

    #[test]
    fn the_long_run_rate_and_burst_means_are_the_configured_ones() {
        // With shape 3 the Pareto variance is finite and the sample means settle: mean burst
        // burst_time / interval packets (20 at 200 B, 64 kb/s, 0.5 s; ns-2's int(x + .5)
        // adds nothing on average beyond the rounding), mean idle 0.5 s, mean rate 32 kb/s.
        let cfg = ParetoConfig {
            shape: 3.0,
            packet_size: 200,
            ..Default::default()
        };
        let mut s = source(cfg, 7);
        let (mut t, mut bytes) = (0.0f64, 0u64);
        for _ in 0..2_000_000 {
            let (gap, size) = s.next_gap();
            t += gap.as_secs_f64();
            bytes += size as u64;
        }
        let rate = 8.0 * bytes as f64 / t;
        let want = cfg.mean_rate_bps();
        assert!((rate - want).abs() / want < 0.02, "rate {rate} want {want}");
        let per_burst = s.packets as f64 / s.bursts as f64;
        assert!((per_burst - 20.0).abs() < 0.5, "{per_burst}");
        eprintln!(
            "shape 3: {rate:.0} b/s (configured mean {want:.0}), {per_burst:.2} packets/burst"
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_gaps_and_another_seed_others() {
        let cfg = ParetoConfig {
            shape: 1.9, // Chen et al. §5
            ..Default::default()
        };
        let run = |seed| {
            let mut s = source(cfg, seed);
            (0..1000).map(|_| s.next_gap().0).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    #[test]
    fn shapes_at_or_below_one_and_zero_rates_are_refused() {
        for shape in [1.0, 0.5, f64::NAN, f64::INFINITY] {
            let cfg = ParetoConfig {
                shape,
                ..Default::default()
            };
            assert!(cfg.validate().is_err(), "{shape}");
        }
        let cfg = ParetoConfig {
            rate_bps: 0,
            ..Default::default()
        };
        assert_eq!(cfg.validate(), Err(ParetoError::Zero));
    }
}
