#!/usr/bin/env bash
# Set up vho (builds the Rust core into the Python package) and run the bundled example:
# Daniel & Kojo's Figure 1 case, a 200 KB download across a WLAN -> GPRS handover at 0.6 s.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e '.[test]'
vho run scenarios/examples/dk-fig1-wlan-gprs.toml --out out/dk-fig1 --plot
