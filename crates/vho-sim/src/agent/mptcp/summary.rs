//! What `summary.json` says of an MPTCP flow (`flows[].mptcp`) and its per-subflow series
//! (`series_mptcp.parquet`), named as the kernel names them where it has the figure
//! (`MPTCP_INFO`'s `mptcpi_*`, a subflow's `TCP_INFO` `tcpi_*`, include/uapi/linux/mptcp.h
//! and tcp.h), so that `vho emulate --multipath` can write the same keys.

use super::{Life, MptcpSink, MptcpSource};
use crate::time::Time;
use serde::Serialize;

/// One subflow's state at an instant (a row whenever it changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MptcpSample {
    pub t: Time,
    /// The subflow's id: its order of creation in the connection, never reused (a subflow
    /// re-created over an interface gets a new one).
    pub subflow: u8,
    pub link: u32,
    /// Bytes (`tcpi_snd_cwnd` times `tcpi_snd_mss`).
    pub cwnd: u32,
    pub mss: u32,
    pub srtt_ns: u64,
    /// Data bytes sent, retransmissions included (`tcpi_bytes_sent`), and acknowledged
    /// (`tcpi_bytes_acked`).
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    /// Whether it is open (false from its close on).
    pub open: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct SubflowSummary {
    pub id: u8,
    /// The mobile's interface (its access link's name) the subflow runs over.
    pub interface: String,
    pub backup: bool,
    pub opened_s: f64,
    /// When its interface's address was removed (`null`: open to the end).
    pub closed_s: Option<f64>,
    /// `tcpi_bytes_sent`, `tcpi_bytes_acked`, `tcpi_total_retrans` (segments).
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    pub total_retrans: u64,
    /// Data-level bytes reinjected onto it (stranded on another subflow, or resent by the
    /// connection's timer).
    pub bytes_reinjected: u64,
    /// Data bytes the receiver got on it (`tcpi_bytes_received`).
    pub bytes_received: u64,
}

/// One handover of the flow's mobile, as the connection lived it.
#[derive(Clone, Debug, Serialize)]
pub struct MptcpHandover {
    pub at_s: f64,
    /// The interface left (its path lost) and the one taken.
    pub lost: String,
    pub taken: String,
    /// Time to resume: from the handover to the connection's in-order data moving on again
    /// with data that came over another interface than the one lost (`null`: it never did).
    pub resume_s: Option<f64>,
    /// Time to fail back: from the handover to the first data on a subflow over the interface
    /// taken, when an earlier handover had left that interface (its return); `null`
    /// otherwise, or when no data came over it again.
    pub failback_s: Option<f64>,
}

/// One link schedule that took the path of one of the mobile's interfaces away (`[[schedule]]`
/// with a `state` other than `up`: the interface stays as it was, the path manager hears
/// nothing), as the connection lived it: the stale rule and reinjection alone react.
#[derive(Clone, Debug, Serialize)]
pub struct MptcpOutage {
    pub at_s: f64,
    /// When the path returned (the entry's `until`, or a later entry setting it `up`; `null`:
    /// never in the scenario).
    pub until_s: Option<f64>,
    /// The interface whose path went, and the state the schedule set (blackhole, outage,
    /// down).
    pub interface: String,
    pub state: &'static str,
    /// Time to resume, as a handover's: from `at_s` to the connection's in-order data moving
    /// on again with data over another interface (`null`: it never did).
    pub resume_s: Option<f64>,
    /// Time to fail back: from `until_s` to the first data arriving over the interface again
    /// (`null`: no return, or no data came over it after).
    pub failback_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MptcpSummary {
    pub scheduler: &'static str,
    pub congestion_control: &'static str,
    /// Subflows the connection had over its life (`mptcpi_subflows` counts the open ones).
    pub subflows_created: u64,
    /// Data-level bytes sent again (`mptcpi_bytes_retrans`).
    pub bytes_retrans: u64,
    /// Reinjections: the timer's and stranded data's pushes.
    pub reinjections: u64,
    /// Subflows found stale (`MPTCP_MIB_SUBFLOWSTALE`).
    pub stale_subflows: u64,
    /// Bytes the receiver got twice at the data level (a reinjection's copy arriving after the
    /// original).
    pub duplicate_bytes: u64,
    pub subflows: Vec<SubflowSummary>,
    pub handovers: Vec<MptcpHandover>,
    /// The link schedules that took an interface's path away, the run having reached them.
    pub outages: Vec<MptcpOutage>,
}

/// The flow's record from its two ends; `happened`, the instants of the handovers the run
/// reached; `now`, the run's end.
pub fn summary(s: &MptcpSource, r: &MptcpSink, happened: &[Time], now: Time) -> MptcpSummary {
    let name = |iface: u8| r.paths.names[usize::from(iface)].clone();
    let closed = |l: Life| match l {
        Life::Open => None,
        Life::Closed(t) => Some(t.as_secs_f64()),
    };
    let subflows = s
        .subflows
        .iter()
        .map(|x| {
            let st = x.tcp.stats();
            let received = r
                .subflows
                .iter()
                .find(|y| y.port == x.port)
                .map_or(0, |y| y.data_bytes);
            SubflowSummary {
                id: x.id,
                interface: name(x.iface),
                backup: x.backup,
                opened_s: x.opened.as_secs_f64(),
                closed_s: closed(x.life),
                bytes_sent: st.data_bytes_sent,
                bytes_acked: x.tcp.data_offsets().1,
                total_retrans: st.retransmissions,
                bytes_reinjected: x.reinjected,
                bytes_received: received,
            }
        })
        .collect();
    let handovers = r
        .handovers
        .iter()
        .filter(|(t, _, _)| happened.contains(t))
        .map(|&(at, from, to)| {
            // Data over another path than the one lost moves the connection on again.
            let resume = r
                .progress
                .iter()
                .find(|&&(p, iface)| p >= at && iface != from)
                .map(|&(p, _)| p);
            // The interface taken returns if an earlier handover had left it.
            let returning = r
                .handovers
                .iter()
                .any(|&(t, lost, _)| t < at && lost == to && happened.contains(&t));
            let failback = returning
                .then(|| {
                    r.subflows
                        .iter()
                        .filter(|y| y.iface == to)
                        .filter_map(|y| y.arrivals.iter().find(|&&a| a >= at))
                        .min()
                })
                .flatten();
            MptcpHandover {
                at_s: at.as_secs_f64(),
                lost: name(from),
                taken: name(to),
                resume_s: resume.map(|p| p.saturating_since(at).as_secs_f64()),
                failback_s: failback.map(|a| a.saturating_since(at).as_secs_f64()),
            }
        })
        .collect();
    let outages = r
        .outages
        .iter()
        .filter(|&&(at, ..)| at <= now)
        .map(|&(at, until, iface, state)| {
            let resume = r
                .progress
                .iter()
                .find(|&&(p, i)| p >= at && i != iface)
                .map(|&(p, _)| p.saturating_since(at).as_secs_f64());
            let failback = until.and_then(|u| {
                r.subflows
                    .iter()
                    .filter(|y| y.iface == iface)
                    .filter_map(|y| y.arrivals.iter().find(|&&a| a >= u))
                    .min()
                    .map(|a| a.saturating_since(u).as_secs_f64())
            });
            MptcpOutage {
                at_s: at.as_secs_f64(),
                until_s: until.map(Time::as_secs_f64),
                interface: name(iface),
                state: state.name(),
                resume_s: resume,
                failback_s: failback,
            }
        })
        .collect();
    MptcpSummary {
        scheduler: s.paths.cfg.scheduler.name(),
        congestion_control: s.paths.cfg.coupling.name(),
        subflows_created: s.subflows.len() as u64,
        bytes_retrans: s.bytes_reinjected,
        reinjections: s.reinjections,
        stale_subflows: s.stale_events,
        duplicate_bytes: r.rx.duplicate_bytes,
        subflows,
        handovers,
        outages,
    }
}
