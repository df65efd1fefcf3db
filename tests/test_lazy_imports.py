"""`import vho` and the commands that need no tables stay light: pandas, matplotlib, dask and
pyarrow are imported where they are used (issue 18: `vho --help` took 1.6 s)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import vho

HEAVY = ("pandas", "matplotlib", "dask", "pyarrow")
PACKAGE_ROOT = Path(vho.__file__).resolve().parent.parent
FIG1 = Path(__file__).resolve().parent.parent / "scenarios/examples/dk-fig1-wlan-gprs.toml"


def _loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    r = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return r.stdout.split()


@pytest.mark.parametrize(
    "code",
    [
        "import vho, vho.cli",
        "import vho.cli; vho.cli.build_parser()",
        "import vho.cli, contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert vho.cli.main(['presets']) == 0",
        f"import vho; vho.run({str(FIG1)!r}, overrides=['record.series=false'])",
    ],
    ids=["import", "parser", "presets", "run-without-series"],
)
def test_light_commands_import_no_table_library(code: str) -> None:
    assert _loaded_after(code) == []


def test_the_lazy_names_still_resolve() -> None:
    # `vho.analyze` and `vho.CaptureAnalysis` load vho.analysis (and pandas) on first use.
    assert "pandas" in _loaded_after("import vho; vho.analyze")
    from vho import CaptureAnalysis, analyze

    assert analyze.__module__ == "vho.analysis"
    assert CaptureAnalysis.__module__ == "vho.analysis"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = vho.nope  # type: ignore[attr-defined]
