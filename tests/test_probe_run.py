"""TFRC Probe through `vho.run` (issue 23, points 2 and 3): scenarios/examples/chen-probe.toml,
its detections in summary.json and the estimate over time in series_probe.parquet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vho

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "examples" / "chen-probe.toml"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("probe") / "run"
    vho.run(SCENARIO, out_dir=d)
    return d


def test_ihn_detections_are_in_the_summary(out: Path) -> None:
    # Chen et al. §3.3: 150 kb/s -> 5 Mb/s at 100 s is LOW-to-HIGH (C' > 5C), the way back
    # at 200 s HIGH-to-LOW (C' < 0.2C); FRA answers the first.
    p = json.loads((out / "summary.json").read_text())["flows"][0]["probe"]
    got = [(d["by"], d["direction"], d["action"]) for d in p["detections"]]
    assert got == [("ihn", "low-to-high", "fra"), ("ihn", "high-to-low", None)]
    up, down = p["detections"]
    assert 0 < up["after_handover_s"] < 30 and 0 < down["after_handover_s"] < 60
    assert up["at_s"] == pytest.approx(100 + up["after_handover_s"])
    assert p["pairs"] > 100 and p["pairs_refused"] == 0


def test_series_probe_has_the_estimates(out: Path) -> None:
    pd = pytest.importorskip("pandas")
    df = pd.read_parquet(out / "series_probe.parquet")
    assert list(df.columns) == ["t_s", "estimate_bps", "flow"]
    assert (df["flow"] == "tfrc-probe").all()
    assert df["t_s"].is_monotonic_increasing
    # CapProbe's estimate is the last hop's capacity on each side of the handoffs (one row per
    # change: the last row before each handoff holds the estimate then).
    before = df[df["t_s"] < 100]["estimate_bps"].iloc[-1]
    between = df[df["t_s"] < 200]["estimate_bps"].iloc[-1]
    after = df["estimate_bps"].iloc[-1]
    assert before == pytest.approx(150e3, rel=0.02)
    assert between == pytest.approx(5e6, rel=0.02)
    assert after == pytest.approx(150e3, rel=0.02)
