//! Link presets: `scenarios/presets/*.toml`, one link kind per file, every value citing its
//! source. They are compiled in, so an installed package has them too.

use super::error::{line_of, ScenarioError};
use serde::Deserialize;

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub name: String,
    pub description: String,
    pub rate: String,
    pub delay: String,
    pub queue: String,
    /// What the queue limit counts (`droptail` when absent).
    #[serde(default)]
    pub queue_model: Option<String>,
    #[serde(default)]
    pub loss: f64,
    /// A seeded extra delay per packet, mean and standard deviation (`link::jitter`).
    #[serde(default)]
    pub jitter_mean: Option<String>,
    #[serde(default)]
    pub jitter_sd: Option<String>,
    /// The preset file's text, comments (the sources) included.
    #[serde(skip)]
    pub source: String,
}

const BUILTIN: &[(&str, &str)] = &[
    (
        "cdma-1xrtt.toml",
        include_str!("../../../../scenarios/presets/cdma-1xrtt.toml"),
    ),
    (
        "dk-gprs-64k.toml",
        include_str!("../../../../scenarios/presets/dk-gprs-64k.toml"),
    ),
    (
        "dk-gprs.toml",
        include_str!("../../../../scenarios/presets/dk-gprs.toml"),
    ),
    (
        "dk-umts-384k.toml",
        include_str!("../../../../scenarios/presets/dk-umts-384k.toml"),
    ),
    (
        "dk-wlan.toml",
        include_str!("../../../../scenarios/presets/dk-wlan.toml"),
    ),
    (
        "ethernet-10m.toml",
        include_str!("../../../../scenarios/presets/ethernet-10m.toml"),
    ),
    (
        "gsm-ppp.toml",
        include_str!("../../../../scenarios/presets/gsm-ppp.toml"),
    ),
    (
        "lan-100m.toml",
        include_str!("../../../../scenarios/presets/lan-100m.toml"),
    ),
    (
        "wavelan.toml",
        include_str!("../../../../scenarios/presets/wavelan.toml"),
    ),
    (
        "wlan-80211b.toml",
        include_str!("../../../../scenarios/presets/wlan-80211b.toml"),
    ),
];

#[derive(Clone, Debug, Default)]
pub struct PresetSet {
    presets: Vec<Preset>,
}

impl PresetSet {
    /// The presets shipped with vho.
    pub fn builtin() -> Result<PresetSet, ScenarioError> {
        let mut presets = Vec::new();
        for (file, text) in BUILTIN {
            let mut p: Preset = toml::from_str(text).map_err(|e| ScenarioError {
                file: format!("scenarios/presets/{file}"),
                line: e.span().map(|s| line_of(text, s.start)),
                field: String::new(),
                expected: super::error::one_line(e.message()),
                found: None,
            })?;
            p.source = text.to_string();
            presets.push(p);
        }
        presets.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(PresetSet { presets })
    }

    pub fn get(&self, name: &str) -> Option<&Preset> {
        self.presets.iter().find(|p| p.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.presets.iter().map(|p| p.name.as_str()).collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Preset> {
        self.presets.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_preset_parses_and_resolves() {
        let set = PresetSet::builtin().expect("presets parse");
        assert_eq!(set.names().len(), BUILTIN.len());
        for p in set.iter() {
            assert!(super::super::units::rate_bps(&p.rate).is_ok(), "{}", p.name);
            assert!(
                super::super::units::duration(&p.delay).is_ok(),
                "{}",
                p.name
            );
            assert!(p.source.contains('#'), "{} cites no source", p.name);
        }
        assert_eq!(
            set.get("dk-gprs").map(|p| p.rate.as_str()),
            Some("200 kb/s")
        );
    }
}
