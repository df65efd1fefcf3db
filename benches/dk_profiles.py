"""The Daniel & Kojo cells (Tables 3-6, 160 cells) under each TCP profile: the study's
parameter set with `flow.0.tcp.profile` replaced, 32 replications, common random numbers.
Writes one CSV per profile (`OUT/<profile>.csv`: the cell, the mean transfer time with its
95 % CI, and the ground-truth means), and, given `--before DIR` holding the same files from
another build, a per-cell comparison (`OUT/compare.md`).

Used to show what a change to the `rfc` or `linux` profile does to every cell:

    python3 benches/dk_profiles.py --out out/dk-profiles-before     # at the old commit
    python3 benches/dk_profiles.py --out out/dk-profiles --before out/dk-profiles-before
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from vho.reproduce import daniel_kojo as dk

KEYS = ["table", "direction", "model", "size_bytes", "htime_s"]


def run(profile: str, out: Path, reps: int, workers: int | None, sets: list[str]) -> pd.DataFrame:
    cs = dk.study_cells(quick=False)
    extra = [f'flow.0.tcp.profile="{profile}"', *sets]
    df = dk.run_sweep(dk.make_sweep(cs, reps, 1, extra), out / "runs", workers, quiet=True)
    t = dk.per_cell(df, cs)
    t.to_csv(out / f"{profile}.csv", index=False, float_format="%.6f")
    return t


def compare(name: str, before: pd.DataFrame, after: pd.DataFrame) -> list[str]:
    m = before.merge(after, on=KEYS, suffixes=("_before", "_after"))
    m["change"] = m["ours_mean_s_after"] / m["ours_mean_s_before"] - 1
    within_b = (m["rel_diff_before"].abs() <= dk.TOLERANCE).mean()
    within_a = (m["rel_diff_after"].abs() <= dk.TOLERANCE).mean()
    lines = [
        f"## {name}",
        "",
        f"cells within 10 % of the paper: {within_b:.1%} before, {within_a:.1%} after; "
        f"mean transfer time change per cell: median {m['change'].median():+.2%}, "
        f"min {m['change'].min():+.2%}, max {m['change'].max():+.2%}; "
        f"spurious timeouts per run {m['spurious_timeouts_before'].mean():.2f} -> "
        f"{m['spurious_timeouts_after'].mean():.2f}, timeouts "
        f"{m['timeouts_before'].mean():.2f} -> {m['timeouts_after'].mean():.2f}, "
        f"retransmissions {m['retransmissions_before'].mean():.1f} -> "
        f"{m['retransmissions_after'].mean():.1f} (means over cells)",
        "",
        "| table | direction | model | size | HTime | before s | after s | change | "
        "spurious TO before/after | paper s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in m.itertuples():
        lines.append(
            f"| {r.table} | {r.direction} | {r.model} | {r.size_bytes} | {r.htime_s:g} | "
            f"{r.ours_mean_s_before:.3f} | {r.ours_mean_s_after:.3f} | {r.change:+.2%} | "
            f"{r.spurious_timeouts_before:.2f} / {r.spurious_timeouts_after:.2f} | "
            f"{r.paper_s_before:g} |"
        )
    return [*lines, ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("out/dk-profiles"))
    ap.add_argument("--before", type=Path, help="a directory of an earlier run to compare")
    ap.add_argument("--profiles", default="rfc,linux")
    ap.add_argument("--reps", type=int, default=dk.REPLICATIONS)
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a scenario override for every run, after the profile (e.g. "
        "'flow.0.tcp.spurious_response=\"no-restore\"')",
    )
    ap.add_argument("--workers", type=int)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    lines = ["# Daniel & Kojo cells per profile", ""]
    for p in a.profiles.split(","):
        t = run(p, a.out, a.reps, a.workers, a.set)
        print(f"{p}: {(t['rel_diff'].abs() <= dk.TOLERANCE).mean():.1%} of cells within 10 %")
        if a.before and (a.before / f"{p}.csv").exists():
            lines += compare(p, pd.read_csv(a.before / f"{p}.csv"), t)
    if a.before:
        (a.out / "compare.md").write_text("\n".join(lines), encoding="utf-8")
        print(f"wrote {a.out / 'compare.md'}")


if __name__ == "__main__":
    main()
