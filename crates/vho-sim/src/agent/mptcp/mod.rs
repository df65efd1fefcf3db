//! Multipath TCP (RFC 8684) as Linux upstream runs it (`net/mptcp/`), as two agents: the
//! connection at the data sender ([`MptcpSource`]) and at the data receiver ([`MptcpSink`]),
//! each owning one TCP endpoint per subflow (`crate::tcp`'s sender and receiver, unchanged:
//! a subflow is a TCP connection) and the connection-level state above them.
//!
//! - Subflows: the initial one over the mobile host's initial interface, its SYN carrying
//!   MP_CAPABLE (RFC 8684 §3.1); once it is established, one more per endpoint with the
//!   `subflow` (or `fullmesh`) flag, each SYN carrying MP_JOIN (§3.2) and the endpoint's
//!   backup bit, over that endpoint's interface (the world sends a subflow's packets across
//!   its interface's link, `Body::Subflow`). The path manager's limit on subflows
//!   (`ip mptcp limits subflow`) bounds them.
//! - Data: the scheduler hands each subflow one mapping (a segment's worth of data sequence
//!   space) when it has room; every data segment carries its DSS mapping, every ACK a DATA_ACK
//!   (§3.3). The receiver delivers by data sequence number whichever subflow brought the
//!   bytes (`option::Reassembly`).
//! - Scheduling: `sched::get_send` (Linux's `mptcp_subflow_get_send`).
//! - Reinjection: when the connection's retransmission timer expires with data unacknowledged
//!   at the data level, the head of it is resent on `sched::get_retrans`'s subflow (Linux's
//!   `__mptcp_retrans`); a subflow gone more than `stale_loss_cnt` periods without an ACK is stale and
//!   every unacknowledged byte is pushed again through the scheduler
//!   (`mptcp_pm_nl_subflow_chk_stale` → `__mptcp_retransmit_pending_data`).
//! - Path manager events: with `handover.notify`, the mobile's interface going down removes
//!   its address: its subflows close at both ends (REMOVE_ADDR, §3.4.2; pm_netlink.c
//!   `mptcp_pm_nl_rm_addr_or_subflow`) and their data is reinjected; its coming back re-adds
//!   the endpoint and a subflow is opened over it again (`mptcp_nl_add_subflow_or_signal_addr`).
//!   Without a notification, as in `vho emulate --multipath` where the devices stay up, only
//!   the stale rule and reinjection react. An interface a slow -> fast handover brings up
//!   (`handover::appearing`) is absent until then; its address added opens a subflow from it
//!   on a fully established connection (`mptcp_nl_add_subflow_or_signal_addr`, pm_kernel.c),
//!   or at full establishment if the path manager had work when the connection was created
//!   (`mptcp_pm_data_reset`'s `work_pending`), else never.
//! - ADD_ADDR (`announce`): an endpoint with `signal` has its address announced by the mobile
//!   and echoed by the correspondent, which, within `add_addr_accepted`, connects to it and
//!   is refused with a RST, as on Linux (nothing listens at the mobile's port there).
//!
//! Deviation: the model's TCP sender is the passive end, so a subflow's SYN always comes from
//! the data receiver; Linux's client (the mobile) sends it. For a download the two agree; for
//! an upload the correspondent host opens the subflows, the mobile asking for a re-created one
//! with ADD_ADDR (§3.4.1). The handshake takes the same round trip either way. When no subflow
//! is open to carry that ADD_ADDR (an upload whose every interface went), the mobile sends the
//! MP_JOIN SYN a Linux client would from the new address and the correspondent answers by
//! opening the subflow: one round trip more than Linux's join.
//! Deviation: in an upload the correspondent echoes the mobile's ADD_ADDR of a `signal`
//! endpoint but does not send the connection attempt Linux's would (refused by a RST there;
//! the outcome, no subflow, is the same).
//! Deviation: subflows do not share a connection-level send buffer; a subflow is handed data
//! only when it can send it at once (see `sched::SubView::room`).

mod announce;
pub mod lia;
pub mod olia;
mod option;
pub mod sched;
mod sink;
mod source;
mod summary;
pub mod wire;

pub use option::{
    AddrSignal, Handshake, MapTable, Mapping, MptcpOption, Reassembly, DATA_DSS_BYTES,
};
pub use summary::{summary, MptcpOutage, MptcpSample, MptcpSummary, SubflowSummary};

use super::{Body, Payload, Transmit};
use crate::config::link::LinkState;
use crate::rng::Rng;
use crate::spec::{FlowSpec, LinkIdx, Spec};
use crate::tcp::config::HeaderModel;
use crate::tcp::segment::Flags;
use crate::tcp::{SeqNum, TcpConfig, TcpReceiver, TcpSender};
use crate::time::Time;
use crate::traffic::mptcp::MptcpConfig;
use sched::StaleCheck;
use std::collections::VecDeque;

/// What both ends know of the connection: its mobile host's interfaces (as links, in the
/// mobile's order) and the path manager's endpoints on them.
#[derive(Clone, Debug)]
pub struct Paths {
    pub cfg: MptcpConfig,
    /// The mobile's interfaces' links, in its `interfaces` order.
    pub links: Vec<LinkIdx>,
    /// The initial interface (an index into `links`).
    pub initial: u8,
    /// The mobile runs the data sender (an upload).
    pub mobile_sends: bool,
    /// The interfaces' link names (for the record).
    pub names: Vec<String>,
    /// Interfaces (bit `i`: `links[i]`) whose address has not appeared yet: down until a
    /// handover brings them up (`handover::appearing`, `World::multihome`). The path manager
    /// opens no subflow over one until it is added.
    pub absent: u64,
}

impl Paths {
    /// Whether the path manager wants a subflow over `iface`: the initial interface, or one
    /// whose endpoint has `subflow` or `fullmesh`.
    fn wants_subflow(&self, iface: u8) -> bool {
        iface == self.initial || self.cfg.endpoint(iface).is_some_and(|e| e.opens_subflow())
    }

    fn backup(&self, iface: u8) -> bool {
        self.cfg.endpoint(iface).is_some_and(|e| e.backup())
    }
    fn is_absent(&self, iface: u8) -> bool {
        self.absent
            .checked_shr(u32::from(iface))
            .is_some_and(|b| b & 1 != 0)
    }
    fn added(&mut self, iface: u8) {
        self.absent &= !1u64.checked_shl(u32::from(iface)).unwrap_or(0);
    }
}

/// A subflow's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Open,
    /// Closed at this instant (its interface's address removed).
    Closed(Time),
}

/// The data sender's side of one subflow.
struct SendFlow {
    id: u8,
    iface: u8,
    backup: bool,
    /// The data receiver's port of the subflow (its own per subflow; the sender's is shared).
    port: u16,
    tcp: TcpSender,
    maps: MapTable,
    life: Life,
    opened: Time,
    stale: bool,
    check: StaleCheck,
    /// Data-level bytes it carried again for another subflow (reinjected onto it).
    reinjected: u64,
    last_row: Option<(u32, u64, u64, u64)>,
    /// OLIA's marks and accumulator (`congestion_control = "olia"`).
    olia: olia::State,
    /// The smoothed RTT its pacing rate was last computed from: Linux's `sk_pacing_rate` is
    /// set when the passive subflow is established, from the SYN-ACK's RTT
    /// (`tcp_synack_rtt_meas`, then `tcp_update_pacing_rate` in `tcp_rcv_state_process`), updated
    /// on ACKs only and kept through backoffs; while ns-2's estimator clears SRTT after its
    /// fourth (`rtt_backoff`) and the model's sender takes no RTT from the handshake, either of
    /// which would make a subflow holding data look like a fresh one to the scheduler.
    pace_srtt: crate::time::Dur,
    /// When it sent its SYN-ACK, until the handshake's RTT is taken from it.
    synack_at: Option<Time>,
    /// The connection has run its scheduler since the subflow was established, so the
    /// scheduler may pick it. Linux pushes data at a DATA_ACK (`ack_update_msk` →
    /// `__mptcp_check_push`), at the connection's timer (`__mptcp_retrans`) and at a
    /// subflow gone stale (`__mptcp_push_pending`); a passive MP_JOIN's establishment is none
    /// of these (its third ACK carries MP_JOIN, no DSS: `mptcp_finish_join` pushes nothing),
    /// so a joined subflow carries nothing until the next of them. The initial subflow's
    /// first data is the application's write.
    pushed: bool,
    /// The subflow data offset just past the last short segment (less than its MSS) it was
    /// handed: Minshall's `snd_sml` (`tcp_minshall_update`, net/ipv4/tcp_output.c).
    sml: u64,
}

/// The data receiver's side of one subflow.
struct RecvFlow {
    id: u8,
    iface: u8,
    backup: bool,
    port: u16,
    tcp: TcpReceiver,
    maps: MapTable,
    /// Subflow bytes already handed to the connection (in order at the subflow level).
    consumed: u64,
    /// It has sent its first segment after its SYN: a join's third ACK, which carries
    /// MP_JOIN and no DSS (`mptcp_established_options_mp`: the MP_JOIN ACK is sent alone).
    acked_handshake: bool,
    life: Life,
    data_bytes: u64,
    /// When data last arrived on it, and when it first did after each of the record's
    /// handover instants (filled at the end from `arrivals`).
    arrivals: Vec<Time>,
    /// When it sent its last SYN (a resend restarts it, as a timestamp echo would measure),
    /// and the handshake's RTT taken from it (the ADD_ADDR timer's RTO, `announce`).
    syn_at: Option<Time>,
    hs_rtt: Option<crate::time::Dur>,
}

/// The connection at the data sender.
pub struct MptcpSource {
    paths: Paths,
    tcp: TcpConfig,
    header_model: HeaderModel,
    seed: u64,
    name: String,
    port: u16,
    total: u64,
    snd_nxt: u64,
    snd_una: u64,
    subflows: Vec<SendFlow>,
    /// Data-level ranges waiting to be sent again (reinjection), oldest first.
    reinject: VecDeque<(u64, u64)>,
    rtx_timer: Option<Time>,
    /// Signals for the peer riding the next segments, one each (REMOVE_ADDR / ADD_ADDR).
    signals: VecDeque<AddrSignal>,
    /// An interface whose subflow the mobile asks for while no subflow is open to carry an
    /// ADD_ADDR: sent as the MP_JOIN SYN a Linux client sends from it (see the Deviation).
    join_request: Option<u8>,
    /// At the mobile (an upload): its `signal` endpoints' ADD_ADDRs (`announce`).
    announcer: announce::Announcer,
    /// A DSS came on the established initial subflow (the client's `check_fully_established`;
    /// read at the mobile only).
    fully_established: bool,
    /// At the correspondent (a download): the ADD_ADDRs acted on, the echo to send and the
    /// MP_JOIN SYN toward an announced address (`announce::Acceptor`).
    acceptor: announce::Acceptor,
    echo: VecDeque<u8>,
    connect_to: VecDeque<u8>,
    next: usize,
    bytes_reinjected: u64,
    reinjections: u64,
    stale_events: u64,
    series: Option<Vec<MptcpSample>>,
    /// The option of the segment just given (`Agent::tcp_payload`).
    beside: Option<(Payload, u32)>,
}

/// The connection at the data receiver.
pub struct MptcpSink {
    paths: Paths,
    tcp: TcpConfig,
    header_model: HeaderModel,
    seed: u64,
    name: String,
    port: u16,
    port_base: u16,
    subflows: Vec<RecvFlow>,
    rx: Reassembly,
    /// Interfaces whose subflow is to be opened (after the initial one is established).
    to_join: Vec<u8>,
    joined: bool,
    /// The initial subflow's first byte came, with its DSS (`check_fully_established`).
    fully_established: bool,
    /// The path manager has work for the connection (`pm->work_pending`, set once when the
    /// connection is created: `mptcp_pm_data_reset`, net/mptcp/pm.c): some `subflow` endpoint
    /// existed then. Without it, full establishment opens no subflow.
    work_pending: bool,
    signal: Option<AddrSignal>,
    /// At the mobile (a download): its `signal` endpoints' ADD_ADDRs (`announce`).
    announcer: announce::Announcer,
    /// At the correspondent (an upload): the echoes to send.
    echo: VecDeque<u8>,
    /// At the mobile: the RSTs answering a correspondent's MP_JOIN SYN to an announced
    /// address, where nothing listens (`announce`), each with the interface it came over.
    resets: VecDeque<(crate::tcp::Segment, u8)>,
    next: usize,
    /// Instants the connection's in-order data moved on, and the interface of the subflow
    /// whose data moved it (for the resume times).
    progress: Vec<(Time, u8)>,
    /// Handovers of the flow's mobile, for the record only: (instant, interface left, taken).
    handovers: Vec<(Time, u8, u8)>,
    /// Link schedules that take the path of one of the mobile's interfaces away without a
    /// word to the path manager (a `state` other than `up`), for the record only: (instant,
    /// return, interface, state).
    outages: Vec<(Time, Option<Time>, u8, LinkState)>,
    /// The option of the segment just given (`Agent::tcp_payload`).
    beside: Option<(Payload, u32)>,
}

/// The data receiver's port of subflow `id`: the flow's receiver port, 1000 apart per
/// subflow (a client's ephemeral port per subflow, as Linux's subflows have).
fn subflow_port(base: u16, id: u8) -> u16 {
    base.wrapping_add(1000u16.wrapping_mul(u16::from(id)))
}

/// A subflow's TCP: the flow's own, with the handshake MP_CAPABLE and MP_JOIN need, and no
/// FIN (the connection ends with DATA_FIN, not modelled: it completes when all data is
/// DATA_ACKed).
///
/// Its segments carry [`DATA_DSS_BYTES`] of DSS less payload than a plain TCP segment, as
/// Linux's. Deviation: the SYN's MSS option shows that smaller payload (1436 with timestamps,
/// where Linux advertises 1460 and takes the DSS off when sending); what is sent is the same.
fn subflow_tcp(fs: &FlowSpec) -> TcpConfig {
    let mut t = fs.tcp;
    t.mss = t.mss.saturating_sub(DATA_DSS_BYTES).max(1);
    t.handshake = true;
    t.one_way_syn = false;
    t.fin = false;
    t
}

fn iss(seed: u64, name: &str, id: u8, end: &str) -> SeqNum {
    let mut rng = Rng::stream(seed, &format!("flow:{name}:mptcp:{id}:{end}:iss"));
    SeqNum(rng.next_u64() as u32)
}

/// The two ends of MPTCP flow `f`, `paths` as the scenario resolved them.
pub fn build(spec: &Spec, f: usize, cfg: MptcpConfig) -> (MptcpSource, MptcpSink) {
    let fs = &spec.flows[f];
    let m = spec
        .mobiles
        .iter()
        .position(|m| m.node == fs.src || m.node == fs.dst)
        .expect("invariant: the scenario checks an MPTCP flow ends at a mobile host");
    let ms = &spec.mobiles[m];
    let paths = Paths {
        cfg,
        links: ms.interfaces.clone(),
        initial: ms
            .interfaces
            .iter()
            .position(|&l| l == ms.initial)
            .unwrap_or(0) as u8,
        mobile_sends: ms.node == fs.src,
        names: ms
            .interfaces
            .iter()
            .map(|&l| spec.links[l].name.clone())
            .collect(),
        absent: crate::handover::appearing(spec, m)
            .iter()
            .filter_map(|&(_, l)| ms.interfaces.iter().position(|&x| x == l))
            .fold(0, |bits, i| bits | 1u64.checked_shl(i as u32).unwrap_or(0)),
    };
    // The instants as the world draws them (`handover::draw_instant`), for the record.
    let handovers = spec
        .handovers
        .iter()
        .enumerate()
        .filter(|(_, h)| h.mobile == m)
        .map(|(i, h)| {
            let ix = |l| ms.interfaces.iter().position(|&x| x == l).unwrap_or(0) as u8;
            let at = crate::handover::draw_instant(h, spec.seed, i);
            (at, ix(h.from), ix(h.to))
        })
        .collect();
    let outages = outages(spec, &ms.interfaces);
    let tcp = subflow_tcp(fs);
    let port = super::tcp::SENDER_PORT_BASE.wrapping_add(f as u16);
    let port_base = super::tcp::RECEIVER_PORT_BASE.wrapping_add(f as u16);
    let source = MptcpSource {
        paths: paths.clone(),
        tcp,
        header_model: tcp.header_model,
        seed: spec.seed,
        name: fs.name.clone(),
        port,
        total: fs.bytes,
        snd_nxt: 0,
        snd_una: 0,
        subflows: Vec::new(),
        reinject: VecDeque::new(),
        rtx_timer: None,
        signals: VecDeque::new(),
        join_request: None,
        announcer: announce::Announcer::default(),
        fully_established: false,
        acceptor: announce::Acceptor::default(),
        echo: VecDeque::new(),
        connect_to: VecDeque::new(),
        next: 0,
        bytes_reinjected: 0,
        reinjections: 0,
        stale_events: 0,
        series: spec.record.series.then(Vec::new),
        beside: None,
    };
    let sink = MptcpSink {
        paths,
        tcp,
        header_model: tcp.header_model,
        seed: spec.seed,
        name: fs.name.clone(),
        port,
        port_base,
        subflows: Vec::new(),
        rx: Reassembly::default(),
        to_join: Vec::new(),
        joined: false,
        fully_established: false,
        work_pending: false,
        signal: None,
        announcer: announce::Announcer::default(),
        echo: VecDeque::new(),
        resets: VecDeque::new(),
        next: 0,
        progress: Vec::new(),
        handovers,
        outages,
        beside: None,
    };
    (source, sink)
}

/// The link schedules (`[[schedule]]`) that take one of `interfaces`' paths away (a state
/// other than `up`: blackhole, outage, down), each with its return: its `until`, or the
/// first later entry on that link that sets it `up`.
fn outages(spec: &Spec, interfaces: &[LinkIdx]) -> Vec<(Time, Option<Time>, u8, LinkState)> {
    spec.schedules
        .iter()
        .filter_map(|x| {
            let state = x.state.filter(|&s| s != LinkState::Up)?;
            let iface = interfaces.iter().position(|&l| l == x.link)?;
            let back = x.until.or_else(|| {
                spec.schedules
                    .iter()
                    .filter(|y| y.link == x.link && y.at > x.at && y.state == Some(LinkState::Up))
                    .map(|y| y.at)
                    .min()
            });
            Some((x.at, back, iface as u8, state))
        })
        .collect()
}

/// Wraps a subflow's segment into what the world sends, its option (and the link it must
/// cross) kept in `beside` for `Agent::tcp_payload`.
fn transmit(
    hm: HeaderModel,
    seg: crate::tcp::Segment,
    kind: crate::tcp::TxKind,
    opt: MptcpOption,
    link: LinkIdx,
    beside: &mut Option<(Payload, u32)>,
) -> Transmit {
    let syn_ack = seg.flags.contains(Flags::SYN) && seg.flags.contains(Flags::ACK);
    *beside = Some((Payload::Mptcp(opt), link as u32 + 1));
    Transmit {
        body: Body::Tcp(seg),
        wire_bytes: hm.segment_bytes(&seg) + opt.wire_len(syn_ack),
        kind,
        copy: 0,
    }
}

fn mptcp_option(payload: &Payload) -> MptcpOption {
    match payload {
        Payload::Mptcp(o) => *o,
        _ => MptcpOption::default(),
    }
}
