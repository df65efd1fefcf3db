"""The checks of a calibration file against what it names: the scenario and its keys (by the
simulator's own checks), the runs' metrics, a study's paper numbers and cases. Each failure is
one :class:`~vho.calibrate.spec.CalibrationError` naming file, line and field."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from ..sweep.spec import NO_RECORDING
from .spec import SUMMARY, CalibrationError, OpenValue, Target, _Where


def study_targets(where: _Where, study: str, traw: list[dict[str, Any]]) -> list[Target]:
    """A study's targets are its paper numbers (``metric`` = the number's key): value and
    standard error from the paper (a mean: σ / √n; a number without spread: the half-width of
    the interval it stands for, over 1.96; at least the printed number's rounding), unless the
    file gives them."""
    from ..reproduce import STUDIES

    numbers = {n.key: n for n in STUDIES[study].paper}
    out = []
    for t in traw:
        n = numbers.get(t["metric"])
        fitted = [k for k, x in numbers.items() if x.kind in ("mean", "value")]
        if n is None or n.kind not in ("mean", "value") or n.unmeasurable:
            raise where.error(
                t["metric_line"], f"target {t['name']} metric",
                f"a paper number of {study} given as a mean or value, such as {fitted[0]}",
                t["metric"],
            )  # fmt: skip
        if n.kind == "mean":
            se = n.sd / math.sqrt(n.n) if n.n and n.sd > 0 else 0.0
        else:
            lo, hi = n.interval()
            half = (hi - lo) / 2 if math.isfinite(hi - lo) and hi > lo else abs(n.value) * 0.1
            se = half / 1.96
        # At least the rounding of the printed number (uniform over its last digit: an integer
        # ±0.5, sd 0.5 / √3): a σ printed as 0 is not an exact 0.
        se = max(se, 0.5 / math.sqrt(3) * (1.0 if float(n.value).is_integer() else 0.1))
        out.append(
            Target(
                t["name"], t["metric"], t.get("value", n.value), t.get("se", se), t["fit"],
                t["line"], source=f"{n.source}: {n.what}",
            )
        )  # fmt: skip
    return out


def study_path(study: str) -> Path:
    """A study's scenario file (the one its design overrides)."""
    from ..reproduce import STUDIES
    from ..reproduce.study import Options

    return STUDIES[study].design(Options(quick=True)).path


def check_cases(where: _Where, line: int | None, study: str, cases: list[str]) -> None:
    from ..reproduce import STUDIES
    from ..reproduce.study import Options

    known = sorted({p.case for p in STUDIES[study].design(Options(quick=True)).points})
    for c in cases:
        if c not in known:
            raise where.error(line, "calibration.cases", "cases of " + ", ".join(known), c)


def check_open_cases(where: _Where, study: str, opens: list[OpenValue]) -> dict[str, list[str]]:
    """Each open value's ``cases`` name the study's cases or case/variant pairs; returns, per
    scoped open value, the overrides of the first point it applies to (its check's base: a
    key such as handover.0.notify_delay needs the point's notify)."""
    from ..reproduce import STUDIES
    from ..reproduce.study import Options

    points = [p for p in STUDIES[study].design(Options(quick=True)).points if p.role == "study"]
    known = sorted({p.case for p in points} | {f"{p.case}/{p.variant}" for p in points})
    out = {}
    for o in opens:
        for c in o.cases:
            if c not in known:
                raise where.error(
                    where.key(o.line, "cases"), f"open {o.name} cases",
                    "cases or case/variant pairs of " + ", ".join(known), c,
                )  # fmt: skip
        if o.cases:
            first = next(p for p in points if o.applies(p.case, p.variant))
            out[o.name] = list(first.overrides)
    return out


def known_metric(metric: str, measure: str) -> bool:
    """Whether ``metric`` names a column the runs' rows have: a summary metric of a sweep row
    (:func:`vho.sweep.flatten_summary`), or with ``capture:<node>`` a key of `vho analyze`'s
    ``metrics.json`` ``flows[]`` entry (nested keys with dots: ``rtt.min_s``)."""
    from .. import outputs

    flow_keys = {
        p.split(".", 1)[1]
        for p, _ in outputs.SUMMARY
        if p.startswith("flows[].") and "." not in p.split(".", 1)[1]
    }
    if outputs.sweep_column_pattern(metric, [], flow_keys) not in (None, "AXIS"):
        return True
    return measure != SUMMARY and any(p == f"flows[].{metric}" for p, _ in outputs.METRICS)


def check_metrics(where: _Where, traw: list[dict[str, Any]], measure: str) -> None:
    for t in traw:
        if not known_metric(t["metric"], measure):
            what = (
                "a run's metric (a key of summary.json's flows[] such as transfer_time_s, "
                "handover.0.interruption_s; docs/output-reference.md)"
                if measure == SUMMARY
                else "a key of vho analyze's metrics.json flows[] (goodput_bps, rtt.min_s) or a "
                "run's metric"
            )
            raise where.error(t["metric_line"], f"target {t['name']} metric", what, t["metric"])


def check_scenario(
    where: _Where,
    label: str,
    text: str,
    fixed: list[str],
    set_line: int | None,
    opens: list[OpenValue],
    scoped: dict[str, list[str]] | None = None,
) -> None:
    """The scenario with [set], then each open value at its default and both ends (each
    choice), through the simulator's own checks (a value set at some of a study's points: on
    the overrides of the first, ``scoped``)."""
    from .. import _native

    base = [*fixed, *NO_RECORDING]
    try:
        _native.check_scenario(label, text, base)
    except ScenarioError as e:
        raise CalibrationError(f"{where.path}:{set_line or '?'}: [set]: {e}") from None
    for o in opens:
        values = (
            list(o.choices) if o.kind == "categorical" else [o.number(o.default), o.low, o.high]
        )
        for v in values:
            try:
                point = (scoped or {}).get(o.name, [])
                _native.check_scenario(label, text, [*base, *point, *o.overrides(v)])
            except ScenarioError as e:
                raise CalibrationError(
                    f"{where.path}:{o.line or '?'}: open {o.name} = {o.shown(v)}: {e}"
                ) from None
