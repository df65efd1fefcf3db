"""What one run of `vho reproduce chen` measures (Chen et al., 004_131556780010e7f2.txt §5), in
the sweep engine's worker, from the run's `vho run` output (:func:`measure_run`): IHN's and
EHN's detections, the application's packets lost around the handoff (Fig. 9), what it
delivered and how soon it filled the new link (Figs. 6(b), 7(b)), TFRC's rate around the
handoff (Figs. 6(a), 8(a)), FRA's exit; and beside the run ``received.parquet``, the bytes
delivered per 0.1 s, which the figures read.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .design import DELIVERED_AFTER_S, FILL_SHARE, LOSS_WINDOW_S, ONEX_BPS, WLAN_BPS

#: Beside each run: the application's bytes delivered in order per 0.1 s.
RECEIVED = "received.parquet"


def detection(summary: dict, by: str, direction: str) -> float:
    """Seconds after the handoff of the first detection ``by`` ihn/ehn of a ``direction``
    handoff (negative: before it), NaN if none."""
    probe = summary["flows"][0].get("probe") or {}
    for d in probe.get("detections", []):
        if d["by"] == by and d["direction"] == direction:
            return float(d["after_handover_s"])
    return math.nan


def count_in(t: pd.Series, lo: float, hi: float) -> int:
    return int(((t >= lo) & (t < hi)).sum())


def fill_time(received: pd.DataFrame, handoff: float) -> float:
    """Seconds after the handoff until the bytes delivered over 1 s first reach FILL_SHARE of
    802.11b's rate (NaN if never)."""
    r = received[received["t_s"] >= handoff - 1e-9]
    if not len(r):
        return math.nan
    per_s = r["bytes"].rolling(10, min_periods=10).sum() * 8.0
    hit = r["t_s"][per_s >= FILL_SHARE * WLAN_BPS]
    # The window of 1 s ends 0.1 s after its last bin's start.
    return float(hit.iloc[0] + 0.1 - handoff) if len(hit) else math.nan


def excess_packets(tfrc: pd.DataFrame, handoff: float, size: int) -> float:
    """TFRC packets sent above 1xRTT's rate from the handoff to the end of the loss window:
    the integral of max(X - 150 kb/s, 0) over time (X piecewise constant between changes),
    in packets of ``size`` bytes. What the sender offers beyond the new link, before its
    queue absorbs some: the cause of the losses that Fig. 9 counts."""
    end = handoff + LOSS_WINDOW_S[1]
    s = tfrc[tfrc["t_s"] < end]
    t = s["t_s"].to_numpy()
    x = s["x_bps"].to_numpy()
    if not len(t):
        return math.nan
    edges = np.append(np.maximum(t, handoff), end)
    widths = np.clip(np.diff(edges), 0.0, None)
    return float((np.clip(x - ONEX_BPS, 0.0, None) * widths).sum() / 8.0 / size)


def equation_bps(size: int, rtt_s: float, p: float) -> float:
    """RFC 5348 §3.1's X_Bps in bit/s, b = 1 and t_RTO = 4R (§4.3's recommendation)."""
    if p <= 0 or rtt_s <= 0:
        return math.inf
    t_rto = 4.0 * rtt_s
    den = rtt_s * math.sqrt(2.0 * p / 3.0) + t_rto * 3.0 * math.sqrt(3.0 * p / 8.0) * p * (
        1.0 + 32.0 * p * p
    )
    return size * 8.0 / den


def fra_exit(tfrc: pd.DataFrame, at: float, size: int) -> tuple[float, float]:
    """At the first report after FRA began at ``at``: (1 if its p is above the p before, the
    rule that ends FRA for TFRC (``tfrc/sender.rs`` fra_step); 1 if the equation's rate for
    its p and R is above X before it, which ended FRA too until it was found to end it before
    any doubling in every run)."""
    before = tfrc[tfrc["t_s"] <= at]
    after = tfrc[tfrc["t_s"] > at]
    if not len(before) or not len(after):
        return math.nan, math.nan
    b, a = before.iloc[-1], after.iloc[0]
    rose = float(a["p"] > b["p"])
    eq = float(equation_bps(size, float(a["rtt_s"]), float(a["p"])) > float(b["x_bps"]))
    return rose, eq


def fra_cut_after(tcp: pd.DataFrame, at: float) -> float:
    """Seconds from TCP's FRA at ``at`` (ssthresh back to its initial value) to the first
    reduction of ssthresh after it (a loss recovery ending the slow start FRA asked for); NaN
    if FRA set nothing or nothing cut it in DELIVERED_AFTER_S."""
    s = tcp[(tcp["t_s"] >= at) & (tcp["t_s"] < at + DELIVERED_AFTER_S)]
    top = s["ssthresh"].cummax()
    raised = s[s["ssthresh"] == s["ssthresh"].max()]
    if not len(raised):
        return math.nan
    after = s[(s["t_s"] >= raised["t_s"].iloc[0]) & (s["ssthresh"] < top)]
    return float(after["t_s"].iloc[0] - at) if len(after) else math.nan


def _mean_rate(tfrc: pd.DataFrame, lo: float, hi: float) -> float:
    """TFRC's rate X averaged over [lo, hi) (X piecewise constant between its changes)."""
    if not len(tfrc) or hi <= lo:
        return math.nan
    t = tfrc["t_s"].to_numpy()
    x = tfrc["x_bps"].to_numpy()
    k = max(int(np.searchsorted(t, lo, side="right")) - 1, 0)
    edges = np.clip(np.append(t[k:], hi), lo, hi)
    widths = np.diff(edges)
    return float((x[k:] * widths).sum() / (hi - lo))


def measure_run(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """One run's measurements (the study's :class:`vho.sweep.spec.Measure`); ``params``: the
    case's ``direction`` and whether the variant runs FRA (``fra``). The handoff's instant is
    the run's own (a replication draws it)."""
    s = result.summary
    h = float(s["handovers"][0]["at_s"])
    stop = float(s["run"]["simulated_s"])
    f = s["flows"][0]
    direction = params["direction"]
    drops = result.drops
    app = drops[drops["flow"] == f["name"]]["t_s"] if drops is not None else pd.Series([])
    lo, hi = h + LOSS_WINDOW_S[0], h + LOSS_WINDOW_S[1]
    span = hi - lo
    received = result.throughput.get(f["name"], pd.DataFrame({"t_s": [], "bytes": []}))
    received.to_parquet(run_dir / RECEIVED, index=False)
    delivered = received[(received["t_s"] >= h) & (received["t_s"] < h + DELIVERED_AFTER_S)]
    before = received[(received["t_s"] >= h - 10.0) & (received["t_s"] < h)]
    row = {
        "handoff_s": h,
        "ihn_s": detection(s, "ihn", direction),
        "ehn_s": detection(s, "ehn", direction),
        "lost_window": count_in(app, lo, hi),
        "lost_before_window": count_in(app, lo - span, lo),
        "lost_after_window": count_in(app, hi, hi + span),
        "lost_after_low_high": count_in(app, h, h + DELIVERED_AFTER_S),
        "lost_run": len(app),
        "delivered_after_bytes": float(delivered["bytes"].sum()),
        "delivered_to_end_bytes": float(received[received["t_s"] >= h]["bytes"].sum()),
        "rate_before_bps": float(before["bytes"].sum()) * 8.0 / 10.0,
        "fill_s": fill_time(received, h) if direction == "low-to-high" else math.nan,
        "probe_pairs": (f.get("probe") or {}).get("pairs", 0),
        "events": s["run"]["events"],
    }
    began = row["ehn_s"] if np.isfinite(row["ehn_s"]) else row["ihn_s"]
    fra = direction == "low-to-high" and params["fra"] and np.isfinite(began)
    if fra and f["name"] in result.tcp:
        row["fra_cut_after_s"] = fra_cut_after(result.tcp[f["name"]], h + began)
    tfrc_path = run_dir / "series_tfrc.parquet"
    if f.get("tfrc") and tfrc_path.exists():
        row["receiver_lost_run"] = f["tfrc"]["packets_lost"]
        tfrc = pd.read_parquet(tfrc_path)
        size = f["tfrc"]["packet_size"]
        row["excess_packets"] = excess_packets(tfrc, h, size)
        # Figs. 6(a), 8(a): the rate in the first second after the handoff, after its first
        # minute, and over the run's last 30 s.
        row["x_first_s_bps"] = _mean_rate(tfrc, h, h + 1.0)
        row["x_after_bps"] = _mean_rate(tfrc, h, h + DELIVERED_AFTER_S)
        row["x_final_bps"] = _mean_rate(tfrc, stop - 30.0, stop)
        if fra:
            rose, eq = fra_exit(tfrc, h + began, size)
            row["fra_exit_p_rose"], row["fra_exit_equation"] = rose, eq
    return row
