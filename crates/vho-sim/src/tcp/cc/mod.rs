//! Congestion control behind one trait (RFC 5681 and RFC 6582).
//!
//! A controller owns `cwnd` and `ssthresh` (bytes). The sender tells it what happened through
//! hooks with explicit arguments; every hook does nothing by default. Loss *recovery* (which
//! segment to retransmit, the SACK pipe) is the sender's and `sack.rs`'s business, not the
//! controller's. [`AnyController`] dispatches statically, so a flow owns its controller by
//! value.

pub mod cubic;
pub mod hystart;
pub mod newreno;
pub mod ns2_sack1;
pub mod reno;

use super::config::{CcAlgorithm, CwndCounting};
use super::rtt_linux::Flight;
use crate::time::{Dur, Time};

/// How a fast recovery episode sets the window (RFC 5681 §3.2 vs RFC 6675 §5).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RecoveryStyle {
    /// cwnd = ssthresh + 3·SMSS, inflated by one SMSS per further duplicate ACK.
    Inflate,
    /// cwnd = ssthresh; the SACK pipe governs what is sent.
    Pipe,
}

pub trait CongestionControl {
    fn cwnd(&self) -> u32;
    fn ssthresh(&self) -> u32;
    /// New data was cumulatively acknowledged outside recovery.
    fn on_ack(&mut self, _now: Time, _acked: u32, _flight: u32) {}
    /// A valid RTT sample `rtt` on an ACK, SRTT being `srtt` after it (Linux's
    /// `pkts_acked` hook: CUBIC's minimum delay and HyStart), before `on_ack`.
    fn on_rtt_sample(&mut self, _now: Time, _rtt: Dur, _srtt: Dur, _flight: Flight) {}
    /// Entering fast recovery on the duplicate-ACK threshold.
    fn on_fast_retransmit(&mut self, _now: Time, _flight: u32, _style: RecoveryStyle) {}
    /// A further duplicate ACK during recovery.
    fn on_dupack_in_recovery(&mut self, _style: RecoveryStyle) {}
    /// A partial ACK during recovery acknowledged `acked` bytes (RFC 6582 §3.2 step 5).
    fn on_partial_ack(&mut self, _acked: u32, _style: RecoveryStyle) {}
    /// The ACK that ends fast recovery.
    fn on_recovery_exit(&mut self, _flight: u32) {}
    /// The retransmission timer expired (RFC 5681 §3.1 eq. 4, loss window).
    fn on_rto(&mut self, _now: Time, _flight: u32) {}
    /// The timer expired again before ssthresh may be reduced again (RFC 5681 §3.1: the
    /// timer's own retransmission timed out; Linux's tcp_enter_loss in Loss or Recovery):
    /// the loss window only.
    fn on_rto_keeping_ssthresh(&mut self, _now: Time);
    /// Sets the window outright, for what RFC 5681's events do not cover: the response to a
    /// spurious timeout (`tcp::spurious::response`), F-RTO's caps on cwnd.
    fn set_window(&mut self, cwnd: u32, ssthresh: u32);
    /// Whether a new (non-partial) ACK ends recovery: NewReno waits for the recovery point,
    /// Reno leaves on the first new ACK.
    fn waits_for_recovery_point(&self) -> bool;
}

/// Fraction bits of the byte kept between congestion-avoidance increments (see `grow`).
const CA_FRACTION_BITS: u32 = 16;

/// Shared state of the RFC 5681 family.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub mss: u32,
    pub cwnd: u32,
    pub ssthresh: u32,
    /// What eq. (3)'s division left over, in 2^-16 bytes, and the cwnd it belongs to: a
    /// cwnd set by anything but `grow` (a halving, a timeout) starts with no fraction.
    ca_fraction: u64,
    ca_fraction_of: u32,
    /// Linux's counting ([`CwndCounting::Linux`]) and its `snd_cwnd_cnt`: segments
    /// acknowledged towards the next +1 in congestion avoidance.
    linux: bool,
    cwnd_cnt: u32,
}

impl Window {
    pub fn new(mss: u32, initial_cwnd: u32, ssthresh: u32) -> Self {
        Window {
            mss,
            cwnd: initial_cwnd,
            ssthresh,
            ca_fraction: 0,
            ca_fraction_of: initial_cwnd,
            linux: false,
            cwnd_cnt: 0,
        }
    }

    /// The same window, growing as `counting` says.
    pub fn counting(mut self, counting: CwndCounting) -> Self {
        self.linux = counting == CwndCounting::Linux;
        self
    }

    /// Sets the window outright (a response to a spurious timeout); cwnd at least one
    /// segment, ssthresh at least two (RFC 5681 eq. (4)'s floor).
    pub fn set(&mut self, cwnd: u32, ssthresh: u32) {
        self.cwnd = cwnd.max(self.mss);
        self.ssthresh = ssthresh.max(2 * self.mss);
    }

    /// RFC 5681 §3.1: slow start adds at most SMSS per ACK; congestion avoidance about SMSS
    /// per RTT (cwnd += SMSS*SMSS/cwnd per ACK, eq. 3).
    ///
    /// Eq. (3)'s division keeps its remainder: truncating it to whole bytes loses up to one
    /// byte per ACK (SMSS/cwnd-in-segments: 69.52 -> 69 at 21 segments), so cwnd reached the
    /// next segment an ACK or more after ns-2.35 (`cwnd_ += increase_num_ / cwnd_` in
    /// doubles, tcp.cc opencwnd) and Linux (`snd_cwnd_cnt`, a whole segment after cwnd ACKs)
    /// both do. benches/ns2_daniel_kojo.py found it with a 40-packet window: a segment sent
    /// one GPRS ACK interval (120 ms) late in congestion avoidance.
    pub fn grow(&mut self, acked: u32) {
        if self.cwnd != self.ca_fraction_of {
            self.ca_fraction = 0;
            self.cwnd_cnt = 0;
        }
        if self.linux {
            return self.grow_linux(acked);
        }
        if self.cwnd < self.ssthresh {
            self.cwnd = self.cwnd.saturating_add(acked.min(self.mss));
        } else {
            let scaled = ((self.mss as u64 * self.mss as u64) << CA_FRACTION_BITS)
                / self.cwnd.max(1) as u64
                + self.ca_fraction;
            // RFC 5681 eq. (3)'s "at least one byte" is met over ACKs: the fraction carries.
            let inc = (scaled >> CA_FRACTION_BITS).min(u32::MAX as u64) as u32;
            self.ca_fraction = scaled & ((1 << CA_FRACTION_BITS) - 1);
            self.cwnd = self.cwnd.saturating_add(inc);
        }
        self.ca_fraction_of = self.cwnd;
    }

    /// Linux's `tcp_reno_cong_avoid` in segments (see [`CwndCounting::Linux`]): `acked` bytes
    /// are whole segments acknowledged (a partial one counts as one, as Linux counts
    /// packets); cwnd is kept a whole number of segments.
    fn grow_linux(&mut self, acked: u32) {
        let mss = self.mss.max(1);
        let mut segs = acked.div_ceil(mss);
        let mut cwnd = (self.cwnd / mss).max(1);
        let ssthresh = self.ssthresh / mss;
        if cwnd < ssthresh {
            // tcp_slow_start: cwnd = min(cwnd + acked, ssthresh); the rest carries on.
            let grown = cwnd.saturating_add(segs).min(ssthresh);
            segs -= grown - cwnd;
            cwnd = grown;
        }
        if segs > 0 {
            // tcp_cong_avoid_ai(tp, w = cwnd, acked).
            let w = cwnd;
            if self.cwnd_cnt >= w {
                self.cwnd_cnt = 0;
                cwnd += 1;
            }
            self.cwnd_cnt += segs;
            if self.cwnd_cnt >= w {
                let delta = self.cwnd_cnt / w;
                self.cwnd_cnt -= delta * w;
                cwnd += delta;
            }
        }
        self.cwnd = cwnd.saturating_mul(mss);
        self.ca_fraction_of = self.cwnd;
    }

    /// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
    pub fn halve(&mut self, flight: u32) {
        self.ssthresh = (flight / 2).max(2 * self.mss);
    }
}

#[derive(Clone, Debug)]
pub enum AnyController {
    Reno(reno::Reno),
    NewReno(newreno::NewReno),
    Ns2Sack1(ns2_sack1::Ns2Sack1),
    Cubic(cubic::Cubic),
}

impl AnyController {
    pub fn new(algo: CcAlgorithm, w: Window) -> Self {
        match algo {
            CcAlgorithm::Reno => AnyController::Reno(reno::Reno { w }),
            CcAlgorithm::NewReno => AnyController::NewReno(newreno::NewReno { w }),
            CcAlgorithm::Ns2Sack1 => AnyController::Ns2Sack1(ns2_sack1::Ns2Sack1 { w }),
            CcAlgorithm::Cubic => AnyController::Cubic(cubic::Cubic::new(w)),
        }
    }
}

/// Calls the same method on whichever controller it is: a `match` per call, which the
/// compiler inlines (returning `&dyn CongestionControl` from a `match` did not, and every
/// `cwnd()` was an indirect call: 1 % of a run by `perf`).
macro_rules! each {
    ($self:ident, $c:ident => $call:expr) => {
        match $self {
            AnyController::Reno($c) => $call,
            AnyController::NewReno($c) => $call,
            AnyController::Ns2Sack1($c) => $call,
            AnyController::Cubic($c) => $call,
        }
    };
}

impl CongestionControl for AnyController {
    #[inline]
    fn cwnd(&self) -> u32 {
        each!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> u32 {
        each!(self, c => c.ssthresh())
    }
    #[inline(always)]
    fn on_ack(&mut self, now: Time, acked: u32, flight: u32) {
        each!(self, c => c.on_ack(now, acked, flight))
    }
    #[inline]
    fn on_rtt_sample(&mut self, now: Time, rtt: Dur, srtt: Dur, flight: Flight) {
        if let AnyController::Cubic(c) = self {
            c.on_rtt_sample(now, rtt, srtt, flight);
        }
    }
    fn on_fast_retransmit(&mut self, now: Time, flight: u32, style: RecoveryStyle) {
        each!(self, c => c.on_fast_retransmit(now, flight, style))
    }
    fn on_dupack_in_recovery(&mut self, style: RecoveryStyle) {
        each!(self, c => c.on_dupack_in_recovery(style))
    }
    fn on_partial_ack(&mut self, acked: u32, style: RecoveryStyle) {
        each!(self, c => c.on_partial_ack(acked, style))
    }
    fn on_recovery_exit(&mut self, flight: u32) {
        each!(self, c => c.on_recovery_exit(flight))
    }
    fn on_rto(&mut self, now: Time, flight: u32) {
        each!(self, c => c.on_rto(now, flight))
    }
    fn on_rto_keeping_ssthresh(&mut self, now: Time) {
        each!(self, c => c.on_rto_keeping_ssthresh(now))
    }
    fn set_window(&mut self, cwnd: u32, ssthresh: u32) {
        each!(self, c => c.set_window(cwnd, ssthresh))
    }
    fn waits_for_recovery_point(&self) -> bool {
        each!(self, c => c.waits_for_recovery_point())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn linux(cwnd_segs: u32, ssthresh_segs: u32) -> Window {
        Window::new(MSS, cwnd_segs * MSS, ssthresh_segs * MSS).counting(CwndCounting::Linux)
    }

    /// Linux's tcp_slow_start (net/ipv4/tcp_cong.c): cwnd = min(cwnd + acked, ssthresh),
    /// what the ACK has left over goes to tcp_cong_avoid_ai.
    #[test]
    fn linux_slow_start_adds_a_segment_per_segment_acked_up_to_ssthresh() {
        let mut w = linux(10, 12);
        w.grow(2 * MSS);
        assert_eq!(w.cwnd, 12 * MSS);
        let mut w = linux(10, 12);
        w.grow(4 * MSS); // 2 to reach ssthresh, 2 counted towards the next +1
        assert_eq!((w.cwnd, w.cwnd_cnt), (12 * MSS, 2));
        // With ACKs for every second segment (RFC 1122 §4.2.3.2), a window of 10 doubles in
        // one round; RFC 5681's min(N, SMSS) per ACK (eq. 2) makes it 15.
        let (mut lx, mut rfc) = (linux(10, 1000), Window::new(MSS, 10 * MSS, 1000 * MSS));
        for _ in 0..5 {
            lx.grow(2 * MSS);
            rfc.grow(2 * MSS);
        }
        assert_eq!((lx.cwnd, rfc.cwnd), (20 * MSS, 15 * MSS));
    }

    /// tcp_cong_avoid_ai(tp, w = cwnd, acked): +1 once cwnd segments have been acknowledged,
    /// however many ACKs carried them; RFC 5681 eq. (3) adds SMSS*SMSS/cwnd per ACK.
    #[test]
    fn linux_congestion_avoidance_adds_one_segment_per_window_acknowledged() {
        let (mut lx, mut rfc) = (linux(10, 5), Window::new(MSS, 10 * MSS, 5 * MSS));
        for i in 1..=5 {
            lx.grow(2 * MSS);
            rfc.grow(2 * MSS);
            let expected = if i < 5 { 10 } else { 11 };
            assert_eq!(lx.cwnd, expected * MSS, "ACK {i}");
        }
        assert_eq!(lx.cwnd_cnt, 0);
        // RFC 5681: 10^6/cwnd per ACK, 100 + 99 + 98 + 97 + 96: about half a segment.
        assert_eq!(rfc.cwnd, 10_490);
        // A stretch ACK of 25 segments at cwnd 10: two whole windows, 5 carried.
        let mut lx = linux(10, 5);
        lx.grow(25 * MSS);
        assert_eq!((lx.cwnd, lx.cwnd_cnt), (12 * MSS, 5));
        // A cwnd set from outside (a halving) starts counting afresh.
        lx.set(6 * MSS, 6 * MSS);
        lx.grow(MSS);
        assert_eq!((lx.cwnd, lx.cwnd_cnt), (6 * MSS, 1));
    }
}
