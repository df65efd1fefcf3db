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
- ``series_mptcp.parquet`` with series and an MPTCP flow (``kind = "mptcp"``): each subflow's
  state whenever it changed (``subflow`` id, ``interface``, ``snd_cwnd``, ``rtt_s``,
  ``bytes_sent``, ``bytes_acked``), named as the kernel's ``TCP_INFO`` names them.

The series do not wait in memory for the run's end: the core hands their rows to hidden files
of the staging directory as it records them (``.series-*.rows``), and each Parquet file is
written from those a row group at a time, then they are removed (issue 40 item 14: what a long
run holds does not grow with its length). A :class:`RunResult` of such a run reads its series
from the Parquet files when asked for them.

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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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
    r"series_(tcp|tfrc|queues|drops|cross|probe|cbr|mptcp)\.parquet",
    r"sequence_.+\.(png|svg)",
)


class RunResult:
    """What a run produced: the summary (a dict, as in ``summary.json``) and time series.
    :meth:`flows_frame` gives the flows as a DataFrame; ``repr`` is one line.

    A run written to a directory keeps its series there, not in memory: ``tcp``, ``queues``
    and ``drops`` are read from its Parquet files when first asked for (issue 40 item 14: a
    10,000 s run's series are tens of millions of rows), so they need the directory as the
    run left it."""

    def __init__(
        self,
        summary: dict,
        tcp: dict[str, pd.DataFrame] | None = None,
        queues: pd.DataFrame | None = None,
        throughput: dict[str, pd.DataFrame] | None = None,
        drops: pd.DataFrame | None = None,
        wall_s: float = 0.0,
        out_dir: Path | None = None,
        *,
        on_disk: dict[str, list[str]] | None = None,
    ) -> None:
        self.summary = summary
        #: Per flow name, bytes delivered in order per 0.1 s (when the scenario records series).
        self.throughput: dict[str, pd.DataFrame] = throughput or {}
        self.wall_s = wall_s
        self.out_dir = out_dir
        self._tcp = tcp if tcp is not None else {}
        self._queues = queues
        self._drops = drops
        # The series in `out_dir` not read yet: "tcp" -> the flows with one, "queues" and
        # "drops" -> [].
        self._on_disk = dict(on_disk or {})

    @property
    def tcp(self) -> dict[str, pd.DataFrame]:
        """Per flow name, the sender's TCP state over time (``t_s``, cwnd, ssthresh, flight,
        srtt_s, rttvar_s, rto_s)."""
        names = self._on_disk.pop("tcp", None)
        if names is not None and self.out_dir is not None:
            self._tcp = _read_tcp(self.out_dir, names)
        return self._tcp

    @property
    def queues(self) -> pd.DataFrame | None:
        """Queue length over time of every link direction (``t_s``, link, from, to, packets,
        bytes)."""
        if self._on_disk.pop("queues", None) is not None and self.out_dir is not None:
            self._queues = _read_series(self.out_dir, "queues")
        return self._queues

    @property
    def drops(self) -> pd.DataFrame | None:
        """Every data segment dropped in the network (``t_s``, flow, ``seq``: offset from the
        flow's first data byte, ``len``, link, from, to, cause), when series are recorded."""
        if self._on_disk.pop("drops", None) is not None and self.out_dir is not None:
            self._drops = _read_series(self.out_dir, "drops")
        return self._drops

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
        ended, the flows and what else the result holds (series on disk are not read)."""
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
                ("tcp", bool(self._tcp) or bool(self._on_disk.get("tcp"))),
                ("queues", self._queues is not None or "queues" in self._on_disk),
                ("throughput", self.throughput),
                ("drops", self._drops is not None or "drops" in self._on_disk),
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


#: Rows per Parquet row group, the bound on what is converted at once when a series is
#: written (pyarrow's own default row group, so that a file is as ``DataFrame.to_parquet``
#: wrote it).
ROW_GROUP_ROWS = 1 << 20

#: The rows of each series as the core hands them over (``vho_sim::record::series``, each
#: series' ``Rows`` impl: little-endian, packed): in a spill file of the staging directory
#: for a run with an output directory, in bytes for one without.
ROWS = {
    "tcp": (
        ("t_ns", "<u8"),
        ("cwnd", "<u4"),
        ("ssthresh", "<u4"),
        ("srtt_ns", "<u8"),
        ("rttvar_ns", "<u8"),
        ("rto_ns", "<u8"),
        ("flight", "<u4"),
    ),
    "tfrc": (
        ("t_ns", "<u8"),
        ("x_bps", "<f8"),
        ("x_recv_bps", "<f8"),
        ("p", "<f8"),
        ("rtt_ns", "<u8"),
    ),
    "probe": (("t_ns", "<u8"), ("estimate_bps", "<u8")),
    "queues": (("t_ns", "<u8"), ("dir", "<u4"), ("packets", "<u4"), ("bytes", "<u8")),
    "drops": (
        ("t_ns", "<u8"),
        ("flow", "<u4"),
        ("seq", "<u4"),
        ("len", "<u4"),
        ("dir", "<u4"),
        ("cause", "u1"),
    ),
}


class _Rows:
    """One series' rows from the core (``vho-py``'s ``run::rows_entry``), read a slice at a
    time: a spill file is read, not mapped, so that what was read is let go with the slice."""

    def __init__(self, entry: dict, kind: str) -> None:
        import numpy as np

        self.dtype = np.dtype(list(ROWS[kind]))
        self.n = int(entry["rows"])
        self.path: str | None = entry.get("path")
        self.data: bytes | None = entry.get("data")

    def read(self, start: int = 0, stop: int | None = None):
        """Rows ``start`` to ``stop`` as a structured array."""
        import numpy as np

        stop = self.n if stop is None else min(stop, self.n)
        count, offset = max(stop - start, 0), start * self.dtype.itemsize
        if count == 0:
            return np.empty(0, dtype=self.dtype)
        if self.data is not None:
            return np.frombuffer(self.data, dtype=self.dtype, count=count, offset=offset)
        return np.fromfile(self.path, dtype=self.dtype, count=count, offset=offset)


def _seconds(ns) -> pd.Series:
    import pandas as pd

    return pd.Series(ns, dtype="float64") / 1e9


def _tcp_frame(a) -> pd.DataFrame:
    """The sender's state: ``t_s``, cwnd, ssthresh, flight, srtt_s, rttvar_s, rto_s."""
    import pandas as pd

    return pd.DataFrame(
        {
            "t_s": _seconds(a["t_ns"]),
            "cwnd": a["cwnd"].astype("int64"),
            "ssthresh": a["ssthresh"].astype("int64"),
            "flight": a["flight"].astype("int64"),
            "srtt_s": _seconds(a["srtt_ns"]),
            "rttvar_s": _seconds(a["rttvar_ns"]),
            "rto_s": _seconds(a["rto_ns"]),
        }
    )


def _tfrc_frame(a) -> pd.DataFrame:
    """A TFRC sender's state (RFC 5348 §4.3: X, X_recv, p, R), one row per change."""
    import pandas as pd

    return pd.DataFrame(
        {
            "t_s": _seconds(a["t_ns"]),
            "x_bps": a["x_bps"],
            "x_recv_bps": a["x_recv_bps"],
            "p": a["p"],
            "rtt_s": _seconds(a["rtt_ns"]),
        }
    )


def _probe_frame(a) -> pd.DataFrame:
    """TFRC Probe's capacity estimate (Chen et al. §3.1: CapProbe at the receiver), one row
    per change."""
    import pandas as pd

    return pd.DataFrame({"t_s": _seconds(a["t_ns"]), "estimate_bps": a["estimate_bps"] * 1.0})


def _strings(values: list[str | None], codes):
    """The column ``values[codes]`` (``None``: missing) as this pandas keeps strings, built
    without a Python object per row where it keeps them in Arrow (pandas 3: a 1 Mi-row column
    of names took 54 MB through an object array, 21 MB so)."""
    import numpy as np
    import pandas as pd

    dtype = pd.Series(["a"]).dtype
    if getattr(dtype, "storage", None) == "pyarrow":
        import pyarrow as pa

        taken = pa.array(values, type=pa.large_string()).take(pa.array(codes))
        return pd.array(taken, dtype=dtype)
    return np.array(values, dtype=object)[codes]


def _queue_frame(links: list[dict]):
    """The queue series' rows as a frame: ``t_s``, link, from, to, packets, bytes."""
    import pandas as pd

    by_dir = {k: [link[k] for link in links] for k in ("link", "from", "to")}

    def make(a) -> pd.DataFrame:
        d = a["dir"].astype("int64")
        return pd.DataFrame(
            {
                "t_s": _seconds(a["t_ns"]),
                "link": _strings(by_dir["link"], d),
                "from": _strings(by_dir["from"], d),
                "to": _strings(by_dir["to"], d),
                "packets": a["packets"].astype("int64"),
                "bytes": a["bytes"].astype("int64"),
            }
        )

    return make


def _drop_frame(links: list[dict], names: list[str], causes: list[str]):
    """The drop series' rows as a frame: ``t_s``, flow, seq, len, link, from, to, cause (no
    link for a packet dropped on none: ``u32::MAX``)."""
    import pandas as pd

    none = 2**32 - 1
    by_dir = {k: [link[k] for link in links] + [None] for k in ("link", "from", "to")}

    def make(a) -> pd.DataFrame:
        d = a["dir"].astype("int64")
        d[d == none] = len(links)
        return pd.DataFrame(
            {
                "t_s": _seconds(a["t_ns"]),
                "flow": _strings(names, a["flow"].astype("int64")),
                "seq": a["seq"].astype("int64"),
                "len": a["len"].astype("int64"),
                "link": _strings(by_dir["link"], d),
                "from": _strings(by_dir["from"], d),
                "to": _strings(by_dir["to"], d),
                "cause": _strings(causes, a["cause"].astype("int64")),
            }
        )

    return make


def _with_flow(make, name: str):
    """``make`` with the column ``flow``: ``name`` on every row."""
    import numpy as np

    return lambda a: make(a).assign(flow=_strings([name], np.zeros(len(a), dtype="int64")))


@dataclass(frozen=True)
class _Part:
    """Some of a series file's rows: ``n`` of them, ``frame(start, stop)`` some as a frame."""

    n: int
    frame: Callable[[int, int], pd.DataFrame]

    @staticmethod
    def of(rows: _Rows, make: Callable) -> _Part:
        return _Part(rows.n, lambda start, stop: make(rows.read(start, stop)))


def _series(raw: dict, summary: dict) -> dict[str, list[_Part]]:
    """Per series file (``tcp``, ``tfrc``, ``probe``, ``queues``, ``drops``) that the run
    recorded: its parts in order (a flow's rows, or all), each with the function that makes
    a frame of some of its rows."""
    names = [f["name"] for f in summary["flows"]]
    out: dict[str, list] = {}
    for kind, make in (("tcp", _tcp_frame), ("tfrc", _tfrc_frame), ("probe", _probe_frame)):
        parts = [
            _Part.of(_Rows(e, kind), _with_flow(make, name))
            for name, e in zip(names, raw.get(f"{kind}_series") or [None] * len(names), strict=True)
            if e is not None
        ]
        if parts:
            out[kind] = parts
    links = summary["links"]
    if raw.get("queue_series") is not None:
        out["queues"] = [_Part.of(_Rows(raw["queue_series"], "queues"), _queue_frame(links))]
    if raw.get("drop_series") is not None:
        make = _drop_frame(links, names, raw["drop_causes"])
        out["drops"] = [_Part.of(_Rows(raw["drop_series"], "drops"), make)]
    return out


def _chunks(parts: list[_Part]) -> Iterator[pd.DataFrame]:
    """The parts' rows, in order, as frames of ``ROW_GROUP_ROWS`` rows (the last fewer)."""
    import pandas as pd

    pending: list[pd.DataFrame] = []
    n = 0
    for part in parts:
        start = 0
        while start < part.n:
            take = min(ROW_GROUP_ROWS - n, part.n - start)
            pending.append(part.frame(start, start + take))
            start, n = start + take, n + take
            if n == ROW_GROUP_ROWS:
                yield pending[0] if len(pending) == 1 else pd.concat(pending, ignore_index=True)
                pending, n = [], 0
    if pending:
        yield pending[0] if len(pending) == 1 else pd.concat(pending, ignore_index=True)


def _write_series(path: Path, parts: list[_Part]) -> None:
    """Writes the parts' rows as one Parquet file: up to ``ROW_GROUP_ROWS`` rows as
    ``DataFrame.to_parquet(path, index=False)`` writes them, more a row group at a time, so
    that no more than a row group's rows are in memory at once."""
    import pandas as pd
    import pyarrow as pa

    if sum(part.n for part in parts) <= ROW_GROUP_ROWS:
        frames = [part.frame(0, part.n) for part in parts]
        df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        del frames
        df.to_parquet(path, index=False)
        del df
        pa.default_memory_pool().release_unused()
        return
    import pyarrow.parquet as pq

    chunks = _chunks(parts)
    first = pa.Table.from_pandas(next(chunks), preserve_index=False)
    with pq.ParquetWriter(path, first.schema, compression="snappy") as w:
        w.write_table(first, row_group_size=ROW_GROUP_ROWS)
        del first
        for chunk in chunks:
            t = pa.Table.from_pandas(chunk, schema=w.schema, preserve_index=False)
            w.write_table(t, row_group_size=ROW_GROUP_ROWS)
            del t, chunk
            # Arrow's allocator keeps what a row group freed for the next, and more each time.
            pa.default_memory_pool().release_unused()


def _to_parquet(df: pd.DataFrame, path: Path) -> None:
    """``df.to_parquet(path, index=False)``, converted to Arrow a row group at a time (a frame
    already in memory: cross traffic's bins)."""
    _write_series(path, [_Part(len(df), lambda start, stop: df.iloc[start:stop])])


def _read_series(out: Path, name: str) -> pd.DataFrame:
    """A series file a run wrote (``series_<name>.parquet``) as a frame."""
    import pandas as pd

    return pd.read_parquet(out / f"series_{name}.parquet")


def _read_tcp(out: Path, names: list[str]) -> dict[str, pd.DataFrame]:
    """``series_tcp.parquet`` as one frame per flow (``names``: the flows with a series)."""
    df = _read_series(out, "tcp")
    return {
        name: df[df["flow"] == name].drop(columns="flow").reset_index(drop=True) for name in names
    }


def _frames(raw: dict, summary: dict) -> tuple[dict, pd.DataFrame | None, pd.DataFrame | None]:
    """A run held in memory (no output directory): the TCP series per flow, the queues and
    the drops as frames."""
    series = _series(raw, summary)
    names = [f["name"] for f in summary["flows"]]
    tcp = {
        name: _tcp_frame(_Rows(e, "tcp").read())
        for name, e in zip(names, raw["tcp_series"], strict=True)
        if e is not None
    }

    def whole(kind: str) -> pd.DataFrame | None:
        if kind not in series:
            return None
        [part] = series[kind]
        return part.frame(0, part.n)

    return tcp, whole("queues"), whole("drops")


def _throughput(raw: dict, summary: dict) -> dict[str, pd.DataFrame]:
    """Per flow, bytes delivered in order per interval (when the scenario records series)."""
    bins = raw["rx_bins"]
    if all(b is None for b in bins):
        return {}
    import numpy as np
    import pandas as pd

    names = [f["name"] for f in summary["flows"]]
    thr: dict[str, pd.DataFrame] = {}
    for name, b in zip(names, bins, strict=True):
        if b is None:
            continue
        got = np.frombuffer(b["bytes"], dtype="<u8").astype("int64")
        t = np.arange(len(got), dtype="float64") * b["interval_s"]
        thr[name] = pd.DataFrame({"t_s": t, "bytes": got})
    return thr


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
    it was sent and its one-way delay; ``None`` without a CBR flow recording series. The core
    hands each column as little-endian f8 bytes (a CBR series is held, not spilled)."""
    entries = raw.get("cbr_series") or []
    if all(e is None for e in entries):
        return None
    import numpy as np
    import pandas as pd

    frames = []
    for f, cols in zip(summary["flows"], entries, strict=True):
        if cols is None:
            continue
        col = {k: np.frombuffer(v, dtype="<f8") for k, v in cols.items()}
        frames.append(
            pd.DataFrame(
                {
                    "t_s": col["t_ns"] / 1e9,
                    "seq": col["seq"].astype("int64"),
                    "sent_s": col["sent_ns"] / 1e9,
                    "delay_s": col["delay_ns"] / 1e9,
                    "flow": f["name"],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _mptcp_frame(raw: dict, summary: dict) -> pd.DataFrame | None:
    """Each MPTCP subflow's state whenever it changed: its id (stable: never reused), the
    interface it runs over, and ``TCP_INFO``'s names for what the kernel reports per subflow
    (``snd_cwnd`` in segments of ``snd_mss``, ``rtt_s``, ``bytes_sent``, ``bytes_acked``);
    ``None`` without an MPTCP flow recording series. Columns come as little-endian f8 bytes."""
    entries = raw.get("mptcp_series") or []
    if all(e is None for e in entries):
        return None
    import numpy as np
    import pandas as pd

    frames = []
    for f, cols in zip(summary["flows"], entries, strict=True):
        if cols is None:
            continue
        col = {k: np.frombuffer(v, dtype="<f8") for k, v in cols.items()}
        names = {s["id"]: s["interface"] for s in f["mptcp"]["subflows"]}
        sub = col["subflow"].astype("int64")
        mss = col["mss"].astype("int64")
        frames.append(
            pd.DataFrame(
                {
                    "t_s": col["t_ns"] / 1e9,
                    "flow": f["name"],
                    "subflow": sub,
                    "interface": [names.get(int(i), "") for i in sub],
                    "snd_cwnd": col["cwnd"].astype("int64") // np.maximum(mss, 1),
                    "snd_mss": mss,
                    "rtt_s": col["srtt_ns"] / 1e9,
                    "bytes_sent": col["bytes_sent"].astype("int64"),
                    "bytes_acked": col["bytes_acked"].astype("int64"),
                    "open": col["open"] > 0,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _spill_files(raw: dict) -> list[str]:
    """The spill files the core left in the staging directory (removed once written)."""
    entries = [*(raw.get("tcp_series") or []), *(raw.get("tfrc_series") or [])]
    entries += [*(raw.get("probe_series") or []), raw.get("queue_series"), raw.get("drop_series")]
    return [e["path"] for e in entries if e is not None and "path" in e]


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
        tcp, queues, drops = _frames(raw, summary)
        return RunResult(summary, tcp, queues, _throughput(raw, summary), drops, wall, None)

    out = Path(out_dir)
    for name in _capture_names(text, overrides):
        files.inside(out, name, "record.pcap: node", ".pcap")
    with files.staged_output(out, command="vho run", owned=OWNED, force=force) as stage:
        t0 = time.perf_counter()
        # The series spill into the staging directory as the run goes (`_Rows`).
        try:
            raw = _in_thread(_native.run_scenario, label, text, overrides, seed, str(stage))
        except OutputError as e:  # a capture or a series the core could not write
            raise OutputError(f"{out}: cannot write the run's output: {e}") from None
        wall = time.perf_counter() - t0
        for node in raw["capture_nodes"]:
            files.inside(stage, node, "capture of node", ".pcap")
        summary = json.loads(raw["summary_json"])
        series = _series(raw, summary)
        names = [f["name"] for f in summary["flows"]]
        on_disk: dict[str, list[str]] = {kind: [] for kind in ("queues", "drops") if kind in series}
        if "tcp" in series:
            on_disk["tcp"] = [n for n, e in zip(names, raw["tcp_series"], strict=True) if e]
        try:
            for kind, parts in series.items():
                _write_series(stage / f"series_{kind}.parquet", parts)
            for path in _spill_files(raw):
                os.unlink(path)
            cross = _cross_frame(raw, summary)
            if cross is not None:
                _to_parquet(cross, stage / "series_cross.parquet")
            cbr = _cbr_frame(raw, summary)
            if cbr is not None:
                _to_parquet(cbr, stage / "series_cbr.parquet")
            mptcp = _mptcp_frame(raw, summary)
            if mptcp is not None:
                _to_parquet(mptcp, stage / "series_mptcp.parquet")
            if plot:
                _plot_sequences(stage, raw["capture_nodes"], summary, on_disk)
            resolved = _native.resolve_scenario(label, text, overrides, seed)
            (stage / RESOLVED).write_text(resolved, encoding="utf-8")
            (stage / TIMING).write_text(json.dumps({"wall_s": wall}) + "\n", encoding="utf-8")
            (stage / SUMMARY).write_text(raw["summary_json"] + "\n", encoding="utf-8")
        except OSError as e:
            raise OutputError(f"{out}: cannot write the run's output: {e.strerror or e}") from None
    thr = _throughput(raw, summary)
    return RunResult(summary, None, None, thr, None, wall, out, on_disk=on_disk)


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
    on_disk: dict[str, list[str]],
) -> None:
    """Per capture, a time-sequence graph of the largest flow, with the first flow's RTO and,
    when it is the run's only flow, the simulator's drops (read from the series files just
    written in ``stage``)."""
    import pandas as pd

    from . import capture, plots

    handovers = [h["at_s"] for h in summary["handovers"]]
    steps = mipv6_steps(summary)
    rto = None
    if summary["flows"] and summary["flows"][0]["name"] in on_disk.get("tcp", []):
        first = summary["flows"][0]["name"]
        tcp = pd.read_parquet(
            stage / "series_tcp.parquet", columns=["t_s", "rto_s"], filters=[("flow", "==", first)]
        )
        rto = tcp.reset_index(drop=True)
    # The simulator's drops, when the graph's flow is the run's only one.
    sim = None
    if "drops" in on_disk and len(summary["flows"]) == 1:
        drops = pd.read_parquet(stage / "series_drops.parquet", columns=["t_s", "seq", "len"])
        sim = drops.assign(source="simulator")
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
