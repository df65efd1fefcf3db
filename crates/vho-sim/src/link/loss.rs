//! Random loss on a link direction. Each lossy direction owns its own random stream derived
//! from the run's seed and the link's name, so adding a link never shifts another's draws.

use crate::rng::Rng;
use crate::spec::LossSpec;

#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    /// Independent loss with probability `p` per packet.
    Bernoulli {
        p: f64,
        rng: Rng,
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
        }
    }
    /// Draws whether the packet that just finished serialisation is lost.
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
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
        let da: Vec<bool> = (0..20_000).map(|_| a.lose()).collect();
        let db: Vec<bool> = (0..20_000).map(|_| b.lose()).collect();
        assert_eq!(da, db);
        let rate = da.iter().filter(|&&x| x).count() as f64 / 20_000.0;
        // 20000 draws, sd = sqrt(.1*.9/20000) = 0.0021; 5 sd.
        assert!((rate - 0.1).abs() < 0.011, "rate {rate}");
    }
}
