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
    expected |= {("calibration", p.stem) for p in (REPO / "scenarios/calibrations").glob("*.toml")}
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
        and "no example 'nope'; expected one of cbr-voice-wlan-gprs, chen-probe, cottingham" in err
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


def test_a_copy_cut_by_a_full_disk_leaves_no_partial_file_and_the_retry_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    dest = tmp_path / "ex"
    calls = []
    real_text, real_bytes = Path.write_text, Path.write_bytes

    def full_disk(path: Path, data: str | bytes, *args: object, **kw: object) -> int:
        # The third file: half of it written, then the disk is full.
        calls.append(path)
        if len(calls) == 3:
            real_bytes(
                path,
                data[: len(data) // 2].encode()
                if isinstance(data, str)
                else data[: len(data) // 2],
            )
            raise OSError(errno.ENOSPC, "No space left on device")
        if isinstance(data, str):
            return real_text(path, data, *args, **kw)
        return real_bytes(path, data)

    monkeypatch.setattr(Path, "write_text", full_disk)
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    assert main(["examples", "--copy", str(dest)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err
    monkeypatch.undo()
    # Nothing half-written, no temporary file: the two files before it whole, the rest absent.
    copied = sorted(p for p in dest.rglob("*") if p.is_file())
    assert len(copied) == 2
    for p in copied:
        assert p.read_bytes() == examples.find(p.stem).path.read_bytes()
    assert main(["examples", "--copy", str(dest)]) == 0
    assert len([p for p in dest.rglob("*") if p.is_file()]) == len(examples.bundled())


def test_copy_never_writes_through_a_symbolic_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "ex"
    (dest / "examples").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere.toml"
    first = examples.bundled()[0]
    link = dest / "examples" / first.path.name
    link.symlink_to(elsewhere)  # dangling
    assert main(["examples", "--copy", str(dest)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a symbolic link" in err, err
    assert not elsewhere.exists() and link.is_symlink()
    # A linked folder neither.
    link.unlink()
    (dest / "examples").rmdir()
    (tmp_path / "other").mkdir()
    (dest / "examples").symlink_to(tmp_path / "other")
    assert main(["examples", "--copy", str(dest)]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert not list((tmp_path / "other").iterdir())


def test_copy_over_a_file_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "ex"
    (dest / "examples").mkdir(parents=True)
    mine = dest / "examples" / examples.bundled()[0].path.name
    mine.write_bytes(b"\xff\xfe not text")
    assert main(["examples", "--copy", str(dest)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists and differs" in err, err
    assert mine.read_bytes() == b"\xff\xfe not text"
