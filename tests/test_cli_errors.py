"""Bad input is refused with one line naming file, line, field and what was expected, exit
status 2, and nothing left in the output directory that looks complete
(ARCHITECTURE.md, "Invariants")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vho.cli import main

GOOD = """\
[run]
seed = 1

[access.wlan]
preset = "dk-wlan"

[access.gprs]
preset = "dk-gprs"

[mobile]
start = "wlan"

[[handover]]
at = "0.6 s"
from = "wlan"
to = "gprs"

[[flow]]
from = "ch"
to = "mh"
size = "20 KB"
"""

# (case, scenario text, extra arguments, the one line expected on stderr, after "<file>:")
CASES = [
    (
        "unknown key",
        GOOD.replace("seed = 1", "seed = 1\ncolour = 1"),
        [],
        "3: unknown field `colour`, expected one of `name`, `seed`, `stop`",
    ),
    (
        "unit",
        GOOD.replace('preset = "dk-wlan"', 'rate = "5 Mbs"\ndelay = "2 ms"'),
        [],
        '5: access.wlan.rate: expected a rate such as "200 kb/s"',
    ),
    (
        "negative delay",
        GOOD.replace('preset = "dk-wlan"', 'rate = "5 Mb/s"\ndelay = "-2 ms"'),
        [],
        '6: access.wlan.delay: expected a time that is not negative, got "-2 ms"',
    ),
    (
        "unknown preset",
        GOOD.replace('"dk-wlan"', '"dk-lte"'),
        [],
        "5: access.wlan.preset: expected one of cdma-1xrtt, dk-gprs",
    ),
    (
        "undefined link",
        GOOD.replace('to = "gprs"', 'to = "lte"'),
        [],
        '16: handover.to: expected a link: one of wired, gprs, wlan, got "lte"',
    ),
    ("malformed toml", GOOD.replace("[mobile]", "[mobile"), [], "10: invalid table header"),
    (
        "negative rate in --set",
        GOOD,
        ["--set", 'access.wlan.rate="-5 Mb/s"'],
        '--set access.wlan.rate="-5 Mb/s": access.wlan.rate: expected a positive rate',
    ),
]


@pytest.mark.parametrize("case,text,extra,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_is_one_line_with_exit_2_and_no_output(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    text: str,
    extra: list[str],
    expected: str,
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(text)
    out = tmp_path / "out"
    status = main(["run", str(path), "--out", str(out), *extra])
    err = capsys.readouterr().err
    assert status == 2, case
    assert err.count("\n") == 1, err
    assert expected in err, err
    if not extra:
        assert err.startswith(f"{path}:"), err
    assert not out.exists(), "nothing may be written for a refused scenario"


def test_the_good_scenario_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.toml"
    path.write_text(GOOD)
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "summary.json").is_file()


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["run", "no/such.toml"], "no/such.toml: no such scenario file"),
        (["run", "x.toml", "--seed", "-3"], "argument --seed: expected an integer in [0, 2^64)"),
        (["run", "x.toml", "--seed", "many"], "argument --seed: expected a non-negative integer"),
        (["presets", "dk-lte"], "no preset 'dk-lte'; expected one of cdma-1xrtt"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_arguments_are_one_line_with_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1, err
    assert expected in err, err


def test_the_installed_command_exits_2_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[run\n")
    p = subprocess.run(
        [sys.executable, "-m", "vho.cli", "run", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2
    assert p.stderr == f"{path}:1: invalid table header; expected `.`, `]`\n"
    assert "Traceback" not in p.stderr


def test_a_failed_run_leaves_the_previous_complete_output_untouched(tmp_path: Path) -> None:
    good = tmp_path / "s.toml"
    good.write_text(GOOD)
    out = tmp_path / "out"
    assert main(["run", str(good), "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('"dk-wlan"', '"nope"'))
    assert main(["run", str(bad), "--out", str(out)]) == 2
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert after == before
