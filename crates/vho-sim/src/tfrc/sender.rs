//! The TFRC sender (RFC 5348 §4): the allowed sending rate X, slow start by doubling, the
//! nofeedback timer, and paced sending at one packet every t_ipi = s/X.
//!
//! §4.2: before any feedback X = s per second (one packet a second) and the nofeedback timer
//! runs 2 s; at the first feedback X = W_init/R. §4.3, at each feedback: R_sample = (t_now -
//! t_recvdata) - t_delay; R = q*R + (1-q)*R_sample; RTO = max(4*R, 2*s/X); X_recv_set updated
//! (the receive rates of the last two RTTs), recv_limit = 2*max(X_recv_set); if p > 0, X =
//! max(min(X_Bps, recv_limit), s/t_mbi), else once per RTT X = max(min(2*X, recv_limit),
//! initial_rate); the nofeedback timer restarts after RTO. §4.4: the nofeedback timer halves
//! the rate through the cached X_recv, never below s/t_mbi. §4.6: a packet every t_ipi = s/X
//! (s/X_inst with the oscillation prevention of §4.5).
//!
//! The application always has data (a bulk source, as ns-2's Agent/TFRC with `SndrType_ 0`):
//! §4.3's data-limited branches and §4.4's idle branches never apply.

use super::config::TfrcConfig;
use super::equation;
use super::probe::{Detection, SenderSide};
use super::{Feedback, PairMark, TfrcPacket};
use crate::probe::{Action, Handoff, ProbeConfig};
use crate::time::{Dur, Time};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub feedbacks: u64,
    pub nofeedback_expiries: u64,
}

/// The sender's state as a recorder would sample it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderProbe {
    /// X, the allowed sending rate, bytes per second.
    pub x: f64,
    /// X_Bps, the equation's rate at the last feedback with p > 0.
    pub x_bps: Option<f64>,
    /// p as last reported.
    pub p: f64,
    /// R, the smoothed RTT; `None` before the first feedback (without `initial_rtt`).
    pub rtt: Option<Dur>,
    /// Whether the sender is still in slow start (no loss reported yet).
    pub slow_start: bool,
}

/// X_recv_set (§4.3): receive rates reported in the last two RTTs, with when they came.
/// `None` as a value is the initial Infinity (§4.2).
#[derive(Clone, Debug)]
struct RecvSet {
    items: Vec<(Option<f64>, Time)>,
}

impl RecvSet {
    /// "Update X_recv_set": add X_recv, delete values older than two round-trip times.
    fn update(&mut self, x_recv: f64, now: Time, r: Dur) {
        self.items.push((Some(x_recv), now));
        self.items
            .retain(|&(_, at)| at + r.saturating_mul(2) >= now);
    }
    /// max(X_recv_set); `None` for Infinity.
    fn max(&self) -> Option<f64> {
        let mut m: Option<f64> = Some(0.0);
        for &(v, _) in &self.items {
            m = match (m, v) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
        m
    }
    /// Replace the contents with one item (§4.4 Update_Limits).
    fn replace(&mut self, x: f64, now: Time) {
        self.items.clear();
        self.items.push((Some(x), now));
    }
}

#[derive(Clone, Debug)]
pub struct TfrcSender {
    cfg: TfrcConfig,
    /// X, bytes per second.
    x: f64,
    /// X_Bps from the last feedback with p > 0.
    x_bps: Option<f64>,
    p: f64,
    /// R; `None` until the first feedback (or `initial_rtt`).
    r: Option<Dur>,
    /// R_sqmean and the last R_sample, for §4.5.
    r_sqmean: f64,
    r_sample: Option<Dur>,
    /// tld, the time X last doubled in slow start (with `gradual_increase`, also the time
    /// it last changed after it).
    tld: Option<Time>,
    recv_set: RecvSet,
    /// X_recv of the last report (`ns2_recv_limit` only).
    last_x_recv: Option<f64>,
    /// ns-2's t_RTO estimator (`ns2_rto_tick` only).
    ns2_rto: super::ns2_rto::Ns2Rto,
    feedback_seen: bool,
    next_seq: u64,
    /// When the next packet may go (t_nom of §4.6).
    next_send: Time,
    last_sent: Option<Time>,
    nofeedback_at: Time,
    stats: SenderStats,
    /// TFRC Probe (`tfrc/probe.rs`); `None`: plain TFRC, nothing of it on any path.
    probe: Option<Box<SenderSide>>,
}

impl TfrcSender {
    /// A sender whose application starts sending at `start`.
    pub fn new(cfg: &TfrcConfig, start: Time) -> Self {
        let s = cfg.segment_size as f64;
        let mut snd = TfrcSender {
            cfg: *cfg,
            x: cfg.initial_rate.unwrap_or(s),
            x_bps: None,
            p: 0.0,
            r: None,
            r_sqmean: 0.0,
            r_sample: None,
            tld: None,
            recv_set: RecvSet {
                items: vec![(None, start)],
            },
            last_x_recv: None,
            ns2_rto: Default::default(),
            feedback_seen: false,
            next_seq: 0,
            next_send: start,
            last_sent: None,
            nofeedback_at: start + cfg.initial_nofeedback,
            stats: SenderStats::default(),
            probe: None,
        };
        if let Some(r) = cfg.initial_rtt.filter(|r| *r > Dur::ZERO) {
            // §4.2: with an RTT from the handshake, start at W_init/R.
            snd.r = Some(r);
            snd.x = snd.initial_rate(r);
        }
        snd
    }

    /// The same sender as TFRC Probe (Chen et al. §3.1), if `probe.enabled`.
    pub fn with_probe(mut self, probe: &ProbeConfig) -> Self {
        if probe.enabled {
            self.probe = Some(Box::new(SenderSide::new(probe)));
        }
        self
    }

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// TFRC Probe's last capacity estimate from the receiver, bit/s.
    pub fn capacity_estimate(&self) -> Option<u64> {
        self.probe.as_ref().and_then(|p| p.estimate())
    }

    /// The handoffs TFRC Probe learnt of (IHN, EHN) and what it did, in order.
    pub fn detections(&self) -> &[Detection] {
        self.probe.as_ref().map_or(&[], |p| &p.detections)
    }

    /// Whether FRA's slow start is in force.
    pub fn in_fra(&self) -> bool {
        self.probe.as_ref().is_some_and(|p| p.fra.is_some())
    }

    pub fn probe(&self) -> SenderProbe {
        SenderProbe {
            x: self.x,
            x_bps: self.x_bps,
            p: self.p,
            rtt: self.r,
            slow_start: self.p == 0.0,
        }
    }

    /// X, the allowed sending rate in bytes per second.
    pub fn rate(&self) -> f64 {
        self.x
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        Some(self.next_send.min(self.nofeedback_at))
    }

    /// The next data packet, if its time has come (§4.6).
    pub fn poll_transmit(&mut self, now: Time) -> Option<TfrcPacket> {
        self.handle_timeout(now);
        if now < self.next_send {
            return None;
        }
        let pkt = TfrcPacket {
            seq: self.next_seq,
            timestamp: now,
            rtt: self.r.unwrap_or(Dur::ZERO),
            size: self.cfg.segment_size,
            round: self.stats.feedbacks + self.stats.nofeedback_expiries,
            pair: self
                .probe
                .as_ref()
                .map_or(PairMark::None, |p| p.mark(self.next_seq)),
        };
        self.next_seq += 1;
        self.last_sent = Some(now);
        // A late poll does not catch up: the next packet is one t_ipi after this one; TFRC
        // Probe's pair goes back to back, the interval skipped added after it.
        self.next_send = match pkt.pair {
            PairMark::None => now + self.t_ipi(),
            PairMark::First => now,
            PairMark::Second => now + self.t_ipi().saturating_mul(2),
        };
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += pkt.size as u64;
        Some(pkt)
    }

    /// A feedback packet arrives (§4.3).
    pub fn handle_feedback(&mut self, now: Time, fb: &Feedback) {
        self.stats.feedbacks += 1;
        // Step 1: R_sample = (t_now - t_recvdata) - t_delay (at least 1 ns).
        let r_sample = Dur(now
            .saturating_since(fb.timestamp_echo)
            .saturating_sub(fb.elapsed)
            .as_nanos()
            .max(1));
        self.r_sample = Some(r_sample);
        if let Some(tick) = self.cfg.ns2_rto_tick {
            self.ns2_rto.on_sample(r_sample, tick);
        }
        // Step 2: the RTT, q = 0.9; §4.5's R_sqmean beside it.
        let r = match self.r.filter(|_| self.feedback_seen) {
            None => {
                self.r_sqmean = (r_sample.as_nanos() as f64).sqrt();
                r_sample
            }
            Some(r) => {
                let q = self.cfg.q;
                let q2 = self.cfg.q2;
                self.r_sqmean =
                    q2 * self.r_sqmean + (1.0 - q2) * (r_sample.as_nanos() as f64).sqrt();
                Dur(
                    (q * r.as_nanos() as f64 + (1.0 - q) * r_sample.as_nanos() as f64).round()
                        as u64,
                )
            }
        };
        self.r = Some(r);
        self.p = fb.p;
        if let Some(probe) = self.probe.as_mut() {
            probe.loss_start = fb.loss_start;
        }
        // TFRC Probe's ERR: a report about packets sent before the cut describes the old link.
        let before_cut = self.probe.as_ref().is_some_and(|p| p.precedes_cut(fb));
        // Step 4: recv_limit from X_recv_set (the typical, not data-limited, case).
        if !before_cut {
            self.recv_set.update(fb.x_recv, now, r);
            self.last_x_recv = Some(fb.x_recv);
        }
        if !self.feedback_seen {
            // §4.2: the first feedback sets the initial rate; slow start counts from here.
            self.feedback_seen = true;
            self.x = self.initial_rate(r);
            self.tld = Some(now);
        }
        self.update_rate(now, r);
        if let Some(probe) = self.probe.as_mut() {
            match probe.err_hold {
                Some((_, cut)) if before_cut => self.x = self.x.min(cut),
                _ => probe.err_hold = None,
            }
            if let Some(h) = probe.on_report(now, fb) {
                self.on_handoff(now, h);
            }
        }
        // Steps 3 and 5: RTO = max(4*R, 2*s/X); the nofeedback timer restarts after it.
        self.nofeedback_at = now + self.rto(r);
        self.reschedule(now);
    }

    /// The mobile's handover manager announces a handoff from an interface of `from_bps` to
    /// one of `to_bps` (EHN, Chen et al. §4): TFRC Probe with `ehn` answers it.
    pub fn notify_handover(&mut self, now: Time, from_bps: u64, to_bps: u64) {
        if let Some(h) = self
            .probe
            .as_ref()
            .and_then(|p| p.on_notice(now, from_bps, to_bps))
        {
            self.on_handoff(now, h);
            self.reschedule(now);
        }
    }

    /// FRA or ERR, as the flow asked (`tfrc/probe.rs` says how each is read for TFRC).
    fn on_handoff(&mut self, now: Time, h: Handoff) {
        let min_rate = self.cfg.min_rate();
        let Some(probe) = self.probe.as_mut() else {
            return;
        };
        match probe.respond(h) {
            Some(Action::Fra) => {
                probe.err_hold = None;
                probe.fra = Some(super::probe::Fra {
                    since_seq: self.next_seq,
                    cap: probe.fra_cap().then_some(h.to_bps as f64 / 8.0),
                });
                self.tld = Some(now);
            }
            Some(Action::Err { ratio }) => {
                probe.fra = None;
                self.x = (self.x * ratio).max(min_rate);
                self.recv_set.replace(self.x / 2.0, now);
                probe.err_hold = Some((now, self.x));
            }
            None => {}
        }
    }

    /// One report under FRA; `false` once FRA is over and the report goes the usual way.
    /// The seed's footnote to FRA (l.110): X doubles once per R "until the first packet loss
    /// occurs", capped by recv_limit (and, with `flow.probe.fra_cap`, by the capacity the
    /// handoff announced), never below the equation's rate; the first loss is the first loss event beginning at a packet sent
    /// under FRA (`Feedback::loss_start`). At that report "TFRC sets its sending rate to half
    /// of the current rate and thereafter adjusts its rate based on the TCP response
    /// function": X halves, and the next report takes the equation. (An earlier reading ended
    /// FRA at any rise of p: a loss on the old link, reported after the handoff, ended it at
    /// once in 3 of 5 runs of `vho reproduce chen`.)
    fn fra_step(&mut self, now: Time, r: Dur, recv_limit: f64) -> bool {
        let Some(probe) = self.probe.as_mut() else {
            return false;
        };
        let Some(fra) = probe.fra else {
            return false;
        };
        if probe.loss_start.is_some_and(|seq| seq >= fra.since_seq) {
            probe.fra = None;
            self.x = (self.x / 2.0).max(self.cfg.min_rate());
            self.tld = Some(now);
            return true;
        }
        let x_eq = (self.p > 0.0).then(|| self.equation_rate(r));
        if self.tld.is_none_or(|tld| now.saturating_since(tld) >= r) {
            let doubled = (2.0 * self.x)
                .min(recv_limit)
                .min(fra.cap.unwrap_or(f64::INFINITY));
            self.x = doubled.max(self.x).max(x_eq.unwrap_or(0.0));
            self.tld = Some(now);
        }
        true
    }

    /// X_Bps for the current p and R (§3.1), with the profile's t_RTO.
    fn equation_rate(&mut self, r: Dur) -> f64 {
        let t_rto = match self.cfg.ns2_rto_tick {
            Some(tick) => self.ns2_rto.t_rto(tick).unwrap_or(self.cfg.t_rto(r)),
            None => self.cfg.t_rto(r),
        };
        equation::throughput(self.cfg.segment_size, r, self.p, self.cfg.b, t_rto)
    }

    /// The nofeedback timer (§4.4).
    pub fn handle_timeout(&mut self, now: Time) {
        if now < self.nofeedback_at {
            return;
        }
        self.stats.nofeedback_expiries += 1;
        if let Some(probe) = self.probe.as_mut() {
            probe.fra = None; // §4.4 halves the rate: no slow start through it
        }
        let min_rate = self.cfg.min_rate();
        match (self.feedback_seen, self.x_bps.filter(|_| self.p > 0.0)) {
            // No RTT sample, no feedback yet / p = 0 / ns-2's timer: halve X itself.
            (false, _) | (true, None) => self.x = (self.x / 2.0).max(min_rate),
            (true, Some(_)) if self.cfg.ns2_nofeedback => self.x = (self.x / 2.0).max(min_rate),
            (true, Some(x_bps)) => {
                // The cached X_recv: what limits the rate through recv_limit.
                let x_recv = self.recv_set.max().unwrap_or(f64::INFINITY);
                let timer_limit = if x_bps > 2.0 * x_recv {
                    x_recv // 2*X_recv was already limiting the rate
                } else {
                    x_bps / 2.0 // X_Bps was
                };
                // Update_Limits(timer_limit).
                let timer_limit = timer_limit.max(min_rate);
                self.recv_set.replace(timer_limit / 2.0, now);
                let r = self.r.expect("invariant: feedback seen");
                self.update_rate(now, r);
            }
        }
        // Step 2: restart after max(4*R, 2*s/X) (R = 0 before any sample).
        self.nofeedback_at = now + self.rto(self.r.unwrap_or(Dur::ZERO));
        self.reschedule(now);
    }

    /// §4.3 step 4 (with recv_limit from the current X_recv_set).
    fn update_rate(&mut self, now: Time, r: Dur) {
        let recv_limit = match self.last_x_recv.filter(|_| self.cfg.ns2_recv_limit) {
            // ns-2.35's maxrate_: twice the last report's rate, at least s/R.
            Some(x_recv) => {
                (2.0 * x_recv).max(self.cfg.segment_size as f64 / r.as_secs_f64().max(1e-9))
            }
            None => self.recv_set.max().map_or(f64::INFINITY, |m| 2.0 * m),
        };
        if self.probe.is_some() && self.fra_step(now, r, recv_limit) {
            return;
        }
        if self.p > 0.0 {
            let x_bps = self.equation_rate(r);
            // ns-2 leaves slow start at its first loss report with rate_ = the equation's
            // (OUT_OF_SLOW_START); only later increases are gradual.
            let after_loss = self.x_bps.replace(x_bps).is_some();
            let target = x_bps.min(recv_limit);
            if self.cfg.gradual_increase && target > self.x && after_loss {
                // ns-2's increase_rate: s/R times the RTTs since the last change, at most 2.
                let since = self
                    .tld
                    .map_or(0.0, |t| now.saturating_since(t).as_secs_f64());
                let mult = (since / r.as_secs_f64()).min(2.0);
                let step = self.cfg.segment_size as f64 / r.as_secs_f64() * mult;
                self.x = (self.x + step).min(target);
            } else {
                self.x = target;
            }
            self.x = self.x.max(self.cfg.min_rate());
            if self.cfg.gradual_increase {
                self.tld = Some(now); // ns-2's last_change_
            }
        } else if self.tld.is_some_and(|tld| now.saturating_since(tld) >= r) {
            // Initial slow start: double once per RTT, capped by recv_limit.
            self.x = (2.0 * self.x).min(recv_limit).max(self.initial_rate(r));
            self.tld = Some(now);
        }
    }

    /// initial_rate = W_init/R (§4.2).
    fn initial_rate(&self, r: Dur) -> f64 {
        equation::initial_window(self.cfg.segment_size) as f64 / r.as_secs_f64()
    }

    /// The nofeedback interval: max(4*R, 2*s/X) (§4.3 step 3); ns-2's max(2*R, 2*s/X)
    /// with `ns2_nofeedback`.
    fn rto(&self, r: Dur) -> Dur {
        let two_packets = Dur::from_secs_f64(2.0 * self.cfg.segment_size as f64 / self.x);
        let rtts = if self.cfg.ns2_nofeedback { 2 } else { 4 };
        r.saturating_mul(rtts).max(two_packets)
    }

    /// t_ipi = s/X_inst (§4.6; X_inst = X without §4.5).
    fn t_ipi(&self) -> Dur {
        let mut x = self.x;
        if self.cfg.oscillation_prevention {
            if let Some(sample) = self.r_sample {
                // §4.5: X_inst = X * R_sqmean / sqrt(R_sample).
                x = x * self.r_sqmean / (sample.as_nanos() as f64).sqrt();
            }
        }
        Dur::from_secs_f64(self.cfg.segment_size as f64 / x)
    }

    /// A new X takes effect at once: the next packet goes one new t_ipi after the last.
    fn reschedule(&mut self, now: Time) {
        // TFRC Probe: the pair's second packet is due at once; after it, two intervals.
        let mut intervals = 1;
        if let Some(p) = self.probe.as_ref() {
            if p.mark(self.next_seq) == PairMark::Second {
                return;
            }
            if self.next_seq > 0 && p.mark(self.next_seq - 1) == PairMark::Second {
                intervals = 2;
            }
        }
        if let Some(last) = self.last_sent {
            self.next_send = (last + self.t_ipi().saturating_mul(intervals)).max(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u32 = 1000;

    fn feedback(sent: Time, x_recv: f64, p: f64) -> Feedback {
        Feedback {
            timestamp_echo: sent,
            elapsed: Dur::ZERO,
            x_recv,
            p,
            capacity_bps: None,
            loss_start: None,
        }
    }

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn close(a: f64, b: f64) -> bool {
        ((a - b) / b).abs() < 1e-9
    }

    // ---- Tests for initialisation (RFC 5348 §4.2) ----

    #[test]
    fn one_packet_a_second_until_the_first_feedback() {
        // RFC 5348 §4.2: X = 1 packet/second; the nofeedback timer at 2 s.
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        let p0 = s.poll_transmit(ms(0)).expect("the first packet at once");
        assert_eq!((p0.seq, p0.size, p0.rtt), (0, S, Dur::ZERO));
        assert_eq!(s.poll_transmit(ms(999)), None);
        assert_eq!(s.poll_timeout(), Some(ms(1000)));
        assert_eq!(s.poll_transmit(ms(1000)).unwrap().seq, 1);
        assert_eq!(s.rate(), 1000.0);
    }

    // ---- Tests for slow start (RFC 5348 §4.3 step 4) ----

    #[test]
    fn slow_start_doubles_once_per_rtt_capped_by_twice_x_recv() {
        // RFC 5348 §4.2, §4.3: every feedback echoes a packet sent 100 ms before (R = 100 ms).
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        // First feedback: X = W_init/R = min(4*1000, max(2*1000, 4380)) / 0.1 = 40 000 B/s.
        assert!(close(s.rate(), 40_000.0));
        assert_eq!(s.probe().rtt, Some(Dur::from_millis(100)));
        // One RTT later: doubled; half an RTT after that: unchanged; one RTT after: doubled.
        s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.0));
        assert!(close(s.rate(), 80_000.0));
        s.handle_feedback(ms(250), &feedback(ms(150), 1e9, 0.0));
        assert!(close(s.rate(), 80_000.0));
        s.handle_feedback(ms(300), &feedback(ms(200), 1e9, 0.0));
        assert!(close(s.rate(), 160_000.0));
        // The receiver now reports 50 000 B/s. recv_limit = 2*max(X_recv_set), the set
        // holding the last two RTTs' reports: 1e9 (at 300 ms) still counts at 400 and 500 ms
        // (doubling to 320 000, 640 000); at 600 ms only 50 000s remain: X = 100 000.
        for (t, expected) in [(400, 320_000.0), (500, 640_000.0), (600, 100_000.0)] {
            s.handle_feedback(ms(t), &feedback(ms(t - 100), 50_000.0, 0.0));
            assert!(close(s.rate(), expected), "{t} ms: {}", s.rate());
        }
        // And it stays capped by 2*X_recv while the reports do not grow.
        s.handle_feedback(ms(700), &feedback(ms(600), 50_000.0, 0.0));
        assert!(close(s.rate(), 100_000.0));
    }

    #[test]
    fn a_loss_report_sets_the_rate_from_the_equation() {
        // RFC 5348 §4.3 step 4: p > 0: X = max(min(X_Bps, recv_limit), s/t_mbi); with R =
        // 100 ms and p = 0.01, X_Bps = 112 332 B/s (see equation.rs).
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.01));
        assert!((s.rate() - 112_332.0).abs() < 1.0, "{}", s.rate());
        // recv_limit binds when it is lower: 2 * max(1e9, 40 000) still 2e9; reports of
        // 40 000 from here on leave only them in the set after two RTTs: X = 80 000.
        for t in [300, 400, 500] {
            s.handle_feedback(ms(t), &feedback(ms(t - 100), 40_000.0, 0.01));
        }
        assert!(close(s.rate(), 80_000.0), "{}", s.rate());
    }

    #[test]
    fn the_ns2_profile_raises_the_rate_by_at_most_s_over_r_per_rtt() {
        // ns-2.35 tcp/tfrc.cc increase_rate (the `ns2` profile's deviation from §4.3 step
        // 4): rate += (s/R) * min((now - last_change)/R, 2), capped by the equation's rate.
        // R = 100 ms, s = 1000: s/R = 10 000 B/s. A report of p = 0.01 sets X = X_Bps =
        // 112 332 B/s (a cut takes effect at once); a later p of 0.001 (X_Bps 380 kB/s)
        // raises X by 10 000 B/s one RTT later, and by twice that after three RTTs.
        let cfg = TfrcConfig {
            gradual_increase: true,
            ..TfrcConfig::default()
        };
        let mut s = TfrcSender::new(&cfg, ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.01));
        assert!((s.rate() - 112_332.0).abs() < 1.0, "{}", s.rate());
        s.handle_feedback(ms(300), &feedback(ms(200), 1e9, 0.001));
        assert!((s.rate() - 122_332.0).abs() < 1.0, "{}", s.rate());
        s.handle_feedback(ms(600), &feedback(ms(500), 1e9, 0.001));
        assert!((s.rate() - 142_332.0).abs() < 1.0, "{}", s.rate());
        // Without the deviation (RFC 5348), the same report sets X = X_Bps at once.
        let mut rfc = TfrcSender::new(&TfrcConfig::default(), ms(0));
        rfc.poll_transmit(ms(0));
        rfc.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        rfc.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.01));
        rfc.handle_feedback(ms(300), &feedback(ms(200), 1e9, 0.001));
        assert!(rfc.rate() > 300_000.0, "{}", rfc.rate());
    }

    #[test]
    fn rtt_is_smoothed_with_q_0_9() {
        // RFC 5348 §4.3 step 2: R = 0.9*R + 0.1*R_sample: 100 ms then a 200 ms sample ->
        // 110 ms; t_delay is subtracted from the sample (300 ms - 100 ms = 200 ms).
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        let mut fb = feedback(ms(100), 1e9, 0.0);
        fb.elapsed = Dur::from_millis(100);
        s.handle_feedback(ms(400), &fb);
        assert_eq!(s.probe().rtt, Some(Dur::from_millis(110)));
    }

    // ---- Tests for pacing (RFC 5348 §4.6) ----

    #[test]
    fn packets_are_paced_at_s_over_x() {
        // RFC 5348 §4.6: t_ipi = s/X. At X = 40 000 B/s, 1000-byte packets every 25 ms.
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        // The new rate takes effect at once: the previous packet went at 0, so the next may
        // go now.
        assert_eq!(s.poll_timeout(), Some(ms(100)));
        let mut times = Vec::new();
        let mut now = ms(100);
        while now < ms(200) {
            if let Some(p) = s.poll_transmit(now) {
                times.push((p.seq, now));
                assert_eq!(
                    p.rtt,
                    Dur::from_millis(100),
                    "§3.2.1: R rides on every packet"
                );
            }
            now = s.poll_timeout().unwrap();
        }
        assert_eq!(
            times,
            vec![(1, ms(100)), (2, ms(125)), (3, ms(150)), (4, ms(175))]
        );
    }

    // ---- Tests for the nofeedback timer (RFC 5348 §4.4) ----

    #[test]
    fn nofeedback_before_any_feedback_halves_x_down_to_s_over_t_mbi() {
        // RFC 5348 §4.4: no RTT sample, no feedback: X = max(X/2, s/t_mbi); the timer then
        // runs max(4*R, 2*s/X) with no R: 2*s/X. From 1000 B/s: 500 at 2 s, 250 at 2+4 = 6 s,
        // 125 at 6+8 = 14 s, ..., never below s/t_mbi = 1000/64 = 15.625 B/s.
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        let mut expiries = Vec::new();
        for _ in 0..10 {
            let at = s.nofeedback_at;
            s.handle_timeout(at);
            expiries.push((at.as_nanos() / 1_000_000_000, s.rate()));
        }
        assert_eq!(
            &expiries[..4],
            &[(2, 500.0), (6, 250.0), (14, 125.0), (30, 62.5)]
        );
        assert_eq!(expiries[9].1, 15.625);
        assert_eq!(s.stats().nofeedback_expiries, 10);
    }

    #[test]
    fn nofeedback_after_loss_halves_through_x_recv() {
        // RFC 5348 §4.4: p > 0 and X_Bps <= 2*X_recv: Update_Limits(X_Bps/2) -> X =
        // X_Bps/2; the next expiry finds 2*X_recv (now X_Bps/2) limiting: Update_Limits(X_recv)
        // -> X = X_Bps/4; and so on, never below s/t_mbi.
        let mut s = TfrcSender::new(&TfrcConfig::default(), ms(0));
        s.poll_transmit(ms(0));
        s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
        s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.01));
        let x_bps = s.probe().x_bps.unwrap();
        // RTO = max(4*R, 2*s/X) = max(400 ms, 17.8 ms): the timer fires at 600 ms.
        assert_eq!(s.nofeedback_at, ms(600));
        s.handle_timeout(ms(600));
        assert!(close(s.rate(), x_bps / 2.0));
        let at = s.nofeedback_at;
        assert_eq!(at, ms(1000));
        s.handle_timeout(at);
        assert!(close(s.rate(), x_bps / 4.0));
        for _ in 0..40 {
            let at = s.nofeedback_at;
            s.handle_timeout(at);
        }
        assert_eq!(s.rate(), 15.625);
    }

    // ---- Tests for the ns2 profile's nofeedback timer and receive limit ----

    #[test]
    fn ns2_recv_limit_is_twice_the_last_report_not_the_two_rtt_maximum() {
        // ns-2.35 tcp/tfrc.cc recv: maxrate_ = 2*rate_since_last_report*size_, the cap of
        // decrease_rate; RFC 5348 §4.3 step 4: recv_limit = 2*max(X_recv_set), the reports of
        // the last two RTTs. Reports of 50 000 at 100 and 200 ms, 10 000 at 250 ms, p = 0.001
        // (X_Bps about 383 800 B/s, R = 100 ms): the RFC's limit 100 000, ns-2's 20 000.
        let run = |cfg: TfrcConfig| {
            let mut s = TfrcSender::new(&cfg, ms(0));
            s.poll_transmit(ms(0));
            s.handle_feedback(ms(100), &feedback(ms(0), 50_000.0, 0.0));
            s.handle_feedback(ms(200), &feedback(ms(100), 50_000.0, 0.001));
            s.handle_feedback(ms(250), &feedback(ms(150), 10_000.0, 0.001));
            s.rate()
        };
        let rfc = run(TfrcConfig::default());
        assert!(close(rfc, 100_000.0), "{rfc}");
        let ns2 = run(TfrcConfig {
            ns2_recv_limit: true,
            ..TfrcConfig::default()
        });
        assert!(close(ns2, 20_000.0), "{ns2}");
    }

    #[test]
    fn ns2_nofeedback_timer_runs_two_rtts_and_halves_x() {
        // ns-2.35 tcp/tfrc.cc recv: "t = 2*rtt_; if (t < 2*size_/rate_) t = 2*size_/rate_";
        // reduce_rate_on_no_feedback: rate_*=0.5. RFC 5348 §4.3 step 5: max(4R, 2s/X). After
        // a report at 200 ms (R = 100 ms, p = 0.01: X = 112 332 B/s, 2s/X = 17.8 ms), ns-2's
        // timer expires at 400 ms and halves X; the RFC's at 600 ms.
        let started = |cfg: TfrcConfig| {
            let mut s = TfrcSender::new(&cfg, ms(0));
            s.poll_transmit(ms(0));
            s.handle_feedback(ms(100), &feedback(ms(0), 1e9, 0.0));
            s.handle_feedback(ms(200), &feedback(ms(100), 1e9, 0.01));
            s
        };
        let mut s = started(TfrcConfig {
            ns2_nofeedback: true,
            ..TfrcConfig::default()
        });
        let x = s.rate();
        s.handle_timeout(ms(399));
        assert_eq!((s.rate(), s.stats().nofeedback_expiries), (x, 0));
        s.handle_timeout(ms(400));
        assert!(close(s.rate(), x / 2.0), "{}", s.rate());
        assert_eq!(s.stats().nofeedback_expiries, 1);
        let mut r = started(TfrcConfig::default());
        r.handle_timeout(ms(599));
        assert_eq!(r.stats().nofeedback_expiries, 0);
        r.handle_timeout(ms(600));
        assert_eq!(r.stats().nofeedback_expiries, 1);
    }
}
