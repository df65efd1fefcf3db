//! Runs a scenario N times with recording off and prints, per run, the simulated data packets,
//! the time the last byte reached the receiver (`done_s`) and the time the sender saw it
//! acknowledged (`sender_done_s`, what ns-2 reports),
//! events and the wall time of `world::run` alone (no start-up, no parsing); `packets` counts
//! the data packets every source sent (TCP's, retransmissions included, TFRC's, cross
//! traffic's and CBR's: what benches/suite/ holds against ns-2's sources); `loop_cpu_s` the
//! process's CPU time (user + system) over `world::run`, and `loop_minflt` the minor page
//! faults taken in it (a shared machine's wall time moves with its load; these less).
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
        let (c0, f0) = cpu_and_faults();
        let t0 = Instant::now();
        let out = world::run(&spec, Vec::new()).map_err(|e| e.to_string())?;
        let wall = t0.elapsed().as_secs_f64();
        let (c1, f1) = cpu_and_faults();
        let packets: u64 = out
            .summary
            .flows
            .iter()
            .filter_map(|f| f.tcp.as_ref().map(|t| t.data_packets_sent))
            .sum();
        let sources: u64 = out
            .summary
            .flows
            .iter()
            .map(|f| {
                f.tcp.as_ref().map_or(0, |t| t.data_packets_sent)
                    + f.tfrc().map_or(0, |t| t.packets_sent)
                    + f.cross().map_or(0, |c| c.packets_sent)
                    + f.cbr().map_or(0, |c| c.packets_sent)
            })
            .sum();
        println!(
            "vho data_packets={packets} packets={sources} events={} sender_done_s={:.6} done_s={:.6} loop_wall_s={wall:.6} loop_cpu_s={:.6} loop_minflt={}",
            out.summary.run.events,
            out.summary.run.simulated_s,
            out.summary.flows[0].transfer_time_s.unwrap_or(f64::NAN),
            c1 - c0,
            f1.saturating_sub(f0),
        );
    }
    Ok(())
}

/// The process's CPU seconds (user + system) and its minor page faults so far.
#[cfg(unix)]
fn cpu_and_faults() -> (f64, u64) {
    // SAFETY: getrusage writes the struct it is given; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (
        secs(ru.ru_utime) + secs(ru.ru_stime),
        u64::try_from(ru.ru_minflt).unwrap_or(0),
    )
}

#[cfg(not(unix))]
fn cpu_and_faults() -> (f64, u64) {
    (f64::NAN, 0)
}
