//! Implicit Handoff Notification (Chen et al. §3.3): "Suppose the most recent capacity
//! estimate is C' and its previous estimate is C, a vertical handoff is identified when either
//! C' > αC (LOW-to-HIGH handoff) or C' < βC (HIGH-to-LOW)"; "we set α = 5 and β = 0.2".

use super::{Direction, Handoff, Notice};
use crate::time::Time;

/// α, Chen et al. §3.3.
pub const DEFAULT_ALPHA: f64 = 5.0;
/// β, Chen et al. §3.3.
pub const DEFAULT_BETA: f64 = 0.2;

/// The detector: the previous estimate and the thresholds.
#[derive(Clone, Debug)]
pub struct Ihn {
    alpha: f64,
    beta: f64,
    previous: Option<u64>,
}

impl Ihn {
    pub fn new(alpha: f64, beta: f64) -> Self {
        Ihn {
            alpha,
            beta,
            previous: None,
        }
    }

    /// A capacity estimate C' (bit/s) at `now`: a handoff if it is more than α or less than
    /// β times the previous one. The comparison is strict, as §3.3 writes it.
    pub fn on_estimate(&mut self, now: Time, c_new: u64) -> Option<Handoff> {
        let previous = self.previous.replace(c_new)?;
        let (c, c_new_f) = (previous as f64, c_new as f64);
        let direction = if c_new_f > self.alpha * c {
            Direction::LowToHigh
        } else if c_new_f < self.beta * c {
            Direction::HighToLow
        } else {
            return None;
        };
        Some(Handoff {
            at: now,
            by: Notice::Ihn,
            direction,
            from_bps: previous,
            to_bps: c_new,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(estimates: &[u64]) -> Vec<Option<Direction>> {
        let mut ihn = Ihn::new(DEFAULT_ALPHA, DEFAULT_BETA);
        estimates
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                ihn.on_estimate(Time::from_secs(k as u64), c)
                    .map(|h| h.direction)
            })
            .collect()
    }

    #[test]
    fn a_jump_from_1xrtt_to_wlan_is_low_to_high() {
        // Chen et al. §3.3, α = 5: 150 kb/s -> 5 Mb/s is 33 times: LOW-to-HIGH. The first
        // estimate has no previous one and says nothing.
        assert_eq!(
            run(&[150_000, 150_000, 5_000_000]),
            [None, None, Some(Direction::LowToHigh)]
        );
    }

    #[test]
    fn a_fall_from_wlan_to_1xrtt_is_high_to_low() {
        // Chen et al. §3.3, β = 0.2: 5 Mb/s -> 150 kb/s is 0.03 times: HIGH-to-LOW.
        assert_eq!(
            run(&[5_000_000, 150_000]),
            [None, Some(Direction::HighToLow)]
        );
    }

    #[test]
    fn changes_within_the_thresholds_are_not_handoffs() {
        // Chen et al. §3.3: strictly more than αC, strictly less than βC. 150 kb/s to
        // exactly 750 kb/s (5x) and back to exactly 150 kb/s (0.2x): neither; 750 001 is.
        assert_eq!(
            run(&[150_000, 750_000, 150_000, 750_001]),
            [None, None, None, Some(Direction::LowToHigh)]
        );
        // The comparison is with the previous estimate, not the first: a slow drift of
        // 2x a step never trips it.
        assert_eq!(
            run(&[100_000, 200_000, 400_000, 800_000, 1_600_000]),
            [None; 5]
        );
    }

    #[test]
    fn the_handoff_names_both_estimates() {
        let mut ihn = Ihn::new(DEFAULT_ALPHA, DEFAULT_BETA);
        ihn.on_estimate(Time::from_secs(1), 150_000);
        let h = ihn
            .on_estimate(Time::from_secs(2), 5_000_000)
            .expect("a handoff");
        assert_eq!(
            (h.at, h.by, h.from_bps, h.to_bps),
            (Time::from_secs(2), Notice::Ihn, 150_000, 5_000_000)
        );
    }
}
