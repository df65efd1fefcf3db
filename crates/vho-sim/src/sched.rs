//! The event clock: a priority queue of events ordered by (time, insertion order).
//!
//! Ties break on insertion order, so two events at the same nanosecond always run in the order
//! they were scheduled, whatever the heap's internal layout: runs are deterministic.
//!
//! ns-2 has no such rule that vho could copy: its times are doubles, so a delayed-ACK timer
//! and a packet due "at the same instant" are apart by a rounding error, whichever way it
//! falls. Ordering ties by when each event's cause was decided (a packet's arrival from when
//! it went on the air) was tried against ns-2 on the whole Daniel & Kojo study
//! (`python3 benches/ns2_daniel_kojo.py`) and changed
//! nothing in aggregate (159 of 160 cells within 1 % of ns-2 either way; 4,954 against 4,941
//! of 5,120 single runs), fixing some fixed-instant cells and breaking others.

mod calendar;

use crate::time::Time;
use calendar::Calendar;

/// Up to this many pending events are kept in the small vector, where [`EventQueue::cancel`]
/// can take one out. A handover cell has about five pending (mean 4.6, at most 8 in the 20 MB
/// benchmark cell: one arrival per busy link direction and a timer per endpoint), where a
/// sorted vector's insertion by a short scan beats a heap's sifting (measured: pops were 12 %
/// of the loop with `BinaryHeap`). Past it, cancelling declines (the event stays pending and
/// runs, finding nothing due) until the queue has emptied, as it did when a heap took over
/// here: the same scenario runs the same events (`summary.json`'s `run.events`).
const SMALL: usize = 32;

/// An entry of the small vector: its place there is its insertion order.
#[derive(Clone, Copy)]
struct Slot<E> {
    at: Time,
    event: E,
}

/// The event queue: a sorted vector while few events are pending, a calendar queue
/// (`calendar.rs`) from the `SMALL + 1`-th on until the queue empties.
///
/// Chen et al.'s 14-node world (seed 004 §5) has about 30 pending for its whole run (16
/// Pareto sources, a dozen busy link directions). A second sorted vector there (up to 64
/// entries, then a binary heap) passed about 13 entries per insertion, a quarter of the run's
/// instructions: a pipe's next arrival lands a tenth of a millisecond on, a source's next
/// datagram half a millisecond, behind most of what is pending. The calendar files each in
/// its day's list of about one entry. Measured on that world, 60 s (callgrind, `run_timed`,
/// `run.stop = "60 s"`, 3.44 M events, the same ones): 1,828 M instructions before, 1,638 M
/// after (-10.4 %). Tried too: a radix heap, 1,976 M (nearly every pop emptied a bucket of
/// three or four entries into the ones below); the second vector's insertion by binary
/// search and `memmove`, 1,781 M.
pub struct EventQueue<E> {
    /// Sorted latest first, so that the earliest is popped from the end; empty once more than
    /// `SMALL` were pending, until the queue empties (`big`).
    small: Vec<Slot<E>>,
    /// More than `SMALL` were pending since the queue was last empty: the entries are in
    /// `calendar`, and `cancel` declines.
    big: bool,
    calendar: Calendar<E>,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(SMALL)
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            small: Vec::with_capacity(n.min(SMALL)),
            big: false,
            calendar: Calendar::default(),
        }
    }
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: E) {
        if self.big {
            return self.schedule_big(at, event);
        }
        let e = Slot { at, event };
        if self.small.len() == SMALL {
            return self.schedule_first_big(e);
        }
        // The new entry has the largest seq: it goes after (towards the end) every entry
        // that is later in time, before every entry at the same time or earlier. Scanning
        // from the end: skip the entries that are earlier or at the same time.
        // Appended, then moved down past those entries by swaps: for the few entries pending
        // this is cheaper than `Vec::insert`'s shift by `memmove`.
        self.small.push(e);
        let v = self.small.as_mut_slice();
        let mut i = v.len() - 1;
        while i > 0 && v[i - 1].at <= at {
            v.swap(i - 1, i);
            i -= 1;
        }
    }

    /// Once more than `SMALL` are pending (a topology with many links and flows, where it
    /// stays so for the whole run): into the calendar. Out of line, so that the small
    /// vector's callers stay as lean as before (inlined, a schedule to the old second vector
    /// cost the 20 MB cell 1 % more instructions, this one 0.2 %).
    #[inline(never)]
    fn schedule_big(&mut self, at: Time, event: E) {
        self.calendar.push(at, event);
    }

    /// The `SMALL + 1`-th pending event: the small vector's entries move to the calendar,
    /// earliest first (their pop order, which it keeps among equal times), then the new one;
    /// until the queue empties.
    #[cold]
    #[inline(never)]
    fn schedule_first_big(&mut self, e: Slot<E>) {
        self.big = true;
        let earliest = self.small.last().map_or(e.at, |s| s.at).min(e.at);
        self.calendar.reset(earliest);
        for Slot { at, event } in self.small.drain(..).rev().chain(std::iter::once(e)) {
            self.calendar.push(at, event);
        }
    }

    /// Removes the pending `event` due at `at`, if the queue can do so cheaply (while it is a
    /// small vector); `false` if it is still pending. Removing changes nothing else: the
    /// others keep their order.
    pub fn cancel(&mut self, at: Time, event: &E) -> bool
    where
        E: PartialEq,
    {
        if self.big {
            return false;
        }
        match self
            .small
            .iter()
            .rposition(|e| e.at == at && e.event == *event)
        {
            Some(i) => {
                self.small.remove(i);
                true
            }
            None => false,
        }
    }

    /// Removes and returns the earliest event if it is due by `until`; otherwise `Err` with
    /// the earliest time pending (`None`: nothing pending). The event loop's one call (it
    /// finds the earliest once).
    #[inline(always)]
    pub fn pop_by(&mut self, until: Time) -> Result<(Time, E), Option<Time>> {
        if !self.big {
            let Some(&e) = self.small.last() else {
                return Err(None);
            };
            if e.at > until {
                return Err(Some(e.at));
            }
            self.small.truncate(self.small.len() - 1);
            return Ok((e.at, e.event));
        }
        let e = self.calendar.pop_by(until);
        // The last pending event: the queue empties and the small vector takes over.
        self.big = !self.calendar.is_empty();
        e
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_by(Time::MAX).ok()
    }

    pub fn peek_time(&self) -> Option<Time> {
        if self.big {
            self.calendar.peek_time()
        } else {
            self.small.last().map(|e| e.at)
        }
    }
    pub fn len(&self) -> usize {
        self.small.len() + self.calendar.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(Time(5), "c");
        q.schedule(Time(1), "a");
        q.schedule(Time(5), "d");
        q.schedule(Time(1), "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
    }

    #[test]
    fn cancel_removes_one_event_and_keeps_the_order_of_the_rest() {
        let mut q = EventQueue::default();
        for (t, e) in [(3, "c"), (1, "a"), (3, "x"), (3, "d"), (2, "b")] {
            q.schedule(Time(t), e);
        }
        assert!(!q.cancel(Time(2), &"x"), "wrong time: nothing removed");
        assert!(q.cancel(Time(3), &"x"));
        assert!(!q.cancel(Time(3), &"x"), "already gone");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        // Once more than SMALL were pending, cancelling is declined (the event stays pending)
        // until the queue has emptied and the small vector has taken over again.
        for i in 0..=SMALL as u64 {
            q.schedule(Time(i), "h");
        }
        assert!(!q.cancel(Time(0), &"h"));
        assert_eq!(q.len(), SMALL + 1);
        while q.len() > 1 {
            q.pop();
            assert!(!q.cancel(Time(SMALL as u64), &"h"), "not yet empty");
        }
        q.pop();
        q.schedule(Time(50), "h");
        assert!(q.cancel(Time(50), &"h"), "emptied since: cancels again");
        for i in 0..=SMALL as u64 {
            q.schedule(Time(60 + i), "h");
        }
        assert!(!q.cancel(Time(60), &"h"), "big again");
        assert_eq!(q.len(), SMALL + 1);
    }

    #[test]
    fn the_small_vector_and_the_calendar_agree() {
        // Past SMALL pending entries the queue moves to the calendar, and back when it
        // empties; the order must not change. Random schedules and pops against a sorted
        // reference, with many ties (times drawn from a few values) in some rounds, times
        // spread over 50 ms in others (entries over many days, past the calendar's year, and
        // earlier than every one pending when the calendar takes over).
        let mut rng = crate::rng::Rng::from_u64(7);
        for round in 0..200u64 {
            let mut q = EventQueue::default();
            let mut reference = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u64, 0u64);
            let n_ops = 50 + rng.below(400);
            let push_bias = 1 + round % 3; // some rounds grow past SMALL, some stay small
            let span = if round % 2 == 0 { 5 } else { 50_000_000 };
            for _ in 0..n_ops {
                if rng.below(push_bias + 1) > 0 || reference.is_empty() {
                    let t = Time(now + rng.below(span));
                    q.schedule(t, seq);
                    reference.insert((t, seq));
                    seq += 1;
                } else {
                    let want = reference.pop_first();
                    if let Some((t, _)) = want.filter(|&(t, _)| t.0 > now) {
                        // Not due by an instant before it: nothing taken.
                        assert_eq!(q.pop_by(Time(t.0 - 1)), Err(Some(t)), "round {round}");
                    }
                    let got = q.pop();
                    assert_eq!(got, want, "round {round}");
                    now = got.map_or(now, |(t, _)| t.0);
                }
                assert_eq!(q.len(), reference.len());
                let first = reference.first().map(|&(t, _)| t);
                assert_eq!(q.peek_time(), first, "round {round}");
            }
            let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
            assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
        }
    }
}
