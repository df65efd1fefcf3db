//! Loss recovery at the sender: duplicate ACKs and fast retransmit (RFC 5681 §3.2, RFC 6582),
//! and what is sent during SACK recovery (RFC 6675 §5, or ns-2's Sack1).

use super::*;

impl TcpSender {
    pub(super) fn on_dupack(&mut self, now: Time) {
        match self.recovery {
            Recovery::Open => {
                self.dupacks += 1;
                if self.rack.is_some() {
                    // tcp_time_to_recover with RACK: only a segment marked lost starts
                    // recovery (`rack_after_ack`); duplicate ACKs are not counted for it.
                    return;
                }
                let sack_says_lost = self.neg.sack
                    && self.cfg.sack_is_lost_trigger
                    && self
                        .sb
                        .is_lost(self.snd_una, self.neg.mss, self.dupthresh.get());
                // RFC 5681 §3.2 step 2 on the DupThresh-th duplicate ACK (RFC 6675 §5 also
                // on IsLost(HighACK + 1)); RFC 6582 §3.2 step 1: only if the cumulative ACK
                // covers more than `recover`.
                if (self.dupacks == self.dupthresh.get() || sack_says_lost) && self.may_recover() {
                    self.enter_fast_recovery(now);
                }
            }
            Recovery::Fast { .. } => self.cc.on_dupack_in_recovery(self.style()),
            Recovery::Timeout { .. } => {}
        }
    }

    /// Whether the cumulative ACK is past the last recovery point, so that a new fast
    /// retransmit may start. RFC 6675 §5.1 (SACK): once HighACK >= RecoveryPoint, i.e. SND.UNA
    /// has reached `recover` (HighData + 1). RFC 6582 §3.2 step 1 (no SACK): once the ACK
    /// "covers more than recover" (SND.UNA > `recover`); ns-2's Sack1 likewise
    /// (`highest_ack_ > recover_`, tcp-sack1.cc dupack_action(), in packet numbers).
    pub(super) fn may_recover(&self) -> bool {
        if self.neg.sack && self.cfg.sack_recovery == SackRecovery::Rfc6675 {
            self.snd_una >= self.recover
        } else {
            self.snd_una > self.recover
        }
    }

    pub(super) fn enter_fast_recovery(&mut self, now: Time) {
        self.stats.fast_retransmits += 1;
        self.tlp_end_episode();
        if self.linux_undo() {
            // tcp_enter_recovery: prior_ssthresh (tcp_current_ssthresh) and prior_cwnd anew,
            // tcp_init_undo.
            self.keep_prior();
            self.undo.init(self.snd_una, EpisodeKind::FastRetransmit);
        } else if self.cfg.spurious_detection.dsack {
            if self.spurious.prior.is_none() || !self.dsack_joins() {
                self.keep_prior();
            }
            let (una, max) = (self.snd_una, self.snd_max);
            self.spurious
                .dsack
                .on_episode_start(una, max, EpisodeKind::FastRetransmit);
        }
        self.recover = self.snd_max;
        self.recovery = Recovery::Fast {
            recover: self.snd_max,
            partial_acks: 0,
            rescued: false,
        };
        match self.cfg.timer_at_fast_retransmit {
            FastRetransmitTimer::Keep => {}
            FastRetransmitTimer::Restart => {
                self.timers.set(Timer::Retransmit, now + self.rtt.rto());
            }
            FastRetransmitTimer::Ns2Reset => {
                self.timers.set(Timer::Retransmit, now + self.rtt.rto());
                self.timed = None; // rtt_active_ = 0
            }
        }
        if self.cfg.prr {
            // tcp_init_cwnd_reduction: prior_cwnd, prr_delivered = prr_out = 0.
            self.prr = Prr::start(self.cc.cwnd() / self.neg.mss.max(1));
        }
        let basis = self.loss_basis();
        self.cc.on_fast_retransmit(now, basis, self.style());
        self.sb.high_rxt = self.snd_una;
        // RACK: the first segment marked lost (tcp_xmit_retransmit_queue), the head otherwise,
        // unless its retransmission is still in flight (`retransmission_marks`: TCPCB_
        // SACKED_RETRANS; NextSeg then chooses).
        let first = match &self.rack {
            Some(_) => self.rack_first_lost(),
            None => (!self.sb.is_retransmitted(self.snd_una)).then_some(self.snd_una),
        };
        self.pending_rtx = first.map(|seq| (seq, TxKind::RetransmitFast));
        // tcp-sack1.cc dupack_action(): pipe_ = maxseq_ - highest_ack_ - numdupacks_ (the
        // packets outstanding less those the duplicate ACKs say have left).
        self.ns2_hold = self.ns2_sack1();
        let mss = self.neg.mss.max(1);
        self.ns2_pipe =
            (self.snd_max - self.snd_una).div_ceil(mss) as i64 - self.dupthresh.get() as i64;
    }

    pub(super) fn ns2_sack1(&self) -> bool {
        self.neg.sack && self.cfg.sack_recovery == SackRecovery::Ns2Sack1
    }

    /// RFC 6675 §5 step (C): while pipe < cwnd, send what NextSeg says (or ns-2's Sack1).
    pub(super) fn poll_sack_recovery(&mut self, now: Time) -> Option<Transmit> {
        if self.ns2_sack1() {
            return self.poll_ns2_sack1_recovery(now);
        }
        if self.rack.is_some() {
            return self.poll_rack_recovery(now);
        }
        let (mss, dt) = (self.neg.mss, self.dupthresh.get());
        if self.sb.pipe(self.snd_una, self.snd_max, mss, dt) + mss > self.cc.cwnd() {
            return None;
        }
        let can_new = self.snd_nxt < self.data_end && self.rwnd_allows(self.snd_nxt);
        match self
            .sb
            .next_seg(self.snd_una, self.snd_max, mss, dt, can_new)
        {
            Some(NextSeg::Retransmit(seq)) => {
                Some(self.send_at(now, seq, TxKind::RetransmitRecovery))
            }
            Some(NextSeg::New) => Some(self.send_at(now, self.snd_nxt, TxKind::New)),
            None => self.rescue(now),
        }
    }

    /// RFC 6675 §4 NextSeg rule (4): when rules (1)-(3) find nothing and unSACKed data is
    /// outstanding, once per recovery ("If HighACK is greater than RescueRxt", RescueRxt being
    /// set to RecoveryPoint, which HighACK cannot pass within the recovery), the segment
    /// holding the highest unSACKed octet; HighRxt is not updated.
    pub(super) fn rescue(&mut self, now: Time) -> Option<Transmit> {
        let Recovery::Fast {
            recover,
            partial_acks,
            rescued: false,
        } = self.recovery
        else {
            return None;
        };
        if !self.cfg.rescue_retransmission {
            return None;
        }
        let seq = self
            .sb
            .highest_unsacked_segment(self.snd_una, self.snd_max, self.neg.mss)?;
        if self.cfg.fin && self.at_data_end(seq) {
            return None; // the FIN's turn comes with the timer
        }
        self.recovery = Recovery::Fast {
            recover,
            partial_acks,
            rescued: true,
        };
        let high_rxt = self.sb.high_rxt;
        let tx = self.send_at(now, seq, TxKind::RetransmitRecovery);
        self.sb.high_rxt = high_rxt;
        Some(tx)
    }

    /// tcp-sack1.cc send_much() in fast recovery: while pipe_ < int(cwnd_), the next hole
    /// (GetNextRetran, from above the last retransmission), else the next packet in sequence,
    /// each within window_ of the cumulative ACK; pipe_ one more per packet.
    pub(super) fn poll_ns2_sack1_recovery(&mut self, now: Time) -> Option<Transmit> {
        let mss = self.neg.mss.max(1);
        if self.ns2_hold || self.ns2_pipe >= (self.cc.cwnd() / mss) as i64 {
            return None;
        }
        let from = self.snd_una.max(self.sb.high_rxt);
        let tx = match self.sb.next_hole(from, self.snd_max, mss) {
            Some(seq) if self.rwnd_allows(seq) => {
                self.send_at(now, seq, TxKind::RetransmitRecovery)
            }
            Some(_) => return None,
            None => {
                let seq = self.snd_nxt;
                if seq >= self.data_end || !self.rwnd_allows(seq) {
                    return None;
                }
                self.send_at(now, seq, self.kind_at(seq))
            }
        };
        self.ns2_pipe += 1;
        Some(tx)
    }
}
