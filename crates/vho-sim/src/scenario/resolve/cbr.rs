//! `[[flow]] kind = "cbr"` and `[flow.cbr]`: a constant-bit-rate UDP stream
//! (`crate::traffic::cbr`, `agent::cbr`).

use super::*;
use crate::traffic::cbr::CbrConfig;

impl Ctx<'_> {
    pub(super) fn cbr_kind(&self, ft: &FlowT) -> R<FlowKind> {
        self.refuse_keys(
            ft,
            &["tcp", "remedies", "tfrc", "pareto", "mptcp", "probe"],
            "a CBR flow",
        )?;
        let mut cfg = CbrConfig::default();
        let Some(t) = &ft.cbr else {
            return Ok(FlowKind::Cbr(cfg));
        };
        let t = t.get_ref();
        if let Some(r) = &t.rate {
            let bps = self.with(r, "flow.cbr.rate", units::rate_bps)?;
            if bps == 0 {
                return Err(self.err(
                    r.span(),
                    "flow.cbr.rate",
                    "a positive rate",
                    Some(format!("{:?}", r.get_ref())),
                ));
            }
            cfg.rate_bps = bps;
        }
        if let Some(s) = &t.packet_size {
            let bytes = self.with(s, "flow.cbr.packet_size", units::size_bytes)?;
            // A UDP payload: at least one byte, at most what one IPv4 datagram carries.
            if bytes == 0 || bytes > 65_000 {
                return Err(self.err(
                    s.span(),
                    "flow.cbr.packet_size",
                    "a size from 1 B to 65000 B",
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            cfg.packet_size = bytes as u32;
        }
        // The no-progress guard's floor: a datagram per microsecond at most (a 1 kb/s link
        // of 1-byte datagrams is 125 a second; 65 kB at 100 Gb/s is one per 5 µs).
        if cfg.interval().as_nanos() < 1_000 {
            return Err(self.err(
                t.rate.as_ref().map_or(0..0, |r| r.span()),
                "flow.cbr.rate",
                "a rate that sends at most one datagram a microsecond (rate / 8 / packet_size \
                 up to 1,000,000 per second)",
                Some(format!(
                    "{} b/s in {} B datagrams",
                    cfg.rate_bps, cfg.packet_size
                )),
            ));
        }
        Ok(FlowKind::Cbr(cfg))
    }
}
