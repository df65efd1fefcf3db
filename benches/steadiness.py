"""How steady one build's loop time is (issue 38: "a benchmark's median should move less than
5 % between invocations"): the same `run_timed` binary invoked M times on one cell, each
invocation running the cell N times in one process, and for each invocation the median of
its runs' loop times (wall and CPU) and its first run against the rest (a cold process: the
allocator's pages touched for the first time, `loop_minflt`); then the spread of the
invocations' medians ((max - min) / median) in wall and in CPU time, beside the load average.

    cargo build --release -p vho-sim --example run_timed
    python3 benches/steadiness.py [--invocations 10] [--runs 20] [--scenario FILE]
        [--env NAME=VALUE ...] [--bin PATH]

`--env` sets a variable for the binary (a glibc tunable, say), so that a remedy for the spread
can be held against the default in turn: with two or more `--env` lists given as
`--env A=1 --vs-env B=2`, the invocations alternate.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
RUN_TIMED = TARGET / "release" / "examples" / "run_timed"
CELL = ROOT / "benches" / "scenarios" / "dk-wlan-gprs-20mb.toml"


def invoke(binary: Path, scenario: Path, runs: int, env: dict[str, str]) -> list[dict]:
    out = subprocess.run(
        [str(binary), str(scenario), str(runs)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    ).stdout
    return [
        {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.eE+-]+|NaN)", ln) if v != "NaN"}
        for ln in out.splitlines()
        if ln.startswith("vho ")
    ]


def spread(xs: list[float]) -> float:
    return (max(xs) - min(xs)) / statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--invocations", type=int, default=10)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--scenario", type=Path, default=CELL)
    ap.add_argument("--bin", type=Path, default=RUN_TIMED)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the binary")
    ap.add_argument("--vs-env", action="append", default=[], help="a second setting, alternated")
    a = ap.parse_args()
    settings = {"default" if not a.env else " ".join(a.env): a.env}
    if a.vs_env:
        settings[" ".join(a.vs_env)] = a.vs_env
    load0 = os.getloadavg()
    rows: dict[str, list[tuple[float, float, float, float, float, float]]] = {
        k: [] for k in settings
    }
    for i in range(a.invocations):
        for name, env in settings.items():
            rs = invoke(a.bin, a.scenario, a.runs, dict(e.split("=", 1) for e in env))
            wall = [r["loop_wall_s"] for r in rs]
            cpu = [r["loop_cpu_s"] for r in rs]
            flt = [r["loop_minflt"] for r in rs]
            rows[name].append(
                (
                    statistics.median(wall),
                    statistics.median(cpu),
                    wall[0],
                    cpu[0],
                    flt[0],
                    statistics.median(flt[1:]) if len(flt) > 1 else float("nan"),
                )
            )
            print(
                f"{name:12} invocation {i + 1:2}: median wall {rows[name][-1][0] * 1e3:7.2f} ms "
                f"cpu {rows[name][-1][1] * 1e3:7.2f} ms; first run wall {wall[0] * 1e3:7.2f} "
                f"cpu {cpu[0] * 1e3:7.2f} ms, {flt[0]:.0f} minor faults (the rest: median "
                f"{rows[name][-1][5]:.0f}); load {os.getloadavg()[0]:.2f}"
            )
    load1 = os.getloadavg()
    print(
        f"\n{a.scenario.name}, {a.invocations} invocations x {a.runs} runs; load average "
        f"{load0[0]:.2f} -> {load1[0]:.2f}"
    )
    for name, rs in rows.items():
        mw = [r[0] for r in rs]
        mc = [r[1] for r in rs]
        print(
            f"{name:12} medians: wall {min(mw) * 1e3:.2f}-{max(mw) * 1e3:.2f} ms "
            f"(spread {spread(mw) * 100:.1f} %), cpu {min(mc) * 1e3:.2f}-{max(mc) * 1e3:.2f} ms "
            f"(spread {spread(mc) * 100:.1f} %); first run / median, cpu: "
            f"{statistics.median(r[3] / r[1] for r in rs):.2f}x, minor faults first run "
            f"{statistics.median(r[4] for r in rs):.0f}, "
            f"later runs {statistics.median(r[5] for r in rs):.0f}"
        )


if __name__ == "__main__":
    main()
