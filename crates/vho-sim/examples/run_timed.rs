//! Runs a scenario N times with recording off and prints, per run, the simulated data packets,
//! the time the last byte reached the receiver (`done_s`) and the time the sender saw it
//! acknowledged (`sender_done_s`, what ns-2 reports),
//! events and the wall time of `world::run` alone (no start-up, no parsing).
//!
//!   cargo run --release -p vho-sim --example run_timed -- SCENARIO.toml [N] [--set k=v ...]

use std::time::Instant;
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
        .ok_or("usage: run_timed SCENARIO.toml [N] [--set k=v ...]")?;
    let mut n = 1usize;
    let mut sets = Vec::new();
    while let Some(a) = args.next() {
        if a == "--set" {
            sets.push(args.next().ok_or("--set: expected key=value")?);
        } else {
            n = a
                .parse()
                .map_err(|_| format!("N: expected a count, got {a:?}"))?;
        }
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let presets = PresetSet::builtin().map_err(|e| e.to_string())?;
    let spec = scenario::load(&path, &text, &sets, &presets).map_err(|e| e.to_string())?;
    for _ in 0..n {
        let t0 = Instant::now();
        let out = world::run(&spec, Vec::new()).map_err(|e| e.to_string())?;
        let wall = t0.elapsed().as_secs_f64();
        let packets: u64 = out
            .summary
            .flows
            .iter()
            .filter_map(|f| f.tcp.as_ref().map(|t| t.data_packets_sent))
            .sum();
        println!(
            "vho data_packets={packets} events={} sender_done_s={:.6} done_s={:.6} loop_wall_s={wall:.6}",
            out.summary.run.events,
            out.summary.run.simulated_s,
            out.summary.flows[0].transfer_time_s.unwrap_or(f64::NAN),
        );
    }
    Ok(())
}
