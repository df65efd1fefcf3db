//! Prints the Multipath TCP analysis of a capture as JSON (`null` without MPTCP):
//! `cargo run -p vho-trace --example mptcp -- FILE`. Exit status 2 with one line on bad input.

use vho_trace::analysis::{AnalyzeOptions, FlowStream};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: mptcp CAPTURE");
        std::process::exit(2);
    };
    let run = || -> Result<String, String> {
        let mut s =
            FlowStream::open(&path, AnalyzeOptions::default()).map_err(|e| e.to_string())?;
        while s.next_flow().map_err(|e| e.to_string())?.is_some() {}
        serde_json::to_string_pretty(&s.take_mptcp())
            .map_err(|e| format!("{path}: cannot serialize: {e}"))
    };
    match run() {
        Ok(s) => println!("{s}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
