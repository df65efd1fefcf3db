//! A link direction's parameters and state changed in place (`[[schedule]]`; vho issue 21
//! point 5, and the BLER/BER ramps of Naoe et al. Fig. 5, issue 22): the queue is kept, and
//! every change applies from the instant it is made, as ns-2's vhoideal soft handover
//! changes one link's parameters (the packet on the air finishes as it started).
//!
//! Each setter first brings the direction up to `now` (`LinkDir::advance`), so that what
//! finished before the change finished under the old values; the caller then re-arms the
//! direction's events as after a handover (`world::schedule`).
//!
//! - rate: the packet on the air finishes at its old rate, the next one starts at the new.
//! - delay: packets already propagating keep their arrival; a shortened delay never lets a
//!   later packet arrive before an earlier one (it waits for the arrival ahead of it, as
//!   `link::jitter` keeps order).
//! - loss: a Bernoulli probability per packet, fixed or ramped linearly between two instants
//!   (exact per packet: the probability of the instant it leaves the air); 0 restores the
//!   lossless path.
//! - state: see [`LinkState`].

use super::{LinkDir, LossModel};
pub use crate::config::link::LinkState;
use crate::packet::PktIdx;
use crate::rng::Rng;
use crate::spec::LossAt;
use crate::time::{Dur, Time};

/// A scheduled loss probability: fixed, or a linear ramp between two instants.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum LossLevel {
    Fixed(f64),
    Ramp {
        from: f64,
        to: f64,
        start: Time,
        end: Time,
    },
}

impl LinkDir {
    /// The rate from now on: the packet on the air finishes as it started.
    /// A rate ends a delivery trace.
    pub fn set_rate(&mut self, now: Time, rate_bps: u64) {
        self.advance(now);
        self.trace = None;
        self.rate_bps = rate_bps;
        // The cached time on the air of the last size was at the old rate.
        let size = self.ser_last.0;
        self.ser_last = (size, Dur::serialization(size, rate_bps));
    }

    /// A packet-delivery trace (`link::trace`) serialises from now on, its time zero now,
    /// from the packet after the one on the air; the direction's rate is the trace's mean.
    pub fn set_trace(&mut self, now: Time, trace: super::trace::DeliveryTrace) {
        self.advance(now);
        let trace = trace.starting_at(now);
        self.rate_bps = trace.mean_rate_bps();
        self.trace = Some(Box::new(trace));
        self.ser_last = (0, Dur::ZERO);
    }

    /// The one-way delay of packets leaving the air from now on.
    pub fn set_delay(&mut self, now: Time, delay: Dur) {
        self.advance(now);
        if delay < self.delay && !self.pipe.is_empty() {
            // The next departures could overtake what propagates: they wait for it.
            self.settling = true;
        }
        self.delay = delay;
        self.refresh_flags();
    }

    /// The loss probability from now on, where the direction's `loss_at` puts it (replacing
    /// its loss model). The model draws from the stream it had, or from `fresh`.
    pub fn set_loss(&mut self, now: Time, level: LossLevel, fresh: impl FnOnce() -> Rng) {
        self.advance(now);
        let slot = match self.loss_at {
            LossAt::Air => &mut self.loss,
            LossAt::Entry => &mut self.entry_loss,
        };
        let old = std::mem::replace(slot, LossModel::None);
        let rng = old
            .take_rng()
            .or_else(|| self.spare_rng.take())
            .unwrap_or_else(fresh);
        *slot = match level {
            LossLevel::Fixed(p) if p <= 0.0 => {
                self.spare_rng = Some(rng);
                LossModel::None
            }
            LossLevel::Fixed(p) => LossModel::Bernoulli { p, rng },
            LossLevel::Ramp {
                from,
                to,
                start,
                end,
            } => LossModel::Ramp {
                from,
                to,
                start,
                end,
                rng,
            },
        };
        self.refresh_flags();
    }

    /// The state from now on. Going down, the queue's packets are put in `dropped` (booked
    /// here as `HandoverFlush`; the caller frees them).
    pub fn set_state(&mut self, now: Time, state: LinkState, dropped: &mut Vec<PktIdx>) {
        self.advance(now);
        let was = std::mem::replace(&mut self.state, state);
        if was == LinkState::Outage && state != LinkState::Outage {
            // Blocked until now: what waits starts now, not where the serialiser fell idle.
            self.blocked_until = self.held_block.max(now);
        } else if was != LinkState::Outage && state == LinkState::Outage {
            self.held_block = self.blocked_until;
            self.blocked_until = Time::MAX;
        }
        if state == LinkState::Down {
            self.discard_queue(dropped);
        }
        self.refresh_flags();
    }

    /// The state scheduled now.
    pub fn state(&self) -> LinkState {
        self.state
    }

    /// The fast-path flags from the models and state.
    pub(super) fn refresh_flags(&mut self) {
        self.air_lossy = !matches!(self.loss, LossModel::None);
        self.entry_lossy = !matches!(self.entry_loss, LossModel::None);
        let extras = self.air_lossy
            || self.jitter.is_some()
            || self.settling
            || self.state == LinkState::Blackhole;
        if extras && !self.air_extras {
            // The fast path kept no `last_arrival`: the latest is the pipe's tail.
            if let Some(at) = self.pipe.back_at() {
                self.last_arrival = self.last_arrival.max(at);
            }
        }
        self.air_extras = extras;
        self.judges_entry =
            self.entry_lossy || self.red.is_some() || self.state == LinkState::Down || self.layered;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::queue::Limit;
    use crate::link::{DropCause, Held};
    use crate::spec::{DirSpec, LossSpec, QueueLimit};

    fn dir(rate_bps: u64, delay: Dur) -> LinkDir {
        let spec = DirSpec {
            rate_bps,
            delay,
            queue: QueueLimit::Packets(100_000),
            queue_model: Default::default(),
            red: Default::default(),
            loss: LossSpec::None,
            loss_at: Default::default(),
            jitter: None,
            link_layer: Default::default(),
        };
        LinkDir::new(0, 1, &spec, Limit::Packets(100_000), LossModel::None)
    }

    /// Runs the direction to the end, returning each packet delivered with its arrival.
    fn drain(l: &mut LinkDir, from: Time) -> Vec<(PktIdx, Time)> {
        let mut got = Vec::new();
        let mut t = from;
        while let Some(next) = l.next_arrival().or(l.retry_at()) {
            t = t.max(next);
            l.advance(t);
            while let Some(idx) = l.pop_arrived(t).map(|p| p.idx) {
                got.push((idx, t));
            }
        }
        got
    }

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    // ---- rate ----

    #[test]
    fn a_rate_change_applies_from_the_packet_after_the_one_on_the_air() {
        // ns-2 vhoideal (and the rule of this module): the packet on the air finishes as it
        // started. 1000 B at 1 Mb/s is 8 ms on the air; at 2 Mb/s 4 ms; 1 ms propagation.
        let mut base = dir(1_000_000, Dur::from_millis(1));
        let mut l = dir(1_000_000, Dur::from_millis(1));
        for i in 0..3 {
            base.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        l.set_rate(ms(4), 2_000_000);
        let unchanged = drain(&mut base, Time::ZERO);
        let changed = drain(&mut l, ms(4));
        assert_eq!(unchanged, [(0, ms(9)), (1, ms(17)), (2, ms(25))]);
        // Packet 0 as before; packet 1 starts at 8 ms and takes 4 ms; packet 2 after it.
        assert_eq!(changed, [(0, ms(9)), (1, ms(13)), (2, ms(17))]);
        assert!(l.conserves_packets());
    }

    // ---- delay ----

    #[test]
    fn a_shorter_delay_never_lets_a_later_packet_overtake() {
        // 10 packets of 1000 B at 1 Mb/s (done at 8, 16, ... 80 ms), 100 ms propagation; at
        // 20 ms the delay drops to 10 ms. Packets 0 and 1 propagate and keep 108 and 116 ms;
        // the later ones would arrive at 34, 42, ... ms, before them: each waits for the
        // arrival ahead (116 ms) instead, and the order is kept.
        let mut l = dir(1_000_000, Dur::from_millis(100));
        for i in 0..10 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        l.set_delay(ms(20), Dur::from_millis(10));
        let got = drain(&mut l, ms(20));
        let order: Vec<PktIdx> = got.iter().map(|g| g.0).collect();
        assert_eq!(order, (0..10).collect::<Vec<_>>());
        assert_eq!(&got[..2], [(0, ms(108)), (1, ms(116))]);
        assert!(got.iter().skip(2).all(|g| g.1 == ms(116)), "{got:?}");
        // Once nothing propagates, the new delay alone: on the air 500-508 ms, then 10 ms.
        l.offer(ms(500), Held::test(10, 1000)).unwrap();
        assert_eq!(drain(&mut l, ms(500)), [(10, ms(518))]);
        assert!(!l.air_extras, "back on the fast path");
        assert!(l.conserves_packets());
    }

    #[test]
    fn a_longer_delay_leaves_propagating_packets_alone() {
        // Packet 0 left the air at 8 ms with 1 ms to go (9 ms); packet 1, on the air at the
        // change, takes the new 50 ms (16 + 50 ms).
        let mut l = dir(1_000_000, Dur::from_millis(1));
        l.offer(Time::ZERO, Held::test(0, 1000)).unwrap();
        l.offer(Time::ZERO, Held::test(1, 1000)).unwrap();
        l.set_delay(ms(8), Dur::from_millis(50));
        assert_eq!(drain(&mut l, ms(8)), [(0, ms(9)), (1, ms(66))]);
    }

    // ---- states ----

    #[test]
    fn a_blackhole_loses_exactly_the_packets_whose_serialisation_ends_in_it() {
        // 10 packets at 1 Mb/s end their serialisation at 8, 16, ... 80 ms; blackholed over
        // [20, 50) ms: those ending at 24, 32, 40, 48 ms (packets 2-5) are lost, booked as
        // link_state; the others arrive 1 ms after.
        let mut l = dir(1_000_000, Dur::from_millis(1));
        for i in 0..10 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        let mut none = Vec::new();
        l.set_state(ms(20), LinkState::Blackhole, &mut none);
        l.set_state(ms(50), LinkState::Up, &mut none);
        assert!(none.is_empty());
        let got: Vec<PktIdx> = drain(&mut l, ms(50)).iter().map(|g| g.0).collect();
        assert_eq!(got, [0, 1, 6, 7, 8, 9]);
        let lost: Vec<_> = l.lost.drain(..).collect();
        let expect: Vec<_> = (2..6).map(|i| (i, DropCause::LinkState)).collect();
        assert_eq!(lost, expect);
        assert_eq!(l.counters.dropped[DropCause::LinkState.slot()], 4);
        assert!(!l.air_extras, "back on the fast path");
        assert!(l.conserves_packets());
    }

    #[test]
    fn an_outage_holds_the_queue_and_then_releases_it_in_order() {
        // The packet on the air at the outage (0, 0-8 ms) finishes; nothing else starts; the
        // queue takes two more at 10 ms; back up at 100 ms the five leave in order, back to
        // back from 100 ms (8 ms each, 1 ms propagation).
        let mut l = dir(1_000_000, Dur::from_millis(1));
        for i in 0..3 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        let mut none = Vec::new();
        l.set_state(ms(4), LinkState::Outage, &mut none);
        l.offer(ms(10), Held::test(3, 1000)).unwrap();
        l.offer(ms(10), Held::test(4, 1000)).unwrap();
        l.advance(ms(60));
        assert_eq!(l.busy_until(), None);
        assert_eq!(l.queue.len(), 4);
        assert_eq!(l.retry_at(), None, "no retry: the schedule ends the outage");
        assert_eq!(l.pop_arrived(ms(60)).map(|p| p.idx), Some(0));
        l.set_state(ms(100), LinkState::Up, &mut none);
        l.wake_idle(ms(100));
        let got = drain(&mut l, ms(100));
        let expect: Vec<_> = (1..5).map(|k| (k, ms(100 + 8 * k as u64 + 1))).collect();
        assert_eq!(got, expect);
        assert!(l.conserves_packets());
    }

    #[test]
    fn a_handover_delay_during_an_outage_applies_once_it_ends() {
        let mut l = dir(1_000_000, Dur::from_millis(1));
        let mut none = Vec::new();
        l.set_state(Time::ZERO, LinkState::Outage, &mut none);
        l.block_until(ms(200));
        l.offer(ms(10), Held::test(0, 1000)).unwrap();
        l.set_state(ms(100), LinkState::Up, &mut none);
        l.wake_idle(ms(100));
        assert_eq!(l.retry_at(), Some(ms(200)));
        assert_eq!(drain(&mut l, ms(100)), [(0, ms(209))]);
    }

    #[test]
    fn an_interface_down_discards_its_queue_and_drops_arrivals() {
        // As a hard handover's old link: the packet on the air (0) finishes, the waiting
        // ones (1, 2) are flushed; while down an offer is dropped (link_state); up again the
        // direction carries.
        let mut l = dir(1_000_000, Dur::from_millis(1));
        for i in 0..3 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        let mut dropped = Vec::new();
        l.set_state(ms(4), LinkState::Down, &mut dropped);
        assert_eq!(dropped, [1, 2]);
        assert_eq!(
            l.offer(ms(5), Held::test(3, 1000)),
            Err(DropCause::LinkState)
        );
        assert_eq!(l.counters.dropped[DropCause::HandoverFlush.slot()], 2);
        assert_eq!(l.counters.dropped[DropCause::LinkState.slot()], 1);
        l.advance(ms(9));
        assert_eq!(l.pop_arrived(ms(9)).map(|p| p.idx), Some(0));
        l.set_state(ms(20), LinkState::Up, &mut dropped);
        assert!(!l.judges_entry, "back on the drop-tail path");
        l.offer(ms(20), Held::test(4, 1000)).unwrap();
        assert_eq!(drain(&mut l, ms(20)), [(4, ms(29))]);
        // Offered 4 (3 dropped on offer, not counted as offered-and-dropped twice).
        assert!(l.conserves_packets());
    }

    // ---- delivery traces ----

    #[test]
    fn a_trace_serialises_by_its_opportunities_sharing_what_a_packet_leaves() {
        // link_queue.cc rationalize: 1000 B through at the 1 ms opportunity leaves 504 B to
        // the packet waiting behind it, which ends at 2 ms; the third takes what that left
        // of the 2 ms one (1008 B) and ends then too. The rate before the trace applied to
        // the packet on the air when it came (none here).
        let mut l = dir(1_000_000, Dur::ZERO);
        l.set_trace(
            Time::ZERO,
            crate::link::trace::DeliveryTrace::new(&[1, 2, 3, 4]).unwrap(),
        );
        assert_eq!(l.rate_bps(), 1504 * 8 * 1000);
        for i in 0..3 {
            l.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        assert_eq!(
            drain(&mut l, Time::ZERO),
            [(0, ms(1)), (1, ms(2)), (2, ms(2))]
        );
        // A rate ends the trace: 1000 B at 1 Mb/s is 8 ms again.
        l.set_rate(ms(10), 1_000_000);
        l.offer(ms(10), Held::test(3, 1000)).unwrap();
        assert_eq!(drain(&mut l, ms(10)), [(3, ms(18))]);
        assert!(l.conserves_packets());
    }

    // ---- loss ----

    #[test]
    fn a_loss_ramp_from_zero_to_p_loses_about_p_over_two_of_packets_sent_in_it() {
        // Naoe et al. Fig. 5's linear error rate: 0 -> 0.2 over [0, 20 s], one 125 B packet
        // (1 ms at 1 Mb/s) per ms. Each packet is lost with the probability of the instant
        // it leaves the air, so the mean over the ramp is 0.1; sd of the fraction =
        // sqrt(sum p(1-p))/n = sqrt(20000 (0.1 - 0.04/3))/20000 = 0.0021: tolerance 5 sd.
        // A ramp, not a step: the first half loses about 0.05, the second about 0.15.
        let mut l = dir(1_000_000, Dur::ZERO);
        let level = LossLevel::Ramp {
            from: 0.0,
            to: 0.2,
            start: Time::ZERO,
            end: Time::from_secs(20),
        };
        l.set_loss(Time::ZERO, level, || Rng::stream(7, "ramp"));
        let n = 20_000u32;
        let mut delivered = [0u32; 2];
        for k in 0..n {
            let t = ms(k as u64);
            l.offer(t, Held::test(k, 125)).unwrap();
            l.advance(t + Dur::from_millis(1));
            while let Some(idx) = l.pop_arrived(t + Dur::from_millis(1)).map(|p| p.idx) {
                delivered[(idx >= n / 2) as usize] += 1;
            }
        }
        let lost = |half: usize| 1.0 - delivered[half] as f64 / (n / 2) as f64;
        let total = 1.0 - (delivered[0] + delivered[1]) as f64 / n as f64;
        assert!((total - 0.1).abs() < 0.0105, "lost {total}");
        // Each half: 10,000 packets, sd at most 0.0036; tolerance 5 sd.
        assert!((lost(0) - 0.05).abs() < 0.018, "first half {}", lost(0));
        assert!((lost(1) - 0.15).abs() < 0.018, "second half {}", lost(1));
        assert!(l.conserves_packets());
    }

    #[test]
    fn a_zero_loss_restores_the_lossless_path_and_the_stream_draws_on() {
        let mut l = dir(1_000_000, Dur::ZERO);
        l.set_loss(Time::ZERO, LossLevel::Fixed(0.5), || Rng::stream(1, "x"));
        assert!(l.air_lossy && l.air_extras);
        l.set_loss(ms(1), LossLevel::Fixed(0.0), || unreachable!("kept"));
        assert!(!l.air_lossy && !l.air_extras);
        assert!(l.spare_rng.is_some());
        l.set_loss(ms(2), LossLevel::Fixed(0.5), || unreachable!("the spare"));
        assert!(l.air_lossy);
    }
}
