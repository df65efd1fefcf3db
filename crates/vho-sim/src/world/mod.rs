//! The simulated world and its event loop: the simulator's driver of the sans-IO models.
//!
//! Packets move forward only: a host's TCP endpoint hands a segment to its node, the node
//! offers it to the link direction its route names, the direction serialises and propagates
//! it and hands it to the next node. Components never reach back into each other; the world
//! owns them all and turns what they say into events ([`Event`]), run in (time, insertion)
//! order by `sched::EventQueue`.
//!
//! Per link direction at most one live arrival event is pending (the pipe's head, or the
//! packet on the air once through: serialisers are lazy, see `link`) and, while a handover
//! delay blocks it, one retry; per endpoint at most one live wake-up. A stale event (one
//! superseded by an earlier one) runs harmlessly: everything it does first checks the state.

mod build;
mod completion;
mod external;
mod forward;
mod functions;
mod handover;
mod link_layers;
mod mip;
mod nemo;
mod oracle;
mod recorders;
mod schedule;
mod spill;
pub mod summary;

use crate::agent::AnyAgent;
use crate::link::LinkDir;
use crate::net::routes::{DirIdx, Routes};
use crate::packet::{Packet, Slab};
use crate::record::series::{DropSeries, QueueSeries};
use crate::sched::EventQueue;
use crate::spec::{LinkIdx, NodeIdx, Spec};
use crate::time::{Dur, Time};

pub use crate::agent::{CrossBins, CrossSummary, CROSS_INTERVAL};
pub use external::ExternalOut;
pub use spill::run_spilling;
pub use summary::Summary;

/// Receiver throughput is binned at this interval for the adaptation time (Cottingham &
/// Vidales §5: "throughput … over 0.1 s intervals").
pub const ADAPTATION_INTERVAL: Dur = Dur::from_millis(100);

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("flow {flow}: no route between {from} and {to}")]
    NoRoute {
        flow: String,
        from: String,
        to: String,
    },
    /// The run stopped advancing: [`NO_PROGRESS_EVENTS`] events within [`NO_PROGRESS_SPAN`]
    /// of simulated time, which no model with a sane parameter produces.
    #[error(
        "the simulation stopped advancing at {at_s} s ({events} events within {span_us} µs of \
         simulated time): a timer or link parameter too small to make progress"
    )]
    NoProgress {
        at_s: f64,
        events: u64,
        span_us: u64,
    },
    /// A link layer's parameters it cannot run with (the scenario checks them at load; a
    /// spec built by hand may not).
    #[error("link {link}: {error}")]
    LinkLayer {
        link: String,
        error: crate::link::layer::LinkLayerError,
    },
    #[error(
        "link {link}: queue \"bdp\" gives a limit of 1 packet from {from} to {to}, with which \
         queue_model \"ns2-droptail\" drops every packet (ns-2's queue/drop-tail.cc); give \
         queue = \"2 packets\" or more, queue_model = \"droptail\", or queue = \"1 packets\" \
         for ns-2's behaviour"
    )]
    DeadQueue {
        link: String,
        from: String,
        to: String,
    },
}

/// Why a run ended (`summary.json`'s `run.ended_by`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EndedBy {
    /// Every flow delivered everything and its sender saw it acknowledged.
    Completed,
    /// The scenario's `run.stop` came first; the run is reported at that instant.
    StopTime,
    /// Nothing was left to happen before the stop time (no event pending): the flows that did
    /// not complete are stuck; the run is reported at its last event.
    Idle,
}

impl EndedBy {
    pub fn name(self) -> &'static str {
        match self {
            EndedBy::Completed => "completed",
            EndedBy::StopTime => "stop_time",
            EndedBy::Idle => "idle",
        }
    }
}

/// The no-progress guard: this many events within this much simulated time end the run with
/// [`SimError::NoProgress`]. A busy legitimate run has far fewer: a 100 Gb/s link carries
/// about 8,300 full-sized packets per millisecond.
pub const NO_PROGRESS_EVENTS: u64 = 1 << 20;
pub const NO_PROGRESS_SPAN: Dur = Dur::from_millis(1);

/// Something that wants to see every packet sent or received at a node (a pcap writer).
pub trait PacketTap: Send {
    /// A TCP segment or a signalling message.
    fn packet(&mut self, now: Time, pkt: &Packet);
    /// An agent's datagram (`Proto::Datagram`, `Proto::BareDatagram`: TFRC, cross traffic with `record.pcap_cross`,
    /// CBR) with its payload; by default not written.
    fn datagram(&mut self, _now: Time, _pkt: &Packet, _payload: &crate::agent::Payload) {}
    /// A TCP segment with what rides beside it (an MPTCP subflow's option,
    /// `Payload::Mptcp`); by default as [`PacketTap::packet`].
    fn segment_with(&mut self, now: Time, pkt: &Packet, _payload: &crate::agent::Payload) {
        self.packet(now, pkt);
    }
    /// Called once after the run: flush, and report the first failure.
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// A packet of a link direction may reach the far node.
    Arrive(DirIdx),
    /// A blocked direction holding packets may start serialising.
    Unblock(DirIdx),
    /// An agent's timer may have expired (`side` 0 = the flow's source, 1 = its sink).
    Wake {
        flow: u32,
        side: u8,
    },
    FlowStart(u32),
    Handover(u32),
    /// The mobile's handover manager announces handover `h` to its TCP endpoints.
    Notify(u32),
    /// A node's functions asked to be woken (`world::functions`).
    NodeWake(u32),
    /// Handover `h`'s mobile moves its outgoing packets to the new link (`uplink_delay`).
    UplinkMove(u32),
    /// Link schedules' next step is due (`world::schedule`).
    Schedule,
}

/// Bytes delivered in order to a flow's receiver, per fixed interval.
#[derive(Clone, Debug)]
pub struct RxBins {
    pub interval: Dur,
    pub bytes: Vec<u64>,
}

impl RxBins {
    fn new(interval: Dur) -> Self {
        RxBins {
            interval,
            bytes: Vec::new(),
        }
    }
    fn add(&mut self, now: Time, bytes: u64) {
        let i = (now.as_nanos() / self.interval.as_nanos()) as usize;
        if self.bytes.len() <= i {
            self.bytes.resize(i + 1, 0);
        }
        self.bytes[i] += bytes;
    }
}

/// A flow: its two agents (`crate::agent`) and its ledger, what the world keeps of every
/// flow whatever its kind.
struct Flow {
    /// The source at the flow's `src` node (side 0) and the sink at its `dst` (side 1).
    agents: [AnyAgent; 2],
    /// Their kinds, for `agent::with_ends!`.
    ends: crate::agent::Ends,
    /// The nodes they run at (the spec's `src` and `dst`, beside what a send updates).
    nodes: [u32; 2],
    /// Earliest live wake-up scheduled per side.
    wake: [Option<Time>; 2],
    started: bool,
    completed_at: Option<Time>,
    /// Bytes the sink has delivered in order (the last `Arrival::delivered`).
    delivered: u64,
    /// The source has finished (`FateOut::source_finished`), the sink told.
    source_done: bool,
    /// Drops of this flow's packets per link direction and cause.
    drops: Vec<[u64; crate::link::DROP_CAUSES]>,
    /// IPv4 identification counters of the two ends.
    ip_id: [u16; 2],
    /// When recording series: bytes delivered in order per `ADAPTATION_INTERVAL`.
    rx_bins: Option<RxBins>,
    /// t_a from the data arriving at the receiver (vho-trace, the same referee as
    /// `vho analyze`, in memory that does not grow with the run).
    tput: vho_trace::analysis::adaptation::AdaptationTracker,
    /// After the receiver's first handover: the new link, until its first data packet.
    await_new_link: Option<LinkIdx>,
    /// When the first data packet arrived over the new link.
    first_on_new_link: Option<Time>,
    /// `[record] goodput_from`..`goodput_until`: the window and the bytes delivered in order
    /// by its start and by its end; `None` without one (a single test per delivery).
    window: Option<GoodputWindow>,
}

/// The events a link direction has pending (the earliest of each kind).
#[derive(Clone, Copy, Default)]
struct DirEvents {
    arrive: Option<Time>,
    unblock: Option<Time>,
}

pub struct World {
    now: Time,
    queue: EventQueue<Event>,
    slab: Slab,
    /// What each agent's datagram in the slab carries, by its slot (a TCP segment rides in
    /// the packet itself).
    payloads: Vec<crate::agent::Payload>,
    dirs: Vec<LinkDir>,
    pending: Vec<DirEvents>,
    ends: Vec<(NodeIdx, NodeIdx)>,
    up: Vec<bool>,
    routes: Routes,
    /// Whether every flow is done (`world::completion`).
    done: completion::Completion,
    /// The handovers and the mobiles they move (`world::handover`).
    handovers: handover::Handovers,
    flows: Vec<Flow>,
    /// Per node, the functions on its forwarding path (`net::function`); usually none.
    functions: functions::Functions,
    /// Link parameters changing at scheduled times (`world::schedule`).
    schedule: schedule::Schedule,
    /// Mobile IPv6's addresses and entities (`world::mip`), in a run with `[mipv6]`.
    mip: Option<Box<mip::MipWorld>>,
    /// The taps, the queue and drop series (`world::recorders`).
    rec: recorders::Recorders,
    events: u64,
    spec: Spec,
    /// Outside packets' fates for the driver (`world::external`); `None` in a simulation.
    external_out: Option<Box<ExternalOut>>,
}

/// Everything a run produces besides the captures its taps wrote.
pub struct RunOutput {
    pub summary: Summary,
    /// Per flow (in scenario order) what its agents recorded over time (`agent::AgentSeries`:
    /// a TCP or TFRC sender's state, a probe's estimate, cross traffic's bins, a CBR
    /// receiver's datagrams).
    pub series: Vec<crate::agent::AgentSeries>,
    pub queue_series: Option<QueueSeries>,
    /// Every data segment dropped in the network, if recorded (series).
    pub drop_series: Option<DropSeries>,
    /// Per flow, bytes delivered in order per `ADAPTATION_INTERVAL`, if recorded (series).
    pub rx_bins: Vec<Option<RxBins>>,
    /// The taps the run was given, handed back to be finished.
    pub taps: Vec<(NodeIdx, Box<dyn PacketTap>)>,
}

/// A goodput window's two ends and the in-order totals kept at each.
#[derive(Clone, Copy, Debug)]
struct GoodputWindow {
    from: Time,
    until: Time,
    bytes: [u64; 2],
}

impl GoodputWindow {
    /// Counts `delivered` (the in-order total after a delivery at `now`): the last total at
    /// or before each end is the one kept.
    #[inline]
    fn note(&mut self, now: Time, delivered: u64) {
        if now <= self.from {
            self.bytes[0] = delivered;
        }
        if now <= self.until {
            self.bytes[1] = delivered;
        }
    }

    /// Goodput over the window, bit/s.
    fn goodput_bps(&self) -> f64 {
        let [at_a, at_b] = self.bytes;
        at_b.saturating_sub(at_a) as f64 * 8.0
            / self.until.saturating_since(self.from).as_secs_f64()
    }
}

/// Runs a scenario to completion (every flow done) or to its stop time.
pub fn run(spec: &Spec, taps: Vec<(NodeIdx, Box<dyn PacketTap>)>) -> Result<RunOutput, SimError> {
    let mut w = World::new(spec)?;
    w.rec.taps = taps;
    let ended = w.run_loop()?;
    Ok(w.finish(ended))
}

impl World {
    fn run_loop(&mut self) -> Result<EndedBy, SimError> {
        self.schedule_start(true);
        self.run_events(self.spec.stop_at)
    }

    /// Runs the events due by `until` in order; then the clock reads `until` (`StopTime`),
    /// or the last event's instant when none is left (`Idle`), or the instant every flow
    /// completed. The simulation's one loop, and the emulator's step (`World::run_until`).
    fn run_events(&mut self, until: Time) -> Result<EndedBy, SimError> {
        // The no-progress guard: at every NO_PROGRESS_EVENTS-th event, time must have moved
        // on by NO_PROGRESS_SPAN since the last check.
        let (mut check_at, mut window_start) = (self.events + NO_PROGRESS_EVENTS, self.now);
        loop {
            let Some(t) = self.queue.peek_time() else {
                return Ok(EndedBy::Idle);
            };
            if t > until {
                self.now = until;
                return Ok(EndedBy::StopTime);
            }
            let Some((t, ev)) = self.queue.pop() else {
                return Ok(EndedBy::Idle);
            };
            // The clock never runs back: an event scheduled in the past is a model's bug (a
            // link that started serving from a stale `free_at` once did).
            debug_assert!(t >= self.now, "event at {t:?} before now {:?}", self.now);
            self.now = t;
            self.events += 1;
            if self.events == check_at {
                if t.saturating_since(window_start) < NO_PROGRESS_SPAN {
                    return Err(SimError::NoProgress {
                        at_s: t.as_secs_f64(),
                        events: NO_PROGRESS_EVENTS,
                        span_us: t.saturating_since(window_start).as_nanos() / 1000,
                    });
                }
                (check_at, window_start) = (self.events + NO_PROGRESS_EVENTS, t);
            }
            self.dispatch(t, ev);
            if self.done.all_done(&self.flows) {
                return Ok(EndedBy::Completed);
            }
        }
    }

    /// Puts the run's fixed instants on the clock (flow starts unless `flows` is false,
    /// handovers, notifications, link schedules) and lets every node function speak first.
    fn schedule_start(&mut self, flows: bool) {
        for (f, fs) in self.spec.flows.iter().enumerate().filter(|_| flows) {
            self.queue.schedule(fs.start, Event::FlowStart(f as u32));
        }
        for (h, st) in self.handovers.iter().enumerate() {
            self.queue.schedule(st.at, Event::Handover(h as u32));
            if let Some(offset) = self.spec.handovers[h].notify {
                // A notification due before time zero comes at time zero.
                let at = Time(st.at.as_nanos().saturating_add_signed(offset));
                self.queue.schedule(at, Event::Notify(h as u32));
            }
        }
        for node in 0..self.functions.len() {
            if !self.functions[node].is_empty() {
                self.pump_functions(node);
            }
        }
        self.arm_schedule();
    }

    /// Runs one event due at `t` (the clock already reads `t`).
    #[inline(always)]
    fn dispatch(&mut self, t: Time, ev: Event) {
        match ev {
            Event::Arrive(d) => self.on_arrive(d),
            Event::Unblock(d) => {
                let p = &mut self.pending[d as usize];
                if p.unblock == Some(t) {
                    p.unblock = None;
                }
                self.kick(d);
            }
            Event::Wake { flow, side } => self.on_wake(flow as usize, side as usize),
            Event::FlowStart(f) => {
                let flow = &mut self.flows[f as usize];
                flow.started = true;
                flow.agents[0].start(t);
                flow.agents[1].start(t);
                self.pump(f as usize, 0);
                self.pump(f as usize, 1);
            }
            Event::Handover(h) => match self.handovers[h as usize].mechanism {
                handover::Mechanism::LinkSwitch => self.apply_handover(h as usize),
                handover::Mechanism::MobileIpv6 => self.apply_mip_handover(h as usize),
            },
            Event::Notify(h) => self.notify_handover(h as usize),
            Event::NodeWake(n) => self.on_node_wake(n as usize),
            Event::UplinkMove(h) => self.move_uplink(h as usize),
            Event::Schedule => self.on_schedule(),
        }
    }

    /// Agent `side` of flow `f` is woken: one dispatch on the flow's kinds for the wake-up
    /// and the sends it leads to.
    fn on_wake(&mut self, f: usize, side: usize) {
        crate::agent::with_ends!(self.flows[f].ends, S, R => if side == 0 {
            self.wake_as::<S>(f, 0)
        } else {
            self.wake_as::<R>(f, 1)
        })
    }

    #[inline(always)]
    fn wake_as<A: crate::agent::Kind>(&mut self, f: usize, side: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        if flow.wake[side] == Some(now) {
            flow.wake[side] = None;
        }
        A::of(&mut flow.agents[side]).handle_timeout(now);
        self.pump_as::<A>(f, side);
    }

    /// After packets joined direction `d`'s queue other than by an offer (a handover moved
    /// them, a block ended): an idle serialiser starts on them as soon as it may.
    fn kick(&mut self, d: DirIdx) {
        self.dirs[d as usize].wake_idle(self.now);
        self.took_effect(d);
        self.sample_queue(d);
    }

    /// Brings direction `d` up to now (packets its serialiser finished meanwhile enter the
    /// pipe or are lost) and books what happened.
    fn advance(&mut self, d: DirIdx) {
        self.dirs[d as usize].advance(self.now);
        self.took_effect(d);
    }

    /// Books what direction `d` did since it was last looked at (lost packets freed, queue
    /// changes recorded), and makes sure the events it needs are pending: the next arrival,
    /// and a retry while it holds packets it may not start yet.
    #[inline(always)]
    fn took_effect(&mut self, d: DirIdx) {
        self.book(d);
        self.arm(d);
    }

    /// Frees what direction `d` lost on the air and records its queue's changes. Usually
    /// there is neither (no loss model, no queue recording): that check is inlined, the work
    /// not.
    #[inline]
    fn book(&mut self, d: DirIdx) {
        if self.rec.booking {
            self.book_slow(d);
        }
    }

    #[cold]
    #[inline(never)]
    fn book_slow(&mut self, d: DirIdx) {
        let i = d as usize;
        if !self.dirs[i].lost.is_empty() {
            let mut lost = std::mem::take(&mut self.dirs[i].lost);
            for &(idx, cause) in &lost {
                self.free_dropped(idx, Some(d), cause);
            }
            lost.clear();
            self.dirs[i].lost = lost;
        }
        let dir = &mut self.dirs[i];
        if let (Some(qs), Some(starts)) = (&mut self.rec.queues, &mut dir.starts) {
            for (t, packets, bytes) in starts.drain(..) {
                qs.push(t, d, packets, bytes);
            }
        }
    }

    /// Makes sure direction `d`'s next arrival, and a retry while it is blocked, are pending.
    #[inline(always)]
    fn arm(&mut self, d: DirIdx) {
        let i = d as usize;
        let dir = &self.dirs[i];
        let pending = &mut self.pending[i];
        if let Some(t) = dir.next_arrival() {
            if pending.arrive.is_none_or(|p| t < p) {
                pending.arrive = Some(t);
                self.queue.schedule(t, Event::Arrive(d));
            }
        }
        if let Some(t) = dir.retry_at() {
            let t = t.max(self.now);
            if pending.unblock.is_none_or(|p| t < p) {
                pending.unblock = Some(t);
                self.queue.schedule(t, Event::Unblock(d));
            }
        }
    }

    /// Records direction `d`'s queue now, when recording (the check is inlined: recording is
    /// usually off).
    #[inline(always)]
    fn sample_queue(&mut self, d: DirIdx) {
        if let Some(qs) = &mut self.rec.queues {
            let q = &self.dirs[d as usize].queue;
            qs.push(self.now, d, q.len(), q.bytes());
        }
    }
}
#[cfg(test)]
mod cross_tests;
#[cfg(test)]
mod function_tests;
#[cfg(test)]
mod link_layer_tests;
#[cfg(test)]
mod mip_tests;
#[cfg(test)]
mod nemo_tests;
#[cfg(test)]
mod probe_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tfrc_tests;
