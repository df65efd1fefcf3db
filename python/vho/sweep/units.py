"""Axis values with units (``"500 ms"``, ``"2 MB"``, ``"200 kb/s"``, ``"20 packets"``) as
numbers in one base unit per kind, so that a sweep's axes sort and plot as numbers.

A value is read as the simulator reads it (``crates/vho-sim/src/scenario/units.rs``: a number,
optional spaces, a unit from a fixed list); the base units are seconds (``s``), bytes (``B``),
bits per second (``b/s``) and packets (``packets``). Each axis whose every value carries a unit
of one kind gets a float column ``<axis>_si`` beside its labels (see :mod:`vho.sweep.store`).
"""

from __future__ import annotations

import math
import re
from typing import Any

#: unit -> (base unit, factor), as units.rs accepts them.
UNITS: dict[str, tuple[str, float]] = {
    "ns": ("s", 1e-9),
    "us": ("s", 1e-6),
    "µs": ("s", 1e-6),
    "ms": ("s", 1e-3),
    "s": ("s", 1.0),
    "B": ("B", 1.0),
    "KB": ("B", 1e3),
    "kB": ("B", 1e3),
    "KiB": ("B", 1024.0),
    "MB": ("B", 1e6),
    "MiB": ("B", 1024.0**2),
    "GB": ("B", 1e9),
    "GiB": ("B", 1024.0**3),
    "b/s": ("b/s", 1.0),
    "bps": ("b/s", 1.0),
    "kb/s": ("b/s", 1e3),
    "kbps": ("b/s", 1e3),
    "Mb/s": ("b/s", 1e6),
    "Mbps": ("b/s", 1e6),
    "Gb/s": ("b/s", 1e9),
    "Gbps": ("b/s", 1e9),
    "pkt": ("packets", 1.0),
    "packets": ("packets", 1.0),
}

#: The suffix of an axis's numeric column: ``handover.0.at`` -> ``handover.0.at_si``.
SI_SUFFIX = "_si"

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S+)\s*$")


def quantity(v: Any) -> tuple[float, str] | None:
    """``"500 ms"`` -> (0.5, "s"); None for anything that is not a number with a known unit."""
    if not isinstance(v, str):
        return None
    m = _QUANTITY.match(v)
    if m is None or m.group(2) not in UNITS:
        return None
    base, factor = UNITS[m.group(2)]
    x = float(m.group(1)) * factor
    return (x, base) if math.isfinite(x) else None


def axis_unit(values: list[Any]) -> str | None:
    """The base unit shared by every value of an axis, or None (a value without a unit, units
    of different kinds)."""
    units = set()
    for v in values:
        q = quantity(v)
        if q is None:
            return None
        units.add(q[1])
    return units.pop() if len(units) == 1 else None
