//! The bulk data sender: N bytes, then (optionally) FIN.
//!
//! It connects the mechanisms, each in its own file: the RTT estimator (`rtt.rs`, RFC 6298),
//! the congestion controller (`cc/`, RFC 5681 / RFC 6582), the SACK scoreboard and RFC 6675
//! recovery (`sack.rs`), the timer table (`timer.rs`). With a handshake it is the passive
//! side: it answers the receiver's SYN with a SYN-ACK carrying its own options.
//!
//! Recovery state is one enum: `Open`, `Fast` (fast retransmit / fast recovery, RFC 5681 §3.2,
//! RFC 6582, RFC 6675 §5) or `Timeout` (the slow start that follows an RTO, RFC 5681 §3.1,
//! resending from SND.UNA go-back-N style as BSD, Linux without SACK and ns-2 do).
//!
//! Beside this file: `recovery.rs` (duplicate ACKs, fast retransmit, what SACK recovery
//! sends), `timeout.rs` (the retransmission timer's expiry), `transmit.rs` (what goes on the
//! wire next, and its header), `detection.rs` (spurious-timeout detection and its responses, issue 19),
//! `notice.rs` (the handover notification's remedies), `undo.rs` (Linux's undo of a reduction,
//! `UndoRules::Linux`) and `oracle.rs` (the oracle sender: after a handover, the world's
//! ground truth decides what is sent).

mod detection;
mod freed_samples;
mod notice;
mod oracle;
mod pacing;
mod probe;
mod rack;
mod recovery;
mod timeout;
mod tlp;
mod transmit;
mod undo;

use super::cc::{AnyController, CongestionControl, RecoveryStyle, Window};
use super::config::{
    CwndValidation, FastRetransmitTimer, LossDetection, RttSampling, SackRecovery,
    SpuriousResponse, TcpConfig,
};
use super::dupthresh::DupThresh;
use super::options::{negotiate, Negotiated};
use super::oracle::Oracle;
use super::prr::Prr;
use super::rtt::{RttEstimator, SampleContext};
use super::rtt_linux::Flight;
use super::sack::dsack_block;
use super::sack::{NextSeg, Scoreboard};
use super::segment::{Flags, HandoverNotice, Segment, Transmit, TxKind};
use super::seq::SeqNum;
use super::spurious::dsack::{self, EpisodeKind, Status};
use super::spurious::eifel::AcceptableAck;
use super::spurious::frto::{self, Frto};
use super::spurious::{carries_dsack, response, SpuriousState};
use super::timer::{Timer, TimerTable};
use crate::time::{Dur, Time};

/// Ordered: `Established` and `Oracle` last, so that "established" is one comparison.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum State {
    /// Waiting for the receiver's SYN (handshake on).
    Listen,
    /// SYN-ACK sent, waiting for its ACK.
    SynReceived,
    /// ns-2's one-way SYN sent (`one_way_syn`), waiting for its ACK.
    OneWaySyn,
    Established,
    /// Established, and a handover has put the oracle sender in charge (`oracle.rs`): a state
    /// of its own, so that the other senders' paths test nothing more.
    Oracle,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Recovery {
    Open,
    /// Fast recovery until `recover` is acknowledged.
    Fast {
        recover: SeqNum,
        partial_acks: u32,
        /// RFC 6675 RescueRxt: set once the rescue retransmission of this recovery is sent.
        rescued: bool,
    },
    /// Slow start after a timeout, resending from SND.UNA up to `recover`.
    Timeout {
        recover: SeqNum,
        /// SND.UNA at the timeout: a timeout at the same SND.UNA is the timer's own
        /// retransmission timing out again (RFC 5681 §3.1).
        una_at_rto: SeqNum,
    },
}

/// Counters of what the sender did and saw (not ground truth: what it believes).
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub data_bytes_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Timeouts the sender found spurious (`spurious_detection`).
    pub spurious_timeouts_detected: u64,
    /// Fast retransmits the sender found spurious (`spurious_detection` with dsack).
    pub spurious_fast_retransmits_detected: u64,
    /// Handover notifications received.
    pub handover_notices: u64,
    /// `rtt_injection`: RTTs injected, and notifications that found no RTT recorded for the
    /// interface taken.
    pub rtt_injections: u64,
    pub rtt_injections_without_hint: u64,
    pub dupacks_received: u64,
    pub acks_received: u64,
    pub rtt_samples: u64,
    /// Tail loss probes sent (`tlp`; Linux's LINUX_MIB_TCPLOSSPROBES).
    pub tlp_probes: u64,
    /// Probes whose ACK showed they repaired a loss (LINUX_MIB_TCPLOSSPROBERECOVERY).
    pub tlp_recoveries: u64,
    /// Probes that resent the highest segment (no new data could go; Linux's `tlp_retrans`):
    /// in a capture, retransmissions sent by a timer as a timeout's are.
    pub tlp_retransmissions: u64,
}

/// The sender state followed by time series.
#[derive(Clone, Copy, Debug)]
pub struct SenderProbe {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt: Dur,
    pub rttvar: Dur,
    pub rto: Dur,
    /// Bytes outstanding (SND.MAX − SND.UNA), or the SACK pipe during SACK recovery.
    pub flight_size: u32,
    pub in_recovery: bool,
}

pub struct TcpSender {
    cfg: TcpConfig,
    /// With `RttSampling::EveryFreedSegment`: the segments awaiting their ACK and sample.
    freed: Option<freed_samples::FreedSamples>,
    /// A timeout happened and not all that was outstanding is acknowledged yet (Linux 2.0's
    /// `sk->retransmits != 0`): with `timeout_holds_new_data` no new data goes out, and with
    /// `RttSampling::EveryFreedSegment` no RTT sample is taken.
    retransmits: bool,
    ports: (u16, u16),
    state: State,
    iss: SeqNum,
    /// The receiver's initial sequence number + 1: the ACK field of our segments.
    rcv_nxt: SeqNum,
    snd_una: SeqNum,
    snd_nxt: SeqNum,
    snd_max: SeqNum,
    /// One past the last data byte the application has put in the send buffer.
    data_end: SeqNum,
    /// The ends of the short chunks `push` was handed (below an MSS), above SND.UNA: a
    /// segment never crosses one, a retransmission included (Linux resends an skb, never
    /// two: an MPTCP subflow's skb is one DSS mapping, `mptcp_sendmsg_frag`).
    cuts: std::collections::VecDeque<SeqNum>,
    /// Bytes the application still has to put in the buffer (see [`SEND_BUFFER`]).
    unbuffered: u64,
    /// What SND.UNA reaches when everything (FIN included) is acknowledged; meaningful once
    /// `unbuffered` is zero.
    final_ack: SeqNum,
    neg: Negotiated,
    rwnd: u32,
    last_window: u16,
    cc: AnyController,
    rtt: RttEstimator,
    timers: TimerTable,
    recovery: Recovery,
    /// RFC 6582 `recover`: no new fast retransmit until the cumulative ACK passes it.
    recover: SeqNum,
    dupacks: u32,
    sb: Scoreboard,
    /// ns-2's Sack1 pipe_ in packets (SackRecovery::Ns2Sack1; meaningful in fast recovery).
    ns2_pipe: i64,
    /// SackRecovery::Ns2Sack1: the ACK that started fast recovery sends nothing but the fast
    /// retransmission (tcp-sack1.cc recv(): send_much() only `if (dupacks_ == 0)`).
    ns2_hold: bool,
    /// The segment being timed for an RTT sample (Karn: never a retransmitted one).
    timed: Option<(SeqNum, Time)>,
    ts_recent: u32,
    send_synack: bool,
    /// ns-2's one-way SYN is due (first packet, or its retransmission).
    send_syn: bool,
    /// The SYN-ACK had to be retransmitted: the connection starts with a window of one
    /// segment (RFC 5681 §3.1). (ns-2's one-way SYN gets the same from its timeout's
    /// `cc.on_rto`.)
    syn_lost: bool,
    /// SYN-ACKs sent (Linux's `req->num_retrans` is this less one), and the first one's TSval.
    synacks: u32,
    first_synack_ts: Option<u32>,
    /// The fast recovery's Proportional Rate Reduction (`prr`).
    prr: Prr,
    /// Retransmissions decided by an input, emitted by the next `poll_transmit`.
    pending_rtx: Option<(SeqNum, TxKind)>,
    /// Whether the sender used its cwnd (see [`CwndUse`]).
    cwnd_use: CwndUse,
    /// A timeout that may prove spurious (`spurious_rto`; see [`super::spurious`]).
    spurious: SpuriousState,
    /// Linux's undo state (`UndoRules::Linux`, `undo.rs`).
    undo: undo::LinuxUndo,
    /// The F-RTO episode under way (`spurious_rto = "frto"`).
    frto: Option<Frto>,
    /// New segments F-RTO's step 2(b) may send beyond cwnd.
    frto_credit: u8,
    /// The end of the timeout's retransmission while F-RTO runs: what lies beyond was sent
    /// once only (Linux's variant, `FrtoVariant::Linux`).
    frto_retx_end: SeqNum,
    /// The SRTT and RTTVAR last measured on each of the mobile's interfaces (by index), kept
    /// from the notifications (`rtt_injection`).
    rtt_by_interface: [Option<(Dur, Dur)>; MAX_INTERFACES],
    /// Some detector of spurious retransmissions runs (one test on the ACK path).
    spurious_on: bool,
    /// The duplicate-ACK threshold in force (`adaptive_dupthresh` raises it for a while).
    dupthresh: DupThresh,
    /// The oracle sender's state (`oracle`; boxed: other senders carry one pointer).
    oracle: Option<Box<Oracle>>,
    /// TCP Probe (`probe.rs`; boxed: other senders carry one pointer).
    probe: Option<Box<probe::TcpProbe>>,
    /// RACK loss detection (`LossDetection::Rack` with SACK; `rack.rs`; boxed as `probe`).
    rack: Option<Box<super::rack::Rack>>,
    /// The tail loss probe's state (`tlp`; `tlp.rs`).
    tlp: tlp::Tlp,
    /// Linux's pacing (`TcpConfig::pacing`).
    pacing: pacing::Pacing,
    stats: SenderStats,
}

/// How much of the send buffer the application fills ahead of SND.UNA: the largest window
/// TCP can use (RFC 7323 §2.3: 2^30 bytes with the largest shift). A transfer of any size (up
/// to 2^63 bytes) is handed over in such pieces as ACKs free the buffer, so every sequence
/// number the sender compares lies within 2^31 of SND.UNA, where 32-bit wrap-around
/// comparison is exact (RFC 9293 §3.4), and sequence numbers wrap past 2^32 as on the wire.
const SEND_BUFFER: u32 = 1 << 30;

/// Interfaces of a mobile whose RTT `rtt_injection` remembers.
const MAX_INTERFACES: usize = 8;

/// `rtt_injection`'s "small fraction added on for safety" (Cottingham & Vidales §7 gives none;
/// vho's choice: 25 %, a quarter of the RTT, about one RTTVAR at RFC 6298's first sample).
pub const RTT_INJECTION_MARGIN_PERCENT: u64 = 25;

/// Linux's record of whether the window is used (`tcp_cwnd_validate`, include/net/tcp.h
/// `tcp_is_cwnd_limited`), for [`CwndValidation::CwndLimited`].
#[derive(Clone, Copy, Debug, Default)]
struct CwndUse {
    /// The most bytes in flight since the current period began (`max_packets_out`).
    max_out: u32,
    /// Flight reached cwnd in the current period, or in the previous one.
    limited_now: bool,
    limited_before: bool,
    /// The period ends when SND.UNA reaches this (`cwnd_usage_seq`: SND.NXT at its start).
    until: SeqNum,
}

impl TcpSender {
    pub fn new(cfg: &TcpConfig, src_port: u16, dst_port: u16, iss: SeqNum, bytes: u64) -> Self {
        let data_start = iss + 1;
        let first = bytes.min(SEND_BUFFER as u64) as u32;
        let data_end = data_start + first;
        let final_ack = if cfg.fin { data_end + 1 } else { data_end };
        let neg = Negotiated::assumed(cfg);
        let mss = neg.mss;
        let w = Window::new(
            mss,
            cfg.initial_window_segments.max(1) * mss,
            cfg.initial_ssthresh,
        );
        TcpSender {
            freed: (cfg.rtt_sampling == RttSampling::EveryFreedSegment)
                .then(freed_samples::FreedSamples::default),
            retransmits: false,
            cfg: *cfg,
            ports: (src_port, dst_port),
            state: if cfg.handshake {
                State::Listen
            } else if cfg.one_way_syn {
                State::OneWaySyn
            } else {
                State::Established
            },
            iss,
            // Without a handshake the receiver's ISS is 0: its sequence space starts at 1.
            rcv_nxt: SeqNum(1),
            snd_una: data_start,
            snd_nxt: data_start,
            snd_max: data_start,
            data_end,
            cuts: std::collections::VecDeque::new(),
            unbuffered: bytes - first as u64,
            final_ack,
            neg,
            rwnd: cfg.receive_window,
            // The receiver is configured alike: its first ACK advertises this window.
            last_window: (cfg.receive_window >> neg.peer_wscale).min(u16::MAX as u32) as u16,
            cc: AnyController::new(cfg.cc, w.counting(cfg.cwnd_counting)),
            rtt: RttEstimator::new(cfg.rto).with_fast_decrease(cfg.fast_rto_decrease),
            timers: TimerTable::default(),
            recovery: Recovery::Open,
            recover: iss,
            dupacks: 0,
            sb: Scoreboard::default(),
            ns2_pipe: 0,
            ns2_hold: false,
            timed: None,
            ts_recent: 0,
            send_synack: false,
            send_syn: !cfg.handshake && cfg.one_way_syn,
            syn_lost: false,
            synacks: 0,
            first_synack_ts: None,
            pending_rtx: None,
            prr: Prr::default(),
            cwnd_use: CwndUse {
                until: data_start,
                ..CwndUse::default()
            },
            spurious: SpuriousState::default(),
            undo: undo::LinuxUndo::default(),
            frto: None,
            frto_credit: 0,
            frto_retx_end: iss,
            rtt_by_interface: [None; MAX_INTERFACES],
            spurious_on: cfg.spurious_detection.any(),
            dupthresh: DupThresh::new(cfg.dupthresh),
            oracle: cfg.oracle.then(Box::default),
            probe: None,
            rack: Self::new_rack(cfg, &neg),
            tlp: tlp::Tlp::default(),
            pacing: pacing::Pacing::default(),
            stats: SenderStats::default(),
        }
    }

    // ---- getters ----

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    pub fn is_complete(&self) -> bool {
        self.state >= State::Established && self.unbuffered == 0 && self.snd_una >= self.final_ack
    }

    /// Whether `seq` is one past the last byte of the whole transfer.
    #[inline]
    fn at_data_end(&self, seq: SeqNum) -> bool {
        seq == self.data_end && self.unbuffered == 0
    }

    /// The application puts more of the transfer in the buffer as ACKs free it.
    fn refill(&mut self) {
        if self.unbuffered == 0 {
            return;
        }
        let room = SEND_BUFFER - (self.data_end - self.snd_una);
        let add = (room as u64).min(self.unbuffered) as u32;
        self.data_end = self.data_end + add;
        self.unbuffered -= add as u64;
        if self.unbuffered == 0 {
            self.final_ack = if self.cfg.fin {
                self.data_end + 1
            } else {
                self.data_end
            };
        }
    }

    /// The application hands the sender `bytes` more (a sender built with no bytes and no
    /// FIN, fed as it goes: a Multipath TCP subflow, to which the connection's scheduler hands
    /// one mapping at a time, `agent::mptcp`).
    pub fn push(&mut self, bytes: u32) {
        debug_assert!(
            self.unbuffered == 0 && !self.cfg.fin,
            "invariant: an open sender"
        );
        self.data_end = self.data_end + bytes;
        self.final_ack = self.data_end;
        while self.cuts.front().is_some_and(|&c| c <= self.snd_una) {
            self.cuts.pop_front();
        }
        if bytes < self.neg.mss {
            self.cuts.push_back(self.data_end);
        }
    }

    /// The length of the data segment starting at `seq`: an MSS at most, up to the end of
    /// the data and of a short chunk `push` was handed (`cuts`).
    /// Plain TCP (no cuts) pays one test: the 20 MB cell ran 36,444,759 instructions with the
    /// search on every segment, 35,946,442 with the test (callgrind, `run_timed`).
    #[inline]
    pub(super) fn seg_len(&self, seq: SeqNum) -> u32 {
        let len = self.neg.mss.min(self.data_end - seq);
        if self.cuts.is_empty() {
            return len;
        }
        let cut = self
            .cuts
            .iter()
            .find(|&&c| c > seq)
            .map_or(u32::MAX, |&c| c - seq);
        len.min(cut)
    }

    /// Bytes handed over and not yet sent once (SND.MAX to the end of the buffer).
    pub fn unsent(&self) -> u32 {
        self.data_end - self.snd_max
    }

    /// Bytes handed over so far and acknowledged so far, from the first data byte.
    pub fn data_offsets(&self) -> (u64, u64) {
        let start = self.iss + 1;
        (
            u64::from(self.data_end - start),
            u64::from(self.snd_una.max(start) - start),
        )
    }

    /// The sequence number of the first data byte (ISS + 1): what a subflow's DSS mappings
    /// count from (RFC 8684 §3.3.1's relative subflow sequence number).
    pub fn data_start(&self) -> SeqNum {
        self.iss + 1
    }

    /// Sets the congestion window outright, ssthresh kept (a coupled controller's cap on a
    /// subflow's increase: MPTCP's LIA, `agent::mptcp::lia`).
    pub fn set_cwnd(&mut self, cwnd: u32) {
        let ssthresh = self.cc.ssthresh();
        self.cc.set_window(cwnd, ssthresh);
    }

    /// Whether the connection is established (the handshake done, or none asked).
    pub fn is_established(&self) -> bool {
        self.state >= State::Established
    }

    /// ACKs received so far: what changes whenever Linux's `tcp_sock.rcv_tstamp` would, which
    /// MPTCP's stale check compares between retransmission periods
    /// (`mptcp_pm_subflow_chk_stale`, net/mptcp/pm.c).
    pub fn acks_received(&self) -> u64 {
        self.stats.acks_received
    }

    /// When the retransmission timer expires, if it runs (Linux's `icsk_timeout` with
    /// `icsk_pending`, which MPTCP's own retransmission timer follows: `mptcp_set_timeout`).
    pub fn rto_deadline(&self) -> Option<Time> {
        self.timers.get(Timer::Retransmit)
    }

    /// A pure ACK as it would send one now (SND.NXT, RCV.NXT, its timestamps), changing
    /// nothing: the segment Linux's MPTCP path manager sends to carry a signal
    /// (`mptcp_pm_addr_send_ack` -> `tcp_send_ack`, net/mptcp/pm.c).
    pub fn bare_ack(&self, now: Time) -> Segment {
        self.header(now, self.snd_nxt, Flags::ACK, 0)
    }

    pub fn probe(&self) -> SenderProbe {
        SenderProbe {
            cwnd: self.cc.cwnd(),
            ssthresh: self.cc.ssthresh(),
            srtt: self.rtt.srtt(),
            rttvar: self.rtt.rttvar(),
            rto: self.rtt.rto(),
            flight_size: self.flight(),
            in_recovery: self.recovery != Recovery::Open,
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        let timers = self.timers.next();
        match self.pacing_wake() {
            Some(p) => Some(timers.map_or(p, |t| t.min(p))),
            None => timers,
        }
    }

    /// What the RTT estimator may read at a sample, SND.UNA being `snd_una` (an ACK's sample
    /// is taken before SND.UNA moves; Linux's `tcp_clean_rtx_queue` runs after).
    fn sample_context(&self, snd_una: SeqNum) -> SampleContext {
        SampleContext {
            // cwnd in whole segments (Linux 2.0's RTO reads `snd_cwnd`).
            cwnd_segments: self.cc.cwnd() / self.neg.mss.max(1),
            flight: Flight {
                snd_una,
                snd_nxt: self.snd_max,
            },
        }
    }

    fn flight(&self) -> u32 {
        if self.sack_recovery() {
            if let Some(r) = &self.rack {
                return r.in_flight() * self.neg.mss;
            }
            self.sb.pipe(
                self.snd_una,
                self.snd_max,
                self.neg.mss,
                self.dupthresh.get(),
            )
        } else {
            self.snd_max - self.snd_una
        }
    }

    /// Whether fast recovery lasts until the recovery point. RFC 6675 §5's SACK recovery does,
    /// whatever the window rules: "RecoveryPoint = HighData. When the TCP sender receives a
    /// cumulative ACK for this data octet, the loss recovery phase is terminated" (Linux
    /// likewise: tcp_fastretrans_alert keeps TCP_CA_Recovery until snd_una reaches high_seq,
    /// whichever congestion control module sets the window). Without it the controller says:
    /// Reno leaves on the first new ACK (RFC 5681 §3.2 step 6), NewReno waits (RFC 6582).
    /// Leaving SACK recovery at a partial ACK would strand the holes above it: the next
    /// recovery may not start below the recovery point (`may_recover`, RFC 6675 §5.1), so
    /// nothing resends them before the timer.
    fn waits_for_recovery_point(&self) -> bool {
        (self.neg.sack && self.cfg.sack_recovery == SackRecovery::Rfc6675)
            || self.cc.waits_for_recovery_point()
    }

    fn sack_recovery(&self) -> bool {
        self.neg.sack && matches!(self.recovery, Recovery::Fast { .. })
    }

    fn style(&self) -> RecoveryStyle {
        if self.neg.sack {
            RecoveryStyle::Pipe
        } else {
            RecoveryStyle::Inflate
        }
    }

    // ---- inputs ----

    pub fn handle_segment(&mut self, now: Time, seg: &Segment) {
        let syn = seg.flags.contains(Flags::SYN);
        let ack = seg.flags.contains(Flags::ACK);
        match (self.state, syn, ack) {
            (State::Listen | State::SynReceived, true, false) => self.on_syn(now, seg),
            (State::SynReceived, false, true) if seg.ack == self.iss + 1 => {
                self.state = State::Established;
                self.timers.stop(Timer::Retransmit);
                if let Some((_, sent)) = self.timed.take() {
                    // RFC 6298 §2 / Linux tcp_synack_rtt_meas: the SYN-ACK's round trip,
                    // unless it was retransmitted (Karn: `timed` is then cleared).
                    self.rtt
                        .on_sample_in(sent, now, self.sample_context(self.snd_una));
                    self.stats.rtt_samples += 1;
                }
                if self.syn_lost {
                    // RFC 5681 §3.1: "if the SYN or SYN/ACK is lost, the initial window used
                    // by a sender after a correctly transmitted SYN MUST be one segment"
                    // (also RFC 6928 §2); Linux's conditions in `synack_loss_cuts_window`.
                    if self.synack_loss_cuts_window(seg) {
                        let mss = self.neg.mss;
                        let w = Window::new(mss, mss, self.cc.ssthresh());
                        self.cc =
                            AnyController::new(self.cfg.cc, w.counting(self.cfg.cwnd_counting));
                    }
                    self.rtt.on_data_start_after_syn_timeout();
                }
                self.on_ack(now, seg);
                if self.oracle.is_some() {
                    self.take_pending_truth(now);
                }
            }
            (State::OneWaySyn, false, true) if seg.ack == self.iss + 1 => {
                // ns-2 (tcp.cc:1829): once the SYN is acknowledged, cwnd = windowInit_; the
                // SYN was timed like any packet and gives the first RTT sample.
                self.take_rtt_sample(now, seg);
                self.state = State::Established;
                self.timers.stop(Timer::Retransmit);
                if self.oracle.is_some() {
                    self.take_pending_truth(now);
                }
            }
            (State::Established, false, true) => self.on_ack(now, seg),
            (State::Oracle, false, true) => self.oracle_on_ack(seg),
            _ => {}
        }
    }

    /// Whether a SYN-ACK timeout cuts the initial window to one segment, at the ACK `seg` that
    /// completes the handshake. RFC 5681 §3.1: always. Linux (`UndoRules::Linux`):
    /// `tcp_init_transfer` cuts only after more than one SYN-ACK retransmission
    /// (`total_retrans > 1`, from `req->num_retrans`: the timer's and the answers to a
    /// retransmitted SYN) and only while `undo_marker` stands, which
    /// `tcp_try_undo_spurious_syn` clears when the ACK echoes the first SYN-ACK's timestamp
    /// (`retrans_stamp`, its send time: that SYN-ACK arrived, the timeout was spurious).
    fn synack_loss_cuts_window(&self, seg: &Segment) -> bool {
        if self.cfg.undo != crate::tcp::config::UndoRules::Linux {
            return true;
        }
        let spurious = matches!(
            (self.first_synack_ts, seg.options.timestamps),
            (Some(v), Some((_, ecr))) if v == ecr
        );
        self.synacks > 2 && !spurious
    }

    /// Passive open (RFC 9293 §3.5): record the peer's options, answer with a SYN-ACK.
    fn on_syn(&mut self, now: Time, seg: &Segment) {
        self.rcv_nxt = seg.seq + 1;
        self.neg = negotiate(&self.cfg, &seg.options);
        self.rack = Self::new_rack(&self.cfg, &self.neg);
        let mss = self.neg.mss;
        let w = Window::new(
            mss,
            self.cfg.initial_window_segments.max(1) * mss,
            self.cfg.initial_ssthresh,
        );
        self.cc = AnyController::new(self.cfg.cc, w.counting(self.cfg.cwnd_counting));
        if let Some((tsval, _)) = seg.options.timestamps {
            self.ts_recent = tsval;
        }
        self.rwnd = seg.window as u32;
        self.last_window =
            (self.cfg.receive_window >> self.neg.peer_wscale).min(u16::MAX as u32) as u16;
        self.state = State::SynReceived;
        self.send_synack = true;
        self.timers.set(Timer::Retransmit, now + self.rtt.rto());
    }

    fn on_ack(&mut self, now: Time, seg: &Segment) {
        self.stats.acks_received += 1;
        if seg.ack > self.snd_max {
            return; // acknowledges data never sent (RFC 9293 §3.10.7.4): ignore
        }
        if let Some(notice) = seg.options.handover_notice {
            // An ACK sent to carry the notification is not a duplicate ACK (below).
            self.notify_handover(now, notice);
        }
        let una_before = self.snd_una;
        let window_changed = seg.window != self.last_window;
        self.last_window = seg.window;
        self.rwnd = (seg.window as u32) << self.neg.peer_wscale;
        if let Some((tsval, _)) = seg.options.timestamps {
            // RFC 7323 §4.3 (2): TS.Recent from a segment at or below Last.ACK.sent; a pure
            // ACK's sequence number is always the receiver's RCV.NXT for us, which every ACK
            // we sent carried.
            if seg.seq <= self.rcv_nxt {
                self.ts_recent = tsval;
            }
        }
        self.ns2_hold = false;
        let dsack = if self.spurious_on {
            self.dsack_seen(seg)
        } else {
            None
        };
        if self.ns2_sack1() && matches!(self.recovery, Recovery::Fast { .. }) {
            self.ns2_pipe -= 1; // tcp-sack1.cc recv(): --pipe_ for every ACK in recovery
        }
        // PRR's DeliveredData (RFC 6937 §3) needs what was SACKed before this ACK (also on
        // the ACK that may start recovery: its own newly SACKed data counts there).
        let sacked_before = if self.cfg.prr && self.neg.sack {
            Some(self.sb.sacked_between(self.snd_una, self.snd_max))
        } else {
            None
        };
        let undo_ack = if self.linux_undo() {
            Some(self.undo_ack(seg))
        } else {
            None
        };
        let newly_sacked = self.neg.sack
            && self.sb.update_from_ack(
                seg.ack,
                seg.ack.max(self.snd_una),
                seg.options.sack.as_slice(),
            );
        if self.rack.is_some() {
            self.rack_tag(now, seg);
        }
        let mut dubious = newly_sacked;
        let was_open = self.recovery == Recovery::Open;
        let advanced = seg.ack > self.snd_una;
        if advanced {
            self.on_new_ack(now, seg);
            if self.cfg.sack_forget_on_new_ack && !matches!(self.recovery, Recovery::Fast { .. }) {
                self.sb.clear();
            }
        } else if self.is_duplicate_ack(seg, window_changed) {
            // RFC 5681 §2: a duplicate ACK. With SACK it drives loss recovery only if it SACKs
            // new data (RFC 6675 §2; ns-2's Sack1 counts it only if scb_->CheckUpdate(); Linux
            // counts SACKed segments): the ACK of a duplicate segment does not count.
            self.stats.dupacks_received += 1;
            dubious = true;
            if newly_sacked || !self.neg.sack {
                self.on_dupack(now);
            }
        }
        if self.tlp_on() {
            // tcp_ack: tcp_process_tlp_ack, then tcp_set_xmit_timer (which RACK may override).
            self.tlp_on_ack(now, seg, advanced, newly_sacked, window_changed);
            if advanced && was_open {
                self.tlp_schedule(now, true);
            }
        }
        if self.spurious_on {
            self.detect_after_ack(seg, una_before, window_changed, newly_sacked, dsack);
        }
        if let Some(a) = undo_ack {
            self.undo_after_ack(a);
        }
        // RFC 6675 can mark a loss only where new SACK blocks arrived; RACK says what it marked.
        let newly_lost = match self.rack {
            Some(_) => self.rack_after_ack(now, dubious),
            None => newly_sacked,
        };
        if self.cfg.prr && self.sack_recovery() {
            self.prr_on_ack(una_before, sacked_before, newly_lost);
        }
        if self.probe.is_some() {
            self.probe_on_ack(now, seg);
        }
    }

    /// RFC 6937 / Linux `tcp_cwnd_reduction` on an ACK during SACK recovery: DeliveredData
    /// is what the ACK newly acknowledged or SACKed (Linux's `newly_acked_sacked`), in
    /// segments; cwnd = pipe + sndcnt, pipe being RACK's `tcp_packets_in_flight` (out −
    /// SACKed − lost + retransmitted) or RFC 6675's, which counts alike. `newly_lost`: RACK
    /// marked a segment lost on this ACK; under RFC 6675 the ACK brought new SACK blocks
    /// (vho marks no loss outside IsLost, which only new SACK blocks change).
    fn prr_on_ack(&mut self, una_before: SeqNum, sacked_before: Option<u32>, newly_lost: bool) {
        let mss = self.neg.mss.max(1);
        let (una, max) = (self.snd_una, self.snd_max);
        let before = sacked_before.unwrap_or(0);
        let delivered =
            ((una - una_before) + self.sb.sacked_between(una, max)).saturating_sub(before);
        let pipe = match &self.rack {
            Some(r) => r.in_flight(),
            None => self
                .sb
                .pipe(una, max, mss, self.dupthresh.get())
                .div_ceil(mss),
        };
        let ssthresh = self.cc.ssthresh() / mss;
        let advanced = una > una_before;
        let cwnd = self.prr.on_ack(
            delivered.div_ceil(mss),
            advanced,
            newly_lost,
            pipe,
            ssthresh,
        );
        if let Some(c) = cwnd {
            let ss = self.cc.ssthresh();
            self.cc.set_window(c.saturating_mul(mss), ss);
        }
    }

    /// RFC 5681 §2's duplicate ACK: no new data acknowledged, no data, data outstanding, the
    /// window unchanged; and not the handover notice's own ACK (it says nothing of loss).
    #[inline(always)]
    fn is_duplicate_ack(&self, seg: &Segment, window_changed: bool) -> bool {
        seg.ack == self.snd_una
            && seg.len == 0
            && self.snd_max > self.snd_una
            && !window_changed
            && seg.options.handover_notice.is_none()
    }

    fn on_new_ack(&mut self, now: Time, seg: &Segment) {
        let acked = seg.ack - self.snd_una;
        // RFC 3522 §3.2 (3): the first acceptable ACK after the timeout's retransmission.
        let spurious = self.spurious.eifel.armed()
            && self.spurious.eifel.on_acceptable_ack(AcceptableAck {
                tsecr: seg.options.timestamps.map(|(_, tsecr)| tsecr),
                carries_dsack: carries_dsack(seg),
                acks_all: seg.ack >= self.snd_max,
            }) == Some(true);
        self.take_rtt_sample(now, seg);
        self.snd_una = seg.ack;
        if self.snd_una >= self.snd_max {
            self.retransmits = false;
        }
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.refill();
        self.dupacks = 0;
        self.dupthresh.on_new_ack(self.snd_una);
        let grow = self.may_grow_cwnd();
        let mut restart_timer = true;
        match self.recovery {
            Recovery::Open if grow => self.cc.on_ack(now, acked, self.snd_max - self.snd_una),
            Recovery::Open => {}
            Recovery::Timeout { recover, .. } => {
                if grow {
                    self.cc.on_ack(now, acked, self.snd_max - self.snd_una);
                }
                if self.snd_una >= recover || self.cfg.dupacks_after_timeout_new_ack {
                    self.recovery = Recovery::Open;
                }
            }
            Recovery::Fast {
                recover,
                partial_acks,
                rescued,
            } => {
                if self.snd_una >= recover || !self.waits_for_recovery_point() {
                    self.cc.on_recovery_exit(self.snd_max - self.snd_una);
                    self.recovery = Recovery::Open;
                    if let Some(r) = &mut self.rack {
                        r.on_recovery_end();
                    }
                    if self.ns2_sack1() {
                        // tcp-sack1.cc: recover_ = 0 when recovery ends, so the next third
                        // duplicate ACK may start recovery again even at the old recovery
                        // point (RFC 6582 §3.2 step 1 would wait for an ACK beyond it).
                        self.recover = self.snd_una - 1;
                    }
                } else {
                    // RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment,
                    // deflate, and reset the timer on the first partial ACK only.
                    self.cc.on_partial_ack(acked, self.style());
                    if self.ns2_sack1() {
                        self.ns2_pipe -= 1; // partial_ack_ 0: --pipe_ once more
                    }
                    if !self.neg.sack {
                        self.pending_rtx = Some((self.snd_una, TxKind::RetransmitRecovery));
                    }
                    // With SACK, RFC 6298 (5.3) holds in recovery too: every ACK of new data
                    // restarts the timer (Linux: tcp_rearm_rto on each; ns-2's Sack1 with
                    // partial_ack_ 0: newtimer on each). RFC 6582 §3.2 step 5's "impatient"
                    // rule, the first partial ACK only, is for NewReno without SACK.
                    restart_timer = partial_acks == 0 || self.neg.sack;
                    self.recovery = Recovery::Fast {
                        recover,
                        partial_acks: partial_acks + 1,
                        rescued,
                    };
                }
            }
        }
        if self.sb.high_rxt < self.snd_una {
            self.sb.high_rxt = self.snd_una;
        }
        if self.cfg.cwnd_validation != CwndValidation::Off && self.snd_una >= self.cwnd_use.until {
            // A window has gone by: its use is what the next growth is judged on.
            let u = &mut self.cwnd_use;
            u.limited_before = u.limited_now;
            u.limited_now = false;
            u.max_out = self.snd_max - self.snd_una;
            u.until = self.snd_nxt.max(self.snd_una + 1);
        }
        if self.freed.is_some() {
            self.apply_freed_samples(now);
        }
        if spurious {
            self.respond_to_spurious_rto(acked);
        }
        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else restart it.
        if self.snd_una >= self.snd_max {
            self.timers.stop(Timer::Retransmit);
        } else if restart_timer {
            self.timers.set(Timer::Retransmit, now + self.rtt.rto());
        }
    }

    /// The samples `freed_samples` took on this ACK, at the window as it now is.
    fn apply_freed_samples(&mut self, now: Time) {
        let ctx = self.sample_context(self.snd_una);
        if let Some(freed) = &mut self.freed {
            for sent in freed.take_samples() {
                self.rtt.on_sample_in(sent, now, ctx);
                self.stats.rtt_samples += 1;
            }
        }
    }

    fn take_rtt_sample(&mut self, now: Time, seg: &Segment) {
        if self.neg.timestamps {
            // RFC 7323 §4.1: RTT from the echoed timestamp of an ACK that advances SND.UNA.
            if let Some((_, tsecr)) = seg.options.timestamps {
                let sent = Time::from_millis(tsecr as u64);
                if tsecr != 0 && sent <= now {
                    let ctx = self.sample_context(seg.ack);
                    self.rtt.on_sample_in(sent, now, ctx);
                    self.stats.rtt_samples += 1;
                    let (r, srtt) = (now.saturating_since(sent), self.rtt.srtt());
                    self.cc.on_rtt_sample(now, r, srtt, ctx.flight);
                    self.adapt_rto_after_spurious(now.saturating_since(sent), seg.ack);
                }
            }
            return;
        }
        if let Some(freed) = &mut self.freed {
            // Taken once cwnd has grown for this ACK (`apply_freed_samples`): tcp_ack grows
            // cong_window before it walks the retransmission queue, and the estimator reads it.
            freed.on_ack(seg.ack, now, self.retransmits);
            return;
        }
        if let Some((seq, t)) = self.timed {
            if seg.ack > seq {
                let ctx = self.sample_context(seg.ack);
                self.rtt.on_sample_in(t, now, ctx);
                self.stats.rtt_samples += 1;
                let (r, srtt) = (now.saturating_since(t), self.rtt.srtt());
                self.cc.on_rtt_sample(now, r, srtt, ctx.flight);
                self.timed = None;
                self.adapt_rto_after_spurious(now.saturating_since(t), seg.ack);
            }
        }
    }

    /// Whether an ACK of new data may grow cwnd (see [`CwndValidation`]).
    fn may_grow_cwnd(&self) -> bool {
        match self.cfg.cwnd_validation {
            CwndValidation::Off => true,
            CwndValidation::CwndLimited => {
                let u = &self.cwnd_use;
                let cwnd = self.cc.cwnd();
                if cwnd < self.cc.ssthresh() {
                    // tcp_is_cwnd_limited in slow start: "ensure cwnd grows to twice what
                    // was ACKed".
                    cwnd < u.max_out.saturating_mul(2) || u.limited_now
                } else {
                    u.limited_now || u.limited_before
                }
            }
        }
    }

    /// Bookkeeping of window use after a segment went out or could not for want of cwnd.
    #[inline]
    fn note_cwnd_use(&mut self, blocked_by_cwnd: bool) {
        if self.cfg.cwnd_validation == CwndValidation::Off {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        let u = &mut self.cwnd_use;
        u.max_out = u.max_out.max(flight);
        if blocked_by_cwnd || flight >= self.cc.cwnd() {
            u.limited_now = true;
        }
    }
}

/// The timestamp clock: milliseconds, as Linux's `tcp_time_stamp` at HZ = 1000.
pub(super) fn ts_clock(now: Time) -> u32 {
    (now.as_nanos() / 1_000_000) as u32
}
