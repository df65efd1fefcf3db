"""The sweep engine's measured runs (what `vho reproduce` runs on): each run recorded into a
scratch directory and measured in the worker, the first replications' directories kept under
the sweep's, per-point replications and scenario texts, draws per replication, sequential
seeds; the same rows and kept files on local workers, on a Dask cluster, and after a resume."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from vho import sweep
from vho.sweep.spec import Measure, Sweep

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"


def measure_fig1(run_dir: Path, result, params: dict) -> dict[str, float]:
    """A measurement from the run's directory: its capture's size and the summary's time,
    scaled by a parameter of the point."""
    (run_dir / "note.txt").write_text("measured\n")
    summary = json.loads((run_dir / "summary.json").read_text())
    return {
        "pcap_bytes": float((run_dir / "ch.pcap").stat().st_size),
        "scaled_s": params["k"] * summary["flows"][0]["transfer_time_s"],
        "same_as_result": float(result.summary == summary),
    }


def _sweep(measure: str = f"{__name__}:measure_fig1") -> Sweep:
    text = FIG1.read_text()
    record = ('record.pcap=["ch"]', "record.series=false")
    return Sweep(
        label=str(FIG1),
        text=text,
        fixed=[],
        columns=[],
        points=[{"case": "a", "variant": "x"}, {"case": "b", "variant": "y"}],
        replications=3,
        seed=7,
        seeds="sequential",
        labels=["case", "variant"],
        extra=[('flow.0.size="100 KB"',), ()],
        point_replications=[3, 2],
        measures=[
            Measure(measure, record, (("k", 2.0),), keep=1, keep_dir="a/x"),
            Measure(measure, record, (("k", 3.0),), keep=0, keep_dir="b/y"),
        ],
        draws=[[(f'handover.0.at="{0.5 + r / 10:g} s"',) for r in range(3)]] * 2,
    )


def _rows(out: Path) -> pd.DataFrame:
    df = sweep.results(out).drop(columns=["wall_s"])
    return df.sort_values("task").reset_index(drop=True)


def test_measured_runs_keep_what_is_asked_and_measure_in_the_worker(tmp_path: Path) -> None:
    s = _sweep()
    assert [(t.point, t.replication, t.seed) for t in s.tasks()] == [
        (0, 0, 7), (0, 1, 8), (0, 2, 9), (1, 0, 7), (1, 1, 8),
    ]  # fmt: skip
    out = tmp_path / "s"
    sweep.run(s, out, workers=2, quiet=True)
    df = _rows(out)
    assert df["error"].isna().all() and len(df) == 5
    m = pd.DataFrame([json.loads(x) for x in df["measured"]])
    assert (m["same_as_result"] == 1).all() and (m["pcap_bytes"] > 0).all()
    k = df["case"].map({"a": 2.0, "b": 3.0})
    assert m["scaled_s"].to_numpy() == pytest.approx((k * df["transfer_time_s"]).to_numpy())
    # The drawn overrides are the rows' draws, and they were run: 100 KB at point a only.
    assert list(df["draws"]) == [f'handover.0.at="{x} s"' for x in ("0.5", "0.6", "0.7")] * 1 + [
        'handover.0.at="0.5 s"',
        'handover.0.at="0.6 s"',
    ]
    assert (df[df["case"] == "a"]["bytes"] == 100_000).all()
    assert (df[df["case"] == "b"]["bytes"] == 200_000).all()
    # Kept: point a's first replication, whole, with the measurement's own file; nothing else.
    kept = sorted(p.relative_to(out) for p in out.glob("*/*/rep-*"))
    assert kept == [Path("a/x/rep-0")]
    assert (out / "a/x/rep-0/note.txt").exists() and (out / "a/x/rep-0/ch.pcap").exists()
    # Resumed with everything done, nothing runs again and nothing changes.
    sweep.run(s, out, workers=2, resume=True, quiet=True)
    pd.testing.assert_frame_equal(_rows(out), df)


def test_the_dask_path_ships_the_kept_runs_back(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    s = _sweep()
    sweep.run(s, tmp_path / "local", workers=1, quiet=True)
    # Threads: the workers import this test module's measure function as the parent did.
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        sweep.run(s, tmp_path / "dask", scheduler=cluster.scheduler_address, quiet=True)
    pd.testing.assert_frame_equal(_rows(tmp_path / "local"), _rows(tmp_path / "dask"))
    a, b = tmp_path / "local" / "a/x/rep-0", tmp_path / "dask" / "a/x/rep-0"
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
    assert (a / "ch.pcap").read_bytes() == (b / "ch.pcap").read_bytes()


def test_a_measurement_that_fails_is_a_row_saying_so(tmp_path: Path) -> None:
    s = _sweep(measure=f"{__name__}:no_such_function")
    out = tmp_path / "s"
    sweep.run(s, out, workers=1, quiet=True)
    df = sweep.results(out)
    assert df["error"].str.contains("internal error: AttributeError").all()
    assert not list(out.glob("*/*/rep-*"))
