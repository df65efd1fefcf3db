"""Sweeps: replications and parameter grids, resumable, on local cores or a Dask cluster.

>>> from vho import sweep
>>> s = sweep.load("benches/sweeps/short-runs.toml")  # doctest: +SKIP
>>> sweep.run(s, "out/short")  # doctest: +SKIP
>>> df = sweep.results("out/short")  # doctest: +SKIP
"""

from __future__ import annotations

from .engine import flatten_summary, run
from .spec import Sweep, Task, load, parse
from .store import load as results
from .summarize import DEFAULT_METRICS, default_metrics, summarize, to_markdown

__all__ = [
    "DEFAULT_METRICS",
    "Sweep",
    "Task",
    "default_metrics",
    "flatten_summary",
    "load",
    "parse",
    "results",
    "run",
    "summarize",
    "to_markdown",
]
