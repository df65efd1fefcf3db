"""vho's RED against ns-2.35's Queue/RED (Debian's `ns`), a cheap cut of benches/ns2_red.py:
four long-lived TCP flows through a 2 Mb/s, 20 ms RED bottleneck for 60 s, eight seeds each.
RED's draws cannot match between the simulators, so the means over the seeds are held: RED's
mean average queue and the goodput within 3 %, early drops per second within 10 %, forced
drops (the hard limit, the slow-start overshoot) within 3 per run. The full comparison
(100-200 s, 20 seeds, four cases) measured every mean within 1.5 %.

The rules themselves (thresholds, gentle, wait, byte mode, the idle decay, the hard limit)
are unit tests beside the code (crates/vho-sim/src/link/red.rs), which need no ns-2.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches"))

import ns2_red  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) missing")


def test_red_agrees_with_ns2_over_seeds() -> None:
    row = ns2_red.compare(ns2_red.CASES[0], range(1, 9), 60.0)
    assert abs(row["mean_avg_bytes_rel"]) < 0.03, row
    assert abs(row["goodput_bps_rel"]) < 0.03, row
    assert abs(row["early_per_s_rel"]) < 0.10, row
    assert abs(row["vho_forced"] - row["ns2_forced"]) < 3, row
    # RED did its work: the average stayed between the thresholds (2500 and 7500 B at
    # 2 Mb/s: max(5, 0.005 s x 500/s / 2) packets of 500 B, three times that).
    assert 2500 < row["vho_mean_avg_bytes"] < 7500, row
