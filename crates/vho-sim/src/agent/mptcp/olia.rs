//! OLIA, the Opportunistic Linked Increases Algorithm (Khalili, Gast, Popovic, Le Boudec,
//! "MPTCP is not Pareto-optimal", IEEE/ACM ToN 2013; draft-khalili-mptcp-congestion-control),
//! as the out-of-tree multipath-tcp.org kernel runs it (`net/mptcp/mptcp_olia.c`, the `olia`
//! congestion control): over each subflow's own Reno slow start and halving, its
//! congestion-avoidance increase replaced, per ACK on path r, by
//!
//! ```text
//!     (w_r / rtt_r²) / (Σ_p w_p / rtt_p)²  +  ε_r / w_r        (windows in segments)
//! ```
//!
//! where ε_r moves window from the paths with the largest window (M) to the "collected" ones:
//! those not in M whose inter-loss distance over rtt² is the largest (B \ M). With none
//! collected, ε is 0 everywhere. The increments accumulate per subflow; a whole segment
//! gained adds one to the window, one lost takes one away (not below one segment).
//!
//! Kernel rules followed: the window counted for a subflow in fast recovery is its ssthresh
//! (`mptcp_get_crt_cwnd`); the inter-loss distance is the larger of the bytes acknowledged
//! between the last two losses and since the last (`mptcp_loss1..3`); a loss moves the marks
//! only if bytes were acknowledged since the previous one, and not on a repeated timeout
//! (`mptcp_olia_set_state`); the increase is per ACK, whatever the ACK covers
//! (`mptcp_olia_cong_avoid` ignores `acked`); the accumulator resets to zero on each step.
//! Deviation: the kernel grows only a window-limited subflow (`tcp_is_cwnd_limited`); the
//! model's subflows are window-limited whenever they have data, which a bulk transfer has.

/// What OLIA reads of one subflow: its window and ssthresh (bytes), whether it is in fast
/// recovery, its smoothed RTT (ns, > 0), its segment size and inter-loss distance (bytes).
#[derive(Clone, Copy, Debug)]
pub struct Path {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub in_recovery: bool,
    pub srtt_ns: u64,
    pub mss: u32,
    pub inter_loss: u64,
}

impl Path {
    /// The window OLIA counts, in segments: ssthresh during fast recovery, where the window
    /// is inflated (RFC 5681 §3.2), else the window.
    fn window(&self) -> f64 {
        let w = if self.in_recovery {
            self.ssthresh
        } else {
            self.cwnd
        };
        f64::from(w) / f64::from(self.mss.max(1))
    }

    fn rtt(&self) -> f64 {
        self.srtt_ns as f64 / 1e9
    }

    /// Inter-loss distance over rtt²: what makes a path one of the presumably best.
    fn quality(&self) -> f64 {
        self.inter_loss as f64 / (self.rtt() * self.rtt())
    }
}

/// A subflow's OLIA state: the acknowledged-byte marks of its last losses and the increase
/// accumulated towards the next whole segment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct State {
    /// Bytes acknowledged at the loss before last, at the last loss, and now.
    loss: [u64; 3],
    /// Segments of increase (or decrease) accumulated.
    acc: f64,
}

impl State {
    /// An ACK moved the subflow's acknowledged bytes to `acked`.
    pub fn on_ack(&mut self, acked: u64) {
        self.loss[2] = acked;
    }

    /// The subflow entered loss recovery (fast recovery or a first timeout).
    pub fn on_loss(&mut self) {
        if self.loss[2] != self.loss[1] {
            self.loss[0] = self.loss[1];
            self.loss[1] = self.loss[2];
        }
    }

    /// The larger of the bytes acknowledged between the last two losses and since the last.
    pub fn inter_loss(&self) -> u64 {
        (self.loss[2] - self.loss[1]).max(self.loss[1] - self.loss[0])
    }

    /// Adds one ACK's increase (segments, may be negative) and returns the whole segments
    /// the window moves by: +1, -1 or 0.
    pub fn step(&mut self, increase: f64) -> i32 {
        self.acc += increase;
        if self.acc >= 1.0 {
            self.acc = 0.0;
            1
        } else if self.acc <= -1.0 {
            self.acc = 0.0;
            -1
        } else {
            0
        }
    }
}

/// ε of path `r` among `paths` (the subflows that can send, each with an RTT sample):
/// +1 / (|P| · |B \ M|) for a collected path, −1 / (|P| · |M|) for one of the largest
/// windows when some path is collected, else 0.
pub fn epsilon(paths: &[Path], r: usize) -> f64 {
    let n = paths.len() as f64;
    let max_w = paths.iter().map(Path::window).fold(0.0, f64::max);
    let best = paths.iter().map(Path::quality).fold(0.0, f64::max);
    let in_m = |p: &Path| p.window() == max_w;
    let m = paths.iter().filter(|p| in_m(p)).count() as f64;
    let collected = |p: &Path| !in_m(p) && p.quality() == best;
    let b_not_m = paths.iter().filter(|p| collected(p)).count() as f64;
    if b_not_m == 0.0 {
        return 0.0;
    }
    if collected(&paths[r]) {
        1.0 / (n * b_not_m)
    } else if in_m(&paths[r]) {
        -1.0 / (n * m)
    } else {
        0.0
    }
}

/// One ACK's increase on path `r`, in segments.
pub fn increase(paths: &[Path], r: usize) -> f64 {
    let p = &paths[r];
    let sum: f64 = paths.iter().map(|q| q.window() / q.rtt()).sum();
    let w = p.window().max(1.0);
    let coupled = if sum > 0.0 {
        (p.window() / (p.rtt() * p.rtt())) / (sum * sum)
    } else {
        0.0
    };
    coupled + epsilon(paths, r) / w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(cwnd_segs: u32, rtt_ms: u64, inter_loss: u64) -> Path {
        Path {
            cwnd: cwnd_segs * 1000,
            ssthresh: cwnd_segs * 500,
            in_recovery: false,
            srtt_ns: rtt_ms * 1_000_000,
            mss: 1000,
            inter_loss,
        }
    }

    #[test]
    fn one_path_grows_as_reno() {
        // With one path OLIA's first term is 1/w and ε is 0: Reno's one segment per window.
        let p = [path(10, 100, 0)];
        assert!((increase(&p, 0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn two_equal_paths_take_what_one_would() {
        // Khalili et al. §IV: on identical paths the coupled term gives each w/(2w)² = 1/(4w):
        // the two together grow as one TCP over one of them.
        let p = [path(10, 100, 5000), path(10, 100, 5000)];
        assert!((increase(&p, 0) - 1.0 / 40.0).abs() < 1e-12);
        // Both in M, none collected: ε = 0.
        assert_eq!(epsilon(&p, 0), 0.0);
    }

    #[test]
    fn window_moves_from_the_largest_window_to_the_collected_path() {
        // Path 1 has the smaller window but the longer distance between losses at the same
        // RTT: it is collected (ε = 1 / (2·1)), the larger window gives (ε = -1 / (2·1)).
        let p = [path(20, 100, 10_000), path(5, 100, 40_000)];
        assert_eq!(epsilon(&p, 1), 0.5);
        assert_eq!(epsilon(&p, 0), -0.5);
        // Path 0: the coupled term (20 / 0.1²) / 250² = 0.032, ε/w = -0.5 / 20 = -0.025: it
        // still grows, slower than it would alone.
        assert!((increase(&p, 0) - (0.032 - 0.025)).abs() < 1e-12);
        // Path 1: 500 / 62500 = 0.008, plus ε/w = 0.5 / 5 = 0.1.
        assert!((increase(&p, 1) - (0.008 + 0.1)).abs() < 1e-12);
        // Windows nearly equal: the coupled term, about (1/w)(w/Σw)², falls below |ε|/w and
        // the largest window shrinks: 1000 / 190² - 0.5 / 10 = 0.0277 - 0.05 < 0.
        let q = [path(10, 100, 10_000), path(9, 100, 40_000)];
        assert!(increase(&q, 0) < 0.0);
    }

    #[test]
    fn in_fast_recovery_the_window_counted_is_ssthresh() {
        // mptcp_get_crt_cwnd: the inflated window of fast recovery is not counted.
        let mut p = path(20, 100, 0);
        p.in_recovery = true;
        assert_eq!(p.window(), 10.0);
    }

    #[test]
    fn a_loss_moves_the_marks_only_after_progress() {
        let mut s = State::default();
        s.on_ack(10_000);
        s.on_loss();
        assert_eq!(s.inter_loss(), 10_000);
        s.on_loss(); // no byte acknowledged since: the marks stay
        assert_eq!(s.inter_loss(), 10_000);
        s.on_ack(13_000);
        assert_eq!(s.inter_loss(), 10_000); // max(3,000 since, 10,000 between)
        s.on_loss();
        s.on_ack(30_000);
        assert_eq!(s.inter_loss(), 17_000);
    }

    #[test]
    fn whole_segments_only_and_the_accumulator_restarts() {
        let mut s = State::default();
        assert_eq!(s.step(0.6), 0);
        assert_eq!(s.step(0.6), 1);
        assert_eq!(s.step(0.6), 0); // reset to zero, not carried
        assert_eq!(s.step(-1.7), -1);
        assert_eq!(s.step(0.0), 0);
    }
}
