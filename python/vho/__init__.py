"""vho: a lab for TCP across vertical handovers.

>>> import vho
>>> r = vho.run("scenarios/examples/dk-fig1-wlan-gprs.toml")
>>> r  # doctest: +SKIP
RunResult('Daniel & Kojo Fig. 1: WLAN -> GPRS at 0.6 s, 200 KB'; seed 1; simulated 4.414 s, ...)
>>> r.flows_frame()[["name", "transfer_time_s", "retransmissions", "drops"]]  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _sigint  # noqa: F401  (first: Ctrl-C while the command loads)
from ._native import __version__
from .errors import (
    CaptureError,
    OutputError,
    ScenarioError,
    SimulationError,
    SweepError,
    VhoError,
)
from .runner import RunResult, presets, resolved, run

if TYPE_CHECKING:
    from .analysis import CaptureAnalysis, analyze

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


#: Names imported on first use: ``vho.analysis`` pulls in pandas and matplotlib (about a
#: second), which ``vho --help``, ``vho presets`` or ``vho run`` without ``--plot`` never need.
_LAZY = {"CaptureAnalysis": "analysis", "analyze": "analysis"}


def __dir__() -> list[str]:
    """PEP 562: ``dir(vho)`` lists the public API (``__all__``, the lazily loaded names
    included) and the submodules already imported, not the helpers this file imports."""
    import types

    modules = {n for n, v in globals().items() if isinstance(v, types.ModuleType)}
    return sorted(set(__all__) | {n for n in modules if not n.startswith("_")})


def __getattr__(name: str) -> Any:
    """PEP 562: ``vho.analyze`` and ``vho.CaptureAnalysis`` load :mod:`vho.analysis` when first
    asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vho' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
