#!/usr/bin/env bash
# The whole test suite: build the package, lint, Rust tests, Python tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh
python3 -m pip install -q -e '.[test]'
cargo fmt --all --check
cargo clippy --workspace --exclude vho-py --all-targets -- -D warnings
cargo test --workspace --exclude vho-py
ruff check python tests
ruff format --check python tests
status=0
python3 -m pytest -q || status=$?
# pytest's 5 means "no tests collected": that is a failure here, never a pass.
exit "$status"
