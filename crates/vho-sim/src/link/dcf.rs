//! One direction of an IEEE 802.11b link under the Distributed Coordination Function (DCF): a
//! station sends MSDUs (IP packets) to its peer one at a time, each data frame is corrupted by
//! independent bit errors at the bit error rate, the peer acknowledges what it receives intact,
//! and the station retransmits after a binary exponential backoff until the frame is
//! acknowledged or `short_retry_limit` attempts have failed (then the MSDU is discarded).
//!
//! Sources: Naoe et al. (`../shared/seeds/002_5cc86ff6918d98af.txt`) Table I gives the link
//! (802.11b, 1 Mb/s, "Distributed", i.e. DCF) and §V-B says the WLAN link was emulated (NETEM,
//! drops from uniform random errors at a BER) after Pavon & Choi's model, their ref. \[12\]
//! (§V-B's "\[12\] and \[13\], respectively" swaps the two references; see [`super::rlc_am`]). We
//! did not have \[12\]'s text. Timing and procedures are IEEE 802.11-2007's (clause and table
//! numbers of that edition, quoted from the standard's structure, not from a copy at hand):
//! - 9.2.3 (interframe spaces) and 9.2.10 (DCF timing relations): DIFS = aSIFSTime + 2 ×
//!   aSlotTime; EIFS = aSIFSTime + DIFS + the ACK's transmission time at the lowest rate.
//! - 9.2.4 (random backoff time): CW starts at aCWmin, becomes 2(CW + 1) − 1 after each failed
//!   attempt up to aCWmax, and is reset to aCWmin after a success or when the retry limit is
//!   reached; the backoff is a uniform whole number of slots in \[0, CW\].
//! - 9.2.5.1–9.2.5.3 (basic access, backoff procedure, retransmit limits): a frame that finds
//!   the medium idle for DIFS with no backoff pending goes at once; after every transmission
//!   the station backs off (the "post-backoff"); an MPDU whose short retry count reaches
//!   dot11ShortRetryLimit is discarded.
//! - 9.2.8 (ACK procedure): ACKTimeout = aSIFSTime + aSlotTime + aPHY-RX-START-Delay.
//! - 7.2.1.3 (ACK frame): 14 octets. 7.2.2 (data frame): a 24-octet header and the 4-octet FCS.
//! - 15.3.3 (DSSS PHY characteristics, Table 15-2) and 18.3.3 (HR/DSSS, Table 18-5): aSlotTime
//!   20 µs, aSIFSTime 10 µs, aCWmin 31, aCWmax 1023, long PLCP preamble 144 µs and header 48
//!   µs (both at 1 Mb/s whatever the data rate), aPHY-RX-START-Delay 192 µs.
//! - Annex D (MIB): dot11ShortRetryLimit 7, described as "the maximum number of transmission
//!   attempts" of a frame no longer than dot11RTSThreshold (default 2347 octets, so RTS/CTS is
//!   off for every IP packet here). Seven attempts in all, not seven retries after the first:
//!   the CWNP study guide says so in as many words ("although called 'retry' limits they are
//!   really 'try' limits").
//!
//! What the model keeps and what it leaves out:
//! - The MPDU: the IP packet, an 8-octet LLC/SNAP header (RFC 1042) and 28 octets of MAC
//!   header and FCS: 1536 octets for a 1500-octet packet. No fragmentation (the default
//!   dot11FragmentationThreshold, 2346, is above every MPDU here).
//! - Frame errors: a frame of `L` MPDU bits is corrupted with probability 1 − (1 − BER)^L
//!   (independent bit errors; one draw per frame from the link's own stream). Deviation: the
//!   48-bit PLCP header is taken as error-free (the preamble is synchronisation, not data). Its
//!   CRC-16 makes a corrupted header a missed frame, which for an ACK changes the sender's
//!   timing (ACKTimeout instead of EIFS) and would need a second draw per frame; leaving it out
//!   understates the data frame's error by 48 of 12,336 bits (0.4 %) at 1500 octets, the ACK's
//!   by 48 of 160. ACKs are corrupted at the same BER: at 1 Mb/s the ACK (basic rate) and the
//!   data use the same modulation (DBPSK), so the same BER is the right one; at a higher data
//!   rate it overstates the ACK's errors (set the BER of the data rate).
//! - A data frame that arrives intact is delivered to the peer at the end of its reception,
//!   whatever befalls its ACK: the peer filters the duplicates of a retransmission by sequence
//!   number (9.2.9). An MSDU whose every ACK was lost therefore reaches the peer although the
//!   sender gives up on it: it counts in [`DcfStats::msdus_unacknowledged`], not as discarded.
//!   Only an MSDU whose every data frame was corrupted is reported by [`Dcf::poll_discarded`].
//! - After a corrupted data frame the sender waits ACKTimeout, then DIFS, then its backoff (the
//!   medium is idle all along). Reading: 9.2.5.2 counts backoff slots only after the medium has
//!   been idle for DIFS, and we start that DIFS when the failure is known, at the timeout;
//!   counting it from the data frame's end instead would save 50 µs per failed attempt, 0.4 %
//!   of a 1500-octet attempt. After a corrupted ACK the sender has received a frame in error,
//!   so it defers EIFS instead of DIFS (9.2.3.5). After a success, DIFS and the post-backoff with
//!   CWmin. After the last failed attempt, too, a backoff with CWmin (the CW is reset then).
//! - Deviation: one station and its peer, nothing else on the medium: no contention, no
//!   collisions, no frames from the peer (the reverse direction is another `Dcf`, with its own
//!   medium). So does 002's emulated link, as far as its §V says: §V-A emulates the WLAN link
//!   over wired Ethernet between the MR and the WLAN AR alone (Fig. 4), and §V-B's NETEM only
//!   delays or drops each packet by the BER; no other station is mentioned.
//! - A frame exchange (data and ACK) uses the BER in force when it starts: [`Dcf::set_ber`]
//!   changes the frames that start after it.
//! - Head of line: one MSDU at a time, in order; the MAC queue holds at most
//!   `queue_capacity` MSDUs (the one in transfer among them).
//!
//! The model is sans-IO and lazy, as [`super::rlc_am::RlcAm`] is: nothing happens unless
//! someone asks, and any call with a time first replays the frame exchanges that start by then.
//! Each exchange is decided whole when it starts (its draws: the data frame, then its ACK if the
//! data arrived, then the next backoff), so the draws do not depend on how often the model is
//! called. The order of calls at one instant `now`: [`Dcf::offer`] what arrives at `now` while
//! [`Dcf::has_room`] (a frame offered to an idle station goes at `now`), then
//! [`Dcf::poll_delivered`] and [`Dcf::poll_discarded`] until `None`, then [`Dcf::poll_timeout`]
//! for the next wake-up. Once its queues have grown to the load it allocates nothing.
//!
//! Where it plugs in ([`super::layer`], `link_layer = "dcf"`): as the link layer of a
//! [`super::LinkDir`], between its queue and its wire. The direction takes the packet at its queue's head whenever the MAC queue
//! has room ([`Dcf::has_room`]), offering it with the packet's index as the MSDU id; what
//! [`Dcf::poll_delivered`] releases enters the far node at the instant given (the DCF's timing
//! replaces the direction's serialiser and pipe), and what [`Dcf::poll_discarded`] releases is
//! a drop with its own cause. The world then schedules the direction's next event at
//! [`Dcf::poll_timeout`], which includes the instant the MAC queue gains room; link schedules
//! (Fig. 5's BER ramp) call [`Dcf::set_ber`].

pub use crate::config::link::{DcfConfig, DATA_RATE_BPS, DEFAULT_MAC_QUEUE};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// A configuration the model cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DcfError {
    #[error("dcf.ber: expected a probability in [0, 1), got {0}")]
    Ber(f64),
    #[error("dcf.data_rate_bps: expected a positive rate")]
    ZeroDataRate,
    #[error("dcf.basic_rate_bps: expected a positive rate")]
    ZeroBasicRate,
    #[error("dcf.slot: expected a positive duration")]
    ZeroSlot,
    #[error(
        "dcf.cw_min, dcf.cw_max: expected 2^k - 1 each, cw_min <= cw_max, got {min} and {max}"
    )]
    ContentionWindow { min: u32, max: u32 },
    #[error("dcf.short_retry_limit: expected at least 1")]
    ZeroRetryLimit,
    #[error("dcf.queue_capacity: expected at least 1")]
    ZeroQueue,
}

/// True for 2^k − 1 (0, 1, 3, 7, …): the values CW takes (9.2.4).
fn is_window(cw: u32) -> bool {
    cw & (cw.wrapping_add(1)) == 0
}

fn check_ber(ber: f64) -> Result<(), DcfError> {
    if (0.0..1.0).contains(&ber) {
        Ok(())
    } else {
        Err(DcfError::Ber(ber))
    }
}

impl DcfConfig {
    pub fn validate(&self) -> Result<(), DcfError> {
        check_ber(self.ber)?;
        if self.data_rate_bps == 0 {
            return Err(DcfError::ZeroDataRate);
        }
        if self.basic_rate_bps == 0 {
            return Err(DcfError::ZeroBasicRate);
        }
        if self.slot == Dur::ZERO {
            return Err(DcfError::ZeroSlot);
        }
        if !is_window(self.cw_min) || !is_window(self.cw_max) || self.cw_min > self.cw_max {
            return Err(DcfError::ContentionWindow {
                min: self.cw_min,
                max: self.cw_max,
            });
        }
        if self.short_retry_limit == 0 {
            return Err(DcfError::ZeroRetryLimit);
        }
        if self.queue_capacity == 0 {
            return Err(DcfError::ZeroQueue);
        }
        Ok(())
    }

    /// DIFS = aSIFSTime + 2 × aSlotTime (9.2.10): 50 µs by default.
    pub fn difs(&self) -> Dur {
        self.sifs + self.slot + self.slot
    }

    /// The MPDU carrying an IP packet of `ip_bytes`: 1536 octets for 1500.
    pub fn mpdu_bytes(&self, ip_bytes: u32) -> u64 {
        ip_bytes as u64 + self.llc_snap_bytes as u64 + self.mac_overhead_bytes as u64
    }

    /// The data frame on the air: PLCP, then the MPDU at the data rate (12,480 µs for 1500
    /// octets at 1 Mb/s).
    pub fn data_time(&self, ip_bytes: u32) -> Dur {
        let bytes = u32::try_from(self.mpdu_bytes(ip_bytes)).unwrap_or(u32::MAX);
        self.plcp + Dur::serialization(bytes, self.data_rate_bps)
    }

    /// The ACK on the air: PLCP, then 14 octets at the basic rate (304 µs by default).
    pub fn ack_time(&self) -> Dur {
        self.plcp + Dur::serialization(self.ack_bytes, self.basic_rate_bps)
    }

    /// ACKTimeout = aSIFSTime + aSlotTime + aPHY-RX-START-Delay (9.2.8): 222 µs by default.
    pub fn ack_timeout(&self) -> Dur {
        self.sifs + self.slot + self.plcp
    }

    /// EIFS = aSIFSTime + DIFS + ACKTxTime (9.2.3.5, 9.2.10): 364 µs by default.
    pub fn eifs(&self) -> Dur {
        self.sifs + self.ack_time() + self.difs()
    }

    /// The contention window after one more failed attempt: 2(CW + 1) − 1, at most aCWmax.
    pub fn next_window(&self, cw: u32) -> u32 {
        (2 * cw as u64 + 1).min(self.cw_max as u64) as u32
    }

    /// Probability that a frame of `bits` is corrupted at `ber`: 1 − (1 − BER)^bits, computed
    /// as −expm1(bits · ln(1 − BER)) to keep its precision at small BER.
    pub fn frame_error(bits: u64, ber: f64) -> f64 {
        -(bits as f64 * (-ber).ln_1p()).exp_m1()
    }

    /// Probability that the data frame of an IP packet of `ip_bytes` is corrupted at the
    /// configured BER (0.7074 for 1500 octets at 10⁻⁴).
    pub fn data_error(&self, ip_bytes: u32) -> f64 {
        Self::frame_error(8 * self.mpdu_bytes(ip_bytes), self.ber)
    }

    /// Probability that an ACK is corrupted at the configured BER (0.0111 at 10⁻⁴).
    pub fn ack_error(&self) -> f64 {
        Self::frame_error(8 * self.ack_bytes as u64, self.ber)
    }
}

/// Counts since the link was made. Frames are counted when they start; MSDUs delivered and
/// discarded when released by the polls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DcfStats {
    /// Offers, the refused included.
    pub msdus_offered: u64,
    /// Offers refused because the MAC queue was full.
    pub msdus_refused: u64,
    pub msdus_delivered: u64,
    /// MSDUs whose every data frame was corrupted: they never reached the peer.
    pub msdus_discarded: u64,
    /// MSDUs the sender gave up on although the peer had one of their data frames (every
    /// ACK lost): delivered, not discarded.
    pub msdus_unacknowledged: u64,
    /// Data frames put on the air, first attempts and retransmissions.
    pub data_frames_sent: u64,
    /// Of `data_frames_sent`, the retransmissions.
    pub retransmissions: u64,
    pub data_frames_corrupted: u64,
    /// ACKs sent by the peer (one per data frame received intact) and those corrupted.
    pub acks_sent: u64,
    pub acks_corrupted: u64,
    /// Backoff slots drawn, post-backoffs included.
    pub backoff_slots: u64,
}

/// An MSDU in the MAC queue.
#[derive(Clone, Copy, Debug)]
struct Msdu {
    id: u32,
    bytes: u32,
    /// Data frames of it sent so far (the short retry count plus one while it is pending).
    attempts: u8,
    /// One of its data frames has reached the peer.
    reached_peer: bool,
}

/// How one frame exchange ended, for the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exchange {
    /// The ACK came back intact.
    Acknowledged,
    /// The data frame was corrupted: no ACK, the sender times out.
    DataCorrupted,
    /// The peer got the data, its ACK was corrupted: the sender defers EIFS.
    AckCorrupted,
}

/// Where the head of the MAC queue stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Head {
    /// It contends for its next attempt (or the queue is empty).
    Pending,
    /// Its last exchange is decided (acknowledged or given up); it leaves the queue at `at`.
    Leaving { at: Time },
}

/// One direction of an 802.11b link: a station's MAC queue and DCF, the air, and the peer.
#[derive(Clone, Debug)]
pub struct Dcf {
    cfg: DcfConfig,
    rng: Rng,
    /// MSDUs not yet done with, the head (in transfer) first.
    queue: VecDeque<Msdu>,
    head: Head,
    /// The earliest instant the next data frame may start: the end of the deferral and backoff
    /// after the last exchange (DIFS after the link is made: the medium is sensed idle from
    /// time zero). A frame offered later to an empty queue starts when offered.
    free_at: Time,
    /// The contention window of the head's next backoff.
    cw: u32,
    delivered: VecDeque<(u32, Time)>,
    discarded: VecDeque<(u32, Time)>,
    stats: DcfStats,
}

impl Dcf {
    /// A link with `cfg`, drawing frame errors and backoffs from `rng` (the link's own stream).
    pub fn new(cfg: DcfConfig, rng: Rng) -> Result<Self, DcfError> {
        cfg.validate()?;
        Ok(Dcf {
            cfg,
            rng,
            queue: VecDeque::with_capacity(cfg.queue_capacity),
            head: Head::Pending,
            free_at: Time::ZERO + cfg.difs(),
            cw: cfg.cw_min,
            delivered: VecDeque::new(),
            discarded: VecDeque::new(),
            stats: DcfStats::default(),
        })
    }

    pub fn config(&self) -> &DcfConfig {
        &self.cfg
    }

    pub fn stats(&self) -> DcfStats {
        self.stats
    }

    /// MSDUs in the MAC queue at the last call, the one in transfer included.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Whether an offer at the last call's instant would be taken.
    pub fn has_room(&self) -> bool {
        self.queue.len() < self.cfg.queue_capacity
    }

    /// An MSDU (IP packet) of `bytes` enters the MAC queue at `now`, behind what is waiting;
    /// false (and nothing taken) when the queue is full. Bring the link up to `now` first
    /// ([`Dcf::handle_timeout`]) to see the room it has then.
    #[must_use]
    pub fn offer(&mut self, now: Time, id: u32, bytes: u32) -> bool {
        self.run(now, false);
        self.stats.msdus_offered += 1;
        if !self.has_room() {
            self.stats.msdus_refused += 1;
            return false;
        }
        if self.queue.is_empty() {
            // Idle for DIFS with the backoff done: 9.2.5.1's immediate access.
            self.free_at = self.free_at.max(now);
        }
        self.queue.push_back(Msdu {
            id,
            bytes,
            attempts: 0,
            reached_peer: false,
        });
        true
    }

    /// A new bit error rate from `now` on (a link schedule); exchanges that started before
    /// `now` keep the old.
    pub fn set_ber(&mut self, now: Time, ber: f64) -> Result<(), DcfError> {
        check_ber(ber)?;
        self.run(now, false);
        self.cfg.ber = ber;
        Ok(())
    }

    /// The interface went down at `now`: every MSDU not yet released is forgotten (the caller
    /// books it), the exchange on the air included; the medium's timing and the random
    /// stream go on.
    pub fn abandon(&mut self, now: Time) {
        self.run(now, true);
        self.queue.clear();
        self.head = Head::Pending;
        self.cw = self.cfg.cw_min;
        self.delivered.clear();
        self.discarded.clear();
    }

    /// Brings the link up to `now`: every exchange that starts at or before `now` is decided.
    pub fn handle_timeout(&mut self, now: Time) {
        self.run(now, true);
    }

    /// The next MSDU delivered to the peer by `now`, in order, with the instant its data frame
    /// ended.
    pub fn poll_delivered(&mut self, now: Time) -> Option<(u32, Time)> {
        self.handle_timeout(now);
        let &(_, at) = self.delivered.front()?;
        if at > now {
            return None;
        }
        self.stats.msdus_delivered += 1;
        self.delivered.pop_front()
    }

    /// The next MSDU discarded (every one of its `short_retry_limit` data frames corrupted) by
    /// `now`, with the instant the sender gave up.
    pub fn poll_discarded(&mut self, now: Time) -> Option<(u32, Time)> {
        self.handle_timeout(now);
        let &(_, at) = self.discarded.front()?;
        if at > now {
            return None;
        }
        self.stats.msdus_discarded += 1;
        self.discarded.pop_front()
    }

    /// When to call again: the next delivery or discard, the instant the head leaves the MAC
    /// queue (room for the next MSDU), or the next data frame's start, whichever is first (an
    /// instant already past while released MSDUs wait to be polled); `None` when idle and
    /// empty.
    pub fn poll_timeout(&self) -> Option<Time> {
        let next_frame = match self.head {
            Head::Leaving { at } => Some(at),
            Head::Pending if !self.queue.is_empty() => Some(self.free_at),
            Head::Pending => None,
        };
        [
            self.delivered.front().map(|d| d.1),
            self.discarded.front().map(|d| d.1),
            next_frame,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Replays what happens before `now` (or at it, if `inclusive`): heads leaving, exchanges
    /// starting.
    fn run(&mut self, now: Time, inclusive: bool) {
        let due = |t: Time| t < now || (inclusive && t == now);
        loop {
            match self.head {
                Head::Leaving { at } if due(at) => {
                    self.queue.pop_front();
                    self.head = Head::Pending;
                }
                Head::Pending if !self.queue.is_empty() && due(self.free_at) => {
                    self.exchange(self.free_at);
                }
                _ => return,
            }
        }
    }

    /// The head's data frame starts at `start`: its fate, its ACK's, and the next backoff.
    fn exchange(&mut self, start: Time) {
        let cfg = self.cfg;
        let head = self
            .queue
            .front_mut()
            .expect("invariant: an exchange starts only with an MSDU at the head");
        head.attempts += 1;
        self.stats.data_frames_sent += 1;
        if head.attempts > 1 {
            self.stats.retransmissions += 1;
        }
        let data_end = start + cfg.data_time(head.bytes);
        let outcome = if self.rng.bernoulli(cfg.data_error(head.bytes)) {
            self.stats.data_frames_corrupted += 1;
            Exchange::DataCorrupted
        } else {
            if !head.reached_peer {
                head.reached_peer = true;
                self.delivered.push_back((head.id, data_end));
            }
            self.stats.acks_sent += 1;
            if self.rng.bernoulli(cfg.ack_error()) {
                self.stats.acks_corrupted += 1;
                Exchange::AckCorrupted
            } else {
                Exchange::Acknowledged
            }
        };
        let ack_end = data_end + cfg.sifs + cfg.ack_time();
        let (end, defer) = match outcome {
            Exchange::Acknowledged => (ack_end, cfg.difs()),
            Exchange::DataCorrupted => (data_end + cfg.ack_timeout(), cfg.difs()),
            Exchange::AckCorrupted => (ack_end, cfg.eifs()),
        };
        if outcome == Exchange::Acknowledged {
            self.head = Head::Leaving { at: end };
            self.cw = cfg.cw_min;
        } else if head.attempts >= cfg.short_retry_limit {
            if head.reached_peer {
                self.stats.msdus_unacknowledged += 1;
            } else {
                self.discarded.push_back((head.id, end));
            }
            self.head = Head::Leaving { at: end };
            self.cw = cfg.cw_min;
        } else {
            self.cw = cfg.next_window(self.cw);
        }
        let slots = self.rng.below(self.cw as u64 + 1);
        self.stats.backoff_slots += slots;
        self.free_at = end + defer + cfg.slot.saturating_mul(slots);
    }
}

#[cfg(test)]
#[path = "dcf_tests.rs"]
mod tests;
