//! Feeding segments to the [`MptcpTable`]: subflows, keys and tokens, mappings, and each data
//! segment's place in its connection's data sequence space (see the parent module).

use super::ranges::{insert, overlap};
use super::*;
use crate::decode::mptcp::{self, Dss, Mapping};
use crate::decode::tcp::{ACK, SYN};
use crate::decode::Segment;

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
                        mapping = Some(*m);
                    }
                    // RFC 8684 §3.3.3: DATA_FIN, with its mapping (or alone, with the
                    // infinite mapping's zero length).
                    if *data_fin {
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
        if let Some(m) = mapping {
            let dsn = self.expand(c, d, m.dsn, m.dsn_wide);
            self.add_mapping(sf, side, frame, s, dsn, m.ssn, u32::from(m.data_len));
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
            if !matches!(dir.data_ack, Some(a) if a >= ack) {
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
        mapping: &mut Option<Mapping>,
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
                mapping.get_or_insert(m);
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
        // Ranges stop at the top of the DSN space: a crafted DSN near 2^64 does not wrap.
        let (lo, hi) = (dsn, dsn.saturating_add(u64::from(len) - 1));
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
        let end = hi.saturating_add(1);
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
}
