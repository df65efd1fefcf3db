//! Linux's undo (`UndoRules::Linux`, `sender/undo.rs`) on hand-worked ACK sequences: each ACK
//! is fed to the sender at a given time with the timestamp echo and SACK blocks a receiver
//! would send, and the test checks what the sender concludes (net/ipv4/tcp_input.c).

use super::*;
use crate::tcp::config::UndoRules;

/// The linux profile without handshake or FIN, SMSS 1000, NewReno growth (whole numbers).
fn linux(undo: UndoRules) -> TcpConfig {
    let mut c = cfg("linux");
    c.tlp = false; // the timer here is the RTO, with no tail loss probe before it
    c.handshake = false;
    c.fin = false;
    c.mss = 1000;
    c.cc = config::CcAlgorithm::NewReno;
    c.undo = undo;
    c
}

/// An ACK of `n` with SACK blocks, echoing `tsecr`.
fn ack_ts(n: u32, sack: &[(u32, u32)], tsecr: u32) -> Segment {
    let mut a = ack(n, sack);
    a.options.timestamps = Some((7, tsecr));
    a
}

fn ms(t: u64) -> Time {
    Time::from_millis(t)
}

/// Ten segments [1, 10001) sent at 1 s (TSval 1000), and the timer's expiry: the head is
/// resent at 2 s (TSval 2000, Linux's retrans_stamp).
fn after_a_timeout(c: &TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(c, 1, 2, SeqNum(0), 100_000);
    assert_eq!(drain_sender(&mut s, ms(1000)).len(), 10);
    let at = s.poll_timeout().expect("armed");
    assert_eq!(at, ms(2000)); // TCP_TIMEOUT_INIT
    s.handle_timeout(at);
    let out = drain_sender(&mut s, at);
    assert_eq!(out[0].kind, TxKind::RetransmitTimeout);
    s
}

#[test]
fn a_timeout_is_undone_at_a_later_ack_whose_echo_predates_the_retransmission() {
    // tcp_process_loss -> tcp_try_undo_loss at every ACK that advances SND.UNA; F-RTO off so
    // that the timestamp alone decides.
    let run = |undo: UndoRules| {
        let mut c = linux(undo);
        c.spurious_detection.frto = false;
        let mut s = after_a_timeout(&c);
        // The head's original was lost: the first ACK is for its retransmission and echoes
        // its TSval 2000 (RFC 7323 §4.3: the segment that advanced the left edge). Not
        // before retrans_stamp: no undo; Eifel (RFC 3522 §3.2 (4)) decides here, genuine.
        s.handle_segment(ms(2050), &ack_ts(1001, &[], 2000));
        assert_eq!(s.stats().spurious_timeouts_detected, 0);
        let resent = drain_sender(&mut s, ms(2050));
        assert!(resent.iter().all(|t| t.kind.is_retransmission()));
        // The originals of [1001, 3001), delayed, arrive before their resends: the ACK
        // echoes their TSval 1000 < 2000 (tcp_packet_delayed).
        s.handle_segment(ms(2060), &ack_ts(3001, &[], 1000));
        let next = drain_sender(&mut s, ms(2060));
        (s, next)
    };
    let (linux, next) = run(UndoRules::Linux);
    assert_eq!(linux.stats().spurious_timeouts_detected, 1);
    // tcp_undo_cwnd_reduction: cwnd back to prior_cwnd (10 segments), the lost marks gone:
    // what follows is new data from SND.MAX, no more go-back-N.
    assert_eq!(linux.probe().cwnd, 10_000);
    assert!(!linux.probe().in_recovery);
    assert!(!next.is_empty());
    assert!(next
        .iter()
        .all(|t| t.kind == TxKind::New && t.segment.seq >= SeqNum(10_001)));
    // Eifel looks at the first acceptable ACK only: the timeout stands.
    let (eifel, _) = run(UndoRules::Detectors);
    assert_eq!(eifel.stats().spurious_timeouts_detected, 0);
    assert!(eifel.probe().cwnd < 10_000);
}

/// Ten segments sent at 1 s; the first is late: duplicate ACKs SACK [1001, 1001 + 1000·k)
/// for k = 1..=`sacked`, the third starting fast recovery (its retransmission of the head at
/// 1.05 s, TSval 1050); then the late original fills the hole: an ACK of 1001 + 1000·sacked
/// echoing 1000.
fn reordered_head(c: &TcpConfig, sacked: u32) -> TcpSender {
    reordered_head_to(c, sacked).0
}

/// As [`reordered_head`], with one past the highest sequence number sent.
fn reordered_head_to(c: &TcpConfig, sacked: u32) -> (TcpSender, u32) {
    let mut s = TcpSender::new(c, 1, 2, SeqNum(0), 100_000);
    let mut high = sent_to(&drain_sender(&mut s, ms(1000)), 0);
    for k in 1..=sacked {
        s.handle_segment(ms(1050), &ack_ts(1, &[(1001, 1001 + 1000 * k)], 1000));
        high = sent_to(&drain_sender(&mut s, ms(1050)), high);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    s.handle_segment(ms(1060), &ack_ts(1001 + 1000 * sacked, &[], 1000));
    high = sent_to(&drain_sender(&mut s, ms(1060)), high);
    (s, high)
}

fn sent_to(out: &[Transmit], high: u32) -> u32 {
    out.iter()
        .map(|t| t.segment.seq.0 + t.segment.len)
        .fold(high, u32::max)
}

#[test]
fn a_fast_recovery_made_by_reordering_is_undone_and_raises_the_reordering_degree() {
    // tcp_try_undo_partial: the partial ACK echoes 1000, before retrans_stamp 1050: "Plain
    // luck! Hole if filled with delayed packet"; tcp_check_sack_reordering(prior_snd_una 1):
    // SACKed up to 6001, 6 segments > 3 -> tp->reordering = 6; no retransmission is out
    // (the head's was cumulatively acknowledged): tcp_undo_cwnd_reduction, back to Open.
    let mut c = linux(UndoRules::Linux);
    c.dsack = false; // the timestamp alone decides
    let s = reordered_head(&c, 5);
    assert_eq!(s.stats().spurious_fast_retransmits_detected, 1);
    assert_eq!(s.reordering_degree(), 6);
    assert!(!s.probe().in_recovery);
    assert!(s.probe().cwnd >= 10_000, "cwnd {}", s.probe().cwnd);
    // RFC 3522/3708 detectors see no D-SACK and no timeout: nothing is undone.
    let mut c = linux(UndoRules::Detectors);
    c.dsack = false;
    let s = reordered_head(&c, 5);
    assert_eq!(s.stats().spurious_fast_retransmits_detected, 0);
    assert_eq!(s.reordering_degree(), 3);
}

#[test]
fn with_a_raised_degree_the_same_reordering_no_longer_starts_a_recovery() {
    // tcp_time_to_recover without RACK: recovery once sacked_out + 1 > tp->reordering. After
    // the undo above (degree 6), a hole with four segments SACKed above it is reordering,
    // not loss; at degree 3 (net.ipv4.tcp_reordering) the third SACKed segment is enough.
    for (undo, recoveries) in [(UndoRules::Linux, 1), (UndoRules::Detectors, 2)] {
        let mut c = linux(undo);
        c.dsack = false;
        let (mut s, high) = reordered_head_to(&c, 5);
        // Everything sent so far acknowledged (past any recovery point); then the segment at
        // SND.UNA is late and four later ones are SACKed.
        s.handle_segment(ms(1090), &ack_ts(high, &[], 1060));
        drain_sender(&mut s, ms(1090));
        assert!(!s.probe().in_recovery);
        let una = high;
        for k in 1..=4 {
            let sack = [(una + 1000, una + 1000 + 1000 * k)];
            s.handle_segment(ms(1100), &ack_ts(una, &sack, 1060));
            drain_sender(&mut s, ms(1100));
        }
        assert_eq!(s.stats().fast_retransmits, recoveries, "{undo:?}");
    }
}

/// The sender's window once the handshake is done: the receiver's SYN, the SYN-ACK timer
/// firing `timeouts` times (each SYN-ACK it resends lost), the receiver's SYN resent and
/// answered if `dup_syn`, then the first SYN-ACK (`echo_first`) or the last one reaching the
/// receiver, whose ACK completes the handshake.
fn window_after_handshake(c: &TcpConfig, timeouts: u32, dup_syn: bool, echo_first: bool) -> u32 {
    let mut r = TcpReceiver::new(c, 2, 1, SeqNum(100));
    let mut s = TcpSender::new(c, 1, 2, SeqNum(5000), 100_000);
    let syn = r.poll_transmit(Time::ZERO).expect("SYN").segment;
    s.handle_segment(Time::ZERO, &syn);
    let first = drain_sender(&mut s, Time::ZERO).remove(0).segment;
    let mut last = first;
    let mut t = Time::ZERO;
    for _ in 0..timeouts {
        t = s.poll_timeout().expect("SYN-ACK timer");
        s.handle_timeout(t);
        last = drain_sender(&mut s, t).remove(0).segment;
    }
    if dup_syn {
        t = t.max(r.poll_timeout().expect("SYN timer"));
        r.handle_timeout(t);
        let again = r.poll_transmit(t).expect("SYN again").segment;
        s.handle_segment(t, &again);
        last = drain_sender(&mut s, t).remove(0).segment;
    }
    let t = t + Dur::from_millis(300);
    r.handle_segment(t, if echo_first { &first } else { &last });
    let ack = r.poll_transmit(t).expect("ACK").segment;
    s.handle_segment(t, &ack);
    s.probe().cwnd
}

#[test]
fn linux_keeps_its_initial_window_after_one_syn_ack_retransmission_or_a_spurious_timeout() {
    // Linux `tcp_init_transfer` (net/ipv4/tcp_input.c): the window starts at one segment only
    // after more than one SYN-ACK retransmission (`total_retrans > 1`, `req->num_retrans`:
    // the timer's and the answers to a retransmitted SYN) and while `undo_marker` stands;
    // `tcp_try_undo_spurious_syn` clears it when the ACK echoes the first SYN-ACK's timestamp
    // (`retrans_stamp`). RFC 5681 §3.1 (the `rfc` profile): one segment after any loss.
    // Measured: the kernel's MP_JOIN subflow in Daniel & Kojo's WLAN -> GPRS delay-1 cell,
    // its first SYN-ACK held over the handover's second and answered, sent ten segments after
    // two SYN-ACK retransmissions (docs/design/mptcp.md).
    let mut c = cfg("linux");
    c.fin = false;
    let iw = window_after_handshake(&c, 0, false, false);
    let mss = c.mss;
    assert!(iw > mss, "an initial window of several segments");
    assert_eq!(
        window_after_handshake(&c, 1, false, false),
        iw,
        "one retransmission"
    );
    assert_eq!(
        window_after_handshake(&c, 1, true, true),
        iw,
        "spurious: the first arrived"
    );
    let cut = window_after_handshake(&c, 1, true, false);
    assert!(
        cut < iw / 2,
        "two retransmissions, the last one answered: {cut}"
    );
    let mut rfc = cfg("rfc");
    rfc.fin = false;
    let rfc_cut = window_after_handshake(&rfc, 1, false, true);
    assert!(rfc_cut < window_after_handshake(&rfc, 0, false, false));
}
