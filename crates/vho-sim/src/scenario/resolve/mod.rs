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

mod handovers;
mod links;
mod mipv6;
mod tcp;

use links::MobileEnd;

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
        let mipv6 = self.mipv6(&file, &b, &handovers, &flows)?;
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
            mipv6,
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
        let (ab, ba) = self.link_dirs(
            &wired,
            "wired",
            Some(DEFAULT_WIRED_PRESET),
            (None, None),
            (MobileEnd::of(&b.nodes, 0, 1), ["ch", "ha"]),
        )?;
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
            let (down, up) = self.link_dirs(
                lt,
                &field,
                None,
                (lt.down.as_ref(), lt.up.as_ref()),
                (MobileEnd::of(&b.nodes, 1, 2), ["ha", "mh"]),
            )?;
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
        let span = file.mobile.as_ref().map_or(0..0, |m| m.span());
        let mobile = match file.mobile.as_ref().map(|m| m.get_ref()) {
            None => None,
            Some(Mobiles::One(m)) => Some(m),
            Some(Mobiles::Many(_)) => {
                return Err(self.err(
                    span,
                    "mobile",
                    "one [mobile] table in the common form (several mobiles need the general \
                     form: [[node]], [[link]] and [[mobile]])",
                    Some("[[mobile]] tables".into()),
                ));
            }
        };
        if let Some(m) = mobile {
            if m.node.is_some() || m.interfaces.is_some() {
                return Err(self.err(
                    span.clone(),
                    "mobile",
                    "only `start` in the common form (node and interfaces are implied)",
                    None,
                ));
            }
        }
        let initial = match mobile.and_then(|m| m.start.as_ref()) {
            Some(s) => b.link(self, s, "mobile.start")?,
            None if interfaces.len() == 1 => interfaces[0],
            None => {
                let names: Vec<&str> = interfaces
                    .iter()
                    .map(|&l| b.links[l].name.as_str())
                    .collect();
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
                jitter_mean: l.jitter_mean.clone(),
                jitter_sd: l.jitter_sd.clone(),
                mtu: l.mtu.clone(),
                down: None,
                up: None,
            };
            let (ab, ba) = self.link_dirs(
                &as_link,
                &field,
                None,
                (l.forward.as_ref(), l.reverse.as_ref()),
                (MobileEnd::of(&b.nodes, a, z), [&ends[0], &ends[1]]),
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
        let table = file.mobile.as_ref().map_or(0..0, |m| m.span());
        for mt in file.mobile.iter().flat_map(|m| m.get_ref().all()) {
            // The table's own keys say where it is; an empty one, where the section is.
            let m = Located(if mt.span() == (0..0) {
                table.clone()
            } else {
                mt.span()
            });

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
            if b.mobiles.iter().any(|x| x.node == node) {
                return Err(self.err(
                    m.span(),
                    "mobile.node",
                    "each mobile node in one [[mobile]] table",
                    Some(format!("{:?} twice", b.nodes[node].name)),
                ));
            }
            for &l in &interfaces {
                if b.mobiles.iter().any(|x| x.interfaces.contains(&l)) {
                    return Err(self.err(
                        m.span(),
                        "mobile.interfaces",
                        "links of no other mobile",
                        Some(format!("{:?} twice", b.links[l].name)),
                    ));
                }
            }
            b.mobiles.push(MobileSpec {
                node,
                interfaces,
                initial,
            });
        }
        Ok(())
    }

    // ---- handovers and flows ----

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
}

/// A span for errors about a table read without one of its own (`[[mobile]]`).
struct Located(Range<usize>);

impl Located {
    fn span(&self) -> Range<usize> {
        self.0.clone()
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
    jitter_mean: Option<Dur>,
    jitter_sd: Option<Dur>,
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
