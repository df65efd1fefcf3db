//! Ground truth: what really happened to each transmission of a flow's data.
//!
//! The simulator sees every copy of every segment: when it was sent, and whether it was
//! delivered to the receiver or dropped. From that it counts what no endpoint can know:
//! - a **spurious retransmission** is a copy sent when an earlier copy of the same bytes
//!   was (eventually) delivered: the retransmission was not needed (Daniel & Kojo §3.1's
//!   "unnecessary retransmissions");
//! - a **spurious timeout** is a retransmission timeout whose retransmitted segment had an
//!   earlier copy that was delivered: the original was not lost, only late.
//!
//! No protocol or remedy reads this (ARCHITECTURE.md, invariants). Memory is bounded by the
//! window: a segment's record is settled and dropped once every byte below it has been
//! delivered and none of its copies is still in the network.

use crate::tcp::TxKind;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default)]
struct SegTruth {
    len: u32,
    /// Copies sent so far.
    copies: u16,
    /// Copies still in the network.
    in_flight: u16,
    /// Lowest index of a delivered copy.
    min_delivered: Option<u16>,
    /// Bit i set when copy i was sent on a retransmission timeout (first 64 copies).
    rto_copies: u64,
}

impl SegTruth {
    fn spurious(&self) -> (u64, u64) {
        match self.min_delivered {
            None => (0, 0),
            Some(j) => {
                let retrans = (self.copies - 1 - j) as u64;
                let above = if j >= 63 {
                    0
                } else {
                    self.rto_copies >> (j + 1)
                };
                (retrans, above.count_ones() as u64)
            }
        }
    }
}

/// Settled counts of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TruthCounts {
    pub data_packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub spurious_retransmissions: u64,
    pub spurious_timeouts: u64,
    /// Data copies delivered to the receiver whose bytes it already had.
    pub duplicate_deliveries: u64,
    pub data_packets_dropped: u64,
    /// First transmissions (copy 0) delivered after a first transmission of higher sequence
    /// numbers: the network reordered them (Naoe et al. §VI's "out-of order delivery", which
    /// is 0 for Make-Before-Break despite its losses; retransmissions are not counted).
    pub reordered_deliveries: u64,
}

/// Segment records by offset, sorted: new data arrives at the back and settled records leave
/// at the front, so a deque with binary search does what an ordered map would, without its
/// node allocations on the hot path (`perf record` on `run_timed`: BTreeMap operations were ~10 % of a run).
#[derive(Default)]
struct Records(VecDeque<(u64, SegTruth)>);

impl Records {
    /// Position of `offset`, or where it would go. Most look-ups are at an end (new data is
    /// appended, deliveries come in order), so both ends are tried before a binary search.
    fn find(&self, offset: u64) -> Result<usize, usize> {
        let n = self.0.len();
        match self.0.back() {
            None => return Err(0),
            Some(&(last, _)) if offset > last => return Err(n),
            Some(&(last, _)) if offset == last => return Ok(n - 1),
            _ => {}
        }
        let (first, s) = self.0[0];
        if offset <= first {
            return if offset == first { Ok(0) } else { Err(0) };
        }
        // Full-sized segments back to back: the record is usually where the arithmetic says.
        let guess = ((offset - first) / s.len.max(1) as u64) as usize;
        if guess < n && self.0[guess].0 == offset {
            return Ok(guess);
        }
        self.0.binary_search_by_key(&offset, |r| r.0)
    }
    fn contains_key(&self, offset: u64) -> bool {
        self.find(offset).is_ok()
    }
    fn get_mut(&mut self, offset: u64) -> Option<&mut SegTruth> {
        self.find(offset).ok().map(|i| &mut self.0[i].1)
    }
    fn get_or_insert(&mut self, offset: u64, new: SegTruth) -> &mut SegTruth {
        let i = match self.find(offset) {
            Ok(i) => i,
            Err(i) if i == self.0.len() => {
                self.0.push_back((offset, new));
                i
            }
            Err(i) => {
                self.0.insert(i, (offset, new));
                i
            }
        };
        &mut self.0[i].1
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

#[derive(Default)]
pub struct FlowTruth {
    segs: Records,
    /// Every byte below this offset (from the first data byte) has been delivered.
    delivered_upto: u64,
    /// The highest offset of a first transmission delivered so far (first transmissions never
    /// overlap: one delivered below it was overtaken).
    highest_first_start: u64,
    counts: TruthCounts,
}

impl FlowTruth {
    /// The 64-bit offset of a 32-bit one (a sequence number less the first data byte's,
    /// modulo 2^32): the one nearest the delivered point. Every copy in the network lies
    /// within a window (at most 2^30 bytes, RFC 7323 §2.3) of it, so the choice is exact and
    /// transfers past 4 GiB are followed across the wrap.
    #[inline(always)]
    fn unwrap(&self, off: u32) -> u64 {
        // The signed 32-bit distance from the delivered point, added to it.
        let d = off.wrapping_sub(self.delivered_upto as u32) as i32;
        self.delivered_upto.wrapping_add_signed(d as i64)
    }

    /// A copy of `len` sequence numbers at `offset` (from the first data byte, modulo 2^32)
    /// leaves the sender; returns its copy index, to be carried by the packet. `data` is false
    /// for a bare FIN (one sequence number, counted in retransmissions and timeouts but not
    /// as a data packet).
    pub fn on_send(&mut self, offset: u32, len: u32, kind: TxKind, data: bool) -> u16 {
        let offset = self.unwrap(offset);
        if data {
            self.counts.data_packets_sent += 1;
        }
        if kind.is_retransmission() {
            self.counts.retransmissions += 1;
        }
        if kind == TxKind::RetransmitTimeout {
            self.counts.timeouts += 1;
        }
        if offset + len as u64 <= self.delivered_upto && !self.segs.contains_key(offset) {
            // Already delivered and settled: this copy is needless by definition.
            if kind.is_retransmission() {
                self.counts.spurious_retransmissions += 1;
                if kind == TxKind::RetransmitTimeout {
                    self.counts.spurious_timeouts += 1;
                }
            }
            return u16::MAX;
        }
        let s = self.segs.get_or_insert(
            offset,
            SegTruth {
                len,
                ..SegTruth::default()
            },
        );
        let copy = s.copies;
        s.copies = s.copies.saturating_add(1);
        s.in_flight += 1;
        if kind == TxKind::RetransmitTimeout && copy < 64 {
            s.rto_copies |= 1 << copy;
        }
        copy
    }

    /// The copy reached the receiver.
    pub fn on_deliver(&mut self, offset: u32, copy: u16) {
        let offset = self.unwrap(offset);
        if copy == 0 {
            if offset < self.highest_first_start {
                self.counts.reordered_deliveries += 1;
            } else {
                self.highest_first_start = offset;
            }
        }
        // The usual case, in order: the oldest record, at the delivered point, its one copy
        // in flight arriving. It settles at once; what follows it only if it was delivered
        // already (out of order).
        if offset == self.delivered_upto {
            if let Some(&(off, s)) = self.segs.0.front() {
                if off == offset && s.in_flight == 1 && s.min_delivered.is_none() {
                    let s = SegTruth {
                        in_flight: 0,
                        min_delivered: Some(copy),
                        ..s
                    };
                    let (r, t) = s.spurious();
                    self.counts.spurious_retransmissions += r;
                    self.counts.spurious_timeouts += t;
                    self.delivered_upto += s.len as u64;
                    self.segs.0.pop_front();
                    // What follows settles too if it was delivered already, or if it does not
                    // start at the new delivered point (records overlap when segments are not
                    // aligned): the general walk handles both.
                    let (next, upto) = (self.segs.0.front(), self.delivered_upto);
                    if next.is_some_and(|f| f.1.min_delivered.is_some() || f.0 != upto) {
                        self.settle();
                    }
                    return;
                }
            }
        }
        let Some(s) = self.segs.get_mut(offset) else {
            if copy == u16::MAX {
                self.counts.duplicate_deliveries += 1;
            }
            return;
        };
        if s.min_delivered.is_some() {
            self.counts.duplicate_deliveries += 1;
        }
        s.in_flight = s.in_flight.saturating_sub(1);
        s.min_delivered = Some(s.min_delivered.map_or(copy, |m| m.min(copy)));
        self.settle();
    }

    /// The network made one more copy of a packet (a NEMO home agent bicasting it, seed 002
    /// §IV-B): its segment has one more copy in flight, under the same copy index.
    pub fn on_network_copy(&mut self, offset: u32) {
        let offset = self.unwrap(offset);
        if let Some(s) = self.segs.get_mut(offset) {
            s.in_flight = s.in_flight.saturating_add(1);
        }
    }

    /// A network-made copy was discarded as redundant (a combiner's duplicate): one fewer in
    /// flight, no loss counted.
    pub fn on_absorb(&mut self, offset: u32) {
        let offset = self.unwrap(offset);
        if let Some(s) = self.segs.get_mut(offset) {
            s.in_flight = s.in_flight.saturating_sub(1);
        }
        self.settle();
    }

    /// The copy was dropped in the network (`data` as for [`FlowTruth::on_send`]). Returns
    /// whether the segment is now really lost: no copy left in the network, none delivered.
    pub fn on_drop(&mut self, offset: u32, _copy: u16, data: bool) -> bool {
        let offset = self.unwrap(offset);
        if data {
            self.counts.data_packets_dropped += 1;
        }
        let mut lost = false;
        if let Some(s) = self.segs.get_mut(offset) {
            s.in_flight = s.in_flight.saturating_sub(1);
            lost = s.in_flight == 0 && s.min_delivered.is_none();
        }
        self.settle();
        lost
    }

    /// Advances the delivered point and settles the records below it.
    fn settle(&mut self) {
        // The record at the delivered point is looked up once; the next one, if any, is at or
        // just after it in the sorted records.
        let recs = &self.segs.0;
        if let Ok(mut i) = self.segs.find(self.delivered_upto) {
            while let Some(len) = recs[i].1.min_delivered.map(|_| recs[i].1.len) {
                self.delivered_upto += len as u64;
                i += 1;
                while i < recs.len() && recs[i].0 < self.delivered_upto {
                    i += 1;
                }
                if i == recs.len() || recs[i].0 != self.delivered_upto {
                    break;
                }
            }
        }
        while let Some(&(off, s)) = self.segs.0.front() {
            if off >= self.delivered_upto || s.in_flight > 0 {
                break;
            }
            let (r, t) = s.spurious();
            self.counts.spurious_retransmissions += r;
            self.counts.spurious_timeouts += t;
            self.segs.0.pop_front();
        }
    }

    /// Counts so far, including records not yet settled (as if the run ended now: copies
    /// still in flight count as not delivered).
    pub fn counts(&self) -> TruthCounts {
        let mut c = self.counts;
        for (_, s) in &self.segs.0 {
            let (r, t) = s.spurious();
            c.spurious_retransmissions += r;
            c.spurious_timeouts += t;
        }
        c
    }

    /// The segments really lost now: every copy sent was dropped, none is in the network and
    /// none was delivered; as (offset from the first data byte modulo 2^32, length). For the
    /// oracle sender at a handover (`world::oracle`), and nothing else.
    pub fn lost_now(&self) -> Vec<(u32, u32)> {
        self.segs
            .0
            .iter()
            .filter(|(_, s)| s.copies > 0 && s.in_flight == 0 && s.min_delivered.is_none())
            .map(|&(off, s)| (off as u32, s.len))
            .collect()
    }

    /// Records held: bounded by the window, not the transfer size.
    pub fn open_records(&self) -> usize {
        self.segs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reordering_counts_first_transmissions_overtaken_not_retransmissions() {
        // Naoe et al. §VI: out-of-order delivery is 0 for Make-Before-Break although it loses
        // packets: a retransmission filling a hole is not reordering, an original overtaken by
        // a later original is.
        let mut t = FlowTruth::default();
        let c: Vec<u16> = (0..4)
            .map(|i| t.on_send(i * 1000, 1000, TxKind::New, true))
            .collect();
        t.on_deliver(0, c[0]);
        t.on_deliver(2000, c[2]); // 1000 lost
        let r = t.on_send(1000, 1000, TxKind::RetransmitFast, true);
        t.on_deliver(1000, r); // the retransmission fills the hole: not reordering
        assert_eq!(t.counts().reordered_deliveries, 0);
        let c4 = t.on_send(4000, 1000, TxKind::New, true);
        t.on_deliver(4000, c4);
        t.on_deliver(3000, c[3]); // overtaken by 4000: reordered
        assert_eq!(t.counts().reordered_deliveries, 1);
    }

    #[test]
    fn a_retransmission_of_a_delivered_original_is_spurious() {
        let mut t = FlowTruth::default();
        let c0 = t.on_send(0, 1000, TxKind::New, true);
        let c1 = t.on_send(0, 1000, TxKind::RetransmitTimeout, true);
        t.on_deliver(0, c0);
        t.on_deliver(0, c1);
        let c = t.counts();
        assert_eq!((c.retransmissions, c.spurious_retransmissions), (1, 1));
        assert_eq!((c.timeouts, c.spurious_timeouts), (1, 1));
        assert_eq!(c.duplicate_deliveries, 1);
        assert_eq!(t.open_records(), 0);
    }

    #[test]
    fn a_retransmission_of_a_lost_original_is_not_spurious() {
        let mut t = FlowTruth::default();
        let c0 = t.on_send(0, 1000, TxKind::New, true);
        t.on_drop(0, c0, true);
        let c1 = t.on_send(0, 1000, TxKind::RetransmitFast, true);
        t.on_deliver(0, c1);
        let c = t.counts();
        assert_eq!(
            (
                c.retransmissions,
                c.spurious_retransmissions,
                c.spurious_timeouts
            ),
            (1, 0, 0)
        );
    }

    #[test]
    fn late_original_overtaken_by_its_retransmission_still_makes_it_spurious() {
        // The retransmission arrives first (reordering), the original later: still needless.
        let mut t = FlowTruth::default();
        let c0 = t.on_send(0, 1000, TxKind::New, true);
        let c1 = t.on_send(0, 1000, TxKind::RetransmitTimeout, true);
        t.on_deliver(0, c1);
        t.on_deliver(0, c0);
        assert_eq!(t.counts().spurious_retransmissions, 1);
    }

    #[test]
    fn go_back_n_after_settling_counts_each_needless_copy() {
        let mut t = FlowTruth::default();
        for k in 0..3 {
            let c = t.on_send(k * 1000, 1000, TxKind::New, true);
            t.on_deliver(k * 1000, c);
        }
        assert_eq!(t.open_records(), 0);
        t.on_send(0, 1000, TxKind::RetransmitTimeout, true);
        t.on_send(1000, 1000, TxKind::RetransmitRecovery, true);
        let c = t.counts();
        assert_eq!((c.spurious_retransmissions, c.spurious_timeouts), (2, 1));
    }

    #[test]
    fn records_are_released_behind_the_delivered_point() {
        let mut t = FlowTruth::default();
        for k in 0..1000u32 {
            let c = t.on_send(k * 100, 100, TxKind::New, true);
            t.on_deliver(k * 100, c);
        }
        assert_eq!(t.open_records(), 0);
        assert_eq!(t.counts().data_packets_sent, 1000);
    }

    #[test]
    fn offsets_are_followed_across_the_32_bit_wrap() {
        // A transfer past 4 GiB: offsets are sequence numbers modulo 2^32. A segment just
        // below the wrap is lost; the segments after it, one across the wrap and one wholly
        // past it (a small 32-bit offset again), arrive; the retransmission settles them all.
        let mut t = FlowTruth::default();
        let mut off: u64 = 0;
        let step = 1u64 << 20;
        while off < (1u64 << 32) - 2 * step {
            let c = t.on_send(off as u32, step as u32, TxKind::New, true);
            t.on_deliver(off as u32, c);
            off += step;
        }
        let below = off as u32; // 2^32 - 2 MiB
        let c0 = t.on_send(below, 1000, TxKind::New, true);
        t.on_drop(below, c0, true);
        let across = off + 1000;
        let c1 = t.on_send(across as u32, 3 * step as u32, TxKind::New, true);
        t.on_deliver(across as u32, c1);
        let past = across + 3 * step;
        assert!(past > 1 << 32 && (past as u32) < below);
        let c2 = t.on_send(past as u32, 1000, TxKind::New, true);
        t.on_deliver(past as u32, c2);
        assert_eq!(t.open_records(), 3, "the hole holds the records above it");
        let c3 = t.on_send(below, 1000, TxKind::RetransmitFast, true);
        t.on_deliver(below, c3);
        assert_eq!(t.open_records(), 0);
        assert_eq!(t.delivered_upto, past + 1000);
        let c = t.counts();
        assert_eq!((c.retransmissions, c.spurious_retransmissions), (1, 0));
    }
}
