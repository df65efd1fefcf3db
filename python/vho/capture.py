"""Reading captures (pcap, pcapng; the simulator's and real ones) into pandas.

The reading is done by the Rust crate ``vho-trace`` (streamed); this module shapes the
result for figures.
"""

from __future__ import annotations

import os

import pandas as pd

from . import _native

SYN = 0x02
ACK = 0x10


def read_tcp(
    path: str | os.PathLike[str], flow: tuple[str, int, str, int] | None = None
) -> pd.DataFrame:
    """Every TCP segment of a capture, or of one conversation (``flow``: address, port,
    address, port; either direction): ``t_s``, ``src``, ``dst``, ``sport``, ``dport``, ``seq``,
    ``ack``, ``len`` (payload bytes), ``flags``, ``window``, ``ip_id``, ``sack`` (the SACK
    blocks, ``[left, right]`` pairs).

    Frames that are not TCP segments are counted in ``df.attrs["skipped"]``.
    Raises :class:`vho.errors.CaptureError` for a file that is not a readable capture.
    """
    raw = _native.read_tcp(os.fspath(path), flow)
    skipped = raw.pop("skipped")
    df = pd.DataFrame(raw)
    df.insert(0, "t_s", df.pop("t_ns") / 1e9)
    df.attrs["skipped"] = skipped
    return df


def sequence(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data and ACK sides of the capture's largest flow, for a time-sequence graph.

    Returns ``(data, acks)``: ``data`` has ``t_s``, ``seq`` (relative to the first data byte),
    ``len`` and ``retransmission`` (the segment starts below the highest byte sent before
    it); ``acks`` has ``t_s`` and ``ack`` (relative, cumulative) of the reverse direction.
    """
    if df.empty:
        raise ValueError("the capture holds no TCP segment")
    key = ["src", "sport", "dst", "dport"]
    payload = df.groupby(key, sort=True)["len"].sum()
    src, sport, dst, dport = payload.idxmax()
    fwd = df[(df.src == src) & (df.sport == sport) & (df.dst == dst) & (df.dport == dport)]
    rev = df[(df.src == dst) & (df.sport == dport) & (df.dst == src) & (df.dport == sport)]
    syn = fwd[(fwd["flags"] & SYN) != 0]
    base = int(syn.seq.iloc[0]) + 1 if len(syn) else int(fwd[fwd.len > 0].seq.iloc[0])

    def rel(v: pd.Series) -> pd.Series:
        return (v.astype("int64") - base) % (1 << 32)

    data = fwd[fwd.len > 0]
    seq = rel(data.seq)
    end = seq + data.len
    highest = end.cummax().shift(1, fill_value=0)
    data = pd.DataFrame(
        {
            "t_s": data.t_s.to_numpy(),
            "seq": seq.to_numpy(),
            "len": data.len.to_numpy(),
            "retransmission": (seq < highest).to_numpy(),
        }
    )
    a = rev[(rev["flags"] & ACK) != 0]
    acks = pd.DataFrame({"t_s": a.t_s.to_numpy(), "ack": rel(a.ack).to_numpy()})
    return data, acks
