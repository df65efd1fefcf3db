//! RACK loss detection (RFC 8985 §6) as Linux runs it (`net/ipv4/tcp_recovery.c`), with
//! Linux's reordering degree `tp->reordering` (`tcp_check_sack_reordering`,
//! `net/ipv4/tcp_input.c`).
//!
//! RACK needs each outstanding segment's latest transmission time; vho keeps them here, one
//! entry per segment in sequence order from SND.UNA (Linux's retransmission queue with its
//! per-skb `skb_mstamp` and `TCPCB_*` marks). Only a sender that runs RACK carries one
//! (`LossDetection::Rack`), so the other profiles' hot path pays a `None` test.
//!
//! The rules, each from its Linux function:
//! - a segment (S)ACKed for the first time advances RACK's reference: its send time, its end
//!   and the RTT measured on it (`tcp_rack_advance`; RFC 8985 §6.2 step 2), unless it was
//!   retransmitted and the RTT is below min_rtt (the ACK may be the original's);
//! - a segment sent before the reference and neither SACKed nor already marked lost (a lost
//!   one counts again once retransmitted) is lost when rack.rtt + reo_wnd has passed since it
//!   was sent (`tcp_rack_detect_loss`; RFC 8985 §6.2 step 5), else the longest such wait arms
//!   the reorder timer (`tcp_rack_mark_lost`);
//! - reo_wnd (`tcp_rack_reo_wnd`; RFC 8985 §6.2 step 4): 0 while no reordering has been seen
//!   and the sender is in recovery or SACKed segments reach `reordering`, else
//!   min_rtt/4 × reo_wnd_steps, at most SRTT;
//! - a SACK or ACK of a never-retransmitted segment below the highest SACKed one is
//!   reordering: `reordering` rises to the distance in segments (at most
//!   `tcp_max_reordering`, 300) and reord_seen counts it (`tcp_check_sack_reordering`);
//! - a segment RACK marks lost leaves the time-sorted list RACK walks (`tcp_rack_detect_loss`:
//!   `list_del_init(&skb->tcp_tsorted_anchor)`) and comes back only when it is sent again
//!   (`tcp_update_skb_after_send`: `list_move_tail`). An undo that clears the lost marks
//!   (`tcp_undo_cwnd_reduction(sk, true)`, `tcp_try_undo_partial`) puts nothing back: a
//!   segment marked lost and not yet retransmitted then escapes RACK until the RTO resends
//!   it (`tcp_time_to_recover` needs `lost_out`; no TLP outside Open).
//!
//! vho's segments are SMSS-aligned from the first data byte, as the sender sends them; an
//! entry stands for one segment whatever the MSS (Linux's pcount is 1 without TSO).

use super::seq::SeqNum;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// `net.ipv4.tcp_max_reordering` default (Documentation/networking/ip-sysctl.rst: 300).
pub const MAX_REORDERING: u32 = 300;

/// `TCP_RACK_RECOVERY_THRESH` (include/linux/tcp.h): recoveries a widened reo_wnd persists.
const RECOVERY_THRESH: u8 = 16;

/// `net.ipv4.tcp_min_rtt_wlen` default (ip-sysctl.rst: 300 s): the window of the min_rtt
/// filter (`tcp_update_rtt_min`).
const MIN_RTT_WINDOW: Dur = Dur::from_secs(300);

/// Segment marks, as Linux's `TCP_SKB_CB(skb)->sacked` bits.
const SACKED: u8 = 1; // TCPCB_SACKED_ACKED
const LOST: u8 = 2; // TCPCB_LOST
const RETRANS_OUT: u8 = 4; // TCPCB_SACKED_RETRANS: a retransmission is in flight
const EVER_RETRANS: u8 = 8; // TCPCB_EVER_RETRANS
/// Off RACK's time-sorted list (`tp->tsorted_sent_queue`): marked lost by RACK and not sent
/// since (see the module doc).
const UNLISTED: u8 = 16;

#[derive(Clone, Copy, Debug)]
struct SentSeg {
    start: SeqNum,
    end: SeqNum,
    /// Latest transmission (`skb_mstamp`).
    xmit: Time,
    marks: u8,
}

/// What one ACK did to the marks ([`Rack::on_ack`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckTagging {
    /// Segments (S)ACKed for the first time by this ACK.
    pub delivered: u32,
    /// Send time of the lowest never-retransmitted segment this ACK newly SACKed
    /// (`tcp_sacktag_one`'s `first_sackt`: the SACK walk goes up the sequence space).
    pub first_sackt: Option<Time>,
}

/// What a loss-detection pass found ([`Rack::detect_loss`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// Segments newly marked lost.
    pub newly_lost: u32,
    /// Of them, retransmissions lost again (`FLAG_LOST_RETRANS`).
    pub lost_retransmissions: u32,
    /// The reorder timer: the longest a segment not yet lost still has to wait.
    pub reorder_wait: Option<Dur>,
}

/// RACK's state (`struct tcp_rack`, RFC 8985 §6.1) with the segments it reads.
#[derive(Clone, Debug)]
pub struct Rack {
    segs: VecDeque<SentSeg>,
    /// RACK.xmit_ts / `rack.mstamp`: send time of the most recently sent segment delivered.
    xmit: Time,
    /// RACK.end_seq / `rack.end_seq`.
    end_seq: SeqNum,
    /// RACK.rtt / `rack.rtt_us`.
    rtt: Dur,
    /// Some segment was delivered (RACK has a reference).
    has_reference: bool,
    /// `rack.advanced`: the reference moved since the last detection pass.
    advanced: bool,
    /// `rack.reo_wnd_steps` (1 at start, `tcp_init_sock`).
    reo_wnd_steps: u32,
    /// `rack.reo_wnd_persist`.
    reo_wnd_persist: u8,
    /// `rack.dsack_seen`, and SND.MAX when the window last widened (`rack.last_delivered`:
    /// at most one widening per round trip).
    dsack_seen: bool,
    widened_until: SeqNum,
    /// `tp->reord_seen`: reordering events seen.
    reord_seen: u32,
    /// `tp->reordering`, in segments.
    reordering: u32,
    /// The reordering threshold configured (`net.ipv4.tcp_reordering`).
    reordering_init: u32,
    /// Windowed minimum RTT (`tcp_min_rtt`): value and when it was taken.
    min_rtt: Option<(Dur, Time)>,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// End of the highest SACKed segment (`tcp_highest_sack_seq`).
    high_sacked: Option<SeqNum>,
    /// The reorder timer's deadline (RFC 8985 §6.3; ICSK_TIME_REO_TIMEOUT). As in Linux it
    /// takes the retransmission timer's slot (`inet_csk_reset_xmit_timer`), which fires it:
    /// the slot holds the reorder timer while its deadline is this one (any restart of the
    /// RTO, as an ACK's `tcp_rearm_rto`, replaces it); senders without RACK scan no extra
    /// timer.
    pub reorder_at: Option<Time>,
}

#[inline]
fn sent_after(t1: Time, seq1: SeqNum, t2: Time, seq2: SeqNum) -> bool {
    // tcp_skb_sent_after: later, or at the same time further in sequence.
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// `reordering`: `net.ipv4.tcp_reordering` (3, the dupthresh).
    pub fn new(reordering: u32) -> Self {
        Rack {
            segs: VecDeque::new(),
            xmit: Time::ZERO,
            end_seq: SeqNum(0),
            rtt: Dur::ZERO,
            has_reference: false,
            advanced: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            widened_until: SeqNum(0),
            reord_seen: 0,
            reordering: reordering.max(1),
            reordering_init: reordering.max(1),
            min_rtt: None,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            high_sacked: None,
            reorder_at: None,
        }
    }

    // ---- getters ----

    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }
    pub fn sacked_out(&self) -> u32 {
        self.sacked_out
    }
    pub fn reordering(&self) -> u32 {
        self.reordering
    }
    pub fn reord_seen(&self) -> u32 {
        self.reord_seen
    }
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt.map(|m| m.0)
    }

    /// `tcp_packets_in_flight`: segments out − SACKed − lost + retransmissions in flight.
    pub fn in_flight(&self) -> u32 {
        (self.segs.len() as u32 + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// The first segment marked lost and not retransmitted since (what
    /// `tcp_xmit_retransmit_queue` sends next).
    pub fn next_lost(&self) -> Option<SeqNum> {
        if self.lost_out == 0 {
            return None;
        }
        self.segs
            .iter()
            .find(|s| s.marks & (LOST | RETRANS_OUT | SACKED) == LOST)
            .map(|s| s.start)
    }

    /// Whether the segment at `seq` is marked lost and awaits its retransmission.
    pub fn is_lost(&self, seq: SeqNum) -> bool {
        self.index_of(seq)
            .is_some_and(|i| self.segs[i].marks & (LOST | RETRANS_OUT) == LOST)
    }

    fn index_of(&self, seq: SeqNum) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    // ---- inputs ----

    /// Segment `[seq, end)` left at `now` (`tcp_transmit_skb` stamps `skb_mstamp`); a
    /// retransmission sets TCPCB_SACKED_RETRANS and TCPCB_EVER_RETRANS (`__tcp_retransmit_skb`).
    pub fn on_send(&mut self, seq: SeqNum, end: SeqNum, now: Time, retransmission: bool) {
        if self.segs.back().is_none_or(|s| s.end <= seq) {
            let marks = if retransmission {
                RETRANS_OUT | EVER_RETRANS
            } else {
                0
            };
            self.retrans_out += u32::from(retransmission);
            self.segs.push_back(SentSeg {
                start: seq,
                end,
                xmit: now,
                marks,
            });
            return;
        }
        let from = self.segs.partition_point(|s| s.end <= seq);
        if self.segs.get(from).is_some_and(|s| s.start >= end) {
            // New data below a segment sent before it (TCP Probe's inverted pair sends the
            // pair's second segment first): into its place in sequence.
            self.segs.insert(
                from,
                SentSeg {
                    start: seq,
                    end,
                    xmit: now,
                    marks: 0,
                },
            );
            return;
        }
        for s in self.segs.range_mut(from..) {
            if s.start >= end {
                break;
            }
            s.xmit = now;
            s.marks &= !UNLISTED; // tcp_update_skb_after_send: back on the list's tail
            if retransmission && s.marks & (RETRANS_OUT | SACKED) == 0 {
                s.marks |= RETRANS_OUT | EVER_RETRANS;
                self.retrans_out += 1;
            }
        }
    }

    /// An ACK at `now` acknowledging up to `una` with SACK blocks `sack` (D-SACK block left
    /// out by the caller), `dsack` if it carried one, `tsecr` its timestamp echo (ms): tags
    /// the segments (`tcp_sacktag_write_queue`, `tcp_clean_rtx_queue`), advances RACK's
    /// reference for each first delivery (`tcp_rack_advance`), and raises `reordering` when a
    /// never-retransmitted hole below the highest SACKed segment is filled
    /// (`tcp_check_sack_reordering`).
    pub fn on_ack(
        &mut self,
        now: Time,
        una: SeqNum,
        sack: &[(SeqNum, SeqNum)],
        dsack: bool,
        tsecr: Option<u32>,
        mss: u32,
    ) -> AckTagging {
        let mut out = AckTagging::default();
        let prior_fack = self.high_sacked;
        // Lowest start of a never-retransmitted segment delivered now (`state->reord`).
        let mut reord: Option<SeqNum> = None;
        let mut low = |s: SeqNum| {
            reord = Some(reord.map_or(s, |r: SeqNum| r.min(s)));
        };
        let mut first_sackt: Option<(SeqNum, Time)> = None;
        for &(l, r) in sack {
            let from = self.segs.partition_point(|s| s.end <= l);
            for i in from..self.segs.len() {
                let s = self.segs[i];
                if s.end > r {
                    break;
                }
                if s.start < l || s.marks & SACKED != 0 {
                    continue;
                }
                self.segs[i].marks |= SACKED;
                self.unmark_in_flight(i);
                self.sacked_out += 1;
                out.delivered += 1;
                if s.marks & EVER_RETRANS == 0 {
                    if self.high_sacked.is_some_and(|h| s.start < h) {
                        low(s.start);
                    }
                    if first_sackt.is_none_or(|(f, _)| s.start < f) {
                        first_sackt = Some((s.start, s.xmit));
                    }
                }
                if self.high_sacked.is_none_or(|h| s.end > h) {
                    self.high_sacked = Some(s.end);
                }
                // tcp_sacktag_one advances RACK for a retransmitted segment as for any other,
                // judged by `advance`'s min_rtt rule only (tcp_skb_spurious_retrans is
                // tcp_clean_rtx_queue's test): a SACKed segment's echo is TS.Recent, that of
                // the last in-order segment (RFC 7323 §4.3), which says nothing of which copy
                // arrived — it would hide a tail loss probe's SACK.
                self.advance(now, s);
            }
        }
        while let Some(&s) = self.segs.front() {
            if s.end > una {
                break;
            }
            self.segs.pop_front();
            if s.marks & SACKED != 0 {
                self.sacked_out -= 1;
                continue;
            }
            self.lost_out -= u32::from(s.marks & LOST != 0);
            self.retrans_out -= u32::from(s.marks & RETRANS_OUT != 0);
            out.delivered += 1;
            if s.marks & EVER_RETRANS == 0 {
                low(s.start);
            } else if tsecr.is_some_and(|t| t < ms(s.xmit)) {
                continue; // tcp_skb_spurious_retrans
            }
            self.advance(now, s);
        }
        if self.high_sacked.is_some_and(|h| h <= una) {
            self.high_sacked = None;
        }
        if let (Some(low), Some(fack)) = (reord, prior_fack) {
            if low < fack {
                // tcp_check_sack_reordering: metric = fack − low_seq, in segments rounded up.
                self.note_reordering((fack - low).div_ceil(mss.max(1)));
            }
        }
        // tcp_dsack_seen: "RACK ignores DSACKs that happen without having seen reordering"
        // (a spurious retransmission is then no sign that reo_wnd was too short).
        if dsack && self.reord_seen > 0 {
            self.dsack_seen = true;
        }
        out.first_sackt = first_sackt.map(|(_, t)| t);
        out
    }

    /// `tcp_rack_update_reo_wnd` on an ACK: a D-SACK seen at least a round trip after the
    /// last widening widens reo_wnd by one step (`reo_wnd_steps`, at most 255) and keeps it
    /// for the next 16 recoveries (`reo_wnd_persist`); once they have passed, the window is
    /// one step again. The round trip is judged by SND.UNA passing what was sent at the last
    /// widening (vho's stand-in for `tp->delivered` and `rack.last_delivered`).
    pub fn update_reo_wnd(&mut self, una: SeqNum, snd_max: SeqNum) {
        if self.dsack_seen && una < self.widened_until {
            // "Disregard DSACK if a rtt has not passed since we adjusted reo_wnd"
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(0xff);
            self.dsack_seen = false;
            self.widened_until = snd_max;
            self.reo_wnd_persist = RECOVERY_THRESH;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }

    /// A fast recovery ended without an undo (`tcp_try_undo_recovery`: `reo_wnd_persist--`).
    pub fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
    }

    /// Reordering of `degree` segments observed (`tcp_check_sack_reordering`, and the undo of
    /// a recovery found spurious): `reordering` = max(itself, min(degree,
    /// `tcp_max_reordering`)); `reord_seen` counts the event.
    pub fn note_reordering(&mut self, degree: u32) {
        if degree > self.reordering {
            self.reordering = degree.min(MAX_REORDERING);
        }
        self.reord_seen += 1;
    }

    /// `tcp_rack_advance` (RFC 8985 §6.2 step 2).
    fn advance(&mut self, now: Time, s: SentSeg) {
        let rtt = now.saturating_since(s.xmit);
        if s.marks & EVER_RETRANS != 0 && self.min_rtt.is_some_and(|(m, _)| rtt < m) {
            // Ambiguous: the original (or an earlier retransmission) may have been delivered.
            return;
        }
        if s.marks & EVER_RETRANS == 0 {
            self.update_min_rtt(now, rtt);
        }
        self.advanced = true;
        self.rtt = rtt;
        if !self.has_reference || sent_after(s.xmit, s.end, self.xmit, self.end_seq) {
            self.xmit = s.xmit;
            self.end_seq = s.end;
            self.has_reference = true;
        }
    }

    /// `tcp_update_rtt_min`: the least RTT of the last `tcp_min_rtt_wlen` (300 s). vho keeps
    /// one value and replaces it when it ages out (Linux's `minmax_running_min` keeps three to
    /// fall back on; the two agree while the minimum is younger than 300 s).
    fn update_min_rtt(&mut self, now: Time, rtt: Dur) {
        match self.min_rtt {
            Some((m, at)) if rtt > m && now.saturating_since(at) < MIN_RTT_WINDOW => {}
            _ => self.min_rtt = Some((rtt, now)),
        }
    }

    /// `tcp_rack_reo_wnd` (RFC 8985 §6.2 step 4). `in_recovery`: fast recovery or a
    /// timeout's (icsk_ca_state >= TCP_CA_Recovery).
    pub fn reo_wnd(&self, in_recovery: bool, srtt: Dur) -> Dur {
        if self.reord_seen == 0 && (in_recovery || self.sacked_out >= self.reordering) {
            return Dur::ZERO;
        }
        // Before the estimator's first sample (vho times one segment per round trip without
        // timestamps; Linux would have one from this very SACK, `tcp_ack_update_rtt`'s
        // sack_rtt) SRTT caps nothing.
        let cap = if srtt == Dur::ZERO { Dur::MAX } else { srtt };
        match self.min_rtt {
            Some((m, _)) => {
                Dur::from_nanos((m.as_nanos() / 4) * self.reo_wnd_steps as u64).min(cap)
            }
            None => srtt, // tcp_min_rtt is ~0U before a sample: the cap decides
        }
    }

    /// `tcp_rack_mark_lost`: a detection pass when the reference advanced since the last.
    pub fn mark_lost(&mut self, now: Time, reo_wnd: Dur) -> Detection {
        if !self.advanced {
            return Detection::default();
        }
        self.advanced = false;
        self.detect_loss(now, reo_wnd)
    }

    /// `tcp_rack_detect_loss` (RFC 8985 §6.2 step 5): every segment sent before RACK's
    /// reference, not SACKed and not awaiting a retransmission already, is lost once
    /// rack.rtt plus reo_wnd has passed since it was sent (`remaining <= 0`); a retransmission
    /// lost again loses its TCPCB_SACKED_RETRANS (`tcp_mark_skb_lost`). A segment it marks
    /// lost leaves the list (`list_del_init`) until sent again. Linux walks its time-sorted
    /// list and stops at the first segment sent after the reference; vho walks in sequence
    /// and skips those, and those off the list.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Dur) -> Detection {
        let mut d = Detection::default();
        if !self.has_reference {
            return d;
        }
        let deadline = self.rtt + reo_wnd;
        for s in self.segs.iter_mut() {
            if s.marks & (SACKED | UNLISTED) != 0 || s.marks & (LOST | RETRANS_OUT) == LOST {
                continue;
            }
            if !sent_after(self.xmit, self.end_seq, s.xmit, s.end) {
                continue;
            }
            let waited = now.saturating_since(s.xmit);
            if waited >= deadline {
                if s.marks & RETRANS_OUT != 0 {
                    s.marks &= !RETRANS_OUT;
                    self.retrans_out -= 1;
                    d.lost_retransmissions += 1;
                }
                if s.marks & LOST == 0 {
                    s.marks |= LOST;
                    self.lost_out += 1;
                }
                s.marks |= UNLISTED;
                d.newly_lost += 1;
            } else {
                let left = deadline - waited;
                d.reorder_wait = Some(d.reorder_wait.map_or(left, |w: Dur| w.max(left)));
            }
        }
        d
    }

    /// Send time of the first outstanding segment (`tcp_rto_delta_us` reads it).
    pub fn head_sent(&self) -> Option<Time> {
        self.segs.front().map(|s| s.xmit)
    }

    /// `tcp_timeout_mark_lost` (net/ipv4/tcp_input.c) at a retransmission timeout `now`, RACK
    /// on: the head and every segment not SACKed that was sent at least rack.rtt ago
    /// (`tcp_rack_skb_timeout(tp, skb, 0) <= 0`) is marked lost, with no retransmission in
    /// flight; one sent within the last rack.rtt is spared ("Don't mark recently sent ones
    /// lost yet": its marks stay) until RACK judges it. Before any delivery rack.rtt is 0 and
    /// every segment is marked. (`tcp_mark_skb_lost` keeps TCPCB_SACKED_RETRANS on a segment
    /// not yet marked lost; vho clears it, as its tail loss probe sets the mark where Linux's
    /// `__tcp_retransmit_skb` does not.)
    pub fn on_rto(&mut self, now: Time) {
        let rtt = self.rtt;
        for (i, s) in self.segs.iter_mut().enumerate() {
            if s.marks & SACKED != 0 || (i > 0 && now.saturating_since(s.xmit) < rtt) {
                continue;
            }
            s.marks = (s.marks & !RETRANS_OUT) | LOST;
        }
        let count = |m: u8| self.segs.iter().filter(|s| s.marks & m != 0).count() as u32;
        self.retrans_out = count(RETRANS_OUT);
        self.lost_out = count(LOST);
    }

    /// The end of the segment holding `seq` if the timeout spared it: sent, neither SACKed
    /// nor marked lost and awaiting its retransmission (`tcp_xmit_retransmit_queue` resends
    /// only segments marked TCPCB_LOST without TCPCB_SACKED_RETRANS).
    pub fn spared_end(&self, seq: SeqNum) -> Option<SeqNum> {
        let i = self.index_of(seq)?;
        let s = &self.segs[i];
        (s.marks & (LOST | RETRANS_OUT | SACKED) != LOST).then_some(s.end)
    }

    /// Bytes below `seq` marked lost and not resent since: out of flight (Linux's
    /// `tcp_packets_in_flight` leaves them out).
    pub fn lost_bytes_below(&self, seq: SeqNum) -> u32 {
        self.segs
            .iter()
            .take_while(|s| s.start < seq)
            .filter(|s| s.marks & (LOST | RETRANS_OUT | SACKED) == LOST)
            .map(|s| s.end.min(seq) - s.start)
            .sum()
    }

    /// `tcp_enter_loss`'s check before [`Rack::on_rto`]: "Timeout in disordered state after
    /// receiving substantial DUPACKs suggests that the degree of reordering is
    /// over-estimated": in Open, with `reordering_init` or more SACKed, `reordering` falls
    /// back to at most the configured value.
    pub fn on_rto_in_open(&mut self) {
        if self.sacked_out >= self.reordering_init {
            self.reordering = self.reordering.min(self.reordering_init);
        }
    }

    /// An undo (`tcp_undo_cwnd_reduction` with `unmark_loss`): no segment is lost any more.
    /// Those RACK had marked stay off its list until sent again (see the module doc).
    pub fn unmark_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.marks &= !LOST;
        }
        self.lost_out = 0;
    }

    fn unmark_in_flight(&mut self, i: usize) {
        let m = self.segs[i].marks;
        self.lost_out -= u32::from(m & LOST != 0);
        self.retrans_out -= u32::from(m & RETRANS_OUT != 0);
        self.segs[i].marks &= !(LOST | RETRANS_OUT);
    }
}

/// The timestamp clock's value at `t` (ms, as `ts_clock`).
fn ms(t: Time) -> u32 {
    (t.as_nanos() / 1_000_000) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn t(ms: u64) -> Time {
        Time::from_millis(ms)
    }

    fn seg(k: u32) -> (SeqNum, SeqNum) {
        (SeqNum(k * MSS), SeqNum((k + 1) * MSS))
    }

    /// Segments 0..n sent 10 ms apart from t = 0.
    fn sent(n: u32) -> Rack {
        let mut r = Rack::new(3);
        for k in 0..n {
            let (s, e) = seg(k);
            r.on_send(s, e, t(10 * k as u64), false);
        }
        r
    }

    fn sack(r: &mut Rack, now: u64, una: u32, blocks: &[u32]) -> AckTagging {
        let b: Vec<_> = blocks.iter().map(|&k| seg(k)).collect();
        r.on_ack(t(now), SeqNum(una * MSS), &b, false, None, MSS)
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_rack_rtt_plus_reo_wnd() {
        // RFC 8985 §6.2 steps 2, 4, 5 (tcp_rack_advance, tcp_rack_reo_wnd,
        // tcp_rack_detect_loss). Segments 0-4 sent at 0, 10, .., 40 ms; at 130 ms segment 3
        // (sent at 30 ms) is SACKed: RACK.rtt = 100 ms = min_rtt, reo_wnd = min_rtt/4 = 25 ms
        // (no reordering seen, 1 SACKed < reordering 3, not in recovery).
        let mut r = sent(5);
        assert_eq!(sack(&mut r, 130, 0, &[3]).delivered, 1);
        assert_eq!(r.min_rtt(), Some(Dur::from_millis(100)));
        let reo = r.reo_wnd(false, Dur::from_millis(100));
        assert_eq!(reo, Dur::from_millis(25));
        // Deadline 125 ms after sending: segment 0 (waited 130) is lost; 1 and 2 (120, 110)
        // wait, the longest 15 ms more; 4 was sent after the reference and is not judged.
        let d = r.mark_lost(t(130), reo);
        assert_eq!(d.newly_lost, 1);
        assert_eq!(d.reorder_wait, Some(Dur::from_millis(15)));
        assert_eq!(r.next_lost(), Some(SeqNum(0)));
        // tcp_packets_in_flight: 5 out − 1 SACKed − 1 lost.
        assert_eq!(r.in_flight(), 3);
        // No new delivery: no new pass (rack.advanced is clear).
        assert_eq!(r.mark_lost(t(200), reo), Detection::default());
        // The reorder timer's pass (tcp_rack_reo_timeout) at 145 ms: 1 and 2 are lost too.
        let d = r.detect_loss(t(145), reo);
        assert_eq!((d.newly_lost, d.reorder_wait), (2, None));
        assert_eq!(r.lost_out(), 3);
        assert!(r.is_lost(SeqNum(2500)) && !r.is_lost(SeqNum(4000)));
    }

    #[test]
    fn reo_wnd_is_zero_at_dupthresh_or_in_recovery_until_reordering_is_seen() {
        // tcp_rack_reo_wnd: "If reordering has not been observed, be aggressive during the
        // recovery or starting the recovery by DUPACK threshold."
        let srtt = Dur::from_millis(80);
        let mut r = sent(6);
        sack(&mut r, 130, 0, &[3]);
        sack(&mut r, 140, 0, &[3, 4]);
        assert_eq!(r.reo_wnd(false, srtt), Dur::from_millis(25));
        assert_eq!(r.reo_wnd(true, srtt), Dur::ZERO);
        sack(&mut r, 150, 0, &[3, 4, 5]);
        assert_eq!(r.sacked_out(), 3);
        assert_eq!(r.reo_wnd(false, srtt), Dur::ZERO);
        // With 3 SACKed and reo_wnd 0, every unSACKed segment sent before segment 5 is lost at
        // once, as RFC 6675's DupThresh would have it (RFC 8985 §6.2 step 4's note).
        let d = r.mark_lost(t(150), Dur::ZERO);
        assert_eq!(d.newly_lost, 3);
        // A D-SACK before any reordering is seen widens nothing (tcp_dsack_seen).
        let b = [seg(5)];
        r.on_ack(t(151), SeqNum(0), &b, true, None, MSS);
        r.update_reo_wnd(SeqNum(0), SeqNum(6 * MSS));
        assert_eq!(r.reo_wnd_steps, 1);
        // Reordering seen: min_rtt/4 even in recovery, capped at SRTT: one step is 25 ms, four
        // D-SACK widenings make five steps, 125 ms, above SRTT 80 ms.
        r.note_reordering(4);
        assert_eq!(r.reo_wnd(true, srtt), Dur::from_millis(25));
        for k in 0..4u32 {
            r.dsack_seen = true;
            r.update_reo_wnd(SeqNum(10 * MSS * (k + 1)), SeqNum(10 * MSS * (k + 1)));
        }
        assert_eq!(r.reo_wnd_steps, 5);
        assert_eq!(r.reo_wnd(true, srtt), srtt);
        // A D-SACK within a round trip of the last widening is disregarded.
        r.dsack_seen = true;
        r.update_reo_wnd(SeqNum(MSS), SeqNum(50 * MSS));
        assert_eq!(r.reo_wnd_steps, 5);
        // tcp_try_undo_recovery counts 16 recoveries down, then the window is one step again.
        for _ in 0..16 {
            r.on_recovery_end();
        }
        r.update_reo_wnd(SeqNum(60 * MSS), SeqNum(60 * MSS));
        assert_eq!(r.reo_wnd_steps, 1);
    }

    #[test]
    fn a_hole_filled_below_the_highest_sack_raises_reordering_to_its_distance() {
        // tcp_check_sack_reordering: low_seq below the highest SACKed end (fack), never
        // retransmitted: reordering = ceil((fack − low_seq) / mss) if that exceeds it, at most
        // tcp_max_reordering; reord_seen counts every event.
        let mut r = sent(12);
        sack(&mut r, 130, 0, &[3]);
        assert_eq!((r.reordering(), r.reord_seen()), (3, 0));
        // Segment 1 SACKed below fack = 4000: distance 3 segments, not above 3.
        sack(&mut r, 131, 0, &[1, 3]);
        assert_eq!((r.reordering(), r.reord_seen()), (3, 1));
        // Segment 10 SACKed (fack 11000), then the cumulative ACK covers 0-2 (0 and 2 never
        // retransmitted, low_seq 0): 11 segments.
        sack(&mut r, 132, 0, &[10]);
        sack(&mut r, 133, 3, &[10]);
        assert_eq!((r.reordering(), r.reord_seen()), (11, 2));
        // A retransmitted segment filling a hole is no evidence of reordering.
        let mut r = sent(6);
        sack(&mut r, 130, 0, &[5]);
        r.on_send(SeqNum(0), SeqNum(MSS), t(140), true);
        sack(&mut r, 250, 1, &[5]);
        assert_eq!(r.reord_seen(), 0);
        // The cap.
        r.note_reordering(1000);
        assert_eq!(r.reordering(), MAX_REORDERING);
    }

    #[test]
    fn a_lost_retransmission_is_detected_again_by_a_later_delivery() {
        // RFC 8985 §6.2 ("RACK ... applies to both original and retransmitted segments") and
        // tcp_rack_detect_loss's skip rule: a segment marked lost is judged again once
        // retransmitted (TCPCB_SACKED_RETRANS); tcp_mark_skb_lost clears that mark.
        let mut r = sent(4);
        sack(&mut r, 130, 0, &[1, 2, 3]);
        assert_eq!(r.mark_lost(t(130), Dur::ZERO).newly_lost, 1);
        r.on_send(SeqNum(0), SeqNum(MSS), t(135), true);
        assert_eq!(r.next_lost(), None);
        assert_eq!(r.in_flight(), 1); // 4 − 3 SACKed − 1 lost + 1 retransmitted
                                      // New data sent after the retransmission and SACKed 100 ms later.
        r.on_send(SeqNum(4 * MSS), SeqNum(5 * MSS), t(140), false);
        sack(&mut r, 240, 0, &[1, 2, 3, 4]);
        let d = r.mark_lost(t(240), Dur::ZERO);
        assert_eq!((d.newly_lost, d.lost_retransmissions), (1, 1));
        assert_eq!(r.next_lost(), Some(SeqNum(0)));
        assert_eq!(r.in_flight(), 0);
        // Sent a third time; a cumulative ACK then clears every mark.
        r.on_send(SeqNum(0), SeqNum(MSS), t(245), true);
        sack(&mut r, 345, 5, &[]);
        assert_eq!((r.lost_out(), r.sacked_out(), r.in_flight()), (0, 0, 0));
    }

    #[test]
    fn an_ambiguous_fast_delivery_of_a_retransmission_does_not_advance_rack() {
        // tcp_rack_advance: a retransmitted segment (S)ACKed sooner than min_rtt after its
        // retransmission may be the original's delivery; RACK's reference stays.
        let mut r = sent(3);
        sack(&mut r, 120, 0, &[2]); // rtt 100 ms from segment 2
        r.on_send(SeqNum(0), SeqNum(MSS), t(125), true);
        sack(&mut r, 130, 0, &[0, 2]); // 5 ms after the retransmission
        assert_eq!((r.xmit, r.rtt), (t(20), Dur::from_millis(100)));
        // With timestamps, a cumulative ACK whose echo is older than the retransmission says
        // the original arrived (tcp_clean_rtx_queue's tcp_skb_spurious_retrans): no advance
        // either, however late.
        let mut r = sent(3);
        sack(&mut r, 120, 0, &[2]);
        r.on_send(SeqNum(0), SeqNum(MSS), t(125), true);
        r.on_ack(t(300), SeqNum(MSS), &[seg(2)], false, Some(5), MSS);
        assert_eq!(r.xmit, t(20));
        // A SACK is judged by min_rtt alone (tcp_sacktag_one): its echo is TS.Recent, that of
        // the last in-order segment, whichever copy arrived.
        let mut r = sent(3);
        sack(&mut r, 120, 0, &[2]);
        r.on_send(SeqNum(MSS), SeqNum(2 * MSS), t(125), true);
        r.on_ack(t(300), SeqNum(0), &[seg(1), seg(2)], false, Some(5), MSS);
        assert_eq!(r.xmit, t(125));
    }

    #[test]
    fn a_segment_rack_marked_lost_and_unmarked_by_an_undo_escapes_rack_until_resent() {
        // tcp_rack_detect_loss takes a segment it marks lost off tp->tsorted_sent_queue
        // (list_del_init); only its next transmission puts it back (tcp_update_skb_after_send,
        // list_move_tail); tcp_try_undo_partial's tcp_undo_cwnd_reduction(sk, true) clears
        // TCPCB_LOST and lost_out but not the list. Linux 6.18 in vho emulate's GPRS -> WLAN
        // soft cell: four segments marked lost at 1.066 s, one resent, the partial undo at
        // 1.117 s, then no loss marked until the RTO at 2.865 s (tcpi_lost 0 throughout).
        let mut r = sent(8);
        sack(&mut r, 150, 0, &[5, 6, 7]);
        // reo_wnd 0 (3 SACKed, no reordering seen): 0-4 are lost.
        assert_eq!(r.mark_lost(t(150), Dur::ZERO).newly_lost, 5);
        r.on_send(SeqNum(0), SeqNum(MSS), t(155), true);
        // The partial ACK of segment 0 (its original, delayed) and the undo.
        sack(&mut r, 160, 1, &[5, 6, 7]);
        r.unmark_lost();
        assert_eq!((r.lost_out(), r.next_lost()), (0, None));
        // New data sent at 170 ms and SACKed at 270 ms: RACK's reference moves past 1-4,
        // sent at 10-40 ms, long past rack.rtt; none of them is marked lost again.
        for k in 8..10 {
            let (s, e) = seg(k);
            r.on_send(s, e, t(170), false);
        }
        sack(&mut r, 270, 1, &[5, 6, 7, 8, 9]);
        assert_eq!(r.mark_lost(t(270), Dur::ZERO), Detection::default());
        assert_eq!(r.detect_loss(t(5000), Dur::ZERO), Detection::default());
        assert_eq!(r.in_flight(), 4);
        // Resent (by the RTO), segment 1 is judged again: lost once a later one is SACKed
        // and rack.rtt has passed; 2-4, not resent, still are not.
        r.on_send(SeqNum(MSS), SeqNum(2 * MSS), t(5000), true);
        let (s, e) = seg(10);
        r.on_send(s, e, t(5001), false);
        sack(&mut r, 5101, 1, &[5, 6, 7, 8, 9, 10]);
        let d = r.mark_lost(t(5101), Dur::ZERO);
        assert_eq!((d.newly_lost, d.lost_retransmissions), (1, 1));
        assert_eq!(r.next_lost(), Some(SeqNum(MSS)));
        // Segments marked lost by a timeout stay on the list (tcp_timeout_mark_lost does not
        // unlink them): unmarked by an undo, RACK judges them again.
        let mut r = sent(5);
        sack(&mut r, 130, 0, &[4]);
        r.on_rto(t(1000));
        r.unmark_lost();
        sack(&mut r, 131, 0, &[3, 4]);
        assert_eq!(r.mark_lost(t(131), Dur::ZERO).newly_lost, 3);
    }

    #[test]
    fn a_timeout_marks_every_unsacked_segment_sent_a_rack_rtt_ago_lost_and_an_undo_unmarks_them() {
        // tcp_timeout_mark_lost (all sent at least rack.rtt = 100 ms before the timeout at 1 s)
        // and tcp_undo_cwnd_reduction(sk, true).
        let mut r = sent(5);
        sack(&mut r, 130, 0, &[3]);
        r.on_rto(t(1000));
        assert_eq!((r.lost_out(), r.in_flight()), (4, 0));
        assert_eq!(r.next_lost(), Some(SeqNum(0)));
        r.unmark_lost();
        assert_eq!((r.lost_out(), r.in_flight()), (0, 4));
        // tcp_enter_loss in Open/Disorder: reordering falls back to the sysctl when as many
        // segments as it are SACKed.
        let mut r = sent(8);
        r.note_reordering(10);
        sack(&mut r, 130, 0, &[4, 5, 6]);
        r.on_rto_in_open();
        assert_eq!(r.reordering(), 3);
    }

    #[test]
    fn a_timeout_spares_the_segments_sent_within_the_last_rack_rtt() {
        // tcp_timeout_mark_lost with RACK (net/ipv4/tcp_input.c): the head is marked lost; any
        // other segment only if tcp_rack_skb_timeout(tp, skb, 0) <= 0, i.e. it was sent at
        // least rack.rtt ago ("Don't mark recently sent ones lost yet"). Segments 0-4 sent at
        // 0-40 ms, segment 3 SACKed at 130 ms (rack.rtt 100 ms), 5 and 6 sent at 120 and 200
        // ms, segment 1 resent at 150 ms. The timeout at 215 ms marks 0 (the head), 2 and 4
        // (sent 195 and 175 ms before); 1, 5 and 6 (65, 95, 15 ms) are spared.
        let mut r = sent(5);
        sack(&mut r, 130, 0, &[3]);
        for (k, at) in [(5u32, 120u64), (6, 200)] {
            let (s, e) = seg(k);
            r.on_send(s, e, t(at), false);
        }
        r.on_send(SeqNum(MSS), SeqNum(2 * MSS), t(150), true);
        r.on_rto(t(215));
        assert_eq!(r.lost_out(), 3);
        assert!(r.is_lost(SeqNum(0)) && r.is_lost(SeqNum(2 * MSS)) && r.is_lost(SeqNum(4 * MSS)));
        for k in [1u32, 5, 6] {
            assert_eq!(
                r.spared_end(SeqNum(k * MSS)),
                Some(SeqNum((k + 1) * MSS)),
                "{k}"
            );
        }
        assert_eq!(r.spared_end(SeqNum(0)), None);
        assert_eq!(r.spared_end(SeqNum(3 * MSS)), Some(SeqNum(4 * MSS))); // SACKed
                                                                          // tcp_packets_in_flight: 7 out - 1 SACKed - 3 lost + 1 retransmission in flight.
        assert_eq!(r.in_flight(), 4);
        assert_eq!(r.lost_bytes_below(SeqNum(5 * MSS)), 3 * MSS);
        // Before any delivery rack.rtt is 0: every segment is marked.
        let mut r = sent(3);
        r.on_rto(t(20));
        assert_eq!(r.lost_out(), 3);
    }

    #[test]
    fn a_new_segment_sent_after_the_one_above_it_takes_its_place_in_sequence() {
        // TCP Probe's inverted pair (Chen et al. §3.2) sends segment i+1 before i: RACK's
        // queue (Linux's retransmission queue, in sequence order) holds both, in order, with
        // their send times; SACKing i+1 judges i, sent at the same time lower in sequence
        // (tcp_skb_sent_after).
        let mut r = sent(2);
        r.on_send(SeqNum(3 * MSS), SeqNum(4 * MSS), t(20), false);
        r.on_send(SeqNum(2 * MSS), SeqNum(3 * MSS), t(20), false);
        let starts: Vec<u32> = r.segs.iter().map(|s| s.start.0).collect();
        assert_eq!(starts, [0, MSS, 2 * MSS, 3 * MSS]);
        sack(&mut r, 120, 0, &[3]);
        assert_eq!(r.detect_loss(t(120), Dur::ZERO).newly_lost, 3);
        assert!(r.is_lost(SeqNum(2 * MSS)));
    }
}
