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
//!
//! History discounting (§5.5, optional; [`LossHistory::with_discounting`]): while the open
//! interval I_0 is more than twice the average of the closed ones, the closed intervals are
//! weighed down by the general discount factor DF = max(2·I_mean/I_0, 0.5) (`THRESHOLD` 0.5),
//! the open one not; at the next loss event DF is folded into each older interval's own
//! factor DF_i and starts again at 1. As ns-2.35's Agent/TFRCSink does it (`discount_ 1`,
//! `minDiscountRatio_ 0.5`; tfrc-sink.cc `est_loss_WALI`, `weighted_average1`,
//! `multiply_array`): I_mean for the comparison is the closed intervals' average under their
//! DF_i; DF is only ever lowered between two loss events; I_tot0 and I_tot1 are each divided
//! by the sum of their own discounted weights.

/// n, the number of loss intervals averaged (§5.4: "n = 8").
pub const N: usize = 8;

/// w_0 .. w_(n-1) of §5.4.
pub const WEIGHTS: [f64; N] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// The smallest general discount factor DF (RFC 5348 §5.5: "DF = max(0.5, ...)"; ns-2.35's
/// `minDiscountRatio_ 0.5`).
pub const MIN_DISCOUNT: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct LossHistory {
    /// I_1 .. I_k, newest first (`closed[0]` is I_1); `k` of them are valid.
    closed: [f64; N],
    k: usize,
    /// §5.5: whether the history is discounted; DF_1 .. DF_k beside `closed`; DF.
    discounting: bool,
    factors: [f64; N],
    df: f64,
    /// The first sequence number of the most recent loss event.
    current_start: Option<u64>,
    /// The highest sequence number received.
    highest: u64,
    events: u64,
}

impl Default for LossHistory {
    fn default() -> Self {
        LossHistory {
            closed: [0.0; N],
            k: 0,
            discounting: false,
            factors: [1.0; N],
            df: 1.0,
            current_start: None,
            highest: 0,
            events: 0,
        }
    }
}

impl LossHistory {
    pub fn new() -> Self {
        Self::default()
    }

    /// The same history with §5.5's discounting on or off.
    pub fn with_discounting(mut self, on: bool) -> Self {
        self.discounting = on;
        self
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
        // §5.5: DF folds into the older intervals' factors; the closed one starts at 1.
        for f in self.factors.iter_mut() {
            *f *= self.df;
        }
        self.factors.copy_within(0..N - 1, 1);
        self.factors[0] = 1.0;
        self.df = 1.0;
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

    /// I_mean (§5.4, with §5.5's discount when on), `None` before the first loss event.
    pub fn mean_interval(&self) -> Option<f64> {
        let i0 = self.open_interval()?;
        let closed = &self.closed[..self.k];
        if !self.discounting {
            return Some(weighted_mean(i0, closed));
        }
        Some(discounted_mean(
            i0,
            closed,
            &self.factors[..self.k],
            self.df,
        ))
    }

    /// The general discount factor DF now (§5.5; 1 without discounting).
    pub fn discount(&self) -> f64 {
        self.df
    }

    /// p = 1/I_mean, 0 before the first loss event (§5.4). With discounting, first lowers DF
    /// if I_0 has grown past twice the closed intervals' average (§5.5).
    pub fn loss_event_rate(&mut self) -> f64 {
        if self.discounting && self.k > 0 {
            if let Some(i0) = self.open_interval() {
                let k = self.k;
                let mean = discounted_mean(0.0, &self.closed[..k], &self.factors[..k], 1.0);
                let ratio = 2.0 * mean / i0;
                if ratio < 1.0 {
                    // ns-2 lowers it only: I_0 only grows between two loss events.
                    self.df = self.df.min(ratio.max(MIN_DISCOUNT));
                }
            }
        }
        self.mean_interval().map_or(0.0, |m| 1.0 / m)
    }
}

/// §5.5's I_mean: the open interval `i0` at weight w_0, closed interval I_i at
/// w_(i-1)·DF_i·`df` in I_tot1 and w_i·DF_i·`df` in I_tot0, each total divided by its own
/// weights; `i0` counts only when it raises the mean. With `i0` = 0 and `df` = 1 it is the
/// closed intervals' discounted average, the I_mean DF is computed from.
fn discounted_mean(i0: f64, closed: &[f64], factors: &[f64], df: f64) -> f64 {
    let k = closed.len().min(N);
    let (mut i_tot1, mut w_tot1) = (0.0, 0.0);
    for i in 0..k {
        let w = WEIGHTS[i] * factors[i] * df;
        i_tot1 += closed[i] * w;
        w_tot1 += w;
    }
    if i0 <= 0.0 {
        return i_tot1 / w_tot1;
    }
    let (mut i_tot0, mut w_tot0) = (i0 * WEIGHTS[0], WEIGHTS[0]);
    for i in 1..k {
        let w = WEIGHTS[i] * factors[i - 1] * df;
        i_tot0 += closed[i - 1] * w;
        w_tot0 += w;
    }
    (i_tot0 / w_tot0).max(i_tot1 / w_tot1)
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

    // ---- History discounting (RFC 5348 §5.5; ns-2.35 tfrc-sink.cc `discount_ 1`) ----

    #[test]
    fn an_open_interval_under_twice_the_mean_is_not_discounted() {
        // The closed intervals' mean is 220/6 = 36.67; I_0 = 70 (460..=529) < 73.3: DF = 1 and
        // I_mean is §5.4's: I_tot0 = 70+10+20+30 + 32+30+24+14 = 230 > 220, 230/6.
        let mut h = history().with_discounting(true);
        h.on_received(529);
        assert!((h.loss_event_rate() - 6.0 / 230.0).abs() < 1e-12);
        assert_eq!(h.discount(), 1.0);
    }

    #[test]
    fn a_long_open_interval_discounts_the_older_ones_down_to_one_half() {
        // I_0 = 200 > 2 x 36.67: DF = max(73.3/200, 0.5) = 0.5 (the floor).
        // I_tot0 = 200 + 0.5 x (10+20+30 + 0.8x40 + 0.6x50 + 0.4x60 + 0.2x70) = 280,
        // W_tot0 = 1 + 0.5 x 5 = 3.5: I_mean = 80 (60 without discounting).
        let mut h = history().with_discounting(true);
        h.on_received(659);
        assert!((h.loss_event_rate() - 1.0 / 80.0).abs() < 1e-12);
        assert_eq!(h.discount(), MIN_DISCOUNT);
        // Above the floor: I_0 = 100 gives DF = 73.33/100; I_tot0 = 100 + DF x 160,
        // W_tot0 = 1 + DF x 5.
        let mut h = history().with_discounting(true);
        h.on_received(559);
        let df = 2.0 * (220.0 / 6.0) / 100.0;
        let expected = (100.0 + df * 160.0) / (1.0 + df * 5.0);
        assert!((h.loss_event_rate() - 1.0 / expected).abs() < 1e-12);
        assert!((h.discount() - df).abs() < 1e-12);
    }

    #[test]
    fn the_discount_is_folded_into_the_older_intervals_at_the_next_loss_event() {
        // After DF = 0.5, an event at 660 closes I_1 = 200 (factor 1); the older seven keep
        // 0.5; DF is 1 again. I_0 = 5 (660..=664):
        // I_tot1 = 200 + 0.5 x (10+20+30 + 0.8x40 + 0.6x50 + 0.4x60 + 0.2x70) = 280, W 3.5: 80;
        // I_tot0 = 5 + 200 + 0.5 x (10+20 + 0.8x30 + 0.6x40 + 0.4x50 + 0.2x60) = 260, W 4: 65.
        // I_mean = 80; without discounting it would be 360/6 = 60.
        let mut h = history().with_discounting(true);
        h.on_received(659);
        h.loss_event_rate();
        h.on_loss_event(660, || unreachable!());
        h.on_received(664);
        assert!((h.loss_event_rate() - 1.0 / 80.0).abs() < 1e-12);
        assert_eq!(h.discount(), 1.0);
        let mut plain = history();
        plain.on_received(659);
        plain.on_loss_event(660, || unreachable!());
        plain.on_received(664);
        assert!((plain.loss_event_rate() - 1.0 / 60.0).abs() < 1e-12);
    }
}
