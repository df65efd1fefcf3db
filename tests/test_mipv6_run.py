"""Mobile IPv6 as packets in `vho run` (issue 20): the signalling a run writes to its captures is
dissected by tshark without a malformed or expert mark, the times `summary.json` reports are
the times of the packets in the capture, and a rerun writes the same bytes.

The scenario is the bundled `scenarios/examples/cottingham-wlan-gprs.toml` (WLAN -> GPRS hard
handover at 30 s), cut at 40 s; a variant brings the GPRS interface up only at the handover so
that duplicate address detection and router solicitation appear on the wire too.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import vho

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "examples" / "cottingham-wlan-gprs.toml"
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (.ci/run installs it)"
)
SHORT = ['run.stop="40 s"', 'record.pcap=["mn", "cn", "ha"]']
FRESH_GPRS = [
    *SHORT,
    "mipv6.preconfigured=false",
    'mipv6.attached=["wlan"]',
]


def _fields(pcap: Path, filt: str, *fields: str) -> list[list[str]]:
    args = [TSHARK, "-r", str(pcap), "-Y", filt, "-T", "fields"]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, vho.RunResult]:
    base = tmp_path_factory.mktemp("mipv6")
    return {
        "preconfigured": vho.run(SCENARIO, overrides=SHORT, out_dir=base / "pre"),
        "fresh": vho.run(SCENARIO, overrides=FRESH_GPRS, out_dir=base / "fresh"),
    }


@needs_tshark
@pytest.mark.parametrize("case", ["preconfigured", "fresh"])
def test_tshark_dissects_every_signalling_packet_cleanly(runs, case):
    out = runs[case].out_dir
    for node in ("mn", "cn", "ha"):
        pcap = out / f"{node}.pcap"
        # No frame at all is malformed; no signalling frame carries an expert mark (TCP's
        # own analysis notes, such as duplicate ACKs, are expert marks of TCP frames).
        assert _fields(pcap, "_ws.malformed", "frame.number") == [], node
        bad = _fields(pcap, "(icmpv6 || mipv6) && _ws.expert", "frame.number", "_ws.expert")
        assert bad == [], (node, bad[:5])
    kinds = {r[0] for r in _fields(out / "mn.pcap", "mipv6", "mip6.mhtype")}
    # BU 5, BA 6, HoTI 1, CoTI 2, HoT 3, CoT 4 (RFC 6275 §6.1.2-6.1.8).
    assert {"1", "2", "3", "4", "5", "6"} <= kinds, kinds
    icmp = {r[0] for r in _fields(out / "mn.pcap", "icmpv6", "icmpv6.type")}
    assert "134" in icmp  # Router Advertisements
    if case == "fresh":
        # Router Solicitation, and DAD's Neighbor Solicitations from the unspecified address.
        assert {"133", "135"} <= icmp
        ns = _fields(out / "mn.pcap", "icmpv6.type == 135", "ipv6.src", "ipv6.dst")
        assert ns and all(src == "::" and dst.startswith("ff02::1:ff") for src, dst in ns)


@needs_tshark
def test_the_summary_times_are_the_captures_times(runs):
    r = runs["preconfigured"]
    h = r.summary["handovers"][0]["mipv6"]
    mn = r.out_dir / "mn.pcap"
    # The Binding Update leaves the mobile, the Binding Acknowledgement reaches it.
    bu = _fields(mn, "mip6.mhtype == 5 && mip6.bu.h_flag == 1", "frame.time_relative")
    ba = _fields(mn, "mip6.mhtype == 6", "frame.time_relative")
    assert float(bu[0][0]) == pytest.approx(h["bu_sent_s"], abs=1e-6)
    assert float(ba[0][0]) == pytest.approx(h["ba_s"], abs=1e-6)
    # T_n ends at the first data segment carrying the home address in a type 2 routing
    # header to the GPRS care-of address.
    ro = _fields(
        mn,
        f"ipv6.routing.mipv6.home_address && tcp.len > 0 && frame.time_relative > {h['ba_s']}",
        "frame.time_relative",
    )
    assert float(ro[0][0]) == pytest.approx(h["first_route_optimised_s"], abs=1e-6)
    at = r.summary["handovers"][0]["at_s"]
    parts = h["t_d_s"] + h["t_c_s"] + h["t_r_s"]
    assert parts == pytest.approx(h["t_n_s"], abs=1e-9)
    assert h["first_route_optimised_s"] - at == pytest.approx(h["t_n_s"], abs=1e-9)


def test_a_rerun_writes_the_same_captures(runs, tmp_path):
    again = vho.run(SCENARIO, overrides=SHORT, out_dir=tmp_path / "again")
    for node in ("mn", "cn", "ha"):
        a = (runs["preconfigured"].out_dir / f"{node}.pcap").read_bytes()
        b = (again.out_dir / f"{node}.pcap").read_bytes()
        assert a == b, node


@needs_tshark
def test_a_headers_only_capture_analyses_as_the_whole_one(runs, tmp_path):
    # record.snaplen = 256 (tcpdump's -s): every record keeps the packet's length on the wire
    # and all its headers (the tunnel's and the routing header's too), so tshark's dissection
    # and vho analyze's metrics are the whole capture's, at about a fifth of the bytes.
    cut = vho.run(SCENARIO, overrides=[*SHORT, "record.snaplen=256"], out_dir=tmp_path / "cut")
    whole_mn, cut_mn = runs["preconfigured"].out_dir / "mn.pcap", cut.out_dir / "mn.pcap"
    assert cut_mn.stat().st_size * 4 < whole_mn.stat().st_size
    fields = ("frame.len", "ipv6.src", "ipv6.dst", "tcp.seq", "tcp.len", "tcp.analysis.flags")
    assert _fields(cut_mn, "tcp || mipv6", *fields) == _fields(whole_mn, "tcp || mipv6", *fields)
    a, b = vho.analyze(whole_mn).metrics, vho.analyze(cut_mn).metrics
    a.pop("capture"), b.pop("capture")
    assert a == b


def test_the_sequence_figure_marks_each_step_of_t_n(tmp_path):
    from vho.runner import MIPV6_STEPS, mipv6_steps

    r = vho.run(SCENARIO, overrides=['run.stop="40 s"'], out_dir=tmp_path / "o", plot=True)
    assert (tmp_path / "o" / "sequence_mn.png").stat().st_size > 0
    steps = mipv6_steps(r.summary)
    h = r.summary["handovers"][0]["mipv6"]
    # One mark per step the handover went through, at the summary's instants, in order.
    assert [t for t, _ in steps] == [h[k] for k, _ in MIPV6_STEPS]
    assert [t for t, _ in steps] == sorted(t for t, _ in steps)


def test_vho_run_prints_t_n_and_its_parts(tmp_path, capsys):
    from vho.cli import main

    code = main(["run", str(SCENARIO), "--set", 'run.stop="40 s"', "--out", str(tmp_path / "o")])
    assert code == 0
    out = capsys.readouterr().out
    line = next(ln.strip() for ln in out.splitlines() if ln.strip().startswith("T_n"))
    import json

    m = json.loads((tmp_path / "o" / "summary.json").read_text())["handovers"][0]["mipv6"]
    assert line == (
        f"T_n {m['t_n_s']:.3f} s = t_d {m['t_d_s']:.3f} s + t_c {m['t_c_s']:.3f} s + "
        f"t_r {m['t_r_s']:.3f} s; BU sent 1 time(s)"
    )


def _admitted_by(overrides: list[str], link: str, sender: str, at_s: float, out: Path) -> int:
    """The index, among the packets `sender`'s direction of `link` admitted (what
    `drop_packets` counts), of the last one offered by `at_s`: the run stopped there."""
    r = vho.run(SCENARIO, overrides=[*overrides, f'run.stop="{at_s} s"'], out_dir=out)
    d = next(x for x in r.summary["links"] if x["link"] == link and x["from"] == sender)
    return d["offered"] - d["dropped_queue_overflow"] - 1


def _losing(pcaps: list[str], sender: str, at_s: float, tmp: Path) -> vho.RunResult:
    """The run with the packet `sender` offered to the GPRS link (link 4) by `at_s` lost."""
    i = _admitted_by(pcaps, "gprs", sender, at_s, tmp / "cut")
    way = "forward" if sender == "ar-gprs" else "reverse"
    return vho.run(
        SCENARIO, overrides=[*pcaps, f"link.4.{way}.drop_packets=[{i}]"], out_dir=tmp / "lost"
    )


def _clean(r: vho.RunResult, nodes: tuple[str, ...]) -> None:
    """No frame of these nodes' captures is malformed, no signalling frame has an expert mark."""
    for node in nodes:
        pcap = r.out_dir / f"{node}.pcap"
        assert _fields(pcap, "_ws.malformed", "frame.number") == [], node
        assert _fields(pcap, "(icmpv6 || mipv6) && _ws.expert", "frame.number") == [], node


@needs_tshark
def test_a_lost_binding_acknowledgement_is_repaired_on_the_wire(tmp_path):
    # RFC 6275 §11.7.1: the Binding Update sent again carries a greater sequence number, the
    # home agent accepts it (§10.3.1) and acknowledges that number with status 0; before,
    # the copy reused its number and drew status 135 at every retransmission, and T_n never
    # ended.
    pcaps = [*SHORT[:1], 'record.pcap=["mn", "ha"]']
    base = vho.run(SCENARIO, overrides=pcaps, out_dir=tmp_path / "base")
    # The HA's capture starts at its first packet: its absolute times are the run's.
    ha = base.out_dir / "ha.pcap"
    ba_at = float(_fields(ha, "mip6.mhtype == 6", "frame.time_epoch")[0][0])
    # The BA crosses ha-gprs (10 ms, 100 Mb/s) and is offered to the GPRS link.
    r = _losing(pcaps, "ar-gprs", round(ba_at + 0.0105, 6), tmp_path)
    mn = r.out_dir / "mn.pcap"
    bus = _fields(mn, "mip6.mhtype == 5 && mip6.bu.h_flag == 1", "mip6.bu.seqnr")
    bas = _fields(mn, "mip6.mhtype == 6", "mip6.ba.status", "mip6.ba.seqnr")
    assert len(bus) == 2 and int(bus[1][0]) == int(bus[0][0]) + 1, bus
    assert bas == [["0", bus[1][0]]], "only the second BA arrives, accepting the new number"
    _clean(r, ("mn", "ha"))
    h = r.summary["handovers"][0]["mipv6"]
    assert h["t_n_s"] is not None and h["bu_transmissions"] == 2


@needs_tshark
def test_a_lost_home_test_is_repaired_on_the_wire(tmp_path):
    # RFC 6275 §11.8: the Home Test Init is sent again after INITIAL_BINDACK_TIMEOUT (1 s); its
    # Home Test completes return routability and route optimisation follows.
    pcaps = [*SHORT[:1], 'record.pcap=["mn", "cn"]']
    base = vho.run(SCENARIO, overrides=pcaps, out_dir=tmp_path / "base")
    cn = base.out_dir / "cn.pcap"
    hot_at = float(_fields(cn, "mip6.mhtype == 3", "frame.time_epoch")[0][0])
    # The HoT crosses the core and ha-gprs (10 ms each, 100 Mb/s) to the GPRS router.
    r = _losing(pcaps, "ar-gprs", round(hot_at + 0.0205, 6), tmp_path)
    mn = r.out_dir / "mn.pcap"
    hotis = _fields(mn, "mip6.mhtype == 1", "frame.time_relative")
    hots = _fields(mn, "mip6.mhtype == 3", "frame.time_relative")
    assert len(hotis) == 2 and float(hotis[1][0]) - float(hotis[0][0]) == pytest.approx(
        1.0, abs=1e-6
    )
    assert len(hots) == 1 and float(hots[0][0]) > float(hotis[1][0]), (hotis, hots)
    _clean(r, ("mn", "cn"))
    h = r.summary["handovers"][0]["mipv6"]
    assert h["t_n_s"] is not None


UPLOAD = [
    'flow.0.from="mn"',
    'flow.0.to="cn"',
]


@needs_tshark
def test_a_lost_binding_update_to_the_correspondent_is_repaired_by_a_binding_error(tmp_path):
    # RFC 6275 §9.3.1, §9.3.3: the correspondent drops the mobile's packets whose Home
    # Address option names a care-of address its binding does not have and answers with a
    # Binding Error (MH type 7, status 1); the mobile tunnels through the home agent and runs
    # return routability again (§11.3.6), then a new Binding Update. Before, the
    # correspondent took such packets and its ACKs went to the old address for the binding's
    # lifetime.
    pcaps = ['run.stop="60 s"', *UPLOAD, 'record.pcap=["mn", "cn"]']
    base = vho.run(SCENARIO, overrides=pcaps, out_dir=tmp_path / "base")
    bu_at = base.summary["handovers"][0]["mipv6"]["bu_cn_sent_s"]
    r = _losing(pcaps, "mn", round(bu_at + 1e-6, 7), tmp_path)
    cn = r.out_dir / "cn.pcap"
    be = _fields(cn, "mip6.mhtype == 7", "mip6.be.status", "frame.time_epoch")
    assert be and be[0][0] == "1", be
    bus = _fields(cn, "mip6.mhtype == 5 && mip6.bu.h_flag == 0", "frame.time_epoch")
    # The first was lost on the way: the one that arrives followed the error.
    assert len(bus) == 1 and float(bus[0][0]) > float(be[0][1]), (bus, be)
    _clean(r, ("mn", "cn"))
    h = r.summary["handovers"][0]["mipv6"]
    assert h["t_n_s"] is not None
