//! One direction of a link: a drop-tail queue, a serialiser at the link's rate, and a
//! propagation pipe with a fixed one-way delay and optional random loss.
//!
//! The serialiser is *lazy*: a direction knows when its packet on the air finishes and when
//! the next one may start, so it needs no event of its own. Whoever touches it first brings
//! it up to the present ([`LinkDir::advance`]), which replays what happened since: packets
//! that finished entered the pipe (or were lost), the next ones started at the instants they
//! would have. Only arrivals at the far node are events (one pending per direction, for the
//! pipe's head), and a retry when a blocked direction may start again. The state seen at any
//! instant is the one an eager serialiser would have: the queue holds exactly the packets
//! still waiting. (htsim keeps two events per direction; ns-2 one per packet per hop. This
//! halves the events of the first: 41,165 serialisation ends of the 89,792 events of the
//! 20 MB benchmark cell, counted per event kind in `world::run`; `run_timed` now reports
//! 41,855, with the delayed-ACK wake-ups that would find nothing due unscheduled too.)
//!
//! A direction can be *blocked* until an instant (a handover with delay): the queue keeps
//! accepting packets, nothing starts serialising.
//!
//! A direction's rate, delay, loss and state may change in place at scheduled times
//! (`change`, `[[schedule]]`), its queue kept, and a Mahimahi delivery trace may serialise
//! instead of the rate (`trace`).
//!
//! With `queue_model = "red"` the direction's [`red::Red`] judges each arrival before the
//! queue takes it (ns-2's `REDQueue::enque`); the drop-tail path only tests that it is absent.
//!
//! A direction may have a link layer between its queue and the far node (`layer`: a 3G
//! RLC-AM bearer, an 802.11b DCF station): it takes the queue's head whenever it has room,
//! and its own timing replaces the serialiser and the pipe. The plain path tests one flag.

pub mod change;
pub mod dcf;
pub mod jitter;
pub mod layer;
pub mod loss;
pub mod queue;
pub mod red;
pub mod rlc_am;
pub mod trace;

use crate::packet::PktIdx;
use crate::rng::Rng;
use crate::spec::{DirSpec, LossAt, NodeIdx};
use crate::time::{Dur, Time};
use change::LinkState;
use loss::LossModel;
use queue::{DropTail, Limit};
use red::{Red, Verdict};
use std::collections::VecDeque;

/// A packet as a direction holds it, from its offer to its arrival at the far node: its slot,
/// its size on the wire (what the queue counts and the serialiser times) and its destination.
/// Nothing changes a packet's addresses or size while a link holds it (tunnels and options
/// are added and removed at nodes), so the node it reaches routes a packet in transit on
/// `dst` without reading its slot, which by then has long left the cache: three reads per
/// datagram of Chen et al.'s cross traffic (`world::forward`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    pub idx: PktIdx,
    pub size: u32,
    /// `Packet::dst` when offered.
    pub dst: u32,
}

impl Held {
    /// A test's packet of `size` bytes in slot `idx`, for node 1.
    #[cfg(test)]
    pub(crate) fn test(idx: PktIdx, size: u32) -> Held {
        Held { idx, size, dst: 1 }
    }
}

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
    /// RED dropped it early, on its average queue (ns-2's "unforced" drop); a RED queue's
    /// drops at its hard limit are `QueueOverflow`.
    EarlyDrop,
    /// Lost to a scheduled link state (`[[schedule]]`, `link::change`): serialised onto a
    /// blackholed path, or offered to a direction whose interface is down. (What waits in
    /// the queue of an interface going down is `HandoverFlush`, as at a hard handover, and
    /// what is on its air or propagating `InFlight`.)
    LinkState,
    /// Discarded by the direction's link layer (`layer`): an RLC-AM SDU one of whose PDUs
    /// reached MaxDAT transmissions (TS 25.322), an 802.11 MSDU whose every attempt up to
    /// the retry limit was corrupted (IEEE 802.11-2007 9.2.5.3).
    LinkLayerDiscard,
    /// Being serialised or propagating on a direction whose interface went down (a hard
    /// handover with `in_flight = "lost"`, a scheduled state down): it never arrives
    /// (Cottingham & Vidales §6.1-6.2; issue 33 point 4). Inside a link layer: every packet
    /// it holds.
    InFlight,
}

/// How many [`DropCause`]s there are (the length of every per-cause array).
pub const DROP_CAUSES: usize = 7;

impl DropCause {
    pub const ALL: [DropCause; DROP_CAUSES] = [
        DropCause::QueueOverflow,
        DropCause::HandoverFlush,
        DropCause::RandomLoss,
        DropCause::EarlyDrop,
        DropCause::LinkState,
        DropCause::LinkLayerDiscard,
        DropCause::InFlight,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueOverflow => "queue_overflow",
            DropCause::HandoverFlush => "handover_flush",
            DropCause::RandomLoss => "random_loss",
            DropCause::EarlyDrop => "early_drop",
            DropCause::LinkState => "link_state",
            DropCause::LinkLayerDiscard => "link_layer_discard",
            DropCause::InFlight => "in_flight",
        }
    }
    /// Its index in [`DropCause::ALL`] and every per-cause array.
    pub const fn slot(self) -> usize {
        self as usize
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
    pub dropped: [u64; DROP_CAUSES],
}

impl LinkCounters {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

/// A direction's packets propagating, with their arrival times, in order (FIFO: the delay is
/// fixed, or varies with `jitter` and arrivals keep the order of departures), and the head's
/// arrival beside the ring: the world asks for it after every offer (`next_arrival`), when
/// the ring's head has long left the cache (`perf annotate`, Chen et al.'s world: a tenth of
/// `offer_on`'s samples on that load).
#[derive(Default)]
struct Pipe {
    ring: VecDeque<(Time, Held)>,
    /// `ring`'s front's arrival time.
    head_at: Option<Time>,
}

impl Pipe {
    #[inline(always)]
    fn push_back(&mut self, at: Time, p: Held) {
        if self.ring.is_empty() {
            self.head_at = Some(at);
        }
        self.ring.push_back((at, p));
    }

    /// Pops the head if it has arrived by `now`.
    #[inline(always)]
    fn pop_arrived(&mut self, now: Time) -> Option<Held> {
        if self.head_at? > now {
            return None;
        }
        let (_, p) = self.ring.pop_front()?;
        self.head_at = self.ring.front().map(|&(at, _)| at);
        Some(p)
    }

    fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// The last packet's arrival time.
    fn back_at(&self) -> Option<Time> {
        self.ring.back().map(|&(at, _)| at)
    }
}

pub struct LinkDir {
    /// Node at the sending end and at the receiving end.
    pub from: NodeIdx,
    pub to: NodeIdx,
    /// Fixed but for a schedule (`change`; a handover moves packets to another direction).
    rate_bps: u64,
    pub delay: Dur,
    pub queue: DropTail,
    /// RED's judge of arrivals, with `queue_model = "red"` (boxed: the drop-tail path only
    /// tests it for `None`).
    red: Option<Box<Red>>,
    /// The loss model that takes packets after serialisation ([`LossAt::Air`])...
    pub loss: LossModel,
    /// ...or the one that takes them on entry, before the queue ([`LossAt::Entry`]); the
    /// other is `None`.
    entry_loss: LossModel,
    /// Whether `loss` / `entry_loss` can take anything: one flag test on the usual lossless
    /// path (the model's own `match` cost 0.6 % of the 20 MB cell's instructions).
    air_lossy: bool,
    entry_lossy: bool,
    /// `air_lossy`, a variable delay, a blackhole or a delay still `settling`: a packet
    /// leaving the air takes the cold path.
    air_extras: bool,
    /// `entry_lossy`, RED, an interface down or a link layer: an arrival is judged before
    /// the queue (`judge_entry`), and a link layer's direction takes it from there.
    judges_entry: bool,
    /// Where a scheduled loss probability goes.
    loss_at: LossAt,
    /// Up, or a scheduled outage, blackhole or interface down (`change`).
    state: LinkState,
    /// During an outage (`blocked_until` at `Time::MAX`): the block a handover asked for,
    /// restored when the outage ends.
    held_block: Time,
    /// The delay was shortened with packets still propagating: each departure waits for
    /// the arrival ahead of it (`last_arrival`) until one no longer has to.
    settling: bool,
    /// A scheduled loss model's stream while the direction is lossless (so that a later
    /// loss draws on, not again from the start).
    spare_rng: Option<Rng>,
    /// The packet being serialised and when it finishes.
    in_tx: Option<(Held, Time)>,
    /// When the serialiser last fell idle (meaningful while `in_tx` is `None`).
    idle_since: Time,
    /// Packets propagating.
    pipe: Pipe,
    /// A packet-delivery trace serialising instead of `rate_bps` (`trace`, Mahimahi's
    /// format), boxed: it is only looked at when `ser_last` misses, which it then always does.
    trace: Option<Box<trace::DeliveryTrace>>,
    /// A seeded extra delay per packet (`jitter`), boxed: the fixed-delay path tests `None`.
    jitter: Option<Box<jitter::DelayJitter>>,
    /// The link layer between the queue and the far node (`layer`); `Plain`: the serialiser
    /// and the pipe.
    layer: layer::LinkLayer,
    /// Whether `layer` is not `Plain`: the one flag the plain path tests.
    layered: bool,
    /// Packets inside the link layer (offered, neither delivered nor discarded yet).
    in_layer: VecDeque<Held>,
    /// On the cold path: the last arrival time given, which the next may not precede.
    last_arrival: Time,
    /// Nothing starts serialising before this instant (`Time::MAX`: an outage).
    blocked_until: Time,
    /// Nothing starts serialising before this instant either: set when this direction takes
    /// over from another one whose last packet is still on the air (ns-2's single link
    /// finishing its current packet before the new parameters apply).
    pub free_at: Time,
    pub counters: LinkCounters,
    /// The last packet size serialised and its time on the air: most packets of a direction
    /// have one size, and this spares the division (a fifth of `replay`'s cycles by `perf`).
    ser_last: (u32, Dur),
    /// Packets lost on the air since the owner last looked, and why (to be freed and booked).
    pub lost: Vec<(PktIdx, DropCause)>,
    /// When recording: each start of a serialisation since the owner last looked, with the
    /// queue's length in packets and bytes just after it.
    pub starts: Option<Vec<(Time, usize, u64)>>,
}

impl LinkDir {
    /// Everything waiting in the queue is lost (the packet on the air finishes), booked as a
    /// handover flush: a soft handover's `flush = "discard"`, a link that goes down.
    pub fn discard_queue(&mut self, dropped: &mut Vec<crate::packet::PktIdx>) {
        for p in self.queue.drain_all() {
            self.counters.dropped[DropCause::HandoverFlush.slot()] += 1;
            dropped.push(p.idx);
        }
    }

    pub fn new(from: NodeIdx, to: NodeIdx, spec: &DirSpec, limit: Limit, loss: LossModel) -> Self {
        let (air, entry) = match spec.loss_at {
            LossAt::Air => (loss, LossModel::None),
            LossAt::Entry => (LossModel::None, loss),
        };
        LinkDir {
            from,
            to,
            rate_bps: spec.rate_bps,
            delay: spec.delay,
            queue: DropTail::new(limit, spec.queue_model),
            red: None,
            air_lossy: !matches!(air, LossModel::None),
            air_extras: !matches!(air, LossModel::None),
            entry_lossy: !matches!(entry, LossModel::None),
            judges_entry: !matches!(entry, LossModel::None),
            loss_at: spec.loss_at,
            state: LinkState::Up,
            held_block: Time::ZERO,
            settling: false,
            spare_rng: None,
            loss: air,
            entry_loss: entry,
            in_tx: None,
            idle_since: Time::ZERO,
            pipe: Pipe::default(),
            trace: None,
            jitter: None,
            layer: layer::LinkLayer::Plain,
            layered: false,
            in_layer: VecDeque::new(),
            last_arrival: Time::ZERO,
            blocked_until: Time::ZERO,
            free_at: Time::ZERO,
            counters: LinkCounters::default(),
            ser_last: (0, Dur::serialization(0, spec.rate_bps)),
            lost: Vec::new(),
            starts: None,
        }
    }

    /// Puts RED on this direction's queue (its model must be `QueueModel::Red`).
    pub fn set_red(&mut self, red: Red) {
        self.red = Some(Box::new(red));
        self.judges_entry = true;
    }

    /// The direction's RED, if it runs one.
    pub fn red(&self) -> Option<&Red> {
        self.red.as_deref()
    }

    /// Brings the serialiser up to `now`: each packet whose serialisation ended by then
    /// enters the pipe (or is lost, into [`LinkDir::lost`]), and the next waiting packet
    /// starts at the later of that instant and [`LinkDir::ready_at`], if that is not after
    /// `now`.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        // Most calls find nothing to do: the packet on the air is not through yet, or the
        // direction is idle and empty.
        match self.in_tx {
            Some((_, done)) if done > now => {}
            // Through, with nothing waiting behind it, on a plain path: into the pipe, as
            // `replay` would put it (without its call: 6 % of Chen et al.'s world's
            // instructions went to entering and leaving it, its every packet passing here).
            Some((p, done)) if !self.air_extras && self.queue.is_empty() => {
                self.in_tx = None;
                self.pipe.push_back(done + self.delay, p);
                self.idle_since = done;
            }
            None if self.layered => self.replay_layered(now),
            None if self.queue.is_empty() => {}
            _ => self.replay(now),
        }
    }

    fn replay(&mut self, now: Time) {
        loop {
            let free = match self.in_tx {
                Some((p, done)) => {
                    if done > now {
                        return;
                    }
                    self.in_tx = None;
                    if self.air_extras {
                        self.leave_with_extras(done, p);
                    } else {
                        self.pipe.push_back(done + self.delay, p);
                    }
                    done
                }
                None => self.idle_since,
            };
            self.idle_since = free;
            let start = free.max(self.ready_at());
            if start > now || self.queue.is_empty() {
                return;
            }
            let Some(p) = self.queue.pop() else {
                return;
            };
            self.start(start, p, true);
        }
    }

    /// A packet whose serialisation ended at `done`, on a direction with a loss model on the
    /// air or a variable delay: lost, or into the pipe at its own arrival time, never before
    /// the one ahead of it.
    #[cold]
    #[inline(never)]
    fn leave_with_extras(&mut self, done: Time, p: Held) {
        if self.state == LinkState::Blackhole {
            self.counters.dropped[DropCause::LinkState.slot()] += 1;
            self.lost.push((p.idx, DropCause::LinkState));
            return;
        }
        if self.air_lossy && self.loss.lose(done) {
            self.counters.dropped[2] += 1;
            self.lost.push((p.idx, DropCause::RandomLoss));
            return;
        }
        let mut at = done + self.delay;
        if let Some(j) = &mut self.jitter {
            at += j.draw();
        }
        if at < self.last_arrival {
            at = self.last_arrival;
        } else if self.settling {
            // This one need not wait, so no later one will (the delay is fixed again).
            self.settling = false;
            self.refresh_flags();
        }
        self.last_arrival = at;
        self.pipe.push_back(at, p);
    }

    /// Puts a packet on the air at `start` (`queued`: it waited in the queue then).
    #[inline(always)]
    fn start(&mut self, start: Time, p: Held, queued: bool) {
        let size = p.size;
        if self.ser_last.0 != size {
            self.ser_last = match &mut self.trace {
                None => (size, Dur::serialization(size, self.rate_bps)),
                // Size 0, which no packet has: the next start asks the trace again.
                Some(t) => (0, trace::on_air(t, start, size, queued)),
            };
        }
        self.in_tx = Some((p, start + self.ser_last.1));
        if let Some(starts) = &mut self.starts {
            starts.push((start, self.queue.len(), self.queue.bytes()));
        }
    }

    /// Offers a packet from the sending node at `now`. `Err` when the queue drops it (the
    /// caller frees the packet and records the drop).
    pub fn offer(&mut self, now: Time, p: Held) -> Result<(), DropCause> {
        let size = p.size;
        self.advance(now);
        self.counters.offered += 1;
        if self.judges_entry {
            self.judge_entry(now, size)?;
            if self.layered {
                // The link layer takes it from the queue when it has room.
                self.queue.push_unchecked(p);
                self.replay_layered(now);
                return Ok(());
            }
        } else if !self.queue.has_room(size) {
            self.counters.dropped[0] += 1;
            return Err(DropCause::QueueOverflow);
        }
        let idle = self.in_tx.is_none();
        if idle {
            // Idle until now: the packet cannot start before it arrives.
            self.idle_since = self.idle_since.max(now);
        }
        if idle && self.queue.is_empty() && self.ready_at() <= now {
            // Idle, empty and free to send: on the air at once, as `replay` would put it,
            // without passing through the queue's ring.
            self.start(now, p, false);
            self.advance(now); // through already if its time on the air is zero
            return Ok(());
        }
        self.queue.push_unchecked(p);
        if idle {
            self.replay(now);
        }
        Ok(())
    }

    /// The arrival's fate when something judges it before the queue: the entry loss model
    /// (ns-2's `$ns lossmodel` at the link's head), then RED (`REDQueue::enque`), which
    /// applies the queue's hard limit itself. Kept off the drop-tail path, which tests one
    /// flag for both.
    #[cold]
    fn judge_entry(&mut self, now: Time, size: u32) -> Result<(), DropCause> {
        let idle = self.in_tx.is_none();
        if self.state == LinkState::Down {
            if idle {
                self.idle_since = self.idle_since.max(now);
            }
            self.counters.dropped[DropCause::LinkState.slot()] += 1;
            return Err(DropCause::LinkState);
        }
        if self.entry_lossy && self.entry_loss.lose(now) {
            if idle {
                self.idle_since = self.idle_since.max(now);
            }
            self.counters.dropped[2] += 1;
            return Err(DropCause::RandomLoss);
        }
        let Some(red) = &mut self.red else {
            if !self.queue.has_room(size) {
                self.counters.dropped[0] += 1;
                return Err(DropCause::QueueOverflow);
            }
            return Ok(());
        };
        // ns-2's RED is idle from the instant its link found nothing to send (deque()
        // returning no packet) until the next arrival.
        let was_idle = (idle && self.queue.is_empty()).then_some(self.idle_since);
        let room = self.queue.has_room(size);
        match red.on_arrival(now, was_idle, self.queue.bytes(), size, room) {
            Verdict::Accept => Ok(()),
            Verdict::EarlyDrop => {
                self.counters.dropped[3] += 1;
                Err(DropCause::EarlyDrop)
            }
            Verdict::Overflow => {
                self.counters.dropped[0] += 1;
                Err(DropCause::QueueOverflow)
            }
        }
    }

    /// After packets joined the queue at `now` (an offer, a handover): an idle serialiser
    /// starts on them now, or as soon as it is ready.
    pub fn wake_idle(&mut self, now: Time) {
        self.advance(now);
        if self.in_tx.is_none() {
            // Idle until now (whatever waits was blocked, or has just arrived).
            self.idle_since = self.idle_since.max(now);
            self.advance(now);
        }
    }

    /// Gives each packet a seeded extra delay (`link::jitter`).
    pub fn set_jitter(&mut self, jitter: jitter::DelayJitter) {
        self.jitter = Some(Box::new(jitter));
        self.air_extras = true;
    }

    /// Nothing starts serialising before `t` (a handover's delay), besides any block already
    /// set; during an outage it applies once the outage ends.
    pub fn block_until(&mut self, t: Time) {
        if self.state == LinkState::Outage {
            self.held_block = self.held_block.max(t);
        } else {
            self.blocked_until = self.blocked_until.max(t);
        }
    }

    /// The direction's rate, bits per second.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// When, brought up to the present, the queue next shrinks: the packet on the air
    /// finishes, or a blocked direction holding packets may start. `None` when idle and empty.
    pub fn next_dequeue(&self) -> Option<Time> {
        match self.in_tx {
            Some((_, done)) => Some(done),
            None => self.retry_at(),
        }
    }

    /// The earliest instant at which an idle, non-empty direction may start.
    pub fn ready_at(&self) -> Time {
        self.blocked_until.max(self.free_at)
    }

    /// When a direction holding packets but not serialising (blocked) must be looked at again.
    pub fn retry_at(&self) -> Option<Time> {
        if self.in_tx.is_none() && !self.queue.is_empty() {
            if self.layered {
                return self.layered_retry_at();
            }
            // `Time::MAX`: an outage, which a schedule ends (and looks at the direction then).
            let t = self.ready_at().max(self.idle_since);
            (t != Time::MAX).then_some(t)
        } else {
            None
        }
    }

    /// When the packet now on the air finishes, if any (as of the last `advance`).
    pub fn busy_until(&self) -> Option<Time> {
        self.in_tx.map(|(_, t)| t)
    }

    /// The interface goes down at `now` (a hard handover with `in_flight = "lost"`, a state
    /// down): the packet being serialised and every packet still propagating (due after
    /// `now`) are lost, and so is whatever a link layer holds (it starts afresh). Each is
    /// booked here as [`DropCause::InFlight`] and put in `dropped` for the caller to free.
    /// The queue is the caller's (`LinkDir::discard_queue`, `handover::transfer_queue`).
    pub fn discard_in_flight(&mut self, now: Time, dropped: &mut Vec<PktIdx>) {
        self.advance(now);
        let slot = DropCause::InFlight.slot();
        if let Some((p, _)) = self.in_tx.take() {
            self.counters.dropped[slot] += 1;
            dropped.push(p.idx);
            // The serialiser is idle from now: nothing finishes on the air.
            self.idle_since = self.idle_since.max(now);
        }
        // A packet due at `now` has arrived (the world takes it at this instant).
        let keep = self.pipe.ring.partition_point(|&(at, _)| at <= now);
        for (_, p) in self.pipe.ring.drain(keep..) {
            self.counters.dropped[slot] += 1;
            dropped.push(p.idx);
        }
        self.pipe.head_at = self.pipe.ring.front().map(|&(at, _)| at);
        // Only a dropped packet was due after now: no later one need wait for it.
        self.last_arrival = self.last_arrival.min(now);
        if self.layered {
            self.layer.abandon(now);
            for p in self.in_layer.drain(..) {
                self.counters.dropped[slot] += 1;
                dropped.push(p.idx);
            }
        }
    }

    /// Pops the pipe's head if it has arrived by `now` (call [`LinkDir::advance`] first).
    pub fn pop_arrived(&mut self, now: Time) -> Option<Held> {
        let p = self.pipe.pop_arrived(now)?;
        self.counters.delivered += 1;
        self.counters.delivered_bytes += p.size as u64;
        Some(p)
    }

    /// When the next packet reaches the far node: the pipe's head, or the packet on the air
    /// once it is through (unless the loss model takes it: then nothing arrives then, and
    /// the next arrival is known after `advance`).
    pub fn next_arrival(&self) -> Option<Time> {
        match (self.pipe.head_at, self.in_tx) {
            (Some(at), _) => Some(at),
            (None, Some((_, done))) => Some(done + self.delay),
            (None, None) if self.layered => self.layer.poll_timeout(),
            (None, None) => None,
        }
    }

    /// Every packet the direction holds: waiting, serialising, propagating (as of the last
    /// `advance`).
    pub fn held(&self) -> impl Iterator<Item = PktIdx> + '_ {
        let pipe = self.pipe.ring.iter().map(|&(_, p)| p.idx);
        let layer = self.in_layer.iter().map(|p| p.idx);
        self.queue
            .iter()
            .chain(self.in_tx.map(|t| t.0.idx))
            .chain(layer)
            .chain(pipe)
    }

    /// Bytes propagating (through the serialiser, not yet at the far node).
    pub fn pipe_bytes(&self) -> u64 {
        self.pipe.ring.iter().map(|&(_, p)| p.size as u64).sum()
    }

    /// Packets waiting, serialising or propagating.
    pub fn in_system(&self) -> u64 {
        self.queue.len() as u64
            + self.in_tx.is_some() as u64
            + self.in_layer.len() as u64
            + self.pipe.ring.len() as u64
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
            red: Default::default(),
            loss: LossSpec::None,
            loss_at: Default::default(),
            jitter: None,
            link_layer: Default::default(),
        };
        LinkDir::new(0, 1, &spec, Limit::Packets(limit), LossModel::None)
    }

    #[test]
    fn an_interface_going_down_loses_what_is_on_its_air_and_in_its_pipe() {
        // Issue 33 point 4 (Cottingham & Vidales §6.1-6.2: an interface going down loses
        // what it carries). 20 packets of 1000 B at 1 Mb/s (8 ms each), 100 ms: at 50 ms
        // packets 0-5 propagate (due at 108-148 ms), 6 is on the air, 7-19 wait.
        let mut l = dir(1_000_000, 100, 100);
        for i in 0..20 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        let mut dropped = Vec::new();
        l.discard_in_flight(Time::from_millis(50), &mut dropped);
        assert_eq!(dropped, vec![6, 0, 1, 2, 3, 4, 5]);
        assert_eq!(l.counters.dropped[DropCause::InFlight.slot()], 7);
        assert_eq!((l.queue.len(), l.next_arrival()), (13, None));
        assert!(l.conserves_packets());
        // The queue is the caller's: it starts at once on an idle serialiser.
        l.wake_idle(Time::from_millis(50));
        assert_eq!(l.next_arrival(), Some(Time::from_millis(158)));
        // A packet due at the instant itself has arrived: it is kept.
        let mut l = dir(1_000_000, 100, 100);
        for i in 0..3 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        dropped.clear();
        l.discard_in_flight(Time::from_millis(116), &mut dropped);
        assert_eq!(dropped, vec![2]);
        let got: Vec<_> = std::iter::from_fn(|| l.pop_arrived(Time::from_millis(116)))
            .map(|p| p.idx)
            .collect();
        assert_eq!(got, vec![0, 1]);
        assert!(l.conserves_packets());
    }

    #[test]
    fn with_jitter_packets_arrive_later_but_in_the_order_sent() {
        // 100 packets of 1000 B at 1 Mb/s (8 ms each), 300 ms plus an extra delay of mean
        // 150 ms and sd 150 ms: every arrival at least 300 ms after its serialisation ends,
        // none before the one sent ahead of it (RLC's in-order delivery).
        let mut l = dir(1_000_000, 300, 200);
        l.set_jitter(jitter::DelayJitter::new(
            Dur::from_millis(150),
            Dur::from_millis(150),
            crate::rng::Rng::stream(5, "jitter"),
        ));
        for i in 0..100 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        let mut got = Vec::new();
        let mut t = Time::ZERO;
        while let Some(next) = l.next_arrival() {
            t = next;
            l.advance(t);
            while let Some(idx) = l.pop_arrived(t).map(|p| p.idx) {
                got.push((t, idx));
            }
        }
        assert_eq!(
            got.iter().map(|g| g.1).collect::<Vec<_>>(),
            (0..100).collect::<Vec<_>>()
        );
        for (k, &(at, _)) in got.iter().enumerate() {
            let done = Time(8_000_000 * (k as u64 + 1));
            assert!(at >= done + Dur::from_millis(300), "{k}: {at:?}");
        }
        // The extra delay shows: the last arrives well after 100 x 8 ms + 300 ms.
        assert!(t > Time::from_millis(1100 + 50), "{t:?}");
        assert!(l.conserves_packets());
    }

    #[test]
    fn each_drop_cause_indexes_its_place_in_all() {
        // Every per-cause array is indexed by `slot`, summaries by `ALL`'s order.
        for (i, c) in DropCause::ALL.iter().enumerate() {
            assert_eq!(c.slot(), i, "{c:?}");
        }
    }

    #[test]
    fn a_packet_takes_serialisation_plus_propagation() {
        // 1500 B at 5 Mb/s = 2.4 ms on the air, then 2 ms of propagation.
        let mut l = dir(5_000_000, 2, 10);
        l.offer(Time::ZERO, Held::test(7, 1500)).unwrap();
        assert_eq!(l.busy_until(), Some(Time(2_400_000)));
        assert_eq!(l.next_arrival(), Some(Time(4_400_000)));
        l.advance(Time(4_399_999));
        assert_eq!(l.pop_arrived(Time(4_399_999)).map(|p| p.idx), None);
        l.advance(Time(4_400_000));
        assert_eq!(l.pop_arrived(Time(4_400_000)).map(|p| p.idx), Some(7));
        assert!(l.conserves_packets());
    }

    #[test]
    fn queue_limit_excludes_the_packet_on_the_air() {
        // QueueModel::DropTail: limit 1 holds one waiting packet while another is transmitted
        // (ns-2's rule would hold none: see queue.rs).
        let mut l = dir(1_000_000, 1, 1);
        assert!(l.offer(Time::ZERO, Held::test(1, 1000)).is_ok());
        assert!(l.offer(Time::ZERO, Held::test(2, 1000)).is_ok());
        assert_eq!(
            l.offer(Time::ZERO, Held::test(3, 1000)),
            Err(DropCause::QueueOverflow)
        );
        assert_eq!(l.counters.dropped[0], 1);
        assert!(l.conserves_packets());
    }

    #[test]
    fn a_blocked_direction_queues_but_does_not_send() {
        let mut l = dir(1_000_000, 1, 5);
        l.blocked_until = Time::from_secs(1);
        l.offer(Time::ZERO, Held::test(1, 100)).unwrap();
        assert_eq!(l.busy_until(), None);
        assert_eq!(l.retry_at(), Some(Time::from_secs(1)));
        l.advance(Time::from_millis(999));
        assert_eq!(l.busy_until(), None);
        l.advance(Time::from_secs(1));
        assert_eq!(
            l.busy_until(),
            Some(Time::from_secs(1) + Dur::from_micros(800))
        );
    }

    #[test]
    fn the_lazy_serialiser_replays_back_to_back_transmissions() {
        // Three 1000 B packets at 1 Mb/s offered at once: on the air 0-8, 8-16, 16-24 ms,
        // arriving 1 ms later; looking only at 20 ms finds two through and one on the air,
        // and the queue as an eager serialiser would have left it.
        let mut l = dir(1_000_000, 1, 10);
        l.starts = Some(Vec::new());
        for i in 0..3 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        l.advance(Time::from_millis(20));
        assert_eq!(l.busy_until(), Some(Time::from_millis(24)));
        assert!(l.queue.is_empty());
        assert_eq!(l.pop_arrived(Time::from_millis(20)).map(|p| p.idx), Some(0));
        assert_eq!(l.pop_arrived(Time::from_millis(20)).map(|p| p.idx), Some(1));
        assert_eq!(l.pop_arrived(Time::from_millis(20)).map(|p| p.idx), None);
        assert_eq!(l.next_arrival(), Some(Time::from_millis(25)));
        let starts: Vec<_> = l
            .starts
            .take()
            .unwrap()
            .iter()
            .map(|s| (s.0, s.1))
            .collect();
        assert_eq!(
            starts,
            [
                (Time::ZERO, 0),
                (Time::ZERO + Dur::from_millis(8), 1),
                (Time::ZERO + Dur::from_millis(16), 0)
            ]
        );
        assert!(l.conserves_packets());
    }
}
