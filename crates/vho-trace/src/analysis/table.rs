//! The flow table: the open conversations of a capture, found by their [`FlowKey`] and fed
//! segments in capture order.
//!
//! An open conversation costs what it holds, since what bounds a capture's analysis is the
//! conversations open at once (a scan or a SYN flood opens one per packet and closes none):
//!
//! - a conversation of one segment so far (a SYN nobody answered, one packet of a scan) is
//!   kept as that segment, 48 bytes ([`OneSegment`]: IPv4, no tunnel, no SACK block; any
//!   other lone segment takes a [`Flow`] at once). A second segment, or the end, turns it
//!   into a [`Flow`] by replaying it first, so its result is the one a [`Flow`] kept from
//!   the start gives.
//! - the index is a hash table of 4-byte slot numbers (hashbrown's `HashTable`), the keys
//!   being read from the slots; the conversations sit in two slabs whose free slots are
//!   reused. At 1,000,000 one-SYN conversations that is 10 MB of index and 48 MB of slots,
//!   where a `HashMap<FlowKey, Flow>` held 2,312 bytes per bucket (4.6 GB).
//!
//! A conversation that has closed (an RST, or both FINs acknowledged) and stayed quiet for
//! [`CLOSED_LINGER_NS`] leaves the table through [`FlowTable::take_done`]; the table looks
//! for such conversations every [`SWEEP_EVERY`] segments. [`FlowTable::finish`] hands out
//! the ones still open, in the order their first packet appeared, one at a time.

use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};
use std::net::{IpAddr, Ipv4Addr};

use hashbrown::HashTable;

use super::flow::{Flow, FlowConfig, FlowKey, CLOSED_LINGER_NS, SWEEP_EVERY};
use crate::decode::tcp::{TcpHeader, RST};
use crate::decode::Segment;
use crate::reader::clock::Origin;

/// Which options a [`OneSegment`] carried. An enum (not two `bool`s) so that
/// `Option<OneSegment>` costs no tag: its unused values are the `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Options {
    None,
    WindowScale,
    Timestamps,
    Both,
}

/// The only segment of a conversation so far, with what [`Flow::push`] reads of it.
#[derive(Clone, Copy, Debug)]
pub struct OneSegment {
    ts_ns: u64,
    /// The conversation's index (order of its first packet).
    index: u32,
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    tsval: u32,
    tsecr: u32,
    /// An IPv4 payload fits 16 bits (RFC 791 §3.1, Total Length).
    payload_len: u16,
    window: u16,
    flags: u8,
    ttl: u8,
    wscale: u8,
    options: Options,
}

impl OneSegment {
    /// The segment in 48 bytes, if it fits: IPv4, no tunnel, no SACK block.
    fn of(index: usize, s: &Segment) -> Option<Self> {
        let (IpAddr::V4(src), IpAddr::V4(dst)) = (s.src, s.dst) else {
            return None;
        };
        let h = &s.tcp;
        if s.tunnels > 0 || s.outer.is_some() || !h.sack.is_empty() {
            return None;
        }
        let (tsval, tsecr) = h.timestamps.unwrap_or((0, 0));
        let options = match (h.wscale.is_some(), h.timestamps.is_some()) {
            (false, false) => Options::None,
            (true, false) => Options::WindowScale,
            (false, true) => Options::Timestamps,
            (true, true) => Options::Both,
        };
        Some(OneSegment {
            ts_ns: s.ts_ns,
            index: u32::try_from(index).ok()?,
            src: src.octets(),
            dst: dst.octets(),
            sport: h.sport,
            dport: h.dport,
            seq: h.seq,
            ack: h.ack,
            tsval,
            tsecr,
            payload_len: u16::try_from(s.payload_len).ok()?,
            window: h.window,
            flags: h.flags,
            ttl: s.ttl,
            wscale: h.wscale.unwrap_or(0),
            options,
        })
    }

    fn key(&self) -> FlowKey {
        FlowKey::of(
            (IpAddr::V4(Ipv4Addr::from(self.src)), self.sport),
            (IpAddr::V4(Ipv4Addr::from(self.dst)), self.dport),
        )
    }

    /// The segment again, as far as [`Flow::push`] reads it.
    fn segment(&self) -> Segment {
        let has = |o: Options| self.options == o || self.options == Options::Both;
        Segment {
            ts_ns: self.ts_ns,
            src: IpAddr::V4(Ipv4Addr::from(self.src)),
            dst: IpAddr::V4(Ipv4Addr::from(self.dst)),
            ip_id: 0,
            ttl: self.ttl,
            tunnels: 0,
            outer: None,
            tcp: TcpHeader {
                sport: self.sport,
                dport: self.dport,
                seq: self.seq,
                ack: self.ack,
                flags: self.flags,
                window: self.window,
                wscale: has(Options::WindowScale).then_some(self.wscale),
                timestamps: has(Options::Timestamps).then_some((self.tsval, self.tsecr)),
                ..TcpHeader::default()
            },
            payload_len: u32::from(self.payload_len),
        }
    }

    /// The conversation as a [`Flow`] that has seen this segment.
    fn into_flow(self, config: FlowConfig) -> Flow {
        let s = self.segment();
        let mut f = Flow::new(self.index as usize, &s, config);
        f.push(&s);
        f
    }
}

/// A slot number in the index: a [`OneSegment`] slot, or with this bit a [`Flow`] slot.
const FLOW_SLOT: u32 = 1 << 31;

/// All conversations of a capture, fed in capture order.
#[derive(Debug, Default)]
pub struct FlowTable {
    index: HashTable<u32>,
    hasher: RandomState,
    ones: Vec<Option<OneSegment>>,
    ones_free: Vec<u32>,
    flows: Vec<Option<Box<Flow>>>,
    flows_free: Vec<u32>,
    finished: Vec<Flow>,
    next_index: usize,
    segments: u64,
    /// The most conversations open at once.
    pub max_open: usize,
    /// What every conversation is made with.
    config: FlowConfig,
}

/// The key of the conversation in `slot`.
fn key_of(ones: &[Option<OneSegment>], flows: &[Option<Box<Flow>>], slot: u32) -> FlowKey {
    let occupied = "invariant: the index names occupied slots only";
    if slot & FLOW_SLOT != 0 {
        flows[(slot & !FLOW_SLOT) as usize]
            .as_ref()
            .expect(occupied)
            .key()
    } else {
        ones[slot as usize].as_ref().expect(occupied).key()
    }
}

/// Puts `v` in a free slot of `slab` (or a new one); returns the slot.
fn place<T>(slab: &mut Vec<Option<T>>, free: &mut Vec<u32>, v: T) -> u32 {
    match free.pop() {
        Some(i) => {
            slab[i as usize] = Some(v);
            i
        }
        None => {
            slab.push(Some(v));
            u32::try_from(slab.len() - 1).expect("invariant: fewer than 2^31 open flows")
        }
    }
}

impl FlowTable {
    /// A table whose flows measure t_a from the first data after `handover_at_ns`.
    pub fn with_handover_at(handover_at_ns: Option<u64>) -> Self {
        FlowTable {
            config: FlowConfig {
                handover_at_ns,
                ..FlowConfig::default()
            },
            ..FlowTable::default()
        }
    }

    /// Sets where the capture's times count from (before its first segment is pushed).
    pub fn set_origin(&mut self, origin: Origin) {
        self.config.simulated_clock = origin == Origin::SimulatedClock;
    }

    /// The conversations open now.
    pub fn open(&self) -> usize {
        self.index.len()
    }

    /// Analyses one segment; returns its conversation's index (the order of its first
    /// packet, as `tcp.stream`).
    pub fn push(&mut self, s: &Segment) -> usize {
        let key = FlowKey::of((s.src, s.tcp.sport), (s.dst, s.tcp.dport));
        let hash = self.hasher.hash_one(key);
        let (ones, flows) = (&self.ones, &self.flows);
        let found = self
            .index
            .find(hash, |&slot| key_of(ones, flows, slot) == key)
            .copied();
        let slot = match found {
            Some(slot) if slot & FLOW_SLOT == 0 => {
                // A second segment: the conversation becomes a Flow.
                let one = self.ones[slot as usize]
                    .take()
                    .expect("invariant: the index names occupied slots only");
                self.ones_free.push(slot);
                let flow = one.into_flow(self.config);
                let to = FLOW_SLOT | place(&mut self.flows, &mut self.flows_free, Box::new(flow));
                *self
                    .index
                    .find_mut(hash, |&v| v == slot)
                    .expect("invariant: the slot was just found") = to;
                Some(to)
            }
            other => other,
        };
        let index = match slot {
            Some(slot) => self.push_to_flow(slot, hash, s),
            None => self.open_new(hash, s),
        };
        self.max_open = self.max_open.max(self.index.len());
        self.segments += 1;
        if self.segments.is_multiple_of(SWEEP_EVERY) {
            self.sweep(s.ts_ns);
        }
        index
    }

    /// A segment of the conversation in Flow slot `slot`: a new connection on the same
    /// ports finishes the old one first.
    fn push_to_flow(&mut self, slot: u32, hash: u64, s: &Segment) -> usize {
        let i = (slot & !FLOW_SLOT) as usize;
        let flow = self.flows[i]
            .as_mut()
            .expect("invariant: the index names occupied slots only");
        if flow.is_reuse(s) {
            self.remove(slot, hash);
            self.open_new(hash, s)
        } else {
            flow.push(s);
            flow.index
        }
    }

    /// The first segment of a new conversation; returns its index.
    fn open_new(&mut self, hash: u64, s: &Segment) -> usize {
        let index = self.next_index;
        self.next_index += 1;
        let slot = match OneSegment::of(index, s) {
            Some(one) => place(&mut self.ones, &mut self.ones_free, one),
            None => {
                let mut flow = Flow::new(index, s, self.config);
                flow.push(s);
                FLOW_SLOT | place(&mut self.flows, &mut self.flows_free, Box::new(flow))
            }
        };
        let (ones, flows) = (&self.ones, &self.flows);
        self.index.insert_unique(hash, slot, |&v| {
            self.hasher.hash_one(key_of(ones, flows, v))
        });
        index
    }

    /// Takes the conversation in `slot` out of the table, finished, into `finished`.
    fn remove(&mut self, slot: u32, hash: u64) {
        if let Ok(e) = self.index.find_entry(hash, |&v| v == slot) {
            e.remove();
        }
        let flow = if slot & FLOW_SLOT != 0 {
            let i = slot & !FLOW_SLOT;
            self.flows_free.push(i);
            self.flows[i as usize].take().map(|b| *b)
        } else {
            self.ones_free.push(slot);
            self.ones[slot as usize]
                .take()
                .map(|o| o.into_flow(self.config))
        };
        if let Some(mut f) = flow {
            f.finish();
            self.finished.push(f);
        }
    }

    /// Lets go of the conversations closed and quiet for [`CLOSED_LINGER_NS`] at `now`.
    fn sweep(&mut self, now: u64) {
        let quiet = |last: u64| now.saturating_sub(last) > CLOSED_LINGER_NS;
        let mut done: Vec<(usize, u32)> = Vec::new();
        for (i, o) in self.ones.iter().enumerate() {
            if let Some(o) = o.filter(|o| o.flags & RST != 0 && quiet(o.ts_ns)) {
                done.push((o.index as usize, i as u32));
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(f) = f.as_ref().filter(|f| f.is_closed() && quiet(f.last_ns)) {
                done.push((f.index, FLOW_SLOT | i as u32));
            }
        }
        done.sort_unstable();
        for (_, slot) in done {
            let key = key_of(&self.ones, &self.flows, slot);
            let hash = self.hasher.hash_one(key);
            self.remove(slot, hash);
        }
    }

    /// The conversations that have left the table since the last call (closed and quiet,
    /// or replaced by a new one on the same ports), finished, in the order they left.
    pub fn take_done(&mut self) -> Vec<Flow> {
        std::mem::take(&mut self.finished)
    }

    /// The conversations still in the table (and any not yet taken by
    /// [`FlowTable::take_done`]), finished one at a time in the order their first packet
    /// appeared.
    pub fn finish(self) -> Remaining {
        let mut order: Vec<(usize, u32)> = Vec::with_capacity(self.index.len());
        for (i, o) in self.ones.iter().enumerate() {
            if let Some(o) = o {
                order.push((o.index as usize, i as u32));
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(f) = f {
                order.push((f.index, FLOW_SLOT | i as u32));
            }
        }
        order.sort_unstable();
        Remaining {
            done: self.finished.into(),
            order: order.into_iter().map(|(_, slot)| slot).collect(),
            ones: self.ones,
            flows: self.flows,
            config: self.config,
        }
    }
}

/// The conversations left at the end of a capture, each made a finished [`Flow`] when it
/// is asked for (a million one-SYN conversations never become a million [`Flow`]s at once).
#[derive(Debug)]
pub struct Remaining {
    done: VecDeque<Flow>,
    order: VecDeque<u32>,
    ones: Vec<Option<OneSegment>>,
    flows: Vec<Option<Box<Flow>>>,
    config: FlowConfig,
}

impl Iterator for Remaining {
    type Item = Flow;

    fn next(&mut self) -> Option<Flow> {
        if let Some(f) = self.done.pop_front() {
            return Some(f);
        }
        let slot = self.order.pop_front()?;
        let taken = "invariant: each slot is listed once";
        let mut f = if slot & FLOW_SLOT != 0 {
            *self.flows[(slot & !FLOW_SLOT) as usize]
                .take()
                .expect(taken)
        } else {
            self.ones[slot as usize]
                .take()
                .expect(taken)
                .into_flow(self.config)
        };
        f.finish();
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::tcp::{ACK, SYN};

    #[test]
    fn a_lone_segment_costs_48_bytes_and_no_tag() {
        // The budget of issue 17: 1,000,000 one-SYN conversations under 200 MB in all.
        assert_eq!(std::mem::size_of::<Option<OneSegment>>(), 48);
    }

    fn segment(flags: u8, len: u32, wscale: Option<u8>, ts: Option<(u32, u32)>) -> Segment {
        Segment {
            ts_ns: 1_500_000_000,
            src: IpAddr::V4(Ipv4Addr::new(10, 1, 0, 1)),
            dst: IpAddr::V4(Ipv4Addr::new(10, 2, 0, 1)),
            ip_id: 7,
            ttl: 61,
            tunnels: 0,
            outer: None,
            tcp: TcpHeader {
                sport: 40000,
                dport: 80,
                seq: 123_456,
                ack: 654_321,
                flags,
                window: 0,
                header_len: 32,
                wscale,
                timestamps: ts,
                ..TcpHeader::default()
            },
            payload_len: len,
        }
    }

    #[test]
    fn a_kept_segment_replays_into_the_flow_it_would_have_made() {
        // What the analysis reads of a segment survives the 48 bytes: window scale,
        // timestamps, TTL, a payload, a zero window.
        for s in [
            segment(SYN, 0, Some(7), Some((11, 0))),
            segment(SYN, 0, None, None),
            segment(ACK, 1448, None, Some((5, 9))),
            segment(RST | ACK, 0, Some(2), None),
        ] {
            let config = FlowConfig {
                handover_at_ns: Some(1),
                simulated_clock: true,
            };
            let mut direct = Flow::new(3, &s, config);
            direct.push(&s);
            let kept = OneSegment::of(3, &s).expect("IPv4, no tunnel, no SACK");
            let replayed = kept.into_flow(config);
            assert_eq!(format!("{replayed:?}"), format!("{direct:?}"));
            assert_eq!(kept.key(), direct.key());
        }
    }

    #[test]
    fn a_segment_that_does_not_fit_takes_a_flow() {
        let mut s = segment(ACK, 0, None, None);
        s.tcp.sack.push((1, 2));
        assert!(OneSegment::of(0, &s).is_none());
        let mut s = segment(ACK, 70_000, None, None);
        assert!(OneSegment::of(0, &s).is_none(), "a jumbogram's length");
        s.payload_len = 0;
        s.src = "2001:db8::1".parse().expect("addr");
        assert!(OneSegment::of(0, &s).is_none());
    }
}
