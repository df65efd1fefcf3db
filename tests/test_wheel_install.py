"""A wheel, installed in a fresh virtual environment, reproduces the study from an empty
directory: everything vho reads at run time is inside the package (issue 18: the study file
was looked up relative to the source tree).

The wheel is built once per session (``maturin build --release``; about 3 minutes from a cold
``target/``, seconds when it is warm). Skipped when maturin is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("maturin") is None, reason="maturin not installed")


def _env() -> dict[str, str]:
    """The environment without anything that points Python at the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _dependency_paths() -> list[str]:
    """Where this interpreter finds vho's dependencies (numpy, pandas, ...): its site-packages,
    a virtual environment's or the system's, however vho was installed to run these tests."""
    import numpy

    return sorted({str(Path(numpy.__file__).parent.parent), *site.getsitepackages()})


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with vho installed from a wheel built from this tree, and no other copy of
    vho on its path: its dependencies come from this interpreter's site-packages, added after
    the venv's own by a .pth file (plain directories: no other .pth, so no editable install of
    the source tree, is read)."""
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        ["maturin", "build", "--release", "--quiet", "-o", str(tmp / "dist")],
        cwd=ROOT,
        env=_env(),
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp / "dist").glob("vho-*.whl")
    env_dir = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "vho-test-dependencies.pth").write_text("\n".join(_dependency_paths()) + "\n")
    # The wheel alone (no index, no dependencies: they are on the path above).
    subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)],
        env=_env(),
        check=True,
    )
    return env_dir


def test_the_wheel_reproduces_the_study_from_an_empty_directory(venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "empty"
    work.mkdir()
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import vho; print(vho.__file__)"],
        cwd=work,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # The package under test is the wheel's, not the source tree's.
    assert Path(where).is_relative_to(venv), where
    r = subprocess.run(
        [venv / "bin" / "vho", "reproduce", "daniel-kojo", "--quick", "--quiet"],
        cwd=work,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    out = work / "out" / "daniel-kojo"
    assert len((out / "cells.csv").read_text().splitlines()) == 1 + 104
    report = (out / "report.md").read_text()
    assert "of 104 cells' means are within ±10 % of the paper's" in report
    # The study's parameter set is in the report, read from the package.
    assert 'send_window = "40 packets"' in report


def test_the_wheel_runs_its_shipped_examples_from_an_empty_directory(
    venv: Path, tmp_path: Path
) -> None:
    # Issue 18, item 1: the examples are in the package; copied out, one runs as it stands.
    work = tmp_path / "empty"
    work.mkdir()

    def vho(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [venv / "bin" / "vho", *args], cwd=work, env=_env(), capture_output=True, text=True
        )

    listed = vho("examples")
    assert listed.returncode == 0 and "dk-fig1-wlan-gprs" in listed.stdout, listed.stderr
    assert vho("examples", "--copy", "ex").returncode == 0
    r = vho("run", "ex/examples/dk-fig1-wlan-gprs.toml", "--out", "fig1")
    assert r.returncode == 0, r.stderr
    summary = json.loads((work / "fig1" / "summary.json").read_text())
    assert summary["flows"][0]["spurious_timeouts"] == 2


def test_the_wheel_reproduces_the_thesis_from_an_empty_directory(
    venv: Path, tmp_path: Path
) -> None:
    # Issue 19 item 4: the thesis study ships in the package as daniel-kojo.toml does.
    work = tmp_path / "empty"
    work.mkdir()
    r = subprocess.run(
        [venv / "bin" / "vho", "reproduce", "thesis", "--quick", "--quiet"],
        cwd=work,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    report = (work / "out" / "thesis" / "report.md").read_text()
    # The RTO at the switch, measured in the wheel's runs: Linux 2.0's 200 ms floor.
    rows = [line for line in report.splitlines() if "fast-slow: RTO at the switch |" in line]
    assert rows and "| 0.200 s [0.200, 0.200] (n 2) |" in rows[-1], rows
    assert 'profile = "linux-2.0"' in report  # the study's parameter set, read from the package


def test_the_wheel_reproduces_cottingham_and_runs_its_mobile_ipv6_example(
    venv: Path, tmp_path: Path
) -> None:
    # Issue 20: the study file and the example ship in the package; both run from nowhere.
    work = tmp_path / "empty"
    work.mkdir()

    def vho(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [venv / "bin" / "vho", *args], cwd=work, env=_env(), capture_output=True, text=True
        )

    r = vho("reproduce", "cottingham", "--quick", "--quiet")
    assert r.returncode == 0, r.stderr
    report = (work / "out" / "cottingham" / "report.md").read_text()
    assert "| Handover time T_n |" in report and "(2,848)" in report
    assert vho("examples", "--copy", "ex").returncode == 0
    r = vho("run", "ex/examples/cottingham-wlan-gprs.toml", "--set", 'run.stop="40 s"')
    assert r.returncode == 0, r.stderr
    # The handover's line is the one the source tree's run of the same scenario prints (the
    # README's numbers are checked against the code by tests/test_doc_numbers.py).
    import vho as source
    from vho.cli import _mipv6_line

    example = ROOT / "scenarios" / "examples" / "cottingham-wlan-gprs.toml"
    here = source.run(example, overrides=['run.stop="40 s"']).summary
    assert _mipv6_line(here["handovers"][0]["mipv6"]) in r.stdout
