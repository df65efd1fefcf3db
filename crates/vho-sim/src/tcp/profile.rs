//! Named bundles of TCP defaults. Each value says where it comes from.
//!
//! - `rfc`: the standards as written: RFC 5681 congestion control, RFC 6582 NewReno, RFC 2018
//!   and RFC 6675 SACK recovery, RFC 6298 timer with its 1 s minimum.
//! - `linux`: a Linux host's defaults (values of `include/net/tcp.h` and the sysctl defaults
//!   of `Documentation/networking/ip-sysctl.rst`) and Linux's own mechanisms, each cited in
//!   its file to `net/ipv4/tcp_*.c`: the RTO estimator (`tcp_rtt_estimator`,
//!   `tcp::rtt_linux`, HZ = 1000), CUBIC with HyStart (`tcp::cc::cubic`), PRR in fast
//!   recovery (`tcp::prr`), `tcp_enter_loss`'s ssthresh rule, SACK-enhanced F-RTO, Linux's
//!   undo (`undo = "linux"`, `tcp::sender::undo`: `undo_marker`, `undo_retrans` and
//!   `retrans_stamp` checked at every ACK in Recovery and Loss — `tcp_try_undo_loss`,
//!   `tcp_try_undo_partial`, `tcp_try_undo_recovery`, `tcp_try_undo_dsack` — restoring cwnd
//!   and `tcp_current_ssthresh`, an undone fast recovery raising `tp->reordering`), Reno's
//!   and NewReno's growth in segments (`tcp_reno_cong_avoid`, `cwnd_counting`), RACK loss
//!   detection (`loss_detection = "rack"`, RFC 8985 §6, `tcp::rack`: `tcp_rack_advance`,
//!   `tcp_rack_detect_loss` with `tcp_rack_reo_wnd` and its D-SACK steps, the reorder timer
//!   `tcp_rack_reo_timeout` in the RTO's slot, recovery when a segment is marked lost and
//!   from a timeout's recovery when a retransmission is lost again,
//!   `tcp_xmit_retransmit_queue` sending only lost segments and restarting the RTO when it
//!   resends the head, `tcp_packets_in_flight` as
//!   PRR's pipe and RACK's marks as its `newly_lost`) and Linux's reordering degree
//!   (`tcp_check_sack_reordering` from SACKs, and from undos: `tp->reordering` up to 300,
//!   `reord_seen`; lowered by `tcp_enter_loss`), which RACK's reo_wnd and, without RACK, the
//!   duplicate-ACK threshold read (`tcp_time_to_recover`).
//!   The tail loss probe (`tlp`, RFC 8985 §7, `tcp::sender::tlp`: `tcp_schedule_loss_probe`,
//!   `tcp_send_loss_probe`, `tcp_process_tlp_ack`).
//!   Not Linux:
//!   - RACK's min_rtt is the least RTT RACK measured (300 s window, one value
//!     kept, not `tcp_min_rtt`'s three-sample filter over all samples); after a timeout the
//!     segments marked lost (`tcp_timeout_mark_lost`: the head, and those sent at least
//!     RACK.rtt ago) are resent go-back-N from SND.UNA, with what RACK marks lost since
//!     resent first, under cwnd counted from SND.UNA (Linux: cwnd = packets in flight + 1 at
//!     `tcp_enter_loss`, the same allowance); `tcp_may_raise_cwnd` is not modelled;
//!   - RTT samples are the timestamp echo's (whole ms) or, without timestamps, one timed
//!     segment per round trip, not the µs send times of every (S)ACKed segment
//!     (`tcp_clean_rtx_queue`), except that with RACK an ACK that moves no SND.UNA but
//!     SACKs a never-retransmitted segment is timed by that segment's send time (Linux's
//!     `sack_rtt_us`); CUBIC and HyStart read the same samples;
//!   - undo approximates Linux's `retrans_out` (a retransmission is out while some byte below
//!     HighRxt is not cumulatively acknowledged), has no Disorder state (vho's Open, where a
//!     D-SACK undo may still come), and counts every D-SACKed segment above `undo_marker`
//!     against `undo_retrans` (vho's links never duplicate a packet);
//!   - no pacing by default (`pacing`, `tcp::sender::pacing`, is there but off: Linux paces
//!     reno and cubic only under sch_fq or when asked), no TSO or TSQ; cwnd in bytes, whole
//!     segments after each growth.
//! - `ns2`: ns-2.35's `Agent/TCP/Sack1` sender and `Agent/TCPSink/Sack1/DelAck` receiver with
//!   the defaults of `tcl/lib/ns-default.tcl` (lines cited below) and the RTO arithmetic of
//!   `tcp/tcp.cc` (see `rtt.rs`). Deviations: ns-2 counts cwnd in packets and sizes windows in
//!   packets of `packetSize_`; vho counts bytes with every segment full-sized, which is the
//!   same for a bulk transfer. ns-2's Sack1 recovery is Reno-like with a `pipe_` count; vho
//!   runs RFC 6675 (the algorithm Sack1 approximates).

use super::config::{
    CcAlgorithm, CwndCounting, CwndValidation, DelAckConfig, FastRetransmitTimer, FrtoVariant,
    HeaderModel, LossBasis, LossDetection, RtoAlgorithm, RtoConfig, RttSampling, SackRecovery,
    SpuriousDetection, SpuriousResponse, TcpConfig, TimeoutSsthresh, UndoRules,
};
use crate::time::Dur;

pub const PROFILES: &[&str] = &["rfc", "linux", "ns2", "linux-2.0"];

/// The profile called `name`.
pub fn profile(name: &str) -> Option<TcpConfig> {
    match name {
        "rfc" => Some(rfc()),
        "linux" => Some(linux()),
        "ns2" => Some(ns2()),
        "linux-2.0" => Some(linux20()),
        _ => None,
    }
}

/// RFC 5681 §3.1 initial window: 2, 3 or 4 segments depending on SMSS.
pub fn rfc5681_initial_window(mss: u32) -> u32 {
    if mss > 2190 {
        2
    } else if mss > 1095 {
        3
    } else {
        4
    }
}

fn rfc() -> TcpConfig {
    let mss = 1460; // Ethernet MTU 1500 − 20 (IPv4) − 20 (TCP) (RFC 9293 §3.7.1)
    TcpConfig {
        profile: "rfc",
        mss,
        handshake: true,
        one_way_syn: false,
        fin: true,
        cc: CcAlgorithm::NewReno, // RFC 6582
        sack: true,               // RFC 2018 / RFC 6675
        timestamps: false,        // RFC 7323 is optional
        // RFC 7323 §5 goes with the option; vho's rfc profile leaves it off so that a remedy
        // adding timestamps for Eifel (RFC 3522) changes the sender alone (vho's choice).
        paws: false,
        pacing: false,
        window_scale: None, // RFC 7323 is optional
        initial_window_segments: rfc5681_initial_window(mss), // RFC 5681 §3.1
        initial_ssthresh: u32::MAX, // RFC 5681 §3.1: "arbitrarily high"
        dupthresh: 3,       // RFC 5681 §3.2
        // RFC 6298 leaves open whether fast retransmit restarts the timer ((5.1) arms it only
        // when it is not running). vho's rfc profile restarts it, as Linux, FreeBSD and ns-2
        // all do: left running from the last new ACK, it expires about one RTO after the
        // head was first sent, which on a slow link is before the retransmission can be
        // acknowledged (benches/ns2_lossy_links.py: without ns-2's restart, the ns2 profile
        // timed out 2.5 to 19 times as often as ns-2.35 on lossy GPRS).
        timer_at_fast_retransmit: FastRetransmitTimer::Restart,
        timeout_ssthresh: TimeoutSsthresh::Rfc5681, // RFC 5681 §3.1 eq. (4), held on a repeat
        rto_keeps_sack: true,                       // RFC 6675 §5.1 SHOULD
        // Eifel (RFC 3522) and F-RTO (RFC 5682) are Experimental/Proposed additions, not
        // the base standards this profile follows; a remedy switches them on.
        spurious_detection: SpuriousDetection::default(),
        spurious_response: SpuriousResponse::Eifel, // RFC 4015, when detection is on
        // Handover-aware remedies (issue 19): no standard has them; a remedy turns them on.
        rto_reset: false,
        new_path: false,
        fast_rto_decrease: false,
        rtt_injection: false,
        adaptive_dupthresh: false,
        oracle: false,
        rescue_retransmission: true, // RFC 6675 §4 NextSeg rule (4): SHOULD
        retransmission_marks: false, // RFC 6675 §4: HighRxt, reset at each recovery
        prr: false,                  // RFC 6937 is Experimental; RFC 6675 §5 sets cwnd = ssthresh
        cwnd_counting: CwndCounting::Rfc5681,
        frto_variant: FrtoVariant::Rfc5682,
        undo: UndoRules::Detectors,
        // RFC 7661 is Experimental, but its §4.3 rule (no growth while the window is not
        // used) is what keeps cwnd meaningful when the receive window or the application
        // limits the sender; RFC 5681 as written lets cwnd grow without bound there.
        cwnd_validation: CwndValidation::CwndLimited,
        handshake_rtt_sample: true, // RFC 6298 §2: any segment not retransmitted may be timed
        rtt_sampling: RttSampling::OnePerRtt,
        timeout_holds_new_data: false,
        limited_transmit: true, // RFC 5681 §3.2 step 1: "SHOULD" (RFC 3042)
        sack_is_lost_trigger: true, // RFC 6675 §5: "or ... IsLost (HighACK + 1)"
        // RFC 6582 §3.2: after a timeout, `recover` bars fast retransmit; duplicate ACKs are
        // not counted until all outstanding at the timeout is acknowledged.
        dupacks_after_timeout_new_ack: false,
        sack_forget_on_new_ack: false, // RFC 6675 §5: the scoreboard lives across ACKs
        sack_recovery: SackRecovery::Rfc6675, // RFC 6675 §5
        loss_detection: LossDetection::Rfc6675, // RFC 6675 §5: DupThresh and IsLost
        tlp: false,
        receive_window: 65_535, // the largest window without scaling (RFC 9293 §3.1)
        send_window_cap: u32::MAX,
        loss_basis: LossBasis::FlightSize, // RFC 5681 eq. (4)
        rto: RtoConfig {
            algorithm: RtoAlgorithm::Rfc6298,
            initial: Dur::from_secs(1),       // RFC 6298 (2.1)
            min: Dur::from_secs(1),           // RFC 6298 (2.4)
            max: Dur::from_secs(60),          // RFC 6298 (2.5): at least 60 s
            granularity: Dur::from_millis(1), // vho default: RFC 6298 §4 favours G <= 100 ms
            tick_phase: Dur::ZERO,
            max_backoff_shift: 16, // bounded by `max`
        },
        delack: DelAckConfig {
            enabled: true,                  // RFC 5681 §4.2 SHOULD
            timeout: Dur::from_millis(200), // RFC 5681 §4.2: < 500 ms; 200 ms is the common value
            every: 2, // RFC 5681 §4.2: at least every second full-sized segment
            quickack_segments: 0,
            short_segment_acks_at_once: true, // vho's choice: RFC 5681 §4.2 leaves it open
            duplicate_of_last_is_in_order: false, // RFC 9293 §3.10.7.4: ACK duplicates at once
        },
        // RFC 2883 is an option the base standards do not require; a remedy turns it on.
        dsack: false,
        header_model: HeaderModel::Real,
    }
}

fn linux() -> TcpConfig {
    TcpConfig {
        profile: "linux",
        // 1500 − 40 − 12: Linux sends 1448-byte payloads when timestamps take 12 option bytes.
        mss: 1448,
        handshake: true,
        one_way_syn: false,
        fin: true,
        cc: CcAlgorithm::Cubic, // net.ipv4.tcp_congestion_control = cubic (the default)
        sack: true,             // net.ipv4.tcp_sack = 1
        timestamps: true,       // net.ipv4.tcp_timestamps = 1
        paws: true,             // tcp_validate_incoming: tcp_paws_discard, always with timestamps
        // Linux paces reno and cubic only under sch_fq or SO_MAX_PACING_RATE (tcp_needs_internal_
        // pacing: sk_pacing_status); born reno or cubic under vho emulate they do not.
        pacing: false,
        window_scale: Some(7), // net.ipv4.tcp_window_scaling = 1; shift 7 for the default rmem
        initial_window_segments: 10, // TCP_INIT_CWND (include/net/tcp.h), RFC 6928
        initial_ssthresh: 0x7fff_ffff, // TCP_INFINITE_SSTHRESH (include/net/tcp.h)
        dupthresh: 3,          // net.ipv4.tcp_reordering = 3
        // tcp_xmit_retransmit_queue re-arms the RTO when it retransmits the queue's head.
        timer_at_fast_retransmit: FastRetransmitTimer::Restart,
        timeout_ssthresh: TimeoutSsthresh::Linux, // tcp_enter_loss
        rto_keeps_sack: true, // tcp_enter_loss keeps TCPCB_SACKED_ACKED unless reneging
        // net.ipv4.tcp_frto = 2 (SACK-enhanced F-RTO, the only one since 3.10), undo by
        // timestamps (tcp_packet_delayed: the echo predates the retransmission, as Eifel) and
        // by D-SACK (tcp_try_undo_dsack / undo_retrans, RFC 3708's counting); the response
        // restores cwnd and ssthresh (tcp_undo_cwnd). benches/dk_profiles.py measured what
        // this did to the Daniel & Kojo cells (docs/tcp-profiles-dk-cells.md).
        spurious_detection: SpuriousDetection {
            frto: true,
            eifel: true,
            dsack: true,
        },
        spurious_response: SpuriousResponse::Undo,
        rto_reset: false, // Linux has no handover notification
        new_path: false,
        fast_rto_decrease: false,
        rtt_injection: false,
        adaptive_dupthresh: false,
        oracle: false,
        // tcp_xmit_retransmit_queue has no rescue rule; its tail-loss answer is TLP (RFC 8985
        // §7, `tlp`).
        rescue_retransmission: false,
        // TCPCB_SACKED_RETRANS (tcp_retransmit_skb; tcp_xmit_retransmit_queue skips it)
        retransmission_marks: true,
        prr: true, // tcp_cwnd_reduction (net/ipv4/tcp_input.c), since Linux 3.2
        cwnd_counting: CwndCounting::Linux, // tcp_reno_cong_avoid (net/ipv4/tcp_cong.c)
        frto_variant: FrtoVariant::Linux, // tcp_process_loss (net/ipv4/tcp_input.c)
        // tcp_try_undo_{loss,partial,recovery,dsack} (net/ipv4/tcp_input.c): tcp::sender::undo
        undo: UndoRules::Linux,
        cwnd_validation: CwndValidation::CwndLimited, // tcp_is_cwnd_limited (include/net/tcp.h)
        handshake_rtt_sample: true,                   // tcp_synack_rtt_meas
        rtt_sampling: RttSampling::OnePerRtt,
        timeout_holds_new_data: false,
        // Linux counts SACKed (or, without SACK, duplicate-ACKed) segments out of
        // tcp_packets_in_flight, so each early duplicate ACK lets a new segment out.
        limited_transmit: true,
        // tcp_time_to_recover: recovery once sacked_out + 1 > tp->reordering (3).
        sack_is_lost_trigger: true,
        dupacks_after_timeout_new_ack: false,
        sack_forget_on_new_ack: false,
        sack_recovery: SackRecovery::Rfc6675,
        // net.ipv4.tcp_recovery = 1 (TCP_RACK_LOSS_DETECTION, the default since 4.18)
        loss_detection: LossDetection::Rack,
        // net.ipv4.tcp_early_retrans = 3 (TLP on, the default since 4.10 with RACK)
        tlp: true,
        receive_window: 131_072, // net.ipv4.tcp_rmem default (second value)
        send_window_cap: u32::MAX,
        loss_basis: LossBasis::LinuxCwnd, // tcp_reno_ssthresh (net/ipv4/tcp_cong.c)
        rto: RtoConfig {
            // tcp_rtt_estimator + __tcp_set_rto + tcp_bound_rto (tcp::rtt_linux): mdev_max per
            // flight, the variance term never below tcp_rto_min, so RTO >= SRTT + 200 ms.
            algorithm: RtoAlgorithm::Linux,
            initial: Dur::from_secs(1), // TCP_TIMEOUT_INIT = 1 s (include/net/tcp.h)
            min: Dur::from_millis(200), // TCP_RTO_MIN = HZ/5
            max: Dur::from_secs(120),   // TCP_RTO_MAX = 120 s
            // One jiffy at HZ = 1000 (CONFIG_HZ_1000: Fedora, Arch); Debian and Ubuntu
            // kernels build HZ = 250, a 4 ms jiffy (`granularity = "4 ms"`).
            granularity: Dur::from_millis(1),
            tick_phase: Dur::ZERO,
            // The backoff doubles the RTO until TCP_RTO_MAX caps it (inet_csk_rto_backoff:
            // icsk_rto << icsk_backoff, clamped); 16 doublings reach it from any RTO >= 2 ms.
            // (tcp_retries2 = 15 is when Linux gives the connection up, not a backoff bound.)
            max_backoff_shift: 16,
        },
        delack: DelAckConfig {
            enabled: true,
            timeout: Dur::from_millis(40), // TCP_DELACK_MIN = HZ/25
            every: 2,
            quickack_segments: 16, // TCP_MAX_QUICKACKS: quick-ACK mode at connection start
            // __tcp_ack_snd_check (net/ipv4/tcp_input.c): a short segment with nothing more
            // queued to read is ACKed at once (tcp_in_quickack_mode / rcv_mss estimate)
            short_segment_acks_at_once: true,
            duplicate_of_last_is_in_order: false, // tcp_data_queue: out of window -> dup ACK
        },
        dsack: true, // net.ipv4.tcp_dsack = 1
        header_model: HeaderModel::Real,
    }
}

fn ns2() -> TcpConfig {
    let packet_size = 1000; // Agent/TCP packetSize_ 1000 (ns-default.tcl:951): payload bytes
    let window = 20; // Agent/TCP window_ 20 packets (ns-default.tcl:934)
    TcpConfig {
        profile: "ns2",
        mss: packet_size,
        handshake: false,  // one-way Agent/TCP: no SYN exchange with options...
        one_way_syn: true, // ...but a modelled SYN first: syn_ true (ns-default.tcl:937)
        fin: false,
        // Sack1 leaves recovery at the recovery point (tcp-sack1.cc) and halves with
        // precisionReduce_ 1 (tcp.cc slowdown; `ns` prints 1): cc/ns2_sack1.rs
        cc: CcAlgorithm::Ns2Sack1,
        sack: true,
        timestamps: false, // Agent/TCP timestamps_ false (ns-default.tcl:961)
        paws: false,       // ns-2's sinks keep no TS.Recent
        pacing: false,     // ns-2's Agent/TCP sends at once
        // No window-scale option exists in ns-2; the sink advertises no window. vho lets its
        // receiver advertise a window too large to matter (2^30 with shift 14) so that only
        // window_ limits, as in ns-2.
        window_scale: Some(14),
        initial_window_segments: 2, // Agent/TCP windowInit_ 2 (ns-default.tcl:935)
        initial_ssthresh: window * packet_size, // ssthresh_ = int(wnd_) at reset (tcp.cc:473)
        dupthresh: 3,               // Agent/TCP numdupacks_ 3 (ns-default.tcl:924)
        // tcp-sack1.cc dupack_action(): reset_rtx_timer(1, 0) restarts the timer and clears
        // rtt_active_.
        timer_at_fast_retransmit: FastRetransmitTimer::Ns2Reset,
        timeout_ssthresh: TimeoutSsthresh::Always, // tcp.cc TcpAgent::timeout -> slowdown()
        rto_keeps_sack: false, // Sack1TcpAgent::timeout: scb_->ClearScoreBoard()
        spurious_detection: SpuriousDetection::default(), // ns-2.35's Sack1 has neither Eifel nor F-RTO
        spurious_response: SpuriousResponse::Eifel,
        rto_reset: false, // ns-2.35 has no handover notification
        new_path: false,
        fast_rto_decrease: false,
        rtt_injection: false,
        adaptive_dupthresh: false,
        oracle: false,
        rescue_retransmission: false,         // not in tcp-sack1.cc
        retransmission_marks: false,          // tcp-sack1.cc: its own GetNextRetran
        prr: false,                           // not in tcp-sack1.cc
        cwnd_counting: CwndCounting::Rfc5681, // opencwnd: per ACK (tcp.cc)
        frto_variant: FrtoVariant::Rfc5682,   // no F-RTO in tcp-sack1.cc (off)
        undo: UndoRules::Detectors,
        cwnd_validation: CwndValidation::Off, // opencwnd() on every new ACK (tcp.cc)
        handshake_rtt_sample: false,          // one-way agents: no handshake
        rtt_sampling: RttSampling::OnePerRtt,
        timeout_holds_new_data: false,
        // Agent/TCP singledup_ 1 (ns-default.tcl; `ns` prints it): send_one() on the first
        // and second duplicate ACK, t_seqno_ <= highest_ack_ + cwnd_ + dupacks_ (tcp.cc).
        limited_transmit: true,
        // Sack1TcpAgent::recv: dupack_action() only when ++dupacks_ == numdupacks_; what the
        // scoreboard holds does not start recovery.
        sack_is_lost_trigger: false,
        // tcp-sack1.cc recv(): duplicate ACKs count (and send_one() sends) again once an ACK
        // of new data has cleared timeout_; dupack_action() still refuses fast retransmit
        // while highest_ack_ <= recover_ (bug_fix_ true, ns-default.tcl).
        dupacks_after_timeout_new_ack: true,
        // tcp-sack1.cc recv(): ClearScoreBoard() on every new ACK outside fast recovery and
        // when recovery ends; only the SACK blocks since then make a duplicate ACK count.
        sack_forget_on_new_ack: true,
        // tcp-sack1.cc dupack_action(), recv() and send_much() with partial_ack_ 0 (`ns`
        // prints it): pipe_ and ScoreBoardRQ::GetNextRetran.
        sack_recovery: SackRecovery::Ns2Sack1,
        loss_detection: LossDetection::Rfc6675, // tcp-sack1.cc counts duplicate ACKs
        tlp: false,
        receive_window: 1 << 30,
        send_window_cap: window * packet_size, // window_ (ns-default.tcl:934)
        // tcp.cc TcpAgent::slowdown halves min(cwnd_, window_), for Sack1's fast
        // retransmit and for timeouts alike (tcp-sack1.cc).
        loss_basis: LossBasis::Ns2Window,
        rto: RtoConfig {
            algorithm: RtoAlgorithm::Ns2Ticks,
            initial: Dur::from_secs(3), // rtxcur_init_ 3.0 (ns-default.tcl:976)
            min: Dur::from_millis(200), // minrto_ 0.2 (ns-default.tcl:971)
            max: Dur::from_secs(60),    // maxrto_ 60 (ns-default.tcl:969)
            granularity: Dur::from_millis(10), // tcpTick_ 0.01 (ns-default.tcl:967)
            tick_phase: Dur::ZERO,      // boot_time_: drawn per flow by the simulator
            max_backoff_shift: 6,       // t_backoff_ < 64 (tcp.cc:624)
        },
        delack: DelAckConfig {
            enabled: true,
            timeout: Dur::from_millis(100), // Agent/TCPSink/Sack1/DelAck interval_ 100ms (:1090)
            every: 2,                       // DelAckSink ACKs every other packet
            quickack_segments: 0,
            // tcp-sink.cc:429-452 (DelAckSink::recv): delay any in-order packet if no timer runs
            short_segment_acks_at_once: false,
            // tcp-sink.cc DelAckSink::recv: `th->seqno() == acker_->Seqno()` holds for a
            // duplicate of the highest in-order packet too, so its ACK is delayed like one.
            duplicate_of_last_is_in_order: true,
        },
        // Agent/TCPSink generateDSacks_ false (ns-default.tcl; Sacker::append_ack in
        // tcp-sink.cc writes a D-SACK block only when it is set).
        dsack: false,
        // tcpip_base_hdr_size_ 40 (ns-default.tcl:952), + 8 per SACK block (tcp-sink.cc)
        header_model: HeaderModel::Ns2(40),
    }
}

/// Linux 2.0.36, the kernel at both ends of the thesis testbed (003, §6.1: MosquitoNet 1.0.5
/// on Linux 2.0.36). Values marked "2.0:" were read in a Linux 2.0.x `net/ipv4/tcp_input.c`
/// and `tcp_timer.c` (the reading: docs/design/issue-19-sources.md §1.2); the rest are vho's
/// choices where this model has no counterpart or the source was not read.
fn linux20() -> TcpConfig {
    TcpConfig {
        profile: "linux-2.0",
        // 1500 − 40: 2.0 sends no option but the MSS (tcp_options parses only that). The
        // thesis's download used 1420 (§7.1.3: "an MSS of 1420 bytes"): its scenario sets it.
        mss: 1460,
        handshake: true,
        one_way_syn: false,
        fin: true,
        // 2.0: tcp_ack's fast retransmit on the third duplicate ACK, ssthresh = max(cwnd/2, 2),
        // cwnd = ssthresh + 3, one more per further duplicate, cwnd = ssthresh on the next new
        // ACK: Reno (RFC 2001).
        cc: CcAlgorithm::Reno,
        sack: false,                // 2.0: no SACK option
        timestamps: false,          // 2.0: no timestamps
        paws: false,                // 2.0: no timestamps
        pacing: false,              // 2.0: no pacing
        window_scale: None,         // 2.0: no window scaling
        initial_window_segments: 1, // slow start from one segment (RFC 2001; vho's reading)
        initial_ssthresh: 0x7fff_ffff,
        dupthresh: 3, // 2.0: MAX_DUP_ACKS + 1 duplicate ACKs
        // 2.0: tcp_ack re-arms the timer (tcp_reset_xmit_timer TIME_WRITE) at every ACK it
        // takes, duplicates included; vho restarts it at new ACKs and at the fast retransmit.
        timer_at_fast_retransmit: FastRetransmitTimer::Restart,
        // 2.0: tcp_retransmit, at every timeout: ssthresh = cong_window >> 1, cong_window = 1.
        timeout_ssthresh: TimeoutSsthresh::Always,
        rto_keeps_sack: false,
        // None of F-RTO, Eifel or D-SACK existed in 1998.
        spurious_detection: SpuriousDetection {
            frto: false,
            eifel: false,
            dsack: false,
        },
        spurious_response: SpuriousResponse::Conservative,
        rto_reset: false,
        new_path: false,
        fast_rto_decrease: false,
        rtt_injection: false,
        adaptive_dupthresh: false,
        oracle: false,
        rescue_retransmission: false,
        retransmission_marks: false,          // 2.0: no SACK
        prr: false,                           // Linux 2.0 predates RFC 6937
        cwnd_counting: CwndCounting::Rfc5681, // 2.0: cong_count per ACK (tcp_cong_avoid)
        frto_variant: FrtoVariant::Rfc5682,   // 2.0 has no F-RTO; as a remedy, RFC 5682's
        undo: UndoRules::Detectors,
        // 2.0: tcp_ack grows cong_window on every ACK of new data (slow start up to
        // ssthresh, then one segment per window), used or not.
        cwnd_validation: CwndValidation::Off,
        // 2.0: on the handshake's last ACK "Reset the RTT estimator to the initial state".
        handshake_rtt_sample: false,
        rtt_sampling: RttSampling::EveryFreedSegment, // 2.0: tcp_ack times every freed skb
        // 2.0: tcp_ack sends from the write queue only "sk->retransmits == 0 || ..."
        timeout_holds_new_data: true,
        limited_transmit: false, // RFC 3042 is from 2001
        sack_is_lost_trigger: false,
        // 2.0: a duplicate ACK counts only "after(ack, sk->high_seq)" (Floyd's "fast
        // retransmit wars"): RFC 6582's `recover` after a timeout.
        dupacks_after_timeout_new_ack: false,
        sack_forget_on_new_ack: false,
        sack_recovery: SackRecovery::Rfc6675, // unused without SACK
        loss_detection: LossDetection::Rfc6675, // unused without SACK
        tlp: false,
        // vho's choice: SK_RMEM_MAX less one byte; the thesis's scenario sets its 16 KB.
        receive_window: 32_767,
        send_window_cap: u32::MAX,
        loss_basis: LossBasis::LinuxCwnd, // 2.0: halves cong_window (in segments)
        rto: RtoConfig {
            algorithm: RtoAlgorithm::Linux20,  // 2.0: tcp_rtt_estimator
            initial: Dur::from_secs(3),        // 2.0: TCP_TIMEOUT_INIT = 3*HZ
            min: Dur::from_millis(200),        // 2.0: HZ/5, "keep .2 as minimum"
            max: Dur::from_secs(120),          // 2.0: 120*HZ
            granularity: Dur::from_millis(10), // a jiffy at HZ = 100
            tick_phase: Dur::ZERO,             // drawn per flow from the run's seed
            max_backoff_shift: 16,             // 2.0: rto << 1 per timeout up to 120*HZ
        },
        delack: DelAckConfig {
            enabled: true,
            timeout: Dur::from_millis(200), // §7.1.2: delayed ACKs "up to 200 ms"
            every: 2,                       // vho's choice: RFC 1122's every second segment
            quickack_segments: 0,
            short_segment_acks_at_once: false,
            duplicate_of_last_is_in_order: false,
        },
        dsack: false,
        header_model: HeaderModel::Real,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_profile_exists_and_unknown_ones_do_not() {
        for p in PROFILES {
            assert_eq!(profile(p).map(|c| c.profile), Some(*p));
        }
        assert!(profile("bsd").is_none());
    }

    #[test]
    fn minimum_rto_and_granularity_per_profile() {
        // RFC 6298 (2.4): 1 s; Linux TCP_RTO_MIN 200 ms with a 1 ms jiffy (HZ = 1000); ns-2
        // minrto_ 0.2 with tcpTick_ 10 ms.
        let m = |p: &str| profile(p).map(|c| (c.rto.min, c.rto.granularity));
        assert_eq!(m("rfc"), Some((Dur::from_secs(1), Dur::from_millis(1))));
        assert_eq!(
            m("linux"),
            Some((Dur::from_millis(200), Dur::from_millis(1)))
        );
        assert_eq!(
            profile("linux").map(|c| c.rto.algorithm),
            Some(RtoAlgorithm::Linux)
        );
        // net.ipv4.tcp_congestion_control defaults to cubic; the others keep theirs.
        let cc = |p: &str| profile(p).map(|c| c.cc);
        assert_eq!(
            (cc("linux"), cc("rfc"), cc("ns2")),
            (
                Some(CcAlgorithm::Cubic),
                Some(CcAlgorithm::NewReno),
                Some(CcAlgorithm::Ns2Sack1)
            )
        );
        assert_eq!(
            m("ns2"),
            Some((Dur::from_millis(200), Dur::from_millis(10)))
        );
    }

    #[test]
    fn initial_window_per_profile() {
        // RFC 5681 §3.1: 3 segments for SMSS 1460; RFC 6928 / Linux: 10; ns-2 windowInit_ 2.
        let iw = |p: &str| profile(p).map(|c| c.initial_window_segments);
        assert_eq!(
            (iw("rfc"), iw("linux"), iw("ns2")),
            (Some(3), Some(10), Some(2))
        );
        assert_eq!(
            (rfc5681_initial_window(536), rfc5681_initial_window(4000)),
            (4, 2)
        );
    }
}
