//! Spurious timeouts (issue 19): Eifel detection (RFC 3522) and the responses (RFC 4015,
//! Linux's undo, Daniel & Kojo §8) on whole transfers: a delay spike (the path a handover
//! moves to is slower) makes a spurious timeout that detection finds; a lost segment makes a
//! genuine one that it does not.

use super::*;
use crate::tcp::config::{SpuriousResponse, SpuriousRto};

fn linux(spurious: SpuriousRto, response: SpuriousResponse) -> TcpConfig {
    let mut c = cfg("linux");
    c.handshake = false;
    c.fin = false;
    c.spurious_rto = spurious;
    c.spurious_response = response;
    c
}

/// 200 KB at 5 Mb/s with 5 ms each way, then every segment after 100 ms takes 2 s more:
/// the RTO (about 200 ms) expires although nothing is lost.
fn spike(c: &TcpConfig) -> Pair {
    let mut p = Pair::new(c, 200_000, 5_000_000, Dur::from_millis(5));
    p.run(Time::from_millis(100));
    p.delay = Dur::from_secs(2);
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
