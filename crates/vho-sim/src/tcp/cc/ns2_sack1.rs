//! ns-2.35's `Agent/TCP/Sack1` window rules (tcp.cc `opencwnd`/`slowdown`, tcp-sack1.cc), for
//! the `ns2` profile: NewReno's recovery point, but ns-2's own arithmetic.
//!
//! - A loss halves `windowd() = min(cwnd_, window_)` with `precisionReduce_ 1` (ns-2.35's
//!   default): `cwnd_ = windowd() / 2` keeps its fraction of a packet, while
//!   `ssthresh_ = int(windowd() / 2)` is whole packets, at least 2 (`slowdown`,
//!   `CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF`). The sender passes `min(cwnd, window_)` as the
//!   loss basis (`LossBasis::Ns2Window`).
//! - Nothing changes cwnd inside recovery, nor when it ends (`Sack1TcpAgent::recv`: the ACK
//!   that reaches `recover_` clears the scoreboard and leaves `cwnd_` as it is).
//! - A timeout sets `cwnd_ = 1` packet (`CLOSE_CWND_RESTART`, `wnd_restart_` 1) with the same
//!   ssthresh rule.

use super::{CongestionControl, RecoveryStyle, Window};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Ns2Sack1 {
    pub w: Window,
}

impl Ns2Sack1 {
    /// `ssthresh_ = int(windowd() / 2)` in packets, at least 2.
    fn halve_whole_packets(&mut self, window: u32) {
        let mss = self.w.mss.max(1);
        self.w.ssthresh = (window / 2 / mss).max(2) * mss;
    }
}

impl CongestionControl for Ns2Sack1 {
    fn cwnd(&self) -> u32 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, _now: Time, acked: u32, _flight: u32) {
        self.w.grow(acked);
    }
    fn on_fast_retransmit(&mut self, _now: Time, window: u32, _style: RecoveryStyle) {
        self.halve_whole_packets(window);
        self.w.cwnd = (window / 2).max(self.w.mss);
    }
    fn set_window(&mut self, cwnd: u32, ssthresh: u32) {
        self.w.set(cwnd, ssthresh);
    }
    fn on_rto_keeping_ssthresh(&mut self, _now: Time) {
        self.w.cwnd = self.w.mss; // RFC 5681 §3.1: LW = 1 SMSS
    }
    fn on_rto(&mut self, _now: Time, window: u32) {
        self.halve_whole_packets(window);
        self.w.cwnd = self.w.mss;
    }
    fn waits_for_recovery_point(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_halves_cwnd_with_its_fraction_and_ssthresh_in_whole_packets() {
        // ns-2.35 trace (benches/ns2/dk_wlan_gprs.tcl, window_ 40, 2 MB, delay-4 at 0.8 s):
        // cwnd_ 23.506 before the third duplicate ACK, then ssthresh_ 11 and cwnd_ 11.753.
        let mss = 1460;
        let before = 23 * mss + 739; // 23.506 packets
        let mut c = Ns2Sack1 {
            w: Window::new(mss, before, u32::MAX),
        };
        c.on_fast_retransmit(Time::ZERO, before, RecoveryStyle::Pipe);
        assert_eq!((c.ssthresh(), c.cwnd()), (11 * mss, before / 2));
        // Recovery ends with cwnd as it was (Sack1TcpAgent::recv).
        c.on_recovery_exit(0);
        assert_eq!(c.cwnd(), before / 2);
        // A timeout: one packet, ssthresh int(windowd / 2) and at least 2.
        c.on_rto(Time::ZERO, 3 * mss);
        assert_eq!((c.ssthresh(), c.cwnd()), (2 * mss, mss));
    }
}
