"""Every study on the one engine (issue 35 point 1): each runs under the sweep engine on a Dask
`LocalCluster` (quick, without its sensitivity runs; kept runs shipped back from the workers),
with the same table as on local workers; and a study killed with SIGKILL resumes its runs
rather than making them again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from vho.reproduce import STUDIES, study
from vho.reproduce.study import Options


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_a_study_runs_on_a_dask_cluster(name: str, cluster, tmp_path: Path) -> None:
    s = STUDIES[name]
    out = tmp_path / name
    report = study.reproduce(
        s, out, quick=True, sensitivity=False, quiet=True, scheduler=cluster.scheduler_address
    )
    assert report.exists()
    design = s.design(Options(quick=True, sensitivity=False))
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == sum(p.replications for p in design.points)
    t = pd.read_csv(out / "table.csv")
    assert list(t["key"]) == [n.key for n in s.paper]
    # The runs the report reads came back from the workers whole.
    for p in design.points:
        for r in range(min(p.keep, p.replications)):
            assert (out / "runs" / p.case / p.variant / f"rep-{r}" / "summary.json").exists()
    if name == "naoe":  # the cheapest: its table as local workers make it
        local = study.reproduce(s, tmp_path / "local", quick=True, sensitivity=False, quiet=True)
        assert (local.parent / "table.csv").read_bytes() == (out / "table.csv").read_bytes()


def test_a_killed_study_resumes_its_runs(tmp_path: Path) -> None:
    out = tmp_path / "naoe"
    cmd = [sys.executable, "-m", "vho.cli", "reproduce", "naoe", "--quick", "--quiet",
           "--no-sensitivity", "--workers", "1", "--out", str(out)]  # fmt: skip
    p = subprocess.Popen(cmd, start_new_session=True)
    parts: list[Path] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(parts) < 2:
        parts = sorted(tmp_path.glob(".vho-runs-naoe-*/results/part-*.parquet"))
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    assert len(parts) >= 2, "no results before the kill"
    done = {q.name: q.read_bytes() for q in parts}
    assert not (out / "report.md").exists()
    assert subprocess.run(cmd, check=False).returncode == 0
    # The parts made before the kill are the output's: those runs were not made again.
    for name, data in done.items():
        assert (out / "runs" / "results" / name).read_bytes() == data
    assert not list(tmp_path.glob(".vho-runs-naoe-*"))
