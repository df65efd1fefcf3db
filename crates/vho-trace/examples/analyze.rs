//! Prints the TCP analysis of a capture as JSON: `cargo run -p vho-trace --example analyze
//! -- FILE`. Exit status 2 with one line on bad input.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: analyze CAPTURE");
        std::process::exit(2);
    };
    match vho_trace::analysis::analyze(&path) {
        Ok(a) => match serde_json::to_string_pretty(&a) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("{path}: cannot serialize: {e}");
                std::process::exit(2);
            }
        },
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
