"""The whole Daniel & Kojo study (Tables 3-6: 160 cells x 32 replications) in vho and in
ns-2.35, run for run on the same handover instants: wall time of each, and how each
simulator's cell means compare with the paper and with each other (issue 4).

    python3 benches/ns2_daniel_kojo.py [--quick] [--replications N] [--workers 2]
        [--out out/ns2-daniel-kojo]

vho runs the study's sweep exactly as `vho reproduce daniel-kojo` does (same cells, seed and
common random numbers; recording off) on `--workers` local processes. ns-2 then runs every one
of those runs, one `ns` process per run (benches/ns2/dk_wlan_gprs.tcl: the study's parameter
set, soft = "vhoideal" in place, hard = queue limit 0 + shrink-queue, delayD = ns-2's Delayer
blocked for D s), `--workers` at a time, at the instant vho drew for that run. Both report
the time the sender saw the last byte acknowledged (ns-2's `done`; vho's `simulated_s`); vho's
tables use the receiver's last byte (`transfer_time_s`), shown too.

Prints the two wall times, the share of cells within 10 % of the paper for each simulator,
and how far vho's cell means are from ns-2's; writes per-cell and per-run CSVs to `--out`.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "benches" / "ns2" / "dk_wlan_gprs.tcl"


def ns2_model(model: str) -> str:
    """The Tcl's name of a table model: ideal-soft -> soft, ideal-hard -> hard, delay-N."""
    if model == "ideal-soft":
        return "soft"
    if model == "ideal-hard":
        return "hard"
    return "delay" + model.split("-")[1]


def run_ns2(size: int, at: float, model: str, direction: str, cwd: str) -> float:
    from vho.reproduce.daniel_kojo import ns2_tcl_args

    wired_delay_s, window = ns2_tcl_args()
    out = subprocess.run(
        ["ns", str(TCL), str(size), repr(at), "speed", wired_delay_s, model, direction, window],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    ).stdout
    for part in out.split():
        if part.startswith("done_s="):
            return float(part[len("done_s=") :])
    raise SystemExit(f"ns-2 printed no done_s: {out!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the study's --quick cell set")
    ap.add_argument("--replications", type=int, default=None, help="default: the study's 32")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="out/ns2-daniel-kojo")
    a = ap.parse_args()
    if shutil.which("ns") is None:
        sys.exit("ns-2 is missing: apt-get install ns2")
    from vho.reproduce import daniel_kojo as dk

    cells = dk.study_cells(a.quick)
    reps = a.replications or (dk.QUICK_REPLICATIONS if a.quick else dk.REPLICATIONS)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs_dir = out / "vho-runs"
    shutil.rmtree(runs_dir, ignore_errors=True)

    t0 = time.perf_counter()
    df = dk.run_sweep(dk.make_sweep(cells, reps, a.seed, []), runs_dir, a.workers, True)
    vho_wall = time.perf_counter() - t0

    df = df.sort_values(["point", "replication"]).reset_index(drop=True)
    jobs = []
    for point, at in zip(df["point"], df["handover.0.at_s"], strict=True):
        c = cells[int(point)]
        jobs.append((c.size_bytes, float(at), ns2_model(c.model), c.direction))
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(a.workers) as pool:
        t0 = time.perf_counter()
        done = list(pool.map(lambda j: run_ns2(*j, tmp), jobs))
        ns2_wall = time.perf_counter() - t0
    df["ns2_done_s"] = done

    rows = []
    for point, g in df.groupby("point", sort=True):
        c = cells[int(point)]
        rows.append(
            {
                **dataclasses.asdict(c),  # table, direction, model, size, HTime, paper_s
                "ns2_done_s": g["ns2_done_s"].mean(),
                "vho_done_s": pd.to_numeric(g["simulated_s"]).mean(),
                "vho_transfer_s": pd.to_numeric(g["transfer_time_s"]).mean(),
            }
        )
    t = pd.DataFrame(rows)
    t.to_csv(out / "cells.csv", index=False, float_format="%.6f")
    df[["point", "replication", "handover.0.at_s", "simulated_s", "ns2_done_s"]].to_csv(
        out / "runs.csv", index=False, float_format="%.6f"
    )

    def within(col: str) -> str:
        ok = ((t[col] / t["paper_s"] - 1).abs() <= dk.TOLERANCE).sum()
        return f"{ok}/{len(t)} ({100 * ok / len(t):.1f} %)"

    rel = (t["vho_done_s"] / t["ns2_done_s"] - 1).abs()
    per_run = (df["simulated_s"].astype(float) / df["ns2_done_s"] - 1).abs()
    print(f"{len(cells)} cells x {reps} replications = {len(df)} runs, {a.workers} workers")
    print(
        f"wall time: vho {vho_wall:.1f} s (sweep engine, all runs), ns-2 {ns2_wall:.1f} s "
        f"(one ns process per run): {ns2_wall / vho_wall:.0f}x"
    )
    print(
        f"cells within 10 % of the paper: ns-2 {within('ns2_done_s')}, "
        f"vho {within('vho_done_s')} (sender's last ACK), "
        f"vho {within('vho_transfer_s')} (receiver's last byte, the report's measure)"
    )
    print(
        f"vho against ns-2, same instants: cell means differ by median "
        f"{100 * rel.median():.2f} %, max {100 * rel.max():.1f} %; "
        f"{int((rel <= 0.01).sum())}/{len(t)} cells within 1 %; "
        f"single runs within 1 %: {int((per_run <= 0.01).sum())}/{len(df)}"
    )
    worst = t.assign(rel=rel).sort_values("rel", ascending=False).head(8)
    print("cells where vho and ns-2 differ most:")
    print(worst.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"-> {out / 'cells.csv'}, {out / 'runs.csv'}")


if __name__ == "__main__":
    main()
