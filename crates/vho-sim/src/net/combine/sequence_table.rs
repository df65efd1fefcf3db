//! NEMO-SHO packet combining without APC: the first copy of each sequence number wins, and
//! the Sequence Number Table drops every later copy (Naoe et al., seed 002: §III "forwards
//! only the packet copy arrived earlier without waiting for the another copy"; §IV-B "its own
//! Sequence Number Table that stores sequence numbers forwarded to LFNs before. This avoids
//! injecting multiple copies of the original packet into LFNs"; §VI "packet combining only
//! based on sequence number").
//!
//! The table is bounded. The paper does not size it; it is a sliding window of
//! [`DEFAULT_TABLE_SIZE`] numbers ending at the highest number recorded, one bit each in a
//! ring. Sequence numbers are placed by serial-number arithmetic (RFC 1982, through
//! [`SeqUnwrapper`]), so the wrap from 65535 to 0 is one step forward like any other.
//! - Recording a number above the highest slides the window up: the numbers that fall out
//!   of its bottom are forgotten. A jump of a whole window or more forgets everything.
//! - The table is never full: it always holds the last `size` numbers. A copy whose number
//!   is below the window cannot be told from one already forwarded, so it is dropped as
//!   [`Verdict::OutsideTable`] rather than risk a second copy reaching the LFNs; a number the
//!   window has never recorded (a gap, or a number below the first one seen that is still
//!   inside the window) is new.
//! - The window must stay below 2^15 numbers, where serial comparison stops being defined.

use super::{CombineError, Combiner, CombinerStats, LinkClass, Pio, SeqUnwrapper, Verdict};
use crate::time::Time;
use std::marker::PhantomData;

pub use crate::config::mip::DEFAULT_TABLE_SIZE;

/// The largest window for which every number in it is within 2^15 of the highest (RFC 1982
/// §3.2's domain).
pub const MAX_TABLE_SIZE: u32 = 1 << 15;

/// What the table knows of a number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lookup {
    Recorded,
    NotRecorded,
    /// Below the window: forgotten, or never seen.
    OutsideTable,
}

/// The Sequence Number Table (§IV-B), on unwrapped sequence numbers ([`SeqUnwrapper`]).
#[derive(Clone, Debug)]
pub struct SequenceTable {
    size: u32,
    /// One bit per number, number `u` at bit `u mod size`, for the window
    /// (`highest - size`, `highest`].
    bits: Vec<u64>,
    highest: Option<i64>,
}

impl SequenceTable {
    pub fn new(size: u32) -> Result<SequenceTable, CombineError> {
        if size == 0 || size > MAX_TABLE_SIZE {
            return Err(CombineError::TableSize(size));
        }
        Ok(SequenceTable {
            size,
            bits: vec![0; size.div_ceil(64) as usize],
            highest: None,
        })
    }

    fn slot(&self, u: i64) -> (usize, u64) {
        let i = u.rem_euclid(self.size as i64) as usize;
        (i / 64, 1 << (i % 64))
    }

    pub fn lookup(&self, u: i64) -> Lookup {
        match self.highest {
            None => Lookup::NotRecorded,
            Some(h) if u > h => Lookup::NotRecorded,
            Some(h) if h - u >= self.size as i64 => Lookup::OutsideTable,
            Some(_) => {
                let (w, b) = self.slot(u);
                if self.bits[w] & b != 0 {
                    Lookup::Recorded
                } else {
                    Lookup::NotRecorded
                }
            }
        }
    }

    /// Records `u` as forwarded. The caller has looked it up as `NotRecorded`; a number below
    /// the window is not recorded (its slot belongs to a number inside it).
    pub fn record(&mut self, u: i64) {
        match self.highest {
            Some(h) if h - u >= self.size as i64 => return,
            Some(h) if u <= h => {}
            Some(h) if u - h < self.size as i64 => {
                // Slide up: forget h+1-size ..= u-size, whose slots h+1 ..= u now take.
                for v in h + 1..=u {
                    let (w, b) = self.slot(v);
                    self.bits[w] &= !b;
                }
                self.highest = Some(u);
            }
            _ => {
                self.bits.fill(0);
                self.highest = Some(u);
            }
        }
        let (w, b) = self.slot(u);
        self.bits[w] |= b;
    }
}

/// NEMO-SHO's combiner: the first copy is forwarded at once, whichever link it came over.
pub struct NemoSho<T> {
    unwrapper: SeqUnwrapper,
    table: SequenceTable,
    stats: CombinerStats,
    _token: PhantomData<T>,
}

impl<T> NemoSho<T> {
    pub fn new(table_size: u32) -> Result<NemoSho<T>, CombineError> {
        Ok(NemoSho {
            unwrapper: SeqUnwrapper::default(),
            table: SequenceTable::new(table_size)?,
            stats: CombinerStats::default(),
            _token: PhantomData,
        })
    }
}

impl<T> Combiner<T> for NemoSho<T> {
    fn on_copy(&mut self, _now: Time, pio: Pio, link: LinkClass, token: T) -> Verdict<T> {
        self.stats.count_arrival(link);
        let u = self.unwrapper.unwrap(pio.seq);
        match self.table.lookup(u) {
            Lookup::Recorded => {
                self.stats.duplicates += 1;
                Verdict::Duplicate(token)
            }
            Lookup::OutsideTable => {
                self.stats.outside_table += 1;
                Verdict::OutsideTable(token)
            }
            Lookup::NotRecorded => {
                self.table.record(u);
                self.stats.forwarded_at_once += 1;
                Verdict::Forward(token)
            }
        }
    }

    fn poll_release(&mut self, _now: Time) -> Option<T> {
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    /// Nothing is held: the table goes on dropping the later copies still in flight.
    fn complete(&mut self, _now: Time) {}

    fn stats(&self) -> &CombinerStats {
        &self.stats
    }

    fn buffered(&self) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LinkClass::{Fast, Slow};

    fn pio(seq: u16) -> Pio {
        Pio { seq, sent_ms: 0 }
    }

    fn t(ms: u64) -> Time {
        Time::from_millis(ms)
    }

    // ---- Tests for first-copy-wins combining (§III, §IV-B Sequence Number Table) ----

    #[test]
    fn first_copy_is_forwarded_and_later_copies_dropped() {
        // §III: "forwards only the packet copy arrived earlier"; §IV-B: the table "avoids
        // injecting multiple copies of the original packet into LFNs".
        let mut c = NemoSho::new(DEFAULT_TABLE_SIZE).expect("valid size");
        assert_eq!(c.on_copy(t(10), pio(7), Fast, 'a'), Verdict::Forward('a'));
        assert_eq!(c.on_copy(t(12), pio(8), Slow, 'b'), Verdict::Forward('b'));
        assert_eq!(
            c.on_copy(t(300), pio(7), Slow, 'c'),
            Verdict::Duplicate('c')
        );
        assert_eq!(
            c.on_copy(t(301), pio(8), Fast, 'd'),
            Verdict::Duplicate('d')
        );
        // A lower number not yet seen goes through: first copy wins, not in order.
        assert_eq!(c.on_copy(t(302), pio(5), Fast, 'e'), Verdict::Forward('e'));
        assert_eq!(c.poll_timeout(), None);
        assert_eq!(c.poll_release(t(400)), None);
        let s = c.stats();
        assert_eq!((s.arrived(), s.forwarded(), s.duplicates), (5, 3, 2));
    }

    #[test]
    fn sequence_wrap_from_65535_to_0_is_a_step_forward() {
        // RFC 1982 §3.1-3.2 on 16 bits: 65535 + 1 = 0, and 0 > 65535.
        let mut c = NemoSho::new(DEFAULT_TABLE_SIZE).expect("valid size");
        for (i, s) in [65533u16, 65534, 65535, 0, 1].into_iter().enumerate() {
            assert_eq!(c.on_copy(t(i as u64), pio(s), Fast, s), Verdict::Forward(s));
        }
        for s in [65534u16, 65535, 0, 1] {
            assert_eq!(c.on_copy(t(900), pio(s), Slow, s), Verdict::Duplicate(s));
        }
        // 2 is new though the table last recorded 1 after the wrap.
        assert_eq!(c.on_copy(t(901), pio(2), Slow, 2), Verdict::Forward(2));
    }

    #[test]
    fn table_forgets_below_its_window_and_drops_what_it_forgot() {
        // The bounded table (module doc): a window of `size` numbers below the highest; a copy
        // below it is dropped, never forwarded a second time.
        let mut c = NemoSho::new(4).expect("valid size");
        for s in [0u16, 1, 2, 4, 5, 6] {
            assert_eq!(c.on_copy(t(0), pio(s), Fast, s), Verdict::Forward(s));
        }
        // Window is 3..=6: 3 never recorded is new; 4 is a duplicate; 2 is forgotten.
        assert_eq!(c.on_copy(t(1), pio(3), Slow, 3), Verdict::Forward(3));
        assert_eq!(c.on_copy(t(1), pio(4), Slow, 4), Verdict::Duplicate(4));
        assert_eq!(c.on_copy(t(1), pio(2), Slow, 2), Verdict::OutsideTable(2));
        // A jump of more than a window forgets all: 100's window is 97..=100.
        assert_eq!(c.on_copy(t(2), pio(100), Fast, 100), Verdict::Forward(100));
        assert_eq!(c.on_copy(t(2), pio(97), Fast, 97), Verdict::Forward(97));
        assert_eq!(c.on_copy(t(2), pio(6), Slow, 6), Verdict::OutsideTable(6));
        let s = c.stats();
        assert_eq!((s.forwarded(), s.duplicates, s.outside_table), (9, 1, 2));
    }

    #[test]
    fn slots_reused_after_a_slide_do_not_keep_old_marks() {
        // Sliding the window clears the slots it takes over: 8 shares 4's slot in a table of
        // 4 and must not read as forwarded.
        let mut tbl = SequenceTable::new(4).expect("valid size");
        tbl.record(4);
        tbl.record(7);
        assert_eq!(tbl.lookup(4), Lookup::Recorded);
        assert_eq!(tbl.lookup(8), Lookup::NotRecorded);
        tbl.record(9);
        assert_eq!(tbl.lookup(8), Lookup::NotRecorded);
        assert_eq!(tbl.lookup(4), Lookup::OutsideTable);
        assert_eq!(tbl.lookup(7), Lookup::Recorded);
    }

    #[test]
    fn table_size_must_fit_serial_arithmetic() {
        // RFC 1982 §3.2: comparison is defined only within 2^15.
        assert_eq!(
            SequenceTable::new(0).err(),
            Some(CombineError::TableSize(0))
        );
        assert!(SequenceTable::new(MAX_TABLE_SIZE).is_ok());
        assert_eq!(
            SequenceTable::new(MAX_TABLE_SIZE + 1).err(),
            Some(CombineError::TableSize(MAX_TABLE_SIZE + 1))
        );
    }
}
