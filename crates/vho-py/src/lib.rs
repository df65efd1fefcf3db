//! PyO3 bindings: the private module `vho._native`. Only type conversion lives here.

use pyo3::prelude::*;
use pyo3::types::PyDict;

mod capture;
mod emulate;
mod errors;
mod run;

/// The link presets shipped with vho, sorted by name: dicts with name, description, rate,
/// delay, queue, loss and source (the preset file, its comments naming where each value
/// comes from).
#[pyfunction]
fn presets(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let set = vho_sim::scenario::PresetSet::builtin().map_err(errors::to_py)?;
    let mut out = Vec::new();
    for p in set.iter() {
        let d = PyDict::new(py);
        d.set_item("name", &p.name)?;
        d.set_item("description", &p.description)?;
        // A per-direction value shows as "down / up" (towards the mobile host / from it).
        let both = |sym: &str, down: &Option<String>, up: &Option<String>| {
            let (d, u) = (down.as_deref().unwrap_or(sym), up.as_deref().unwrap_or(sym));
            if d == u {
                d.to_string()
            } else {
                format!("{d} / {u}")
            }
        };
        d.set_item("rate", both(&p.rate, &p.rate_down, &p.rate_up))?;
        d.set_item("delay", both(&p.delay, &p.delay_down, &p.delay_up))?;
        d.set_item("queue", both(&p.queue, &p.queue_down, &p.queue_up))?;
        d.set_item("loss", p.loss)?;
        d.set_item("source", &p.source)?;
        out.push(d);
    }
    Ok(out)
}

/// Validates a scenario without running it; returns its hash (seed excluded).
#[pyfunction]
#[pyo3(signature = (label, text, overrides))]
fn check_scenario(label: &str, text: &str, overrides: Vec<String>) -> PyResult<String> {
    let set = vho_sim::scenario::PresetSet::builtin().map_err(errors::to_py)?;
    let spec = vho_sim::scenario::load(label, text, &overrides, &set).map_err(errors::to_py)?;
    Ok(vho_sim::scenario::hash(&spec))
}

/// The resolved scenario as TOML (the general form, every default filled in): what
/// `vho run --dry-run` prints and every run writes as `scenario.resolved.toml`.
#[pyfunction]
#[pyo3(signature = (label, text, overrides, seed=None))]
fn resolve_scenario(
    label: &str,
    text: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
) -> PyResult<String> {
    let set = vho_sim::scenario::PresetSet::builtin().map_err(errors::to_py)?;
    let mut spec = vho_sim::scenario::load(label, text, &overrides, &set).map_err(errors::to_py)?;
    if let Some(s) = seed {
        spec.seed = s;
    }
    Ok(vho_sim::scenario::render::to_toml(&spec))
}

/// The scenario reference as Markdown (`vho schema`), generated from the code.
#[pyfunction]
fn scenario_reference() -> String {
    vho_sim::scenario::reference::markdown()
}

/// The meaning the reference gives a key (`table`, `key`), for help texts.
#[pyfunction]
fn key_meaning(table: &str, key: &str) -> Option<String> {
    vho_sim::scenario::reference::keys()
        .into_iter()
        .find(|d| d.table == table && d.key == key)
        .map(|d| d.meaning.to_string())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_reference, m)?)?;
    m.add_function(wrap_pyfunction!(key_meaning, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(capture::read_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(capture::analyze_flows, m)?)?;
    m.add_class::<capture::FlowStream>()?;
    m.add_function(wrap_pyfunction!(emulate::emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emulate::emulate_stop, m)?)?;
    m.add_function(wrap_pyfunction!(emulate::emulate_cleanup, m)?)?;
    m.add_function(wrap_pyfunction!(emulate::emulate_namespaces, m)?)?;
    m.add_function(wrap_pyfunction!(emulate::emulate_permitted, m)?)?;
    Ok(())
}
