//! Prints the scenario reference (what `vho schema` prints), without the Python package:
//!
//!   cargo run -q -p vho-sim --example schema > docs/scenario-reference.md

fn main() {
    print!("{}", vho_sim::scenario::reference::markdown());
}
