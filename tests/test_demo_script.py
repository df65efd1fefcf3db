"""`scripts/demo.sh` says what it is doing while the Rust core compiles, shows cargo's progress,
and installs vho without the test extras (issue 18: 2.5 silent minutes behind `pip -q`).

pip and vho are replaced by stubs on PATH: the test checks the script, not a real build."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scripts" / "demo.sh"

# A `python3` that records its arguments and prints what `pip install -v` prints in a build.
PYTHON3 = """#!/usr/bin/env bash
echo "$*" >> "$STUB_LOG"
echo "Using pip 23.2.1"
echo "Building editable for vho (pyproject.toml): started"
echo "  Running command Building editable for vho"
echo "     Compiling vho-sim v0.1.0 (/src/crates/vho-sim)"
echo "      Finished release [optimized] target(s) in 151.2s"
echo "  some verbose noise"
if [ -n "${STUB_FAIL:-}" ]; then echo "error: linker failed"; exit 1; fi
echo "Successfully installed vho-0.1.0"
"""
VHO = """#!/usr/bin/env bash
echo "vho $*" >> "$STUB_LOG"
"""


def _demo(tmp_path: Path, fail: bool = False) -> tuple[subprocess.CompletedProcess[str], str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in (("python3", PYTHON3), ("vho", VHO)):
        p = bin_dir / name
        p.write_text(body)
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "calls"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "STUB_LOG": str(log)}
    env["TMPDIR"] = str(tmp_path)
    # An active virtual environment: the script uses it and makes no .venv of its own.
    env["VIRTUAL_ENV"] = str(tmp_path / "venv")
    if fail:
        env["STUB_FAIL"] = "1"
    r = subprocess.run(["bash", str(DEMO)], env=env, capture_output=True, text=True, timeout=60)
    return r, log.read_text() if log.exists() else ""


def test_demo_says_what_it_does_and_shows_the_build(tmp_path: Path) -> None:
    r, calls = _demo(tmp_path)
    assert r.returncode == 0, r.stderr
    pip = calls.splitlines()[0]
    assert pip.startswith("-m pip install")
    assert "-q" not in pip.split() and "[test]" not in pip, pip
    out = r.stdout.splitlines()
    said = next(i for i, line in enumerate(out) if "Rust core" in line and "minutes" in line)
    compiling = next(i for i, line in enumerate(out) if "Compiling vho-sim" in line)
    assert said < compiling
    assert any("Finished" in line for line in out)
    assert "some verbose noise" not in r.stdout  # the rest of pip -v is not shown...
    assert "vho run scenarios/examples/dk-fig1-wlan-gprs.toml" in calls
    assert not list(tmp_path.glob("vho-demo-install.*"))  # ...and its log is removed


def test_a_failed_install_shows_pips_whole_output_and_stops(tmp_path: Path) -> None:
    r, calls = _demo(tmp_path, fail=True)
    assert r.returncode == 1
    assert "some verbose noise" in r.stderr and "error: linker failed" in r.stderr
    assert "vho run" not in calls
