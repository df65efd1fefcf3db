//! Spurious timeouts (issue 19): Eifel detection (RFC 3522) and the responses (RFC 4015,
//! Linux's undo, Daniel & Kojo §8) on whole transfers: a delay spike (the path a handover
//! moves to is slower) makes a spurious timeout that detection finds; a lost segment makes a
//! genuine one that it does not.

use super::*;
use crate::tcp::config::{SpuriousDetection, SpuriousResponse, UndoRules};

/// Which detectors run.
#[derive(Clone, Copy)]
enum SpuriousRto {
    Off,
    Eifel,
    Frto,
    Dsack,
}

fn linux(spurious: SpuriousRto, response: SpuriousResponse) -> TcpConfig {
    let mut c = cfg("linux");
    c.tlp = false; // the timer here is the RTO, with no tail loss probe before it
    c.handshake = false;
    c.fin = false;
    c.dsack = true;
    c.spurious_detection = detection(spurious);
    c.spurious_response = response;
    c
}

fn detection(d: SpuriousRto) -> SpuriousDetection {
    SpuriousDetection {
        eifel: matches!(d, SpuriousRto::Eifel),
        frto: matches!(d, SpuriousRto::Frto),
        dsack: matches!(d, SpuriousRto::Dsack),
    }
}

/// 200 KB at 5 Mb/s with 5 ms each way, then every segment after 100 ms takes 2 s more:
/// the RTO (about 200 ms) expires although nothing is lost.
fn spike(c: &TcpConfig) -> Pair {
    spike_of(c, Dur::from_secs(2))
}

/// As [`spike`], with the delay the path takes on.
fn spike_of(c: &TcpConfig, delay: Dur) -> Pair {
    let mut p = Pair::new(c, 200_000, 5_000_000, Dur::from_millis(5));
    p.run(Time::from_millis(100));
    p.delay = delay;
    p.run(Time::from_secs(60));
    assert!(p.s.is_complete());
    assert_eq!(p.r.delivered_bytes(), 200_000);
    p
}

#[test]
fn eifel_finds_the_spurious_timeout_of_a_delay_spike_and_stops_the_go_back_n() {
    // RFC 3522 §3.2: the first ACK after the timeout's retransmission echoes the original's
    // timestamp; RFC 4015 step (8): resume with new data instead of resending the window.
    let off = spike(&linux(SpuriousRto::Off, SpuriousResponse::Eifel));
    let on = spike(&linux(SpuriousRto::Eifel, SpuriousResponse::Eifel));
    assert_eq!(off.s.stats().spurious_timeouts_detected, 0);
    assert!(on.s.stats().timeouts >= 1);
    assert!(on.s.stats().spurious_timeouts_detected >= 1);
    // Without detection the whole window in flight is resent; with it, only what went out
    // before the first ACK came back.
    assert!(
        on.s.stats().retransmissions * 3 < off.s.stats().retransmissions,
        "eifel {} vs off {}",
        on.s.stats().retransmissions,
        off.s.stats().retransmissions
    );
}

#[test]
fn eifel_does_not_fire_on_a_timeout_after_a_real_loss() {
    // The last segment lost: no duplicate ACKs, the timer resends it; the ACK echoes the
    // retransmission's timestamp (RFC 3522 §3.2 (4) fails): a genuine timeout.
    let c = linux(SpuriousRto::Eifel, SpuriousResponse::Eifel);
    let bytes = 30_000;
    let mut clean = Pair::new(&c, bytes, 5_000_000, Dur::from_millis(5));
    clean.run(Time::from_secs(60));
    let last = clean
        .log
        .iter()
        .map(|(_, t)| t.segment.seq.0)
        .max()
        .expect("data sent");
    let mut p = Pair::new(&c, bytes, 5_000_000, Dur::from_millis(5));
    p.drop_once = vec![last];
    p.run(Time::from_secs(60));
    assert!(p.s.is_complete());
    assert_eq!(p.s.stats().timeouts, 1);
    assert_eq!(p.s.stats().spurious_timeouts_detected, 0);
}

#[test]
fn without_timestamps_eifel_cannot_run() {
    let mut c = linux(SpuriousRto::Eifel, SpuriousResponse::Eifel);
    c.timestamps = false;
    let p = spike(&c);
    assert!(p.s.stats().timeouts >= 1);
    assert_eq!(p.s.stats().spurious_timeouts_detected, 0);
}

#[test]
fn the_responses_differ_in_the_window_they_leave() {
    // Undo and Eifel restore the window the timeout took (ssthresh back to at least what it
    // was); no-restore (Daniel & Kojo §8) and conservative keep the reduced one.
    let ssthresh = |r| {
        let p = spike(&linux(SpuriousRto::Eifel, r));
        assert!(p.s.stats().spurious_timeouts_detected >= 1);
        p.s.probe().ssthresh
    };
    let (undo, eifel) = (
        ssthresh(SpuriousResponse::Undo),
        ssthresh(SpuriousResponse::Eifel),
    );
    let (keep, conservative) = (
        ssthresh(SpuriousResponse::NoRestore),
        ssthresh(SpuriousResponse::Conservative),
    );
    assert!(undo > keep, "undo {undo} vs no-restore {keep}");
    assert!(eifel > keep, "eifel {eifel} vs no-restore {keep}");
    assert_eq!(keep, conservative);
}

/// Segments resent other than the one the timer resent, by the timer's go-back-N alone
/// (`by_timer`) or by anything.
fn resent_beyond_the_head(p: &Pair, by_timer: bool) -> usize {
    let head = p
        .log
        .iter()
        .find(|(_, t)| t.kind == TxKind::RetransmitTimeout)
        .map(|(_, t)| t.segment.seq);
    p.log
        .iter()
        .filter(|(_, t)| {
            let counted = if by_timer {
                t.kind == TxKind::RetransmitTimeout
            } else {
                t.kind.is_retransmission()
            };
            counted && Some(t.segment.seq) != head
        })
        .count()
}

#[test]
fn frto_finds_the_spurious_timeout_of_a_delay_spike_with_and_without_sack() {
    // RFC 5682 §3.1: two new segments after the timeout; the ACKs that come back acknowledge
    // data sent before it: spurious, and the window is not resent by the timer.
    for sack in [true, false] {
        let mut c = linux(SpuriousRto::Off, SpuriousResponse::Undo);
        c.sack = sack;
        let off = spike(&c);
        c.spurious_detection = detection(SpuriousRto::Frto);
        let on = spike(&c);
        assert!(on.s.stats().timeouts >= 1);
        assert!(on.s.stats().spurious_timeouts_detected >= 1, "sack {sack}");
        assert_eq!(resent_beyond_the_head(&on, true), 0, "sack {sack}");
        assert!(resent_beyond_the_head(&off, false) > 10, "sack {sack}");
        if sack {
            // Nothing else is resent either.
            assert_eq!(resent_beyond_the_head(&on, false), 0);
        }
        // Without SACK the timer's three copies of the head arrive as duplicates; their
        // duplicate ACKs start NewReno's fast recovery (RFC 5682 §2.1 3(b) sets recover to
        // SND.UNA), whose partial ACKs resend segments that were only late: what D-SACK
        // (RFC 3708) would tell.
    }
}

#[test]
fn frto_falls_back_to_conventional_recovery_when_the_window_was_lost() {
    // A whole flight lost at once (every segment after the first ACKs): the new segments
    // produce duplicate ACKs (step 3(a)), and every lost segment is resent.
    let c = linux(SpuriousRto::Frto, SpuriousResponse::Undo);
    let bytes = 40_000;
    let mut clean = Pair::new(&c, bytes, 5_000_000, Dur::from_millis(5));
    clean.run(Time::from_secs(60));
    let mut seqs: Vec<u32> = clean.log.iter().map(|(_, t)| t.segment.seq.0).collect();
    seqs.sort_unstable();
    seqs.dedup();
    let lost: Vec<u32> = seqs[seqs.len() - 6..seqs.len() - 2].to_vec();
    let mut p = Pair::new(&c, bytes, 5_000_000, Dur::from_millis(5));
    p.drop_once = lost.clone();
    p.run(Time::from_secs(60));
    assert!(p.s.is_complete());
    assert_eq!(p.r.delivered_bytes(), bytes);
    assert_eq!(p.s.stats().spurious_timeouts_detected, 0);
    for q in lost {
        assert!(!p.retransmissions_of(q).is_empty(), "{q} not resent");
    }
}

#[test]
fn dsack_finds_the_spurious_timeout_after_the_recovery() {
    // RFC 3708 §3 (B.1): a 300 ms spike, one timeout: every segment it resent comes back
    // D-SACKed; the verdict comes once the recovery is over (RFC 4015's LATE_SPUR_TO), and
    // undo restores ssthresh.
    let ms300 = Dur::from_millis(300);
    let keep = spike_of(
        &linux(SpuriousRto::Dsack, SpuriousResponse::NoRestore),
        ms300,
    );
    let undo = spike_of(&linux(SpuriousRto::Dsack, SpuriousResponse::Undo), ms300);
    for p in [&keep, &undo] {
        assert_eq!(p.s.stats().timeouts, 1);
        assert_eq!(p.s.stats().spurious_timeouts_detected, 1);
    }
    assert!(undo.s.probe().ssthresh > keep.s.probe().ssthresh);
    // Without the receiver's D-SACK there is nothing to go on.
    let mut c = linux(SpuriousRto::Dsack, SpuriousResponse::Undo);
    c.dsack = false;
    assert_eq!(spike_of(&c, ms300).s.stats().spurious_timeouts_detected, 0);
    // The 2 s spike's timer resends the head three times (backoff): (A.3) refuses.
    let mut c = linux(SpuriousRto::Dsack, SpuriousResponse::Undo);
    c.undo = UndoRules::Detectors;
    let p = spike(&c);
    assert!(p.s.stats().timeouts >= 2);
    assert_eq!(p.s.stats().spurious_timeouts_detected, 0);
    // Linux has no (A.3): each copy D-SACKed takes one off undo_retrans (tcp_sacktag_one), the
    // three copies' three D-SACKs bring it to 0, and the next ACK undoes (tcp_try_undo_dsack).
    c.undo = UndoRules::Linux;
    let p = spike(&c);
    assert!(p.s.stats().timeouts >= 2);
    assert_eq!(p.s.stats().spurious_timeouts_detected, 1);
}

#[test]
fn dsack_finds_a_fast_retransmit_made_by_reordering_and_undoes_it() {
    // RFC 2883 §5.2 / RFC 3708: one segment arrives 30 ms late (after three later ones):
    // three duplicate ACKs, a fast retransmit, and the late original D-SACKs the resend.
    let run = |d: SpuriousRto| {
        let c = linux(d, SpuriousResponse::Undo);
        let mut clean = Pair::new(&c, 300_000, 5_000_000, Dur::from_millis(5));
        clean.run(Time::from_secs(60));
        let mut seqs: Vec<u32> = clean.log.iter().map(|(_, t)| t.segment.seq.0).collect();
        seqs.sort_unstable();
        seqs.dedup();
        let mut p = Pair::new(&c, 300_000, 5_000_000, Dur::from_millis(5));
        p.delay_once = vec![(seqs[seqs.len() / 2], Dur::from_millis(30))];
        p.run(Time::from_secs(60));
        assert!(p.s.is_complete());
        p
    };
    let off = run(SpuriousRto::Off);
    let on = run(SpuriousRto::Dsack);
    assert_eq!(off.s.stats().fast_retransmits, 1);
    assert_eq!(on.s.stats().fast_retransmits, 1);
    assert_eq!(off.s.stats().spurious_fast_retransmits_detected, 0);
    assert_eq!(on.s.stats().spurious_fast_retransmits_detected, 1);
    // The halving is undone: ssthresh back where it was, above the one left halved.
    assert!(on.s.probe().ssthresh > off.s.probe().ssthresh);
}
