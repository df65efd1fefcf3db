"""vho: a lab for TCP across vertical handovers.

>>> import vho
>>> r = vho.run("scenarios/examples/dk-fig1-wlan-gprs.toml")
>>> r.flows[0]["transfer_time_s"]  # doctest: +SKIP
"""

from __future__ import annotations

from ._native import __version__
from .analysis import CaptureAnalysis, analyze
from .errors import (
    CaptureError,
    OutputError,
    ScenarioError,
    SimulationError,
    SweepError,
    VhoError,
)
from .runner import RunResult, presets, resolved, run

__all__ = [
    "CaptureAnalysis",
    "CaptureError",
    "OutputError",
    "RunResult",
    "ScenarioError",
    "SimulationError",
    "SweepError",
    "VhoError",
    "__version__",
    "analyze",
    "presets",
    "resolved",
    "run",
]
