//! Reno (RFC 5681 §3.1–3.2): slow start, congestion avoidance, fast retransmit and fast
//! recovery with window inflation; recovery ends on the first ACK of new data.

use super::{CongestionControl, RecoveryStyle, Window};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Reno {
    pub w: Window,
}

/// The RFC 5681 window rules shared by Reno and NewReno.
pub(super) fn fast_retransmit(w: &mut Window, flight: u32, style: RecoveryStyle) {
    // RFC 5681 §3.2 step 2: ssthresh = max(FlightSize/2, 2*SMSS) (eq. 4).
    w.halve(flight);
    w.cwnd = match style {
        // Step 3: cwnd = ssthresh + 3*SMSS, "inflating" by the segments that left the network.
        RecoveryStyle::Inflate => w.ssthresh + 3 * w.mss,
        // RFC 6675 §5 step (4.2): cwnd = ssthresh.
        RecoveryStyle::Pipe => w.ssthresh,
    };
}

pub(super) fn rto(w: &mut Window, flight: u32) {
    // RFC 5681 §3.1: ssthresh per eq. (4); cwnd = LW = 1 SMSS.
    w.halve(flight);
    w.cwnd = w.mss;
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> u32 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, _now: Time, acked: u32, _flight: u32) {
        self.w.grow(acked);
    }
    fn on_fast_retransmit(&mut self, _now: Time, flight: u32, style: RecoveryStyle) {
        fast_retransmit(&mut self.w, flight, style);
    }
    fn on_dupack_in_recovery(&mut self, style: RecoveryStyle) {
        // RFC 5681 §3.2 step 4: cwnd += SMSS per additional duplicate ACK.
        if style == RecoveryStyle::Inflate {
            self.w.cwnd += self.w.mss;
        }
    }
    fn on_recovery_exit(&mut self, _flight: u32) {
        // RFC 5681 §3.2 step 6: deflate to ssthresh.
        self.w.cwnd = self.w.ssthresh;
    }
    fn set_window(&mut self, cwnd: u32, ssthresh: u32) {
        self.w.set(cwnd, ssthresh);
    }
    fn on_rto_keeping_ssthresh(&mut self, _now: Time) {
        self.w.cwnd = self.w.mss; // RFC 5681 §3.1: LW = 1 SMSS
    }
    fn on_rto(&mut self, _now: Time, flight: u32) {
        rto(&mut self.w, flight);
    }
    fn waits_for_recovery_point(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_one_mss_per_ack_then_about_one_per_window() {
        // RFC 5681 §3.1: slow start cwnd += min(N, SMSS); congestion avoidance
        // cwnd += SMSS*SMSS/cwnd per ACK.
        let mut r = Reno {
            w: Window::new(1000, 2000, 4000),
        };
        r.on_ack(Time::ZERO, 1000, 0);
        r.on_ack(Time::ZERO, 2000, 0);
        assert_eq!(r.cwnd(), 4000);
        for _ in 0..4 {
            r.on_ack(Time::ZERO, 1000, 0);
        }
        // Four ACKs in congestion avoidance, by hand, the fraction carried:
        // 4000 + 250 = 4250; + 235.294 = 4485.294; + 222.965 = 4708.259; + 212.404 = 4920.663.
        assert_eq!(r.cwnd(), 4920);
    }

    #[test]
    fn congestion_avoidance_opens_whole_segments_when_ns2_does() {
        // RFC 5681 eq. (3), cwnd += SMSS*SMSS/cwnd per ACK, is ns-2.35's opencwnd
        // (`cwnd_ += increase_num_ / cwnd_`, segments in a double; tcp.cc) in bytes. The
        // number of whole segments the window allows must be ns-2's after every ACK, over
        // 2,000 ACKs from 20 segments (truncating the division fell behind from 21 on).
        let mss = 1460;
        let mut r = Reno {
            w: Window::new(mss, 20 * mss, 2 * mss),
        };
        let mut ns2 = 20.0f64;
        for ack in 0..2000 {
            r.on_ack(Time::ZERO, mss, 0);
            ns2 += 1.0 / ns2;
            assert_eq!(r.cwnd() / mss, ns2 as u32, "after ACK {ack}");
        }
    }

    #[test]
    fn fast_retransmit_halves_flight_and_inflates() {
        // RFC 5681 §3.2 steps 2-4 with FlightSize 10 segments.
        let mut r = Reno {
            w: Window::new(1000, 10_000, u32::MAX),
        };
        r.on_fast_retransmit(Time::ZERO, 10_000, RecoveryStyle::Inflate);
        assert_eq!((r.ssthresh(), r.cwnd()), (5000, 8000));
        r.on_dupack_in_recovery(RecoveryStyle::Inflate);
        assert_eq!(r.cwnd(), 9000);
        r.on_recovery_exit(0);
        assert_eq!(r.cwnd(), 5000);
    }

    #[test]
    fn timeout_sets_loss_window_and_halves_flight() {
        // RFC 5681 §3.1: after an RTO, cwnd = 1 SMSS and ssthresh = max(FlightSize/2, 2 SMSS).
        let mut r = Reno {
            w: Window::new(1000, 10_000, u32::MAX),
        };
        r.on_rto(Time::ZERO, 3000);
        assert_eq!((r.ssthresh(), r.cwnd()), (2000, 1000));
    }
}
