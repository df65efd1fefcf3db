"""A study's calibration judged as the study is: every paper number its cases give, at the
defaults and calibrated, by the study's verdict rule (:mod:`vho.reproduce.verdict`), the fitted
side and the held-out side apart.

Each study declares its open values and its hold-out split in ``calibration.toml`` beside its
design (``vho/reproduce/<study>/calibration.toml``): the open values with their ranges and the
paper lines that bound them, the paper numbers fitted (``fit = true``); every other number the
runs give is held out. `vho reproduce STUDY --calibrate` runs that file (:func:`path`); a
study with a second split keeps it beside, ``calibration-<split>.toml``, and
`vho reproduce STUDY --calibrate --split <split>` runs it (Naoe's ``reverse``: fit Table III,
predict Table II).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import VhoError
from .fit import Search
from .spec import Calibration
from .trials import seed_of, study_design

#: The package folder of each study (``vho/reproduce/<folder>/``).
FOLDERS = {
    "chen": "chen",
    "cottingham": "cottingham",
    "daniel-kojo": "daniel_kojo",
    "naoe": "naoe",
    "thesis": "thesis",
}
#: Studies calibrated without a calibration: Daniel & Kojo's values are the paper's own
#: (Table 1, ns-2's defaults), and 133 of its 160 cells agree within 10 % as they stand.
NOT_CALIBRATED = {"daniel-kojo": "its values are the paper's own (Table 1 and ns-2's defaults)"}


def path(study: str, split: str | None = None) -> Path:
    """A study's calibration file inside the installed package (``split``: another declared
    split's, ``calibration-<split>.toml``)."""
    folder = Path(__file__).resolve().parent.parent / "reproduce" / FOLDERS[study]
    if split is None:
        return folder / "calibration.toml"
    p = folder / f"calibration-{split}.toml"
    if not p.is_file():
        known = splits(study)
        raise VhoError(
            f"vho reproduce {study} --calibrate --split {split}: expected one of the study's "
            f"declared splits: {', '.join(known) if known else 'none besides the default'}"
        )
    return p


def splits(study: str) -> list[str]:
    """A study's declared splits besides its default (``calibration-<split>.toml``)."""
    folder = Path(__file__).resolve().parent.parent / "reproduce" / FOLDERS[study]
    return sorted(f.stem.removeprefix("calibration-") for f in folder.glob("calibration-*.toml"))


def quick(cal: Calibration) -> Calibration:
    """``--quick``: fewer trials and runs (a smoke test of the fit, not a fit)."""
    return dataclasses.replace(
        cal,
        trials=min(cal.trials, 6),
        refine=min(cal.refine, 2),
        replications=min(cal.replications, 3),
        confirm=min(cal.confirm, 4),
    )


def verdicts(cal: Calibration, s: Search) -> pd.DataFrame:
    """One row per paper number the cases measure: the paper's, vho's at the defaults and
    calibrated (the confirmation runs, fresh draws), each with its verdict, and its side."""
    from ..reproduce import STUDIES
    from ..reproduce.study import judge_all

    study = STUDIES[cal.study or ""]
    fitted = {t.metric for t in cal.targets if t.fit}
    judged: dict[str, Any] = {}
    for name in ("defaults", "best"):
        tr = s.confirm[name]
        design = study_design(cal, tr.params, seed_of(cal, "confirm"), cal.confirm)
        judged[name] = {v.number.key: v for v in judge_all(study, s.confirm_rows[name], design)}
    rows = []
    for n in study.paper:
        d, b = judged["defaults"][n.key], judged["best"][n.key]
        if d.agrees is None and b.agrees is None:
            continue
        rows.append(
            {
                "key": n.key,
                "what": n.what,
                "side": "fit" if n.key in fitted else "held out",
                "paper": n.shown(),
                "defaults": _ours(d),
                "defaults_verdict": d.verdict,
                "defaults_agrees": bool(d.agrees),
                "calibrated": _ours(b),
                "calibrated_verdict": b.verdict,
                "calibrated_agrees": bool(b.agrees),
            }
        )
    return pd.DataFrame(rows)


def _ours(v: Any) -> str:
    from ..reproduce.verdict import ours_shown

    return ours_shown(v)


def tally(table: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per side, how many numbers agree at the defaults and calibrated, of how many."""
    out = {}
    for side in ("fit", "held out"):
        t = table[table["side"] == side] if len(table) else table
        out[side] = {
            "of": len(t),
            "defaults": int(t["defaults_agrees"].sum()) if len(t) else 0,
            "calibrated": int(t["calibrated_agrees"].sum()) if len(t) else 0,
        }
    return out


def markdown(table: pd.DataFrame, counts: dict[str, dict[str, int]], study: str) -> list[str]:
    """The report's section: the tally, then every number side by side."""
    from ..reproduce.verdict import RULE

    f, h = counts["fit"], counts["held out"]
    lines = [
        f"## {study}'s paper numbers, at the defaults and calibrated",
        "",
        f"By the study's rule (below), on the confirmation runs: **held out, {h['defaults']} of "
        f"{h['of']} agree at the defaults, {h['calibrated']} of {h['of']} calibrated**; fitted, "
        f"{f['defaults']} of {f['of']} at the defaults, {f['calibrated']} of {f['of']} "
        "calibrated. A calibrated set becomes the study's default only if it holds out: the "
        "study file says which it uses.",
        "",
        RULE,
        "",
        "| number | side | paper | defaults | verdict | calibrated | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples(index=False):
        lines.append(
            f"| {r.what.replace('|', '/')} (`{r.key}`) | {r.side} | {r.paper} | {r.defaults} | "
            f"{r.defaults_verdict} | {r.calibrated} | {r.calibrated_verdict} |"
        )
    lines.append("")
    return lines
