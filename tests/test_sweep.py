"""vho sweep: sweep files checked before anything runs, seeds independent of order and
worker, resumable after SIGKILL with nothing lost or doubled, the Dask path equal to the local
one, summaries in the papers' form."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from vho import sweep
from vho.cli import main
from vho.errors import SweepError

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"

# Columns that legitimately differ between two runs of the same sweep.
VOLATILE = ["wall_s"]


def write(tmp_path: Path, body: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(f'[sweep]\nscenario = "{FIG1}"\n' + body, encoding="utf-8")
    return p


GRID = """replications = 3
seed = 5

[set]
"handover.0.window" = "1 s"

[[axis]]
key = "handover.0.at"
values = ["0.3 s", "0.6 s"]

[[axis]]
zip = { "handover.0.kind" = ["soft-reconfigure", "hard"], "flow.0.size" = ["100 KB", "200 KB"] }
"""


def stable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=VOLATILE).sort_values("task").reset_index(drop=True)


def test_grid_points_seeds_and_rows(tmp_path: Path) -> None:
    s = sweep.load(write(tmp_path, GRID))
    assert s.columns == ["handover.0.at", "handover.0.kind", "flow.0.size"]
    assert len(s.points) == 4 and s.points[1] == {
        "handover.0.at": "0.3 s",
        "handover.0.kind": "hard",
        "flow.0.size": "200 KB",
    }
    seeds = {t.seed for t in s.tasks()}
    assert len(seeds) == 12  # every (point, replication) its own seed
    sweep.run(s, tmp_path / "out", workers=2, quiet=True)
    df = sweep.results(tmp_path / "out")
    assert list(df["task"]) == list(range(12))
    assert df["error"].isna().all()
    assert (df["seed"] == [t.seed for t in s.tasks()]).all()
    # The handover instant is drawn from the run's seed in [at, at + 1 s): replications differ.
    first = df[df["point"] == 0]["handover.0.at_s"]
    assert first.nunique() == 3 and first.between(0.3, 1.3).all()
    assert (df["bytes_delivered"] == df["flow.0.size"].map({"100 KB": 1e5, "200 KB": 2e5})).all()


def test_seed_of_a_run_does_not_depend_on_the_order_of_axes_or_the_workers(
    tmp_path: Path,
) -> None:
    a = sweep.load(write(tmp_path, GRID))
    # The same grid with the axes in the other order.
    swapped = GRID.split("[[axis]]")
    b = sweep.load(
        write(tmp_path, swapped[0] + "[[axis]]" + swapped[2] + "[[axis]]" + swapped[1], "b.toml")
    )
    seeds_a = {(a.point_key(t.point), t.replication): t.seed for t in a.tasks()}
    seeds_b = {(b.point_key(t.point), t.replication): t.seed for t in b.tasks()}
    assert seeds_a == seeds_b
    sweep.run(a, tmp_path / "one", workers=1, quiet=True)
    sweep.run(a, tmp_path / "two", workers=2, quiet=True)
    pd.testing.assert_frame_equal(
        stable(sweep.results(tmp_path / "one")), stable(sweep.results(tmp_path / "two"))
    )


def test_common_random_numbers_share_seeds_across_points(tmp_path: Path) -> None:
    s = sweep.load(write(tmp_path, GRID.replace("seed = 5", 'seed = 5\nseeds = "common"')))
    by_rep: dict[int, set[int]] = {}
    for t in s.tasks():
        by_rep.setdefault(t.replication, set()).add(t.seed)
    assert all(len(v) == 1 for v in by_rep.values()) and len(by_rep) == 3


ISLAND = """[run]
name = "island: c has no link"
stop = "10 s"

[[node]]
name = "a"
kind = "host"

[[node]]
name = "b"
kind = "host"

[[node]]
name = "c"
kind = "host"

[[link]]
name = "ab"
between = ["a", "b"]
preset = "lan-100m"

[[flow]]
from = "a"
to = "b"
size = "10 KB"
"""


def test_a_failing_run_is_a_row_with_its_error(tmp_path: Path) -> None:
    # A flow to c is a valid scenario that cannot be simulated (no route): its runs are rows
    # with the error, and the runs of the other point go on.
    scen = tmp_path / "island.toml"
    scen.write_text(ISLAND, encoding="utf-8")
    f = tmp_path / "s.toml"
    f.write_text(
        f'[sweep]\nscenario = "{scen}"\nreplications = 2\n'
        '[[axis]]\nkey = "flow.0.to"\nvalues = ["b", "c", "b"]\n',
        encoding="utf-8",
    )
    sweep.run(sweep.load(f), tmp_path / "o", workers=1, quiet=True)
    df = sweep.results(tmp_path / "o")
    assert list(df["error"].isna()) == [True, True, False, False, True, True]
    assert df["error"][2] == f"{scen}: flow flow0: no route between a and c"
    assert list(df["completed"].isna()) == [False, False, True, True, False, False]


def test_a_points_replications_in_one_native_call_give_the_rows_of_runs_made_alone(
    tmp_path: Path,
) -> None:
    # A batch runs a point's consecutive replications with one scenario load
    # (`_native.run_seeds`, issue 38); each row must be the one the run gives on its own
    # (`_native.run_scenario`, a batch of one), seed for seed.
    from dataclasses import replace

    from vho.sweep import engine

    s = sweep.load(write(tmp_path, GRID))
    tasks = s.tasks()
    together = engine.run_batch(engine._make_batch(s, tasks))
    assert len(engine._seed_groups(engine._make_batch(s, tasks))) == len(tasks)
    alone = [r for t in tasks for r in engine.run_batch(engine._make_batch(s, [t]))]
    for a, b in zip(together, alone, strict=True):
        assert {k: v for k, v in a.items() if k != "wall_s"} == {
            k: v for k, v in b.items() if k != "wall_s"
        }
    # A time limit runs each in its own child, as before.
    limited = replace(engine._make_batch(s, tasks), run_timeout=60.0)
    assert engine._seed_groups(limited) == {}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[[axis]]\nkey = "handover.0.att"\nvalues = ["1 s"]\n',
            r"s\.toml:4: axis handover\.0\.att = \"1 s\": .*unknown field `att`",
        ),
        (
            '[[axis]]\nkey = "flow.0.size"\nrange = { from = 5, to = 1, step = 1, unit = "KB" }\n',
            r"s\.toml:5: flow\.0\.size range: expected from <= to \(an empty range\)",
        ),
        (
            '[[axis]]\nkey = "flow.0.size"\nvalues = []\n',
            r"s\.toml:5: flow\.0\.size values: "
            r"expected a non-empty list",
        ),
        (
            '[[axis]]\nzip = { "handover.0.at" = ["1 s"], "flow.0.size" = ["1 KB", "2 KB"] }\n',
            r"s\.toml:4: axis 1 zip: expected lists of equal length, found 'handover\.0\.at has 1, "
            r"flow\.0\.size has 2'",
        ),
        (
            '[[axis]]\nkey = "handover.0.at"\nvalues = [5]\n',
            r"s\.toml:5: axis handover\.0\.at = 5: .*expected a string",
        ),
        ("replications = 0\n", r"s\.toml:3: sweep\.replications: expected an integer >= 1"),
        (
            '[[axis]]\nkey = "flow.0.size"\nrange = { from = 1, to = 5, step = 0 }\n',
            r"s\.toml:5: flow\.0\.size range\.step: expected a positive number",
        ),
        ("[set]\nbogus.key = 1\n", r"s\.toml:4: \[set\]: .*bogus"),
        ('seeds = "random"\n', r"s\.toml:3: sweep\.seeds: expected per-point or common"),
        ("[[axis]\n", r"s\.toml:3: "),
        # Python's tomllib recurses once per level (it overflowed into a traceback).
        (
            "[set]\nx = " + "[" * 5000 + "]" * 5000 + "\n",
            r"s\.toml: arrays or inline tables nested too deep",
        ),
    ],
)
def test_bad_sweep_files_are_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    f = write(tmp_path, body)
    out = tmp_path / "out"
    with pytest.raises(SweepError, match=message):
        sweep.load(f)
    assert main(["sweep", str(f), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert not out.exists()


def test_existing_results_need_resume_and_the_same_sweep(tmp_path: Path) -> None:
    f = write(tmp_path, GRID)
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--quiet"]) == 0
    with pytest.raises(SweepError, match="already holds sweep results; pass --resume"):
        sweep.run(sweep.load(f), out, quiet=True)
    other = write(tmp_path, GRID.replace("seed = 5", "seed = 6"), "other.toml")
    with pytest.raises(SweepError, match="results are of another sweep"):
        sweep.run(sweep.load(other), out, resume=True, quiet=True)


KILLABLE = """replications = 150
batch = 2
[set]
"flow.0.size" = "2 MB"
"handover.0.window" = "1 s"
[[axis]]
key = "handover.0.kind"
values = ["soft-reconfigure", "hard"]
"""


def test_sigkill_half_way_then_resume_gives_exactly_the_rows_of_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    f = write(tmp_path, KILLABLE)
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    sweep.run(sweep.load(f), whole, workers=2, quiet=True)
    cmd = [sys.executable, "-m", "vho.cli", "sweep", str(f), "--out", str(killed), "--quiet"]
    proc = subprocess.Popen(cmd, start_new_session=True)
    results = killed / "results"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.is_dir() and len(list(results.glob("part-*.parquet"))) >= 10:
            break
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers
    proc.wait()
    parts = len(list(results.glob("part-*.parquet")))
    assert 10 <= parts < 150, f"not killed half-way: {parts} parts of 150"
    assert '"complete": false' in (killed / "sweep.json").read_text()
    assert main(["sweep", str(f), "--out", str(killed), "--resume", "--quiet"]) == 0
    assert '"complete": true' in (killed / "sweep.json").read_text()
    a, b = stable(sweep.results(whole)), stable(sweep.results(killed))
    assert len(b) == 300 and b["task"].is_unique
    pd.testing.assert_frame_equal(a, b)


def test_dask_local_cluster_gives_the_rows_of_the_local_path(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    s = sweep.load(write(tmp_path, GRID))
    sweep.run(s, tmp_path / "local", workers=2, quiet=True)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        sweep.run(s, tmp_path / "dask", scheduler=cluster.scheduler_address, quiet=True)
    pd.testing.assert_frame_equal(
        stable(sweep.results(tmp_path / "local")), stable(sweep.results(tmp_path / "dask"))
    )


def test_summarize_gives_the_papers_table_form(tmp_path: Path) -> None:
    f = write(tmp_path, GRID)
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--quiet"]) == 0
    assert main(["sweep", "summarize", str(out), "--metric", "transfer_time_s"]) == 0
    t = pd.read_csv(out / "summary.csv")
    assert list(t.columns[:3]) == ["handover.0.at", "handover.0.kind", "flow.0.size"]
    assert len(t) == 4 and (t["n"] == 3).all()
    df = sweep.results(out)
    g = df[df["point"] == 2]["transfer_time_s"]
    row = t[t["point"] == 2].iloc[0]
    assert row["mean"] == pytest.approx(g.mean())
    assert row["std"] == pytest.approx(g.std(ddof=1))
    # 95 % CI of the mean with 3 replications: t(0.975, 2) = 4.303.
    assert row["ci95"] == pytest.approx(4.303 * g.std(ddof=1) / 3**0.5)
    assert "| 0.6 s | hard | 200 KB | 3 |" in (out / "summary.md").read_text()
    assert (
        main(
            [
                "sweep",
                "plot",
                str(out),
                "--x",
                "handover.0.at",
                "--y",
                "transfer_time_s",
                "--hue",
                "handover.0.kind",
            ]
        )
        == 0
    )
    assert (out / "plot_transfer_time_s_vs_handover.0.at_by_handover.0.kind.png").stat().st_size


def test_results_load_in_one_line_with_pandas_and_pyarrow(tmp_path: Path) -> None:
    import pyarrow.dataset as ds

    f = write(tmp_path, GRID)
    assert main(["sweep", str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert len(pd.read_parquet(tmp_path / "o" / "results")) == 12
    assert ds.dataset(tmp_path / "o" / "results").count_rows() == 12
