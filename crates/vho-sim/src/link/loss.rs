//! Random loss on a link direction. Each lossy direction owns its own random stream derived
//! from the run's seed and the link's name, so adding a link never shifts another's draws.

use crate::rng::Rng;
use crate::spec::LossSpec;
use crate::time::Time;

#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    /// Independent loss with probability `p` per packet.
    Bernoulli {
        p: f64,
        rng: Rng,
    },
    /// Independent loss whose probability goes linearly from `from` at `start` to `to` at
    /// `end` (a scheduled ramp, `[[schedule]]`: Naoe et al. Fig. 5's BLER and BER), drawn
    /// with the probability of the instant the packet leaves the air; before `start` it is
    /// `from`, after `end` it is `to`.
    Ramp {
        from: f64,
        to: f64,
        start: Time,
        end: Time,
        rng: Rng,
    },
    /// The packets at the listed indices (see [`LossSpec::List`]).
    List {
        drops: std::sync::Arc<[u64]>,
        next: usize,
        seen: u64,
    },
}

impl LossModel {
    pub fn new(spec: LossSpec, seed: u64, stream_name: &str) -> Self {
        match spec {
            LossSpec::None => LossModel::None,
            LossSpec::Bernoulli { p } if p <= 0.0 => LossModel::None,
            LossSpec::Bernoulli { p } => LossModel::Bernoulli {
                p,
                rng: Rng::stream(seed, stream_name),
            },
            LossSpec::List(drops) if drops.is_empty() => LossModel::None,
            LossSpec::List(drops) => LossModel::List {
                drops,
                next: 0,
                seen: 0,
            },
        }
    }
    /// Draws whether the packet leaving at `now` is lost.
    #[inline]
    pub fn lose(&mut self, now: Time) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::Ramp {
                from,
                to,
                start,
                end,
                rng,
            } => rng.bernoulli(ramp_at(*from, *to, *start, *end, now)),
            LossModel::List { drops, next, seen } => {
                let hit = drops.get(*next) == Some(seen);
                *next += hit as usize;
                *seen += 1;
                hit
            }
        }
    }
}

/// The value at `now` of a linear ramp from `from` at `start` to `to` at `end`, held at its
/// ends outside them.
pub fn ramp_at(from: f64, to: f64, start: Time, end: Time, now: Time) -> f64 {
    if now <= start {
        return from;
    }
    if now >= end {
        return to;
    }
    let f = now.saturating_since(start).as_nanos() as f64
        / end.saturating_since(start).as_nanos() as f64;
    from + (to - from) * f
}

impl LossModel {
    /// The model's random stream, if it has one (to keep drawing from it after a change).
    pub fn take_rng(self) -> Option<Rng> {
        match self {
            LossModel::Bernoulli { rng, .. } | LossModel::Ramp { rng, .. } => Some(rng),
            LossModel::None | LossModel::List { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bernoulli_rate_is_close_to_p_and_reproducible() {
        let mut a = LossModel::new(LossSpec::Bernoulli { p: 0.1 }, 42, "link:x:down");
        let mut b = LossModel::new(LossSpec::Bernoulli { p: 0.1 }, 42, "link:x:down");
        let da: Vec<bool> = (0..20_000).map(|_| a.lose(Time::ZERO)).collect();
        let db: Vec<bool> = (0..20_000).map(|_| b.lose(Time::ZERO)).collect();
        assert_eq!(da, db);
        let rate = da.iter().filter(|&&x| x).count() as f64 / 20_000.0;
        // 20000 draws, sd = sqrt(.1*.9/20000) = 0.0021; 5 sd.
        assert!((rate - 0.1).abs() < 0.011, "rate {rate}");
    }

    #[test]
    fn a_drop_list_takes_exactly_the_listed_packets() {
        // ns-2 ListErrorModel::corrupt (unit pkt): packet cnt_ is dropped when it is the next
        // listed index; cnt_ counts from 0.
        let mut m = LossModel::new(LossSpec::List(vec![0, 3, 4].into()), 1, "x");
        let got: Vec<bool> = (0..7).map(|_| m.lose(Time::ZERO)).collect();
        assert_eq!(got, [true, false, false, true, true, false, false]);
    }
}
