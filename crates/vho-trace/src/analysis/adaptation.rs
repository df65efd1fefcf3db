//! Adaptation time t_a (Cottingham & Vidales, `000_2dceaee3c96622fa.txt` §5): how long after
//! a handover the connection's throughput on the new interface takes to first reach the mean
//! throughput of the whole connection.
//!
//! The method, as §5 describes the authors' tool:
//! - throughput is computed per packet: a measuring interval opens at a data packet; each
//!   later packet checks whether more than 0.1 s has passed since the interval opened; if so,
//!   a throughput value is taken (bytes of the packets in the interval over its length,
//!   stamped at that packet's time) and that packet opens the next interval. Long pauses
//!   (GPRS waiting for ACKs) therefore give fewer points, not zeros, as §5 wants;
//! - the mean over the connection is the average of these values, the final one excluded
//!   ("distorted by the test being ended");
//! - t_a runs from the first data packet received on the new interface to the first time the
//!   throughput exceeds that mean, found by linear interpolation between the two values that
//!   straddle it.
//!
//! Open point, decided here: the packet that closes an interval belongs to the next one.

/// §5: "measuring the quantity of data sent in each 0.1 second interval".
pub const INTERVAL_NS: u64 = 100_000_000;

/// Streaming throughput points: feed (time, payload bytes) of data packets in time order.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ThroughputPoints {
    #[serde(skip)]
    open: Option<(u64, u64)>,
    /// (time in ns, bits per second).
    pub points: Vec<(u64, f64)>,
}

impl ThroughputPoints {
    pub fn push(&mut self, t_ns: u64, bytes: u64) {
        match &mut self.open {
            None => self.open = Some((t_ns, bytes)),
            Some((start, acc)) => {
                // A capture that steps back in time keeps the packet in the open interval.
                let elapsed = t_ns.saturating_sub(*start);
                if elapsed > INTERVAL_NS {
                    let bps = *acc as f64 * 8.0 / (elapsed as f64 / 1e9);
                    self.points.push((t_ns, bps));
                    self.open = Some((t_ns, bytes));
                } else {
                    *acc += bytes;
                }
            }
        }
    }

    /// Mean of the points, the last one excluded (§5); `None` with fewer than two points.
    pub fn mean_bps(&self) -> Option<f64> {
        let n = self.points.len().checked_sub(1).filter(|&n| n > 0)?;
        Some(self.points[..n].iter().map(|p| p.1).sum::<f64>() / n as f64)
    }

    /// t_a in seconds from `first_new_ns`, the first data packet on the new interface; `None`
    /// if the throughput never reaches the mean after it.
    pub fn adaptation_time_s(&self, first_new_ns: u64) -> Option<f64> {
        let mean = self.mean_bps()?;
        let mut prev: Option<(u64, f64)> = None;
        for &(t, v) in &self.points {
            if t > first_new_ns && v >= mean {
                let cross = match prev {
                    Some((t0, v0)) if v > v0 && v0 < mean => {
                        t0 as f64 + (mean - v0) / (v - v0) * (t - t0) as f64
                    }
                    _ => t as f64,
                };
                return Some((cross.max(first_new_ns as f64) - first_new_ns as f64) / 1e9);
            }
            prev = Some((t, v));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn points_are_bytes_over_the_interval_stamped_at_the_packet_that_closes_it() {
        let mut p = ThroughputPoints::default();
        // 1000 bytes every 50 ms: intervals open at 0, 150, 300 ms ...
        for i in 0..8 {
            p.push(i * 50 * MS, 1000);
        }
        // [0, 150): packets at 0, 50, 100 -> 3000 B over 150 ms = 160 kb/s, stamped at 150 ms.
        assert_eq!(p.points[0], (150 * MS, 160_000.0));
        assert_eq!(p.points.len(), 2);
    }

    #[test]
    fn a_long_pause_gives_one_point_not_zeros() {
        let mut p = ThroughputPoints::default();
        p.push(0, 1000);
        p.push(2000 * MS, 1000);
        assert_eq!(p.points, vec![(2000 * MS, 4000.0)]);
    }

    #[test]
    fn known_answer_with_interpolation_and_the_last_point_excluded() {
        // Points (hand-made): 400 and 400 kb/s before the handover, 100 and 300 after, then
        // 500, then a final 0 that must not count. Mean = (400+400+100+300+500)/5 = 340.
        let p = ThroughputPoints {
            open: None,
            points: vec![
                (1000 * MS, 400e3),
                (2000 * MS, 400e3),
                (3000 * MS, 100e3),
                (4000 * MS, 300e3),
                (5000 * MS, 500e3),
                (6000 * MS, 0.0),
            ],
        };
        assert_eq!(p.mean_bps(), Some(340e3));
        // Crossing between (4 s, 300) and (5 s, 500): 4 + 40/200 = 4.2 s; first new-interface
        // packet at 2.5 s -> t_a = 1.7 s.
        let ta = p.adaptation_time_s(2500 * MS).expect("crosses");
        assert!((ta - 1.7).abs() < 1e-9, "{ta}");
        // Never reached after 5 s.
        assert_eq!(p.adaptation_time_s(5000 * MS), None);
        assert_eq!(ThroughputPoints::default().mean_bps(), None);
    }
}
