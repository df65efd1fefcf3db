//! Tests of the RLC-AM bearer: the TTI grid at BLER 0, selective retransmission and discard on
//! hand-worked stories.

use super::*;

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

fn bearer(bler: f64, max_dat: u8, seed: u64) -> RlcAm {
    let cfg = RlcAmConfig {
        bler,
        max_dat,
        ..RlcAmConfig::default()
    };
    RlcAm::new(cfg, Rng::stream(seed, "rlc-test")).expect("valid config")
}

#[derive(Debug, Default, PartialEq)]
struct Outcome {
    delivered: Vec<(u32, Time)>,
    discarded: Vec<(u32, Time)>,
}

/// A driver in virtual time: offers each `(at, id, bytes)` at its instant (sorted by `at`),
/// wakes the bearer at each `poll_timeout`, and collects what it releases.
fn drive(rlc: &mut RlcAm, offers: &[(Time, u32, u32)]) -> Outcome {
    let mut out = Outcome::default();
    let mut i = 0;
    let mut last = Time::ZERO;
    loop {
        let now = match (offers.get(i).map(|o| o.0), rlc.poll_timeout()) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => break,
            },
        };
        assert!(now >= last, "time went back: {now:?} after {last:?}");
        last = now;
        while i < offers.len() && offers[i].0 == now {
            rlc.offer(now, offers[i].1, offers[i].2);
            i += 1;
        }
        while let Some(d) = rlc.poll_delivered(now) {
            out.delivered.push(d);
        }
        while let Some(d) = rlc.poll_discarded(now) {
            out.discarded.push(d);
        }
    }
    out
}

// ---- The bearer of Table I -------------------------------------------------------------------

#[test]
fn twelve_blocks_of_320_payload_bits_per_tti_are_the_384_kbps_bearer() {
    // 002 Table I: 12 blocks × 336 bits per 10 ms TTI = 4032 bits, 403.2 kb/s on the air; less
    // the 16-bit AMD header, 12 × 320 = 3840 bits per 10 ms = 384,000 b/s.
    let c = RlcAmConfig::default();
    assert_eq!(c.blocks_per_tti as u32 * c.block_bits, 4032);
    assert_eq!(c.payload_bits(), 320);
    assert_eq!(c.payload_rate_bps(), BEARER_BPS);
    // 10 ms + 20 ms out, 40 ms wait, 10 ms + 20 ms back.
    assert_eq!(c.retransmission_cycle(), Dur::from_millis(100));
}

#[test]
fn a_configuration_that_cannot_run_is_refused() {
    let bad = |f: fn(&mut RlcAmConfig)| {
        let mut c = RlcAmConfig::default();
        f(&mut c);
        RlcAm::new(c, Rng::from_u64(1)).err()
    };
    assert_eq!(bad(|c| c.bler = 1.5), Some(RlcAmError::Bler(1.5)));
    assert_eq!(bad(|c| c.max_dat = 0), Some(RlcAmError::ZeroMaxDat));
    assert_eq!(bad(|c| c.tti = Dur::ZERO), Some(RlcAmError::ZeroTti));
    assert_eq!(bad(|c| c.blocks_per_tti = 0), Some(RlcAmError::NoBlocks));
    assert!(matches!(
        bad(|c| c.header_bits = 336),
        Some(RlcAmError::NoPayload { .. })
    ));
    let mut r = bearer(0.0, 5, 1);
    assert_eq!(r.set_bler(ms(0), -0.1), Err(RlcAmError::Bler(-0.1)));
}

// ---- BLER 0: the TTI grid --------------------------------------------------------------------

#[test]
fn without_errors_an_sdu_takes_its_ttis_plus_the_iub() {
    // delay = ceil((8 bytes + 8) / 320 / 12) TTIs + Iub, offered at a TTI boundary (worked by
    // hand: the bits, the PDUs, the TTIs).
    let table = [
        (1, 30),     // 16 bits: 1 PDU, 1 TTI
        (39, 30),    // 320 bits: 1 PDU
        (40, 30),    // 328 bits: 2 PDUs
        (479, 30),   // 3840 bits: 12 PDUs, still 1 TTI
        (480, 40),   // 3848 bits: 13 PDUs, 2 TTIs
        (1500, 60),  // 12,008 bits: 38 PDUs, 4 TTIs
        (4000, 110), // 32,008 bits: 101 PDUs, 9 TTIs
    ];
    for (bytes, delay_ms) in table {
        let mut r = bearer(0.0, 5, 1);
        let out = drive(&mut r, &[(ms(0), 9, bytes)]);
        assert_eq!(out.delivered, vec![(9, ms(delay_ms))], "{bytes} B");
        assert!(out.discarded.is_empty());
    }
    // Offered 3 ms into a TTI, it waits for the next: 1500 B delivered at 10 + 60 ms.
    let mut r = bearer(0.0, 5, 1);
    assert_eq!(
        drive(&mut r, &[(ms(3), 1, 1500)]).delivered,
        vec![(1, ms(70))]
    );
}

#[test]
fn a_backlog_leaves_at_the_bearer_rate_in_order() {
    // 120 SDUs of 1500 B at once: 38 PDUs each, 4560 PDUs, 12 per TTI. SDU k's last PDU is
    // number 38(k + 1) - 1, sent in TTI floor(that / 12), delivered 30 ms after it starts;
    // the last at 379 × 10 + 30 = 3820 ms (padding included: 12,000 bits of IP per 12,160 sent).
    let offers: Vec<_> = (0..120).map(|k| (ms(0), k, 1500)).collect();
    let mut r = bearer(0.0, 5, 1);
    let out = drive(&mut r, &offers);
    let expected: Vec<_> = (0..120u64)
        .map(|k| (k as u32, ms((38 * (k + 1) - 1) / 12 * 10 + 30)))
        .collect();
    assert_eq!(out.delivered, expected);
    assert_eq!(out.delivered.last(), Some(&(119, ms(3820))));
    assert_eq!(r.stats().ttis_used, 380);
}

// ---- Selective retransmission and SDU discard (TS 25.322 MaxDAT) -----------------------------

#[test]
fn a_pdu_lost_max_dat_times_discards_its_sdu() {
    // BLER 1, MaxDAT 3, one PDU offered at 0: sent at 0, 100 and 200 ms (cycle 100 ms); the
    // status of the third reaches the sender at 200 + 30 + 70 = 300 ms, the Move Receiving
    // Window rides that TTI and reaches the receiver at 330 ms.
    let mut r = bearer(1.0, 3, 1);
    let out = drive(&mut r, &[(ms(0), 7, 20)]);
    assert_eq!(out.discarded, vec![(7, ms(330))]);
    assert!(out.delivered.is_empty());
    let s = r.stats();
    assert_eq!((s.blocks_sent, s.retransmissions, s.blocks_lost), (3, 2, 3));
    assert_eq!((s.sdus_delivered, s.sdus_discarded), (0, 1));
    assert_eq!(r.poll_timeout(), None);
}

#[test]
fn an_sdu_behind_a_discarded_one_waits_for_the_discard() {
    // A (1 PDU) at 0 under BLER 1, MaxDAT 2: sent at 0 and 100 ms, both lost. BLER 0 from
    // 150 ms; B offered at 150 ms rides that TTI and arrives at 180 ms, but A's discard
    // reaches the receiver only at 200 + 30 = 230 ms: B is delivered then, in order.
    let mut r = bearer(1.0, 2, 1);
    r.offer(ms(0), 1, 20);
    r.set_bler(ms(150), 0.0).expect("valid");
    let out = drive(&mut r, &[(ms(150), 2, 20)]);
    assert_eq!(out.discarded, vec![(1, ms(230))]);
    assert_eq!(out.delivered, vec![(2, ms(230))]);
}

#[test]
fn retransmissions_go_before_new_data() {
    // A (479 B: 12 PDUs) at 0 under BLER 1: all 12 lost, their status is back at 100 ms.
    // From 50 ms BLER 0 and B (4000 B: 101 PDUs) waits. B takes the TTIs of 50 to 90 ms (60
    // PDUs); the TTI of 100 ms carries A's 12 retransmissions, A is delivered at 130 ms; B
    // resumes at 110 ms and its last PDU rides the TTI of 140 ms: delivered at 170 ms.
    let mut r = bearer(1.0, 5, 1);
    r.offer(ms(0), 1, 479);
    r.set_bler(ms(50), 0.0).expect("valid");
    let out = drive(&mut r, &[(ms(50), 2, 4000)]);
    assert_eq!(out.delivered, vec![(1, ms(130)), (2, ms(170))]);
    assert_eq!(r.stats().retransmissions, 12);
}
