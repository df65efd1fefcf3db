"""The figures of ``vho analyze``: per flow, a time-sequence graph (data, cumulative ACK,
SACK blocks, retransmissions, drops where the capture or the simulator knows them, the
handover; vho's RTO on a right axis when its time series is at hand), throughput after the
handover with the mean and t_a, and cwnd/ssthresh when the time series is at hand (else the
data in flight seen in the capture)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .. import plots
from ..capture import flow_gaps, flow_in_flight, flow_sequence


def throughput_frame(points: list[list[float]]) -> pd.DataFrame:
    """vho-trace's throughput points (ns, b/s) as ``t_s``, ``bps``."""
    df = pd.DataFrame(points, columns=["t_ns", "bps"])
    return pd.DataFrame({"t_s": df.t_ns / 1e9, "bps": df.bps.astype(float)})


def _drops(data: pd.DataFrame, sim_drops: pd.DataFrame | None) -> pd.DataFrame:
    """The capture's gaps and the simulator's drops, as :func:`vho.plots.time_sequence` takes
    them."""
    parts = [flow_gaps(data)]
    if sim_drops is not None:
        parts.append(sim_drops[["t_s", "seq", "len"]].assign(source="simulator"))
    return pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)


def draw(
    out: Path,
    entry: dict[str, Any],
    segs: pd.DataFrame,
    points: list[list[float]],
    handover_at: float | None,
    series: pd.DataFrame | None,
    handovers: list[float] | None = None,
    sim_drops: pd.DataFrame | None = None,
) -> list[Path]:
    """All figures of one flow into ``out``; returns the files written. ``handovers``: every
    instant to mark (``handover_at`` alone if not given); t_a is drawn from ``handover_at``.
    The time-sequence graph marks the capture's gaps (:func:`vho.capture.flow_gaps`) and
    ``sim_drops``, the simulator's drops of this flow (``t_s``, ``seq`` relative to its first
    data byte, ``len``)."""
    n = entry["index"]
    sender = (entry["sender"]["addr"], entry["sender"]["port"])
    if handovers is None:
        handovers = [handover_at] if handover_at is not None else []
    paths: list[Path] = []
    data, acks, sacks = flow_sequence(segs, sender)
    rto = series[["t_s", "rto_s"]] if series is not None else None
    if len(data):
        paths += plots.time_sequence(
            data,
            acks,
            out / f"sequence_flow{n}",
            sacks=sacks,
            title=f"flow {n}: {entry['id']}",
            handovers=handovers,
            rto=rto,
            drops=_drops(data, sim_drops),
        )
    thr = throughput_frame(points)
    if len(thr) >= 2:
        # Drawn with or without a known handover: the throughput is what shows one.
        mean = float(thr.bps.iloc[:-1].mean())
        if "ta_mean" in entry:
            # The mean t_a was measured against (--ta-mean), None if it has none.
            mean = entry["adaptation_time_by_mean"][entry["ta_mean"]]["mean_bps"]
        paths += plots.throughput_adaptation(
            thr,
            out / f"throughput_flow{n}",
            handover_at=handover_at,
            mean_bps=mean,
            adaptation_time_s=entry["adaptation_time_s"],
            t_a_from=entry["first_after_handover_s"],
            title=f"flow {n}: throughput per 0.1 s interval (Cottingham & Vidales §5)",
            handovers=handovers,
        )
    if series is not None and len(series):
        paths += plots.congestion_window(
            series,
            out / f"cwnd_flow{n}",
            handovers=handovers,
            title=f"flow {n}: sender's congestion window (vho time series)",
        )
    elif len(data):
        paths += plots.data_in_flight(
            flow_in_flight(data, acks),
            out / f"cwnd_flow{n}",
            handovers=handovers,
            title=f"flow {n}: {_in_flight_title(entry)}",
        )
    return paths


def _in_flight_title(entry: dict[str, Any]) -> str:
    """What the data in flight seen in a capture says about the sender's window, by where the
    capture was taken."""
    what = "data in flight seen in the capture (highest byte sent - highest ACK)"
    point = entry["capture_point"]["point"]
    if point == "sender":
        return f"{what}\ncaptured at the sender: it approximates cwnd (bounded by it)"
    if point == "receiver":
        # A receiver ACKs at least every second segment (RFC 5681 §4.2): dk-fig1 at 2 MB has
        # a median of 1,460 B in flight at the mobile, 29,200 B at the sender.
        return (
            f"{what}\ncaptured at the receiver: the data it has not yet ACKed (what waits "
            "behind a hole), not the sender's window"
        )
    return (
        f"{what}\nat a sender-side capture it approximates cwnd; at a receiver-side one it does not"
    )
