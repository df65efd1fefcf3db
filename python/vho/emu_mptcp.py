"""What ``vho emulate --multipath`` writes of a Multipath TCP flow, from the kernel's own state
(``getsockopt(SOL_MPTCP, MPTCP_FULL_INFO)`` at the data sender, ``vho-emu``'s
``mptcp_info``), in the form ``vho run`` writes for a ``kind = "mptcp"`` flow:

- ``summary.json``'s ``flows[].mptcp``: the simulator's keys the kernel gives (its subflows
  with their ids, interfaces, lives and byte counts, ``bytes_retrans`` from
  ``mptcpi_bytes_retrans``, and per handover the time to resume and to fail back, from the
  receiver's readings, as are each subflow's ``bytes_received`` and the connection's
  ``duplicate_bytes``); the ones it does not (``reinjections``, ``stale_subflows``, a
  subflow's ``backup`` and ``bytes_reinjected``) are left out, as
  ``docs/output-reference.md`` says;
- ``series_mptcp.parquet``: the simulator's columns and types, a row per subflow whenever a
  reading (every sample interval, 10 ms) found its state changed.

Subflow ids: the order of first sighting from 0, as the simulator's order of creation (the
kernel's own ``subflow_id``, from 1, is kept as ``kernel_id``). ``opened_s`` is the first
reading that listed a subflow, ``closed_s`` the first that no longer did (or found it
``TCP_CLOSE``), each up to a sample interval after the event; a subflow's byte counts are its
last reading's.

A handover's ``resume_s`` and ``failback_s`` follow the model's definitions
(``vho_sim::agent::mptcp::summary``) on the receiver's readings: resumed at the first reading
after the handover at which the data level's ``mptcpi_rcv_nxt`` had moved on and a subflow over
another interface than the one lost had received bytes (``tcpi_bytes_received``) since the
reading before; failed back at the first reading at which a subflow over the interface taken
had, when an earlier handover had left that interface. Each is late by up to a reading
interval against the instant the model would take.
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


def _arrivals(rx: dict) -> list[tuple[float, str]]:
    """The receiver's readings at which a subflow had received bytes since the reading
    before: (instant, the subflow's interface)."""
    iface = {s["id"]: s["interface"] for s in rx["subflows"]}
    last: dict[int, int] = {}
    out = []
    for r in rx["series"]:
        got = r["bytes_received"]
        if got > last.get(r["subflow"], 0):
            out.append((r["t_ns"] / 1e9, iface[r["subflow"]]))
        last[r["subflow"]] = got
    return out


def handovers_entry(f: dict, handovers: list[dict]) -> list[dict]:
    """``flows[].mptcp.handovers``: each handover of the flow's mobile that happened, with the
    times to resume and to fail back from the receiver's readings (the module's doc)."""
    rx = f.get("receiver_mptcp")
    mine = [h for h in handovers if h["happened"] and h["mobile"] == f.get("mobile")]
    if rx is None:
        return []
    arrivals = _arrivals(rx)
    progress = {t_ns / 1e9 for t_ns, _ in rx["progress"]}
    out = []
    for h in mine:
        at, lost, taken = h["at_s"], h["from"], h["to"]
        resume = next((t for t, i in arrivals if t >= at and i != lost and t in progress), None)
        returning = any(e["at_s"] < at and e["from"] == taken for e in mine)
        failback = (
            next((t for t, i in arrivals if t >= at and i == taken), None) if returning else None
        )
        out.append(
            {
                "at_s": at,
                "lost": lost,
                "taken": taken,
                "resume_s": None if resume is None else resume - at,
                "failback_s": None if failback is None else failback - at,
            }
        )
    return out


def _received(f: dict) -> dict[int, int]:
    """Each sender subflow's id -> the bytes its receiver's end got (``tcpi_bytes_received``
    at the receiver's last reading): the two ends' subflows matched by interface, in order of
    sighting."""
    rx = f.get("receiver_mptcp")
    if rx is None:
        return {}
    by_iface = _by_interface(rx["subflows"])
    last: dict[int, int] = {}
    for r in rx["series"]:
        last[r["subflow"]] = r["bytes_received"]
    out = {}
    for iface, sender_ids in _by_interface(f["mptcp"]["subflows"]).items():
        for sid, rid in zip(sender_ids, by_iface.get(iface, []), strict=False):
            out[sid] = last.get(rid, 0)
    return out


def _by_interface(subflows: list[dict]) -> dict[str | None, list[int]]:
    out: dict[str | None, list[int]] = {}
    for s in subflows:
        out.setdefault(s["interface"], []).append(s["id"])
    return out


def summary_entry(f: dict, handovers: list[dict]) -> dict | None:
    """``flows[].mptcp`` of the emulator's flow report ``f`` (``None`` without readings: a
    single-path flow, or a kernel without ``MPTCP_FULL_INFO``); ``handovers``, the run's."""
    m = f.get("mptcp")
    if m is None:
        return None
    received = _received(f)
    got = [received.get(s["id"]) for s in m["subflows"]]
    # What the subflows carried beyond the transfer: copies got twice at the data level.
    duplicate = sum(got) - f["bytes"] if f["completed"] and got and None not in got else None
    return {
        # The emulator leaves net.mptcp.scheduler at its per-namespace default, "default"
        # (mptcp_pernet_set_defaults, net/mptcp/ctrl.c); net/mptcp has no coupled congestion
        # control: each subflow runs the socket's TCP_CONGESTION on its own.
        "scheduler": "default",
        "congestion_control": "uncoupled",
        "subflows_created": m["subflows_created"],
        "bytes_retrans": m["bytes_retrans"],
        "duplicate_bytes": duplicate,
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
                "bytes_received": received.get(s["id"]),
            }
            for s in m["subflows"]
        ],
        "handovers": handovers_entry(f, handovers),
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
