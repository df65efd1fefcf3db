//! The scenario file as written (serde). Every table refuses unknown keys; values that need
//! checking keep their span so that an error can name the line.
//!
//! The common case is a chain: correspondent host `ch` — `[wired]` — home agent `ha` — one
//! `[access.NAME]` per access link — mobile host `mh`. The general form lists `[[node]]` and
//! `[[link]]` instead and names the mobile host's interfaces in `[mobile]`.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

pub type S = Spanned<String>;

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct File {
    #[serde(default)]
    pub run: RunT,
    pub wired: Option<LinkT>,
    pub access: Option<BTreeMap<String, Spanned<LinkT>>>,
    /// One `[mobile]` table, or several as `[[mobile]]` (general form).
    pub mobile: Option<Spanned<Mobiles>>,
    pub node: Option<Vec<Spanned<NodeT>>>,
    pub link: Option<Vec<Spanned<GeneralLinkT>>>,
    #[serde(default)]
    pub handover: Vec<Spanned<HandoverT>>,
    #[serde(default)]
    pub schedule: Vec<Spanned<ScheduleT>>,
    #[serde(default)]
    pub flow: Vec<Spanned<FlowT>>,
    #[serde(default)]
    pub node_function: Vec<Spanned<NodeFunctionT>>,
    pub mipv6: Option<Spanned<Mipv6T>>,
    pub nemo: Option<Spanned<NemoT>>,
    #[serde(default)]
    pub record: RecordT,
}

/// `[mobile]` or `[[mobile]]`. Read by hand (serde's untagged enums lose toml's spans): a
/// table is one mobile, an array of tables several.
#[derive(Debug)]
pub enum Mobiles {
    One(MobileT),
    Many(Vec<MobileT>),
}

impl Mobiles {
    pub fn all(&self) -> Vec<&MobileT> {
        match self {
            Mobiles::One(m) => vec![m],
            Mobiles::Many(v) => v.iter().collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Mobiles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Mobiles;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a [mobile] table or [[mobile]] tables")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Mobiles, A::Error> {
                MobileT::deserialize(MapAccessDeserializer::new(map)).map(Mobiles::One)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Mobiles, A::Error> {
                Vec::<MobileT>::deserialize(SeqAccessDeserializer::new(seq)).map(Mobiles::Many)
            }
        }
        d.deserialize_any(V)
    }
}

impl MobileT {
    /// Where the table is, as near as its keys tell (the line of its first key given).
    pub fn span(&self) -> std::ops::Range<usize> {
        [&self.node, &self.start]
            .into_iter()
            .flatten()
            .chain(self.interfaces.iter().flatten())
            .map(|s| s.span())
            .min_by_key(|r| r.start)
            .unwrap_or(0..0)
    }
}

/// Mobile IPv6 as packets (`crate::mip`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Mipv6T {
    pub home_agent: Option<S>,
    pub correspondents: Option<Vec<S>>,
    pub detection: Option<S>,
    pub ra_missed: Option<Spanned<i64>>,
    pub l2_delay: Option<S>,
    pub dad: Option<S>,
    pub preconfigured: Option<bool>,
    pub route_optimisation: Option<bool>,
    pub ro_start: Option<S>,
    pub ro_delay: Option<S>,
    pub attached: Option<Vec<S>>,
    pub rs_delay: Option<bool>,
    pub cn_ack: Option<bool>,
    pub cn_bound: Option<bool>,
    pub processing: Option<S>,
    #[serde(default)]
    pub router: Vec<Spanned<RouterT>>,
}

/// A NEMO soft handover (`crate::mip::bicast`, `crate::net::nemo_combiner`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NemoT {
    pub router: Option<S>,
    pub network: Option<Vec<S>>,
    pub combining: Option<S>,
    pub bicast_from: Option<S>,
    pub bicast_until: Option<S>,
    pub bicast_uplink: Option<bool>,
    pub apc_alpha: Option<Spanned<f64>>,
    pub apc_initial_delay: Option<S>,
    pub apc_first_measured: Option<bool>,
}

/// An access router's advertisements on one of the mobile's links.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RouterT {
    pub link: S,
    pub node: Option<S>,
    pub ra_min: Option<S>,
    pub ra_max: Option<S>,
    pub link_layer: Option<bool>,
    pub min_delay_between_ras: Option<S>,
}

/// A function on a node's forwarding path.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct NodeFunctionT {
    pub node: S,
    pub kind: S,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RunT {
    pub name: Option<String>,
    pub seed: Option<Spanned<i64>>,
    pub stop: Option<S>,
}

/// One direction's overrides.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct DirT {
    pub rate: Option<S>,
    pub delay: Option<S>,
    pub queue: Option<S>,
    pub queue_model: Option<S>,
    pub red: Option<Spanned<RedT>>,
    pub loss: Option<Spanned<f64>>,
    pub loss_at: Option<S>,
    pub drop_packets: Option<Spanned<Vec<i64>>>,
    /// A seeded extra delay per packet: its mean and standard deviation (`link::jitter`).
    pub jitter_mean: Option<S>,
    pub jitter_sd: Option<S>,
    /// The link layer between the queue and the far node: `plain`, `rlc-am`, `dcf`
    /// (`link::layer`), and its keys.
    pub link_layer: Option<S>,
    pub bler: Option<Spanned<f64>>,
    pub ber: Option<Spanned<f64>>,
    pub max_dat: Option<Spanned<i64>>,
    pub retry_limit: Option<Spanned<i64>>,
}

/// A link of the common form: a preset and/or fields, applying to both directions, with
/// optional per-direction overrides (`down` towards the mobile host, `up` from it).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct LinkT {
    pub preset: Option<S>,
    pub rate: Option<S>,
    pub delay: Option<S>,
    pub queue: Option<S>,
    /// `droptail` (the limit counts waiting packets), `ns2-droptail` (ns-2's rule), ... or
    /// `red`.
    pub queue_model: Option<S>,
    /// RED's parameters with `queue_model = "red"`.
    pub red: Option<Spanned<RedT>>,
    pub loss: Option<Spanned<f64>>,
    /// `air` (after serialisation, the default) or `entry` (before the queue).
    pub loss_at: Option<S>,
    /// Indices of the packets to lose (0 = the first the loss model sees), instead of `loss`.
    pub drop_packets: Option<Spanned<Vec<i64>>>,
    /// A seeded extra delay per packet: its mean and standard deviation (`link::jitter`).
    pub jitter_mean: Option<S>,
    pub jitter_sd: Option<S>,
    /// The link layer between the queue and the far node: `plain`, `rlc-am`, `dcf`
    /// (`link::layer`), and its keys.
    pub link_layer: Option<S>,
    pub bler: Option<Spanned<f64>>,
    pub ber: Option<Spanned<f64>>,
    pub max_dat: Option<Spanned<i64>>,
    pub retry_limit: Option<Spanned<i64>>,
    /// Packet size the `bdp` queue rule counts in (bytes); default 1500.
    pub mtu: Option<Spanned<i64>>,
    pub down: Option<DirT>,
    pub up: Option<DirT>,
}

/// RED's overrides (`red = { min_thresh = 5, ... }`); a key left out takes ns-2.35's value.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RedT {
    pub min_thresh: Option<f64>,
    pub max_thresh: Option<f64>,
    pub max_p: Option<f64>,
    pub q_weight: Option<f64>,
    pub gentle: Option<bool>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct GeneralLinkT {
    pub name: S,
    pub between: Spanned<Vec<String>>,
    pub preset: Option<S>,
    pub rate: Option<S>,
    pub delay: Option<S>,
    pub queue: Option<S>,
    pub queue_model: Option<S>,
    pub red: Option<Spanned<RedT>>,
    pub loss: Option<Spanned<f64>>,
    pub loss_at: Option<S>,
    pub drop_packets: Option<Spanned<Vec<i64>>>,
    /// A seeded extra delay per packet: its mean and standard deviation (`link::jitter`).
    pub jitter_mean: Option<S>,
    pub jitter_sd: Option<S>,
    /// The link layer between the queue and the far node: `plain`, `rlc-am`, `dcf`
    /// (`link::layer`), and its keys.
    pub link_layer: Option<S>,
    pub bler: Option<Spanned<f64>>,
    pub ber: Option<Spanned<f64>>,
    pub max_dat: Option<Spanned<i64>>,
    pub retry_limit: Option<Spanned<i64>>,
    pub mtu: Option<Spanned<i64>>,
    /// Direction from the first named node to the second.
    pub forward: Option<DirT>,
    /// Direction from the second named node to the first.
    pub reverse: Option<DirT>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct NodeT {
    pub name: S,
    pub kind: S,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct MobileT {
    /// The mobile node (general form); `mh` in the common form.
    pub node: Option<S>,
    /// The access link in use at time zero.
    pub start: Option<S>,
    /// Its access links (general form); every `[access.*]` link in the common form.
    pub interfaces: Option<Vec<S>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct HandoverT {
    pub at: S,
    pub window: Option<S>,
    pub from: S,
    pub to: S,
    pub kind: Option<S>,
    pub loss: Option<Spanned<f64>>,
    pub delay: Option<S>,
    pub flush: Option<S>,
    pub notify: Option<S>,
    pub notify_offset: Option<S>,
    pub notify_delay: Option<S>,
    pub uplink_delay: Option<S>,
    pub in_flight: Option<S>,
}

/// A link's parameters or state changing at `at` (or ramping until `until`): each value a
/// single one, or a pair `[from, to]` with `until`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ScheduleT {
    pub link: S,
    pub direction: Option<S>,
    pub at: S,
    pub until: Option<S>,
    pub step: Option<S>,
    pub rate: Option<Spanned<toml::Value>>,
    pub delay: Option<Spanned<toml::Value>>,
    pub loss: Option<Spanned<toml::Value>>,
    pub state: Option<S>,
    pub trace: Option<Spanned<Vec<i64>>>,
    pub trace_file: Option<S>,
    pub trace_sha256: Option<S>,
    pub bler: Option<Spanned<toml::Value>>,
    pub ber: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct FlowT {
    pub name: Option<String>,
    pub from: S,
    pub to: S,
    pub size: Option<S>,
    pub start: Option<S>,
    pub kind: Option<S>,
    pub tcp: Option<Spanned<toml::Value>>,
    pub tfrc: Option<Spanned<TfrcT>>,
    pub pareto: Option<Spanned<ParetoT>>,
    pub cbr: Option<Spanned<CbrT>>,
    pub mptcp: Option<Spanned<MptcpT>>,
    pub remedies: Option<Vec<S>>,
    pub probe: Option<Spanned<ProbeT>>,
    /// This many identical flows (`MAX_FLOW_COUNT` at most), named `NAME-0` ... `NAME-(n-1)`.
    pub count: Option<Spanned<i64>>,
}

/// `[flow.probe]`: TFRC Probe's parameters (`crate::probe::ProbeConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ProbeT {
    pub pair_every: Option<Spanned<i64>>,
    pub window: Option<Spanned<i64>>,
    pub filter: Option<S>,
    pub alpha: Option<Spanned<f64>>,
    pub beta: Option<Spanned<f64>>,
    pub enabled: Option<bool>,
    pub ihn: Option<bool>,
    pub ehn: Option<bool>,
    pub fra: Option<bool>,
    pub fra_cap: Option<bool>,
    pub err: Option<bool>,
}

/// `[flow.pareto]`: a Pareto on/off source's parameters (`crate::traffic::pareto::ParetoConfig`,
/// ns-2's `Application/Traffic/Pareto`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ParetoT {
    pub rate: Option<S>,
    pub packet_size: Option<S>,
    pub burst_time: Option<S>,
    pub idle_time: Option<S>,
    pub shape: Option<Spanned<f64>>,
}

/// `[flow.cbr]`: a constant-bit-rate stream's parameters (`crate::traffic::cbr::CbrConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct CbrT {
    pub rate: Option<S>,
    pub packet_size: Option<S>,
}

/// `[flow.mptcp]`: a Multipath TCP connection's parameters
/// (`crate::traffic::mptcp::MptcpConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct MptcpT {
    pub scheduler: Option<S>,
    pub congestion_control: Option<S>,
    /// The mobile's interface (its access link's name) -> the endpoint's flags.
    pub endpoints: Option<Spanned<std::collections::BTreeMap<String, Vec<S>>>>,
    pub stale_loss_cnt: Option<Spanned<i64>>,
    pub max_subflows: Option<Spanned<i64>>,
    pub add_addr_accepted: Option<Spanned<i64>>,
}

/// `[flow.tfrc]`: a TFRC flow's parameters (`crate::tfrc::TfrcConfig`).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct TfrcT {
    pub profile: Option<S>,
    pub packet_size: Option<S>,
    pub oscillation_prevention: Option<bool>,
    pub history_discounting: Option<bool>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RecordT {
    #[serde(default)]
    pub pcap: Vec<S>,
    #[serde(default)]
    pub series: bool,
    pub goodput_from: Option<S>,
    pub goodput_until: Option<S>,
    /// With `series`: also the queues' series (none for `false`).
    pub queues: Option<bool>,
    #[serde(default)]
    pub pcap_cross: bool,
    /// Bytes kept of each captured packet (tcpdump's `-s`).
    pub snaplen: Option<Spanned<i64>>,
}
