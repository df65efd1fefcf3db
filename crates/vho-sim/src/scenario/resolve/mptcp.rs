//! `[[flow]] kind = "mptcp"` and `[flow.mptcp]`: a Multipath TCP connection
//! (`crate::traffic::mptcp`, `agent::mptcp`) between a mobile host and another host.

use super::*;
use crate::traffic::mptcp::{flags, Coupling, Endpoint, MptcpConfig, MAX_ENDPOINTS};

impl Ctx<'_> {
    /// The kind and the keys that need no topology; the endpoints are `mptcp_paths`'s.
    pub(super) fn mptcp_kind(&self, ft: &FlowT) -> R<FlowKind> {
        self.refuse_keys(
            ft,
            &["remedies", "tfrc", "pareto", "cbr", "probe"],
            "an MPTCP flow",
        )?;
        let mut cfg = MptcpConfig::default();
        let Some(t) = &ft.mptcp else {
            return Ok(FlowKind::Mptcp(cfg));
        };
        let t = t.get_ref();
        if let Some(s) = &t.scheduler {
            if s.get_ref() != "default" {
                return Err(self.err(
                    s.span(),
                    "flow.mptcp.scheduler",
                    "\"default\" (Linux's mptcp_subflow_get_send)",
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
        }
        if let Some(s) = &t.congestion_control {
            cfg.coupling = match s.get_ref().as_str() {
                "uncoupled" => Coupling::Uncoupled,
                "lia" => Coupling::Lia,
                "olia" => Coupling::Olia,
                _ => {
                    return Err(self.err(
                        s.span(),
                        "flow.mptcp.congestion_control",
                        "\"uncoupled\" (Linux upstream: each subflow runs tcp.cc on its own), \
                         \"lia\" (RFC 6356) or \"olia\" (Khalili et al. 2013), the last two \
                         over tcp.cc reno or newreno",
                        Some(format!("{:?}", s.get_ref())),
                    ))
                }
            };
        }
        if let Some(n) = &t.stale_loss_cnt {
            cfg.stale_loss_cnt = match u8::try_from(*n.get_ref()) {
                Ok(v) if v >= 1 => v,
                _ => {
                    return Err(self.err(
                        n.span(),
                        "flow.mptcp.stale_loss_cnt",
                        "an integer from 1 to 255",
                        Some(n.get_ref().to_string()),
                    ))
                }
            };
        }
        if let Some(n) = &t.max_subflows {
            cfg.max_subflows = match u8::try_from(*n.get_ref()) {
                Ok(v) if usize::from(v) <= MAX_ENDPOINTS => v,
                _ => {
                    return Err(self.err(
                        n.span(),
                        "flow.mptcp.max_subflows",
                        format!("an integer from 0 to {MAX_ENDPOINTS}"),
                        Some(n.get_ref().to_string()),
                    ))
                }
            };
        }
        if let Some(n) = &t.add_addr_accepted {
            cfg.add_addr_accepted = match u8::try_from(*n.get_ref()) {
                Ok(v) if usize::from(v) <= MAX_ENDPOINTS => v,
                _ => {
                    return Err(self.err(
                        n.span(),
                        "flow.mptcp.add_addr_accepted",
                        format!(
                            "an integer from 0 to {MAX_ENDPOINTS} (ip mptcp limits set \
                             add_addr_accepted; the kernel refuses more)"
                        ),
                        Some(n.get_ref().to_string()),
                    ))
                }
            };
        }
        Ok(FlowKind::Mptcp(cfg))
    }

    /// The flow's mobile host and its endpoints: `endpoints` names the mobile's interfaces;
    /// without it, every interface but the initial one is a `subflow` endpoint (what
    /// `vho emulate --multipath` configures).
    pub(super) fn mptcp_paths(
        &self,
        ft: &FlowT,
        b: &Builder,
        src: NodeIdx,
        dst: NodeIdx,
        cfg: &mut MptcpConfig,
    ) -> R<()> {
        let Some(m) = b.mobiles.iter().find(|m| m.node == src || m.node == dst) else {
            return Err(self.err(
                ft.from.span(),
                "flow.from",
                "an MPTCP flow with a mobile host at one end (its interfaces are the paths)",
                Some(format!("{:?} -> {:?}", ft.from.get_ref(), ft.to.get_ref())),
            ));
        };
        let given = ft
            .mptcp
            .as_ref()
            .and_then(|t| t.get_ref().endpoints.as_ref());
        let Some(eps) = given else {
            for (i, &l) in m.interfaces.iter().enumerate() {
                if l != m.initial {
                    cfg.set(Endpoint {
                        interface: i as u8,
                        flags: flags::SUBFLOW,
                    });
                }
            }
            return Ok(());
        };
        for (name, fl) in eps.get_ref() {
            let field = "flow.mptcp.endpoints";
            let Some(i) = m.interfaces.iter().position(|&l| &b.links[l].name == name) else {
                let names: Vec<&str> = m
                    .interfaces
                    .iter()
                    .map(|&l| b.links[l].name.as_str())
                    .collect();
                return Err(self.err(
                    eps.span(),
                    field,
                    format!("the mobile's interfaces: {}", names.join(", ")),
                    Some(format!("{name:?}")),
                ));
            };
            let mut bits = 0;
            for f in fl {
                bits |= match f.get_ref().as_str() {
                    "subflow" => flags::SUBFLOW,
                    "backup" => flags::BACKUP,
                    "fullmesh" => flags::FULLMESH,
                    "signal" => flags::SIGNAL,
                    other => {
                        return Err(self.err(
                            f.span(),
                            field,
                            "flags among signal, subflow, backup, fullmesh",
                            Some(format!("{other:?}")),
                        ))
                    }
                };
            }
            // `mptcp_pm_nl_add_addr_doit` (net/mptcp/pm_kernel.c): "flags mustn't have both
            // signal and fullmesh" (EINVAL).
            if bits & flags::SIGNAL != 0 && bits & flags::FULLMESH != 0 {
                return Err(self.err(
                    eps.span(),
                    field,
                    "signal or fullmesh, not both (the kernel refuses the endpoint: \
                     mptcp_pm_nl_add_addr_doit)",
                    Some(format!("{name} = [\"signal\", \"fullmesh\"]")),
                ));
            }
            cfg.set(Endpoint {
                interface: i as u8,
                flags: bits,
            });
        }
        Ok(())
    }
}
