"""Mutated scenarios through `vho run` (benches/fuzz_scenarios.py, a few dozen here): each a
clean refusal or a plausible run, never a hang, a traceback or a write outside --out."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benches" / "fuzz_scenarios.py"


def test_mutated_scenarios_are_refused_cleanly_or_run() -> None:
    spec = importlib.util.spec_from_file_location("fuzz_scenarios", BENCH)
    assert spec and spec.loader
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz  # dataclasses look their module up
    spec.loader.exec_module(fuzz)
    results = fuzz.fuzz(cases=24, seed=11, timeout=60.0)
    bad = [f"case {r.case}: {r.verdict}: {r.detail}" for r in results]
    bad = [b for b, r in zip(bad, results, strict=True) if r.verdict not in ("run", "refused")]
    assert not bad, bad
    # The mix exercises both outcomes.
    assert {r.verdict for r in results} == {"run", "refused"}
