"""Cottingham & Vidales, ``000_2dceaee3c96622fa.txt``: Mobile IPv6's handover latency T_n and
TCP's adaptation time t_a, reproduced by `vho reproduce cottingham` in the shape of every study
(:mod:`vho.reproduce.study`): ``paper.py`` (Table 1, §6's claims as data), ``design.py``,
``measure.py`` (T_n from the summary, t_a from the run's capture, in the worker),
``report.py`` (reads the runs).
"""

from __future__ import annotations

from pathlib import Path

from ..study import Study, study_file
from . import report
from .design import CASES, DOWNWARD, RO_CANDIDATES, SENSITIVITY, STUDY, TABLE1_CASES
from .design import design as _design
from .paper import NUMBERS, PAPER_COUNT, TABLE1


def study_path() -> Path:
    """The study's TOML file inside the installed package."""
    return study_file("cottingham.toml")


REPRODUCTION = Study(
    name="cottingham",
    title="Cottingham & Vidales: Mobile IPv6 vertical handovers, reproduced",
    paper=NUMBERS,
    design=_design,
    evidence=report.evidence,
    body=report.body,
    package="cottingham",
    why=report.why,
)

__all__ = [
    "CASES",
    "DOWNWARD",
    "NUMBERS",
    "PAPER_COUNT",
    "REPRODUCTION",
    "RO_CANDIDATES",
    "SENSITIVITY",
    "STUDY",
    "TABLE1",
    "TABLE1_CASES",
    "study_path",
]
