"""Where the Daniel & Kojo tables' runs spend their CPU (issue 38: "the study's tables in under
10 s on 2 cores"): every `--every`-th task of the study's sweep (160 cells x 32 replications)
run in this process as a worker runs them (`sweep.engine.run_batch`), then the same runs'
native calls alone (`_native.run_scenario`: the scenario loaded, the world run, the summary
written as JSON), the scenario loads alone (`_native.check_scenario`), and the runs as the
engine makes them, a point's replications in one `_native.run_seeds` call (one load); the rest
of `run_batch` is Python's per-run work (the summary's JSON read and flattened into a row).

    python3 benches/dk_breakdown.py [--every 10]

Prints the CPU seconds of each and the events simulated, and scales them to the 5,120 runs.
For the whole command's CPU (the report and its figures, imports, the figure cases) time
`vho reproduce daniel-kojo --no-sensitivity --workers 2 --out DIR` with /usr/bin/time.
"""

from __future__ import annotations

import argparse
import os

from vho import _native
from vho.reproduce.daniel_kojo import design
from vho.sweep import engine


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=10)
    a = ap.parse_args()
    s = design.make_sweep(design.study_cells(False), design.REPLICATIONS, 1, [])
    all_tasks = s.tasks()
    b = engine._make_batch(s, all_tasks[:: a.every])
    c0 = cpu()
    rows = engine.run_batch(b)
    c_batch = cpu() - c0
    c0 = cpu()
    for r in b.runs:
        _native.run_scenario(b.label, b.texts[r.text], list(r.overrides), r.task.seed, None)
    c_native = cpu() - c0
    c0 = cpu()
    for r in b.runs:
        _native.check_scenario(b.label, b.texts[r.text], list(r.overrides))
    c_load = cpu() - c0
    # As the engine runs them since issue 38: a point's replications in one call, one load.
    points: dict[int, list] = {}
    for r in b.runs:
        points.setdefault(r.task.point, []).append(r)
    c0 = cpu()
    for rs in points.values():
        _native.run_seeds(
            b.label, b.texts[rs[0].text], list(rs[0].overrides), [r.task.seed for r in rs]
        )
    c_seeds = cpu() - c0
    events = sum(r["events"] for r in rows)
    k = len(all_tasks) / len(rows)
    print(f"{len(rows)} of {len(all_tasks)} runs, {events:,} events; CPU seconds (x{k:.1f}):")
    print(f"  run_batch (a worker's work)      {c_batch:6.3f}  ({c_batch * k:6.2f})")
    print(f"  native run_scenario              {c_native:6.3f}  ({c_native * k:6.2f})")
    print(f"    of it the scenario loads       {c_load:6.3f}  ({c_load * k:6.2f})")
    print(
        f"    the rest (world run, JSON out) {c_native - c_load:6.3f}  "
        f"({(c_native - c_load) * k:6.2f}), {(c_native - c_load) / events * 1e9:.0f} ns an event"
    )
    print(f"  native run_seeds, a call a point {c_seeds:6.3f}  ({c_seeds * k:6.2f})")
    print(
        f"  run_batch less run_seeds (Python) {c_batch - c_seeds:6.3f}  "
        f"({(c_batch - c_seeds) * k:6.2f})"
    )


if __name__ == "__main__":
    main()
