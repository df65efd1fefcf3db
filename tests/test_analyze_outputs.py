"""`vho analyze` under hostile input (issue 17): many tiny flows give a bounded metrics.json,
every flow in flows.jsonl and no figure per flow; undefined goodput is said so; outputs and
inputs that cannot be used are one line and exit status 2."""

from __future__ import annotations

import errno
import json
import os
import struct
import sys
from pathlib import Path

import pytest

import vho
from vho import analysis
from vho.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))
from analyze_many_flows import build

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios/examples/dk-fig1-wlan-gprs.toml"


@pytest.fixture(scope="module")
def syns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """500 one-SYN flows."""
    p = tmp_path_factory.mktemp("syns") / "syn.pcap"
    build(p, 500)
    return p


@pytest.fixture(scope="module")
def fig1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fig1")
    vho.run(FIG1, out_dir=out)
    return out


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_many_tiny_flows_are_listed_in_jsonl_and_summed_in_metrics(
    syns: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "an"
    assert main(["analyze", str(syns), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert len(stdout.splitlines()) < 2 * analysis.MAX_LISTED + 10
    assert "and 400 more flows in" in stdout
    m = json.loads((out / "metrics.json").read_text())
    assert m["flows_total"] == 500 and m["flows_listed"] == len(m["flows"]) == 100
    assert m["small_flows"] == {
        "max_data_segments": 2,
        "flows": 500,
        "packets": 500,
        "bytes": 0,
        "syn_only": 500,
    }
    lines = (out / "flows.jsonl").read_text().splitlines()
    assert [json.loads(x)["index"] for x in lines] == list(range(500))
    assert sorted(p.name for p in out.iterdir()) == [".vho-output", "flows.jsonl", "metrics.json"]


def test_goodput_over_no_time_is_undefined_not_zero(syns: Path) -> None:
    a = vho.analyze(syns, flow="7")
    (e,) = a.metrics["flows"]
    assert e["duration_s"] == 0 and e["goodput_bps"] is None


def test_goodput_undefined_is_printed_so(
    syns: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", str(syns), "--flow", "7", "--out", str(tmp_path / "o")]) == 0
    assert "goodput undefined" in capsys.readouterr().out


def test_figures_are_drawn_for_the_flow_chosen(fig1: Path, tmp_path: Path) -> None:
    out = tmp_path / "an"
    assert main(["analyze", str(fig1 / "mh.pcap"), "--flow", "0", "--out", str(out)]) == 0
    assert (out / "sequence_flow0.png").is_file()


def test_an_existing_foreign_directory_is_refused_and_a_previous_analysis_replaced(
    fig1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "an"
    out.mkdir()
    (out / "sequence_flow7.png").write_text("stale")
    (out / "mine.txt").write_text("x")
    assert main(["analyze", str(fig1 / "mh.pcap"), "--out", str(out)]) == 2
    assert "not empty and not an output of vho analyze" in one_line(capsys)
    (out / "mine.txt").unlink()
    (out / "metrics.json").write_text("{}")
    # Not marked as vho analyze's (.vho-output): still refused.
    assert main(["analyze", str(fig1 / "mh.pcap"), "--out", str(out)]) == 2
    assert "not empty and not an output of vho analyze" in one_line(capsys)
    (out / ".vho-output").write_text("vho analyze\n")  # now it is a previous analysis
    assert main(["analyze", str(fig1 / "mh.pcap"), "--out", str(out)]) == 0
    assert not (out / "sequence_flow7.png").exists() and (out / "sequence_flow0.png").exists()


@pytest.mark.parametrize("where", ["file", "readonly"])
def test_an_output_that_cannot_be_written_is_one_line(
    fig1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    if where == "file":
        out = tmp_path / "f"
        out.write_text("x")
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only directories")
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o555)
        out = ro / "an"
    assert main(["analyze", str(fig1 / "mh.pcap"), "--out", str(out)]) == 2
    one_line(capsys)


def test_a_full_disk_is_one_line_and_leaves_nothing(
    fig1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    out = tmp_path / "an"
    assert main(["analyze", str(fig1 / "mh.pcap"), "--out", str(out)]) == 2
    assert "No space left on device" in one_line(capsys)
    assert not out.exists() and not list(tmp_path.glob(".vho-partial-*"))


def test_series_that_is_not_parquet_is_one_line(
    fig1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "s.parquet"
    bad.write_text("not parquet")
    argv = ["analyze", str(fig1 / "mh.pcap"), "--out", str(tmp_path / "an"), "--series"]
    assert main([*argv, str(bad)]) == 2
    assert "--series" in one_line(capsys)


def test_a_fifo_as_capture_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "cap.pcap"
    os.mkfifo(fifo)
    assert main(["analyze", str(fifo), "--out", str(tmp_path / "an")]) == 2
    assert "found a FIFO" in one_line(capsys)


def test_a_capture_with_time_going_backward_has_undefined_goodput(tmp_path: Path) -> None:
    # Two data segments of one flow, the second stamped before the first.
    def seg(t_us: int, seq: int, flags: int, payload: bytes) -> bytes:
        ip = struct.pack(
            "!BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 1, 0, 64, 6, 0, b"\n\0\0\1", b"\n\0\0\2"
        )
        tcp = struct.pack("!HHIIBBHHH", 1000, 80, seq, 0, 5 << 4, flags, 65535, 0, 0)
        pkt = ip + tcp + payload
        return struct.pack("<IIII", 10, t_us, len(pkt), len(pkt)) + pkt

    cap = tmp_path / "back.pcap"
    cap.write_bytes(
        struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
        + seg(500, 1, 0x18, b"x" * 100)
        + seg(100, 101, 0x18, b"y" * 100)
    )
    (e,) = vho.analyze(cap).metrics["flows"]
    assert e["duration_s"] <= 0 and e["goodput_bps"] is None
