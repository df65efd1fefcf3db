//! The event queue once many events are pending: a calendar queue (R. Brown, "Calendar
//! queues: a fast O(1) priority queue implementation for the simulation event set problem",
//! CACM 31(10), 1988) of one year, with a heap for what falls outside it.
//!
//! Time is cut into days of [`DAY`]; the year is the [`DAYS`] days from `today`, the day of
//! the last event popped. An event within the year goes to its day's list, kept in (time,
//! insertion) order: the days are short enough that a list holds about one entry, so that
//! scheduling is a short walk and popping takes the first entry of the first day a bitmap
//! marks. An event outside the year (a source idle for seconds, a timer far off) goes to the
//! far heap, a binary heap on (time, insertion order); a pop takes the earlier of the
//! calendar's first and the heap's root.
//!
//! Ties between the two keep the order scheduled: an event in the far heap at the same time
//! as one in the calendar was scheduled first (it fell beyond the year then; `today` only
//! moves forward, so a later schedule at that time found it within the year), and a pop of
//! equal times takes the heap's. Unlike Brown's queue, the year does not wrap onto later
//! years and the days do not resize: nothing ever moves from one structure to the other.

use crate::time::Time;
use std::collections::BinaryHeap;

/// A day: 2^14 ns, 16.4 µs. Chen et al.'s world (seed 004 §5, `scenarios/studies/chen.toml`)
/// runs an event every 17.5 µs on average (73.1 M events in 1200 s), so that a day's list
/// holds about one entry. vho's choice, measured on that world (see `sched.rs`).
const DAY_BITS: u32 = 14;
/// The year: 1024 days, 16.8 ms, past the 10 ms propagation of Chen's wired links, so that a
/// pipe's first arrival, a source's next datagram in a burst and every serialisation end of
/// a 100 Mb/s link fall within it.
const DAYS: usize = 1024;
const WORDS: usize = DAYS / 64;
/// No node (an empty day, the end of a list, an empty free list).
const NIL: u32 = u32::MAX;

/// An entry of a day's list.
#[derive(Clone, Copy)]
struct Node<E> {
    at: Time,
    event: E,
    next: u32,
}

/// An entry of the far heap: (time, insertion order) as one 128-bit key, reversed so that
/// `BinaryHeap`'s root is the earliest.
struct Far<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Far<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Far<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key.cmp(&self.key)
    }
}

fn far_time(key: u128) -> Time {
    Time((key >> 64) as u64)
}

pub struct Calendar<E> {
    /// Per day of the year (the absolute day modulo `DAYS`), its first entry; `NIL` when
    /// empty. Allocated at the first `reset` (a run that never has many events pending
    /// never needs it).
    first: Vec<u32>,
    /// Bit `d % 64` of word `d / 64`: day `d`'s list is not empty.
    occupied: [u64; WORDS],
    /// The lists' entries, and free ones linked from `free`.
    nodes: Vec<Node<E>>,
    free: u32,
    /// The absolute day (time >> `DAY_BITS`) the year starts on: every entry in the calendar
    /// is on a day in `today .. today + DAYS`.
    today: u64,
    /// Entries in the calendar.
    in_year: usize,
    far: BinaryHeap<Far<E>>,
    /// Insertion order within the far heap.
    next_seq: u64,
}

impl<E: Copy> Default for Calendar<E> {
    fn default() -> Self {
        Calendar {
            first: Vec::new(),
            occupied: [0; WORDS],
            nodes: Vec::new(),
            free: NIL,
            today: 0,
            in_year: 0,
            far: BinaryHeap::new(),
            next_seq: 0,
        }
    }
}

impl<E: Copy> Calendar<E> {
    /// Starts an empty calendar's year on the day of `at`, the earliest time to be pushed
    /// until the first pop (an earlier one goes to the far heap, correct but slower).
    pub fn reset(&mut self, at: Time) {
        debug_assert!(self.is_empty(), "reset with {} entries", self.len());
        if self.first.is_empty() {
            self.first = vec![NIL; DAYS];
        }
        self.today = at.as_nanos() >> DAY_BITS;
    }

    pub fn len(&self) -> usize {
        self.in_year + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `event` at `at`, after every entry already at `at`.
    #[inline(always)]
    pub fn push(&mut self, at: Time, event: E) {
        let day = at.as_nanos() >> DAY_BITS;
        // Before today (wrapping to a huge offset) or past the year: the far heap.
        if day.wrapping_sub(self.today) >= DAYS as u64 {
            return self.push_far(at, event);
        }
        let d = day as usize & (DAYS - 1);
        let n = self.alloc(Node {
            at,
            event,
            next: NIL,
        });
        self.in_year += 1;
        let head = self.first[d];
        if head == NIL {
            self.first[d] = n;
            self.occupied[d / 64] |= 1 << (d % 64);
            return;
        }
        if self.nodes[head as usize].at > at {
            self.nodes[n as usize].next = head;
            self.first[d] = n;
            return;
        }
        // After every entry at or before `at`.
        let mut p = head;
        loop {
            let next = self.nodes[p as usize].next;
            if next == NIL || self.nodes[next as usize].at > at {
                self.nodes[n as usize].next = next;
                self.nodes[p as usize].next = n;
                return;
            }
            p = next;
        }
    }

    #[cold]
    #[inline(never)]
    fn push_far(&mut self, at: Time, event: E) {
        let key = (u128::from(at.as_nanos()) << 64) | u128::from(self.next_seq);
        self.next_seq += 1;
        self.far.push(Far { key, event });
    }

    #[inline(always)]
    fn alloc(&mut self, node: Node<E>) -> u32 {
        if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// The first day of the year with an entry (the calendar holds one).
    #[inline(always)]
    fn first_day(&self) -> usize {
        let start = self.today as usize & (DAYS - 1);
        let (w, bit) = (start / 64, start % 64);
        let bits = self.occupied[w] & (!0u64 << bit);
        if bits != 0 {
            return w * 64 + bits.trailing_zeros() as usize;
        }
        self.first_day_after(w, bit)
    }

    /// As `first_day`, when the word of today has no entry from today on: the next words,
    /// round the year back to that word's days before today (the year's last ones).
    #[inline(never)]
    fn first_day_after(&self, w: usize, bit: usize) -> usize {
        for k in 1..WORDS {
            let w2 = (w + k) % WORDS;
            if self.occupied[w2] != 0 {
                return w2 * 64 + self.occupied[w2].trailing_zeros() as usize;
            }
        }
        let bits = self.occupied[w] & ((1u64 << bit) - 1);
        debug_assert!(bits != 0, "the calendar holds an entry");
        w * 64 + bits.trailing_zeros() as usize
    }

    /// Removes and returns the earliest entry if it is due by `until`; otherwise `Err` with
    /// the earliest time pending (`None`: empty). Nothing moves unless it is popped.
    #[inline(always)]
    pub fn pop_by(&mut self, until: Time) -> Result<(Time, E), Option<Time>> {
        let far = self.far.peek().map(|f| far_time(f.key));
        if self.in_year > 0 {
            let d = self.first_day();
            let n = self.first[d];
            let node = self.nodes[n as usize];
            // Equal times: the far heap's was scheduled first.
            if far.is_none_or(|f| node.at < f) {
                if node.at > until {
                    return Err(Some(node.at));
                }
                self.first[d] = node.next;
                if node.next == NIL {
                    self.occupied[d / 64] &= !(1 << (d % 64));
                }
                self.nodes[n as usize].next = self.free;
                self.free = n;
                self.in_year -= 1;
                self.today = node.at.as_nanos() >> DAY_BITS;
                return Ok((node.at, node.event));
            }
        }
        match far {
            None => Err(None),
            Some(f) if f > until => Err(Some(f)),
            Some(_) => Ok(self.pop_far()),
        }
    }

    #[cold]
    #[inline(never)]
    fn pop_far(&mut self) -> (Time, E) {
        let f = self.far.pop().expect("invariant: just peeked");
        let at = far_time(f.key);
        // The year moves on with the clock (an entry scheduled before today stays behind).
        self.today = self.today.max(at.as_nanos() >> DAY_BITS);
        (at, f.event)
    }

    /// The earliest time pending, without moving anything.
    pub fn peek_time(&self) -> Option<Time> {
        let far = self.far.peek().map(|f| far_time(f.key));
        let near = (self.in_year > 0).then(|| self.nodes[self.first[self.first_day()] as usize].at);
        match (near, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_NS: u64 = 1 << DAY_BITS;

    #[test]
    fn equal_times_in_the_far_heap_and_the_calendar_pop_in_the_order_scheduled() {
        // sched.rs's rule: time, then insertion order. "far" at T is beyond the year when
        // scheduled (T is DAYS + 5 days on); once the clock has moved on, "near" at the same T
        // falls within the year; "far" must still pop first.
        let t = Time((DAYS as u64 + 5) * DAY_NS + 7);
        let mut c = Calendar::default();
        c.reset(Time::ZERO);
        c.push(t, "far");
        c.push(Time(10 * DAY_NS), "step");
        assert_eq!(c.pop_by(Time::MAX).ok(), Some((Time(10 * DAY_NS), "step")));
        c.push(t, "near");
        c.push(Time(10 * DAY_NS + 1), "a");
        c.push(Time(10 * DAY_NS + 1), "b");
        let order: Vec<_> = std::iter::from_fn(|| c.pop_by(Time::MAX).ok())
            .map(|(_, e)| e)
            .collect();
        assert_eq!(order, ["a", "b", "far", "near"]);
        assert!(c.is_empty());
    }

    #[test]
    fn agrees_with_a_sorted_reference() {
        // Random pushes at or after the clock and pops, against a BTreeSet ordered by (time,
        // insertion): times over a few ns (ties in one day), a few days, a year and more (the
        // far heap, the year's wrap-around); some pushes before the day the year started on.
        let mut rng = crate::rng::Rng::from_u64(11);
        for round in 0..400u64 {
            let span = 1u64 << (2 + round % 30);
            let mut c = Calendar::default();
            let start = rng.below(1 << 30);
            c.reset(Time(start + rng.below(3 * DAY_NS)));
            let mut reference = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u64, start);
            for _ in 0..(50 + rng.below(500)) {
                if rng.below(3) > 0 || reference.is_empty() {
                    let t = Time(now + rng.below(span));
                    c.push(t, seq);
                    reference.insert((t, seq));
                    seq += 1;
                } else {
                    let first = reference.first().map(|&(t, _)| t);
                    assert_eq!(c.peek_time(), first, "round {round}");
                    if let Some(t) = first.filter(|t| t.0 > now) {
                        // Not due by an instant before it: nothing taken.
                        assert_eq!(c.pop_by(Time(t.0 - 1)).err(), Some(first));
                    }
                    let want = reference.pop_first();
                    assert_eq!(c.pop_by(Time::MAX).ok(), want, "round {round}");
                    now = want.map_or(now, |(t, _)| t.0);
                }
                assert_eq!(c.len(), reference.len());
            }
            let rest: Vec<_> = std::iter::from_fn(|| c.pop_by(Time::MAX).ok()).collect();
            assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
        }
    }
}
