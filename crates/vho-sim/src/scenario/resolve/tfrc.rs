//! `[[flow]] kind` and `[flow.tfrc]`: which protocol carries the flow, and TFRC's parameters.

use super::*;
use crate::probe::{Filter, ProbeConfig};
use crate::tfrc::TfrcConfig;

impl Ctx<'_> {
    pub(super) fn flow_kind(&self, ft: &FlowT) -> R<FlowKind> {
        let kind = match &ft.kind {
            None => "tcp",
            Some(k) => k.get_ref().as_str(),
        };
        match kind {
            "tcp" => {
                if let Some(t) = &ft.pareto {
                    return Err(self.err(
                        t.span(),
                        "flow.pareto",
                        "no [flow.pareto] on a TCP flow (give kind = \"pareto\")",
                        None,
                    ));
                }
                if let Some(t) = &ft.tfrc {
                    return Err(self.err(
                        t.span(),
                        "flow.tfrc",
                        "no [flow.tfrc] on a TCP flow (give kind = \"tfrc\")",
                        None,
                    ));
                }
                if let Some(t) = &ft.cbr {
                    return Err(self.err(
                        t.span(),
                        "flow.cbr",
                        "no [flow.cbr] on a TCP flow (give kind = \"cbr\")",
                        None,
                    ));
                }
                if let Some(t) = &ft.mptcp {
                    return Err(self.err(
                        t.span(),
                        "flow.mptcp",
                        "no [flow.mptcp] on a TCP flow (give kind = \"mptcp\")",
                        None,
                    ));
                }
                Ok(FlowKind::Tcp)
            }
            "tfrc" => {
                self.refuse_keys(ft, &["tcp", "pareto", "cbr", "mptcp"], "a TFRC flow")?;
                // Only TFRC Probe's remedies (`remedy::probe`) act on a TFRC flow.
                for r in ft.remedies.iter().flatten() {
                    let known = Remedy::from_name(r.get_ref());
                    if known.is_some_and(|r| !crate::remedy::probe::is_probe_remedy(r)) {
                        return Err(self.err(
                            r.span(),
                            "flow.remedies",
                            "on a TFRC flow only probe, ihn, ehn, fra, err (the others act \
                             on TCP)",
                            Some(format!("{:?}", r.get_ref())),
                        ));
                    }
                }
                self.tfrc(ft.tfrc.as_ref()).map(FlowKind::Tfrc)
            }
            "pareto" => self.pareto_kind(ft),
            "cbr" => self.cbr_kind(ft),
            "mptcp" => self.mptcp_kind(ft),
            other => Err(self.err(
                ft.kind.as_ref().map_or(0..0, |k| k.span()),
                "flow.kind",
                "\"tcp\", \"tfrc\", \"pareto\", \"cbr\" or \"mptcp\"",
                Some(format!("{other:?}")),
            )),
        }
    }

    /// `[flow.probe]` over `ProbeConfig`'s defaults (Chen et al.'s); the remedies switch its
    /// parts on later (`remedy::probe`).
    pub(super) fn probe(&self, ft: &FlowT) -> R<ProbeConfig> {
        let mut cfg = ProbeConfig::default();
        let Some(t) = ft.probe.as_ref() else {
            return Ok(cfg);
        };
        let t = t.get_ref();
        if let Some(n) = &t.pair_every {
            cfg.pair_every = match u32::try_from(*n.get_ref()) {
                Ok(v) if (2..=10_000).contains(&v) => v,
                _ => {
                    return Err(self.err(
                        n.span(),
                        "flow.probe.pair_every",
                        "an integer from 2 to 10000",
                        Some(n.get_ref().to_string()),
                    ))
                }
            };
        }
        if let Some(w) = &t.window {
            cfg.window = match usize::try_from(*w.get_ref()) {
                Ok(v) if (1..=10_000).contains(&v) => v,
                _ => {
                    return Err(self.err(
                        w.span(),
                        "flow.probe.window",
                        "an integer from 1 to 10000 (pairs)",
                        Some(w.get_ref().to_string()),
                    ))
                }
            };
        }
        if let Some(f) = &t.filter {
            cfg.filter = match f.get_ref().as_str() {
                "runs" => Filter::Runs,
                "sliding" => Filter::Sliding,
                other => {
                    return Err(self.err(
                        f.span(),
                        "flow.probe.filter",
                        "\"runs\" or \"sliding\"",
                        Some(format!("{other:?}")),
                    ))
                }
            };
        }
        if let Some(a) = &t.alpha {
            let v = *a.get_ref();
            if !(v.is_finite() && v > 1.0) {
                return Err(self.err(
                    a.span(),
                    "flow.probe.alpha",
                    "a number above 1",
                    Some(v.to_string()),
                ));
            }
            cfg.alpha = v;
        }
        if let Some(b) = &t.beta {
            let v = *b.get_ref();
            if !(v.is_finite() && v > 0.0 && v < 1.0) {
                return Err(self.err(
                    b.span(),
                    "flow.probe.beta",
                    "a number between 0 and 1",
                    Some(v.to_string()),
                ));
            }
            cfg.beta = v;
        }
        // The switches the remedies set (remedy::probe), as the resolved scenario writes them.
        for (key, slot) in [
            (t.ihn, &mut cfg.ihn),
            (t.ehn, &mut cfg.ehn),
            (t.fra, &mut cfg.fra),
            (t.fra_cap, &mut cfg.fra_cap),
            (t.err, &mut cfg.err),
            (t.enabled, &mut cfg.enabled),
        ] {
            if let Some(on) = key {
                *slot = on;
            }
        }
        // fra_cap only shapes FRA: it turns nothing on.
        cfg.enabled |= cfg.ihn || cfg.ehn || cfg.fra || cfg.err;
        Ok(cfg)
    }

    /// `[flow.tfrc]` over `TfrcConfig`'s defaults (RFC 5348's, with ns-2.35's packet size).
    fn tfrc(&self, t: Option<&toml::Spanned<TfrcT>>) -> R<TfrcConfig> {
        let Some(t) = t else {
            return Ok(TfrcConfig::default());
        };
        let t = t.get_ref();
        let mut cfg = match t.profile.as_ref().map(|p| p.get_ref().as_str()) {
            None | Some("rfc5348") => TfrcConfig::default(),
            Some("ns2") => TfrcConfig::ns2(),
            Some(other) => {
                return Err(self.err(
                    t.profile.as_ref().map_or(0..0, |p| p.span()),
                    "flow.tfrc.profile",
                    "\"rfc5348\" or \"ns2\"",
                    Some(format!("{other:?}")),
                ))
            }
        };
        if let Some(s) = &t.packet_size {
            let bytes = self.with(s, "flow.tfrc.packet_size", units::size_bytes)?;
            // At least one byte, and within a 64 KiB datagram with its headers.
            if bytes == 0 || bytes > 65_000 {
                return Err(self.err(
                    s.span(),
                    "flow.tfrc.packet_size",
                    "a size from 1 B to 65000 B",
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            cfg.segment_size = bytes as u32;
        }
        if let Some(on) = t.oscillation_prevention {
            cfg.oscillation_prevention = on;
        }
        if let Some(on) = t.history_discounting {
            cfg.history_discounting = on;
        }
        Ok(cfg)
    }
}
