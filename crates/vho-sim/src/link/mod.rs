//! One direction of a link: a drop-tail queue, a serialiser at the link's rate, and a
//! propagation pipe with a fixed one-way delay and optional random loss.
//!
//! Following htsim, a direction has at most two pending events whatever its load: the end of
//! the head packet's serialisation, and the arrival of the pipe's head at the far node. The
//! methods here only change state and say which event to schedule; the world schedules it.
//! A direction can be *blocked* until an instant (a handover with delay): the queue keeps
//! accepting packets, nothing starts serialising.

pub mod loss;
pub mod queue;

use crate::packet::PktIdx;
use crate::spec::{DirSpec, NodeIdx};
use crate::time::{Dur, Time};
use loss::LossModel;
use queue::{DropTail, Limit};
use std::collections::VecDeque;

/// Why a packet was dropped.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum DropCause {
    /// The queue was full (drop-tail).
    QueueOverflow,
    /// Flushed from the old link's queue at a hard handover, or beyond the new limit with
    /// `shrink_queue`.
    HandoverFlush,
    /// The loss model lost it on the link.
    RandomLoss,
}

impl DropCause {
    pub const ALL: [DropCause; 3] = [
        DropCause::QueueOverflow,
        DropCause::HandoverFlush,
        DropCause::RandomLoss,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueOverflow => "queue_overflow",
            DropCause::HandoverFlush => "handover_flush",
            DropCause::RandomLoss => "random_loss",
        }
    }
}

/// Packet accounting of one direction; conservation:
/// `offered + moved_in = accepted_total…` — see [`LinkCounters::balance`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    /// Packets handed to this direction by its sending node.
    pub offered: u64,
    /// Packets moved into this queue from another link at a handover.
    pub moved_in: u64,
    /// Packets moved out of this queue to another link at a handover.
    pub moved_out: u64,
    /// Packets that reached the far node.
    pub delivered: u64,
    pub delivered_bytes: u64,
    /// Drops by cause, indexed as `DropCause::ALL`.
    pub dropped: [u64; 3],
}

impl LinkCounters {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

pub struct LinkDir {
    /// Node at the sending end and at the receiving end.
    pub from: NodeIdx,
    pub to: NodeIdx,
    pub rate_bps: u64,
    pub delay: Dur,
    pub queue: DropTail,
    pub loss: LossModel,
    /// The packet being serialised and when it finishes.
    in_tx: Option<(PktIdx, u32, Time)>,
    /// Packets propagating, with their arrival times (FIFO: the delay is fixed).
    pipe: VecDeque<(Time, PktIdx, u32)>,
    /// Nothing starts serialising before this instant.
    pub blocked_until: Time,
    /// Nothing starts serialising before this instant either: set when this direction takes
    /// over from another one whose last packet is still on the air (ns-2's single link
    /// finishing its current packet before the new parameters apply).
    pub free_at: Time,
    pub counters: LinkCounters,
}

/// What the world must schedule after a call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wake {
    /// End of a serialisation (a `TxDone` event).
    pub tx_done: Option<Time>,
    /// Arrival of the pipe's new head (an `Arrive` event).
    pub arrival: Option<Time>,
}

impl LinkDir {
    pub fn new(from: NodeIdx, to: NodeIdx, spec: &DirSpec, limit: Limit, loss: LossModel) -> Self {
        LinkDir {
            from,
            to,
            rate_bps: spec.rate_bps,
            delay: spec.delay,
            queue: DropTail::new(limit, spec.queue_model),
            loss,
            in_tx: None,
            pipe: VecDeque::new(),
            blocked_until: Time::ZERO,
            free_at: Time::ZERO,
            counters: LinkCounters::default(),
        }
    }

    /// Offers a packet from the sending node. `Err` when the queue drops it (the caller
    /// frees the packet and records the drop).
    pub fn offer(&mut self, now: Time, idx: PktIdx, size: u32) -> Result<Option<Time>, DropCause> {
        self.counters.offered += 1;
        if !self.queue.offer(idx, size) {
            self.counters.dropped[0] += 1;
            return Err(DropCause::QueueOverflow);
        }
        Ok(self.try_start(now))
    }

    /// Starts serialising the head packet if the serialiser is idle and not blocked; returns
    /// the completion time to schedule.
    pub fn try_start(&mut self, now: Time) -> Option<Time> {
        if self.in_tx.is_some() || now < self.blocked_until || now < self.free_at {
            return None;
        }
        let (idx, size) = self.queue.pop()?;
        let done = now + Dur::serialization(size, self.rate_bps);
        self.in_tx = Some((idx, size, done));
        Some(done)
    }

    /// The earliest instant at which an idle, non-empty direction may start (used to
    /// schedule a retry after a block).
    pub fn ready_at(&self) -> Time {
        self.blocked_until.max(self.free_at)
    }

    /// When the packet now on the air finishes, if any.
    pub fn busy_until(&self) -> Option<Time> {
        self.in_tx.map(|(_, _, t)| t)
    }

    /// The head packet finished serialising at `now`: it enters the pipe (or is lost), and
    /// the next one starts. Returns the lost packet, if any, and what to schedule.
    pub fn on_tx_done(&mut self, now: Time) -> (Option<PktIdx>, Wake) {
        let mut wake = Wake::default();
        let mut lost = None;
        if let Some((idx, size, done)) = self.in_tx {
            debug_assert_eq!(done, now, "invariant: one TxDone per serialisation");
            self.in_tx = None;
            if self.loss.lose() {
                self.counters.dropped[2] += 1;
                lost = Some(idx);
            } else {
                let at = now + self.delay;
                if self.pipe.is_empty() {
                    wake.arrival = Some(at);
                }
                self.pipe.push_back((at, idx, size));
            }
        }
        wake.tx_done = self.try_start(now);
        (lost, wake)
    }

    /// Pops the pipe's head if it has arrived by `now`.
    pub fn pop_arrived(&mut self, now: Time) -> Option<PktIdx> {
        match self.pipe.front() {
            Some(&(at, idx, size)) if at <= now => {
                self.pipe.pop_front();
                self.counters.delivered += 1;
                self.counters.delivered_bytes += size as u64;
                Some(idx)
            }
            _ => None,
        }
    }

    /// Arrival time of the pipe's head, to schedule the next `Arrive` event.
    pub fn next_arrival(&self) -> Option<Time> {
        self.pipe.front().map(|&(at, _, _)| at)
    }

    /// Packets waiting, serialising or propagating.
    pub fn in_system(&self) -> u64 {
        self.queue.len() as u64 + self.in_tx.is_some() as u64 + self.pipe.len() as u64
    }

    /// Packet conservation (checked at the end of every run):
    /// offered + moved in = delivered + dropped + moved out + still in the system.
    pub fn conserves_packets(&self) -> bool {
        let c = &self.counters;
        c.offered + c.moved_in == c.delivered + c.dropped_total() + c.moved_out + self.in_system()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{LossSpec, QueueLimit};

    fn dir(rate_bps: u64, delay_ms: u64, limit: u32) -> LinkDir {
        let spec = DirSpec {
            rate_bps,
            delay: Dur::from_millis(delay_ms),
            queue: QueueLimit::Packets(limit),
            queue_model: Default::default(),
            loss: LossSpec::None,
        };
        LinkDir::new(0, 1, &spec, Limit::Packets(limit), LossModel::None)
    }

    #[test]
    fn a_packet_takes_serialisation_plus_propagation() {
        // 1500 B at 5 Mb/s = 2.4 ms on the air, then 2 ms of propagation.
        let mut l = dir(5_000_000, 2, 10);
        let done = l.offer(Time::ZERO, 7, 1500).unwrap();
        assert_eq!(done, Some(Time(2_400_000)));
        let (lost, wake) = l.on_tx_done(Time(2_400_000));
        assert_eq!(lost, None);
        assert_eq!(wake.arrival, Some(Time(4_400_000)));
        assert_eq!(l.pop_arrived(Time(4_399_999)), None);
        assert_eq!(l.pop_arrived(Time(4_400_000)), Some(7));
        assert!(l.conserves_packets());
    }

    #[test]
    fn queue_limit_excludes_the_packet_on_the_air() {
        // QueueModel::DropTail: limit 1 holds one waiting packet while another is transmitted
        // (ns-2's rule would hold none: see queue.rs).
        let mut l = dir(1_000_000, 1, 1);
        assert!(l.offer(Time::ZERO, 1, 1000).is_ok());
        assert!(l.offer(Time::ZERO, 2, 1000).is_ok());
        assert_eq!(l.offer(Time::ZERO, 3, 1000), Err(DropCause::QueueOverflow));
        assert_eq!(l.counters.dropped[0], 1);
        assert!(l.conserves_packets());
    }

    #[test]
    fn a_blocked_direction_queues_but_does_not_send() {
        let mut l = dir(1_000_000, 1, 5);
        l.blocked_until = Time::from_secs(1);
        assert_eq!(l.offer(Time::ZERO, 1, 100).unwrap(), None);
        assert_eq!(l.try_start(Time::from_millis(999)), None);
        assert!(l.try_start(Time::from_secs(1)).is_some());
    }
}
