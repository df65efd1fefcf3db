//! Link schedules (`[[schedule]]`, `link::change`): each entry becomes steps, one per
//! direction and instant, applied in (time, file) order by one pending event (the next
//! step's), each re-arming its direction as a handover does.
//!
//! A loss ramp is one step: the model draws with the probability of each packet's instant
//! (`link::loss`). A rate or delay ramp is a step per `ScheduleSpec::step` interval, each
//! setting the value the line reaches at its instant, and the last value at `until`: the
//! lazy serialiser fixes a packet's time on the air when it starts, from one rate, and its
//! arrival when it leaves, from one delay, so an exact ramp would be a division and a
//! lookup per packet on the hot path; steps cost one event each.

use super::{Event, World};
use crate::link::change::{LinkState, LossLevel};
use crate::link::trace::{DeliveryTrace, Opportunities};
use crate::link::DropCause;
use crate::net::routes::{dir_index, DirIdx};
use crate::rng::Rng;
use crate::spec::{Level, ScheduleSpec, Spec};
use crate::time::{Dur, Time};

#[derive(Clone, Debug)]
enum Action {
    Rate(u64),
    Trace(Opportunities),
    Delay(Dur),
    Loss(LossLevel),
    State(LinkState),
    Bler(f64),
    Ber(f64),
}

#[derive(Clone, Debug)]
struct Step {
    at: Time,
    dir: DirIdx,
    action: Action,
}

/// Every step of the run's schedules, in order, and the next one due.
#[derive(Default)]
pub(super) struct Schedule {
    steps: Vec<Step>,
    next: usize,
}

impl Schedule {
    pub(super) fn build(spec: &Spec) -> Schedule {
        let mut steps = Vec::new();
        for s in &spec.schedules {
            for (on, a_to_b) in [(s.ab, true), (s.ba, false)] {
                if on {
                    expand(s, dir_index(s.link, a_to_b), &mut steps);
                }
            }
        }
        // Stable: steps of one instant keep the order of the file.
        steps.sort_by_key(|s| s.at);
        Schedule { steps, next: 0 }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// The steps of one entry on one direction.
fn expand(s: &ScheduleSpec, dir: DirIdx, out: &mut Vec<Step>) {
    let mut push = |at: Time, action: Action| out.push(Step { at, dir, action });
    let until = s.until.unwrap_or(s.at);
    // A rate or delay ramp: the line's value at at, at + step, ... (before until), then
    // the last value at until.
    let stepped = |from: f64, to: f64, push: &mut dyn FnMut(Time, f64)| {
        let mut t = s.at;
        while t < until {
            push(t, crate::link::loss::ramp_at(from, to, s.at, until, t));
            t += s.step.max(Dur(1));
        }
        push(until, to);
    };
    if let Some(r) = s.rate_bps {
        match r {
            Level::To(v) => push(s.at, Action::Rate(v)),
            Level::Ramp(a, b) => stepped(a as f64, b as f64, &mut |t, v| {
                push(t, Action::Rate((v.round() as u64).max(1)))
            }),
        }
    }
    if let Some(d) = s.delay {
        match d {
            Level::To(v) => push(s.at, Action::Delay(v)),
            Level::Ramp(a, b) => stepped(a.as_nanos() as f64, b.as_nanos() as f64, &mut |t, v| {
                push(t, Action::Delay(Dur(v.round() as u64)))
            }),
        }
    }
    if let Some(l) = s.loss {
        match l {
            Level::To(p) => push(s.at, Action::Loss(LossLevel::Fixed(p))),
            Level::Ramp(from, to) => {
                let (start, end) = (s.at, until);
                push(
                    start,
                    Action::Loss(LossLevel::Ramp {
                        from,
                        to,
                        start,
                        end,
                    }),
                );
                // After the ramp a plain probability (0: the lossless path again).
                push(end, Action::Loss(LossLevel::Fixed(to)));
            }
        }
    }
    // An error rate ramp: in steps, as rate and delay (the bearer and the station draw with
    // the value set when a block's TTI or a frame exchange starts, `set_bler` / `set_ber`).
    for (level, make) in [
        (s.bler, Action::Bler as fn(f64) -> Action),
        (s.ber, Action::Ber as fn(f64) -> Action),
    ] {
        match level {
            None => {}
            Some(Level::To(v)) => push(s.at, make(v)),
            Some(Level::Ramp(a, b)) => stepped(a, b, &mut |t, v| push(t, make(v))),
        }
    }
    if let Some(t) = &s.trace {
        push(s.at, Action::Trace(t.clone()));
    }
    if let Some(state) = s.state {
        push(s.at, Action::State(state));
        if let Some(until) = s.until {
            push(until, Action::State(LinkState::Up));
        }
    }
}

impl World {
    /// Schedules the next step (the first at the start of the run). Kept out of the event
    /// loop's code (cold), as `on_schedule`.
    #[cold]
    #[inline(never)]
    pub(super) fn arm_schedule(&mut self) {
        if let Some(s) = self.schedule.steps.get(self.schedule.next) {
            self.queue.schedule(s.at, Event::Schedule);
        }
    }

    /// Applies every step due now, then schedules the next one.
    #[cold]
    #[inline(never)]
    pub(super) fn on_schedule(&mut self) {
        let now = self.now;
        while let Some(step) = self
            .schedule
            .steps
            .get(self.schedule.next)
            .filter(|s| s.at <= now)
            .cloned()
        {
            self.schedule.next += 1;
            self.apply_step(step);
        }
        if self.any_functions {
            // A function holding packets for a link (link-flow-control) looks again: the
            // link's service changed.
            self.routes_changed();
        }
        self.arm_schedule();
    }

    fn apply_step(&mut self, step: Step) {
        let (d, now) = (step.dir, self.now);
        // What finished before the change finished under the old values, and is booked.
        self.advance(d);
        let dir = &mut self.dirs[d as usize];
        match step.action {
            Action::Rate(r) => dir.set_rate(now, r),
            Action::Trace(ops) => dir.set_trace(now, DeliveryTrace::from_opportunities(ops)),
            Action::Delay(x) => dir.set_delay(now, x),
            Action::Loss(level) => {
                // The stream the link's own loss model would draw from (`world::build`).
                let link = &self.spec.links[crate::net::routes::dir_link(d)];
                let side = if d % 2 == 0 { "ab" } else { "ba" };
                let (seed, name) = (self.spec.seed, &link.name);
                dir.set_loss(now, level, || {
                    Rng::stream(seed, &format!("link:{name}:{side}:loss"))
                });
            }
            Action::Bler(p) => {
                dir.set_bler(now, p);
            }
            Action::Ber(p) => {
                dir.set_ber(now, p);
            }
            Action::State(state) => {
                let mut dropped = Vec::new();
                dir.set_state(now, state, &mut dropped);
                for idx in dropped {
                    self.free_dropped(idx, Some(d), DropCause::HandoverFlush);
                }
            }
        }
        // Re-armed as after a handover: an idle serialiser starts on what waits, the next
        // arrival and any retry are pending.
        self.kick(d);
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::super::tests::chain;
    use crate::link::change::LinkState;
    use crate::spec::{Level, ScheduleSpec, Spec};
    use crate::time::{Dur, Time};

    /// The chain's 2 MB download over WLAN (link 1) with one schedule entry on it.
    fn wlan_with(change: impl FnOnce(&mut ScheduleSpec)) -> Spec {
        let mut spec = chain(2_000_000, None, true);
        let mut s = ScheduleSpec {
            link: 1,
            ab: true,
            ba: true,
            at: Time::from_millis(500),
            until: None,
            step: Dur::from_millis(100),
            rate_bps: None,
            delay: None,
            loss: None,
            state: None,
            trace: None,
            trace_source: None,
            bler: None,
            ber: None,
        };
        change(&mut s);
        spec.schedules.push(s);
        spec
    }

    #[test]
    fn a_scheduled_outage_on_the_access_link_makes_tcp_time_out_and_conserves_packets() {
        // RFC 6298 (5.5): with nothing acknowledged for longer than the RTO (well under the
        // 3 s outage on this path of a few ms) the sender times out; the queue held during the outage drains once it is up, and
        // every packet is accounted for (`LinkDir::conserves_packets`).
        let spec = wlan_with(|s| {
            s.until = Some(Time::from_millis(3500));
            s.state = Some(LinkState::Outage);
        });
        let out = run(&spec, Vec::new()).expect("runs");
        let f = &out.summary.flows[0];
        assert!(f.completed, "{f:?}");
        assert!(f.timeouts >= 1, "{f:?}");
        // Before 0.5 s at most 0.5 s x 5 Mb/s = 312.5 KB crossed the WLAN; the rest, 1.6875
        // MB, takes at least 2.7 s at 5 Mb/s once the outage ends at 3.5 s.
        assert!(f.transfer_time_s.expect("done") > 3.5 + 2.7, "{f:?}");
        // Nothing was lost in the outage: its timeouts are all spurious (the ground truth).
        assert_eq!(f.spurious_timeouts, f.timeouts, "{f:?}");
        assert!(out.summary.run.conservation_ok);
        // An outage loses nothing: the link_state column is there and zero.
        let wlan: Vec<_> = out
            .summary
            .links
            .iter()
            .filter(|l| l.link == "wlan")
            .collect();
        assert!(wlan.iter().all(|l| l.dropped_link_state == Some(0)));
        // Without the outage: no timeout (the baseline the outage is measured against).
        let plain = run(&chain(2_000_000, None, true), Vec::new()).expect("runs");
        assert_eq!(plain.summary.flows[0].timeouts, 0);
    }

    #[test]
    fn a_blackhole_and_an_interface_down_book_their_drops_and_conserve_packets() {
        // link::change: a blackhole loses what it serialises (link_state), an interface
        // down flushes its queue (handover_flush) and drops what is offered (link_state).
        for state in [LinkState::Blackhole, LinkState::Down] {
            let spec = wlan_with(|s| {
                s.until = Some(Time::from_millis(1500));
                s.state = Some(state);
            });
            let out = run(&spec, Vec::new()).expect("runs");
            let f = &out.summary.flows[0];
            assert!(f.completed, "{state:?}: {f:?}");
            assert!(out.summary.run.conservation_ok, "{state:?}");
            let lost: u64 = out
                .summary
                .links
                .iter()
                .filter_map(|l| l.dropped_link_state)
                .sum();
            assert!(lost > 0, "{state:?}");
            let booked: u64 = f
                .drops
                .iter()
                .filter(|d| d.cause == "link_state")
                .map(|d| d.packets)
                .sum();
            // Every data or ACK packet of the flow lost so is booked to it.
            assert_eq!(booked, lost, "{state:?}");
        }
    }

    #[test]
    fn runs_with_schedules_are_byte_identical() {
        // One seed, one run: a loss ramp, a rate ramp in steps and an outage, twice.
        let spec = wlan_with(|s| {
            s.until = Some(Time::from_millis(2500));
            s.loss = Some(Level::Ramp(0.0, 0.05));
            s.rate_bps = Some(Level::Ramp(5_000_000, 1_000_000));
        });
        let json = |spec: &Spec| {
            serde_json::to_string(&run(spec, Vec::new()).expect("runs").summary).expect("json")
        };
        let a = json(&spec);
        assert_eq!(a, json(&spec));
        let s = run(&spec, Vec::new()).expect("runs").summary;
        assert!(s.run.conservation_ok);
        assert!(s.links.iter().any(|l| l.dropped_random_loss > 0));
    }

    #[test]
    fn a_rate_ramp_is_stepped_and_a_loss_ramp_is_one_step_and_its_end() {
        // world::schedule: 1 s ramp in 100 ms steps: 10 steps on the line, then `until`.
        let spec = wlan_with(|s| {
            s.ab = true;
            s.ba = false;
            s.until = Some(Time::from_millis(1500));
            s.rate_bps = Some(Level::Ramp(5_000_000, 1_000_000));
            s.loss = Some(Level::Ramp(0.0, 0.1));
        });
        let sched = super::Schedule::build(&spec);
        let rates: Vec<(u64, u64)> = sched
            .steps
            .iter()
            .filter_map(|s| match s.action {
                super::Action::Rate(r) => Some((s.at.as_nanos() / 1_000_000, r)),
                _ => None,
            })
            .collect();
        let expect: Vec<(u64, u64)> = (0..=10)
            .map(|k| (500 + 100 * k, 5_000_000 - 400_000 * k))
            .collect();
        assert_eq!(rates, expect);
        let losses = sched
            .steps
            .iter()
            .filter(|s| matches!(s.action, super::Action::Loss(_)))
            .count();
        assert_eq!(losses, 2);
        assert!(sched.steps.iter().all(|s| s.dir == 2), "a -> b of link 1");
    }

    #[test]
    fn a_delivery_trace_paces_the_download_by_its_opportunities() {
        // link::trace: one 1504 B opportunity every 4 ms on the WLAN downlink from time
        // zero carries one 1500 B data packet each (1460 B of data): 2 MB needs 1370 of
        // them, 5.48 s at the least (the WLAN's own 5 Mb/s would take 3.2 s).
        let spec = wlan_with(|s| {
            s.at = Time::ZERO;
            s.ba = false;
            let ms: Vec<u64> = (1..=250).map(|k| 4 * k).collect();
            s.trace = Some(crate::link::trace::Opportunities::new(&ms).expect("valid"));
        });
        let out = run(&spec, Vec::new()).expect("runs");
        let f = &out.summary.flows[0];
        assert!(f.completed, "{f:?}");
        assert!(f.transfer_time_s.expect("done") > 5.48, "{f:?}");
        assert!(out.summary.run.conservation_ok);
        let again = run(&spec, Vec::new()).expect("runs");
        assert_eq!(
            serde_json::to_string(&out.summary).expect("json"),
            serde_json::to_string(&again.summary).expect("json")
        );
    }
}
