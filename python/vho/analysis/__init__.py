"""``vho analyze``: any TCP capture in (pcap, pcapng; simulated or real), handover metrics and
figures out; Multipath TCP connections too (:mod:`.mptcp`).

The per-packet work is vho-trace's (Rust, streamed: memory bounded by open flows); this
module selects flows, tells each from the side of its data (:mod:`.metrics`), finds the
capture's handover, and draws the figures (:mod:`.figures`).

>>> import vho
>>> a = vho.analyze("out/dk-fig1/mh.pcap", handover_at=0.6)  # doctest: +SKIP
>>> a.flows[["id", "retransmissions", "spurious_retransmissions", "adaptation_time_s"]]
"""

from __future__ import annotations

import heapq
import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import _native, files
from ..capture import read_tcp
from ..errors import CaptureError, NoFlowMatched, OutsideCapture, VhoError
from . import metrics
from . import mptcp as mp
from .flowspec import FlowSpec, parse

__all__ = ["METRICS", "CaptureAnalysis", "analyze"]

METRICS = "metrics.json"
#: Every selected flow's metrics.json entry, one JSON object a line, in the order the flows
#: ended (closed and quiet, then those open at the end in capture order); each has its index.
FLOWS = "flows.jsonl"
# Series written by `vho run` beside its captures (see vho.runner).
SERIES = "series_tcp.parquet"
SERIES_COLUMNS = ("t_s", "rto_s", "cwnd", "ssthresh")
#: The simulator's drop log written beside them (drawn on the time-sequence graph).
DROPS = "series_drops.parquet"
# Figures are drawn for at most this many flows (the largest first; `--flow` picks others), so
# that a capture of thousands of connections does not become thousands of files.
MAX_FIGURE_FLOWS = 8
#: metrics.json lists this many flows, the largest; flows.jsonl has them all (a capture of a
#: million connections must not become a million entries in one JSON document).
MAX_LISTED = 100
#: A flow with fewer data segments has no figure to speak of: it is summed in small_flows.
MIN_FIGURE_SEGMENTS = 3
#: What `vho analyze` writes: a directory of only these, metrics.json among them, is a
#: previous analysis that a new one may replace whole.
OWNED = (
    re.escape(METRICS),
    re.escape(FLOWS),
    r"(sequence|throughput|cwnd)_flow\d+\.(png|svg)",
    *mp.OWNED,
)


@dataclass
class CaptureAnalysis:
    """The result of :func:`analyze`.

    ``metrics``: what ``metrics.json`` holds. ``flows``: one row per listed flow (the largest
    ``max_listed``) with its scalar metrics. ``raw``: vho-trace's analysis with the kept
    conversations (the listed ones and those drawn). ``figures``: files written (none without
    ``out_dir``).
    """

    capture: Path
    metrics: dict[str, Any]
    flows: pd.DataFrame
    raw: dict[str, Any]
    figures: list[Path] = field(default_factory=list)
    #: The span of t_a's mean asked for (``ta_mean``), None when not asked.
    ta_mean: str | None = None
    #: vho-trace's Multipath TCP analysis (connections, and every MPTCP data segment and
    #: mapping as columns), None for a capture without MPTCP (see :mod:`.mptcp`).
    mptcp: dict[str, Any] | None = None

    def mptcp_segments(self) -> pd.DataFrame:
        """Every MPTCP data segment with its subflow and DSN (:func:`.mptcp.segments`);
        empty without MPTCP."""
        if self.mptcp is None:
            return pd.DataFrame()
        return mp.segments(self.mptcp)

    def raw_entries(self) -> list[dict[str, Any]]:
        """The metrics entries of the kept conversations."""
        return [metrics.flow_entry(c, self.ta_mean) for c in self.raw["flows"]]

    def _conversation(self, index: int) -> dict[str, Any]:
        for f in self.raw["flows"]:
            if f["index"] == index:
                return f
        raise VhoError(f"vho analyze: {self.capture}: no flow {index}")

    def throughput(self, index: int) -> pd.DataFrame:
        """Throughput points (``t_s``, ``bps``) of flow ``index``'s data (Cottingham §5)."""
        from . import figures

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
        row = {
            k: v for k, v in e.items() if not isinstance(v, dict | list) and k not in metrics.DELAYS
        }
        row["rtt_mean_s"] = e["rtt"]["mean_s"] if e["rtt"] else None
        row["ack_delay_mean_s"] = e["ack_delay"]["mean_s"] if e["ack_delay"] else None
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
        files.check_regular(path, "series file", VhoError)
        return _read_series(path, f"vho analyze: --series {path}")
    beside = capture.parent / SERIES
    if flows != 1 or not beside.is_file():
        return None
    df = _read_series(beside, f"vho analyze: {beside}")
    return df if df["flow"].nunique() == 1 else None


def _drops_for(capture: Path, series: pd.DataFrame | None) -> pd.DataFrame | None:
    """The simulator's drop log (`vho run`'s ``series_drops.parquet``) beside the capture, for
    the time-sequence graph, when the series beside it was taken (one flow on both sides)."""
    beside = capture.parent / DROPS
    if series is None or not beside.is_file():
        return None
    import pyarrow as pa

    try:
        df = pd.read_parquet(beside)
    except (OSError, ValueError, pa.ArrowException) as e:
        # Refused as the series beside it is (`_read_series`): a damaged run output is said,
        # not drawn without its drops.
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise VhoError(
            f"vho analyze: {beside}: not a Parquet file of vho's drops ({first})"
        ) from None
    missing = [c for c in ("t_s", "seq", "len", "flow") if c not in df.columns]
    if missing:
        raise VhoError(f"vho analyze: {beside}: not vho's {DROPS} (no column {', '.join(missing)})")
    if df["flow"].nunique() > 1:
        return None
    if len(df) and set(df["flow"]) != set(series["flow"]):
        return None
    return df


def _read_series(path: Path, what: str) -> pd.DataFrame:
    import pyarrow as pa

    try:
        df = pd.read_parquet(path)
    except (OSError, ValueError, pa.ArrowException) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise VhoError(f"{what}: not a Parquet file of vho's series ({first})") from None
    missing = [c for c in SERIES_COLUMNS if c not in df.columns]
    if missing:
        raise VhoError(f"{what}: not vho's series_tcp.parquet (no column {', '.join(missing)})")
    return df


def _flows(stream: Iterable[str]) -> Iterator[dict[str, Any]]:
    """vho-trace's conversations, decoded one at a time as the native stream hands them out
    (each as it leaves the flow table): a capture of a million flows is never a million dicts,
    nor a million results in Rust, at once."""
    for text in stream:
        yield json.loads(text)


@dataclass
class _Kept:
    """What is kept of a capture's flows while they stream past: the largest ones (entries and
    conversations), the tiny ones summed, and the strongest handover evidence."""

    limit: int
    heap: list[tuple[int, int, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    total: int = 0
    small: dict[str, int] = field(
        default_factory=lambda: {"flows": 0, "packets": 0, "bytes": 0, "syn_only": 0}
    )
    handover_entry: dict[str, Any] | None = None

    def add(self, entry: dict[str, Any], conv: dict[str, Any]) -> None:
        self.total += 1
        if entry["data_segments"] < MIN_FIGURE_SEGMENTS:
            self.small["flows"] += 1
            self.small["packets"] += entry["packets"]
            self.small["bytes"] += entry["bytes"]
            self.small["syn_only"] += int(entry["syn_seen"] and entry["packets"] == 1)
        if entry["path_changes"]:
            h = self.handover_entry
            if h is None or (-entry["bytes"], entry["index"]) < (-h["bytes"], h["index"]):
                self.handover_entry = entry
        # A min-heap on (bytes, -index): the root is the flow to drop first.
        item = (entry["bytes"], -entry["index"], entry, conv)
        if len(self.heap) < self.limit:
            heapq.heappush(self.heap, item)
        elif item[:2] > self.heap[0][:2]:
            heapq.heapreplace(self.heap, item)

    def listed(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The kept flows in capture order."""
        return [(e, c) for _, _, e, c in sorted(self.heap, key=lambda x: x[2]["index"])]


def _jsonl(out: Path):
    try:
        return (out / FLOWS).open("w", encoding="utf-8")
    except OSError as e:
        raise files.output_error(out / FLOWS, e) from None


def analyze(
    capture: str | os.PathLike[str],
    *,
    flow: str | FlowSpec | None = None,
    handover_at: float | None = None,
    capture_point: str | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    series: str | os.PathLike[str] | pd.DataFrame | None = None,
    max_listed: int = MAX_LISTED,
    force: bool = False,
    ta_mean: str | None = None,
) -> CaptureAnalysis:
    """Analyses a capture.

    Every time is in seconds from the capture's first packet (Wireshark's
    ``frame.time_relative``); a simulator's capture, stamped from 1970-01-01, keeps its
    simulated time. ``metrics["time"]`` holds the origin's absolute stamp.

    ``flow``: a ``--flow`` SPEC (see :mod:`vho.analysis.flowspec`) selecting the flows to
    report. ``handover_at``: the handover instant in seconds from that origin (refused past
    the capture's last packet); without it the handover is searched for in the capture.
    ``capture_point``: ``"receiver"`` or ``"sender"``, where the
    capture was taken relative to the data; found per flow (handshake, then data/ACK timing)
    when not given. A spurious-retransmission count rests on the receiver's capture when the
    capture is there, else on D-SACK and timestamp evidence (``spurious_evidence``).
    ``out_dir``: where ``metrics.json``, ``flows.jsonl`` (every selected flow's entry, one
    per line, as the flow ended) and the figures go (written whole or not at all; a non-empty
    directory that is not a previous analysis is refused unless ``force``). ``series``: vho's
    time series of the sender (a ``series_tcp.parquet`` or its frame) for the RTO and cwnd in
    the figures.
    ``max_listed``: how many flows, the largest, ``metrics["flows"]`` and :attr:`flows` hold;
    the others are summed in ``small_flows`` and, with ``out_dir``, listed in ``flows.jsonl``.
    ``ta_mean``: the span of the mean t_a is measured against (Cottingham & Vidales §5 leave
    it open): ``"whole-connection"`` (what is used when not given) or ``"after-handover"``,
    the samples after the first data packet on the new interface, the last one excluded.
    Given, each flow's entry names it (``ta_mean``) and holds t_a and the mean of both spans
    (``adaptation_time_by_mean``); ``adaptation_time_s`` is t_a against the one asked for.

    A capture holding Multipath TCP (RFC 8684) also gets ``metrics["mptcp"]`` (its
    connections, subflows joined by token, reinjections, DSN order; see :mod:`.mptcp`),
    :attr:`CaptureAnalysis.mptcp` and, with ``out_dir``, the MPTCP Parquet tables and each
    connection's time-sequence graph in DSN space; a capture without it gets none of these.

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
    if ta_mean not in (None, *metrics.TA_MEANS):
        raise VhoError(
            f"vho analyze: --ta-mean {ta_mean!r}: expected {' or '.join(metrics.TA_MEANS)}"
        )
    spec = parse(flow) if isinstance(flow, str) else flow
    files.check_regular(path, "capture", CaptureError)
    if out_dir is None:
        return _analyze(path, spec, handover_at, capture_point, None, series, max_listed, ta_mean)
    out = Path(out_dir)
    with files.staged_output(out, command="vho analyze", owned=OWNED, force=force) as stage:
        a = _analyze(path, spec, handover_at, capture_point, stage, series, max_listed, ta_mean)
    a.figures = [out / p.name for p in a.figures]
    return a


def _analyze(
    path: Path,
    spec: FlowSpec | None,
    handover_at: float | None,
    capture_point: str | None,
    stage: Path | None,
    series: str | os.PathLike[str] | pd.DataFrame | None,
    max_listed: int,
    ta_mean: str | None = None,
) -> CaptureAnalysis:
    stream = _native.analyze_flows(os.fspath(path), handover_at, capture_point, ta_mean)
    kept = _Kept(max(max_listed, MAX_FIGURE_FLOWS))
    seen: list[str] = []  # the first few flows, for a --flow that matches none
    every = 0
    out = _jsonl(stage) if stage is not None else None
    try:
        for conv in _flows(stream):
            every += 1
            if len(seen) < 5:
                c, v = conv["client"], conv["server"]
                seen.append(f"{conv['index']} ({c['addr']}:{c['port']},{v['addr']}:{v['port']})")
            if spec is not None and not metrics.select_one(conv, spec):
                continue
            entry = metrics.flow_entry(conv, ta_mean)
            if out is not None:
                out.write(json.dumps(entry, allow_nan=False) + "\n")
            kept.add(entry, conv)
    except OSError as e:
        raise files.output_error(stage / FLOWS, e) from None
    finally:
        if out is not None:
            out.close()
    header = json.loads(stream.summary())
    mptcp_text = stream.mptcp()
    _check_within(path, handover_at, header)
    if spec is not None and not kept.total:
        more = f" and {every - 5} more" if every > 5 else ""
        raise NoFlowMatched(
            f"vho analyze: {path}: --flow {spec.text!r} matches none of its "
            f"{every} flows ({', '.join(seen) or 'none'}{more})"
        )
    listed = kept.listed()
    entries = [e for e, _ in listed]
    shown = sorted(entries, key=lambda e: (-e["bytes"], e["index"]))[:max_listed]
    shown_ix = {e["index"] for e in shown}
    from .. import __version__

    result = {
        "vho_version": __version__,
        "capture": str(path),
        "packets": header["packets"],
        "tcp_segments": header["tcp_segments"],
        "skipped": header["skipped"],
        "max_open_flows": header["max_open_flows"],
        # Every time here is from this origin (the first packet's stamp, or a simulator's
        # clock from zero): the absolute start is kept for whoever needs the wall clock.
        "time": _time(header),
        # What was read in spite of a fault (a capture cut short inside its last packet).
        "warnings": header["warnings"],
        "handover": metrics.handover(
            [kept.handover_entry] if kept.handover_entry else [], handover_at
        ),
        "flows_total": kept.total,
        "flows_listed": len(shown),
        "flows_file": FLOWS if stage is not None else None,
        "small_flows": {"max_data_segments": MIN_FIGURE_SEGMENTS - 1, **kept.small},
        "flows": [e for e in entries if e["index"] in shown_ix],
    }
    if ta_mean is not None:
        result["ta_mean"] = ta_mean
    mptcp_raw = json.loads(mptcp_text) if mptcp_text is not None else None
    if mptcp_raw is not None:
        # Only for a capture with MPTCP: a plain TCP capture's metrics.json is unchanged.
        result["mptcp"] = mp.section(mptcp_raw, stage is not None)
    raw = {**header, "flows": [c for _, c in listed]}
    a = CaptureAnalysis(
        path, result, _scalar_rows(result["flows"]), raw, ta_mean=ta_mean, mptcp=mptcp_raw
    )
    if stage is not None:
        beside = _series_for(path, series, kept.total)
        sim_drops = _drops_for(path, beside) if series is None else None
        a.figures = _write(a, stage, beside, sim_drops)
    return a


def _time(header: dict[str, Any]) -> dict[str, Any]:
    import datetime as dt

    origin = header["time_origin_epoch_s"]
    utc = dt.datetime.fromtimestamp(origin, dt.UTC).isoformat(timespec="microseconds")
    return {
        "origin": header["time_origin"],
        "origin_epoch_s": origin,
        "origin_utc": utc.replace("+00:00", "Z"),
        "end_s": header["end_s"],
    }


def _check_within(path: Path, handover_at: float | None, header: dict[str, Any]) -> None:
    """Refuses a ``--handover-at`` after the capture's last packet (times count from its
    first packet: an epoch stamp given here is the usual mistake)."""
    if handover_at is None or handover_at <= header["end_s"]:
        return
    t = _time(header)
    origin = (
        f"its first packet, {t['origin_utc']}"
        if t["origin"] == "first_packet"
        else "the simulation's start (a simulator's clock)"
    )
    raise OutsideCapture(
        f"vho analyze: {path}: --handover-at {handover_at:g}: outside the capture, which "
        f"spans 0 to {t['end_s']:.6f} s from {origin}; expected seconds from that origin"
    )


def _write(
    a: CaptureAnalysis,
    stage: Path,
    series: pd.DataFrame | None,
    sim_drops: pd.DataFrame | None = None,
) -> list[Path]:
    """The figures of the largest flows with enough data to draw, then metrics.json, into the
    staging directory (published whole by the caller)."""
    try:
        h = a.metrics["handover"]
        at = h["at_s"]
        every = [c["at_s"] for c in h.get("all", [])] or ([at] if at is not None else [])
        drawn = sorted(
            (e for e in a.raw_entries() if e["data_segments"] >= MIN_FIGURE_SEGMENTS),
            key=lambda e: (-e["bytes"], e["index"]),
        )
        written: list[Path] = []
        if drawn:
            # matplotlib only when there is something to draw: it is 30 MB of the process.
            from . import figures
        for e in drawn[:MAX_FIGURE_FLOWS]:
            snd, _ = metrics.sides(a._conversation(e["index"]))
            written += figures.draw(
                stage,
                e,
                a.segments(e["index"]),
                snd["throughput"]["points"],
                at,
                series,
                every,
                sim_drops=sim_drops,
            )
        if a.mptcp is not None:
            written += mp.write(a.mptcp, stage, every)
        body = json.dumps(a.metrics, indent=2, allow_nan=False) + "\n"
        (stage / METRICS).write_text(body, encoding="utf-8")
        return written
    except OSError as e:
        raise files.output_error(stage, e, "cannot write the analysis") from None
