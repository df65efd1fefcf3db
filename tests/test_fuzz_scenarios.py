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


def test_mutated_scenarios_of_the_later_sections_are_refused_cleanly_or_run() -> None:
    # [mipv6], [nemo], schedules (ramps and a trace file), TFRC, Pareto and probes, with
    # issue 40's hostile values among the inserted keys (a 1 ns advertisement interval, a
    # 1 ns ramp step, /dev/zero or /dev/stdin as a trace file, ...): never a hang or a
    # traceback. benches/fuzz_scenarios.py --surface new runs a thousand.
    spec = importlib.util.spec_from_file_location("fuzz_scenarios_new", BENCH)
    assert spec and spec.loader
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz
    spec.loader.exec_module(fuzz)
    results = fuzz.fuzz(cases=24, seed=5, timeout=60.0, surface="new", jobs=2)
    bad = [f"case {r.case}: {r.verdict}: {r.detail}" for r in results]
    bad = [b for b, r in zip(bad, results, strict=True) if r.verdict not in ("run", "refused")]
    assert not bad, bad
