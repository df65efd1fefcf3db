"""Figs. 6-9 of Chen et al. redrawn by `vho reproduce chen` from the first replication's kept
runs (the sender's series, the probe's, the drops, the bytes delivered per 0.1 s), and Fig. 9's
counts over every replication."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ... import plots
from ...plots import _save
from ..study import Context
from ..verdict import mean_ci
from .design import CASES, LOSS_WINDOW_S, Case, variants
from .measure import RECEIVED
from .paper import NUMBERS

#: The paper's numbers by key.
PAPER = {n.key: n.value for n in NUMBERS}


def _carry(df: pd.DataFrame, lo: float) -> pd.DataFrame:
    """Rows from the last one before ``lo`` on (a step plot's value at the window's start)."""
    before = df[df["t_s"] < lo]
    start = before.index[-1] if len(before) else df.index[0] if len(df) else None
    return df.loc[start:] if start is not None else df


def _rate_series(ctx: Context, c: Case, lo: float) -> dict[str, pd.DataFrame]:
    out = {}
    for v in variants(c):
        name, label = v.name, v.label
        p = ctx.kept(c.name, name) / "series_tfrc.parquet"
        if p.exists():
            s = pd.read_parquet(p)
            out[label] = _carry(s.assign(y=s["x_bps"] / 1e3)[["t_s", "y"]], lo)
    return out


def _cwnd_series(ctx: Context, c: Case, lo: float) -> dict[str, pd.DataFrame]:
    out = {}
    for v in variants(c):
        name, label = v.name, v.label
        p = ctx.kept(c.name, name) / "series_tcp.parquet"
        if p.exists():
            s = pd.read_parquet(p)
            # ns-2's TCP counts its window in packets of 1000 bytes (the ns2 profile's MSS).
            out[label] = _carry(s.assign(y=s["cwnd"] / 1000.0)[["t_s", "y"]], lo)
    return out


def _sequence_series(ctx: Context, c: Case, size: int) -> dict[str, pd.DataFrame]:
    """Packets delivered in order since the start, per 0.1 s: the sequence number reached."""
    out = {}
    for v in variants(c):
        name, label = v.name, v.label
        p = ctx.kept(c.name, name) / RECEIVED
        if p.exists():
            r = pd.read_parquet(p)
            out[label] = pd.DataFrame({"t_s": r["t_s"], "y": r["bytes"].cumsum() / size})
    return out


def _marks(runs: pd.DataFrame, c: Case, handoff: float):
    """The first replication's detections (IHN) and notifications (EHN), per variant."""
    out = []
    for v in variants(c):
        name, label = v.name, v.label
        g = runs[(runs["case"] == c.name) & (runs["variant"] == name) & (runs["replication"] == 0)]
        if not len(g):
            continue
        if name == "original":
            continue  # the original's IHN acts on nothing
        for key, what in (("ihn_s", "IHN"), ("ehn_s", "EHN")):
            v = float(g[key].iloc[0])
            if np.isfinite(v):
                out.append((handoff + v, label, f"{label}: {what} at {v:+.2f} s"))
    return out


def figures(ctx: Context) -> dict[str, Path]:
    """Figs. 6-9 from the first replication's kept runs; the handoff at that replication's
    instant."""
    runs = ctx.runs
    first = runs[runs["replication"] == 0]
    handoff = float(first["handoff_s"].iloc[0])
    seed = int(first["seed"].iloc[0])
    stop = float(first["simulated_s"].max())
    figs = ctx.out / "figures"
    window = (max(0.0, handoff - 30.0), min(stop, handoff + 120.0))
    written: dict[str, Path] = {}
    for c in CASES:
        marks = _marks(runs, c, handoff)
        if c.protocol == "tfrc":
            first_panel = ("TFRC sending rate X (kb/s)", _rate_series(ctx, c, window[0]))
            number = "6" if c.direction == "low-to-high" else "8"
        else:
            first_panel = (
                "TCP congestion window (packets of 1000 B)",
                _cwnd_series(ctx, c, window[0]),
            )
            number = "7"
        seq = ("packets delivered (sequence number)", _sequence_series(ctx, c, 1000))
        stem = figs / f"fig{number}-{c.name}"
        plots.variants_over_time(
            [first_panel, seq],
            stem,
            handovers=[handoff],
            marks=marks,
            window=window,
            title=f"Fig. {number}: {c.title.split(' (')[0]}, seed {seed}",
        )
        written[f"fig{number}"] = stem.with_suffix(".png")
    high = next((c for c in CASES if c.direction == "high-to-low"), None)
    if high is not None:
        written["fig9"] = _fig9(figs / "fig9-packets-lost", ctx, high, handoff, seed)
    return written


def _fig9(stem: Path, ctx: Context, c: Case, handoff: float, seed: int) -> Path:
    import matplotlib.pyplot as plt

    runs = ctx.runs
    lo, hi = handoff + LOSS_WINDOW_S[0], handoff + LOSS_WINDOW_S[1]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4))
    for j, v in enumerate(variants(c)):
        name, label = v.name, v.label
        p = ctx.kept(c.name, name) / "series_drops.parquet"
        if not p.exists():
            continue
        dr = pd.read_parquet(p)
        t = np.sort(dr[dr["flow"] == dr["flow"].iloc[0]]["t_s"].to_numpy()) if len(dr) else []
        t = np.asarray([x for x in t if lo - 5.0 <= x < hi + 5.0])
        n = np.arange(1, len(t) + 1)
        colour = plots.VARIANT_COLOURS[j]
        ax.step(
            np.r_[lo - 5.0, t, hi + 5.0],
            np.r_[0, n, len(t)],
            where="post",
            color=colour,
            label=label,
        )
    ax.axvspan(lo, hi, color="tab:orange", alpha=0.1, label="counted window")
    ax.axvline(handoff, color="black", ls="--", lw=1, label="handoff")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets lost (cumulative)")
    ax.set_title(f"(a) packets lost around the handoff, seed {seed}", fontsize=10)
    paper_lost = {
        "original": PAPER["high-low-tfrc.original_lost"],
        "ehn-a": PAPER["high-low-tfrc.ehn_a_lost"],
        "ehn-b": PAPER["high-low-tfrc.ehn_b_lost"],
    }
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    names = [v.name for v in variants(c)]
    labels = [v.label for v in variants(c)]
    g = runs[runs["case"] == c.name]
    means = [g[g["variant"] == n]["lost_window"].mean() for n in names]
    cis = []
    for n in names:
        v = g[g["variant"] == n]["lost_window"]
        m, _, hi_ = mean_ci(v.to_numpy(dtype=float))
        cis.append(hi_ - m if len(v) > 1 else 0.0)
    x = np.arange(len(names))
    bx.bar(
        x - 0.2,
        means,
        0.4,
        yerr=cis,
        capsize=4,
        color="tab:blue",
        label=f"vho, mean ± 95 % CI ({g['replication'].nunique()} replications)",
    )
    bx.bar(
        x + 0.2,
        [paper_lost[n] for n in names],
        0.4,
        color="tab:gray",
        label="paper (l.189)",
    )
    bx.set_xticks(x, labels)
    bx.set_ylabel("packets lost in the window")
    bx.set_title("(b) Fig. 9: packets lost during the HIGH-to-LOW handoff", fontsize=10)
    bx.grid(alpha=0.3, axis="y")
    bx.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, stem, ("png", "svg"))
    return stem.with_suffix(".png")
