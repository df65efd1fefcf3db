//! Adaptive Packet Combining (APC) at the mobile router (Naoe et al., seed 002, §IV-B, Fig. 2,
//! eq. 1-3; parameters §VI and §VII).
//!
//! - Eq. 1, each copy's transmission delay: T_delay^n = T_recv^n − T_sent^n, where T_sent^n is
//!   the PIO's timestamp (ms since T_bicasting, the HA's base) and T_recv^n "the elapsed time
//!   from T_combining", the MR's base, "initialized on the MR when the BU is sent" (an
//!   argument of [`Apc::new`]). The two bases differ by the BU's transit; the paper argues
//!   the offset cancels in eq. 2 since T_eDelay carries it too. T_recv^n is kept at the
//!   MR's full clock resolution; T_sent^n has the PIO's 1 ms (the HA truncates, so a delay
//!   reads up to 1 ms long, on both links alike). Both are taken modulo the 16-bit stamp's
//!   2^16 ms (65.536 s) and the difference is read in serial arithmetic (RFC 1982 §3.2): a
//!   delay in [−32.768 s, 32.768 s) is exact across any number of wraps.
//! - Eq. 2, a copy that arrives first over the fast link is held for
//!   T_timeout^n = T_eDelay − T_delay_fast^n when that is positive, else 0 (forwarded at once).
//! - Eq. 3, on every slow-link arrival (first copy or not): "T_eDelay ← α·T_eDelay + (1 − α)·
//!   T_delay_slow^n". α weighs the *old estimate* (α = 0.875, §VI: a slow filter, like RFC
//!   6298's 7/8; §VII: "APC should ignore temporal delay due to L2 retransmission, thus larger
//!   value would be preferred"). The estimate is kept in integer nanoseconds; α is applied in
//!   fixed point with 16 fractional bits (0.875 is exact), rounded to the nearest nanosecond,
//!   halves up.
//! - Initial T_eDelay (§IV-B, §VI): 1 s for a downward handover (slow 3G to fast WLAN), 0 for
//!   upward; or §VII's proposal, "wait for the first packet from the slow link, and then use
//!   the first measured delay as the initial value" ([`InitialEDelay::FirstSlowDelay`]).
//! - The Sequence Number Table ([`SequenceTable`]) records each number as it is forwarded;
//!   "the MR forwards only one copy". A slow copy that finds its fast copy held releases the
//!   held one (it is the one that goes out) and is itself a duplicate.
//! - In order: "when the MR decides to forward the sequence number n to LFNs, it checks whether
//!   the sequence number smaller than n still remains in the buffer. If packets are there, the
//!   MR forwards them in-order even prior to T_timeout^n of them." This applies to every
//!   forwarding: a hold expiring, a slow copy releasing its held twin, a first arrival from the
//!   slow link ("forwards the packet to LFNs without buffering") and a fast copy whose
//!   T_timeout^n is 0.
//! - Completion (§IV-C, [`Combiner::complete`]): "the true capability on the new link becomes
//!   available immediately": what is held goes out at once, in order, and no copy is held
//!   after it. The paper does not say what happens to the buffer then; the in-order rule above
//!   does: the packets the HA tunnels after completion carry no PIO and pass the MR at once,
//!   and every one of them follows every held copy, so a copy still held then would be
//!   overtaken (`vho reproduce naoe`, downward, before this rule: 23.5 of APC's 25.7
//!   out-of-order deliveries a trial and 135 of its 187 spurious retransmissions over 30
//!   trials came after 15 s, held copies SACKed around by the new link's packets).
//!
//! The order this gives (tested by `property_tests`): for sequence numbers n < m, if a copy
//! of n reached the combiner before m was forwarded (and was not dropped as outside the
//! table), n is forwarded before m. So the forwarded order inverts (m, then a lower n) only
//! when every copy of n arrived after m had gone: n lost or late on the fast link and its slow
//! copy later than m's hold, which eq. 2's estimate is meant to make rare.

use super::sequence_table::{Lookup, SequenceTable};
use super::{CombineError, Combiner, CombinerStats, LinkClass, Pio, SeqUnwrapper, Verdict};
pub use crate::config::mip::{
    ApcConfig, InitialEDelay, DEFAULT_ALPHA, DEFAULT_FIRST_DELAY_WAIT, DOWNWARD_INITIAL_E_DELAY,
    UPWARD_INITIAL_E_DELAY,
};
use crate::time::{Dur, Time, NANOS_PER_MILLI};
use std::collections::VecDeque;

/// Fractional bits of α in the eq. 3 arithmetic.
const ALPHA_BITS: u32 = 16;

/// The PIO timestamp's period: 2^16 ms.
const STAMP_PERIOD_NS: i64 = (1 << 16) * NANOS_PER_MILLI as i64;

/// T_eDelay, in signed nanoseconds (a delay measured across two unsynchronised bases can read
/// negative).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Estimate {
    Known(i64),
    /// §VII's variant before the first slow-link copy.
    AwaitingFirst {
        max_wait: Dur,
    },
}

/// Why a held copy left.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Release {
    Timer,
    InOrder,
    SlowCopy,
    Completion,
}

struct HeldCopy<T> {
    /// Unwrapped sequence number ([`SeqUnwrapper`]).
    seq: i64,
    token: T,
    arrived: Time,
    /// T_delay_fast^n of eq. 1, ns.
    delay_ns: i64,
    /// Arrival + T_timeout^n (eq. 2).
    until: Time,
}

struct Released<T> {
    token: T,
    arrived: Time,
    why: Release,
}

pub struct Apc<T> {
    t_combining: Time,
    /// α · 2^ALPHA_BITS.
    alpha_fixed: i128,
    estimate: Estimate,
    unwrapper: SeqUnwrapper,
    table: SequenceTable,
    /// Fast copies on hold, by increasing sequence number.
    held: VecDeque<HeldCopy<T>>,
    /// Copies released and recorded, not yet taken by `poll_release`, in forwarding order.
    ready: VecDeque<Released<T>>,
    /// When the handover completed ([`Combiner::complete`]): from then nothing is held.
    completed_at: Option<Time>,
    stats: CombinerStats,
}

impl<T> Apc<T> {
    /// A combiner whose base time T_combining is `t_combining`, the instant the MR sent the
    /// Binding Update that starts bicasting (§IV-B).
    pub fn new(cfg: ApcConfig, t_combining: Time) -> Result<Apc<T>, CombineError> {
        if !(0.0..=1.0).contains(&cfg.alpha) {
            return Err(CombineError::Alpha(cfg.alpha));
        }
        let estimate = match cfg.initial {
            InitialEDelay::Fixed(d) => Estimate::Known(d.as_nanos().min(i64::MAX as u64) as i64),
            InitialEDelay::FirstSlowDelay { max_wait } => Estimate::AwaitingFirst { max_wait },
        };
        Ok(Apc {
            t_combining,
            alpha_fixed: (cfg.alpha * (1u64 << ALPHA_BITS) as f64).round() as i128,
            estimate,
            unwrapper: SeqUnwrapper::default(),
            table: SequenceTable::new(cfg.table_size)?,
            held: VecDeque::new(),
            ready: VecDeque::new(),
            completed_at: None,
            stats: CombinerStats::default(),
        })
    }

    /// T_eDelay now, in ns; `None` while §VII's variant awaits its first measurement.
    pub fn e_delay_ns(&self) -> Option<i64> {
        match self.estimate {
            Estimate::Known(e) => Some(e),
            Estimate::AwaitingFirst { .. } => None,
        }
    }

    /// Eq. 1: T_recv^n − T_sent^n in ns, both modulo the stamp's 2^16 ms, read in serial
    /// arithmetic (RFC 1982 §3.2): the result lies in [−2^15 ms, 2^15 ms).
    fn delay_ns(&self, now: Time, sent_ms: u16) -> i64 {
        let recv = now.as_nanos() as i128 - self.t_combining.as_nanos() as i128;
        let raw = (recv - sent_ms as i128 * NANOS_PER_MILLI as i128)
            .rem_euclid(STAMP_PERIOD_NS as i128) as i64;
        if raw >= STAMP_PERIOD_NS / 2 {
            raw - STAMP_PERIOD_NS
        } else {
            raw
        }
    }

    /// Eq. 2: the instant a fast copy that arrived at `arrived` with delay `delay_ns` is held
    /// until, under estimate `e_ns`.
    fn hold_until(arrived: Time, delay_ns: i64, e_ns: i64) -> Time {
        let timeout = e_ns.saturating_sub(delay_ns);
        if timeout > 0 {
            arrived + Dur(timeout as u64)
        } else {
            arrived
        }
    }

    /// Eq. 3 (or §VII's first measurement), on a slow-link copy's delay.
    fn on_slow_delay(&mut self, delay_slow: i64) {
        match self.estimate {
            Estimate::Known(e) => {
                let one = 1i128 << ALPHA_BITS;
                let sum =
                    self.alpha_fixed * e as i128 + (one - self.alpha_fixed) * delay_slow as i128;
                self.estimate = Estimate::Known((sum + one / 2).div_euclid(one) as i64);
            }
            Estimate::AwaitingFirst { .. } => {
                self.estimate = Estimate::Known(delay_slow);
                for h in self.held.iter_mut() {
                    h.until = Self::hold_until(h.arrived, h.delay_ns, delay_slow);
                }
            }
        }
    }

    /// Forwards the held copies at positions `..=last` (sequence order): the last for `why`,
    /// those below it in order (all of them for `why` at completion), unless their own hold
    /// had already expired by `now`.
    fn release_through(&mut self, last: usize, now: Time, why: Release) {
        for i in 0..=last {
            let Some(h) = self.held.pop_front() else {
                return;
            };
            let why = match why {
                // At completion every copy goes for that reason, unless its hold had expired.
                Release::Completion if h.until > now => Release::Completion,
                _ if i == last && why != Release::Completion => why,
                _ if h.until <= now => Release::Timer,
                _ => Release::InOrder,
            };
            self.table.record(h.seq);
            self.ready.push_back(Released {
                token: h.token,
                arrived: h.arrived,
                why,
            });
        }
    }

    /// Forwards a copy at once: the held copies below it first (they are at positions
    /// `..below`), in order.
    fn forward_at_once(&mut self, seq: i64, below: usize, now: Time, token: T) -> Verdict<T> {
        if below > 0 {
            self.release_through(below - 1, now, Release::InOrder);
        }
        self.table.record(seq);
        self.stats.forwarded_at_once += 1;
        Verdict::Forward(token)
    }
}

impl<T> Combiner<T> for Apc<T> {
    fn on_copy(&mut self, now: Time, pio: Pio, link: LinkClass, token: T) -> Verdict<T> {
        self.stats.count_arrival(link);
        let delay = self.delay_ns(now, pio.sent_ms);
        if link == LinkClass::Slow {
            // Eq. 3: "updated each time the MR receives a packet from the slow link".
            self.on_slow_delay(delay);
        }
        let seq = self.unwrapper.unwrap(pio.seq);
        match self.table.lookup(seq) {
            Lookup::Recorded => {
                self.stats.duplicates += 1;
                return Verdict::Duplicate(token);
            }
            Lookup::OutsideTable => {
                self.stats.outside_table += 1;
                return Verdict::OutsideTable(token);
            }
            Lookup::NotRecorded => {}
        }
        let pos = self.held.binary_search_by_key(&seq, |h| h.seq);
        match (link, pos) {
            // A second fast copy of a held number (a link-layer duplicate).
            (LinkClass::Fast, Ok(_)) => {
                self.stats.duplicates += 1;
                Verdict::Duplicate(token)
            }
            // Its fast twin waits: that one goes out now, with the lower ones first.
            (LinkClass::Slow, Ok(i)) => {
                self.release_through(i, now, Release::SlowCopy);
                self.stats.duplicates += 1;
                Verdict::Duplicate(token)
            }
            // "the first arrival can be from the slow link. In this case, the MR forwards the
            // packet to LFNs without buffering."
            (LinkClass::Slow, Err(i)) => self.forward_at_once(seq, i, now, token),
            (LinkClass::Fast, Err(i)) => {
                let until = match (self.completed_at, self.estimate) {
                    // §IV-C: after completion, nothing waits for the old link.
                    (Some(_), _) => now,
                    (None, Estimate::Known(e)) => Self::hold_until(now, delay, e),
                    (None, Estimate::AwaitingFirst { max_wait }) => now + max_wait,
                };
                if until <= now {
                    // Eq. 2's second case: T_timeout^n = 0.
                    return self.forward_at_once(seq, i, now, token);
                }
                self.held.insert(
                    i,
                    HeldCopy {
                        seq,
                        token,
                        arrived: now,
                        delay_ns: delay,
                        until,
                    },
                );
                self.stats.held += 1;
                Verdict::Held
            }
        }
    }

    fn poll_release(&mut self, now: Time) -> Option<T> {
        if self.ready.is_empty() {
            // The held copy that falls due first, and with it every lower one.
            let (first_due, until) = self
                .held
                .iter()
                .enumerate()
                .min_by_key(|(_, h)| h.until)
                .map(|(i, h)| (i, h.until))?;
            if until > now {
                return None;
            }
            self.release_through(first_due, now, Release::Timer);
        }
        let r = self.ready.pop_front()?;
        match r.why {
            Release::Timer => self.stats.released_by_timer += 1,
            Release::InOrder => self.stats.released_in_order += 1,
            Release::SlowCopy => self.stats.released_by_slow_copy += 1,
            Release::Completion => self.stats.released_at_completion += 1,
        }
        self.stats.max_hold = self.stats.max_hold.max(now.saturating_since(r.arrived));
        Some(r.token)
    }

    fn poll_timeout(&self) -> Option<Time> {
        if let Some(r) = self.ready.front() {
            // Released and not yet taken: due at once.
            return Some(r.arrived);
        }
        self.held.iter().map(|h| h.until).min()
    }

    fn complete(&mut self, now: Time) {
        if self.completed_at.is_some() {
            return;
        }
        self.completed_at = Some(now);
        if !self.held.is_empty() {
            self.release_through(self.held.len() - 1, now, Release::Completion);
        }
    }

    fn stats(&self) -> &CombinerStats {
        &self.stats
    }

    fn buffered(&self) -> usize {
        self.held.len() + self.ready.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LinkClass::{Fast, Slow};

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    fn pio(seq: u16, sent_ms: u16) -> Pio {
        Pio { seq, sent_ms }
    }

    /// Drains `poll_release(now)`.
    fn drain(c: &mut Apc<u16>, now: Time) -> Vec<u16> {
        std::iter::from_fn(|| c.poll_release(now)).collect()
    }

    fn apc(initial: InitialEDelay) -> Apc<u16> {
        let cfg = ApcConfig {
            initial,
            ..ApcConfig::downward()
        };
        Apc::new(cfg, Time::ZERO).expect("valid config")
    }

    // ---- Tests for eq. 2 and eq. 3 on hand-worked sequences ----

    #[test]
    fn eq2_holds_and_eq3_filters_on_a_downward_sequence() {
        // Eq. 1-3, §VI's α = 0.875 and initial T_eDelay = 1 s; T_combining = 0, all in ms.
        //  t=40   F#1 sent 0:   T_delay_fast = 40;  hold until 40 + (1000 - 40) = 1000.
        //  t=300  S#1 sent 0:   T_delay_slow = 300; T_eDelay = .875*1000 + .125*300 = 912.5;
        //                        #1 (held) goes out, the slow copy is a duplicate.
        //  t=310  F#2 sent 270: T_delay_fast = 40;  hold until 310 + 872.5 = 1182.5.
        //  t=320  F#3 sent 280: T_delay_fast = 40;  hold until 320 + 872.5 = 1192.5.
        //  t=600  S#2 sent 270: T_delay_slow = 330; T_eDelay = .875*912.5 + .125*330
        //                        = 798.4375 + 41.25 = 839.6875; #2 goes out.
        //  t=620  F#4 sent 580: T_delay_fast = 40;  hold until 620 + 799.6875 = 1419.6875.
        //  (S#3 lost.) t=1192.5: #3's hold expires, #3 goes out by its timer.
        //  t=1300 S#5 sent 600 (F#5 lost): T_delay_slow = 700; T_eDelay = .875*839.6875 +
        //                        .125*700 = 734.7265625 + 87.5 = 822.2265625; first arrival
        //                        from the slow link: #4 (held, lower) goes out, then #5.
        let mut c = apc(InitialEDelay::Fixed(Dur::from_secs(1)));
        assert_eq!(c.on_copy(ms(40), pio(1, 0), Fast, 1), Verdict::Held);
        assert_eq!(c.poll_timeout(), Some(ms(1000)));
        assert_eq!(
            c.on_copy(ms(300), pio(1, 0), Slow, 101),
            Verdict::Duplicate(101)
        );
        assert_eq!(c.e_delay_ns(), Some(912_500_000));
        assert_eq!(drain(&mut c, ms(300)), vec![1]);
        assert_eq!(c.on_copy(ms(310), pio(2, 270), Fast, 2), Verdict::Held);
        assert_eq!(c.poll_timeout(), Some(Time(1_182_500_000)));
        assert_eq!(c.on_copy(ms(320), pio(3, 280), Fast, 3), Verdict::Held);
        assert_eq!(
            c.on_copy(ms(600), pio(2, 270), Slow, 102),
            Verdict::Duplicate(102)
        );
        assert_eq!(c.e_delay_ns(), Some(839_687_500));
        assert_eq!(drain(&mut c, ms(600)), vec![2]);
        assert_eq!(c.poll_timeout(), Some(Time(1_192_500_000)));
        assert_eq!(c.on_copy(ms(620), pio(4, 580), Fast, 4), Verdict::Held);
        assert_eq!(c.poll_timeout(), Some(Time(1_192_500_000)));
        assert_eq!(drain(&mut c, Time(1_192_499_999)), Vec::<u16>::new());
        assert_eq!(drain(&mut c, Time(1_192_500_000)), vec![3]);
        assert_eq!(c.poll_timeout(), Some(Time(1_419_687_500)));
        assert_eq!(
            c.on_copy(ms(1300), pio(5, 600), Slow, 105),
            Verdict::Forward(105)
        );
        assert_eq!(c.e_delay_ns(), Some(822_226_563)); // 822 226 562.5 ns, half up
        assert_eq!(drain(&mut c, ms(1300)), vec![4]);
        assert_eq!(c.poll_timeout(), None);
        let s = *c.stats();
        assert_eq!(s.released_by_slow_copy, 2);
        assert_eq!(s.released_by_timer, 1);
        assert_eq!(s.released_in_order, 1);
        assert_eq!(s.forwarded_at_once, 1);
        assert_eq!(s.duplicates, 2);
        // Holds: #1 260 ms, #2 290, #3 320 -> 1192.5 = 872.5 (the longest), #4 680.
        assert_eq!(s.max_hold, Dur::from_micros(872_500));
    }

    #[test]
    fn eq2_forwards_at_once_when_the_estimate_is_not_above_the_fast_delay() {
        // Eq. 2's second case: T_timeout = 0 when T_eDelay <= T_delay_fast; §VI upward
        // handover: initial T_eDelay = 0, "incoming packets from the WLAN link are
        // immediately forwarded without buffering at the beginning of handover".
        //  t=30  F#1 sent 0:   T_delay_fast = 30 >= T_eDelay = 0: forwarded at once.
        //  t=200 S#2 sent 20:  T_delay_slow = 180; T_eDelay = .875*0 + .125*180 = 22.5; a
        //                      first arrival from the slow link: forwarded at once.
        //  t=250 F#3 sent 228: T_delay_fast = 22 < 22.5: held 0.5 ms, until 250.5.
        //  t=260 F#4 sent 237: T_delay_fast = 23 >= 22.5: forwarded at once, #3 first.
        let mut c = Apc::new(ApcConfig::upward(), Time::ZERO).expect("valid");
        assert_eq!(c.on_copy(ms(30), pio(1, 0), Fast, 1), Verdict::Forward(1));
        assert_eq!(c.on_copy(ms(200), pio(2, 20), Slow, 2), Verdict::Forward(2));
        assert_eq!(c.e_delay_ns(), Some(22_500_000));
        assert_eq!(c.on_copy(ms(250), pio(3, 228), Fast, 3), Verdict::Held);
        assert_eq!(c.poll_timeout(), Some(Time(250_500_000)));
        assert_eq!(
            c.on_copy(ms(260), pio(4, 237), Fast, 4),
            Verdict::Forward(4)
        );
        assert_eq!(drain(&mut c, ms(260)), vec![3]);
        assert_eq!(c.stats().released_in_order, 1);
    }

    #[test]
    fn eq1_reads_the_16_bit_timestamp_across_its_wrap() {
        // Eq. 1 with the PIO's 16-bit ms stamp (Fig. 3): at 70 s after T_bicasting the stamp
        // reads 70 000 - 65 536 = 4 464. T_combining = 5 s and T_bicasting 10 ms later (the
        // BU's transit), so a copy sent at 75.010 s absolute (stamp 4464) and received over
        // the slow link at 75.310 s, 300 ms later, reads T_delay = 70.310 s - 70.000 s =
        // 310 ms: the BU's 10 ms offset included, as in the paper.
        let mut c: Apc<u16> = Apc::new(ApcConfig::downward(), Time::from_secs(5)).expect("valid");
        assert_eq!(
            c.on_copy(ms(75_310), pio(9, 4464), Slow, 9),
            Verdict::Forward(9)
        );
        // T_eDelay = .875*1000 + .125*310 = 913.75 ms.
        assert_eq!(c.e_delay_ns(), Some(913_750_000));
        // A stamp from before the wrap (65 535 = 65.535 s) seen at 70.5 s after T_combining,
        // just after the MR's own count wrapped: T_delay = 70 500 - 65 535 = 4 965 ms.
        let c2: Apc<u16> = Apc::new(ApcConfig::downward(), Time::ZERO).expect("valid");
        assert_eq!(c2.delay_ns(ms(70_500), 65_535), 4_965_000_000);
        // A negative delay (the MR's base later than the HA's stamp suggests) reads negative.
        assert_eq!(c2.delay_ns(ms(5), 10), -5_000_000);
    }

    // ---- Tests for the initial T_eDelay (§VI, §VII) ----

    #[test]
    fn first_slow_delay_variant_recomputes_holds_from_the_first_measurement() {
        // §VII: "wait for the first packet from the slow link, and then use the first measured
        // delay as the initial value". Fig. 6b's case, the slow copies 1.15 s late:
        //  t=40   F#1 sent 0:  T_delay_fast = 40; awaiting: held until 40 + 2000 = 2040.
        //  t=60   F#2 sent 20: T_delay_fast = 40; held until 2060.
        //  t=1150 S#1 sent 0:  T_eDelay = 1150 (first, unfiltered). #1 goes out;
        //                      #2 recomputed: until 60 + (1150 - 40) = 1170.
        //  t=1170 #2 by its timer.
        //  t=1180 S#2 sent 20: T_delay_slow = 1160; T_eDelay = .875*1150 + .125*1160 = 1151.25.
        let mut c = apc(InitialEDelay::FirstSlowDelay {
            max_wait: DEFAULT_FIRST_DELAY_WAIT,
        });
        assert_eq!(c.on_copy(ms(40), pio(1, 0), Fast, 1), Verdict::Held);
        assert_eq!(c.on_copy(ms(60), pio(2, 20), Fast, 2), Verdict::Held);
        assert_eq!(c.poll_timeout(), Some(ms(2040)));
        assert_eq!(c.e_delay_ns(), None);
        assert_eq!(
            c.on_copy(ms(1150), pio(1, 0), Slow, 101),
            Verdict::Duplicate(101)
        );
        assert_eq!(c.e_delay_ns(), Some(1_150_000_000));
        assert_eq!(drain(&mut c, ms(1150)), vec![1]);
        assert_eq!(c.poll_timeout(), Some(ms(1170)));
        assert_eq!(drain(&mut c, ms(1170)), vec![2]);
        assert_eq!(
            c.on_copy(ms(1180), pio(2, 20), Slow, 102),
            Verdict::Duplicate(102)
        );
        assert_eq!(c.e_delay_ns(), Some(1_151_250_000));

        // The fixed 1 s of §VI on the same arrivals: #1 held until 1000 and #2 until 1020,
        // both out before their slow copies (the overtaking of Fig. 6b).
        let mut f = apc(InitialEDelay::Fixed(DOWNWARD_INITIAL_E_DELAY));
        f.on_copy(ms(40), pio(1, 0), Fast, 1);
        f.on_copy(ms(60), pio(2, 20), Fast, 2);
        assert_eq!(drain(&mut f, ms(1000)), vec![1]);
        assert_eq!(drain(&mut f, ms(1020)), vec![2]);
        assert_eq!(
            f.on_copy(ms(1150), pio(1, 0), Slow, 101),
            Verdict::Duplicate(101)
        );
    }

    #[test]
    fn first_slow_delay_variant_gives_up_after_max_wait() {
        // DEFAULT_FIRST_DELAY_WAIT: without any slow copy a fast copy is held 2 s, no more.
        let mut c = apc(InitialEDelay::FirstSlowDelay {
            max_wait: Dur::from_secs(2),
        });
        assert_eq!(c.on_copy(ms(40), pio(1, 0), Fast, 1), Verdict::Held);
        assert_eq!(drain(&mut c, ms(2039)), Vec::<u16>::new());
        assert_eq!(drain(&mut c, ms(2040)), vec![1]);
        assert_eq!(c.stats().max_hold, Dur::from_secs(2));
    }

    // ---- Tests for in-order release and the Sequence Number Table (§IV-B) ----

    #[test]
    fn a_hold_expiring_releases_lower_numbers_first() {
        // §IV-B: "when the MR decides to forward the sequence number n ... forwards them
        // in-order even prior to T_timeout^n of them". T_eDelay = 1 s:
        //  t=10 F#1 sent 0:  T_delay_fast = 10, until 10 + 990 = 1000.
        //  t=20 F#2 sent 15: T_delay_fast = 5,  until 20 + 995 = 1015.
        //  t=30 F#3 sent 0:  T_delay_fast = 30, until 30 + 970 = 1000.
        //  At 1000: #1 (its timer), #2 (in order, 15 ms early), #3 (its timer).
        let mut c = apc(InitialEDelay::Fixed(Dur::from_secs(1)));
        c.on_copy(ms(10), pio(1, 0), Fast, 1);
        c.on_copy(ms(20), pio(2, 15), Fast, 2);
        c.on_copy(ms(30), pio(3, 0), Fast, 3);
        assert_eq!(c.poll_timeout(), Some(ms(1000)));
        assert_eq!(drain(&mut c, ms(1000)), vec![1, 2, 3]);
        let s = c.stats();
        assert_eq!((s.released_by_timer, s.released_in_order), (2, 1));
    }

    #[test]
    fn later_copies_of_released_numbers_are_duplicates_even_across_the_wrap() {
        // §IV-B: the Sequence Number Table "records n" on release; "avoids injecting multiple
        // copies". Numbers 65535 and 0 (RFC 1982: 0 follows 65535).
        let mut c = apc(InitialEDelay::Fixed(Dur::from_millis(100)));
        assert_eq!(c.on_copy(ms(10), pio(65535, 0), Fast, 1), Verdict::Held);
        assert_eq!(c.on_copy(ms(11), pio(0, 1), Fast, 2), Verdict::Held);
        assert_eq!(drain(&mut c, ms(110)), vec![1, 2]);
        assert_eq!(
            c.on_copy(ms(200), pio(65535, 0), Slow, 3),
            Verdict::Duplicate(3)
        );
        assert_eq!(
            c.on_copy(ms(201), pio(0, 1), Slow, 4),
            Verdict::Duplicate(4)
        );
        // A second fast copy of a held number is a duplicate too.
        assert_eq!(c.on_copy(ms(300), pio(1, 290), Fast, 5), Verdict::Held);
        assert_eq!(
            c.on_copy(ms(301), pio(1, 290), Fast, 6),
            Verdict::Duplicate(6)
        );
        // A slow first arrival below a held number leaves the higher one held.
        assert_eq!(
            c.on_copy(ms(302), pio(65534, 0), Slow, 7),
            Verdict::Forward(7)
        );
        assert_eq!(drain(&mut c, ms(302)), Vec::<u16>::new());
        assert_eq!(c.buffered(), 1);
    }

    // ---- Tests for the handover's completion (§IV-C) ----

    #[test]
    fn completion_releases_every_held_copy_in_order_and_holds_nothing_after() {
        // §IV-C: at completion "the true capability on the new link becomes available
        // immediately"; §IV-B: in order. T_eDelay = 1 s:
        //  t=10 F#1 sent 0:  held until 1000.     t=20 F#3 sent 10: held until 1010.
        //  t=30 F#2 sent 20: held until 1010 (inserted below #3).
        //  t=500: completion: #1, #2, #3 go out in that order, 510-490 ms early.
        //  t=510 F#4 sent 500: T_delay_fast = 10 < T_eDelay, but not held: forwarded.
        //  t=900 S#2 sent 20: a duplicate (the table); S#5 sent 600, first: forwarded.
        let mut c = apc(InitialEDelay::Fixed(Dur::from_secs(1)));
        assert_eq!(c.on_copy(ms(10), pio(1, 0), Fast, 1), Verdict::Held);
        assert_eq!(c.on_copy(ms(20), pio(3, 10), Fast, 3), Verdict::Held);
        assert_eq!(c.on_copy(ms(30), pio(2, 20), Fast, 2), Verdict::Held);
        assert_eq!(drain(&mut c, ms(499)), Vec::<u16>::new());
        c.complete(ms(500));
        assert_eq!(drain(&mut c, ms(500)), vec![1, 2, 3]);
        assert_eq!(c.poll_timeout(), None);
        assert_eq!(
            c.on_copy(ms(510), pio(4, 500), Fast, 4),
            Verdict::Forward(4)
        );
        assert_eq!(
            c.on_copy(ms(900), pio(2, 20), Slow, 102),
            Verdict::Duplicate(102)
        );
        assert_eq!(
            c.on_copy(ms(901), pio(5, 600), Slow, 105),
            Verdict::Forward(105)
        );
        let s = *c.stats();
        assert_eq!((s.released_at_completion, s.released_by_timer), (3, 0));
        assert_eq!(s.forwarded(), 5);
        assert_eq!(s.max_hold, Dur::from_millis(490));
        // A second completion changes nothing.
        c.complete(ms(950));
        assert_eq!(c.stats().released_at_completion, 3);
    }

    #[test]
    fn config_is_validated() {
        let bad = ApcConfig {
            alpha: 1.5,
            ..ApcConfig::downward()
        };
        assert_eq!(
            Apc::<u16>::new(bad, Time::ZERO).err(),
            Some(CombineError::Alpha(1.5))
        );
        let bad = ApcConfig {
            table_size: 0,
            ..ApcConfig::downward()
        };
        assert_eq!(
            Apc::<u16>::new(bad, Time::ZERO).err(),
            Some(CombineError::TableSize(0))
        );
    }
}
