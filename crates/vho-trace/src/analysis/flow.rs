//! TCP conversations: a flow key that is the same for both directions, and the per-direction
//! state of a conversation (see [`super::table`] for the table that holds them).
//!
//! Which side is the client: the sender of the first SYN without ACK, else the receiver of
//! the first SYN-ACK, else the sender of the first segment with data, else the sender of the
//! first segment seen.
//!
//! A SYN without ACK whose sequence number differs from the ISN of an earlier SYN of that
//! side starts a new conversation on the same ports (Wireshark `dissect_tcp`, "TCP Port
//! numbers reused"); the old one is finished then.
//!
//! Memory: per open flow, its counters and the data in flight (see [`super::rtt`]); the
//! throughput points grow with the capture's duration (one per 0.1 s of data at most), not
//! with its size. A conversation that has closed (an RST, or both FINs acknowledged) and
//! stayed quiet for [`CLOSED_LINGER_NS`] leaves the table (see [`super::table`]).
//!
//! A segment on the same ports after that linger starts a new conversation, where Wireshark
//! would continue the old `tcp.stream` (it splits only on a new SYN); a peer that sends
//! after TIME_WAIT has ended is not TCP as RFC 9293 §3.6 describes it.

use std::net::IpAddr;

use super::adaptation::ThroughputPoints;
use super::handover::PathSeries;
use super::rtt::RttSampler;
use super::sack::{first_is_dsack, SackCount};
use super::spurious::SpuriousTracker;
use super::stall::Stall;
use super::tcp_analysis::{self, seq_gt, seq_lt, Counters, Flags, Handshake, SegInfo, SeqState};
use crate::decode::tcp::{ACK, FIN, RST, SYN};
use crate::decode::Segment;

/// How long a closed conversation stays in the table for late segments (retransmitted FINs,
/// a last ACK): Linux's TIME_WAIT, TCP_TIMEWAIT_LEN = 60 s (include/net/tcp.h), within
/// RFC 9293 §3.6.1's 2 MSL.
pub const CLOSED_LINGER_NS: u64 = 60_000_000_000;
/// The table looks for conversations to let go every this many segments.
pub const SWEEP_EVERY: u64 = 4096;

/// One end of a connection.
pub type Endpoint = (IpAddr, u16);

/// The unordered pair of endpoints: the lower one first, so both directions map to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub lo: Endpoint,
    pub hi: Endpoint,
}

impl FlowKey {
    pub fn of(src: Endpoint, dst: Endpoint) -> Self {
        if src <= dst {
            FlowKey { lo: src, hi: dst }
        } else {
            FlowKey { lo: dst, hi: src }
        }
    }
}

/// State of the data one side sends (and of the ACKs it receives for it).
#[derive(Clone, Debug)]
pub struct Direction {
    pub src: Endpoint,
    pub seq: SeqState,
    pub counters: Counters,
    pub segments: u64,
    pub data_segments: u64,
    /// Payload bytes, retransmissions included.
    pub bytes: u64,
    /// First data byte's sequence number (ISN + 1 after a SYN).
    data_start: Option<u32>,
    /// Highest data sequence number end seen.
    data_end: Option<u32>,
    /// Highest cumulative ACK the other side sent for this data.
    acked: Option<u32>,
    pub rtt: RttSampler,
    /// SACK blocks this side sent (as a receiver).
    pub sack: SackCount,
    pub stall: Stall,
    pub throughput: ThroughputPoints,
    /// Path signals for finding a handover.
    pub path: PathSeries,
    /// Evidence of unneeded retransmissions.
    pub spurious: SpuriousTracker,
    /// The sequence numbers of the SYN and the FIN without data this side sent, and how many
    /// of them it sent again (data segments sent again are `spurious`'s count).
    syn_seq: Option<u32>,
    fin_seq: Option<u32>,
    pub control_segments_resent: u64,
}

impl Direction {
    fn new(src: Endpoint, handover_at_ns: Option<u64>) -> Self {
        Direction {
            src,
            seq: SeqState::default(),
            counters: Counters::default(),
            segments: 0,
            data_segments: 0,
            bytes: 0,
            data_start: None,
            data_end: None,
            acked: None,
            rtt: RttSampler::default(),
            sack: SackCount::default(),
            stall: Stall::default(),
            throughput: ThroughputPoints::default(),
            path: PathSeries::with_given(handover_at_ns),
            spurious: SpuriousTracker::default(),
            syn_seq: None,
            fin_seq: None,
            control_segments_resent: 0,
        }
    }

    /// Sequence span of the data sent: from the first data byte to the highest one, holes
    /// (segments not captured) included.
    pub fn unique_bytes(&self) -> u64 {
        match (self.data_start, self.data_end) {
            (Some(s), Some(e)) if seq_gt(e, s) => u64::from(e.wrapping_sub(s)),
            _ => 0,
        }
    }

    /// Data bytes the other side acknowledged (a FIN's sequence number excluded).
    pub fn acked_bytes(&self) -> u64 {
        match (self.data_start, self.data_end, self.acked) {
            (Some(s), Some(e), Some(a)) if seq_gt(a, s) => {
                let top = if seq_lt(a, e) { a } else { e };
                u64::from(top.wrapping_sub(s))
            }
            _ => 0,
        }
    }

    fn outstanding(&self) -> bool {
        match (self.data_end, self.acked) {
            (Some(e), Some(a)) => seq_gt(e, a),
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// Bookkeeping of a segment this side sent.
    fn on_send(&mut self, s: &Segment) {
        let h = &s.tcp;
        self.segments += 1;
        let syn = u32::from(h.flags & SYN != 0);
        let start = h.seq.wrapping_add(syn);
        if syn == 1 {
            self.data_start.get_or_insert(start);
        }
        let occupies = s.payload_len > 0 || h.flags & (SYN | FIN) != 0;
        let end_space = start
            .wrapping_add(s.payload_len)
            .wrapping_add(u32::from(h.flags & FIN != 0));
        if occupies {
            self.rtt.on_send(s.ts_ns, h.seq, end_space);
            if let Some((tsval, _)) = h.timestamps {
                self.rtt.on_tsval(s.ts_ns, tsval);
            }
        }
        if s.payload_len == 0 {
            // A SYN or FIN sent again at the same sequence number (RFC 9293 §3.8.1: they are
            // retransmitted as data is).
            for (flag, seen) in [(SYN, &mut self.syn_seq), (FIN, &mut self.fin_seq)] {
                if h.flags & flag != 0 {
                    if *seen == Some(h.seq) {
                        self.control_segments_resent += 1;
                    }
                    *seen = Some(h.seq);
                }
            }
            return;
        }
        self.data_segments += 1;
        self.bytes += u64::from(s.payload_len);
        let tsval = h.timestamps.map(|t| t.0);
        self.spurious
            .on_data(s.ts_ns, start, start.wrapping_add(s.payload_len), tsval);
        self.throughput.push(s.ts_ns, u64::from(s.payload_len));
        self.path
            .on_data(s.ts_ns, u64::from(s.payload_len), s.ttl, s.outer);
        let end = start.wrapping_add(s.payload_len);
        match self.data_start {
            Some(d) if !seq_lt(start, d) => {}
            _ => self.data_start = Some(start),
        }
        if self.data_end.is_none() || self.data_end.is_some_and(|e| seq_gt(end, e)) {
            self.data_end = Some(end);
        }
        self.stall.on_send(s.ts_ns);
    }

    /// The other side's ACK `ack` at `now` (with its TSecr and SACK blocks).
    fn on_ack(&mut self, now: u64, ack: u32, tsecr: Option<u32>, sack: &[(u32, u32)]) {
        let dsack = sack.first().copied().filter(|_| first_is_dsack(ack, sack));
        self.spurious.on_ack(now, ack, tsecr, dsack);
        let advanced = self.acked.is_none() || self.acked.is_some_and(|a| seq_gt(ack, a));
        if advanced {
            self.acked = Some(ack);
            if let Some((sent, rtt)) = self.rtt.on_ack(now, ack) {
                self.path.on_rtt(sent, rtt);
            }
            if self.data_end.is_some() {
                let outstanding = self.outstanding();
                self.stall.on_advance(now, outstanding);
            }
        }
        if let Some(e) = tsecr {
            if let Some((sent, rtt)) = self.rtt.on_tsecr(now, e, advanced) {
                self.path.on_rtt(sent, rtt);
            }
        }
    }
}

/// What a conversation is made with: what is known of the capture.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowConfig {
    /// A handover instant given in advance (capture time).
    pub handover_at_ns: Option<u64>,
    /// Times are a simulator's clock from the epoch, not from the first packet (see
    /// [`crate::reader::clock`]): a time of zero is a stamp of zero.
    pub simulated_clock: bool,
}

/// One conversation.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Order of the conversation's first packet in the capture (like `tcp.stream`).
    pub index: usize,
    /// dirs[0] sent the first packet seen.
    pub dirs: [Direction; 2],
    /// Which of `dirs` is the client, once known.
    client: Option<usize>,
    pub handshake: Handshake,
    pub first_ns: u64,
    pub last_ns: u64,
    pub packets: u64,
    pub syn_seen: bool,
    pub fin_seen: bool,
    pub rst_seen: bool,
    /// First SYN, first SYN/ACK, and the client's first ACK after it (capture time).
    pub handshake_ns: [Option<u64>; 3],
    /// Per `dirs` index: the sequence number after its FIN, and whether the other side
    /// acknowledged it.
    fin_end: [Option<u32>; 2],
    fin_acked: [bool; 2],
}

impl Flow {
    pub(crate) fn new(index: usize, s: &Segment, config: FlowConfig) -> Self {
        let handover_at_ns = config.handover_at_ns;
        let src = (s.src, s.tcp.sport);
        let dst = (s.dst, s.tcp.dport);
        Flow {
            index,
            dirs: [
                Direction::new(src, handover_at_ns),
                Direction::new(dst, handover_at_ns),
            ],
            client: None,
            handshake: Handshake::new(config.simulated_clock),
            first_ns: s.ts_ns,
            last_ns: s.ts_ns,
            packets: 0,
            syn_seen: false,
            fin_seen: false,
            rst_seen: false,
            handshake_ns: [None; 3],
            fin_end: [None; 2],
            fin_acked: [false; 2],
        }
    }

    /// The conversation's key (the same from either direction).
    pub fn key(&self) -> FlowKey {
        FlowKey::of(self.dirs[0].src, self.dirs[1].src)
    }

    /// True once the conversation has ended: an RST, or both FINs acknowledged.
    pub fn is_closed(&self) -> bool {
        self.rst_seen || self.fin_acked == [true, true]
    }

    /// Index into `dirs` of the client side (the first sender if never decided).
    pub fn client(&self) -> usize {
        self.client.unwrap_or(0)
    }

    fn dir_of(&self, s: &Segment) -> usize {
        usize::from(self.dirs[0].src != (s.src, s.tcp.sport))
    }

    /// True if this SYN (no ACK) starts a new connection on the same ports.
    pub(crate) fn is_reuse(&self, s: &Segment) -> bool {
        let h = &s.tcp;
        h.flags & (SYN | ACK) == SYN
            && matches!(self.dirs[self.dir_of(s)].seq.isn, Some(isn) if isn != h.seq)
    }

    /// Analyses one segment of this conversation; returns its Wireshark flags.
    pub fn push(&mut self, s: &Segment) -> Flags {
        let h = &s.tcp;
        let d = self.dir_of(s);
        self.packets += 1;
        self.last_ns = self.last_ns.max(s.ts_ns);
        self.syn_seen |= h.flags & SYN != 0;
        self.fin_seen |= h.flags & FIN != 0;
        self.rst_seen |= h.flags & RST != 0;
        if self.client.is_none() {
            self.client = match h.flags & (SYN | ACK) {
                SYN => Some(d),
                f if f == SYN | ACK => Some(1 - d),
                _ if s.payload_len > 0 => Some(d),
                _ => None,
            };
        }
        if h.flags & FIN != 0 {
            let syn = u32::from(h.flags & SYN != 0);
            self.fin_end[d] = Some(h.seq.wrapping_add(syn + s.payload_len + 1));
        }
        if h.flags & ACK != 0 {
            if let Some(end) = self.fin_end[1 - d] {
                self.fin_acked[1 - d] |= !seq_lt(h.ack, end);
            }
        }
        let hs = &mut self.handshake_ns;
        match h.flags & (SYN | ACK) {
            SYN if hs[0].is_none() => hs[0] = Some(s.ts_ns),
            f if f == SYN | ACK && hs[1].is_none() => hs[1] = Some(s.ts_ns),
            ACK if hs[1].is_some() && hs[2].is_none() && Some(d) == self.client => {
                hs[2] = Some(s.ts_ns)
            }
            _ => {}
        }
        let info = SegInfo {
            ts_ns: s.ts_ns,
            seq: h.seq,
            ack: h.ack,
            seglen: s.payload_len,
            flags: h.flags,
            window: h.window,
            wscale: h.wscale,
        };
        let [a, b] = &mut self.dirs;
        let (fwd, rev) = if d == 0 { (a, b) } else { (b, a) };
        self.handshake.on_segment(&info);
        tcp_analysis::on_syn_window_scale(&mut fwd.seq, &mut rev.seq, &info);
        let flags = tcp_analysis::analyze(&mut fwd.seq, &mut rev.seq, &self.handshake, &info);
        fwd.counters.count(flags);
        fwd.on_send(s);
        if h.flags & ACK != 0 {
            rev.on_ack(s.ts_ns, h.ack, h.timestamps.map(|t| t.1), &h.sack);
            fwd.sack.on_ack(h.ack, &h.sack);
        }
        flags
    }

    /// Closes open stall waits at the flow's last packet.
    pub fn finish(&mut self) {
        for d in &mut self.dirs {
            d.stall.finish(self.last_ns);
        }
    }
}
