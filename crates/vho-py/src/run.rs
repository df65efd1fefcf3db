//! `run_scenario`: load, validate and simulate a scenario, writing the captures it asks for.
//! Captures go to the paths the caller names (temporary names; the Python side renames them
//! into place only once the run has finished).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use vho_sim::agent::mptcp::wire::{self, MptcpKeys};
use vho_sim::agent::Payload;
use vho_sim::packet::Packet;
use vho_sim::record::hops::Hops;
use vho_sim::record::pcap::{PcapWriter, WriteSink};
use vho_sim::record::pcap6::{self, Ipv6Plan};
use vho_sim::record::series::{RowSink, Rows, SeriesId};
use vho_sim::time::Time;
use vho_sim::world::{self, PacketTap};

type FileSink = WriteSink<BufWriter<File>>;

/// IPv4 address of node `i` in captures: 10.0.x.y, one per node.
pub fn node_ip(i: usize) -> [u8; 4] {
    let n = i + 1;
    [10, 0, (n >> 8) as u8, (n & 0xff) as u8]
}

struct PcapTap {
    writer: PcapWriter<FileSink>,
    /// The node the capture is taken at.
    node: usize,
    /// Routers between nodes: each IPv4 TTL is 64 less those the packet has passed.
    hops: Hops,
    /// A Mobile IPv6 run's addresses: its packets are written as IPv6.
    ipv6: Option<Ipv6Plan>,
    buf: Vec<u8>,
    /// The run's seed: an MPTCP connection's keys in the capture derive from it
    /// (`MptcpKeys::of`).
    seed: u64,
}

impl PcapTap {
    fn ttl(&self, pkt: &Packet) -> u8 {
        self.hops.ttl(pkt.src as usize, self.node)
    }
}

impl PacketTap for PcapTap {
    fn packet(&mut self, now: Time, pkt: &Packet) {
        if let Some(plan) = &self.ipv6 {
            self.buf.clear();
            let zeros = pcap6::encode(&mut self.buf, pkt, plan, self.node);
            self.writer.write_record(now, &self.buf, zeros);
            return;
        }
        let src = node_ip(pkt.src as usize);
        let dst = node_ip(pkt.dst as usize);
        let ttl = self.ttl(pkt);
        self.writer
            .write_segment(now, src, dst, pkt.ip_id, ttl, &pkt.seg, &[]);
    }
    fn segment_with(&mut self, now: Time, pkt: &Packet, payload: &Payload) {
        let Payload::Mptcp(opt) = payload else {
            return self.packet(now, pkt);
        };
        // An MPTCP subflow's segment (IPv4 only: MPTCP refuses Mobile IPv6), its option
        // written as Linux lays it out (`agent::mptcp::wire`).
        if self.ipv6.is_some() {
            return self.packet(now, pkt);
        }
        let src = node_ip(pkt.src as usize);
        let dst = node_ip(pkt.dst as usize);
        let keys = MptcpKeys::of(self.seed, pkt.flow);
        let mut extra = [0u8; 40];
        let n = wire::encode(&mut extra, opt, &pkt.seg, pkt.to_receiver, &keys, src, dst);
        let ttl = self.ttl(pkt);
        self.writer
            .write_segment(now, src, dst, pkt.ip_id, ttl, &pkt.seg, &extra[..n]);
    }
    fn datagram(&mut self, now: Time, pkt: &Packet, payload: &Payload) {
        // IPv4 captures only (a Mobile IPv6 run carries no TFRC; cross traffic and CBR in one
        // are not written).
        if self.ipv6.is_some() {
            return;
        }
        let f = pkt.flow as u16;
        let (sp, rp) = (5001u16.wrapping_add(f), 40001u16.wrapping_add(f));
        let flow_ports = if pkt.to_receiver { (sp, rp) } else { (rp, sp) };
        self.buf.clear();
        let src = node_ip(pkt.src as usize);
        let dst = node_ip(pkt.dst as usize);
        let ttl = self.ttl(pkt);
        let zeros = match payload {
            Payload::Tfrc(hdr) => vho_sim::record::pcap_tfrc::encode_tfrc(
                &mut self.buf,
                src,
                dst,
                pkt.ip_id,
                ttl,
                flow_ports,
                hdr,
            ),
            // Cross traffic: ports of their own, as before there were agents.
            Payload::None => vho_sim::record::pcap_cross::encode_cross(
                &mut self.buf,
                src,
                dst,
                pkt.ip_id,
                ttl,
                (6001u16.wrapping_add(f), 50001u16.wrapping_add(f)),
                pkt.wire_bytes,
            ),
            // A subflow's segment is a TCP packet: written by `packet`, never here.
            Payload::Mptcp(_) => return,
            // A CBR datagram on the flow's ports, its payload zeros.
            Payload::Cbr(_) => vho_sim::record::pcap_cross::encode_cross(
                &mut self.buf,
                src,
                dst,
                pkt.ip_id,
                ttl,
                flow_ports,
                pkt.wire_bytes,
            ),
        };
        self.writer.write_record(now, &self.buf, zeros);
    }
    fn finish(&mut self) -> Result<(), String> {
        self.writer.sink_mut().finish().map_err(|e| e.to_string())
    }
}

/// A sink that could not be opened: it takes nothing and reports why when finished.
struct Unopened(String);

impl RowSink for Unopened {
    fn rows(&mut self, _bytes: &[u8]) {}
    fn finish(&mut self) -> Result<(), String> {
        Err(self.0.clone())
    }
}

/// Where series `id` spills in directory `dir` (a hidden file the Python side turns into
/// Parquet and removes: `vho.runner`).
fn spill_path(dir: &Path, id: SeriesId) -> PathBuf {
    dir.join(format!(".series-{}.rows", id.name()))
}

/// A series' rows for Python, in its `Rows` layout (`vho.runner.ROWS`): `{"rows": n, "path":
/// file}` when it spilled into `dir` (the run's staging directory), `{"rows": n, "data":
/// bytes}` when the run held it (no output directory).
fn rows_entry<'py, S: Rows>(
    py: Python<'py>,
    s: &mut S,
    id: SeriesId,
    dir: Option<&Path>,
) -> PyResult<Bound<'py, PyDict>> {
    let e = PyDict::new(py);
    match (s.end_spill(), dir) {
        (Some(Ok(rows)), Some(dir)) => {
            e.set_item("rows", rows)?;
            e.set_item("path", spill_path(dir, id))?;
        }
        (Some(Err(err)), _) => {
            return Err(crate::errors::io_error(&format!(
                "series {}: cannot write: {err}",
                id.name()
            )))
        }
        _ => {
            // Held: as many bytes as the rows take, written in place.
            let data = PyBytes::new_with(py, s.held() * S::ROW_BYTES, |buf| {
                s.encode(buf);
                Ok(())
            })?;
            e.set_item("rows", s.held())?;
            e.set_item("data", data)?;
        }
    }
    Ok(e)
}

/// Per flow, a series' entry (`rows_entry`) or None.
fn per_flow<'py, S: Rows>(
    py: Python<'py>,
    series: &mut [Option<S>],
    id: impl Fn(usize) -> SeriesId,
    dir: Option<&Path>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (f, s) in series.iter_mut().enumerate() {
        match s {
            Some(s) => list.append(rows_entry(py, s, id(f), dir)?)?,
            None => list.append(py.None())?,
        }
    }
    Ok(list)
}

/// A column of a held series as the little-endian bytes of its values as f64 (numpy's
/// `"<f8"`): 8 bytes a row, made one column at a time.
fn column<'py, T: Copy>(
    py: Python<'py>,
    values: &[T],
    as_f64: impl Fn(T) -> f64,
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * 8, |buf| {
        for (b, &v) in buf.chunks_exact_mut(8).zip(values) {
            b.copy_from_slice(&as_f64(v).to_le_bytes());
        }
        Ok(())
    })
}

/// Runs a scenario. With `pcap_dir` (the run's staging directory) the captures the scenario
/// asks for are written there, and its series spill there as they are recorded (issue 40
/// item 14: what a long run holds does not grow with its length).
/// Returns a dict: `summary_json` (str), `scenario_hash`, `capture_nodes` (list of names);
/// the series, each an entry of `rows_entry` (rows in a spill file or in bytes) or None:
/// `tcp_series`, `tfrc_series`, `probe_series` (per flow), `queue_series`, `drop_series`
/// (every data segment dropped in the network); `drop_causes` (the names of a drop row's
/// `cause`, by index); `rx_bins` (per flow: interval_s and the bytes per interval as
/// little-endian u64s, or None when the scenario records no series), `cross_bins` (per flow: a Pareto flow's
/// interval_s and bytes sent and delivered per interval, or None for the others), `cbr_series`
/// (per flow: a CBR receiver's datagrams as they arrived, columns of f8 bytes, or None),
/// `mptcp_series` (per flow: an MPTCP connection's subflows' state whenever it changed,
/// columns of f8 bytes, or None).
#[pyfunction]
#[pyo3(signature = (label, text, overrides, seed=None, pcap_dir=None))]
pub fn run_scenario<'py>(
    py: Python<'py>,
    label: &str,
    text: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    pcap_dir: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let presets = vho_sim::scenario::PresetSet::builtin().map_err(crate::errors::to_py)?;
    let mut spec =
        vho_sim::scenario::load(label, text, &overrides, &presets).map_err(crate::errors::to_py)?;
    if let Some(s) = seed {
        spec.seed = s;
    }
    let hash = vho_sim::scenario::hash(&spec);
    let mut taps: Vec<(usize, Box<dyn PacketTap>)> = Vec::new();
    let mut capture_files = Vec::new();
    if let Some(dir) = &pcap_dir {
        for &node in &spec.record.pcap_at {
            let name = &spec.nodes[node].name;
            let path = std::path::Path::new(dir).join(format!("{name}.pcap"));
            let file = File::create(&path).map_err(|e| {
                crate::errors::io_error(&format!("{}: cannot create capture: {e}", path.display()))
            })?;
            let sink = WriteSink::new(BufWriter::with_capacity(1 << 16, file));
            taps.push((
                node,
                Box::new(PcapTap {
                    writer: PcapWriter::with_snaplen(sink, spec.record.snaplen),
                    node,
                    hops: Hops::of(&spec),
                    ipv6: Ipv6Plan::of(&spec),
                    buf: Vec::with_capacity(256),
                    seed: spec.seed,
                }),
            ));
            capture_files.push(name.clone());
        }
    }
    let spec_ref = &spec;
    let dir = pcap_dir.as_deref().map(Path::new);
    let result = py.allow_threads(move || match dir {
        Some(dir) => {
            let mut open = |id: SeriesId| -> Box<dyn RowSink> {
                let path = spill_path(dir, id);
                match File::create(&path) {
                    Ok(f) => Box::new(WriteSink::new(BufWriter::with_capacity(1 << 16, f))),
                    Err(e) => Box::new(Unopened(e.to_string())),
                }
            };
            world::run_spilling(spec_ref, taps, &mut open)
        }
        None => world::run(spec_ref, taps),
    });
    let mut out = result.map_err(|e| crate::errors::sim_error(label, e))?;
    for (node, tap) in out.taps.iter_mut() {
        tap.finish().map_err(|e| {
            crate::errors::io_error(&format!("capture at {}: {e}", spec.nodes[*node].name))
        })?;
    }
    out.summary.run.scenario_hash = hash.clone();
    let summary_json = serde_json::to_string_pretty(&out.summary)
        .map_err(|e| crate::errors::io_error(&format!("summary: {e}")))?;

    let d = PyDict::new(py);
    d.set_item("summary_json", summary_json)?;
    d.set_item("scenario_hash", hash)?;
    d.set_item("capture_nodes", capture_files)?;
    let mut tcp_series: Vec<_> = out.series.iter_mut().map(|s| s.tcp.take()).collect();
    let mut tfrc_series: Vec<_> = out.series.iter_mut().map(|s| s.tfrc.take()).collect();
    let mut probe_series: Vec<_> = out.series.iter_mut().map(|s| s.probe.take()).collect();
    let tcp = per_flow(py, &mut tcp_series, SeriesId::Tcp, dir)?;
    d.set_item("tcp_series", tcp)?;
    let tfrc = per_flow(py, &mut tfrc_series, SeriesId::Tfrc, dir)?;
    d.set_item("tfrc_series", tfrc)?;
    let probe = per_flow(py, &mut probe_series, SeriesId::Probe, dir)?;
    d.set_item("probe_series", probe)?;
    match &mut out.queue_series {
        Some(q) => d.set_item("queue_series", rows_entry(py, q, SeriesId::Queues, dir)?)?,
        None => d.set_item("queue_series", py.None())?,
    }
    match &mut out.drop_series {
        Some(q) => d.set_item("drop_series", rows_entry(py, q, SeriesId::Drops, dir)?)?,
        None => d.set_item("drop_series", py.None())?,
    }
    let causes: Vec<&str> = vho_sim::link::DropCause::ALL
        .iter()
        .map(|c| c.name())
        .collect();
    d.set_item("drop_causes", causes)?;
    let bins = PyList::empty(py);
    for b in &out.rx_bins {
        let Some(b) = b else {
            bins.append(py.None())?;
            continue;
        };
        let e = PyDict::new(py);
        e.set_item("interval_s", b.interval.as_secs_f64())?;
        // 8 bytes a bin (little-endian u64), not a Python int each: a 100,000 s run has a
        // million bins.
        let data = PyBytes::new_with(py, b.bytes.len() * 8, |buf| {
            for (out, v) in buf.chunks_exact_mut(8).zip(&b.bytes) {
                out.copy_from_slice(&v.to_le_bytes());
            }
            Ok(())
        })?;
        e.set_item("bytes", data)?;
        bins.append(e)?;
    }
    d.set_item("rx_bins", bins)?;
    let cross = PyList::empty(py);
    for b in out.series.iter().map(|s| &s.cross) {
        let Some(b) = b else {
            cross.append(py.None())?;
            continue;
        };
        let e = PyDict::new(py);
        e.set_item("interval_s", b.interval.as_secs_f64())?;
        e.set_item("sent", PyList::new(py, &b.sent)?)?;
        e.set_item("delivered", PyList::new(py, &b.delivered)?)?;
        cross.append(e)?;
    }
    d.set_item("cross_bins", cross)?;
    let cbr = PyList::empty(py);
    for s in out.series.iter().map(|s| &s.cbr) {
        match s {
            Some(s) => {
                let c = PyDict::new(py);
                c.set_item("t_ns", column(py, s, |a| a.arrived.as_nanos() as f64)?)?;
                c.set_item("seq", column(py, s, |a| a.seq as f64)?)?;
                c.set_item("sent_ns", column(py, s, |a| a.sent.as_nanos() as f64)?)?;
                c.set_item(
                    "delay_ns",
                    column(py, s, |a| {
                        a.arrived.saturating_since(a.sent).as_nanos() as f64
                    })?,
                )?;
                cbr.append(c)?
            }
            None => cbr.append(py.None())?,
        }
    }
    d.set_item("cbr_series", cbr)?;
    let mptcp = PyList::empty(py);
    for s in out.series.iter().map(|s| &s.mptcp) {
        match s {
            Some(s) => {
                let c = PyDict::new(py);
                c.set_item("t_ns", column(py, s, |a| a.t.as_nanos() as f64)?)?;
                c.set_item("subflow", column(py, s, |a| f64::from(a.subflow))?)?;
                c.set_item("link", column(py, s, |a| f64::from(a.link))?)?;
                c.set_item("cwnd", column(py, s, |a| f64::from(a.cwnd))?)?;
                c.set_item("mss", column(py, s, |a| f64::from(a.mss))?)?;
                c.set_item("srtt_ns", column(py, s, |a| a.srtt_ns as f64)?)?;
                c.set_item("bytes_sent", column(py, s, |a| a.bytes_sent as f64)?)?;
                c.set_item("bytes_acked", column(py, s, |a| a.bytes_acked as f64)?)?;
                c.set_item("open", column(py, s, |a| f64::from(u8::from(a.open)))?)?;
                mptcp.append(c)?
            }
            None => mptcp.append(py.None())?,
        }
    }
    d.set_item("mptcp_series", mptcp)?;
    Ok(d)
}

/// `run_seeds(label, text, overrides, seeds)`: one scenario run once per seed, as
/// `run_scenario(label, text, overrides, seed)` runs it without captures, the scenario loaded
/// and hashed once (the hash leaves the seed out). Per seed, in order: `(True, summary JSON)`,
/// the same text `run_scenario` gives as `summary_json`, or `(False, message)`, the message of
/// the `SimulationError` it would raise. A scenario that does not load raises, as
/// `run_scenario` does. For a sweep's replications of one point (`vho.sweep.engine`).
#[pyfunction]
pub fn run_seeds(
    py: Python<'_>,
    label: &str,
    text: &str,
    overrides: Vec<String>,
    seeds: Vec<u64>,
) -> PyResult<Vec<(bool, String)>> {
    let presets = vho_sim::scenario::PresetSet::builtin().map_err(crate::errors::to_py)?;
    let mut spec =
        vho_sim::scenario::load(label, text, &overrides, &presets).map_err(crate::errors::to_py)?;
    let hash = vho_sim::scenario::hash(&spec);
    let mut out = Vec::with_capacity(seeds.len());
    for seed in seeds {
        spec.seed = seed;
        let spec_ref = &spec;
        let result = py.allow_threads(move || world::run(spec_ref, Vec::new()));
        match result {
            Ok(mut r) => {
                r.summary.run.scenario_hash = hash.clone();
                let json = serde_json::to_string_pretty(&r.summary)
                    .map_err(|e| crate::errors::io_error(&format!("summary: {e}")))?;
                out.push((true, json));
            }
            Err(e) => out.push((false, format!("{label}: {e}"))),
        }
    }
    Ok(out)
}
