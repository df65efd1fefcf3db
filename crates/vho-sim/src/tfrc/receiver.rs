//! The TFRC receiver (RFC 5348 §6): measures the loss event rate p (§5) and the receive rate
//! X_recv, and reports them once per RTT (§6.2) or at once when p rises (§6.1).
//!
//! §6.1, on a data packet: add it to the history, compute p; "If p > previous_p" expire the
//! feedback timer now. §6.2, when the feedback timer expires: if data arrived since the last
//! feedback, compute X_recv over the packets received in the last R_m (the RTT the newest
//! data packet carries), send feedback (timestamp echo, elapsed time, X_recv, p); restart the
//! timer after R_m. §6.3: the first data packet is answered at once. §6.3.1: at the first loss
//! event, the interval before it is synthesised as 1/p for the p that makes the equation give
//! X_recv.
//!
//! Until the sender reports an RTT (its packets carry R = 0 before its first feedback) the
//! receiver cannot time feedback once per RTT: it answers every data packet, and X_recv is the
//! bytes since the last feedback over the time since it (RFC 5348 leaves this case open).

use std::collections::VecDeque;

use super::config::TfrcConfig;
use super::equation;
use super::loss_events::LossDetector;
use super::loss_history::LossHistory;
use super::{Feedback, TfrcPacket};
use crate::time::{Dur, Time};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub packets_received: u64,
    pub bytes_received: u64,
    pub packets_lost: u64,
    pub loss_events: u64,
    pub feedbacks_sent: u64,
    /// Feedback sent early because p rose (§6.1 step 3).
    pub expedited_feedbacks: u64,
}

#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    cfg: TfrcConfig,
    detector: LossDetector,
    history: LossHistory,
    /// Arrivals (time, bytes) within the last R_m, for X_recv (§6.2 step 2), and their sum.
    window: VecDeque<(Time, u32)>,
    window_bytes: u64,
    /// R_m: the RTT carried by the most recent data packet; zero until the sender has one.
    r_m: Dur,
    /// The last data packet: (its timestamp t_recvdata, when it arrived).
    last_data: Option<(Time, Time)>,
    /// The first lost packet of the newest loss event (`Feedback::loss_start`).
    loss_start: Option<u64>,
    /// p as last computed (previous_p of §6.1).
    p: f64,
    feedback_at: Option<Time>,
    send_now: bool,
    /// Data since the last feedback (§6.2: none, no feedback); bytes, and when it was sent.
    bytes_since_feedback: u64,
    last_feedback: Option<Time>,
    stats: ReceiverStats,
    /// TFRC Probe's pair timing (`tfrc/probe.rs`); `None`: plain TFRC.
    probe: Option<Box<super::probe::ReceiverSide>>,
}

impl TfrcReceiver {
    pub fn new(cfg: &TfrcConfig) -> Self {
        TfrcReceiver {
            cfg: *cfg,
            detector: LossDetector::new(cfg.ndupack),
            history: LossHistory::new().with_discounting(cfg.history_discounting),
            window: VecDeque::new(),
            window_bytes: 0,
            r_m: Dur::ZERO,
            last_data: None,
            loss_start: None,
            p: 0.0,
            feedback_at: None,
            send_now: false,
            bytes_since_feedback: 0,
            last_feedback: None,
            stats: ReceiverStats::default(),
            probe: None,
        }
    }

    /// The same receiver as TFRC Probe's (Chen et al. §3.1), if `probe.enabled`.
    pub fn with_probe(mut self, probe: &crate::probe::ProbeConfig) -> Self {
        if probe.enabled {
            self.probe = Some(Box::new(super::probe::ReceiverSide::new(probe)));
        }
        self
    }

    /// TFRC Probe's capacity estimate, bit/s.
    pub fn capacity_estimate(&self) -> Option<u64> {
        self.probe.as_ref().and_then(|p| p.estimate())
    }

    /// TFRC Probe's pairs: taken, and refused for having no dispersion.
    pub fn probe_pairs(&self) -> (u64, u64) {
        self.probe.as_ref().map_or((0, 0), |p| p.pairs())
    }

    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// The loss event rate p (§5.4).
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }

    /// The average loss interval I_mean, if a loss event has been seen.
    pub fn mean_loss_interval(&self) -> Option<f64> {
        self.history.mean_interval()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if self.send_now {
            return self.last_data.map(|(_, at)| at);
        }
        self.feedback_at
    }

    /// A data packet arrives (§6.1).
    pub fn handle_data(&mut self, now: Time, pkt: &TfrcPacket) {
        let first = self.last_data.is_none();
        self.stats.packets_received += 1;
        self.stats.bytes_received += pkt.size as u64;
        self.bytes_since_feedback += pkt.size as u64;
        self.window.push_back((now, pkt.size));
        self.window_bytes += pkt.size as u64;
        if pkt.rtt > Dur::ZERO {
            self.r_m = pkt.rtt;
        }
        self.last_data = Some((pkt.timestamp, now));
        if let Some(probe) = self.probe.as_mut() {
            probe.on_data(now, pkt);
        }

        // §5.1, §5.2: losses and loss events; §6.3.1: the first interval from X_recv.
        // X_recv is only needed for the first interval, before any loss event.
        let x_recv = if self.history.events() == 0 {
            self.x_recv(now)
        } else {
            0.0
        };
        let history = &mut self.history;
        let loss_start = &mut self.loss_start;
        let (s, r, b) = (self.cfg.segment_size, self.r_m, self.cfg.b);
        let t_rto = self.cfg.t_rto(r);
        if self.cfg.round_loss_events {
            self.detector.note_round(pkt.round);
        }
        self.detector.on_packet(pkt.seq, now, self.r_m, |e| {
            history.on_loss_event(e.seq, || first_interval(x_recv, s, r, b, t_rto, e.seq));
            *loss_start = Some(e.seq);
        });
        self.history.on_received(pkt.seq);
        self.stats.packets_lost = self.detector.lost_packets();
        self.stats.loss_events = self.history.events();

        // §6.1 step 3: "If p > previous_p", feedback now.
        let previous_p = self.p;
        self.p = self.history.loss_event_rate();
        if self.p > previous_p {
            self.send_now = true;
            self.stats.expedited_feedbacks += 1;
        }
        // §6.3: the first packet is answered at once; without R_m, every packet is. Once the
        // sender's R arrives, the feedback timer starts from the last feedback.
        if first || self.r_m == Dur::ZERO {
            self.send_now = true;
        } else if self.feedback_at.is_none() {
            let since = self.last_feedback.unwrap_or(now) + self.r_m;
            self.feedback_at = Some(since.max(now));
        }
    }

    /// The feedback timer (§6.2).
    pub fn handle_timeout(&mut self, now: Time) {
        if self.feedback_at.is_some_and(|at| at <= now) {
            if self.bytes_since_feedback > 0 {
                self.send_now = true;
            } else {
                // §6.2: no data since the last feedback, no feedback; restart the timer.
                self.feedback_at = Some(now + self.r_m);
            }
        }
    }

    /// The feedback packet due now, if any (§6.2 steps 1-4).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Feedback> {
        self.handle_timeout(now);
        if !self.send_now {
            return None;
        }
        self.send_now = false;
        let (t_recvdata, arrived) = self.last_data?;
        let fb = Feedback {
            timestamp_echo: t_recvdata,
            elapsed: now.saturating_since(arrived),
            x_recv: self.x_recv(now),
            p: self.p,
            capacity_bps: self.capacity_estimate(),
            loss_start: self.loss_start,
        };
        self.bytes_since_feedback = 0;
        self.last_feedback = Some(now);
        self.feedback_at = (self.r_m > Dur::ZERO).then(|| now + self.r_m);
        self.stats.feedbacks_sent += 1;
        Some(fb)
    }

    /// X_recv in bytes per second: the bytes received in the last R_m over R_m (§6.2 step 2);
    /// before R_m is known, the bytes since the last feedback over the time since it (0 for
    /// the first packet, whose rate cannot be measured).
    fn x_recv(&mut self, now: Time) -> f64 {
        if self.r_m == Dur::ZERO {
            let since = self
                .last_feedback
                .map_or(Dur::ZERO, |t| now.saturating_since(t));
            if since == Dur::ZERO {
                return 0.0;
            }
            return self.bytes_since_feedback as f64 / since.as_secs_f64();
        }
        while let Some(&(t, bytes)) = self.window.front() {
            if t + self.r_m > now {
                break;
            }
            self.window.pop_front();
            self.window_bytes -= bytes as u64;
        }
        self.window_bytes as f64 / self.r_m.as_secs_f64()
    }
}

/// The synthetic loss interval before the first loss event (§6.3.1): 1/p for the p at which
/// the equation gives X_recv. Without a rate or an RTT to invert (the loss came before the
/// first feedback), the packets before the loss stand for it.
fn first_interval(x_recv: f64, s: u32, r: Dur, b: f64, t_rto: Dur, seq: u64) -> f64 {
    if x_recv <= 0.0 || r == Dur::ZERO {
        return (seq + 1) as f64;
    }
    1.0 / equation::loss_rate_for(x_recv, s, r, b, t_rto)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u32 = 1000;

    fn pkt(seq: u64, sent: Time, rtt: Dur) -> TfrcPacket {
        TfrcPacket {
            seq,
            timestamp: sent,
            rtt,
            size: S,
            round: 0,
            pair: Default::default(),
        }
    }

    /// A receiver fed packets `0..n` (all but `lost`) every 10 ms from t = 0 with R = 100 ms;
    /// every feedback it sends on the way is collected with its time.
    fn fed(n: u64, lost: &[u64]) -> (TfrcReceiver, Vec<(Time, Feedback)>) {
        let mut r = TfrcReceiver::new(&TfrcConfig::default());
        let mut out = Vec::new();
        for seq in 0..n {
            // Every deadline falls on a 10 ms slot; the slot's packet arrives first.
            let now = Time::from_millis(10 * seq);
            if !lost.contains(&seq) {
                r.handle_data(now, &pkt(seq, now, Dur::from_millis(100)));
            }
            while let Some(fb) = r.poll_transmit(now) {
                out.push((now, fb));
            }
        }
        (r, out)
    }

    // ---- Tests for feedback (RFC 5348 §6.1, §6.2) ----

    #[test]
    fn feedback_once_per_rtt_with_the_receive_rate() {
        // RFC 5348 §6.2: the first packet is answered at once (§6.3), then one feedback per
        // R_m = 100 ms; X_recv = 10 packets of 1000 B in 100 ms = 100 000 B/s.
        let (r, out) = fed(50, &[]);
        let times: Vec<u64> = out.iter().map(|(t, _)| t.as_nanos() / 1_000_000).collect();
        assert_eq!(times, vec![0, 100, 200, 300, 400]);
        for (_, fb) in &out[1..] {
            assert!((fb.x_recv - 100_000.0).abs() < 1e-6, "{fb:?}");
            assert_eq!(fb.p, 0.0);
        }
        // The timestamp echo is the last data packet's, the elapsed time since it arrived.
        assert_eq!(out[2].1.timestamp_echo, Time::from_millis(200));
        assert_eq!(out[2].1.elapsed, Dur::ZERO);
        assert_eq!(r.stats().feedbacks_sent, 5);
    }

    #[test]
    fn a_new_loss_event_sends_feedback_at_once() {
        // RFC 5348 §6.1 step 3: p rises at the first loss event (packet 25, detected when 28
        // arrives at 280 ms, the third packet above it): feedback then, not at 300 ms.
        let (r, out) = fed(40, &[25]);
        let times: Vec<u64> = out.iter().map(|(t, _)| t.as_nanos() / 1_000_000).collect();
        assert_eq!(times, vec![0, 100, 200, 280, 380]);
        assert!(out[3].1.p > 0.0);
        assert_eq!(r.stats().expedited_feedbacks, 1);
        assert_eq!(r.stats().loss_events, 1);
    }

    // ---- Tests for the first loss interval (RFC 5348 §6.3.1) ----

    #[test]
    fn the_first_interval_is_synthesised_from_x_recv() {
        // RFC 5348 §6.3.1: packet 25 is found lost when 28 arrives at 280 ms; X_recv is then
        // 9 packets of 1000 B in (180, 280] ms (25 missing) over 100 ms = 90 000 B/s. The
        // synthetic interval I_1 is 1/p with X(p) = X_recv. I_0 = 4 (25..=28) is short, so
        // I_mean = I_1 and the equation at the reported p gives X_recv back.
        let (r, out) = fed(29, &[25]);
        let fb = out.last().unwrap().1;
        let x = equation::throughput(S, Dur::from_millis(100), fb.p, 1.0, Dur::from_millis(400));
        assert!(((x - 90_000.0) / 90_000.0).abs() < 1e-6, "{x}");
        assert!((r.mean_loss_interval().unwrap() - 1.0 / fb.p).abs() < 1e-9);
    }

    #[test]
    fn no_feedback_without_new_data() {
        // RFC 5348 §6.2: the timer expires with nothing received since the last feedback:
        // no feedback, the timer restarts after R_m.
        let (mut r, _) = fed(5, &[]);
        let at = r.poll_timeout().unwrap();
        assert_eq!(at, Time::from_millis(100));
        assert!(r.poll_transmit(at).is_some(), "packets 1..4 are new");
        let next = r.poll_timeout().unwrap();
        assert_eq!(r.poll_transmit(next), None);
        assert_eq!(r.poll_timeout(), Some(next + Dur::from_millis(100)));
    }
}
