//! The sender's side of RACK (`LossDetection::Rack`; the rules: `tcp::rack`): what each ACK
//! tells it, when a marked loss starts recovery, what recovery sends, the reorder timer, and
//! the entry point for reordering found elsewhere (an undo).
//!
//! Linux's order on an ACK (`tcp_ack`): SACK tagging and the cumulative ACK advance RACK's
//! reference (`tcp_sacktag_write_queue`, `tcp_clean_rtx_queue`); then, on a "dubious" ACK or
//! outside Open, `tcp_fastretrans_alert` runs `tcp_identify_packet_loss` (RACK) and enters
//! recovery when a segment is marked lost (`tcp_time_to_recover`: "the loss is proven");
//! `tcp_cwnd_reduction` (PRR) comes last, told whether the ACK marked a new loss.

use super::*;
use crate::tcp::rack::Rack;

impl TcpSender {
    /// The RACK state for a connection that negotiated SACK under `LossDetection::Rack`
    /// (Linux without SACK marks losses by NewReno's rule, `tcp_newreno_mark_lost`: vho's
    /// RFC 6582 recovery).
    pub(super) fn new_rack(cfg: &TcpConfig, neg: &Negotiated) -> Option<Box<Rack>> {
        (cfg.loss_detection == LossDetection::Rack && neg.sack)
            .then(|| Box::new(Rack::new(cfg.dupthresh)))
    }

    /// A segment left: its send time and retransmission mark (out of line: the other
    /// senders' `send_at` pays one test). A retransmission of the head restarts the
    /// retransmission timer unless the slot holds the reorder timer
    /// (`tcp_xmit_retransmit_queue`: `skb == rtx_head && icsk_pending !=
    /// ICSK_TIME_REO_TIMEOUT` → `tcp_rearm_rto`, a full RTO from now): the timer then runs
    /// from the head's latest transmission, not from the start of recovery, which a
    /// retransmission lost again and resent later would otherwise outlive.
    #[cold]
    #[inline(never)]
    pub(super) fn rack_on_send(&mut self, seq: SeqNum, end: SeqNum, now: Time, kind: TxKind) {
        let head_resent = kind.is_retransmission() && seq == self.snd_una;
        let rearm = head_resent && !self.reorder_timer_due();
        if let Some(r) = &mut self.rack {
            r.on_send(seq, end, now, kind.is_retransmission());
        }
        if rearm {
            self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        }
    }

    /// Tags the segments this ACK delivers (before SND.UNA moves and before recovery is
    /// decided). An ACK that does not move SND.UNA but newly SACKs a never-retransmitted
    /// segment is an RTT sample, `now` less that segment's send time (`tcp_clean_rtx_queue`'s
    /// `sack_rtt_us`, which `tcp_ack_update_rtt` takes when no cumulatively acknowledged
    /// segment gives `seq_rtt_us`: the RTO estimator and the congestion control read it), so
    /// the RTO follows a queue that grows during recovery. An ACK that moves SND.UNA is
    /// timed by its timestamp echo as before (Linux prefers the send time of the first
    /// segment it acknowledges; with delayed ACKs the two differ by the ACK delay).
    #[cold]
    pub(super) fn rack_tag(&mut self, now: Time, seg: &Segment) {
        let blocks = seg.options.sack.as_slice();
        let dsack = dsack_block(seg.ack, blocks).is_some();
        let skip = usize::from(dsack);
        let una = seg.ack.max(self.snd_una);
        let tsecr = seg.options.timestamps.map(|(_, e)| e);
        let (mss, snd_max) = (self.neg.mss, self.snd_max);
        let Some(r) = &mut self.rack else {
            return;
        };
        let tagging = r.on_ack(
            now,
            una,
            &blocks[skip.min(blocks.len())..],
            dsack,
            tsecr,
            mss,
        );
        r.update_reo_wnd(una, snd_max);
        if seg.ack > self.snd_una {
            return;
        }
        if let Some(sent) = tagging.first_sackt {
            let ctx = self.sample_context(self.snd_una);
            self.rtt.on_sample_in(sent, now, ctx);
            self.stats.rtt_samples += 1;
            let (rtt, srtt) = (now.saturating_since(sent), self.rtt.srtt());
            self.cc.on_rtt_sample(now, rtt, srtt, ctx.flight);
        }
    }

    /// `tcp_fastretrans_alert`'s RACK part once the ACK is taken: a detection pass when the
    /// reference advanced (on a dubious ACK, or outside Open), recovery when a segment is
    /// marked lost, the reorder timer for those still within reo_wnd. Returns whether a
    /// segment was newly marked lost (PRR's `newly_lost`).
    #[cold]
    pub(super) fn rack_after_ack(&mut self, now: Time, dubious: bool) -> bool {
        if !dubious && self.recovery == Recovery::Open {
            return false;
        }
        let in_recovery = self.recovery != Recovery::Open;
        let srtt = self.rtt.srtt();
        let Some(r) = &mut self.rack else {
            return false;
        };
        let reo_wnd = r.reo_wnd(in_recovery, srtt);
        let d = r.mark_lost(now, reo_wnd);
        let lost_out = r.lost_out();
        self.arm_reorder_timer(now, d.reorder_wait);
        self.rack_maybe_recover(now, lost_out, d.lost_retransmissions > 0);
        d.newly_lost > 0
    }

    /// `tcp_time_to_recover` with RACK: recovery once a segment is marked lost, from Open
    /// when the last recovery point is passed; from a timeout's recovery (Loss) when a
    /// retransmission is lost again (`FLAG_LOST_RETRANS`: `tcp_fastretrans_alert` falls
    /// through to `tcp_enter_recovery`), unless F-RTO is still deciding.
    fn rack_maybe_recover(&mut self, now: Time, lost_out: u32, lost_retransmission: bool) {
        if lost_out == 0 {
            return;
        }
        let enter = match self.recovery {
            Recovery::Open => self.may_recover(),
            Recovery::Timeout { .. } => lost_retransmission && self.frto.is_none(),
            Recovery::Fast { .. } => false,
        };
        if enter {
            self.enter_fast_recovery(now);
        }
    }

    /// `tcp_rack_mark_lost` arms ICSK_TIME_REO_TIMEOUT for the longest wait left:
    /// `usecs_to_jiffies(timeout) + TCP_TIMEOUT_MIN` (2 jiffies), in the retransmission
    /// timer's slot (`inet_csk_reset_xmit_timer`). Nothing to wait for leaves the timer as it
    /// is (Linux re-arms the RTO only on an ACK of new data, which `on_new_ack` has done).
    fn arm_reorder_timer(&mut self, now: Time, wait: Option<Dur>) {
        let Some(w) = wait else {
            return;
        };
        let jiffy = self.rtt.granularity();
        let at = now + w.ceil_to(jiffy) + jiffy + jiffy;
        if let Some(r) = &mut self.rack {
            r.reorder_at = Some(at);
        }
        self.timers.set(Timer::Retransmit, at);
    }

    /// Whether the retransmission timer's slot holds RACK's reorder timer.
    pub(super) fn reorder_timer_due(&self) -> bool {
        let slot = self.timers.get(Timer::Retransmit);
        self.rack
            .as_ref()
            .is_some_and(|r| r.reorder_at.is_some() && r.reorder_at == slot)
    }

    /// `tcp_rack_reo_timeout`: the reorder window has passed; a detection pass, recovery if
    /// it marked a segment lost (from any state but fast recovery itself), and the RTO back
    /// in the slot (`tcp_rearm_rto`: the RTO less the time since the head was sent, at least
    /// a jiffy), which a recovery's retransmission then restarts.
    #[cold]
    pub(super) fn rack_reo_timeout(&mut self, now: Time) {
        let in_recovery = self.recovery != Recovery::Open;
        let (srtt, rto, jiffy) = (self.rtt.srtt(), self.rtt.rto(), self.rtt.granularity());
        let Some(r) = &mut self.rack else {
            return;
        };
        r.reorder_at = None;
        let reo_wnd = r.reo_wnd(in_recovery, srtt);
        let d = r.detect_loss(now, reo_wnd);
        let head_sent = r.head_sent().unwrap_or(now);
        self.timers
            .set(Timer::Retransmit, (head_sent + rto).max(now + jiffy));
        if d.newly_lost == 0 {
            return;
        }
        let enter = match self.recovery {
            Recovery::Fast { .. } => false,
            Recovery::Open => true,
            Recovery::Timeout { .. } => self.frto.is_none(),
        };
        if enter {
            self.enter_fast_recovery(now);
        }
    }

    /// The first segment to retransmit when recovery starts: the first marked lost.
    pub(super) fn rack_first_lost(&self) -> Option<SeqNum> {
        self.rack.as_ref().and_then(|r| r.next_lost())
    }

    /// What fast recovery sends under RACK (`tcp_xmit_retransmit_queue`, then new data):
    /// while `tcp_packets_in_flight` < cwnd, the first segment marked lost and not resent
    /// since, else new data.
    pub(super) fn poll_rack_recovery(&mut self, now: Time) -> Option<Transmit> {
        let r = self.rack.as_ref()?;
        let mss = self.neg.mss;
        if r.in_flight() * mss + mss > self.cc.cwnd() {
            return None;
        }
        if let Some(seq) = r.next_lost() {
            return Some(self.send_at(now, seq, TxKind::RetransmitRecovery));
        }
        let seq = self.snd_max;
        if seq < self.data_end && self.rwnd_allows(seq) {
            return Some(self.send_at(now, seq, TxKind::New));
        }
        None
    }

    /// Reordering of `degree` segments observed outside the SACK tagging (Linux's undo of a
    /// recovery: `tcp_try_undo_partial` calls `tcp_check_sack_reordering`): raises
    /// `tp->reordering` to min(degree, `tcp_max_reordering` 300) and counts the event
    /// (`reord_seen`), which widens RACK's reo_wnd from then on. No effect without RACK.
    pub fn note_reordering(&mut self, degree: u32) {
        if let Some(r) = &mut self.rack {
            r.note_reordering(degree);
        }
    }

    /// Linux's reordering degree (`tp->reordering`) and events seen (`tp->reord_seen`), when
    /// RACK runs.
    pub fn reordering(&self) -> Option<(u32, u32)> {
        self.rack.as_ref().map(|r| (r.reordering(), r.reord_seen()))
    }
}
