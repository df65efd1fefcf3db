"""Benchmark of `vho compare` on its default scenarios and variants (issue 19: "all its
scenarios x all remedies at 32 replications in under 2 minutes on 2 cores").

    python3 benches/compare_speed.py [--replications 32] [--workers 2] [--out DIR]

Prints the wall time of each stage (plan and checks, the sweeps, the table, the report), the
CPU time of this process and its workers, the runs' own time (``wall_s`` of each row: the
simulation, its summary and its row) by group of scenarios, the load average before and
after (the machine is shared: a busy neighbour stretches the wall time, not the CPU time),
and the command line that does the same. Until the oracle is built the oracles' rows are
left out (``--reference plain``: plain TCP is run anyway, so no row is added).
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import tempfile
import time
from pathlib import Path

from vho import compare
from vho.compare import report, stats
from vho.compare.run import run_all, validate
from vho.compare.variants import known_remedies


def cpu_s() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--replications", type=int, default=compare.REPLICATIONS)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", help="output directory (default: a temporary one)")
    a = ap.parse_args()
    oracle = "oracle" in known_remedies() and "oracle-system" in known_remedies()
    ref = {} if oracle else {"reference": "plain"}
    load0 = os.getloadavg()
    t0, c0 = time.perf_counter(), cpu_s()
    plan = compare.plan(replications=a.replications, **ref)
    validate(plan)
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(a.out or tmp)
        runs = run_all(plan, out, workers=a.workers, scheduler=None, quiet=True)
        t2, c2 = time.perf_counter(), cpu_s()
        table = stats.table(
            runs, plan.scenarios, plan.variants, plan.sender, plan.system, skipped=plan.skipped
        )
        t3 = time.perf_counter()
        report.write_markdown(table, plan, runs, "vho compare", t2 - t1)
        report.write_figure(table, plan, out / "compare")
        t4 = time.perf_counter()
    c1 = cpu_s()
    n = len(runs)
    cmd = ["vho", "compare", "--replications", str(a.replications), "--workers", str(a.workers)]
    if not oracle:
        cmd += ["--reference", "plain"]
    print(f"same runs as: {shlex.join(cmd)}")
    print(
        f"{len(plan.scenarios)} scenarios x {len(plan.variants)} variants x "
        f"{plan.replications} replications = {n} runs"
        + ("" if oracle else " (the oracles are not built: their 2 rows are not among them)")
    )
    print(f"load average before: {load0[0]:.2f}, after: {os.getloadavg()[0]:.2f}")
    print(
        f"wall: {t4 - t0:.1f} s = plan and checks {t1 - t0:.2f} s + sweeps {t2 - t1:.1f} s "
        f"+ table {t3 - t2:.2f} s + report and figure {t4 - t3:.2f} s"
    )
    print(
        f"CPU (this process and its workers): {c1 - c0:.1f} s = {c2 - c0:.1f} s to the end of "
        f"the sweeps + {c1 - c2:.1f} s after (one process), {(c1 - c0) / (t4 - t0):.2f} cores "
        "on average"
    )
    print(
        f"the CPU time as wall time with {a.workers} free cores: about "
        f"{(c2 - c0) / a.workers + (c1 - c2):.0f} s (the sweeps' CPU shared by the workers, "
        "the rest serial; arithmetic, not a measurement)"
    )
    made = runs[runs["same_as"].isna()].copy()
    print(
        f"runs made: {len(made)}; {n - len(made)} rows copied from a variant with the same "
        "resolved scenario (vho.compare.fold)"
    )
    own = made["wall_s"].sum()
    print(f"runs' own time: {own:.1f} s, {own / len(made) * 1e3:.2f} ms per run made")
    runs = made
    group = runs["scenario"].str.extract(r"^(dk-[a-z]+-[a-z]+-\w+?)-|^(thesis)")
    runs["group"] = group[0].fillna(group[1])
    g = runs.groupby("group")["wall_s"].agg(["count", "sum"])
    for name, r in g.sort_values("sum", ascending=False).iterrows():
        print(
            f"  {name:<24} {int(r['count']):>6} runs  {r['sum']:6.1f} s  "
            f"{r['sum'] / r['count'] * 1e3:6.2f} ms/run"
        )


if __name__ == "__main__":
    main()
