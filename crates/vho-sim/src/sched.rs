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

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    #[inline(always)]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
    #[inline(always)]
    fn le(&self, o: &Self) -> bool {
        o.key() <= self.key()
    }
}
/// Reversed so that `BinaryHeap` (a max-heap) pops the earliest entry first. (time, seq) is
/// compared as one 128-bit key: no branch between the two fields when sifting.
impl<E> Ord for Entry<E> {
    #[inline(always)]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

impl<E> Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.at.as_nanos()) << 64) | u128::from(self.seq)
    }
}

/// Up to this many pending events are kept in a sorted vector, beyond it in a binary heap.
/// A handover cell has about five pending (mean 4.6, at most 8 in the 20 MB benchmark cell:
/// one arrival per busy link direction and a timer per endpoint), where a sorted vector's
/// insertion by a short scan beats a heap's sifting (measured: pops were 12 % of the loop
/// with `BinaryHeap`); a topology with many flows and links gets the heap's O(log n).
const SMALL: usize = 32;

/// An entry of the small vector: its place there is its insertion order.
#[derive(Clone, Copy)]
struct Slot<E> {
    at: Time,
    event: E,
}

pub struct EventQueue<E> {
    /// Sorted latest first, so that the earliest is popped from the end; unused once `heap`
    /// has taken over.
    small: Vec<Slot<E>>,
    heap: BinaryHeap<Entry<E>>,
    /// Insertion order within the heap (the small vector needs none).
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(SMALL)
    }
}

impl<E> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            small: Vec::with_capacity(n.min(SMALL)),
            heap: BinaryHeap::new(),
            next_seq: 0,
        }
    }
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: E) {
        if !self.heap.is_empty() {
            return self.push_heap(at, event);
        }
        let e = Slot { at, event };
        if self.small.len() == SMALL {
            return self.schedule_in_heap(e);
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

    /// Once the heap has taken over (a topology with many links and flows, where it stays for
    /// the whole run): a push. Out of line, so that the small vector's callers stay as lean
    /// as before (inlined here it cost the 20 MB cell 1 % more instructions); not cold, and
    /// not the migration's detour below, which took a fifth of the instructions of Chen et
    /// al.'s 14-node world with its 16 cross-traffic sources (callgrind).
    #[inline(never)]
    fn push_heap(&mut self, at: Time, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { at, seq, event });
    }

    /// The `SMALL + 1`-th pending event: everything moves to the heap, until it empties.
    #[cold]
    #[inline(never)]
    fn schedule_in_heap(&mut self, e: Slot<E>) {
        // The small vector's entries, earliest first (its pop order), then the new one: their
        // sequence numbers keep the insertion order of entries at the same time.
        let small = std::mem::take(&mut self.small);
        for Slot { at, event } in small.into_iter().rev().chain(std::iter::once(e)) {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.heap.push(Entry { at, seq, event });
        }
    }
    /// Removes the pending `event` due at `at`, if the queue can do so cheaply (while it is a
    /// small vector); `false` if it is still pending. Removing changes nothing else: the
    /// others keep their order.
    pub fn cancel(&mut self, at: Time, event: &E) -> bool
    where
        E: PartialEq,
    {
        if !self.heap.is_empty() {
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
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.heap.is_empty() {
            self.small.pop().map(|e| (e.at, e.event))
        } else {
            self.heap.pop().map(|e| (e.at, e.event))
        }
    }
    pub fn peek_time(&self) -> Option<Time> {
        if self.heap.is_empty() {
            self.small.last().map(|e| e.at)
        } else {
            self.heap.peek().map(|e| e.at)
        }
    }
    pub fn len(&self) -> usize {
        self.small.len() + self.heap.len()
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
        // Once the heap has taken over, cancelling is declined: the event stays pending.
        for i in 0..=SMALL as u64 {
            q.schedule(Time(i), "h");
        }
        assert!(!q.cancel(Time(0), &"h"));
        assert_eq!(q.len(), SMALL + 1);
    }

    #[test]
    fn the_small_vector_and_the_heap_agree() {
        // Past SMALL pending entries the queue moves to a heap and back when it empties; the
        // order must not change. Random schedules and pops against a sorted reference, with
        // many ties (times drawn from a few values).
        let mut rng = crate::rng::Rng::from_u64(7);
        for round in 0..200u64 {
            let mut q = EventQueue::default();
            let mut reference = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u64, 0u64);
            let n_ops = 50 + rng.below(400);
            let push_bias = 1 + round % 3; // some rounds grow past SMALL, some stay small
            for _ in 0..n_ops {
                if rng.below(push_bias + 1) > 0 || reference.is_empty() {
                    let t = Time(now + rng.below(5));
                    q.schedule(t, seq);
                    reference.insert((t, seq));
                    seq += 1;
                } else {
                    let want = reference.pop_first();
                    let got = q.pop();
                    assert_eq!(got, want, "round {round}");
                    now = got.map_or(now, |(t, _)| t.0);
                }
                assert_eq!(q.len(), reference.len());
            }
            let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
            assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
        }
    }
}
