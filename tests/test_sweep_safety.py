"""vho sweep under stress (issue 17): two sweeps on one directory, a run that cannot finish, a
parent killed alone, a full disk."""

from __future__ import annotations

import errno
import json
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

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "python"))

# 160 short runs in batches of 2: a few seconds, many parts.
MANY = """replications = 80
batch = 2
[[axis]]
key = "handover.0.kind"
values = ["soft-reconfigure", "hard"]
"""


def write(tmp_path: Path, body: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(f'[sweep]\nscenario = "{FIG1}"\n' + body, encoding="utf-8")
    return p


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "vho.cli", "sweep", *args]


def manifest(out: Path) -> dict:
    return json.loads((out / "sweep.json").read_text())


def test_two_sweeps_started_together_on_one_directory(tmp_path: Path) -> None:
    f = write(tmp_path, MANY)
    out = tmp_path / "out"
    args = cli(str(f), "--out", str(out), "--quiet", "--workers", "1")
    procs = [
        subprocess.Popen(args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    ends = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert sorted(code for code, _ in ends) == [0, 2], ends
    err = next(e for code, e in ends if code == 2)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "in use by another sweep (pid " in err and " since " in err, err
    df = sweep.results(out)
    assert len(df) == 160 and df["task"].is_unique
    assert manifest(out)["complete"] is True


def test_complete_only_when_every_task_has_exactly_one_row(tmp_path: Path) -> None:
    f = write(tmp_path, MANY.replace("replications = 80", "replications = 2"))
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    assert manifest(out)["complete"] is True
    parts = sorted((out / "results").glob("part-*.parquet"))
    (out / "results" / "part-999999.parquet").write_bytes(parts[-1].read_bytes())
    assert main(["sweep", str(f), "--out", str(out), "--quiet", "--resume"]) == 0
    m = manifest(out)
    assert m["complete"] is False and m["duplicate_rows"] > 0


def test_a_run_over_the_timeout_is_a_failed_row_and_resume_stays_sane(tmp_path: Path) -> None:
    # 2 GB take about 0.5 s of wall time (1.4 M packets), 10 KB a millisecond. The first
    # task (run in the parent, to size the batches) and the second (in a worker) time out.
    f = write(
        tmp_path,
        'replications = 2\n[set]\n"run.stop" = "1000000 s"\n'
        '[[axis]]\nkey = "flow.0.size"\nvalues = ["2 GB", "10 KB"]\n',
    )
    out = tmp_path / "out"
    t0 = time.monotonic()
    argv = ["sweep", str(f), "--out", str(out), "--quiet", "--workers", "1"]
    assert main([*argv, "--run-timeout", "0.1"]) == 0
    assert time.monotonic() - t0 < 60
    df = sweep.results(out)
    assert list(df["task"]) == [0, 1, 2, 3]
    assert df["error"][:2].str.startswith("timed out: the run took more than 0.1 s").all()
    assert df["error"][2:].isna().all() and (df["bytes_delivered"][2:] == 10_000).all()
    assert manifest(out)["complete"] is True
    # A resumed sweep has nothing left to run: the timed-out runs are rows, not holes.
    assert main([*argv, "--resume", "--run-timeout", "0.1"]) == 0
    pd.testing.assert_frame_equal(sweep.results(out), df)


def test_bad_run_timeout_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = write(tmp_path, "")
    with pytest.raises(SystemExit) as e:
        main(["sweep", str(f), "--run-timeout", "0"])
    assert e.value.code == 2
    assert "--run-timeout: expected a time in seconds > 0" in capsys.readouterr().err


def _children(pid: int) -> set[int]:
    kids = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            kids.add(int(d.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its reaper is missing


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_parent_killed_alone(tmp_path: Path) -> None:
    f = write(tmp_path, MANY.replace("replications = 80", "replications = 2000"))
    proc = subprocess.Popen(
        cli(str(f), "--out", str(tmp_path / "out"), "--quiet", "--workers", "2"),
        env=ENV,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 2:
            workers = _children(proc.pid)
            time.sleep(0.05)
        assert len(workers) >= 2, "the sweep started no workers"
        os.kill(proc.pid, signal.SIGKILL)  # the parent alone
        proc.wait()
        deadline = time.monotonic() + 1.0  # the issue: gone within a second
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not [w for w in workers if _alive(w)], "workers outlived their parent"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _enospc(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_in_sweep_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow.parquet as pq

    f = write(tmp_path, MANY.replace("replications = 80", "replications = 3"))
    monkeypatch.setattr(pq, "write_table", _enospc)
    assert main(["sweep", str(f), "--out", str(tmp_path / "o"), "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err


def test_a_full_disk_in_summarize_is_one_line_and_leaves_no_empty_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = write(tmp_path, MANY.replace("replications = 80", "replications = 3"))
    out = tmp_path / "o"
    assert main(["sweep", str(f), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    capsys.readouterr()

    def half_then_enospc(self: pd.DataFrame, path: object, **kwargs: object) -> None:
        Path(str(path)).write_text("")
        _enospc()

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_enospc)
    assert main(["sweep", "summarize", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err
    assert not (out / "summary.csv").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".summary")]
