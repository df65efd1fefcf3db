"""The report of `vho reproduce naoe`: Tables II and III beside the paper's (mean and sigma),
the counters measured in each cell, §VII's cases, the variants that test a cause, the alpha x
initial T_eDelay grid, and Fig. 6 per scheme. It only reads: the runs table and the Fig. 6
trials' kept captures. :func:`evidence` gives vho's side of every number, per trial; a
difference's cause is named only where a variant shows it (:func:`vho.reproduce.study.causes`).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from ... import capture, plots
from ...plots import _save
from ..study import Context, Design, causes, md_table, point_rows
from ..verdict import Evidence, num
from .design import ALPHAS, CAUSES, FIG6, FIG6_TWO_SESSIONS, INITIAL_DELAYS_S, SECTION_VII
from .paper import LABELS, METRIC_LABELS, METRICS, NUMBERS, SCHEMES, TABLE_NUMBER, TABLES

#: summary.json's per-flow fields behind the paper's three metrics (one flow: bare columns).
FIELDS = {
    "out_of_order": "reordered_deliveries",
    "spurious_retransmissions": "spurious_retransmissions",
    "goodput_kbps": "window_goodput_bps",
}
#: What each cell's runs measured besides (summary.json's counters), as the report shows them.
COUNTERS = (
    "retransmissions",
    "timeouts",
    "spurious_timeouts",
    "spurious_timeouts_detected",
    "fast_retransmits",
    "dropped_link_layer_discard",
    "dropped_queue_overflow",
    "nemo.packets_bicast",
    "nemo.copies",
    "nemo.held",
    "nemo.max_hold_s",
    "nemo.released_at_completion",
)


def metric(
    runs: pd.DataFrame, case: str, variant: str, m: str, flow: str | None = None
) -> np.ndarray:
    """A metric of the paper's over a point's trials, in trial order (goodput in kb/s)."""
    col = FIELDS[m] if flow is None else f"flow.{flow}.{FIELDS[m]}"
    g = point_rows(runs, case, variant)
    if col not in g.columns:
        return np.array([])
    x = pd.to_numeric(g[col], errors="coerce").to_numpy(dtype=float)
    return x / 1000 if m == "goodput_kbps" else x


def evidence(runs: pd.DataFrame, design: Design) -> dict[str, Evidence]:
    """vho's side of every number (common random numbers: trial r drew the same errors under
    every scheme, so the claims are paired)."""
    out: dict[str, Evidence] = {}
    for direction, schemes in TABLES.items():
        for scheme in schemes:
            for m in METRICS:
                x = metric(runs, direction, scheme, m)
                out[f"{direction}.{scheme}.{m}"] = Evidence.of(x)
                out[f"{direction}.{scheme}.{m}.sd"] = Evidence.of(x)

    def pair(d: str, a: str, b: str, m: str) -> Evidence:
        return Evidence.of(metric(runs, d, a, m), metric(runs, d, b, m), paired=True)

    for d in ("downward", "upward"):
        out[f"{d}.apc_fewer_spurious"] = pair(d, "apc", "nemo-sho", "spurious_retransmissions")
        out[f"{d}.apc_less_reordering"] = pair(d, "apc", "nemo-sho", "out_of_order")
        out[f"{d}.apc_above_mbb"] = pair(d, "apc", "mbb", "goodput_kbps")
        out[f"{d}.apc_above_sho"] = pair(d, "apc", "nemo-sho", "goodput_kbps")
    # §VII's delays: Fig. 6's trials, captured at the mobile router (measure.py), one trial
    # each as the paper's (Fig. 6a and 6b are one trial each).
    for key, variant in (
        ("downward.first_slow_copy_delay_s", "apc"),
        ("downward.two_sessions.first_slow_copy_delay_s", FIG6_TWO_SESSIONS),
    ):
        g = point_rows(runs, FIG6, variant)
        col = "first_duplicate_delay_s"
        x = pd.to_numeric(g[col], errors="coerce") if col in g.columns else []
        out[key] = Evidence.of(
            x,
            note="Fig. 6's trial of APC, captured at the mobile router: the first bicast "
            "packet's 3G copy after its WLAN copy (one trial, as the paper's)",
        )
    out["upward.apc_reordering_increased"] = Evidence.of(
        metric(runs, "upward", "apc", "out_of_order"),
        metric(runs, "downward", "apc", "out_of_order"),
        note="the two directions are two scenarios: Welch",
    )
    return out


def why(ctx: Context) -> dict[str, str]:
    return causes(ctx, evidence)


def _ms(x: np.ndarray) -> str:
    """mean (sd) as the paper prints its cells."""
    x = x[np.isfinite(x)]
    if not len(x):
        return "-"
    s = f"{np.std(x, ddof=1):.1f}" if len(x) > 1 else "-"
    return f"{np.mean(x):.1f} (sd {s})"


def _mean(runs: pd.DataFrame, case: str, variant: str, col: str) -> str:
    g = point_rows(runs, case, variant)
    if col not in g.columns:
        return "-"
    return num(float(pd.to_numeric(g[col], errors="coerce").mean()), 1)


def body(ctx: Context) -> list[str]:
    runs = ctx.runs
    lines = ["## Tables II and III", ""]
    for direction in ("downward", "upward"):
        arrow = "3G -> WLAN" if direction == "downward" else "WLAN -> 3G"
        lines += [
            f"**Table {TABLE_NUMBER[direction]}, {direction} handover ({arrow})**: paper mean "
            "(sd) \\| vho mean (sd)",
            "",
            *md_table(
                ["", *(METRIC_LABELS[m] for m in METRICS)],
                [
                    [LABELS[s]]
                    + [
                        f"{TABLES[direction][s][m][0]:g} (sd {TABLES[direction][s][m][1]:g}) | "
                        + _ms(metric(runs, direction, s, m))
                        for m in METRICS
                    ]
                    for s in SCHEMES
                ],
            ),
            "",
        ]
    lines += [
        "## What each cell's trials measured besides",
        "",
        "Means over the trials of `summary.json`'s counters (the mobile router's combining "
        "for NEMO-SHO and APC).",
        "",
        *md_table(
            ["direction", "scheme", *COUNTERS],
            [
                [d, LABELS[s], *(_mean(runs, d, s, c) for c in COUNTERS)]
                for d in ("downward", "upward")
                for s in SCHEMES
            ],
        ),
        "",
        "## §VII's cases (downward)",
        "",
        *md_table(
            ["case", "flow", *(METRIC_LABELS[m] for m in METRICS)],
            [
                [
                    what,
                    flow or "bulk",
                    *(_ms(metric(runs, "downward", name, m, flow)) for m in METRICS),
                ]
                for name, what, _, _, two in SECTION_VII
                for flow in (["bulk", "bulk2"] if two else [None])
            ],
        ),
        "",
    ]
    variants = set(runs["variant"])
    if any(f"{s}-{c}" in variants for s in SCHEMES for c, _, _ in CAUSES):
        lines += [
            "## The variants that test a cause",
            "",
            "Every scheme in both directions, one open value changed (same trials); the table "
            "of every number names one as a cause only where it moves that number to agree.",
            "",
            *md_table(
                ["direction", "scheme", "variant", *(METRIC_LABELS[m] for m in METRICS)],
                [
                    [d, LABELS[s], what, *(_ms(metric(runs, d, f"{s}-{c}", m)) for m in METRICS)]
                    for d in ("downward", "upward")
                    for s in SCHEMES
                    for c, what, _ in CAUSES
                ],
            ),
            "",
        ]
    grid = _grid(runs)
    if len(grid):
        _grid_figure(grid, ctx.out)
        lines += [
            "## Sensitivity to alpha and the initial T_eDelay (§VII)",
            "",
            f"APC, {int(grid['trials'].iloc[0])} trials per point, means ({len(grid)} points).",
            "",
            "![sensitivity](figures/sensitivity.png)",
            "",
        ]
    lines += ["## Fig. 6", "", *_fig6(ctx), ""]
    return lines


_GRID = re.compile(r"grid-alpha([\d.]+)-d([\d.]+)")


def _grid(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (direction, variant), g in runs.groupby(["case", "variant"]):
        m = _GRID.fullmatch(str(variant))
        if m is None:
            continue
        r = {"direction": direction, "alpha": float(m.group(1)),
             "initial_delay_s": float(m.group(2)), "trials": len(g)}  # fmt: skip
        for k in METRICS:
            r[k] = float(np.nanmean(metric(runs, direction, variant, k)))
        rows.append(r)
    return pd.DataFrame(rows)


def _grid_figure(grid: pd.DataFrame, out: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(14, 7.5), constrained_layout=True)
    for row, direction in enumerate(("downward", "upward")):
        g = grid[grid["direction"] == direction]
        for col, m in enumerate(METRICS):
            ax = axes[row][col]
            piv = g.pivot(index="alpha", columns="initial_delay_s", values=m).reindex(
                index=list(ALPHAS), columns=list(INITIAL_DELAYS_S)
            )
            im = ax.imshow(piv.values, aspect="auto", origin="lower", cmap="viridis")
            ax.set_xticks(range(len(piv.columns)), [f"{c:g}" for c in piv.columns])
            ax.set_yticks(range(len(piv.index)), [f"{a:g}" for a in piv.index])
            for i in range(piv.shape[0]):
                for j in range(piv.shape[1]):
                    ax.text(j, i, num(piv.values[i, j], 1), ha="center", va="center",
                            color="w", fontsize=8)  # fmt: skip
            ax.set_xlabel("initial T_eDelay (s)")
            ax.set_ylabel("alpha")
            ax.set_title(f"APC {direction}: {METRIC_LABELS[m]}", fontsize=9)
            fig.colorbar(im, ax=ax)
    return _save(fig, out / "figures" / "sensitivity", ("png", "svg"))


def _fig6(ctx: Context) -> list[str]:
    """Fig. 6: the LFN's received TCP sequence over time, one trial per scheme, downward."""
    figs = []
    for scheme in SCHEMES:
        d = ctx.kept(FIG6, scheme)
        if not (d / "lfn.pcap").exists():
            continue
        try:
            data, acks = capture.sequence(capture.read_tcp(d / "lfn.pcap"))
        except (ValueError, OSError) as e:  # a capture the reader cannot take: said here
            figs.append(f"(Fig. 6, {LABELS[scheme]}: not drawn: {e})")
            continue
        plots.time_sequence(
            data,
            acks,
            ctx.out / "figures" / f"fig6_{scheme}",
            title=f"Naoe et al. Fig. 6, {LABELS[scheme]}, downward: received at the LFN",
            handovers=[5.0, 15.0],
            formats=("png",),
        )
        figs.append(f"![Fig. 6, {LABELS[scheme]}](figures/fig6_{scheme}.png)")
    figs.append(
        "The first trial of each scheme, downward, captured at the LFN "
        f"(`runs/{FIG6}/<scheme>/rep-0/`)."
    )
    return figs


__all__ = ["NUMBERS", "body", "evidence", "why"]
