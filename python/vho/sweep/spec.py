"""Sweep files: a base scenario, fixed overrides, axes, replications and a seed policy.

A sweep file (TOML)::

    [sweep]
    scenario = "../scenarios/examples/dk-fig1-wlan-gprs.toml"  # relative to this file
    replications = 8
    seed = 1                 # base of the seed policy
    seeds = "per-point"      # or "common": replication r has one seed at every point

    [set]                    # overrides applied to every run
    "flow.0.size" = "2 MB"

    [[axis]]                 # explicit values
    key = "handover.0.at"
    values = ["0.5 s", "1 s"]

    [[axis]]                 # a range, both ends included, with an optional unit
    key = "flow.0.size"
    range = { from = 100, to = 500, step = 100, unit = "KB" }

    [[axis]]                 # zipped: the i-th values of every key go together
    zip = { "handover.0.kind" = ["soft-reconfigure", "hard"], "handover.0.delay" = ["0 s", "1 s"] }

Axes combine as a cartesian product, in file order. Every (point, replication) gets its own
seed, a hash of the base seed, the point's overrides and the replication number: the seed
does not depend on the order in which runs are made nor on the worker that makes them.

Everything is checked before anything runs; a mistake is one :class:`SweepError` naming the
file, line and field.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _native, files
from ..errors import ScenarioError, SweepError
from ..runner import identity
from . import units

#: Overrides every sweep run gets: a sweep keeps summaries only, so recording is switched off
#: (a pcap per run of a 5 000-run sweep is not what anyone wants; `vho run` one point instead).
NO_RECORDING = ("record.series=false", "record.pcap=[]")


@dataclass(frozen=True)
class Task:
    """One run: a replication of a point, with its seed."""

    task: int
    point: int
    replication: int
    seed: int


@dataclass(frozen=True)
class Measure:
    """How a point's runs are measured, when their summary is not enough (a study that reads
    captures or series): each run records with ``record`` (instead of :data:`NO_RECORDING`)
    into a scratch directory, in the worker, and ``function`` (``"package.module:name"``,
    importable wherever the sweep runs: a local worker or a Dask worker) is called as
    ``function(run_dir, result, params)`` with the run's `vho run` output directory, its
    :class:`vho.RunResult` and ``params``; it returns a dict of numbers (and may write small
    files of its own into ``run_dir``). The row holds them as JSON in ``measured``. The first
    ``keep`` replications' directories (every one with ``keep = -1``) are kept under the
    sweep's directory as ``<keep_dir>/rep-<r>/``; the others are deleted once measured."""

    function: str
    record: tuple[str, ...] = ()
    params: tuple[tuple[str, Any], ...] = ()
    keep: int = 0
    keep_dir: str = ""

    def keeps(self, replication: int) -> bool:
        return self.keep < 0 or replication < self.keep


#: Seed policies: a hash of the point and replication (``per-point``), of the replication
#: alone (``common``: common random numbers), or the base seed plus the replication
#: (``sequential``: common random numbers too, replication r running seed ``seed + r`` as
#: `vho run --seed` would).
SEED_POLICIES = ("per-point", "common", "sequential")


@dataclass
class Sweep:
    """A resolved sweep: the base scenario, and every point as overrides and axis values."""

    label: str
    text: str
    fixed: list[str]
    #: Axis columns in order (a zipped axis contributes one column per key).
    columns: list[str]
    #: Per point, the value of every column.
    points: list[dict[str, Any]]
    replications: int
    seed: int
    seeds: str = "per-point"
    #: Runs per batch sent to a worker; None chooses from the sweep's size.
    batch: int | None = None
    name: str = "sweep"
    source: str = field(default="", repr=False)
    #: Columns of ``points`` that label a row and set nothing (a study's case and variant).
    labels: list[str] = field(default_factory=list)
    #: Per point, overrides as ``key=value`` text, after the axis values (None: none).
    extra: list[tuple[str, ...]] | None = None
    #: Per point, its scenario text when it is not ``text`` (None: ``text``).
    texts: list[str | None] | None = None
    #: Per point, its number of replications (None: ``replications`` each).
    point_replications: list[int] | None = None
    #: Per point, how its runs are measured (None: from the summary, recording off).
    measures: list[Measure | None] | None = None
    #: Per point and replication, overrides the replication draws (a study's: values its
    #: scenario cannot draw from the seed, such as a flow's start), after all others; the row
    #: holds them in ``draws`` (None: none).
    draws: list[list[tuple[str, ...]]] | None = None

    def overrides(self, point: int) -> list[str]:
        """The ``--set`` overrides of a point (fixed ones first, then what it records)."""
        m = self.measure(point)
        return [
            *self.fixed,
            *(NO_RECORDING if m is None else m.record),
            *(
                f"{k}={toml_literal(v)}"
                for k, v in self.points[point].items()
                if k not in self.labels
            ),
            *(self.extra[point] if self.extra is not None else ()),
        ]

    def drawn(self, point: int, replication: int) -> tuple[str, ...]:
        """The overrides replication ``replication`` of ``point`` draws (see ``draws``)."""
        return self.draws[point][replication] if self.draws is not None else ()

    def measure(self, point: int) -> Measure | None:
        return self.measures[point] if self.measures is not None else None

    def text_of(self, point: int) -> str:
        t = self.texts[point] if self.texts is not None else None
        return self.text if t is None else t

    def replications_of(self, point: int) -> int:
        if self.point_replications is not None:
            return self.point_replications[point]
        return self.replications

    @property
    def n_runs(self) -> int:
        """Runs in all: every point's replications."""
        return sum(self.replications_of(p) for p in range(len(self.points)))

    @functools.cached_property
    def axis_units(self) -> dict[str, str]:
        """Per axis column whose every value carries a unit of one kind, its base unit
        (``{"handover.0.at": "s"}``): the row holds the value in that unit as ``<axis>_si``."""
        found = {c: units.axis_unit([p[c] for p in self.points]) for c in self.columns}
        return {c: u for c, u in found.items() if u is not None}

    def row_columns(self) -> list[str]:
        """The axis columns of a result row: the labels, then each ``<axis>_si``."""
        return [
            *self.labels,
            *self.columns,
            *(f"{c}{units.SI_SUFFIX}" for c in self.axis_units),
        ]

    def row_values(self, point: int) -> tuple[Any, ...]:
        """A point's values for :meth:`row_columns`. A list or table value (``flow.0.remedies
        = ["frto"]``) is stored as its TOML literal: one column type whatever the point (an
        empty list has no element type for Parquet)."""
        p = self.points[point]
        si = (units.quantity(p[c]) for c in self.axis_units)
        shown = (
            toml_literal(p[c]) if isinstance(p[c], list | dict) else p[c] for c in self.columns
        )
        return (*(p[c] for c in self.labels), *shown, *(q[0] for q in si if q is not None))

    def point_key(self, point: int) -> str:
        keys = [f"{k}={toml_literal(v)}" for k, v in self.points[point].items()]
        return "\n".join(sorted([*keys, *(self.extra[point] if self.extra is not None else ())]))

    def seed_of(self, point: int, replication: int) -> int:
        """The seed of a (point, replication): a 63-bit BLAKE2b of the base seed, the point's
        overrides (sorted) and the replication; with ``seeds = "common"`` the point is left
        out, so every point sees the same draws (common random numbers); with ``seeds =
        "sequential"`` it is ``seed + replication``."""
        if self.seeds == "sequential":
            return self.seed + replication
        key = "" if self.seeds == "common" else self.point_key(point)
        h = hashlib.blake2b(f"{self.seed}\0{key}\0{replication}".encode(), digest_size=8)
        # 63 bits: a seed fits the int64 column of every dataframe library.
        return int.from_bytes(h.digest(), "little") >> 1

    def tasks(self) -> list[Task]:
        out = []
        for p in range(len(self.points)):
            for r in range(self.replications_of(p)):
                out.append(Task(len(out), p, r, self.seed_of(p, r)))
        return out

    def digest(self) -> str:
        """Identifies the sweep's runs (scenario text, overrides, seeds): a resumed sweep must
        have the same."""
        body = json.dumps(
            [
                self.text,
                self.fixed,
                self.columns,
                self.points,
                self.replications,
                self.seed,
                self.seeds,
                # A study's additions, only when present (a sweep file's digest is as before).
                *(
                    [self.labels, self.extra, self.texts, self.point_replications]
                    if self.labels or self.extra or self.texts or self.point_replications
                    else []
                ),
                *([[repr(m) for m in self.measures]] if self.measures is not None else []),
                *([self.draws] if self.draws is not None else []),
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()


def toml_literal(v: Any) -> str:
    """A Python value (from TOML) written back as a TOML literal for ``--set``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_literal(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"not a TOML value: {v!r}")


class _Where:
    """Line numbers in a sweep file, for messages (tomllib gives none)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def _block(self, header: str, index: int = 0) -> tuple[int, int] | None:
        """Lines [start, end) of the index-th ``[[axis]]`` (header "axis") or of a ``[table]``
        (header "[table]")."""
        if header.startswith("["):
            pat = re.compile(r"^\s*\[\s*" + re.escape(header[1:-1]) + r"\s*\]")
        else:
            pat = re.compile(r"^\s*\[\[\s*" + re.escape(header) + r"\s*\]\]")
        starts = [i for i, line in enumerate(self.lines) if pat.match(line)]
        if index >= len(starts):
            return None
        s = starts[index]
        e = next(
            (j for j in range(s + 1, len(self.lines)) if re.match(r"^\s*\[", self.lines[j])),
            len(self.lines),
        )
        return s, e

    def line(self, header: str, index: int = 0, needle: str | None = None) -> int | None:
        b = self._block(header, index)
        if b is None:
            return None
        s, e = b
        if needle is not None:
            pat = re.compile(r"(^|[\s{,])\"?" + re.escape(needle) + r"\"?\s*=")
            for j in range(s, e):
                if pat.search(self.lines[j]):
                    return j + 1
            return None  # not in the block: the caller falls back (a shorter needle, the header)
        return s + 1

    def error(self, line: int | None, field_: str, expected: str, found: Any = None) -> SweepError:
        at = f"{self.path}:{line}" if line else self.path
        tail = f", found {found!r}" if found is not None else ""
        return SweepError(f"{at}: {field_}: expected {expected}{tail}")


def _range(where: _Where, line: int | None, key: str, r: Any) -> list[Any]:
    if not isinstance(r, dict):
        raise where.error(line, f"{key} range", "a table { from, to, step [, unit] }", r)
    unknown = set(r) - {"from", "to", "step", "unit"}
    if unknown:
        raise where.error(line, f"{key} range", "only from, to, step and unit", sorted(unknown))
    vals = {}
    for k in ("from", "to", "step"):
        v = r.get(k)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise where.error(line, f"{key} range.{k}", "a number", v)
        vals[k] = v
    start, stop, step = vals["from"], vals["to"], vals["step"]
    if step <= 0:
        raise where.error(line, f"{key} range.step", "a positive number", step)
    if stop < start:
        raise where.error(line, f"{key} range", f"from <= to (an empty range), from {start}", stop)
    n = math.floor((stop - start) / step + 1e-9) + 1
    as_int = all(isinstance(x, int) for x in (start, stop, step))
    out: list[Any] = [start + i * step if as_int else round(start + i * step, 12) for i in range(n)]
    unit = r.get("unit")
    if unit is not None:
        if not isinstance(unit, str) or not unit.strip():
            raise where.error(line, f"{key} range.unit", 'a unit such as "s" or "KB"', unit)
        out = [f"{x:g} {unit.strip()}" for x in out]
    return out


def _key(where: _Where, line: int | None, field_: str, k: Any) -> str:
    if not isinstance(k, str) or not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*", k):
        raise where.error(line, field_, "a dotted scenario key such as handover.0.at", k)
    return k


def _values(where: _Where, line: int | None, key: str, v: Any) -> list[Any]:
    if not isinstance(v, list) or not v:
        raise where.error(line, f"{key} values", "a non-empty list", v)
    return v


def load(path: str | Path) -> Sweep:
    """Reads and checks a sweep file; nothing runs and nothing is written."""
    path = Path(path)
    source = files.read_text(path, "sweep file", SweepError)
    return parse(source, str(path), base_dir=path.parent)


def parse(source: str, label: str = "<sweep>", base_dir: Path | None = None) -> Sweep:
    """Parses and checks sweep-file text (see the module doc)."""
    where = _Where(label, source)
    try:
        doc = tomllib.loads(source)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column \d+\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise SweepError(f"{label}:{m.group(1) if m else '?'}: {msg}") from None
    except RecursionError:
        # tomllib recurses once per nested array or inline table.
        raise SweepError(f"{label}: arrays or inline tables nested too deep") from None
    unknown = set(doc) - {"sweep", "set", "axis"}
    if unknown:
        raise where.error(None, "top level", "only [sweep], [set] and [[axis]]", sorted(unknown))
    head = doc.get("sweep")
    if not isinstance(head, dict):
        raise where.error(None, "[sweep]", "a [sweep] table with at least scenario =")
    hl = where.line("[sweep]")

    def hline(k: str) -> int | None:
        return where.line("[sweep]", 0, k) or hl

    bad = set(head) - {"scenario", "replications", "seed", "seeds", "batch", "name"}
    if bad:
        raise where.error(
            hl, "[sweep]", "only scenario, replications, seed, seeds, batch, name", sorted(bad)
        )
    scen = head.get("scenario")
    if not isinstance(scen, str) or not scen:
        raise where.error(hline("scenario"), "sweep.scenario", "a path to a scenario file", scen)
    spath = Path(scen)
    if not spath.is_absolute() and base_dir is not None:
        spath = base_dir / spath
    try:
        text = files.read_text(spath, "scenario file", SweepError)
    except SweepError as e:
        raise where.error(
            hline("scenario"), "sweep.scenario", "a readable scenario file", str(e)
        ) from None
    # The scenario's name (and hash) from its file, not from how its path was typed.
    fixed = identity(spath, text)
    reps = head.get("replications", 1)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise where.error(hline("replications"), "sweep.replications", "an integer >= 1", reps)
    seed = head.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise where.error(hline("seed"), "sweep.seed", "an integer in [0, 2^64)", seed)
    seeds = head.get("seeds", "per-point")
    if seeds not in SEED_POLICIES:
        raise where.error(hline("seeds"), "sweep.seeds", " or ".join(SEED_POLICIES), seeds)
    batch = head.get("batch")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise where.error(hline("batch"), "sweep.batch", "an integer >= 1", batch)
    name = head.get("name", Path(label).stem)
    if not isinstance(name, str):
        raise where.error(hline("name"), "sweep.name", "a string", name)

    fixed_t = doc.get("set", {})
    if not isinstance(fixed_t, dict):
        raise where.error(None, "set", "a table of key = value")
    fixed_lines: dict[str, int | None] = {}
    for k, v in _flatten(fixed_t):
        ln = (
            where.line("[set]", 0, k)
            or where.line("[set]", 0, k.split(".")[-1])
            or where.line("[set]")
        )
        fixed.append(f"{_key(where, ln, f'set.{k}', k)}={toml_literal(v)}")
        fixed_lines[k] = ln

    axes_raw = doc.get("axis", [])
    if not isinstance(axes_raw, list):
        raise where.error(None, "axis", "[[axis]] tables")
    columns: list[str] = []
    # Per axis: its keys, its value combinations, and the lines of its key(s) and values.
    axes: list[tuple[list[str], list[tuple[Any, ...]], tuple[int, int]]] = []
    for i, ax in enumerate(axes_raw):
        al = where.line("axis", i)
        if not isinstance(ax, dict):
            raise where.error(al, f"axis {i + 1}", "a table")
        bad = set(ax) - {"key", "values", "range", "zip"}
        if bad:
            raise where.error(al, f"axis {i + 1}", "key with values or range, or zip", sorted(bad))
        if "zip" in ax:
            if "key" in ax or "values" in ax or "range" in ax:
                raise where.error(al, f"axis {i + 1}", "zip alone, without key/values/range")
            z = ax["zip"]
            zl = where.line("axis", i, "zip") or al
            if not isinstance(z, dict) or not z:
                raise where.error(zl, f"axis {i + 1} zip", "a table of key = [values]", z)
            keys, lists = [], []
            for k, v in z.items():
                keys.append(_key(where, zl, f"axis {i + 1} zip key", k))
                lists.append(_values(where, zl, k, v))
            lens = {len(x) for x in lists}
            if len(lens) != 1:
                sizes = ", ".join(f"{k} has {len(x)}" for k, x in zip(keys, lists, strict=True))
                raise where.error(zl, f"axis {i + 1} zip", "lists of equal length", sizes)
            combos = list(zip(*lists, strict=True))
            key_line = value_line = zl
        else:
            key_line = where.line("axis", i, "key") or al
            k = _key(where, key_line, f"axis {i + 1} key", ax.get("key"))
            if ("values" in ax) == ("range" in ax):
                raise where.error(al, f"axis {i + 1} ({k})", "exactly one of values or range")
            if "values" in ax:
                value_line = where.line("axis", i, "values") or al
                vals = _values(where, value_line, k, ax["values"])
            else:
                value_line = where.line("axis", i, "range") or al
                vals = _range(where, value_line, k, ax["range"])
            keys, combos = [k], [(v,) for v in vals]
        for k in keys:
            if k in columns or k in fixed_lines:
                raise where.error(
                    key_line, f"axis {i + 1} key", "a key no other axis or [set] has", k
                )
            columns.append(k)
        axes.append((keys, combos, (key_line, value_line)))

    points = [
        {
            k: v
            for (keys, _, _), combo in zip(axes, choice, strict=True)
            for k, v in zip(keys, combo, strict=True)
        }
        for choice in itertools.product(*(c for _, c, _ in axes))
    ]
    sweep = Sweep(
        label=str(spath),
        text=text,
        fixed=fixed,
        columns=columns,
        points=points,
        replications=reps,
        seed=seed,
        seeds=seeds,
        batch=batch,
        name=name,
        source=source,
    )
    _check(sweep, where, axes, fixed_lines)
    return sweep


def _flatten(t: dict, prefix: str = "") -> list[tuple[str, Any]]:
    """``[set]`` as dotted keys: ``handover.0.at = "1 s"`` and ``"handover.0.at" = "1 s"`` are
    the same override. (An inline-table value is set key by key.)"""
    out: list[tuple[str, Any]] = []
    for k, v in t.items():
        if isinstance(v, dict):
            out.extend(_flatten(v, f"{prefix}{k}."))
        else:
            out.append((f"{prefix}{k}", v))
    return out


def _check(
    sweep: Sweep,
    where: _Where,
    axes: list[tuple[list[str], list[tuple[Any, ...]], tuple[int, int]]],
    fixed_lines: dict[str, int | None],
) -> None:
    """Validates the base scenario with the fixed overrides, then every value of every axis
    (the other axes at their first value), through the simulator's own scenario checks."""
    base = [*sweep.fixed, *NO_RECORDING]
    try:
        _native.check_scenario(sweep.label, sweep.text, base)
    except ScenarioError as e:
        msg = str(e)
        m = re.match(r"--set ([^=]+)=", msg)
        line = fixed_lines.get(m.group(1)) if m else None
        raise SweepError(f"{where.path}:{line or '?'}: [set]: {msg}") from None
    first = {k: c[0][j] for keys, c, _ in axes for j, k in enumerate(keys)}
    for keys, combos, (key_line, value_line) in axes:
        for combo in combos:
            point = dict(first)
            point.update(zip(keys, combo, strict=True))
            ovr = [*base, *(f"{k}={toml_literal(v)}" for k, v in point.items())]
            try:
                _native.check_scenario(sweep.label, sweep.text, ovr)
            except ScenarioError as e:
                shown = ", ".join(
                    f"{k} = {toml_literal(v)}" for k, v in zip(keys, combo, strict=True)
                )
                line = key_line if "unknown field" in str(e) else value_line
                raise SweepError(f"{where.path}:{line}: axis {shown}: {e}") from None
