//! NewReno (RFC 6582): Reno whose fast recovery lasts until the recovery point is
//! acknowledged; partial ACKs deflate the window and keep recovering.

use super::reno::{fast_retransmit, rto};
use super::{CongestionControl, RecoveryStyle, Window};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct NewReno {
    pub w: Window,
}

impl CongestionControl for NewReno {
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
        // RFC 6582 §3.2 step 4: inflate by SMSS per additional duplicate ACK.
        if style == RecoveryStyle::Inflate {
            self.w.cwnd += self.w.mss;
        }
    }
    fn on_partial_ack(&mut self, acked: u32, style: RecoveryStyle) {
        // RFC 6582 §3.2 step 5: deflate by the amount of new data acknowledged, then add
        // back SMSS if that amount was at least SMSS.
        if style == RecoveryStyle::Inflate {
            self.w.cwnd = self.w.cwnd.saturating_sub(acked);
            if acked >= self.w.mss {
                self.w.cwnd += self.w.mss;
            }
            self.w.cwnd = self.w.cwnd.max(self.w.mss);
        }
    }
    fn on_recovery_exit(&mut self, flight: u32) {
        // RFC 6582 §3.2 step 6 option (1): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
        self.w.cwnd = self.w.ssthresh.min(flight.max(self.w.mss) + self.w.mss);
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
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_ack_deflates_by_the_acked_amount_plus_one_mss() {
        // RFC 6582 §3.2 step 5: cwnd 8000, a partial ACK of 2000 bytes -> 8000 - 2000 + 1000.
        let mut n = NewReno {
            w: Window::new(1000, 10_000, u32::MAX),
        };
        n.on_fast_retransmit(Time::ZERO, 10_000, RecoveryStyle::Inflate);
        n.on_partial_ack(2000, RecoveryStyle::Inflate);
        assert_eq!(n.cwnd(), 7000);
        assert!(n.waits_for_recovery_point());
    }

    #[test]
    fn full_ack_sets_cwnd_to_min_of_ssthresh_and_flight_plus_mss() {
        // RFC 6582 §3.2 step 6 (1): ssthresh 5000, FlightSize 2000 -> cwnd 3000.
        let mut n = NewReno {
            w: Window::new(1000, 10_000, u32::MAX),
        };
        n.on_fast_retransmit(Time::ZERO, 10_000, RecoveryStyle::Inflate);
        n.on_recovery_exit(2000);
        assert_eq!(n.cwnd(), 3000);
    }
}
