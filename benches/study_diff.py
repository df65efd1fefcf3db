"""What moved between two outputs of one study: `vho reproduce STUDY` run by two builds (or two
settings), each row of `table.csv` matched by its key columns, vho's value beside the paper's.

    python3 benches/study_diff.py BEFORE_DIR AFTER_DIR [--top 15]

Prints, per study output pair, the rows whose value moved, largest relative move first, with
the paper's value and whether each side is within the study's own verdict where the table has
one (`within`, or `rel_diff` within 10 %), and the count of rows agreeing before and after.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

#: vho's value column in each study's table, first found wins; and the paper's.
OURS = ("ours_mean_s", "ours_mean", "ours")
#: Columns of a verdict table (vho/reproduce/verdict.py) that are results too.
VERDICT_RESULTS = {
    "kind", "what", "source", "paper_sd", "paper_n", "precision", "paper_shown", "ours_lo",
    "ours_hi", "diff", "diff_lo", "diff_hi", "a", "b", "test", "p", "verdict", "agrees", "note",
}  # fmt: skip
PAPER = ("paper_s", "paper_mean", "paper", "thesis")
#: Columns that are results, not keys.
RESULTS = {
    *OURS,
    *PAPER,
    "ours_ci95_s",
    "ours_ci95",
    "ours_sd",
    "ours_min",
    "ours_max",
    "rel_diff",
    "diff_in_paper_sd",
    "within",
    "paper_sd",
    "paper_line",
    "source",
    "kind",
    "replications",
    "trials",
    "seeds",
    "n",
    *VERDICT_RESULTS,
}


def _first(cols: list[str], names: tuple[str, ...]) -> str | None:
    return next((c for c in names if c in cols), None)


def agrees(row: pd.Series, paper: str | None) -> bool | None:
    """The study's own verdict for a row, where its table carries one."""
    if "agrees" in row and isinstance(row["agrees"], str):
        return {"yes": True, "no": False}.get(row["agrees"])
    if "within" in row and isinstance(row["within"], str):
        return row["within"].strip().lower() in ("yes", "true")
    if "rel_diff" in row and not pd.isna(row["rel_diff"]):
        return abs(row["rel_diff"]) <= 0.10
    if "diff_in_paper_sd" in row and not pd.isna(row["diff_in_paper_sd"]):
        return abs(row["diff_in_paper_sd"]) <= 1.0
    return None


def _is_verdicts(df: pd.DataFrame) -> bool:
    """A table of the one verdict rule (vho/reproduce/verdict.py): a row per paper number."""
    return {"key", "verdict", "agrees", "ours"} <= set(df.columns)


def counts(df: pd.DataFrame) -> str:
    """ "N of M" of a table, by its own rule."""
    if _is_verdicts(df):
        judged = df[df["agrees"].isin(["yes", "no"])]
        return f"{int((judged['agrees'] == 'yes').sum())} of {len(judged)}"
    v = [agrees(r, None) for _, r in df.iterrows()]
    judged = [x for x in v if x is not None]
    return f"{sum(judged)} of {len(judged)}"


def runs_diff(before: Path, after: Path, top: int) -> None:
    """runs.csv of both, matched by (case, variant, seed): the measurements that moved (the
    tables' forms may differ, as across the move to the verdict rule)."""
    a = pd.read_csv(before / "runs.csv")
    b = pd.read_csv(after / "runs.csv")
    keys = [k for k in ("case", "variant", "seed") if k in a.columns and k in b.columns]
    m = a.merge(b, on=keys, suffixes=("_before", "_after"))
    print(f"== runs.csv: {len(a)} runs before, {len(b)} after, {len(m)} matched by {keys}")
    moved = []
    for c in a.columns:
        if c in keys or f"{c}_after" not in m or not pd.api.types.is_numeric_dtype(a[c]):
            continue
        x = pd.to_numeric(m[f"{c}_before"], errors="coerce")
        y = pd.to_numeric(m[f"{c}_after"], errors="coerce")
        same = (x == y) | (x.isna() & y.isna()) | ((x - y).abs() <= 1e-9 * x.abs().clip(lower=1))
        if (~same).any():
            moved.append((c, int((~same).sum()), float(x.mean()), float(y.mean())))
    print(f"   {len(moved)} measurements moved in some run (column, runs, mean before -> after):")
    for c, n, x, y in moved[:top]:
        print(f"   {c}: {n} runs, {x:.4g} -> {y:.4g}")


def diff(before: Path, after: Path, top: int) -> None:
    a = pd.read_csv(before / "table.csv")
    b = pd.read_csv(after / "table.csv")
    if _is_verdicts(a) != _is_verdicts(b):
        print(
            f"== {after.name}: tables of two forms; by each one's rule, before {counts(a)}, "
            f"after {counts(b)}"
        )
        runs_diff(before, after, top)
        return
    if _is_verdicts(b):
        a, b = (df.rename(columns={"ours": "ours_mean"}) for df in (a, b))
    ours = _first(list(a.columns), OURS)
    paper = _first(list(a.columns), PAPER)
    keys = [c for c in a.columns if c not in RESULTS]
    m = a.merge(b, on=keys, suffixes=("_before", "_after"), how="outer", indicator=True)
    print(f"== {after.name}: {len(a)} rows before, {len(b)} after; keys {', '.join(keys)}")
    for side, df in (("before", a), ("after", b)):
        v = [agrees(r, paper) for _, r in df.iterrows()]
        judged = [x for x in v if x is not None]
        if judged:
            print(
                f"   agreeing with the paper by the study's rule, {side}: "
                f"{sum(judged)} of {len(judged)}"
            )
    rows = []
    for _, r in m.iterrows():
        x, y = r.get(f"{ours}_before"), r.get(f"{ours}_after")
        if pd.isna(x) and pd.isna(y):
            continue
        if not pd.isna(x) and not pd.isna(y) and math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12):
            continue
        rel = (y - x) / abs(x) if x and not pd.isna(x) and not pd.isna(y) else math.inf
        rows.append((abs(rel), r, x, y, rel))
    rows.sort(key=lambda t: -t[0])
    print(f"   {len(rows)} rows moved; the largest:")
    for _, r, x, y, rel in rows[:top]:
        key = " ".join(str(r[k]) for k in keys)
        p = r.get(f"{paper}_before") if paper else None
        ptxt = "" if p is None or pd.isna(p) else f"  paper {p:g}"
        print(f"   {key}: {x:.4g} -> {y:.4g} ({rel * 100:+.1f} %){ptxt}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    diff(args.before, args.after, args.top)


if __name__ == "__main__":
    main()
