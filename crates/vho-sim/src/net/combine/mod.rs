//! Packet combining at a NEMO mobile router (MR) during a soft handover: the home agent (HA)
//! bicasts each packet of a flow over the MR's two tunnels, and the MR forwards one copy of
//! each to the nodes behind it (Naoe, Wetterwald & Bonnet, "Adaptive Packet Combining for IPv6
//! Soft Handover applied to Network Mobility", `../shared/seeds/002_5cc86ff6918d98af.txt`,
//! §IV-B and Fig. 2).
//!
//! Two combiners, one file each:
//! - [`sequence_table`]: NEMO-SHO without APC, "a simple procedure that forwards only the
//!   packet copy arrived earlier without waiting for the another copy" (§III); a Sequence
//!   Number Table drops the later copy.
//! - [`apc`]: Adaptive Packet Combining: a copy that comes first over the fast link is held
//!   until the slow link's copy is expected (eq. 1-3), and what is held goes out in sequence
//!   order.
//!
//! Make-Before-Break needs no combiner (one tunnel at a time, switched at 15 s, §V-C).
//!
//! This module holds their shared vocabulary: a copy's identity ([`Pio`], the Packet
//! Identifier Option of Fig. 3), the link it came over ([`LinkClass`]), what a combiner does
//! with it ([`Verdict`]), the contract ([`Combiner`]) and the counters ([`CombinerStats`]).
//! The models are sans-IO: the caller passes the time in, and a packet is an opaque token `T`
//! (the world will use `PktIdx`). Carrying the option on packets and bicasting at the home
//! agent are a later change (issue 22, point 1).
//!
//! Call order at an instant `now`, for each copy that arrives: [`Combiner::on_copy`], then
//! drain [`Combiner::poll_release`]`(now)` until it says `None` and send what it yields,
//! then act on the verdict (send a [`Verdict::Forward`]'s token, discard a
//! [`Verdict::Duplicate`]'s or [`Verdict::OutsideTable`]'s). What `poll_release` yields right
//! after `on_copy` is what that copy released ahead of itself (lower numbers, in order), so it
//! must leave first. At [`Combiner::poll_timeout`]'s instant, drain `poll_release` again.
//! At the handover's completion call [`Combiner::complete`], then drain `poll_release`.

pub mod apc;
pub mod sequence_table;

pub use crate::packet::Pio;
use crate::time::{Dur, Time};

/// Which of the MR's two links a copy came over. "It is also assumed that the MR has
/// information about the link rate per interface beforehand, thus the MR can know if a
/// handover is from a slow link to a fast link, or not" (§IV): the class is the interface's
/// nominal rate, fixed for the handover, not a measurement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LinkClass {
    Fast,
    Slow,
}

/// What a combiner does with a copy handed to [`Combiner::on_copy`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict<T> {
    /// Send it on now, after whatever [`Combiner::poll_release`] yields at this instant.
    Forward(T),
    /// The combiner keeps it; it comes back through [`Combiner::poll_release`].
    Held,
    /// Another copy of this number was forwarded (or is held, to be forwarded): discard it.
    Duplicate(T),
    /// Its number is older than anything the Sequence Number Table still remembers, so it
    /// cannot be told from a copy already forwarded: discarded (see
    /// [`sequence_table::SequenceTable`]).
    OutsideTable(T),
}

/// A packet combiner at the MR. See the module doc for the call order.
pub trait Combiner<T> {
    /// A copy arrives at `now` over `link`.
    fn on_copy(&mut self, now: Time, pio: Pio, link: LinkClass, token: T) -> Verdict<T>;
    /// A held copy that goes out now, lowest sequence number first; `None` when nothing is
    /// due.
    fn poll_release(&mut self, now: Time) -> Option<T>;
    /// When a held copy next falls due; `None` when nothing is held.
    fn poll_timeout(&self) -> Option<Time>;
    /// The handover completes (§IV-C): the MR "decides to complete the handover and then
    /// sends a BU to the HA in order to de-register Previous CoA and stop Packet Bicasting.
    /// Afterward, all packets tunneled from the HA come only into I/F2, and the true
    /// capability on the new link becomes available immediately." Every held copy goes out
    /// now, in order (through `poll_release`), ahead of the packets that no longer carry a
    /// PIO; copies still in flight are not held but still go through the Sequence Number
    /// Table ("avoids injecting multiple copies", §IV-B).
    fn complete(&mut self, now: Time);
    fn stats(&self) -> &CombinerStats;
    /// Copies the combiner holds (held, or released and not yet taken by `poll_release`).
    fn buffered(&self) -> usize;
}

/// The counters a combiner keeps. Conservation: `arrived() == forwarded() + dropped() +
/// buffered()` after every call.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct CombinerStats {
    pub arrived_fast: u64,
    pub arrived_slow: u64,
    /// Copies answered with [`Verdict::Forward`].
    pub forwarded_at_once: u64,
    /// Copies answered with [`Verdict::Held`].
    pub held: u64,
    /// Held copies released when their own hold expired (eq. 2's T_timeout^n).
    pub released_by_timer: u64,
    /// Held copies released before their hold expired because a higher number was forwarded
    /// ("the MR forwards them in-order even prior to T_timeout^n of them", §IV-B).
    pub released_in_order: u64,
    /// Held copies released when their own slow-link copy arrived ("When the same copy
    /// arrives from the slow link before the expiration of T_timeout^n, the MR forwards only
    /// one copy", §IV-B).
    pub released_by_slow_copy: u64,
    /// Held copies released at the handover's completion ([`Combiner::complete`], §IV-C).
    pub released_at_completion: u64,
    pub duplicates: u64,
    pub outside_table: u64,
    /// The longest a copy stayed in the combiner (arrival to `poll_release`).
    pub max_hold: Dur,
}

impl CombinerStats {
    pub fn arrived(&self) -> u64 {
        self.arrived_fast + self.arrived_slow
    }
    pub fn released(&self) -> u64 {
        self.released_by_timer
            + self.released_in_order
            + self.released_by_slow_copy
            + self.released_at_completion
    }
    pub fn forwarded(&self) -> u64 {
        self.forwarded_at_once + self.released()
    }
    pub fn dropped(&self) -> u64 {
        self.duplicates + self.outside_table
    }
    fn count_arrival(&mut self, link: LinkClass) {
        match link {
            LinkClass::Fast => self.arrived_fast += 1,
            LinkClass::Slow => self.arrived_slow += 1,
        }
    }
}

/// Every combiner, dispatched without allocating (as `tcp::cc::AnyController`).
pub enum AnyCombiner<T> {
    NemoSho(sequence_table::NemoSho<T>),
    Apc(apc::Apc<T>),
}

impl<T> Combiner<T> for AnyCombiner<T> {
    fn on_copy(&mut self, now: Time, pio: Pio, link: LinkClass, token: T) -> Verdict<T> {
        match self {
            AnyCombiner::NemoSho(c) => c.on_copy(now, pio, link, token),
            AnyCombiner::Apc(c) => c.on_copy(now, pio, link, token),
        }
    }
    fn poll_release(&mut self, now: Time) -> Option<T> {
        match self {
            AnyCombiner::NemoSho(c) => c.poll_release(now),
            AnyCombiner::Apc(c) => c.poll_release(now),
        }
    }
    fn poll_timeout(&self) -> Option<Time> {
        match self {
            AnyCombiner::NemoSho(c) => c.poll_timeout(),
            AnyCombiner::Apc(c) => c.poll_timeout(),
        }
    }
    fn complete(&mut self, now: Time) {
        match self {
            AnyCombiner::NemoSho(c) => c.complete(now),
            AnyCombiner::Apc(c) => c.complete(now),
        }
    }
    fn stats(&self) -> &CombinerStats {
        match self {
            AnyCombiner::NemoSho(c) => c.stats(),
            AnyCombiner::Apc(c) => c.stats(),
        }
    }
    fn buffered(&self) -> usize {
        match self {
            AnyCombiner::NemoSho(c) => c.buffered(),
            AnyCombiner::Apc(c) => c.buffered(),
        }
    }
}

/// A configuration a combiner cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CombineError {
    #[error(
        "combine.table_size: expected 1 to {} sequence numbers, got {0}",
        sequence_table::MAX_TABLE_SIZE
    )]
    TableSize(u32),
    #[error("combine.alpha: expected a filter gain in [0, 1], got {0}")]
    Alpha(f64),
}

/// `a - b` in serial-number arithmetic on 16 bits (RFC 1982 §3.2 with SERIAL_BITS = 16): the
/// signed distance when `a` and `b` are less than 2^15 apart; `None` when they are exactly
/// 2^15 apart, where RFC 1982 leaves the comparison undefined.
pub fn serial_diff(a: u16, b: u16) -> Option<i16> {
    let d = a.wrapping_sub(b);
    (d != 1 << 15).then_some(d as i16)
}

/// Extends 16-bit sequence numbers to a 64-bit count, each number placed within 2^15 of the
/// highest seen so far (RFC 1982 §3.2's comparison, taken as a position). A number exactly
/// 2^15 away from the highest, undefined in RFC 1982, is placed below it (older): the
/// combiners then treat it as outside their table, never as new. Serial order between two
/// unwrapped numbers is then plain integer order, which is what lets the combiners keep held
/// copies sorted across the wrap from 65535 to 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqUnwrapper {
    highest: Option<i64>,
}

impl SeqUnwrapper {
    pub fn unwrap(&mut self, seq: u16) -> i64 {
        let Some(h) = self.highest else {
            self.highest = Some(seq as i64);
            return seq as i64;
        };
        // `h as u16` keeps h's low 16 bits: h modulo 2^16, also for negative h.
        let u = h + seq.wrapping_sub(h as u16) as i16 as i64;
        if u > h {
            self.highest = Some(u);
        }
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_diff_follows_rfc_1982() {
        // RFC 1982 §3.2: s1 < s2 iff (i1 < i2 and i2 - i1 < 2^15) or (i1 > i2 and i1 - i2 >
        // 2^15); undefined when they are 2^15 apart.
        assert_eq!(serial_diff(0, 65535), Some(1));
        assert_eq!(serial_diff(65535, 0), Some(-1));
        assert_eq!(serial_diff(32767, 0), Some(32767));
        assert_eq!(serial_diff(0, 32769), Some(32767));
        assert_eq!(serial_diff(32768, 0), None);
        assert_eq!(serial_diff(0, 32768), None);
    }

    #[test]
    fn unwrapper_counts_through_the_wrap() {
        // RFC 1982 §3.1: adding 1 to 65535 gives 0, which is "greater".
        let mut u = SeqUnwrapper::default();
        assert_eq!(u.unwrap(65534), 65534);
        assert_eq!(u.unwrap(65535), 65535);
        assert_eq!(u.unwrap(0), 65536);
        assert_eq!(u.unwrap(65533), 65533);
        assert_eq!(u.unwrap(2), 65538);
        // Exactly 2^15 below the highest (65538 - 32768 = 32770): undefined, placed below.
        assert_eq!(u.unwrap(32770), 32770);
        // A number 2^15 - 1 above the highest is a jump forward.
        assert_eq!(u.unwrap(2 + 32767), 65538 + 32767);
        // And from a first number the unwrapper goes below zero.
        let mut v = SeqUnwrapper::default();
        assert_eq!(v.unwrap(1), 1);
        assert_eq!(v.unwrap(65535), -1);
        assert_eq!(v.unwrap(3), 3);
    }
}

#[cfg(test)]
mod property_tests;
