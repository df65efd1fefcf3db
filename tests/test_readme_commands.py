"""The README's two commands, as a newcomer runs them (issue 37, item 1): from a clean clone,
with no virtual environment active, `bash scripts/demo.sh` makes the clone's own `.venv`,
installs vho and its dependencies into it and simulates the bundled example; and `.ci/run`
runs exactly the README's test command, which runs the suite in that same kind of fresh venv
(CI's clean clone has none), so CI is the test of the second command.

The clone shares this tree's cargo target directory so that its build reuses the compiled
dependencies; pip's cache serves the packages after the first time. The clone is of HEAD:
uncommitted changes are not in it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    """The commands of the README's first code block."""
    text = (ROOT / "README.md").read_text()
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_starts_with_the_two_commands_and_ci_runs_the_second() -> None:
    assert _readme_commands() == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    runs = [line.split("#", 1)[0].strip() for line in ci if line.strip().startswith("bash ")]
    assert runs == ["bash scripts/test.sh"], runs
    # CI starts from no virtual environment: the test command makes the clone's own .venv.
    assert "VIRTUAL_ENV" not in (ROOT / ".ci" / "run").read_text()


def _clean_env(cargo_target: Path) -> dict[str, str]:
    """The environment of a newcomer's shell: no virtual environment, nothing pointing Python
    at this tree."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")
    }
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        path = env.get("PATH", "").split(os.pathsep)
        env["PATH"] = os.pathsep.join(p for p in path if not p.startswith(venv))
    env["CARGO_TARGET_DIR"] = str(cargo_target)
    env["PYTHONNOUSERSITE"] = "1"
    return env


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_demo_command_works_from_a_clean_clone_in_a_fresh_venv(tmp_path: Path) -> None:
    clone = tmp_path / "vho"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
        check=True,
        capture_output=True,
    )
    assert not (clone / ".venv").exists()
    r = subprocess.run(
        ["bash", "scripts/demo.sh"],
        cwd=clone,
        env=_clean_env(ROOT / "target"),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    assert "Making a virtual environment in .venv" in r.stdout
    summary = clone / "out" / "dk-fig1" / "summary.json"
    assert summary.stat().st_size > 0
    # vho is the clone's, installed in the clone's venv.
    where = subprocess.run(
        [clone / ".venv" / "bin" / "python", "-c", "import vho; print(vho.__file__)"],
        cwd=tmp_path,
        env=_clean_env(ROOT / "target"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(clone), where
