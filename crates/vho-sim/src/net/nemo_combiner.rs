//! `nemo-combiner`: the mobile router's packet combining in the world (Naoe et al., seed 002,
//! §IV-B, Fig. 2), a node function wrapping one of `net::combine`'s combiners.
//!
//! It sees every packet the mobile router forwards. A copy that carries a Packet Identifier
//! Option (`packet::ext::PIO`, the home agent's bicasting, `mip::bicast`) and came over one of
//! the router's access links is handed to the combiner with the link's class: "the MR has
//! information about the link rate per interface beforehand" (§IV): the faster nominal rate
//! is [`LinkClass::Fast`]. Anything else passes untouched.
//!
//! - [`Combining::None`]: no combiner: both copies go on to the mobile network (the bare
//!   bicasting, what the combiners are measured against).
//! - [`Combining::NemoSho`] / [`Combining::Apc`]: `net::combine`'s call order (its module doc):
//!   after `on_copy`, what `poll_release` yields must leave before the copy itself; so when
//!   both exist at one instant the copy queues behind them and the function asks to be woken
//!   now (`poll_timeout`), which the world does at the same instant, in order.
//!
//! A copy the combiner discards (a duplicate, or outside its table) is absorbed
//! ([`Verdict::Absorb`]): no loss is booked, since the other copy went on.
//!
//! At the handover's completion ([`NemoCombiner::completing_at`], the end of the bicasting
//! window: §V-C's 15 s) the combiner is told ([`Combiner::complete`], §IV-C) and what it held
//! goes out in order, before the packets that follow without a PIO; a packet that meets
//! released copies still waiting at that instant queues behind them.

use super::combine::{AnyCombiner, Combiner, LinkClass, Verdict as CopyVerdict};
use super::function::{Counters, Hop, Verdict};
use super::routes::DirIdx;
pub use crate::config::mip::Combining;
use crate::packet::{ext, Packet, PktIdx};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// [`NemoCombiner::totals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Totals {
    pub copies: u64,
    pub forwarded: u64,
    pub absorbed: u64,
    pub held: u64,
}

pub struct NemoCombiner {
    /// Per direction index: the class of an access link's direction towards the router.
    class: Vec<Option<LinkClass>>,
    /// At the home agent, combining upward copies: the class of each care-of address a
    /// reverse tunnel starts at (the tunnel's source, kept in `inner_src` by
    /// `mip::decapsulate`).
    class_by_coa: Vec<(crate::mip::Addr, LinkClass)>,
    combiner: Option<AnyCombiner<PktIdx>>,
    /// Copies (forwarded at once or released) that wait behind what was released before them.
    ready: VecDeque<PktIdx>,
    /// The handover's completion, until the combiner has been told.
    complete_at: Option<Time>,
    copies: u64,
    forwarded_without_combining: u64,
    absorbed: u64,
}

impl NemoCombiner {
    pub fn new(class: Vec<Option<LinkClass>>, combiner: Option<AnyCombiner<PktIdx>>) -> Self {
        NemoCombiner {
            class,
            class_by_coa: Vec::new(),
            combiner,
            ready: VecDeque::new(),
            complete_at: None,
            copies: 0,
            forwarded_without_combining: 0,
            absorbed: 0,
        }
    }

    /// A combiner at the home agent for upward copies, told apart by their care-of address.
    pub fn at_home_agent(
        class_by_coa: Vec<(crate::mip::Addr, LinkClass)>,
        combiner: Option<AnyCombiner<PktIdx>>,
    ) -> Self {
        NemoCombiner {
            class_by_coa,
            ..NemoCombiner::new(Vec::new(), combiner)
        }
    }

    /// The handover completes at `at` (§IV-C; `None`: never, as without bicasting).
    pub fn completing_at(self, at: Option<Time>) -> Self {
        NemoCombiner {
            complete_at: at,
            ..self
        }
    }

    /// Tells the combiner of the completion once it is due, and takes what it releases.
    fn complete_if_due(&mut self, now: Time) {
        if self.complete_at.is_none_or(|t| now < t) {
            return;
        }
        self.complete_at = None;
        if let Some(c) = self.combiner.as_mut() {
            c.complete(now);
            while let Some(t) = c.poll_release(now) {
                self.ready.push_back(t);
            }
        }
    }

    pub fn on_packet(&mut self, now: Time, idx: PktIdx, pkt: &mut Packet, hop: Hop) -> Verdict {
        self.complete_if_due(now);
        if pkt.ext & ext::PIO == 0 || pkt.ext & ext::TUNNEL != 0 {
            if self.ready.is_empty() {
                return Verdict::Pass;
            }
            // Released copies leave first (§IV-B's in-order rule).
            self.ready.push_back(idx);
            return Verdict::Hold;
        }
        let by_dir = hop
            .ingress
            .and_then(|d: DirIdx| self.class.get(d as usize).copied().flatten());
        let by_coa = || {
            self.class_by_coa
                .iter()
                .find(|c| c.0 == pkt.inner_src)
                .map(|c| c.1)
        };
        let Some(link) = by_dir.or_else(by_coa) else {
            return Verdict::Pass;
        };
        // The option ends with the tunnel at the router (`mip::decapsulate` took its bytes).
        pkt.ext &= !ext::PIO;
        self.copies += 1;
        let Some(c) = self.combiner.as_mut() else {
            self.forwarded_without_combining += 1;
            return Verdict::Pass;
        };
        let verdict = c.on_copy(now, pkt.pio, link, idx);
        while let Some(t) = c.poll_release(now) {
            self.ready.push_back(t);
        }
        match verdict {
            CopyVerdict::Forward(_) if self.ready.is_empty() => Verdict::Pass,
            CopyVerdict::Forward(t) => {
                self.ready.push_back(t);
                Verdict::Hold
            }
            CopyVerdict::Held => Verdict::Hold,
            CopyVerdict::Duplicate(_) | CopyVerdict::OutsideTable(_) => {
                self.absorbed += 1;
                Verdict::Absorb
            }
        }
    }

    pub fn poll_release(&mut self, now: Time) -> Option<PktIdx> {
        self.complete_if_due(now);
        if let Some(t) = self.ready.pop_front() {
            return Some(t);
        }
        self.combiner.as_mut()?.poll_release(now)
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if !self.ready.is_empty() {
            // Due now: the world wakes at the later of this and the present.
            return Some(Time::ZERO);
        }
        let c = self.combiner.as_ref()?;
        // The completion matters now only to what is held; later copies learn of it on
        // arrival.
        let completion = self.complete_at.filter(|_| c.buffered() > 0);
        match (c.poll_timeout(), completion) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn holds(&self) -> bool {
        !self.ready.is_empty() || self.combiner.as_ref().is_some_and(|c| c.buffered() > 0)
    }

    pub fn counters(&self) -> Counters {
        let mut v = vec![
            ("copies", self.copies),
            (
                "forwarded_without_combining",
                self.forwarded_without_combining,
            ),
            ("duplicates_dropped", self.absorbed),
        ];
        if let Some(c) = &self.combiner {
            let s = c.stats();
            v.extend([
                ("arrived_fast", s.arrived_fast),
                ("arrived_slow", s.arrived_slow),
                ("forwarded_at_once", s.forwarded_at_once),
                ("held", s.held),
                ("released_by_timer", s.released_by_timer),
                ("released_in_order", s.released_in_order),
                ("released_by_slow_copy", s.released_by_slow_copy),
                ("released_at_completion", s.released_at_completion),
                ("duplicates", s.duplicates),
                ("outside_table", s.outside_table),
                ("max_hold_us", s.max_hold.as_nanos() / 1_000),
            ]);
        }
        v
    }

    /// Its totals: copies seen, forwarded (without combining, at once or released),
    /// absorbed, held.
    pub fn totals(&self) -> Totals {
        let (forwarded, held) = match &self.combiner {
            Some(c) => (c.stats().forwarded(), c.stats().held),
            None => (self.forwarded_without_combining, 0),
        };
        Totals {
            copies: self.copies,
            forwarded,
            absorbed: self.absorbed,
            held,
        }
    }

    /// Held copies released at the handover's completion.
    pub fn released_at_completion(&self) -> u64 {
        self.combiner
            .as_ref()
            .map_or(0, |c| c.stats().released_at_completion)
    }

    /// The longest a copy stayed held.
    pub fn max_hold(&self) -> Dur {
        self.combiner
            .as_ref()
            .map_or(Dur::ZERO, |c| c.stats().max_hold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::combine::apc::{Apc, ApcConfig};
    use crate::net::combine::Pio;

    /// Direction 0 is the fast link's, 1 the slow link's.
    fn apc() -> NemoCombiner {
        let c = Apc::new(ApcConfig::downward(), Time::ZERO).expect("valid");
        NemoCombiner::new(
            vec![Some(LinkClass::Fast), Some(LinkClass::Slow)],
            Some(AnyCombiner::Apc(c)),
        )
    }

    fn copy(seq: u16) -> Packet {
        Packet {
            ext: ext::PIO,
            pio: Pio { seq, sent_ms: 0 },
            ..Default::default()
        }
    }

    fn hop(ingress: DirIdx) -> Hop {
        Hop {
            ingress: Some(ingress),
            egress: 9,
        }
    }

    #[test]
    fn a_slow_first_copy_waits_behind_the_lower_numbers_it_releases() {
        // §IV-B: "when the MR decides to forward the sequence number n ... it checks whether
        // the sequence number smaller than n still remains in the buffer. If packets are
        // there, the MR forwards them in-order"; net::combine's call order: what
        // poll_release yields leaves before the copy.
        let mut f = apc();
        let t = Time::from_millis(10);
        let mut p0 = copy(0);
        assert_eq!(f.on_packet(t, 100, &mut p0, hop(0)), Verdict::Hold);
        assert_eq!(p0.ext & ext::PIO, 0, "the option ends at the router");
        let mut p1 = copy(1);
        assert_eq!(f.on_packet(t, 101, &mut p1, hop(1)), Verdict::Hold);
        assert_eq!(f.poll_timeout(), Some(Time::ZERO), "due at once");
        assert_eq!(f.poll_release(t), Some(100));
        assert_eq!(f.poll_release(t), Some(101));
        assert_eq!(f.poll_release(t), None);
        // The slow copy of 0 and the fast copy of 1 are duplicates: absorbed.
        let mut d0 = copy(0);
        assert_eq!(f.on_packet(t, 102, &mut d0, hop(1)), Verdict::Absorb);
        let mut d1 = copy(1);
        assert_eq!(f.on_packet(t, 103, &mut d1, hop(0)), Verdict::Absorb);
        assert!(!f.holds());
    }

    #[test]
    fn at_completion_held_copies_leave_before_the_packets_without_the_option() {
        // §IV-C: bicasting stops at completion, the packets that follow carry no PIO and
        // come over the new link only; §IV-B: in order. Completion at 15 s (§V-C).
        let done = Time::from_secs(15);
        let mut f = apc().completing_at(Some(done));
        let t = Time::from_millis(14_900);
        // Sent at 14.88 s: T_delay_fast = 20 ms, held until 14.9 + (1 - 0.02) = 15.88 s.
        let mut p0 = copy(0);
        p0.pio.sent_ms = 14_880;
        assert_eq!(f.on_packet(t, 100, &mut p0, hop(0)), Verdict::Hold);
        // The wake-up is at the completion, before the hold's end.
        assert_eq!(f.poll_timeout(), Some(done));
        // A packet without the option arriving at the completion instant, before the world
        // woke the function: it queues behind the held copy.
        let mut plain = Packet::default();
        assert_eq!(f.on_packet(done, 101, &mut plain, hop(0)), Verdict::Hold);
        assert_eq!(f.poll_release(done), Some(100));
        assert_eq!(f.poll_release(done), Some(101));
        assert_eq!(f.poll_release(done), None);
        assert!(!f.holds());
        let c = f.counters();
        assert!(c.contains(&("released_at_completion", 1)), "{c:?}");
        // Without a completion the copy stays held past 15 s.
        let mut g = apc();
        let mut q0 = copy(0);
        q0.pio.sent_ms = 14_880;
        assert_eq!(g.on_packet(t, 100, &mut q0, hop(0)), Verdict::Hold);
        assert_eq!(g.poll_timeout(), Some(Time::from_millis(15_880)));
        assert_eq!(g.poll_release(done), None);
    }

    #[test]
    fn packets_without_the_option_or_from_elsewhere_pass_untouched() {
        let mut f = apc();
        let mut plain = Packet::default();
        assert_eq!(
            f.on_packet(Time::ZERO, 1, &mut plain, hop(0)),
            Verdict::Pass
        );
        let mut from_lfn = copy(0);
        assert_eq!(
            f.on_packet(Time::ZERO, 2, &mut from_lfn, hop(5)),
            Verdict::Pass
        );
        assert_eq!(f.counters()[0], ("copies", 0));
    }
}
