//! TFRC Probe (Chen et al. §3.1, after their [5]): the sender sends the packet after every
//! n-th at once, without its pacing interval, making a back-to-back pair; the receiver times
//! both against their sending time (one-way CapProbe, `crate::probe::capprobe`) and puts the
//! estimate on its feedback; the sender watches the estimates for drastic changes (IHN, §3.3)
//! and hears the mobile's handover manager (EHN, §4), and answers with FRA or ERR.
//!
//! Choices the paper leaves open, each a named behaviour here:
//! - Pacing around a pair: the interval the pair's second packet skipped is added after it,
//!   so the mean rate stays X (Fig. 2-b shows only the pair).
//! - FRA's "slow start" for TFRC is the seed's footnote to it (l.110): the "sender doubles the
//!   sending rate every RTT ... until the first packet loss occurs. After the first packet
//!   loss, TFRC sets its sending rate to half of the current rate and thereafter adjusts its
//!   rate based on the TCP response function". X doubles once per R (capped by recv_limit, as
//!   TFRC's own slow start, never below the equation's rate; not by the capacity the handoff
//!   announced, which the footnote does not name: `flow.probe.fra_cap` adds that cap), the
//!   loss history kept; it ends
//!   at the first report of a loss event that begins at a packet sent under FRA
//!   (`Feedback::loss_start`): a loss on the old link reported after the handoff is not
//!   FRA's first loss. Then X is halved, and the equation governs from the next report.
//! - ERR cuts X to X·C_2/C_1 and sets the receive limit to it (§4.4's Update_Limits idiom);
//!   reports about packets sent before the cut describe the old link: until one echoes a
//!   packet sent after it, they neither raise X above the cut nor enter X_recv_set.

use super::{Feedback, PairMark, TfrcPacket, DATA_HEADER_BYTES};
use crate::probe::{self, Action, CapProbe, Handoff, Ihn, PairSample, ProbeConfig};
use crate::time::{Dur, Time};

/// A handoff the sender learnt of, and what it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    pub handoff: Handoff,
    pub action: Option<Action>,
}

/// FRA in force: the first packet sent under it (a loss from there on ends it) and, with
/// `fra_cap`, the capacity the handoff announced, bytes per second (the doubling stops there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Fra {
    pub(super) since_seq: u64,
    pub(super) cap: Option<f64>,
}

/// The sender's side of TFRC Probe.
#[derive(Clone, Debug)]
pub(super) struct SenderSide {
    cfg: ProbeConfig,
    ihn: Ihn,
    /// The last estimate reported.
    estimate: Option<u64>,
    pub(super) detections: Vec<Detection>,
    /// FRA in force.
    pub(super) fra: Option<Fra>,
    /// The newest loss event's first lost packet, from the last report.
    pub(super) loss_start: Option<u64>,
    /// ERR in force: when the rate was cut, and to what (bytes per second).
    pub(super) err_hold: Option<(Time, f64)>,
}

impl SenderSide {
    /// Whether FRA stops doubling at the announced capacity (`ProbeConfig::fra_cap`).
    pub(super) fn fra_cap(&self) -> bool {
        self.cfg.fra_cap
    }

    pub(super) fn new(cfg: &ProbeConfig) -> Self {
        SenderSide {
            cfg: *cfg,
            ihn: Ihn::new(cfg.alpha, cfg.beta),
            estimate: None,
            detections: Vec::new(),
            fra: None,
            loss_start: None,
            err_hold: None,
        }
    }

    /// The mark of data packet `k` (from 0): "after every n-th data packet is sent out, the
    /// TFRC Probe sender immediately transmits the next" (§3.1): packets n-1 and n, 2n-1 and
    /// 2n, ... (n at least 2).
    pub(super) fn mark(&self, k: u64) -> PairMark {
        let n = u64::from(self.cfg.pair_every.max(2));
        if (k + 1).is_multiple_of(n) {
            PairMark::First
        } else if k.is_multiple_of(n) && k > 0 {
            PairMark::Second
        } else {
            PairMark::None
        }
    }

    /// Whether a report describes packets sent before an ERR cut.
    pub(super) fn precedes_cut(&self, fb: &Feedback) -> bool {
        self.err_hold.is_some_and(|(at, _)| fb.timestamp_echo < at)
    }

    /// IHN on a report's estimate (§3.3), if the flow asked for it.
    pub(super) fn on_report(&mut self, now: Time, fb: &Feedback) -> Option<Handoff> {
        let c = fb.capacity_bps?;
        if self.estimate == Some(c) {
            return None;
        }
        self.estimate = Some(c);
        let h = self.ihn.on_estimate(now, c)?;
        self.cfg.ihn.then_some(h)
    }

    /// EHN from the handover manager (§4), if the flow asked for it.
    pub(super) fn on_notice(&self, now: Time, from_bps: u64, to_bps: u64) -> Option<Handoff> {
        if !self.cfg.ehn {
            return None;
        }
        let direction = match to_bps.cmp(&from_bps) {
            std::cmp::Ordering::Greater => probe::Direction::LowToHigh,
            std::cmp::Ordering::Less => probe::Direction::HighToLow,
            std::cmp::Ordering::Equal => return None,
        };
        Some(Handoff {
            at: now,
            by: probe::Notice::Ehn,
            direction,
            from_bps,
            to_bps,
        })
    }

    /// Records a handoff and returns the response the flow asked for.
    pub(super) fn respond(&mut self, h: Handoff) -> Option<Action> {
        let action = probe::response(&self.cfg, &h);
        self.detections.push(Detection { handoff: h, action });
        action
    }

    pub(super) fn estimate(&self) -> Option<u64> {
        self.estimate
    }
}

/// The receiver's side: the first packet of a pair waits for its second.
#[derive(Clone, Debug)]
pub(super) struct ReceiverSide {
    capprobe: CapProbe,
    /// The pair's first packet: its sequence number and one-way delay T_1.
    first: Option<(u64, Dur)>,
}

impl ReceiverSide {
    pub(super) fn new(cfg: &ProbeConfig) -> Self {
        ReceiverSide {
            capprobe: CapProbe::new(cfg.filter, cfg.window),
            first: None,
        }
    }

    /// A data packet arrives: T = arrival - T_0 (§3.1); a pair's second, right after its
    /// first, makes a sample.
    pub(super) fn on_data(&mut self, now: Time, pkt: &TfrcPacket) {
        let delay = now.saturating_since(pkt.timestamp);
        match pkt.pair {
            PairMark::First => self.first = Some((pkt.seq, delay)),
            PairMark::Second => {
                if let Some((seq, first)) = self.first.take() {
                    if seq + 1 == pkt.seq {
                        self.capprobe.on_pair(PairSample {
                            first,
                            second: delay,
                            wire_bytes: pkt.size + DATA_HEADER_BYTES,
                        });
                    }
                }
            }
            PairMark::None => self.first = None,
        }
    }

    pub(super) fn estimate(&self) -> Option<u64> {
        self.capprobe.estimate_bps()
    }

    pub(super) fn pairs(&self) -> (u64, u64) {
        self.capprobe.counts()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{TfrcConfig, TfrcReceiver, TfrcSender};
    use super::*;
    use crate::probe::{Direction, Notice};

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn feedback(sent: Time, x_recv: f64, p: f64, capacity_bps: Option<u64>) -> Feedback {
        Feedback {
            timestamp_echo: sent,
            elapsed: Dur::ZERO,
            x_recv,
            p,
            capacity_bps,
            loss_start: None,
        }
    }

    fn probe(ihn: bool, ehn: bool, fra: bool, err: bool) -> ProbeConfig {
        ProbeConfig {
            enabled: true,
            ihn,
            ehn,
            fra,
            err,
            ..ProbeConfig::default()
        }
    }

    /// A sender at X = 40 000 B/s (R = 100 ms, RFC 5348 §4.2's W_init/R) from 100 ms.
    fn started(p: &ProbeConfig) -> TfrcSender {
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0)).with_probe(p);
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0, None));
        s
    }

    // ---- Tests for the packet pairs (Chen et al. §3.1) ----

    #[test]
    fn every_nth_packet_is_followed_at_once_by_the_next() {
        // Chen et al. §3.1: "after every n-th data packet is sent out, the TFRC Probe sender
        // immediately transmits the next data packet without waiting for the pacing
        // interval", n = 20. Reports every 100 ms hold X at the equation's rate (p = 0.05,
        // R = 100 ms); packets 19 and 20 (the 20th and 21st) leave together, 39 and 40 too,
        // and the interval skipped follows the pair.
        let mut s = started(&probe(false, false, false, false));
        let mut sent = Vec::new();
        let mut now = ms(100);
        let mut next_report = ms(200);
        while sent.len() < 45 {
            while let Some(p) = s.poll_transmit(now) {
                sent.push((p.seq, now, p.pair));
            }
            if now >= next_report {
                s.handle_feedback(now, &feedback(now - Dur::from_millis(100), 1e9, 0.05, None));
                next_report = now + Dur::from_millis(100);
            }
            now = s.poll_timeout().unwrap().min(next_report);
        }
        let at = |seq: u64| sent.iter().find(|x| x.0 == seq).unwrap().1;
        let marked: Vec<(u64, PairMark)> = sent
            .iter()
            .filter(|x| x.2 != PairMark::None)
            .map(|x| (x.0, x.2))
            .collect();
        assert_eq!(
            marked,
            [
                (19, PairMark::First),
                (20, PairMark::Second),
                (39, PairMark::First),
                (40, PairMark::Second)
            ]
        );
        let t_ipi = at(19).saturating_since(at(18));
        assert_eq!(t_ipi, Dur::from_secs_f64(1000.0 / s.rate()));
        assert_eq!(at(20), at(19));
        assert_eq!(at(21), at(20) + t_ipi.saturating_mul(2));
        assert_eq!(at(40), at(39));
    }

    #[test]
    fn plain_tfrc_sends_no_pairs() {
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0, Some(150_000)));
        let mut now = ms(100);
        for _ in 0..30 {
            if let Some(p) = s.poll_transmit(now) {
                assert_eq!(p.pair, PairMark::None);
            }
            now = s.poll_timeout().unwrap();
        }
        assert_eq!((s.capacity_estimate(), s.detections().len()), (None, 0));
    }

    #[test]
    fn the_receiver_reports_the_pairs_capacity_on_its_feedback() {
        // Chen et al. §3.1: the receiver measures T_1, T_2 against T_0 and reports CapProbe's
        // estimate on its feedback. Pairs sent at T_0 every 500 ms cross a 150 kb/s hop:
        // 1040 bytes on the wire, 55.467 ms apart at arrival, after 80 ms (+ queueing that
        // varies pair to pair, one pair compressed by 40 ms). A run of 6 pairs (the default
        // filter, CapProbe's runs): the estimate comes with the 6th.
        let mut r = TfrcReceiver::new(&TfrcConfig::default()).with_probe(&ProbeConfig {
            window: 6,
            ..probe(false, false, false, false)
        });
        let gap = Dur::serialization(1040, 150_000);
        let mut last = None;
        for k in 0..6u64 {
            let t0 = ms(500 * k);
            let q = Dur::from_millis([30, 10, 0, 50, 20, 5][k as usize]);
            let a1 = t0 + Dur::from_millis(80) + q;
            let a2 = a1 + gap;
            let a1 = if k == 3 {
                a1 + Dur::from_millis(40)
            } else {
                a1
            };
            for (seq, at, pair) in [
                (2 * k, a1, PairMark::First),
                (2 * k + 1, a2, PairMark::Second),
            ] {
                r.handle_data(
                    at,
                    &TfrcPacket {
                        seq,
                        timestamp: t0,
                        rtt: Dur::ZERO,
                        size: 1000,
                        round: 0,
                        pair,
                    },
                );
                while let Some(fb) = r.poll_transmit(at) {
                    last = Some(fb);
                }
            }
        }
        let c = last
            .unwrap()
            .capacity_bps
            .expect("an estimate on the feedback");
        assert!((149_990..=150_000).contains(&c), "{c}");
        assert_eq!(r.probe_pairs(), (6, 0));
    }

    // ---- Tests for IHN and FRA (Chen et al. §3.3) ----

    #[test]
    fn fra_doubles_past_the_announced_capacity_until_the_first_loss() {
        // Chen et al.'s footnote to FRA (seed 004 l.110): the "sender doubles the sending rate
        // every RTT ... until the first packet loss occurs" -- no cap at the new capacity
        // (issue 33 point 10; `fra_cap` is vho's option). X_Bps 36 858.9 B/s as below; after
        // IHN on 150 kb/s -> 5 Mb/s, 6 reports double X 6 times, to 64 X_Bps = 2 358 970 B/s,
        // past the 625 000 B/s announced; a loss under FRA halves it.
        let mut s = started(&probe(true, false, true, false));
        let mut t = 200;
        for c in [150_000, 150_000, 5_000_000] {
            s.handle_feedback(ms(t), &feedback(ms(t - 100), 1e9, 0.05, Some(c)));
            t += 100;
        }
        let x_eq = 1000.0
            / (0.1 * (0.1f64 / 3.0).sqrt() + 0.4 * 3.0 * (0.15f64 / 8.0).sqrt() * 0.05 * 1.08);
        assert!(s.in_fra());
        for k in 1..=6 {
            s.handle_feedback(ms(t), &feedback(ms(t - 100), 1e9, 0.05, Some(5_000_000)));
            t += 100;
            let want = f64::powi(2.0, k) * x_eq;
            assert!((s.rate() - want).abs() < 1e-3 * want, "{k}: {}", s.rate());
        }
        assert!(s.rate() > 625_000.0 * 3.0);
        let mut fb = feedback(ms(t - 100), 1e9, 0.06, Some(5_000_000));
        fb.loss_start = Some(1);
        let before = s.rate();
        s.handle_feedback(ms(t), &fb);
        assert!(!s.in_fra());
        assert_eq!(s.rate(), before / 2.0);
    }

    #[test]
    fn ihn_on_a_fivefold_estimate_starts_fra_which_doubles_to_the_new_capacity() {
        // Chen et al. §3.3: C' > 5C is a LOW-to-HIGH handoff; FRA "forces TCP/TFRC Probe to
        // enter the slow start phase". R = 100 ms, p = 0.05 from the slow link: the
        // equation's X_Bps is 1000 / (0.1*sqrt(0.1/3) + 0.4*3*sqrt(0.15/8)*0.05*1.08) =
        // 36 858.9 B/s (RFC 5348 §3.1). Estimates 150 kb/s then 5 Mb/s: IHN fires; X
        // doubles once per R (recv_limit high), with `fra_cap` (vho's option) never past the
        // 5 Mb/s announced (625 000 B/s), and FRA holds while p does not rise.
        let mut s = started(&ProbeConfig {
            fra_cap: true,
            ..probe(true, false, true, false)
        });
        let mut t = 200;
        let mut report = |s: &mut TfrcSender, p: f64, c: u64| {
            s.handle_feedback(ms(t), &feedback(ms(t - 100), 1e9, p, Some(c)));
            t += 100;
        };
        report(&mut s, 0.05, 150_000);
        report(&mut s, 0.05, 150_000);
        let x_eq = s.rate();
        assert!((x_eq - 36_858.9).abs() < 0.1, "{x_eq}");
        assert!(s.detections().is_empty());
        report(&mut s, 0.05, 5_000_000);
        let d = s.detections()[0];
        assert_eq!(
            (d.handoff.by, d.handoff.direction, d.action),
            (Notice::Ihn, Direction::LowToHigh, Some(Action::Fra))
        );
        assert_eq!(d.handoff.at, ms(400));
        assert!(s.in_fra());
        let mut rates = Vec::new();
        for _ in 0..6 {
            report(&mut s, 0.05, 5_000_000);
            rates.push(s.rate());
        }
        // 2, 4, 8, 16 times X_Bps (589 742 B/s), then the cap of 625 000.
        let expect = [2.0, 4.0, 8.0, 16.0, 32.0, 64.0].map(|k: f64| (k * x_eq).min(625_000.0));
        for (r, e) in rates.iter().zip(expect) {
            assert!((r - e).abs() < 1e-6, "{rates:?}");
        }
        // The seed's footnote to FRA (l.110): doubling "until the first packet loss occurs.
        // After the first packet loss, TFRC sets its sending rate to half of the current rate
        // and thereafter adjusts its rate based on the TCP response function". A loss event
        // that began at packet 0, sent before FRA (the only packet sent before it began: FRA
        // counts from packet 1), raises p but is not FRA's loss: X holds at the cap.
        let mut lossy = |s: &mut TfrcSender, p: f64, loss_start: u64| {
            let mut fb = feedback(ms(t - 100), 1e9, p, Some(5_000_000));
            fb.loss_start = Some(loss_start);
            s.handle_feedback(ms(t), &fb);
            t += 100;
        };
        lossy(&mut s, 0.06, 0);
        assert!(s.in_fra());
        assert_eq!(s.rate(), 625_000.0);
        // A loss event beginning at packet 1, sent under FRA: FRA ends, X halves ...
        lossy(&mut s, 0.07, 1);
        assert!(!s.in_fra());
        assert_eq!(s.rate(), 312_500.0);
        // ... and the next report takes the equation's rate (p = 0.07, R = 100 ms).
        lossy(&mut s, 0.07, 1);
        assert!(s.rate() < x_eq, "{}", s.rate());
    }

    #[test]
    fn without_fra_ihn_only_records() {
        // Remedy `ihn` without `fra`: the handoff is recorded, nothing changes.
        let mut s = started(&probe(true, false, false, false));
        s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.05, Some(150_000)));
        let x = s.rate();
        s.handle_feedback(ms(300), &feedback(ms(200), 1e9, 0.05, Some(5_000_000)));
        assert_eq!(s.detections().len(), 1);
        assert_eq!(s.detections()[0].action, None);
        assert!(!s.in_fra());
        assert_eq!(s.rate(), x);
    }

    // ---- Tests for EHN and ERR (Chen et al. §4) ----

    #[test]
    fn ehn_high_to_low_with_err_cuts_the_rate_to_r_c2_over_c1_and_holds_it() {
        // Chen et al. §4: "ERR ... first reduces the TFRC/TCP Probe sending rate from R to
        // RC_2/C_1": 5 Mb/s -> 150 kb/s is 0.03. Reports about packets sent before the cut
        // (echoes before 1 s) do not lift it; the first about a packet after it ends the hold.
        let mut s = started(&probe(false, true, false, true));
        for t in (200..=1000).step_by(100) {
            s.handle_feedback(ms(t), &feedback(ms(t - 100), 1e9, 0.0, Some(5_000_000)));
        }
        let x = s.rate();
        assert!(x > 600_000.0, "{x}");
        s.notify_handover(ms(1000), 5_000_000, 150_000);
        let cut = s.rate();
        assert!((cut - 0.03 * x).abs() < 1e-6, "{cut}");
        let d = s.detections()[0];
        assert_eq!(
            (d.handoff.by, d.handoff.direction),
            (Notice::Ehn, Direction::HighToLow)
        );
        assert!(matches!(d.action, Some(Action::Err { .. })));
        // Old reports: 1e9 B/s received, p = 0; X stays at the cut.
        s.handle_feedback(ms(1100), &feedback(ms(990), 1e9, 0.0, Some(5_000_000)));
        assert_eq!(s.rate(), cut);
        // The first report about a packet sent after the cut: slow start from the cut.
        s.handle_feedback(
            ms(1200),
            &feedback(ms(1050), 20_000.0, 0.0, Some(5_000_000)),
        );
        assert!(s.rate() <= 2.0 * cut.max(20_000.0) + 1e-6, "{}", s.rate());
    }

    #[test]
    fn ehn_low_to_high_with_fra_starts_slow_start_at_once() {
        // Chen et al. §4: "upon receiving an EHN, the sender launches the FRA algorithm".
        let mut s = started(&probe(false, true, true, false));
        s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.05, None));
        s.notify_handover(ms(250), 150_000, 5_000_000);
        assert!(s.in_fra());
        assert_eq!(s.detections()[0].handoff.at, ms(250));
        // The same notice to a sender without `ehn`: nothing.
        let mut plain = started(&probe(false, false, true, false));
        plain.notify_handover(ms(250), 150_000, 5_000_000);
        assert!(!plain.in_fra() && plain.detections().is_empty());
    }
}
