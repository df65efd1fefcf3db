"""`vho analyze` on Multipath TCP captures (issue 39, item 4): subflows joined by token, the
DSN mappings, reinjections, held against tshark's MPTCP dissector.

The fixtures are emulator captures (`tests/mptcp_scenarios.py` says how they were made) with
tshark 4.0.17's fields stored beside them, so that this runs without root or tshark; with
tshark installed, its fields are taken afresh too. `benches/mptcp_vs_tshark.py --emulate DIR`
makes new captures and compares them.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from key_paths import add_paths

import vho
from vho import outputs
from vho.cli import main

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benches"))
import mptcp_vs_tshark as peer  # noqa: E402

FIXTURES = {
    "hard": HERE / "data" / "mptcp_hard_mh.pcap",
    "soft": HERE / "data" / "mptcp_soft_ch.pcap",
}
needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark is not installed (.ci/run installs it)"
)


def _tshark_stored(capture: Path) -> dict:
    return peer.tshark_figures(peer.read_csv(capture.with_suffix(".tshark.csv")))


# -- Held to tshark -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_subflows_mappings_and_reinjections_equal_tsharks(name: str) -> None:
    capture = FIXTURES[name]
    ours = peer.vho_figures(vho.analyze(capture).mptcp)
    theirs = _tshark_stored(capture)
    c = peer.compare(ours, theirs)
    # The token join: tshark's mptcp.stream holds the same TCP streams as vho's connection.
    assert c["connections"]["vho"] == c["connections"]["tshark"] == [[0, 1]]
    # Every data segment's DSN equals tshark's (mptcp.rawdsn64) and the one tshark decodes
    # from its DSS option (RFC 8684 §3.3.1: the mapping's DSN plus the segment's offset).
    assert c["dsn_equal"]["equal"] == c["dsn_equal"]["of"] > 200
    assert c["dsn_equal_to_mptcp_rawdsn64"]["equal"] == c["dsn_equal_to_mptcp_rawdsn64"]["of"]
    # Segments grouped by mapping as tshark's mptcp.related_mapping groups them.
    assert c["mapping_groups_equal"]
    # Reinjections: the frames of tshark's mptcp.reinjection_of, and those its decoded DSNs
    # give; every frame tshark's two passes say was reinjected (mptcp.reinjected_in) is one
    # vho says so too (tshark misses some: see benches/mptcp_vs_tshark.py).
    assert c["reinjection_frames_equal"]
    assert c["reinjections_by_fields"]["frames_equal"]
    assert c["reinjected_later_by_fields"]["frames_equal"]
    assert c["reinjected_later_both"] == c["reinjected_later"]["tshark"]
    assert peer.agrees(c)


def test_the_figures_of_the_fixtures() -> None:
    # What `python3 benches/mptcp_vs_tshark.py tests/data/mptcp_*.pcap` prints, kept: the soft
    # handover at the correspondent reinjects 26 segments on GPRS that WLAN had carried.
    hard = vho.analyze(FIXTURES["hard"]).metrics["mptcp"]
    soft = vho.analyze(FIXTURES["soft"]).metrics["mptcp"]
    assert [d["server_to_client"]["reinjections"] for d in hard["connections"]] == [1]
    assert [d["server_to_client"]["reinjections"] for d in soft["connections"]] == [26]
    assert [d["server_to_client"]["unique_bytes"] for d in hard["connections"]] == [300_000]


@needs_tshark
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_stored_tshark_fields_are_tsharks(name: str) -> None:
    capture = FIXTURES[name]
    fresh = peer.tshark_figures(peer.tshark_rows(capture))
    stored = _tshark_stored(capture)
    assert fresh == stored


@needs_tshark
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and ip (iproute2)"
)
@pytest.mark.parametrize("name", ["hard", "soft"])
def test_fresh_emulator_captures_agree_with_tshark(tmp_path: Path, name: str) -> None:
    # The kernel's MPTCP through `vho emulate --multipath`, captured at both hosts.
    from mptcp_scenarios import SCENARIOS

    from vho import _native

    def left_behind() -> set[str]:
        # Namespaces whose run is dead (another live run's, a concurrent test's, are not).
        return {n for n, alive in _native.emulate_namespaces() if not alive}

    before = left_behind()
    caps = peer.emulate_captures(tmp_path, {name: SCENARIOS[name]})
    assert left_behind() <= before
    for cap in caps:
        c = peer.compare(
            peer.vho_figures(peer.vho_mptcp(cap)), peer.tshark_figures(peer.tshark_rows(cap))
        )
        assert peer.agrees(c), (cap, peer.line(c))


# -- The connection ----------------------------------------------------------------------------


# -- The simulator's own captures ------------------------------------------------------------


#: The example's handover, then WLAN back at 8 s, each with the path manager told
#: (`notify`): WLAN's address removed (REMOVE_ADDR) and, back, a new subflow over it.
AWAY_AND_BACK = """
[[handover]]
at = "5 s"
from = "wlan"
to = "gprs"
kind = "hard"
notify = "at"

[[handover]]
at = "8 s"
from = "gprs"
to = "wlan"
kind = "hard"
notify = "at"
"""


def _simulated(tmp_path: Path, away_and_back: bool = False) -> tuple[dict, Path]:
    """The bundled MPTCP example (WLAN -> GPRS, hard, 2 MB) run with captures at both ends."""
    text = (HERE.parent / "scenarios" / "examples" / "mptcp-wlan-gprs.toml").read_text()
    text = text.replace("series = true", 'series = true\npcap = ["ch", "mh"]')
    if away_and_back:
        head, rest = text.split("[[handover]]", 1)
        text = head + AWAY_AND_BACK + rest[rest.index("[[flow]]") :]
    scenario = tmp_path / "mptcp.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    return json.loads((out / "summary.json").read_text()), out


def test_a_simulated_capture_reads_back_as_the_simulator_ran_it(tmp_path: Path) -> None:
    # The simulator writes each subflow segment's MPTCP option as Linux lays it out
    # (agent::mptcp::wire: RFC 8684 §3.1 MP_CAPABLE, §3.2 MP_JOIN, §3.3 DSS): the analysis
    # of its capture at the data sender must give back what the simulator says it sent.
    summary, out = _simulated(tmp_path)
    flow = summary["flows"][0]
    sim = flow["mptcp"]
    m = vho.analyze(out / "ch.pcap").mptcp
    assert m["options"]["malformed"] == 0
    (conn,) = m["connections"]
    # The join: one connection of two subflows, the second naming the server's token.
    subflows = conn["subflows"]
    assert [s["role"] for s in subflows] == ["initial", "join"]
    assert subflows[1]["token"] == conn["server"]["token"] is not None
    # Per subflow, the bytes the data sender put on it (retransmissions and reinjections
    # included), as the simulator counted them.
    assert [s["server"]["bytes"] for s in subflows] == [s["bytes_sent"] for s in sim["subflows"]]
    d = conn["server_to_client"]
    assert d["bytes"] == sum(s["bytes_sent"] for s in sim["subflows"])
    # Every byte of the transfer once in DSN space, and the last DATA_ACK past its last byte
    # (the first data byte is IDSN + 1, RFC 8684 §3.3.1 and Linux's write_seq).
    assert d["unique_bytes"] == flow["bytes"] == 2_000_000
    assert d["data_ack"] == flow["bytes"] + 1
    # A data sender's segment is 1424 bytes of payload on a 1500-byte MTU, as the kernel's:
    # 12 bytes of timestamps and a 24-byte DSS (agent::mptcp::DATA_DSS_BYTES).
    seg = m["segments"]
    assert max(seg["len"]) == 1424


def test_a_simulated_remove_addr_and_a_recreated_subflow_read_back(tmp_path: Path) -> None:
    # RFC 8684 §3.4.2: the mobile removes WLAN's address (REMOVE_ADDR, its id) and, WLAN back,
    # joins a new subflow over it (§3.2, a new port and the same address id) and removes
    # GPRS's; the capture at the correspondent shows the three subflows under one token and
    # the removals.
    summary, out = _simulated(tmp_path, away_and_back=True)
    flow = summary["flows"][0]
    assert flow["completed"]
    sim = flow["mptcp"]["subflows"]
    assert [s["interface"] for s in sim] == ["wlan", "gprs", "wlan"]
    m = vho.analyze(out / "ch.pcap").mptcp
    (conn,) = m["connections"]
    subs = conn["subflows"]
    assert [s["role"] for s in subs] == ["initial", "join", "join"]
    assert [s["server"]["bytes"] for s in subs] == [s["bytes_sent"] for s in sim]
    assert len({s["client"]["port"] for s in subs}) == 3
    # WLAN's address removed at its handover, then GPRS's at the one back (each REMOVE_ADDR
    # sent by the mobile, the client, over a subflow still open); each id is the one its
    # interface's subflow joined with, 0 being the initial subflow's own.
    removed = [a for a in conn["addresses"] if a["kind"] == "remove"]
    assert [a["from"] for a in removed] == ["client", "client"]
    wlan_id, gprs_id = subs[2]["client"]["addr_id"], subs[1]["client"]["addr_id"]
    assert [a["addr_id"] for a in removed] == [wlan_id, gprs_id]
    assert 0 not in (wlan_id, gprs_id) and wlan_id != gprs_id
    assert conn["server_to_client"]["unique_bytes"] == flow["bytes"]


@needs_tshark
@pytest.mark.parametrize("away_and_back", [False, True], ids=["handover", "away-and-back"])
def test_a_simulated_capture_agrees_with_tshark(tmp_path: Path, away_and_back: bool) -> None:
    # tshark's MPTCP dissector reads the simulator's capture as vho does: the same
    # connection, every DSN, every mapping, the reinjections.
    _, out = _simulated(tmp_path, away_and_back)
    capture = out / "ch.pcap"
    ours = peer.vho_figures(vho.analyze(capture).mptcp)
    theirs = peer.tshark_figures(peer.tshark_rows(capture))
    c = peer.compare(ours, theirs)
    if not away_and_back:
        assert peer.agrees(c), peer.line(c)
        return
    # After the return to WLAN, tshark 4.0's analysis gives two segments of the new subflow
    # no DSN (`mptcp.dsn` empty, though their DSS carries one), so its
    # `mptcp.reinjection_of` cannot name them; by tshark's own decoded options they are
    # reinjections, as vho says. Everything else agrees.
    assert theirs["reinjections"] <= ours["reinjections"], peer.line(c)
    assert c["reinjections_by_fields"]["frames_equal"], peer.line(c)
    assert c["connections"]["vho"] == c["connections"]["tshark"]
    assert c["dsn_equal"]["equal"] == c["dsn_equal"]["of"]
    assert c["mapping_groups_equal"]
    assert c["reinjected_later_by_fields"]["frames_equal"]
    assert c["reinjected_later_both"] == c["reinjected_later"]["tshark"]


def test_the_join_names_the_servers_token_and_its_address_id() -> None:
    # RFC 8684 §3.2: MP_JOIN's SYN carries the token of the host it is sent to; §3.1: the
    # token is the top 32 bits of SHA-256 of that host's key. §3.4.1: the initial subflow's
    # address ID is 0.
    m = vho.analyze(FIXTURES["hard"]).metrics["mptcp"]
    assert m["connections_total"] == 1 and m["unjoined_subflows"] == []
    (c,) = m["connections"]
    initial, joined = c["subflows"]
    assert (initial["role"], joined["role"]) == ("initial", "join")
    assert joined["token"] == c["server"]["token"]
    assert initial["client"]["addr_id"] == 0
    assert joined["client"]["addr_id"] not in (None, 0)
    # The join comes from the mobile's other interface to the same server port.
    assert joined["client"]["addr"] != initial["client"]["addr"]
    assert joined["server"]["port"] == initial["server"]["port"]
    assert c["version"] == 1 and m["options"]["malformed"] == 0
    d = c["server_to_client"]
    assert d["data_fin"] and d["unique_bytes"] == 300_000
    # The DATA_ACK covers every byte and the DATA_FIN's octet (RFC 8684 §3.3.3): IDSN + 1 +
    # 300,000 + 1.
    assert d["data_ack"] == 300_002


def test_segments_table_places_every_subflow_in_dsn_space() -> None:
    a = vho.analyze(FIXTURES["soft"])
    segs = a.mptcp_segments()
    data = segs[segs.direction == "server_to_client"]
    assert set(data.subflow) == {0, 1}
    # Every byte of the 300 KB is somewhere, DSN 1 to 300,000 (relative to the IDSN).
    assert data.dsn.min() == 1
    assert (data.dsn + data.len).max() == 300_001
    # A reinjection's bytes were sent before: at the data level it is a retransmission.
    assert data[data.reinjection].data_retransmission.all()


def test_a_plain_tcp_capture_has_no_mptcp_section(tmp_path: Path) -> None:
    a = vho.analyze(HERE / "data" / "mipv6_handover.pcap", out_dir=tmp_path / "o")
    assert "mptcp" not in a.metrics and a.mptcp is None
    assert not list((tmp_path / "o").glob("mptcp*"))


# -- The command line and its files ---------------------------------------------------------


def test_cli_prints_the_mptcp_section_and_writes_its_tables(tmp_path: Path, capsys) -> None:
    out = tmp_path / "a"
    assert main(["analyze", str(FIXTURES["soft"]), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "  MPTCP: 1 connection" in text
    assert "subflow 1 join" in text
    assert "reinjected 26 segments" in text
    m = json.loads((out / "metrics.json").read_text())
    assert m["mptcp"]["segments_file"] == "mptcp_segments.parquet"
    for f in ("mptcp_segments.parquet", "mptcp_mappings.parquet", "mptcp_data_acks.parquet"):
        cols = pq.read_schema(out / f).names
        assert all(outputs.documented_column(f, c) for c in cols), (f, cols)
    assert (out / "mptcp_sequence_conn0.png").is_file()
    keys: set[str] = set()
    add_paths(m, "", keys)
    missing = sorted(k for k in keys if not outputs.documented_metric(k))
    assert not missing, missing
    # A second analysis replaces the first whole (every file is one `vho analyze` owns).
    assert main(["analyze", str(FIXTURES["soft"]), "--out", str(out)]) == 0


# -- Malformed options ----------------------------------------------------------------------


def _pcap(packets: list[bytes]) -> bytes:
    """Classic microsecond pcap, LINKTYPE_RAW (101)."""
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for i, p in enumerate(packets):
        out += struct.pack("<IIII", 1, i * 1000, len(p), len(p)) + p
    return out


def _tcp(options: bytes, flags: int = 0x02, payload: int = 0) -> bytes:
    options += b"\x01" * (-len(options) % 4)  # NOP padding to a 32-bit boundary
    off = (20 + len(options)) // 4
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1000, 0, off << 4, flags, 65535, 0, 0)
    tcp += options + b"\0" * payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))  # fmt: skip
    return ip + tcp


def test_malformed_mptcp_options_are_counted_not_fatal(tmp_path: Path) -> None:
    # RFC 8684 §3.1: MP_CAPABLE is 4, 12, 20, 22 or 24 octets; 7 is none of them. §3.3: a DSS
    # whose flags promise an 8-octet DATA_ACK and whose length holds 4. An option whose length
    # runs past the header ends the options (as Wireshark's dissector does).
    bad_capable = bytes([30, 7, 0x01, 0x81, 0, 0, 0])
    short_dss = bytes([30, 8, 0x20, 0x03, 0, 0, 0, 1])
    past_end = bytes([30, 40, 0x20, 0x01])
    cap = tmp_path / "bad.pcap"
    cap.write_bytes(_pcap([_tcp(bad_capable), _tcp(short_dss, 0x10, 10), _tcp(past_end, 0x10, 10)]))
    m = vho.analyze(cap).metrics
    assert m["tcp_segments"] == 3
    assert m["mptcp"]["options"]["malformed"] == 3
    assert m["mptcp"]["connections_total"] == 0
