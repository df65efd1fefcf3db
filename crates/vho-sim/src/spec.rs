//! The resolved scenario: what the world is built from.
//!
//! `scenario.rs` turns a TOML file into a `Spec`, resolving presets and units and validating
//! every value with its location; the world builder (`world.rs`) trusts a `Spec` and only
//! checks invariants. Names are kept for recording; references between parts are dense
//! indices.

use crate::tcp::TcpConfig;
use crate::time::{Dur, Time};

pub use crate::config::{LinkIdx, NodeIdx};

#[derive(Clone, Debug)]
pub struct Spec {
    pub name: String,
    /// Seed of the run: every random draw derives from it.
    pub seed: u64,
    /// Stop the run at this simulated time even if flows are unfinished.
    pub stop_at: Time,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub mobiles: Vec<MobileSpec>,
    pub handovers: Vec<HandoverSpec>,
    /// Link parameters changing at scheduled times (`[[schedule]]`), in file order.
    pub schedules: Vec<ScheduleSpec>,
    pub flows: Vec<FlowSpec>,
    /// Functions on nodes' forwarding paths (`[[node_function]]`), in the order each node
    /// runs them.
    pub functions: Vec<FunctionSpec>,
    /// Mobile IPv6 (`[mipv6]`): handovers as signalling packets (`crate::mip`); `None`, a
    /// handover is an instant plus a fixed delay.
    pub mipv6: Option<crate::config::mip::MipSpec>,
    /// NEMO soft handover (`[nemo]`, with `[mipv6]`): bicasting at the home agent, combining
    /// at the mobile router (`crate::mip::bicast`, `crate::net::nemo_combiner`).
    pub nemo: Option<crate::config::mip::NemoSpec>,
    pub record: RecordSpec,
}

/// A node function (`crate::net::function`) and the node it runs at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FunctionSpec {
    pub node: NodeIdx,
    pub kind: FunctionKind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FunctionKind {
    /// Rewrites the advertised window to the access link's bandwidth-delay product
    /// (`net::window_clamp`; the remedy `cwnd-clamp`).
    WindowClamp,
    /// An IP-layer queue keeping the access links' device queues short
    /// (`net::flow_control`; the remedy `link-flow-control`).
    LinkFlowControl,
    /// The home agent's IP-in-IP tunnel to the mobile: 20 bytes more per packet on the access
    /// link (`net::tunnel`).
    IpInIp,
}

impl FunctionKind {
    pub const ALL: [FunctionKind; 3] = [
        FunctionKind::WindowClamp,
        FunctionKind::LinkFlowControl,
        FunctionKind::IpInIp,
    ];
    pub fn name(self) -> &'static str {
        match self {
            FunctionKind::WindowClamp => "window-clamp",
            FunctionKind::LinkFlowControl => "link-flow-control",
            FunctionKind::IpInIp => "ip-in-ip",
        }
    }
    pub fn from_name(s: &str) -> Option<FunctionKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NodeKind {
    /// An end host with TCP endpoints (correspondent host, cross-traffic host).
    Host,
    /// A router (or the home agent) that forwards.
    Router,
    /// A mobile host: an end host with several access links, one active at a time.
    Mobile,
}

#[derive(Clone, Debug)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// What a queue's packet limit counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum QueueModel {
    /// The limit counts packets waiting; the one being serialised has left the queue (Linux
    /// `pfifo`: `limit` packets in the qdisc).
    #[default]
    DropTail,
    /// ns-2.35 `DropTail::enque` (queue/drop-tail.cc): an arriving packet is dropped when
    /// `length + 1 >= qlim_` (packets) or `bytes + size >= qlim_ * mean_pktsize_` (bytes), so
    /// at most limit - 1 packets wait while one is on the air.
    Ns2DropTail,
    /// ns-2's DropTail followed by its Delayer (ICSI, `delayer.cc`), as a vhodelay run inserts
    /// it ("insert-delayer", Daniel & Kojo §5.2): the Delayer holds one packet of its own
    /// between queue and link (`pkt_`), so the ns-2 rule applies to the queue without its
    /// head, one packet more in all.
    Ns2DropTailDelayer,
    /// Random Early Detection as ns-2.35's `Queue/RED` (`link::red`), parameters in
    /// [`DirSpec::red`]; the hard limit is red.cc's: an arrival is dropped when the packets
    /// (or bytes) already waiting reach the limit.
    Red,
}

/// RED's parameters a scenario may set (`queue_model = "red"`); `None` takes ns-2.35's
/// automatic or default value (`link::red::RedParams::resolve`).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct RedSpec {
    /// th_min in packets of 500 B (`thresh_`; automatic: max(5, targetdelay · ptc / 2)).
    pub min_thresh: Option<f64>,
    /// th_max in packets of 500 B (`maxthresh_`; automatic: 3 · th_min).
    pub max_thresh: Option<f64>,
    /// `1/linterm_` (0.1).
    pub max_p: Option<f64>,
    /// `q_weight_` (automatic: 1 − exp(−1/(10 · RTT · ptc))).
    pub q_weight: Option<f64>,
    /// `gentle_` (true).
    pub gentle: Option<bool>,
}

/// How many packets a link direction's queue holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
    /// Rate × round-trip propagation delay of the path through this link (Daniel & Kojo
    /// Table 1: "Router queue size Bandwidth*RTT"), converted to packets of `mtu_bytes`,
    /// rounded up, at least one packet.
    Bdp {
        mtu_bytes: u32,
    },
}

#[derive(Clone, PartialEq, Debug)]
pub enum LossSpec {
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli {
        p: f64,
    },
    /// The packets with these indices (0 for the first packet the loss model sees, sorted,
    /// distinct) are lost: ns-2's `ErrorModel/List` with `unit pkt` (errmodel.cc
    /// ListErrorModel::corrupt, `droplist`), for patterns fixed in advance.
    List(std::sync::Arc<[u64]>),
}

/// Where on a link direction the loss model takes its packets.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum LossAt {
    /// After serialisation: a lost packet used its time on the air (a frame corrupted on a
    /// radio link), as ns-2's `$ns link-lossmodel`, whose error module follows the link's
    /// delay element (ns-link.tcl `insert-linkloss`).
    #[default]
    Air,
    /// On entry, before the queue: a lost packet takes neither a queue slot nor time on the
    /// air, as ns-2's `$ns lossmodel`, whose error module is put at the link's head
    /// (ns-link.tcl `errormodule`: `add-to-head`; errmodel.cc drops before the queue sees it).
    Entry,
}

/// One direction of a link.
#[derive(Clone, PartialEq, Debug)]
pub struct DirSpec {
    pub rate_bps: u64,
    pub delay: Dur,
    pub queue: QueueLimit,
    pub queue_model: QueueModel,
    /// RED's parameters (read with `QueueModel::Red` only).
    pub red: RedSpec,
    pub loss: LossSpec,
    pub loss_at: LossAt,
    /// A seeded extra delay per packet, in order (`link::jitter`); `None`: the delay is fixed.
    pub jitter: Option<Jitter>,
    /// What sits between the queue and the far node (`link::layer`): the serialiser and the
    /// pipe (`Plain`), or a link layer whose own timing replaces them.
    pub link_layer: LinkLayerSpec,
}

/// A direction's link layer and its parameters (`link::layer`).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub enum LinkLayerSpec {
    /// The serialiser at `rate_bps` and the pipe of `delay`.
    #[default]
    Plain,
    /// A 3G bearer in RLC Acknowledged Mode (`link::rlc_am`).
    RlcAm(crate::config::link::RlcAmConfig),
    /// An 802.11b station under DCF (`link::dcf`).
    Dcf(crate::config::link::DcfConfig),
}

impl LinkLayerSpec {
    pub fn name(&self) -> &'static str {
        match self {
            LinkLayerSpec::Plain => "plain",
            LinkLayerSpec::RlcAm(_) => "rlc-am",
            LinkLayerSpec::Dcf(_) => "dcf",
        }
    }
}

/// The extra delay's mean and standard deviation (a truncated lognormal, `link::jitter`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Jitter {
    pub mean: Dur,
    pub sd: Dur,
}

#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    /// The preset it was built from, if any (for the record).
    pub preset: Option<String>,
    pub a: NodeIdx,
    pub b: NodeIdx,
    /// Direction a → b.
    pub ab: DirSpec,
    /// Direction b → a.
    pub ba: DirSpec,
}

#[derive(Clone, Debug)]
pub struct MobileSpec {
    pub node: NodeIdx,
    /// Its access links, each with the mobile node at one end.
    pub interfaces: Vec<LinkIdx>,
    /// The link in use at time zero.
    pub initial: LinkIdx,
}

/// What happens to packets still queued on the old link at the handover (Daniel & Kojo §5.1).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum HandoverKind {
    /// Make-before-break with two interfaces: queued packets drain over the old link at the
    /// old link's pace; new packets take the new link.
    SoftDrainOld,
    /// ns-2's vhoideal soft handover: one link whose parameters change. Queued packets move to
    /// the new link and drain at its pace; with `shrink`, those beyond the new queue's limit
    /// are dropped (ns-2's `shrink_queue`).
    SoftReconfigure { shrink: bool },
    /// Break-before-make: this fraction (0..=1) of the queued packets is lost, the rest move
    /// to the new link (ns-2's vhoideal hard handover with fraction 1).
    Hard { loss_fraction: f64 },
}

/// What a hard handover does with the packets on the old link's air and in its pipe (issue 33
/// point 4).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum InFlight {
    /// Lost: the old interface is down, so the packet being serialised and those propagating
    /// never arrive (Cottingham & Vidales §6.1-6.2: the WLAN is lost; any interface going
    /// down), booked as [`crate::link::DropCause::InFlight`]. The default.
    #[default]
    Lost,
    /// Delivered at the instants they were due, as if the interface stayed up for them:
    /// ns-2's vhoideal hard handover changes one link's parameters, and ns-2's LinkDelay
    /// scheduled each packet's arrival when it left the queue (Daniel & Kojo's study, which
    /// reproduces ns-2.35, sets it). What a soft handover always does.
    Delivered,
}

/// What a soft handover does with the packets waiting in the old link's queue (the remedy
/// `flush-on-handover`, thesis §7.2.3 and §8.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Flush {
    /// They drain over the old link (a soft handover's own behaviour).
    #[default]
    Off,
    /// They move, in order, to the new link's queue: nothing is lost.
    Move,
    /// They are discarded: the thesis's proposal ("the sender discards the queued packets in
    /// its buffer"), which TCP then retransmits.
    Discard,
}

#[derive(Clone, Debug)]
pub struct HandoverSpec {
    pub mobile: usize,
    pub from: LinkIdx,
    pub to: LinkIdx,
    /// Earliest instant.
    pub at: Time,
    /// The instant is drawn uniformly in [at, at + window) from the run's seed (Daniel & Kojo
    /// §5: "uniformly distributed in a 1 second interval"); zero means exactly `at`.
    pub window: Dur,
    pub kind: HandoverKind,
    /// Nothing crosses the access link in either direction for this long after the instant
    /// (Daniel & Kojo §5.2 vhodelay); then the new link carries traffic.
    pub delay: Dur,
    /// With a soft handover: what becomes of the old link's waiting packets.
    pub flush: Flush,
    /// With a hard handover: what becomes of the packets on the old link's air and in its
    /// pipe (soft handovers deliver them whatever this says).
    pub in_flight: InFlight,
    /// When the mobile's handover manager announces the handover to its TCP endpoints, from
    /// the instant (negative: before it); `None`: it does not (issue 19).
    pub notify: Option<i64>,
    /// With a soft handover: the mobile keeps sending over the old link this long after the
    /// instant (MosquitoNet's mobile takes the new interface for outgoing packets once its
    /// registration is complete, thesis §6 l.1307-1313); zero moves both directions at once.
    pub uplink_delay: Dur,
}

/// A link's directions, parameters or state changing in place at `at` (`[[schedule]]`,
/// issue 21 point 5; the BLER/BER ramps of Naoe et al. Fig. 5, issue 22): queues are kept.
#[derive(Clone, PartialEq, Debug)]
pub struct ScheduleSpec {
    pub link: LinkIdx,
    /// Which of its directions: a → b, b → a.
    pub ab: bool,
    pub ba: bool,
    pub at: Time,
    /// With a ramp: the instant it reaches its last value; with a state: the instant the
    /// direction is back up.
    pub until: Option<Time>,
    /// The interval of a rate or delay ramp's steps (`link::change`).
    pub step: Dur,
    pub rate_bps: Option<Level<u64>>,
    pub delay: Option<Level<Dur>>,
    /// A loss probability per packet (Bernoulli), where the direction's `loss_at` puts it.
    pub loss: Option<Level<f64>>,
    pub state: Option<crate::config::link::LinkState>,
    /// A Mahimahi packet-delivery trace (its lines' millisecond offsets, compacted)
    /// serialising the direction from `at` on, instead of a rate (`link::trace`).
    pub trace: Option<TraceSpec>,
    /// The block error rate of the direction's RLC-AM bearer (`link::rlc_am`), in steps of
    /// `step` along a ramp.
    pub bler: Option<Level<f64>>,
    /// The bit error rate of the direction's DCF station (`link::dcf`), in steps likewise.
    pub ber: Option<Level<f64>>,
}

/// A schedule's delivery trace and, for a `trace_file`, the file it was read from (written
/// into the resolved scenario with its SHA-256 instead of the trace itself). Its `Debug` form,
/// which the scenario's hash is of, is the trace's lines only (`[1, 2, 2]`, as when the spec
/// held them as a list): the hash does not depend on where the file is, and is what it was.
#[derive(Clone, PartialEq)]
pub struct TraceSpec {
    pub opportunities: crate::config::link::Opportunities,
    pub source: Option<TraceSource>,
}

impl std::fmt::Debug for TraceSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.opportunities.fmt(f)
    }
}

/// Where a schedule's trace was read: the trace file's absolute path and the SHA-256 of its
/// bytes (`scenario.resolved.toml` names the file and its digest, which a re-run checks,
/// instead of inlining millions of lines past the scenario size limit). Not part of the
/// scenario's hash (`TraceSpec`'s `Debug` form).
#[derive(Clone, PartialEq)]
pub struct TraceSource {
    pub path: String,
    pub sha256: String,
}

impl std::fmt::Debug for TraceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TraceSource")
    }
}

/// A scheduled value: set at `at`, or ramped linearly from the first to the second between
/// `at` and `until`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Level<T> {
    To(T),
    Ramp(T, T),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Direction {
    /// Towards the mobile host (download).
    Down,
    /// From the mobile host (upload).
    Up,
    /// Between two fixed hosts.
    Fixed,
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    /// The data sender.
    pub src: NodeIdx,
    /// The data receiver.
    pub dst: NodeIdx,
    /// Bytes to transfer; for a TFRC flow, the bytes its application offers (`u64::MAX`: a
    /// bulk source sending until the run stops, as ns-2's FTP over Agent/TFRC).
    pub bytes: u64,
    pub start: Time,
    /// TCP (the default) or TFRC.
    pub kind: FlowKind,
    /// The TCP of both ends (unused by a TFRC flow).
    pub tcp: TcpConfig,
    /// The remedies asked for this flow, by name (`crate::remedy`); already applied to the
    /// spec (its TCP settings, its mobile's handovers) when the spec is built.
    pub remedies: Vec<crate::config::Remedy>,
    /// TFRC Probe and its handoff notifications (`[flow.probe]`, the remedies `probe`, `ihn`,
    /// `ehn`, `fra`, `err`).
    pub probe: crate::probe::ProbeConfig,
}

/// What carries a flow's data (`[[flow]] kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum FlowKind {
    #[default]
    Tcp,
    /// TFRC (RFC 5348, `crate::tfrc`) with these parameters.
    Tfrc(crate::tfrc::TfrcConfig),
    /// Cross traffic: a Pareto on/off source (ns-2's `Application/Traffic/Pareto` over
    /// `Agent/UDP`, `crate::traffic::pareto`) sending datagrams until the run stops, recorded
    /// as aggregates (`agent::pareto`).
    Pareto(crate::traffic::pareto::ParetoConfig),
    /// A constant-bit-rate UDP stream whose receiver measures each datagram's one-way delay
    /// and loss (`agent::cbr`).
    Cbr(crate::traffic::cbr::CbrConfig),
    /// A Multipath TCP connection (RFC 8684) between a mobile host and another host, a
    /// subflow per interface (`agent::mptcp`); its subflows run the flow's `tcp`.
    Mptcp(crate::traffic::mptcp::MptcpConfig),
}

impl FlowKind {
    pub fn name(&self) -> &'static str {
        match self {
            FlowKind::Tcp => "tcp",
            FlowKind::Tfrc(_) => "tfrc",
            FlowKind::Pareto(_) => "pareto",
            FlowKind::Cbr(_) => "cbr",
            FlowKind::Mptcp(_) => "mptcp",
        }
    }
}

/// Whether packets for node `dst` reach it through mobile `mobile` (an index into
/// `Spec::mobiles`): the mobile itself, or a local fixed node of the mobile router's network.
pub fn reached_through(spec: &Spec, mobile: usize, dst: NodeIdx) -> bool {
    spec.mobiles[mobile].node == dst
        || spec
            .nemo
            .as_ref()
            .is_some_and(|n| n.router == mobile && n.network.contains(&dst))
}

#[derive(Clone, Debug)]
pub struct RecordSpec {
    /// Nodes at which every packet sent or received is written to a pcap.
    pub pcap_at: Vec<NodeIdx>,
    /// Record per-flow TCP state (cwnd, ssthresh, srtt, rttvar, rto, flight size) at every
    /// change, and each link queue's length at every change.
    pub series: bool,
    /// `[record] goodput_from`, `goodput_until`: each flow's goodput over this window (bytes
    /// delivered in order within it over its length), `window_goodput_bps` in summary.json
    /// (Naoe et al. §VI: "the average TCP goodput during the time between 5 to 15 seconds").
    pub goodput_window: Option<(crate::time::Time, crate::time::Time)>,
    /// With `series`: record the queues' lengths too. Off, a run with much cross traffic
    /// (Chen et al.'s 16 Pareto flows: a row per queue change, tens of millions) keeps only
    /// the senders' state, the drops and the probe's estimate.
    pub queues: bool,
    /// Write cross traffic (`[[flow]] kind = "pareto"`) to the captures at `pcap_at` too; off,
    /// it is recorded as aggregates only (`agent::pareto`).
    pub pcap_cross: bool,
    /// Bytes kept of each captured packet, headers first (tcpdump's `-s`; the pcap header's
    /// snap length): `record::pcap::SNAPLEN`, whole packets, unless the scenario cuts them.
    pub snaplen: u32,
}

impl Default for RecordSpec {
    fn default() -> Self {
        RecordSpec {
            pcap_at: Vec::new(),
            series: false,
            goodput_window: None,
            queues: false,
            pcap_cross: false,
            snaplen: crate::config::SNAPLEN,
        }
    }
}
