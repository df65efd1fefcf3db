"""The source of `docs/design/chen.md`'s figures, for `scripts/doc_numbers.py` (a *full*
source: `vho reproduce chen --workers 2` takes 9 minutes or more on 2 cores).
``VHO_DOC_CHEN=DIR`` reads a run already made at this commit (`vho reproduce chen --out DIR`)
instead of making one."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

#: How this process runs the `vho` command line.
VHO = [sys.executable, "-m", "vho.cli"]
#: The temporary folder of this process's `vho reproduce chen` run (removed at exit).
_KEEP: list[tempfile.TemporaryDirectory[str]] = []


def _out() -> Path:
    if os.environ.get("VHO_DOC_CHEN"):
        return Path(os.environ["VHO_DOC_CHEN"])
    _KEEP.append(tempfile.TemporaryDirectory())
    out = Path(_KEEP[-1].name) / "chen"
    subprocess.run(
        [*VHO, "reproduce", "chen", "--workers", "2", "--quiet", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def _g(x: float) -> str:
    """Three significant digits, as the study's report prints them."""
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def _ci(values: list[float]) -> str:
    """mean [95 % t interval] over the replications."""
    import numpy as np
    from scipy import stats

    v = np.asarray(values, dtype=float)
    m = float(v.mean())
    h = float(stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))
    return f"{_g(m)} [{_g(m - h)}, {_g(m + h)}]"


@cache
def chen() -> dict[str, str]:
    """`vho reproduce chen` (seeds 1-5): the paper's headline numbers as vho gives them, the
    report's count of agreeing numbers, and the cause variants' runs."""
    import pandas as pd

    out = _out()
    t = pd.read_csv(out / "table.csv").set_index("key")
    runs = pd.read_csv(out / "runs.csv")

    def ours(key: str) -> str:
        r = t.loc[key]
        return f"{_g(r['ours'])} [{_g(r['ours_lo'])}, {_g(r['ours_hi'])}]"

    def col(case: str, variant: str, metric: str) -> list[float]:
        s = runs[(runs["case"] == case) & (runs["variant"] == variant)]
        return list(s.sort_values("replication")[metric])

    judged = t[t["verdict"] != "not measured"]
    agree = int(t["verdict"].isin(["agrees", "holds"]).sum())

    def gain(case: str, variant: str) -> str:
        a = sum(col(case, variant, "delivered_after_bytes"))
        b = sum(col(case, "original", "delivered_after_bytes"))
        return f"{100 * (a / b - 1):.1f} %"

    hl = "high-low-tfrc"
    a30, b30 = col(hl, "ehn-a-30ms", "lost_window"), col(hl, "ehn-b-30ms", "lost_window")
    return {
        "agree": f"{agree} of {len(judged)}",
        "ihn_tfrc": ours("low-high-tfrc.ihn_s"),
        "ihn_tcp": ours("low-high-tcp.ihn_minus_ehn_s"),
        "original_lost": ours("high-low-tfrc.original_lost"),
        "ehn_a_lost": ours("high-low-tfrc.ehn_a_lost"),
        "ehn_b_lost": ours("high-low-tfrc.ehn_b_lost"),
        "ratio": ours("high-low-tfrc.ehn_a_over_ehn_b"),
        "ihn_high_low": _ci(col(hl, "original", "ihn_s")),
        "probe150_tfrc": _ci(col("low-high-tfrc", "probe-150", "ihn_s")),
        "probe150_tcp": _ci(col("low-high-tcp", "probe-150", "ihn_s")),
        "wired30_original": _ci(col(hl, "original-30ms", "lost_window")),
        "wired30_ehn_a": _ci(a30),
        "wired30_ehn_b": _ci(b30),
        "wired30_ratio": _ci([a / b for a, b in zip(a30, b30, strict=True)]),
        "fra_tfrc_ihn": gain("low-high-tfrc", "ihn-fra"),
        "fra_tfrc_ehn": gain("low-high-tfrc", "ehn-fra"),
        "fra_tcp_ihn": gain("low-high-tcp", "ihn-fra"),
    }
