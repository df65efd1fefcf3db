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
//!   ("distorted by the test being ended"). Over which values the paper leaves open (digest
//!   §1.2: "the average throughput it achieves over the lifetime of the connection", but its
//!   plots start at the handover); [`TaMean`] selects the span, the whole connection by
//!   default;
//! - t_a runs from the first data packet received on the new interface to the first time the
//!   throughput exceeds that mean, found by linear interpolation between the two values that
//!   straddle it.
//!
//! Open point, decided here: the packet that closes an interval belongs to the next one.

/// §5: "measuring the quantity of data sent in each 0.1 second interval".
pub const INTERVAL_NS: u64 = 100_000_000;

/// The samples t_a's mean is taken over (`vho analyze --ta-mean`). The paper's words say the
/// connection's lifetime; a mean that includes a fast link's throughput may never be reached
/// on a slow one, which is why the digest (`docs/design/issue-20-sources.md` §1.2) proposes
/// the span after the handover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaMean {
    /// Every sample of the connection, the last one excluded (§5 as written).
    #[default]
    WholeConnection,
    /// The samples taken after the first data packet on the new interface (those stamped
    /// later: the one that packet closes measures the old interface), the last one excluded.
    AfterHandover,
}

impl TaMean {
    /// Its name on the command line and in `metrics.json`.
    pub fn name(self) -> &'static str {
        match self {
            TaMean::WholeConnection => "whole-connection",
            TaMean::AfterHandover => "after-handover",
        }
    }
}

/// t_a with the mean it was measured against, for one [`TaMean`].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct AdaptationTime {
    pub mean_bps: Option<f64>,
    pub adaptation_time_s: Option<f64>,
}

/// Streaming throughput points: feed (time, payload bytes) of data packets in time order.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ThroughputPoints {
    #[serde(skip)]
    open: Option<(u64, u64)>,
    /// (time in ns, bits per second).
    pub points: Vec<(u64, f64)>,
}

/// Adds a packet to the open interval (`(start, bytes)`); returns the point it closes, if any.
#[inline]
fn close_interval(open: &mut Option<(u64, u64)>, t_ns: u64, bytes: u64) -> Option<(u64, f64)> {
    match open {
        None => {
            *open = Some((t_ns, bytes));
            None
        }
        Some((start, acc)) => {
            // A capture that steps back in time keeps the packet in the open interval.
            let elapsed = t_ns.saturating_sub(*start);
            if elapsed > INTERVAL_NS {
                let bps = *acc as f64 * 8.0 / (elapsed as f64 / 1e9);
                *open = Some((t_ns, bytes));
                Some((t_ns, bps))
            } else {
                *acc += bytes;
                None
            }
        }
    }
}

/// Linear interpolation of the instant the throughput reaches `mean` at point `(t, v)`, from
/// the point before it when that one is below the mean (§5); else the point's own time.
fn crossing(prev: Option<(u64, f64)>, (t, v): (u64, f64), mean: f64) -> f64 {
    match prev {
        Some((t0, v0)) if v > v0 && v0 < mean => {
            t0 as f64 + (mean - v0) / (v - v0) * (t - t0) as f64
        }
        _ => t as f64,
    }
}

impl ThroughputPoints {
    pub fn push(&mut self, t_ns: u64, bytes: u64) {
        if let Some(p) = close_interval(&mut self.open, t_ns, bytes) {
            self.points.push(p);
        }
    }

    /// Mean of the points, the last one excluded (§5); `None` with fewer than two points.
    pub fn mean_bps(&self) -> Option<f64> {
        let n = self.points.len().checked_sub(1).filter(|&n| n > 0)?;
        Some(self.points[..n].iter().map(|p| p.1).sum::<f64>() / n as f64)
    }

    /// The mean of the samples `span` selects, the last one excluded; `None` without a
    /// sample left. `first_new_ns` is the first data packet on the new interface.
    pub fn mean_bps_over(&self, span: TaMean, first_new_ns: u64) -> Option<f64> {
        match span {
            TaMean::WholeConnection => self.mean_bps(),
            TaMean::AfterHandover => {
                let after = || self.points.iter().filter(|p| p.0 > first_new_ns);
                let n = after().count().checked_sub(1).filter(|&n| n > 0)?;
                Some(after().take(n).map(|p| p.1).sum::<f64>() / n as f64)
            }
        }
    }

    /// t_a in seconds from `first_new_ns`, the first data packet on the new interface; `None`
    /// if the throughput never reaches the mean of the whole connection after it.
    pub fn adaptation_time_s(&self, first_new_ns: u64) -> Option<f64> {
        self.adaptation_time_s_over(TaMean::WholeConnection, first_new_ns)
    }

    /// t_a and its mean, the mean taken over `span`.
    pub fn adaptation(&self, span: TaMean, first_new_ns: u64) -> AdaptationTime {
        AdaptationTime {
            mean_bps: self.mean_bps_over(span, first_new_ns),
            adaptation_time_s: self.adaptation_time_s_over(span, first_new_ns),
        }
    }

    /// t_a in seconds from `first_new_ns` against the mean over `span`; `None` if there is
    /// no such mean or the throughput never reaches it after `first_new_ns`.
    pub fn adaptation_time_s_over(&self, span: TaMean, first_new_ns: u64) -> Option<f64> {
        let mean = self.mean_bps_over(span, first_new_ns)?;
        let mut prev: Option<(u64, f64)> = None;
        for &(t, v) in &self.points {
            if t > first_new_ns && v >= mean {
                let cross = crossing(prev, (t, v), mean);
                return Some((cross.max(first_new_ns as f64) - first_new_ns as f64) / 1e9);
            }
            prev = Some((t, v));
        }
        None
    }
}

/// t_a as [`ThroughputPoints::adaptation_time_s`] gives it, found while the packets stream by
/// in memory that does not grow with the connection (a simulated 20 MB download over GPRS
/// makes some 7,000 points; keeping them was most of a run's page faults).
///
/// Why the points need not be kept: the point t_a is taken at is the first after the new
/// interface's first packet that reaches the mean; every point between that packet and it
/// is below the mean, so it is larger than all of them: a strict running maximum of the
/// points after that packet. Only those maxima are kept, each with the point before it (for
/// the interpolation); the mean is a running sum, added in the order `mean_bps` adds.
#[derive(Clone, Debug, Default)]
pub struct AdaptationTracker {
    open: Option<(u64, u64)>,
    points: u64,
    /// Sum of every point but the last.
    sum_before_last: f64,
    last: Option<(u64, f64)>,
    first_new_ns: Option<u64>,
    /// Running maxima of the points after `first_new_ns`, with the point before each.
    maxima: Vec<RunningMax>,
}

/// A point (time in ns, b/s) larger than every point before it after the new interface's
/// first packet, and the point just before it.
type RunningMax = ((u64, f64), Option<(u64, f64)>);

impl AdaptationTracker {
    /// A data packet of `bytes` payload at `t_ns` (in time order).
    #[inline]
    pub fn push(&mut self, t_ns: u64, bytes: u64) {
        if let Some(p) = close_interval(&mut self.open, t_ns, bytes) {
            self.add_point(p);
        }
    }

    fn add_point(&mut self, p: (u64, f64)) {
        if let Some(first) = self.first_new_ns {
            let max = self.maxima.last().map(|m| m.0 .1);
            if p.0 > first && max.is_none_or(|m| p.1 > m) {
                self.maxima.push((p, self.last));
            }
        }
        if let Some(last) = self.last {
            self.sum_before_last += last.1;
        }
        self.points += 1;
        self.last = Some(p);
    }

    /// The first data packet on the new interface arrived at `t_ns` (no packet pushed so
    /// far is later). Only the first call counts.
    pub fn set_first_new(&mut self, t_ns: u64) {
        self.first_new_ns.get_or_insert(t_ns);
    }

    /// t_a in seconds from the instant given to [`AdaptationTracker::set_first_new`]; `None`
    /// if none was given, with fewer than two points, or if the mean is never reached.
    pub fn adaptation_time_s(&self) -> Option<f64> {
        let first = self.first_new_ns?;
        let n = self.points.checked_sub(1).filter(|&n| n > 0)?;
        let mean = self.sum_before_last / n as f64;
        let &(p, prev) = self.maxima.iter().find(|(p, _)| p.1 >= mean)?;
        let cross = crossing(prev, p, mean);
        Some((cross.max(first as f64) - first as f64) / 1e9)
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

    // -- The span of the mean (TaMean) ---------------------------------------------------

    /// Hand-made points: 800 and 800 kb/s on the old link, 100, 400, 700 on the new one
    /// (first packet there at 2.5 s), then a final 0 that never counts.
    fn old_fast_new_slow() -> ThroughputPoints {
        ThroughputPoints {
            open: None,
            points: [800e3, 800e3, 100e3, 400e3, 700e3, 0.0]
                .iter()
                .enumerate()
                .map(|(i, &v)| ((i as u64 + 1) * 1000 * MS, v))
                .collect(),
        }
    }

    #[test]
    fn the_whole_connections_mean_and_the_mean_after_the_handover_give_different_t_a() {
        // Cottingham & Vidales §5; the span is open (digest §1.2).
        let p = old_fast_new_slow();
        let first_new = 2500 * MS;
        // Whole connection: (800+800+100+400+700)/5 = 560 kb/s, crossed between (4 s, 400)
        // and (5 s, 700) at 4 + 160/300 s: t_a = 4.5333... - 2.5 = 2.0333... s.
        let whole = p.adaptation(TaMean::WholeConnection, first_new);
        assert_eq!(whole.mean_bps, Some(560e3));
        let ta = whole.adaptation_time_s.expect("reached");
        assert!((ta - (1.5 + 160.0 / 300.0)).abs() < 1e-9, "{ta}");
        assert_eq!(whole.adaptation_time_s, p.adaptation_time_s(first_new));
        // After the handover: the samples at 3, 4, 5 s (6 s is the last): (100+400+700)/3 =
        // 400 kb/s, reached at (4 s, 400) itself (interpolated from (3 s, 100): 3 + 300/300):
        // t_a = 4 - 2.5 = 1.5 s.
        let after = p.adaptation(TaMean::AfterHandover, first_new);
        assert_eq!(after.mean_bps, Some(400e3));
        let ta = after.adaptation_time_s.expect("reached");
        assert!((ta - 1.5).abs() < 1e-9, "{ta}");
    }

    #[test]
    fn the_sample_the_first_new_packet_closes_is_the_old_links() {
        // A packet at 3 s both closes the sample stamped 3 s and is the first on the new
        // link: that sample measured the interval before it, so it is not after the handover.
        let p = old_fast_new_slow();
        // Samples at 4, 5 s kept (6 s the last): (400+700)/2 = 550 kb/s, crossed between
        // (4 s, 400) and (5 s, 700) at 4.5 s: t_a = 1.5 s.
        let after = p.adaptation(TaMean::AfterHandover, 3000 * MS);
        assert_eq!(after.mean_bps, Some(550e3));
        let ta = after.adaptation_time_s.expect("reached");
        assert!((ta - 1.5).abs() < 1e-9, "{ta}");
    }

    #[test]
    fn with_no_sample_after_the_handover_but_the_last_there_is_no_mean_and_no_t_a() {
        // The last sample never counts (§5): a handover at 5.5 s leaves only it, so the mean
        // after the handover does not exist and t_a is None. (A mean that exists is always
        // reached: it is no larger than the largest sample it averages, all of them searched.)
        let p = old_fast_new_slow();
        let after = p.adaptation(TaMean::AfterHandover, 5500 * MS);
        assert_eq!(after, AdaptationTime::default());
        // The whole connection's mean, 560 kb/s, is not reached by the 0 at 6 s either.
        let whole = p.adaptation(TaMean::WholeConnection, 5500 * MS);
        assert_eq!(
            (whole.mean_bps, whole.adaptation_time_s),
            (Some(560e3), None)
        );
    }

    #[test]
    fn a_whole_connection_mean_a_slow_link_never_reaches_is_reached_by_the_mean_after() {
        // The digest's argument (§1.2): 800 kb/s on WLAN, then 100-300 kb/s on GPRS.
        let p = ThroughputPoints {
            open: None,
            points: [800e3, 800e3, 800e3, 100e3, 200e3, 300e3, 0.0]
                .iter()
                .enumerate()
                .map(|(i, &v)| ((i as u64 + 1) * 1000 * MS, v))
                .collect(),
        };
        let first_new = 3500 * MS;
        // Whole: (3*800+100+200+300)/6 = 500 kb/s, never reached after 3.5 s.
        let whole = p.adaptation(TaMean::WholeConnection, first_new);
        assert_eq!(
            (whole.mean_bps, whole.adaptation_time_s),
            (Some(500e3), None)
        );
        // After: (100+200+300)/3 = 200 kb/s, reached at (5 s, 200) from (4 s, 100): 5 - 3.5.
        let after = p.adaptation(TaMean::AfterHandover, first_new);
        assert_eq!(after.mean_bps, Some(200e3));
        let ta = after.adaptation_time_s.expect("reached");
        assert!((ta - 1.5).abs() < 1e-9, "{ta}");
    }

    /// Feeds the same packets to both and, at a few instants of the new interface's first
    /// packet, compares t_a.
    fn both(packets: &[(u64, u64)], first_new_at: usize) -> (Option<f64>, Option<f64>) {
        let (mut all, mut streamed) = (ThroughputPoints::default(), AdaptationTracker::default());
        let mut first = None;
        for (i, &(t, b)) in packets.iter().enumerate() {
            all.push(t, b);
            streamed.push(t, b);
            if i == first_new_at {
                first = Some(t);
                streamed.set_first_new(t);
            }
        }
        (
            first.and_then(|f| all.adaptation_time_s(f)),
            streamed.adaptation_time_s(),
        )
    }

    #[test]
    fn the_streamed_t_a_is_the_one_the_points_give() {
        // Hand-made: the known answer above as packets (1 packet per point).
        let mut packets = vec![(0, 0)];
        for (i, kb) in [400u64, 400, 100, 300, 500, 0].iter().enumerate() {
            packets.push(((i as u64 + 1) * 1000 * MS - 1, kb * 125));
            packets.push(((i as u64 + 1) * 1000 * MS, 0));
        }
        let (a, b) = both(&packets, 5);
        assert!(a.is_some());
        assert_eq!(a, b);
    }

    proptest::proptest! {
        #[test]
        fn streamed_and_kept_points_agree(
            steps in proptest::collection::vec((0u64..400, 0u64..3000), 2..300),
            at in 0usize..300,
        ) {
            let mut t = 0;
            let packets: Vec<(u64, u64)> = steps
                .iter()
                .map(|&(dt, b)| {
                    t += dt * MS / 4;
                    (t, b)
                })
                .collect();
            let (a, b) = both(&packets, at.min(packets.len() - 1));
            proptest::prop_assert_eq!(a, b);
        }
    }
}
