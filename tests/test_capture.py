"""Reading captures with vho-trace: the simulator's own pcaps segment for segment as tshark
reads them, and damaged files refused with one located line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import vho
from vho import capture

TSHARK = shutil.which("tshark")
FIG1 = Path(__file__).resolve().parent.parent / "scenarios/examples/dk-fig1-wlan-gprs.toml"


@pytest.fixture(scope="module")
def fig1_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fig1")
    vho.run(FIG1, out_dir=out, plot=True)
    return out


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (.ci/run installs it)")
def test_segments_agree_with_tshark(fig1_out: Path) -> None:
    df = capture.read_tcp(fig1_out / "mh.pcap")
    out = subprocess.run(
        [
            TSHARK or "tshark",
            "-r",
            str(fig1_out / "mh.pcap"),
            "-T",
            "fields",
            "-E",
            "separator=,",
            "-e",
            "frame.time_epoch",
            "-e",
            "tcp.seq_raw",
            "-e",
            "tcp.len",
            "-e",
            "ip.id",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert len(out) == len(df) > 100
    for row, line in zip(df.itertuples(), out, strict=True):
        t, seq, ln, ipid = line.split(",")
        assert (row.seq, row.len, row.ip_id) == (int(seq), int(ln), int(ipid, 16))
        assert abs(row.t_s - float(t)) < 1e-6
    assert df.attrs["skipped"] == {
        "unknown_link_type": 0,
        "not_tcp": 0,
        "truncated_headers": 0,
        "fragment": 0,
        "malformed": 0,
    }


def test_sequence_marks_the_retransmissions_the_sender_made(fig1_out: Path) -> None:
    summary = vho.run(FIG1).summary["flows"][0]
    data, acks = capture.sequence(capture.read_tcp(fig1_out / "ch.pcap"))
    assert len(data) == summary["data_packets_sent"]
    assert int(data.retransmission.sum()) == summary["retransmissions"]
    assert acks.ack.iloc[-1] == summary["bytes"]
    assert (fig1_out / "sequence_ch.png").stat().st_size > 10_000
    assert (fig1_out / "sequence_mh.svg").is_file()


def test_a_capture_too_short_for_its_header_is_one_located_line(
    tmp_path: Path, fig1_out: Path
) -> None:
    bad = tmp_path / "cut.pcap"
    bad.write_bytes((fig1_out / "mh.pcap").read_bytes()[:2])
    with pytest.raises(vho.CaptureError) as e:
        capture.read_tcp(bad)
    msg = str(e.value)
    assert msg.startswith(f"{bad}: ") and "\n" not in msg, msg
    assert "byte 0: file too short for a capture header" in msg


@pytest.mark.parametrize("cut,segments", [(30, 0), (100, 1)])
def test_a_capture_cut_inside_a_record_gives_the_records_before_it(
    tmp_path: Path, fig1_out: Path, cut: int, segments: int
) -> None:
    # As tshark: a file cut short in the middle of a packet is read up to that packet.
    bad = tmp_path / "cut.pcap"
    bad.write_bytes((fig1_out / "mh.pcap").read_bytes()[:cut])
    df = capture.read_tcp(bad)
    assert len(df) == segments
    assert "truncated" in df.attrs["cut_short"]
    assert capture.read_tcp(fig1_out / "mh.pcap").attrs["cut_short"] is None


def test_not_a_capture(tmp_path: Path) -> None:
    bad = tmp_path / "x.pcap"
    bad.write_text("hello, this is not a capture\n")
    with pytest.raises(vho.CaptureError, match="expected a pcap magic number"):
        capture.read_tcp(bad)
    with pytest.raises(vho.CaptureError, match="cannot open"):
        capture.read_tcp(tmp_path / "missing.pcap")
