//! `[nemo]`: a NEMO soft handover (Naoe et al., seed 002): which mobile is a mobile router,
//! the nodes behind it, the home agent's bicasting window, the router's combining. Needs
//! `[mipv6]` (the home agent, the tunnels, the care-of addresses).

use super::{Builder, Ctx, R};
use crate::mip::bicast::NemoSpec;
use crate::mip::MipSpec;
use crate::net::combine::apc::{ApcConfig, InitialEDelay, DEFAULT_ALPHA, DEFAULT_FIRST_DELAY_WAIT};
use crate::net::combine::sequence_table::DEFAULT_TABLE_SIZE;
use crate::net::nemo_combiner::Combining;
use crate::scenario::schema::File;
use crate::scenario::units;
use crate::spec::NodeKind;
use crate::time::{Dur, Time};

/// `apc_initial_delay` when unset: §VI's downward value, 1 s ("set 1 second to the initial
/// value of T_eDelay in case of downward handover"); an upward handover sets 0.
pub const DEFAULT_APC_INITIAL_DELAY: Dur = crate::net::combine::apc::DOWNWARD_INITIAL_E_DELAY;

impl Ctx<'_> {
    pub(super) fn nemo(
        &self,
        file: &File,
        b: &Builder,
        mip: Option<&MipSpec>,
    ) -> R<Option<NemoSpec>> {
        let Some(n) = &file.nemo else {
            return Ok(None);
        };
        let span = n.span();
        let n = n.get_ref();
        let Some(mip) = mip else {
            return Err(self.err(
                span,
                "nemo",
                "a scenario with [mipv6] (the home agent and its tunnels)",
                None,
            ));
        };
        let router_node = match &n.router {
            Some(s) => b.node(self, s, "nemo.router")?,
            None if b.mobiles.len() == 1 => b.mobiles[0].node,
            None => {
                return Err(self.err(
                    span,
                    "nemo.router",
                    "the mobile router's node (the scenario has several mobiles)",
                    None,
                ))
            }
        };
        let Some(router) = b.mobiles.iter().position(|m| m.node == router_node) else {
            return Err(self.err(
                n.router.as_ref().map_or(span.clone(), |s| s.span()),
                "nemo.router",
                "a mobile node (one in [mobile])",
                Some(format!("{:?}", b.nodes[router_node].name)),
            ));
        };
        if b.mobiles[router].interfaces.len() != 2 {
            return Err(self.err(
                span,
                "nemo.router",
                "a mobile with two interfaces (one tunnel per care-of address, §IV)",
                Some(format!("{} interfaces", b.mobiles[router].interfaces.len())),
            ));
        }
        let Some(names) = n.network.as_ref().filter(|v| !v.is_empty()) else {
            return Err(self.err(
                span,
                "nemo.network",
                "the nodes behind the mobile router, e.g. [\"lfn\"]",
                None,
            ));
        };
        let mut network = Vec::new();
        for s in names {
            let node = b.node(self, s, "nemo.network")?;
            let linked = b.links.iter().any(|l| {
                (l.a == node && l.b == router_node) || (l.b == node && l.a == router_node)
            });
            if b.nodes[node].kind == NodeKind::Mobile || node == mip.home_agent || !linked {
                return Err(self.err(
                    s.span(),
                    "nemo.network",
                    "a fixed node on a link to the mobile router",
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            network.push(node);
        }
        let dur = |s: &Option<crate::scenario::schema::S>, field: &str| -> R<Option<Dur>> {
            s.as_ref()
                .map(|s| self.with(s, field, units::duration))
                .transpose()
        };
        let from = dur(&n.bicast_from, "nemo.bicast_from")?;
        let until = dur(&n.bicast_until, "nemo.bicast_until")?;
        let bicast = match (from, until) {
            (None, None) => None,
            (Some(f), Some(u)) if u > f => Some((Time(f.as_nanos()), Time(u.as_nanos()))),
            (Some(_), Some(_)) => {
                let s = n.bicast_until.as_ref().map_or(span.clone(), |s| s.span());
                return Err(self.err(
                    s,
                    "nemo.bicast_until",
                    "a time after nemo.bicast_from",
                    n.bicast_until
                        .as_ref()
                        .map(|s| format!("{:?}", s.get_ref())),
                ));
            }
            (Some(_), None) | (None, Some(_)) => {
                return Err(self.err(
                    span,
                    "nemo.bicast_from",
                    "both bicast_from and bicast_until (the window), or neither (no bicasting)",
                    None,
                ))
            }
        };
        let alpha = match &n.apc_alpha {
            Some(a) if !(0.0..=1.0).contains(a.get_ref()) => {
                return Err(self.err(
                    a.span(),
                    "nemo.apc_alpha",
                    "a filter gain in [0, 1] (eq. 3)",
                    Some(a.get_ref().to_string()),
                ))
            }
            Some(a) => *a.get_ref(),
            None => DEFAULT_ALPHA,
        };
        let initial_delay = dur(&n.apc_initial_delay, "nemo.apc_initial_delay")?
            .unwrap_or(DEFAULT_APC_INITIAL_DELAY);
        let combining = match n.combining.as_ref().map(|s| s.get_ref().as_str()) {
            None | Some("none") => Combining::None,
            Some("nemo-sho") => Combining::NemoSho,
            Some("apc") => Combining::Apc(ApcConfig {
                alpha,
                initial: if n.apc_first_measured == Some(true) {
                    InitialEDelay::FirstSlowDelay {
                        max_wait: DEFAULT_FIRST_DELAY_WAIT,
                    }
                } else {
                    InitialEDelay::Fixed(initial_delay)
                },
                table_size: DEFAULT_TABLE_SIZE,
            }),
            Some(other) => {
                let s = n.combining.as_ref().map_or(span.clone(), |s| s.span());
                return Err(self.err(
                    s,
                    "nemo.combining",
                    "one of none, nemo-sho, apc",
                    Some(format!("{other:?}")),
                ));
            }
        };
        if combining != Combining::None && bicast.is_none() {
            return Err(self.err(
                n.combining.as_ref().map_or(span, |s| s.span()),
                "nemo.combining",
                "\"none\" without a bicasting window (bicast_from, bicast_until): there is \
                 nothing to combine",
                n.combining.as_ref().map(|s| format!("{:?}", s.get_ref())),
            ));
        }
        let uplink = n.bicast_uplink.unwrap_or(false);
        if uplink && bicast.is_none() {
            return Err(self.err(
                span,
                "nemo.bicast_uplink",
                "a bicasting window (bicast_from, bicast_until) to bicast upward in",
                Some("true".into()),
            ));
        }
        Ok(Some(NemoSpec {
            router,
            network,
            bicast,
            uplink,
            combining,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::mip::bicast::NemoSpec;
    use crate::net::combine::apc::InitialEDelay;
    use crate::net::nemo_combiner::Combining;
    use crate::scenario::{load, PresetSet};
    use crate::time::{Dur, Time};

    const EXAMPLE: &str = include_str!("../../../../../scenarios/examples/naoe-apc.toml");

    fn try_load(text: &str) -> Result<crate::spec::Spec, String> {
        let presets = PresetSet::builtin().expect("presets");
        load("n.toml", text, &[], &presets).map_err(|e| e.to_string())
    }

    fn nemo(text: &str) -> NemoSpec {
        try_load(text).expect("valid").nemo.expect("[nemo]")
    }

    fn line_of(text: &str, needle: &str) -> usize {
        1 + text
            .lines()
            .position(|l| l.starts_with(needle))
            .expect("in the example")
    }

    #[test]
    fn the_example_resolves_to_naoes_window_and_apc() {
        // §V-C: trigger at 5 s, completion at 15 s; §VI: α = 0.875, initial T_eDelay 1 s.
        let n = nemo(EXAMPLE);
        assert_eq!(n.network.len(), 1);
        assert_eq!(n.bicast, Some((Time::from_secs(5), Time::from_secs(15))));
        let Combining::Apc(c) = n.combining else {
            panic!("apc expected, got {:?}", n.combining)
        };
        assert_eq!(c.alpha, 0.875);
        assert_eq!(c.initial, InitialEDelay::Fixed(Dur::from_secs(1)));
        let first = EXAMPLE.replace(
            "apc_initial_delay = \"1 s\" # §VI, downward",
            "apc_first_measured = true",
        );
        let Combining::Apc(c) = nemo(&first).combining else {
            panic!("apc expected")
        };
        assert!(matches!(c.initial, InitialEDelay::FirstSlowDelay { .. }));
    }

    #[test]
    fn make_before_break_is_the_file_without_bicasting() {
        // §V-C: "In case of Make-Before-Break handover, the MR makes a handover at 15
        // seconds": no window, no combiner, the [[handover]] alone.
        let mbb = EXAMPLE
            .replace("bicast_from = \"5 s\"", "")
            .replace("bicast_until = \"15 s\"", "")
            .replace("combining = \"apc\"", "")
            .replace("apc_alpha = 0.875         # §VI", "")
            .replace("apc_initial_delay = \"1 s\" # §VI, downward", "");
        let n = nemo(&mbb);
        assert_eq!(n.bicast, None);
        assert_eq!(n.combining, Combining::None);
    }

    #[test]
    fn bad_nemo_inputs_name_file_line_field_and_expectation() {
        let cases: Vec<(String, String)> = vec![
            (
                EXAMPLE.replace("combining = \"apc\"", "combining = \"best\""),
                format!(
                    "n.toml:{}: nemo.combining: expected one of none, nemo-sho, apc, got \"best\"",
                    line_of(EXAMPLE, "combining = ")
                ),
            ),
            (
                EXAMPLE.replace("apc_alpha = 0.875", "apc_alpha = 1.5"),
                format!(
                    "n.toml:{}: nemo.apc_alpha: expected a filter gain in [0, 1] (eq. 3), got 1.5",
                    line_of(EXAMPLE, "apc_alpha")
                ),
            ),
            (
                EXAMPLE.replace("bicast_until = \"15 s\"", "bicast_until = \"4 s\""),
                format!(
                    "n.toml:{}: nemo.bicast_until: expected a time after nemo.bicast_from, got \"4 s\"",
                    line_of(EXAMPLE, "bicast_until")
                ),
            ),
            (
                EXAMPLE.replace("network = [\"lfn\"]", "network = [\"ha\"]"),
                format!(
                    "n.toml:{}: nemo.network: expected a fixed node on a link to the mobile router, got \"ha\"",
                    line_of(EXAMPLE, "network = ")
                ),
            ),
            (
                EXAMPLE.replace("router = \"mr\"", "router = \"lfn\""),
                format!(
                    "n.toml:{}: nemo.router: expected a mobile node (one in [mobile]), got \"lfn\"",
                    line_of(EXAMPLE, "router = ")
                ),
            ),
        ];
        for (text, expected) in cases {
            let got = try_load(&text).expect_err("must be refused");
            assert_eq!(got.lines().next().unwrap_or(""), expected);
        }
        // [record]'s goodput window (Naoe et al. §VI, 5-15 s): both ends, in order.
        let window = |from: &str, until: &str| {
            EXAMPLE.replace(
                "pcap = [\"mr\", \"lfn\"]",
                &format!("pcap = [\"mr\", \"lfn\"]\n{from}{until}"),
            )
        };
        let last = line_of(EXAMPLE, "pcap = ");
        for (text, expected) in [
            (
                window("goodput_from = \"15 s\"\n", "goodput_until = \"5 s\"\n"),
                format!(
                    "n.toml:{}: record.goodput_until: expected a time after \
                     record.goodput_from, got \"5 s\"",
                    last + 2
                ),
            ),
            (
                window("goodput_from = \"5 s\"\n", ""),
                format!(
                    "n.toml:{}: record.goodput_from: both goodput_from and \
                     goodput_until (the window), or neither",
                    last + 1
                ),
            ),
        ] {
            let got = try_load(&text).expect_err("must be refused");
            assert_eq!(got.lines().next().unwrap_or(""), expected);
        }
        let ok = try_load(&window(
            "goodput_from = \"5 s\"\n",
            "goodput_until = \"15 s\"\n",
        ))
        .expect("a window in order");
        assert_eq!(
            ok.record.goodput_window,
            Some((Time::from_secs(5), Time::from_secs(15)))
        );
        // [nemo] needs [mipv6]'s home agent and tunnels.
        let start = EXAMPLE.find("[mipv6]").expect("has [mipv6]");
        let end = EXAMPLE.find("[nemo]").expect("has [nemo]");
        let without = format!("{}{}", &EXAMPLE[..start], &EXAMPLE[end..]);
        let got = try_load(&without).expect_err("must be refused");
        assert!(got.contains("nemo: a scenario with [mipv6]"), "{got}");
    }
}
