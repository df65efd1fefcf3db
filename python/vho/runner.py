"""Running a scenario: `vho.run()` and the output directory of `vho run`.

A run writes, in its output directory:

- ``summary.json``: per flow, per handover, per link direction and for the run (written last:
  its presence means the directory is complete);
- ``timing.json``: the wall-clock time of the run (kept apart so that ``summary.json`` is
  byte-identical for the same scenario and seed);
- ``scenario.resolved.toml``: the scenario as run, every default filled in (presets and
  profile values written out; loading it gives the same run);
- ``<node>.pcap`` for each capture point;
- ``series_tcp.parquet``, ``series_queues.parquet`` and ``series_drops.parquet`` (every data
  segment dropped in the network: time, flow, offset from its first data byte, length, link,
  cause) when the scenario records series; ``series_tfrc.parquet`` (each TFRC sender's rate X,
  X_recv, p and RTT at every change, in bit/s and seconds) when it also has TFRC flows;
  ``series_probe.parquet`` (TFRC Probe's capacity estimate at every change) with TFRC Probe.
- ``series_cross.parquet`` when the scenario has cross traffic (``kind = "pareto"``), whether
  or not it records series: one row per Pareto flow per second (``vho_sim::agent::CROSS_INTERVAL``)
  with the bytes sent and delivered in it and their rates. Cross traffic is captured only with
  ``record.pcap_cross``.
- ``series_cbr.parquet`` with series and a CBR flow (``kind = "cbr"``): every datagram its
  receiver got, in arrival order (``t_s`` arrival, ``seq``, ``sent_s``, ``delay_s``).

Everything is first written to a hidden staging directory beside it and swapped in whole only
when the run has succeeded (:func:`vho.files.staged_output`): a failed run leaves no file
behind that looks complete, and no file of an older run sits beside a new summary. A capture
is named after its node; a name that is not a plain file name is refused before the run.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import _native, files
from .errors import OutputError, ScenarioError

if TYPE_CHECKING:
    # pandas is imported where a run makes its frames: `vho presets` and `vho --help` never do.
    import pandas as pd

SUMMARY = "summary.json"
#: The causes of a drop in ``summary.json`` (each flow's ``drops``, each link's ``dropped_*``;
#: ``dropped_early_drop``, RED's early drops, only on a link direction that runs RED;
#: ``dropped_link_state``, a scheduled blackhole's or interface down's, only on a direction a
#: ``[[schedule]]`` gives a state; ``dropped_link_layer_discard``, an RLC-AM bearer's MaxDAT or an
#: 802.11 station's retry limit, only on a direction with a link layer; ``dropped_in_flight``,
#: on the air or propagating when the interface went down (a hard handover with
#: ``in_flight = "lost"``, a scheduled state down), only on a direction that can).
DROP_CAUSES = (
    "queue_overflow",
    "handover_flush",
    "random_loss",
    "early_drop",
    "link_state",
    "link_layer_discard",
    "in_flight",
)
TIMING = "timing.json"
RESOLVED = "scenario.resolved.toml"
#: What `vho run` writes (see the module doc): a directory holding only these, a summary among
#: them, is a previous output that a new run may replace.
OWNED = (
    re.escape(SUMMARY),
    re.escape(TIMING),
    re.escape(RESOLVED),
    r".+\.pcap",
    r"series_(tcp|tfrc|queues|drops|cross|probe|cbr)\.parquet",
    r"sequence_.+\.(png|svg)",
)


@dataclass
class RunResult:
    """What a run produced: the summary (a dict, as in ``summary.json``) and time series.
    :meth:`flows_frame` gives the flows as a DataFrame; ``repr`` is one line."""

    summary: dict
    #: Per flow name, the sender's TCP state over time (``t_s``, cwnd, ssthresh, srtt_s, ...).
    tcp: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: Queue length over time of every link direction (``t_s``, link, from, to, packets, bytes).
    queues: pd.DataFrame | None = None
    #: Per flow name, bytes delivered in order per 0.1 s (when the scenario records series).
    throughput: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: Every data segment dropped in the network (``t_s``, flow, ``seq``: offset from the
    #: flow's first data byte, ``len``, link, from, to, cause), when series are recorded.
    drops: pd.DataFrame | None = None
    wall_s: float = 0.0
    out_dir: Path | None = None

    @property
    def flows(self) -> list[dict]:
        """The summary's flows, as in ``summary.json`` (nested dicts); see :meth:`flows_frame`."""
        return self.summary["flows"]

    def flows_frame(self) -> pd.DataFrame:
        """One row per flow: its name, ends, profile and every scalar metric of ``summary.json``
        (``transfer_time_s``, ``goodput_bps``, ``retransmissions``, ...; a time that did not
        happen is NaN), ``drops`` (the flow's packets dropped, every link and cause) and
        ``drops_<cause>`` per cause (``queue_overflow``, ``handover_flush``, ``random_loss``,
        ``early_drop``, ``link_state``, ``link_layer_discard``, ``in_flight``)."""
        import pandas as pd

        rows = []
        for f in self.flows:
            row = {k: v for k, v in f.items() if k != "drops"}
            row["drops"] = sum(d["packets"] for d in f["drops"])
            causes = dict.fromkeys(DROP_CAUSES, 0)
            for d in f["drops"]:
                causes[d["cause"]] = causes.get(d["cause"], 0) + d["packets"]
            row.update({f"drops_{c}": n for c, n in causes.items()})
            rows.append(row)
        df = pd.DataFrame(rows)
        for c in df.columns:  # a metric that is null in every flow is still a number column
            if df[c].isna().all():
                df[c] = df[c].astype(float)
        return df

    def __repr__(self) -> str:
        """One line (a notebook shows this, not the whole summary): the scenario, how the run
        ended, the flows and what else the result holds."""
        run = self.summary["run"]
        flows = self.flows
        done = sum(1 for f in flows if f["completed"])
        parts = [
            f"{run['scenario']!r}",
            f"seed {run['seed']}",
            f"simulated {run['simulated_s']:.3f} s, ended by {run['ended_by']}",
            f"{_count(len(flows), 'flow')} ({done} complete)",
            _count(len(self.summary["handovers"]), "handover"),
        ]
        series = [
            name
            for name, on in (
                ("tcp", self.tcp),
                ("queues", self.queues is not None),
                ("throughput", self.throughput),
                ("drops", self.drops is not None),
            )
            if on
        ]
        if series:
            parts.append("series: " + ", ".join(series))
        if self.out_dir is not None:
            parts.append(f"in {self.out_dir}")
        return f"RunResult({'; '.join(parts)})"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _scenario_text(scenario: str | os.PathLike[str]) -> tuple[str, str, Path | None]:
    """(label for messages, TOML text, path) of a scenario given as a path or as TOML text."""
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario):
        path = Path(scenario)
        return str(path), files.read_text(path, "scenario file", ScenarioError), path
    return "<scenario>", scenario, None


def identity(path: Path | None, text: str) -> list[str]:
    """Overrides that make a scenario's name, and so its hash, independent of how its path was
    typed: without ``[run] name`` the core names a scenario after its label (``good.toml`` and
    ``/abs/good.toml`` would hash apart), so the file's stem is given as the name instead."""
    if path is None:
        return []
    try:
        run_table = tomllib.loads(text).get("run", {})
    except (tomllib.TOMLDecodeError, RecursionError):
        # The core reports it, with its line (tomllib recurses once per nested array or
        # inline table: a hostile file of thousands overflows Python's stack first).
        return []
    if isinstance(run_table, dict) and "name" in run_table:
        return []
    return [f"run.name={json.dumps(path.stem)}"]


def _capture_names(text: str, overrides: Sequence[str]) -> list[str]:
    """The nodes ``record.pcap`` names, in the file and in the overrides: each becomes
    ``<name>.pcap`` (written by the core, so checked here before it runs). Text that does not
    parse is left to the core's own error."""
    names: list[str] = []
    try:
        pcap = tomllib.loads(text).get("record", {}).get("pcap", [])
    except (tomllib.TOMLDecodeError, RecursionError, AttributeError):
        pcap = []
    names += [n for n in pcap if isinstance(n, str)] if isinstance(pcap, list) else []
    for o in overrides:
        key, _, value = o.partition("=")
        key = key.strip()
        if not key.startswith("record"):
            continue
        try:
            v = tomllib.loads(f"v = {value}")["v"]
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
        if key == "record" and isinstance(v, dict):
            v = v.get("pcap", [])
        elif key != "record.pcap" and not key.startswith("record.pcap."):
            continue
        names += [x for x in (v if isinstance(v, list) else [v]) if isinstance(x, str)]
    return names


def _in_thread(fn, *args):
    """``fn(*args)`` in a thread, this one waiting: the core releases the GIL, and the main
    thread stays free to handle SIGINT/SIGTERM (which remove the staging directory)."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.05)
    if "error" in box:
        raise box["error"]
    return box["value"]


#: Rows per Parquet row group, the bound on what is converted to Arrow at once when a series
#: is written (pyarrow's own default row group, so a file is as ``DataFrame.to_parquet`` wrote
#: it).
ROW_GROUP_ROWS = 1 << 20


def _columns(cols: dict) -> dict:
    """A series' columns from the core (each the bytes of its values as little-endian f64, 8
    bytes a row: ``vho-py``'s ``run::column``) as numpy arrays, without copying them."""
    import numpy as np

    return {k: np.frombuffer(v, dtype="<f8") for k, v in cols.items()}


def _to_parquet(df: pd.DataFrame, path: Path) -> None:
    """``df.to_parquet(path, index=False)``, converted to Arrow one row group at a time: the
    same rows and schema (and for up to ``ROW_GROUP_ROWS`` rows the same file) without a
    whole copy of a long series in Arrow's memory beside the frame."""
    if len(df) <= ROW_GROUP_ROWS:
        df.to_parquet(path, index=False)
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = pa.Table.from_pandas(df.iloc[:ROW_GROUP_ROWS], preserve_index=False)
    with pq.ParquetWriter(path, first.schema, compression="snappy") as w:
        w.write_table(first, row_group_size=ROW_GROUP_ROWS)
        del first
        for start in range(ROW_GROUP_ROWS, len(df), ROW_GROUP_ROWS):
            chunk = df.iloc[start : start + ROW_GROUP_ROWS]
            t = pa.Table.from_pandas(chunk, schema=w.schema, preserve_index=False)
            w.write_table(t, row_group_size=ROW_GROUP_ROWS)


def _frames(
    raw: dict, summary: dict
) -> tuple[dict, pd.DataFrame | None, dict, pd.DataFrame | None]:
    recorded = (
        any(c is not None for c in raw["tcp_series"])
        or raw["queue_series"] is not None
        or any(b is not None for b in raw["rx_bins"])
    )
    if not recorded:  # a run without series (every sweep run) needs no pandas
        return {}, None, {}, None
    import pandas as pd

    names = [f["name"] for f in summary["flows"]]
    tcp: dict[str, pd.DataFrame] = {}
    for name, cols in zip(names, raw["tcp_series"], strict=True):
        if cols is None:
            continue
        df = pd.DataFrame(_columns(cols))
        df.insert(0, "t_s", df.pop("t_ns") / 1e9)
        for c in ("srtt", "rttvar", "rto"):
            df[f"{c}_s"] = df.pop(f"{c}_ns") / 1e9
        for c in ("cwnd", "ssthresh", "flight"):
            df[c] = df[c].astype("int64")
        tcp[name] = df
    queues = None
    if raw["queue_series"] is not None:
        import numpy as np

        # The core's bytes are let go once in the frame (a long run's queue series is most of
        # its memory).
        q = pd.DataFrame(_columns(raw.pop("queue_series")))
        raw["queue_series"] = None
        links = summary["links"]
        d = q.pop("dir").astype("int64").to_numpy()
        # One str object per link direction, picked per row (as the lists did, without them).
        for pos, k in enumerate(("link", "from", "to"), start=1):
            by_dir = np.array([link[k] for link in links], dtype=object)
            q.insert(pos, k, by_dir[d])
        q.insert(0, "t_s", q.pop("t_ns") / 1e9)
        q["packets"] = q["packets"].astype("int64")
        q["bytes"] = q["bytes"].astype("int64")
        queues = q
    thr: dict[str, pd.DataFrame] = {}
    for name, b in zip(names, raw["rx_bins"], strict=True):
        if b is None:
            continue
        n = len(b["bytes"])
        thr[name] = pd.DataFrame(
            {"t_s": [i * b["interval_s"] for i in range(n)], "bytes": b["bytes"]}
        )
    return tcp, queues, thr, _drops(raw["drop_series"], summary, names)


def _per_flow_frame(
    series: list, summary: dict, ns_cols: tuple[str, ...] = ()
) -> pd.DataFrame | None:
    """Per-flow column series (``None`` for a flow without one) as one frame with the flow's
    name: ``t_ns`` becomes the first column ``t_s``, each of ``ns_cols`` (``x_ns``) ``x_s``;
    ``None`` when no flow has a series."""
    if all(c is None for c in series):
        return None
    import pandas as pd

    names = [f["name"] for f in summary["flows"]]
    frames = []
    for name, cols in zip(names, series, strict=True):
        if cols is None:
            continue
        df = pd.DataFrame(_columns(cols))
        df.insert(0, "t_s", df.pop("t_ns") / 1e9)
        for c in ns_cols:
            df[c.removesuffix("_ns") + "_s"] = df.pop(c) / 1e9
        frames.append(df.assign(flow=name))
    return pd.concat(frames, ignore_index=True)


def _tfrc_frame(raw: dict, summary: dict) -> pd.DataFrame | None:
    """The TFRC senders' state over time (RFC 5348 §4.3: X, X_recv, p, R), one row per
    change, every TFRC flow in one frame with its name; ``None`` without one."""
    return _per_flow_frame(raw.get("tfrc_series") or [], summary, ("rtt_ns",))


def _cross_frame(raw: dict, summary: dict) -> pd.DataFrame | None:
    """Cross traffic's rate, one row per Pareto flow per interval: the bytes its source sent
    in it and those its sink got, and the same as bit/s; ``None`` without a Pareto flow."""
    bins = raw.get("cross_bins") or []
    if all(b is None for b in bins):
        return None
    import pandas as pd

    frames = []
    for f, b in zip(summary["flows"], bins, strict=True):
        if b is None:
            continue
        # Both lists padded to the run's end, so that every flow has a row per interval.
        end = int(summary["run"]["simulated_s"] // b["interval_s"])
        n = max(len(b["sent"]), len(b["delivered"]), end)
        sent = b["sent"] + [0] * (n - len(b["sent"]))
        got = b["delivered"] + [0] * (n - len(b["delivered"]))
        df = pd.DataFrame(
            {
                "flow": f["name"],
                "t_s": [i * b["interval_s"] for i in range(n)],
                "sent_bytes": pd.Series(sent, dtype="int64"),
                "delivered_bytes": pd.Series(got, dtype="int64"),
            }
        )
        df["sent_bps"] = df["sent_bytes"] * 8.0 / b["interval_s"]
        df["delivered_bps"] = df["delivered_bytes"] * 8.0 / b["interval_s"]
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _cbr_frame(raw: dict, summary: dict) -> pd.DataFrame | None:
    """Every CBR datagram as its receiver got it, in arrival order: its sequence number, when
    it was sent and its one-way delay; ``None`` without a CBR flow recording series."""
    frame = _per_flow_frame(raw.get("cbr_series") or [], summary, ("sent_ns", "delay_ns"))
    if frame is not None:
        frame["seq"] = frame["seq"].astype("int64")
    return frame


def _probe_frame(raw: dict, summary: dict) -> pd.DataFrame | None:
    """TFRC Probe's capacity estimate over time (Chen et al. §3.1: CapProbe at the receiver),
    one row per change, every probing flow in one frame with its name; ``None`` without one."""
    return _per_flow_frame(raw.get("probe_series") or [], summary)


def _drops(cols: dict | None, summary: dict, names: list[str]) -> pd.DataFrame | None:
    if cols is None:
        return None
    import pandas as pd

    links = summary["links"]

    def at(i: int | None, k: str) -> str | None:
        return None if i is None else links[i][k]

    dirs = cols["dir"]
    return pd.DataFrame(
        {
            "t_s": pd.Series(cols["t_ns"], dtype="float64") / 1e9,
            "flow": [names[int(i)] for i in cols["flow"]],
            "seq": pd.Series(cols["seq"], dtype="int64"),
            "len": pd.Series(cols["len"], dtype="int64"),
            "link": [at(i, "link") for i in dirs],
            "from": [at(i, "from") for i in dirs],
            "to": [at(i, "to") for i in dirs],
            "cause": cols["cause"],
        }
    )


def run(
    scenario: str | os.PathLike[str],
    *,
    seed: int | None = None,
    overrides: Sequence[str] = (),
    out_dir: str | os.PathLike[str] | None = None,
    plot: bool = False,
    force: bool = False,
    label: str | None = None,
) -> RunResult:
    """Simulates a scenario (a path to a TOML file, or TOML text).

    ``overrides`` are ``key.path=value`` strings as for ``vho run --set``. With ``out_dir``,
    writes the summary, captures and series there (see the module doc); without it, nothing is
    written and captures are skipped. ``plot`` (with ``out_dir``) also draws, per capture, a
    time-sequence graph of the largest flow with the handovers and the sender's RTO
    (``sequence_<node>.png`` and ``.svg``). An ``out_dir`` that is neither empty nor a previous
    run's output is refused unless ``force`` (then it is replaced whole).
    """
    shown, text, path = _scenario_text(scenario)
    # ``label``: what messages call a scenario given as text (a sweep's, by its file).
    label = label if label is not None and path is None else shown
    if seed is not None and not 0 <= seed < 2**64:
        raise ScenarioError(f"--seed: expected an integer in [0, 2^64), got {seed}")
    overrides = [*identity(path, text), *overrides]
    # Refuse bad input before anything is created on disk.
    _native.check_scenario(label, text, overrides)
    if out_dir is None:
        t0 = time.perf_counter()
        raw = _native.run_scenario(label, text, overrides, seed, None)
        wall = time.perf_counter() - t0
        summary = json.loads(raw["summary_json"])
        tcp, queues, thr, drops = _frames(raw, summary)
        return RunResult(summary, tcp, queues, thr, drops, wall, None)

    out = Path(out_dir)
    for name in _capture_names(text, overrides):
        files.inside(out, name, "record.pcap: node", ".pcap")
    with files.staged_output(out, command="vho run", owned=OWNED, force=force) as stage:
        t0 = time.perf_counter()
        raw = _in_thread(_native.run_scenario, label, text, overrides, seed, str(stage))
        wall = time.perf_counter() - t0
        for node in raw["capture_nodes"]:
            files.inside(stage, node, "capture of node", ".pcap")
        summary = json.loads(raw["summary_json"])
        tcp, queues, thr, drops = _frames(raw, summary)
        try:
            if tcp:
                import pandas as pd

                frames = [df.assign(flow=name) for name, df in tcp.items()]
                _to_parquet(pd.concat(frames, ignore_index=True), stage / "series_tcp.parquet")
            tfrc = _tfrc_frame(raw, summary)
            if tfrc is not None:
                _to_parquet(tfrc, stage / "series_tfrc.parquet")
            cross = _cross_frame(raw, summary)
            if cross is not None:
                _to_parquet(cross, stage / "series_cross.parquet")
            probe = _probe_frame(raw, summary)
            if probe is not None:
                _to_parquet(probe, stage / "series_probe.parquet")
            cbr = _cbr_frame(raw, summary)
            if cbr is not None:
                _to_parquet(cbr, stage / "series_cbr.parquet")
            if queues is not None:
                _to_parquet(queues, stage / "series_queues.parquet")
            if drops is not None:
                _to_parquet(drops, stage / "series_drops.parquet")
            if plot:
                _plot_sequences(stage, raw["capture_nodes"], summary, tcp, drops)
            resolved = _native.resolve_scenario(label, text, overrides, seed)
            (stage / RESOLVED).write_text(resolved, encoding="utf-8")
            (stage / TIMING).write_text(json.dumps({"wall_s": wall}) + "\n", encoding="utf-8")
            (stage / SUMMARY).write_text(raw["summary_json"] + "\n", encoding="utf-8")
        except OSError as e:
            raise OutputError(f"{out}: cannot write the run's output: {e.strerror or e}") from None
    return RunResult(summary, tcp, queues, thr, drops, wall, out)


def resolved(
    scenario: str | os.PathLike[str], *, seed: int | None = None, overrides: Sequence[str] = ()
) -> str:
    """The scenario with every default filled in, as TOML (what ``vho run --dry-run`` prints
    and a run writes as ``scenario.resolved.toml``)."""
    label, text, path = _scenario_text(scenario)
    return _native.resolve_scenario(label, text, [*identity(path, text), *overrides], seed)


def presets() -> list[dict]:
    """The link presets shipped with vho (name, description, rate, delay, queue, loss, source)."""
    return _native.presets()


#: A Mobile IPv6 handover's steps in ``summary.json`` (``handovers[].mipv6``) and their names
#: on a figure: T_n = t_d + t_c + t_r (Cottingham & Vidales eq. 1).
MIPV6_STEPS = (
    ("detected_s", "moved (t_d ends)"),
    ("configured_s", "care-of address ready (t_c ends)"),
    ("ba_s", "Binding Ack"),
    ("bu_cn_sent_s", "BU to correspondent"),
    ("first_route_optimised_s", "first route-optimised packet (T_n ends)"),
)


def mipv6_steps(summary: dict) -> list[tuple[float, str]]:
    """(time, name) of every Mobile IPv6 handover step a run reports, for figures."""
    out = []
    for h in summary["handovers"]:
        m = h.get("mipv6") or {}
        for key, name in MIPV6_STEPS:
            if m.get(key) is not None:
                out.append((float(m[key]), name))
    return out


def _plot_sequences(
    stage: Path,
    nodes: list[str],
    summary: dict,
    tcp: dict[str, pd.DataFrame],
    drops: pd.DataFrame | None = None,
) -> None:
    import pandas as pd

    from . import capture, plots

    handovers = [h["at_s"] for h in summary["handovers"]]
    steps = mipv6_steps(summary)
    rto = None
    if summary["flows"]:
        series = tcp.get(summary["flows"][0]["name"])
        rto = series[["t_s", "rto_s"]] if series is not None else None
    # The simulator's drops, when the graph's flow is the run's only one.
    sim = None
    if drops is not None and len(summary["flows"]) == 1:
        sim = drops[["t_s", "seq", "len"]].assign(source="simulator")
    for node in nodes:
        df = capture.read_tcp(files.inside(stage, node, "capture of node", ".pcap"))
        if df.empty or not (df["len"] > 0).any():
            continue
        data, acks = capture.sequence(df)
        plots.time_sequence(
            data,
            acks,
            files.inside(stage, node, "figure of node").with_name(f"sequence_{node}"),
            title=f"{summary['run']['scenario']}: captured at {node}",
            handovers=handovers,
            steps=steps,
            rto=rto,
            drops=pd.concat([capture.flow_gaps(data), sim], ignore_index=True)
            if sim is not None and len(sim)
            else capture.flow_gaps(data),
        )
