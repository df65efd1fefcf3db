"""`vho emulate` interrupted at random instants (benches/fuzz_emulate.py, a dozen cases here;
the bench runs a thousand): no traceback, a status the case explains, no namespace or process
of the run left, nothing outside --out, no interrupted output present as complete (issue 40).
Needs root and iproute2."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benches" / "fuzz_emulate.py"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="needs root and ip (iproute2)",
)


def test_emulations_interrupted_at_random_instants_leave_nothing() -> None:
    spec = importlib.util.spec_from_file_location("fuzz_emulate", BENCH)
    assert spec and spec.loader
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz  # dataclasses look their module up
    spec.loader.exec_module(fuzz)
    results = fuzz.fuzz(cases=12, seed=40, timeout=120.0)
    bad = [
        f"case {r.case.case}: {r.verdict}: {r.detail} <- {r.case.scenario}, {r.case.plan}"
        for r in results
        if r.verdict not in fuzz.GOOD
    ]
    assert not bad, bad
