//! A link direction's keys: rate, delay, queue and its model (RED's overrides), loss, as
//! presets and the file give them, checked with their lines.
//!
//! Layers, each replacing the one before key by key: the preset's symmetric keys, the preset's
//! per-direction keys (`rate_down`, ...: `down` towards the mobile host), the link's own keys,
//! the link's direction tables (`down`/`up`, `forward`/`reverse`).

use super::super::presets::{Preset, Way};
use super::*;

/// Where a link's mobile host is: what a preset's `_down` keys (towards it) apply to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MobileEnd {
    /// At the link's first end: its a → b direction is up.
    A,
    /// At the second end: a → b is down.
    B,
    Neither,
    Both,
}

impl MobileEnd {
    pub(super) fn of(nodes: &[NodeSpec], a: NodeIdx, b: NodeIdx) -> MobileEnd {
        let mobile = |n: NodeIdx| nodes[n].kind == NodeKind::Mobile;
        match (mobile(a), mobile(b)) {
            (true, false) => MobileEnd::A,
            (false, true) => MobileEnd::B,
            (false, false) => MobileEnd::Neither,
            (true, true) => MobileEnd::Both,
        }
    }

    /// The way of the a → b and b → a directions, when there is one.
    fn ways(self) -> [Option<Way>; 2] {
        match self {
            MobileEnd::A => [Some(Way::Up), Some(Way::Down)],
            MobileEnd::B => [Some(Way::Down), Some(Way::Up)],
            MobileEnd::Neither | MobileEnd::Both => [None, None],
        }
    }
}

impl Ctx<'_> {
    /// Both directions of a link (a → b, b → a): preset, then the link's own fields, then per
    /// direction. `ends` names the link's two nodes for a message.
    pub(super) fn link_dirs(
        &self,
        l: &LinkT,
        field: &str,
        default_preset: Option<&str>,
        dirs: (Option<&DirT>, Option<&DirT>),
        (mobile, ends): (MobileEnd, [&str; 2]),
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
        let mut base = [PartialDir::default(), PartialDir::default()];
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
            let keys = p.direction_keys();
            if !keys.is_empty() && matches!(mobile, MobileEnd::Neither | MobileEnd::Both) {
                let [a, b] = ends;
                return Err(self.err(
                    span,
                    &format!("{field}.preset"),
                    format!(
                        "a link with a mobile host at exactly one end (preset {name:?} sets {}: \
                         _down applies towards the mobile host, _up from it)",
                        keys.join(", "),
                    ),
                    Some(match mobile {
                        MobileEnd::Both => format!("mobile hosts at both ends ({a:?}, {b:?})"),
                        _ => format!("no mobile host at either end ({a:?}, {b:?})"),
                    }),
                ));
            }
            for (k, way) in mobile.ways().into_iter().enumerate() {
                base[k] = self.preset_dir(p, way, (field, span.clone()), mtu)?;
            }
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
            jitter_mean: l.jitter_mean.clone(),
            jitter_sd: l.jitter_sd.clone(),
            link_layer: l.link_layer.clone(),
            bler: l.bler.clone(),
            ber: l.ber.clone(),
            max_dat: l.max_dat.clone(),
            retry_limit: l.retry_limit.clone(),
        };
        for (k, d) in [dirs.0, dirs.1].into_iter().enumerate() {
            self.apply(&mut base[k], &own, field, mtu)?;
            if let Some(d) = d {
                self.apply(&mut base[k], d, field, mtu)?;
            }
        }
        let [a, b] = base;
        Ok((
            self.finish_dir(a, field, mtu)?,
            self.finish_dir(b, field, mtu)?,
        ))
    }

    /// A preset's values for one direction (`way`: none where the link has no mobile host at
    /// exactly one end), checked; an error names the link's `preset` key.
    fn preset_dir(
        &self,
        p: &Preset,
        way: Option<Way>,
        (field, span): (&str, Range<usize>),
        mtu: u32,
    ) -> R<PartialDir> {
        let at = |e: String| self.err(span.clone(), &format!("{field}.preset"), e, None);
        let d = p.dir(way);
        let mut out = PartialDir {
            rate: Some(units::rate_bps(d.rate).map_err(at)?),
            delay: Some(units::duration(d.delay).map_err(at)?),
            queue: Some(parse_queue(d.queue, mtu).map_err(at)?),
            loss: Some(d.loss),
            ..PartialDir::default()
        };
        if let Some(m) = &p.queue_model {
            out.queue_model = Some(parse_queue_model(m).map_err(at)?);
        }
        if let Some(j) = d.jitter_mean {
            out.jitter_mean = Some(units::duration(j).map_err(at)?);
        }
        if let Some(j) = d.jitter_sd {
            out.jitter_sd = Some(units::duration(j).map_err(at)?);
        }
        self.preset_layer(p, &mut out, (field, span))?;
        Ok(out)
    }

    pub(super) fn apply(&self, p: &mut PartialDir, d: &DirT, field: &str, mtu: u32) -> R<()> {
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
        if let Some(j) = &d.jitter_mean {
            p.jitter_mean = Some(self.with(j, &format!("{field}.jitter_mean"), units::duration)?);
        }
        if let Some(j) = &d.jitter_sd {
            p.jitter_sd = Some(self.with(j, &format!("{field}.jitter_sd"), units::duration)?);
        }
        self.apply_layer(p, d, field)
    }

    /// `red = { ... }`: each key given replaces the one before (preset, link, direction).
    pub(super) fn red_overrides(
        &self,
        red: &mut RedSpec,
        r: &toml::Spanned<RedT>,
        field: &str,
    ) -> R<()> {
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

    pub(super) fn finish_dir(&self, p: PartialDir, field: &str, mtu: u32) -> R<DirSpec> {
        let missing = |what: &str| {
            self.err(
                0..0,
                &format!("{field}.{what}"),
                "a value (or a preset that gives one)",
                Some(MISSING.into()),
            )
        };
        let link_layer = self.finish_layer(&p, field)?;
        Ok(DirSpec {
            link_layer,
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
            jitter: match (p.jitter_mean, p.jitter_sd) {
                (Some(mean), sd) if mean > Dur::ZERO => Some(Jitter {
                    mean,
                    // Not given: as large as the mean (vho's choice; the proposal for GPRS in
                    // docs/design/issue-20-sources.md §5.1 has them equal).
                    sd: sd.unwrap_or(mean),
                }),
                (_, Some(sd)) if sd > Dur::ZERO => {
                    return Err(self.err(
                        0..0,
                        &format!("{field}.jitter_sd"),
                        "a jitter_mean above 0 s beside it",
                        None,
                    ))
                }
                _ => None,
            },
        })
    }
}
