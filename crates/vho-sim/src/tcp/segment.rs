//! A TCP segment as the endpoints exchange it: the header fields TCP behaviour depends on, the
//! options (RFC 9293 §3.1, RFC 2018 SACK, RFC 7323 timestamps and window scale) and the payload
//! length. No payload bytes are carried: bulk data is accounted by length only. The pcap
//! recorder turns a segment into real IPv4 + TCP headers.

use super::seq::SeqNum;

/// TCP header flags (RFC 9293 §3.1), as the on-wire bit positions.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Flags(pub u8);

impl Flags {
    pub const FIN: Flags = Flags(0x01);
    pub const SYN: Flags = Flags(0x02);
    pub const RST: Flags = Flags(0x04);
    pub const PSH: Flags = Flags(0x08);
    pub const ACK: Flags = Flags(0x10);
    pub const NONE: Flags = Flags(0);

    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, o: Flags) -> Flags {
        self.union(o)
    }
}

impl std::fmt::Debug for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = [
            (Flags::SYN, "S"),
            (Flags::FIN, "F"),
            (Flags::RST, "R"),
            (Flags::PSH, "P"),
            (Flags::ACK, "."),
        ];
        for (flag, n) in names {
            if self.contains(flag) {
                f.write_str(n)?;
            }
        }
        Ok(())
    }
}

/// The most SACK blocks a segment carries. Four fit in 40 option bytes without timestamps
/// (RFC 2018 §3); three with timestamps.
pub const MAX_SACK_BLOCKS: usize = 4;

/// SACK blocks `[left, right)` in the order the receiver reports them (RFC 2018 §4: the block
/// holding the most recently received segment first).
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct SackBlocks {
    len: u8,
    blocks: [(SeqNum, SeqNum); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub const EMPTY: SackBlocks = SackBlocks {
        len: 0,
        blocks: [(SeqNum(0), SeqNum(0)); MAX_SACK_BLOCKS],
    };

    /// Appends a block; ignored once full.
    pub fn push(&mut self, left: SeqNum, right: SeqNum) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = (left, right);
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[(SeqNum, SeqNum)] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Keeps only the first `n` blocks (to fit the option space left).
    pub fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n as u8);
    }
}

/// TCP options carried by a segment.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct TcpOptions {
    /// Maximum segment size (kind 2), only on SYNs.
    pub mss: Option<u16>,
    /// Window scale shift (kind 3, RFC 7323 §2), only on SYNs.
    pub window_scale: Option<u8>,
    /// SACK-permitted (kind 4, RFC 2018 §2), only on SYNs.
    pub sack_permitted: bool,
    /// SACK blocks (kind 5, RFC 2018 §3).
    pub sack: SackBlocks,
    /// Timestamps (kind 8, RFC 7323 §3): (TSval, TSecr).
    pub timestamps: Option<(u32, u32)>,
    /// The handover notification vho's mobile endpoints send (issue 19): RFC 6994's shared
    /// experimental option, kind 253, length 7: ExID [`HANDOVER_NOTICE_EXID`], then the
    /// mobile's interface left and the one taken (indices of its `interfaces`), then
    /// [`RateChange`] as one byte.
    pub handover_notice: Option<HandoverNotice>,
}

/// What the notification says: the mobile moves from interface `from` to `to`, whose nominal
/// rate is higher, lower or the same.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HandoverNotice {
    pub from: u8,
    pub to: u8,
    pub rate: RateChange,
}

/// How the nominal rate of the interface taken compares with the one left: what the mobile's
/// handover manager knows of its own interfaces (004 §4's "intelligent handoff manager" that
/// "monitors the physical link qualities"; the digest's "direction" field, §3), not the path.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum RateChange {
    #[default]
    Same = 0,
    /// To a faster link (WLAN after GPRS): packets still on the old path arrive late.
    Faster = 1,
    Slower = 2,
}

impl RateChange {
    /// The option byte.
    pub fn byte(self) -> u8 {
        self as u8
    }
}

/// The notification option's experiment identifier (RFC 6994 §3; "VH").
pub const HANDOVER_NOTICE_EXID: u16 = 0x5648;

impl TcpOptions {
    /// Option bytes on the wire, padded to a multiple of 4 with NOPs as real stacks lay them
    /// out (MSS 4; SACK-permitted 2 + 2 NOP; window scale 3 + 1 NOP; timestamps 10 + 2 NOP;
    /// SACK 2 + 8 per block + 2 NOP).
    pub fn wire_len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.sack_permitted {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 4;
        }
        if self.timestamps.is_some() {
            n += 12;
        }
        if self.handover_notice.is_some() {
            n += 8; // 7, padded to a word with a NOP
        }
        if !self.sack.is_empty() {
            n += 4 + 8 * self.sack.len() as u32;
        }
        n.min(40)
    }
}

/// One TCP segment.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Segment {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: SeqNum,
    pub ack: SeqNum,
    pub flags: Flags,
    /// The window field as sent on the wire (already right-shifted by the sender's window
    /// scale, RFC 7323 §2.3).
    pub window: u16,
    pub options: TcpOptions,
    /// Payload bytes.
    pub len: u32,
}

impl Segment {
    /// Sequence space the segment occupies: payload plus one for SYN and one for FIN
    /// (RFC 9293 §3.4).
    pub fn seq_len(&self) -> u32 {
        self.len + self.flags.contains(Flags::SYN) as u32 + self.flags.contains(Flags::FIN) as u32
    }
    /// Sequence numbers of data and FIN (not SYN): the space ground truth follows.
    pub fn data_seq_len(&self) -> u32 {
        self.len + self.flags.contains(Flags::FIN) as u32
    }
    /// TCP header bytes on the wire: 20 + options.
    pub fn header_len(&self) -> u32 {
        20 + self.options.wire_len()
    }
}

/// Why the sender emitted a segment. Reported beside the segment so that the simulator's
/// ground truth and recorders can count it; the segment on the wire carries no trace of it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum TxKind {
    /// First transmission of these bytes (or a pure ACK / control segment).
    #[default]
    New,
    /// Retransmission after the retransmission timer expired (RFC 6298 §5.4).
    RetransmitTimeout,
    /// Fast retransmit on the duplicate-ACK threshold (RFC 5681 §3.2 step 2 / RFC 6675 §5 (4)).
    RetransmitFast,
    /// Any other retransmission during loss recovery (NewReno partial ACK, RFC 6582 §3.2 step 5;
    /// SACK hole, RFC 6675 NextSeg; retransmission in the slow start after a timeout).
    RetransmitRecovery,
}

impl TxKind {
    pub fn is_retransmission(self) -> bool {
        !matches!(self, TxKind::New)
    }
}

/// A segment handed out by an endpoint, with its kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Transmit {
    pub segment: Segment,
    pub kind: TxKind,
}
