//! CUBIC as Linux runs it (net/ipv4/tcp_cubic.c, "CUBIC v2.3", Linux 6.x; read, not copied),
//! with HyStart (`hystart.rs`). Linux counts the window in segments (`snd_cwnd`, with
//! `snd_cwnd_cnt` for the fraction); so does this controller, showing bytes outside.
//!
//! - Growth (`cubictcp_cong_avoid`): slow start below ssthresh (`tcp_slow_start`: +1 segment
//!   per segment ACKed, not past ssthresh, the rest of the ACK going to congestion
//!   avoidance); then `bictcp_update` sets `cnt`, the segments to ACK per +1 of cwnd, and
//!   `tcp_cong_avoid_ai` counts them in `cwnd_cnt`.
//! - `bictcp_update`: at most once per jiffy, and not again within HZ/32 while cwnd is
//!   unchanged. An epoch starts at the first update after a reduction: K =
//!   cbrt((W_max − cwnd) / C) in 1/1024 s (`cube_factor`), origin W_max (or cwnd when
//!   cwnd >= W_max, K = 0). Target = origin ± C·(t − K)³ with t the time since the epoch
//!   *plus the minimum delay* (the window one RTT ahead), C = `bic_scale`·10/1024 = 0.4004;
//!   cnt = cwnd / (target − cwnd), or 100·cwnd at or above it; at most 20 before any loss
//!   (`last_max_cwnd == 0`: 5 % per RTT); TCP-friendliness (`tcp_friendliness`): a Reno
//!   window estimate `tcp_cwnd` grows by one per cwnd·`beta_scale`/8 segments ACKed (an AIMD
//!   of α = 3(1−β)/(1+β) with β = 0.7), and cnt is lowered so cwnd keeps up with it; cnt
//!   at least 2 (cwnd at most ×1.5 per RTT).
//! - Reduction (`cubictcp_recalc_ssthresh`): the epoch ends; W_max = cwnd, or
//!   cwnd·(1 + β)/2 when cwnd is below the previous W_max (fast convergence); ssthresh =
//!   max(cwnd·717/1024, 2). A timeout (`cubictcp_state(TCP_CA_Loss)`, after `tcp_enter_loss`
//!   took ssthresh) resets all of CUBIC's state, W_max and the minimum delay included, and
//!   HyStart's.
//! - `cubictcp_acked`: each RTT sample (none within 1 s of an epoch's start) lowers the
//!   minimum delay and, in slow start before HyStart has fired, feeds HyStart.
//!
//! Where RFC 8312 / RFC 9438 differ, this follows Linux: the TCP-friendly estimate counts
//! ACKs and keeps α = 3(1−β)/(1+β) throughout (RFC 9438 §4.3 raises α to 1 once the
//! estimate passes W_max); the target is one *minimum* delay ahead (RFCs: W_cubic(t + RTT));
//! K is computed at the first ACK after the reduction, not at the loss; the 20-segment cap
//! before the first loss and the 2-ACKs-per-segment cap are Linux's (RFC 9438 §4.2 caps the
//! target at 1.5·cwnd instead); a timeout forgets W_max (RFC 8312 §4.7 keeps it); the slow
//! start is HyStart, not RFC 9406's HyStart++. Not modelled: `cubictcp_cwnd_event`'s shift of
//! the epoch after an idle period (a bulk transfer is never idle), and Linux's table-driven
//! cube root (about 0.2 % off; vho takes the exact integer root).

use super::hystart::{self, HyStart};
use super::{CongestionControl, RecoveryStyle, Window};
use crate::tcp::rtt_linux::Flight;
use crate::time::{Dur, Time};

/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u64 = 1024;
/// `beta` = 717/1024 ≈ 0.7 (module parameter default; RFC 8312 §4.5 β_cubic = 0.7).
pub const BETA: u64 = 717;
/// `bic_scale` = 41: C = 41·10/1024 = 0.4004 (RFC 8312 §5 C = 0.4).
pub const BIC_SCALE: u64 = 41;
/// `BICTCP_HZ`: t and K in 1/1024 s.
const BICTCP_HZ: u32 = 10;
/// The kernel's HZ for `tcp_jiffies32` (1000: as the `linux` profile's RTO jiffy).
pub const HZ: u64 = 1000;
/// `cube_rtt_scale` = bic_scale·10.
const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// `cube_factor` = 2^(10 + 3·BICTCP_HZ) / (bic_scale·10): K³ per segment of W_max − cwnd.
const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE * 10);
/// `beta_scale` = 8·(1024 + β)/3/(1024 − β) = 15, in integer steps as the kernel does.
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// `fast_convergence`, `tcp_friendliness`, `hystart`: all on by default.
pub const FAST_CONVERGENCE: bool = true;
pub const TCP_FRIENDLINESS: bool = true;
pub const HYSTART: bool = true;

/// `repr(C)` with the byte window first, at the offset the other controllers have it: the
/// dispatch of `cwnd()` then reads one field whatever the controller (callgrind: a fourth
/// variant laid out otherwise cost the ns2 cell 0.3 % more instructions).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Cubic {
    /// cwnd and ssthresh in bytes, kept equal to the segment counts below times the MSS.
    w: Window,
    mss: u32,
    /// `snd_cwnd`, `snd_cwnd_cnt`, `snd_ssthresh`, in segments.
    cwnd: u32,
    cwnd_cnt: u32,
    ssthresh: u32,
    /// `struct bictcp`.
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64,
    origin: u32,
    k: u64,
    delay_min_us: u64,
    epoch_start: Option<u64>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    hystart: HyStart,
    /// Exits from slow start by HyStart (for tests and summaries).
    pub hystart_exits: u32,
}

/// `tcp_jiffies32` at HZ = [`HZ`].
fn jiffies(now: Time) -> u64 {
    now.as_nanos() / (1_000_000_000 / HZ)
}

/// The integer cube root, floor(∛a).
fn cube_root(a: u64) -> u64 {
    let mut x = (a as f64).cbrt() as u64;
    while x > 0 && x.saturating_mul(x).saturating_mul(x) > a {
        x -= 1;
    }
    while (x + 1).saturating_mul(x + 1).saturating_mul(x + 1) <= a {
        x += 1;
    }
    x
}

impl Cubic {
    /// `cubictcp_init`: the window in bytes (`w`) taken in whole segments.
    pub fn new(w: Window) -> Self {
        let mss = w.mss.max(1);
        let mut c = Cubic {
            w,
            mss,
            cwnd: (w.cwnd / mss).max(1),
            cwnd_cnt: 0,
            ssthresh: (w.ssthresh / mss).max(2),
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k: 0,
            delay_min_us: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: HyStart::new(),
            hystart_exits: 0,
        };
        c.sync();
        c
    }

    /// The byte window from the segment counts.
    #[inline]
    fn sync(&mut self) {
        self.w.cwnd = self.cwnd.saturating_mul(self.mss);
        self.w.ssthresh = self.ssthresh.saturating_mul(self.mss);
    }

    /// `bictcp_reset` and `bictcp_hystart_reset` (`cubictcp_state(TCP_CA_Loss)`).
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin = 0;
        self.k = 0;
        self.delay_min_us = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.hystart.reset();
    }

    /// `cubictcp_recalc_ssthresh`: W_max with fast convergence; the new ssthresh.
    fn recalc_ssthresh(&mut self) -> u32 {
        self.epoch_start = None;
        self.last_max_cwnd = if self.cwnd < self.last_max_cwnd && FAST_CONVERGENCE {
            ((self.cwnd as u64 * (BETA_SCALE + BETA)) / (2 * BETA_SCALE)) as u32
        } else {
            self.cwnd
        };
        (((self.cwnd as u64 * BETA) / BETA_SCALE) as u32).max(2)
    }

    /// `bictcp_update(ca, cwnd, acked)`: sets `cnt`.
    fn update(&mut self, now: Time, acked: u32) {
        let cwnd = self.cwnd;
        let j = jiffies(now);
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        if self.last_cwnd == cwnd && j.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // The cubic function is evaluated at most once per jiffy.
        if !(self.epoch_start.is_some() && j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = j;
            let epoch = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(j);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k = 0;
                        self.origin = cwnd;
                    } else {
                        let gap = (self.last_max_cwnd - cwnd) as u64;
                        self.k = cube_root(CUBE_FACTOR.saturating_mul(gap));
                        self.origin = self.last_max_cwnd;
                    }
                    j
                }
            };
            // t = time since the epoch plus the minimum delay (usecs_to_jiffies rounds up),
            // in 1/1024 s.
            let delay_j = (self.delay_min_us * HZ).div_ceil(1_000_000);
            let t = ((j - epoch + delay_j) << BICTCP_HZ) / HZ;
            let offs = t.abs_diff(self.k);
            let delta = (CUBE_RTT_SCALE
                .saturating_mul(offs)
                .saturating_mul(offs)
                .saturating_mul(offs)
                >> (10 + 3 * BICTCP_HZ))
                .min(u32::MAX as u64) as u32;
            let target = if t < self.k {
                self.origin.saturating_sub(delta)
            } else {
                self.origin.saturating_add(delta)
            };
            self.cnt = if target > cwnd {
                cwnd / (target - cwnd)
            } else {
                100 * cwnd // "very small increment"
            };
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20; // "increase cwnd 5% per RTT" before the first loss
            }
        }
        if TCP_FRIENDLINESS {
            let per = ((cwnd as u64 * FRIENDLY_SCALE) >> 3).max(1) as u32;
            while self.ack_cnt > per {
                self.ack_cnt -= per;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai(tp, w, acked)`.
    fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
    }

    /// The current `cnt` (segments ACKed per +1 of cwnd), for tests.
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// W_max in segments (`last_max_cwnd`).
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> u32 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.w.ssthresh
    }
    /// `cubictcp_cong_avoid`, the sender having checked `tcp_is_cwnd_limited`. Never
    /// inlined: inlined into `AnyController::on_ack`, it kept that dispatch from being
    /// inlined into the sender for the other controllers (+1 % of the ns2 cell's
    /// instructions by callgrind).
    #[inline(never)]
    fn on_ack(&mut self, now: Time, acked: u32, _flight: u32) {
        // Segments ACKed: a short last segment is one, as the kernel counts skbs.
        let mut acked = acked.div_ceil(self.mss);
        if self.cwnd < self.ssthresh {
            let grown = (self.cwnd + acked).min(self.ssthresh);
            acked -= grown - self.cwnd;
            self.cwnd = grown;
        }
        if acked > 0 {
            self.update(now, acked);
            self.cong_avoid_ai(self.cnt, acked);
        }
        self.sync();
    }
    /// `cubictcp_acked`.
    #[inline(never)]
    fn on_rtt_sample(&mut self, now: Time, rtt: Dur, srtt: Dur, flight: Flight) {
        if let Some(e) = self.epoch_start {
            if jiffies(now).saturating_sub(e) < HZ {
                return; // "Discard delay samples right after fast recovery"
            }
        }
        let delay = (rtt.as_nanos() / 1000).max(1);
        if self.delay_min_us == 0 || self.delay_min_us > delay {
            self.delay_min_us = delay;
        }
        if HYSTART && !self.hystart.found && self.cwnd < self.ssthresh {
            let cushion = hystart::ack_delay_us(self.cwnd, self.mss, srtt.as_nanos() / 1000);
            let exit = self.hystart.on_sample(
                now.as_nanos() / 1000,
                delay,
                self.delay_min_us,
                cushion,
                self.cwnd,
                flight.snd_una,
                flight.snd_nxt,
            );
            if exit.is_some() {
                self.ssthresh = self.cwnd;
                self.hystart_exits += 1;
                self.sync();
            }
        }
    }
    /// `tcp_init_cwnd_reduction` (ssthresh from the controller, `snd_cwnd_cnt` cleared); the
    /// window during recovery is the sender's (RFC 6675 pipe, or PRR).
    fn on_fast_retransmit(&mut self, _now: Time, _flight: u32, style: RecoveryStyle) {
        self.ssthresh = self.recalc_ssthresh();
        self.cwnd_cnt = 0;
        self.cwnd = match style {
            RecoveryStyle::Pipe => self.ssthresh,
            RecoveryStyle::Inflate => self.ssthresh + 3,
        };
        self.sync();
    }
    fn on_dupack_in_recovery(&mut self, style: RecoveryStyle) {
        if style == RecoveryStyle::Inflate {
            self.cwnd += 1;
            self.sync();
        }
    }
    fn on_partial_ack(&mut self, acked: u32, style: RecoveryStyle) {
        if style == RecoveryStyle::Inflate {
            let segs = acked / self.mss;
            self.cwnd = self.cwnd.saturating_sub(segs).max(1);
            if segs >= 1 {
                self.cwnd += 1;
            }
            self.sync();
        }
    }
    /// `tcp_end_cwnd_reduction`: cwnd = ssthresh.
    fn on_recovery_exit(&mut self, _flight: u32) {
        self.cwnd = self.ssthresh;
        self.sync();
    }
    /// `tcp_enter_loss`: ssthresh from the controller, cwnd = in flight + 1 = 1 (all is
    /// marked lost), then `cubictcp_state(TCP_CA_Loss)`.
    fn on_rto(&mut self, _now: Time, _flight: u32) {
        self.ssthresh = self.recalc_ssthresh();
        self.on_rto_keeping_ssthresh(_now);
    }
    fn on_rto_keeping_ssthresh(&mut self, _now: Time) {
        self.cwnd = 1;
        self.cwnd_cnt = 0;
        self.reset();
        self.sync();
    }
    fn set_window(&mut self, cwnd: u32, ssthresh: u32) {
        self.cwnd = (cwnd / self.mss).max(1);
        self.ssthresh = (ssthresh / self.mss).max(2);
        self.sync();
    }
    fn waits_for_recovery_point(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::seq::SeqNum;

    const MSS: u32 = 1000;

    fn cubic(cwnd: u32, ssthresh: u32) -> Cubic {
        Cubic::new(Window::new(MSS, cwnd * MSS, ssthresh * MSS))
    }

    #[test]
    fn constants_are_the_kernels() {
        // tcp_cubic.c cubictcp_register: beta_scale = 8*(1024+717)/3/(1024-717) = 15;
        // cube_factor = 2^40 / 410 = 2,681,735,677; cube_rtt_scale = 410.
        assert_eq!(FRIENDLY_SCALE, 15);
        assert_eq!(CUBE_FACTOR, 2_681_735_677);
        assert_eq!(CUBE_RTT_SCALE, 410);
        assert_eq!(cube_root(1000), 10);
        assert_eq!(cube_root(999), 9);
    }

    #[test]
    fn a_loss_takes_ssthresh_to_717_1024_and_w_max_with_fast_convergence() {
        // cubictcp_recalc_ssthresh: cwnd 100 -> ssthresh 100·717/1024 = 70, W_max 100. A
        // second loss at cwnd 80 < W_max: W_max = 80·1741/2048 = 68 (fast convergence),
        // ssthresh 56.
        let mut c = cubic(100, 1000);
        c.on_fast_retransmit(Time::ZERO, 0, RecoveryStyle::Pipe);
        assert_eq!((c.ssthresh(), c.cwnd(), c.w_max()), (70_000, 70_000, 100));
        c.set_window(80 * MSS, 70 * MSS);
        c.on_fast_retransmit(Time::ZERO, 0, RecoveryStyle::Pipe);
        assert_eq!((c.ssthresh(), c.w_max()), (56_000, 68));
        // Never below 2 segments.
        let mut c = cubic(2, 1000);
        c.on_fast_retransmit(Time::ZERO, 0, RecoveryStyle::Pipe);
        assert_eq!(c.ssthresh(), 2000);
    }

    #[test]
    fn the_epoch_starts_at_the_first_ack_after_a_loss_with_k_from_w_max() {
        // W_max 100, cwnd 70 after the loss: K = floor(cbrt(2,681,735,677 · 30)) = 4316 in
        // 1/1024 s = 4.215 s (RFC 8312 eq. 2: cbrt((100 − 70) / 0.4) = 4.217 s). At the
        // epoch's start (t = 0, no delay_min yet): delta = 410·4316³ >> 40 = 29 (29.98),
        // target 71, cnt = 70 / (71 − 70) = 70.
        let mut c = cubic(100, 1000);
        c.on_fast_retransmit(Time::ZERO, 0, RecoveryStyle::Pipe);
        c.on_recovery_exit(0);
        c.on_ack(Time::from_secs(10), MSS, 0);
        assert_eq!((c.k, c.origin, c.cnt()), (4316, 100, 70));
        // At t = K (4,215 ms later: 4215·1024/1000 = 4316) the target is W_max itself:
        // cnt = 70 / (100 − 70) = 2.
        c.on_ack(Time::from_millis(14_215), MSS, 0);
        assert_eq!(c.cnt(), 2);
    }

    #[test]
    fn before_any_loss_growth_is_at_most_5_percent_per_rtt() {
        // last_max_cwnd == 0: cnt capped at 20 (cwnd 40: +2 segments per 40 ACKed).
        let mut c = cubic(40, 40);
        for k in 0..40u64 {
            c.on_ack(Time::from_millis(100 + 5 * k), MSS, 0);
        }
        assert_eq!(c.cnt(), 20);
        assert_eq!(c.cwnd() / MSS, 42);
    }

    #[test]
    fn tcp_friendliness_keeps_up_with_reno() {
        // cwnd 50 at its W_max: the cubic target stays 50 for the first second (delta =
        // 410·offs³ >> 40 is 0 below offs 1389), so cnt = 100·50 = 5000. The Reno estimate
        // tcp_cwnd grows by one per 50·15/8 = 93 segments ACKed: ACKs of 10 segments 32 ms
        // apart (past HZ/32) bring ack_cnt to 100 > 93 at the tenth, tcp_cwnd = 51, and cnt
        // falls to 50 / (51 − 50) = 50.
        let mut c = cubic(50, 50);
        c.last_max_cwnd = 50;
        for k in 0..9u64 {
            c.on_ack(Time::from_millis(100 + 32 * k), 10 * MSS, 0);
        }
        assert_eq!(c.cnt(), 5000);
        c.on_ack(Time::from_millis(100 + 32 * 9), 10 * MSS, 0);
        assert_eq!((c.tcp_cwnd, c.cnt()), (51, 50));
    }

    #[test]
    fn slow_start_adds_a_segment_per_segment_up_to_ssthresh_then_cubic() {
        // tcp_slow_start: cwnd 10, ssthresh 12, an ACK of 4 segments: 12, and 2 go to
        // congestion avoidance (bictcp_update with acked = 2).
        let mut c = cubic(10, 12);
        c.on_ack(Time::from_millis(100), 4 * MSS, 0);
        assert_eq!(c.cwnd() / MSS, 12);
        assert_eq!(c.ack_cnt, 2);
    }

    #[test]
    fn a_timeout_resets_cubic_and_hystart() {
        // tcp_enter_loss then cubictcp_state(TCP_CA_Loss): ssthresh 70 from cwnd 100, cwnd 1,
        // W_max and delay_min forgotten.
        let mut c = cubic(100, 1000);
        let fl = Flight {
            snd_una: SeqNum(0),
            snd_nxt: SeqNum(1),
        };
        c.on_rtt_sample(
            Time::from_secs(5),
            Dur::from_millis(50),
            Dur::from_millis(50),
            fl,
        );
        assert_eq!(c.delay_min_us, 50_000);
        c.on_rto(Time::from_secs(6), 0);
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 70 * MSS));
        assert_eq!((c.w_max(), c.delay_min_us), (0, 0));
    }

    #[test]
    fn hystart_ends_slow_start_by_setting_ssthresh_to_cwnd() {
        // cwnd 20 >= 16 in slow start, delay_min 40 ms: an ACK train lasting over 20.5 ms
        // (half of 40 ms + the 1 ms cushion) sets ssthresh = cwnd = 20.
        let mut c = cubic(20, 100_000);
        let fl = Flight {
            snd_una: SeqNum(0),
            snd_nxt: SeqNum(1_000_000),
        };
        for ms in 0..=25u64 {
            c.on_rtt_sample(
                Time::from_millis(1000 + ms),
                Dur::from_millis(40),
                Dur::from_millis(40),
                fl,
            );
        }
        assert_eq!(c.ssthresh(), 20 * MSS);
        assert_eq!(c.hystart_exits, 1);
    }
}
