"""A calibration's trials: each one point of the open values, run ``replications`` times on
the sweep engine, its runs kept as Parquet rows.

A trial is a sweep of one point (:class:`vho.sweep.Sweep`) in its own directory
``trial-NNNNN/`` of the calibration's runs directory: the engine's store makes it resumable
(a killed trial runs only its missing runs again) and its rows are the sweep's rows, labelled
with the trial and the open values. Every trial draws the same replication seeds from the
calibration's seed (the sweep engine's ``common`` policy: common random numbers), so two
points differ by the open values, not by their draws. A study's trial is its design
(:mod:`vho.reproduce.study`) restricted to the cases the fit reads, the open values set at
every point, run the same way.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import VhoError
from .spec import SUMMARY, Calibration, CalibrationError, Target

#: The capture measure (see :mod:`vho.calibrate.measure`).
CAPTURE_MEASURE = "vho.calibrate.measure:capture_metrics"


@dataclass(frozen=True)
class Stats:
    """A target's metric over a point's replications: mean, sample sd, count."""

    mean: float
    sd: float
    n: int

    @property
    def se(self) -> float:
        """The standard error of the mean (0 with fewer than two values)."""
        return self.sd / math.sqrt(self.n) if self.n > 1 else 0.0

    @staticmethod
    def of(x: Any) -> Stats:
        a = np.asarray(x, dtype=float)
        a = a[np.isfinite(a)]
        n = len(a)
        return Stats(float(a.mean()) if n else math.nan, float(a.std(ddof=1)) if n > 1 else 0.0, n)


def z_score(t: Target, s: Stats) -> float:
    """(simulated mean - target) / se_total, se_total = √(se_target² + se_simulation²): the
    simulation's own noise widens the target's interval as its standard error does."""
    if s.n == 0:
        return math.nan
    return (s.mean - t.value) / math.hypot(t.se, s.se)


def loss(targets: list[Target], stats: dict[str, Stats]) -> float:
    """Σ z² over the fit targets (inf when a target got no value)."""
    total = 0.0
    for t in targets:
        if not t.fit:
            continue
        z = z_score(t, stats[t.name])
        if not math.isfinite(z):
            return math.inf
        total += z * z
    return total


def seed_of(cal: Calibration, what: str) -> int:
    """A seed derived from the calibration's: ``search`` (every trial's replications) or
    ``confirm`` (the defaults and the best point run again on other draws)."""
    if what == "search":
        return cal.seed
    h = hashlib.blake2b(f"{cal.seed}\0{what}".encode(), digest_size=8)
    return int.from_bytes(h.digest(), "little") >> 1


def _scenario_sweep(
    cal: Calibration, name: str, trial: int, params: dict[str, Any], seed: int, reps: int
) -> Any:
    from ..sweep.spec import Measure, Sweep

    measures = None
    if cal.measure != SUMMARY:
        node = cal.measure.split(":", 1)[1]
        measures = [
            Measure(
                CAPTURE_MEASURE,
                ("record.series=false", f'record.pcap=["{node}"]'),
                (("node", node), ("ta_mean", cal.ta_mean)),
            )
        ]
    shown = {o.name: o.shown(params[o.name]) for o in cal.open}
    return Sweep(
        label=cal.scenario,
        text=cal.scenario_text,
        fixed=list(cal.fixed),
        columns=[],
        points=[{"trial": trial, **shown}],
        replications=reps,
        seed=seed,
        seeds="common",
        name=name,
        labels=["trial", *shown],
        extra=[tuple(cal.overrides(params))],
        measures=measures,
    )


def study_design(
    cal: Calibration, params: dict[str, Any], seed: int, reps: int | None = None
) -> Any:
    """A study's design for one point of the open values: its paper's cases (those named in
    ``cases``, or all), each with the file's ``[set]`` and then the open values' overrides
    after its own, no run kept."""
    from ..reproduce import STUDIES
    from ..reproduce.study import Options

    study = STUDIES[cal.study or ""]
    o = Options(quick=True, seed=seed, reps=reps or cal.replications, sensitivity=False)
    d = study.design(o)
    points = tuple(
        replace(
            p,
            overrides=(*p.overrides, *cal.fixed, *cal.overrides(params, p.case, p.variant)),
            keep=0,
        )
        for p in d.points
        if p.role == "study" and (not cal.cases or p.case in cal.cases)
    )
    return replace(d, points=points)


def run_point(
    cal: Calibration,
    root: Path,
    name: str,
    trial: int,
    params: dict[str, Any],
    seed: int,
    *,
    workers: int | None,
    scheduler: str | None,
    replications: int | None = None,
) -> tuple[pd.DataFrame, dict[str, Stats]]:
    """Runs (or resumes) one point into ``root/name`` (``replications``: other than the
    calibration's): its rows and each target's stats."""
    reps = replications or cal.replications
    from .. import sweep as sw
    from ..reproduce.study import expand, run_design

    where = root / name
    if cal.study is None:
        s = _scenario_sweep(cal, name, trial, params, seed, reps)
        sw.run(s, where, workers=workers, scheduler=scheduler, resume=True, quiet=True)
        rows = expand(sw.results(where))
        stats = {}
        for t in cal.targets:
            if t.metric not in rows.columns:
                raise CalibrationError(
                    f"{cal.path}:{t.line or '?'}: target {t.name} metric: no column "
                    f"{t.metric!r} in the runs' rows (a scenario of several flows names them "
                    "flow.<name>.<metric>)"
                )
            ok = rows[rows["error"].isna()]
            stats[t.name] = Stats.of(pd.to_numeric(ok[t.metric], errors="coerce"))
        return rows, stats
    from ..reproduce import STUDIES

    study = STUDIES[cal.study]
    design = study_design(cal, params, seed, reps)
    try:
        rows = run_design(
            design, where, workers=workers, scheduler=scheduler, quiet=True, keep_all=False,
            desc=name,
        )  # fmt: skip
    except VhoError as e:
        raise CalibrationError(f"{cal.path}: trial {trial}: {e}") from None
    ev = study.evidence(rows, design)
    # The rows as the study's runs.csv keeps them (Chen's 16 Pareto flows' metrics left out),
    # the trial first.
    keep = [c for c in rows.columns if not any(c.startswith(d) for d in design.drop_columns)]
    rows = pd.concat([pd.Series(trial, index=rows.index, name="trial"), rows[keep]], axis=1)
    stats = {t.name: Stats.of(ev[t.metric].x if t.metric in ev else []) for t in cal.targets}
    return rows, stats
