"""vho's TFRC against ns-2.35's Agent/TFRC (Debian's `ns`) on the same Bernoulli-lossy
dumbbell (issue 23, point 1): benches/ns2/tfrc_lossy.tcl beside
scenarios/examples/tfrc-lossy.toml with the `ns2` profile, means over seeds of the sending
rate (data bytes sent over the run) and of the loss event rate p (time-weighted).

The case held here is 1 % loss over 300 s, five seeds (target 5 %). Over 20 seeds the rate
agrees within 2.5 % at 1, 3 and 10 %, p within 3.4 % at 1 % and 1.6 % at 10 % but 5.1 %
above ns-2's at 3 % (the table is in benches/ns2_tfrc.py's doc).
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
from pathlib import Path

import pytest

import vho

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "benches" / "ns2" / "tfrc_lossy.tcl"
SCENARIO = ROOT / "scenarios" / "examples" / "tfrc-lossy.toml"

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) missing")

LOSS, DURATION_S, SEEDS, TOLERANCE = 0.01, 300.0, (1, 2, 3, 4, 5), 0.05


def ns2(seed: int, tmp: Path) -> tuple[float, float]:
    out = subprocess.run(
        ["ns", str(TCL), repr(LOSS), str(seed), repr(DURATION_S)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp,
    ).stdout
    m = re.search(r"mean_rate_bps=([0-9.]+)", out)
    assert m, out
    # tfrc-sink.cc print_loss: "time: T loss_rate: P" at each computation; held until the next.
    found = re.findall(r"^time: *([0-9.]+) loss_rate: *([0-9.e+-]+)", out, re.M)
    area, last_t, last_p = 0.0, 0.0, 0.0
    for t, v in ((float(t), float(v)) for t, v in found):
        area += last_p * (t - last_t)
        last_t, last_p = t, v
    area += last_p * (DURATION_S - last_t)
    return float(m.group(1)), area / DURATION_S


def ours(seed: int) -> tuple[float, float]:
    res = vho.run(
        SCENARIO,
        seed=seed,
        overrides=[
            f"link.1.forward.loss={LOSS}",
            f'run.stop="{DURATION_S} s"',
            'flow.0.tfrc.profile="ns2"',
            "record.series=false",
        ],
    )
    t = res.summary["flows"][0]["tfrc"]
    return t["mean_sending_rate_bps"], t["mean_p"]


def test_tfrc_agrees_with_ns2_at_one_percent_loss(tmp_path: Path) -> None:
    theirs = [ns2(s, tmp_path) for s in SEEDS]
    mine = [ours(s) for s in SEEDS]
    for i, what in enumerate(("mean sending rate", "mean loss event rate")):
        a = statistics.mean(x[i] for x in mine)
        b = statistics.mean(x[i] for x in theirs)
        assert abs(a / b - 1) < TOLERANCE, f"{what}: vho {a:.6g}, ns-2 {b:.6g}"
