"""`vho reproduce STUDY`: each source study's tables and figures, side by side with the paper.

One module per study; :data:`STUDIES` maps the command's study names to their entry points.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import daniel_kojo

#: Study name -> ``reproduce(out, *, quick, workers, seed, quiet, sensitivity) -> report path``.
STUDIES: dict[str, Callable[..., Path]] = {"daniel-kojo": daniel_kojo.reproduce}

__all__ = ["STUDIES"]
