"""What a run of Figures 1 and 2's cases measures (Daniel & Kojo §3.1, §3.2), in the sweep
engine's worker, from its capture at the correspondent host and its summary: the packets
dropped and when the first was, the first retransmission and the first duplicate ACK at or
after the handover, the retransmissions and timeouts (the simulator's ground truth saying
which were spurious), and when the transfer completed. (The tables' cells are judged from
their summaries alone.)"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ... import capture


def figure_case(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """The measure function of the figures' cases (:class:`vho.sweep.spec.Measure`)."""
    s = result.summary
    f = s["flows"][0]
    at = float(s["handovers"][0]["at_s"]) if s["handovers"] else math.inf
    data, acks = capture.sequence(capture.read_tcp(run_dir / "ch.pcap"))
    rtx = data[data["retransmission"] & (data["t_s"] >= at)]["t_s"]
    dup = acks[(acks["ack"].diff() == 0) & (acks["t_s"] >= at)]["t_s"]
    drops = result.drops
    first_drop = float(drops["t_s"].min()) if drops is not None and len(drops) else math.nan
    return {
        "handover_s": at if math.isfinite(at) else math.nan,
        "dropped": float(sum(d["packets"] for d in f["drops"])),
        "first_drop_s": first_drop,
        "first_retransmission_s": float(rtx.min()) if len(rtx) else math.nan,
        "first_duplicate_ack_s": float(dup.min()) if len(dup) else math.nan,
        "complete_s": float(f["transfer_time_s"] or math.nan),
    }
