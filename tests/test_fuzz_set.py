"""Hostile `--set key=value` through `vho run` (benches/fuzz_set.py, two dozen here; the bench
runs a thousand): each a clean refusal naming the --set, a plausible run or a dry run whose
resolved scenario loads again, never a hang, a traceback, a write outside --out or a refusal
that touched an earlier output (issue 40)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benches" / "fuzz_set.py"


def test_hostile_sets_are_refused_cleanly_or_run() -> None:
    spec = importlib.util.spec_from_file_location("fuzz_set", BENCH)
    assert spec and spec.loader
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz  # dataclasses look their module up
    spec.loader.exec_module(fuzz)
    results = fuzz.fuzz(cases=24, seed=40, timeout=60.0, jobs=2)
    good = {"run", "refused", "dry-run"}
    bad = [f"case {r.case}: {r.verdict}: {r.detail} <- {r.sets}" for r in results]
    bad = [b for b, r in zip(bad, results, strict=True) if r.verdict not in good]
    assert not bad, bad
    # The mix exercises both outcomes.
    assert {"run", "refused"} <= {r.verdict for r in results}
