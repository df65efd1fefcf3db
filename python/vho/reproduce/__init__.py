"""`vho reproduce STUDY`: each source study's numbers, side by side with the paper's.

Every study has one shape (:mod:`vho.reproduce.study`): a design run on the sweep engine, the
paper's numbers as data judged by one rule (:mod:`vho.reproduce.verdict`), and a report that
only reads the runs. :data:`STUDIES` maps the command's study names to them.
"""

from __future__ import annotations

from . import chen, cottingham, daniel_kojo, naoe, thesis
from .study import Study

#: Study name -> its :class:`Study`, run by :func:`vho.reproduce.study.reproduce`.
STUDIES: dict[str, Study] = {
    "chen": chen.REPRODUCTION,
    "cottingham": cottingham.REPRODUCTION,
    "daniel-kojo": daniel_kojo.REPRODUCTION,
    "naoe": naoe.REPRODUCTION,
    "thesis": thesis.REPRODUCTION,
}

__all__ = ["STUDIES", "Study"]
