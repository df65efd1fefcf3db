//! RTT samples as Linux 2.0 takes them (`RttSampling::EveryFreedSegment`): one per segment an
//! ACK frees from the retransmission queue, each timed from its latest transmission, none
//! while the sender is retransmitting after a timeout.
//!
//! Linux 2.0.36's `tcp_ack` (net/ipv4/tcp_input.c, the version read for the thesis testbed,
//! docs/design/issue-19-sources.md §1.2) walks the retransmission queue and, for every skb the
//! ACK covers, calls `tcp_rtt_estimator(sk, skb)` with `m = jiffies - skb->when` unless
//! `flag & 2` ("We were retransmitting. don't count this in RTT est"): the flag is raised for
//! the rest of the ACK by the first skb freed while `sk->retransmits` is non-zero, and
//! `retransmits`, raised by the retransmission timer, is cleared only when the queue empties.
//! A fast retransmit leaves it alone and resends with a fresh `skb->when`. The RFC 6298 way
//! (one segment timed per round trip, Karn's rule) is `RttSampling::OnePerRtt`.

use crate::tcp::seq::SeqNum;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Default, Debug)]
pub(super) struct FreedSamples {
    /// Segments sent and not yet acknowledged, in sequence order: (start, end, last sent).
    queue: VecDeque<(SeqNum, SeqNum, Time)>,
    /// The send times of the segments the last ACK freed and may time.
    samples: Vec<Time>,
}

impl FreedSamples {
    /// A segment `[seq, end)` left the sender at `now`, new or resent.
    pub(super) fn on_send(&mut self, seq: SeqNum, end: SeqNum, now: Time) {
        match self.queue.back() {
            Some(&(_, last_end, _)) if seq < last_end => {
                // A retransmission: every queued segment it overlaps is stamped anew
                // (tcp_do_retransmit sets skb->when).
                for e in self.queue.iter_mut() {
                    if e.0 < end && seq < e.1 {
                        e.2 = now;
                    }
                }
            }
            _ => self.queue.push_back((seq, end, now)),
        }
    }

    /// An ACK of `ack` at `now`: the send times of the segments it frees, each a sample, in
    /// order, for [`FreedSamples::take_samples`]; none when `retransmitting` (the sender's
    /// `sk->retransmits != 0` as the ACK arrives: `flag |= 2` from the first segment freed).
    pub(super) fn on_ack(&mut self, ack: SeqNum, now: Time, retransmitting: bool) {
        self.samples.clear();
        while let Some(&(_, end, sent)) = self.queue.front() {
            if end > ack {
                break;
            }
            self.queue.pop_front();
            if !retransmitting && sent <= now {
                self.samples.push(sent);
            }
        }
    }

    /// The samples the last ACK gave (send times), emptied.
    pub(super) fn take_samples(&mut self) -> std::vec::Drain<'_, Time> {
        self.samples.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    fn acked(f: &mut FreedSamples, ack: u32, now: u64, retransmitting: bool) -> Vec<Time> {
        f.on_ack(SeqNum(ack), ms(now), retransmitting);
        f.take_samples().collect()
    }

    #[test]
    fn every_segment_an_ack_frees_gives_a_sample_from_its_own_send_time() {
        // tcp_ack: tcp_rtt_estimator(sk, skb) for each skb freed.
        let mut f = FreedSamples::default();
        for (i, t) in [(0, 0), (1, 10), (2, 20)] {
            f.on_send(SeqNum(i * 100), SeqNum(i * 100 + 100), ms(t));
        }
        assert_eq!(acked(&mut f, 200, 500, false), vec![ms(0), ms(10)]);
        assert_eq!(acked(&mut f, 250, 510, false), vec![]); // frees nothing whole
        assert_eq!(acked(&mut f, 300, 520, false), vec![ms(20)]);
    }

    #[test]
    fn while_retransmitting_an_ack_frees_segments_without_a_sample() {
        // "We were retransmitting. don't count this in RTT est" (the sender clears the state
        // once everything is acknowledged: tcp::tests::rules).
        let mut f = FreedSamples::default();
        for i in 0..3 {
            f.on_send(SeqNum(i * 100), SeqNum(i * 100 + 100), ms(0));
        }
        f.on_send(SeqNum(0), SeqNum(100), ms(300)); // the timeout's resend
        assert_eq!(acked(&mut f, 100, 400, true), vec![]);
        assert_eq!(acked(&mut f, 300, 450, true), vec![]);
        f.on_send(SeqNum(300), SeqNum(400), ms(460));
        assert_eq!(acked(&mut f, 400, 500, false), vec![ms(460)]);
    }

    #[test]
    fn a_fast_retransmit_restamps_the_segment_and_does_not_stop_sampling() {
        let mut f = FreedSamples::default();
        f.on_send(SeqNum(0), SeqNum(100), ms(0));
        f.on_send(SeqNum(100), SeqNum(200), ms(5));
        f.on_send(SeqNum(0), SeqNum(100), ms(50)); // resent by fast retransmit
        assert_eq!(acked(&mut f, 200, 90, false), vec![ms(50), ms(5)]);
    }
}
