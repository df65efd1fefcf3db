"""``vho examples``: the scenarios and sweeps shipped inside the package (issue 18, item 1:
an installed vho has them without a source tree; the wheel test runs one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vho import examples
from vho.cli import main
from vho.sweep import spec

REPO = Path(__file__).resolve().parent.parent


def test_every_example_and_sweep_of_the_repository_is_shipped() -> None:
    shipped = {(e.kind, e.name) for e in examples.bundled()}
    expected = {("scenario", p.stem) for p in (REPO / "scenarios/examples").glob("*.toml")}
    expected |= {("sweep", p.stem) for p in (REPO / "scenarios/sweeps").glob("*.toml")}
    assert shipped == expected
    for e in examples.bundled():
        assert e.title, e


def test_an_example_prints_as_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples", "dk-fig1-wlan-gprs"]) == 0
    assert (
        capsys.readouterr().out == (REPO / "scenarios/examples/dk-fig1-wlan-gprs.toml").read_text()
    )


def test_an_unknown_example_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples", "nope"]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "no example 'nope'; expected one of chen-probe, cottingham-wlan-gprs" in err
    )


def test_copied_examples_keep_their_layout_and_refuse_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "ex"
    assert main(["examples", "--copy", str(dest)]) == 0
    sweep = dest / "sweeps" / "fig1-handover-instant.toml"
    # The sweep's scenario, ../examples/..., resolves in the copy as in the repository.
    s = spec.load(sweep)
    assert s.text == (dest / "examples/dk-fig1-wlan-gprs.toml").read_text()
    # Again: the same files, accepted. A changed one: refused, nothing written.
    assert main(["examples", "--copy", str(dest)]) == 0
    capsys.readouterr()
    mine = dest / "examples" / "dk-fig2-gprs-wlan.toml"
    mine.write_text("# mine\n")
    assert main(["examples", "--copy", str(dest)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists and differs from the shipped example" in err
    assert mine.read_text() == "# mine\n"
