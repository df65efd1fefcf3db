"""Output directories under hostile use (issue 40): each command's output is marked with the
command that wrote it (`.vho-output`), staged and swapped in whole; a directory that is not a
previous output of the same command is refused (one line, exit 2, nothing touched) unless
`--force`, so one command or study never replaces another's output, and an interrupted run
leaves the previous output as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from vho import files
from vho.cli import main
from vho.errors import OutputError
from vho.reproduce import naoe, study

GOOD = """
[run]
name = "t"
stop = "2 s"
[access.wlan]
preset = "dk-wlan"
[mobile]
start = "wlan"
[[flow]]
from = "ch"
to = "mh"
size = "10 KB"
"""

QUICK = {
    "naoe": ["--quick", "--quiet", "--no-sensitivity"],
    "daniel-kojo": ["--quick", "--quiet", "--no-sensitivity"],
}


def _snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _no_staging(parent: Path) -> None:
    assert not [p for p in parent.iterdir() if p.name.startswith(files.PARTIAL)]


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("study", ["naoe", "daniel-kojo"])
def test_a_study_refuses_a_foreign_out_and_replaces_it_only_with_force(
    study: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine"
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "data.parquet").write_text("my runs")
    (out / "report.md").write_text("my report")
    (out / "table.csv").write_text("my,table\n")
    before = _snapshot(out)
    assert main(["reproduce", study, *QUICK[study], "--out", str(out)]) == 2
    assert f"not an output of vho reproduce {study}" in _one_line(capsys)
    assert _snapshot(out) == before
    _no_staging(tmp_path)
    assert main(["reproduce", study, *QUICK[study], "--out", str(out), "--force"]) == 0
    assert not (out / "runs" / "data.parquet").exists()
    assert (out / files.MARK).read_text() == f"vho reproduce {study}\n"
    # Its own output is replaced without --force.
    assert main(["reproduce", study, *QUICK[study], "--out", str(out)]) == 0
    _no_staging(tmp_path)


def test_out_dot_in_a_foreign_directory_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "keep.txt").write_text("mine")
    (tmp_path / "report.md").write_text("mine")
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    assert main(["reproduce", "naoe", *QUICK["naoe"], "--out", "."]) == 2
    _one_line(capsys)
    assert _snapshot(tmp_path) == before


def test_one_study_never_replaces_another_studys_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The names thesis, cottingham and chen write; without a mark naming the study, no study
    # takes the directory for its own.
    out = tmp_path / "c"
    (out / "runs").mkdir(parents=True)
    (out / "figures").mkdir()
    for name in ("report.md", "table.csv", "runs.csv"):
        (out / name).write_text(f"chen's {name}")
    (out / files.MARK).write_text("vho reproduce chen\n")
    before = _snapshot(out)
    for name in ("thesis", "cottingham"):
        assert main(["reproduce", name, "--quick", "--quiet", "--out", str(out)]) == 2
        err = _one_line(capsys)
        assert f"not an output of vho reproduce {name} (an output of vho reproduce chen)" in err
        assert _snapshot(out) == before
    _no_staging(tmp_path)


def test_the_mark_names_the_command_and_only_that_command_takes_the_directory(
    tmp_path: Path,
) -> None:
    out = tmp_path / "o"
    owned = (r"report\.md",)
    with files.staged_output(out, command="vho a", owned=owned, force=False) as stage:
        (stage / "report.md").write_text("a")
    assert (out / files.MARK).read_text() == "vho a\n"
    with pytest.raises(OutputError, match=r"not an output of vho b \(an output of vho a\)"):
        with files.staged_output(out, command="vho b", owned=owned, force=False):
            pytest.fail("not reached")
    with files.staged_output(out, command="vho a", owned=owned, force=False) as stage:
        (stage / "report.md").write_text("a again")
    assert (out / "report.md").read_text() == "a again"
    # Unmarked (an earlier vho's, or anyone's), holding only names the command writes: refused.
    (out / files.MARK).unlink()
    with pytest.raises(OutputError, match="not an output of vho a; choose another --out"):
        with files.staged_output(out, command="vho a", owned=owned, force=False):
            pytest.fail("not reached")
    with files.staged_output(out, command="vho a", owned=owned, force=True) as stage:
        (stage / "report.md").write_text("forced")
    assert (out / files.MARK).read_text() == "vho a\n"
    _no_staging(tmp_path)


def test_vho_emulate_refuses_a_vho_run_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from vho import _native

    if not _native.emulate_permitted():
        pytest.skip("vho emulate needs root")
    scen = tmp_path / "s.toml"
    scen.write_text(GOOD)
    out = tmp_path / "out"
    assert main(["run", str(scen), "--out", str(out)]) == 0
    capsys.readouterr()
    before = _snapshot(out)
    # Refused before any namespace is made.
    assert os.geteuid() == 0
    assert main(["emulate", str(scen), "--out", str(out)]) == 2
    assert "not an output of vho emulate (an output of vho run)" in _one_line(capsys)
    assert _snapshot(out) == before
    _no_staging(tmp_path)


def test_vho_run_refuses_a_vho_emulate_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with files.staged_output(out, command="vho emulate", owned=(".*",), force=False) as stage:
        (stage / "summary.json").write_text("{}")
        (stage / "ch.pcap").write_bytes(b"")
    before = _snapshot(out)
    scen = tmp_path / "s.toml"
    scen.write_text(GOOD)
    assert main(["run", str(scen), "--out", str(out)]) == 2
    assert "not an output of vho run (an output of vho emulate)" in _one_line(capsys)
    assert _snapshot(out) == before


def test_an_interrupted_study_leaves_the_previous_output_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "d"
    study.reproduce(naoe.REPRODUCTION, out, quick=True, seed=1, quiet=True, sensitivity=False)
    before = _snapshot(out)

    def interrupted(*args: object, **kw: object) -> list:
        raise KeyboardInterrupt  # Ctrl-C after the runs, before the tables and the report

    monkeypatch.setattr(study, "judge_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        study.reproduce(naoe.REPRODUCTION, out, quick=True, seed=9, quiet=True, sensitivity=False)
    assert _snapshot(out) == before
    _no_staging(tmp_path)


@pytest.mark.parametrize("where", [".", ".."])
def test_the_current_directory_is_refused_before_anything_runs(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An empty current directory passed every check, the whole run was made, and then '.'
    # could not be renamed: the output lost ("cannot publish the output directory").
    here = tmp_path / "empty" / "here"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    (tmp_path / "s.toml").write_text(GOOD)
    assert main(["run", str(tmp_path / "s.toml"), "--out", where]) == 2
    assert "the current directory (or one above it)" in _one_line(capsys)
    assert not any(here.iterdir())
    _no_staging(here.parent)
