//! `[[flow]] kind = "pareto"` and `[flow.pareto]`: cross traffic from a Pareto on/off source
//! (ns-2's `Application/Traffic/Pareto`, `crate::traffic::pareto`).

use super::*;
use crate::traffic::pareto::ParetoConfig;

/// The shape a scenario gets when it names none: Chen et al.'s (seed 004 §5: "Pareto
/// distributed flows (with the parameter α = 1.9 …)"), not ns-2's 1.5; every other key
/// defaults to ns-2.35's `tcl/lib/ns-default.tcl` (`ParetoConfig::default`).
pub const DEFAULT_SHAPE: f64 = 1.9;

impl Ctx<'_> {
    pub(super) fn pareto_kind(&self, ft: &FlowT) -> R<FlowKind> {
        self.refuse_keys(
            ft,
            &["tcp", "remedies", "tfrc", "cbr", "mptcp", "size"],
            "a Pareto flow (it sends until run.stop)",
        )?;
        let mut cfg = ParetoConfig {
            shape: DEFAULT_SHAPE,
            ..ParetoConfig::default()
        };
        let Some(t) = &ft.pareto else {
            return Ok(FlowKind::Pareto(cfg));
        };
        let t = t.get_ref();
        if let Some(r) = &t.rate {
            cfg.rate_bps = self.with(r, "flow.pareto.rate", units::rate_bps)?;
        }
        if let Some(s) = &t.packet_size {
            let bytes = self.with(s, "flow.pareto.packet_size", units::size_bytes)?;
            // A datagram: at least one byte, at most 64 KiB.
            if bytes == 0 || bytes > 65_000 {
                return Err(self.err(
                    s.span(),
                    "flow.pareto.packet_size",
                    "a size from 1 B to 65000 B",
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            cfg.packet_size = bytes as u32;
        }
        for (v, field, slot) in [
            (&t.burst_time, "flow.pareto.burst_time", &mut cfg.burst_time),
            (&t.idle_time, "flow.pareto.idle_time", &mut cfg.idle_time),
        ] {
            if let Some(v) = v {
                let d = self.with(v, field, units::duration)?;
                if d == Dur::ZERO {
                    return Err(self.err(
                        v.span(),
                        field,
                        "a positive time",
                        Some(format!("{:?}", v.get_ref())),
                    ));
                }
                *slot = d;
            }
        }
        if let Some(s) = &t.shape {
            let shape = *s.get_ref();
            // Pareto means are infinite at or below 1 (ns-2 would divide by zero in p1/p2).
            if !(shape > 1.0 && shape.is_finite()) {
                return Err(self.err(
                    s.span(),
                    "flow.pareto.shape",
                    "a number above 1 (the Pareto means are infinite at or below it)",
                    Some(format!("{shape}")),
                ));
            }
            cfg.shape = shape;
        }
        // The checks above cover `validate`'s; kept as the one definition of a valid source.
        cfg.validate().map_err(|e| {
            self.err(
                0..0,
                "flow.pareto",
                "valid Pareto parameters",
                Some(e.to_string()),
            )
        })?;
        Ok(FlowKind::Pareto(cfg))
    }
}
