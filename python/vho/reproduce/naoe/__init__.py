"""Naoe, Wetterwald & Bonnet, ``002_5cc86ff6918d98af.txt``: NEMO soft handover with Adaptive
Packet Combining, reproduced by `vho reproduce naoe` in the shape of every study
(:mod:`vho.reproduce.study`): ``paper.py`` (Tables II and III, §VI's and §VII's claims and
delays as data), ``design.py`` (schemes, directions, §VII's cases, Fig. 6's trials, the cause
variants, the alpha x initial T_eDelay grid), ``report.py`` (reads the runs).
"""

from __future__ import annotations

from pathlib import Path

from ..study import Study, study_file
from . import report
from .design import ALPHAS, INITIAL_DELAYS_S, SCHEME_OVERRIDES, STUDY, direction_point
from .design import design as _design
from .paper import LABELS, METRICS, NUMBERS, SCHEMES, TABLES, TRIALS


def study_path() -> Path:
    """The study's TOML inside the installed package."""
    return study_file("naoe.toml")


REPRODUCTION = Study(
    name="naoe",
    title="Naoe, Wetterwald & Bonnet (APC) reproduced by vho",
    paper=NUMBERS,
    design=_design,
    evidence=report.evidence,
    body=report.body,
    package="naoe",
    why=report.why,
)

__all__ = [
    "ALPHAS",
    "INITIAL_DELAYS_S",
    "LABELS",
    "METRICS",
    "NUMBERS",
    "REPRODUCTION",
    "SCHEMES",
    "SCHEME_OVERRIDES",
    "STUDY",
    "TABLES",
    "TRIALS",
    "direction_point",
    "study_path",
]
