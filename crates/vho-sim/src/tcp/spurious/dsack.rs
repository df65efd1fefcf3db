//! D-SACK-based detection of spurious retransmissions: RFC 3708 §3, the "Congestion/Duplicate
//! Disambiguation Algorithm" (Experimental), sans-IO.
//!
//! The sender tells the detector when a loss-recovery episode starts (a fast retransmit or a
//! timeout), each segment it retransmits, the D-SACK blocks it receives (RFC 2883; see
//! `sack::dsack_block`) and its cumulative ACKs. The detector answers, at most once per
//! episode, that every retransmission of the episode was unnecessary. What the sender does
//! then is not its business: RFC 3708 "does not outline what a TCP or SCTP sender may do after
//! a spurious retransmission is detected" (§1); RFC 4015's response or Linux's undo may follow.
//!
//! RFC 3708 §3, on the receipt of each D-SACK:
//! - (A.1) "If the SACK scoreboard is empty ... and the left edge of the incoming DSACK is
//!   equal to SND.UNA", a whole window of ACKs was lost: no undo "during the current window
//!   of data";
//! - (A.2) a segment "retransmitted exactly one time" is marked as a duplicate;
//! - (A.3) one "retransmitted more than once": no undo during the current window of data;
//! - (A.4) one "not retransmitted": the network duplicated it, and the algorithm "MUST NOT be
//!   used for the remainder of the connection";
//! - (B.1) if all segments marked as retransmitted "have also been marked as acknowledged and
//!   duplicated", the retransmissions "were spurious and no loss occurred"; (B.2) otherwise
//!   no conclusion.
//!
//! Where the RFC leaves the rule open, vho's choices:
//! - The "window of data" is the episode: from SND.UNA at its start to its recovery point
//!   (SND.MAX then). A fast retransmit or timeout before the cumulative ACK reaches the
//!   recovery point joins the running episode and raises its recovery point, as Linux keeps
//!   `undo_marker` and `undo_retrans` when `tcp_enter_loss` interrupts a recovery.
//! - (B.1) is checked once the cumulative ACK has reached the recovery point, so that a D-SACK
//!   in the middle of a recovery cannot conclude before every hole has been resent. D-SACKs
//!   that come after that ACK (the resends arrive after the originals, RFC 2883 §5.4) still
//!   conclude, until the next episode starts (Linux's `tcp_try_undo_dsack` in the Open and
//!   Disorder states likewise).
//! - A retransmission is marked duplicate only when a D-SACK block covers it whole: a segment
//!   reported as a partial duplicate (RFC 2883 §4.2) carried data that was needed.
//! - A D-SACK block wholly below the episode's start reports data of an earlier window and is
//!   ignored (Linux counts only D-SACKs above `undo_marker`); it is not network duplication.
//! - A retransmitted FIN counts as one sequence number. vho's receiver never D-SACKs a FIN,
//!   so an episode that resent the FIN is never declared spurious (the conservative side).

use crate::tcp::seq::SeqNum;

/// What started a loss-recovery episode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EpisodeKind {
    /// Fast retransmit and fast recovery (RFC 5681 §3.2, RFC 6675 §5).
    FastRetransmit,
    /// A retransmission timeout (RFC 6298 §5). An episode a timeout joined is a timeout's.
    Timeout,
}

/// Why an episode will not be declared spurious (RFC 3708 §3 (A)).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refusal {
    /// (A.1): a D-SACK at SND.UNA with nothing on the scoreboard: a whole window of ACKs was
    /// lost, and the reverse path is taken to be congested.
    AckWindowLost,
    /// (A.3): a D-SACKed segment had been retransmitted more than once.
    RetransmittedTwice,
}

/// (B.1): every retransmission of the episode was D-SACKed, "no loss occurred".
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Verdict {
    pub kind: EpisodeKind,
    /// Segments retransmitted in the episode (each once, each D-SACKed).
    pub retransmissions: u32,
}

/// What the detector knows of the current episode (a getter for tests and recorders).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// No episode yet.
    Idle,
    /// No verdict yet: `dsacked` of the `retransmitted` segments are marked duplicate, and
    /// the cumulative ACK has or has not reached the recovery point.
    Open {
        retransmitted: u32,
        dsacked: u32,
        recovered: bool,
    },
    /// The verdict was given.
    Spurious,
    Refused(Refusal),
    /// (A.4): the network duplicated a segment; off for the rest of the connection.
    Disabled,
}

/// One retransmitted segment `[start, end)`.
#[derive(Clone, Copy, Debug)]
struct Retransmission {
    start: SeqNum,
    end: SeqNum,
    times: u32,
    /// (A.2): a D-SACK block covered it since its last retransmission.
    duplicate: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Open,
    Spurious,
    Refused(Refusal),
}

#[derive(Clone, Debug)]
struct Episode {
    kind: EpisodeKind,
    /// SND.UNA when it started (Linux's `undo_marker`).
    start: SeqNum,
    /// The recovery point: the episode's recovery is over when the cumulative ACK reaches it.
    recover: SeqNum,
    recovered: bool,
    outcome: Outcome,
    /// Sorted by `start`.
    rtx: Vec<Retransmission>,
    /// How many of `rtx` are marked duplicate.
    duplicates: u32,
}

/// RFC 3708 §3's detector. Per ACK, the sender calls `on_dsack` when the ACK's first SACK
/// block is a D-SACK block, then `on_cumulative_ack`; a verdict can come from either.
#[derive(Clone, Debug, Default)]
pub struct DsackDetector {
    episode: Option<Episode>,
    /// (A.4) happened.
    disabled: bool,
}

impl DsackDetector {
    pub fn status(&self) -> Status {
        if self.disabled {
            return Status::Disabled;
        }
        match &self.episode {
            None => Status::Idle,
            Some(ep) => match ep.outcome {
                Outcome::Open => Status::Open {
                    retransmitted: ep.rtx.len() as u32,
                    dsacked: ep.duplicates,
                    recovered: ep.recovered,
                },
                Outcome::Spurious => Status::Spurious,
                Outcome::Refused(r) => Status::Refused(r),
            },
        }
    }

    /// A fast retransmit or a timeout at SND.UNA = `una`, with recovery point `recover`
    /// (SND.MAX). Before the running episode's recovery point it joins that episode.
    pub fn on_episode_start(&mut self, una: SeqNum, recover: SeqNum, kind: EpisodeKind) {
        if self.disabled {
            return;
        }
        match &mut self.episode {
            Some(ep) if una < ep.recover => {
                ep.recover = ep.recover.max(recover);
                ep.recovered = false;
                if kind == EpisodeKind::Timeout {
                    ep.kind = kind;
                }
            }
            Some(ep) => {
                ep.kind = kind;
                ep.start = una;
                ep.recover = recover;
                ep.recovered = false;
                ep.outcome = Outcome::Open;
                ep.rtx.clear(); // keeps its capacity
                ep.duplicates = 0;
            }
            None => {
                self.episode = Some(Episode {
                    kind,
                    start: una,
                    recover,
                    recovered: false,
                    outcome: Outcome::Open,
                    rtx: Vec::new(),
                    duplicates: 0,
                })
            }
        }
    }

    /// The segment `[seq, seq + len)` was retransmitted (`len` 0: the FIN alone). vho sends
    /// every retransmission inside an episode; one outside any is not recorded.
    pub fn on_retransmit(&mut self, seq: SeqNum, len: u32) {
        if self.disabled {
            return;
        }
        let Some(ep) = &mut self.episode else {
            return;
        };
        let end = seq + len.max(1);
        match ep.rtx.binary_search_by(|r| r.start.cmp(&seq)) {
            Ok(i) => {
                let r = &mut ep.rtx[i];
                r.times += 1;
                r.end = r.end.max(end);
                if r.duplicate {
                    // Resent after its D-SACK: it needs another, which (A.3) will refuse.
                    r.duplicate = false;
                    ep.duplicates -= 1;
                }
            }
            Err(i) => ep.rtx.insert(
                i,
                Retransmission {
                    start: seq,
                    end,
                    times: 1,
                    duplicate: false,
                },
            ),
        }
    }

    /// A D-SACK block `[left, right)`. `una` is SND.UNA and `scoreboard_empty` whether the
    /// sender holds any SACK information, both as they were before the ACK that carried it.
    pub fn on_dsack(
        &mut self,
        left: SeqNum,
        right: SeqNum,
        una: SeqNum,
        scoreboard_empty: bool,
    ) -> Option<Verdict> {
        if self.disabled {
            return None;
        }
        if scoreboard_empty && left == una {
            // (A.1): the ACKs of a whole window were lost.
            if let Some(ep) = self.episode.as_mut() {
                ep.refuse(Refusal::AckWindowLost);
            }
            return None;
        }
        let Some(ep) = self.episode.as_mut() else {
            self.disabled = true; // (A.4): nothing was ever retransmitted
            return None;
        };
        if right <= ep.start {
            return None; // an earlier window's data (vho's choice, see the module doc)
        }
        let (mut seen, mut twice) = (false, false);
        let from = ep.rtx.partition_point(|r| r.start < left).saturating_sub(1);
        for r in ep.rtx[from..].iter_mut().take_while(|r| r.start < right) {
            if r.end <= left {
                continue;
            }
            seen = true;
            if r.times > 1 {
                twice = true;
            } else if left <= r.start && r.end <= right && !r.duplicate {
                r.duplicate = true; // (A.2)
                ep.duplicates += 1;
            }
        }
        if !seen {
            self.disabled = true; // (A.4): the network duplicated it
            return None;
        }
        if twice {
            ep.refuse(Refusal::RetransmittedTwice); // (A.3)
            return None;
        }
        self.verdict()
    }

    /// A cumulative ACK (the ACK field of an arriving ACK).
    pub fn on_cumulative_ack(&mut self, ack: SeqNum) -> Option<Verdict> {
        if self.disabled {
            return None;
        }
        let ep = self.episode.as_mut()?;
        if ack >= ep.recover {
            ep.recovered = true;
        }
        self.verdict()
    }

    /// (B.1), once the episode's recovery is over.
    fn verdict(&mut self) -> Option<Verdict> {
        let ep = self.episode.as_mut()?;
        let all = !ep.rtx.is_empty() && ep.duplicates as usize == ep.rtx.len();
        if ep.outcome != Outcome::Open || !ep.recovered || !all {
            return None;
        }
        ep.outcome = Outcome::Spurious;
        Some(Verdict {
            kind: ep.kind,
            retransmissions: ep.rtx.len() as u32,
        })
    }
}

impl Episode {
    fn refuse(&mut self, why: Refusal) {
        if self.outcome == Outcome::Open {
            self.outcome = Outcome::Refused(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EpisodeKind::{FastRetransmit, Timeout};

    fn s(n: u32) -> SeqNum {
        SeqNum(n)
    }

    /// A D-SACK block of RFC 2883's notation `[left, right)`, with SND.UNA before the ACK and
    /// a scoreboard holding something (so that (A.1) does not apply).
    fn dsack(d: &mut DsackDetector, left: u32, right: u32, una: u32) -> Option<Verdict> {
        d.on_dsack(s(left), s(right), s(una), false)
    }

    // ---- Tests for the verdict (B.1, B.2) ----

    #[test]
    fn a_fast_retransmit_whose_only_resend_is_dsacked_was_spurious() {
        // RFC 3708 §3 (A.2), (B.1) on RFC 2883 §5.2 (reordering): 1000-1499 is delayed, three
        // duplicate ACKs resend it; the original arrives ("3000"), then the resend
        // ("3000, SACK=1000-1500"). The scoreboard is empty by then, but the D-SACK is not at
        // SND.UNA, so (A.1) does not apply.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(3000), FastRetransmit);
        d.on_retransmit(s(1000), 500);
        assert_eq!(d.on_cumulative_ack(s(3000)), None, "no D-SACK yet");
        let v = d.on_dsack(s(1000), s(1500), s(3000), true);
        assert_eq!(
            v,
            Some(Verdict {
                kind: FastRetransmit,
                retransmissions: 1
            })
        );
        assert_eq!(d.status(), Status::Spurious);
        // Given once: the next ACK concludes nothing more.
        assert_eq!(d.on_cumulative_ack(s(3500)), None);
    }

    #[test]
    fn a_timeout_is_spurious_once_the_last_of_its_resends_is_dsacked() {
        // RFC 3708 §3 (B.1) on RFC 2883 §5.4 (early retransmit timeout): the window
        // 500-2499 is delayed, the timeout resends 500-999 and then 1000-1499; the originals
        // are ACKed up to 2500 before the resends come back as D-SACKs 500-1000, 1000-1500.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(500), s(2500), Timeout);
        d.on_retransmit(s(500), 500);
        d.on_retransmit(s(1000), 500);
        for ack in [1000, 1500, 2000, 2500] {
            assert_eq!(d.on_cumulative_ack(s(ack)), None);
        }
        assert_eq!(dsack(&mut d, 500, 1000, 2500), None, "one of two");
        assert_eq!(
            d.status(),
            Status::Open {
                retransmitted: 2,
                dsacked: 1,
                recovered: true
            }
        );
        let v = dsack(&mut d, 1000, 1500, 2500);
        assert_eq!(
            v,
            Some(Verdict {
                kind: Timeout,
                retransmissions: 2
            })
        );
    }

    #[test]
    fn a_resend_never_dsacked_means_no_verdict() {
        // RFC 3708 §3 (a) and (B.2): N and N+1 resent, only N+1 needlessly; its D-SACK alone
        // concludes nothing, and the next episode starts afresh.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(4000), FastRetransmit);
        d.on_retransmit(s(1000), 500);
        d.on_retransmit(s(1500), 500);
        assert_eq!(dsack(&mut d, 1500, 2000, 1000), None);
        assert_eq!(d.on_cumulative_ack(s(4000)), None);
        assert_eq!(
            d.status(),
            Status::Open {
                retransmitted: 2,
                dsacked: 1,
                recovered: true
            }
        );
        d.on_episode_start(s(6000), s(9000), FastRetransmit);
        assert_eq!(
            d.status(),
            Status::Open {
                retransmitted: 0,
                dsacked: 0,
                recovered: false
            }
        );
    }

    #[test]
    fn no_verdict_before_the_cumulative_ack_reaches_the_recovery_point() {
        // vho's reading of (B) ("the previous window of data"): a D-SACK for the first hole's
        // resend during recovery cannot conclude while a later hole may still be resent.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(5000), FastRetransmit);
        d.on_retransmit(s(1000), 500);
        assert_eq!(dsack(&mut d, 1000, 1500, 1000), None);
        assert_eq!(d.on_cumulative_ack(s(3000)), None, "a partial ACK");
        d.on_retransmit(s(3000), 500);
        assert_eq!(d.on_cumulative_ack(s(5000)), None, "3000-3499 was needed");
    }

    #[test]
    fn a_partial_duplicate_does_not_mark_its_resend() {
        // RFC 2883 §4.2: a D-SACK block may report part of a segment; the rest was new to the
        // receiver, so the resend was needed (vho's choice: only a whole cover marks).
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(3000), FastRetransmit);
        d.on_retransmit(s(1000), 1000);
        assert_eq!(dsack(&mut d, 1000, 1500, 1000), None);
        assert_eq!(d.on_cumulative_ack(s(3000)), None);
        assert_eq!(
            d.status(),
            Status::Open {
                retransmitted: 1,
                dsacked: 0,
                recovered: true
            }
        );
    }

    // ---- Tests for the refusals (A.1, A.3, A.4) ----

    #[test]
    fn a_dsack_at_snd_una_with_an_empty_scoreboard_refuses_the_window() {
        // RFC 3708 §3 (A.1) on RFC 2883 §5.3: every ACK of 500-2499 lost, the timeout resends
        // 500-999 and the answer is "2500, SACK=500-1000", SND.UNA being 500 before it.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(500), s(2500), Timeout);
        d.on_retransmit(s(500), 500);
        assert_eq!(d.on_dsack(s(500), s(1000), s(500), true), None);
        assert_eq!(d.on_cumulative_ack(s(2500)), None);
        assert_eq!(d.status(), Status::Refused(Refusal::AckWindowLost));
        // With SACK information on the scoreboard the same ACK concludes (A.2, B.1).
        let mut d = DsackDetector::default();
        d.on_episode_start(s(500), s(2500), Timeout);
        d.on_retransmit(s(500), 500);
        assert_eq!(dsack(&mut d, 500, 1000, 500), None);
        assert!(d.on_cumulative_ack(s(2500)).is_some());
    }

    #[test]
    fn a_segment_resent_twice_refuses_the_window() {
        // RFC 3708 §3 (A.3): two timeouts resend 500-999 twice; its D-SACK refuses the
        // episode. The second timeout, before the recovery point, joins the first episode.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(500), s(2500), Timeout);
        d.on_retransmit(s(500), 500);
        d.on_episode_start(s(500), s(2500), Timeout);
        d.on_retransmit(s(500), 500);
        assert_eq!(d.on_cumulative_ack(s(2500)), None);
        assert_eq!(dsack(&mut d, 500, 1000, 2500), None);
        assert_eq!(d.status(), Status::Refused(Refusal::RetransmittedTwice));
    }

    #[test]
    fn a_timeout_during_fast_recovery_joins_its_episode() {
        // vho's reading of "the current window of data" (Linux keeps undo_marker through
        // tcp_enter_loss in recovery): the timeout resends the head that fast retransmit
        // resent, so the joined episode holds it twice and (A.3) refuses; the recovery point
        // rises to the timeout's.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(5000), FastRetransmit);
        d.on_retransmit(s(1000), 500);
        d.on_episode_start(s(1000), s(6000), Timeout);
        d.on_retransmit(s(1000), 500);
        assert_eq!(d.on_cumulative_ack(s(5000)), None);
        assert_eq!(
            d.status(),
            Status::Open {
                retransmitted: 1,
                dsacked: 0,
                recovered: false
            }
        );
        assert_eq!(dsack(&mut d, 1000, 1500, 5000), None);
        assert_eq!(d.status(), Status::Refused(Refusal::RetransmittedTwice));
    }

    #[test]
    fn a_dsack_for_data_never_resent_turns_the_detector_off() {
        // RFC 3708 §3 (A.4) on RFC 2883 §5.1 (replication): "1500, SACK=1000-1500" with
        // nothing resent; afterwards even a spurious fast retransmit gets no verdict.
        let mut d = DsackDetector::default();
        assert_eq!(dsack(&mut d, 1000, 1500, 1000), None);
        assert_eq!(d.status(), Status::Disabled);
        d.on_episode_start(s(2000), s(4000), FastRetransmit);
        d.on_retransmit(s(2000), 500);
        assert_eq!(d.on_cumulative_ack(s(4000)), None);
        assert_eq!(dsack(&mut d, 2000, 2500, 4000), None);
        assert_eq!(d.status(), Status::Disabled);
        // Within an episode too: a duplicate of a segment sent once, above the episode's start.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(4000), FastRetransmit);
        d.on_retransmit(s(1000), 500);
        assert_eq!(dsack(&mut d, 2500, 3000, 1000), None);
        assert_eq!(d.status(), Status::Disabled);
    }

    #[test]
    fn a_late_dsack_below_the_episode_start_is_an_earlier_windows_and_ignored() {
        // vho's choice (Linux counts D-SACKs above undo_marker only): a resend of the first
        // episode reported after the second began neither counts nor reads as duplication.
        let mut d = DsackDetector::default();
        d.on_episode_start(s(1000), s(3000), FastRetransmit);
        d.on_retransmit(s(1000), 500);
        d.on_retransmit(s(1500), 500);
        assert_eq!(d.on_cumulative_ack(s(3000)), None);
        d.on_episode_start(s(5000), s(8000), Timeout);
        d.on_retransmit(s(5000), 500);
        assert_eq!(dsack(&mut d, 1000, 1500, 5000), None);
        assert!(matches!(d.status(), Status::Open { dsacked: 0, .. }));
        assert_eq!(d.on_cumulative_ack(s(8000)), None);
        assert_eq!(
            dsack(&mut d, 5000, 5500, 8000),
            Some(Verdict {
                kind: Timeout,
                retransmissions: 1
            })
        );
    }
}
