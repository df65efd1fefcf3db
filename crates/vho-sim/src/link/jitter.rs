//! A link direction's variable delay: each packet's propagation delay is the direction's fixed
//! delay plus a seeded extra delay, drawn from a lognormal distribution of the given mean and
//! standard deviation, truncated; packets still arrive in the order they were sent (a
//! radio link's RLC delivers in order, Enderle & Lagrange; GPRS "has such variable RTTs that
//! the throughput ... oscillates significantly", Cottingham & Vidales 000 l.181). The
//! variability is part of the model, drawn from the run's seed, never noise added to results.
//!
//! Lognormal because a delay is positive with a long right tail; with mean m and standard
//! deviation s, the underlying normal has σ² = ln(1 + s²/m²) and μ = ln m − σ²/2 (docs/design/
//! issue-20-sources.md §5.1 proposes mean 0.15 s and s 0.15 s for GPRS, each way).

use crate::rng::Rng;
use crate::time::Dur;

/// Draws above mean + this many standard deviations are cut to it (vho's choice: the
/// lognormal's tail is unbounded; at m = s a cut at 5 sd took 8 % off the draws' sd (the test
/// below gave 0.138 s for 0.150 s), at 10 sd
/// the sample sd of 200,000 draws is within 4 % of s: the test below).
pub const CAP_SDS: f64 = 10.0;

#[derive(Clone, Debug)]
pub struct DelayJitter {
    mu: f64,
    sigma: f64,
    cap_s: f64,
    rng: Rng,
    /// A second normal deviate left from the last Box–Muller pair.
    spare: Option<f64>,
}

impl DelayJitter {
    /// `mean` > 0 and `sd` ≥ 0 (the scenario checks both).
    pub fn new(mean: Dur, sd: Dur, rng: Rng) -> Self {
        let m = mean.as_secs_f64();
        let s = sd.as_secs_f64();
        let sigma2 = (1.0 + (s * s) / (m * m)).ln();
        DelayJitter {
            mu: m.ln() - sigma2 / 2.0,
            sigma: sigma2.sqrt(),
            cap_s: m + CAP_SDS * s,
            rng,
            spare: None,
        }
    }

    /// A standard normal deviate (Box–Muller, both of the pair used).
    fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        // next_f64 is in [0, 1): 1 - u is in (0, 1], so the logarithm is finite.
        let u1 = 1.0 - self.rng.next_f64();
        let u2 = self.rng.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        self.spare = Some(r * s);
        r * c
    }

    /// The next packet's extra delay.
    pub fn draw(&mut self) -> Dur {
        let x = (self.mu + self.sigma * self.normal()).exp().min(self.cap_s);
        Dur::from_secs_f64(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(mean_ms: u64, sd_ms: u64, n: usize, seed: u64) -> (f64, f64, f64) {
        let mut j = DelayJitter::new(
            Dur::from_millis(mean_ms),
            Dur::from_millis(sd_ms),
            Rng::stream(seed, "test"),
        );
        let xs: Vec<f64> = (0..n).map(|_| j.draw().as_secs_f64()).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
        let max = xs.iter().cloned().fold(0.0, f64::max);
        (m, v.sqrt(), max)
    }

    #[test]
    fn the_draws_have_the_mean_and_spread_asked_for() {
        // 200,000 draws: the sample mean within 2 % of 150 ms and the sd within 4 % (the cap at
        // 1.65 s takes a little of both), every draw positive and at most the cap.
        let (m, s, max) = stats(150, 150, 200_000, 7);
        assert!((m - 0.150).abs() < 0.003, "{m}");
        assert!((s - 0.150).abs() < 0.006, "{s}");
        assert!(max <= 0.150 + CAP_SDS * 0.150 + 1e-9, "{max}");
    }

    #[test]
    fn no_spread_is_the_mean_every_time_and_a_seed_gives_one_sequence() {
        let (m, s, _) = stats(80, 0, 1000, 1);
        assert!((m - 0.080).abs() < 1e-9 && s < 1e-9);
        let draw = |seed| {
            let mut j = DelayJitter::new(
                Dur::from_millis(100),
                Dur::from_millis(50),
                Rng::stream(seed, "x"),
            );
            (0..5).map(|_| j.draw()).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }
}
