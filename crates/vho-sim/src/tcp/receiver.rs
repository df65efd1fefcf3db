//! The data receiver: reassembles by sequence ranges (no payload is carried), acknowledges
//! with SACK blocks (RFC 2018), D-SACK blocks for duplicates (RFC 2883, `dsack`) and delayed
//! ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2). With a handshake it is the active side and sends
//! the SYN.

use super::config::TcpConfig;
use super::options::{negotiate, Negotiated};
use super::rtt::RttEstimator;
use super::segment::{Flags, HandoverNotice, SackBlocks, Segment, TcpOptions, Transmit, TxKind};
use super::sender::ts_clock;
use super::seq::SeqNum;
use super::timer::{Timer, TimerTable};
use crate::time::Time;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Not started: the SYN goes out on the first poll (handshake on).
    Closed,
    SynSent,
    Established,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ReceiverStats {
    pub segments_received: u64,
    /// Data segments that arrived above RCV.NXT (a hole before them).
    pub out_of_order_segments: u64,
    /// Data segments entirely below RCV.NXT (already received).
    pub duplicate_segments: u64,
    pub acks_sent: u64,
    /// ACKs whose first SACK block was a D-SACK block (RFC 2883 §4).
    pub dsacks_sent: u64,
    /// ACKs that repeated the previous cumulative ACK while data was outstanding above it.
    pub dupacks_sent: u64,
    /// Segments dropped by PAWS (Linux's `PAWSEstab` counter).
    pub paws_rejected: u64,
}

/// `TCP_PAWS_WINDOW` (include/net/tcp.h): timestamp ticks of slack before PAWS rejects.
const PAWS_WINDOW: i32 = 1;

pub struct TcpReceiver {
    cfg: TcpConfig,
    ports: (u16, u16),
    state: State,
    iss: SeqNum,
    rcv_nxt: SeqNum,
    /// Out-of-order ranges above RCV.NXT, sorted, with the arrival order of their latest
    /// segment (for RFC 2018 §4 block order).
    ooo: Vec<(SeqNum, SeqNum, u64)>,
    arrivals: u64,
    /// The D-SACK block for the next ACK: the first duplicate run of the most recent data
    /// segment, if it had one (RFC 2883 §4 rules (1) and (3)).
    dsack: Option<(SeqNum, SeqNum)>,
    delivered: u64,
    neg: Negotiated,
    timers: TimerTable,
    syn_rtt: RttEstimator,
    ack_now: bool,
    /// A handover notification waits to ride on the next ACK (see `notify_handover`).
    notice_pending: Option<HandoverNotice>,
    /// Full-sized segments received since the last ACK (RFC 5681 §4.2).
    unacked: u32,
    quickacks_left: u32,
    ts_recent: u32,
    last_ack_sent: Option<SeqNum>,
    /// RFC 7323 Last.ACK.sent: the ACK field of the last ACK sent (RCV.NXT before any).
    ts_edge: SeqNum,
    /// Where the sender's FIN sits, once a segment carrying it arrived (in order or not).
    fin_at: Option<SeqNum>,
    stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig, src_port: u16, dst_port: u16, iss: SeqNum) -> Self {
        TcpReceiver {
            cfg: *cfg,
            ports: (src_port, dst_port),
            state: if cfg.handshake {
                State::Closed
            } else {
                State::Established
            },
            iss,
            // Without a handshake the sender's ISS is 0 and data starts at 1 (see sender).
            rcv_nxt: SeqNum(1),
            ooo: Vec::new(),
            arrivals: 0,
            dsack: None,
            notice_pending: None,
            delivered: 0,
            neg: Negotiated::assumed(cfg),
            timers: TimerTable::default(),
            syn_rtt: RttEstimator::new(cfg.rto),
            ack_now: false,
            unacked: 0,
            quickacks_left: cfg.delack.quickack_segments,
            ts_recent: 0,
            last_ack_sent: None,
            ts_edge: SeqNum(1),
            fin_at: None,
            stats: ReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// Bytes delivered in order to the application.
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered
    }

    /// Whether the handshake is done (or none was asked).
    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.timers.next()
    }

    pub fn handle_segment(&mut self, now: Time, seg: &Segment) {
        self.stats.segments_received += 1;
        let syn = seg.flags.contains(Flags::SYN);
        match (self.state, syn) {
            (State::SynSent, true) if seg.flags.contains(Flags::ACK) => self.on_synack(seg),
            (State::Established, true) => self.ack_now = true, // a retransmitted SYN-ACK
            (State::Established, false) => self.on_data(now, seg),
            _ => {}
        }
    }

    fn on_synack(&mut self, seg: &Segment) {
        self.neg = negotiate(&self.cfg, &seg.options);
        self.rcv_nxt = seg.seq + 1;
        self.ts_edge = self.rcv_nxt;
        if let Some((tsval, _)) = seg.options.timestamps {
            self.ts_recent = tsval;
        }
        self.state = State::Established;
        self.timers.stop(Timer::Retransmit);
        self.ack_now = true;
    }

    fn on_data(&mut self, now: Time, seg: &Segment) {
        if let Some((tsval, _)) = seg.options.timestamps {
            // (A pure ACK carries nothing to drop: the receiver reads no ACK field.)
            let carries = seg.len > 0 || seg.flags.contains(Flags::FIN);
            if carries && self.paws_rejects(tsval) {
                self.reject_old(seg);
                return;
            }
            // RFC 7323 §4.3 (2): "If SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent then
            // SEG.TSval is copied to TS.Recent": while an ACK is delayed, the echo stays that
            // of the first segment it covers, so the sender's RTT includes the delay.
            if seg.seq <= self.ts_edge && tsval.wrapping_sub(self.ts_recent) as i32 >= 0 {
                self.ts_recent = tsval;
            }
        }
        let fin = seg.flags.contains(Flags::FIN);
        if seg.len == 0 && !fin {
            return; // a pure ACK: nothing to acknowledge
        }
        self.arrivals += 1;
        let (start, end) = (seg.seq, seg.seq + seg.len);
        // RFC 2883 §4 (1): a D-SACK block reports the most recent packet only, so an earlier
        // duplicate whose ACK is still delayed is not reported (as Linux's tcp_data_queue,
        // which clears rx_opt.dsack for every arriving segment). RFC 2883 §2 leaves the
        // moment of the ACK unchanged.
        self.dsack = if self.cfg.dsack && self.neg.sack && seg.len > 0 {
            self.first_duplicate(start, end)
        } else {
            None
        };
        if fin {
            // RFC 9293 §3.10.7.4: the FIN is processed when RCV.NXT reaches it; one that
            // arrives above a hole is kept until then (its ACK repeats the hole's edge).
            self.fin_at = Some(end);
        }
        if end <= self.rcv_nxt && !(fin && end == self.rcv_nxt) {
            self.stats.duplicate_segments += 1;
            if self.cfg.delack.duplicate_of_last_is_in_order
                && end == self.rcv_nxt
                && self.ooo.is_empty()
            {
                // ns-2's DelAck sink: like an in-order arrival (see DelAckConfig).
                self.on_in_order(now, seg.len);
                return;
            }
            // RFC 9293 §3.10.7.4: an old duplicate is acknowledged at once.
            self.ack_now = true;
            return;
        }
        if start > self.rcv_nxt {
            // RFC 5681 §4.2: an out-of-order segment is acknowledged immediately.
            self.stats.out_of_order_segments += 1;
            if end > start {
                self.insert_ooo(start, end);
            }
            self.ack_now = true;
            return;
        }
        let had_hole = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = self.rcv_nxt.max(end);
        self.absorb_ooo();
        self.delivered += (self.rcv_nxt - before) as u64;
        if self.fin_at == Some(self.rcv_nxt) {
            // The FIN takes one sequence number and is acknowledged at once (RFC 9293
            // §3.10.7.4, "eighth, check the FIN bit").
            self.rcv_nxt = self.rcv_nxt + 1;
            self.ack_now = true;
            return;
        }
        if had_hole {
            // RFC 5681 §4.2: a segment that fills (part of) a gap is acknowledged at once.
            self.ack_now = true;
            return;
        }
        self.on_in_order(now, seg.len);
    }

    /// PAWS (RFC 7323 §5.3 R1, `paws`): a TSval older than TS.Recent by more than
    /// `TCP_PAWS_WINDOW` (1 tick: Linux's `tcp_paws_check`) marks an old duplicate. Linux runs
    /// it on every segment before anything else (`tcp_validate_incoming`); a late original
    /// whose retransmission arrived first, and raised TS.Recent, is one.
    fn paws_rejects(&self, tsval: u32) -> bool {
        self.cfg.paws
            && self.neg.timestamps
            && self.ts_recent.wrapping_sub(tsval) as i32 > PAWS_WINDOW
    }

    /// R1's answer: "Send an acknowledgment in reply ... and drop the segment"; Linux's
    /// `tcp_send_dupack` at once, with a D-SACK block for a part below RCV.NXT (RFC 2883).
    fn reject_old(&mut self, seg: &Segment) {
        self.stats.paws_rejected += 1;
        let (start, end) = (seg.seq, seg.seq + seg.len);
        self.dsack = (self.cfg.dsack && self.neg.sack && start < self.rcv_nxt)
            .then(|| (start, end.min(self.rcv_nxt)));
        self.ack_now = true;
    }

    /// Delayed ACK (RFC 1122 §4.2.3.2; RFC 5681 §4.2): ACK at least every second full-sized
    /// segment, and within the delayed-ACK timeout.
    fn on_in_order(&mut self, now: Time, len: u32) {
        let d = self.cfg.delack;
        if !d.enabled || self.quickacks_left > 0 {
            self.quickacks_left = self.quickacks_left.saturating_sub(1);
            self.ack_now = true;
            return;
        }
        if len >= self.neg.mss || !d.short_segment_acks_at_once {
            self.unacked += 1;
        } else {
            self.unacked += d.every;
        }
        if self.unacked >= d.every {
            self.ack_now = true;
        } else if !self.timers.is_running(Timer::DelayedAck) {
            self.timers.set(Timer::DelayedAck, now + d.timeout);
        }
    }

    /// RFC 2883 §4 (3) and §4.2: the first contiguous run of `[start, end)` already received,
    /// below RCV.NXT or in an out-of-order block (of several runs, only the first is reported).
    fn first_duplicate(&self, start: SeqNum, end: SeqNum) -> Option<(SeqNum, SeqNum)> {
        if start < self.rcv_nxt {
            return Some((start, end.min(self.rcv_nxt)));
        }
        self.ooo
            .iter()
            .find(|&&(l, r, _)| l < end && start < r)
            .map(|&(l, r, _)| (start.max(l), end.min(r)))
    }

    fn insert_ooo(&mut self, start: SeqNum, end: SeqNum) {
        let stamp = self.arrivals;
        let (mut l, mut r) = (start, end);
        self.ooo.retain(|&(bl, br, _)| {
            if br < l || r < bl {
                true
            } else {
                l = l.min(bl);
                r = r.max(br);
                false
            }
        });
        self.ooo.push((l, r, stamp));
        self.ooo.sort_by_key(|b| b.0);
    }

    fn absorb_ooo(&mut self) {
        while let Some(&(l, r, _)) = self.ooo.first() {
            if l > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(r);
            self.ooo.remove(0);
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        if self.timers.expired(Timer::DelayedAck, now) {
            self.timers.stop(Timer::DelayedAck);
            self.ack_now = true;
        }
        if self.timers.expired(Timer::Retransmit, now) && self.state == State::SynSent {
            self.syn_rtt.on_rto();
            self.state = State::Closed; // resend the SYN on the next poll
        }
    }

    /// Inlined into its callers: with a second one (an MPTCP subflow's, `agent::mptcp`) the
    /// compiler stopped inlining it into TCP's `pump`, 1.7 % more instructions in the 20 MB
    /// cell (callgrind, run_timed).
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        match self.state {
            State::Closed => {
                self.state = State::SynSent;
                self.timers.set(Timer::Retransmit, now + self.syn_rtt.rto());
                Some(self.syn(now))
            }
            State::SynSent => None,
            State::Established if self.ack_now => Some(self.ack(now)),
            State::Established => None,
        }
    }

    fn syn(&self, now: Time) -> Transmit {
        let options = TcpOptions {
            mss: Some(super::options::mss_option(&self.cfg)),
            sack_permitted: self.cfg.sack,
            window_scale: self.cfg.window_scale,
            timestamps: self.cfg.timestamps.then(|| (ts_clock(now), 0)),
            sack: SackBlocks::EMPTY,
            handover_notice: None,
        };
        let segment = Segment {
            src_port: self.ports.0,
            dst_port: self.ports.1,
            seq: self.iss,
            ack: SeqNum(0),
            flags: Flags::SYN,
            window: self.cfg.receive_window.min(u16::MAX as u32) as u16,
            options,
            len: 0,
        };
        Transmit {
            segment,
            kind: TxKind::New,
        }
    }

    /// An ACK now, if established, as any it sends (it stops the delayed-ACK timer): the one
    /// Linux's MPTCP path manager sends to carry a signal (`mptcp_pm_addr_send_ack` ->
    /// `tcp_send_ack`, net/mptcp/pm.c).
    pub fn ack_at_once(&mut self, now: Time) -> Option<Transmit> {
        (self.state == State::Established).then(|| self.ack(now))
    }

    /// The mobile's handover manager announces a handover (issue 19): the next ACK carries
    /// the notification option to the sender, and goes at once (with no data arriving during
    /// the switch, a delayed or data-clocked ACK could be seconds away).
    pub fn notify_handover(&mut self, notice: HandoverNotice) {
        if self.state == State::Established {
            self.notice_pending = Some(notice);
            // An immediate ACK only once something has arrived: before that (a one-way
            // receiver waiting for ns-2's modelled SYN) a pure ACK would acknowledge a SYN it
            // has not seen. The notice then rides its first ACK.
            self.ack_now |= self.stats.segments_received > 0;
        }
    }

    /// Inlined as `poll_transmit` is (see there).
    #[inline(always)]
    fn ack(&mut self, now: Time) -> Transmit {
        self.ack_now = false;
        self.unacked = 0;
        self.timers.stop(Timer::DelayedAck);
        let mut options = TcpOptions {
            timestamps: self.neg.timestamps.then(|| (ts_clock(now), self.ts_recent)),
            ..TcpOptions::default()
        };
        if self.neg.sack && (self.dsack.is_some() || !self.ooo.is_empty()) {
            // RFC 2018 §4: the block with the most recent arrival first, then the others by
            // recency; 3 blocks fit beside timestamps, 4 without.
            let mut blocks: Vec<(SeqNum, SeqNum, u64)> = self.ooo.clone();
            blocks.sort_by_key(|b| std::cmp::Reverse(b.2));
            if let Some((l, r)) = self.dsack.take() {
                // RFC 2883 §4: the D-SACK block first, each duplicate in one ACK only (2); a
                // duplicate above the cumulative ACK is followed by the block holding it (4),
                // then the other blocks as RFC 2018 orders them (5).
                options.sack.push(l, r);
                self.stats.dsacks_sent += 1;
                if let Some(i) = blocks.iter().position(|&(bl, br, _)| bl <= l && r <= br) {
                    let holder = blocks.remove(i);
                    blocks.insert(0, holder);
                }
            }
            // 40 option bytes: 4 + 8 per block, after timestamps (12) and the notice (4).
            let used = if options.timestamps.is_some() { 12 } else { 0 }
                + if self.notice_pending.is_some() { 8 } else { 0 };
            let room = (40 - used - 4) / 8;
            for &(l, r, _) in blocks.iter() {
                if options.sack.len() == room {
                    break;
                }
                options.sack.push(l, r);
            }
        }
        options.handover_notice = std::mem::take(&mut self.notice_pending);
        if self.last_ack_sent == Some(self.rcv_nxt) && !self.ooo.is_empty() {
            self.stats.dupacks_sent += 1;
        }
        self.last_ack_sent = Some(self.rcv_nxt);
        self.ts_edge = self.rcv_nxt;
        self.stats.acks_sent += 1;
        let window = (self.cfg.receive_window >> self.neg.own_wscale).min(u16::MAX as u32) as u16;
        let segment = Segment {
            src_port: self.ports.0,
            dst_port: self.ports.1,
            seq: self.iss + 1,
            ack: self.rcv_nxt,
            flags: Flags::ACK,
            window,
            options,
            len: 0,
        };
        Transmit {
            segment,
            kind: TxKind::New,
        }
    }
}
