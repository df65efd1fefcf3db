#!/bin/sh
# A profile-guided build of the run_timed example (issue 38: "consider profile-guided
# optimisation of the release build if it pays across the suite, not on one cell"), trained on
# scenarios other than the suite's (the bundled examples, Chen et al.'s world cut to 60 s, the
# 20 MB cell, the lossy link) so that benches/suite/run.py --vs-bin measures it on work it was
# not trained on:
#
#   sh benches/pgo.sh [DIR]          # needs `rustup component add llvm-tools`
#   python3 benches/suite/run.py --no-ns2 --vs-bin DIR/use/release/examples/run_timed
#
# The default build is unchanged; DIR defaults to /tmp/vho-pgo.
set -eu
dir=${1:-/tmp/vho-pgo}
root=$(cd "$(dirname "$0")/.." && pwd)
profdata=$(ls "$(rustc --print sysroot)"/lib/rustlib/*/bin/llvm-profdata 2>/dev/null | head -n 1)
[ -n "$profdata" ] || { echo "llvm-profdata: rustup component add llvm-tools" >&2; exit 2; }
rm -rf "$dir/raw"
cd "$root"
RUSTFLAGS="-Cprofile-generate=$dir/raw" CARGO_TARGET_DIR="$dir/gen" \
    cargo build --release -q -p vho-sim --example run_timed
gen="$dir/gen/release/examples/run_timed"
for f in scenarios/examples/*.toml; do "$gen" "$f" 1 >/dev/null; done
"$gen" scenarios/studies/chen.toml 1 --set 'run.stop="60 s"' >/dev/null
"$gen" benches/scenarios/dk-wlan-gprs-20mb.toml 5 >/dev/null
"$gen" benches/scenarios/lossy-link.toml 3 >/dev/null
"$profdata" merge -o "$dir/merged.profdata" "$dir/raw"
RUSTFLAGS="-Cprofile-use=$dir/merged.profdata -Cllvm-args=-pgo-warn-missing-function=false" \
    CARGO_TARGET_DIR="$dir/use" cargo build --release -q -p vho-sim --example run_timed
echo "$dir/use/release/examples/run_timed"
