//! Loss intervals and the average loss interval (RFC 5348 §5.3, §5.4): the loss event rate p.
//!
//! §5.3: loss interval I_i (i >= 1) is the number of packets from the start of one loss event
//! to the start of the next; I_0, the open interval, counts the packets from the start of the
//! most recent loss event up to and including the highest one received. §5.4: with n = 8 and
//! weights w_i = 1 for i < n/2, w_i = 1 - (i - (n/2 - 1))/(n/2 + 1) otherwise (1, 1, 1, 1,
//! 0.8, 0.6, 0.4, 0.2):
//!
//! ```text
//! I_tot0 = sum_{i=0}^{k-1} I_i * w_i      I_tot1 = sum_{i=1}^{k} I_i * w_(i-1)
//! W_tot  = sum_{i=0}^{k-1} w_i            I_mean = max(I_tot0, I_tot1) / W_tot,  p = 1/I_mean
//! ```
//!
//! for the k <= n closed intervals known (k = n once n have been seen): I_0 counts only when it
//! raises the average. Before the first loss event there is no interval and p = 0. The first
//! closed interval is synthesised at the first loss event (§6.3.1; the receiver computes it).
//! Deviation: no history discounting (§5.5, optional); ns-2.35 has it on (`discount_ 1`).

/// n, the number of loss intervals averaged (§5.4: "n = 8").
pub const N: usize = 8;

/// w_0 .. w_(n-1) of §5.4.
pub const WEIGHTS: [f64; N] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

#[derive(Clone, Debug, Default)]
pub struct LossHistory {
    /// I_1 .. I_k, newest first (`closed[0]` is I_1); `k` of them are valid.
    closed: [f64; N],
    k: usize,
    /// The first sequence number of the most recent loss event.
    current_start: Option<u64>,
    /// The highest sequence number received.
    highest: u64,
    events: u64,
}

impl LossHistory {
    pub fn new() -> Self {
        Self::default()
    }

    /// Loss events seen.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// A packet numbered `seq` arrived (I_0 grows to cover it).
    pub fn on_received(&mut self, seq: u64) {
        self.highest = self.highest.max(seq);
    }

    /// A loss event begins at `seq`. `first_interval` is called for the synthetic interval if
    /// this is the first event (§6.3.1), and not otherwise.
    pub fn on_loss_event(&mut self, seq: u64, first_interval: impl FnOnce() -> f64) {
        let ended = match self.current_start {
            Some(start) => seq.saturating_sub(start) as f64,
            None => first_interval(),
        };
        self.closed.copy_within(0..N - 1, 1);
        self.closed[0] = ended;
        self.k = (self.k + 1).min(N);
        self.current_start = Some(seq);
        self.highest = self.highest.max(seq);
        self.events += 1;
    }

    /// I_0: packets from the start of the current loss event to the highest received.
    pub fn open_interval(&self) -> Option<f64> {
        self.current_start
            .map(|start| (self.highest.saturating_sub(start) + 1) as f64)
    }

    /// I_mean (§5.4), `None` before the first loss event.
    pub fn mean_interval(&self) -> Option<f64> {
        let i0 = self.open_interval()?;
        Some(weighted_mean(i0, &self.closed[..self.k]))
    }

    /// p = 1/I_mean, 0 before the first loss event (§5.4).
    pub fn loss_event_rate(&self) -> f64 {
        self.mean_interval().map_or(0.0, |m| 1.0 / m)
    }
}

/// I_mean of §5.4 from I_0 and the closed intervals I_1 .. I_k (newest first, k <= n).
pub fn weighted_mean(i0: f64, closed: &[f64]) -> f64 {
    let k = closed.len().min(N);
    let (mut i_tot0, mut i_tot1, mut w_tot) = (0.0, 0.0, 0.0);
    for i in 0..k {
        // I_tot0: I_0 .. I_(k-1) with w_0 .. w_(k-1); closed[i - 1] is I_i.
        let ii = if i == 0 { i0 } else { closed[i - 1] };
        i_tot0 += ii * WEIGHTS[i];
        // I_tot1: I_1 .. I_k with w_0 .. w_(k-1).
        i_tot1 += closed[i] * WEIGHTS[i];
        w_tot += WEIGHTS[i];
    }
    i_tot0.max(i_tot1) / w_tot
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- Tests for the average loss interval (RFC 5348 §5.4) ----

    #[test]
    fn weights_are_those_of_the_rfc() {
        // RFC 5348 §5.4: w_i = 1 for 0 <= i < n/2, 1 - (i - (n/2 - 1))/(n/2 + 1) after.
        for (i, w) in WEIGHTS.iter().enumerate() {
            let expected = if i < N / 2 {
                1.0
            } else {
                1.0 - (i as f64 - (N as f64 / 2.0 - 1.0)) / (N as f64 / 2.0 + 1.0)
            };
            assert!((w - expected).abs() < 1e-12);
        }
    }

    /// Ten loss events at sequence numbers 0, 100, 180, 250, 310, 360, 400, 430, 450, 460: the
    /// closed intervals, newest first, are I_1..I_9 = 10, 20, 30, 40, 50, 60, 70, 80, 100 (the
    /// synthetic first one, I_10 = 500, and I_9 = 100 are beyond n = 8 and drop out).
    fn history() -> LossHistory {
        let mut h = LossHistory::new();
        for s in [0, 100, 180, 250, 310, 360, 400, 430, 450, 460] {
            h.on_loss_event(s, || 500.0);
        }
        h
    }

    #[test]
    fn a_short_open_interval_does_not_count() {
        // I_0 = 5 (packets 460..=464). W_tot = 1+1+1+1+0.8+0.6+0.4+0.2 = 6.
        // I_tot1 = 10+20+30+40 + 0.8*50 + 0.6*60 + 0.4*70 + 0.2*80 = 100+40+36+28+16 = 220.
        // I_tot0 = 5+10+20+30 + 0.8*40 + 0.6*50 + 0.4*60 + 0.2*70 = 65+32+30+24+14 = 165.
        // I_mean = max(165, 220)/6 = 36.667; p = 6/220 = 0.0272727.
        let mut h = history();
        h.on_received(464);
        assert_eq!(h.open_interval(), Some(5.0));
        assert!((h.mean_interval().unwrap() - 220.0 / 6.0).abs() < 1e-9);
        assert!((h.loss_event_rate() - 6.0 / 220.0).abs() < 1e-12);
        assert_eq!(h.events(), 10);
    }

    #[test]
    fn a_long_open_interval_raises_the_average() {
        // I_0 = 200 (packets 460..=659): I_tot0 = 200+10+20+30 + 32+30+24+14 = 360 > 220.
        // I_mean = 360/6 = 60; p = 1/60.
        let mut h = history();
        h.on_received(659);
        assert!((h.mean_interval().unwrap() - 60.0).abs() < 1e-9);
        assert!((h.loss_event_rate() - 1.0 / 60.0).abs() < 1e-12);
    }

    #[test]
    fn fewer_than_n_intervals_average_the_ones_known() {
        // RFC 5348 §5.4 with k = 2 closed intervals: events at 0 (synthetic I_2 = 50) and 30
        // (I_1 = 30); I_0 = 10 (30..=39). I_tot0 = 10 + 30 = 40, I_tot1 = 30 + 50 = 80,
        // W_tot = 2: I_mean = 40.
        let mut h = LossHistory::new();
        h.on_loss_event(0, || 50.0);
        h.on_loss_event(30, || unreachable!("only the first event is synthesised"));
        h.on_received(39);
        assert!((h.mean_interval().unwrap() - 40.0).abs() < 1e-12);
        // No loss event yet: p = 0.
        assert_eq!(LossHistory::new().loss_event_rate(), 0.0);
    }
}
