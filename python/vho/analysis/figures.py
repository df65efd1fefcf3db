"""The figures of ``vho analyze``: per flow, a time-sequence graph (data, cumulative ACK,
SACK blocks, retransmissions, the handover; vho's RTO on a right axis when its time series is
at hand), throughput after the handover with the mean and t_a, and cwnd/ssthresh when the
time series is at hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .. import plots
from ..capture import ACK, SYN

MOD = 1 << 32


def sequence_frames(
    segs: pd.DataFrame, sender: tuple[str, int]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(data, acks, sacks)`` of one conversation's segments (``vho.capture.read_tcp`` with a
    flow) seen from ``sender``: sequence numbers relative to its first data byte."""
    fwd = segs[(segs.src == sender[0]) & (segs.sport == sender[1])]
    rev = segs[(segs.dst == sender[0]) & (segs.dport == sender[1])]
    syn = fwd[(fwd["flags"] & SYN) != 0]
    with_data = fwd[fwd.len > 0]
    if len(syn):
        base = int(syn.seq.iloc[0]) + 1
    elif len(with_data):
        base = int(with_data.seq.iloc[0])
    else:
        base = 0

    def rel(v: pd.Series) -> pd.Series:
        return (v.astype("int64") - base) % MOD

    seq = rel(with_data.seq)
    end = seq + with_data.len
    highest = end.cummax().shift(1, fill_value=0)
    data = pd.DataFrame(
        {
            "t_s": with_data.t_s.to_numpy(),
            "seq": seq.to_numpy(),
            "len": with_data.len.to_numpy(),
            "retransmission": (seq < highest).to_numpy(),
        }
    )
    a = rev[(rev["flags"] & ACK) != 0]
    acks = pd.DataFrame({"t_s": a.t_s.to_numpy(), "ack": rel(a.ack).to_numpy()})
    rows = [(t, lo, hi) for t, blocks in zip(a.t_s, a.sack, strict=True) for lo, hi in blocks]
    sacks = pd.DataFrame(rows, columns=["t_s", "left", "right"])
    if len(sacks):
        sacks["left"] = rel(sacks.left)
        sacks["right"] = rel(sacks.right)
    return data, acks, sacks


def throughput_frame(points: list[list[float]]) -> pd.DataFrame:
    """vho-trace's throughput points (ns, b/s) as ``t_s``, ``bps``."""
    df = pd.DataFrame(points, columns=["t_ns", "bps"])
    return pd.DataFrame({"t_s": df.t_ns / 1e9, "bps": df.bps.astype(float)})


def draw(
    out: Path,
    entry: dict[str, Any],
    segs: pd.DataFrame,
    points: list[list[float]],
    handover_at: float | None,
    series: pd.DataFrame | None,
) -> list[Path]:
    """All figures of one flow into ``out``; returns the files written."""
    n = entry["index"]
    sender = (entry["sender"]["addr"], entry["sender"]["port"])
    handovers = [handover_at] if handover_at is not None else []
    paths: list[Path] = []
    data, acks, sacks = sequence_frames(segs, sender)
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
        )
    thr = throughput_frame(points)
    if len(thr) >= 2 and handover_at is not None:
        mean = float(thr.bps.iloc[:-1].mean())
        paths += plots.throughput_adaptation(
            thr,
            out / f"throughput_flow{n}",
            handover_at=handover_at,
            mean_bps=mean,
            adaptation_time_s=entry["adaptation_time_s"],
            t_a_from=entry["first_after_handover_s"],
            title=f"flow {n}: throughput per 0.1 s interval (Cottingham & Vidales §5)",
        )
    if series is not None and len(series):
        paths += plots.congestion_window(
            series,
            out / f"cwnd_flow{n}",
            handovers=handovers,
            title=f"flow {n}: sender's congestion window (vho time series)",
        )
    return paths
