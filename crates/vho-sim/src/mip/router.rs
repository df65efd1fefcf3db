//! An access router's Router Advertisements (RFC 4861 §6.2): unsolicited ones at intervals
//! drawn uniformly in [MinRtrAdvInterval, MaxRtrAdvInterval] (§6.2.4), a solicited one
//! U[0, MAX_RA_DELAY_TIME] after a Router Solicitation (§6.2.6), or that random value after
//! MinDelayBetweenRAs past the last advertisement when one went out more recently (§6.2.6's
//! rate limit; RFC 6275 §13), unless an unsolicited one is due sooner. Each carries RFC 6275 §7.3's Advertisement Interval option: the router's
//! MaxRtrAdvInterval, plus 20 ms when below 200 ms (§7.5). The interval a mobile node waits
//! for is what eq. 2 of Cottingham & Vidales models (t_d, 000 l.79-99).

use super::{signal_packet, Addr, RouterSpec, Signal, MAX_RA_DELAY_TIME};
use crate::function::Counters;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

struct Advertiser {
    /// The router's address and the mobile's care-of address on the link (where an
    /// advertisement to all nodes on the link reaches the mobile).
    src: Addr,
    coa: Addr,
    ra_min: Dur,
    ra_max: Dur,
    interval_ms: u32,
    sllao: bool,
    next: Time,
    solicited: Option<Time>,
    min_delay: Dur,
    /// When the last advertisement went out.
    last: Option<Time>,
}

pub struct AccessRouter {
    links: Vec<Advertiser>,
    rng: Rng,
    out: VecDeque<Packet>,
    sent: u64,
    solicited: u64,
}

impl AccessRouter {
    /// `links`: per access link the router serves, its spec and the mobile's care-of address
    /// on it.
    pub fn new(src: Addr, links: &[(RouterSpec, Addr)], mut rng: Rng) -> AccessRouter {
        let links = links
            .iter()
            .map(|&(r, coa)| {
                let sllao = r.link_layer;
                let adv = r.advertised_interval();
                // The first advertisement comes at a random phase of the schedule, as from a
                // router that has been running for a while.
                let next = Time(rng.below(r.ra_max.as_nanos().max(1)));
                Advertiser {
                    src,
                    coa,
                    ra_min: r.ra_min,
                    ra_max: r.ra_max,
                    interval_ms: (adv.as_nanos() / 1_000_000) as u32,
                    sllao,
                    next,
                    solicited: None,
                    min_delay: r.min_delay_between_ras,
                    last: None,
                }
            })
            .collect();
        AccessRouter {
            links,
            rng,
            out: VecDeque::new(),
            sent: 0,
            solicited: 0,
        }
    }

    /// A Router Solicitation arrived on the link of care-of address `from`.
    pub fn on_solicitation(&mut self, now: Time, from: Addr) {
        let rng = &mut self.rng;
        if let Some(a) = self.links.iter_mut().find(|a| a.coa == from) {
            let wait = Dur(rng.below(MAX_RA_DELAY_TIME.as_nanos() + 1));
            // §6.2.6: "If the router sent a multicast Router Advertisement (solicited or
            // unsolicited) within the last MIN_DELAY_BETWEEN_RAS seconds, schedule the
            // advertisement to be sent at a time corresponding to MIN_DELAY_BETWEEN_RAS plus
            // the random value after the previous advertisement was sent."
            let at = match a.last {
                Some(last) if now < last + a.min_delay => last + a.min_delay + wait,
                _ => now + wait,
            };
            if at < a.next && a.solicited.is_none_or(|s| at < s) {
                a.solicited = Some(at);
            }
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.links
            .iter()
            .map(|a| a.solicited.map_or(a.next, |s| s.min(a.next)))
            .min()
    }

    pub fn handle_timeout(&mut self, now: Time) {
        for a in &mut self.links {
            let solicited = a.solicited.is_some_and(|s| s <= now);
            if a.next <= now || solicited {
                let sig = Signal::RouterAdvertisement {
                    interval_ms: a.interval_ms,
                    sllao: a.sllao,
                };
                self.out.push_back(signal_packet(now, a.src, a.coa, sig));
                self.sent += 1;
                a.last = Some(now);
                if solicited {
                    self.solicited += 1;
                    a.solicited = None;
                }
                // RFC 4861 §6.2.4: the next unsolicited one is drawn afresh after any sent.
                let span = a.ra_max.as_nanos() - a.ra_min.as_nanos();
                a.next = now + a.ra_min + Dur(self.rng.below(span + 1));
            }
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    pub fn counters(&self) -> Counters {
        vec![
            ("advertisements", self.sent),
            ("solicited_advertisements", self.solicited),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router(min_ms: u64, max_ms: u64) -> AccessRouter {
        let spec = RouterSpec {
            node: 1,
            link: 0,
            ra_min: Dur::from_millis(min_ms),
            ra_max: Dur::from_millis(max_ms),
            link_layer: true,
            min_delay_between_ras: crate::mip::MIN_DELAY_BETWEEN_RAS,
        };
        AccessRouter::new(1, &[(spec, 10)], Rng::stream(7, "ra"))
    }

    fn run(r: &mut AccessRouter, until: Time) -> Vec<(Time, Signal)> {
        let mut out = Vec::new();
        while let Some(t) = r.poll_timeout() {
            if t > until {
                break;
            }
            r.handle_timeout(t);
            while let Some(p) = r.poll_transmit() {
                out.push((t, p.sig));
            }
        }
        out
    }

    #[test]
    fn unsolicited_intervals_are_uniform_between_min_and_max() {
        // RFC 4861 §6.2.4; RFC 6275 §7.5's smallest values, 30 and 70 ms.
        let mut r = router(30, 70);
        let ras = run(&mut r, Time::from_secs(200));
        let gaps: Vec<f64> = ras
            .windows(2)
            .map(|w| w[1].0.saturating_since(w[0].0).as_secs_f64())
            .collect();
        assert!(gaps.len() > 3000);
        assert!(gaps.iter().all(|&g| (0.030..=0.070).contains(&g)));
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean - 0.050).abs() < 0.001, "mean {mean}");
        // RFC 6275 §7.5: 20 ms added to an interval below 200 ms.
        assert!(matches!(
            ras[0].1,
            Signal::RouterAdvertisement {
                interval_ms: 90,
                ..
            }
        ));
    }

    #[test]
    fn a_solicitation_is_answered_within_max_ra_delay_time() {
        // RFC 4861 §6.2.6: a solicited advertisement within MAX_RA_DELAY_TIME (0.5 s), or the
        // next unsolicited one if that comes first.
        let mut r = router(10_000, 20_000);
        let first = r.poll_timeout().unwrap();
        // Past MIN_DELAY_BETWEEN_RAS after the last advertisement (the rate limit's test is
        // the next one's).
        let t0 = first + Dur::from_secs(4);
        run(&mut r, first);
        r.on_solicitation(t0, 10);
        let ras = run(&mut r, t0 + Dur::from_secs(1));
        assert_eq!(ras.len(), 1);
        assert!(ras[0].0.saturating_since(t0) <= MAX_RA_DELAY_TIME);
        assert_eq!(r.counters()[1], ("solicited_advertisements", 1));
    }

    #[test]
    fn a_solicitation_soon_after_an_advertisement_waits_for_min_delay_between_ras() {
        // RFC 4861 §6.2.6: within MIN_DELAY_BETWEEN_RAS (3 s) of the last advertisement the
        // answer is scheduled that long after it, plus the random delay; here the next
        // unsolicited one (1-3 s apart on a GPRS-like router) is due sooner and goes instead.
        let mut r = router(1_000, 3_000);
        let first = r.poll_timeout().unwrap();
        run(&mut r, first);
        let t0 = first + Dur::from_millis(100);
        r.on_solicitation(t0, 10);
        let ras = run(&mut r, t0 + Dur::from_secs(4));
        assert!(ras[0].0 >= first + Dur::from_secs(1), "not answered early");
        assert_eq!(r.counters()[1], ("solicited_advertisements", 0));
        // A router advertising every 10-20 s answers 3 s + U[0, 0.5 s] after its last one.
        let mut r = router(10_000, 20_000);
        let first = r.poll_timeout().unwrap();
        run(&mut r, first);
        let t0 = first + Dur::from_millis(100);
        r.on_solicitation(t0, 10);
        let ras = run(&mut r, t0 + Dur::from_secs(5));
        assert_eq!(ras.len(), 1);
        let gap = ras[0].0.saturating_since(first);
        assert!(
            gap >= Dur::from_secs(3) && gap <= Dur::from_millis(3_500),
            "answered {gap:?} after the last"
        );
    }
}
