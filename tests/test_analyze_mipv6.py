"""`vho analyze` on a Mobile IPv6 capture at the mobile node (issue 20), and the span of t_a's
mean (`--ta-mean`).

The capture is `tests/data/mipv6_handover.pcap`, written by `tests/mipv6_capture.py` (its
docstring tells the story): one download that is route-optimised to CoA1, then tunnelled by
the home agent to CoA2, then route-optimised to CoA2, with RA/NS/BU/BA/HoTI in between.
tshark is the referee for which packets form the connection and for their flags.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import mipv6_capture as mip
import pytest

import vho
from vho.cli import main
from vho.errors import VhoError

CAPTURE = Path(__file__).resolve().parent / "data" / "mipv6_handover.pcap"
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (.ci/run installs it)"
)
FLAGS = {
    "retransmissions": "tcp.analysis.retransmission",
    "fast_retransmissions": "tcp.analysis.fast_retransmission",
    "spurious_retransmissions": "tcp.analysis.spurious_retransmission",
    "duplicate_acks": "tcp.analysis.duplicate_ack",
    "out_of_order": "tcp.analysis.out_of_order",
    "lost_segment": "tcp.analysis.lost_segment",
    "ack_lost_segment": "tcp.analysis.ack_lost_segment",
}


def _tshark(*args: str) -> list[list[str]]:
    out = subprocess.run(
        [TSHARK or "tshark", "-n", "-r", str(CAPTURE), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line.split("\t") for line in out.splitlines()]


def test_the_committed_capture_is_the_generators(tmp_path: Path) -> None:
    fresh = tmp_path / "mipv6.pcap"
    mip.build().write(fresh)
    assert fresh.read_bytes() == CAPTURE.read_bytes()


def test_signalling_is_skipped_as_not_tcp_without_error() -> None:
    a = vho.analyze(CAPTURE)
    m = a.metrics
    frames = len(mip.build().frames)
    assert m["packets"] == frames
    # RA, NS (DAD), BU to the HA, BA, HoTI (tunnelled), BU to the CN.
    assert m["skipped"] == {
        "unknown_link_type": 0,
        "not_tcp": mip.SIGNALLING,
        "truncated_headers": 0,
        "fragment": 0,
        "malformed": 0,
    }
    assert m["tcp_segments"] == frames - mip.SIGNALLING
    assert m["warnings"] == []


def test_the_connection_is_one_flow_between_the_home_address_and_the_cn() -> None:
    # RFC 6275 §6.3, §6.4, §10.4.1: whether route-optimised (care-of address on the wire, the
    # home address in an extension header) or tunnelled (inner header), the transport's
    # endpoints are the home address and the CN's.
    a = vho.analyze(CAPTURE)
    (f,) = a.metrics["flows"]
    assert a.metrics["flows_total"] == 1
    assert f["sender"] == {"addr": mip.CN, "port": mip.CN_PORT}
    assert f["receiver"] == {"addr": mip.HOA, "port": mip.MN_PORT}
    assert f["packets"] == len(mip.build().frames) - mip.SIGNALLING
    # 71 segments of 1000 B (numbered 0-70), each byte once; 71 captured, less 55's original
    # (lost), plus its retransmission and 59's copy.
    assert (f["bytes"], f["data_segments"]) == (71_000, 71 - 1 + 2)


@needs_tshark
def test_the_flow_table_and_its_flags_agree_with_tshark() -> None:
    rows = _tshark("-Y", "tcp", "-T", "fields", "-e", "tcp.stream")
    streams = {r[0] for r in rows}
    assert streams == {"0"}, "tshark: one tcp.stream, keyed by the home address"
    (conv,) = [
        r for r in _tshark("-q", "-z", "conv,tcp") if r and "<->" in r[0]
    ]  # "HoA:40000 <-> CN:5001 ..." (one line, spaces only)
    assert f"{mip.HOA}:{mip.MN_PORT}" in conv[0] and f"{mip.CN}:{mip.CN_PORT}" in conv[0]
    a = vho.analyze(CAPTURE)
    (f,) = a.metrics["flows"]
    assert f["packets"] == len(rows)
    ours = f["wireshark"]
    for name, flt in FLAGS.items():
        theirs = len(_tshark("-Y", flt))
        assert ours[name] == theirs, f"{flt}: vho {ours[name]}, tshark {theirs}"
    # The known answer, by hand from the story: 55's retransmission (through the tunnel) and
    # 59's copy; 64 a millisecond after 65; the holes before 56 and before 65; one dup ACK.
    assert (ours["retransmissions"], ours["out_of_order"]) == (2, 1)
    assert (ours["lost_segment"], ours["duplicate_acks"]) == (2, 1)


def test_the_handover_is_the_first_tunnelled_data_packet() -> None:
    # The care-of address changes twice in the data: CN -> CoA1 (route-optimised) became
    # HA -> CoA2 (the tunnel) at 0.95 s, the first data packet on the new interface, then
    # CN -> CoA2 (route-optimised again) at 1.6 s.
    a = vho.analyze(CAPTURE)
    h = a.metrics["handover"]
    assert (h["source"], h["signal"], h["at_s"]) == ("detected", "tunnel-endpoint", 0.95)
    assert [c["at_s"] for c in h["all"]] == [0.95, 1.6]
    assert f"{mip.CN} -> {mip.COA1} became {mip.HA} -> {mip.COA2}" in h["evidence"]
    (f,) = a.metrics["flows"]
    assert f["first_after_handover_s"] == 0.95


def _points(arrivals: list[tuple[int, int]]) -> list[tuple[int, float]]:
    """Cottingham & Vidales §5's points, re-derived: an interval opens at a packet and closes
    at the first packet more than 0.1 s later, which belongs to the next."""
    pts, start, acc = [], None, 0
    for t, n in arrivals:
        if start is None:
            start, acc = t, n
        elif t - start > 100_000_000:
            pts.append((t, acc * 8 / ((t - start) / 1e9)))
            start, acc = t, n
        else:
            acc += n
    return pts


def _t_a(pts: list[tuple[int, float]], mean: float, first_new: int) -> float | None:
    prev = None
    for t, v in pts:
        if t > first_new and v >= mean:
            if prev is not None and v > prev[1] and prev[1] < mean:
                t = prev[0] + (mean - prev[1]) / (v - prev[1]) * (t - prev[0])
            return (max(t, first_new) - first_new) / 1e9
        prev = (t, v)
    return None


def test_t_a_against_both_means_on_the_mobile_ipv6_capture(tmp_path: Path) -> None:
    # The data as it arrived at the mobile (every copy counts, §5 "quantity of data").
    arrivals = sorted(
        (t, 1000)
        for t, p in mip.build().frames
        if len(p) > 1000  # the data segments: 1000 B of payload in every one
    )
    pts = _points(arrivals)
    first_new = 950_000_000
    whole = sum(v for _, v in pts[:-1]) / (len(pts) - 1)
    after_pts = [p for p in pts if p[0] > first_new]
    after = sum(v for _, v in after_pts[:-1]) / (len(after_pts) - 1)
    assert whole > after  # WLAN's 800 kb/s in the first, GPRS's ~53 kb/s in the second
    expect = {"whole-connection": _t_a(pts, whole, first_new)}
    expect["after-handover"] = _t_a(pts, after, first_new)
    assert expect["whole-connection"] is None  # GPRS never reaches a mean WLAN made
    assert expect["after-handover"] is not None

    default = vho.analyze(CAPTURE)
    (f,) = default.metrics["flows"]
    assert f["adaptation_time_s"] is None
    assert "ta_mean" not in f and "ta_mean" not in default.metrics  # unchanged unless asked
    for span in ("whole-connection", "after-handover"):
        a = vho.analyze(CAPTURE, ta_mean=span)
        assert a.metrics["ta_mean"] == span
        (f,) = a.metrics["flows"]
        assert f["ta_mean"] == span
        got = f["adaptation_time_s"]
        assert got == pytest.approx(expect[span], abs=1e-9) if expect[span] else got is None
        both = f["adaptation_time_by_mean"]
        assert both["whole-connection"]["mean_bps"] == pytest.approx(whole, rel=1e-12)
        assert both["after-handover"]["mean_bps"] == pytest.approx(after, rel=1e-12)
        assert both["whole-connection"]["adaptation_time_s"] is None
        assert both["after-handover"]["adaptation_time_s"] == pytest.approx(
            expect["after-handover"], abs=1e-9
        )
        assert a.metrics["handover"]["all"][0]["adaptation_time_s"] == f["adaptation_time_s"]


def test_cli_ta_mean_reports_both_and_refuses_other_spans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a"
    assert main(["analyze", str(CAPTURE), "--ta-mean", "after-handover", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "(mean after-handover; whole-connection: -)" in printed
    m = json.loads((out / "metrics.json").read_text())
    assert m["ta_mean"] == "after-handover"
    assert set(m["flows"][0]["adaptation_time_by_mean"]) == {"whole-connection", "after-handover"}
    with pytest.raises(SystemExit) as e:
        main(["analyze", str(CAPTURE), "--ta-mean", "lifetime", "--out", str(tmp_path / "b")])
    assert e.value.code == 2
    with pytest.raises(VhoError, match="--ta-mean 'lifetime'"):
        vho.analyze(CAPTURE, ta_mean="lifetime")
