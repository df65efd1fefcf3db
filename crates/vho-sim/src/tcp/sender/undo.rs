//! Linux's undo of a congestion-window reduction that proves unnecessary
//! (`UndoRules::Linux`; net/ipv4/tcp_input.c, Linux 6.x), and the reordering degree an undone
//! fast recovery implies.
//!
//! Linux keeps three values per loss-recovery episode (include/linux/tcp.h):
//! - `undo_marker`: SND.UNA when the episode started (`tcp_init_undo`, called by
//!   `tcp_enter_recovery` and by `tcp_enter_loss` when the timeout starts a new reduction); 0
//!   once undone (`tcp_undo_cwnd_reduction`) — no undo is possible then;
//! - `undo_retrans`: the episode's retransmissions not yet reported duplicate by a D-SACK
//!   (`tcp_init_undo`: `retrans_out ? : -1`; `tcp_retransmit_skb` adds each one, from 0 if it
//!   was -1; `tcp_sacktag_one` / `tcp_check_dsack` take one off per D-SACKed segment above
//!   `undo_marker`, RFC 3708's counting);
//! - `retrans_stamp`: the timestamp of the first retransmission since the connection was last
//!   in the Open state (`tcp_retransmit_skb` "Save stamp of the first (attempted)
//!   retransmit"; cleared in Open by `tcp_fastretrans_alert` step D and by `tcp_try_to_open`
//!   once no retransmitted data is outstanding, `tcp_any_retrans_done`).
//!
//! The checks (each cited where the sender calls it):
//! - `tcp_packet_delayed`: the ACK echoes a timestamp before `retrans_stamp`, so what it
//!   acknowledges was the original transmission (RFC 3522's rule, at any ACK); or nothing was
//!   retransmitted since Open (`retrans_stamp` 0), so the original filled the hole (current
//!   Linux, see [`LinuxUndo::packet_delayed`]);
//! - `tcp_may_undo`: `undo_marker` and (`undo_retrans` == 0 or `tcp_packet_delayed`);
//! - in Loss (after a timeout), `tcp_process_loss` → `tcp_try_undo_loss` at every ACK that
//!   advances SND.UNA, not only the first as Eifel (RFC 3522 §3.2 (3)) does;
//! - in Recovery, `tcp_try_undo_partial` at a partial ACK (only `tcp_packet_delayed`: the
//!   hole was filled by the delayed original; the reordering degree is raised, and the undo
//!   waits until no retransmission is outstanding), `tcp_try_undo_recovery` when the recovery
//!   point is reached (`tcp_may_undo`), `tcp_try_undo_dsack` at any ACK once `undo_retrans`
//!   is 0 (also in Open and Disorder, after the recovery);
//! - the undo itself (`tcp_undo_cwnd_reduction`): cwnd = max(cwnd, prior_cwnd) (the CC's
//!   `undo_cwnd`, `tcp_reno_undo_cwnd` for Reno and CUBIC), ssthresh = max(ssthresh,
//!   prior_ssthresh), prior_ssthresh being `tcp_current_ssthresh` at the episode's start
//!   ([`response::linux_prior_ssthresh`]); the episode's lost marks are cleared and the state
//!   goes back to Open (`tcp_try_keep_open`).
//!
//! vho's approximations: `retrans_out` (retransmissions neither acknowledged nor SACKed nor
//! lost) is taken to be nonzero while some byte below HighRxt (RFC 6675) is not cumulatively
//! acknowledged; Linux's Disorder state is vho's Open; a D-SACK block counts its whole
//! segments against `undo_retrans` whether or not each was retransmitted (vho's links never
//! duplicate a packet, so a D-SACK above `undo_marker` reports a retransmission).

use super::*;
use crate::tcp::config::UndoRules;

/// `tcp_max_reordering` (net.ipv4.tcp_max_reordering = 300, Documentation/networking/
/// ip-sysctl.rst): the most `tp->reordering` may reach.
pub const MAX_REORDERING: u32 = 300;

/// RFC 7323 §5.2: timestamp comparison modulo 2^32 (Linux's `before()`).
fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// Linux's undo state of one connection (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxUndo {
    /// `undo_marker`: SND.UNA at the episode's start; `None` once undone (Linux's 0).
    marker: Option<SeqNum>,
    /// `undo_retrans`: `None` is Linux's -1 (nothing retransmitted in the episode yet).
    retrans: Option<u32>,
    /// `retrans_stamp`: the TSval (ms) of the first retransmission since Open.
    retrans_stamp: Option<u32>,
    /// What started the episode (for the counters: Linux's TCPLOSSUNDO against
    /// TCPFULLUNDO/TCPPARTIALUNDO/TCPDSACKUNDO).
    kind: Option<EpisodeKind>,
    /// The left edge of the last D-SACK block counted: where a late original arrived.
    last_dsack: Option<SeqNum>,
}

impl LinuxUndo {
    /// `tcp_init_undo`: an episode starts at `snd_una`. Linux's `retrans_out` there is 0 in
    /// vho (a new fast recovery starts from Open; `tcp_enter_loss` has just marked every
    /// retransmission lost), so `undo_retrans` is -1.
    pub fn init(&mut self, snd_una: SeqNum, kind: EpisodeKind) {
        self.marker = Some(snd_una);
        self.retrans = None;
        self.kind = Some(kind);
    }

    /// A timeout joined the running episode (`tcp_enter_loss` without `tcp_init_undo`): it is
    /// a timeout's now; marker, count and stamp stay.
    pub fn on_joining_timeout(&mut self) {
        if self.marker.is_some() {
            self.kind = Some(EpisodeKind::Timeout);
        }
    }

    /// `tcp_retransmit_skb`: a retransmission of `segments` segments went out at `tsval`.
    pub fn on_retransmit(&mut self, tsval: u32, segments: u32) {
        self.retrans_stamp.get_or_insert(tsval);
        self.retrans = Some(self.retrans.unwrap_or(0) + segments);
    }

    /// A D-SACK block `[left, right)` (`tcp_sacktag_one` for a D-SACKed retransmission,
    /// `tcp_check_dsack` below SND.UNA): its segments come off `undo_retrans` when it lies
    /// above `undo_marker`.
    pub fn on_dsack(&mut self, left: SeqNum, right: SeqNum, mss: u32) {
        let (Some(marker), Some(n)) = (self.marker, self.retrans) else {
            return;
        };
        if n > 0 && right > marker {
            self.last_dsack = Some(left);
            let segments = (right - left.max(marker)).div_ceil(mss.max(1)).max(1);
            self.retrans = Some(n.saturating_sub(segments));
        }
    }

    /// `tcp_fastretrans_alert` step D in Open, `tcp_try_to_open`: no retransmitted data
    /// outstanding, the stamp is forgotten.
    #[inline]
    pub fn on_nothing_retransmitted_outstanding(&mut self) {
        self.retrans_stamp = None;
    }

    /// `tcp_packet_delayed` as current Linux has it (net/ipv4/tcp_input.c since e37ab7373696
    /// "tcp: fix to allow timestamp undo if no retransmits were sent", 2024, with 2025's "tcp:
    /// fix tcp_packet_delayed() for tcp_is_non_sack_preventing_reopen() behavior"): with a
    /// retransmission stamped, whether the ACK's echo (`tsecr`, 0 or absent: none) is before
    /// it (`tcp_tsopt_ecr_before`); with none (`retrans_stamp` 0) the hole was filled by the
    /// original, "apparently a packet was merely delayed, not lost": true, unless
    /// `stamp_maybe_cleared` — a connection without SACK at or past its recovery point, where
    /// Linux's `tcp_is_non_sack_preventing_reopen` clears the stamp though data was resent.
    /// (Linux's other exception, TCP_SYN_SENT, never applies: vho's sender opens passively.)
    pub fn packet_delayed(&self, tsecr: Option<u32>, stamp_maybe_cleared: bool) -> bool {
        match self.retrans_stamp {
            Some(stamp) => tsecr.is_some_and(|e| e != 0 && ts_before(e, stamp)),
            None => !stamp_maybe_cleared,
        }
    }

    /// `tcp_may_undo`: an episode to undo, and either every retransmission was D-SACKed
    /// (`undo_retrans` == 0) or the ACK proves the original arrived.
    pub fn may_undo(&self, tsecr: Option<u32>, stamp_maybe_cleared: bool) -> bool {
        self.marker.is_some()
            && (self.retrans == Some(0) || self.packet_delayed(tsecr, stamp_maybe_cleared))
    }

    /// `tcp_try_undo_dsack`'s test: `undo_marker && !undo_retrans`.
    #[inline]
    pub fn dsack_undo_due(&self) -> bool {
        self.marker.is_some() && self.retrans == Some(0)
    }

    /// `tcp_try_undo_partial`'s test: `undo_marker && tcp_packet_delayed`.
    pub fn partial_undo_due(&self, tsecr: Option<u32>, stamp_maybe_cleared: bool) -> bool {
        self.marker.is_some() && self.packet_delayed(tsecr, stamp_maybe_cleared)
    }

    /// What started the episode under way.
    pub fn kind(&self) -> Option<EpisodeKind> {
        self.kind
    }

    /// Where the last counted D-SACK block began (the late original's sequence number).
    pub fn last_dsack(&self) -> Option<SeqNum> {
        self.last_dsack
    }

    /// `tcp_undo_cwnd_reduction`: `undo_marker` = 0. Returns what started the episode.
    pub fn undone(&mut self) -> Option<EpisodeKind> {
        self.marker = None;
        self.kind.take()
    }
}

/// `tcp_check_sack_reordering`: the ACK filled the hole at `low_seq` (SND.UNA before it) with
/// data SACKed up to `fack` already above it: reordering of ⌈(fack − low_seq) / MSS⌉
/// segments, if that is more than `reordering` segments (at most [`MAX_REORDERING`]).
pub fn reordering_degree(low_seq: SeqNum, fack: SeqNum, mss: u32, reordering: u32) -> Option<u32> {
    if fack <= low_seq {
        return None;
    }
    let mss = mss.max(1);
    let metric = fack - low_seq;
    (metric > reordering.saturating_mul(mss)).then(|| metric.div_ceil(mss).min(MAX_REORDERING))
}

/// What one ACK showed, taken before the sender's state moved (Linux's `prior_snd_una` and
/// the highest SACKed sequence before the ACK).
#[derive(Clone, Copy, Debug)]
pub(super) struct UndoAck {
    pub una_before: SeqNum,
    pub fack_before: Option<SeqNum>,
    pub tsecr: Option<u32>,
    pub recovery_before: Recovery,
}

impl TcpSender {
    #[inline(always)]
    pub(super) fn linux_undo(&self) -> bool {
        self.cfg.undo == UndoRules::Linux
    }

    /// The reordering degree in force (Linux's `tp->reordering`; `net.ipv4.tcp_reordering`
    /// until reordering is observed).
    pub fn reordering_degree(&self) -> u32 {
        self.dupthresh.base()
    }

    /// Whether a retransmission of this recovery is outstanding (Linux's `retrans_out`,
    /// approximated: some byte below HighRxt not cumulatively acknowledged).
    fn retransmission_outstanding(&self) -> bool {
        self.sb.high_rxt > self.snd_una
    }

    /// Reordering of `degree` segments observed: the one place where what an undo implies
    /// meets `tp->reordering` (the RACK helper's "reordering observed, degree N" joins here).
    pub(super) fn on_reordering_observed(&mut self, degree: u32) {
        self.dupthresh.on_reordering(degree.min(MAX_REORDERING));
        // RACK keeps Linux's `tp->reordering` and `reord_seen` too (its reo_wnd reads them).
        self.note_reordering(degree);
    }

    /// The snapshot [`Self::undo_after_ack`] needs, before the ACK is taken.
    #[inline]
    pub(super) fn undo_ack(&mut self, seg: &Segment) -> UndoAck {
        if self.recovery == Recovery::Open && !self.retransmission_outstanding() {
            self.undo.on_nothing_retransmitted_outstanding();
        }
        UndoAck {
            una_before: self.snd_una,
            fack_before: self.sb.high_sacked(),
            tsecr: seg.options.timestamps.map(|(_, e)| e),
            recovery_before: self.recovery,
        }
    }

    /// Linux's undo checks once the ACK has been taken (`tcp_fastretrans_alert`,
    /// `tcp_process_loss`).
    #[cold]
    pub(super) fn undo_after_ack(&mut self, a: UndoAck) {
        let advanced = self.snd_una > a.una_before;
        let acked = self.snd_una - a.una_before;
        let ts = self.cfg.spurious_detection.eifel;
        let tsecr = if ts { a.tsecr } else { None };
        // tcp_packet_delayed's exception (1): !tcp_is_sack(tp) && !before(snd_una, high_seq).
        let cleared = !self.neg.sack && self.snd_una >= self.recover;
        match a.recovery_before {
            // tcp_process_loss: tcp_try_undo_loss at an ACK that advances SND.UNA (and
            // tcp_try_undo_recovery, the same test, once the recovery point is reached).
            Recovery::Timeout { .. } if advanced && self.undo.may_undo(tsecr, cleared) => {
                self.undo.undone();
                self.respond_to_spurious_rto(acked);
                return;
            }
            Recovery::Fast { .. } if advanced => {
                let ended = self.recovery == Recovery::Open;
                if ended {
                    // tcp_fastretrans_alert step D: tcp_try_undo_recovery at the recovery
                    // point.
                    if self.undo.may_undo(tsecr, cleared) {
                        if self.undo.packet_delayed(tsecr, cleared) {
                            self.reordering_from_undo(a.una_before, a.fack_before);
                        }
                        self.undo_fast_recovery(acked);
                        return;
                    }
                } else if self.undo.partial_undo_due(tsecr, cleared) {
                    // tcp_try_undo_partial: "Plain luck! Hole if filled with delayed packet,
                    // rather than with a retransmit. Check reordering."
                    self.reordering_from_undo(a.una_before, a.fack_before);
                    if !self.retransmission_outstanding() {
                        self.undo_fast_recovery(acked);
                        // tcp_try_undo_partial: tcp_undo_cwnd_reduction(sk, true), the segments
                        // marked lost were not.
                        if let Some(r) = &mut self.rack {
                            r.unmark_lost();
                        }
                    }
                    // With retransmissions out: "we clock out new packets but do not mark
                    // more packets lost" (Linux returns before tcp_try_undo_dsack).
                    return;
                }
            }
            _ => {}
        }
        // tcp_try_undo_dsack: in Recovery, and in Open/Disorder (not in Loss).
        if self.cfg.spurious_detection.dsack
            && self.undo.dsack_undo_due()
            && !matches!(self.recovery, Recovery::Timeout { .. })
        {
            // The late originals D-SACKed were reordering, of as many segments as were
            // acknowledged or SACKed above the first of them when it arrived: what Linux's
            // SACK processing measures on the same originals (`tcp_sacktag_one`'s
            // `state->reord`, then `tcp_check_sack_reordering`).
            let fast = self.undo.kind() == Some(EpisodeKind::FastRetransmit);
            if let Some(left) = self.undo.last_dsack().filter(|_| fast) {
                let fack = self
                    .sb
                    .high_sacked()
                    .unwrap_or(self.snd_una)
                    .max(self.snd_una);
                self.reordering_from_undo(left, Some(fack));
            }
            self.undo_fast_recovery(acked);
        }
    }

    /// `tcp_check_sack_reordering(sk, prior_snd_una, 1)` from an undo.
    fn reordering_from_undo(&mut self, una_before: SeqNum, fack_before: Option<SeqNum>) {
        let fack = fack_before.unwrap_or(una_before).max(self.snd_una);
        if let Some(d) = reordering_degree(una_before, fack, self.neg.mss, self.dupthresh.base()) {
            self.on_reordering_observed(d);
        }
    }

    /// `tcp_undo_cwnd_reduction` for an episode outside Loss: leave the fast recovery if it is
    /// still under way (`tcp_try_keep_open`; its lost marks go), restore the window.
    fn undo_fast_recovery(&mut self, acked: u32) {
        let kind = self.undo.undone();
        let Some((prior, snd_max_then)) = self.spurious.prior.take() else {
            return;
        };
        match kind {
            Some(EpisodeKind::Timeout) => self.stats.spurious_timeouts_detected += 1,
            _ => self.stats.spurious_fast_retransmits_detected += 1,
        }
        if matches!(self.recovery, Recovery::Fast { .. }) {
            self.cc.on_recovery_exit(self.snd_max - self.snd_una);
            self.recovery = Recovery::Open;
            self.recover = self.snd_una;
            self.dupacks = 0;
        }
        // tcp_undo_cwnd_reduction is the `undo` response (the linux profile's); another
        // configured response is honoured, RFC 4015's `eifel` (for timeouts) as undo.
        let timeout = kind == Some(EpisodeKind::Timeout);
        let mut response = self.cfg.spurious_response;
        if !timeout && response == SpuriousResponse::Eifel {
            response = SpuriousResponse::Undo;
        }
        self.apply_response(response, &prior, snd_max_then, acked, timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    #[test]
    fn a_timestamp_before_the_first_retransmission_allows_undo_at_any_later_ack() {
        // tcp_packet_delayed / tcp_try_undo_loss: timeout at SND.UNA 1; the originals went out
        // at TSval 100-110, the retransmission at 500. The first ACK after it echoes 500 (the
        // retransmission arrived): no undo (Eifel stops here, RFC 3522 §3.2 (4)); a later ACK
        // echoing 105 (an original, delayed) undoes: Linux checks at every ACK in Loss.
        let mut u = LinuxUndo::default();
        u.init(SeqNum(1), EpisodeKind::Timeout);
        u.on_retransmit(500, 1);
        assert!(!u.may_undo(Some(500), false));
        assert!(!u.may_undo(Some(501), false));
        assert!(u.may_undo(Some(105), false));
        // A later retransmission does not move retrans_stamp ("successive retransmissions of
        // a segment must not advance retrans_stamp", tcp_any_retrans_done's comment).
        u.on_retransmit(900, 1);
        assert!(u.may_undo(Some(499), false));
        assert_eq!(u.undone(), Some(EpisodeKind::Timeout));
        assert!(
            !u.may_undo(Some(105), false),
            "undo_marker = 0: undone once"
        );
    }

    #[test]
    fn no_echo_or_a_zero_echo_proves_nothing() {
        // tcp_tsopt_ecr_before: saw_tstamp && rcv_tsecr && before(rcv_tsecr, when).
        let mut u = LinuxUndo::default();
        u.init(SeqNum(1), EpisodeKind::FastRetransmit);
        u.on_retransmit(500, 1);
        assert!(!u.packet_delayed(None, false));
        assert!(!u.packet_delayed(Some(0), false));
    }

    #[test]
    fn nothing_retransmitted_yet_means_the_original_was_merely_delayed() {
        // tcp_packet_delayed (net/ipv4/tcp_input.c, Linux since e37ab7373696 "tcp: fix to
        // allow timestamp undo if no retransmits were sent" and the 2025 fix for
        // tcp_is_non_sack_preventing_reopen): retrans_stamp 0 -> true, whatever the echo; not
        // for a connection without SACK at its recovery point, where Linux clears the stamp.
        let mut u = LinuxUndo::default();
        u.init(SeqNum(1), EpisodeKind::FastRetransmit);
        assert!(u.packet_delayed(Some(5), false));
        assert!(u.packet_delayed(None, false));
        assert!(u.partial_undo_due(None, false));
        assert!(u.may_undo(None, false));
        assert!(!u.packet_delayed(Some(5), true));
        assert!(!u.may_undo(Some(5), true));
        // Once a retransmission is stamped, only an echo before it proves the delay.
        u.on_retransmit(500, 1);
        assert!(!u.packet_delayed(None, false));
        assert!(u.packet_delayed(Some(499), true));
    }

    #[test]
    fn every_retransmission_dsacked_brings_undo_retrans_to_zero() {
        // tcp_init_undo: undo_retrans = -1; three retransmissions (0 -> 3); D-SACKs of
        // [1000, 2000) and [3000, 5000) above undo_marker 1000 take off 1 and 2: zero, and
        // tcp_try_undo_dsack / tcp_may_undo hold without any timestamp (RFC 3708 §3 (B.1)).
        let mut u = LinuxUndo::default();
        u.init(SeqNum(1000), EpisodeKind::FastRetransmit);
        assert!(
            !u.dsack_undo_due(),
            "-1 is not 0: nothing retransmitted yet"
        );
        for _ in 0..3 {
            u.on_retransmit(700, 1);
        }
        u.on_dsack(SeqNum(1000), SeqNum(2000), MSS);
        assert!(!u.dsack_undo_due());
        // A D-SACK wholly below undo_marker reports an older window: not counted.
        u.on_dsack(SeqNum(0), SeqNum(1000), MSS);
        assert!(!u.dsack_undo_due());
        u.on_dsack(SeqNum(3000), SeqNum(5000), MSS);
        assert!(u.dsack_undo_due());
        assert!(u.may_undo(None, false));
    }

    #[test]
    fn the_stamp_is_forgotten_only_when_nothing_retransmitted_is_outstanding() {
        // A fast recovery retransmitted at 300; a timeout joins it (tcp_enter_loss keeps
        // retrans_stamp) and resends at 800: an echo of 400 still proves the original of the
        // first retransmission arrived.
        let mut u = LinuxUndo::default();
        u.init(SeqNum(1), EpisodeKind::FastRetransmit);
        u.on_retransmit(300, 1);
        u.on_joining_timeout();
        u.on_retransmit(800, 1);
        assert!(!u.may_undo(Some(400), false));
        assert!(u.may_undo(Some(299), false));
        // Back in Open: the next episode's first retransmission sets a new stamp.
        u.on_nothing_retransmitted_outstanding();
        u.init(SeqNum(9000), EpisodeKind::FastRetransmit);
        u.on_retransmit(2000, 1);
        assert!(u.may_undo(Some(1999), false));
        assert_eq!(u.undone(), Some(EpisodeKind::FastRetransmit));
    }

    #[test]
    fn a_hole_filled_by_the_original_measures_the_reordering_from_the_highest_sack() {
        // tcp_check_sack_reordering(sk, prior_snd_una = 1, 1): SACKed up to 11,001 when the
        // delayed original of [1, 1001) arrives: 11 segments > 3 -> tp->reordering = 11.
        assert_eq!(
            reordering_degree(SeqNum(1), SeqNum(11_001), MSS, 3),
            Some(11)
        );
        // Within the current degree (3 segments): no change.
        assert_eq!(reordering_degree(SeqNum(1), SeqNum(3_001), MSS, 3), None);
        // Nothing SACKed above: nothing to measure.
        assert_eq!(reordering_degree(SeqNum(1), SeqNum(1), MSS, 3), None);
        // tcp_max_reordering caps it.
        assert_eq!(
            reordering_degree(SeqNum(1), SeqNum(1 + 500 * MSS), MSS, 3),
            Some(MAX_REORDERING)
        );
    }
}
