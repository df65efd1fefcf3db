//! Vertical handover models (Daniel & Kojo §5, Table 2).
//!
//! A handover moves a mobile host from one access link to another at an instant. What it
//! does to the packets still queued on the old link depends on its kind (see
//! [`HandoverKind`]); with a delay, nothing crosses the new link in either direction until
//! the delay has passed (the "vhodelay" models, ns-2's blocked delayer). The world applies a
//! handover by calling [`transfer_queue`] on each direction of the old link with the matching
//! direction of the new one, then recomputing routes.

use crate::link::{DropCause, Held, LinkDir};
use crate::packet::PktIdx;
use crate::rng::Rng;
use crate::spec::HandoverSpec;
use crate::time::{Dur, Time};

pub use crate::spec::{Flush, HandoverKind};

/// The instant of handover `index`: `at`, or uniform in `[at, at + window)` from the
/// handover's own random stream (Daniel & Kojo §5: "uniformly distributed in a 1 second
/// interval"), to the nanosecond.
pub fn draw_instant(spec: &HandoverSpec, seed: u64, index: usize) -> Time {
    if spec.window == Dur::ZERO {
        return spec.at;
    }
    let mut rng = Rng::stream(seed, &format!("handover:{index}:instant"));
    spec.at + Dur(rng.below(spec.window.as_nanos()))
}

/// The interfaces of mobile `m` that a multipath host (`World::multihome`, `vho emulate
/// --multipath`) has down until a handover brings them up, with that handover's index: each
/// interface but the initial one whose first handover (by instant, then index) takes the
/// mobile *to* it from a slower link. Open, and our rule: a faster network's coverage begins
/// where the handover to it happens (a WLAN hotspot entered), while a slower, wider one
/// (cellular) is associated all along, so a fast -> slow handover finds it up, as a phone's
/// cellular interface is. "Faster" compares each link's faster direction, as the handover
/// notification does (`RateChange`). A single-path run is unaffected: only the initial link is
/// up there until a handover anyway.
pub fn appearing(spec: &crate::spec::Spec, m: usize) -> Vec<(usize, crate::spec::LinkIdx)> {
    let ms = &spec.mobiles[m];
    let rate = |l: usize| spec.links[l].ab.rate_bps.max(spec.links[l].ba.rate_bps);
    let mut hs: Vec<(Time, usize)> = spec
        .handovers
        .iter()
        .enumerate()
        .filter(|(_, h)| h.mobile == m)
        .map(|(i, h)| (draw_instant(h, spec.seed, i), i))
        .collect();
    hs.sort();
    let mut out = Vec::new();
    for &l in ms.interfaces.iter().filter(|&&l| l != ms.initial) {
        let first = hs.iter().find(|&&(_, i)| {
            let h = &spec.handovers[i];
            h.from == l || h.to == l
        });
        if let Some(&(_, i)) = first {
            let h = &spec.handovers[i];
            if h.to == l && rate(h.to) > rate(h.from) {
                out.push((i, l));
            }
        }
    }
    out
}

/// Applies `kind` to the queue of `old` (one direction of the old link) at `now`, with `new`
/// the same direction of the new link. Returns the packets dropped, in queue order, for the
/// caller to free and record (cause [`DropCause::HandoverFlush`]).
pub fn transfer_queue(
    kind: HandoverKind,
    flush: Flush,
    old: &mut LinkDir,
    new: &mut LinkDir,
    now: Time,
    rng: &mut Rng,
    dropped: &mut Vec<PktIdx>,
) {
    match kind {
        HandoverKind::SoftDrainOld => match flush {
            Flush::Off => {}
            // The packet on the old link's wire finishes there; the ones waiting behind it
            // go to the new link in order (thesis §7.2.3's flush, `move`).
            Flush::Move => {
                // Another physical link: it may start at once, not where it last went idle.
                new.free_at = new.free_at.max(now);
                let moved: Vec<Held> = old.queue.drain_all().collect();
                old.counters.moved_out += moved.len() as u64;
                for p in moved {
                    new.counters.moved_in += 1;
                    new.queue.push_unchecked(p);
                }
            }
            // "the sender discards the queued packets in its buffer" (thesis §7.2.3).
            Flush::Discard => discard_queue(old, dropped),
        },
        HandoverKind::SoftReconfigure { shrink } => {
            // One physical link whose parameters change: the packet on the air finishes at
            // the old rate, then the queue drains at the new one.
            new.free_at = new.free_at.max(old.busy_until().unwrap_or(now));
            let moved: Vec<Held> = old.queue.drain_all().collect();
            old.counters.moved_out += moved.len() as u64;
            for p in moved {
                new.counters.moved_in += 1;
                if shrink && !new.queue.has_room(p.size) {
                    // ns-2 `shrink_queue`: what no longer fits the new limit is dropped.
                    new.counters.dropped[DropCause::HandoverFlush.slot()] += 1;
                    dropped.push(p.idx);
                } else {
                    new.queue.push_unchecked(p);
                }
            }
        }
        HandoverKind::Hard { loss_fraction } => {
            new.free_at = new.free_at.max(old.busy_until().unwrap_or(now));
            let queued: Vec<Held> = old.queue.drain_all().collect();
            for p in queued {
                let lost = loss_fraction >= 1.0 || rng.bernoulli(loss_fraction);
                if lost {
                    old.counters.dropped[DropCause::HandoverFlush.slot()] += 1;
                    dropped.push(p.idx);
                } else {
                    old.counters.moved_out += 1;
                    new.counters.moved_in += 1;
                    new.queue.push_unchecked(p);
                }
            }
        }
    }
}

/// Everything waiting in `dir`'s queue is lost to the handover (the packet on the air
/// finishes): a soft handover's `flush = "discard"`, a link that goes down. A link direction's
/// own operation (`LinkDir::discard_queue`), named here as the handover kinds use it.
pub fn discard_queue(dir: &mut LinkDir, dropped: &mut Vec<PktIdx>) {
    dir.discard_queue(dropped);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::loss::LossModel;
    use crate::link::queue::Limit;
    use crate::spec::{DirSpec, LossSpec, QueueLimit};

    fn dir(limit: u32) -> LinkDir {
        let spec = DirSpec {
            rate_bps: 1_000_000,
            delay: Dur::from_millis(1),
            queue: QueueLimit::Packets(limit),
            queue_model: Default::default(),
            red: Default::default(),
            loss: LossSpec::None,
            loss_at: Default::default(),
            jitter: None,
            link_layer: Default::default(),
        };
        LinkDir::new(0, 1, &spec, Limit::Packets(limit), LossModel::None)
    }

    fn loaded(limit: u32, n: u32) -> LinkDir {
        let mut d = dir(limit);
        for i in 0..n {
            d.offer(Time::ZERO, Held::test(i, 1000)).unwrap();
        }
        d
    }

    #[test]
    fn soft_drain_old_leaves_the_queue_on_the_old_link() {
        // Daniel & Kojo §3 soft handover with two interfaces: make before break.
        let (mut old, mut new) = (loaded(10, 5), dir(3));
        let mut dropped = Vec::new();
        transfer_queue(
            HandoverKind::SoftDrainOld,
            Flush::Off,
            &mut old,
            &mut new,
            Time::ZERO,
            &mut Rng::from_u64(1),
            &mut dropped,
        );
        assert_eq!((old.queue.len(), new.queue.len(), dropped.len()), (4, 0, 0));
    }

    #[test]
    fn flush_on_handover_moves_or_discards_what_waits_on_the_old_link() {
        // Thesis §7.2.3: the queue at the home agent drains over the old PPP link for ~15 s
        // after a slow -> fast handover; flushing it moves the waiting packets to the new
        // link (`move`) or discards them for TCP to resend (`discard`, the thesis's wording).
        // The packet on the old link's wire finishes there either way.
        let (mut old, mut new) = (loaded(10, 5), dir(10));
        let mut dropped = Vec::new();
        let mut rng = Rng::from_u64(1);
        transfer_queue(
            HandoverKind::SoftDrainOld,
            Flush::Move,
            &mut old,
            &mut new,
            Time::ZERO,
            &mut rng,
            &mut dropped,
        );
        assert_eq!((old.queue.len(), new.queue.len(), dropped.len()), (0, 4, 0));
        assert!(old.busy_until().is_some());
        let (mut old, mut new) = (loaded(10, 5), dir(10));
        transfer_queue(
            HandoverKind::SoftDrainOld,
            Flush::Discard,
            &mut old,
            &mut new,
            Time::ZERO,
            &mut rng,
            &mut dropped,
        );
        assert_eq!(
            (new.queue.len(), dropped, old.counters.dropped[1]),
            (0, vec![1, 2, 3, 4], 4)
        );
        assert!(old.conserves_packets());
    }

    #[test]
    fn soft_reconfigure_keeps_everything_unless_shrink_queue() {
        // Daniel & Kojo §5.1: ns-2's default keeps packets beyond a smaller new limit;
        // shrink_queue drops them.
        let (mut old, mut new) = (loaded(10, 6), dir(3));
        let mut dropped = Vec::new();
        let mut rng = Rng::from_u64(1);
        transfer_queue(
            HandoverKind::SoftReconfigure { shrink: false },
            Flush::Off,
            &mut old,
            &mut new,
            Time::ZERO,
            &mut rng,
            &mut dropped,
        );
        // One packet is on the air on the old link; five were waiting.
        assert_eq!((old.queue.len(), new.queue.len(), dropped.len()), (0, 5, 0));
        assert_eq!(new.free_at, old.busy_until().unwrap());
        let (mut old, mut new) = (loaded(10, 6), dir(3));
        transfer_queue(
            HandoverKind::SoftReconfigure { shrink: true },
            Flush::Off,
            &mut old,
            &mut new,
            Time::ZERO,
            &mut rng,
            &mut dropped,
        );
        assert_eq!((new.queue.len(), dropped.len()), (3, 2));
        assert!(old.conserves_packets() && new.conserves_packets());
    }

    #[test]
    fn hard_handover_loses_the_whole_queue() {
        // Daniel & Kojo §5.1: hard handover, all queued packets dropped.
        let (mut old, mut new) = (loaded(10, 6), dir(10));
        let mut dropped = Vec::new();
        transfer_queue(
            HandoverKind::Hard { loss_fraction: 1.0 },
            Flush::Off,
            &mut old,
            &mut new,
            Time::ZERO,
            &mut Rng::from_u64(1),
            &mut dropped,
        );
        assert_eq!(
            (new.queue.len(), dropped, old.counters.dropped[1]),
            (0, vec![1, 2, 3, 4, 5], 5)
        );
        assert!(old.conserves_packets());
    }

    #[test]
    fn the_instant_is_drawn_in_the_window_and_reproducibly() {
        let spec = HandoverSpec {
            mobile: 0,
            from: 0,
            to: 1,
            at: Time::from_secs(3),
            window: Dur::from_secs(1),
            kind: HandoverKind::SoftDrainOld,
            delay: Dur::ZERO,
            flush: Flush::Off,
            in_flight: Default::default(),
            notify: None,
            uplink_delay: Dur::ZERO,
        };
        let a = draw_instant(&spec, 11, 0);
        assert_eq!(a, draw_instant(&spec, 11, 0));
        assert!(a >= Time::from_secs(3) && a < Time::from_secs(4));
        assert_ne!(a, draw_instant(&spec, 12, 0));
    }
}
