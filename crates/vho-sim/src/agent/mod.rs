//! Agents: the ends of a flow, as sans-IO state machines the world hosts (the simulator's
//! clock drives them; nothing here reads a clock or knows a link).
//!
//! An agent is one end of one flow, at one node: it is handed the packets that reach it
//! ([`Agent::handle_packet`]) and the expiry of its timer ([`Agent::handle_timeout`]), and
//! hands back what it sends ([`Agent::poll_transmit`]) and when it next wants to be woken
//! ([`Agent::poll_timeout`]). The world hosts agents as it hosts node functions
//! (`net::function::AnyFunction`) and link layers (`link::layer`): enum dispatch, one variant a
//! kind ([`AnyAgent`]; per packet, one `match` on the flow's [`Ends`] an event, see [`Kind`]),
//! and the world's one send, deliver and drop path for all of them. What the world keeps
//! of a flow whatever its kind (completion, the first data over a new link, goodput windows,
//! drops by link and cause) is its ledger, not an agent's.
//!
//! The kinds, each in its own file:
//! - [`tcp`]: a TCP sender ([`TcpSource`]) and receiver ([`TcpSink`]), `crate::tcp`'s endpoints
//!   with the flow's ground truth (`record::truth`) and series;
//! - [`tfrc`]: a TFRC sender and receiver (RFC 5348), `crate::tfrc`'s;
//! - [`pareto`]: ns-2's Pareto on/off source of cross traffic, and [`sink`]: a counting sink;
//! - [`cbr`]: a constant-bit-rate UDP source and a receiver measuring one-way delay and loss;
//! - [`mptcp`]: a Multipath TCP connection at each end (RFC 8684, as Linux runs it), owning a
//!   TCP sender or receiver per subflow.
//!
//! Besides what a real end sees, an agent is told its own packets' fates ([`Agent::fate`]:
//! delivered, dropped, copied or absorbed in the network): ground truth for the record and for
//! an oracle, never for the protocol it runs (the oracle sender is the one exception, by
//! design: `tcp::oracle`).

pub mod cbr;
pub mod mptcp;
pub mod pareto;
pub mod sink;
pub mod tcp;
pub mod tfrc;

use crate::packet::Packet;
use crate::record::series::{ProbeSeries, RowSink, SeriesId, TcpSeries, TfrcSeries};
use crate::spec::{FlowKind, FlowSpec, Spec};
use crate::tcp::segment::HandoverNotice;
use crate::tcp::{Segment, TxKind};
use crate::time::Time;
use serde::Serialize;

pub use cbr::{CbrArrival, CbrSink, CbrSource, CbrSummary};
pub use mptcp::{MptcpSink, MptcpSource, MptcpSummary};
pub use pareto::{CrossBins, CrossSummary, ParetoSource, CROSS_INTERVAL};
pub use sink::Sink;
pub use tcp::{TcpSink, TcpSource};
pub use tfrc::{TfrcSink, TfrcSource, TfrcSummary};

/// What an agent's datagram carries besides what `Packet` says of it, kept beside the packet
/// slab by the packet's slot. A TCP segment rides in `Packet::seg` instead: it is read on
/// every hop of the hottest path, where a second array cost a cache line per packet.
#[derive(Clone, Copy, Debug, Default)]
pub enum Payload {
    /// Nothing beyond the size and addresses (cross traffic, or a TCP segment).
    #[default]
    None,
    /// A TFRC data or feedback header (RFC 5348 §3.2).
    Tfrc(crate::tfrc::TfrcHeader),
    /// A CBR datagram's sequence number (its send time is `Packet::sent_at`).
    Cbr(cbr::CbrHeader),
    /// The MPTCP option of a subflow's segment (RFC 8684 §3), beside the segment that rides
    /// in `Packet::seg` (`Agent::tcp_payload`).
    Mptcp(mptcp::MptcpOption),
}

/// A packet an agent sends: the world wraps it at the agent's node and sends it on its way.
#[derive(Clone, Copy, Debug)]
pub struct Transmit {
    pub body: Body,
    /// Bytes on the wire, IP header included.
    pub wire_bytes: u32,
    /// Why it was sent, and which copy of its bytes it is (ground truth, `record::truth`).
    pub kind: TxKind,
    pub copy: u16,
}

/// What a packet an agent sends is: a TCP segment (carried in `Packet::seg`) or a datagram
/// with its payload (kept beside the slab).
#[derive(Clone, Copy, Debug)]
pub enum Body {
    Tcp(Segment),
    Datagram(Payload),
}

impl Transmit {
    /// A datagram of `wire_bytes` carrying `payload`.
    pub fn datagram(payload: Payload, wire_bytes: u32) -> Self {
        Transmit {
            body: Body::Datagram(payload),
            wire_bytes,
            kind: TxKind::default(),
            copy: 0,
        }
    }
}

/// What became of a packet an agent sent (ground truth, told to the agent that sent it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// It reached its destination agent.
    Delivered,
    /// The network dropped it.
    Dropped,
    /// The network made a second copy of it (a home agent's bicast).
    Copied,
    /// A combiner discarded one of its copies, the other going on (no loss).
    Absorbed,
}

/// What the sending agent makes of a fate.
#[derive(Clone, Copy, Debug, Default)]
pub struct FateOut {
    /// A data packet dropped: its bytes' offset from the flow's first data byte and its
    /// length, for the drop series.
    pub drop_ref: Option<(u32, u32)>,
    /// A sized source has sent all it will and none of it is left in the network.
    pub source_finished: bool,
}

/// What a packet's arrival gave its agent, for the flow's ledger.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arrival {
    /// A data packet: the bytes it brought (for the adaptation time and the first data over
    /// a new link); `None` for a packet without data (an ACK, a feedback report).
    pub data: Option<u64>,
    /// The bytes delivered in order to the application so far, after this packet (`None` at
    /// a sending end).
    pub delivered: Option<u64>,
    /// The agent may have something to send now (a sink that only counts has not).
    pub respond: bool,
}

/// A handover, as the mobile's handover manager announces it (`handover.notify`).
#[derive(Clone, Copy, Debug)]
pub struct HandoverNote {
    pub notice: HandoverNotice,
    /// The interfaces' nominal rates, bit/s: the old one's and the new one's.
    pub from_bps: u64,
    pub to_bps: u64,
    /// This agent runs at the mobile.
    pub here: bool,
    /// Either end of the agent's flow runs at the mobile.
    pub flow_at_mobile: bool,
}

/// The series a flow's agents recorded, handed over at the end of the run (`World::finish`
/// merges its two ends' into one, [`AgentSeries::merge`]).
#[derive(Default)]
pub struct AgentSeries {
    /// A TCP sender's state over time.
    pub tcp: Option<TcpSeries>,
    /// A TFRC sender's state over time.
    pub tfrc: Option<TfrcSeries>,
    /// TCP Probe's or TFRC Probe's capacity estimate over time.
    pub probe: Option<ProbeSeries>,
    /// Cross traffic's bytes per [`CROSS_INTERVAL`] (always recorded: aggregates).
    pub cross: Option<CrossBins>,
    /// A CBR receiver's datagrams as they arrived.
    pub cbr: Option<Vec<cbr::CbrArrival>>,
    /// An MPTCP connection's subflows' state over time.
    pub mptcp: Option<Vec<mptcp::MptcpSample>>,
    /// Halves of `cross` until merged: bytes sent per interval (the source's), delivered
    /// (the sink's).
    pub(crate) cross_sent: Option<Vec<u64>>,
    pub(crate) cross_delivered: Option<Vec<u64>>,
}

impl AgentSeries {
    /// One flow's series from its source's (`a`) and its sink's (`b`).
    pub fn merge(a: AgentSeries, b: AgentSeries) -> AgentSeries {
        let cross = match (a.cross_sent, b.cross_delivered) {
            (Some(sent), Some(delivered)) => Some(CrossBins {
                interval: CROSS_INTERVAL,
                sent,
                delivered,
            }),
            _ => a.cross.or(b.cross),
        };
        AgentSeries {
            tcp: a.tcp.or(b.tcp),
            tfrc: a.tfrc.or(b.tfrc),
            probe: a.probe.or(b.probe),
            cross,
            cbr: a.cbr.or(b.cbr),
            mptcp: a.mptcp.or(b.mptcp),
            cross_sent: None,
            cross_delivered: None,
        }
    }
}

/// One end of a flow.
#[allow(clippy::large_enum_variant)] // One per flow end, held in place; boxing costs a load.
pub enum AnyAgent {
    TcpSource(TcpSource),
    TcpSink(TcpSink),
    TfrcSource(TfrcSource),
    TfrcSink(TfrcSink),
    Pareto(ParetoSource),
    Sink(Sink),
    CbrSource(CbrSource),
    CbrSink(CbrSink),
    MptcpSource(MptcpSource),
    MptcpSink(MptcpSink),
}

macro_rules! each {
    ($self:expr, $a:ident => $e:expr) => {
        match $self {
            AnyAgent::TcpSource($a) => $e,
            AnyAgent::TcpSink($a) => $e,
            AnyAgent::TfrcSource($a) => $e,
            AnyAgent::TfrcSink($a) => $e,
            AnyAgent::Pareto($a) => $e,
            AnyAgent::Sink($a) => $e,
            AnyAgent::CbrSource($a) => $e,
            AnyAgent::CbrSink($a) => $e,
            AnyAgent::MptcpSource($a) => $e,
            AnyAgent::MptcpSink($a) => $e,
        }
    };
}

/// What every kind answers; `AnyAgent` dispatches to it, or the world's per-packet paths call
/// it for the kind `with_ends!` named ([`Kind`]).
pub trait Agent {
    /// The flow starts (before its first `poll_transmit`).
    fn start(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit>;
    fn poll_timeout(&self) -> Option<Time>;
    /// The world's wake-up: the agent acts on whatever timer is due (a wake-up may be early).
    fn handle_timeout(&mut self, now: Time);
    fn handle_packet(&mut self, now: Time, pkt: &Packet, payload: &Payload) -> Arrival;
    /// A packet this agent sent met `fate` in the network.
    fn fate(&mut self, _now: Time, _pkt: &Packet, _payload: &Payload, _fate: Fate) -> FateOut {
        FateOut::default()
    }
    /// A handover notification; whether the agent may have something to send now.
    fn notify_handover(&mut self, _now: Time, _h: &HandoverNote) -> bool {
        false
    }
    /// A multipath mobile's interface `iface` (an index into its `interfaces`) came up and
    /// its address was added (`World::multihome`); `here`: this agent runs at the mobile.
    /// Whether the agent may have something to send now.
    fn address_added(&mut self, _now: Time, _iface: u8, _here: bool) -> bool {
        false
    }
    /// For a kind whose TCP segments carry something beside them (`Kind::TCP_PAYLOAD`: an
    /// MPTCP subflow's option), asked right after each `poll_transmit`: what rides beside the
    /// segment just given, and the mobile's access link it must cross plus one (a subflow's
    /// interface, a multipath host's per-interface address: `World::multihome`; 0: routed).
    /// Kept out of `Transmit`, whose every copy on TCP's hot path it would have grown.
    fn tcp_payload(&mut self) -> Option<(Payload, u32)> {
        None
    }
    /// The source of the flow has finished (`FateOut::source_finished`).
    fn peer_finished(&mut self) {}
    /// Whether this end has nothing left to do once its flow's data are delivered (a TCP
    /// sender: its data acknowledged).
    fn is_complete(&self) -> bool {
        true
    }
    /// Records its state now (after it sent what it would), when recording series.
    fn sample(&mut self, _now: Time) {}
    /// Whether its packets go into captures (cross traffic's only with `record.pcap_cross`).
    fn captured(&self) -> bool {
        true
    }
    fn take_series(&mut self) -> AgentSeries {
        AgentSeries::default()
    }
    /// Gives each series it records a sink of the driver's (`world::spill`), flow `f`'s.
    fn spill_series(&mut self, _f: usize, _open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>) {}
}

impl AnyAgent {
    #[inline(always)]
    pub fn start(&mut self, now: Time) {
        each!(self, a => a.start(now))
    }
    pub fn notify_handover(&mut self, now: Time, h: &HandoverNote) -> bool {
        each!(self, a => a.notify_handover(now, h))
    }
    pub fn address_added(&mut self, now: Time, iface: u8, here: bool) -> bool {
        each!(self, a => a.address_added(now, iface, here))
    }
    pub fn peer_finished(&mut self) {
        each!(self, a => a.peer_finished())
    }
    #[inline(always)]
    pub fn is_complete(&self) -> bool {
        each!(self, a => a.is_complete())
    }
    #[inline(always)]
    pub fn captured(&self) -> bool {
        each!(self, a => a.captured())
    }
    pub fn take_series(&mut self) -> AgentSeries {
        each!(self, a => a.take_series())
    }
    pub fn spill_series(&mut self, f: usize, open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>) {
        each!(self, a => a.spill_series(f, open))
    }

    /// The TCP sender, for what only the oracle and the record read of it.
    pub fn as_tcp_source(&self) -> Option<&TcpSource> {
        match self {
            AnyAgent::TcpSource(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_tcp_source_mut(&mut self) -> Option<&mut TcpSource> {
        match self {
            AnyAgent::TcpSource(s) => Some(s),
            _ => None,
        }
    }
}

/// A kind of agent as [`AnyAgent`] holds it. The world's busy paths (a wake-up, a delivery, a
/// drop) match once on the flow's [`Ends`] and run code monomorphised for the kinds
/// (`with_ends!`), rather than dispatching on every call: a wake-up's poll loop made four
/// dispatches, and each moved its answer through the `match` (callgrind, run_timed:
/// 11.8 % more instructions in the 20 MB cell, 16.7 % in Chen et al.'s world).
pub trait Kind: Agent {
    /// Its TCP segments carry something beside them in the payload table (an MPTCP
    /// subflow's option): the delivery path reads it only for such kinds.
    const TCP_PAYLOAD: bool = false;
    /// The agent of this kind that `a` holds (`a` holds one: its flow's `Ends` says so).
    fn of(a: &mut AnyAgent) -> &mut Self;
}

macro_rules! kinds {
    ($($variant:ident($t:ty)),* $(,)?) => {
        $(impl Kind for $t {
            #[inline(always)]
            fn of(a: &mut AnyAgent) -> &mut Self {
                match a {
                    AnyAgent::$variant(x) => x,
                    _ => unreachable!("invariant: a flow's ends are the kinds its `Ends` names"),
                }
            }
        })*
    };
}

kinds!(
    TcpSource(TcpSource),
    TcpSink(TcpSink),
    TfrcSource(TfrcSource),
    TfrcSink(TfrcSink),
    Pareto(ParetoSource),
    Sink(Sink),
    CbrSource(CbrSource),
    CbrSink(CbrSink),
);

macro_rules! kinds_with_tcp_payload {
    ($($variant:ident($t:ty)),* $(,)?) => {
        $(impl Kind for $t {
            const TCP_PAYLOAD: bool = true;
            #[inline(always)]
            fn of(a: &mut AnyAgent) -> &mut Self {
                match a {
                    AnyAgent::$variant(x) => x,
                    _ => unreachable!("invariant: a flow's ends are the kinds its `Ends` names"),
                }
            }
        })*
    };
}

kinds_with_tcp_payload!(MptcpSource(MptcpSource), MptcpSink(MptcpSink));

/// The kinds of a flow's two ends, as [`build`] pairs them: what `with_ends!` matches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ends {
    Tcp,
    Tfrc,
    Pareto,
    Cbr,
    Mptcp,
}

impl Ends {
    pub fn of(kind: &FlowKind) -> Ends {
        match kind {
            FlowKind::Tcp => Ends::Tcp,
            FlowKind::Tfrc(_) => Ends::Tfrc,
            FlowKind::Pareto(_) => Ends::Pareto,
            FlowKind::Cbr(_) => Ends::Cbr,
            FlowKind::Mptcp(_) => Ends::Mptcp,
        }
    }
}

/// Evaluates `$e` with the type names `$S` and `$R` standing for the [`Kind`]s of a flow's
/// source and sink, as `$ends` (an [`Ends`]) names them: one `match`, then code for the kinds.
macro_rules! with_ends {
    ($ends:expr, $S:ident, $R:ident => $e:expr) => {{
        #[allow(unused_imports)]
        use $crate::agent::{
            Agent as _, CbrSink, CbrSource, Ends, MptcpSink, MptcpSource, ParetoSource, Sink,
            TcpSink, TcpSource, TfrcSink, TfrcSource,
        };
        match $ends {
            Ends::Tcp => {
                #[allow(dead_code)]
                type $S = TcpSource;
                #[allow(dead_code)]
                type $R = TcpSink;
                $e
            }
            Ends::Tfrc => {
                #[allow(dead_code)]
                type $S = TfrcSource;
                #[allow(dead_code)]
                type $R = TfrcSink;
                $e
            }
            Ends::Pareto => {
                #[allow(dead_code)]
                type $S = ParetoSource;
                #[allow(dead_code)]
                type $R = Sink;
                $e
            }
            Ends::Cbr => {
                #[allow(dead_code)]
                type $S = CbrSource;
                #[allow(dead_code)]
                type $R = CbrSink;
                $e
            }
            Ends::Mptcp => {
                #[allow(dead_code)]
                type $S = MptcpSource;
                #[allow(dead_code)]
                type $R = MptcpSink;
                $e
            }
        }
    }};
}
pub(crate) use with_ends;

/// The two ends of flow `f` of `spec`: its source at `src`, its sink at `dst`.
pub fn build(spec: &Spec, f: usize) -> [AnyAgent; 2] {
    let fs: &FlowSpec = &spec.flows[f];
    match &fs.kind {
        FlowKind::Tcp => {
            let (s, r) = tcp::build(spec, f);
            [AnyAgent::TcpSource(s), AnyAgent::TcpSink(r)]
        }
        FlowKind::Tfrc(cfg) => [
            AnyAgent::TfrcSource(TfrcSource::new(cfg, fs, spec.record.series)),
            AnyAgent::TfrcSink(TfrcSink::new(cfg, fs, spec.record.series)),
        ],
        FlowKind::Pareto(cfg) => [
            AnyAgent::Pareto(ParetoSource::new(spec, fs, *cfg)),
            AnyAgent::Sink(Sink::new(spec.record.pcap_cross)),
        ],
        FlowKind::Cbr(cfg) => [
            AnyAgent::CbrSource(CbrSource::new(*cfg, fs)),
            AnyAgent::CbrSink(CbrSink::new(*cfg, spec.record.series)),
        ],
        FlowKind::Mptcp(cfg) => {
            let (s, r) = mptcp::build(spec, f, *cfg);
            [AnyAgent::MptcpSource(s), AnyAgent::MptcpSink(r)]
        }
    }
}

/// What a flow's summary says of a kind other than TCP: its two ends read together, written
/// under the kind's own key (`flows[].tfrc`, `flows[].cross`, `flows[].cbr`). A TCP flow's
/// record is [`tcp::TcpFlowSummary`], whose keys `summary.json` has always had in place.
#[derive(Clone, Debug, Serialize)]
pub enum KindRecord {
    #[serde(rename = "tfrc")]
    Tfrc(TfrcSummary),
    #[serde(rename = "cross")]
    Cross(CrossSummary),
    #[serde(rename = "cbr")]
    Cbr(CbrSummary),
    #[serde(rename = "mptcp")]
    Mptcp(MptcpSummary),
}

/// A flow's kind's record, run from `start` to `now`; `dropped`, its packets dropped in the
/// network (every cause, every link); `handovers`, the instants of those that happened.
pub struct Summarised {
    pub tcp: Option<tcp::TcpFlowSummary>,
    pub record: Option<KindRecord>,
    pub probe: Option<crate::probe::summary::ProbeSummary>,
}

pub fn summarise(
    ends: &[AnyAgent; 2],
    fs: &FlowSpec,
    now: Time,
    dropped: u64,
    handovers: &[Time],
) -> Summarised {
    use AnyAgent as A;
    let (tcp, record, probe) = match ends {
        [A::TcpSource(s), A::TcpSink(r)] => (
            Some(tcp::summary(s, r, fs)),
            None,
            fs.probe.enabled.then(|| s.probe_summary(handovers)),
        ),
        [A::TfrcSource(s), A::TfrcSink(r)] => (
            None,
            Some(KindRecord::Tfrc(tfrc::summary(s, r, fs.start, now))),
            fs.probe
                .enabled
                .then(|| tfrc::probe_summary(s, r, handovers)),
        ),
        [A::Pareto(s), A::Sink(r)] => (
            None,
            Some(KindRecord::Cross(pareto::summary(
                s, r, fs.start, now, dropped,
            ))),
            None,
        ),
        [A::CbrSource(s), A::CbrSink(r)] => (None, Some(KindRecord::Cbr(cbr::summary(s, r))), None),
        [A::MptcpSource(s), A::MptcpSink(r)] => (
            None,
            Some(KindRecord::Mptcp(mptcp::summary(s, r, handovers, now))),
            None,
        ),
        _ => unreachable!("invariant: `build` pairs each source with its own kind's sink"),
    };
    Summarised { tcp, record, probe }
}

#[cfg(test)]
mod cbr_tests;
#[cfg(test)]
mod mptcp_tests;
