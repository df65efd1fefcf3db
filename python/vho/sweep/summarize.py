"""Per-point statistics of a sweep, in the form of the papers' tables, and plots with CI bands.

For each point (the axis columns) and metric: n, mean, standard deviation (n - 1), the
half-width of the 95 % confidence interval of the mean (Student's t, n - 1 degrees of
freedom: the replications are independent runs), min and max. Failed runs are left out and
counted in ``failed``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd

from ..errors import SweepError
from . import store

#: Metrics summarised when none are named: the ones the studies tabulate.
DEFAULT_METRICS = (
    "transfer_time_s",
    "goodput_bps",
    "retransmissions",
    "spurious_retransmissions",
    "timeouts",
    "spurious_timeouts",
    "adaptation_time_s",
)

# Student's t, two-sided 95 % (0.975 quantile), for 1..30 degrees of freedom; beyond, the
# table's 40/60/120 rows, then the normal 1.960 (any statistics textbook, e.g. NIST/SEMATECH
# e-Handbook §1.3.6.7.2).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (table, see above)."""
    if df < 1:
        return math.nan
    if df <= 30:
        return _T975[df - 1]
    for limit, t in ((40, 2.021), (60, 2.000), (120, 1.980)):
        if df <= limit:
            return t
    return 1.960


def axes_of(root: str | os.PathLike[str]) -> list[str]:
    man = Path(root) / store.MANIFEST
    try:
        return list(json.loads(man.read_text(encoding="utf-8"))["columns"])
    except (OSError, ValueError, KeyError):
        raise SweepError(f"{man}: not a sweep directory (no readable {store.MANIFEST})") from None


def summarize(
    df: pd.DataFrame, axes: list[str], metrics: list[str] | tuple[str, ...] = DEFAULT_METRICS
) -> pd.DataFrame:
    """Long table: axes..., metric, n, failed, mean, std, ci95, min, max (one row per point
    and metric, in point order)."""
    for m in metrics:
        if m not in df.columns:
            known = ", ".join(c for c in df.columns if c not in axes)
            raise SweepError(f"--metric: no metric {m!r} in the results; expected one of {known}")
    rows = []
    for point, g in df.groupby("point", sort=True):
        ok = g[g["error"].isna()]
        base = {a: g[a].iloc[0] for a in axes}
        for m in metrics:
            x = pd.to_numeric(ok[m], errors="coerce").dropna()
            n = len(x)
            std = float(x.std(ddof=1)) if n > 1 else math.nan
            rows.append(
                {
                    **base,
                    "point": point,
                    "metric": m,
                    "n": n,
                    "failed": len(g) - len(ok),
                    "mean": float(x.mean()) if n else math.nan,
                    "std": std,
                    "ci95": t975(n - 1) * std / math.sqrt(n) if n > 1 else math.nan,
                    "min": float(x.min()) if n else math.nan,
                    "max": float(x.max()) if n else math.nan,
                }
            )
    return pd.DataFrame(rows)


def to_markdown(table: pd.DataFrame, axes: list[str]) -> str:
    """One Markdown table per metric: a row per point, mean ± CI95 (min..max, n)."""

    def f(v: float) -> str:
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"

    out = []
    for metric, g in table.groupby("metric", sort=False):
        out.append(f"### {metric}\n")
        out.append("| " + " | ".join([*axes, "n", "mean ± 95 % CI", "std", "min .. max"]) + " |")
        out.append("|" + "---|" * (len(axes) + 4))
        for _, r in g.iterrows():
            cells = [str(r[a]) for a in axes]
            fail = f" ({r['failed']} failed)" if r["failed"] else ""
            cells += [
                f"{r['n']}{fail}",
                f"{f(r['mean'])} ± {f(r['ci95'])}",
                f(r["std"]),
                f"{f(r['min'])} .. {f(r['max'])}",
            ]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def numeric_axis(values: pd.Series) -> tuple[pd.Series, str]:
    """An axis column as numbers for plotting: numbers stay, "0.5 s"-style strings with one
    common unit become their numbers (the unit returned for the label)."""
    if pd.api.types.is_numeric_dtype(values):
        return values.astype(float), ""
    parts = values.astype(str).str.strip().str.split(r"\s+", n=1, expand=True)
    nums = pd.to_numeric(parts[0], errors="coerce")
    units = parts[1].dropna().unique() if parts.shape[1] > 1 else []
    if nums.notna().all() and len(units) <= 1:
        return nums, (units[0] if len(units) else "")
    raise SweepError(
        f"--x: axis {values.name!r} is not numeric (values such as {values.iloc[0]!r})"
    )


def plot(
    df: pd.DataFrame, x: str, y: str, out: Path, hue: str | None = None, title: str = ""
) -> list[Path]:
    """Mean of ``y`` against ``x`` with the 95 % CI as a band, a line per ``hue`` value; PNG and
    SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for a, what in ((x, "--x"), (y, "--y"), (hue, "--hue")):
        if a is not None and a not in df.columns:
            raise SweepError(f"{what}: no column {a!r} in the results")
    axes = [x] + ([hue] if hue else [])
    table = summarize(df, axes, [y])
    xs, unit = numeric_axis(table[x].rename(x))
    table = table.assign(_x=xs.values)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), constrained_layout=True)
    groups = table.groupby(hue, sort=False) if hue else [(None, table)]
    for label, g in groups:
        g = g.sort_values("_x")
        ax.plot(g["_x"], g["mean"], marker="o", ms=3, label=None if label is None else str(label))
        ci = g["ci95"].fillna(0.0)
        ax.fill_between(g["_x"], g["mean"] - ci, g["mean"] + ci, alpha=0.25, linewidth=0)
    ax.set_xlabel(f"{x} [{unit}]" if unit else x)
    ax.set_ylabel(y)
    if title:
        ax.set_title(title)
    if hue:
        ax.legend(title=hue, fontsize="small")
    ax.grid(True, alpha=0.3)
    paths = []
    for ext in ("png", "svg"):
        p = out.parent / f"{out.name}.{ext}"
        fig.savefig(p, dpi=150)
        paths.append(p)
    plt.close(fig)
    return paths
