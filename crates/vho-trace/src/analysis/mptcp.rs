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

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use serde::Serialize;

use super::flow::Endpoint;
use crate::decode::mptcp::{self, Dss, Mapping, MptcpOption};
use crate::decode::tcp::{ACK, SYN};
use crate::decode::Segment;

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

impl MptcpTable {
    /// True while no MPTCP option has been seen.
    pub fn is_empty(&self) -> bool {
        !self.seen
    }

    /// One TCP segment: frame `frame` (from 1, every record counted) of conversation `conv`.
    pub fn push(&mut self, frame: u64, conv: usize, s: &Segment) {
        if s.tcp.mptcp.is_empty() && self.by_conv.is_empty() {
            return;
        }
        for o in &s.tcp.mptcp {
            self.options.count(o);
        }
        self.seen |= !s.tcp.mptcp.is_empty();
        let sf = match self.by_conv.get(&conv) {
            Some(&i) => i,
            None if s.tcp.mptcp.is_empty() => return,
            None => self.new_subflow(conv, s),
        };
        let side = usize::from(self.subflows[sf].ends[0] != (s.src, s.tcp.sport));
        {
            let f = &mut self.subflows[sf];
            f.packets += 1;
            f.last_ns = f.last_ns.max(s.ts_ns);
            if s.tcp.flags & SYN != 0 {
                f.isn[side] = Some(s.tcp.seq);
            }
        }
        let mut mapping = None;
        let mut data_ack = None;
        for o in &s.tcp.mptcp {
            match o {
                MptcpOption::Capable { .. } => self.on_capable(sf, side, s, o, &mut mapping),
                MptcpOption::JoinSyn {
                    backup,
                    addr_id,
                    token,
                    ..
                } => {
                    let f = &mut self.subflows[sf];
                    f.role = Role::Join;
                    f.token = Some(*token);
                    f.addr_id[side] = Some(*addr_id);
                    f.backup[side] = *backup;
                }
                MptcpOption::JoinSynAck {
                    backup, addr_id, ..
                } => {
                    let f = &mut self.subflows[sf];
                    f.addr_id[side] = Some(*addr_id);
                    f.backup[side] = *backup;
                }
                // RFC 8684 §3.3.8: the sender asks that the subflow it is sent on be used
                // as a backup (or no longer).
                MptcpOption::Prio { backup } => self.subflows[sf].backup[side] = *backup,
                MptcpOption::Dss(Dss {
                    data_ack: a,
                    mapping: m,
                    data_fin,
                }) => {
                    data_ack = data_ack.or(*a);
                    if let Some(m) = m {
                        mapping = Some((*m, *data_fin));
                    } else if *data_fin {
                        self.on_data_fin(sf, side);
                    }
                }
                _ => self.on_connection_option(sf, side, s.ts_ns, o),
            }
        }
        self.join(sf);
        let Some(c) = self.subflows[sf].conn else {
            return;
        };
        let d = self.conn_dir(sf, side);
        if let Some((m, fin)) = mapping {
            let ssn_end = m.ssn.wrapping_add(u32::from(m.data_len));
            let dsn = self.expand(c, d, m.dsn, m.dsn_wide);
            self.add_mapping(sf, side, frame, s, dsn, m.ssn, u32::from(m.data_len));
            if fin && (m.data_len == 0 || ssn_end == m.ssn) {
                self.on_data_fin(sf, side);
            } else if fin {
                self.conns[c].dirs[d].data_fin = true;
            }
        }
        if let Some((ack, wide)) = data_ack {
            let acked = 1 - d;
            let near = self.conns[c].dirs[acked]
                .data_ack
                .or(self.conns[c].dirs[acked].last_dsn)
                .or(self.conns[c].idsn[acked]);
            let ack = match (wide, near) {
                (false, Some(n)) => mptcp::expand(ack as u32, n),
                _ => ack,
            };
            let dir = &mut self.conns[c].dirs[acked];
            if dir.data_ack.map_or(true, |a| ack > a) {
                dir.data_ack = Some(ack);
                self.conns[c].acks[acked].push((s.ts_ns, ack));
            }
        }
        if s.payload_len > 0 {
            self.on_data(sf, side, frame, s);
        }
    }

    fn new_subflow(&mut self, conv: usize, s: &Segment) -> usize {
        let (a, b) = ((s.src, s.tcp.sport), (s.dst, s.tcp.dport));
        let ends = if s.tcp.flags & (SYN | ACK) == SYN | ACK {
            [b, a]
        } else {
            [a, b]
        };
        self.subflows.push(Subflow {
            conv,
            ends,
            role: Role::Unknown,
            token: None,
            conn: None,
            client_is_conn_client: true,
            addr_id: [None; 2],
            backup: [false; 2],
            isn: [None; 2],
            dirs: Default::default(),
            first_ns: s.ts_ns,
            last_ns: s.ts_ns,
            packets: 0,
        });
        let i = self.subflows.len() - 1;
        self.by_conv.insert(conv, i);
        i
    }

    /// MP_CAPABLE (RFC 8684 §3.1): makes the subflow a connection's first and learns the
    /// keys: the SYN/ACK's is its sender's; the third ACK's are (sender's, receiver's); a
    /// version 0 SYN's is its sender's. With a data-level length, the first data packet's
    /// implicit mapping: DSN IDSN + 1, subflow sequence 1.
    fn on_capable(
        &mut self,
        sf: usize,
        side: usize,
        s: &Segment,
        o: &MptcpOption,
        mapping: &mut Option<(Mapping, bool)>,
    ) {
        let MptcpOption::Capable {
            version,
            flags,
            sender_key,
            receiver_key,
            data_len,
            ..
        } = *o
        else {
            return;
        };
        let c = match self.subflows[sf].conn {
            Some(c) => c,
            None => {
                self.conns.push(Conn {
                    subflows: vec![sf],
                    version,
                    checksum: false,
                    keys: [None; 2],
                    tokens: [None; 2],
                    idsn: [None; 2],
                    dirs: Default::default(),
                    acks: Default::default(),
                    addr_events: Vec::new(),
                    fails: 0,
                    fastclose: false,
                    tcprst: 0,
                });
                let f = &mut self.subflows[sf];
                f.role = Role::Initial;
                f.conn = Some(self.conns.len() - 1);
                // RFC 8684 §3.4.1: the initial subflow's address ID is 0.
                f.addr_id = [Some(0), Some(0)];
                self.conns.len() - 1
            }
        };
        let conn = &mut self.conns[c];
        // RFC 8684 §3.1: A, "checksum required", from either side.
        conn.checksum |= flags & 0x80 != 0;
        let acked = s.tcp.flags & ACK != 0;
        let syn = s.tcp.flags & SYN != 0;
        // `side` is the subflow's; the initial subflow's ends are the connection's.
        if syn || !acked {
            if let Some(k) = sender_key {
                conn.keys[side] = Some(k);
            }
        } else {
            if let Some(k) = sender_key {
                conn.keys[side] = Some(k);
            }
            if let Some(k) = receiver_key {
                conn.keys[1 - side] = Some(k);
            }
        }
        for i in 0..2 {
            if let (Some(k), None) = (conn.keys[i], conn.tokens[i]) {
                if conn.version >= 1 {
                    let (token, idsn) = mptcp::token_of(k);
                    conn.tokens[i] = Some(token);
                    conn.idsn[i] = Some(idsn);
                }
            }
        }
        if let (Some(len), Some(idsn)) = (data_len, conn.idsn[side]) {
            if len > 0 && s.payload_len > 0 {
                let m = Mapping {
                    dsn: idsn.wrapping_add(1),
                    dsn_wide: true,
                    ssn: 1,
                    data_len: len,
                    checksum: None,
                };
                mapping.get_or_insert((m, false));
            }
        }
    }

    /// Address management and the connection's end (RFC 8684 §3.4-§3.7), kept per connection.
    fn on_connection_option(&mut self, sf: usize, side: usize, ts_ns: u64, o: &MptcpOption) {
        let Some(c) = self.subflows[sf].conn else {
            return;
        };
        let from = self.conn_dir(sf, side);
        let conn = &mut self.conns[c];
        match o {
            MptcpOption::AddAddr {
                echo: false,
                addr_id,
                addr,
                port,
            } => conn.addr_events.push(AddrEvent {
                ts_ns,
                from,
                kind: "add",
                addr_id: *addr_id,
                addr: Some(*addr),
                port: *port,
            }),
            MptcpOption::RemoveAddr { ids } => {
                for id in ids {
                    conn.addr_events.push(AddrEvent {
                        ts_ns,
                        from,
                        kind: "remove",
                        addr_id: *id,
                        addr: None,
                        port: None,
                    });
                }
            }
            MptcpOption::Fail { .. } => conn.fails += 1,
            MptcpOption::FastClose { .. } => conn.fastclose = true,
            MptcpOption::TcpRst { .. } => conn.tcprst += 1,
            _ => {}
        }
    }

    /// A joining subflow finds its connection by the token its SYN named (RFC 8684 §3.2).
    fn join(&mut self, sf: usize) {
        let f = &self.subflows[sf];
        let (None, Some(token)) = (f.conn, f.token) else {
            return;
        };
        for (c, conn) in self.conns.iter_mut().enumerate() {
            if let Some(i) = conn.tokens.iter().position(|&t| t == Some(token)) {
                conn.subflows.push(sf);
                let f = &mut self.subflows[sf];
                f.conn = Some(c);
                // The SYN went to the host with the token: from the client when it is the
                // server's.
                f.client_is_conn_client = i == 1;
                return;
            }
        }
    }

    /// The connection direction (0: data from the connection's client) of `side`'s data.
    fn conn_dir(&self, sf: usize, side: usize) -> usize {
        if self.subflows[sf].client_is_conn_client {
            side
        } else {
            1 - side
        }
    }

    /// A DSN as sent made 64 bits, near the last known of that direction.
    fn expand(&mut self, c: usize, d: usize, dsn: u64, wide: bool) -> u64 {
        let conn = &mut self.conns[c];
        let full = if wide {
            dsn
        } else {
            match conn.dirs[d].last_dsn.or(conn.idsn[d]) {
                Some(near) => mptcp::expand(dsn as u32, near),
                None => dsn,
            }
        };
        conn.dirs[d].last_dsn = Some(full);
        full
    }

    #[allow(clippy::too_many_arguments)]
    fn add_mapping(
        &mut self,
        sf: usize,
        side: usize,
        frame: u64,
        s: &Segment,
        dsn: u64,
        ssn: u32,
        len: u32,
    ) {
        let f = &mut self.subflows[sf];
        if f.isn[side].is_none() {
            // No SYN seen: the segment that carries a mapping is taken to begin it.
            f.isn[side] = Some(s.tcp.seq.wrapping_sub(ssn));
        }
        let maps = &mut f.dirs[side].maps;
        let from = maps.len().saturating_sub(MAPPING_LOOKBACK);
        // The same mapping again (every segment of a TSO/GSO packet repeats it, and a
        // retransmission does): one mapping. A mapping sent again from the same DSN and
        // subflow sequence with another length is that mapping redrawn (Linux sends a
        // mapping's length with or without the DATA_FIN's octet, RFC 8684 §3.3.3): its
        // latest length counts, as Wireshark's latest covering mapping does.
        if let Some(m) = maps[from..]
            .iter_mut()
            .rev()
            .find(|m| m.dsn == dsn && m.ssn == ssn)
        {
            m.len = len;
            return;
        }
        maps.push(MapRec {
            frame,
            ts_ns: s.ts_ns,
            dsn,
            ssn,
            len,
        });
    }

    fn on_data_fin(&mut self, sf: usize, side: usize) {
        if let Some(c) = self.subflows[sf].conn {
            let d = self.conn_dir(sf, side);
            self.conns[c].dirs[d].data_fin = true;
        }
    }

    /// A data segment: its DSN from the mapping that covers it, then its place among the
    /// connection's data (reinjection, retransmission, order).
    fn on_data(&mut self, sf: usize, side: usize, frame: u64, s: &Segment) {
        let d = self.conn_dir(sf, side);
        let f = &mut self.subflows[sf];
        let c = f.conn.expect("invariant: called for a joined subflow");
        f.dirs[side].data_segments += 1;
        f.dirs[side].bytes += u64::from(s.payload_len);
        let Some(isn) = f.isn[side] else {
            f.dirs[side].unmapped += 1;
            self.conns[c].dirs[d].counts.unmapped_segments += 1;
            return;
        };
        let ssn = s.tcp.seq.wrapping_sub(isn);
        let maps = &f.dirs[side].maps;
        let from = maps.len().saturating_sub(MAPPING_LOOKBACK);
        let covering = maps[from..].iter().rev().find(|m| {
            let off = ssn.wrapping_sub(m.ssn);
            off < m.len
        });
        let Some(m) = covering.copied() else {
            f.dirs[side].unmapped += 1;
            self.conns[c].dirs[d].counts.unmapped_segments += 1;
            return;
        };
        let dsn = m.dsn.wrapping_add(u64::from(ssn.wrapping_sub(m.ssn)));
        let len = s.payload_len;
        let dir = &mut self.conns[c].dirs[d];
        let idx = dir.segments.len() as u32;
        let (lo, hi) = (dsn, dsn.wrapping_add(u64::from(len)) - 1);
        let mut flags = 0;
        // Reinjections: overlaps with the other subflows' segments (Wireshark's
        // mptcp_add_duplicated_dsn over the connection's other subflows).
        let mut earlier = Vec::new();
        for (&other, ranges) in &dir.ranges {
            if other == sf {
                continue;
            }
            for (&(olo, oidx), &ohi) in ranges.range((lo.saturating_sub(MAX_SEGMENT), 0)..) {
                if olo > hi {
                    break;
                }
                if ohi >= lo {
                    earlier.push(oidx);
                }
            }
        }
        if !earlier.is_empty() {
            flags |= seg::REINJECTION;
            dir.counts.reinjections += 1;
            dir.counts.reinjected_bytes += u64::from(len);
            for i in earlier {
                let e = &mut dir.segments[i as usize];
                if e.flags & seg::REINJECTED_LATER == 0 {
                    e.flags |= seg::REINJECTED_LATER;
                    dir.counts.reinjected_later += 1;
                }
            }
        }
        dir.ranges.entry(sf).or_default().insert((lo, idx), hi);
        // Bytes seen before, on any subflow: a data-level retransmission; else new data
        // below the highest DSN: out of order.
        let end = lo.wrapping_add(u64::from(len));
        let seen = overlap(&dir.covered, lo, end);
        if seen > 0 {
            flags |= seg::DATA_RETRANSMISSION;
            dir.counts.data_retransmissions += 1;
            dir.counts.retransmitted_bytes += seen;
        } else if dir.highest.is_some_and(|h| lo < h) {
            flags |= seg::OUT_OF_ORDER;
            dir.counts.out_of_order += 1;
            let behind = dir.highest.map_or(0, |h| h - lo);
            dir.counts.max_out_of_order_bytes = dir.counts.max_out_of_order_bytes.max(behind);
        }
        insert(&mut dir.covered, lo, end);
        dir.highest = Some(dir.highest.map_or(end, |h| h.max(end)));
        dir.counts.data_segments += 1;
        dir.counts.bytes += u64::from(len);
        dir.segments.push(DataSeg {
            frame,
            ts_ns: s.ts_ns,
            subflow: sf,
            ssn,
            dsn,
            len,
            mapping_frame: m.frame,
            flags,
        });
    }

    /// The analysis: every connection, and the subflows that joined none.
    pub fn finish(self) -> MptcpResult {
        let sfs = &self.subflows;
        let mut segments = SegmentColumns::default();
        let mut mappings = MappingColumns::default();
        let mut acks = AckColumns::default();
        let mut connections = Vec::new();
        for (ci, c) in self.conns.iter().enumerate() {
            // DSNs relative to the IDSN, as Wireshark's `mptcp.dsn`: the first data byte is 1
            // (RFC 8684 §3.3: the SYN takes the IDSN). Without the keys, from the lowest seen.
            let base = |d: usize| {
                c.idsn[d].or_else(|| {
                    let low = c.dirs[d].segments.iter().map(|s| s.dsn).min();
                    low.map(|l| l.wrapping_sub(1))
                })
            };
            let bases = [base(0), base(1)];
            let rel = |d: usize, v: u64| v.wrapping_sub(bases[d].unwrap_or(0));
            let initial = sfs[c.subflows[0]].ends;
            let mut subflows = Vec::new();
            for &i in &c.subflows {
                let f = &sfs[i];
                subflows.push(SubflowResult::of(f));
                for (side, dir) in f.dirs.iter().enumerate() {
                    let d = if f.client_is_conn_client {
                        side
                    } else {
                        1 - side
                    };
                    for m in &dir.maps {
                        mappings.connection.push(ci);
                        mappings.subflow.push(f.conv);
                        mappings.direction.push(DIRECTIONS[d]);
                        mappings.frame.push(m.frame);
                        mappings.t_s.push(secs(m.ts_ns));
                        mappings.dsn.push(rel(d, m.dsn));
                        mappings.ssn.push(m.ssn);
                        mappings.len.push(m.len);
                    }
                }
            }
            for (d, dir) in c.dirs.iter().enumerate() {
                for s in &dir.segments {
                    segments.connection.push(ci);
                    segments.direction.push(DIRECTIONS[d]);
                    segments.subflow.push(sfs[s.subflow].conv);
                    segments.frame.push(s.frame);
                    segments.t_s.push(secs(s.ts_ns));
                    segments.ssn.push(s.ssn);
                    segments.dsn.push(rel(d, s.dsn));
                    segments.dsn_raw.push(s.dsn);
                    segments.len.push(s.len);
                    segments.mapping_frame.push(s.mapping_frame);
                    segments.flags.push(s.flags);
                }
                for &(t, a) in &c.acks[d] {
                    acks.connection.push(ci);
                    acks.direction.push(DIRECTIONS[d]);
                    acks.t_s.push(secs(t));
                    acks.ack.push(rel(d, a));
                }
            }
            let dir = |d: usize| {
                let x = &c.dirs[d];
                DirResult {
                    unique_bytes: x.covered.iter().map(|(lo, hi)| hi - lo).sum(),
                    mappings: c
                        .subflows
                        .iter()
                        .map(|&i| {
                            let f = &sfs[i];
                            let side = if f.client_is_conn_client { d } else { 1 - d };
                            f.dirs[side].maps.len() as u64
                        })
                        .sum(),
                    data_fin: x.data_fin,
                    data_ack: x.data_ack.map(|a| rel(d, a)),
                    ..x.counts
                }
            };
            let host = |i: usize| HostResult {
                addr: initial[i].0.to_string(),
                port: initial[i].1,
                key: c.keys[i].map(|k| format!("{k:016x}")),
                token: c.tokens[i].map(|t| format!("{t:08x}")),
            };
            connections.push(ConnResult {
                index: ci,
                version: c.version,
                checksum: c.checksum,
                client: host(0),
                server: host(1),
                first_s: secs(
                    c.subflows
                        .iter()
                        .map(|&i| sfs[i].first_ns)
                        .min()
                        .unwrap_or(0),
                ),
                last_s: secs(
                    c.subflows
                        .iter()
                        .map(|&i| sfs[i].last_ns)
                        .max()
                        .unwrap_or(0),
                ),
                subflows,
                client_to_server: dir(0),
                server_to_client: dir(1),
                addresses: c
                    .addr_events
                    .iter()
                    .map(|e| AddrResult {
                        t_s: secs(e.ts_ns),
                        from: if e.from == 0 { "client" } else { "server" },
                        kind: e.kind,
                        addr_id: e.addr_id,
                        addr: e.addr.map(|a| a.to_string()),
                        port: e.port,
                    })
                    .collect(),
                mp_fail: c.fails,
                mp_fastclose: c.fastclose,
                mp_tcprst: c.tcprst,
            });
        }
        let unjoined = sfs
            .iter()
            .filter(|f| f.conn.is_none())
            .map(SubflowResult::of)
            .collect();
        MptcpResult {
            options: self.options,
            connections,
            unjoined_subflows: unjoined,
            segments,
            mappings,
            data_acks: acks,
        }
    }
}

/// Bytes of `[lo, hi)` already in `set` (merged, exclusive ends).
fn overlap(set: &BTreeMap<u64, u64>, lo: u64, hi: u64) -> u64 {
    let mut n = 0;
    let start = set.range(..=lo).next_back().map_or(lo, |(&s, _)| s);
    for (&s, &e) in set.range(start..hi) {
        let (a, b) = (s.max(lo), e.min(hi));
        if b > a {
            n += b - a;
        }
    }
    n
}

/// Adds `[lo, hi)` to `set`, merging what it touches.
fn insert(set: &mut BTreeMap<u64, u64>, mut lo: u64, mut hi: u64) {
    if let Some((&s, &e)) = set.range(..=lo).next_back() {
        if e >= lo {
            lo = s;
            hi = hi.max(e);
        }
    }
    let inside: Vec<(u64, u64)> = set.range(lo..=hi).map(|(&s, &e)| (s, e)).collect();
    for (s, e) in inside {
        hi = hi.max(e);
        set.remove(&s);
    }
    set.insert(lo, hi);
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

const DIRECTIONS: [&str; 2] = ["client_to_server", "server_to_client"];

/// One host of a connection.
#[derive(Clone, Debug, Serialize)]
pub struct HostResult {
    pub addr: String,
    pub port: u16,
    /// Its key (hex), when the handshake showed it.
    pub key: Option<String>,
    /// Its token (hex, RFC 8684 §3.1), from the key.
    pub token: Option<String>,
}

/// One end of a subflow.
#[derive(Clone, Debug, Serialize)]
pub struct SubflowEnd {
    pub addr: String,
    pub port: u16,
    /// The address ID it used (MP_JOIN; 0 on the initial subflow).
    pub addr_id: Option<u8>,
    /// It asked for the subflow to be a backup (MP_JOIN's B flag, or the last MP_PRIO).
    pub backup: bool,
    pub data_segments: u64,
    pub bytes: u64,
    /// Distinct DSS mappings it sent.
    pub mappings: u64,
    /// Data segments no mapping covered (or sent before the subflow's ISN was known).
    pub unmapped_segments: u64,
}

/// One subflow: a TCP conversation of the connection.
#[derive(Clone, Debug, Serialize)]
pub struct SubflowResult {
    /// The conversation's index (`flows[].index`, as `tcp.stream`).
    pub index: usize,
    pub role: Role,
    /// The token its MP_JOIN named (hex).
    pub token: Option<String>,
    /// The SYN's sender.
    pub client: SubflowEnd,
    pub server: SubflowEnd,
    pub first_s: f64,
    pub last_s: f64,
    pub packets: u64,
}

impl SubflowResult {
    fn of(f: &Subflow) -> Self {
        let end = |i: usize| SubflowEnd {
            addr: f.ends[i].0.to_string(),
            port: f.ends[i].1,
            addr_id: f.addr_id[i],
            backup: f.backup[i],
            data_segments: f.dirs[i].data_segments,
            bytes: f.dirs[i].bytes,
            mappings: f.dirs[i].maps.len() as u64,
            unmapped_segments: f.dirs[i].unmapped,
        };
        SubflowResult {
            index: f.conv,
            role: f.role,
            token: f.token.map(|t| format!("{t:08x}")),
            client: end(0),
            server: end(1),
            first_s: secs(f.first_ns),
            last_s: secs(f.last_ns),
            packets: f.packets,
        }
    }
}

/// One direction of a connection's data, in data sequence space.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct DirResult {
    pub data_segments: u64,
    /// Payload bytes, every copy counted.
    pub bytes: u64,
    /// DSN bytes seen at least once.
    pub unique_bytes: u64,
    /// Distinct DSS mappings over every subflow.
    pub mappings: u64,
    /// Segments overlapping one sent earlier on another subflow (`mptcp.reinjection_of`).
    pub reinjections: u64,
    /// Their payload bytes.
    pub reinjected_bytes: u64,
    /// Segments overlapped by one sent later on another subflow (`mptcp.reinjected_in`).
    pub reinjected_later: u64,
    /// Segments carrying DSN bytes seen before, on any subflow.
    pub data_retransmissions: u64,
    /// The bytes seen before.
    pub retransmitted_bytes: u64,
    /// New data starting below the highest DSN seen before it.
    pub out_of_order: u64,
    /// The farthest such a segment started below the highest DSN, bytes.
    pub max_out_of_order_bytes: u64,
    pub unmapped_segments: u64,
    pub data_fin: bool,
    /// The highest DATA_ACK for this data, relative to the sender's IDSN (the next DSN
    /// expected: bytes acknowledged + 1, + 1 more after the DATA_FIN).
    pub data_ack: Option<u64>,
}

/// ADD_ADDR / REMOVE_ADDR seen (RFC 8684 §3.4).
#[derive(Clone, Debug, Serialize)]
pub struct AddrResult {
    pub t_s: f64,
    pub from: &'static str,
    pub kind: &'static str,
    pub addr_id: u8,
    pub addr: Option<String>,
    pub port: Option<u16>,
}

/// One MPTCP connection.
#[derive(Clone, Debug, Serialize)]
pub struct ConnResult {
    /// Order of its first subflow among the capture's connections (as `mptcp.stream`).
    pub index: usize,
    pub version: u8,
    /// DSS checksums negotiated (MP_CAPABLE's A flag).
    pub checksum: bool,
    /// The initial subflow's client (its MP_CAPABLE SYN's sender) and server.
    pub client: HostResult,
    pub server: HostResult,
    pub first_s: f64,
    pub last_s: f64,
    /// Initial first, then in the order they joined.
    pub subflows: Vec<SubflowResult>,
    pub client_to_server: DirResult,
    pub server_to_client: DirResult,
    pub addresses: Vec<AddrResult>,
    pub mp_fail: u64,
    pub mp_fastclose: bool,
    pub mp_tcprst: u64,
}

/// Every MPTCP data segment placed in its connection's data sequence space, as columns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SegmentColumns {
    pub connection: Vec<usize>,
    pub direction: Vec<&'static str>,
    /// The subflow's conversation index.
    pub subflow: Vec<usize>,
    /// Frame number in the capture, from 1.
    pub frame: Vec<u64>,
    pub t_s: Vec<f64>,
    /// Subflow sequence number of its first byte, relative to the subflow's ISN.
    pub ssn: Vec<u32>,
    /// DSN of its first byte relative to the sender's IDSN (the first data byte is 1, as
    /// Wireshark's `mptcp.dsn`).
    pub dsn: Vec<u64>,
    /// The same, 64 bits as on the wire (Wireshark's `mptcp.rawdsn64`).
    pub dsn_raw: Vec<u64>,
    pub len: Vec<u32>,
    /// The frame that carried its mapping first.
    pub mapping_frame: Vec<u64>,
    /// [`seg`] bits.
    pub flags: Vec<u8>,
}

/// Every distinct DSS mapping, as columns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MappingColumns {
    pub connection: Vec<usize>,
    pub subflow: Vec<usize>,
    pub direction: Vec<&'static str>,
    pub frame: Vec<u64>,
    pub t_s: Vec<f64>,
    pub dsn: Vec<u64>,
    pub ssn: Vec<u32>,
    pub len: Vec<u32>,
}

/// DATA_ACKs that advanced, as columns (`direction`: of the data acknowledged).
#[derive(Clone, Debug, Default, Serialize)]
pub struct AckColumns {
    pub connection: Vec<usize>,
    pub direction: Vec<&'static str>,
    pub t_s: Vec<f64>,
    pub ack: Vec<u64>,
}

/// The MPTCP analysis of a capture.
#[derive(Clone, Debug, Serialize)]
pub struct MptcpResult {
    pub options: OptionCounts,
    pub connections: Vec<ConnResult>,
    /// Subflows whose connection the capture does not show (no MP_CAPABLE handshake, or an
    /// MP_JOIN naming no token seen).
    pub unjoined_subflows: Vec<SubflowResult>,
    pub segments: SegmentColumns,
    pub mappings: MappingColumns,
    pub data_acks: AckColumns,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_merge_and_count_overlap() {
        let mut s = BTreeMap::new();
        insert(&mut s, 10, 20);
        insert(&mut s, 30, 40);
        assert_eq!(overlap(&s, 15, 35), 10);
        insert(&mut s, 20, 30);
        assert_eq!(s.len(), 1);
        assert_eq!(overlap(&s, 0, 100), 30);
        assert_eq!(overlap(&s, 40, 50), 0);
    }
}
