"""What a calibration writes: ``calibration.json`` (the numbers), ``report.md`` (the same for a
reader), ``trials.parquet`` (every run of every trial) and the sensitivity table and figure.

Every number is judged on the confirmation runs (the defaults and the best point run again on
draws the search never saw), not on the search's own runs: the least loss of many noisy
trials is biased low by its selection. A target is *reached* when the confirmed mean is within
two of its combined standard errors (|z| <= 2); one not reached is a finding, reported with
the region searched and the nearest any trial came.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from .fit import Search, Trial
from .spec import Calibration, Target
from .trials import z_score

#: |z| within which a target counts as reached.
REACHED_Z = 2.0
#: An open value's best within this share of its range from an end sits "at the bound".
AT_BOUND = 0.02


def _f(v: float) -> float | None:
    """A float for JSON: NaN and infinities as null (JSON has neither)."""
    return float(v) if v is not None and math.isfinite(v) else None


def target_row(t: Target, tr: Trial) -> dict[str, Any]:
    s = tr.stats[t.name]
    z = z_score(t, s)
    rel = (s.mean - t.value) / t.value if t.value else math.nan
    return {
        "mean": _f(s.mean),
        "se": _f(s.se),
        "n": s.n,
        "z": _f(z),
        "rel_error": _f(rel),
        "reached": bool(math.isfinite(z) and abs(z) <= REACHED_Z),
    }


def _point(cal: Calibration, search_trial: Trial, confirmed: Trial) -> dict[str, Any]:
    return {
        "trial": search_trial.number,
        "params": {o.name: o.shown(search_trial.params[o.name]) for o in cal.open},
        "loss_search": _f(search_trial.loss),
        "loss": _f(confirmed.loss),
        "targets": {t.name: target_row(t, confirmed) for t in cal.targets},
    }


def held_out_error(cal: Calibration, tr: Trial) -> dict[str, Any] | None:
    """The held-out targets' error at a point: the root mean square of their z, and the mean
    of their absolute relative errors (None when nothing is held out)."""
    held = cal.held_out
    if not held:
        return None
    zs = [z_score(t, tr.stats[t.name]) for t in held]
    rels = [abs((tr.stats[t.name].mean - t.value) / t.value) if t.value else math.nan for t in held]
    fz = [z for z in zs if math.isfinite(z)]
    fr = [r for r in rels if math.isfinite(r)]
    return {
        "targets": [t.name for t in held],
        "rms_z": _f(math.sqrt(sum(z * z for z in fz) / len(fz)) if fz else math.nan),
        "mean_abs_rel_error": _f(sum(fr) / len(fr) if fr else math.nan),
        "reached": sum(1 for z in zs if math.isfinite(z) and abs(z) <= REACHED_Z),
    }


def searched(cal: Calibration, s: Search) -> dict[str, Any]:
    """Per open value, the region the trials covered (and the range declared)."""
    out = {}
    for o in cal.open:
        vals = [t.params[o.name] for t in s.trials]
        if o.kind == "categorical":
            tried = [c for c in o.choices if c in vals]
            out[o.name] = {"declared": list(o.choices), "tried": tried}
        else:
            out[o.name] = {
                "declared": [o.shown(o.low), o.shown(o.high)],
                "tried": [o.shown(min(vals)), o.shown(max(vals))],
            }
    return out


def at_bound(cal: Calibration, best: Trial) -> list[str]:
    """Open values whose best sits at an end of the declared range."""
    out = []
    for o in cal.open:
        if o.kind == "categorical":
            continue
        x = float(best.params[o.name])
        span = o.high - o.low
        if x - o.low <= AT_BOUND * span:
            out.append(f"{o.name} at its low end {o.shown(o.low)}")
        elif o.high - x <= AT_BOUND * span:
            out.append(f"{o.name} at its high end {o.shown(o.high)}")
    return out


def unreached(cal: Calibration, s: Search) -> list[dict[str, Any]]:
    """Targets the confirmed best does not reach, each with the nearest any trial came."""
    best = s.confirm["best"]
    out = []
    for t in cal.targets:
        z = z_score(t, best.stats[t.name])
        if math.isfinite(z) and abs(z) <= REACHED_Z:
            continue
        near = min(
            s.trials,
            key=lambda tr: (
                abs(tr.stats[t.name].mean - t.value)
                if math.isfinite(tr.stats[t.name].mean)
                else math.inf
            ),
        )
        out.append(
            {
                "target": t.name,
                "fit": t.fit,
                "value": t.value,
                "best_mean": _f(best.stats[t.name].mean),
                "z": _f(z),
                "nearest_trial": near.number,
                "nearest_mean": _f(near.stats[t.name].mean),
                "nearest_params": {o.name: o.shown(near.params[o.name]) for o in cal.open},
                "direction": "higher" if t.value > best.stats[t.name].mean else "lower",
            }
        )
    return out


def results(cal: Calibration, s: Search, sens: pd.DataFrame, version: str) -> dict[str, Any]:
    """Everything ``calibration.json`` holds (no wall time, no date: the same seed gives the
    same file)."""
    d, b = s.trials[0], s.best
    return {
        "vho_version": version,
        "calibration_file": cal.path,
        "scenario": cal.scenario if cal.study is None else None,
        "study": cal.study,
        "cases": cal.cases,
        "seed": cal.seed,
        "trials": cal.trials,
        "refine": cal.refine,
        "replications": cal.replications,
        "confirm": cal.confirm,
        "measure": cal.measure,
        "optimiser": {
            "library": "optuna",
            "version": _optuna_version(),
            "sampler": "TPESampler(multivariate=True)",
            "startup_trials": _startup(),
            "refine": "after the trials, rounds of up to 8 TPE trials on a box around the best "
            "(15 % of each range, halved each round), the best first",
            "trial_0": "the defaults",
        },
        "open": [
            {
                "name": o.name,
                "also": list(o.also),
                "type": o.kind,
                "default": o.shown(o.number(o.default)),
                "range": list(o.choices)
                if o.kind == "categorical"
                else [o.shown(o.low), o.shown(o.high)],
                "log": o.log,
                "reason": o.reason,
            }
            for o in cal.open
        ],
        "targets": [
            {
                "name": t.name,
                "metric": t.metric,
                "value": t.value,
                "se": t.se,
                "fit": t.fit,
                "source": t.source,
            }
            for t in cal.targets
        ],
        "defaults": _point(cal, d, s.confirm["defaults"]),
        "best": _point(cal, b, s.confirm["best"]),
        "held_out": {
            "defaults": held_out_error(cal, s.confirm["defaults"]),
            "best": held_out_error(cal, s.confirm["best"]),
        }
        if cal.held_out
        else None,
        "searched": searched(cal, s),
        "best_at_bound": at_bound(cal, b),
        "unreached": unreached(cal, s),
        "sensitivity": [
            {k: (_f(v) if isinstance(v, float) else v) for k, v in r.items()}
            for r in sens.to_dict("records")
        ],
        "trial_losses": [_f(t.loss) for t in s.trials],
    }


def _optuna_version() -> str:
    import optuna

    return optuna.__version__


def _startup() -> int:
    from .fit import STARTUP

    return STARTUP


def dumps(res: dict[str, Any]) -> str:
    return json.dumps(res, indent=2, sort_keys=False, allow_nan=False) + "\n"


def _num(v: float | None, digits: int = 4) -> str:
    return "-" if v is None or not math.isfinite(v) else f"{v:.{digits}g}"


def markdown(cal: Calibration, res: dict[str, Any], command: str) -> str:
    """``report.md``."""
    d, b = res["defaults"], res["best"]
    what = f"study `{cal.study}`" if cal.study else f"`{cal.scenario}`"
    lines = [
        f"# Calibration of {what}",
        "",
        f"- command: `{command}`",
        f"- calibration file: `{cal.path}`; vho {res['vho_version']}",
        f"- {cal.trials} trials"
        + (f" and {cal.refine} refining ones around the best" if cal.refine else "")
        + f" x {cal.replications} replications (seed {cal.seed}: every "
        "trial draws the same replication seeds), then the defaults and the best point run "
        f"again on {cal.confirm} fresh draws each: the numbers below are those runs'",
        "- optimiser: Optuna's TPE sampler (multivariate), seeded; trial 0 is the defaults, "
        f"the first {res['optimiser']['startup_trials']} trials are random",
        "- loss: Σ over the fit targets of ((simulated mean - target) / se)², se = "
        "√(target's se² + the simulation's se²)",
        "",
        "## Losses",
        "",
        "| point | trial | loss (search) | loss (confirmed) |",
        "|---|---|---|---|",
        f"| defaults | {d['trial']} | {_num(d['loss_search'])} | {_num(d['loss'])} |",
        f"| best | {b['trial']} | {_num(b['loss_search'])} | {_num(b['loss'])} |",
        "",
    ]
    if res["held_out"] is None:
        lines += [
            "**This fit holds nothing out**: every target was fitted, so its error on numbers "
            "it did not see is unknown. Mark targets `fit = false` (or pass `--fit`) to judge "
            "it.",
            "",
        ]
    else:
        hd, hb = res["held_out"]["defaults"], res["held_out"]["best"]
        n = len(hd["targets"])
        lines += [
            "## Held out",
            "",
            f"{n} targets held out ({', '.join(hd['targets'])}), predicted, never fitted:",
            "",
            "| point | RMS z | mean abs. relative error | reached (abs. z ≤ 2) |",
            "|---|---|---|---|",
            f"| defaults | {_num(hd['rms_z'])} | {_num(hd['mean_abs_rel_error'])} | "
            f"{hd['reached']} of {n} |",
            f"| best | {_num(hb['rms_z'])} | {_num(hb['mean_abs_rel_error'])} | "
            f"{hb['reached']} of {n} |",
            "",
        ]
    lines += [
        "## Open values",
        "",
        "| open value | type | default | range | best | reason for the range |",
        "|---|---|---|---|---|---|",
    ]
    for o in res["open"]:
        rng = " / ".join(map(str, o["range"])) if o["type"] == "categorical" else (
            f"{o['range'][0]} .. {o['range'][1]}" + (" (log)" if o["log"] else "")
        )  # fmt: skip
        lines.append(
            f"| `{o['name']}` | {o['type']} | {o['default']} | {rng} | "
            f"{b['params'][o['name']]} | {o['reason'].replace('|', '/')} |"
        )
    lines += [
        "",
        "## Targets",
        "",
        "| target | metric | value ± se | side | defaults (z) | best (z) | reached |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in res["targets"]:
        dt, bt = d["targets"][t["name"]], b["targets"][t["name"]]
        lines.append(
            f"| {t['name']} | `{t['metric']}` | {_num(t['value'])} ± {_num(t['se'], 3)} | "
            f"{'fit' if t['fit'] else 'held out'} | {_num(dt['mean'])} ({_num(dt['z'], 3)}) | "
            f"{_num(bt['mean'])} ({_num(bt['z'], 3)}) | {'yes' if bt['reached'] else 'no'} |"
        )
    lines += ["", "## Where no value in range reaches a target", ""]
    if not res["unreached"]:
        lines += ["Every target is reached at the best point (abs. z ≤ 2).", ""]
    else:
        region = "; ".join(
            f"`{k}` tried {' .. '.join(map(str, v['tried']))} of "
            f"{' .. '.join(map(str, v['declared']))}"
            for k, v in res["searched"].items()
        )
        lines += [f"The region searched: {region}.", ""]
        for u in res["unreached"]:
            lines.append(
                f"- **{u['target']}** ({'fit' if u['fit'] else 'held out'}): the paper/target "
                f"{_num(u['value'])}, the best point gives {_num(u['best_mean'])} (z "
                f"{_num(u['z'], 3)}); the nearest any trial came is {_num(u['nearest_mean'])} "
                f"(trial {u['nearest_trial']}: "
                + ", ".join(f"{k} = {v}" for k, v in u["nearest_params"].items())
                + f"). It would need a value that makes it {u['direction']}."
            )
        if res["best_at_bound"]:
            lines += [
                "",
                "The best point sits at the edge of the range: "
                + "; ".join(res["best_at_bound"])
                + ". The target may need a value beyond it (the range's reason says whether "
                "one is defensible).",
            ]
        lines.append("")
    lines += [
        "## Sensitivity",
        "",
        "Each row: how much each open value decides whether the trials come close to a target "
        "(its z²), or lower the loss: Optuna's PED-ANOVA importance over the trials, each row "
        "normalised to 1 (`-`: cannot be told). Over the trials on the declared ranges (the "
        "refining ones, on narrowed boxes, are left out).",
        "",
        "| | " + " | ".join(f"`{o.name}`" for o in cal.open) + " |",
        "|---|" + "---|" * len(cal.open),
    ]
    for r in res["sensitivity"]:
        lines.append(
            f"| {r['target']} | " + " | ".join(_num(r.get(o.name), 2) for o in cal.open) + " |"
        )
    lines += ["", "![sensitivity](sensitivity.png)", ""]
    return "\n".join(lines)
