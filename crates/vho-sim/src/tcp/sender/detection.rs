//! The sender's side of spurious-timeout detection (issue 19): what it keeps when a recovery
//! starts, what each detector of `tcp::spurious` is told on an ACK, and the response once one
//! concludes.

use super::*;
use crate::tcp::config::TimeoutSsthresh;

impl TcpSender {
    /// F-RTO's steps and RFC 3708's verdict once the ACK has been taken.
    #[cold]
    pub(super) fn detect_after_ack(
        &mut self,
        seg: &Segment,
        una_before: SeqNum,
        window_changed: bool,
        newly_sacked: bool,
        dsack: Option<dsack::Verdict>,
    ) {
        if self.frto.is_some() {
            self.frto_on_ack(seg, una_before, window_changed, newly_sacked);
        }
        if self.cfg.spurious_detection.dsack && !self.linux_undo() {
            let verdict = dsack.or_else(|| self.spurious.dsack.on_cumulative_ack(seg.ack));
            if let Some(v) = verdict {
                self.respond_to_spurious_recovery(v, self.snd_una - una_before);
            }
        }
    }

    /// A D-SACK block on this ACK (before the scoreboard takes the ACK): Eifel's history
    /// (RFC 3522 §3.2 (5)) and RFC 3708's detector, which may conclude here.
    #[cold]
    pub(super) fn dsack_seen(&mut self, seg: &Segment) -> Option<dsack::Verdict> {
        let (left, right) = dsack_block(seg.ack, seg.options.sack.as_slice())?;
        self.spurious.eifel.on_dsack();
        if !self.cfg.spurious_detection.dsack {
            return None;
        }
        if self.linux_undo() {
            // Linux counts D-SACKs against undo_retrans (undo.rs), not RFC 3708's episode.
            self.undo.on_dsack(left, right, self.neg.mss);
            return None;
        }
        let empty = self.sb.is_empty();
        self.spurious
            .dsack
            .on_dsack(left, right, self.snd_una, empty)
    }

    /// Whether a recovery starting now joins RFC 3708's running episode (whose state before
    /// its first reduction is then the one to keep).
    pub(super) fn dsack_joins(&self) -> bool {
        self.cfg.spurious_detection.dsack
            && matches!(
                self.spurious.dsack.status(),
                Status::Open {
                    recovered: false,
                    ..
                }
            )
    }

    /// RFC 3708's verdict: every retransmission of the recovery was a duplicate. Found after
    /// the recovery (RFC 4015 §2's LATE_SPUR_TO): what was resent stays resent, and the window
    /// is set as the response says (RFC 4015 step (9), Linux's tcp_try_undo_dsack for undo).
    /// RFC 4015 answers timeouts only: after a spurious fast retransmit its eifel response
    /// restores the window as undo does.
    #[cold]
    pub(super) fn respond_to_spurious_recovery(&mut self, v: dsack::Verdict, acked: u32) {
        let Some((prior, snd_max_then)) = self.spurious.prior.take() else {
            return; // already answered (F-RTO or Eifel found the same timeout)
        };
        match v.kind {
            EpisodeKind::Timeout => self.stats.spurious_timeouts_detected += 1,
            EpisodeKind::FastRetransmit => self.stats.spurious_fast_retransmits_detected += 1,
        }
        let mut response = self.cfg.spurious_response;
        if v.kind == EpisodeKind::FastRetransmit && response == SpuriousResponse::Eifel {
            response = SpuriousResponse::Undo;
        }
        let timeout = v.kind == EpisodeKind::Timeout;
        self.apply_response(response, &prior, snd_max_then, acked, timeout);
    }

    /// Sets the window the response gives (see [`response::window_after`]) and, after a
    /// timeout, arms RFC 4015 step (11) where the response adapts the RTO.
    pub(super) fn apply_response(
        &mut self,
        response: SpuriousResponse,
        prior: &response::Prior,
        snd_max_then: SeqNum,
        acked: u32,
        timeout: bool,
    ) {
        let iw = self.cfg.initial_window_segments.max(1) * self.neg.mss;
        let (cwnd, ssthresh) = response::window_after(
            response,
            prior,
            (self.cc.cwnd(), self.cc.ssthresh()),
            self.snd_max - self.snd_una,
            acked,
            iw,
        );
        self.cc.set_window(cwnd, ssthresh);
        if timeout && response::adapts_rto(response) {
            self.spurious.adapt = Some((snd_max_then, prior.srtt_prev, prior.rttvar_prev));
        }
    }

    /// RFC 5682 §3.1 steps 2 and 3 on an ACK (see [`frto`]).
    #[cold]
    pub(super) fn frto_on_ack(
        &mut self,
        seg: &Segment,
        una_before: SeqNum,
        window_changed: bool,
        newly_sacked: bool,
    ) {
        let Some(mut f) = self.frto else {
            return;
        };
        // The SACK clauses of step 3 are measured against the RecoveryPoint step 2 set, not
        // against SND.MAX, which the two new segments have moved.
        let rp = f.recovery_point(self.snd_max);
        let blocks = seg.options.sack.as_slice();
        let view = frto::AckView {
            una_before,
            ack: seg.ack,
            duplicate: seg.ack == una_before && seg.len == 0 && !window_changed,
            sacks_new_below_recovery_point: newly_sacked && blocks.iter().any(|&(l, _)| l < rp),
            sacks_above_recovery_point: blocks.iter().any(|&(_, r)| r > rp),
            // Only the timeout's first retransmission was resent: the rest was sent once.
            acks_never_retransmitted: seg.ack > self.frto_retx_end || newly_sacked,
        };
        let can_send_new = self.snd_max < self.data_end && {
            let len = self.seg_len(self.snd_max);
            (self.snd_max + len) - self.snd_una <= self.rwnd.min(self.cfg.send_window_cap)
        };
        let step = f.on_ack(view, self.snd_max, can_send_new);
        self.frto = Some(f);
        match step {
            frto::Step::Wait => {}
            frto::Step::SendNew => {
                self.snd_nxt = self.snd_max;
                self.frto_credit = 2;
            }
            frto::Step::Spurious => {
                self.frto = None;
                self.frto_credit = 0;
                self.respond_to_spurious_rto(self.snd_una - una_before);
            }
            frto::Step::Conventional { cwnd_cap_segments } => {
                // Go back to SND.UNA in slow start, as the timeout would have.
                self.frto = None;
                self.frto_credit = 0;
                self.snd_nxt = self.snd_una;
                self.sb.high_rxt = self.snd_una;
                if let Some(n) = cwnd_cap_segments {
                    let cap = n * self.neg.mss;
                    let (cwnd, ssthresh) = (self.cc.cwnd(), self.cc.ssthresh());
                    self.cc.set_window(cwnd.min(cap), ssthresh);
                }
            }
        }
    }

    /// RFC 4015 §3.1 step (11): the first RTT sample of data sent after a spurious timeout
    /// (an ACK beyond SND.MAX at the timeout) adapts the RTO to the delay the timeout met.
    pub(super) fn adapt_rto_after_spurious(&mut self, sample: Dur, ack: SeqNum) {
        if let Some((snd_max_then, srtt_prev, rttvar_prev)) = self.spurious.adapt {
            if ack > snd_max_then {
                self.spurious.adapt = None;
                self.rtt
                    .adapt_after_spurious(sample, srtt_prev, rttvar_prev);
            }
        }
    }

    /// A timeout proved spurious (see [`super::spurious::response`]): resume with new data
    /// (RFC 4015 step (8): SND.NXT = SND.MAX; the go-back-N resend stops), leave loss
    /// recovery with its recovery point at SND.UNA (RFC 5682 §2.1 step 3(b): the next loss
    /// may be fast-retransmitted), and set the window the configured response gives.
    #[cold]
    pub(super) fn respond_to_spurious_rto(&mut self, acked: u32) {
        // The first detector to conclude answers; the others of this recovery stop.
        self.frto = None;
        self.frto_credit = 0;
        self.undo.undone(); // tcp_undo_cwnd_reduction: undo_marker = 0
        let Some((prior, snd_max_then)) = self.spurious.prior.take() else {
            return;
        };
        self.stats.spurious_timeouts_detected += 1;
        self.snd_nxt = self.snd_max;
        self.recovery = Recovery::Open;
        if let Some(r) = &mut self.rack {
            r.unmark_lost(); // tcp_undo_cwnd_reduction(sk, true): the losses were not
        }
        self.recover = self.snd_una;
        self.dupacks = 0;
        let response = self.cfg.spurious_response;
        self.apply_response(response, &prior, snd_max_then, acked, true);
    }

    /// RFC 4015 §3.1 step (0), at the timeout that starts a recovery detection may prove
    /// spurious: the state before any reduction, kept for the response.
    #[cold]
    pub(super) fn keep_prior(&mut self) {
        let flight = self.snd_max - self.snd_una;
        let g = self.rtt.granularity();
        let ssthresh = if self.cfg.timeout_ssthresh == TimeoutSsthresh::Linux {
            // Linux keeps tcp_current_ssthresh as prior_ssthresh, which an undo restores.
            let in_reduction = matches!(self.recovery, Recovery::Fast { .. });
            response::linux_prior_ssthresh(
                self.cc.ssthresh(),
                self.cc.cwnd(),
                self.neg.mss,
                in_reduction,
            )
        } else {
            self.cc.ssthresh()
        };
        let prior = response::Prior {
            cwnd: self.cc.cwnd(),
            ssthresh,
            pipe_prev: flight.max(self.cc.ssthresh()),
            srtt_prev: self.rtt.srtt() + g + g,
            rttvar_prev: self.rtt.rttvar(),
        };
        self.spurious.prior = Some((prior, self.snd_max));
        self.spurious.adapt = None;
    }
}
