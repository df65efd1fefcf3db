//! From the file as written (`schema`) to the resolved `Spec`: presets merged, units
//! converted, names turned into indices, every value checked with the line it came from.

use super::error::{line_of, ScenarioError};
use super::presets::PresetSet;
use super::schema::*;
use super::units;
use crate::remedy::Remedy;

pub use crate::remedy::notice::DEFAULT_NOTIFY_OFFSET_MS;
use crate::spec::*;
use crate::tcp::config::{
    CcAlgorithm, CwndCounting, CwndValidation, FastRetransmitTimer, FrtoVariant, LossDetection,
    RttSampling, SackRecovery, SpuriousDetection, SpuriousResponse, TimeoutSsthresh, UndoRules,
};
use crate::tcp::profile::{profile, PROFILES};
use crate::tcp::TcpConfig;
use crate::time::{Dur, Time};
use std::ops::Range;

mod cbr;
mod handovers;
mod link_layer;
mod links;
mod mipv6;
mod mptcp;
mod nemo;
mod pareto;
mod schedules;
pub use schedules::MAX_TRACE_FILE_BYTES;
mod tcp;
mod tfrc;
mod topology;

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
        let schedules = self.schedules(&file, &b)?;
        let flows = self.flows(&file, &b)?;
        let functions = self.functions(&file, &b)?;
        let mipv6 = self.mipv6(&file, &b, &handovers, &flows)?;
        let nemo = self.nemo(&file, &b, mipv6.as_ref())?;
        if mipv6.is_some() || nemo.is_some() {
            // A multipath host has an address per interface (`World::multihome`), not a home
            // address and a care-of address.
            let mptcp = file.flow.iter().find(|f| {
                f.get_ref()
                    .kind
                    .as_ref()
                    .is_some_and(|k| k.get_ref() == "mptcp")
            });
            if let Some(f) = mptcp {
                let span = f.get_ref().kind.as_ref().map_or(0..0, |k| k.span());
                return Err(self.err(
                    span,
                    "flow.kind",
                    "a kind other than \"mptcp\" in a run with [mipv6] or [nemo] (a multipath \
                     host has an address per interface, not a care-of address)",
                    Some("\"mptcp\"".into()),
                ));
            }
        }
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
            schedules,
            flows,
            functions,
            mipv6,
            nemo,
            record: RecordSpec {
                pcap_at,
                series: file.record.series,
                goodput_window: self.goodput_window(&file.record)?,
                queues: file.record.queues.unwrap_or(true),
                pcap_cross: file.record.pcap_cross,
                snaplen: self.snaplen(&file.record)?,
            },
        };
        crate::remedy::apply_all(&mut spec);
        Ok(spec)
    }

    // ---- handovers and flows ----

    /// `[record] goodput_from` and `goodput_until`: both or neither, the second after the first.
    /// `record.snaplen`: from `MIN_SNAPLEN` (every header vho writes) to tcpdump's largest.
    fn snaplen(&self, r: &crate::scenario::schema::RecordT) -> R<u32> {
        use crate::record::pcap::{MAX_SNAPLEN, MIN_SNAPLEN, SNAPLEN};
        match &r.snaplen {
            None => Ok(SNAPLEN),
            Some(v) if (MIN_SNAPLEN as i64..=MAX_SNAPLEN as i64).contains(v.get_ref()) => {
                Ok(*v.get_ref() as u32)
            }
            Some(v) => Err(self.err(
                v.span(),
                "record.snaplen",
                format!(
                    "an integer from {MIN_SNAPLEN} to {MAX_SNAPLEN} (bytes kept of each packet)"
                ),
                Some(v.get_ref().to_string()),
            )),
        }
    }

    fn goodput_window(
        &self,
        r: &crate::scenario::schema::RecordT,
    ) -> R<Option<(crate::time::Time, crate::time::Time)>> {
        let t = |s: &S, field: &str| {
            self.with(s, field, units::duration)
                .map(|d| crate::time::Time(d.as_nanos()))
        };
        match (&r.goodput_from, &r.goodput_until) {
            (None, None) => Ok(None),
            (Some(a), Some(b)) => {
                let (from, until) = (t(a, "record.goodput_from")?, t(b, "record.goodput_until")?);
                if until <= from {
                    return Err(self.err(
                        b.span(),
                        "record.goodput_until",
                        "a time after record.goodput_from",
                        Some(format!("{:?}", b.get_ref())),
                    ));
                }
                Ok(Some((from, until)))
            }
            (Some(s), None) | (None, Some(s)) => Err(self.err(
                s.span(),
                "record.goodput_from",
                "both goodput_from and goodput_until (the window), or neither",
                None,
            )),
        }
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
            let mut kind = self.flow_kind(ft)?;
            if let FlowKind::Mptcp(cfg) = &mut kind {
                self.mptcp_paths(ft, b, src, dst, cfg)?;
            }
            let bytes = match (&ft.size, kind) {
                (Some(s), _) => self.with(s, "flow.size", units::size_bytes)?,
                // A TFRC flow without a size is a bulk source: it sends until the run stops.
                (None, FlowKind::Tfrc(_) | FlowKind::Pareto(_) | FlowKind::Cbr(_)) => u64::MAX,
                (None, FlowKind::Tcp | FlowKind::Mptcp(_)) => {
                    return Err(self.err(
                        f.span(),
                        "flow.size",
                        "a size for a TCP or MPTCP flow (required)",
                        None,
                    ))
                }
            };
            let start = match &ft.start {
                Some(s) => Time(self.with(s, "flow.start", units::duration)?.as_nanos()),
                None => Time::ZERO,
            };
            let tcp = self.tcp(ft.tcp.as_ref())?;
            if let FlowKind::Mptcp(c) = &kind {
                // RFC 6356 §3 and OLIA couple Reno's increase; over CUBIC they are undefined.
                let reno = matches!(tcp.cc, CcAlgorithm::Reno | CcAlgorithm::NewReno);
                if c.coupling != crate::traffic::mptcp::Coupling::Uncoupled && !reno {
                    return Err(self.err(
                        ft.tcp.as_ref().map_or(f.span(), |t| t.span()),
                        "flow.tcp.cc",
                        "reno or newreno with flow.mptcp.congestion_control = \"lia\" or \
                         \"olia\" (both couple Reno's increase)",
                        Some(format!("{:?}", tcp.cc)),
                    ));
                }
            }
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
            let probe = self.probe(ft)?;
            let name = ft.name.clone().unwrap_or_else(|| format!("flow{i}"));
            let count = match &ft.count {
                None => None,
                Some(c) if (1..=MAX_FLOW_COUNT as i64).contains(c.get_ref()) => {
                    Some(*c.get_ref() as usize)
                }
                Some(c) => {
                    return Err(self.err(
                        c.span(),
                        "flow.count",
                        format!("an integer from 1 to {MAX_FLOW_COUNT}"),
                        Some(c.get_ref().to_string()),
                    ))
                }
            };
            let flow = FlowSpec {
                name,
                src,
                dst,
                bytes,
                start,
                kind,
                tcp,
                remedies,
                probe,
            };
            match count {
                None => out.push(flow),
                // Each copy is a flow of its own name, so its random streams are its own
                // (`traffic::pareto` draws from "flow:NAME:pareto").
                Some(n) => out.extend((0..n).map(|k| FlowSpec {
                    name: format!("{}-{k}", flow.name),
                    ..flow.clone()
                })),
            }
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

/// A name that is safe as a file name in an output directory: letters, digits, `-`, `_`
/// and `.` (not first), at most 64 characters.
fn is_safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The most flows one `[[flow]]` table may stand for (`count`): vho's bound, far above the 16 of
/// Chen et al.'s world, so that a typo (`count = 1e9`) is refused rather than allocated.
const MAX_FLOW_COUNT: usize = 10_000;

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
    /// The link layer's kind and keys, each with where it was given (a preset's `preset`
    /// key, or the key itself) for a message.
    link_layer: Option<(LayerKind, Range<usize>)>,
    bler: Option<(f64, Range<usize>)>,
    ber: Option<(f64, Range<usize>)>,
    max_dat: Option<(u8, Range<usize>)>,
    retry_limit: Option<(u8, Range<usize>)>,
}

/// The `link_layer` key's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LayerKind {
    Plain,
    RlcAm,
    Dcf,
}

impl LayerKind {
    const NAMES: &'static str = "plain, rlc-am, dcf";
    fn name(self) -> &'static str {
        match self {
            LayerKind::Plain => "plain",
            LayerKind::RlcAm => "rlc-am",
            LayerKind::Dcf => "dcf",
        }
    }
    fn parse(s: &str) -> Result<LayerKind, String> {
        match s {
            "plain" => Ok(LayerKind::Plain),
            "rlc-am" => Ok(LayerKind::RlcAm),
            "dcf" => Ok(LayerKind::Dcf),
            _ => Err(format!("one of {}", LayerKind::NAMES)),
        }
    }
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

/// A `[[flow]]`'s keys that belong to one kind of flow or another, each with where it was
/// written (`Ctx::refuse_keys`).
fn kind_keys(ft: &FlowT) -> [(Option<Range<usize>>, &'static str); 8] {
    [
        (ft.tcp.as_ref().map(|t| t.span()), "tcp"),
        (
            ft.remedies
                .as_ref()
                .and_then(|r| r.first())
                .map(|r| r.span()),
            "remedies",
        ),
        (ft.tfrc.as_ref().map(|t| t.span()), "tfrc"),
        (ft.pareto.as_ref().map(|t| t.span()), "pareto"),
        (ft.cbr.as_ref().map(|t| t.span()), "cbr"),
        (ft.mptcp.as_ref().map(|t| t.span()), "mptcp"),
        (ft.probe.as_ref().map(|t| t.span()), "probe"),
        (ft.size.as_ref().map(|s| s.span()), "size"),
    ]
}

impl Ctx<'_> {
    /// The first of `refused` written on a flow of another kind, `on` ("a CBR flow"), as the
    /// error that names it.
    pub(super) fn refuse_keys(&self, ft: &FlowT, refused: &[&str], on: &str) -> R<()> {
        for (span, key) in kind_keys(ft) {
            if let Some(span) = span.filter(|_| refused.contains(&key)) {
                return Err(self.err(
                    span,
                    &format!("flow.{key}"),
                    format!("no flow.{key} on {on}"),
                    None,
                ));
            }
        }
        Ok(())
    }
}
