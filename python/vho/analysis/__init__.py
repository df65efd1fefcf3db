"""``vho analyze``: any TCP capture in (pcap, pcapng; simulated or real), handover metrics and
figures out.

The per-packet work is vho-trace's (Rust, streamed: memory bounded by open flows); this
module selects flows, tells each from the side of its data (:mod:`.metrics`), finds the
capture's handover, and draws the figures (:mod:`.figures`).

>>> import vho
>>> a = vho.analyze("out/dk-fig1/mh.pcap", handover_at=0.6)  # doctest: +SKIP
>>> a.flows[["id", "retransmissions", "spurious_retransmissions", "adaptation_time_s"]]
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import _native
from ..capture import read_tcp
from ..errors import VhoError
from . import figures, metrics
from .flowspec import FlowSpec, parse

__all__ = ["METRICS", "CaptureAnalysis", "analyze"]

METRICS = "metrics.json"
# Series written by `vho run` beside its captures (see vho.runner).
SERIES = "series_tcp.parquet"
# Figures are drawn for at most this many flows (the largest first), so that a capture of
# thousands of connections does not become thousands of files.
MAX_FIGURE_FLOWS = 8


@dataclass
class CaptureAnalysis:
    """The result of :func:`analyze`.

    ``metrics``: what ``metrics.json`` holds. ``flows``: one row per selected flow with its
    scalar metrics. ``raw``: vho-trace's full per-conversation analysis. ``figures``: files
    written (none without ``out_dir``).
    """

    capture: Path
    metrics: dict[str, Any]
    flows: pd.DataFrame
    raw: dict[str, Any]
    figures: list[Path] = field(default_factory=list)

    def _conversation(self, index: int) -> dict[str, Any]:
        for f in self.raw["flows"]:
            if f["index"] == index:
                return f
        raise VhoError(f"vho analyze: {self.capture}: no flow {index}")

    def throughput(self, index: int) -> pd.DataFrame:
        """Throughput points (``t_s``, ``bps``) of flow ``index``'s data (Cottingham §5)."""
        snd, _ = metrics.sides(self._conversation(index))
        return figures.throughput_frame(snd["throughput"]["points"])

    def segments(self, index: int) -> pd.DataFrame:
        """Every segment of flow ``index`` (both directions), as :func:`vho.capture.read_tcp`."""
        f = self._conversation(index)
        a, b = f["client"], f["server"]
        return read_tcp(self.capture, flow=(a["addr"], a["port"], b["addr"], b["port"]))


def _scalar_rows(entries: list[dict[str, Any]]) -> pd.DataFrame:
    rows = []
    for e in entries:
        row = {k: v for k, v in e.items() if not isinstance(v, dict | list)}
        row["rtt_mean_s"] = e["rtt"]["mean_s"]
        row["path_change_at_s"] = e["path_changes"][0]["at_s"] if e["path_changes"] else None
        rows.append(row)
    return pd.DataFrame(rows)


def _series_for(capture: Path, series: str | os.PathLike[str] | pd.DataFrame | None, flows: int):
    """vho's time series for the figures: the one given, or `vho run`'s beside the capture
    when it and the capture each hold exactly one flow (otherwise nothing says which is
    which)."""
    if isinstance(series, pd.DataFrame):
        return series
    if series is not None:
        path = Path(series)
        if not path.is_file():
            raise VhoError(f"vho analyze: --series {path}: no such file")
        return pd.read_parquet(path)
    beside = capture.parent / SERIES
    if flows != 1 or not beside.is_file():
        return None
    df = pd.read_parquet(beside)
    return df if df["flow"].nunique() == 1 else None


def analyze(
    capture: str | os.PathLike[str],
    *,
    flow: str | FlowSpec | None = None,
    handover_at: float | None = None,
    capture_point: str | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    series: str | os.PathLike[str] | pd.DataFrame | None = None,
) -> CaptureAnalysis:
    """Analyses a capture.

    ``flow``: a ``--flow`` SPEC (see :mod:`vho.analysis.flowspec`) selecting the flows to
    report. ``handover_at``: the handover instant in capture time; without it the handover is
    searched for in the capture. ``capture_point``: ``"receiver"`` or ``"sender"``, where the
    capture was taken relative to the data; found per flow (handshake, then data/ACK timing)
    when not given. A spurious-retransmission count rests on the receiver's capture when the
    capture is there, else on D-SACK and timestamp evidence (``spurious_evidence``).
    ``out_dir``: where ``metrics.json`` and the figures go
    (written whole or not at all). ``series``: vho's time series of the sender (a
    ``series_tcp.parquet`` or its frame) for the RTO and cwnd in the figures.

    Raises :class:`vho.errors.CaptureError` for an unreadable capture and
    :class:`vho.errors.VhoError` for a bad argument.
    """
    path = Path(capture)
    if handover_at is not None and not (math.isfinite(handover_at) and handover_at >= 0):
        raise VhoError(f"vho analyze: --handover-at {handover_at}: expected a time in seconds >= 0")
    if capture_point not in (None, "receiver", "sender"):
        raise VhoError(
            f"vho analyze: --capture-point {capture_point!r}: expected receiver or sender"
        )
    spec = parse(flow) if isinstance(flow, str) else flow
    raw = json.loads(_native.analyze(os.fspath(path), handover_at, capture_point))
    chosen = metrics.select(raw, spec)
    if spec is not None and not chosen:
        have = ", ".join(
            f"{f['index']} ({f['client']['addr']}:{f['client']['port']},"
            f"{f['server']['addr']}:{f['server']['port']})"
            for f in raw["flows"][:5]
        )
        more = f" and {len(raw['flows']) - 5} more" if len(raw["flows"]) > 5 else ""
        raise VhoError(
            f"vho analyze: {path}: --flow {spec.text!r} matches none of its "
            f"{len(raw['flows'])} flows ({have or 'none'}{more})"
        )
    entries = [metrics.flow_entry(f) for f in chosen]
    from .. import __version__

    result = {
        "vho_version": __version__,
        "capture": str(path),
        "packets": raw["packets"],
        "tcp_segments": raw["tcp_segments"],
        "skipped": raw["skipped"],
        "max_open_flows": raw["max_open_flows"],
        "handover": metrics.handover(entries, handover_at),
        "flows": entries,
    }
    a = CaptureAnalysis(path, result, _scalar_rows(entries), raw)
    if out_dir is not None:
        a.figures = _write(a, Path(out_dir), _series_for(path, series, len(entries)))
    return a


def _write(a: CaptureAnalysis, out: Path, series: pd.DataFrame | None) -> list[Path]:
    """metrics.json and the figures, staged beside ``out`` and moved in with metrics.json
    last: a directory holding a metrics.json holds everything it describes."""
    out.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".analyze-", dir=out))
    try:
        at = a.metrics["handover"]["at_s"]
        drawn = sorted(a.metrics["flows"], key=lambda e: (-e["bytes"], e["index"]))
        written: list[Path] = []
        for e in drawn[:MAX_FIGURE_FLOWS]:
            if not e["bytes"]:
                continue
            snd, _ = metrics.sides(a._conversation(e["index"]))
            written += figures.draw(
                stage, e, a.segments(e["index"]), snd["throughput"]["points"], at, series
            )
        body = json.dumps(a.metrics, indent=2, allow_nan=False) + "\n"
        (stage / METRICS).write_text(body, encoding="utf-8")
        (out / METRICS).unlink(missing_ok=True)
        final = []
        for p in written:
            os.replace(p, out / p.name)
            final.append(out / p.name)
        os.replace(stage / METRICS, out / METRICS)
        return final
    finally:
        shutil.rmtree(stage, ignore_errors=True)
