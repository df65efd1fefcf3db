//! The link models' parameters as the scenario gives them (`spec::DirSpec`): a 3G RLC-AM
//! bearer's (`link::rlc_am`), an 802.11b DCF station's (`link::dcf`), a direction's scheduled
//! state (`link::change`), a delivery trace's opportunities (`link::trace`). Each model's
//! behaviour (validation, derived values) stays with it.

use crate::time::Dur;
use std::sync::Arc;

/// The 384 kb/s bearer of 002's Table I: 12 blocks × 320 payload bits per 10 ms TTI (see
/// `RlcAmConfig::payload_rate_bps`).
pub const BEARER_BPS: u64 = 384_000;

/// The bearer's parameters; `Default` is 002's Table I with the open values below.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RlcAmConfig {
    /// Transmission Time Interval. Table I of 002: 10 ms.
    pub tti: Dur,
    /// Transport blocks (one RLC PDU each) per TTI. Table I of 002: 12.
    pub blocks_per_tti: u16,
    /// Transport block size, one whole AMD PDU. Table I of 002: 336 bits.
    pub block_bits: u32,
    /// The AMD PDU header: D/C (1 bit), sequence number (12 bits), polling bit (1) and header
    /// extension (2), two octets (TS 25.322's AMD PDU format). 16 bits leave 320 payload bits,
    /// which makes Table I's 12 blocks per 10 ms exactly the 384 kb/s bearer.
    pub header_bits: u32,
    /// Length Indicator at the end of each SDU: 7 bits plus the extension bit, one octet, as
    /// TS 25.322 uses for AMD PDUs of at most 126 octets (ours are 42).
    pub li_bits: u32,
    /// Iub delay, each way (RNC to Node B). Table I of 002: 20 ms.
    pub iub_delay: Dur,
    /// Block error rate: each block lost independently with this probability. 002 ramps it
    /// over the scenario (Fig. 5); 0 by default (a scenario value).
    pub bler: f64,
    /// MaxDAT (TS 25.322 §9.7.3.3, §9.4 VT(DAT)): a PDU is transmitted at most `max_dat - 1`
    /// times; the status that would schedule it a `max_dat`-th time discards its SDU (and the
    /// SDUs before it back to VT(A), see the module doc). Table I of 002: 5 (4 transmissions).
    /// At least 2: at 1 no PDU would ever be sent.
    pub max_dat: u8,
    /// Open: how long the receiver waits after a gap before the status PDU goes out
    /// (Timer_Status_Prohibit or the sender's poll timer; neither is given by 002, and \[13\]'s
    /// value was not at hand). 40 ms makes the status loop (block out, status back) 100 ms, ten
    /// TTIs: `RlcAmConfig::retransmission_cycle`.
    pub status_wait: Dur,
}

impl Default for RlcAmConfig {
    fn default() -> Self {
        RlcAmConfig {
            tti: Dur::from_millis(10),
            blocks_per_tti: 12,
            block_bits: 336,
            header_bits: 16,
            li_bits: 8,
            iub_delay: Dur::from_millis(20),
            bler: 0.0,
            max_dat: 5,
            status_wait: Dur::from_millis(40),
        }
    }
}

/// The data rate of 002's Table I: 1 Mb/s.
pub const DATA_RATE_BPS: u64 = 1_000_000;

/// Open: the MAC queue's capacity, in MSDUs, the one in transfer included. 002's NETEM
/// emulation had no MAC queue of its own, only NETEM's. Two keep the next MSDU at hand when the
/// post-backoff ends even if the direction in front feeds it one wake-up late (one would do for
/// full rate: the head leaves before the post-backoff ends); everything else waits in the
/// `link::LinkDir`'s queue, where its drop policy applies.
pub const DEFAULT_MAC_QUEUE: usize = 2;

/// The link's parameters; `Default` is 002's Table I with the standard's 802.11b values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcfConfig {
    /// Rate of the data frames' MPDUs. Table I of 002: 1 Mb/s.
    pub data_rate_bps: u64,
    /// Rate of the ACK: the highest basic rate not above the data rate (9.6); 1 Mb/s, the
    /// lowest rate of clauses 15 and 18, is in every 802.11b basic rate set.
    pub basic_rate_bps: u64,
    /// aSlotTime: 20 µs (Tables 15-2 and 18-5).
    pub slot: Dur,
    /// aSIFSTime: 10 µs (Tables 15-2 and 18-5).
    pub sifs: Dur,
    /// The long PLCP preamble (144 µs) and PLCP header (48 µs), sent at 1 Mb/s before every
    /// frame (15.2, 18.2.2.1): 192 µs. Also aPHY-RX-START-Delay with the long preamble.
    pub plcp: Dur,
    /// MAC header (24 octets: frame control, duration, three addresses, sequence control) and
    /// FCS (4) of a data frame (7.2.2): 28 octets.
    pub mac_overhead_bytes: u32,
    /// LLC/SNAP encapsulation of an IP packet (RFC 1042): 8 octets.
    pub llc_snap_bytes: u32,
    /// The ACK frame (7.2.1.3): frame control, duration, receiver address, FCS: 14 octets.
    pub ack_bytes: u32,
    /// aCWmin: 31 (Tables 15-2 and 18-5).
    pub cw_min: u32,
    /// aCWmax: 1023 (Tables 15-2 and 18-5).
    pub cw_max: u32,
    /// dot11ShortRetryLimit: transmission attempts of a frame before it is discarded, the
    /// first included (Annex D MIB default: 7).
    pub short_retry_limit: u8,
    /// Bit error rate over the MPDU, of data and ACK frames alike. 002 ramps it over the
    /// scenario (Fig. 5); 0 by default (a scenario value).
    pub ber: f64,
    /// The MAC queue's capacity in MSDUs: [`DEFAULT_MAC_QUEUE`] (open).
    pub queue_capacity: usize,
}

impl Default for DcfConfig {
    fn default() -> Self {
        DcfConfig {
            data_rate_bps: DATA_RATE_BPS,
            basic_rate_bps: 1_000_000,
            slot: Dur::from_micros(20),
            sifs: Dur::from_micros(10),
            plcp: Dur::from_micros(192),
            mac_overhead_bytes: 28,
            llc_snap_bytes: 8,
            ack_bytes: 14,
            cw_min: 31,
            cw_max: 1023,
            short_retry_limit: 7,
            ber: 0.0,
            queue_capacity: DEFAULT_MAC_QUEUE,
        }
    }
}

/// A direction's scheduled state.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum LinkState {
    /// Carrying traffic.
    #[default]
    Up,
    /// Nothing starts serialising (the packet on the air finishes); the queue keeps accepting,
    /// as a direction blocked by a handover's delay, and drains in order once up again.
    Outage,
    /// The interface stays up and serialises, but every packet whose serialisation ends
    /// during the blackhole is lost (a path blackholed beyond the interface), booked as
    /// `DropCause::LinkState`.
    Blackhole,
    /// The interface is down: what waits in the queue is discarded as at a hard handover
    /// (`DropCause::HandoverFlush`), what is on the air or propagating is lost as there
    /// (`DropCause::InFlight`, `world::schedule` calls `LinkDir::discard_in_flight`), and
    /// every packet offered meanwhile is dropped (`DropCause::LinkState`).
    Down,
}

impl LinkState {
    pub const ALL: [LinkState; 4] = [
        LinkState::Up,
        LinkState::Outage,
        LinkState::Blackhole,
        LinkState::Down,
    ];
    pub fn name(self) -> &'static str {
        match self {
            LinkState::Up => "up",
            LinkState::Outage => "outage",
            LinkState::Blackhole => "blackhole",
            LinkState::Down => "down",
        }
    }
    pub fn from_name(s: &str) -> Option<LinkState> {
        LinkState::ALL.into_iter().find(|l| l.name() == s)
    }
}

/// A trace's delivery opportunities, compacted: each distinct millisecond offset once, with
/// how many opportunities it holds (a fast link's trace repeats each offset many times: a line
/// per 1504 bytes). 12 bytes per distinct offset, however many lines the file had; shared
/// (`Arc`) between the scenario and every direction the trace drives.
#[derive(Clone, PartialEq, Eq)]
pub struct Opportunities {
    /// The distinct offsets (ms), increasing (a repeat past `u32::MAX` opportunities starts a
    /// second entry with the same offset).
    pub(crate) ms: Arc<[u64]>,
    /// How many opportunities each offset holds (at least 1).
    pub(crate) count: Arc<[u32]>,
}
