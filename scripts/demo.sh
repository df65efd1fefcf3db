#!/usr/bin/env bash
# Set up vho (builds the Rust core into the Python package) and run the bundled example:
# Daniel & Kojo's Figure 1 case, a 200 KB download across a WLAN -> GPRS handover at 0.6 s.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh

# The first build compiles the Rust core and fetches the packages vho needs: minutes the first
# time, seconds after that. pip hides a build's output
# unless verbose; cargo's own progress lines ("Compiling ...") are shown, the rest is kept in a
# log printed only if the install fails. Only vho's own dependencies: no test extras here.
log="$(mktemp "${TMPDIR:-/tmp}/vho-demo-install.XXXXXX")"
echo "==> Installing vho (pip install -e .): compiling its Rust core, minutes the first time"
set +e
python3 -m pip install -v -e . 2>&1 | tee "$log" |
    grep --line-buffered -E '^ *(Compiling|Finished|Building|Successfully installed)'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "==> pip install failed (status $status); its whole output:" >&2
    cat "$log" >&2
    exit "$status"
fi
rm -f "$log"

echo "==> Simulating Daniel & Kojo's Figure 1 case (WLAN -> GPRS at 0.6 s, 200 KB)"
vho run scenarios/examples/dk-fig1-wlan-gprs.toml --out out/dk-fig1 --plot
echo "==> Done: the run is in out/dk-fig1 (summary.json, the captures, sequence_*.png)."
echo "    vho is installed in ${VIRTUAL_ENV}; to use it from this shell: . ${VIRTUAL_ENV}/bin/activate"
