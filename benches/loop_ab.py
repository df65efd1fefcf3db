"""A/B timing of builds of vho's event loop on the 20 MB benchmark cell, alternating builds so
that each sees the same spells of a host whose speed drifts.

    python3 benches/loop_ab.py BIN [BIN ...] [--rounds 3] [--cold 15] [--warm 40] [--set k=v]

Each BIN is a `run_timed` example (`cargo build --release -p vho-sim --example run_timed`;
for an older commit, build it in a worktree: `git worktree add /tmp/w REV && cargo build
--release -p vho-sim --example run_timed --manifest-path /tmp/w/Cargo.toml`). Per round and
build it prints the loop wall time of one-run processes (cold: `--cold` processes, one run
each) and of one process running the cell `--warm` times: the fastest and the median of each.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "benches" / "scenarios" / "dk-wlan-gprs-20mb.toml"


def loop_times(binary: str, runs: int, sets: list[str]) -> list[float]:
    """Loop wall times (s) printed by one `run_timed` process running the cell `runs` times."""
    args = [binary, str(SCENARIO), str(runs)]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [float(line.rsplit("loop_wall_s=", 1)[1]) for line in out.splitlines()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold", type=int, default=15, help="one-run processes per build and round")
    ap.add_argument("--warm", type=int, default=40, help="runs in one process (0: none)")
    ap.add_argument("--set", action="append", default=[], help="scenario override key=value")
    a = ap.parse_args()
    for r in range(1, a.rounds + 1):
        cold: dict[str, list[float]] = {b: [] for b in a.binaries}
        for _ in range(a.cold):
            for b in a.binaries:
                cold[b] += loop_times(b, 1, a.set)
        warm = {b: loop_times(b, a.warm, a.set) for b in a.binaries} if a.warm else {}
        for b in a.binaries:
            line = f"round {r} {b}: cold fastest {min(cold[b]) * 1e3:.3f} ms median "
            line += f"{statistics.median(cold[b]) * 1e3:.3f} ms"
            if b in warm:
                line += f"; warm fastest {min(warm[b]) * 1e3:.3f} ms median "
                line += f"{statistics.median(warm[b]) * 1e3:.3f} ms"
            print(line)


if __name__ == "__main__":
    main()
