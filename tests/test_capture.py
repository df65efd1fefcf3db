"""Reading captures with vho-trace: the simulator's own pcaps segment for segment as tshark
reads them, and damaged files refused with one located line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import vho
from vho import capture

TSHARK = shutil.which("tshark")
ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios/examples/dk-fig1-wlan-gprs.toml"
LOSSY = ROOT / "benches/scenarios/lossy-link.toml"


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


# Gaps: Wireshark's tcp.analysis.lost_segment ("previous segment not captured").


def _data(rows: list[tuple[float, int, int]]) -> pd.DataFrame:
    """A data frame as flow_sequence gives it, from (t_s, seq, len) rows."""
    df = pd.DataFrame(rows, columns=["t_s", "seq", "len"])
    df["retransmission"] = df.seq < (df.seq + df.len).cummax().shift(1, fill_value=0)
    return df


def test_a_segment_starting_above_the_highest_end_seen_reveals_a_gap() -> None:
    data = _data(
        [
            (0.0, 0, 1000),
            (0.1, 1000, 1000),
            (0.2, 3000, 1000),  # 2000..3000 not seen: a gap
            (0.3, 2000, 1000),  # its retransmission fills it: no gap
            (0.4, 4000, 500),
            (0.5, 1000, 1000),  # a retransmission below everything: no gap
            (0.6, 7000, 1000),  # 4500..7000 not seen: one gap of 2500 bytes
            (0.7, 8000, 1000),
        ]
    )
    gaps = capture.flow_gaps(data)
    assert gaps.to_dict("records") == [
        {"t_s": 0.2, "seq": 2000, "len": 1000, "source": "capture gap"},
        {"t_s": 0.6, "seq": 4500, "len": 2500, "source": "capture gap"},
    ]


def test_data_missing_before_the_first_segment_captured_after_the_syn_is_a_gap() -> None:
    # With the SYN seen, sequence numbers count from its next byte: a first data segment at
    # 1460 means the bytes 0..1460 passed before the capture point saw them.
    gaps = capture.flow_gaps(_data([(0.5, 1460, 1460), (0.6, 2920, 1460)]))
    assert gaps[["t_s", "seq", "len"]].to_dict("records") == [{"t_s": 0.5, "seq": 0, "len": 1460}]
    assert capture.flow_gaps(_data([])).empty


def test_gaps_at_the_receiver_equal_vho_traces_lost_segments(tmp_path: Path) -> None:
    # A lossy access link (2 % on the way to the mobile): the capture at the mobile misses
    # what the link lost; the one at the sender misses nothing. vho-trace counts the same
    # rule in Rust, as Wireshark's lost_segment.
    r = vho.run(
        LOSSY,
        out_dir=tmp_path,
        overrides=['flow.0.tcp.profile="rfc"', 'record.pcap=["ch","mh"]', 'flow.0.size="300 KB"'],
    )
    dropped = sum(d["packets"] for d in r.summary["flows"][0]["drops"])
    counts = {}
    for node in ("ch", "mh"):
        a = vho.analyze(tmp_path / f"{node}.pcap")
        (e,) = a.metrics["flows"]
        sender = (e["sender"]["addr"], e["sender"]["port"])
        data, _, _ = capture.flow_sequence(a.segments(0), sender)
        gaps = capture.flow_gaps(data)
        assert len(gaps) == e["lost_segments"], node
        counts[node] = len(gaps)
    assert counts["ch"] == 0
    assert 0 < counts["mh"] <= dropped


# Data in flight: Wireshark's tcp.analysis.bytes_in_flight.

A, B = ("10.0.0.1", 5001), ("10.0.0.2", 80)
SYN_ACK = capture.SYN | capture.ACK


def _segs(rows: list[tuple[float, bool, int, int, int, int]]) -> pd.DataFrame:
    """A read_tcp frame from (t_s, from A, seq, ack, len, flags) rows."""
    out = []
    for t, fwd, seq, ack, n, flags in rows:
        (src, sport), (dst, dport) = (A, B) if fwd else (B, A)
        out.append((t, src, dst, sport, dport, seq, ack, n, flags, []))
    cols = ["t_s", "src", "dst", "sport", "dport", "seq", "ack", "len", "flags", "sack"]
    return pd.DataFrame(out, columns=cols)


def test_data_in_flight_is_the_highest_byte_sent_less_the_highest_ack() -> None:
    # A's ISN is 1000 (its data counts from 1001) and B's 5000.
    segs = _segs(
        [
            (0.00, True, 1000, 0, 0, capture.SYN),
            (0.10, False, 5000, 1001, 0, SYN_ACK),  # before any data: no row
            (0.10, True, 1001, 5001, 0, capture.ACK),
            (0.20, True, 1001, 5001, 1000, capture.ACK),  # 1000 sent, none ACKed
            (0.21, True, 2001, 5001, 1000, capture.ACK),  # 2000
            (0.22, True, 3001, 5001, 1000, capture.ACK),  # 3000
            (0.25, False, 5001, 9001, 0, capture.ACK),  # ACKs bytes never seen sent: ignored
            (0.30, False, 5001, 2001, 0, capture.ACK),  # 1000 ACKed: 2000
            (0.31, False, 5001, 4001, 0, capture.ACK),  # all ACKed: 0
            (0.32, False, 5001, 2001, 0, capture.ACK),  # an older ACK takes nothing back
            (0.40, True, 4001, 5001, 500, capture.ACK),  # 500 sent and, at the same
            (0.40, False, 5001, 4501, 0, capture.ACK),  # instant, ACKed: one row, 0
        ]
    )
    data, acks, _ = capture.flow_sequence(segs, A)
    flight = capture.flow_in_flight(data, acks)
    assert list(flight.itertuples(index=False, name=None)) == [
        (0.20, 1000),
        (0.21, 2000),
        (0.22, 3000),
        (0.25, 3000),
        (0.30, 2000),
        (0.31, 0),
        (0.32, 0),
        (0.40, 0),
    ]
    assert capture.flow_in_flight(data.iloc[:0], acks).empty
