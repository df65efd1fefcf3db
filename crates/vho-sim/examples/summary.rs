//! Runs a scenario once with recording off and prints its `summary.json` (a developer's
//! shortcut around the Python driver).
//!
//!   cargo run -p vho-sim --example summary -- SCENARIO.toml [--set k=v ...]

use vho_sim::scenario::{self, PresetSet};
use vho_sim::world;

fn main() {
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: summary SCENARIO.toml [--set k=v ...]")?;
    let mut sets = Vec::new();
    while let Some(a) = args.next() {
        if a == "--set" {
            sets.push(args.next().ok_or("--set: expected key=value")?);
        } else {
            return Err(format!("unexpected argument {a:?}"));
        }
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let presets = PresetSet::builtin().map_err(|e| e.to_string())?;
    let spec = scenario::load(&path, &text, &sets, &presets).map_err(|e| e.to_string())?;
    let out = world::run(&spec, Vec::new()).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&out.summary).map_err(|e| e.to_string())?;
    println!("{json}");
    Ok(())
}
