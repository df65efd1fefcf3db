//! `run_scenario`: load, validate and simulate a scenario, writing the captures it asks for.
//! Captures go to the paths the caller names (temporary names; the Python side renames them
//! into place only once the run has finished).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::fs::File;
use std::io::BufWriter;
use vho_sim::agent::Payload;
use vho_sim::packet::Packet;
use vho_sim::record::hops::Hops;
use vho_sim::record::pcap::{PcapWriter, WriteSink};
use vho_sim::record::pcap6::{self, Ipv6Plan};
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
            .write_segment(now, src, dst, pkt.ip_id, ttl, &pkt.seg);
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

fn series_dict<'py>(py: Python<'py>, cols: &[(&str, Vec<f64>)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, values) in cols {
        d.set_item(*name, PyList::new(py, values)?)?;
    }
    Ok(d)
}

/// A column of a time series as the little-endian bytes of its values as f64 (numpy's
/// `"<f8"`, `vho.runner._columns`): 8 bytes a row, made one column at a time, where a list of
/// Python floats took 32 and every column's `Vec<f64>` was made first (issue 40 item 14: 48
/// million queue rows took 13 GB). The values are those the lists held.
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

fn u64s<T: Copy + Into<u64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| Into::<u64>::into(x) as f64).collect()
}

/// Runs a scenario. `pcap_paths` maps a capture node's name to the file to write.
/// Returns a dict: `summary_json` (str), `scenario_hash`, `capture_nodes` (list of names),
/// `tcp_series` (per flow: dict of columns or None), `queue_series` (dict or None),
/// `drop_series` (every data segment dropped in the network: dict or None),
/// `rx_bins` (per flow: interval_s and list of bytes per interval, or None when the scenario
/// records no series), `cross_bins` (per flow: a Pareto flow's interval_s and bytes sent and
/// delivered per interval, or None for the others), `cbr_series` (per flow: a CBR receiver's
/// datagrams as they arrived, or None).
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
                }),
            ));
            capture_files.push(name.clone());
        }
    }
    let spec_ref = &spec;
    let result = py.allow_threads(move || world::run(spec_ref, taps));
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
    let tcp = PyList::empty(py);
    for s in out.series.iter().map(|s| &s.tcp) {
        match s {
            Some(s) => {
                let c = PyDict::new(py);
                c.set_item("t_ns", column(py, &s.t_ns, |v| v as f64)?)?;
                c.set_item("cwnd", column(py, &s.cwnd, f64::from)?)?;
                c.set_item("ssthresh", column(py, &s.ssthresh, f64::from)?)?;
                c.set_item("srtt_ns", column(py, &s.srtt_ns, |v| v as f64)?)?;
                c.set_item("rttvar_ns", column(py, &s.rttvar_ns, |v| v as f64)?)?;
                c.set_item("rto_ns", column(py, &s.rto_ns, |v| v as f64)?)?;
                c.set_item("flight", column(py, &s.flight, f64::from)?)?;
                tcp.append(c)?
            }
            None => tcp.append(py.None())?,
        }
    }
    d.set_item("tcp_series", tcp)?;
    let tfrc = PyList::empty(py);
    for s in out.series.iter().map(|s| &s.tfrc) {
        match s {
            Some(s) => {
                let c = PyDict::new(py);
                c.set_item("t_ns", column(py, &s.t_ns, |v| v as f64)?)?;
                c.set_item("x_bps", column(py, &s.x_bps, |v| v)?)?;
                c.set_item("x_recv_bps", column(py, &s.x_recv_bps, |v| v)?)?;
                c.set_item("p", column(py, &s.p, |v| v)?)?;
                c.set_item("rtt_ns", column(py, &s.rtt_ns, |v| v as f64)?)?;
                tfrc.append(c)?
            }
            None => tfrc.append(py.None())?,
        }
    }
    d.set_item("tfrc_series", tfrc)?;
    let probe = PyList::empty(py);
    for s in out.series.iter().map(|s| &s.probe) {
        match s {
            Some(s) => {
                let c = PyDict::new(py);
                c.set_item("t_ns", column(py, &s.t_ns, |v| v as f64)?)?;
                c.set_item("estimate_bps", column(py, &s.estimate_bps, |v| v as f64)?)?;
                probe.append(c)?
            }
            None => probe.append(py.None())?,
        }
    }
    d.set_item("probe_series", probe)?;
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
    match out.queue_series.take() {
        Some(q) => {
            let c = PyDict::new(py);
            c.set_item("t_ns", column(py, &q.t_ns, |v| v as f64)?)?;
            c.set_item("dir", column(py, &q.dir, f64::from)?)?;
            c.set_item("packets", column(py, &q.packets, f64::from)?)?;
            c.set_item("bytes", column(py, &q.bytes, |v| v as f64)?)?;
            d.set_item("queue_series", c)?
        }
        None => d.set_item("queue_series", py.None())?,
    }
    match &out.drop_series {
        Some(ds) => {
            let d2 = series_dict(
                py,
                &[
                    ("t_ns", u64s(&ds.t_ns)),
                    ("flow", u64s(&ds.flow)),
                    ("seq", u64s(&ds.seq)),
                    ("len", u64s(&ds.len)),
                ],
            )?;
            // u32::MAX: dropped on no link (no route), as summary.json's flows count it.
            let dirs: Vec<Option<u32>> = ds
                .dir
                .iter()
                .map(|&x| (x != u32::MAX).then_some(x))
                .collect();
            d2.set_item("dir", dirs)?;
            let causes: Vec<&str> = ds
                .cause
                .iter()
                .map(|&c| vho_sim::link::DropCause::ALL[usize::from(c)].name())
                .collect();
            d2.set_item("cause", causes)?;
            d.set_item("drop_series", d2)?;
        }
        None => d.set_item("drop_series", py.None())?,
    }
    let bins = PyList::empty(py);
    for b in &out.rx_bins {
        let Some(b) = b else {
            bins.append(py.None())?;
            continue;
        };
        let e = PyDict::new(py);
        e.set_item("interval_s", b.interval.as_secs_f64())?;
        e.set_item("bytes", PyList::new(py, &b.bytes)?)?;
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
    Ok(d)
}
