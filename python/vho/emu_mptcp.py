"""What ``vho emulate --multipath`` writes of a Multipath TCP flow, from the kernel's own state
(``getsockopt(SOL_MPTCP, MPTCP_FULL_INFO)`` at the data sender, ``vho-emu``'s
``mptcp_info``), in the form ``vho run`` writes for a ``kind = "mptcp"`` flow:

- ``summary.json``'s ``flows[].mptcp``: the simulator's keys the kernel gives (its subflows
  with their ids, interfaces, lives and byte counts, ``bytes_retrans`` from
  ``mptcpi_bytes_retrans``); the ones it does not (``reinjections``, ``stale_subflows``,
  ``duplicate_bytes``, a subflow's ``backup``, ``bytes_reinjected``, ``bytes_received``, and
  ``handovers``) are left out, as ``docs/output-reference.md`` says;
- ``series_mptcp.parquet``: the simulator's columns and types, a row per subflow whenever a
  reading (every sample interval, 10 ms) found its state changed.

Subflow ids: the order of first sighting from 0, as the simulator's order of creation (the
kernel's own ``subflow_id``, from 1, is kept as ``kernel_id``). ``opened_s`` is the first
reading that listed a subflow, ``closed_s`` the first that no longer did (or found it
``TCP_CLOSE``), each up to a sample interval after the event; a subflow's byte counts are its
last reading's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: The simulator's columns of ``series_mptcp.parquet`` (``runner._mptcp_frame``), in order.
COLUMNS = (
    "t_s",
    "flow",
    "subflow",
    "interface",
    "snd_cwnd",
    "snd_mss",
    "rtt_s",
    "bytes_sent",
    "bytes_acked",
    "open",
)


def summary_entry(f: dict) -> dict | None:
    """``flows[].mptcp`` of the emulator's flow report ``f`` (``None`` without readings: a
    single-path flow, or a kernel without ``MPTCP_FULL_INFO``)."""
    m = f.get("mptcp")
    if m is None:
        return None
    return {
        # The emulator leaves net.mptcp.scheduler at its per-namespace default, "default"
        # (mptcp_pernet_set_defaults, net/mptcp/ctrl.c); net/mptcp has no coupled congestion
        # control: each subflow runs the socket's TCP_CONGESTION on its own.
        "scheduler": "default",
        "congestion_control": "uncoupled",
        "subflows_created": m["subflows_created"],
        "bytes_retrans": m["bytes_retrans"],
        "subflows": [
            {
                "id": s["id"],
                "kernel_id": s["kernel_id"],
                "interface": s["interface"],
                "opened_s": s["opened_s"],
                "closed_s": s["closed_s"],
                "bytes_sent": s["bytes_sent"],
                "bytes_acked": s["bytes_acked"],
                "total_retrans": s["total_retrans"],
            }
            for s in m["subflows"]
        ],
    }


def series_frame(report: dict) -> pd.DataFrame | None:
    """Every MPTCP flow's subflow rows in ``series_mptcp.parquet``'s columns and types
    (``None`` when no flow has any)."""
    rows = [
        (f, r) for f in report["flows"] if f.get("mptcp") is not None for r in f["mptcp"]["series"]
    ]
    if not rows:
        return None
    import pandas as pd

    names = {
        (f["name"], s["id"]): s["interface"] or ""
        for f in report["flows"]
        if f.get("mptcp") is not None
        for s in f["mptcp"]["subflows"]
    }
    df = pd.DataFrame(
        {
            "t_s": [r["t_ns"] / 1e9 for _, r in rows],
            "flow": [f["name"] for f, _ in rows],
            "subflow": [r["subflow"] for _, r in rows],
            "interface": [names[(f["name"], r["subflow"])] for f, r in rows],
            "snd_cwnd": [r["snd_cwnd"] for _, r in rows],
            "snd_mss": [r["snd_mss"] for _, r in rows],
            "rtt_s": [r["rtt_us"] / 1e6 for _, r in rows],
            "bytes_sent": [r["bytes_sent"] for _, r in rows],
            "bytes_acked": [r["bytes_acked"] for _, r in rows],
            "open": [bool(r["open"]) for _, r in rows],
        }
    )
    for c in ("subflow", "snd_cwnd", "snd_mss", "bytes_sent", "bytes_acked"):
        df[c] = df[c].astype("int64")
    return df[list(COLUMNS)]
