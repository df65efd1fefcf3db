"""A NEMO soft handover in `vho run` (issue 22): the bundled `scenarios/examples/naoe-apc.toml`
(Naoe et al., seed 002: 3G -> WLAN, the home agent bicasting 5-15 s, Adaptive Packet
Combining at the mobile router) writes the combiner's counters to `summary.json`, and its
capture at the mobile router shows the IPv6-in-IPv6 tunnel with the Packet Identifier Option
in a Destination Options header after the tunnel header (§IV-B, Fig. 3).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from vho.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "examples" / "naoe-apc.toml"
TSHARK = shutil.which("tshark")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    o = tmp_path_factory.mktemp("nemo") / "o"
    assert main(["run", str(SCENARIO), "--out", str(o)]) == 0
    return o


def test_summary_has_the_combiners_counters(out):
    s = json.loads((out / "summary.json").read_text())
    fns = {(f["node"], f["kind"]): f["counters"] for f in s["node_functions"]}
    mr = fns[("mr", "nemo-combiner")]
    ha = fns[("ha", "mipv6-home-agent")]
    # §IV-B: every bicast packet comes twice; APC forwards one copy of each number and
    # drops the other; it held some fast-link copies (the example is a downward handover).
    assert ha["packets_bicast"] > 0
    assert mr["copies"] > 0 and mr["copies"] <= 2 * ha["packets_bicast"]
    forwarded = (
        mr["forwarded_at_once"]
        + mr["released_by_timer"]
        + mr["released_in_order"]
        + mr["released_by_slow_copy"]
        + mr["released_at_completion"]
    )
    assert forwarded + mr["duplicates_dropped"] <= mr["copies"]
    assert mr["held"] > 0 and mr["max_hold_us"] > 0
    assert s["run"]["conservation_ok"]
    # The run's own key for the study.
    n = s["nemo"]
    assert (n["router"], n["combining"]) == ("mr", "apc")
    assert (n["copies"], n["held"]) == (mr["copies"], mr["held"])
    assert n["duplicates_dropped"] == mr["duplicates_dropped"]
    assert n["max_hold_s"] == pytest.approx(mr["max_hold_us"] / 1e6, abs=1e-6)


def _fields(pcap: Path, filt: str, *fields: str) -> list[list[str]]:
    args = [TSHARK, "-r", str(pcap), "-Y", filt, "-T", "fields"]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")
def test_the_capture_shows_the_tunnel_and_the_option(out):
    # §IV-B, Fig. 3: each bicast packet reaches the MR twice, once per care-of address (the
    # outer destination), both copies with one Packet Identifier Option (16-bit sequence,
    # 16-bit ms timestamp) in a Destination Options header after the tunnel header, shown by
    # tshark as an experimental option (type 0x1e) before the inner IPv6 header.
    pcap = out / "mr.pcap"
    assert _fields(pcap, "_ws.malformed", "frame.number") == []
    rows = _fields(
        pcap,
        "ipv6.dstopts && ipv6.opt.type == 0x1e && tcp.len > 0",
        "ipv6.opt.experimental",
        "ipv6.dst",
    )
    assert len(rows) > 100, "the window's copies are in the capture"
    coas: dict[str, set[str]] = {}
    for option, dsts in rows:
        outer, inner = dsts.split(",")
        assert inner.endswith(":5::1")  # the LFN, inside the tunnel
        coas.setdefault(option, set()).add(outer)
    assert all(len(c) <= 2 for c in coas.values())
    # Copies the 3G queue dropped come once; every number that came twice is one duplicate
    # the combiner dropped, and every copy captured is one it counted.
    pairs = sum(1 for c in coas.values() if len(c) == 2)
    s = json.loads((out / "summary.json").read_text())
    mr = next(f["counters"] for f in s["node_functions"] if f["kind"] == "nemo-combiner")
    assert pairs == mr["duplicates_dropped"]
    assert len(rows) == mr["copies"]
