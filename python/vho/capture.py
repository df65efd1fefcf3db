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
    address, port; either direction): ``t_s`` (seconds from the capture's first packet, as
    Wireshark's ``frame.time_relative``; a simulator's capture, stamped from 1970-01-01, keeps
    its simulated time), ``src``, ``dst``, ``sport``, ``dport``, ``seq``,
    ``ack``, ``len`` (payload bytes), ``flags``, ``window``, ``ip_id``, ``sack`` (the SACK
    blocks, ``[left, right]`` pairs).

    Frames that are not TCP segments are counted in ``df.attrs["skipped"]``. A file cut short
    inside its last record is read up to it, and ``df.attrs["cut_short"]`` says where (else
    ``None``). ``df.attrs["time_origin"]`` says which clock ``t_s`` counts from
    (``first_packet`` or ``simulated_clock``) and ``df.attrs["time_origin_epoch_s"]`` is its
    stamp in seconds since the Unix epoch. Raises :class:`vho.errors.CaptureError` for a file
    that is not a readable capture.
    """
    raw = _native.read_tcp(os.fspath(path), flow)
    skipped = raw.pop("skipped")
    cut_short = raw.pop("cut_short")
    origin = raw.pop("time_origin")
    origin_ns = raw.pop("time_origin_epoch_ns")
    df = pd.DataFrame(raw)
    df.insert(0, "t_s", df.pop("t_ns") / 1e9)
    df.attrs["skipped"] = skipped
    df.attrs["cut_short"] = cut_short
    df.attrs["time_origin"] = origin
    df.attrs["time_origin_epoch_s"] = origin_ns / 1e9
    return df


MOD = 1 << 32


def flow_sequence(
    segs: pd.DataFrame, sender: tuple[str, int], receiver: tuple[str, int] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The data, ACK and SACK sides of one conversation seen from ``sender`` (address, port),
    for a time-sequence graph; sequence numbers relative to its first data byte. Without
    ``receiver``, ``segs`` must hold one conversation (``read_tcp`` with a flow).

    Returns ``(data, acks, sacks)``: ``data`` has ``t_s``, ``seq``, ``len`` and
    ``retransmission`` (the segment starts below the highest byte sent before it); ``acks``
    has ``t_s`` and ``ack`` (cumulative) of the reverse direction; ``sacks`` one row per SACK
    block it carried, ``t_s``, ``left``, ``right``.
    """
    fwd = (segs.src == sender[0]) & (segs.sport == sender[1])
    rev = (segs.dst == sender[0]) & (segs.dport == sender[1])
    if receiver is not None:
        fwd &= (segs.dst == receiver[0]) & (segs.dport == receiver[1])
        rev &= (segs.src == receiver[0]) & (segs.sport == receiver[1])
    fwd, rev = segs[fwd], segs[rev]
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


def sequence(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data and ACK sides (see :func:`flow_sequence`) of the capture's largest flow: the
    direction that carried the most payload."""
    if df.empty:
        raise ValueError("the capture holds no TCP segment")
    key = ["src", "sport", "dst", "dport"]
    payload = df.groupby(key, sort=True)["len"].sum()
    src, sport, dst, dport = payload.idxmax()
    data, acks, _ = flow_sequence(df, (src, sport), (dst, dport))
    return data, acks


#: The label :func:`flow_gaps` gives its rows (``source``), as :func:`vho.plots.time_sequence`
#: draws them.
CAPTURE_GAP = "capture gap"


def flow_gaps(data: pd.DataFrame) -> pd.DataFrame:
    """Where bytes are missing from ``data`` (:func:`flow_sequence`'s first frame): each data
    segment that starts above the highest sequence end seen before it in its direction, the
    rule of Wireshark's ``tcp.analysis.lost_segment`` ("previous segment not captured").

    Returns one row per gap: ``t_s`` (the segment that revealed it), ``seq`` (the gap's first
    byte, relative as in ``data``), ``len`` (bytes missing) and ``source`` (:data:`CAPTURE_GAP`).
    At a receiver-side capture a gap is data lost upstream of it (bytes whose every copy was
    lost show only when later data arrived before their retransmission); at a sender-side
    capture there are normally none (the capture itself dropped packets).
    """
    end = data.seq + data.len
    highest = end.cummax().shift(1, fill_value=0)
    gap = data.seq > highest
    return pd.DataFrame(
        {
            "t_s": data.t_s[gap].to_numpy(),
            "seq": highest[gap].to_numpy(),
            "len": (data.seq - highest)[gap].to_numpy(),
            "source": CAPTURE_GAP,
        },
        columns=["t_s", "seq", "len", "source"],
    )


def flow_in_flight(data: pd.DataFrame, acks: pd.DataFrame) -> pd.DataFrame:
    """The data in flight at the capture point over time, from :func:`flow_sequence`'s
    ``data`` and ``acks``: the highest sequence end sent minus the highest cumulative ACK,
    updated at each data segment and each ACK (Wireshark's ``tcp.analysis.bytes_in_flight``).

    Returns ``t_s`` and ``flight`` (bytes) from the first data segment on, one row per instant
    (a segment and an ACK at the same instant count the segment first). An ACK above every
    byte seen sent (their data not captured, or sent before the capture began) is not counted.
    At a sender-side capture this is bounded by cwnd and the receiver's window; at a
    receiver-side one it is what the receiver has not yet ACKed, not the sender's window.
    """
    events = pd.concat(
        [
            pd.DataFrame({"t_s": data.t_s, "end": data.seq + data.len, "ack": float("nan")}),
            pd.DataFrame({"t_s": acks.t_s, "end": float("nan"), "ack": acks.ack}),
        ],
        ignore_index=True,
    ).sort_values("t_s", kind="stable")
    highest = events.end.cummax().ffill()
    acked = events.ack.where(events.ack <= highest).cummax().ffill().fillna(0)
    sent = highest.notna()
    flight = pd.DataFrame(
        {
            "t_s": events.t_s[sent].to_numpy(),
            "flight": (highest - acked)[sent].clip(lower=0).astype("int64").to_numpy(),
        }
    )
    return flight.drop_duplicates("t_s", keep="last").reset_index(drop=True)
