"""The Daniel & Kojo study's tables timed (issue 38: "the tables in under 10 s on 2 cores"):
`vho reproduce daniel-kojo --no-sensitivity --workers 2` run as a child process, its wall time,
its CPU time (user + system of the command and every process it waited for: the sweep's
workers, the figure's), the runs it made and the load average before and after.

    python3 benches/dk_tables_time.py [--times 3] [--workers 2] [--out DIR] [--keep]
    python3 benches/dk_tables_time.py --phases     # the CPU of each phase, in this process

On a shared machine the wall time is the neighbours' as much as ours: read the CPU time, and
the load beside it. With 2 workers on an idle 2-core machine the wall time is about the
serial part (imports, the report) plus half the runs' CPU.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def children_cpu() -> tuple[float, float]:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def once(out: Path, workers: int) -> dict[str, float | int | str]:
    cmd = [
        sys.executable, "-m", "vho.cli", "reproduce", "daniel-kojo", "--no-sensitivity",
        "--workers", str(workers), "--out", str(out), "--force", "--quiet",
    ]  # fmt: skip
    before = load()
    u0, s0 = children_cpu()
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    u1, s1 = children_cpu()
    import pandas as pd

    runs = len(pd.read_csv(out / "runs.csv"))
    return {
        "wall_s": wall,
        "user_s": u1 - u0,
        "sys_s": s1 - s0,
        "runs": runs,
        "load_before": before,
        "load_after": load(),
    }


def phases(out: Path, workers: int) -> None:
    """The study run in this process, the CPU of each phase: this process's own ("self") and
    that of the processes it waited for ("children": the sweep's workers, the figure's)."""

    def cpu() -> tuple[float, float]:
        a = resource.getrusage(resource.RUSAGE_SELF)
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        return a.ru_utime + a.ru_stime, b.ru_utime + b.ru_stime

    marks = [("start", cpu())]
    from vho.reproduce import STUDIES
    from vho.reproduce import study as st

    s = STUDIES["daniel-kojo"]
    marks.append(("imports", cpu()))

    def marked(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def g(*args: Any, **kw: Any) -> Any:
            r = f(*args, **kw)
            marks.append((name, cpu()))
            return r

        return g

    st.run_design = marked("runs (the sweep)", st.run_design)
    st.judge_all = marked("judging", st.judge_all)
    st.write_report = marked("runs.csv, table.csv, report, figures", st.write_report)
    before = load()
    st.reproduce(s, out, sensitivity=False, workers=workers, quiet=True, force=True)
    prev = marks[0][1]
    for name, (a, b) in marks[1:]:
        print(f"  {name:38s} self {a - prev[0]:5.2f} s  children {b - prev[1]:5.2f} s")
        prev = (a, b)
    total = marks[-1][1][0] - marks[0][1][0] + marks[-1][1][1] - marks[0][1][1]
    print(f"  total CPU {total:.2f} s (after the interpreter's start); load {before} -> {load()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--times", type=int, default=3, help="invocations (default 3)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, help="output directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the output directory")
    ap.add_argument("--phases", action="store_true", help="one run in this process, by phase")
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="dk-tables-")) / "out"
    try:
        if a.phases:
            phases(out, a.workers)
            return
        cpus = []
        for i in range(a.times):
            r = once(out, a.workers)
            cpu = float(r["user_s"]) + float(r["sys_s"])
            cpus.append(cpu)
            print(
                f"{i + 1}: {r['runs']} runs, wall {r['wall_s']:.2f} s, CPU {cpu:.2f} s "
                f"({r['user_s']:.2f} user, {r['sys_s']:.2f} sys), load {r['load_before']} "
                f"-> {r['load_after']}"
            )
        cpus.sort()
        print(f"CPU median {cpus[len(cpus) // 2]:.2f} s, min {cpus[0]:.2f} s")
    finally:
        if not a.keep and a.out is None:
            shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
