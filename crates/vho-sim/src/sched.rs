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

/// A heap entry: (time, insertion order) as one 128-bit key, so that sifting compares one
/// integer, with no branch between the two fields.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

#[inline(always)]
fn key(at: Time, seq: u64) -> u128 {
    (u128::from(at.as_nanos()) << 64) | u128::from(seq)
}

#[inline(always)]
fn key_time(key: u128) -> Time {
    Time((key >> 64) as u64)
}

/// Up to this many pending events are kept in the small vector, where [`EventQueue::cancel`]
/// can take one out. A handover cell has about five pending (mean 4.6, at most 8 in the 20 MB
/// benchmark cell: one arrival per busy link direction and a timer per endpoint), where a
/// sorted vector's insertion by a short scan beats a heap's sifting (measured: pops were 12 %
/// of the loop with `BinaryHeap`). Past it, cancelling declines (the event stays pending and
/// runs, finding nothing due) until the queue has emptied, as it did when the heap took over
/// here: the same scenario runs the same events (`summary.json`'s `run.events`).
const SMALL: usize = 32;

/// Past `SMALL`, up to this many pending events are kept in a second sorted vector (the
/// crowd), beyond it in a binary heap. Chen et al.'s 14-node world has about 30 pending (16
/// Pareto sources, a dozen busy link directions), and most of its new events are a pipe's next
/// arrival, a hundred microseconds on, near the front: a scan from the earliest end passes a
/// few entries, with a branch the processor predicts, where the heap's sifting mispredicts
/// about one branch a level. Measured on that world (`run_timed`, `run.stop` set): 30 s under
/// callgrind 880 M instructions against 919 M with the heap from 33 pending on, 300 s 0.85 s
/// of user CPU against 1.10 s (medians of 2 on a shared machine). A topology with more flows
/// and links gets the heap's O(log n).
///
/// Fewer instructions are not less time here. A calendar queue (Brown 1988; days of 16.4 µs, a
/// year of 1024 days, a heap beyond it) in place of the crowd and heap ran Chen's world in 10 %
/// fewer instructions (callgrind, `run_timed`, `run.stop = "60 s"`: 1,638 M against 1,828 M)
/// and more user CPU (300 s, medians of 6 interleaved: 0.79 s against 0.71 s, the rest of the
/// build alike), days of 2 µs no better: its pops and pushes chase indices through two arrays
/// and branch on what each day holds, where the crowd's scan is one predictable loop over a
/// few cache lines. A radix heap ran 8 % more instructions than the crowd.
const CROWD: usize = 64;

/// An entry of a sorted vector: its place there is its insertion order.
#[derive(Clone, Copy)]
struct Slot<E> {
    at: Time,
    event: E,
}

pub struct EventQueue<E> {
    /// Sorted latest first, so that the earliest is popped from the end; empty once more than
    /// `SMALL` were pending, until the queue empties (`big`).
    small: Vec<Slot<E>>,
    /// More than `SMALL` were pending since the queue was last empty: the entries are in
    /// `crowd` or `heap`, and `cancel` declines.
    big: bool,
    /// Sorted as `small`; in use while `big`, until more than `CROWD` are pending.
    crowd: Vec<Slot<E>>,
    /// A binary min-heap on `Entry::key` (the root at 0, the children of `i` at `2i + 1` and
    /// `2i + 2`); once non-empty, in use until it empties.
    heap: Vec<Entry<E>>,
    /// The heap's root was popped and its place is not refilled yet. Nearly every event
    /// schedules one more (a pipe's next head, a source's next datagram): the next `schedule`
    /// puts the new entry at the root and sifts it down, one sift where a pop and a push make
    /// two; a second pop in a row fills the hole with the last entry first. Only while `heap`
    /// holds two entries or more (popping the last one empties it).
    hole: bool,
    /// Insertion order within the heap (the vectors need none).
    next_seq: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(SMALL)
    }
}

/// Inserts `e` into `v`, sorted latest first: after (towards the end) every entry later in
/// time, before every entry at the same time or earlier (`e` is the last scheduled). Appended,
/// then the entries it passes move up one place each, scanning from the earliest end: for the
/// few entries passed this is cheaper than `Vec::insert`'s shift by `memmove`.
#[inline(always)]
fn insert_sorted<E: Copy>(v: &mut Vec<Slot<E>>, e: Slot<E>) {
    v.push(e);
    let v = v.as_mut_slice();
    let mut i = v.len() - 1;
    while i > 0 && v[i - 1].at <= e.at {
        v[i] = v[i - 1];
        i -= 1;
    }
    v[i] = e;
}

impl<E: Copy> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            small: Vec::with_capacity(n.min(SMALL)),
            big: false,
            crowd: Vec::new(),
            heap: Vec::new(),
            hole: false,
            next_seq: 0,
        }
    }
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: E) {
        if self.big {
            // Into the crowd in place: Chen et al.'s world schedules nearly every event so
            // (out of line, through `schedule_big`, it ran 3 % more user CPU: 300 s, 12 runs
            // in turn, 0.539 s against 0.520 s; the 20 MB cell, which never leaves the small
            // vector, runs 0.5 % more instructions for the inlined test).
            if self.heap.is_empty() && self.crowd.len() < CROWD {
                return insert_sorted(&mut self.crowd, Slot { at, event });
            }
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

    /// The `SMALL + 1`-th pending event: the small vector becomes the crowd, until the queue
    /// empties.
    #[cold]
    #[inline(never)]
    fn schedule_first_big(&mut self, e: Slot<E>) {
        self.big = true;
        std::mem::swap(&mut self.small, &mut self.crowd);
        self.schedule_big(e.at, e.event);
    }

    /// Once more than `SMALL` are pending (a topology with many links and flows, where it
    /// stays so for the whole run), where `schedule` did not insert in place: into the crowd
    /// (the first such event), or the heap. Out of line, so that the small vector's callers stay as lean as before (inlined here
    /// it cost the 20 MB cell 1 % more instructions).
    #[inline(never)]
    fn schedule_big(&mut self, at: Time, event: E) {
        if !self.heap.is_empty() {
            return self.push_heap(at, event);
        }
        if self.crowd.len() == CROWD {
            return self.schedule_in_heap(Slot { at, event });
        }
        insert_sorted(&mut self.crowd, Slot { at, event });
    }

    #[inline(always)]
    fn push_heap(&mut self, at: Time, event: E) {
        let e = Entry {
            key: key(at, self.next_seq),
            event,
        };
        self.next_seq += 1;
        if self.hole {
            self.hole = false;
            self.sift_down(0, e);
        } else {
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1, e);
        }
    }

    /// Puts `e` at `i` (a free place) or above it, moving down the parents later than it.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, e: Entry<E>) {
        let h = self.heap.as_mut_slice();
        while i > 0 {
            let parent = (i - 1) / 2;
            if h[parent].key <= e.key {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
    }

    /// Puts `e` at `i` (a free place) or below it, moving up the earlier child while it is
    /// earlier than `e`. (Floyd's way, down to a leaf first and then up, as `BinaryHeap::pop`
    /// does, cost 7 % more instructions on Chen et al.'s world: its new events are not late
    /// enough among those pending to stay near the bottom.)
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, e: Entry<E>) {
        let h = self.heap.as_mut_slice();
        let n = h.len();
        let mut c = 2 * i + 1;
        while c + 1 < n {
            c += usize::from(h[c + 1].key < h[c].key);
            if h[c].key >= e.key {
                h[i] = e;
                return;
            }
            h[i] = h[c];
            i = c;
            c = 2 * i + 1;
        }
        if c < n && h[c].key < e.key {
            h[i] = h[c];
            i = c;
        }
        h[i] = e;
    }

    /// The `CROWD + 1`-th pending event: everything moves to the heap, until it empties.
    #[cold]
    #[inline(never)]
    fn schedule_in_heap(&mut self, e: Slot<E>) {
        // The crowd's entries, earliest first (its pop order), then the new one: their
        // sequence numbers keep the insertion order of entries at the same time.
        let crowd = std::mem::take(&mut self.crowd);
        for Slot { at, event } in crowd.into_iter().rev().chain(std::iter::once(e)) {
            self.push_heap(at, event);
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
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.big {
            self.pop_big()
        } else {
            self.small.pop().map(|e| (e.at, e.event))
        }
    }

    /// Inlined in the one loop that pops (out of line it cost Chen et al.'s world 5 % more
    /// instructions).
    #[inline(always)]
    fn pop_big(&mut self) -> Option<(Time, E)> {
        if self.heap.is_empty() {
            let e = self.crowd.pop();
            self.big = !self.crowd.is_empty();
            return e.map(|e| (e.at, e.event));
        }
        if self.hole {
            // Two pops in a row: the last entry fills the root's place first.
            self.hole = false;
            if let Some(last) = self.heap.pop() {
                self.sift_down(0, last);
            }
        }
        if self.heap.len() == 1 {
            // The last pending event: the queue empties and the small vector takes over.
            self.big = false;
            return self.heap.pop().map(|e| (key_time(e.key), e.event));
        }
        let root = self.heap[0];
        self.hole = true;
        Some((key_time(root.key), root.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        if !self.big {
            self.small.last().map(|e| e.at)
        } else if self.heap.is_empty() {
            self.crowd.last().map(|e| e.at)
        } else if self.hole {
            // The earliest left is the root's earlier child (the hole holds two or more).
            let n = self.heap.len().min(3);
            self.heap[1..n].iter().map(|e| e.key).min().map(key_time)
        } else {
            Some(key_time(self.heap[0].key))
        }
    }
    pub fn len(&self) -> usize {
        self.small.len() + self.crowd.len() + self.heap.len() - usize::from(self.hole)
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
        // until the queue has emptied, whether the heap has taken over or not.
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
        for i in 0..=CROWD as u64 {
            q.schedule(Time(i), "h");
        }
        assert!(!q.cancel(Time(0), &"h"));
        assert_eq!(q.len(), CROWD + 1);
    }

    #[test]
    fn the_small_vector_and_the_heap_agree() {
        // Past SMALL pending entries the queue moves to the crowd, past CROWD to a heap, and
        // back when it empties; the order must not change. Random schedules and pops against
        // a sorted reference, with many ties (times drawn from a few values).
        let mut rng = crate::rng::Rng::from_u64(7);
        for round in 0..200u64 {
            let mut q = EventQueue::default();
            let mut reference = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u64, 0u64);
            let n_ops = 50 + rng.below(400);
            let push_bias = 1 + round % 3; // some rounds grow past CROWD, some stay small
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
                // After a pop the heap's root is a hole: the earliest is then found among its
                // children.
                let first = reference.first().map(|&(t, _)| t);
                assert_eq!(q.peek_time(), first, "round {round}");
            }
            let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
            assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
        }
    }
}
