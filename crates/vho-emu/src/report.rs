//! What an emulation reports beside its captures: the world's links and handovers, each
//! flow's end-to-end result, and the emulator's check of itself (was it the emulator, not the
//! modelled link, that limited the traffic?).

use crate::bulk::{ReceiverResult, SenderResult, TcpInfoSample};
use crate::mptcp_info::{MptcpTrace, SubflowRow};
use serde::Serialize;
use vho_sim::spec::Spec;
use vho_sim::time::Dur;

#[derive(Serialize)]
pub struct Report {
    /// The links and handovers, as `vho run`'s summary has them (its flows are empty: the
    /// kernel's are measured from the captures and below).
    pub world: vho_sim::world::Summary,
    pub emulator: EmulatorReport,
    pub flows: Vec<FlowReport>,
    /// The user's command's exit status, when one ran.
    pub command_exit: Option<i32>,
    /// Each host's address inside the emulation (a multipath mobile's first interface's).
    pub addresses: Vec<(String, String)>,
    /// Whether the mobile had an address per interface and the flows were Multipath TCP.
    pub multipath: bool,
    /// A capture that could not be written (a full disk): the run stopped at once, and the
    /// captures hold what was written until then.
    pub capture_error: Option<String>,
}

#[derive(Serialize)]
pub struct FlowReport {
    pub name: String,
    /// The data sender's and receiver's node names, and the receiver's port.
    pub from: String,
    pub to: String,
    pub port: u16,
    /// The mobile whose handovers the flow crosses (the one at either end, or the mobile router
    /// its end sits behind): its handovers, not another mobile's, are the flow's for t_a.
    pub mobile: Option<String>,
    pub cc: String,
    pub bytes: u64,
    pub start_s: f64,
    pub connected_s: Option<f64>,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    pub completed: bool,
    /// From the flow's start until its receiver read the last byte.
    pub transfer_time_s: Option<f64>,
    pub error: Option<String>,
    pub tcp_info: Vec<TcpInfoSample>,
    /// Multipath TCP: the sender's subflows as the kernel reported them (`MPTCP_FULL_INFO`).
    pub mptcp: Option<MptcpReport>,
    /// Multipath TCP: the receiver's subflows (`bytes_received` in their rows, `progress`).
    pub receiver_mptcp: Option<MptcpReport>,
}

/// What the kernel told of a Multipath TCP connection, in `vho run`'s terms
/// (`vho_sim::agent::mptcp::summary`): its subflows, each over a mobile's interface, and a row
/// per subflow whenever its state changed.
#[derive(Serialize)]
pub struct MptcpReport {
    /// Subflows seen over the connection's life.
    pub subflows_created: u64,
    /// `mptcpi_bytes_retrans` at the last reading (Linux 6.9 and later).
    pub bytes_retrans: Option<u64>,
    /// `mptcpi_bytes_sent`, `mptcpi_bytes_acked` at the last reading.
    pub bytes_sent: Option<u64>,
    pub bytes_acked: Option<u64>,
    /// Readings taken (one per sample interval while the connection lived).
    pub readings: u64,
    pub subflows: Vec<SubflowReport>,
    pub series: Vec<SubflowRow>,
    /// (instant ns, `mptcpi_rcv_nxt`) whenever the data level had moved on.
    pub progress: Vec<(u64, u64)>,
}

#[derive(Serialize)]
pub struct SubflowReport {
    pub id: u32,
    /// The kernel's `subflow_id` (`crate::mptcp_info`).
    pub kernel_id: u32,
    /// The mobile's interface (its access link's name) the subflow runs over; `null` where
    /// neither address is a multipath mobile's.
    pub interface: Option<String>,
    pub local: String,
    pub remote: String,
    pub opened_s: f64,
    pub closed_s: Option<f64>,
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    pub total_retrans: u64,
}

impl MptcpReport {
    fn new(spec: &Spec, t: MptcpTrace) -> MptcpReport {
        let dotted = |a: [u8; 4]| format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
        // The end at the mobile is the address of one of its interfaces (`iface_addr`).
        let interface = |a: [u8; 4], b: [u8; 4]| {
            [a, b]
                .iter()
                .find_map(|x| match crate::emulator::node_of(x) {
                    Some((_, Some(l))) => spec.links.get(l).map(|l| l.name.clone()),
                    _ => None,
                })
        };
        MptcpReport {
            subflows_created: t.subflows.len() as u64,
            bytes_retrans: t.bytes_retrans,
            bytes_sent: t.bytes_sent,
            bytes_acked: t.bytes_acked,
            readings: t.readings,
            subflows: t
                .subflows
                .iter()
                .map(|x| SubflowReport {
                    id: x.id,
                    kernel_id: x.kernel_id,
                    interface: interface(x.local, x.remote),
                    local: dotted(x.local),
                    remote: dotted(x.remote),
                    opened_s: x.opened_ns as f64 / 1e9,
                    closed_s: x.closed_ns.map(|c| c as f64 / 1e9),
                    bytes_sent: x.bytes_sent,
                    bytes_acked: x.bytes_acked,
                    total_retrans: u64::from(x.total_retrans),
                })
                .collect(),
            series: t.rows,
            progress: t.progress,
        }
    }
}

impl FlowReport {
    pub fn new(
        spec: &Spec,
        f: usize,
        port: u16,
        cc: &str,
        r: ReceiverResult,
        s: SenderResult,
    ) -> FlowReport {
        let fs = &spec.flows[f];
        let start = fs.start.as_nanos();
        FlowReport {
            name: fs.name.clone(),
            from: spec.nodes[fs.src].name.clone(),
            to: spec.nodes[fs.dst].name.clone(),
            port,
            mobile: (0..spec.mobiles.len())
                .find(|&m| {
                    vho_sim::spec::reached_through(spec, m, fs.dst)
                        || vho_sim::spec::reached_through(spec, m, fs.src)
                })
                .map(|m| spec.nodes[spec.mobiles[m].node].name.clone()),
            cc: cc.to_string(),
            bytes: fs.bytes,
            start_s: start as f64 / 1e9,
            connected_s: s.connected_at_ns.map(|t| t as f64 / 1e9),
            sent_bytes: s.sent_bytes,
            received_bytes: r.received_bytes,
            completed: r.completed_at_ns.is_some(),
            transfer_time_s: r
                .completed_at_ns
                .map(|t| t.saturating_sub(start) as f64 / 1e9),
            error: s.error.or(r.error),
            tcp_info: s.samples,
            // None where no reading succeeded (a kernel before 6.6, or a fallback to TCP).
            mptcp: s
                .mptcp
                .filter(|t| t.readings > 0)
                .map(|t| MptcpReport::new(spec, t)),
            receiver_mptcp: r
                .mptcp
                .filter(|t| t.readings > 0)
                .map(|t| MptcpReport::new(spec, t)),
        }
    }
}

/// Percentiles of a timing error, µs.
#[derive(Serialize, Default, Clone, Copy, Debug)]
pub struct Percentiles {
    pub count: u64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl Percentiles {
    fn of(v: &mut [Dur]) -> Percentiles {
        if v.is_empty() {
            return Percentiles::default();
        }
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_nanos() as f64 / 1e3;
        Percentiles {
            count: v.len() as u64,
            p50_us: at(0.5),
            p99_us: at(0.99),
            max_us: at(1.0),
        }
    }
}

/// Timing errors as the loop measures them.
#[derive(Default)]
pub struct Accuracy {
    /// Per packet handed to a host: the instant written minus the instant the model
    /// delivered it.
    pub delivery: Vec<Dur>,
    /// Per wake-up for an event: the instant the loop ran minus the event's.
    pub wakeup: Vec<Dur>,
}

impl Accuracy {
    pub fn summarise(mut self) -> AccuracyReport {
        AccuracyReport {
            delivery_lateness: Percentiles::of(&mut self.delivery),
            wakeup_lateness: Percentiles::of(&mut self.wakeup),
        }
    }
}

#[derive(Serialize, Default, Debug)]
pub struct AccuracyReport {
    pub delivery_lateness: Percentiles,
    pub wakeup_lateness: Percentiles,
}

/// A p99 delivery lateness above this says the emulator, not the model, set the timing.
/// Open: our choice, a tenth of the shortest one-way delay of the shipped presets (WLAN's
/// 1-2 ms) would be 100 µs; we judge at 1 ms and report the figures for the user to judge
/// finer.
pub const LATE_P99: Dur = Dur::from_millis(1);
/// A loop busy more than this share of the run's wall time had no headroom. Busy: its CPU
/// time less the time it spent polling without sleeping just before an instant (the spin,
/// `crate::clock`), which is waiting, not work.
pub const BUSY_SHARE: f64 = 0.9;

#[derive(Serialize, Default, Debug)]
pub struct EmulatorReport {
    pub packets_in: u64,
    pub bytes_in: u64,
    pub packets_out: u64,
    pub bytes_out: u64,
    /// Dropped by the modelled network (queues, loss, handovers).
    pub dropped_in_network: u64,
    /// Read from a host but addressed to no host (not IPv4, or not an emulated address).
    pub unroutable: u64,
    /// Delivered by the model but refused by the host's device queue.
    pub host_queue_drops: u64,
    /// The most packets in the emulated network at once.
    pub max_in_flight: u64,
    /// Whether the devices had segmentation offloads (`crate::gso`, `crate::gro`).
    pub offload: bool,
    /// GSO packets read from the hosts and the segments cut from them (counted in
    /// `packets_in` too).
    pub gso_reads: u64,
    pub gso_segments: u64,
    /// Writes to a host that carried more than one segment, and the segments they carried
    /// (counted in `packets_out` too).
    pub gro_writes: u64,
    pub gro_segments: u64,
    /// How long the loop waited for the captures' writers (their queues full, `crate::capture`).
    pub capture_wait_s: f64,
    pub wall_s: f64,
    /// CPU time of the emulator's loop thread (user + system).
    pub loop_cpu_s: f64,
    /// Of which polling without sleeping before an instant (the spin, `crate::clock`; wall
    /// time, nearly all of it CPU).
    pub loop_spin_s: f64,
    pub spin_us: u64,
    pub accuracy: AccuracyReport,
    /// Whether the emulator may have limited the traffic, and why.
    pub limited_by_emulator: bool,
    pub reasons: Vec<String>,
    pub kernel: String,
    pub vho_version: String,
}

impl EmulatorReport {
    /// Judges whether the emulator, not the modelled links, limited the run.
    pub fn judge(&mut self) {
        self.vho_version = env!("CARGO_PKG_VERSION").to_string();
        let late = self.accuracy.delivery_lateness.p99_us;
        if late > LATE_P99.as_nanos() as f64 / 1e3 {
            self.reasons.push(format!(
                "p99 delivery lateness {late:.0} µs exceeds {} µs",
                LATE_P99.as_nanos() / 1000
            ));
        }
        let busy = (self.loop_cpu_s - self.loop_spin_s).max(0.0);
        if self.wall_s > 0.0 && busy / self.wall_s > BUSY_SHARE {
            self.reasons.push(format!(
                "the loop was busy {:.0} % of the run (its spin excluded)",
                100.0 * busy / self.wall_s
            ));
        }
        if self.host_queue_drops > 0 {
            self.reasons.push(format!(
                "{} packets refused by a host's device queue",
                self.host_queue_drops
            ));
        }
        self.limited_by_emulator = !self.reasons.is_empty();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_the_nearest_ranks_in_microseconds() {
        let mut v: Vec<Dur> = (1..=100).rev().map(Dur::from_micros).collect();
        let p = Percentiles::of(&mut v);
        assert_eq!(
            (p.count, p.p50_us, p.p99_us, p.max_us),
            (100, 51.0, 99.0, 100.0)
        );
        assert_eq!(Percentiles::of(&mut []).count, 0);
    }

    #[test]
    fn the_emulator_judges_itself_limited_by_lateness_cpu_or_refused_packets() {
        let mut ok = EmulatorReport {
            wall_s: 10.0,
            loop_cpu_s: 1.0,
            ..Default::default()
        };
        ok.accuracy.delivery_lateness.p99_us = 50.0;
        ok.judge();
        assert!(!ok.limited_by_emulator && ok.reasons.is_empty());
        let mut late = EmulatorReport {
            wall_s: 10.0,
            loop_cpu_s: 9.5,
            host_queue_drops: 3,
            ..Default::default()
        };
        late.accuracy.delivery_lateness.p99_us = 5_000.0;
        late.judge();
        assert!(late.limited_by_emulator);
        assert_eq!(late.reasons.len(), 3, "{:?}", late.reasons);
        // Spinning before instants is waiting: 9.5 s of CPU of which 6 s spun is 35 % busy.
        let mut spinning = EmulatorReport {
            wall_s: 10.0,
            loop_cpu_s: 9.5,
            loop_spin_s: 6.0,
            ..Default::default()
        };
        spinning.judge();
        assert!(!spinning.limited_by_emulator, "{:?}", spinning.reasons);
    }
}
