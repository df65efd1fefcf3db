//! `emulate`: a scenario through real Linux TCP in network namespaces (`vho_emu`), and the
//! switches the Python side needs around it (`emulate_stop` from its signal handlers,
//! `emulate_cleanup` for what a killed run left).

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raised by `emulate_stop`; the running emulation sees it within its loop's step and removes
/// everything it made.
static STOP: AtomicBool = AtomicBool::new(false);

fn emu_error(label: &str, e: vho_emu::EmuError) -> PyErr {
    use vho_emu::EmuError as E;
    match e {
        E::NotPermitted | E::Unsupported(_) => {
            crate::errors::sim_error_text(&format!("{label}: {e}"))
        }
        E::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err(e.to_string()),
        _ => crate::errors::emulation_error(&format!("{label}: {e}")),
    }
}

/// Runs the emulation; returns its report as JSON. `options` is a JSON object: cc, command,
/// command_at, serve, serve_at, sysctls ({key: value}, keys as /proc/sys paths), spin_us,
/// sample_ms, mtu, multipath, offload.
#[pyfunction]
#[pyo3(signature = (label, text, overrides, seed, out_dir, options))]
pub fn emulate(
    py: Python<'_>,
    label: &str,
    text: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    out_dir: String,
    options: &str,
) -> PyResult<String> {
    let presets = vho_sim::scenario::PresetSet::builtin().map_err(crate::errors::to_py)?;
    let mut spec =
        vho_sim::scenario::load(label, text, &overrides, &presets).map_err(crate::errors::to_py)?;
    if let Some(s) = seed {
        spec.seed = s;
    }
    let o: serde_json::Value = serde_json::from_str(options)
        .map_err(|e| crate::errors::io_error(&format!("emulate options: {e}")))?;
    let mut opts = vho_emu::Options::new(out_dir.into());
    let strs = |v: &serde_json::Value| -> Option<Vec<String>> {
        v.as_array().map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
    };
    if let Some(cc) = o["cc"].as_str() {
        opts.cc = cc.to_string();
    }
    opts.command = strs(&o["command"]);
    opts.serve = strs(&o["serve"]);
    opts.command_at = o["command_at"].as_str().map(String::from);
    opts.serve_at = o["serve_at"].as_str().map(String::from);
    if let Some(m) = o["sysctls"].as_object() {
        for (k, v) in m {
            let v = v
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| v.to_string());
            opts.sysctls.push((k.clone(), v));
        }
    }
    if let Some(us) = o["spin_us"].as_u64() {
        opts.spin = vho_sim::time::Dur::from_micros(us);
    }
    if let Some(ms) = o["sample_ms"].as_u64() {
        opts.sample = vho_sim::time::Dur::from_millis(ms);
    }
    opts.multipath = o["multipath"].as_bool().unwrap_or(false);
    opts.pcap_given = o["pcap_given"].as_bool().unwrap_or(false);
    if let Some(off) = o["offload"].as_bool() {
        opts.offload = off;
    }
    if let Some(mtu) = o["mtu"].as_u64() {
        opts.mtu = mtu as u32;
    }
    STOP.store(false, Ordering::Relaxed);
    let report = py
        .allow_threads(|| vho_emu::emulate(&spec, &opts, &STOP))
        .map_err(|e| emu_error(label, e))?;
    let mut v = serde_json::to_value(&report)
        .map_err(|e| crate::errors::io_error(&format!("report: {e}")))?;
    v["scenario_hash"] = serde_json::Value::String(vho_sim::scenario::hash(&spec));
    v["seed"] = serde_json::Value::from(spec.seed);
    Ok(v.to_string())
}

/// Asks the running emulation to stop (from a signal handler).
#[pyfunction]
pub fn emulate_stop() {
    STOP.store(true, Ordering::Relaxed);
}

/// Removes what killed emulations left (namespaces of runs no longer alive, with their
/// processes); returns their names. Refused without root (CAP_NET_ADMIN and CAP_SYS_ADMIN).
#[pyfunction]
pub fn emulate_cleanup() -> PyResult<Vec<String>> {
    if !vho_emu::netns::permitted() {
        return Err(emu_error(
            "vho emulate --cleanup",
            vho_emu::EmuError::NotPermitted,
        ));
    }
    vho_emu::netns::cleanup().map_err(|e| emu_error("vho emulate --cleanup", e))
}

/// Whether this process may emulate (CAP_NET_ADMIN and CAP_SYS_ADMIN effective).
#[pyfunction]
pub fn emulate_permitted() -> bool {
    vho_emu::netns::permitted()
}

/// The vho namespaces present: (name, whether its run is alive).
#[pyfunction]
pub fn emulate_namespaces() -> PyResult<Vec<(String, bool)>> {
    let list = vho_emu::netns::present().map_err(|e| emu_error("ip netns list", e))?;
    Ok(list.into_iter().map(|(n, _, alive)| (n, alive)).collect())
}
