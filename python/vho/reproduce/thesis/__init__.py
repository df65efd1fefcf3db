"""The thesis, ``003_c2115c75cc9a1c40.txt`` (Chapter 7): TCP across WaveLAN <-> GSM handovers
on a Linux 2.0.36 testbed with MosquitoNet Mobile IP, reproduced by `vho reproduce thesis`.

The study in the shape of every study (:mod:`vho.reproduce.study`): ``paper.py`` (every number
of Chapter 7 as data), ``design.py`` (the cases, the comparison rows, the variants that test a
cause; what a replication draws), ``measure.py`` (what one run measures, in the worker, from
its captures and series), ``report.py`` and ``figures.py`` (the report, reading the runs).
"""

from __future__ import annotations

from pathlib import Path

from ..study import Study, study_file
from . import report
from .design import BASELINE, CASES, COMPARED, STUDY, VARIANTS, Case, Variant
from .design import design as _design
from .measure import Trace, linux20_replay, measure, read_trace, timer_sends
from .paper import NUMBERS, POST_HANDOVER_BYTES


def study_path() -> Path:
    """The study's TOML file inside the installed package."""
    return study_file("thesis.toml")


REPRODUCTION = Study(
    name="thesis",
    title="The thesis (003, Chapter 7) reproduced by vho: TCP across WaveLAN <-> GSM",
    paper=NUMBERS,
    design=_design,
    evidence=report.evidence,
    body=report.body,
    package="thesis",
    why=report.why,
)

__all__ = [
    "BASELINE",
    "CASES",
    "COMPARED",
    "NUMBERS",
    "POST_HANDOVER_BYTES",
    "REPRODUCTION",
    "STUDY",
    "VARIANTS",
    "Case",
    "Trace",
    "Variant",
    "linux20_replay",
    "measure",
    "read_trace",
    "study_path",
    "timer_sends",
]
