"""Per-point statistics of a sweep, in the form of the papers' tables, and plots with CI bands.

For each point (the axis columns) and metric: n, mean, standard deviation (n - 1), the
half-width of the 95 % confidence interval of the mean (Student's t, n - 1 degrees of
freedom: the replications are independent runs), min and max. Failed runs are left out and
counted in ``failed``.

A plot draws one metric against one axis (``x``), a line per value of another (``hue``). The
sweep's other axes are *averaged over*: each plotted mean and its CI band are over every run at
that x (and hue), whatever the other axes' values, and the figure and ``vho sweep plot`` say
which axes were averaged so. An axis with units is placed by its number (``<axis>_si``, see
:mod:`vho.sweep.units`), so ``"500 ms"`` comes before ``"1 s"``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd

from ..errors import SweepError
from . import store, units

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


def default_metrics(df: pd.DataFrame) -> list[str]:
    """:data:`DEFAULT_METRICS` as the results name them: bare for a one-flow scenario, every
    flow's ``flow.<name>.<metric>`` for several (see :func:`vho.sweep.flatten_summary`)."""
    out = []
    for m in DEFAULT_METRICS:
        if m in df.columns:
            out.append(m)
        else:
            out += [c for c in df.columns if c.startswith("flow.") and c.endswith(f".{m}")]
    return out


def _stats(x: pd.Series) -> dict[str, float | int]:
    """n, mean, std (n - 1), ci95 (half-width, Student's t), min, max of the numbers in x."""
    x = pd.to_numeric(x, errors="coerce").dropna()
    n = len(x)
    std = float(x.std(ddof=1)) if n > 1 else math.nan
    return {
        "n": n,
        "mean": float(x.mean()) if n else math.nan,
        "std": std,
        "ci95": t975(n - 1) * std / math.sqrt(n) if n > 1 else math.nan,
        "min": float(x.min()) if n else math.nan,
        "max": float(x.max()) if n else math.nan,
    }


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
    # Each axis's number in base units, after the axes, where the results have it.
    si = [f"{a}{units.SI_SUFFIX}" for a in axes if f"{a}{units.SI_SUFFIX}" in df.columns]
    rows = []
    for point, g in df.groupby("point", sort=True):
        ok = g[g["error"].isna()]
        base = {a: g[a].iloc[0] for a in [*axes, *si]}
        for m in metrics:
            st = _stats(ok[m])
            rows.append(
                {**base, "point": point, "metric": m, "n": st.pop("n"), "failed": len(g) - len(ok)}
                | st
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
    """An axis column as numbers for plotting: numbers stay; strings with units of one kind
    become their numbers in base units (the unit returned for the label)."""
    if pd.api.types.is_numeric_dtype(values):
        return values.astype(float), ""
    unit = units.axis_unit(list(values.dropna().unique()))
    if unit is not None and values.notna().all():
        return values.map(lambda v: units.quantity(v)[0]).astype(float), unit
    raise SweepError(
        f"--x: axis {values.name!r} is not numeric (values such as {values.iloc[0]!r})"
    )


def averaged_axes(df: pd.DataFrame, axes: list[str], x: str, hue: str | None) -> list[str]:
    """The axes a plot of ``x`` (by ``hue``) averages over: those taking more than one value at
    some plotted (x, hue). (The other key of a zipped axis moves with x, so it is not one.)"""
    by = [x] + ([hue] if hue else [])
    out = []
    for a in axes:
        if a in by or f"{a}{units.SI_SUFFIX}" in by:
            continue
        if df.groupby(by, sort=False, dropna=False)[a].nunique(dropna=False).max() > 1:
            out.append(a)
    return out


def plot_table(
    df: pd.DataFrame, x: str, y: str, hue: str | None = None
) -> tuple[pd.DataFrame, str]:
    """What :func:`plot` draws: per ``hue`` value (in the axis's order) and x (ascending, as
    numbers), the statistics of ``y`` over every successful run there, the axes not plotted
    averaged over; columns ``hue`` (with a hue), ``x``, n, mean, std, ci95, min, max. And the
    unit of x ("" for plain numbers)."""
    for a, what in ((x, "--x"), (y, "--y"), (hue, "--hue")):
        if a is not None and a not in df.columns:
            raise SweepError(f"{what}: no column {a!r} in the results")
    if hue is not None and hue == x:
        raise SweepError(f"--hue: {hue!r} is already --x")
    si = f"{x}{units.SI_SUFFIX}"
    if si in df.columns:
        xs, unit = df[si].astype(float), units.axis_unit(list(df[x].dropna().unique())) or ""
    else:
        xs, unit = numeric_axis(df[x].rename(x))
    data = df.assign(_x=xs.values)
    ok = data[data["error"].isna()]
    if hue:
        hue_si = f"{hue}{units.SI_SUFFIX}"
        order = data.sort_values(hue_si if hue_si in data.columns else "point", kind="stable")
        groups = [(h, ok[ok[hue] == h]) for h in dict.fromkeys(order[hue])]
    else:
        groups = [(None, ok)]
    rows = [
        {**({"hue": h} if hue else {}), "x": xv, **_stats(r[y])}
        for h, g in groups
        for xv, r in g.groupby("_x", sort=True)
    ]
    cols = [*(["hue"] if hue else []), "x", "n", "mean", "std", "ci95", "min", "max"]
    return pd.DataFrame(rows, columns=cols), unit


def plot(
    df: pd.DataFrame,
    x: str,
    y: str,
    out: Path,
    hue: str | None = None,
    title: str = "",
    axes: list[str] | None = None,
) -> list[Path]:
    """Mean of ``y`` against ``x`` with the 95 % CI as a band, a line per ``hue`` value; PNG and
    SVG. ``axes`` (the sweep's axis columns): those not plotted are averaged over, and the
    figure says which (see the module doc and :func:`plot_table`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table, unit = plot_table(df, x, y, hue)
    over = averaged_axes(df, axes or [], x, hue)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), constrained_layout=True)
    groups = table.groupby("hue", sort=False) if hue else [(None, table)]
    for label, g in groups:
        ax.plot(g["x"], g["mean"], marker="o", ms=3, label=None if label is None else str(label))
        ci = g["ci95"].fillna(0.0)
        ax.fill_between(g["x"], g["mean"] - ci, g["mean"] + ci, alpha=0.25, linewidth=0)
    ax.set_xlabel(f"{x} [{unit}]" if unit else x)
    ax.set_ylabel(y)
    note = "mean and 95 % CI of the runs"
    if over:
        note += " averaged over " + ", ".join(f"{a} ({df[a].nunique()} values)" for a in over)
    ax.set_title(f"{title}\n{note}" if title else note, fontsize="small")
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
