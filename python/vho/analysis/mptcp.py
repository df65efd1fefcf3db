"""Multipath TCP in ``vho analyze`` (RFC 8684): vho-trace joins a capture's subflows into
connections by their tokens and places each data segment in its connection's data sequence
space (see ``crates/vho-trace/src/analysis/mptcp.rs``); this module shapes that for
``metrics.json`` (the ``mptcp`` section), the Parquet tables beside it, the connection's
time-sequence graph in DSN space, and the lines ``vho analyze`` prints.

Each subflow is also a TCP conversation of ``flows[]`` (its ``index``), with its own
time-sequence graph in subflow sequence space.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

#: The per-segment table: every MPTCP data segment with its subflow and DSN.
SEGMENTS = "mptcp_segments.parquet"
#: Every distinct DSS mapping.
MAPPINGS = "mptcp_mappings.parquet"
#: The DATA_ACKs that advanced.
DATA_ACKS = "mptcp_data_acks.parquet"
#: The connection's time-sequence graph in DSN space.
FIGURE = "mptcp_sequence_conn{}"
#: What this module writes, as ``vho.analysis.OWNED`` patterns.
OWNED = (r"mptcp_(segments|mappings|data_acks)\.parquet", r"mptcp_sequence_conn\d+\.(png|svg)")

#: The ``flags`` bits of :data:`SEGMENTS` (vho-trace's ``mptcp::seg``).
REINJECTION = 0x01
REINJECTED_LATER = 0x02
DATA_RETRANSMISSION = 0x04
OUT_OF_ORDER = 0x08

#: Connections drawn, at most (the first ones).
MAX_FIGURES = 8
#: Connections ``vho analyze`` prints, at most (metrics.json has them all).
MAX_PRINTED = 10


def section(raw: dict[str, Any], written: bool) -> dict[str, Any]:
    """The ``mptcp`` section of metrics.json from vho-trace's result (its columns left out:
    they are the Parquet tables, named here when ``written``)."""
    return {
        "connections_total": len(raw["connections"]),
        "options": raw["options"],
        "connections": raw["connections"],
        "unjoined_subflows": raw["unjoined_subflows"],
        "segments_file": SEGMENTS if written else None,
        "mappings_file": MAPPINGS if written else None,
        "data_acks_file": DATA_ACKS if written else None,
    }


def segments(raw: dict[str, Any]) -> pd.DataFrame:
    """Every MPTCP data segment: ``connection``, ``direction`` (client_to_server or
    server_to_client), ``subflow`` (its conversation's index), ``frame``, ``t_s``, ``ssn``
    (relative to the subflow's ISN), ``dsn`` (relative to the sender's IDSN: the first byte is
    1, as Wireshark's ``mptcp.dsn``), ``dsn_raw``, ``len``, ``mapping_frame`` and the flags as
    booleans: ``reinjection``, ``reinjected_later``, ``data_retransmission``,
    ``out_of_order``."""
    cols = raw["segments"]
    df = pd.DataFrame({k: v for k, v in cols.items() if k != "flags"})
    flags = pd.Series(cols["flags"], dtype="uint8")
    for name, bit in (
        ("reinjection", REINJECTION),
        ("reinjected_later", REINJECTED_LATER),
        ("data_retransmission", DATA_RETRANSMISSION),
        ("out_of_order", OUT_OF_ORDER),
    ):
        df[name] = (flags & bit) != 0
    return _typed(df)


def mappings(raw: dict[str, Any]) -> pd.DataFrame:
    """Every distinct DSS mapping: ``connection``, ``subflow``, ``direction``, ``frame``
    (the first to carry it), ``t_s``, ``dsn`` (relative as in :func:`segments`), ``ssn``,
    ``len``."""
    return _typed(pd.DataFrame(raw["mappings"]))


def data_acks(raw: dict[str, Any]) -> pd.DataFrame:
    """The DATA_ACKs that advanced: ``connection``, ``direction`` (of the data
    acknowledged), ``t_s``, ``ack`` (relative as in :func:`segments`)."""
    return _typed(pd.DataFrame(raw["data_acks"]))


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """Fixed column types, so that an empty table has them too."""
    types = {
        "connection": "int64",
        "subflow": "int64",
        "frame": "int64",
        "mapping_frame": "int64",
        "t_s": "float64",
        "ssn": "int64",
        "len": "int64",
        "dsn": "uint64",
        "dsn_raw": "uint64",
        "ack": "uint64",
        "direction": "string",
    }
    return df.astype({c: t for c, t in types.items() if c in df.columns})


def write(raw: dict[str, Any], stage: Path, handovers: list[float] | None = None) -> list[Path]:
    """The Parquet tables and the connections' DSN time-sequence graphs into ``stage``
    (``handovers``: instants to mark)."""
    segments(raw).to_parquet(stage / SEGMENTS, index=False)
    mappings(raw).to_parquet(stage / MAPPINGS, index=False)
    data_acks(raw).to_parquet(stage / DATA_ACKS, index=False)
    return figures(raw, stage, handovers or [])


def figures(raw: dict[str, Any], out: Path, handovers: list[float] | None = None) -> list[Path]:
    """Per connection (the first :data:`MAX_FIGURES`), its time-sequence graph in DSN space:
    the direction that carried more data, each segment coloured by its subflow, reinjections
    and data-level retransmissions marked, the DATA_ACK line, the ``handovers``."""
    segs = segments(raw)
    acks = data_acks(raw)
    written: list[Path] = []
    if segs.empty:
        return written
    from .. import plots

    for c in raw["connections"][:MAX_FIGURES]:
        mine = segs[segs.connection == c["index"]]
        if mine.empty:
            continue
        direction = mine.groupby("direction")["len"].sum().idxmax()
        data = mine[mine.direction == direction]
        a = acks[(acks.connection == c["index"]) & (acks.direction == direction)]
        names = {s["index"]: _subflow_label(s) for s in c["subflows"]}
        written += plots.mptcp_sequence(
            data,
            a,
            out / FIGURE.format(c["index"]),
            subflows=names,
            handovers=handovers or [],
            title=f"MPTCP connection {c['index']}: {direction.replace('_', ' ')}, DSN space",
        )
    return written


def _subflow_label(s: dict[str, Any]) -> str:
    backup = ", backup" if s["client"]["backup"] or s["server"]["backup"] else ""
    return f"subflow {s['index']} ({s['role']}{backup}) {s['client']['addr']}:{s['client']['port']}"


def lines(m: dict[str, Any]) -> list[str]:
    """What ``vho analyze`` prints of metrics.json's ``mptcp`` section."""
    n = m["connections_total"]
    out = [f"  MPTCP: {n} connection{'s' if n != 1 else ''}"]
    bad = m["options"]["malformed"]
    if bad:
        out[0] += f", {bad} malformed MPTCP options"
    for c in m["connections"][:MAX_PRINTED]:
        cl, sv = c["client"], c["server"]
        tokens = "/".join(x["token"] or "?" for x in (cl, sv))
        out.append(
            f"  connection {c['index']} {cl['addr']}:{cl['port']} <-> {sv['addr']}:{sv['port']} "
            f"(tokens {tokens}): {len(c['subflows'])} subflows"
        )
        for s in c["subflows"]:
            ids = "/".join(
                "?" if e["addr_id"] is None else str(e["addr_id"])
                for e in (s["client"], s["server"])
            )
            backup = ", backup" if s["client"]["backup"] or s["server"]["backup"] else ""
            sent = s["client"]["bytes"] + s["server"]["bytes"]
            out.append(
                f"    subflow {s['index']} {s['role']}{backup} {s['client']['addr']}:"
                f"{s['client']['port']} -> {s['server']['addr']}:{s['server']['port']}, "
                f"address ids {ids}, {s['first_s']:.3f}-{s['last_s']:.3f} s, {sent} B"
            )
        for key in ("client_to_server", "server_to_client"):
            d = c[key]
            if not d["data_segments"]:
                continue
            out.append(
                f"    {key.replace('_to_', '->')}: {d['bytes']} B ({d['unique_bytes']} unique), "
                f"{d['mappings']} mappings, reinjected {d['reinjections']} segments "
                f"({d['reinjected_bytes']} B), data-level retransmissions "
                f"{d['data_retransmissions']} ({d['retransmitted_bytes']} B), out of DSN order "
                f"{d['out_of_order']} (up to {d['max_out_of_order_bytes']} B behind)"
            )
    if n > MAX_PRINTED:
        out.append(f"  ... and {n - MAX_PRINTED} more connections in metrics.json")
    if m["unjoined_subflows"]:
        out.append(f"  {len(m['unjoined_subflows'])} MPTCP subflows joined no connection seen")
    return out
