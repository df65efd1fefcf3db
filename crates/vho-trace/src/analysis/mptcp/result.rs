//! The MPTCP analysis's result: [`MptcpTable::finish`] and the serializable types.

use serde::Serialize;

use super::*;

impl MptcpTable {
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
