//! Captures (pcap or pcapng, streamed): `read_tcp`, the TCP segments as columns, and
//! `analyze_flows`, vho-trace's per-flow analysis, one flow at a time.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::fs::File;
use std::io::BufReader;
use vho_trace::{decode, Reader, Skip};

/// Reads the TCP segments of a capture: all of them, or those of one conversation
/// (`flow = (addr, port, addr, port)`, either direction). Returns a dict of equal-length
/// lists (`t_ns`: from the capture's origin, see `vho_trace::reader::clock`, `src`, `dst`, `sport`, `dport`, `seq`, `ack`, `len`, `flags`, `window`,
/// `ip_id`, `sack`: the SACK blocks as `[left, right]` pairs), `skipped`: frames that were
/// not TCP segments, by reason, and `cut_short`: where the file ended inside its last record
/// (the records before it are read), else None; `time_origin` (`first_packet` or
/// `simulated_clock`) and `time_origin_epoch_ns`, the origin's stamp.
#[pyfunction]
#[pyo3(signature = (path, flow=None))]
pub fn read_tcp<'py>(
    py: Python<'py>,
    path: &str,
    flow: Option<(String, u16, String, u16)>,
) -> PyResult<Bound<'py, PyDict>> {
    let flow = match flow {
        None => None,
        Some((a, ap, b, bp)) => {
            let ip = |s: &str| {
                s.parse::<std::net::IpAddr>().map_err(|_| {
                    crate::errors::capture_error(&format!("{path}: flow: bad address {s:?}"))
                })
            };
            Some(((ip(&a)?, ap), (ip(&b)?, bp)))
        }
    };
    let file = File::open(path)
        .map_err(|e| crate::errors::capture_error(&format!("{path}: cannot open: {e}")))?;
    let mut reader = Reader::new(BufReader::with_capacity(1 << 16, file), path)
        .map_err(|e| crate::errors::capture_error(&e.to_string()))?;
    let mut t_ns = Vec::new();
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let (mut sport, mut dport) = (Vec::new(), Vec::new());
    let (mut seq, mut ack, mut len) = (Vec::new(), Vec::new(), Vec::new());
    let (mut flags, mut window, mut ip_id) = (Vec::new(), Vec::new(), Vec::new());
    let mut sack: Vec<Vec<[u32; 2]>> = Vec::new();
    let mut skipped = [0u64; 5];
    while let Some(rec) = reader
        .next_record()
        .map_err(|e| crate::errors::capture_error(&e.to_string()))?
    {
        match decode(rec.t_ns, rec.linktype, rec.data) {
            Ok(s) => {
                if let Some((a, b)) = flow {
                    let (x, y) = ((s.src, s.tcp.sport), (s.dst, s.tcp.dport));
                    if !((x == a && y == b) || (x == b && y == a)) {
                        continue;
                    }
                }
                t_ns.push(s.ts_ns);
                src.push(s.src.to_string());
                dst.push(s.dst.to_string());
                sport.push(s.tcp.sport);
                dport.push(s.tcp.dport);
                seq.push(s.tcp.seq);
                ack.push(s.tcp.ack);
                len.push(s.payload_len);
                flags.push(u16::from(s.tcp.flags)); // a Vec<u8> would become bytes
                window.push(s.tcp.window);
                ip_id.push(s.ip_id);
                sack.push(s.tcp.sack.iter().map(|&(l, r)| [l, r]).collect());
            }
            Err(k) => {
                skipped[match k {
                    Skip::UnknownLinkType => 0,
                    Skip::NotTcp => 1,
                    Skip::TruncatedHeaders => 2,
                    Skip::Fragment => 3,
                    Skip::Malformed => 4,
                }] += 1
            }
        }
    }
    let d = PyDict::new(py);
    d.set_item("t_ns", t_ns)?;
    d.set_item("src", src)?;
    d.set_item("dst", dst)?;
    d.set_item("sport", sport)?;
    d.set_item("dport", dport)?;
    d.set_item("seq", seq)?;
    d.set_item("ack", ack)?;
    d.set_item("len", len)?;
    d.set_item("flags", flags)?;
    d.set_item("window", window)?;
    d.set_item("ip_id", ip_id)?;
    d.set_item("sack", sack)?;
    let s = PyDict::new(py);
    for (name, n) in [
        "unknown_link_type",
        "not_tcp",
        "truncated_headers",
        "fragment",
        "malformed",
    ]
    .iter()
    .zip(skipped)
    {
        s.set_item(*name, n)?;
    }
    d.set_item("skipped", s)?;
    d.set_item("cut_short", reader.cut_short().map(|e| e.to_string()))?;
    let clock = reader.clock();
    d.set_item("time_origin_epoch_ns", clock.origin_ns().unwrap_or(0))?;
    d.set_item(
        "time_origin",
        match clock.origin() {
            vho_trace::reader::clock::Origin::FirstPacket => "first_packet",
            vho_trace::reader::clock::Origin::SimulatedClock => "simulated_clock",
        },
    )?;
    Ok(d)
}

/// Analyses a capture with vho-trace (per flow: Wireshark's tcp.analysis counts, RTT,
/// spurious retransmissions with their evidence, changes of path, t_a). `handover_at_s` is
/// the handover instant in capture time, if known; `capture_point` ("receiver" or "sender")
/// where the capture was taken relative to the data, if known; `ta_mean`
/// ("whole-connection", the default, or "after-handover") the span of t_a's mean. Returns a
/// [`FlowStream`].
#[pyfunction]
#[pyo3(signature = (path, handover_at_s=None, capture_point=None, ta_mean=None))]
pub fn analyze_flows(
    path: &str,
    handover_at_s: Option<f64>,
    capture_point: Option<&str>,
    ta_mean: Option<&str>,
) -> PyResult<FlowStream> {
    use vho_trace::analysis::{CapturePoint, TaMean};
    let ta_mean = match ta_mean {
        None | Some("whole-connection") => TaMean::WholeConnection,
        Some("after-handover") => TaMean::AfterHandover,
        Some(other) => {
            return Err(crate::errors::capture_error(&format!(
                "{path}: t_a mean: expected \"whole-connection\" or \"after-handover\", got \
                 {other:?}"
            )))
        }
    };
    let capture_point = match capture_point {
        None => None,
        Some("receiver") => Some(CapturePoint::Receiver),
        Some("sender") => Some(CapturePoint::Sender),
        Some(other) => {
            return Err(crate::errors::capture_error(&format!(
                "{path}: capture point: expected \"receiver\" or \"sender\", got {other:?}"
            )))
        }
    };
    let opts = vho_trace::analysis::AnalyzeOptions {
        handover_at_ns: handover_at_s.map(|s| (s * 1e9).round() as u64),
        capture_point,
        ta_mean,
    };
    let inner = vho_trace::analysis::FlowStream::open(path, opts)
        .map_err(|e| crate::errors::capture_error(&e.to_string()))?;
    Ok(FlowStream {
        inner,
        path: path.to_string(),
    })
}

/// A capture's analysis, one conversation at a time: iterating gives each conversation's
/// result as JSON text (the serde form of `vho_trace::analysis::FlowResult`) as it leaves
/// vho-trace's flow table; `summary()` then gives the rest of the analysis (packets, skipped
/// frames, the most flows open at once) as JSON text. The GIL is released while it reads.
#[pyclass(module = "vho._native")]
pub struct FlowStream {
    inner: vho_trace::analysis::FlowStream<BufReader<File>>,
    path: String,
}

#[pymethods]
impl FlowStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<String>> {
        let inner = &mut self.inner;
        let flow = py
            .allow_threads(|| inner.next_flow())
            .map_err(|e| crate::errors::capture_error(&e.to_string()))?;
        flow.map(|f| serde_json::to_string(&f))
            .transpose()
            .map_err(|e| crate::errors::capture_error(&format!("{}: {e}", self.path)))
    }

    /// The analysis without its conversations (`vho_trace::analysis::Summary`) as JSON text;
    /// complete once the iteration has ended.
    fn summary(&self) -> PyResult<String> {
        serde_json::to_string(self.inner.summary())
            .map_err(|e| crate::errors::capture_error(&format!("{}: {e}", self.path)))
    }

    /// The capture's Multipath TCP connections (`vho_trace::analysis::mptcp::MptcpResult`)
    /// as JSON text, once the iteration has ended; None for a capture without an MPTCP
    /// option (and on a second call).
    fn mptcp(&mut self) -> PyResult<Option<String>> {
        self.inner
            .take_mptcp()
            .map(|m| serde_json::to_string(&m))
            .transpose()
            .map_err(|e| crate::errors::capture_error(&format!("{}: {e}", self.path)))
    }
}
