//! Everything a TCP endpoint's behaviour depends on, as one plain struct. Named bundles of
//! these values (`rfc`, `linux`, `ns2`) live in `profile.rs`, each value citing its source; a
//! scenario picks a profile and may override single fields.

use crate::time::Dur;

/// F-RTO as RFC 5682 §3.1 writes it, or as Linux runs it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FrtoVariant {
    /// RFC 5682 §3.1 (SACK-enhanced): the two ACKs after the timeout decide.
    Rfc5682,
    /// Linux's `tcp_process_loss` (net/ipv4/tcp_input.c): besides RFC 5682's steps, any ACK
    /// that cumulatively or selectively acknowledges data never retransmitted
    /// (`FLAG_ORIG_SACK_ACKED`) makes the timeout spurious at once ("Step 3.b. A timeout is
    /// spurious if not all data are lost"), checked before the step 3(a) tests.
    Linux,
}

/// How a Reno-family controller counts acknowledged data as it grows the window.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CwndCounting {
    /// RFC 5681 §3.1 in bytes: slow start adds min(N, SMSS) per ACK (eq. 2), congestion
    /// avoidance SMSS*SMSS/cwnd per ACK (eq. 3): with delayed ACKs, a window grows about
    /// ×1.5 per RTT in slow start and half a segment per RTT after.
    Rfc5681,
    /// Linux's `tcp_reno_cong_avoid` (net/ipv4/tcp_cong.c), in segments: slow start adds one
    /// per segment acknowledged, not past ssthresh, the rest going on (`tcp_slow_start`);
    /// congestion avoidance counts segments acknowledged in `snd_cwnd_cnt` and adds one per
    /// cwnd of them (`tcp_cong_avoid_ai`): ×2 per RTT, then one segment per RTT, whatever
    /// the receiver's ACK ratio.
    Linux,
}

/// Congestion controller, chosen by name (static dispatch in `cc::AnyController`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CcAlgorithm {
    /// RFC 5681 slow start, congestion avoidance, fast retransmit / fast recovery.
    Reno,
    /// RFC 6582 NewReno fast recovery.
    NewReno,
    /// ns-2.35's Agent/TCP/Sack1 window arithmetic (`cc/ns2_sack1.rs`).
    Ns2Sack1,
    /// CUBIC with HyStart as Linux runs it (net/ipv4/tcp_cubic.c; `cc/cubic.rs`).
    Cubic,
}

/// How a SACK sender decides, in fast recovery, whether and what to send.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SackRecovery {
    /// RFC 6675 §5: pipe from the scoreboard (SetPipe), NextSeg's rules (a hole is
    /// retransmitted once IsLost holds).
    Rfc6675,
    /// ns-2.35's Sack1 (tcp-sack1.cc): its own pipe estimate, set at the fast retransmit to
    /// the packets outstanding less numdupacks_, one less per ACK (two per partial ACK), one
    /// more per packet sent after the fast retransmit; a packet goes out while it is below
    /// int(cwnd_): the next hole above the last retransmitted one with SACKed data above it
    /// (ScoreBoardRQ::GetNextRetran), else the next new packet.
    Ns2Sack1,
}

/// How a SACK sender decides that a segment is lost.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LossDetection {
    /// RFC 6675: DupThresh duplicate ACKs or IsLost (DupThresh segments SACKed above).
    Rfc6675,
    /// RACK (RFC 8985 §6) as Linux runs it since 4.18 (net.ipv4.tcp_recovery = 1;
    /// `net/ipv4/tcp_recovery.c`, `tcp::rack`): a segment is lost once one sent after it is
    /// delivered and rack.rtt + reo_wnd has passed; recovery starts when one is marked lost
    /// (`tcp_time_to_recover`), and only lost segments are retransmitted
    /// (`tcp_xmit_retransmit_queue`). Without SACK the sender falls back to RFC 6675's rules.
    Rack,
}

/// What a loss halves into the new ssthresh.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LossBasis {
    /// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS), FlightSize being the data
    /// outstanding (SND.NXT - SND.UNA) when the loss is detected.
    FlightSize,
    /// ns-2.35 `TcpAgent::slowdown` (tcp.cc) halves windowd() = min(cwnd_, window_), not
    /// what is in flight (after a timeout and go-back-N the outstanding data can far exceed
    /// cwnd). The basis is that minimum, in bytes; the `ns2-sack1` controller rounds the new
    /// ssthresh down to whole packets as ns-2 does (the others halve the bytes).
    Ns2Window,
    /// Linux `tcp_reno_ssthresh` (net/ipv4/tcp_cong.c): max(snd_cwnd >> 1, 2) packets, on a
    /// fast retransmit (tcp_enter_recovery) and on a timeout (tcp_enter_loss) alike.
    LinuxCwnd,
}

/// What the retransmission timer does when fast retransmit sends the first unacknowledged
/// segment again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FastRetransmitTimer {
    /// Leave it running from the last ACK of new data (RFC 6298 (5.1) arms it only when it is
    /// not running).
    Keep,
    /// Restart it for the retransmission: Linux re-arms the RTO when it retransmits the head
    /// of the queue (tcp_xmit_retransmit_queue: `rearm_timer` for `tcp_rtx_queue_head`),
    /// FreeBSD stops it and lets tcp_output start it again (tcp_input.c, fast retransmit).
    Restart,
    /// ns-2.35: Sack1's dupack_action() calls `reset_rtx_timer(1, 0)` (tcp.cc): the timer is
    /// restarted and the RTT measurement in progress is abandoned (`rtt_active_ = 0`).
    Ns2Reset,
}

/// What a retransmission timeout does to ssthresh.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeoutSsthresh {
    /// RFC 5681 §3.1: eq. (4) at every timeout, except that when the segment the timer
    /// retransmitted times out again (no new ACK between the two timeouts) "the value of
    /// ssthresh is held constant". FlightSize is SND.MAX − SND.UNA, SACKed data included, so a
    /// timeout during SACK recovery may set ssthresh above the value fast retransmit chose.
    Rfc5681,
    /// Linux `tcp_enter_loss` (net/ipv4/tcp_input.c): ssthresh is reduced only when the
    /// connection is Open (or Disorder), when the previous recovery point has been reached
    /// (`!after(tp->high_seq, tp->snd_una)`), or in Loss once an ACK has ended the timer's
    /// backoff (`!icsk_retransmits`); a timeout during fast recovery or a second one in a row
    /// keeps the ssthresh the first reduction set.
    Linux,
    /// ns-2.35 `TcpAgent::timeout` (tcp.cc): `slowdown(CLOSE_SSTHRESH_HALF | ...)` at every
    /// timeout, so back-to-back timeouts take ssthresh down to 2 packets.
    Always,
}

/// Which detectors of spurious retransmissions run (see `tcp::spurious`); any together, as
/// Linux runs F-RTO, timestamp undo and D-SACK undo at once.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SpuriousDetection {
    /// Eifel detection (RFC 3522 §3.2): the first ACK after the timeout's retransmission
    /// echoes a timestamp older than it. Needs timestamps on the connection.
    pub eifel: bool,
    /// F-RTO (RFC 5682 §3.1, SACK-enhanced; works without SACK too): new data after the
    /// timeout, and the next two ACKs tell.
    pub frto: bool,
    /// D-SACK (RFC 3708): every retransmission of a recovery (fast retransmit or timeout)
    /// reported as a duplicate by the receiver. Needs SACK and a receiver that sends D-SACK.
    pub dsack: bool,
}

impl SpuriousDetection {
    /// The detectors' names, in the order `vho schema` lists them.
    pub const NAMES: [&'static str; 3] = ["frto", "eifel", "dsack"];

    pub fn any(&self) -> bool {
        self.eifel || self.frto || self.dsack
    }

    /// The names of the detectors on.
    pub fn names(&self) -> Vec<&'static str> {
        let on = [self.frto, self.eifel, self.dsack];
        Self::NAMES
            .into_iter()
            .zip(on)
            .filter_map(|(n, o)| o.then_some(n))
            .collect()
    }
}

/// Which rules undo a reduction that proves unnecessary: each detector of
/// [`SpuriousDetection`] by its own document, or Linux's undo (`tcp::sender::undo`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum UndoRules {
    /// Eifel (RFC 3522 §3.2) at the first acceptable ACK after a timeout, RFC 3708's D-SACK
    /// verdict once the recovery point is reached, F-RTO (RFC 5682).
    #[default]
    Detectors,
    /// Linux's (net/ipv4/tcp_input.c): `undo_marker`, `undo_retrans` and `retrans_stamp`
    /// checked at every ACK in Recovery and Loss (`tcp_try_undo_loss`, `tcp_try_undo_partial`,
    /// `tcp_try_undo_recovery`, `tcp_try_undo_dsack`); the detectors say which evidence counts
    /// (`eifel`: timestamps, `tcp_packet_delayed`; `dsack`: D-SACKs counted against
    /// `undo_retrans`; `frto`: F-RTO), and an undo of a fast recovery raises the reordering
    /// degree the duplicate-ACK threshold uses (`tcp_check_sack_reordering`).
    Linux,
}

/// What the sender does once a timeout is found spurious (see `tcp::spurious::response`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SpuriousResponse {
    /// cwnd = min(cwnd, ssthresh): congestion avoidance (RFC 5682 §4; Linux 2.6.22).
    Conservative,
    /// RFC 4015 §3.1 steps (8)-(11).
    Eifel,
    /// Restore cwnd and ssthresh (Linux's tcp_undo_cwnd).
    Undo,
    /// Resume new data, keep the window the timeout left (Daniel & Kojo §8).
    NoRestore,
}

/// Which segments give RTT samples when timestamps are off.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum RttSampling {
    /// One segment timed at a time, none retransmitted (RFC 6298 §3, Karn's algorithm; 4.4BSD
    /// and ns-2 time one segment per round trip).
    #[default]
    OnePerRtt,
    /// Every segment an ACK frees, from its latest transmission, none while a timeout's
    /// retransmissions are under way (Linux 2.0's `tcp_ack`; `tcp::sender::freed_samples`).
    EveryFreedSegment,
}

/// Whether cwnd grows on ACKs that come while the sender is not using its window.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CwndValidation {
    /// cwnd grows on every ACK of new data (RFC 5681 as written; ns-2).
    Off,
    /// cwnd grows only while the sender is cwnd-limited, as Linux's `tcp_is_cwnd_limited`
    /// (include/net/tcp.h): in slow start while cwnd < 2 × the most packets out in the last
    /// window, otherwise when the last window was used in full. RFC 7661 §4.3's rule in
    /// effect: a sender that is not using its cwnd must not increase it.
    CwndLimited,
}

/// How the retransmission timer is computed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RtoAlgorithm {
    /// RFC 6298 §2 with alpha = 1/8, beta = 1/4, K = 4 and the clock granularity G in
    /// `RTO = SRTT + max(G, K*RTTVAR)`.
    Rfc6298,
    /// ns-2's `TcpAgent::rtt_update` (tcp.cc): samples counted in whole `tcp_tick`s, SRTT and
    /// RTTVAR kept as scaled integers (3 and 2 fraction bits), RTO rounded to ticks.
    Ns2Ticks,
    /// Linux 2.0's `tcp_rtt_estimator` (net/ipv4/tcp_input.c): samples in jiffies (the
    /// granularity, 10 ms at HZ = 100), at least one; rtt kept ×8 and mdev ×4, the first
    /// sample giving RTO = 3·RTT; RTO = R + R/4 + R >> (cwnd − 1) with R = A + 4D, in whole
    /// jiffies, within [min, max].
    Linux20,
    /// A modern Linux kernel's `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c,
    /// include/net/tcp.h; `tcp::rtt_linux`): samples in µs, SRTT ×8 and mdev ×4, a finer gain
    /// for falling samples, the variance term following the flight's largest mdev and
    /// decaying once per flight, never below `min` (TCP_RTO_MIN); RTO = SRTT + variance term
    /// rounded up to a jiffy (the granularity), at most `max` (TCP_RTO_MAX).
    Linux,
}

/// How bytes on the wire are counted for a segment (what links serialise and queue).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HeaderModel {
    /// IPv4 20 bytes + TCP 20 bytes + the options actually carried.
    Real,
    /// ns-2's sizes: a fixed header whatever the options (`tcpip_base_hdr_size_`) plus 8
    /// bytes per SACK block, as Sack1's sink grows its ACKs (tcp-sink.cc, Sacker::append_ack:
    /// `ch->size() += sack_index * 8`).
    Ns2(u32),
}

impl HeaderModel {
    /// Bytes on the wire of `seg`. Each model reads only what it counts: the options' length
    /// is worked out for `Real` alone (computing it for every ns-2 packet cost 1.3 % of the
    /// 20 MB cell's instructions).
    #[inline(always)]
    pub fn segment_bytes(self, seg: &super::Segment) -> u32 {
        match self {
            HeaderModel::Real => 20 + seg.header_len() + seg.len,
            HeaderModel::Ns2(_) => self.wire_bytes(0, seg.options.sack.len() as u32, seg.len),
        }
    }

    /// Bytes on the wire of a segment with a TCP header of `tcp_header` bytes (options
    /// included), `sack_blocks` SACK blocks among them, and `payload` bytes.
    #[inline(always)]
    pub fn wire_bytes(self, tcp_header: u32, sack_blocks: u32, payload: u32) -> u32 {
        match self {
            HeaderModel::Real => 20 + tcp_header + payload,
            HeaderModel::Ns2(h) => h + 8 * sack_blocks + payload,
        }
    }
}

/// Retransmission timer parameters (RFC 6298).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RtoConfig {
    pub algorithm: RtoAlgorithm,
    /// RTO before the first RTT sample (RFC 6298 §2.1).
    pub initial: Dur,
    /// Lower bound on the RTO (RFC 6298 §2.4).
    pub min: Dur,
    /// Upper bound on the RTO (RFC 6298 §2.5).
    pub max: Dur,
    /// Clock granularity G (RFC 6298 §2.3 / §4); ns-2's `tcpTick_`.
    pub granularity: Dur,
    /// Phase of the tick clock (ns-2's `boot_time_`, uniform in one tick, drawn per flow from
    /// the run's seed); zero elsewhere.
    pub tick_phase: Dur,
    /// Most doublings of the RTO under backoff before it stops growing (ns-2 caps the
    /// backoff multiplier at 64, Linux at `TCP_RTO_MAX`).
    pub max_backoff_shift: u32,
}

/// Delayed ACK behaviour of the receiver (RFC 1122 §4.2.3.2, RFC 5681 §4.2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DelAckConfig {
    pub enabled: bool,
    /// The delayed-ACK timer (must be < 500 ms, RFC 5681 §4.2).
    pub timeout: Dur,
    /// ACK at least every this many full-sized segments (2 in RFC 5681 §4.2).
    pub every: u32,
    /// Count of segments ACKed immediately at connection start (Linux quickack mode).
    pub quickack_segments: u32,
    /// ACK a segment shorter than the MSS at once (it ends a burst: waiting for a second
    /// would only add the timer). ns-2's DelAck sink does not look at sizes.
    pub short_segment_acks_at_once: bool,
    /// A duplicate of the last in-order segment is handled as an in-order arrival (its ACK
    /// may wait) instead of being acknowledged at once (RFC 9293 §3.10.7.4). ns-2's
    /// `DelAckSink::recv` (tcp-sink.cc) delays whenever the packet's seqno equals the highest
    /// in-order seqno after the update, which a duplicate of that packet also satisfies.
    pub duplicate_of_last_is_in_order: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TcpConfig {
    /// Profile name this configuration came from (for the record).
    pub profile: &'static str,
    /// Sender maximum segment size: payload bytes in a full segment.
    pub mss: u32,
    /// Run the three-way handshake with the MSS option before data (RFC 9293 §3.5). Without
    /// it both ends start ESTABLISHED (ns-2's one-way agents).
    pub handshake: bool,
    /// Without a handshake: send ns-2's modelled SYN first (Agent/TCP `syn_ true` with
    /// `delay_growth_ true`, ns-default.tcl:937 and :1062; tcp.cc:436, :711, :1829): a
    /// header-only packet, one round trip before the data, whose ACK sets cwnd to the
    /// initial window.
    pub one_way_syn: bool,
    /// Send FIN after the last byte and let the receiver ACK it.
    pub fin: bool,
    pub cc: CcAlgorithm,
    /// Use the SACK option and RFC 6675 loss recovery (both ends must agree).
    pub sack: bool,
    /// The receiver reports each duplicate segment in a D-SACK block, the first block of its
    /// next ACK (RFC 2883 §4), when SACK is negotiated (RFC 2883 §2: no negotiation of its own).
    pub dsack: bool,
    /// Timestamps option (RFC 7323 §3).
    pub timestamps: bool,
    /// With timestamps negotiated, the receiver drops a data segment whose TSval is older than
    /// TS.Recent and acknowledges at once (PAWS, RFC 7323 §5.3 R1; Linux's
    /// `tcp_validate_incoming` → `tcp_paws_discard`, one tick of slack `TCP_PAWS_WINDOW`).
    pub paws: bool,
    /// The sender paces its data segments as Linux does (`tcp_update_pacing_rate`,
    /// `tcp_pacing_check`): `tcp::sender::pacing`.
    pub pacing: bool,
    /// Window scale shift the receiver offers (RFC 7323 §2); `None` sends no option.
    pub window_scale: Option<u8>,
    /// Initial congestion window, in segments (RFC 5681 §3.1 IW; RFC 6928 IW10).
    pub initial_window_segments: u32,
    /// Initial slow-start threshold, bytes (RFC 5681 §3.1: arbitrarily high).
    pub initial_ssthresh: u32,
    /// Duplicate-ACK threshold (RFC 5681 §3.2: 3).
    pub dupthresh: u32,
    /// What fast retransmit does to the retransmission timer.
    pub timer_at_fast_retransmit: FastRetransmitTimer,
    /// What a retransmission timeout does to ssthresh.
    pub timeout_ssthresh: TimeoutSsthresh,
    /// After a retransmission timeout keep the SACK scoreboard and resend only what it does
    /// not show SACKed (RFC 6675 §5.1: "A SACK TCP sender SHOULD utilize all SACK information
    /// made available during the loss recovery following an RTO"; Linux's tcp_enter_loss
    /// keeps the SACKed marks unless the receiver reneged). Off: forget it and go back N.
    pub rto_keeps_sack: bool,
    /// Which detectors of spurious retransmissions run (none: every loss is believed).
    pub spurious_detection: SpuriousDetection,
    /// What a spurious timeout's detection does.
    pub spurious_response: SpuriousResponse,
    /// On a handover notification, reset the RTO to its initial value and forget the RTT
    /// estimate (thesis §8.1: "reset the RTO value after a handover to an initial value").
    pub rto_reset: bool,
    /// On a handover notification, start over on the new path: `rto_reset`, and cwnd back to
    /// the initial window, ssthresh to its initial value (thesis §7.1.5; Daniel & Kojo §8:
    /// "treated as a new connection").
    pub new_path: bool,
    /// Let the RTO fall at once when several RTT samples agree far below SRTT (thesis §7.2.2,
    /// §8.1; the rule: `tcp::rtt::FastDecrease`).
    pub fast_rto_decrease: bool,
    /// On a handover notification, raise the RTT estimate to the one last measured on the
    /// interface taken, plus a margin (Cottingham & Vidales §7).
    pub rtt_injection: bool,
    /// On a notification of a handover to a faster link, raise the duplicate-ACK threshold
    /// until what was sent before it is acknowledged, so that segments still on the old, slower
    /// path do not trigger a fast retransmit when the new path's overtake them (Daniel & Kojo
    /// §2; the rule: `tcp::dupthresh`).
    pub adaptive_dupthresh: bool,
    /// The oracle sender (issue 19 item 3; `tcp::oracle`): at each handover the world tells it
    /// the new path's rate and base RTT, and from then on it retransmits only what the network
    /// really dropped and never fills a queue. The bound every remedy is measured against.
    pub oracle: bool,
    /// Fast recovery's window by Proportional Rate Reduction (RFC 6937, PRR-SSRB as Linux's
    /// `tcp_cwnd_reduction`; `tcp::prr`) instead of RFC 6675's cwnd = ssthresh at once. With
    /// SACK only (vho's non-SACK recovery keeps RFC 6582's inflation).
    pub prr: bool,
    /// How slow start and congestion avoidance count what an ACK acknowledged (Reno and
    /// NewReno; CUBIC counts as Linux always).
    pub cwnd_counting: CwndCounting,
    /// Which F-RTO runs when `spurious_detection` has it.
    pub frto_variant: FrtoVariant,
    /// Which rules undo a reduction (see [`UndoRules`]).
    pub undo: UndoRules,
    /// RFC 6675 §4 NextSeg rule (4): one "rescue" retransmission of the highest unSACKed
    /// segment per recovery when rules (1)-(3) find nothing, to keep the ACK clock going
    /// when the tail of the window is lost.
    pub rescue_retransmission: bool,
    /// A retransmitted segment stays marked until it is acknowledged, SACKed or marked lost
    /// again by a timeout, and RFC 6675 recovery neither resends a marked segment nor leaves
    /// it out of the pipe, across recoveries (Linux's TCPCB_SACKED_RETRANS:
    /// `tcp_xmit_retransmit_queue` skips it, `tcp_packets_in_flight` counts `retrans_out`,
    /// `tcp_mark_skb_lost` clears it). Off: HighRxt alone (RFC 6675 §4), which each new
    /// recovery resets to SND.UNA, so a retransmission still in flight may go again. RACK
    /// keeps its own marks (`tcp::rack`).
    pub retransmission_marks: bool,
    /// Whether cwnd grows while the sender does not use it.
    pub cwnd_validation: CwndValidation,
    /// Take an RTT sample from the handshake (RFC 6298 §2 allows it; Linux's passive side
    /// measures SYN-ACK to ACK in tcp_synack_rtt_meas).
    pub handshake_rtt_sample: bool,
    /// Which segments are timed without timestamps.
    pub rtt_sampling: RttSampling,
    /// After a timeout, send no new data until everything outstanding is acknowledged: Linux
    /// 2.0's `tcp_ack` moves data from the write queue only while `sk->retransmits == 0`
    /// (or below the ACK), and clears `retransmits` when the retransmission queue empties.
    pub timeout_holds_new_data: bool,
    /// Limited Transmit (RFC 3042; RFC 5681 §3.2 step 1): one segment of new data on each of
    /// the first DupThresh - 1 duplicate ACKs, beyond cwnd, cwnd unchanged.
    pub limited_transmit: bool,
    /// With SACK, also enter loss recovery when RFC 6675's IsLost(HighACK + 1) holds (DupThresh
    /// segments SACKed above it, RFC 6675 §5), not only on the DupThresh-th duplicate ACK.
    pub sack_is_lost_trigger: bool,
    /// After a retransmission timeout, go back to counting duplicate ACKs (and to Limited
    /// Transmit) at the first ACK of new data, as ns-2's `timeout_` flag (tcp-sack1.cc:
    /// cleared by the first new ACK), instead of once all that was outstanding at the timeout
    /// is acknowledged. Fast retransmit stays barred until then either way (`recover`,
    /// RFC 6582 §3.2 step 1; ns-2's `bug_fix_`).
    pub dupacks_after_timeout_new_ack: bool,
    /// Forget the SACK scoreboard at every ACK of new data except a partial ACK in fast
    /// recovery, as ns-2's Sack1 (`scb_->ClearScoreBoard()` in recv()); RFC 6675 keeps it. A
    /// duplicate ACK that repeats SACK blocks after a new ACK then counts again.
    pub sack_forget_on_new_ack: bool,
    /// Loss recovery with SACK: what is sent while in fast recovery.
    pub sack_recovery: SackRecovery,
    /// How a SACK sender decides a segment is lost (RFC 6675's counts or RACK).
    pub loss_detection: LossDetection,
    /// Tail loss probe (RFC 8985 §7 as Linux's `tcp_schedule_loss_probe` /
    /// `tcp_send_loss_probe`; `tcp::sender::tlp`), with SACK: one segment at about two SRTTs
    /// when nothing else would reveal a lost tail before the RTO.
    pub tlp: bool,
    /// Receive window the receiver advertises, bytes.
    pub receive_window: u32,
    /// Sender-side cap on the window, bytes (ns-2's `window_`; a socket send buffer).
    pub send_window_cap: u32,
    /// What a loss (fast retransmit or timeout) halves into ssthresh.
    pub loss_basis: LossBasis,
    pub rto: RtoConfig,
    pub delack: DelAckConfig,
    /// Bytes on the wire per segment.
    pub header_model: HeaderModel,
}
