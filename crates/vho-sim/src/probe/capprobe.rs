//! CapProbe's minimum delay-sum filter (Kapoor et al., SIGCOMM 2004, as Chen et al. §3.1
//! state it): of the packet pairs seen, the one whose two delays sum to the least crossed the
//! path without queueing behind other traffic, so its dispersion is the bottleneck's
//! serialisation time of one packet, and the capacity is size / dispersion.
//!
//! A pair whose first packet was held by cross traffic after the bottleneck arrives
//! *compressed* (too small a dispersion: an overestimate), one with a packet slipped in
//! between its two *expanded* (an underestimate); either way some packet of it queued, so its
//! delay sum is larger than that of an undisturbed pair and the filter passes over it.
//!
//! Two ways to measure the delays, one filter:
//! - one-way (TFRC Probe, §3.1): both packets carry their sending time T_0; the receiver takes
//!   T_1, T_2 = arrival - T_0, and the dispersion T_2 - T_1 is the gap of the arrivals;
//! - round-trip (TCP Probe, §3.2): the sender times the two ACKs of a back-to-back data pair
//!   against the pair's sending time ([`RoundTripRule`] says which direction that measures).
//!
//! How pairs make estimates ([`Filter`]): Chen et al. say only that "the capacity estimate is
//! calculated following CapProbe [18]" (seed l.68) and that IHN compares "the most recent
//! capacity estimate C'" with "its previous estimate C" (l.94), so that IHN "depends on the
//! speed of capacity estimation" (l.116). CapProbe itself (Kapoor et al. 2004) estimates from a
//! *run* of pairs, the minimum delay sum over the run ([`Filter::Runs`]): an estimate every
//! `window` pairs, each from its own pairs. [`Filter::Sliding`] instead gives an estimate after
//! every pair, the minimum over the last `window`. Neither the run's length nor the window is
//! in the paper ([`DEFAULT_WINDOW_PAIRS`]).

use std::collections::VecDeque;

use crate::time::Dur;

/// How many of the most recent pairs the minimum is taken over. Chen et al. leave it open; a
/// window of ten keeps an old link's pairs about ten pairs (200 packets at n = 20) after a
/// handover: the estimate can rise at once (the new link's pairs queue less, so their sums
/// are smaller) but falls only when the old link's pairs have left the window.
pub const DEFAULT_WINDOW_PAIRS: usize = 10;

/// One packet pair as measured: the delays of its two packets (one-way or round-trip) and the
/// bytes on the wire of the packet whose serialisation the dispersion measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairSample {
    pub first: Dur,
    pub second: Dur,
    pub wire_bytes: u32,
}

impl PairSample {
    /// T_2 - T_1; `None` if the second did not arrive after the first (reordered on a
    /// handover, or both in one instant): no capacity can be read from it.
    pub fn dispersion(&self) -> Option<Dur> {
        (self.second > self.first).then(|| self.second.saturating_sub(self.first))
    }

    /// T_1 + T_2, what the filter minimises.
    pub fn delay_sum(&self) -> Dur {
        self.first + self.second
    }

    /// size / dispersion, bits per second (rounded down); `None` without a dispersion.
    pub fn capacity_bps(&self) -> Option<u64> {
        let d = self.dispersion()?.as_nanos();
        Some((u128::from(self.wire_bytes) * 8 * 1_000_000_000 / u128::from(d)) as u64)
    }
}

/// How the filter turns pairs into estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// After every pair, the minimum delay sum over the last `window` pairs: a new link's
    /// first clean pair sets the estimate at once when its sum is the smaller (LOW-to-HIGH).
    Sliding,
    /// CapProbe's runs (Kapoor et al. 2004): the pairs are taken `window` at a time, and at
    /// the end of each run its minimum delay-sum pair is the estimate; the next run starts
    /// afresh. An estimate is as old as its run: IHN hears of a handoff only when the run
    /// holding the new link's first pair ends.
    Runs,
}

impl Filter {
    pub fn name(self) -> &'static str {
        match self {
            Filter::Sliding => "sliding",
            Filter::Runs => "runs",
        }
    }
}

/// The filter Chen et al.'s TFRC Probe and TCP Probe run, read from "calculated following
/// CapProbe [18]" (l.68) and "depends on the speed of capacity estimation" (l.116):
/// CapProbe's runs. The paper does not say; a named default.
pub const DEFAULT_FILTER: Filter = Filter::Runs;

/// The filter over a window (or runs) of pairs.
#[derive(Clone, Debug)]
pub struct CapProbe {
    filter: Filter,
    window: usize,
    pairs: VecDeque<PairSample>,
    estimate: Option<u64>,
    samples: u64,
    discarded: u64,
}

impl CapProbe {
    /// A filter over the last `window` pairs (at least one), or over runs of `window`.
    pub fn new(filter: Filter, window: usize) -> Self {
        CapProbe {
            filter,
            window: window.max(1),
            pairs: VecDeque::with_capacity(window.max(1)),
            estimate: None,
            samples: 0,
            discarded: 0,
        }
    }

    /// A pair was measured; returns the capacity estimate, bits per second, after it.
    pub fn on_pair(&mut self, pair: PairSample) -> Option<u64> {
        if pair.dispersion().is_none() {
            self.discarded += 1;
            return self.estimate;
        }
        self.samples += 1;
        if self.filter == Filter::Sliding && self.pairs.len() == self.window {
            self.pairs.pop_front();
        }
        self.pairs.push_back(pair);
        if self.filter == Filter::Runs && self.pairs.len() < self.window {
            return self.estimate;
        }
        // The minimum delay sum; on a tie the newest pair (the path it crossed is current).
        let best = self
            .pairs
            .iter()
            .rev()
            .min_by_key(|p| p.delay_sum())
            .expect("invariant: a pair was just pushed");
        self.estimate = best.capacity_bps();
        if self.filter == Filter::Runs {
            self.pairs.clear();
        }
        self.estimate
    }

    /// The estimate, bits per second; `None` before the first usable pair.
    pub fn estimate_bps(&self) -> Option<u64> {
        self.estimate
    }

    /// Usable pairs taken, and pairs refused for having no dispersion.
    pub fn counts(&self) -> (u64, u64) {
        (self.samples, self.discarded)
    }
}

/// TCP Probe's round trip (Chen et al. §3.2, after their [6]): the data pair spreads to
/// data/C_1 at the forward bottleneck, and its ACKs leave the receiver that far apart; the
/// backward bottleneck spreads them to at least ack/C_2. The sender sees the larger of the
/// two, so it measures the forward capacity C_1 when C_1/C_2 < data/ack (37.5 for 1500-byte
/// data and 40-byte ACKs) and the backward C_2 otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundTripRule {
    pub data_bytes: u32,
    pub ack_bytes: u32,
}

/// Which bottleneck a round-trip pair's dispersion is set by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measured {
    Forward,
    Backward,
}

impl RoundTripRule {
    /// Chen et al. §3.2's sizes: "TCP data packets are 1500 bytes, and ... ACKs are 40 bytes".
    pub const CHEN: RoundTripRule = RoundTripRule {
        data_bytes: 1500,
        ack_bytes: 40,
    };

    /// The direction measured for forward and backward capacities `c1`, `c2` (bit/s):
    /// forward iff C_1/C_2 < data/ack, i.e. C_1·ack < C_2·data (integers, no rounding).
    pub fn measured(&self, c1_bps: u64, c2_bps: u64) -> Measured {
        let lhs = u128::from(c1_bps) * u128::from(self.ack_bytes);
        let rhs = u128::from(c2_bps) * u128::from(self.data_bytes);
        if lhs < rhs {
            Measured::Forward
        } else {
            Measured::Backward
        }
    }

    /// The forward capacity read from an ACK-pair dispersion: data / dispersion (what the
    /// sender reports; right when [`Self::measured`] is `Forward`).
    pub fn forward_bps(&self, dispersion: Dur) -> Option<u64> {
        let d = dispersion.as_nanos();
        (d > 0).then(|| (u128::from(self.data_bytes) * 8_000_000_000 / u128::from(d)) as u64)
    }

    /// The backward capacity read from the same dispersion: ack / dispersion (right when
    /// [`Self::measured`] is `Backward`).
    pub fn backward_bps(&self, dispersion: Dur) -> Option<u64> {
        let d = dispersion.as_nanos();
        (d > 0).then(|| (u128::from(self.ack_bytes) * 8_000_000_000 / u128::from(d)) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1000 bytes of TFRC data with its 40 bytes of headers (`tfrc::DATA_HEADER_BYTES`).
    const WIRE: u32 = 1040;

    fn ser(bytes: u32, bps: u64) -> Dur {
        Dur::serialization(bytes, bps)
    }

    /// A pair that crossed a path of `base` one-way delay (propagation plus the serialisation
    /// of the first packet) and a `bps` bottleneck, the first packet queued `q1`, the second
    /// `q2` beyond the first's dispersion.
    fn pair(base: Dur, bps: u64, q1: Dur, q2: Dur) -> PairSample {
        let first = base + q1;
        PairSample {
            first,
            second: first + ser(WIRE, bps) + q2,
            wire_bytes: WIRE,
        }
    }

    // ---- Tests for the minimum delay-sum filter (CapProbe, Chen et al. §3.1) ----

    #[test]
    fn the_undisturbed_pair_gives_the_bottleneck_capacity() {
        // CapProbe: capacity = size / dispersion of the pair with the least delay sum. A 150
        // kb/s last hop (1xRTT, Chen et al. §5) spreads 1040 bytes to 55.466 ms; four pairs
        // queued 40, 0, 120 and 15 ms as a whole: every dispersion is the same, and the
        // estimate is 1040*8/0.055466 s = 150 000 b/s (less the rounding of ns).
        let base = Dur::from_millis(60);
        let mut cp = CapProbe::new(Filter::Sliding, DEFAULT_WINDOW_PAIRS);
        for q in [40, 0, 120, 15] {
            cp.on_pair(pair(base, 150_000, Dur::from_millis(q), Dur::ZERO));
        }
        let c = cp.estimate_bps().expect("an estimate");
        assert!((149_990..=150_000).contains(&c), "{c}");
    }

    #[test]
    fn a_pair_compressed_by_cross_traffic_is_filtered_out() {
        // CapProbe: a pair compressed after the bottleneck (its first packet held 40 ms by
        // cross traffic, the second caught up behind it) has a dispersion of 15.466 ms, which
        // alone would read 538 kb/s, 3.6 times the truth; but it queued, so its delay sum is
        // the larger and the undisturbed pair wins.
        let base = Dur::from_millis(60);
        let clean = pair(base, 150_000, Dur::ZERO, Dur::ZERO);
        let compressed = PairSample {
            first: clean.first + Dur::from_millis(40),
            second: clean.second,
            wire_bytes: WIRE,
        };
        let alone = compressed.capacity_bps().unwrap();
        assert!(
            alone > 530_000,
            "the compressed pair alone misleads: {alone}"
        );
        assert!(compressed.delay_sum() > clean.delay_sum());
        let mut cp = CapProbe::new(Filter::Sliding, DEFAULT_WINDOW_PAIRS);
        cp.on_pair(clean);
        let c = cp.on_pair(compressed).unwrap();
        assert!((149_990..=150_000).contains(&c), "{c}");
        // The order does not matter: the compressed pair first, the clean one after.
        let mut cp = CapProbe::new(Filter::Sliding, DEFAULT_WINDOW_PAIRS);
        assert_eq!(cp.on_pair(compressed), Some(alone));
        let c = cp.on_pair(clean).unwrap();
        assert!((149_990..=150_000).contains(&c), "{c}");
    }

    #[test]
    fn a_pair_expanded_by_a_packet_between_is_filtered_out() {
        // CapProbe: a cross-traffic packet of 1040 bytes served between the two doubles the
        // dispersion (75 kb/s alone) and delays the second packet: the larger delay sum.
        let base = Dur::from_millis(60);
        let expanded = pair(base, 150_000, Dur::ZERO, ser(WIRE, 150_000));
        let clean = pair(base, 150_000, Dur::from_millis(5), Dur::ZERO);
        let mut cp = CapProbe::new(Filter::Sliding, DEFAULT_WINDOW_PAIRS);
        assert!(cp.on_pair(expanded).unwrap() < 76_000);
        let c = cp.on_pair(clean).unwrap();
        assert!((149_990..=150_000).contains(&c), "{c}");
    }

    #[test]
    fn pairs_without_dispersion_are_refused() {
        // A pair reordered across a handover (second before first) or arriving in one
        // instant says nothing of a capacity: refused, the estimate unchanged.
        let mut cp = CapProbe::new(Filter::Sliding, 4);
        let good = pair(Dur::from_millis(10), 5_000_000, Dur::ZERO, Dur::ZERO);
        let est = cp.on_pair(good);
        let reordered = PairSample {
            first: Dur::from_millis(30),
            second: Dur::from_millis(20),
            wire_bytes: WIRE,
        };
        assert_eq!(cp.on_pair(reordered), est);
        let same = PairSample {
            first: Dur::from_millis(5),
            second: Dur::from_millis(5),
            wire_bytes: WIRE,
        };
        assert_eq!(cp.on_pair(same), est);
        assert_eq!(cp.counts(), (1, 2));
    }

    // ---- Tests for the window across a handover ----

    /// A pair over the 150 kb/s 1xRTT hop (80 ms one-way, the first packet queued 30 ms).
    fn slow_pair() -> PairSample {
        pair(
            Dur::from_millis(80),
            150_000,
            Dur::from_millis(30),
            Dur::ZERO,
        )
    }

    /// A pair over the 5 Mb/s 802.11b hop (30 ms one-way, the first packet queued 2 ms).
    fn fast_pair() -> PairSample {
        pair(
            Dur::from_millis(30),
            5_000_000,
            Dur::from_millis(2),
            Dur::ZERO,
        )
    }

    #[test]
    fn the_estimate_rises_at_once_and_falls_when_the_old_pairs_leave_the_window() {
        // After LOW-to-HIGH the 5 Mb/s link's pairs have the smaller sums (1.7 ms dispersion
        // against 55 ms, less queueing): the first of them sets the estimate. After
        // HIGH-to-LOW the old fast pairs keep the minimum until `window` new ones pushed them
        // out: the window is IHN's lag on that side.
        let (slow, fast) = (slow_pair(), fast_pair());
        let window = 4;
        let mut cp = CapProbe::new(Filter::Sliding, window);
        for _ in 0..window {
            cp.on_pair(slow);
        }
        assert!(cp.estimate_bps().unwrap() < 151_000);
        let up = cp.on_pair(fast).unwrap();
        assert!(up > 4_900_000, "one fast pair suffices: {up}");
        for k in 1..window {
            cp.on_pair(fast);
            let _ = k;
        }
        // Now back to the slow link: window - 1 slow pairs leave the estimate high ...
        for k in 0..window - 1 {
            let c = cp.on_pair(slow).unwrap();
            assert!(c > 4_900_000, "slow pair {k}: still {c}");
        }
        // ... the window-th pushes out the last fast one.
        assert!(cp.on_pair(slow).unwrap() < 151_000);
    }

    // ---- Tests for CapProbe's runs (Filter::Runs) ----

    #[test]
    fn runs_give_an_estimate_only_when_a_run_ends_each_from_its_own_pairs() {
        // CapProbe (Kapoor et al. 2004) estimates from a run of pairs: the minimum delay-sum
        // pair of the run. Runs of 4: nothing before the 4th pair; the LOW-to-HIGH handoff's
        // first fast pair, the 2nd of run two, moves the estimate only at that run's end
        // (pair 8), so IHN's lag is the rest of the run. HIGH-to-LOW: the run holding the
        // last fast pair still reads fast; the next, all slow, reads slow (no pair carried
        // over from one run to the next).
        let (slow, fast) = (slow_pair(), fast_pair());
        let mut cp = CapProbe::new(Filter::Runs, 4);
        for _ in 0..3 {
            assert_eq!(cp.on_pair(slow), None);
        }
        let low = cp.on_pair(slow).expect("the first run's end");
        assert!(low < 151_000, "{low}");
        // Run two: slow, then fast pairs; the estimate holds until the run's 4th pair.
        assert_eq!(cp.on_pair(slow), Some(low));
        for _ in 0..2 {
            assert_eq!(cp.on_pair(fast), Some(low));
        }
        let high = cp.on_pair(fast).expect("run two's end");
        assert!(high > 4_900_000, "{high}");
        // Back to slow: run three holds one fast pair and reads fast; run four reads slow.
        cp.on_pair(fast);
        for _ in 0..3 {
            assert_eq!(cp.on_pair(slow), Some(high));
        }
        for _ in 0..3 {
            assert_eq!(cp.on_pair(slow), Some(high));
        }
        assert_eq!(cp.on_pair(slow), Some(low));
        assert_eq!(cp.counts(), (16, 0));
    }

    // ---- Tests for TCP Probe's round trip (Chen et al. §3.2, the 37.5 rule) ----

    /// The dispersion of the ACK pair a back-to-back data pair brings back over a forward
    /// bottleneck `c1` and a backward one `c2`: the data pair leaves the forward bottleneck
    /// data/C_1 apart, the receiver acknowledges each at once (the inverted pair of §3.2), and
    /// the backward bottleneck spreads the ACKs to at least ack/C_2.
    fn ack_dispersion(rule: RoundTripRule, c1: u64, c2: u64) -> Dur {
        ser(rule.data_bytes, c1).max(ser(rule.ack_bytes, c2))
    }

    #[test]
    fn below_37_5_the_round_trip_measures_the_forward_capacity() {
        // Chen et al. §3.2: with 1500-byte data and 40-byte ACKs the forward capacity is
        // measured when C_1/C_2 < 37.5. 5 Mb/s forward, 150 kb/s back: 33.3.
        let rule = RoundTripRule::CHEN;
        let (c1, c2) = (5_000_000, 150_000);
        assert_eq!(rule.measured(c1, c2), Measured::Forward);
        let d = ack_dispersion(rule, c1, c2);
        assert_eq!(
            d,
            ser(1500, c1),
            "the data's dispersion survives the way back"
        );
        assert_eq!(rule.forward_bps(d), Some(c1));
        let mut cp = CapProbe::new(Filter::Sliding, DEFAULT_WINDOW_PAIRS);
        let rtt = Dur::from_millis(200);
        let est = cp.on_pair(PairSample {
            first: rtt,
            second: rtt + d,
            wire_bytes: rule.data_bytes,
        });
        assert_eq!(est, Some(c1));
    }

    #[test]
    fn at_and_above_37_5_the_round_trip_measures_the_backward_capacity() {
        // Chen et al. §3.2: "or the backward link capacity when C_1/C_2 >= 37.5". 5 Mb/s
        // forward: at 133 333 b/s back (37.5) the two serialisations tie; at 125 kb/s (40)
        // the ACKs' 2.56 ms exceeds the data's 2.4 ms: data/dispersion reads 4.6875 Mb/s, not
        // 5, and ack/dispersion reads the 125 kb/s back.
        let rule = RoundTripRule::CHEN;
        let c1 = 5_000_000;
        assert_eq!(rule.measured(c1, 133_334), Measured::Forward, "37.4993");
        assert_eq!(
            rule.measured(7_500_000, 200_000),
            Measured::Backward,
            "37.5"
        );
        let c2 = 125_000;
        assert_eq!(rule.measured(c1, c2), Measured::Backward);
        let d = ack_dispersion(rule, c1, c2);
        assert_eq!(d, ser(40, c2));
        assert_eq!(rule.forward_bps(d), Some(4_687_500));
        assert_eq!(rule.backward_bps(d), Some(c2));
    }
}
