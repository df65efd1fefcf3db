//! From the file as written (`schema`) to the resolved `Spec`: presets merged, units
//! converted, names turned into indices, every value checked with the line it came from.

use super::error::{line_of, ScenarioError};
use super::presets::PresetSet;
use super::schema::*;
use super::units;
use crate::remedy::Remedy;

/// `handover.notify_offset` when not given: how long before (or after) the instant a
/// `before` (`after`) notification comes. vho's choice: the sources give no figure (Chen et
/// al. raise it on a link-layer trigger, the thesis proposes it without timing).
pub const DEFAULT_NOTIFY_OFFSET_MS: u64 = 100;
use crate::spec::*;
use crate::tcp::config::{
    CcAlgorithm, CwndValidation, FastRetransmitTimer, RttSampling, SackRecovery, SpuriousDetection,
    SpuriousResponse, TimeoutSsthresh,
};
use crate::tcp::profile::{profile, PROFILES};
use crate::tcp::TcpConfig;
use crate::time::{Dur, Time};
use std::ops::Range;

/// Default of `run.stop`: long enough for a 20 MB transfer over 64 kb/s GPRS is not the
/// point; runs end when every flow completes. vho default.
const DEFAULT_STOP_S: u64 = 3600;
/// Packet size the `bdp` queue rule counts in, bytes (an Ethernet-sized IP packet).
const DEFAULT_MTU: u32 = 1500;
/// TCP profile of a flow that names none: a real stack's behaviour.
const DEFAULT_PROFILE: &str = "linux";
/// Default wired link of the common form.
const DEFAULT_WIRED_PRESET: &str = "lan-100m";

pub struct Ctx<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub presets: &'a PresetSet,
}

type R<T> = Result<T, ScenarioError>;

impl Ctx<'_> {
    pub fn err(
        &self,
        span: Range<usize>,
        field: &str,
        expected: impl Into<String>,
        found: Option<String>,
    ) -> ScenarioError {
        ScenarioError {
            file: self.file.to_string(),
            line: Some(line_of(self.text, span.start)),
            field: field.to_string(),
            expected: expected.into(),
            found,
        }
    }

    fn with<T>(&self, s: &S, field: &str, f: impl Fn(&str) -> Result<T, String>) -> R<T> {
        f(s.get_ref())
            .map_err(|exp| self.err(s.span(), field, exp, Some(format!("{:?}", s.get_ref()))))
    }

    pub fn resolve(&self, file: File) -> R<Spec> {
        let mut b = Builder::default();
        if let Some(nodes) = &file.node {
            self.general(&file, nodes, &mut b)?;
        } else {
            self.common(&file, &mut b)?;
        }
        let handovers = self.handovers(&file, &b)?;
        let flows = self.flows(&file, &b)?;
        let functions = self.functions(&file, &b)?;
        let mut pcap_at = Vec::new();
        for n in &file.record.pcap {
            pcap_at.push(b.node(self, n, "record.pcap")?);
        }
        let seed = match &file.run.seed {
            Some(s) if *s.get_ref() < 0 => {
                return Err(self.err(
                    s.span(),
                    "run.seed",
                    "a non-negative integer",
                    Some(s.get_ref().to_string()),
                ))
            }
            Some(s) => *s.get_ref() as u64,
            None => 1,
        };
        let stop_at = match &file.run.stop {
            Some(s) => Time(self.with(s, "run.stop", units::duration)?.as_nanos()),
            None => Time::from_secs(DEFAULT_STOP_S),
        };
        let mut spec = Spec {
            name: file
                .run
                .name
                .clone()
                .unwrap_or_else(|| self.file.to_string()),
            seed,
            stop_at,
            nodes: b.nodes,
            links: b.links,
            mobiles: b.mobiles,
            handovers,
            flows,
            functions,
            record: RecordSpec {
                pcap_at,
                series: file.record.series,
            },
        };
        crate::remedy::apply_all(&mut spec);
        Ok(spec)
    }

    // ---- topology ----

    fn common(&self, file: &File, b: &mut Builder) -> R<()> {
        if file.link.is_some() {
            return Err(self.err(
                0..0,
                "link",
                "[[link]] only together with [[node]] (the general form)",
                None,
            ));
        }
        let Some(access) = &file.access else {
            return Err(self.err(
                0..0,
                "access",
                "at least one [access.NAME] link (or the general form with [[node]])",
                Some(MISSING.into()),
            ));
        };
        for (name, kind) in [
            ("ch", NodeKind::Host),
            ("ha", NodeKind::Router),
            ("mh", NodeKind::Mobile),
        ] {
            b.nodes.push(NodeSpec {
                name: name.into(),
                kind,
            });
        }
        let wired = file.wired.clone().unwrap_or_default();
        let (ab, ba) = self.link_dirs(&wired, "wired", Some(DEFAULT_WIRED_PRESET), (None, None))?;
        b.links.push(LinkSpec {
            name: "wired".into(),
            preset: preset_name(&wired, DEFAULT_WIRED_PRESET),
            a: 0,
            b: 1,
            ab,
            ba,
        });
        let mut interfaces = Vec::new();
        for (name, l) in access {
            let field = format!("access.{name}");
            if name == "wired" {
                return Err(self.err(
                    l.span(),
                    &field,
                    "an access link name other than \"wired\"",
                    None,
                ));
            }
            let lt = l.get_ref();
            let (down, up) =
                self.link_dirs(lt, &field, None, (lt.down.as_ref(), lt.up.as_ref()))?;
            interfaces.push(b.links.len());
            b.links.push(LinkSpec {
                name: name.clone(),
                preset: lt.preset.as_ref().map(|p| p.get_ref().clone()),
                a: 1,
                b: 2,
                ab: down,
                ba: up,
            });
        }
        let mobile = file.mobile.as_ref();
        if let Some(m) = mobile {
            if m.get_ref().node.is_some() || m.get_ref().interfaces.is_some() {
                return Err(self.err(
                    m.span(),
                    "mobile",
                    "only `start` in the common form (node and interfaces are implied)",
                    None,
                ));
            }
        }
        let initial = match mobile.and_then(|m| m.get_ref().start.as_ref()) {
            Some(s) => b.link(self, s, "mobile.start")?,
            None if interfaces.len() == 1 => interfaces[0],
            None => {
                let names: Vec<&str> = interfaces
                    .iter()
                    .map(|&l| b.links[l].name.as_str())
                    .collect();
                let span = mobile.map_or(0..0, |m| m.span());
                return Err(self.err(
                    span,
                    "mobile.start",
                    format!(
                        "the access link in use at time zero, one of {}",
                        names.join(", ")
                    ),
                    Some(MISSING.into()),
                ));
            }
        };
        b.mobiles.push(MobileSpec {
            node: 2,
            interfaces,
            initial,
        });
        Ok(())
    }

    fn general(&self, file: &File, nodes: &[toml::Spanned<NodeT>], b: &mut Builder) -> R<()> {
        if file.access.is_some() || file.wired.is_some() {
            return Err(self.err(
                0..0,
                "access",
                "either [access.*]/[wired] or [[node]]/[[link]], not both",
                None,
            ));
        }
        for n in nodes {
            let n = n.get_ref();
            let kind = match n.kind.get_ref().as_str() {
                "host" => NodeKind::Host,
                "router" => NodeKind::Router,
                "mobile" => NodeKind::Mobile,
                other => {
                    return Err(self.err(
                        n.kind.span(),
                        "node.kind",
                        "one of host, router, mobile",
                        Some(format!("{other:?}")),
                    ))
                }
            };
            if !is_safe_name(n.name.get_ref()) {
                // Node names name output files (`<node>.pcap`): nothing that could leave the
                // output directory or hide in it.
                return Err(self.err(
                    n.name.span(),
                    "node.name",
                    "a name of letters, digits, '-', '_' and '.' (not first), at most 64",
                    Some(format!("{:?}", n.name.get_ref())),
                ));
            }
            if b.nodes.iter().any(|x| &x.name == n.name.get_ref()) {
                return Err(self.err(
                    n.name.span(),
                    "node.name",
                    "a name not used before",
                    Some(format!("{:?}", n.name.get_ref())),
                ));
            }
            b.nodes.push(NodeSpec {
                name: n.name.get_ref().clone(),
                kind,
            });
        }
        for l in file.link.iter().flatten() {
            let l = l.get_ref();
            let field = format!("link.{}", l.name.get_ref());
            let ends = l.between.get_ref();
            if ends.len() != 2 || ends[0] == ends[1] {
                return Err(self.err(
                    l.between.span(),
                    &format!("{field}.between"),
                    "two different node names",
                    Some(format!("{ends:?}")),
                ));
            }
            let find = |name: &str| b.nodes.iter().position(|n| n.name == name);
            let (Some(a), Some(z)) = (find(&ends[0]), find(&ends[1])) else {
                return Err(self.err(
                    l.between.span(),
                    &format!("{field}.between"),
                    format!("names of [[node]]s ({})", b.node_names()),
                    Some(format!("{ends:?}")),
                ));
            };
            let as_link = LinkT {
                preset: l.preset.clone(),
                rate: l.rate.clone(),
                delay: l.delay.clone(),
                queue: l.queue.clone(),
                queue_model: l.queue_model.clone(),
                red: l.red.clone(),
                loss: l.loss.clone(),
                loss_at: l.loss_at.clone(),
                drop_packets: l.drop_packets.clone(),
                mtu: l.mtu.clone(),
                down: None,
                up: None,
            };
            let (ab, ba) = self.link_dirs(
                &as_link,
                &field,
                None,
                (l.forward.as_ref(), l.reverse.as_ref()),
            )?;
            b.links.push(LinkSpec {
                name: l.name.get_ref().clone(),
                preset: l.preset.as_ref().map(|p| p.get_ref().clone()),
                a,
                b: z,
                ab,
                ba,
            });
        }
        if let Some(m) = &file.mobile {
            let mt = m.get_ref();
            let node = match &mt.node {
                Some(n) => b.node(self, n, "mobile.node")?,
                None => {
                    return Err(self.err(m.span(), "mobile.node", "the mobile node's name", None))
                }
            };
            let mut interfaces = Vec::new();
            for i in mt.interfaces.iter().flatten() {
                let l = b.link(self, i, "mobile.interfaces")?;
                if b.links[l].a != node && b.links[l].b != node {
                    return Err(self.err(
                        i.span(),
                        "mobile.interfaces",
                        "a link with the mobile node at one end",
                        Some(format!("{:?}", i.get_ref())),
                    ));
                }
                interfaces.push(l);
            }
            let initial = match &mt.start {
                Some(s) => b.link(self, s, "mobile.start")?,
                None => *interfaces.first().ok_or_else(|| {
                    self.err(
                        m.span(),
                        "mobile.interfaces",
                        "at least one access link",
                        None,
                    )
                })?,
            };
            b.mobiles.push(MobileSpec {
                node,
                interfaces,
                initial,
            });
        }
        Ok(())
    }

    /// Both directions of a link: preset, then the link's own fields, then per direction.
    fn link_dirs(
        &self,
        l: &LinkT,
        field: &str,
        default_preset: Option<&str>,
        dirs: (Option<&DirT>, Option<&DirT>),
    ) -> R<(DirSpec, DirSpec)> {
        let mtu = match &l.mtu {
            Some(m) if *m.get_ref() < 68 || *m.get_ref() > 65_535 => {
                return Err(self.err(
                    m.span(),
                    &format!("{field}.mtu"),
                    "a packet size in bytes from 68 to 65535",
                    Some(m.get_ref().to_string()),
                ))
            }
            Some(m) => *m.get_ref() as u32,
            None => DEFAULT_MTU,
        };
        let mut base = PartialDir::default();
        let preset = l
            .preset
            .as_ref()
            .map(|p| (p.get_ref().as_str(), p.span()))
            .or(default_preset.map(|p| (p, 0..0)));
        if let Some((name, span)) = preset {
            let p = self.presets.get(name).ok_or_else(|| {
                self.err(
                    span.clone(),
                    &format!("{field}.preset"),
                    format!("one of {}", self.presets.names().join(", ")),
                    Some(format!("{name:?}")),
                )
            })?;
            let at = |e: String| self.err(span.clone(), &format!("{field}.preset"), e, None);
            base.rate = Some(units::rate_bps(&p.rate).map_err(at)?);
            base.delay = Some(units::duration(&p.delay).map_err(at)?);
            base.queue = Some(parse_queue(&p.queue, mtu).map_err(at)?);
            if let Some(m) = &p.queue_model {
                base.queue_model = Some(parse_queue_model(m).map_err(at)?);
            }
            base.loss = Some(p.loss);
        }
        let own = DirT {
            rate: l.rate.clone(),
            delay: l.delay.clone(),
            queue: l.queue.clone(),
            queue_model: l.queue_model.clone(),
            red: l.red.clone(),
            loss: l.loss.clone(),
            loss_at: l.loss_at.clone(),
            drop_packets: l.drop_packets.clone(),
        };
        self.apply(&mut base, &own, field, mtu)?;
        let mut out = [base.clone(), base];
        for (k, d) in [dirs.0, dirs.1].into_iter().enumerate() {
            if let Some(d) = d {
                self.apply(&mut out[k], d, field, mtu)?;
            }
        }
        let [a, b] = out;
        Ok((
            self.finish_dir(a, field, mtu)?,
            self.finish_dir(b, field, mtu)?,
        ))
    }

    fn apply(&self, p: &mut PartialDir, d: &DirT, field: &str, mtu: u32) -> R<()> {
        if let Some(r) = &d.rate {
            p.rate = Some(self.with(r, &format!("{field}.rate"), units::rate_bps)?);
        }
        if let Some(t) = &d.delay {
            p.delay = Some(self.with(t, &format!("{field}.delay"), units::duration)?);
        }
        if let Some(q) = &d.queue {
            p.queue = Some(self.with(q, &format!("{field}.queue"), |s| parse_queue(s, mtu))?);
        }
        if let Some(m) = &d.queue_model {
            p.queue_model =
                Some(self.with(m, &format!("{field}.queue_model"), parse_queue_model)?);
        }
        if let Some(r) = &d.red {
            self.red_overrides(&mut p.red, r, field)?;
        }
        if let Some(l) = &d.loss {
            let v = *l.get_ref();
            if !(0.0..=1.0).contains(&v) {
                return Err(self.err(
                    l.span(),
                    &format!("{field}.loss"),
                    "a probability from 0 to 1",
                    Some(v.to_string()),
                ));
            }
            p.loss = Some(v);
        }
        if let Some(list) = &d.drop_packets {
            let v = list.get_ref();
            let field = format!("{field}.drop_packets");
            let bad = |what: &str| self.err(list.span(), &field, what, Some(format!("{v:?}")));
            if v.iter().any(|&i| i < 0) {
                return Err(bad("packet indices from 0 up"));
            }
            if v.windows(2).any(|w| w[0] >= w[1]) {
                return Err(bad("packet indices in increasing order, each once"));
            }
            p.drop_packets = Some(v.iter().map(|&i| i as u64).collect());
        }
        if let Some(a) = &d.loss_at {
            p.loss_at = Some(self.with(a, &format!("{field}.loss_at"), parse_loss_at)?);
        }
        Ok(())
    }

    /// `red = { ... }`: each key given replaces the one before (preset, link, direction).
    fn red_overrides(&self, red: &mut RedSpec, r: &toml::Spanned<RedT>, field: &str) -> R<()> {
        let t = r.get_ref();
        let bad = |key: &str, what: &str, v: f64| {
            self.err(
                r.span(),
                &format!("{field}.red.{key}"),
                what,
                Some(v.to_string()),
            )
        };
        let positive = |key: &str, v: Option<f64>| match v {
            Some(x) if !(x > 0.0 && x.is_finite()) => Err(bad(key, "a positive number", x)),
            _ => Ok(v),
        };
        let fraction = |key: &str, v: Option<f64>| match v {
            Some(x) if !(x > 0.0 && x <= 1.0) => Err(bad(key, "a number in (0, 1]", x)),
            _ => Ok(v),
        };
        red.min_thresh = positive("min_thresh", t.min_thresh)?.or(red.min_thresh);
        red.max_thresh = positive("max_thresh", t.max_thresh)?.or(red.max_thresh);
        red.max_p = fraction("max_p", t.max_p)?.or(red.max_p);
        red.q_weight = fraction("q_weight", t.q_weight)?.or(red.q_weight);
        red.gentle = t.gentle.or(red.gentle);
        if let (Some(lo), Some(hi)) = (red.min_thresh, red.max_thresh) {
            if hi <= lo {
                return Err(bad(
                    "max_thresh",
                    &format!("a threshold above min_thresh ({lo} packets)"),
                    hi,
                ));
            }
        }
        Ok(())
    }

    fn finish_dir(&self, p: PartialDir, field: &str, mtu: u32) -> R<DirSpec> {
        let missing = |what: &str| {
            self.err(
                0..0,
                &format!("{field}.{what}"),
                "a value (or a preset that gives one)",
                Some(MISSING.into()),
            )
        };
        Ok(DirSpec {
            rate_bps: p.rate.ok_or_else(|| missing("rate"))?,
            delay: p.delay.ok_or_else(|| missing("delay"))?,
            queue: p.queue.unwrap_or(QueueLimit::Bdp { mtu_bytes: mtu }),
            queue_model: p.queue_model.unwrap_or_default(),
            red: p.red,
            loss: match (p.loss, p.drop_packets) {
                (Some(x), Some(_)) if x > 0.0 => {
                    return Err(self.err(
                        0..0,
                        &format!("{field}.drop_packets"),
                        "either a loss rate or a drop list, not both",
                        None,
                    ))
                }
                (_, Some(list)) => LossSpec::List(list.into()),
                (Some(x), None) if x > 0.0 => LossSpec::Bernoulli { p: x },
                _ => LossSpec::None,
            },
            loss_at: p.loss_at.unwrap_or_default(),
        })
    }

    // ---- handovers and flows ----

    fn handovers(&self, file: &File, b: &Builder) -> R<Vec<HandoverSpec>> {
        let mut out = Vec::new();
        if !file.handover.is_empty() && b.mobiles.is_empty() {
            return Err(self.err(
                file.handover[0].span(),
                "handover",
                "a [mobile] host to hand over",
                None,
            ));
        }
        let mut order: Vec<(Dur, usize)> = Vec::new();
        for (i, h) in file.handover.iter().enumerate() {
            let ht = h.get_ref();
            let at = self.with(&ht.at, "handover.at", units::duration)?;
            order.push((at, i));
            let from = b.link(self, &ht.from, "handover.from")?;
            let to = b.link(self, &ht.to, "handover.to")?;
            let m = &b.mobiles[0];
            for (l, s, f) in [
                (from, &ht.from, "handover.from"),
                (to, &ht.to, "handover.to"),
            ] {
                if !m.interfaces.contains(&l) {
                    return Err(self.err(
                        s.span(),
                        f,
                        "an access link of the mobile host",
                        Some(format!("{:?}", s.get_ref())),
                    ));
                }
            }
            if from == to {
                return Err(self.err(
                    ht.to.span(),
                    "handover.to",
                    "a link other than `from`",
                    Some(format!("{:?}", ht.to.get_ref())),
                ));
            }
            let kind_name = ht.kind.as_ref().map_or("soft", |k| k.get_ref().as_str());
            let kind = match kind_name {
                "soft" => HandoverKind::SoftDrainOld,
                "soft-reconfigure" => HandoverKind::SoftReconfigure { shrink: false },
                "soft-shrink" => HandoverKind::SoftReconfigure { shrink: true },
                "hard" => HandoverKind::Hard {
                    loss_fraction: ht.loss.as_ref().map_or(1.0, |l| *l.get_ref()),
                },
                other => {
                    let span = ht.kind.as_ref().map_or(h.span(), |k| k.span());
                    return Err(self.err(
                        span,
                        "handover.kind",
                        "one of soft, soft-reconfigure, soft-shrink, hard",
                        Some(format!("{other:?}")),
                    ));
                }
            };
            if let Some(l) = &ht.loss {
                if kind_name != "hard" {
                    return Err(self.err(
                        l.span(),
                        "handover.loss",
                        "no `loss` except with kind = \"hard\"",
                        Some(l.get_ref().to_string()),
                    ));
                }
                if !(0.0..=1.0).contains(l.get_ref()) {
                    return Err(self.err(
                        l.span(),
                        "handover.loss",
                        "a fraction from 0 to 1",
                        Some(l.get_ref().to_string()),
                    ));
                }
            }
            let window = match &ht.window {
                Some(w) => self.with(w, "handover.window", units::duration)?,
                None => Dur::ZERO,
            };
            let delay = match &ht.delay {
                Some(d) => self.with(d, "handover.delay", units::duration)?,
                None => Dur::ZERO,
            };
            let flush = match &ht.flush {
                None => Flush::Off,
                Some(v) => {
                    let flush = match v.get_ref().as_str() {
                        "off" => Flush::Off,
                        "move" => Flush::Move,
                        "discard" => Flush::Discard,
                        other => {
                            return Err(self.err(
                                v.span(),
                                "handover.flush",
                                "one of off, move, discard",
                                Some(format!("{other:?}")),
                            ))
                        }
                    };
                    if flush != Flush::Off && kind != HandoverKind::SoftDrainOld {
                        return Err(self.err(
                            v.span(),
                            "handover.flush",
                            "no `flush` except with kind = \"soft\" (the other kinds decide \
                             the old queue themselves)",
                            Some(format!("{:?}", v.get_ref())),
                        ));
                    }
                    flush
                }
            };
            let offset = match &ht.notify_offset {
                Some(o) => self.with(o, "handover.notify_offset", units::duration)?,
                None => Dur::from_millis(DEFAULT_NOTIFY_OFFSET_MS),
            };
            let notify = match ht.notify.as_ref().map(|n| (n, n.get_ref().as_str())) {
                None | Some((_, "none")) => None,
                Some((_, "at")) => Some(0),
                Some((_, "before")) => Some(-(offset.as_nanos() as i64)),
                Some((_, "after")) => Some(offset.as_nanos() as i64),
                Some((n, other)) => {
                    return Err(self.err(
                        n.span(),
                        "handover.notify",
                        "one of none, before, at, after",
                        Some(format!("{other:?}")),
                    ))
                }
            };
            let uplink_delay = match &ht.uplink_delay {
                None => Dur::ZERO,
                Some(v) => {
                    let d = self.with(v, "handover.uplink_delay", units::duration)?;
                    if d > Dur::ZERO && kind != HandoverKind::SoftDrainOld {
                        return Err(self.err(
                            v.span(),
                            "handover.uplink_delay",
                            "no `uplink_delay` except with kind = \"soft\" (only a soft \
                             handover keeps the old link)",
                            Some(format!("{:?}", v.get_ref())),
                        ));
                    }
                    d
                }
            };
            out.push(HandoverSpec {
                mobile: 0,
                from,
                to,
                at: Time(at.as_nanos()),
                window,
                kind,
                delay,
                flush,
                notify,
                uplink_delay,
            });
        }
        // Each handover must leave the link the previous one moved to, whatever instants the
        // windows draw: a window must close before the next handover's `at`.
        order.sort();
        let mut active = b.mobiles.first().map(|m| m.initial);
        let mut window_end: Option<Time> = None;
        for (_, i) in order {
            let h = &out[i];
            if let Some(end) = window_end.filter(|&e| h.at < e) {
                let s = &file.handover[i].get_ref().at;
                return Err(self.err(
                    s.span(),
                    "handover.at",
                    format!(
                        "a time at or after {} s, where the previous handover's window ends \
                         (windows may not overlap)",
                        end.as_secs_f64()
                    ),
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            window_end = Some(h.at + h.window);
            if Some(h.from) != active {
                let s = &file.handover[i].get_ref().from;
                let expected = active.map_or("-".to_string(), |l| {
                    format!("{:?} (the link in use then)", b.links[l].name)
                });
                return Err(self.err(
                    s.span(),
                    "handover.from",
                    expected,
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            active = Some(h.to);
        }
        Ok(out)
    }

    fn flows(&self, file: &File, b: &Builder) -> R<Vec<FlowSpec>> {
        if file.flow.is_empty() {
            return Err(self.err(0..0, "flow", "at least one [[flow]]", None));
        }
        let mut out = Vec::new();
        for (i, f) in file.flow.iter().enumerate() {
            let ft = f.get_ref();
            let src = b.node(self, &ft.from, "flow.from")?;
            let dst = b.node(self, &ft.to, "flow.to")?;
            if src == dst {
                return Err(self.err(
                    ft.to.span(),
                    "flow.to",
                    "a node other than `from`",
                    Some(format!("{:?}", ft.to.get_ref())),
                ));
            }
            for (n, s) in [(src, &ft.from), (dst, &ft.to)] {
                if b.nodes[n].kind == NodeKind::Router {
                    return Err(self.err(
                        s.span(),
                        "flow",
                        "end hosts (a router has no TCP)",
                        Some(format!("{:?}", s.get_ref())),
                    ));
                }
            }
            let bytes = self.with(&ft.size, "flow.size", units::size_bytes)?;
            let start = match &ft.start {
                Some(s) => Time(self.with(s, "flow.start", units::duration)?.as_nanos()),
                None => Time::ZERO,
            };
            let tcp = self.tcp(ft.tcp.as_ref())?;
            let mut remedies = Vec::new();
            for r in ft.remedies.iter().flatten() {
                let remedy = Remedy::from_name(r.get_ref()).ok_or_else(|| {
                    let names: Vec<&str> = Remedy::ALL.iter().map(|r| r.name()).collect();
                    self.err(
                        r.span(),
                        "flow.remedies",
                        format!("remedies among {}", names.join(", ")),
                        Some(format!("{:?}", r.get_ref())),
                    )
                })?;
                if !remedies.contains(&remedy) {
                    remedies.push(remedy);
                }
            }
            let name = ft.name.clone().unwrap_or_else(|| format!("flow{i}"));
            out.push(FlowSpec {
                name,
                src,
                dst,
                bytes,
                start,
                tcp,
                remedies,
            });
        }
        Ok(out)
    }

    fn functions(&self, file: &File, b: &Builder) -> R<Vec<FunctionSpec>> {
        let mut out = Vec::new();
        for f in &file.node_function {
            let ft = f.get_ref();
            let node = b.node(self, &ft.node, "node_function.node")?;
            let kind = FunctionKind::from_name(ft.kind.get_ref()).ok_or_else(|| {
                let names: Vec<&str> = FunctionKind::ALL.iter().map(|k| k.name()).collect();
                self.err(
                    ft.kind.span(),
                    "node_function.kind",
                    format!("one of {}", names.join(", ")),
                    Some(format!("{:?}", ft.kind.get_ref())),
                )
            })?;
            let fs = FunctionSpec { node, kind };
            if out.contains(&fs) {
                return Err(self.err(
                    f.span(),
                    "node_function",
                    "each kind at most once per node",
                    Some(format!("{} twice at {:?}", kind.name(), ft.node.get_ref())),
                ));
            }
            out.push(fs);
        }
        Ok(out)
    }

    fn tcp(&self, v: Option<&toml::Spanned<toml::Value>>) -> R<TcpConfig> {
        let Some(v) = v else {
            return Ok(profile(DEFAULT_PROFILE).expect("invariant: the default profile exists"));
        };
        let span = v.span();
        let bad_profile = |name: &str| {
            self.err(
                span.clone(),
                "flow.tcp",
                format!("a profile: one of {}", PROFILES.join(", ")),
                Some(format!("{name:?}")),
            )
        };
        match v.get_ref() {
            toml::Value::String(name) => profile(name).ok_or_else(|| bad_profile(name)),
            toml::Value::Table(t) => {
                let name = match t.get("profile") {
                    Some(toml::Value::String(s)) => s.as_str(),
                    Some(other) => {
                        return Err(self.err(
                            span,
                            "flow.tcp.profile",
                            "a profile name",
                            Some(other.to_string()),
                        ))
                    }
                    None => DEFAULT_PROFILE,
                };
                let mut c = profile(name).ok_or_else(|| bad_profile(name))?;
                for (k, val) in t {
                    if k != "profile" {
                        self.tcp_field(&mut c, k, val).map_err(|exp| {
                            self.err(
                                span.clone(),
                                &format!("flow.tcp.{k}"),
                                exp,
                                Some(val.to_string()),
                            )
                        })?;
                    }
                }
                if c.rto.max < c.rto.min {
                    return Err(self.err(
                        span,
                        "flow.tcp.max_rto",
                        format!("at least min_rto ({})", c.rto.min),
                        Some(c.rto.max.to_string()),
                    ));
                }
                Ok(c)
            }
            other => Err(self.err(
                span,
                "flow.tcp",
                "a profile name or a table",
                Some(other.to_string()),
            )),
        }
    }

    fn tcp_field(&self, c: &mut TcpConfig, key: &str, v: &toml::Value) -> Result<(), String> {
        let time = || {
            v.as_str()
                .ok_or("a time such as \"200 ms\"".to_string())
                .and_then(units::duration)
        };
        let int = |lo: i64, hi: i64| {
            v.as_integer()
                .filter(|x| (lo..=hi).contains(x))
                .map(|x| x as u32)
                .ok_or(format!("an integer from {lo} to {hi}"))
        };
        // A timer that short cannot let a run advance (an RTO of 0 fires at the instant it is
        // set, for ever). 1 ms: Linux's smallest `rto_min` route metric and its jiffy at HZ
        // 1000 (RFC 6298 (2.4) itself asks for 1 s).
        let rto = || {
            time().and_then(|t| {
                if t < MIN_RTO_SETTING {
                    Err("a time of at least 1 ms".to_string())
                } else {
                    Ok(t)
                }
            })
        };
        let flag = || v.as_bool().ok_or_else(|| "true or false".to_string());
        let size = || {
            v.as_str()
                .ok_or("a size such as \"64 KiB\"".to_string())
                .and_then(units::size_bytes)
        };
        match key {
            "mss" => {
                let mss = int(64, 65_495)?;
                // ns-2 counts window_ and ssthresh_ in packets (ns-default.tcl:934, tcp.cc:473):
                // a different packetSize_ scales them. (Keys apply in name order, so an explicit
                // send_window, which sorts after mss, still wins.)
                if c.profile == "ns2" {
                    c.send_window_cap = c.send_window_cap / c.mss * mss;
                    c.initial_ssthresh = c.initial_ssthresh / c.mss * mss;
                }
                c.mss = mss;
            }
            "initial_window" => c.initial_window_segments = int(1, 1000)?,
            "dupthresh" => c.dupthresh = int(1, 1000)?,
            "limited_transmit" => c.limited_transmit = flag()?,
            "sack_is_lost_trigger" => c.sack_is_lost_trigger = flag()?,
            "dupacks_after_timeout_new_ack" => c.dupacks_after_timeout_new_ack = flag()?,
            "sack_forget_on_new_ack" => c.sack_forget_on_new_ack = flag()?,
            "receive_window" => c.receive_window = size()?.min(1 << 30) as u32,
            "send_window" => {
                let w = match v.as_str().and_then(units::packets) {
                    Some(p) => p? as u64 * c.mss as u64,
                    None => size()?,
                };
                c.send_window_cap = w.min(u32::MAX as u64) as u32;
                // ns-2 sets ssthresh_ = window_ at reset (tcp.cc:473).
                if c.profile == "ns2" {
                    c.initial_ssthresh = c.send_window_cap;
                }
            }
            "min_rto" => c.rto.min = rto()?,
            "initial_rto" => c.rto.initial = rto()?,
            "max_rto" => c.rto.max = rto()?,
            "granularity" => c.rto.granularity = time()?,
            "sack" => c.sack = flag()?,
            "dsack" => c.dsack = flag()?,
            "timestamps" => c.timestamps = flag()?,
            "handshake" => c.handshake = flag()?,
            "one_way_syn" => c.one_way_syn = flag()?,
            "fin" => c.fin = flag()?,
            "delayed_ack" => c.delack.enabled = flag()?,
            "delayed_ack_timeout" => c.delack.timeout = time()?,
            "sack_recovery" => {
                c.sack_recovery = match v.as_str() {
                    Some("rfc6675") => SackRecovery::Rfc6675,
                    Some("ns2-sack1") => SackRecovery::Ns2Sack1,
                    _ => return Err("one of rfc6675, ns2-sack1".into()),
                }
            }
            "timer_at_fast_retransmit" => {
                c.timer_at_fast_retransmit = match v.as_str() {
                    Some("keep") => FastRetransmitTimer::Keep,
                    Some("restart") => FastRetransmitTimer::Restart,
                    Some("ns2-reset") => FastRetransmitTimer::Ns2Reset,
                    _ => return Err("one of keep, restart, ns2-reset".into()),
                }
            }
            "timeout_ssthresh" => {
                c.timeout_ssthresh = match v.as_str() {
                    Some("rfc5681") => TimeoutSsthresh::Rfc5681,
                    Some("linux") => TimeoutSsthresh::Linux,
                    Some("always") => TimeoutSsthresh::Always,
                    _ => return Err("one of rfc5681, linux, always".into()),
                }
            }
            "cwnd_validation" => {
                c.cwnd_validation = match v.as_str() {
                    Some("off") => CwndValidation::Off,
                    Some("cwnd-limited") => CwndValidation::CwndLimited,
                    _ => return Err("one of off, cwnd-limited".into()),
                }
            }
            "rto_keeps_sack" => c.rto_keeps_sack = flag()?,
            "rto_reset" => c.rto_reset = flag()?,
            "new_path" => c.new_path = flag()?,
            "fast_rto_decrease" => c.fast_rto_decrease = flag()?,
            "rtt_injection" => c.rtt_injection = flag()?,
            "adaptive_dupthresh" => c.adaptive_dupthresh = flag()?,
            "oracle" => c.oracle = flag()?,
            "spurious_detection" => {
                let expected = || "a list of frto, eifel, dsack (empty: none)".to_string();
                let mut d = SpuriousDetection::default();
                for name in v.as_array().ok_or_else(expected)? {
                    match name.as_str() {
                        Some("frto") => d.frto = true,
                        Some("eifel") => d.eifel = true,
                        Some("dsack") => d.dsack = true,
                        _ => return Err(expected()),
                    }
                }
                c.spurious_detection = d;
            }
            "spurious_response" => {
                c.spurious_response = match v.as_str() {
                    Some("conservative") => SpuriousResponse::Conservative,
                    Some("eifel") => SpuriousResponse::Eifel,
                    Some("undo") => SpuriousResponse::Undo,
                    Some("no-restore") => SpuriousResponse::NoRestore,
                    _ => return Err("one of conservative, eifel, undo, no-restore".into()),
                }
            }
            "rescue_retransmission" => c.rescue_retransmission = flag()?,
            "handshake_rtt_sample" => c.handshake_rtt_sample = flag()?,
            "timeout_holds_new_data" => c.timeout_holds_new_data = flag()?,
            "rtt_sampling" => {
                c.rtt_sampling = match v.as_str() {
                    Some("one-per-rtt") => RttSampling::OnePerRtt,
                    Some("every-freed-segment") => RttSampling::EveryFreedSegment,
                    _ => return Err("one of one-per-rtt, every-freed-segment".into()),
                }
            }
            "cc" => {
                c.cc = match v.as_str() {
                    Some("reno") => CcAlgorithm::Reno,
                    Some("newreno") => CcAlgorithm::NewReno,
                    Some("ns2-sack1") => CcAlgorithm::Ns2Sack1,
                    _ => return Err("one of reno, newreno, ns2-sack1".into()),
                }
            }
            _ => {
                return Err("a known TCP setting: profile, mss, initial_window, dupthresh, limited_transmit, sack_is_lost_trigger, dupacks_after_timeout_new_ack, sack_forget_on_new_ack, sack_recovery, dsack, timer_at_fast_retransmit, timeout_ssthresh, rto_keeps_sack, spurious_detection, spurious_response, rto_reset, new_path, fast_rto_decrease, rtt_injection, adaptive_dupthresh, oracle, rescue_retransmission, cwnd_validation, handshake_rtt_sample, rtt_sampling, timeout_holds_new_data, receive_window, send_window, min_rto, initial_rto, max_rto, granularity, sack, timestamps, handshake, one_way_syn, fin, delayed_ack, delayed_ack_timeout, cc".into())
            }
        }
        Ok(())
    }
}

/// A name that is safe as a file name in an output directory: letters, digits, `-`, `_`
/// and `.` (not first), at most 64 characters.
fn is_safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// What a missing required key "got".
const MISSING: &str = "nothing: the key is missing";

/// The smallest RTO bound a scenario may set (see `tcp_field`).
const MIN_RTO_SETTING: Dur = Dur::from_millis(1);

fn preset_name(l: &LinkT, default: &str) -> Option<String> {
    Some(
        l.preset
            .as_ref()
            .map_or(default.to_string(), |p| p.get_ref().clone()),
    )
}

fn parse_queue(s: &str, mtu: u32) -> Result<QueueLimit, String> {
    if s.trim() == "bdp" {
        return Ok(QueueLimit::Bdp { mtu_bytes: mtu });
    }
    if let Some(p) = units::packets(s) {
        return p.map(QueueLimit::Packets);
    }
    units::size_bytes(s).map(QueueLimit::Bytes).map_err(|_| {
        "a queue limit: \"bdp\", packets such as \"20 pkt\", or bytes such as \"30 KB\"".into()
    })
}

fn parse_queue_model(s: &str) -> Result<QueueModel, String> {
    match s.trim() {
        "droptail" => Ok(QueueModel::DropTail),
        "ns2-droptail" => Ok(QueueModel::Ns2DropTail),
        "ns2-droptail-delayer" => Ok(QueueModel::Ns2DropTailDelayer),
        "red" => Ok(QueueModel::Red),
        _ => Err(
            "a queue model: \"droptail\", \"ns2-droptail\", \"ns2-droptail-delayer\" \
                  or \"red\""
                .into(),
        ),
    }
}

fn parse_loss_at(s: &str) -> Result<LossAt, String> {
    match s {
        "air" => Ok(LossAt::Air),
        "entry" => Ok(LossAt::Entry),
        _ => Err("where the loss model takes packets: \"air\" or \"entry\"".into()),
    }
}

#[derive(Clone, Default)]
struct PartialDir {
    rate: Option<u64>,
    delay: Option<Dur>,
    queue: Option<QueueLimit>,
    queue_model: Option<QueueModel>,
    red: RedSpec,
    loss: Option<f64>,
    loss_at: Option<LossAt>,
    drop_packets: Option<Vec<u64>>,
}

#[derive(Default)]
struct Builder {
    nodes: Vec<NodeSpec>,
    links: Vec<LinkSpec>,
    mobiles: Vec<MobileSpec>,
}

impl Builder {
    fn node_names(&self) -> String {
        self.nodes
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn node(&self, cx: &Ctx, s: &S, field: &str) -> R<NodeIdx> {
        self.nodes
            .iter()
            .position(|n| &n.name == s.get_ref())
            .ok_or_else(|| {
                cx.err(
                    s.span(),
                    field,
                    format!("a node: one of {}", self.node_names()),
                    Some(format!("{:?}", s.get_ref())),
                )
            })
    }
    fn link(&self, cx: &Ctx, s: &S, field: &str) -> R<LinkIdx> {
        let names = self
            .links
            .iter()
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        self.links
            .iter()
            .position(|l| &l.name == s.get_ref())
            .ok_or_else(|| {
                cx.err(
                    s.span(),
                    field,
                    format!("a link: one of {names}"),
                    Some(format!("{:?}", s.get_ref())),
                )
            })
    }
}
