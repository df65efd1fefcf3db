"""Chen, Yang, Sun, Sanadidi & Gerla, ``004_131556780010e7f2.txt``: TFRC Probe and TCP Probe
across a vertical handoff between 1xRTT and 802.11b, with IHN/EHN, FRA and ERR, reproduced by
`vho reproduce chen` in the shape of every study (:mod:`vho.reproduce.study`): ``paper.py``
(every number and claim of §5 as data), ``design.py`` (cases, variants, what a replication
draws, the cause variants), ``measure.py`` (what one run measures, in the worker), ``report.py``
and ``figures.py`` (the report, reading the runs).
"""

from __future__ import annotations

from pathlib import Path

from ..study import Study, study_file
from . import report
from .design import CASES, HIGH_LOW_VARIANTS, LOW_HIGH, STUDY, Case, Variant, variants
from .design import design as _design
from .paper import HANDOFF_S, NUMBERS, STOP_S


def study_path() -> Path:
    """The study's TOML file inside the installed package."""
    return study_file("chen.toml")


REPRODUCTION = Study(
    name="chen",
    title="Chen et al. (004): IHN/EHN with FRA and ERR across a vertical handoff, reproduced",
    paper=NUMBERS,
    design=_design,
    evidence=report.evidence,
    body=report.body,
    package="chen",
    why=report.why,
)

__all__ = [
    "CASES",
    "HANDOFF_S",
    "HIGH_LOW_VARIANTS",
    "LOW_HIGH",
    "NUMBERS",
    "REPRODUCTION",
    "STOP_S",
    "STUDY",
    "Case",
    "Variant",
    "study_path",
    "variants",
]
