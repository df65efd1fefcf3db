"""Cross traffic through `vho.run` (issue 23, point 4): Chen et al.'s study with its 16 Pareto
flows, recorded as aggregates (summary.json's flows[].cross, series_cross.parquet) and never
captured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vho

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "studies" / "chen.toml"
STOP_S = 20


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("chen") / "run"
    # n10 is the sink of four Pareto flows (7 -> 10): a capture there would see them.
    vho.run(SCENARIO, out_dir=d, overrides=['record.pcap=["n10"]', f'run.stop="{STOP_S} s"'])
    return d


def test_the_summary_has_each_pareto_flows_aggregates(out: Path) -> None:
    s = json.loads((out / "summary.json").read_text())
    assert s["run"]["conservation_ok"]
    # Cross traffic runs to the stop by design: no warning of it (only of the handover at
    # 600 s, after this short run's end).
    assert [w for w in s["run"]["warnings"] if "flow" in w] == []
    cross = [f for f in s["flows"] if "cross" in f]
    assert len(cross) == 16  # Chen et al. §5 (l.129)
    for f in cross:
        c = f["cross"]
        assert c["shape"] == 1.9 and c["packet_size"] == 210
        assert c["configured_mean_bps"] == 25e6 / 16
        assert c["bytes_sent"] == 210 * c["packets_sent"]
        assert c["packets_delivered"] + c["packets_dropped"] <= c["packets_sent"]
    # 100 Mb/s links under 25 Mb/s of cross traffic: nothing dropped; over 20 s the mean of a
    # shape-1.9 source is loose, the sum of 16 within a third of 25 Mb/s.
    assert sum(f["cross"]["packets_dropped"] for f in cross) == 0
    total = sum(f["cross"]["mean_delivered_bps"] for f in cross)
    assert 25e6 * 2 / 3 < total < 25e6 * 4 / 3


def test_series_cross_has_a_row_per_flow_per_second(out: Path) -> None:
    pd = pytest.importorskip("pandas")
    s = json.loads((out / "summary.json").read_text())
    df = pd.read_parquet(out / "series_cross.parquet")
    assert list(df.columns) == [
        "flow",
        "t_s",
        "sent_bytes",
        "delivered_bytes",
        "sent_bps",
        "delivered_bps",
    ]
    assert len(df) == 16 * STOP_S
    for f in s["flows"]:
        if "cross" not in f:
            continue
        rows = df[df["flow"] == f["name"]]
        assert list(rows["t_s"]) == [float(i) for i in range(STOP_S)]
        assert rows["sent_bytes"].sum() == f["cross"]["bytes_sent"]
        assert rows["delivered_bytes"].sum() == f["cross"]["bytes_delivered"]


def test_cross_traffic_is_not_captured(out: Path) -> None:
    # A pcap is its 24-byte global header and its records: none at a cross-traffic sink.
    assert (out / "n10.pcap").stat().st_size == 24


def test_record_pcap_cross_writes_each_datagram_as_udp(tmp_path: Path) -> None:
    # Asked for with record.pcap_cross: at n10 every datagram of the four flows 7 -> 10 it
    # received, each a 16-byte record header and the 210 bytes of packet_size (IPv4 + UDP +
    # 182 zero bytes: ns-2's Agent/UDP adds no header).
    d = tmp_path / "run"
    sets = ['record.pcap=["n10"]', "record.pcap_cross=true", 'run.stop="5 s"']
    vho.run(SCENARIO, out_dir=d, overrides=sets)
    s = json.loads((d / "summary.json").read_text())
    got = sum(f["cross"]["packets_delivered"] for f in s["flows"] if f["to"] == "n10")
    assert got > 1000
    assert (d / "n10.pcap").stat().st_size == 24 + got * (16 + 210)
