//! A link direction's link layer keys (`link::layer`): `link_layer` (`plain`, `rlc-am`,
//! `dcf`), `bler` and `max_dat` for RLC-AM, `ber` and `retry_limit` for DCF, layered as the
//! other keys (preset, link, direction); every key left out takes Naoe et al.'s Table I (the
//! configs' `Default`).

use super::*;
use crate::link::dcf::DcfConfig;
use crate::link::rlc_am::RlcAmConfig;

impl Ctx<'_> {
    /// The link layer keys of one layer (a preset's, the link's, a direction table's), each
    /// replacing the one before.
    pub(super) fn apply_layer(&self, p: &mut PartialDir, d: &DirT, field: &str) -> R<()> {
        if let Some(k) = &d.link_layer {
            let kind = self.with(k, &format!("{field}.link_layer"), LayerKind::parse)?;
            p.link_layer = Some((kind, k.span()));
            // A layer named here drops the other kind's keys inherited from before (a preset's
            // max_dat under a direction's link_layer = "dcf"); given beside it, they are refused.
            if kind != LayerKind::RlcAm {
                (p.bler, p.max_dat) = (None, None);
            }
            if kind != LayerKind::Dcf {
                (p.ber, p.retry_limit) = (None, None);
            }
        }
        if let Some(b) = &d.bler {
            let v = *b.get_ref();
            if !(0.0..=1.0).contains(&v) {
                return Err(self.err(
                    b.span(),
                    &format!("{field}.bler"),
                    "a block error rate from 0 to 1",
                    Some(v.to_string()),
                ));
            }
            p.bler = Some((v, b.span()));
        }
        if let Some(b) = &d.ber {
            let v = *b.get_ref();
            // 1 − (1 − BER)^L is 1 at BER 1: no frame would ever pass (`DcfConfig::validate`).
            if !(0.0..1.0).contains(&v) {
                return Err(self.err(
                    b.span(),
                    &format!("{field}.ber"),
                    "a bit error rate in [0, 1)",
                    Some(v.to_string()),
                ));
            }
            p.ber = Some((v, b.span()));
        }
        let count = |k: &Option<toml::Spanned<i64>>, key: &str| -> R<Option<(u8, Range<usize>)>> {
            match k {
                None => Ok(None),
                Some(n) => match u8::try_from(*n.get_ref()) {
                    Ok(v) if v >= 1 => Ok(Some((v, n.span()))),
                    _ => Err(self.err(
                        n.span(),
                        &format!("{field}.{key}"),
                        "a whole number of transmissions from 1 to 255",
                        Some(n.get_ref().to_string()),
                    )),
                },
            }
        };
        if let Some(v) = count(&d.max_dat, "max_dat")? {
            p.max_dat = Some(v);
        }
        if let Some(v) = count(&d.retry_limit, "retry_limit")? {
            p.retry_limit = Some(v);
        }
        Ok(())
    }

    /// A preset's link layer keys (the same both ways); an error names the link's `preset`.
    pub(super) fn preset_layer(
        &self,
        p: &super::super::presets::Preset,
        out: &mut PartialDir,
        (field, span): (&str, Range<usize>),
    ) -> R<()> {
        let at = |key: &str, e: String| {
            self.err(
                span.clone(),
                &format!("{field}.preset"),
                format!("{key}: {e}"),
                None,
            )
        };
        if let Some(k) = &p.link_layer {
            let kind = LayerKind::parse(k).map_err(|e| at("link_layer", e))?;
            out.link_layer = Some((kind, span.clone()));
        }
        if let Some(b) = p.bler {
            if !(0.0..=1.0).contains(&b) {
                return Err(at("bler", "a block error rate from 0 to 1".into()));
            }
            out.bler = Some((b, span.clone()));
        }
        if let Some(b) = p.ber {
            if !(0.0..1.0).contains(&b) {
                return Err(at("ber", "a bit error rate in [0, 1)".into()));
            }
            out.ber = Some((b, span.clone()));
        }
        let count = |v: i64, key: &str, min: u8| {
            u8::try_from(v)
                .ok()
                .filter(|&n| n >= min)
                .ok_or_else(|| at(key, format!("a whole number from {min} to 255")))
        };
        if let Some(m) = p.max_dat {
            // TS 25.322 §9.7.3.3: a block goes out at most MaxDAT - 1 times (none at 1).
            out.max_dat = Some((count(m, "max_dat", 2)?, span.clone()));
        }
        if let Some(r) = p.retry_limit {
            out.retry_limit = Some((count(r, "retry_limit", 1)?, span.clone()));
        }
        Ok(())
    }

    /// The direction's link layer from its keys: a key of another layer than the one named,
    /// or a non-zero `delay` beside a link layer (its timing replaces the delay: Table I's
    /// Iub delay is inside the RLC-AM bearer), is refused where it was given.
    pub(super) fn finish_layer(&self, p: &PartialDir, field: &str) -> R<LinkLayerSpec> {
        let (kind, kind_span) = p.link_layer.clone().unwrap_or((LayerKind::Plain, 0..0));
        let refuse = |key: &str, span: &Range<usize>, needs: &str| {
            Err(self.err(
                span.clone(),
                &format!("{field}.{key}"),
                format!("link_layer = \"{needs}\" beside it"),
                Some(format!("link_layer {:?}", kind.name())),
            ))
        };
        let rlc_keys = [
            ("bler", p.bler.as_ref().map(|b| &b.1)),
            ("max_dat", p.max_dat.as_ref().map(|b| &b.1)),
        ];
        let dcf_keys = [
            ("ber", p.ber.as_ref().map(|b| &b.1)),
            ("retry_limit", p.retry_limit.as_ref().map(|b| &b.1)),
        ];
        if kind != LayerKind::RlcAm {
            if let Some((key, Some(span))) = rlc_keys.iter().find(|k| k.1.is_some()) {
                return refuse(key, span, "rlc-am");
            }
        }
        if kind != LayerKind::Dcf {
            if let Some((key, Some(span))) = dcf_keys.iter().find(|k| k.1.is_some()) {
                return refuse(key, span, "dcf");
            }
        }
        if kind != LayerKind::Plain && p.delay.is_some_and(|d| d > Dur::ZERO) {
            return Err(self.err(
                kind_span,
                &format!("{field}.delay"),
                "delay = \"0 ms\" beside a link layer (its own timing replaces the link's \
                 delay; Table I's Iub delay is the RLC-AM bearer's iub_delay)",
                p.delay.map(|d| format!("{} s", d.as_secs_f64())),
            ));
        }
        Ok(match kind {
            LayerKind::Plain => LinkLayerSpec::Plain,
            LayerKind::RlcAm => {
                let mut cfg = RlcAmConfig::default();
                if let Some((b, _)) = p.bler {
                    cfg.bler = b;
                }
                if let Some((m, _)) = p.max_dat {
                    cfg.max_dat = m;
                }
                LinkLayerSpec::RlcAm(cfg)
            }
            LayerKind::Dcf => {
                let mut cfg = DcfConfig::default();
                if let Some((b, _)) = p.ber {
                    cfg.ber = b;
                }
                if let Some((r, _)) = p.retry_limit {
                    cfg.short_retry_limit = r;
                }
                LinkLayerSpec::Dcf(cfg)
            }
        })
    }
}
