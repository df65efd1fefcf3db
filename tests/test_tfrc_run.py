"""A TFRC flow through `vho.run` (issue 23, point 1): what summary.json says of it,
series_tfrc.parquet, and its packets in a capture as UDP that tshark reads."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import vho

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "examples" / "tfrc-lossy.toml"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("tfrc") / "run"
    vho.run(SCENARIO, out_dir=d, overrides=['record.pcap=["dst"]', 'run.stop="20 s"'])
    return d


def test_the_summary_has_the_tfrc_record(out: Path) -> None:
    s = json.loads((out / "summary.json").read_text())
    assert s["run"]["conservation_ok"] and s["run"]["ended_by"] == "stop_time"
    assert s["run"]["warnings"] == []  # a TFRC flow runs to the stop time by design
    t = s["flows"][0]["tfrc"]
    assert t["packet_size"] == 1000
    assert t["bytes_sent"] == 1000 * t["packets_sent"]
    assert t["packets_received"] + t["packets_lost"] <= t["packets_sent"]
    assert 0 < t["mean_throughput_bps"] <= t["mean_sending_rate_bps"]
    # 1 % Bernoulli loss: p near 0.01 (a 20 s run: loose), one feedback per RTT or so.
    assert 0.002 < t["mean_p"] < 0.03
    assert t["feedback_received"] > 20 / 0.2
    assert t["nofeedback_expiries"] == 0
    drops = sum(d["packets"] for d in s["flows"][0]["drops"])
    missing = t["packets_sent"] - t["packets_received"]
    assert 0 < drops <= missing < drops + 50  # the rest still in flight at the stop


def test_series_tfrc_has_the_senders_state(out: Path) -> None:
    pd = pytest.importorskip("pandas")
    df = pd.read_parquet(out / "series_tfrc.parquet")
    assert list(df.columns) == ["t_s", "x_bps", "x_recv_bps", "p", "rtt_s", "flow"]
    assert (df["flow"] == "tfrc").all()
    assert df["t_s"].is_monotonic_increasing
    # R is the path's: 2 * (10 + 40) ms plus serialisation, once measured.
    rtt = df["rtt_s"][df["rtt_s"] > 0]
    assert ((rtt > 0.1) & (rtt < 0.12)).all()


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing")
def test_tshark_reads_tfrc_as_udp_with_good_checksums(out: Path) -> None:
    fields = subprocess.run(
        [
            "tshark",
            "-r",
            str(out / "dst.pcap"),
            "-o",
            "udp.check_checksum:TRUE",
            "-T",
            "fields",
            "-e",
            "udp.srcport",
            "-e",
            "udp.length",
            "-e",
            "udp.checksum.status",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    rows = [r.split("\t") for r in fields if r]
    data = [r for r in rows if r[0] == "5001"]
    feedback = [r for r in rows if r[0] == "40001"]
    assert data and feedback
    # 8 UDP + 12 TFRC + 1000 data; 8 UDP + 16 feedback; status 1: good.
    assert {r[1] for r in data} == {"1020"} and {r[1] for r in feedback} == {"24"}
    assert {r[2] for r in rows} == {"1"}
