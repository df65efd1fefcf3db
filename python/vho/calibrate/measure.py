"""A simulated run measured as a real capture is: `vho analyze` on the run's own capture.

A fit to metrics `vho analyze` read from a real capture (``measure = "capture:<node>"``) must
compare like with like: the simulated side is read by the same analysis, from a capture taken
at the same place (the node named), never from the simulator's own counters. Called in the
sweep engine's worker (:class:`vho.sweep.spec.Measure`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def flatten(d: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """The numbers of a ``metrics.json`` flow entry, nested keys joined with dots
    (``rtt.min_s``); booleans, strings and lists left out, null as NaN."""
    out: dict[str, float] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, f"{key}."))
        elif v is None:
            out[key] = math.nan
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out[key] = float(v)
    return out


def capture_metrics(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """`vho analyze` of ``<node>.pcap`` in the run's directory: its first flow's numbers
    (``params["node"]``: the capture point; ``params["ta_mean"]``: ``--ta-mean``)."""
    from ..analysis import analyze

    a = analyze(Path(run_dir) / f"{params['node']}.pcap", ta_mean=params.get("ta_mean"))
    flows = a.metrics.get("flows") or []
    return flatten(flows[0]) if flows else {}
