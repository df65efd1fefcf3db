//! F-RTO (RFC 5682): after a timeout, send new data instead of resending the window, and let
//! the next two ACKs tell whether the timeout was spurious. The SACK-enhanced algorithm
//! (§3.1) is the one implemented, for SACK and non-SACK connections alike, as Linux has done
//! since 3.10 (commit e33099f9: "the SACK enhanced version also works for non-SACK
//! connections"); without SACK its SACK clauses never hold.

use super::super::seq::SeqNum;

/// Where the algorithm is, between the timeout and its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Step 2: waiting for the cumulative ACK of the retransmission.
    AwaitRetransmitAck,
    /// Step 3: two new segments sent; the next ACK decides.
    AwaitSecondAck,
}

/// One F-RTO episode, from a timeout (step 1) to its verdict.
#[derive(Clone, Copy, Debug)]
pub struct Frto {
    phase: Phase,
    /// RecoveryPoint: SND.MAX when the retransmission's ACK came (step 2).
    recovery_point: SeqNum,
    /// Linux's variant (`FrtoVariant::Linux`): an ACK of never-retransmitted data decides.
    linux: bool,
}

/// What an ACK tells F-RTO.
#[derive(Clone, Copy, Debug)]
pub struct AckView {
    /// SND.UNA before the ACK and its cumulative ACK.
    pub una_before: SeqNum,
    pub ack: SeqNum,
    /// The sender counts it as a duplicate ACK (RFC 5681 §2).
    pub duplicate: bool,
    /// Its SACK blocks acknowledge data not acknowledged before, below RecoveryPoint.
    pub sacks_new_below_recovery_point: bool,
    /// A SACK block reaches above RecoveryPoint.
    pub sacks_above_recovery_point: bool,
    /// It acknowledges, cumulatively or with new SACK blocks, data sent once only: beyond the
    /// timeout's one retransmission (Linux's `FLAG_ORIG_SACK_ACKED`).
    pub acks_never_retransmitted: bool,
}

/// What the sender does on this ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing yet (a duplicate ACK before the retransmission's ACK, or an ACK that neither
    /// advances nor is a duplicate: RFC 5682 §2.1 "SHOULD be ignored").
    Wait,
    /// Step 2(b): send up to two segments of new data.
    SendNew,
    /// Step 3(b): the timeout was spurious (SpuriousRecovery = SPUR_TO).
    Spurious,
    /// Steps 2(a), 3(a): a real loss; go back to SND.UNA in slow start, cwnd at most this
    /// many segments (`None`: as the timeout left it).
    Conventional { cwnd_cap_segments: Option<u32> },
}

impl Frto {
    /// RecoveryPoint once step 2 has set it (SND.MAX when the retransmission's ACK came);
    /// before that, SND.MAX is what the next ACK is measured against.
    pub fn recovery_point(&self, snd_max: SeqNum) -> SeqNum {
        match self.phase {
            Phase::AwaitRetransmitAck => snd_max,
            Phase::AwaitSecondAck => self.recovery_point,
        }
    }

    /// Step 1: the timeout's retransmission of the first unacknowledged segment has gone out.
    pub fn start() -> Self {
        Frto {
            phase: Phase::AwaitRetransmitAck,
            recovery_point: SeqNum(0),
            linux: false,
        }
    }

    /// Step 1 of Linux's variant (`tcp_process_loss`, see `FrtoVariant::Linux`).
    pub fn start_linux() -> Self {
        Frto {
            linux: true,
            ..Frto::start()
        }
    }

    /// Steps 2 and 3 on an ACK. `snd_max`: the highest sequence number sent so far;
    /// `can_send_new`: new data exists and the receiver's window allows it.
    pub fn on_ack(&mut self, a: AckView, snd_max: SeqNum, can_send_new: bool) -> Step {
        let advances = a.ack > a.una_before;
        if self.linux && a.acks_never_retransmitted {
            // tcp_process_loss: "Step 3.b. A timeout is spurious if not all data are lost,
            // i.e., never-retransmitted data are (s)acked", before any other test.
            return Step::Spurious;
        }
        match self.phase {
            Phase::AwaitRetransmitAck => {
                // Step 2: duplicate ACKs only update the scoreboard.
                if !advances {
                    return Step::Wait;
                }
                self.recovery_point = snd_max;
                if a.ack >= self.recovery_point {
                    // (a) Everything outstanding acknowledged: the timeout's cause cannot be
                    // told; cwnd no more than 2·MSS.
                    Step::Conventional {
                        cwnd_cap_segments: Some(2),
                    }
                } else if can_send_new {
                    // (b)
                    self.phase = Phase::AwaitSecondAck;
                    Step::SendNew
                } else {
                    // No new data to probe with: §3.1 step 2(b) recommends conventional
                    // recovery.
                    Step::Conventional {
                        cwnd_cap_segments: None,
                    }
                }
            }
            Phase::AwaitSecondAck => {
                let above = a.ack > self.recovery_point || a.sacks_above_recovery_point;
                let new_below = advances || a.sacks_new_below_recovery_point;
                if above || (a.duplicate && !new_below) {
                    // Step 3(a): cwnd no more than 3·MSS.
                    Step::Conventional {
                        cwnd_cap_segments: Some(3),
                    }
                } else if new_below {
                    // Step 3(b): the new segments' ACK acknowledges data sent before the
                    // timeout: those segments were not lost.
                    Step::Spurious
                } else {
                    Step::Wait
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(una: u32, ack: u32, duplicate: bool) -> AckView {
        AckView {
            una_before: SeqNum(una),
            ack: SeqNum(ack),
            duplicate,
            sacks_new_below_recovery_point: false,
            sacks_above_recovery_point: false,
            acks_never_retransmitted: false,
        }
    }

    #[test]
    fn two_acks_of_data_sent_before_the_timeout_make_it_spurious() {
        // RFC 5682 §2.1/§3.1: segments 1..10 (1000 B each) outstanding, the timer resends 1;
        // the ACK of 1 (original, delayed) advances to 2: send 11 and 12; the next ACK
        // advances to 3, below RecoveryPoint (11001): SPUR_TO.
        let mut f = Frto::start();
        assert_eq!(
            f.on_ack(view(1, 1001, false), SeqNum(10001), true),
            Step::SendNew
        );
        assert_eq!(
            f.on_ack(view(1001, 2001, false), SeqNum(12001), true),
            Step::Spurious
        );
    }

    #[test]
    fn a_duplicate_ack_after_the_new_segments_is_a_real_loss() {
        // Step 3(a): the new segments made duplicate ACKs: the window was lost.
        let mut f = Frto::start();
        assert_eq!(
            f.on_ack(view(1, 1001, false), SeqNum(10001), true),
            Step::SendNew
        );
        assert_eq!(
            f.on_ack(view(1001, 1001, true), SeqNum(12001), true),
            Step::Conventional {
                cwnd_cap_segments: Some(3)
            }
        );
    }

    #[test]
    fn duplicate_acks_before_the_retransmissions_ack_are_waited_out() {
        let mut f = Frto::start();
        assert_eq!(f.on_ack(view(1, 1, true), SeqNum(10001), true), Step::Wait);
        assert_eq!(
            f.on_ack(view(1, 1001, false), SeqNum(10001), true),
            Step::SendNew
        );
    }

    #[test]
    fn an_ack_of_everything_or_no_new_data_falls_back_to_conventional_recovery() {
        // Step 2(a): the ACK covers RecoveryPoint: cwnd <= 2 MSS.
        let mut f = Frto::start();
        assert_eq!(
            f.on_ack(view(1, 10001, false), SeqNum(10001), true),
            Step::Conventional {
                cwnd_cap_segments: Some(2)
            }
        );
        // Step 2(b) without new data to send.
        let mut f = Frto::start();
        assert_eq!(
            f.on_ack(view(1, 1001, false), SeqNum(10001), false),
            Step::Conventional {
                cwnd_cap_segments: None
            }
        );
    }

    #[test]
    fn with_sack_a_duplicate_ack_sacking_old_data_is_spurious_and_above_is_not() {
        // §3.1 step 3(b): a duplicate ACK whose SACK block acknowledges new data below
        // RecoveryPoint (an original segment arrived): spurious.
        let mut f = Frto::start();
        f.on_ack(view(1, 1001, false), SeqNum(10001), true);
        let mut a = view(1001, 1001, true);
        a.sacks_new_below_recovery_point = true;
        assert_eq!(f.on_ack(a, SeqNum(12001), true), Step::Spurious);
        // Step 3(a): a block above RecoveryPoint (only the new segments arrived): loss.
        let mut f = Frto::start();
        f.on_ack(view(1, 1001, false), SeqNum(10001), true);
        let mut a = view(1001, 1001, true);
        a.sacks_above_recovery_point = true;
        assert_eq!(
            f.on_ack(a, SeqNum(12001), true),
            Step::Conventional {
                cwnd_cap_segments: Some(3)
            }
        );
    }

    #[test]
    fn an_ack_that_neither_advances_nor_duplicates_is_ignored() {
        // RFC 5682 §2.1: e.g. a window update.
        let mut f = Frto::start();
        f.on_ack(view(1, 1001, false), SeqNum(10001), true);
        assert_eq!(
            f.on_ack(view(1001, 1001, false), SeqNum(12001), true),
            Step::Wait
        );
    }

    /// Linux's tcp_process_loss: an ACK of data the timeout did not resend is spurious at
    /// once ("not all data are lost"); RFC 5682 goes on to step 2(b) or waits.
    #[test]
    fn linux_calls_a_timeout_spurious_on_the_first_ack_of_data_never_resent() {
        // Segments 1..10 (1000 B) out, the timer resent 1 (1..1001). The ACK advances to 3001:
        // it covers segment 2, sent once.
        let mut a = view(1, 3001, false);
        a.acks_never_retransmitted = true;
        assert_eq!(
            Frto::start_linux().on_ack(a, SeqNum(10_001), true),
            Step::Spurious
        );
        assert_eq!(Frto::start().on_ack(a, SeqNum(10_001), true), Step::SendNew);
        // A duplicate ACK SACKing segment 5 (sent once): Linux decides, RFC 5682 waits.
        let mut d = view(1, 1, true);
        d.acks_never_retransmitted = true;
        assert_eq!(
            Frto::start_linux().on_ack(d, SeqNum(10_001), true),
            Step::Spurious
        );
        assert_eq!(Frto::start().on_ack(d, SeqNum(10_001), true), Step::Wait);
        // The ACK of the resent segment alone (to 1001) tells nothing: both go to step 2(b).
        let r = view(1, 1001, false);
        assert_eq!(
            Frto::start_linux().on_ack(r, SeqNum(10_001), true),
            Step::SendNew
        );
    }
}
