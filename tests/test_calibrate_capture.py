"""The real-capture recovery of issue 36, small: a Linux TCP transfer through network
namespaces (`vho emulate`) whose path has a tbf rate and a delay the fit is not told, captured
at the sender and read by `vho analyze`; `vho calibrate` fits the access link of
``scenarios/examples/linux-access-link.toml`` to the goodput and the handshake's round trip
it read, and must recover both within 10 %. ``benches/calibrate_capture.py`` is the full one
(three cases, more trials, larger transfers).

Needs root and ``tc``; skipped otherwise. `vho emulate` removes every namespace it made.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benches" / "calibrate_capture.py"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("tc") is None or not Path("/dev/net/tun").exists(),
    reason="needs root, tc and /dev/net/tun (network namespaces, vho emulate)",
)


def _bench():
    spec = importlib.util.spec_from_file_location("calibrate_capture", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _namespaces() -> set[str]:
    """The namespaces of the scenario's hosts (`vho emulate` names them
    ``vho-<pid>-k<token>-<node>``; other runs on the machine may hold others meanwhile)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    names = {line.split()[0] for line in out.splitlines() if line.strip()}
    return {n for n in names if n.endswith(("-sender", "-router", "-receiver"))}


def test_a_captured_access_links_rate_and_delay_are_recovered_within_10_percent(
    tmp_path: Path,
) -> None:
    before = _namespaces()
    bench = _bench()
    # The truth: 6 Mb/s of tbf and 35 ms each way, neither the scenario's (10 Mb/s, 20 ms).
    r = bench.recover(6.0, 35.0, 1_500_000, trials=12, refine=12, work=tmp_path)
    assert abs(r["rate_error"]) <= 0.10, r
    assert abs(r["delay_error"]) <= 0.10, r
    # The fit moved from the defaults to the truth: the captured numbers were far from them.
    assert r["handshake_rtt_s"] > 0.065
    assert _namespaces() <= before
