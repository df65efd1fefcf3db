//! `read_tcp`: the TCP segments of a capture as columns (pcap or pcapng, streamed).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::fs::File;
use std::io::BufReader;
use vho_trace::{decode, Reader, Skip};

/// Reads every TCP segment of a capture. Returns a dict of equal-length lists (`t_ns`,
/// `src`, `dst`, `sport`, `dport`, `seq`, `ack`, `len`, `flags`, `window`, `ip_id`) and
/// `skipped`: frames that were not TCP segments, by reason.
#[pyfunction]
pub fn read_tcp<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let file = File::open(path)
        .map_err(|e| crate::errors::capture_error(&format!("{path}: cannot open: {e}")))?;
    let mut reader = Reader::new(BufReader::with_capacity(1 << 16, file), path)
        .map_err(|e| crate::errors::capture_error(&e.to_string()))?;
    let mut t_ns = Vec::new();
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let (mut sport, mut dport) = (Vec::new(), Vec::new());
    let (mut seq, mut ack, mut len) = (Vec::new(), Vec::new(), Vec::new());
    let (mut flags, mut window, mut ip_id) = (Vec::new(), Vec::new(), Vec::new());
    let mut skipped = [0u64; 5];
    while let Some(rec) = reader
        .next_record()
        .map_err(|e| crate::errors::capture_error(&e.to_string()))?
    {
        match decode(rec.ts_ns, rec.linktype, rec.data) {
            Ok(s) => {
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
    Ok(d)
}
