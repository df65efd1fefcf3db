//! Which packets are lost (RFC 5348 §5.1) and which losses begin a loss event (§5.2).
//!
//! §5.1: a packet is lost once NDUPACK packets with higher sequence numbers have arrived (a
//! late arrival after that no longer counts). §5.2: a lost packet's nominal arrival time is
//! interpolated between the packets received just before and just after it,
//!
//! ```text
//! T_loss = T_before + ( (T_after - T_before) * (S_loss - S_before)/(S_after - S_before) )
//! ```
//!
//! and it begins a new loss event when T_loss is more than one RTT after the start of the
//! current event (`T_loss > T_old + R`); otherwise it belongs to the current event: losses
//! within one RTT are one event.

use std::collections::VecDeque;

use crate::time::{Dur, Time};

/// The start of a loss event: the first lost packet's sequence number and nominal arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossEvent {
    pub seq: u64,
    pub at: Time,
}

#[derive(Clone, Debug)]
pub struct LossDetector {
    ndupack: u32,
    /// The lowest undecided sequence number: every one below it is received or lost; `None`
    /// before the first packet (packets before the first one received do not count).
    next: Option<u64>,
    /// The highest received packet among the decided ones: (S_before, T_before).
    before: Option<(u64, Time)>,
    /// Received packets at or above `next`, in sequence order, with their arrival times.
    pending: VecDeque<(u64, Time)>,
    /// The start of the current loss event (T_old).
    current: Option<LossEvent>,
    lost: u64,
    /// ns-2's `PreciseLoss_` (`round_loss_events`): the round of the newest packet, and the
    /// round in which the current loss event began; a new event also needs a newer round.
    rounds: Option<(u64, u64)>,
}

impl LossDetector {
    pub fn new(ndupack: u32) -> Self {
        LossDetector {
            ndupack: ndupack.max(1),
            next: None,
            before: None,
            pending: VecDeque::new(),
            current: None,
            lost: 0,
            rounds: None,
        }
    }

    /// Deviation (the `ns2` profile): the sender's round carried by the packet about to be
    /// given to `on_packet` (ns-2.35 tfrc-sink.cc `new_loss` with `PreciseLoss_ 1`: a loss
    /// begins a new event only if it is more than an RTT after the last one *and* the
    /// packet's round is newer than that event's).
    pub fn note_round(&mut self, round: u64) {
        let last = self.rounds.map_or(0, |(_, last)| last);
        let newest = self.rounds.map_or(round, |(cur, _)| cur.max(round));
        self.rounds = Some((newest, last));
    }

    /// Packets declared lost so far.
    pub fn lost_packets(&self) -> u64 {
        self.lost
    }

    /// A data packet `seq` arrived at `now`; `r` is the RTT to group losses by (the sender's
    /// R, §5.2). Calls `on_event` for every new loss event this arrival reveals, oldest first.
    pub fn on_packet(&mut self, seq: u64, now: Time, r: Dur, mut on_event: impl FnMut(LossEvent)) {
        let next = *self.next.get_or_insert(seq);
        if seq < next {
            return; // a duplicate, or a packet already declared lost (§5.1)
        }
        // Insert in sequence order (at the back, unless reordered); ignore duplicates.
        let at = self.pending.partition_point(|&(s, _)| s < seq);
        if self.pending.get(at).is_some_and(|&(s, _)| s == seq) {
            return;
        }
        self.pending.insert(at, (seq, now));
        self.decide(r, &mut on_event);
    }

    fn decide(&mut self, r: Dur, on_event: &mut impl FnMut(LossEvent)) {
        while let Some(&(s_after, t_after)) = self.pending.front() {
            let next = self.next.expect("invariant: set on the first packet");
            if s_after == next {
                self.pending.pop_front();
                self.next = Some(s_after + 1);
                self.before = Some((s_after, t_after));
                continue;
            }
            // A hole at `next ..s_after`: every pending packet is above it.
            if (self.pending.len() as u64) < self.ndupack as u64 {
                return;
            }
            for s_loss in next..s_after {
                let t_loss = match self.before {
                    Some((s_before, t_before)) => {
                        let span = t_after.saturating_since(t_before).as_nanos() as u128;
                        let num = span * (s_loss - s_before) as u128;
                        t_before + Dur((num / (s_after - s_before) as u128) as u64)
                    }
                    // Nothing received before the hole since the first packet: the loss
                    // cannot be placed earlier than the packet after it.
                    None => t_after,
                };
                self.lost += 1;
                let newer_round = self.rounds.is_none_or(|(cur, last)| cur > last);
                let new_event = match self.current {
                    None => true,
                    Some(old) => t_loss > old.at + r && newer_round,
                };
                if new_event {
                    if let Some((cur, _)) = self.rounds {
                        self.rounds = Some((cur, cur));
                    }
                    let e = LossEvent {
                        seq: s_loss,
                        at: t_loss,
                    };
                    self.current = Some(e);
                    on_event(e);
                }
            }
            self.next = Some(s_after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `seqs` arriving every 10 ms from t = 0 (one per slot, whether received or not:
    /// the slot of a missing sequence number passes empty), R = 100 ms. Returns the events.
    fn run(received: impl Iterator<Item = u64>, r: Dur) -> (Vec<LossEvent>, LossDetector) {
        let mut d = LossDetector::new(3);
        let mut events = Vec::new();
        for s in received {
            d.on_packet(s, Time::from_millis(10 * s), r, |e| events.push(e));
        }
        (events, d)
    }

    // ---- Tests for loss detection (RFC 5348 §5.1) ----

    #[test]
    fn a_packet_is_lost_only_after_ndupack_later_arrivals() {
        // RFC 5348 §5.1: lost once NDUPACK = 3 packets above it have arrived.
        let mut d = LossDetector::new(3);
        let mut n = 0;
        for s in [0, 1, 3, 4] {
            d.on_packet(s, Time::from_millis(s), Dur::from_millis(100), |_| n += 1);
        }
        assert_eq!(
            (n, d.lost_packets()),
            (0, 0),
            "only two packets above 2 so far"
        );
        d.on_packet(5, Time::from_millis(5), Dur::from_millis(100), |_| n += 1);
        assert_eq!((n, d.lost_packets()), (1, 1));
        // A reordered packet that comes back before the third later arrival is not lost.
        let mut d = LossDetector::new(3);
        for s in [0, 1, 3, 2, 4, 5, 6] {
            d.on_packet(s, Time::from_millis(s), Dur::from_millis(100), |_| n += 1);
        }
        assert_eq!(d.lost_packets(), 0);
    }

    #[test]
    fn the_lost_packets_arrival_is_interpolated() {
        // RFC 5348 §5.2: S_before = 4 at 40 ms, S_after = 8 at 80 ms; S_loss = 5 ->
        // T_loss = 40 + 40 * (5-4)/(8-4) = 50 ms.
        let (events, _) = run([0, 1, 2, 3, 4, 8, 9, 10].into_iter(), Dur::from_millis(100));
        assert_eq!(
            events,
            vec![LossEvent {
                seq: 5,
                at: Time::from_millis(50)
            }]
        );
        // The very first packet is S_before too: 1 is lost between 0 (0 ms) and 2 (20 ms).
        let (events, _) = run([0, 2, 3, 4].into_iter(), Dur::from_millis(100));
        assert_eq!(events[0].at, Time::from_millis(10));
    }

    // ---- Tests for loss events (RFC 5348 §5.2) ----

    #[test]
    fn with_rounds_a_new_event_also_needs_a_newer_round() {
        // ns-2.35 tfrc-sink.cc new_loss, PreciseLoss_ 1 (the `ns2` profile): the losses of
        // 10 and 21 are 110 ms apart with R = 100 ms, two events by §5.2 alone; if every
        // packet carries round 0 they are one; if the packets from 20 on carry round 1 (the
        // sender had a report meanwhile), two again.
        let lost = [10, 21];
        for (switch_at, expected) in [(u64::MAX, vec![10]), (20, vec![10, 21])] {
            let mut d = LossDetector::new(3);
            let mut events = Vec::new();
            for s in (0..40).filter(|s| !lost.contains(s)) {
                d.note_round(u64::from(s >= switch_at));
                d.on_packet(s, Time::from_millis(10 * s), Dur::from_millis(100), |e| {
                    events.push(e.seq)
                });
            }
            assert_eq!(events, expected, "round 1 from {switch_at}");
            assert_eq!(d.lost_packets(), 2);
        }
    }

    #[test]
    fn losses_within_one_rtt_are_one_event() {
        // RFC 5348 §5.2: packets every 10 ms, R = 100 ms. Losses of 10, 12 and 19 fall at
        // 100, 120 and 190 ms: within 100 ms of the event's start (100 ms), one event. The
        // loss of 21 at 210 ms is 110 ms after it: a second event; 25 at 250 ms belongs to it.
        let lost = [10, 12, 19, 21, 25];
        let (events, d) = run((0..40).filter(|s| !lost.contains(s)), Dur::from_millis(100));
        assert_eq!(d.lost_packets(), 5);
        assert_eq!(
            events,
            vec![
                LossEvent {
                    seq: 10,
                    at: Time::from_millis(100)
                },
                LossEvent {
                    seq: 21,
                    at: Time::from_millis(210)
                },
            ]
        );
        // A burst of consecutive losses is one event too.
        let (events, d) = run(
            (0..40).filter(|s| !(10..16).contains(s)),
            Dur::from_millis(100),
        );
        assert_eq!((events.len(), d.lost_packets()), (1, 6));
    }
}
