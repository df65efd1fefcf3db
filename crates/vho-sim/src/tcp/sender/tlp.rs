//! Tail loss probe (`TcpConfig::tlp`; RFC 8985 §7, as Linux does it): with nothing else to
//! show a lost tail, one segment is sent at a probe timeout (PTO) of about two SRTTs so that
//! its ACK (or SACK) lets RACK or the cumulative ACK repair the tail instead of the RTO.
//!
//! Linux's rules, each from `net/ipv4/`:
//! - scheduling, `tcp_schedule_loss_probe` (tcp_output.c): SACK on, data outstanding, the
//!   state Open (vho: Open with nothing SACKed or marked lost, Linux's Disorder being vho's
//!   Open with SACKed data; `tcp_try_to_open`). PTO = 2·SRTT (`srtt_us >> 2`), plus
//!   `tcp_rto_min` (200 ms: the receiver's delayed ACK) with one segment out, else plus
//!   `TCP_TIMEOUT_MIN` (2 jiffies); `TCP_TIMEOUT_INIT` (1 s) without an RTT sample; never
//!   later than the RTO would fire (`tcp_rto_delta_us`, or on an ACK the whole RTO:
//!   `advancing_rto`). Armed after new data is sent (`tcp_write_xmit`) and on an ACK of new
//!   data (`tcp_set_xmit_timer`, before RACK, which may override it), in the retransmission
//!   timer's slot (ICSK_TIME_LOSS_PROBE, `icsk_pending`).
//! - firing, `tcp_send_loss_probe`: none while a probe is outstanding (`tlp_high_seq`); one
//!   new segment if there is new data and the receiver's window allows it (whatever cwnd
//!   says: `tcp_write_xmit` with `push_one = 2`), else the highest-sequence segment again
//!   (`__tcp_retransmit_skb`, which counts no `undo_retrans`); `tlp_high_seq` = SND.NXT,
//!   `tlp_retrans` whether it was a retransmission; then the RTO (`tcp_rearm_rto`): a whole
//!   RTO from the probe once one left (`icsk_pending = 0`), else from the head's send time.
//! - the ACK, `tcp_process_tlp_ack` (tcp_input.c), once the ACK reaches `tlp_high_seq`: a
//!   probe of new data is done; a D-SACK says both the original and the probe arrived: no
//!   loss; an ACK beyond `tlp_high_seq` says the probe repaired a loss: `tcp_init_cwnd_reduction`,
//!   CWR, `tcp_end_cwnd_reduction` (cwnd = ssthresh at once, the controller's loss
//!   reduction); a pure duplicate ACK says both arrived. Entering recovery
//!   (`tcp_init_cwnd_reduction`) or a timeout (`tcp_retransmit_timer`) ends the episode.
//!
//! Not Linux: vho's probe retransmission is marked retransmitted in RACK's scoreboard (Linux's
//! `__tcp_retransmit_skb` sets only EVER_RETRANS, not `retrans_out`); vho's FIN is a segment
//! of its own, so the probe of a tail whose FIN is out resends the last data segment.

use super::{Recovery, State, TcpSender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::sack::dsack_block;
use crate::tcp::segment::{Segment, Transmit, TxKind};
use crate::tcp::seq::SeqNum;
use crate::tcp::timer::Timer;
use crate::time::{Dur, Time};

/// `TCP_TIMEOUT_INIT` (include/net/tcp.h): the PTO without an RTT sample.
const PTO_WITHOUT_SAMPLE: Dur = Dur::from_secs(1);

/// The probe's state (Linux's `tlp_high_seq`, `tlp_retrans`, and the slot's owner).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tlp {
    /// The probe timer's deadline while the retransmission timer's slot holds it.
    at: Option<Time>,
    /// `tp->tlp_high_seq`: SND.NXT once the probe left; `None` when no probe is outstanding.
    high_seq: Option<SeqNum>,
    /// `tp->tlp_retrans`: the probe resent a segment.
    retrans: bool,
    /// The probe the timer decided (its sequence number), sent by the next `poll_transmit`.
    pending: Option<SeqNum>,
    /// The probe is being sent (`send_at` counts no undo retransmission for it).
    pub(super) sending: bool,
    /// The start of the segment that last raised SND.MAX: the highest-sequence segment.
    pub(super) last_seg: SeqNum,
}

impl TcpSender {
    /// Whether this sender probes at all: `tlp` configured and SACK negotiated
    /// (`tcp_is_sack`).
    #[inline]
    pub(super) fn tlp_on(&self) -> bool {
        self.cfg.tlp && self.neg.sack
    }

    /// `tcp_schedule_loss_probe`: arms the probe timer if the state allows.
    /// `advancing_rto`: called on an ACK, where the RTO would run a whole RTO from now.
    #[cold]
    pub(super) fn tlp_schedule(&mut self, now: Time, advancing_rto: bool) {
        if self.state != State::Established
            || self.recovery != Recovery::Open
            || self.snd_max <= self.snd_una
        {
            return;
        }
        if self.sb.sacked_between(self.snd_una, self.snd_max) > 0
            || self.rack.as_ref().is_some_and(|r| r.lost_out() > 0)
        {
            return; // Linux's Disorder (tcp_try_to_open: tcp_left_out)
        }
        let jiffy = self.rtt.granularity();
        let mut pto = if self.rtt.has_sample() {
            let two_srtt = (self.rtt.srtt() + self.rtt.srtt()).ceil_to(jiffy);
            if self.snd_max - self.snd_una <= self.neg.mss {
                two_srtt + self.cfg.rto.min // tcp_rto_min: room for a delayed ACK
            } else {
                two_srtt + jiffy + jiffy // TCP_TIMEOUT_MIN, 2 jiffies
            }
        } else {
            PTO_WITHOUT_SAMPLE
        };
        let rto = self.rtt.rto();
        let until_rto = if advancing_rto {
            Some(rto)
        } else {
            // tcp_rto_delta_us: the head's send time + RTO − now, if still ahead.
            let head = self
                .rack
                .as_ref()
                .and_then(|r| r.head_sent())
                .unwrap_or(now);
            let due = head + rto;
            (due > now).then(|| due.saturating_since(now))
        };
        if let Some(d) = until_rto {
            pto = pto.min(d);
        }
        let at = now + pto;
        self.tlp.at = Some(at);
        self.timers.set(Timer::Retransmit, at);
    }

    /// Whether the retransmission timer's slot holds the probe timer.
    #[inline]
    pub(super) fn tlp_timer_due(&self) -> bool {
        self.tlp.at.is_some() && self.tlp.at == self.timers.get(Timer::Retransmit)
    }

    /// `tcp_send_loss_probe`: decides the probe (sent by the next `poll_transmit`, which then
    /// restarts the RTO from itself) and puts the RTO back in the slot (`tcp_rearm_rto` with
    /// the probe timer pending: the head's send time + RTO, at least a jiffy ahead).
    #[cold]
    pub(super) fn tlp_fire(&mut self, now: Time) {
        self.tlp.at = None;
        let (rto, jiffy) = (self.rtt.rto(), self.rtt.granularity());
        let head = self
            .rack
            .as_ref()
            .and_then(|r| r.head_sent())
            .unwrap_or(now);
        self.timers
            .set(Timer::Retransmit, (head + rto).max(now + jiffy));
        if self.tlp.high_seq.is_some()
            || self.recovery != Recovery::Open
            || self.snd_max <= self.snd_una
        {
            return;
        }
        let next = self.snd_max;
        let seq = if next < self.data_end && self.rwnd_allows(next) {
            next
        } else if self.tlp.last_seg >= self.snd_una && self.tlp.last_seg < self.data_end {
            self.tlp.last_seg
        } else {
            return;
        };
        self.tlp.pending = Some(seq);
    }

    /// The probe the timer decided, if any (first in `poll_transmit`).
    #[cold]
    pub(super) fn tlp_poll(&mut self, now: Time) -> Option<Transmit> {
        let seq = self.tlp.pending.take()?;
        if seq < self.snd_una || seq >= self.data_end {
            return None;
        }
        let kind = if seq >= self.snd_max {
            TxKind::New
        } else {
            TxKind::RetransmitRecovery
        };
        self.tlp.sending = true;
        let tx = self.send_at(now, seq, kind);
        self.tlp.sending = false;
        self.tlp.high_seq = Some(self.snd_max);
        self.tlp.retrans = kind.is_retransmission();
        self.stats.tlp_probes += 1;
        if self.tlp.retrans {
            self.stats.tlp_retransmissions += 1;
        }
        // probe_sent: `icsk_pending = 0` "s.t. tcp_rearm_rto will restart timer from now": a
        // whole RTO from the probe, not from the head's send time.
        self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        Some(tx)
    }

    /// `tcp_process_tlp_ack`, before the timer is set for this ACK. `advanced`: SND.UNA
    /// moved; `newly_sacked`: new data SACKed; `window_changed`: a window update.
    #[cold]
    pub(super) fn tlp_on_ack(
        &mut self,
        now: Time,
        seg: &Segment,
        advanced: bool,
        newly_sacked: bool,
        window_changed: bool,
    ) {
        let Some(high) = self.tlp.high_seq else {
            return;
        };
        if seg.ack < high {
            return;
        }
        let dsack = dsack_block(seg.ack, seg.options.sack.as_slice()).is_some();
        if !self.tlp.retrans || dsack {
            // A probe of new data acknowledged; or (FLAG_DSACK_TLP) the original and the
            // probe both arrived.
            self.tlp.high_seq = None;
        } else if seg.ack > high {
            // The probe repaired a loss: CWR, cwnd down to the controller's ssthresh.
            self.tlp.high_seq = None;
            self.stats.tlp_recoveries += 1;
            let cwnd = self.cc.cwnd();
            let basis = self.loss_basis();
            let style = self.style();
            self.cc.on_fast_retransmit(now, basis, style);
            let ss = self.cc.ssthresh();
            self.cc.set_window(ss.min(cwnd), ss);
        } else if !(advanced || newly_sacked || window_changed || seg.len > 0) {
            self.tlp.high_seq = None; // a pure duplicate ACK: both arrived
        }
    }

    /// Recovery or a timeout ends the probe episode (`tcp_init_cwnd_reduction`,
    /// `tcp_retransmit_timer`: `tlp_high_seq = 0`).
    #[inline]
    pub(super) fn tlp_end_episode(&mut self) {
        self.tlp.high_seq = None;
        self.tlp.pending = None;
    }
}
