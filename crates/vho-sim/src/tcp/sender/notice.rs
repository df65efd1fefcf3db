//! The handover notification at the sender (issue 19): what `rto_reset`, `new_path`,
//! `rtt_injection` and `adaptive_dupthresh` do when the mobile announces a handover.

use super::*;
use crate::tcp::segment::RateChange;

impl TcpSender {
    /// A handover notification (issue 19): the option on an ACK from the mobile, or the
    /// mobile's own handover manager when this sender runs there. What it does is the
    /// remedies' (`rto_reset`, `new_path`); without them nothing.
    pub fn notify_handover(&mut self, now: Time, notice: HandoverNotice) {
        self.stats.handover_notices += 1;
        // What was measured on the interface left, for `rtt_injection` on a return to it.
        if self.rtt.has_sample() {
            let measured = (self.rtt.srtt(), self.rtt.rttvar());
            if let Some(slot) = self.rtt_by_interface.get_mut(usize::from(notice.from)) {
                *slot = Some(measured);
            }
        }
        if self.cfg.adaptive_dupthresh && notice.rate == RateChange::Faster {
            // Daniel & Kojo §2: segments on the old, slower path will be overtaken (the rule:
            // `tcp::dupthresh`).
            let flight = self.snd_max - self.snd_una;
            self.dupthresh
                .on_faster_link(flight, self.neg.mss, self.snd_max);
        }
        if !(self.cfg.rto_reset || self.cfg.new_path || self.cfg.rtt_injection) {
            return;
        }
        if self.cfg.rto_reset || self.cfg.new_path {
            self.reset_for_new_path(now);
        }
        if self.cfg.rtt_injection {
            self.inject_rtt(now, notice.to);
        }
    }

    /// How many notifications raised the duplicate-ACK threshold (`adaptive_dupthresh`).
    pub fn dupthresh_raises(&self) -> u64 {
        self.dupthresh.raised_count()
    }

    /// The duplicate-ACK threshold in force.
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh.get()
    }

    /// Cottingham & Vidales §7: "allow a 'guessed' value for the new interface's RTT to be
    /// injected into TCP's estimation of the RTT ... the last RTT seen on that particular type
    /// of interface, possibly with a small fraction added on for safety". With no RTT
    /// recorded for the interface (the first visit), nothing is injected.
    pub(super) fn inject_rtt(&mut self, now: Time, to: u8) {
        let Some(Some((srtt, rttvar))) = self.rtt_by_interface.get(usize::from(to)).copied() else {
            self.stats.rtt_injections_without_hint += 1;
            return;
        };
        let r = srtt + Dur(srtt.as_nanos() * RTT_INJECTION_MARGIN_PERCENT / 100);
        self.rtt.inject(r, rttvar.max(Dur(r.as_nanos() / 2)));
        self.stats.rtt_injections += 1;
        if self.timers.is_running(Timer::Retransmit) {
            self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        }
    }

    /// `rto_reset` and `new_path` on a notification.
    pub(super) fn reset_for_new_path(&mut self, now: Time) {
        // Thesis §8.1: "reset the RTO value after a handover to an initial value", and the
        // estimate it came from, so that the first sample on the new path sets it afresh
        // (RFC 6298 (2.2)); a running timer restarts with it.
        self.rtt.reset();
        self.timed = None;
        if self.timers.is_running(Timer::Retransmit) {
            self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        }
        if self.cfg.new_path {
            // Thesis §7.1.5 / Daniel & Kojo §8: "treated as a new connection": the initial
            // window and ssthresh, no duplicate ACKs counted from the old path.
            let iw = self.cfg.initial_window_segments.max(1) * self.neg.mss;
            self.cc.set_window(iw, self.cfg.initial_ssthresh);
            self.dupacks = 0;
        }
    }
}
