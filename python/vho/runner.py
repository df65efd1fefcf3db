"""Running a scenario: `vho.run()` and the output directory of `vho run`.

A run writes, in its output directory:

- ``summary.json``: per flow, per handover, per link direction and for the run (written last:
  its presence means the directory is complete);
- ``timing.json``: the wall-clock time of the run (kept apart so that ``summary.json`` is
  byte-identical for the same scenario and seed);
- ``<node>.pcap`` for each capture point;
- ``series_tcp.parquet`` and ``series_queues.parquet`` when the scenario records series.

Everything is first written to a hidden staging directory and moved into place only when the
run has succeeded; a failed run leaves no file behind that looks complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import _native
from .errors import OutputError, ScenarioError

SUMMARY = "summary.json"
TIMING = "timing.json"


@dataclass
class RunResult:
    """What a run produced: the summary (a dict, as in ``summary.json``) and time series."""

    summary: dict
    #: Per flow name, the sender's TCP state over time (``t_s``, cwnd, ssthresh, srtt_s, ...).
    tcp: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: Queue length over time of every link direction (``t_s``, link, from, to, packets, bytes).
    queues: pd.DataFrame | None = None
    #: Per flow name, bytes delivered in order per 0.1 s (when the scenario records series).
    throughput: dict[str, pd.DataFrame] = field(default_factory=dict)
    wall_s: float = 0.0
    out_dir: Path | None = None

    @property
    def flows(self) -> list[dict]:
        return self.summary["flows"]


def _scenario_text(scenario: str | os.PathLike[str]) -> tuple[str, str, Path | None]:
    """(label for messages, TOML text, path) of a scenario given as a path or as TOML text."""
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario):
        path = Path(scenario)
        try:
            return str(path), path.read_text(encoding="utf-8"), path
        except FileNotFoundError:
            raise ScenarioError(f"{path}: no such scenario file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise ScenarioError(f"{path}: cannot read the scenario: {e}") from None
    return "<scenario>", scenario, None


def _frames(raw: dict, summary: dict) -> tuple[dict, pd.DataFrame | None, dict]:
    names = [f["name"] for f in summary["flows"]]
    tcp: dict[str, pd.DataFrame] = {}
    for name, cols in zip(names, raw["tcp_series"], strict=True):
        if cols is None:
            continue
        df = pd.DataFrame(cols)
        df.insert(0, "t_s", df.pop("t_ns") / 1e9)
        for c in ("srtt", "rttvar", "rto"):
            df[f"{c}_s"] = df.pop(f"{c}_ns") / 1e9
        for c in ("cwnd", "ssthresh", "flight"):
            df[c] = df[c].astype("int64")
        tcp[name] = df
    queues = None
    if raw["queue_series"] is not None:
        q = pd.DataFrame(raw["queue_series"])
        links = summary["links"]
        d = q.pop("dir").astype("int64")
        q.insert(0, "t_s", q.pop("t_ns") / 1e9)
        q.insert(1, "link", [links[i]["link"] for i in d])
        q.insert(2, "from", [links[i]["from"] for i in d])
        q.insert(3, "to", [links[i]["to"] for i in d])
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
    return tcp, queues, thr


def run(
    scenario: str | os.PathLike[str],
    *,
    seed: int | None = None,
    overrides: Sequence[str] = (),
    out_dir: str | os.PathLike[str] | None = None,
    plot: bool = False,
) -> RunResult:
    """Simulates a scenario (a path to a TOML file, or TOML text).

    ``overrides`` are ``key.path=value`` strings as for ``vho run --set``. With ``out_dir``,
    writes the summary, captures and series there (see the module doc); without it, nothing is
    written and captures are skipped. ``plot`` (with ``out_dir``) also draws, per capture, a
    time-sequence graph of the largest flow with the handovers and the sender's RTO
    (``sequence_<node>.png`` and ``.svg``).
    """
    label, text, _ = _scenario_text(scenario)
    if seed is not None and not 0 <= seed < 2**64:
        raise ScenarioError(f"--seed: expected an integer in [0, 2^64), got {seed}")
    overrides = list(overrides)
    # Refuse bad input before anything is created on disk.
    _native.check_scenario(label, text, overrides)
    if out_dir is None:
        t0 = time.perf_counter()
        raw = _native.run_scenario(label, text, overrides, seed, None)
        wall = time.perf_counter() - t0
        summary = json.loads(raw["summary_json"])
        tcp, queues, thr = _frames(raw, summary)
        return RunResult(summary, tcp, queues, thr, wall, None)

    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".vho-partial-", dir=out))
    except OSError as e:
        raise OutputError(f"{out}: cannot create the output directory: {e.strerror}") from None
    try:
        t0 = time.perf_counter()
        raw = _native.run_scenario(label, text, overrides, seed, str(stage))
        wall = time.perf_counter() - t0
        summary = json.loads(raw["summary_json"])
        tcp, queues, thr = _frames(raw, summary)
        if tcp:
            frames = [df.assign(flow=name) for name, df in tcp.items()]
            pd.concat(frames, ignore_index=True).to_parquet(
                stage / "series_tcp.parquet", index=False
            )
        if queues is not None:
            queues.to_parquet(stage / "series_queues.parquet", index=False)
        if plot:
            _plot_sequences(stage, raw["capture_nodes"], summary, tcp)
        (stage / TIMING).write_text(json.dumps({"wall_s": wall}) + "\n", encoding="utf-8")
        (stage / SUMMARY).write_text(raw["summary_json"] + "\n", encoding="utf-8")
        # Publish: the old summary goes first, the new one last, so that at no moment does a
        # summary sit beside files of another run.
        (out / SUMMARY).unlink(missing_ok=True)
        for f in sorted(stage.iterdir()):
            if f.name != SUMMARY:
                os.replace(f, out / f.name)
        os.replace(stage / SUMMARY, out / SUMMARY)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return RunResult(summary, tcp, queues, thr, wall, out)


def presets() -> list[dict]:
    """The link presets shipped with vho (name, description, rate, delay, queue, loss, source)."""
    return _native.presets()


def _plot_sequences(
    stage: Path, nodes: list[str], summary: dict, tcp: dict[str, pd.DataFrame]
) -> None:
    from . import capture, plots

    handovers = [h["at_s"] for h in summary["handovers"]]
    rto = None
    if summary["flows"]:
        series = tcp.get(summary["flows"][0]["name"])
        rto = series[["t_s", "rto_s"]] if series is not None else None
    for node in nodes:
        df = capture.read_tcp(stage / f"{node}.pcap")
        if df.empty or not (df["len"] > 0).any():
            continue
        data, acks = capture.sequence(df)
        plots.time_sequence(
            data,
            acks,
            stage / f"sequence_{node}",
            title=f"{summary['run']['scenario']}: captured at {node}",
            handovers=handovers,
            rto=rto,
        )
