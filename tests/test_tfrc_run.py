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


def test_a_written_run_spills_its_series_and_writes_parquet_in_bounded_row_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 40 item 14: a 10,000 s TFRC run's queue series (5 M rows here, 48 M in the
    issue's) was held whole, in Rust and then in Python, until the end. With an output
    directory the core hands the rows to a file in the staging directory 16 Ki rows at a
    time, and Parquet is written from it a row group at a time: the rows and frames are
    those of a run held in memory, and no spill file is left."""
    import pandas as pd
    import pyarrow.parquet as pq

    from vho import _native, runner

    sets = ['run.stop="5 s"']
    stage = tmp_path / "stage"
    stage.mkdir()
    raw = _native.run_scenario(str(SCENARIO), SCENARIO.read_text(), sets, None, str(stage))
    q = raw["queue_series"]
    assert set(q) == {"rows", "path"} and q["rows"] > 3000
    assert Path(q["path"]).parent == stage
    assert Path(q["path"]).stat().st_size == q["rows"] * runner._Rows(q, "queues").dtype.itemsize
    held = vho.run(SCENARIO, overrides=sets)
    monkeypatch.setattr(runner, "ROW_GROUP_ROWS", 1000)
    r = vho.run(SCENARIO, out_dir=tmp_path / "run", overrides=sets)
    path = tmp_path / "run" / "series_queues.parquet"
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == q["rows"]
    assert meta.num_row_groups == -(-q["rows"] // 1000)
    assert {meta.row_group(i).num_rows for i in range(meta.num_row_groups - 1)} == {1000}
    assert held.queues is not None and held.drops is not None
    pd.testing.assert_frame_equal(r.queues, held.queues)
    pd.testing.assert_frame_equal(r.drops, held.drops)
    assert list(r.queues.columns) == ["t_s", "link", "from", "to", "packets", "bytes"]
    assert r.queues["packets"].dtype == "int64" and r.queues["t_s"].dtype == "float64"
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if p.name.startswith(".")) == [
        ".vho-output"
    ]
