//! Remedies: the mechanisms the studies propose against what a vertical handover does to
//! TCP, switchable by name per flow (`[[flow]] remedies = [...]`). Each name maps to one
//! mechanism, which lives where it acts: in the TCP sender (`tcp::spurious`), in the handover
//! (`handover::transfer_queue`'s flush). Applying a remedy sets the spec's settings for that
//! mechanism, so the resolved scenario shows what it did, and applying it twice changes
//! nothing.
//!
//! - [`spurious`]: `frto`, `eifel`, `dsack-undo` (detection of spurious timeouts with their
//!   RFCs' responses), `no-restore` (Daniel & Kojo §8's response) and `fast-rto-decrease`
//!   (the timer's side of the same trouble, thesis §7.2.2).
//! - [`notice`]: `rto-reset`, `new-path`, `rtt-injection` and `adaptive-dupthresh`, on the
//!   handover notification.
//! - [`flush`]: `flush-on-handover` (thesis §7.2.3).
//! - [`proxy`]: `cwnd-clamp` and `link-flow-control`, functions of the home-agent node
//!   (`net::function`).
//! - [`red`]: `red` (thesis §7.1.5, §8.2).
//! - [`oracle`]: `oracle` and `oracle-system`, the bound the others are measured against.
//! - [`probe`]: `probe`, `ihn`, `ehn`, `fra`, `err` (Chen et al.; TFRC flows).

pub mod flush;
pub mod notice;
pub mod oracle;
pub mod probe;
pub mod proxy;
pub mod red;
pub mod spurious;

pub use crate::config::Remedy;
use crate::spec::Spec;

impl Remedy {
    pub const ALL: [Remedy; 20] = [
        Remedy::Frto,
        Remedy::Eifel,
        Remedy::DsackUndo,
        Remedy::NoRestore,
        Remedy::RtoReset,
        Remedy::NewPath,
        Remedy::RttInjection,
        Remedy::FastRtoDecrease,
        Remedy::FlushOnHandover,
        Remedy::Red,
        Remedy::CwndClamp,
        Remedy::LinkFlowControl,
        Remedy::AdaptiveDupthresh,
        Remedy::Oracle,
        Remedy::OracleSystem,
        Remedy::Probe,
        Remedy::Ihn,
        Remedy::Ehn,
        Remedy::Fra,
        Remedy::Err,
    ];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Remedy::Frto => "frto",
            Remedy::Eifel => "eifel",
            Remedy::DsackUndo => "dsack-undo",
            Remedy::NoRestore => "no-restore",
            Remedy::RtoReset => "rto-reset",
            Remedy::NewPath => "new-path",
            Remedy::RttInjection => "rtt-injection",
            Remedy::FastRtoDecrease => "fast-rto-decrease",
            Remedy::FlushOnHandover => "flush-on-handover",
            Remedy::Red => "red",
            Remedy::CwndClamp => "cwnd-clamp",
            Remedy::LinkFlowControl => "link-flow-control",
            Remedy::AdaptiveDupthresh => "adaptive-dupthresh",
            Remedy::Oracle => "oracle",
            Remedy::OracleSystem => "oracle-system",
            Remedy::Probe => "probe",
            Remedy::Ihn => "ihn",
            Remedy::Ehn => "ehn",
            Remedy::Fra => "fra",
            Remedy::Err => "err",
        }
    }

    pub fn from_name(name: &str) -> Option<Remedy> {
        Remedy::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What it does and where it comes from, one line (the scenario reference lists it).
    pub fn summary(self) -> &'static str {
        match self {
            Remedy::Frto => spurious::FRTO,
            Remedy::Eifel => spurious::EIFEL,
            Remedy::DsackUndo => spurious::DSACK_UNDO,
            Remedy::NoRestore => spurious::NO_RESTORE,
            Remedy::RtoReset => notice::RTO_RESET,
            Remedy::NewPath => notice::NEW_PATH,
            Remedy::RttInjection => notice::RTT_INJECTION,
            Remedy::FastRtoDecrease => spurious::FAST_RTO_DECREASE,
            Remedy::FlushOnHandover => flush::FLUSH_ON_HANDOVER,
            Remedy::Red => red::RED,
            Remedy::CwndClamp => proxy::CWND_CLAMP,
            Remedy::LinkFlowControl => proxy::LINK_FLOW_CONTROL,
            Remedy::AdaptiveDupthresh => notice::ADAPTIVE_DUPTHRESH,
            Remedy::Oracle => oracle::ORACLE,
            Remedy::OracleSystem => oracle::ORACLE_SYSTEM,
            Remedy::Probe => probe::PROBE,
            Remedy::Ihn => probe::IHN,
            Remedy::Ehn => probe::EHN,
            Remedy::Fra => probe::FRA,
            Remedy::Err => probe::ERR,
        }
    }

    /// Sets the spec's settings for this remedy on flow `flow`.
    pub fn apply(self, spec: &mut Spec, flow: usize) {
        match self {
            Remedy::Frto
            | Remedy::Eifel
            | Remedy::DsackUndo
            | Remedy::NoRestore
            | Remedy::FastRtoDecrease => spurious::apply(self, &mut spec.flows[flow].tcp),
            Remedy::RtoReset
            | Remedy::NewPath
            | Remedy::RttInjection
            | Remedy::AdaptiveDupthresh => notice::apply(self, spec, flow),
            Remedy::FlushOnHandover => flush::apply(spec, flow),
            Remedy::Red => red::apply(spec, flow),
            Remedy::CwndClamp => proxy::apply(crate::spec::FunctionKind::WindowClamp, spec, flow),
            Remedy::LinkFlowControl => {
                proxy::apply(crate::spec::FunctionKind::LinkFlowControl, spec, flow)
            }
            Remedy::Oracle | Remedy::OracleSystem => oracle::apply(self, spec, flow),
            Remedy::Probe | Remedy::Ihn | Remedy::Ehn | Remedy::Fra | Remedy::Err => {
                probe::apply(self, spec, flow)
            }
        }
    }
}

/// Applies every flow's remedies in [`Remedy::ALL`]'s order whatever the order listed: the
/// detectors' responses first (the last of frto, eifel, dsack-undo sets it), `no-restore`
/// over them.
pub fn apply_all(spec: &mut Spec) {
    for f in 0..spec.flows.len() {
        for r in Remedy::ALL {
            if spec.flows[f].remedies.contains(&r) {
                r.apply(spec, f);
            }
        }
    }
}
