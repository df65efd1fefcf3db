"""`vho analyze` (issue 5): metrics.json and figures from any capture; t_a against a known
answer and against the simulator; the handover found in simulated captures; bad input
refused with one line and exit status 2."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

import vho
from vho.capture import read_tcp
from vho.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios/examples/dk-fig1-wlan-gprs.toml"
FIG2 = ROOT / "scenarios/examples/dk-fig2-gprs-wlan.toml"

REQUIRED = (
    "retransmissions",
    "fast_retransmissions",
    "spurious_retransmissions",
    "duplicate_acks",
    "out_of_order",
    "goodput_bps",
    "adaptation_time_s",
)


@pytest.fixture(scope="module")
def wlan_gprs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WLAN -> GPRS at 2 s, 2 MB: long enough on each link for the timing signals."""
    out = tmp_path_factory.mktemp("wlan-gprs")
    vho.run(FIG1, out_dir=out, overrides=['flow.0.size="2 MB"', 'handover.0.at="2 s"'])
    return out


@pytest.fixture(scope="module")
def gprs_wlan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gprs-wlan")
    vho.run(FIG2, out_dir=out, overrides=['flow.0.size="2 MB"'])
    return out


def test_cli_writes_metrics_and_every_figure(wlan_gprs: Path, tmp_path: Path) -> None:
    out = tmp_path / "an"
    assert main(["analyze", str(wlan_gprs / "ch.pcap"), "--out", str(out)]) == 0
    m = json.loads((out / "metrics.json").read_text())
    (f,) = m["flows"]
    for key in REQUIRED:
        assert key in f, key
    assert f["id"] == "10.0.0.1:5001 -> 10.0.0.3:40001"
    assert f["bytes"] == 2_000_000
    names = sorted(p.name for p in out.iterdir())
    # The time series beside the capture (a one-flow vho run) gives the RTO and cwnd.
    for stem in ("sequence_flow0", "throughput_flow0", "cwnd_flow0"):
        assert f"{stem}.png" in names and f"{stem}.svg" in names, names


def test_the_handover_is_found_in_both_captures(wlan_gprs: Path) -> None:
    # At the sender the RTT jumps ~20x, placed by the data rate (Karn leaves the segments
    # retransmitted after the handover untimed); at the receiver only the rate tells.
    ch = vho.analyze(wlan_gprs / "ch.pcap").metrics["handover"]
    mh = vho.analyze(wlan_gprs / "mh.pcap").metrics["handover"]
    assert ch["source"] == mh["source"] == "detected"
    assert ch["signal"] == "rtt+data-rate" and mh["signal"] == "data-rate"
    for h in (ch, mh):
        assert 2.0 <= h["at_s"] <= 2.1, h
        assert h["after_s"] <= 2.0, h


def test_at_the_receiver_the_data_ack_time_is_reported_as_the_ack_delay(
    wlan_gprs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 18 (6): at the mobile (the receiver) a segment's arrival to the ACK covering it
    # is the receiver's ACK delay, not a round trip; at the sender it is the RTT.
    timed = {}
    for node in ("ch", "mh"):
        a = vho.analyze(wlan_gprs / f"{node}.pcap")
        (e,) = a.metrics["flows"]
        (row,) = a.flows.to_dict("records")
        at_receiver = e["capture_point"]["point"] == "receiver"
        assert at_receiver == (node == "mh"), e["capture_point"]
        measured, absent = ("ack_delay", "rtt") if at_receiver else ("rtt", "ack_delay")
        assert e[measured]["samples"] > 0 and e[f"{measured}_timestamps"] is not None
        assert e[absent] is None and e[f"{absent}_timestamps"] is None
        assert row[f"{measured}_mean_s"] == e[measured]["mean_s"]
        assert row[f"{absent}_mean_s"] is None
        # No stray columns for the summaries themselves.
        assert not {"rtt", "ack_delay", "rtt_timestamps", "ack_delay_timestamps"} & set(row)
        timed[node] = e[measured]
        assert (
            main(["analyze", str(wlan_gprs / f"{node}.pcap"), "--out", str(tmp_path / node)]) == 0
        )
        (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("  flow 0 ")]
        said, unsaid = ("ACK delay mean", "RTT") if at_receiver else ("RTT mean", "ACK delay")
        assert said in line and unsaid not in line, line
    # The receiver ACKs at once or within its delayed-ACK timer: far below the path's RTT
    # (WLAN then GPRS, tens to hundreds of ms).
    assert timed["mh"]["mean_s"] < timed["ch"]["min_s"]


@pytest.mark.parametrize("size", ["200 KB", "2 MB"])
def test_spurious_retransmissions_at_the_receiver_equal_the_ground_truth(
    tmp_path: Path, size: str
) -> None:
    # Daniel & Kojo's Fig. 1 case (WLAN -> GPRS soft handover at 0.6 s): the simulator counts
    # copies sent though an earlier one reached the receiver; the capture at the mobile host
    # sees each such copy arrive a second time. Found at the receiver from the data/ACK
    # pattern (no handshake in ns-2's one-way TCP), not told.
    r = vho.run(FIG1, out_dir=tmp_path, overrides=[f'flow.0.size="{size}"'])
    truth = r.summary["flows"][0]["spurious_retransmissions"]
    assert truth > 0
    (mh,) = vho.analyze(tmp_path / "mh.pcap").metrics["flows"]
    assert mh["capture_point"]["point"] == "receiver", mh["capture_point"]
    assert (mh["spurious_evidence"], mh["spurious_retransmissions"]) == ("receiver-capture", truth)
    # At the sender the same bytes cannot be told apart: ns-2's sink sends no D-SACK and no
    # timestamps, so the count says it has no evidence rather than 0 found.
    (ch,) = vho.analyze(tmp_path / "ch.pcap").metrics["flows"]
    assert ch["capture_point"]["point"] == "sender", ch["capture_point"]
    assert (ch["spurious_evidence"], ch["spurious_retransmissions"]) == ("none", 0)


def test_adaptation_time_equals_the_simulators(gprs_wlan: Path) -> None:
    # Cottingham & Vidales §5 over the packets the receiver got, from the first one over the
    # new link: the simulator counts it at delivery, vho analyze from the receiver's capture.
    s = json.loads((gprs_wlan / "summary.json").read_text())["flows"][0]
    assert s["adaptation_time_s"] is not None
    a = vho.analyze(gprs_wlan / "mh.pcap", handover_at=s["first_on_new_link_s"])
    (f,) = a.metrics["flows"]
    assert f["first_after_handover_s"] == pytest.approx(s["first_on_new_link_s"], abs=1e-9)
    assert f["adaptation_time_s"] == pytest.approx(s["adaptation_time_s"], abs=1e-6)


def _pcap(frames: list[tuple[int, bytes]]) -> bytes:
    """A nanosecond pcap of raw IPv4 frames (linktype 101)."""
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101)]
    for t_ns, frame in frames:
        out.append(struct.pack("<IIII", t_ns // 10**9, t_ns % 10**9, len(frame), len(frame)))
        out.append(frame)
    return b"".join(out)


def _segment(seq: int, payload: int, *, ack: int = 1, flags: int = 0x10, fwd: bool = True) -> bytes:
    src, dst = (b"\x0a\x00\x00\x01", b"\x0a\x00\x00\x02")
    sport, dport = 5001, 80
    if not fwd:
        src, dst, sport, dport = dst, src, dport, sport
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
    total = 20 + len(tcp) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0, 64, 6, 0, src, dst)
    return ip + tcp + b"\0" * payload


def _points(arrivals: list[tuple[int, int]]) -> list[tuple[int, float]]:
    """The §5 method, written out plainly: an interval opens at a packet; a later packet more
    than 0.1 s after the opening closes it (bytes before it over the elapsed time) and opens
    the next."""
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


def test_adaptation_time_on_a_synthetic_capture_with_a_known_answer(tmp_path: Path) -> None:
    # 1000-byte segments every 10 ms for 1 s (800 kb/s), a 0.5 s outage (the handover at
    # 1.2 s), one every 40 ms for 1 s (200 kb/s, slow start on the new link), then every 5 ms
    # (1.6 Mb/s) for 1 s.
    ms = 1_000_000
    arrivals = [(i * 10 * ms, 1000) for i in range(100)]
    arrivals += [(1500 * ms + i * 40 * ms, 1000) for i in range(25)]
    arrivals += [(2500 * ms + i * 5 * ms, 1000) for i in range(200)]
    frames = [(t, _segment(1 + k * 1000, n)) for k, (t, n) in enumerate(arrivals)]
    path = tmp_path / "known.pcap"
    path.write_bytes(_pcap(frames))
    pts = _points(arrivals)
    mean = sum(v for _, v in pts[:-1]) / (len(pts) - 1)
    # The first point at or above the mean after the first packet on the new link (1.5 s),
    # with the one before it: the crossing by linear interpolation.
    first_new = 1500 * ms
    k = next(i for i, (t, v) in enumerate(pts) if t > first_new and v >= mean)
    (t0, v0), (t1, v1) = pts[k - 1], pts[k]
    expected = (t0 + (mean - v0) / (v1 - v0) * (t1 - t0) - first_new) / 1e9
    assert 1.0 < expected < 1.2  # the crossing falls in the fast phase
    a = vho.analyze(path, handover_at=1.2)
    (f,) = a.metrics["flows"]
    assert f["first_after_handover_s"] == pytest.approx(1.5)
    assert f["adaptation_time_s"] == pytest.approx(expected, abs=1e-9)
    assert [tuple(p) for p in a.throughput(0).itertuples(index=False)] == [
        (t / 1e9, v) for t, v in pts
    ]


#: A wall-clock stamp (2026-11-22): a real capture's first packet.
EPOCH_NS = 1_795_347_750_700_000_000


def test_a_wall_clock_capture_reads_from_its_first_packet(tmp_path: Path) -> None:
    # Issue 18, item 5: the synthetic capture above, stamped on a wall clock, gives the same
    # times counted from its first packet; the absolute start is kept in metrics.json, and a
    # --handover-at in capture-relative seconds means what it means on the simulator's clock.
    ms = 1_000_000
    arrivals = [(i * 10 * ms, 1000) for i in range(100)]
    arrivals += [(1500 * ms + i * 40 * ms, 1000) for i in range(25)]
    sim, wall = tmp_path / "sim.pcap", tmp_path / "wall.pcap"
    frames = [(t, _segment(1 + k * 1000, n)) for k, (t, n) in enumerate(arrivals)]
    sim.write_bytes(_pcap(frames))
    wall.write_bytes(_pcap([(EPOCH_NS + t, f) for t, f in frames]))
    a, b = (vho.analyze(p, handover_at=1.2) for p in (sim, wall))
    assert b.metrics["time"] == {
        "origin": "first_packet",
        "origin_epoch_s": EPOCH_NS / 1e9,
        "origin_utc": "2026-11-22T11:42:30.700000Z",
        "end_s": pytest.approx(2.46),
    }
    assert a.metrics["time"]["origin"] == "simulated_clock"
    assert a.metrics["time"]["origin_epoch_s"] == 0
    for k in ("first_s", "first_after_handover_s", "adaptation_time_s", "duration_s"):
        assert b.metrics["flows"][0][k] == pytest.approx(a.metrics["flows"][0][k], abs=1e-9), k
    assert b.metrics["flows"][0]["first_s"] == 0
    segs = read_tcp(wall)
    assert segs.t_s.iloc[0] == 0 and segs.t_s.iloc[-1] == pytest.approx(2.46)
    assert segs.attrs["time_origin_epoch_s"] == EPOCH_NS / 1e9


@pytest.mark.parametrize("given", [2.5, 1_795_347_752.0])
def test_a_handover_at_outside_the_capture_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: float
) -> None:
    # Issue 18, item 5: past the last packet (2.46 s), or an epoch stamp given by mistake.
    wall = tmp_path / "wall.pcap"
    ms = 1_000_000
    wall.write_bytes(
        _pcap([(EPOCH_NS + i * 20 * ms, _segment(1 + i * 1000, 1000)) for i in range(124)])
    )
    out = tmp_path / "an"
    status = main(["analyze", str(wall), "--out", str(out), "--handover-at", str(given)])
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "outside the capture, which spans 0 to 2.460000 s from its first packet" in err
    assert "2026-11-22T11:42:30.700000Z" in err
    assert not out.exists()
    # Inside it, accepted.
    assert main(["analyze", str(wall), "--out", str(out), "--handover-at", "2.4"]) == 0


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--flow", "7"], "--flow '7' matches none of its 1 flows"),
        (["--flow", "10.0.0.1"], "--flow '10.0.0.1': expected N, ADDR:PORT"),
        (["--flow", "10.0.0.1:99999"], "port 99999 is above 65535"),
        (["--flow", "10.0.0.300:80"], "'10.0.0.300' is not an IP address"),
        (["--handover-at", "-1"], "--handover-at: expected a time in seconds >= 0"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    wlan_gprs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    expected: str,
) -> None:
    out = tmp_path / "an"
    try:
        status = main(["analyze", str(wlan_gprs / "mh.pcap"), "--out", str(out), *args])
    except SystemExit as e:  # argparse's own refusals
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err, err
    assert not (out / "metrics.json").exists()


def test_a_capture_cut_short_is_analysed_up_to_the_cut_with_one_warning(
    wlan_gprs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As tshark: "The file appears to have been cut short in the middle of a packet", and
    # the packets before it are analysed.
    whole = vho.analyze(wlan_gprs / "mh.pcap").metrics
    cut = tmp_path / "cut.pcap"
    cut.write_bytes((wlan_gprs / "mh.pcap").read_bytes()[:-700])
    out = tmp_path / "an"
    assert main(["analyze", str(cut), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(cut) in err and "cut short" in err, err
    m = json.loads((out / "metrics.json").read_text())
    assert 0 < m["packets"] < whole["packets"]
    assert len(m["warnings"]) == 1 and "cut short in the middle of a packet" in m["warnings"][0]
    assert whole["warnings"] == []


def test_a_capture_damaged_before_its_end_is_still_refused(
    wlan_gprs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray((wlan_gprs / "mh.pcap").read_bytes())
    data[24 + 8 : 24 + 12] = (1 << 20).to_bytes(4, "little")  # the first record's length
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(bytes(data))
    out = tmp_path / "an"
    assert main(["analyze", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "not plausible" in err, err
    assert not (out / "metrics.json").exists()


def test_flow_selection_by_index_endpoint_and_pair(wlan_gprs: Path) -> None:
    cap = wlan_gprs / "mh.pcap"
    for spec in ("0", "10.0.0.3:40001", ":5001", "10.0.0.3:40001,10.0.0.1:5001"):
        assert len(vho.analyze(cap, flow=spec).metrics["flows"]) == 1, spec


def test_what_cannot_be_measured_is_said_not_printed_as_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 18 (6): at a sender capture without D-SACK or timestamps, spurious retransmissions
    # are not measurable ("0 by none" read as "none found"); without a handover, t_a says why.
    from vho.cli import main

    scen = Path(__file__).resolve().parent.parent / "benches" / "scenarios" / "lossy-link.toml"
    sets = ['flow.0.tcp.profile="rfc"', 'record.pcap=["ch"]', 'flow.0.size="300 KB"']
    vho.run(scen, overrides=sets, out_dir=tmp_path / "run")
    capsys.readouterr()
    assert main(["analyze", str(tmp_path / "run" / "ch.pcap"), "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "spurious not measurable here" in out
    assert "t_a - (no handover known: give --handover-at)" in out
    # The throughput is drawn with no handover known too (it is what would show one).
    assert (tmp_path / "a" / "throughput_flow0.png").is_file()


@pytest.mark.parametrize("profile", ["ns2", "linux"])
def test_at_the_sender_the_headline_retransmissions_are_every_segment_sent_again(
    tmp_path: Path, profile: str
) -> None:
    # A 2 MB download across Fig. 1's handover: at the sender's capture every segment sent
    # again is seen as such, so the headline count equals the simulator's own (its FIN's
    # resend included), whatever Wireshark's 3 ms heuristic calls "out of order" among them;
    # Wireshark's labels stay beside it, and together they are the same segments. Before,
    # the headline was Wireshark's retransmission label alone (a linux run: 135 of 167, and
    # fewer than the spurious ones in a run with back-to-back resends).
    sets = ['flow.0.size="2 MB"', f'flow.0.tcp.profile="{profile}"']
    r = vho.run(FIG1, out_dir=tmp_path, overrides=sets)
    truth = r.summary["flows"][0]["retransmissions"]
    assert truth > 0
    (ch,) = vho.analyze(tmp_path / "ch.pcap").metrics["flows"]
    assert ch["capture_point"]["point"] == "sender"
    assert (ch["retransmissions_by"], ch["retransmissions"]) == ("segments-sent-again", truth)
    assert ch["wireshark_retransmissions"] + ch["wireshark_out_of_order"] == truth
    assert ch["spurious_retransmissions"] <= ch["retransmissions"]
    # At the receiver a late original and a resend look alike: Wireshark's count, said so.
    (mh,) = vho.analyze(tmp_path / "mh.pcap").metrics["flows"]
    assert mh["retransmissions_by"] == "wireshark"
    assert mh["retransmissions"] == mh["wireshark_retransmissions"]
