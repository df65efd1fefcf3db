//! `[[flow]] kind` and `[flow.tfrc]`: which protocol carries the flow, and TFRC's parameters.

use super::*;
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
                Ok(FlowKind::Tcp)
            }
            "tfrc" => {
                for (bad, what) in [
                    (ft.tcp.is_some(), "tcp"),
                    (ft.remedies.is_some(), "remedies"),
                    (ft.pareto.is_some(), "pareto"),
                ] {
                    if bad {
                        return Err(self.err(
                            0..0,
                            &format!("flow.{what}"),
                            format!("no flow.{what} on a TFRC flow (TCP only)"),
                            None,
                        ));
                    }
                }
                self.tfrc(ft.tfrc.as_ref()).map(FlowKind::Tfrc)
            }
            "pareto" => self.pareto_kind(ft),
            other => Err(self.err(
                ft.kind.as_ref().map_or(0..0, |k| k.span()),
                "flow.kind",
                "\"tcp\", \"tfrc\" or \"pareto\"",
                Some(format!("{other:?}")),
            )),
        }
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
