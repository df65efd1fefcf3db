//! `cargo run -p vho-emu --example emulate -- SCENARIO.toml OUT_DIR [cc] [--set k=v ...]`:
//! one emulation, its report printed as JSON (as root).

use std::sync::atomic::AtomicBool;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: emulate SCENARIO.toml OUT_DIR [cc] [--set k=v ...]");
        std::process::exit(2);
    };
    let cc = args.get(2).filter(|a| !a.starts_with("--")).cloned();
    let sets: Vec<String> = args
        .windows(2)
        .filter(|w| w[0] == "--set")
        .map(|w| w[1].clone())
        .collect();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let presets = vho_sim::scenario::PresetSet::builtin().expect("builtin presets");
    let spec = vho_sim::scenario::load(path, &text, &sets, &presets).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    std::fs::create_dir_all(out).expect("out dir");
    let mut opts = vho_emu::Options::new(out.into());
    if let Some(cc) = cc {
        opts.cc = cc;
    }
    let stop = AtomicBool::new(false);
    match vho_emu::emulate(&spec, &opts, &stop) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).expect("json")),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
