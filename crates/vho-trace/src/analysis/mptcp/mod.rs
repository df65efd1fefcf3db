//! Multipath TCP connections in a capture (RFC 8684): the TCP conversations that carry MPTCP
//! options, joined into connections by their tokens, with each data segment placed in the
//! connection's data sequence space.
//!
//! - A connection begins with the subflow whose handshake carries MP_CAPABLE (§3.1); its
//!   keys give each host's token and initial data sequence number ([`mptcp::token_of`]).
//! - A subflow whose SYN carries MP_JOIN (§3.2) belongs to the connection whose host has the
//!   token it names (Wireshark's `mptcp.stream` joins them the same way).
//! - A DSS mapping (§3.3.1) ties subflow sequence numbers (relative to the subflow's ISN) to
//!   data sequence numbers; a data segment takes its DSN from the mapping it carries, else
//!   from an earlier mapping of its subflow that covers it (a TSO/GSO segment repeats its
//!   mapping; a mapping may cover several segments).
//! - A reinjection is a data segment whose DSN range overlaps a segment sent on another
//!   subflow of the connection, in the same direction: Wireshark's `mptcp.reinjection_of`
//!   (the earlier copy on another subflow) and `mptcp.reinjected_in` (a later one), with
//!   `mptcp.intersubflows_retransmission` on. Ranges are inclusive, `[dsn, dsn + len - 1]`,
//!   as Wireshark keeps them.
//! - A data-level retransmission is a segment carrying DSN bytes already seen (on any
//!   subflow); out of DSN order is new data starting below the highest DSN seen: at a
//!   receiver-side capture, MPTCP-level reordering (segments sent on two paths arrive
//!   interleaved), at a sender-side one, the scheduler's order.
//!
//! Cost: nothing for a segment of a capture without MPTCP; per MPTCP data segment, one record
//! (for the connection's time-sequence graph and the per-segment table).

mod ranges;
mod result;
mod track;

pub use result::{
    AckColumns, AddrResult, ConnResult, DirResult, HostResult, MappingColumns, MptcpResult,
    SegmentColumns, SubflowEnd, SubflowResult,
};

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use serde::Serialize;

use super::flow::Endpoint;
use crate::decode::mptcp::MptcpOption;

/// The largest payload a segment can carry (an IPv4 datagram's): the overlap search looks
/// this far below a range's start.
const MAX_SEGMENT: u64 = 65_536;
/// How many of a subflow's latest mappings are searched for one that covers a segment
/// without its own, or repeats a mapping already seen.
const MAPPING_LOOKBACK: usize = 256;

/// MPTCP options seen, by subtype (RFC 8684 §8, Table 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OptionCounts {
    pub mp_capable: u64,
    pub mp_join: u64,
    pub dss: u64,
    pub add_addr: u64,
    pub remove_addr: u64,
    pub mp_prio: u64,
    pub mp_fail: u64,
    pub mp_fastclose: u64,
    pub mp_tcprst: u64,
    /// Subtypes RFC 8684 does not define (MP_EXPERIMENTAL among them).
    pub other: u64,
    /// Options whose length their subtype does not allow, or cut by the header's end.
    pub malformed: u64,
}

impl OptionCounts {
    fn count(&mut self, o: &MptcpOption) {
        let c = match o {
            MptcpOption::Capable { .. } => &mut self.mp_capable,
            MptcpOption::JoinSyn { .. } | MptcpOption::JoinSynAck { .. } | MptcpOption::JoinAck => {
                &mut self.mp_join
            }
            MptcpOption::Dss(_) => &mut self.dss,
            MptcpOption::AddAddr { .. } => &mut self.add_addr,
            MptcpOption::RemoveAddr { .. } => &mut self.remove_addr,
            MptcpOption::Prio { .. } => &mut self.mp_prio,
            MptcpOption::Fail { .. } => &mut self.mp_fail,
            MptcpOption::FastClose { .. } => &mut self.mp_fastclose,
            MptcpOption::TcpRst { .. } => &mut self.mp_tcprst,
            MptcpOption::Other { .. } => &mut self.other,
            MptcpOption::Malformed { .. } => &mut self.malformed,
        };
        *c += 1;
    }
}

/// Per-segment flags (the `flags` column of [`SegmentColumns`]).
pub mod seg {
    /// Overlaps a segment sent earlier on another subflow (`mptcp.reinjection_of`).
    pub const REINJECTION: u8 = 0x01;
    /// Overlapped by a segment sent later on another subflow (`mptcp.reinjected_in`).
    pub const REINJECTED_LATER: u8 = 0x02;
    /// Carries DSN bytes seen before, on any subflow (a data-level retransmission).
    pub const DATA_RETRANSMISSION: u8 = 0x04;
    /// New data starting below the highest DSN seen (out of DSN order).
    pub const OUT_OF_ORDER: u8 = 0x08;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Its handshake carried MP_CAPABLE (the connection's first subflow).
    Initial,
    /// Its SYN carried MP_JOIN.
    Join,
    /// Seen without its handshake: cannot be joined to a connection.
    Unknown,
}

#[derive(Clone, Copy, Debug)]
struct MapRec {
    frame: u64,
    ts_ns: u64,
    dsn: u64,
    ssn: u32,
    len: u32,
}

#[derive(Clone, Debug, Default)]
struct SubDir {
    maps: Vec<MapRec>,
    data_segments: u64,
    bytes: u64,
    unmapped: u64,
}

#[derive(Clone, Debug)]
struct Subflow {
    conv: usize,
    /// [SYN sender (else first sender), the other].
    ends: [Endpoint; 2],
    role: Role,
    token: Option<u32>,
    conn: Option<usize>,
    /// Whether `ends[0]` is the connection's client.
    client_is_conn_client: bool,
    addr_id: [Option<u8>; 2],
    backup: [bool; 2],
    isn: [Option<u32>; 2],
    dirs: [SubDir; 2],
    first_ns: u64,
    last_ns: u64,
    packets: u64,
}

#[derive(Clone, Debug, Default)]
struct ConnDir {
    /// The last 64-bit DSN known (for a 32-bit one's upper half).
    last_dsn: Option<u64>,
    /// Highest DATA_ACK the other side sent for this data.
    data_ack: Option<u64>,
    /// Per subflow: (lo, segment) -> hi, inclusive DSN ranges of its data segments.
    ranges: BTreeMap<usize, BTreeMap<(u64, u32), u64>>,
    /// DSN ranges seen, merged: lo -> hi (exclusive).
    covered: BTreeMap<u64, u64>,
    highest: Option<u64>,
    segments: Vec<DataSeg>,
    data_fin: bool,
    counts: DirResult,
}

#[derive(Clone, Copy, Debug)]
struct DataSeg {
    frame: u64,
    ts_ns: u64,
    subflow: usize,
    ssn: u32,
    dsn: u64,
    len: u32,
    mapping_frame: u64,
    flags: u8,
}

#[derive(Clone, Debug)]
struct AddrEvent {
    ts_ns: u64,
    /// 0: the connection's client sent it.
    from: usize,
    kind: &'static str,
    addr_id: u8,
    addr: Option<IpAddr>,
    port: Option<u16>,
}

#[derive(Clone, Debug)]
struct Conn {
    subflows: Vec<usize>,
    version: u8,
    checksum: bool,
    /// [client, server].
    keys: [Option<u64>; 2],
    tokens: [Option<u32>; 2],
    idsn: [Option<u64>; 2],
    dirs: [ConnDir; 2],
    /// DATA_ACKs that advanced, per direction of the data they acknowledge: (ns, DSN).
    acks: [Vec<(u64, u64)>; 2],
    addr_events: Vec<AddrEvent>,
    fails: u64,
    fastclose: bool,
    tcprst: u64,
}

/// The MPTCP connections of a capture, fed every TCP segment with its frame number and its
/// conversation's index.
#[derive(Debug, Default)]
pub struct MptcpTable {
    subflows: Vec<Subflow>,
    by_conv: HashMap<usize, usize>,
    conns: Vec<Conn>,
    options: OptionCounts,
    /// The capture holds an MPTCP option.
    seen: bool,
}
