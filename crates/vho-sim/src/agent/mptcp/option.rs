//! The MPTCP option a subflow's segment carries (RFC 8684 §3), beside the segment in the
//! world's payload table (`agent::Payload::Mptcp`): what the receiving end's connection
//! reads of it. Only the fields the model's rules read are kept; the bytes it would take on
//! the wire are added to the segment's size ([`MptcpOption::wire_len`]).

/// The DSS bytes on a data sender's segment: a 32-bit DATA_ACK and a 64-bit mapping (4 + 4 +
/// 14, padded to 24). Linux takes them from the segment's payload (`tcp_current_mss` counts
/// `mptcp_established_options` with a mapping), so a subflow on a 1500-byte MTU carries 1424
/// bytes a segment with timestamps, as a kernel capture shows (`tests/data/mptcp_soft_ch.pcap`:
/// 304 frames of 1500 bytes, TCP payload 1424, TCP header 56).
pub const DATA_DSS_BYTES: u32 = 24;

/// The handshake suboption on a SYN or SYN-ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Handshake {
    #[default]
    None,
    /// MP_CAPABLE (RFC 8684 §3.1): the connection's initial subflow.
    Capable,
    /// MP_JOIN (§3.2): a further subflow over the mobile's interface `interface`, a backup
    /// if `backup` (the B bit).
    Join { interface: u8, backup: bool },
    /// MP_JOIN's SYN from the correspondent's address (id 0) toward the address the mobile
    /// announced on its interface `toward` (`agent::mptcp::announce`; Linux
    /// `mptcp_pm_nl_add_addr_received`).
    PeerJoin { toward: u8 },
    /// MP_JOIN's third ACK (§3.2 Figure 8): the initiator's HMAC, and no DSS.
    JoinAck,
}

/// A DSS mapping (§3.3.1): `len` bytes from subflow sequence offset `ssn` (relative to the
/// subflow's initial sequence number, as on the wire) carry data sequence numbers from
/// `dsn` (relative to the connection's initial data sequence number).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mapping {
    pub dsn: u64,
    pub ssn: u64,
    pub len: u32,
}

impl Mapping {
    pub fn ssn_end(&self) -> u64 {
        self.ssn + u64::from(self.len)
    }
}

/// ADD_ADDR (§3.4.1) or REMOVE_ADDR (§3.4.2) of one of the mobile's interfaces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AddrSignal {
    #[default]
    None,
    Add(u8),
    Remove(u8),
    /// ADD_ADDR with the E bit: the receiver's echo of an ADD_ADDR it got (§3.4.1: "the
    /// receiver MUST respond with an ADD_ADDR option with the E flag set ... echoing the
    /// address"; Linux `mptcp_pm_nl_add_addr_received` / `mptcp_pm_add_addr_received` echo
    /// every one, accepted or not), without the HMAC.
    Echo(u8),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MptcpOption {
    pub handshake: Handshake,
    /// DATA_ACK (§3.3.2): the next data sequence number the receiver expects.
    pub data_ack: Option<u64>,
    /// The mappings of the segment's bytes (a segment resent across two mappings carries
    /// both: Linux keeps one mapping per skb, and a resent segment is cut to its skb).
    pub maps: [Mapping; 2],
    pub n_maps: u8,
    pub addr: AddrSignal,
    /// The DATA_ACK is 8 octets (the a flag, §3.3). Linux sends a 64-bit DATA_ACK once it
    /// has received a 64-bit DSN (`mptcp_incoming_options`: `use_64bit_ack`), and its DSNs
    /// are always 64 bits: the data receiver's acks are 64 bits, the data sender's 32
    /// (a kernel capture, `tests/data/mptcp_soft_ch.pcap`: data segments carry a 4-byte
    /// DATA_ACK, pure ACKs an 8-byte one). The model sets it per end, not on the first
    /// mapping received.
    pub ack64: bool,
}

impl MptcpOption {
    pub fn maps(&self) -> &[Mapping] {
        &self.maps[..usize::from(self.n_maps)]
    }

    /// Option bytes on the wire (RFC 8684 Figures 4, 5, 6, 7, 11, 15, 16, padded to a word as
    /// Linux lays them out): MP_CAPABLE 4 on a SYN and 12 on a SYN-ACK; MP_JOIN 12 on a SYN,
    /// 16 on a SYN-ACK and 24 on the third ACK; a DSS with a DATA_ACK 4 + 8 (or 4), with a 64-bit mapping 14 more
    /// (no checksum), padded: 12 for the data receiver's ACKs, 24 for the data sender's
    /// segments ([`DATA_DSS_BYTES`]); ADD_ADDR (IPv4, with its HMAC) 16, its echo (no HMAC)
    /// 8 and REMOVE_ADDR 4 more (`mptcp_add_addr_len`, net/mptcp/protocol.h).
    pub fn wire_len(&self, syn_ack: bool) -> u32 {
        let hs = match self.handshake {
            Handshake::None => 0,
            Handshake::Capable => {
                if syn_ack {
                    12
                } else {
                    4
                }
            }
            Handshake::Join { .. } | Handshake::PeerJoin { .. } => {
                if syn_ack {
                    16
                } else {
                    12
                }
            }
            Handshake::JoinAck => 24,
        };
        let ack: u32 = match (self.data_ack, self.ack64) {
            (None, _) => 0,
            (Some(_), true) => 8,
            (Some(_), false) => 4,
        };
        let dss = match (self.n_maps, ack) {
            (0, 0) => 0,
            (0, a) => 4 + a,
            (_, a) => (4 + a + 14).div_ceil(4) * 4,
        };
        let addr = match self.addr {
            AddrSignal::None => 0,
            AddrSignal::Add(_) => 16,
            AddrSignal::Echo(_) => 8,
            AddrSignal::Remove(_) => 4,
        };
        hs + dss + addr
    }
}

/// The connection-level receive buffer (RFC 8684 §3.3.1: data is delivered in data sequence
/// order whichever subflow carried it; Linux's `msk->out_of_order_queue`,
/// `__mptcp_ofo_queue`): in-order up to `ack_seq`, ranges above it held.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ack_seq: u64,
    ofo: Vec<(u64, u64)>,
    /// Bytes received a second time at the data level (a reinjection's copy of what arrived).
    pub duplicate_bytes: u64,
}

impl Reassembly {
    /// The next data sequence number expected: DATA_ACK's value.
    pub fn ack_seq(&self) -> u64 {
        self.ack_seq
    }

    /// Data `[dsn, dsn + len)` arrived in order on its subflow; the in-order point moves on.
    pub fn insert(&mut self, dsn: u64, len: u64) {
        let (mut l, r) = (dsn, dsn + len);
        if r <= self.ack_seq {
            self.duplicate_bytes += len;
            return;
        }
        if l < self.ack_seq {
            self.duplicate_bytes += self.ack_seq - l;
            l = self.ack_seq;
        }
        // Merge into the sorted, disjoint ranges.
        let mut merged = (l, r);
        let mut dup = 0;
        self.ofo.retain(|&(a, b)| {
            if b < merged.0 || a > merged.1 {
                return true;
            }
            dup += b.min(merged.1).saturating_sub(a.max(merged.0));
            merged = (merged.0.min(a), merged.1.max(b));
            false
        });
        self.duplicate_bytes += dup;
        let at = self.ofo.partition_point(|&(a, _)| a < merged.0);
        self.ofo.insert(at, merged);
        while let Some(&(a, b)) = self.ofo.first() {
            if a > self.ack_seq {
                break;
            }
            self.ack_seq = self.ack_seq.max(b);
            self.ofo.remove(0);
        }
    }
}

/// A subflow's mappings, oldest first, each `ssn` after the last: what the sender handed the
/// subflow, or what the receiver learnt from the DSS options.
#[derive(Clone, Debug, Default)]
pub struct MapTable {
    maps: std::collections::VecDeque<Mapping>,
}

impl MapTable {
    pub fn push(&mut self, m: Mapping) {
        if self.maps.iter().any(|x| x.ssn == m.ssn) {
            return;
        }
        let at = self.maps.partition_point(|x| x.ssn < m.ssn);
        self.maps.insert(at, m);
    }

    /// The mappings overlapping subflow bytes `[ssn, ssn + len)`, at most two (see
    /// [`MptcpOption::maps`]).
    pub fn covering(&self, ssn: u64, len: u32) -> ([Mapping; 2], u8) {
        let end = ssn + u64::from(len);
        let mut out = [Mapping::default(); 2];
        let mut n = 0;
        let first = self.maps.partition_point(|m| m.ssn_end() <= ssn);
        for m in self.maps.iter().skip(first) {
            if m.ssn >= end || n == 2 {
                break;
            }
            out[n] = *m;
            n += 1;
        }
        (out, n as u8)
    }

    /// Calls `f(dsn, len)` for the data sequence of subflow bytes `[from, to)`; bytes no
    /// mapping covers are skipped (they cannot be: every segment carries its mappings).
    pub fn map_range(&self, from: u64, to: u64, mut f: impl FnMut(u64, u64)) {
        let first = self.maps.partition_point(|m| m.ssn_end() <= from);
        for m in self.maps.iter().skip(first) {
            if m.ssn >= to {
                break;
            }
            let (a, b) = (from.max(m.ssn), to.min(m.ssn_end()));
            if a < b {
                f(m.dsn + (a - m.ssn), b - a);
            }
        }
    }

    /// Drops the mappings wholly below subflow offset `ssn`.
    pub fn prune_below(&mut self, ssn: u64) {
        while self.maps.front().is_some_and(|m| m.ssn_end() <= ssn) {
            self.maps.pop_front();
        }
    }
}
