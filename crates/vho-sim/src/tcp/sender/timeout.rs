//! Timeouts: the retransmission timer's expiry (RFC 6298 (5.4)-(5.6), RFC 5681 §3.1), and what
//! a loss halves into ssthresh ([`LossBasis`]).

use super::{ts_clock, Recovery, State, TcpSender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::{FrtoVariant, LossBasis, TimeoutSsthresh};
use crate::tcp::segment::TxKind;
use crate::tcp::spurious::dsack::EpisodeKind;
use crate::tcp::spurious::frto::Frto;
use crate::tcp::timer::Timer;
use crate::time::Time;

impl TcpSender {
    /// What a loss halves into ssthresh (see [`LossBasis`]).
    pub(super) fn loss_basis(&self) -> u32 {
        match self.cfg.loss_basis {
            LossBasis::FlightSize => self.snd_max - self.snd_una,
            // min(cwnd_, window_) (tcp.cc slowdown, windowd()); the controller halves it.
            LossBasis::Ns2Window => self.cc.cwnd().min(self.cfg.send_window_cap),
            LossBasis::LinuxCwnd => {
                // snd_cwnd >> 1 in packets; the controller halves what it is given.
                let mss = self.cfg.mss.max(1);
                self.cc.cwnd() / mss / 2 * 2 * mss
            }
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        self.pacing_wake_fired(now);
        if !self.timers.expired(Timer::Retransmit, now) {
            return;
        }
        if self.cfg.tlp && self.tlp_timer_due() {
            self.tlp_fire(now);
            return;
        }
        if self.rack.is_some() && self.reorder_timer_due() {
            self.rack_reo_timeout(now);
            return;
        }
        if self.state == State::Oracle {
            // The oracle's wake-up (pacing, a repair falling due), not a timeout: what it
            // sends, `poll_transmit` decides.
            self.timers.stop(Timer::Retransmit);
            return;
        }
        self.rtt.on_rto(); // RFC 6298 (5.5)
        match self.state {
            State::Listen => self.timers.stop(Timer::Retransmit),
            State::SynReceived => {
                self.send_synack = true;
                self.syn_lost = true;
                self.timed = None; // Karn
                self.timers.set(Timer::Retransmit, now + self.rtt.rto());
            }
            State::OneWaySyn => {
                // ns-2.35 TcpAgent::timeout: the SYN is timed out like data, so slowdown(
                // CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) with cwnd_ 1 (set_initial_window:
                // syn_ and delay_growth_) gives ssthresh_ 2 and cwnd_ 1; and with bugfix_ss_
                // ("first packet dropped, so don't use larger initial windows", tcp.cc) the
                // window once the SYN is acknowledged, initial_window(), is 1 (RFC 5681 §3.1).
                self.cc.on_rto(now, self.neg.mss);
                self.send_syn = true;
                self.timed = None; // Karn
                self.timers.set(Timer::Retransmit, now + self.rtt.rto());
            }
            State::Established => self.on_rto(now),
            State::Oracle => {}
        }
    }

    /// RFC 6298 (5.4)–(5.6) and RFC 5681 §3.1: retransmit the earliest unacknowledged
    /// segment, loss window, go back to SND.UNA.
    pub(super) fn on_rto(&mut self, now: Time) {
        if self.snd_una >= self.snd_max {
            self.timers.stop(Timer::Retransmit);
            return;
        }
        self.stats.timeouts += 1;
        self.tlp_end_episode();
        let starts_recovery = !matches!(
            self.recovery,
            Recovery::Timeout { una_at_rto, .. } if una_at_rto == self.snd_una
        );
        // RFC 5682 §3.1 step 1: not while loss recovery is under way (RecoveryPoint at or
        // above SND.UNA): then the conventional recovery goes on. Except, as Linux does
        // (tcp_enter_loss: `tp->frto = ... (new_recovery || icsk->icsk_retransmits)`), when
        // the timer's own retransmission times out again while F-RTO waits for its ACK: F-RTO
        // starts over, and the state before the first timeout is what a response restores
        // (Linux 2.6.22 "Consecutive RTOs keep prior_ssthresh": all such timeouts are
        // spurious together or none is).
        let frto_may_start = match self.recovery {
            Recovery::Open => true,
            Recovery::Fast { .. } => false,
            Recovery::Timeout { recover, .. } => {
                recover < self.snd_una || (self.frto.is_some() && !starts_recovery)
            }
        };
        self.frto = None;
        self.frto_credit = 0;
        let d = self.cfg.spurious_detection;
        let linux_undo = self.linux_undo();
        if linux_undo {
            self.undo_at_timeout();
        }
        if d.any() && !linux_undo {
            // A recovery that joins RFC 3708's running episode keeps that episode's state
            // before its first reduction, unless a detector has already answered for it
            // (the response took it): then this timeout's own state is kept.
            if starts_recovery && (self.spurious.prior.is_none() || !self.dsack_joins()) {
                self.keep_prior();
            }
            if d.dsack {
                let (una, max) = (self.snd_una, self.snd_max);
                self.spurious
                    .dsack
                    .on_episode_start(una, max, EpisodeKind::Timeout);
            }
            if d.eifel && self.neg.timestamps && starts_recovery {
                self.spurious.eifel.on_recovery_start(ts_clock(now));
            }
            if d.frto && frto_may_start {
                self.frto = Some(match self.cfg.frto_variant {
                    FrtoVariant::Rfc5682 => Frto::start(),
                    FrtoVariant::Linux => Frto::start_linux(),
                });
                self.frto_retx_end = self.snd_una + self.seg_len(self.snd_una);
            }
        }
        if linux_undo && d.frto && frto_may_start {
            self.frto = Some(match self.cfg.frto_variant {
                FrtoVariant::Rfc5682 => Frto::start(),
                FrtoVariant::Linux => Frto::start_linux(),
            });
            self.frto_retx_end = self.snd_una + self.seg_len(self.snd_una);
        }
        if let Some(r) = &mut self.rack {
            // tcp_enter_loss: the reordering degree check, then tcp_timeout_mark_lost.
            if self.recovery == Recovery::Open {
                r.on_rto_in_open();
            }
            r.on_rto(now);
        }
        let basis = self.loss_basis();
        if self.reduces_ssthresh_at_rto() {
            self.cc.on_rto(now, basis);
        } else {
            self.cc.on_rto_keeping_ssthresh(now);
        }
        self.recover = self.snd_max;
        self.recovery = Recovery::Timeout {
            recover: self.snd_max,
            una_at_rto: self.snd_una,
        };
        if !(self.neg.sack && self.cfg.rto_keeps_sack) {
            // ns-2's Sack1 forgets the scoreboard (ClearScoreBoard); RFC 2018 §8 allowed it.
            self.sb.clear();
        }
        self.sb.high_rxt = self.snd_una;
        self.sb.clear_retransmitted(); // tcp_timeout_mark_lost: every retransmission lost
        self.dupacks = 0;
        self.snd_nxt = self.snd_una;
        self.timed = None; // Karn
        self.retransmits = true;
        self.pending_rtx = Some((self.snd_una, TxKind::RetransmitTimeout));
        self.timers.set(Timer::Retransmit, now + self.rtt.rto());
    }

    /// `tcp_enter_loss` with `UndoRules::Linux`: a timeout that reduces anew keeps the state
    /// before it and starts an undo episode (`tcp_init_undo`); one that does not joins the
    /// episode under way. "Timeout in disordered state after receiving substantial DUPACKs
    /// suggests that the degree of reordering is over-estimated": the reordering degree goes
    /// back to `net.ipv4.tcp_reordering` when as many segments are SACKed outside recovery.
    fn undo_at_timeout(&mut self) {
        if self.reduces_ssthresh_at_rto() {
            self.keep_prior();
            self.undo.init(self.snd_una, EpisodeKind::Timeout);
        } else {
            self.undo.on_joining_timeout();
        }
        let base = self.cfg.dupthresh;
        if self.recovery == Recovery::Open
            && self.dupthresh.base() > base
            && self.sb.sacked_between(self.snd_una, self.snd_max) >= base * self.neg.mss
        {
            self.dupthresh.on_timeout_in_disorder(base);
        }
    }

    /// Whether this timeout sets a new ssthresh (see [`TimeoutSsthresh`]).
    pub(super) fn reduces_ssthresh_at_rto(&self) -> bool {
        match (self.cfg.timeout_ssthresh, self.recovery) {
            (TimeoutSsthresh::Always, _) => true,
            // RFC 5681 §3.1: held when the segment the timer retransmitted times out again.
            (TimeoutSsthresh::Rfc5681, Recovery::Timeout { una_at_rto, .. }) => {
                self.snd_una != una_at_rto
            }
            (TimeoutSsthresh::Rfc5681, _) => true,
            // tcp_enter_loss: Open, or the last recovery point reached, or (in Loss) an ACK
            // since the last timeout reset icsk_retransmits.
            (TimeoutSsthresh::Linux, Recovery::Open) => true,
            (TimeoutSsthresh::Linux, Recovery::Fast { recover, .. }) => self.snd_una >= recover,
            (
                TimeoutSsthresh::Linux,
                Recovery::Timeout {
                    recover,
                    una_at_rto,
                },
            ) => self.snd_una >= recover || self.snd_una != una_at_rto,
        }
    }
}
