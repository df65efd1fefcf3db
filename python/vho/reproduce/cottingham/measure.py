"""What one run of `vho reproduce cottingham` measures (Cottingham & Vidales,
000_2dceaee3c96622fa.txt), in the sweep engine's worker, from the run's `vho run` output: T_n
and its parts from ``summary.json`` (the signalling as packets), t_a from the run's own capture
at the mobile node by ``vho analyze`` (§5's method: throughput per event-driven 0.1 s interval,
the first crossing of the mean over the samples after the handover), and after a downward
handover how the sender's window climbs (its series). The capture is dropped afterwards unless
the run is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def measure(out: Path, summary: dict) -> dict[str, float]:
    """One run's measurements: T_n and its parts (first handover), t_a from the capture."""
    from ...analysis import analyze

    h = summary["handovers"][0]
    m = h.get("mipv6") or {}
    flow = summary["flows"][0]
    row: dict[str, float] = {"at_s": h["at_s"]}
    for k in ("t_d_s", "t_c_s", "t_r_s", "t_n_s", "ba_s", "bu_cn_sent_s"):
        row[k] = _num(m.get(k))
    row["bu_transmissions"] = float(m.get("bu_transmissions", np.nan))
    first_ro, first_tun = _num(m.get("first_route_optimised_s")), _num(m.get("first_tunnelled_s"))
    row["tunnelled_before_ro_s"] = (
        first_ro - first_tun if np.isfinite(first_tun) and np.isfinite(first_ro) else 0.0
    )
    row["ba_to_ro_s"] = first_ro - row["ba_s"]
    for k in (
        "retransmissions",
        "spurious_retransmissions",
        "timeouts",
        "spurious_timeouts",
        "out_of_order_deliveries",
        "duplicate_acks",
    ):
        row[k] = float(flow[k])
    a = analyze(out / "mn.pcap", ta_mean="after-handover")
    f = a.flows.iloc[0]
    row["t_a_s"] = _num(f["adaptation_time_s"])
    row["first_after_handover_s"] = _num(f["first_after_handover_s"])
    row["dsack_blocks"] = float(f["dsack_blocks"])
    row["total_s"] = row["t_n_s"] + row["t_a_s"]
    row["share_t_n"] = row["t_n_s"] / row["total_s"]
    row["share_t_a"] = row["t_a_s"] / row["total_s"]
    if len(summary["handovers"]) > 1:
        h2 = summary["handovers"][1].get("mipv6") or {}
        row["t_n2_s"] = _num(h2.get("t_n_s"))
    return row


def window_climb(series: pd.DataFrame, summary: dict) -> dict[str, float]:
    """After a downward handover: the sender's cwnd when the first packet reached the new
    link, and how long after that its flight took to reach 95 % of the most it ever had in
    flight afterwards (on a fast path, the receive window), from its recorded state."""
    m = summary["handovers"][0].get("mipv6") or {}
    first = m.get("first_route_optimised_s") or m.get("first_tunnelled_s")
    if first is None or series is None or not len(series):
        return {"cwnd_at_new_link": np.nan, "window_full_after_s": np.nan}
    before = series[series["t_s"] <= first]
    after = series[series["t_s"] >= first]
    cwnd0 = float(before["cwnd"].iloc[-1]) if len(before) else np.nan
    full = after[after["flight"] >= 0.95 * after["flight"].max()]
    return {
        "cwnd_at_new_link": cwnd0,
        "window_full_after_s": float(full["t_s"].iloc[0] - first) if len(full) else np.nan,
    }


def _num(v) -> float:
    return float("nan") if v is None else float(v)


def measure_run(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """The study's measure function (:class:`vho.sweep.spec.Measure`); ``params``: whether the
    case is a downward handover (``downward``: the window's climb from the sender's series)."""
    row = measure(run_dir, result.summary)
    if params.get("downward"):
        row.update(window_climb(result.tcp.get("download"), result.summary))
    return row
