//! Link presets: `scenarios/presets/*.toml`, one link kind per file, every value citing its
//! source. They are compiled in, so an installed package has them too.
//!
//! A preset's `rate`, `delay`, `queue`, `loss`, `jitter_mean` and `jitter_sd` hold for both
//! directions of a link. An asymmetric link (GPRS: four downlink timeslots, one uplink) also
//! gives per-direction keys, `rate_down`, `rate_up` and so on: `down` is the direction towards
//! the mobile host at one end of the link, `up` the direction from it, and each replaces the
//! symmetric key in its direction. Such a preset only fits a link with a mobile host at exactly
//! one end (scenario/resolve/links.rs refuses any other).

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
    /// The link layer (`plain`, `rlc-am`, `dcf`: `link::layer`) and its keys, the same both
    /// ways.
    #[serde(default)]
    pub link_layer: Option<String>,
    #[serde(default)]
    pub bler: Option<f64>,
    #[serde(default)]
    pub ber: Option<f64>,
    #[serde(default)]
    pub max_dat: Option<i64>,
    #[serde(default)]
    pub retry_limit: Option<i64>,
    /// Per-direction values (see the module's doc): each replaces the key without the suffix in
    /// its direction.
    #[serde(default)]
    pub rate_down: Option<String>,
    #[serde(default)]
    pub rate_up: Option<String>,
    #[serde(default)]
    pub delay_down: Option<String>,
    #[serde(default)]
    pub delay_up: Option<String>,
    #[serde(default)]
    pub queue_down: Option<String>,
    #[serde(default)]
    pub queue_up: Option<String>,
    #[serde(default)]
    pub loss_down: Option<f64>,
    #[serde(default)]
    pub loss_up: Option<f64>,
    #[serde(default)]
    pub jitter_mean_down: Option<String>,
    #[serde(default)]
    pub jitter_mean_up: Option<String>,
    #[serde(default)]
    pub jitter_sd_down: Option<String>,
    #[serde(default)]
    pub jitter_sd_up: Option<String>,
    /// The preset file's text, comments (the sources) included.
    #[serde(skip)]
    pub source: String,
}

/// A direction of a link as a preset's per-direction keys name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Towards the mobile host.
    Down,
    /// From the mobile host.
    Up,
}

/// A preset's values for one direction of a link, per-direction keys applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PresetDir<'a> {
    pub rate: &'a str,
    pub delay: &'a str,
    pub queue: &'a str,
    pub loss: f64,
    pub jitter_mean: Option<&'a str>,
    pub jitter_sd: Option<&'a str>,
}

impl Preset {
    /// The per-direction keys this preset gives, by name (none: the same both ways).
    pub fn direction_keys(&self) -> Vec<&'static str> {
        let given = [
            ("rate_down", self.rate_down.is_some()),
            ("rate_up", self.rate_up.is_some()),
            ("delay_down", self.delay_down.is_some()),
            ("delay_up", self.delay_up.is_some()),
            ("queue_down", self.queue_down.is_some()),
            ("queue_up", self.queue_up.is_some()),
            ("loss_down", self.loss_down.is_some()),
            ("loss_up", self.loss_up.is_some()),
            ("jitter_mean_down", self.jitter_mean_down.is_some()),
            ("jitter_mean_up", self.jitter_mean_up.is_some()),
            ("jitter_sd_down", self.jitter_sd_down.is_some()),
            ("jitter_sd_up", self.jitter_sd_up.is_some()),
        ];
        given
            .into_iter()
            .filter(|&(_, is)| is)
            .map(|(key, _)| key)
            .collect()
    }

    /// The values for a direction: `None` for a link without a mobile host at exactly one end,
    /// where only the symmetric keys apply (the caller refuses a preset with
    /// [`direction_keys`](Self::direction_keys) there).
    pub fn dir(&self, way: Option<Way>) -> PresetDir<'_> {
        fn side<'a, T: ?Sized>(
            way: Option<Way>,
            down: Option<&'a T>,
            up: Option<&'a T>,
        ) -> Option<&'a T> {
            match way {
                Some(Way::Down) => down,
                Some(Way::Up) => up,
                None => None,
            }
        }
        PresetDir {
            rate: side(way, self.rate_down.as_deref(), self.rate_up.as_deref())
                .unwrap_or(&self.rate),
            delay: side(way, self.delay_down.as_deref(), self.delay_up.as_deref())
                .unwrap_or(&self.delay),
            queue: side(way, self.queue_down.as_deref(), self.queue_up.as_deref())
                .unwrap_or(&self.queue),
            loss: side(way, self.loss_down.as_ref(), self.loss_up.as_ref())
                .copied()
                .unwrap_or(self.loss),
            jitter_mean: side(
                way,
                self.jitter_mean_down.as_deref(),
                self.jitter_mean_up.as_deref(),
            )
            .or(self.jitter_mean.as_deref()),
            jitter_sd: side(
                way,
                self.jitter_sd_down.as_deref(),
                self.jitter_sd_up.as_deref(),
            )
            .or(self.jitter_sd.as_deref()),
        }
    }
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
        "gprs-cottingham.toml",
        include_str!("../../../../scenarios/presets/gprs-cottingham.toml"),
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
        "umts-384-rlc.toml",
        include_str!("../../../../scenarios/presets/umts-384-rlc.toml"),
    ),
    (
        "wavelan.toml",
        include_str!("../../../../scenarios/presets/wavelan.toml"),
    ),
    (
        "wlan-80211b.toml",
        include_str!("../../../../scenarios/presets/wlan-80211b.toml"),
    ),
    (
        "wlan-11b-1m.toml",
        include_str!("../../../../scenarios/presets/wlan-11b-1m.toml"),
    ),
];

#[derive(Clone, Debug, Default)]
pub struct PresetSet {
    presets: Vec<Preset>,
}

impl PresetSet {
    /// The presets shipped with vho.
    pub fn builtin() -> Result<PresetSet, ScenarioError> {
        let mut set = PresetSet::default();
        for (file, text) in BUILTIN {
            set.add(&format!("scenarios/presets/{file}"), text)?;
        }
        Ok(set)
    }

    /// Adds the preset of a file's text (`file` names it in an error), replacing one of the
    /// same name.
    pub fn add(&mut self, file: &str, text: &str) -> Result<(), ScenarioError> {
        let mut p: Preset = toml::from_str(text).map_err(|e| ScenarioError {
            file: file.to_string(),
            line: e.span().map(|s| line_of(text, s.start)),
            field: e.span().map_or_else(String::new, |s| {
                super::error::field_at(text, s.start, e.message())
            }),
            expected: super::error::plain_types(&super::error::one_line(e.message())),
            found: None,
        })?;
        p.source = text.to_string();
        self.presets.retain(|q| q.name != p.name);
        self.presets.push(p);
        self.presets.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(())
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
        use super::super::units::{duration, rate_bps};
        for p in set.iter() {
            for way in [None, Some(Way::Down), Some(Way::Up)] {
                let d = p.dir(way);
                let at = format!("{} {way:?}", p.name);
                assert!(rate_bps(d.rate).is_ok(), "{at}");
                assert!(duration(d.delay).is_ok(), "{at}");
                assert!((0.0..=1.0).contains(&d.loss), "{at}");
                for j in [d.jitter_mean, d.jitter_sd].into_iter().flatten() {
                    assert!(duration(j).is_ok(), "{at}");
                }
            }
            assert!(p.source.contains('#'), "{} cites no source", p.name);
        }
        assert_eq!(
            set.get("dk-gprs").map(|p| p.rate.as_str()),
            Some("200 kb/s")
        );
    }

    #[test]
    fn a_per_direction_key_replaces_the_symmetric_one_in_its_direction_only() {
        let mut set = PresetSet::default();
        set.add(
            "t.toml",
            "name = \"t\"\ndescription = \"\"\nrate = \"8 kb/s\"\ndelay = \"1 s\"\n\
             queue = \"5 pkt\"\nloss = 0.1\njitter_mean = \"2 ms\"\nrate_up = \"2 kb/s\"\n\
             delay_down = \"3 s\"\nloss_up = 0.5\njitter_sd_down = \"7 ms\"\n",
        )
        .expect("parses");
        let p = set.get("t").expect("added");
        assert_eq!(
            p.direction_keys(),
            ["rate_up", "delay_down", "loss_up", "jitter_sd_down"]
        );
        let both = PresetDir {
            rate: "8 kb/s",
            delay: "1 s",
            queue: "5 pkt",
            loss: 0.1,
            jitter_mean: Some("2 ms"),
            jitter_sd: None,
        };
        assert_eq!(p.dir(None), both);
        assert_eq!(
            p.dir(Some(Way::Down)),
            PresetDir {
                delay: "3 s",
                jitter_sd: Some("7 ms"),
                ..both
            }
        );
        assert_eq!(
            p.dir(Some(Way::Up)),
            PresetDir {
                rate: "2 kb/s",
                loss: 0.5,
                ..both
            }
        );
        let sym = PresetSet::builtin().expect("presets parse");
        assert!(sym
            .get("dk-gprs")
            .expect("dk-gprs")
            .direction_keys()
            .is_empty());
        assert_eq!(
            sym.get("gprs-cottingham")
                .expect("gprs-cottingham")
                .direction_keys(),
            ["rate_up"]
        );
    }
}
