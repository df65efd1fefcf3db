"""`vho reproduce STUDY`: each source study's tables and figures, side by side with the paper.

One module per study; :data:`STUDIES` maps the command's study names to their entry points.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import chen, cottingham, daniel_kojo, naoe, thesis

#: Study name -> ``reproduce(out, *, quick, seed, quiet, ...) -> report path``; a study takes
#: the options that apply to it of ``workers``, ``sensitivity``, ``force`` and ``reps``
#: (`vho reproduce` refuses the others).
STUDIES: dict[str, Callable[..., Path]] = {
    "chen": chen.reproduce,
    "cottingham": cottingham.reproduce,
    "daniel-kojo": daniel_kojo.reproduce,
    "naoe": naoe.reproduce,
    "thesis": thesis.reproduce,
}

__all__ = ["STUDIES"]
