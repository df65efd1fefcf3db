//! `[mipv6]`: Mobile IPv6 as signalling packets (`crate::mip`), its entities' settings and the
//! access routers' advertisements, checked against the topology and the handovers.

use super::{Builder, Ctx, R};
use crate::mip::{
    Dad, Detection, MipSpec, RoStart, RouterSpec, MAX_RA_INTERVAL_FLOOR, MIN_DELAY_BETWEEN_RAS,
    MIN_RA_INTERVAL_FLOOR,
};
use crate::scenario::schema::{File, S};
use crate::scenario::units;
use crate::spec::{FlowSpec, HandoverSpec, NodeKind};
use crate::time::Dur;

/// Advertisement intervals of a router the scenario does not set: radvd's
/// `MinRtrAdvInterval 1; MaxRtrAdvInterval 3;` of the UMIP testbed howtos
/// (`docs/design/issue-20-sources.md` §3.1). RFC 4861's own defaults (198-600 s, §6.2.1) are
/// meant for hosts that do not move.
pub const DEFAULT_RA_MIN: Dur = Dur::from_secs(1);
pub const DEFAULT_RA_MAX: Dur = Dur::from_secs(3);
/// MIPL's movement detection: "2 lost RAs" (000 l.108-110).
pub const DEFAULT_RA_MISSED: u32 = 2;

impl Ctx<'_> {
    pub(super) fn mipv6(
        &self,
        file: &File,
        b: &Builder,
        handovers: &[HandoverSpec],
        flows: &[FlowSpec],
    ) -> R<Option<MipSpec>> {
        let Some(m) = &file.mipv6 else {
            return Ok(None);
        };
        let span = m.span();
        let m = m.get_ref();
        if b.mobiles.is_empty() {
            return Err(self.err(span, "mipv6", "a scenario with a mobile host", None));
        }
        let home_agent = match &m.home_agent {
            Some(s) => b.node(self, s, "mipv6.home_agent")?,
            None => b.nodes.iter().position(|n| n.name == "ha").ok_or_else(|| {
                self.err(
                    span.clone(),
                    "mipv6.home_agent",
                    "the home agent's node (no node is named \"ha\")",
                    None,
                )
            })?,
        };
        if b.nodes[home_agent].kind != NodeKind::Router {
            let at = m.home_agent.as_ref().map_or(span.clone(), |s| s.span());
            return Err(self.err(
                at,
                "mipv6.home_agent",
                "a router (a home agent forwards the home network's packets through its \
                 tunnel; a host or a mobile forwards none, so the mobile never registers)",
                Some(format!(
                    "{:?}, a {}",
                    b.nodes[home_agent].name,
                    kind_word(b.nodes[home_agent].kind)
                )),
            ));
        }
        let mobile_nodes: Vec<usize> = b.mobiles.iter().map(|x| x.node).collect();
        let correspondents =
            match &m.correspondents {
                Some(list) => {
                    list.iter()
                        .map(|s| {
                            let n = b.node(self, s, "mipv6.correspondents")?;
                            if b.nodes[n].kind != NodeKind::Host {
                                return Err(self.err(
                            s.span(),
                            "mipv6.correspondents",
                            "hosts (a correspondent is the fixed end of a flow, which answers \
                             return routability; a router or a mobile never does)",
                            Some(format!("{:?}, a {}", s.get_ref(), kind_word(b.nodes[n].kind))),
                        ));
                            }
                            Ok(n)
                        })
                        .collect::<R<Vec<_>>>()?
                }
                None => {
                    let mut v: Vec<usize> = Vec::new();
                    for f in flows {
                        for (a, z) in [(f.src, f.dst), (f.dst, f.src)] {
                            if mobile_nodes.contains(&a)
                                && !mobile_nodes.contains(&z)
                                && !v.contains(&z)
                            {
                                v.push(z);
                            }
                        }
                    }
                    v
                }
            };
        let detection = match m.detection.as_ref().map(|s| s.get_ref().as_str()) {
            None | Some("ra-miss") => {
                let k = match &m.ra_missed {
                    Some(k) if (1..=100).contains(k.get_ref()) => *k.get_ref() as u32,
                    Some(k) => {
                        return Err(self.err(
                            k.span(),
                            "mipv6.ra_missed",
                            "a whole number of advertisement intervals, 1 to 100",
                            Some(k.get_ref().to_string()),
                        ))
                    }
                    None => DEFAULT_RA_MISSED,
                };
                Detection::RaMiss { k }
            }
            Some("l2-trigger") => Detection::L2Trigger {
                delay: self.opt_dur(&m.l2_delay, "mipv6.l2_delay", Dur::ZERO)?,
            },
            Some(_) => {
                let s = m
                    .detection
                    .as_ref()
                    .map(|s| s.span())
                    .unwrap_or(span.clone());
                return Err(self.err(
                    s,
                    "mipv6.detection",
                    "\"ra-miss\" or \"l2-trigger\"",
                    m.detection.as_ref().map(|s| format!("{:?}", s.get_ref())),
                ));
            }
        };
        let dad = match m.dad.as_ref().map(|s| s.get_ref().as_str()) {
            None | Some("full") => Dad::Full,
            Some("optimistic") => Dad::Optimistic,
            Some("none") => Dad::None,
            Some(_) => {
                return Err(self.bad(
                    m.dad.as_ref(),
                    "mipv6.dad",
                    "\"full\", \"optimistic\" or \"none\"",
                ))
            }
        };
        let ro_delay = self.opt_dur(&m.ro_delay, "mipv6.ro_delay", Dur::ZERO)?;
        let ro_start = match m.ro_start.as_ref().map(|s| s.get_ref().as_str()) {
            None | Some("after-ba") => RoStart::AfterBa,
            Some("after-ba-delay") => RoStart::AfterBaDelay(ro_delay),
            Some("on-traffic") => RoStart::OnTraffic,
            Some("parallel") => RoStart::Parallel,
            Some(_) => {
                return Err(self.bad(
                    m.ro_start.as_ref(),
                    "mipv6.ro_start",
                    "\"after-ba\", \"after-ba-delay\", \"on-traffic\" or \"parallel\"",
                ))
            }
        };
        let link_of = |s: &S, field: &str| -> R<usize> {
            let l = b.link(self, s, field)?;
            if !b.mobiles.iter().any(|x| x.interfaces.contains(&l)) {
                return Err(self.err(
                    s.span(),
                    field,
                    "one of a mobile host's access links",
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            Ok(l)
        };
        let attached = match &m.attached {
            None => b.mobiles.iter().map(|x| x.interfaces.clone()).collect(),
            Some(list) => {
                let links = list
                    .iter()
                    .map(|s| link_of(s, "mipv6.attached"))
                    .collect::<R<Vec<_>>>()?;
                b.mobiles
                    .iter()
                    .map(|x| {
                        let mut v: Vec<usize> = x
                            .interfaces
                            .iter()
                            .copied()
                            .filter(|l| links.contains(l))
                            .collect();
                        if !v.contains(&x.initial) {
                            v.push(x.initial);
                        }
                        v
                    })
                    .collect()
            }
        };
        let mut routers: Vec<RouterSpec> = Vec::new();
        for r in &m.router {
            let rt = r.get_ref();
            let link = link_of(&rt.link, "mipv6.router.link")?;
            let l = &b.links[link];
            let mobile_end = if mobile_nodes.contains(&l.b) {
                l.b
            } else {
                l.a
            };
            let node = match &rt.node {
                Some(s) => b.node(self, s, "mipv6.router.node")?,
                None => {
                    if l.a == mobile_end {
                        l.b
                    } else {
                        l.a
                    }
                }
            };
            let ra_min = self.opt_dur(&rt.ra_min, "mipv6.router.ra_min", DEFAULT_RA_MIN)?;
            let ra_max = self.opt_dur(
                &rt.ra_max,
                "mipv6.router.ra_max",
                DEFAULT_RA_MAX.max(ra_min),
            )?;
            // RFC 6275 §7.5's floors: MinRtrAdvInterval 30 ms, MaxRtrAdvInterval 70 ms
            // (shorter intervals are no router's, and would flood the run with events).
            if ra_min < MIN_RA_INTERVAL_FLOOR {
                let span = rt.ra_min.as_ref().map_or(r.span(), |v| v.span());
                return Err(self.err(
                    span,
                    "mipv6.router.ra_min",
                    "at least 30 ms (RFC 6275 §7.5's MinRtrAdvInterval floor)",
                    Some(format!("{} s", ra_min.as_secs_f64())),
                ));
            }
            if ra_max < MAX_RA_INTERVAL_FLOOR {
                let span = rt.ra_max.as_ref().map_or(r.span(), |v| v.span());
                return Err(self.err(
                    span,
                    "mipv6.router.ra_max",
                    "at least 70 ms (RFC 6275 §7.5's MaxRtrAdvInterval floor)",
                    Some(format!("{} s", ra_max.as_secs_f64())),
                ));
            }
            let min_delay = self.opt_dur(
                &rt.min_delay_between_ras,
                "mipv6.router.min_delay_between_ras",
                MIN_DELAY_BETWEEN_RAS,
            )?;
            if min_delay < MIN_RA_INTERVAL_FLOOR {
                return Err(self.bad(
                    rt.min_delay_between_ras.as_ref(),
                    "mipv6.router.min_delay_between_ras",
                    "at least 30 ms (RFC 6275 §7.5, §13)",
                ));
            }
            if ra_max < ra_min || ra_max == Dur::ZERO {
                let span = rt.ra_max.as_ref().map_or(r.span(), |v| v.span());
                return Err(self.err(
                    span,
                    "mipv6.router.ra_max",
                    format!(
                        "an interval above zero and at least ra_min ({} s)",
                        ra_min.as_secs_f64()
                    ),
                    Some(format!("{} s", ra_max.as_secs_f64())),
                ));
            }
            if routers.iter().any(|x| x.link == link) {
                return Err(self.err(
                    r.span(),
                    "mipv6.router",
                    "one router per link",
                    Some(format!("{:?} twice", rt.link.get_ref())),
                ));
            }
            routers.push(RouterSpec {
                node,
                link,
                ra_min,
                ra_max,
                link_layer: rt.link_layer.unwrap_or(true),
                min_delay_between_ras: min_delay,
            });
        }
        // Every access link has a router; those not listed advertise at the defaults.
        for x in &b.mobiles {
            for &link in &x.interfaces {
                if !routers.iter().any(|r| r.link == link) {
                    let l = &b.links[link];
                    routers.push(RouterSpec {
                        node: if l.a == x.node { l.b } else { l.a },
                        link,
                        ra_min: DEFAULT_RA_MIN,
                        ra_max: DEFAULT_RA_MAX,
                        link_layer: true,
                        min_delay_between_ras: MIN_DELAY_BETWEEN_RAS,
                    });
                }
            }
        }
        // A handover's link-layer part only: what the other keys model comes from the
        // signalling (the delay, the uplink's move, the notification) or the links (the queues).
        for (i, h) in handovers.iter().enumerate() {
            let Some(ht) = file.handover.get(i).map(|x| x.get_ref()) else {
                continue;
            };
            let set = [
                ("delay", ht.delay.as_ref().filter(|_| h.delay > Dur::ZERO)),
                (
                    "uplink_delay",
                    ht.uplink_delay
                        .as_ref()
                        .filter(|_| h.uplink_delay > Dur::ZERO),
                ),
                ("notify", ht.notify.as_ref()),
                ("notify_offset", ht.notify_offset.as_ref()),
                ("notify_delay", ht.notify_delay.as_ref()),
                ("flush", ht.flush.as_ref()),
            ];
            if let Some((key, v)) = set.into_iter().find_map(|(k, v)| v.map(|v| (k, v))) {
                return Err(self.err(
                    v.span(),
                    &format!("handover.{key}"),
                    "no such key with [mipv6]: the handover's delay, the uplink's move and the \
                     notification come from the Mobile IPv6 signalling",
                    Some(format!("{:?}", v.get_ref())),
                ));
            }
            if let Some(l) = ht.loss.as_ref().filter(|l| *l.get_ref() < 1.0) {
                return Err(self.err(
                    l.span(),
                    "handover.loss",
                    "1 with [mipv6] (a hard handover takes the old link down, its queues with it)",
                    Some(l.get_ref().to_string()),
                ));
            }
        }
        Ok(Some(MipSpec {
            home_agent,
            correspondents,
            routers,
            detection,
            dad,
            preconfigured: m.preconfigured.unwrap_or(true),
            route_optimisation: m.route_optimisation.unwrap_or(true),
            ro_start,
            attached,
            rs_delay: m.rs_delay.unwrap_or(false),
            cn_ack: m.cn_ack.unwrap_or(false),
            cn_bound: m.cn_bound.unwrap_or(true),
            processing: self.opt_dur(&m.processing, "mipv6.processing", Dur::ZERO)?,
        }))
    }

    fn opt_dur(&self, s: &Option<S>, field: &str, default: Dur) -> R<Dur> {
        match s {
            Some(s) => self.with(s, field, units::duration),
            None => Ok(default),
        }
    }

    fn bad(
        &self,
        s: Option<&S>,
        field: &str,
        expected: &str,
    ) -> crate::scenario::error::ScenarioError {
        self.err(
            s.map(|s| s.span()).unwrap_or(0..0),
            field,
            expected,
            s.map(|s| format!("{:?}", s.get_ref())),
        )
    }
}

/// A node's kind in words, for messages.
fn kind_word(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Host => "host",
        NodeKind::Router => "router",
        NodeKind::Mobile => "mobile",
    }
}
