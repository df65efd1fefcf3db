"""The ns-3 peer of benches/ns3_side_by_side.py simulates what vho simulates: Daniel & Kojo's
WLAN -> GPRS soft handover cell (benches/scenarios/dk-wlan-gprs-20mb.toml; ns-3:
benches/ns3/dumbbell.cc), cut to 2 MB. The speed ratio the bench reports means something only
if the two agree on the transfer: the data packets sent within 1 %, and the instant the sender
saw the last byte acknowledged within 2 s. ns-3 ends 1.4 s later with the link changed in place,
at 2 MB as at 20 MB (81.39 s against 79.98 s here; 821.02 s against 819.61 s at 20 MB), 1.0 s
later with the route switched (80.99 s against 79.98 s): its handover costs it two timeouts
(0.697 s and 1.169 s: it recomputes the RTO from the estimator when it sends, not keeping the
backoff) and a restart in congestion avoidance from ssthresh 2 segments; on GPRS after that
the two send at the same rate. ns-3 is a bench's peer, not a dependency: without
Debian's libns3-dev (and g++) the test is skipped, never failed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import vho

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))
from ns3_side_by_side import CELL_20MB

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "benches" / "scenarios" / "dk-wlan-gprs-20mb.toml"
BYTES = 2_000_000


def _have_ns3() -> bool:
    if shutil.which("g++") is None or shutil.which("pkg-config") is None:
        return False
    return subprocess.run(["pkg-config", "--exists", "ns3-core"], check=False).returncode == 0


pytestmark = pytest.mark.skipif(not _have_ns3(), reason="ns-3 (Debian libns3-dev) missing")


@pytest.fixture(scope="module")
def dumbbell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("target")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    subprocess.run(["sh", str(ROOT / "benches/ns3/build.sh")], check=True, env=env)
    return target / "ns3" / "dumbbell"


# The soft handover as ns-2's in-place link change (vho's soft-reconfigure, ns-3's
# reconfigure) and as make before break over two links (vho's soft, ns-3's route switch).
@pytest.mark.parametrize(
    ("ho_mode", "kind"), [("reconfigure", "soft-reconfigure"), ("route", "soft")]
)
def test_ns3_and_vho_agree_on_the_handover_cell(dumbbell: Path, ho_mode: str, kind: str) -> None:
    # The bench's cell (benches/ns3_side_by_side.py), cut to BYTES.
    cell = [a for a in CELL_20MB if not a.startswith("tcp_bytes=")]
    args = [*cell, f"tcp_bytes={BYTES}", f"ho_mode={ho_mode}"]
    out = subprocess.run([str(dumbbell), *args], capture_output=True, text=True, check=True).stdout
    ns3 = {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.eE+-]+)", out)}
    sets = [f'flow.0.size="{BYTES} B"', f'handover.0.kind="{kind}"']
    ours = vho.run(SCENARIO, overrides=sets).summary
    assert ns3["data_packets"] == pytest.approx(ours["flows"][0]["data_packets_sent"], rel=0.01)
    assert ns3["sender_done_s"] == pytest.approx(ours["run"]["simulated_s"], abs=2.0)
