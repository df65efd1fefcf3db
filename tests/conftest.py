"""Shared fixtures: paths of the bundled scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenarios" / "examples"


@pytest.fixture
def fig1() -> Path:
    """Daniel & Kojo's Figure 1 case (WLAN -> GPRS at 0.6 s, 200 KB, ns-2 profile)."""
    return EXAMPLES / "dk-fig1-wlan-gprs.toml"
