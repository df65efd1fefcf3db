//! What the sender puts on the wire: the next segment (a pending retransmission, SACK
//! recovery's choice, or what the windows allow), its header and options, the SYN-ACK and
//! ns-2's modelled SYN.

use super::{ts_clock, Recovery, State, TcpSender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::{Flags, Segment, TcpOptions, Transmit, TxKind};
use crate::tcp::seq::SeqNum;
use crate::tcp::timer::Timer;
use crate::time::Time;

impl TcpSender {
    /// Inlined into its callers: with a second one (an MPTCP subflow's, `agent::mptcp`) the
    /// compiler stopped inlining it into TCP's `pump`, 1.7 % more instructions in the 20 MB
    /// cell (callgrind, run_timed).
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        if self.send_synack {
            self.send_synack = false;
            return Some(self.synack(now));
        }
        if self.send_syn {
            self.send_syn = false;
            return Some(self.one_way_syn(now));
        }
        if self.state != State::Established {
            if self.state == State::Oracle {
                return self.poll_oracle(now);
            }
            return None;
        }
        if self.probe.is_some() {
            if let Some(tx) = self.probe_owed(now) {
                return Some(tx); // an inverted pair's first segment, in the same instant
            }
        }
        if self.cfg.tlp {
            if let Some(tx) = self.tlp_poll(now) {
                return Some(tx);
            }
        }
        if let Some((seq, kind)) = self.pending_rtx.take() {
            // tcp_retransmit_timer resends the head unpaced; the rest waits (tcp_pacing_check).
            if kind != TxKind::RetransmitTimeout && self.pacing_holds(now) {
                self.pending_rtx = Some((seq, kind));
                return None;
            }
            if self.cfg.fin && self.at_data_end(seq) && seq < self.snd_max {
                // Only the FIN is outstanding: it is what goes again (not an empty segment).
                return Some(self.send_fin(now, kind));
            }
            if seq < self.snd_max {
                if self.cfg.prr && self.sack_recovery() {
                    self.prr.on_send(); // prr_out: the fast retransmission
                }
                return Some(self.send_at(now, seq, kind));
            }
        }
        if self.pacing_holds(now) {
            return None;
        }
        if self.sack_recovery() {
            let tx = self.poll_sack_recovery(now);
            if self.cfg.prr && tx.is_some() {
                self.prr.on_send(); // prr_out (tcp_write_xmit, tcp_xmit_retransmit_queue)
            }
            return tx;
        }
        self.poll_window(now)
    }

    /// What sending at `seq` is: a resend below the highest sequence sent (a timeout's
    /// go-back-N), else new.
    pub(super) fn kind_at(&self, seq: SeqNum) -> TxKind {
        if seq < self.snd_max {
            TxKind::RetransmitRecovery
        } else {
            TxKind::New
        }
    }

    /// Window-limited sending outside SACK recovery (RFC 5681: min(cwnd, rwnd)). Inlined as
    /// `poll_transmit` is (see there).
    #[inline(always)]
    pub(super) fn poll_window(&mut self, now: Time) -> Option<Transmit> {
        let keeps_sack =
            matches!(self.recovery, Recovery::Timeout { .. }) && self.skip_sacked_after_rto();
        // Flight is counted up to SND.NXT; with RACK a segment marked lost below it (spared
        // by the timeout, or new, and marked lost since) goes first, and is out of flight.
        let top = self.snd_nxt;
        let (lost_below, seq) = match keeps_sack.then(|| self.lost_below_after_rto()) {
            Some(Some((bytes, lost))) => (bytes, lost),
            _ => (0, top),
        };
        let mut cwnd = self.cc.cwnd();
        if self.cfg.limited_transmit
            && self.recovery == Recovery::Open
            && self.dupacks > 0
            && self.dupacks < self.dupthresh.base()
            && (seq >= self.snd_max || self.cfg.dupacks_after_timeout_new_ack)
        {
            // RFC 3042 §2: new data only, FlightSize <= cwnd + 2 SMSS (one segment per early
            // duplicate ACK), within the receiver's window; cwnd itself is not changed.
            cwnd = cwnd.saturating_add(self.dupacks * self.neg.mss);
        }
        let peer_win = self.rwnd.min(self.cfg.send_window_cap);
        let win = cwnd.min(peer_win);
        if self.cfg.timeout_holds_new_data
            && self.retransmits
            && seq >= self.snd_max
            && self.frto_credit == 0
        {
            // Linux 2.0: no new data while retransmitting after a timeout.
            return None;
        }
        if seq < self.data_end {
            let len = self.seg_len(seq);
            let mut used = (top + len) - self.snd_una;
            if keeps_sack {
                used -= self.sacked_in_flight(top) + lost_below;
            }
            if used > win.max(len.min(self.neg.mss)) && seq > self.snd_una {
                if self.frto_credit > 0 && seq >= self.snd_max && used <= peer_win {
                    // RFC 5682 §3.1 step 2(b): up to two new segments whatever cwnd says.
                    self.frto_credit -= 1;
                    return Some(self.send_at(now, seq, TxKind::New));
                }
                self.note_cwnd_use(cwnd <= peer_win);
                return None;
            }
            let inverted = if self.probe.is_some() {
                self.probe_inverted_pair(now, seq, win)
            } else {
                None
            };
            let tx = match inverted {
                Some(tx) => tx,
                None => self.send_at(now, seq, self.kind_at(seq)),
            };
            self.note_cwnd_use(false);
            if tx.kind == TxKind::New && self.tlp_on() {
                self.tlp_schedule(now, false); // tcp_write_xmit
            }
            if self.probe.is_some() && inverted.is_none() {
                self.probe_on_send(now, &tx.segment, tx.kind == TxKind::New);
            }
            return Some(tx);
        }
        if self.cfg.fin
            && self.at_data_end(seq)
            && self.snd_una <= self.data_end
            && self.snd_max <= self.data_end + 1
        {
            if seq - self.snd_una >= win.max(1) {
                return None;
            }
            return Some(self.send_fin(now, self.kind_at(seq)));
        }
        None
    }

    /// After an RTO with `rto_keeps_sack`: moves SND.NXT past what the scoreboard shows
    /// SACKed (RFC 6675 §5.1: it is not resent) and, with RACK, past what the timeout spared
    /// (`Rack::on_rto`; Linux's `tcp_xmit_retransmit_queue` resends only segments marked lost
    /// and not resent since); whether the rule applies.
    #[cold]
    pub(super) fn skip_sacked_after_rto(&mut self) -> bool {
        if !(self.cfg.rto_keeps_sack && self.neg.sack) {
            return false;
        }
        while self.snd_nxt < self.snd_max {
            let end = match self.sb.sacked_end(self.snd_nxt) {
                Some(end) => end,
                None => match self.rack.as_ref().and_then(|r| r.spared_end(self.snd_nxt)) {
                    Some(end) => end,
                    None => break,
                },
            };
            self.snd_nxt = end.min(self.snd_max);
        }
        true
    }

    /// With RACK after an RTO (F-RTO done): the bytes below SND.NXT marked lost and not resent
    /// since (out of flight), and the first of them, which goes before SND.NXT's segment
    /// (`tcp_xmit_retransmit_queue` in TCP_CA_Loss resends lost segments lowest first). Such
    /// a segment is one the timeout spared, or new data sent since, that RACK marked lost
    /// later; go-back-N has passed it.
    #[cold]
    fn lost_below_after_rto(&self) -> Option<(u32, SeqNum)> {
        let r = self.rack.as_ref().filter(|_| self.frto.is_none())?;
        let lost = r.next_lost().filter(|&l| l < self.snd_nxt)?;
        Some((r.lost_bytes_below(self.snd_nxt), lost))
    }

    /// SACKed bytes below `seq`: not in flight (Linux's packets_in_flight leaves them out).
    #[cold]
    pub(super) fn sacked_in_flight(&self, seq: SeqNum) -> u32 {
        self.sb.sacked_between(self.snd_una, seq)
    }

    pub(super) fn rwnd_allows(&self, seq: SeqNum) -> bool {
        let len = self.seg_len(seq);
        (seq + len) - self.snd_una <= self.rwnd.min(self.cfg.send_window_cap)
    }

    pub(super) fn options(&self, now: Time) -> TcpOptions {
        TcpOptions {
            timestamps: self.neg.timestamps.then(|| (ts_clock(now), self.ts_recent)),
            ..TcpOptions::default()
        }
    }

    pub(super) fn header(&self, now: Time, seq: SeqNum, flags: Flags, len: u32) -> Segment {
        Segment {
            src_port: self.ports.0,
            dst_port: self.ports.1,
            seq,
            ack: self.rcv_nxt,
            flags,
            window: (self.cfg.receive_window >> self.neg.own_wscale).min(u16::MAX as u32) as u16,
            options: self.options(now),
            len,
        }
    }

    pub(super) fn synack(&mut self, now: Time) -> Transmit {
        let mut seg = self.header(now, self.iss, Flags::SYN | Flags::ACK, 0);
        seg.window = self.cfg.receive_window.min(u16::MAX as u32) as u16; // RFC 7323 §2.2: unscaled on SYN
        seg.options.mss = Some(crate::tcp::options::mss_option(&self.cfg));
        seg.options.sack_permitted = self.neg.sack;
        seg.options.window_scale = self.neg.peer_wscale_offered.then_some(self.neg.own_wscale);
        // Timed for the handshake's RTT sample unless it is a retransmission (Karn).
        self.timed = (self.cfg.handshake_rtt_sample && !self.syn_lost).then_some((self.iss, now));
        self.stats.segments_sent += 1;
        self.synacks += 1;
        if self.synacks == 1 {
            self.first_synack_ts = seg.options.timestamps.map(|(v, _)| v);
        }
        Transmit {
            segment: seg,
            kind: TxKind::New,
        }
    }

    /// ns-2's modelled SYN (tcp.cc:711): a header-only packet with sequence number 0 whose
    /// ACK opens the window; no options are negotiated by it.
    pub(super) fn one_way_syn(&mut self, now: Time) -> Transmit {
        let seg = self.header(now, self.iss, Flags::SYN, 0);
        let first = self.stats.segments_sent == 0;
        self.stats.segments_sent += 1;
        if first {
            self.timed = Some((self.iss, now));
            self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        }
        Transmit {
            segment: seg,
            kind: if first {
                TxKind::New
            } else {
                TxKind::RetransmitTimeout
            },
        }
    }

    /// Sends the data segment starting at `seq`.
    pub(super) fn send_at(&mut self, now: Time, seq: SeqNum, kind: TxKind) -> Transmit {
        let len = self.seg_len(seq);
        let end = seq + len;
        let flags = if self.at_data_end(end) {
            Flags::ACK | Flags::PSH
        } else {
            Flags::ACK
        };
        let seg = self.header(now, seq, flags, len);
        if kind.is_retransmission() {
            self.stats.retransmissions += 1;
            if self.linux_undo() && !self.tlp.sending {
                // tcp_retransmit_skb (a loss probe's __tcp_retransmit_skb counts nothing)
                self.undo.on_retransmit(ts_clock(now), 1);
            }
            if self.spurious_on && self.cfg.spurious_detection.dsack {
                self.spurious.dsack.on_retransmit(seq, len);
            }
            if self.timed.is_some_and(|(t, _)| t >= seq && t < end) {
                self.timed = None; // Karn: never time a retransmitted segment
            }
            if self.sb.high_rxt < end && self.recovery != Recovery::Open {
                self.sb.high_rxt = end;
            }
            if self.cfg.retransmission_marks && self.neg.sack && self.rack.is_none() {
                self.sb.mark_retransmitted(seq); // tcp_retransmit_skb: TCPCB_SACKED_RETRANS
            }
        } else if self.timed.is_none() && !self.neg.timestamps {
            self.timed = Some((seq, now));
        }
        if let Some(freed) = &mut self.freed {
            freed.on_send(seq, end, now);
        }
        if self.rack.is_some() {
            self.rack_on_send(seq, end, now, kind);
        }
        if self.snd_nxt <= seq || kind == TxKind::RetransmitTimeout {
            self.snd_nxt = self.snd_nxt.max(end);
            if kind == TxKind::RetransmitTimeout {
                self.snd_nxt = end;
            }
        }
        if end > self.snd_max {
            self.snd_max = end;
            self.tlp.last_seg = seq;
        }
        self.stats.segments_sent += 1;
        self.stats.data_bytes_sent += len as u64;
        if self.cfg.pacing {
            self.pacing_on_send(now, len);
        }
        if !self.timers.is_running(Timer::Retransmit) {
            self.timers.set(Timer::Retransmit, now + self.rtt.rto()); // RFC 6298 (5.1)
        }
        Transmit { segment: seg, kind }
    }

    pub(super) fn send_fin(&mut self, now: Time, kind: TxKind) -> Transmit {
        let seg = self.header(now, self.data_end, Flags::FIN | Flags::ACK, 0);
        if kind.is_retransmission() && self.linux_undo() {
            self.undo.on_retransmit(ts_clock(now), 1); // never D-SACKed: no D-SACK undo
        }
        if kind.is_retransmission() && self.cfg.spurious_detection.dsack {
            // A resent FIN is never D-SACKed: its recovery is not declared spurious.
            self.spurious.dsack.on_retransmit(self.data_end, 0);
        }
        self.snd_nxt = self.data_end + 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.stats.segments_sent += 1;
        if !self.timers.is_running(Timer::Retransmit) {
            self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        }
        Transmit { segment: seg, kind }
    }
}
