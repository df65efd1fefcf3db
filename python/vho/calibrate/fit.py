"""The search: Optuna's TPE sampler over the open values, the defaults as trial 0, then the
defaults and the best point run again on fresh draws to judge them.

Why Optuna (docs/guide/calibrate.md): its TPE sampler handles noisy objectives over mixed
integer, continuous and categorical spaces; a seeded sampler proposes the same points given
the same history; it keeps trials in a storage and runs them on Dask; and its importance
evaluators give each open value's share of a target's variation.

Resuming after a kill: Optuna's storage keeps trials but not its sampler's random state, so a
sampler started again would propose other points. Instead the seeded sampler is *replayed*:
trial k is asked again, and its runs, kept by the sweep engine in ``trial-k/``, give its loss
without running (a trial cut short runs only its missing runs). The same seed thus proposes
the same points whether or not the calibration was interrupted, and gives the same result.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .spec import Calibration, OpenValue
from .trials import Stats, loss, run_point, seed_of, z_score

#: Random trials before TPE models the losses (Optuna's default is 10); fixed, not a share of
#: the trials, so that a calibration extended with more trials replays its first ones.
STARTUP = 8


@dataclass
class Trial:
    """One point tried: its number, open values, loss and each target's stats."""

    number: int
    params: dict[str, Any]
    loss: float
    stats: dict[str, Stats]


@dataclass
class Search:
    """Every trial, in order, the confirmation runs and the Optuna study they were told to."""

    trials: list[Trial]
    rows: pd.DataFrame
    study: Any
    confirm: dict[str, Trial] = field(default_factory=dict)
    #: The confirmation runs' rows (the defaults', the best's).
    confirm_rows: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def best(self) -> Trial:
        """The trial of least loss (the first of equals)."""
        return min(self.trials, key=lambda t: t.loss if math.isfinite(t.loss) else math.inf)


def distribution(o: OpenValue) -> Any:
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    if o.kind == "categorical":
        return CategoricalDistribution(list(o.choices))
    if o.kind == "int":
        return IntDistribution(int(o.low), int(o.high), log=o.log)
    return FloatDistribution(o.low, o.high, log=o.log)


def canonical(o: OpenValue, x: Any) -> Any:
    """The optimiser's number as the run sees it (the literal's precision), so that the loss
    is the loss of the value reported (4 significant digits: a finer step is below any
    target's resolution here)."""
    if o.kind in ("categorical", "int"):
        return x
    if o.kind in ("size", "packets"):
        return float(round(x))
    return float(f"{x:.4g}")


#: Refinement: the box around the best is this share of each range (on a log scale for a log
#: value) in the first round, half as much in each next one; a round has at most REFINE_ROUND
#: trials, its first REFINE_STARTUP random.
REFINE_SPAN = 0.15
REFINE_ROUND = 8
REFINE_STARTUP = 3


def refine_rounds(n: int) -> list[int]:
    """``n`` refining trials as rounds of at most REFINE_ROUND."""
    return [min(REFINE_ROUND, n - i) for i in range(0, n, REFINE_ROUND)]


def _study(seed: int, startup: int) -> Any:
    import optuna

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)
    return optuna.create_study(direction="minimize", sampler=sampler)


def narrowed(o: OpenValue, x: Any, span: float = REFINE_SPAN) -> Any:
    """``o``'s distribution narrowed to ``span`` of its range around ``x`` (clipped to the
    range); a categorical value keeps its choices."""
    from optuna.distributions import FloatDistribution, IntDistribution

    if o.kind == "categorical":
        return distribution(o)
    if o.log:
        f = (o.high / o.low) ** (span / 2)
        lo, hi = max(o.low, x / f), min(o.high, x * f)
    else:
        h = (o.high - o.low) * span / 2
        lo, hi = max(o.low, x - h), min(o.high, x + h)
    if o.kind == "int":
        lo, hi = math.floor(lo), math.ceil(hi)
        return IntDistribution(min(lo, int(x)), max(hi, int(x)), log=o.log)
    return FloatDistribution(min(lo, x), max(hi, x), log=o.log)


def search(
    cal: Calibration,
    root: Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    quiet: bool = False,
) -> Search:
    """Runs (or replays) every trial into ``root`` and the confirmation of the defaults and
    the best point."""
    import optuna
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    trials: list[Trial] = []
    frames = []
    seed = seed_of(cal, "search")
    total = cal.trials + cal.refine

    def stage(study: Any, dists: dict[str, Any], first: int, n: int) -> None:
        for k in range(first, first + n):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                t = study.ask(dists)
            params = {o.name: canonical(o, t.params[o.name]) for o in cal.open}
            rows, stats = run_point(
                cal, root, f"trial-{k:05d}", k, params, seed, workers=workers,
                scheduler=scheduler,
            )  # fmt: skip
            value = loss(cal.targets, stats)
            t.set_user_attr("means", {n: s.mean for n, s in stats.items()})
            t.set_user_attr("z", {x.name: z_score(x, stats[x.name]) for x in cal.targets})
            if math.isfinite(value):
                study.tell(t, value)
            else:
                study.tell(t, state=TrialState.FAIL)
            trials.append(Trial(k, params, value, stats))
            frames.append(rows.assign(loss=value))
            if not quiet:
                best = min((x.loss for x in trials), default=math.inf)
                sys.stderr.write(
                    f"trial {k + 1}/{total}: loss {value:.4g} (best {best:.4g}) "
                    + ", ".join(f"{o.name}={o.shown(params[o.name])}" for o in cal.open)
                    + "\n"
                )

    study = _study(cal.seed, STARTUP)
    study.enqueue_trial(cal.defaults())
    stage(study, {o.name: distribution(o) for o in cal.open}, 0, cal.trials)
    first = cal.trials
    for i, n in enumerate(refine_rounds(cal.refine)):
        # Refinement: TPE again on a box around the best so far (REFINE_SPAN of each range on
        # its scale, halved each round), the best first; deterministic: it depends only on the
        # trials before it.
        best = min(trials, key=lambda t: t.loss if math.isfinite(t.loss) else math.inf)
        narrow = _study(seed_of(cal, f"refine-{i}") % 2**32, min(REFINE_STARTUP, n - 1))
        narrow.enqueue_trial(best.params)
        span = REFINE_SPAN / 2**i
        dists = {o.name: narrowed(o, best.params[o.name], span) for o in cal.open}
        stage(narrow, dists, first, n)
        first += n
    s = Search(trials, pd.concat(frames, ignore_index=True), study)
    cseed = seed_of(cal, "confirm")
    for name, tr in (("defaults", trials[0]), ("best", s.best)):
        if name == "best" and s.best.number == 0:
            s.confirm["best"] = s.confirm["defaults"]
            s.confirm_rows["best"] = s.confirm_rows["defaults"]
            continue
        rows, stats = run_point(
            cal, root, f"confirm-{name}", tr.number, tr.params, cseed, workers=workers,
            scheduler=scheduler, replications=cal.confirm,
        )  # fmt: skip
        s.confirm[name] = Trial(tr.number, tr.params, loss(cal.targets, stats), stats)
        s.confirm_rows[name] = rows
    return s
