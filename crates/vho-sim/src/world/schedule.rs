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

/// What a ramp in steps sets.
#[derive(Clone, Copy, Debug)]
enum RampOf {
    Rate,
    Delay,
    Bler,
    Ber,
}

impl RampOf {
    fn action(self, v: f64) -> Action {
        match self {
            RampOf::Rate => Action::Rate((v.round() as u64).max(1)),
            RampOf::Delay => Action::Delay(Dur(v.round() as u64)),
            RampOf::Bler => Action::Bler(v),
            RampOf::Ber => Action::Ber(v),
        }
    }
}

/// The steps of one value of one entry on one direction, made as they fall due: a ramp's
/// next instant only (issue 40 item 12: a ramp to `until = "2000000 s"` was 20 million steps
/// made up front, 1.1 GB, for a run of 20 s).
#[derive(Debug)]
enum Source {
    /// A few steps (a value set at `at`, a state and its end, a loss ramp and its end).
    Fixed(std::vec::IntoIter<(Time, Action)>),
    /// The line's value at `next`, `next + step`, ... before `until`, then its last value
    /// at `until` (`None` once that is made).
    Ramp {
        of: RampOf,
        from: f64,
        to: f64,
        start: Time,
        until: Time,
        step: Dur,
        next: Option<Time>,
    },
}

impl Source {
    fn next(&mut self) -> Option<(Time, Action)> {
        match self {
            Source::Fixed(steps) => steps.next(),
            Source::Ramp {
                of,
                from,
                to,
                start,
                until,
                step,
                next,
            } => {
                let t = (*next)?;
                if t < *until {
                    let v = crate::link::loss::ramp_at(*from, *to, *start, *until, t);
                    // Past `until` (or the clock's end): the last value, at `until`.
                    *next = Some(
                        t.as_nanos()
                            .checked_add(step.as_nanos().max(1))
                            .map_or(*until, Time),
                    );
                    Some((t, of.action(v)))
                } else {
                    *next = None;
                    Some((*until, of.action(*to)))
                }
            }
        }
    }
}

/// Every source of the run's schedules, and the next step of each, applied in (time, file)
/// order: the order of the file breaks ties, as a stable sort of every step would.
#[derive(Default)]
pub(super) struct Schedule {
    sources: Vec<(DirIdx, Source)>,
    /// The next step of each source, by (instant, source in file order).
    heads: std::collections::BinaryHeap<std::cmp::Reverse<(Time, usize)>>,
    actions: Vec<Option<Action>>,
}

impl Schedule {
    pub(super) fn build(spec: &Spec) -> Schedule {
        let mut sources = Vec::new();
        for s in &spec.schedules {
            for (on, a_to_b) in [(s.ab, true), (s.ba, false)] {
                if on {
                    let dir = dir_index(s.link, a_to_b);
                    sources.extend(sources_of(s).into_iter().map(|src| (dir, src)));
                }
            }
        }
        let mut sched = Schedule {
            actions: vec![None; sources.len()],
            sources,
            heads: Default::default(),
        };
        for i in 0..sched.sources.len() {
            sched.pull(i);
        }
        sched
    }

    /// Makes source `i`'s next step its head.
    fn pull(&mut self, i: usize) {
        if let Some((at, action)) = self.sources[i].1.next() {
            self.actions[i] = Some(action);
            self.heads.push(std::cmp::Reverse((at, i)));
        }
    }

    /// The instant of the next step.
    fn next_at(&self) -> Option<Time> {
        self.heads.peek().map(|h| h.0 .0)
    }

    /// The next step if it is due by `now` (the source's following one made in its place).
    fn pop_due(&mut self, now: Time) -> Option<Step> {
        let std::cmp::Reverse((at, i)) = *self.heads.peek().filter(|h| h.0 .0 <= now)?;
        self.heads.pop();
        let action = self.actions[i]
            .take()
            .expect("invariant: a head has its action");
        self.pull(i);
        Some(Step {
            at,
            dir: self.sources[i].0,
            action,
        })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Steps made and not yet applied: one per source at most.
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.heads.len()
    }
}

/// The sources of one entry on one direction, in the order its steps of one instant apply.
fn sources_of(s: &ScheduleSpec) -> Vec<Source> {
    let mut out = Vec::new();
    let fixed = |steps: Vec<(Time, Action)>| Source::Fixed(steps.into_iter());
    let until = s.until.unwrap_or(s.at);
    // A rate or delay ramp: the line's value at at, at + step, ... (before until), then
    // the last value at until.
    let ramp = |of: RampOf, from: f64, to: f64| Source::Ramp {
        of,
        from,
        to,
        start: s.at,
        until,
        step: s.step,
        next: Some(s.at),
    };
    if let Some(r) = s.rate_bps {
        out.push(match r {
            Level::To(v) => fixed(vec![(s.at, Action::Rate(v))]),
            Level::Ramp(a, b) => ramp(RampOf::Rate, a as f64, b as f64),
        });
    }
    if let Some(d) = s.delay {
        out.push(match d {
            Level::To(v) => fixed(vec![(s.at, Action::Delay(v))]),
            Level::Ramp(a, b) => ramp(RampOf::Delay, a.as_nanos() as f64, b.as_nanos() as f64),
        });
    }
    if let Some(l) = s.loss {
        out.push(match l {
            Level::To(p) => fixed(vec![(s.at, Action::Loss(LossLevel::Fixed(p)))]),
            Level::Ramp(from, to) => {
                let (start, end) = (s.at, until);
                fixed(vec![
                    (
                        start,
                        Action::Loss(LossLevel::Ramp {
                            from,
                            to,
                            start,
                            end,
                        }),
                    ),
                    // After the ramp a plain probability (0: the lossless path again).
                    (end, Action::Loss(LossLevel::Fixed(to))),
                ])
            }
        });
    }
    // An error rate ramp: in steps, as rate and delay (the bearer and the station draw with
    // the value set when a block's TTI or a frame exchange starts, `set_bler` / `set_ber`).
    for (level, of) in [(s.bler, RampOf::Bler), (s.ber, RampOf::Ber)] {
        match level {
            None => {}
            Some(Level::To(v)) => out.push(fixed(vec![(s.at, of.action(v))])),
            Some(Level::Ramp(a, b)) => out.push(ramp(of, a, b)),
        }
    }
    if let Some(t) = &s.trace {
        out.push(fixed(vec![(s.at, Action::Trace(t.opportunities.clone()))]));
    }
    if let Some(state) = s.state {
        let mut steps = vec![(s.at, Action::State(state))];
        if let Some(until) = s.until {
            steps.push((until, Action::State(LinkState::Up)));
        }
        out.push(fixed(steps));
    }
    out
}

impl World {
    /// Schedules the next step (the first at the start of the run). Kept out of the event
    /// loop's code (cold), as `on_schedule`.
    #[cold]
    #[inline(never)]
    pub(super) fn arm_schedule(&mut self) {
        if let Some(at) = self.schedule.next_at() {
            self.queue.schedule(at, Event::Schedule);
        }
    }

    /// Applies every step due now, then schedules the next one.
    #[cold]
    #[inline(never)]
    pub(super) fn on_schedule(&mut self) {
        let now = self.now;
        while let Some(step) = self.schedule.pop_due(now) {
            self.apply_step(step);
        }
        if self.functions.any {
            // A function holding packets for a link (link-flow-control) looks again: the
            // link's service changed.
            self.routes_changed();
        }
        self.arm_schedule();
    }

    fn apply_step(&mut self, step: Step) {
        let (d, now) = (step.dir, self.now);
        debug_assert!(step.at <= now, "a step applied before it is due");
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
                let mut in_flight = Vec::new();
                if state == LinkState::Down {
                    // The interface is down: what is on its air or propagating never
                    // arrives (issue 33 point 4).
                    dir.discard_in_flight(now, &mut in_flight);
                }
                for idx in dropped {
                    self.free_dropped(idx, Some(d), DropCause::HandoverFlush);
                }
                for idx in in_flight {
                    self.free_dropped(idx, Some(d), DropCause::InFlight);
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
        assert!(f.tcp().timeouts >= 1, "{f:?}");
        // Before 0.5 s at most 0.5 s x 5 Mb/s = 312.5 KB crossed the WLAN; the rest, 1.6875
        // MB, takes at least 2.7 s at 5 Mb/s once the outage ends at 3.5 s.
        assert!(f.transfer_time_s.expect("done") > 3.5 + 2.7, "{f:?}");
        // Nothing was lost in the outage: its timeouts are all spurious (the ground truth).
        assert_eq!(f.tcp().spurious_timeouts, f.tcp().timeouts, "{f:?}");
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
        assert_eq!(plain.summary.flows[0].tcp().timeouts, 0);
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
        let mut sched = super::Schedule::build(&spec);
        let steps: Vec<super::Step> =
            std::iter::from_fn(|| sched.pop_due(Time(u64::MAX))).collect();
        let rates: Vec<(u64, u64)> = steps
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
        let losses = steps
            .iter()
            .filter(|s| matches!(s.action, super::Action::Loss(_)))
            .count();
        assert_eq!(losses, 2);
        assert!(steps.iter().all(|s| s.dir == 2), "a -> b of link 1");
    }

    #[test]
    fn ramp_steps_are_made_as_they_fall_due_and_keep_the_files_order() {
        // Issue 40 item 12: a ramp to 2,000,000 s in 100 ms steps was 20 million steps made
        // up front (1.1 GB); now one pending step per source, whatever the ramp's length.
        let spec = wlan_with(|s| {
            s.until = Some(Time::from_secs(2_000_000));
            s.rate_bps = Some(Level::Ramp(5_000_000, 1_000_000));
            s.delay = Some(Level::Ramp(Dur::from_millis(2), Dur::from_millis(202)));
            s.state = Some(LinkState::Outage);
        });
        let mut sched = super::Schedule::build(&spec);
        // Two directions, each a rate ramp, a delay ramp and a state.
        assert_eq!(sched.pending(), 6);
        // In (time, file) order: at 500 ms the forward direction's rate, delay, state, then
        // the reverse direction's; at 600 ms the ramps' next values.
        let first: Vec<(u64, u32, &str)> = std::iter::from_fn(|| {
            sched.pop_due(Time::from_millis(600)).map(|s| {
                let what = match s.action {
                    super::Action::Rate(_) => "rate",
                    super::Action::Delay(_) => "delay",
                    super::Action::State(_) => "state",
                    _ => "other",
                };
                (s.at.as_nanos() / 1_000_000, s.dir, what)
            })
        })
        .collect();
        assert_eq!(
            first,
            [
                (500, 2, "rate"),
                (500, 2, "delay"),
                (500, 2, "state"),
                (500, 3, "rate"),
                (500, 3, "delay"),
                (500, 3, "state"),
                (600, 2, "rate"),
                (600, 2, "delay"),
                (600, 3, "rate"),
                (600, 3, "delay"),
            ]
        );
        assert_eq!(sched.pending(), 6);
        assert_eq!(sched.next_at(), Some(Time::from_millis(700)));
        // A run stopping at 3 s applies the steps due by then and no more.
        let mut spec = spec;
        spec.stop_at = Time::from_secs(3);
        let out = run(&spec, Vec::new()).expect("runs");
        assert!(out.summary.run.conservation_ok);
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
            s.trace = Some(crate::spec::TraceSpec {
                opportunities: crate::link::trace::Opportunities::new(&ms).expect("valid"),
                source: None,
            });
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
