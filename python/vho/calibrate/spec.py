"""Calibration files: what a fit may move (open values), what it aims at (targets), and how.

A calibration file (TOML)::

    [calibration]
    scenario = "../examples/dk-fig1-wlan-gprs.toml"   # relative to this file (or study = "naoe")
    trials = 24              # optimiser trials, the defaults' included
    refine = 8               # then trials on a box around the best (optional, default 0)
    replications = 4         # runs per trial (seeds from the calibration's seed, the same
    seed = 1                 #   replication seeds at every trial: common random numbers)
    confirm = 8              # runs of the defaults and the best again (default: replications)
    measure = "summary"      # or "capture:<node>": the metrics `vho analyze` reads there
    ta_mean = "after-handover"   # with a capture: `vho analyze --ta-mean` (optional)

    [set]                    # overrides of every run, as a sweep's
    "flow.0.size" = "200 KB"

    [[open]]                 # one value the fit may move
    name = "access.gprs.delay"   # a --set key path
    also = ["..."]               # more keys set to the same value (optional)
    type = "duration"            # int, float, categorical, duration, rate, size or packets
    default = "300 ms"
    low = "100 ms"
    high = "600 ms"
    log = false                  # sample on a log scale (optional)
    reason = "Daniel & Kojo §3: GPRS one-way delay 300 ms; ..."   # the source bounding it
    cases = ["downward"]         # with a study: set only at these cases' points, or at one
                                 #   variant's ("high-low-tfrc/ehn-a") (optional: every point)

    [[target]]
    name = "transfer time"
    metric = "transfer_time_s"   # a key of the runs' rows (summary metrics; capture metrics)
    value = 4.2
    se = 0.1                     # its standard error (> 0)
    fit = true                   # false: held out, predicted and judged, never fitted

A categorical open value lists ``choices = [...]`` instead of low/high. Everything is checked
before anything runs; a mistake is one :class:`CalibrationError` naming file, line and field.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import files
from ..errors import VhoError
from ..sweep import units
from ..sweep.spec import toml_literal


class CalibrationError(VhoError):
    """A calibration file that cannot be run."""


#: Open value types: (base unit of a quantity, how its number is written back).
QUANTITY_TYPES = {"duration": "s", "rate": "b/s", "size": "B", "packets": "packets"}
TYPES = ("int", "float", "categorical", *QUANTITY_TYPES)

#: How the runs are measured: their summary (`vho run`'s metrics), or a capture read by
#: `vho analyze` (``capture:<node>``: the metrics a real capture gives, like for like).
SUMMARY = "summary"
#: `vho analyze --ta-mean`'s choices.
TA_MEANS = ("whole-connection", "after-handover")


@dataclass(frozen=True)
class OpenValue:
    """One value a fit may move: a ``--set`` key (and keys set with it), its type, default,
    range (or choices) and the reason for the range."""

    name: str
    kind: str
    default: Any
    low: float = math.nan
    high: float = math.nan
    choices: tuple[Any, ...] = ()
    log: bool = False
    reason: str = ""
    also: tuple[str, ...] = ()
    line: int | None = None
    #: With a study: the cases ("downward") or case/variant pairs ("high-low-tfrc/ehn-a")
    #: whose points it is set at (empty: every point). A direction's own error ramp is one key
    #: each direction sets its own way.
    cases: tuple[str, ...] = ()

    def applies(self, case: str | None, variant: str | None) -> bool:
        """Whether it is set at a study's point of ``case`` and ``variant``."""
        return not self.cases or case in self.cases or f"{case}/{variant}" in self.cases

    def number(self, v: Any) -> Any:
        """A value as written (``"300 ms"``) as the optimiser's number (0.3); a choice as is."""
        if self.kind in QUANTITY_TYPES:
            q = units.quantity(v) if isinstance(v, str) else (float(v), QUANTITY_TYPES[self.kind])
            if q is None or q[1] != QUANTITY_TYPES[self.kind]:
                raise ValueError(v)
            return q[0]
        if self.kind == "int":
            return int(v)
        if self.kind == "float":
            return float(v)
        return v

    def literal(self, x: Any) -> str:
        """The optimiser's number as the TOML literal of a ``--set``."""
        if self.kind in QUANTITY_TYPES:
            unit = QUANTITY_TYPES[self.kind]
            if unit in ("B", "packets"):
                return json.dumps(f"{round(x)} {unit}")
            return json.dumps(f"{x:.9g} {unit}")
        if self.kind == "int":
            return str(int(x))
        return toml_literal(x)

    def overrides(self, x: Any) -> list[str]:
        lit = self.literal(x)
        return [f"{k}={lit}" for k in (self.name, *self.also)]

    def shown(self, x: Any) -> str:
        """A value as a person reads it: with its unit."""
        if self.kind in QUANTITY_TYPES:
            return json.loads(self.literal(x))
        if self.kind == "float":
            return f"{x:.6g}"
        return str(x)


@dataclass(frozen=True)
class Target:
    """A number the simulation should give: a metric of the runs, its value and standard error,
    and whether the fit sees it (``fit``) or only predicts it (held out)."""

    name: str
    metric: str
    value: float
    se: float
    fit: bool = True
    line: int | None = None
    #: Where the number comes from (a study's paper number: its source and words).
    source: str = ""


@dataclass
class Calibration:
    """A resolved calibration file."""

    path: str
    source: str
    #: The scenario's label and text, or the study's name (study mode: ``scenario_text`` "").
    scenario: str
    scenario_text: str
    fixed: list[str]
    open: list[OpenValue]
    targets: list[Target]
    trials: int
    replications: int
    seed: int
    measure: str = SUMMARY
    #: Replications of the confirmation runs (the defaults and the best point, fresh draws).
    confirm: int = 0
    #: Trials after ``trials`` on a box around the best so far (:func:`.fit.narrowed`).
    refine: int = 0
    #: With a capture measure: `vho analyze --ta-mean` (None: its default).
    ta_mean: str | None = None
    study: str | None = None
    #: A study's cases the fit runs (empty: the scenario's one point).
    cases: list[str] = field(default_factory=list)

    @property
    def fit_targets(self) -> list[Target]:
        return [t for t in self.targets if t.fit]

    @property
    def held_out(self) -> list[Target]:
        return [t for t in self.targets if not t.fit]

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.number(o.default) for o in self.open}

    def overrides(
        self, params: dict[str, Any], case: str | None = None, variant: str | None = None
    ) -> list[str]:
        """The open values' overrides (at a study's point: those that apply there)."""
        out: list[str] = []
        for o in self.open:
            if case is None or o.applies(case, variant):
                out += o.overrides(params[o.name])
        return out

    def digest(self) -> str:
        """Identifies what the trials run: a resumed calibration must match."""
        body = json.dumps(
            [
                self.scenario,
                self.scenario_text,
                self.fixed,
                [repr(o) for o in self.open],
                self.trials,
                self.refine,
                self.replications,
                self.confirm,
                self.seed,
                self.measure,
                self.ta_mean,
                self.study,
                self.cases,
                [(t.name, t.metric, t.value, t.se, t.fit) for t in self.targets],
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()


class _Where:
    """Line numbers in a calibration file (tomllib gives none)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def block(self, header: str, index: int) -> int | None:
        pat = re.compile(r"^\s*\[\[\s*" + re.escape(header) + r"\s*\]\]")
        starts = [i for i, line in enumerate(self.lines) if pat.match(line)]
        return starts[index] + 1 if index < len(starts) else None

    def table(self, header: str) -> int | None:
        pat = re.compile(r"^\s*\[\s*" + re.escape(header) + r"\s*\]")
        return next((i + 1 for i, line in enumerate(self.lines) if pat.match(line)), None)

    def key(self, start: int | None, k: str) -> int | None:
        """The line of ``k =`` in the block starting at ``start`` (its header's line)."""
        if start is None:
            return None
        pat = re.compile(r"^\s*\"?" + re.escape(k) + r"\"?\s*=")
        for j in range(start, len(self.lines)):
            line = self.lines[j]
            if re.match(r"^\s*\[", line):
                break
            if pat.match(line):
                return j + 1
        return start

    def error(self, line: int | None, field_: str, expected: str, found: Any = None) -> Exception:
        at = f"{self.path}:{line}" if line else self.path
        tail = f", found {found!r}" if found is not None else ""
        return CalibrationError(f"{at}: {field_}: expected {expected}{tail}")


def load(path: str | Path) -> Calibration:
    """Reads and checks a calibration file; nothing runs and nothing is written."""
    path = Path(path)
    source = files.read_text(path, "calibration file", CalibrationError)
    return parse(source, str(path), base_dir=path.parent)


def _num(where: _Where, line: int | None, field_: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise where.error(line, field_, "a finite number", v)
    return float(v)


def _int(where: _Where, line: int | None, field_: str, v: Any, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise where.error(line, field_, f"an integer >= {lo}", v)
    return v


def _open_value(where: _Where, i: int, raw: Any) -> OpenValue:
    start = where.block("open", i)
    fname = f"open {i + 1}"
    if not isinstance(raw, dict):
        raise where.error(start, fname, "a table")
    allowed = {
        "name", "also", "type", "default", "low", "high", "choices", "log", "reason", "cases",
    }  # fmt: skip
    bad = set(raw) - allowed
    if bad:
        raise where.error(start, fname, "only " + ", ".join(sorted(allowed)), sorted(bad))

    def at(k: str) -> int | None:
        return where.key(start, k)

    name = raw.get("name")
    key_re = r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*"
    if not isinstance(name, str) or not re.fullmatch(key_re, name):
        raise where.error(
            at("name"), f"{fname} name", "a --set key path such as link.1.delay", name
        )
    fname = f"open {name}"
    also = raw.get("also", [])
    if not isinstance(also, list) or not all(
        isinstance(a, str) and re.fullmatch(key_re, a) for a in also
    ):
        raise where.error(at("also"), f"{fname} also", "a list of --set key paths", also)
    cases = raw.get("cases", [])
    if (
        not isinstance(cases, list)
        or (not cases and "cases" in raw)
        or not all(
            isinstance(c, str) and re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)?", c)
            for c in cases
        )
    ):
        raise where.error(
            at("cases"), f"{fname} cases", 'a list of a study\'s cases ("downward") or '
            'case/variant pairs ("high-low-tfrc/ehn-a")', cases,
        )  # fmt: skip
    kind = raw.get("type")
    if kind not in TYPES:
        raise where.error(at("type"), f"{fname} type", " or ".join(TYPES), kind)
    reason = raw.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise where.error(
            at("reason"), f"{fname} reason", "the source that bounds the range (a string)", reason
        )
    log = raw.get("log", False)
    if not isinstance(log, bool):
        raise where.error(at("log"), f"{fname} log", "true or false", log)
    if "default" not in raw:
        raise where.error(start, f"{fname} default", "a default value")
    if kind == "categorical":
        choices = raw.get("choices")
        if "low" in raw or "high" in raw:
            raise where.error(start, fname, "choices (not low/high) for a categorical value")
        if not isinstance(choices, list) or len(choices) < 2:
            raise where.error(at("choices"), f"{fname} choices", "a list of 2 or more values")
        if not all(isinstance(c, str | int | float | bool) for c in choices):
            raise where.error(at("choices"), f"{fname} choices", "strings, numbers or booleans")
        if raw["default"] not in choices:
            raise where.error(
                at("default"), f"{fname} default", f"one of the choices {choices}", raw["default"]
            )
        return OpenValue(
            name, kind, raw["default"], choices=tuple(choices), reason=reason.strip(),
            also=tuple(also), line=start, cases=tuple(cases),
        )  # fmt: skip
    if "choices" in raw:
        raise where.error(at("choices"), fname, "low and high (choices only when categorical)")
    probe = OpenValue(name, kind, None)
    nums = {}
    for k in ("default", "low", "high"):
        if k not in raw:
            raise where.error(start, f"{fname} {k}", f"a {kind} value")
        v = raw[k]
        try:
            if kind in QUANTITY_TYPES and not isinstance(v, str):
                raise ValueError(v)
            if kind == "int" and (isinstance(v, bool) or not isinstance(v, int)):
                raise ValueError(v)
            if kind == "float" and (isinstance(v, bool) or not isinstance(v, int | float)):
                raise ValueError(v)
            nums[k] = probe.number(v)
        except (ValueError, TypeError):
            what = {
                "int": "an integer",
                "float": "a number",
                "duration": 'a duration such as "300 ms"',
                "rate": 'a rate such as "200 kb/s"',
                "size": 'a size such as "64 KB"',
                "packets": 'a count such as "50 packets"',
            }[kind]
            raise where.error(at(k), f"{fname} {k}", what, v) from None
        if not math.isfinite(nums[k]):
            raise where.error(at(k), f"{fname} {k}", "a finite value", v)
    lo, hi, d = nums["low"], nums["high"], nums["default"]
    if not lo < hi:
        raise where.error(
            at("high"), f"{fname} range", f"low < high (low {raw['low']!r})", raw["high"]
        )
    if not lo <= d <= hi:
        raise where.error(
            at("default"), f"{fname} default", f"within [{raw['low']}, {raw['high']}]",
            raw["default"],
        )  # fmt: skip
    if log and lo <= 0:
        raise where.error(at("low"), f"{fname} low", "a value > 0 on a log scale", raw["low"])
    return OpenValue(
        name, kind, raw["default"], lo, hi, log=log, reason=reason.strip(), also=tuple(also),
        line=start, cases=tuple(cases),
    )  # fmt: skip


def _target(where: _Where, i: int, raw: Any, study: bool) -> dict[str, Any]:
    start = where.block("target", i)
    fname = f"target {i + 1}"
    if not isinstance(raw, dict):
        raise where.error(start, fname, "a table")
    allowed = {"name", "metric", "value", "se", "fit"}
    bad = set(raw) - allowed
    if bad:
        raise where.error(start, fname, "only " + ", ".join(sorted(allowed)), sorted(bad))

    def at(k: str) -> int | None:
        return where.key(start, k)

    metric = raw.get("metric")
    if not isinstance(metric, str) or not metric:
        raise where.error(at("metric"), f"{fname} metric", "a metric name", metric)
    name = raw.get("name", metric)
    if not isinstance(name, str) or not name:
        raise where.error(at("name"), f"{fname} name", "a string", name)
    fname = f"target {name}"
    out: dict[str, Any] = {"name": name, "metric": metric, "line": start}
    for k in ("value", "se"):
        if k in raw:
            out[k] = _num(where, at(k), f"{fname} {k}", raw[k])
        elif not study:  # a study's paper number gives both
            raise where.error(start, f"{fname} {k}", "a number")
    if "se" in out and not out["se"] > 0:
        raise where.error(at("se"), f"{fname} se", "a standard error > 0", raw["se"])
    fit = raw.get("fit", True)
    if not isinstance(fit, bool):
        raise where.error(at("fit"), f"{fname} fit", "true or false", fit)
    out["fit"] = fit
    out["metric_line"] = at("metric")
    return out


def parse(source: str, label: str = "<calibration>", base_dir: Path | None = None) -> Calibration:
    """Parses and checks calibration-file text (see the module doc)."""
    from . import checks

    where = _Where(label, source)
    try:
        doc = tomllib.loads(source)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column \d+\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise CalibrationError(f"{label}:{m.group(1) if m else '?'}: {msg}") from None
    except RecursionError:
        raise CalibrationError(f"{label}: arrays or inline tables nested too deep") from None
    unknown = set(doc) - {"calibration", "set", "open", "target"}
    if unknown:
        raise where.error(
            None, "top level", "only [calibration], [set], [[open]] and [[target]]", sorted(unknown)
        )
    head = doc.get("calibration")
    hl = where.table("calibration")
    if not isinstance(head, dict):
        raise where.error(None, "[calibration]", "a [calibration] table with scenario or study")
    allowed = {
        "scenario", "study", "cases", "trials", "refine", "replications", "confirm", "seed",
        "measure", "ta_mean",
    }  # fmt: skip
    bad = set(head) - allowed
    if bad:
        raise where.error(hl, "[calibration]", "only " + ", ".join(sorted(allowed)), sorted(bad))

    def hline(k: str) -> int | None:
        return where.key(hl, k)

    trials = _int(where, hline("trials"), "calibration.trials", head.get("trials", 20), 1)
    refine = _int(where, hline("refine"), "calibration.refine", head.get("refine", 0), 0)
    reps = _int(where, hline("replications"), "calibration.replications",
                head.get("replications", 4), 2)  # fmt: skip
    confirm = _int(where, hline("confirm"), "calibration.confirm", head.get("confirm", reps), 2)
    seed = head.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise where.error(hline("seed"), "calibration.seed", "an integer in [0, 2^63)", seed)
    measure = head.get("measure", SUMMARY)
    if not isinstance(measure, str) or not (
        measure == SUMMARY or re.fullmatch(r"capture:[A-Za-z0-9_-]+", measure)
    ):
        raise where.error(
            hline("measure"), "calibration.measure", '"summary" or "capture:<node>"', measure
        )
    ta_mean = head.get("ta_mean")
    if ta_mean is not None and (measure == SUMMARY or ta_mean not in TA_MEANS):
        raise where.error(
            hline("ta_mean"), "calibration.ta_mean",
            " or ".join(TA_MEANS) + ' with measure = "capture:<node>"', ta_mean,
        )  # fmt: skip
    study = head.get("study")
    scen = head.get("scenario")
    if (study is None) == (scen is None):
        raise where.error(hl, "[calibration]", "exactly one of scenario or study")
    cases: list[str] = []
    if study is not None:
        from ..reproduce import STUDIES

        if study not in STUDIES:
            raise where.error(
                hline("study"), "calibration.study", "one of " + ", ".join(STUDIES), study
            )
        if measure != SUMMARY:
            raise where.error(
                hline("measure"), "calibration.measure", "none with a study (its own measures)"
            )
        cases = head.get("cases", [])
        if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
            raise where.error(hline("cases"), "calibration.cases", "a list of case names", cases)
        label_s, text = study, ""
        fixed: list[str] = []
    else:
        if not isinstance(scen, str) or not scen:
            raise where.error(
                hline("scenario"), "calibration.scenario", "a path to a scenario", scen
            )
        if "cases" in head:
            raise where.error(hline("cases"), "calibration.cases", "cases only with a study")
        spath = Path(scen)
        if not spath.is_absolute() and base_dir is not None:
            spath = Path(os.path.normpath(base_dir / spath))
        try:
            text = files.read_text(spath, "scenario file", CalibrationError)
        except CalibrationError as e:
            raise where.error(
                hline("scenario"), "calibration.scenario", "a readable scenario file", str(e)
            ) from None
        from ..runner import identity

        label_s = str(spath)
        fixed = identity(spath, text)
    fixed_t = doc.get("set", {})
    if not isinstance(fixed_t, dict):
        raise where.error(None, "set", "a table of key = value")
    from ..sweep.spec import _flatten

    set_line = where.table("set")
    for k, v in _flatten(fixed_t):
        fixed.append(f"{k}={toml_literal(v)}")
    opens_raw = doc.get("open", [])
    if not isinstance(opens_raw, list) or not opens_raw:
        raise where.error(None, "[[open]]", "at least one [[open]] value for the fit to move")
    opens = [_open_value(where, i, o) for i, o in enumerate(opens_raw)]
    names = [o.name for o in opens]
    for o in opens:
        if names.count(o.name) > 1:
            raise where.error(o.line, f"open {o.name}", "each open value once")
    targets_raw = doc.get("target", [])
    if not isinstance(targets_raw, list) or not targets_raw:
        raise where.error(None, "[[target]]", "at least one [[target]]")
    traw = [_target(where, i, t, study is not None) for i, t in enumerate(targets_raw)]
    tnames = [t["name"] for t in traw]
    for t in traw:
        if tnames.count(t["name"]) > 1:
            raise where.error(t["line"], f"target {t['name']}", "each target name once")
    if not any(t["fit"] for t in traw):
        raise where.error(
            where.block("target", 0), "[[target]]", "at least one target with fit = true"
        )
    if study is not None:
        targets = checks.study_targets(where, study, traw)
        checks.check_cases(where, hline("cases"), study, cases)
        spath = checks.study_path(study)
        text_s = spath.read_text(encoding="utf-8")
        scoped = checks.check_open_cases(where, study, opens)
        checks.check_scenario(where, str(spath), text_s, fixed, set_line, opens, scoped)
    else:
        for o in opens:
            if o.cases:
                raise where.error(
                    where.key(o.line, "cases"), f"open {o.name} cases", "cases only with a study"
                )
        targets = [
            Target(t["name"], t["metric"], t["value"], t["se"], t["fit"], t["line"]) for t in traw
        ]
        checks.check_metrics(where, traw, measure)
        checks.check_scenario(where, label_s, text, fixed, set_line, opens)
    return Calibration(
        path=label,
        source=source,
        scenario=label_s,
        scenario_text=text,
        fixed=fixed,
        open=opens,
        targets=targets,
        trials=trials,
        refine=refine,
        replications=reps,
        confirm=confirm,
        seed=seed,
        measure=measure,
        ta_mean=ta_mean,
        study=study,
        cases=cases,
    )
