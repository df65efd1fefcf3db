"""Reading a sweep's results (issue 18): axes with units as numbers beside their labels, plots
that average the axes they do not draw, one --hue, flow metrics once, and an interrupted sweep
that says how to resume."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from vho import sweep
from vho.cli import main
from vho.sweep.summarize import averaged_axes, plot_table
from vho.sweep.units import axis_unit, quantity

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"


def write(tmp_path: Path, body: str, scenario: Path = FIG1) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(f'[sweep]\nscenario = "{scenario}"\n' + body, encoding="utf-8")
    return p


# Labels that sort wrongly as text: "1 s" < "250 ms" < "500 ms" < "750 ms".
UNITS_GRID = """replications = 2
seed = 3

[[axis]]
key = "handover.0.at"
values = ["750 ms", "1 s", "250 ms", "500 ms"]

[[axis]]
key = "handover.0.kind"
values = ["soft-reconfigure", "hard"]

[[axis]]
key = "flow.0.size"
range = { from = 100, to = 200, step = 100, unit = "KB" }
"""


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("axes")
    out = tmp / "out"
    assert main(["sweep", str(write(tmp, UNITS_GRID)), "--out", str(out), "--quiet"]) == 0
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500 ms", (0.5, "s")),
        ("2 s", (2.0, "s")),
        ("250us", (250e-6, "s")),
        ("200 KB", (200_000.0, "B")),
        ("1 KiB", (1024.0, "B")),
        ("5 Mb/s", (5e6, "b/s")),
        ("200 kbps", (200e3, "b/s")),
        ("20 packets", (20.0, "packets")),
        ("hard", None),
        ("5 furlongs", None),
        (3, None),
    ],
)
def test_quantities_are_read_as_the_simulator_reads_them(text: object, expected: object) -> None:
    assert quantity(text) == expected


def test_an_axis_gets_a_number_column_only_with_units_of_one_kind() -> None:
    assert axis_unit(["1 s", "500 ms"]) == "s"
    assert axis_unit(["1 s", "2 KB"]) is None
    assert axis_unit(["1 s", "hard"]) is None


def test_axes_with_units_have_their_number_in_base_units_beside_the_label(grid: Path) -> None:
    df = sweep.results(grid)
    labels = {"250 ms": 0.25, "500 ms": 0.5, "750 ms": 0.75, "1 s": 1.0}
    assert (df["handover.0.at_si"] == df["handover.0.at"].map(labels)).all()
    assert (df["flow.0.size_si"] == df["flow.0.size"].map({"100 KB": 1e5, "200 KB": 2e5})).all()
    assert "handover.0.kind_si" not in df.columns
    manifest = json.loads((grid / "sweep.json").read_text())
    assert manifest["axis_units"] == {"handover.0.at": "s", "flow.0.size": "B"}
    assert main(["sweep", "summarize", str(grid), "--metric", "transfer_time_s"]) == 0
    t = pd.read_csv(grid / "summary.csv")
    assert list(t.columns[:5]) == [
        "handover.0.at",
        "handover.0.kind",
        "flow.0.size",
        "handover.0.at_si",
        "flow.0.size_si",
    ]


def test_a_plot_averages_the_axes_it_does_not_draw_and_says_so(
    grid: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = sweep.results(grid)
    table, unit = plot_table(df, "handover.0.at", "transfer_time_s")
    # One point per x, in numeric order (no zig-zag through the other axes' points) ...
    assert unit == "s" and list(table["x"]) == [0.25, 0.5, 0.75, 1.0]
    # ... each the mean of every run at that x: 2 kinds x 2 sizes x 2 replications.
    for _, r in table.iterrows():
        runs = df[df["handover.0.at_si"] == r["x"]]["transfer_time_s"]
        assert r["n"] == 8 and r["mean"] == pytest.approx(runs.mean())
    axes = ["handover.0.at", "handover.0.kind", "flow.0.size"]
    assert averaged_axes(df, axes, "handover.0.at", None) == ["handover.0.kind", "flow.0.size"]
    assert averaged_axes(df, axes, "handover.0.at", "handover.0.kind") == ["flow.0.size"]
    args = ["sweep", "plot", str(grid), "--x", "handover.0.at", "--y", "transfer_time_s"]
    assert main([*args, "--hue", "handover.0.kind"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("averaged over flow.0.size (not plotted)")
    assert (grid / "plot_transfer_time_s_vs_handover.0.at_by_handover.0.kind.svg").is_file()


def test_a_zipped_key_moving_with_x_is_not_averaged_over(tmp_path: Path) -> None:
    f = write(
        tmp_path,
        'replications = 1\n[[axis]]\nzip = { "handover.0.at" = ["1 s", "500 ms"], '
        '"flow.0.size" = ["100 KB", "200 KB"] }\n',
    )
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--quiet"]) == 0
    axes = ["handover.0.at", "flow.0.size"]
    assert averaged_axes(sweep.results(out), axes, "handover.0.at", None) == []


def test_a_repeated_plot_option_is_refused_in_one_line(
    grid: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["sweep", "plot", str(grid), "--x", "handover.0.at", "--y", "transfer_time_s"]
    with pytest.raises(SystemExit) as e:
        main([*args, "--hue", "handover.0.kind", "--hue", "flow.0.size"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "vho sweep: --hue given twice ('handover.0.kind' and 'flow.0.size'); give it once\n"
    )


def test_flow_metrics_appear_once(grid: Path, tmp_path: Path) -> None:
    one = sweep.results(grid)
    assert "transfer_time_s" in one.columns
    assert not [c for c in one.columns if c.startswith("flow.flow0.")]
    two_flows = tmp_path / "two.toml"
    two_flows.write_text(
        FIG1.read_text()
        + '\n[[flow]]\nname = "b"\nfrom = "ch"\nto = "mh"\nsize = "100 KB"\n'
        + 'tcp = { profile = "ns2", mss = 1460 }\n'
    )
    f = write(tmp_path, 'replications = 2\n[[axis]]\nkey = "flow.0.size"\nvalues = ["50 KB"]\n')
    f.write_text(f.read_text().replace(str(FIG1), str(two_flows)))
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--quiet"]) == 0
    df = sweep.results(out)
    assert "transfer_time_s" not in df.columns
    assert df["flow.flow0.bytes"].eq(50_000).all() and df["flow.b.bytes"].eq(100_000).all()
    # summarize without --metric: the default metrics, each flow's.
    assert main(["sweep", "summarize", str(out)]) == 0
    metrics = set(pd.read_csv(out / "summary.csv")["metric"])
    assert {"flow.flow0.transfer_time_s", "flow.b.transfer_time_s"} <= metrics


#: Long enough that the sweep is still running when the test's Ctrl-C comes, also when the
#: test process is starved by a loaded machine. What makes it long is each run's events, not
#: their number (planning a sweep costs per replication): 2000 runs of FIG1 stopped at 120 s
#: took 1 ms each by stop 32 and the whole sweep ended before the signal in full test runs;
#: stopped at 2400 s a run has 123,000 events and takes 9 ms, so 1000 take some 5 s on two
#: workers, the signal coming after about ten.
LONG = """replications = 1000
batch = 2
[set]
"flow.0.size" = "200 MB"
"run.stop" = "2400 s"
"handover.0.window" = "1 s"
"""


def test_ctrl_c_says_how_to_resume_and_that_command_finishes_the_sweep(tmp_path: Path) -> None:
    f = write(tmp_path, LONG)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "vho.cli", "sweep", str(f), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, start_new_session=True)
    results = out / "results"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(results.glob("part-*.parquet"))) < 5:
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    line = err.strip().splitlines()[-1]
    assert line.startswith(f"vho: interrupted; the finished runs are kept in {out}/results; ")
    again = line.split("to run the missing ones: ", 1)[1]
    assert shlex.split(again) == ["vho", "sweep", str(f), "--out", str(out), "--resume"]
    assert main([*shlex.split(again)[1:], "--quiet"]) == 0
    assert json.loads((out / "sweep.json").read_text())["complete"] is True


def test_an_axis_of_lists_runs_and_its_column_holds_each_toml_list(tmp_path: Path) -> None:
    """``flow.0.remedies`` as an axis (the empty list first, which has no element type for
    Parquet): every run a row, the column the value as written in TOML."""
    body = """replications = 1

[[axis]]
key = "flow.0.remedies"
values = [[], ["frto"], ["frto", "no-restore"]]
"""
    out = tmp_path / "out"
    assert main(["sweep", str(write(tmp_path, body)), "--out", str(out), "--quiet"]) == 0
    df = sweep.results(out)
    assert df["error"].isna().all()
    assert list(df["flow.0.remedies"]) == ["[]", '["frto"]', '["frto", "no-restore"]']
