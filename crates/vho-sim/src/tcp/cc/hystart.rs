//! HyStart, CUBIC's way out of slow start, as Linux runs it (net/ipv4/tcp_cubic.c:
//! `hystart_update`, `bictcp_hystart_reset`, `hystart_ack_delay`; Ha & Rhee, "Taming the
//! Elephants: New TCP Slow Start", 2011). Not RFC 9406's HyStart++, which Linux does not run.
//!
//! Once cwnd reaches [`HYSTART_LOW_WINDOW`] segments, each round (one window of data, until
//! SND.UNA passes the SND.NXT of the round's start) is watched two ways; either ends slow
//! start by setting ssthresh to cwnd:
//! - ACK train: ACKs keep coming at most [`HYSTART_ACK_DELTA`] apart, and the train has lasted
//!   longer than half the minimum delay (plus the pacing cushion): the pipe is full.
//! - Delay increase: after [`HYSTART_MIN_SAMPLES`] RTT samples in the round, the round's
//!   smallest exceeds the minimum delay by clamp(delay_min/8, 4 ms, 16 ms): a queue builds.

use crate::tcp::seq::SeqNum;

/// `hystart_low_window`: HyStart only from 16 segments on (module parameter default).
pub const HYSTART_LOW_WINDOW: u32 = 16;
/// `hystart_ack_delta_us`: ACKs at most 2 ms apart form a train.
pub const HYSTART_ACK_DELTA_US: u64 = 2000;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const HYSTART_MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`: the delay threshold's bounds, 4 and 16 ms.
pub const HYSTART_DELAY_MIN_US: u64 = 4000;
pub const HYSTART_DELAY_MAX_US: u64 = 16_000;
/// `hystart_ack_delay`'s cap on the cushion for TSO/GRO (`USEC_PER_MSEC`).
pub const HYSTART_ACK_DELAY_CAP_US: u64 = 1000;
/// `sk_gso_max_size` (GSO_LEGACY_MAX_SIZE, 64 KiB), which `hystart_ack_delay` divides by the
/// pacing rate.
pub const GSO_MAX_SIZE: u64 = 65_536;

/// What HyStart found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exit {
    AckTrain,
    DelayIncrease,
}

/// `struct bictcp`'s HyStart fields.
#[derive(Clone, Copy, Debug, Default)]
pub struct HyStart {
    /// `found`: slow start has been ended (until the next timeout's reset).
    pub found: bool,
    /// The round's start has not been set since the last reset (vho resets lazily, at the
    /// next sample, where Linux's reset reads the clock and SND.NXT).
    unset: bool,
    round_start_us: u64,
    last_ack_us: u64,
    end_seq: SeqNum,
    curr_rtt_us: u64,
    sample_cnt: u8,
}

impl HyStart {
    pub fn new() -> Self {
        HyStart {
            unset: true,
            ..HyStart::default()
        }
    }

    /// `bictcp_hystart_reset` at the next sample (after `cubictcp_state(TCP_CA_Loss)`).
    pub fn reset(&mut self) {
        *self = HyStart::new();
    }

    fn start_round(&mut self, now_us: u64, snd_nxt: SeqNum) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.end_seq = snd_nxt;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
        self.unset = false;
    }

    /// `hystart_update(sk, delay)`, in slow start with `found` clear: `cwnd` in segments,
    /// `delay_min_us` CUBIC's minimum delay, `ack_delay_us` the pacing cushion
    /// ([`ack_delay_us`]). Returns what ended slow start, if anything did.
    #[allow(clippy::too_many_arguments)]
    pub fn on_sample(
        &mut self,
        now_us: u64,
        delay_us: u64,
        delay_min_us: u64,
        ack_delay_us: u64,
        cwnd: u32,
        snd_una: SeqNum,
        snd_nxt: SeqNum,
    ) -> Option<Exit> {
        if self.unset || snd_una > self.end_seq {
            self.start_round(now_us, snd_nxt);
        }
        if cwnd < HYSTART_LOW_WINDOW {
            return None;
        }
        let mut exit = None;
        if now_us.saturating_sub(self.last_ack_us) <= HYSTART_ACK_DELTA_US {
            self.last_ack_us = now_us;
            // Without fq pacing (SK_PACING_NONE) the threshold is halved: the train must
            // outlast half the minimum delay.
            let threshold = (delay_min_us + ack_delay_us) >> 1;
            if now_us.saturating_sub(self.round_start_us) > threshold {
                self.found = true;
                exit = Some(Exit::AckTrain);
            }
        }
        self.curr_rtt_us = self.curr_rtt_us.min(delay_us);
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = (delay_min_us >> 3).clamp(HYSTART_DELAY_MIN_US, HYSTART_DELAY_MAX_US);
            if self.curr_rtt_us > delay_min_us + thresh {
                self.found = true;
                exit = Some(Exit::DelayIncrease);
            }
        }
        exit
    }
}

/// `hystart_ack_delay`: min(1 ms, 4·GSO_MAX_SIZE / pacing rate), the pacing rate being
/// `tcp_update_pacing_rate`'s in slow start, 200 % of cwnd·MSS/SRTT (tcp_pacing_ss_ratio);
/// 0 before an SRTT exists (no rate).
pub fn ack_delay_us(cwnd: u32, mss: u32, srtt_us: u64) -> u64 {
    if srtt_us == 0 {
        return 0;
    }
    // bytes per second = 2 · cwnd · mss · 1e6 / srtt_us
    let rate = 2 * cwnd as u64 * mss as u64 * 1_000_000 / srtt_us;
    if rate == 0 {
        return 0;
    }
    HYSTART_ACK_DELAY_CAP_US.min(GSO_MAX_SIZE * 4 * 1_000_000 / rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNA: SeqNum = SeqNum(0);
    const NXT: SeqNum = SeqNum(100);

    #[test]
    fn below_the_low_window_hystart_never_fires() {
        // hystart_low_window = 16: nothing below 16 segments, however late the ACKs.
        let mut h = HyStart::new();
        for k in 0..20u64 {
            let r = h.on_sample(k * 100, 500_000, 10_000, 1000, 15, UNA, NXT);
            assert_eq!(r, None);
        }
        assert!(!h.found);
    }

    #[test]
    fn an_ack_train_longer_than_half_the_min_delay_ends_slow_start() {
        // delay_min 40 ms, cushion 1 ms: threshold (40 + 1) / 2 = 20.5 ms. ACKs every 1 ms
        // (<= 2 ms apart) from the round's start: the one 21 ms in (21,000 > 20,500) fires,
        // the one at 20 ms does not.
        let mut h = HyStart::new();
        let mut first = None;
        for ms in 0..=30u64 {
            if let Some(e) = h.on_sample(ms * 1000, 40_000, 40_000, 1000, 20, UNA, NXT) {
                first.get_or_insert((ms, e));
            }
        }
        assert_eq!(first, Some((21, Exit::AckTrain)));
    }

    #[test]
    fn acks_more_than_2_ms_apart_are_no_train() {
        // hystart_ack_delta_us = 2000: ACKs 3 ms apart never extend last_ack.
        let mut h = HyStart::new();
        for k in 0..40u64 {
            assert_eq!(h.on_sample(k * 3000, 40_000, 40_000, 0, 20, UNA, NXT), None);
        }
    }

    #[test]
    fn the_delay_test_waits_for_8_samples_and_a_clamped_threshold() {
        // delay_min 40 ms: threshold clamp(40/8 = 5 ms, 4, 16) = 5 ms. Samples 10 ms apart
        // (no train) of 45.5 ms: the 9th (after HYSTART_MIN_SAMPLES = 8) sees 45.5 > 45: fires.
        let mut h = HyStart::new();
        let exits: Vec<_> = (0..9u64)
            .map(|k| h.on_sample(k * 10_000, 45_500, 40_000, 0, 20, UNA, NXT))
            .collect();
        assert_eq!(exits[..8], [None; 8]);
        assert_eq!(exits[8], Some(Exit::DelayIncrease));
        // 44.9 ms does not (44.9 <= 45), nor does a small delay_min's 4 ms floor
        // (delay_min 8 ms: 8/8 = 1 ms -> 4 ms; 11.9 <= 12).
        for (d, min) in [(44_900, 40_000), (11_900, 8_000)] {
            let mut h = HyStart::new();
            let fired =
                (0..20u64).any(|k| h.on_sample(k * 10_000, d, min, 0, 20, UNA, NXT).is_some());
            assert!(!fired, "{d} over {min}");
        }
    }

    #[test]
    fn a_new_round_starts_when_snd_una_passes_the_rounds_end() {
        // bictcp_hystart_reset when after(snd_una, end_seq): round_start moves, and the train
        // is timed from there. Round 1 ends at 100; an ACK beyond it at 30 ms starts round 2,
        // so the train must last 20.5 ms from 30 ms.
        let mut h = HyStart::new();
        for ms in 0..15u64 {
            assert_eq!(
                h.on_sample(ms * 1000, 40_000, 40_000, 1000, 20, UNA, NXT),
                None
            );
        }
        assert_eq!(
            h.on_sample(30_000, 40_000, 40_000, 1000, 20, SeqNum(101), SeqNum(200)),
            None
        );
        let fired = (31..=51u64).find(|ms| {
            h.on_sample(
                ms * 1000,
                40_000,
                40_000,
                1000,
                20,
                SeqNum(150),
                SeqNum(200),
            )
            .is_some()
        });
        assert_eq!(fired, Some(51));
    }

    #[test]
    fn the_pacing_cushion_is_capped_at_1_ms() {
        // 16 segments of 1448 B over 100 ms at 200 %: 463,360 B/s; 4 · 64 KiB / that = 566 ms,
        // capped at 1 ms. At 10 Gb/s-like rates it is smaller: cwnd 10,000, 1 ms SRTT:
        // 2.896e10 B/s -> 262,144e6 / 2.896e10 = 9 µs.
        assert_eq!(ack_delay_us(16, 1448, 100_000), 1000);
        assert_eq!(ack_delay_us(10_000, 1448, 1000), 9);
        assert_eq!(ack_delay_us(16, 1448, 0), 0);
    }
}
