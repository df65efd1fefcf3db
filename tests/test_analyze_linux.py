"""`vho analyze` on captures of real Linux TCP (issue 5): two network namespaces joined by a
veth pair, a bulk transfer through a small `tbf` queue so that segments are lost, captured by
tcpdump; vho's counts must equal tshark's `tcp.analysis` counts on the same file.

Needs root, `ip`, `tc`, `tcpdump` and `tshark` (`.ci/run` installs them); skipped otherwise.
Every namespace created is removed, and no packet leaves them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import vho

TOOLS = {t: shutil.which(t) for t in ("ip", "tc", "tcpdump", "tshark")}
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or None in TOOLS.values(),
    reason="needs root, ip, tc, tcpdump and tshark (.ci/run installs them)",
)

SENDER, RECEIVER = "10.77.0.1", "10.77.0.2"
PORT = 5001
# A 20 Mb/s token bucket with a 12 kB queue: about 8 full segments, far below the window
# cubic and reno reach on a sub-millisecond path, so each run loses segments (Linux tc-tbf(8):
# "limit" is the bytes that may wait for tokens).
TBF = ["rate", "20mbit", "burst", "8kb", "limit", "12kb"]
SIZE = 4_000_000

SERVER = f"""
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("{RECEIVER}", {PORT})); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); n = 0
while d := c.recv(1 << 16): n += len(d)
print(n, flush=True)
"""
CLIENT = f"""
import socket
c = socket.create_connection(("{RECEIVER}", {PORT})); c.sendall(b"x" * {SIZE}); c.close()
"""

FILTERS = {
    "retransmissions": "tcp.analysis.retransmission",
    "fast_retransmissions": "tcp.analysis.fast_retransmission",
    "spurious_retransmissions": "tcp.analysis.spurious_retransmission",
    "duplicate_acks": "tcp.analysis.duplicate_ack",
    "out_of_order": "tcp.analysis.out_of_order",
    "lost_segment": "tcp.analysis.lost_segment",
    "ack_lost_segment": "tcp.analysis.ack_lost_segment",
    "zero_window": "tcp.analysis.zero_window",
}


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, text=True)


@pytest.fixture
def netns() -> Iterator[tuple[str, str]]:
    """Two namespaces, sender and receiver, joined by veth, `tbf` on the sender's side."""
    tag = f"vhot{os.getpid() % 100000}"
    a, b = f"{tag}-s", f"{tag}-r"
    made: list[str] = []
    try:
        for ns in (a, b):
            _run("ip", "netns", "add", ns)
            made.append(ns)
        _run("ip", "link", "add", "vs", "netns", a, "type", "veth", "peer", "name", "vr",
             "netns", b)  # fmt: skip
        for ns, dev, addr in ((a, "vs", SENDER), (b, "vr", RECEIVER)):
            _run("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _run("ip", "-n", ns, "link", "set", dev, "up")
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        _run("ip", "netns", "exec", a, "tc", "qdisc", "add", "dev", "vs", "root", "tbf", *TBF)
        yield a, b
    finally:
        # Deleting a namespace deletes its end of the veth pair, and with it the peer.
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _transfer(netns: tuple[str, str], capture_in: str, pcap: Path, sysctls: list[str]) -> None:
    a, b = netns
    for s in sysctls:
        _run("ip", "netns", "exec", a, "sysctl", "-q", "-w", s)
    ns, dev = (a, "vs") if capture_in == "sender" else (b, "vr")
    server = subprocess.Popen(
        ["ip", "netns", "exec", b, sys.executable, "-c", SERVER],
        stdout=subprocess.PIPE,
        text=True,
    )
    dump = None
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        dump = subprocess.Popen(
            ["ip", "netns", "exec", ns, "tcpdump", "-i", dev, "-s", "128", "--immediate-mode",
             "-U", "-w", str(pcap), "tcp"],
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        # tcpdump prints "listening on" once its socket is bound.
        assert dump.stderr is not None and "listening" in dump.stderr.readline()
        _run("ip", "netns", "exec", a, sys.executable, "-c", CLIENT)
        assert int(server.communicate(timeout=60)[0].strip()) == SIZE
        time.sleep(0.5)
    finally:
        if dump is not None:
            dump.terminate()
            dump.wait(timeout=10)
        server.kill()
        server.wait()


def _tshark(pcap: Path, display_filter: str) -> int:
    out = subprocess.run(
        [TOOLS["tshark"] or "tshark", "-r", str(pcap), "-Y", display_filter, "-T", "fields",
         "-e", "frame.number"],
        check=True,
        capture_output=True,
        text=True,
    )  # fmt: skip
    return len(out.stdout.split())


@pytest.mark.parametrize(
    ("capture_in", "sysctls"),
    [
        ("sender", []),
        ("receiver", []),
        # Reno without SACK: duplicate ACKs carry no blocks (RFC 5681 §3.2).
        ("sender", ["net.ipv4.tcp_sack=0", "net.ipv4.tcp_congestion_control=reno"]),
    ],
    ids=["sender-cubic-sack", "receiver-cubic-sack", "sender-reno-nosack"],
)
def test_counts_equal_tshark_on_real_linux_tcp(
    netns: tuple[str, str], tmp_path: Path, capture_in: str, sysctls: list[str]
) -> None:
    pcap = tmp_path / "real.pcap"
    _transfer(netns, capture_in, pcap, sysctls)
    a = vho.analyze(pcap)
    (f,) = a.metrics["flows"]
    assert f["sender"] == {"addr": SENDER, "port": f["sender"]["port"]}
    assert f["bytes"] == SIZE
    # Both directions' flags added: the whole file's count, as tshark gives it.
    ours = {k: f["wireshark"][k] for k in FILTERS}
    theirs = {k: _tshark(pcap, flt) for k, flt in FILTERS.items()}
    assert ours == theirs
    # The sender's own retransmissions and the receiver's duplicate ACKs, told apart.
    assert f["wireshark_retransmissions"] == _tshark(
        pcap, f"{FILTERS['retransmissions']} && ip.src == {SENDER}"
    )
    # The headline: at the sender, every segment sent again (a resend Wireshark calls out of
    # order among them); elsewhere Wireshark's count.
    if capture_in == "sender":
        # Told where the capture was taken, as `vho emulate` tells it of its own captures.
        (f,) = vho.analyze(pcap, capture_point="sender").metrics["flows"]
        assert f["retransmissions_by"] == "segments-sent-again"
        resent = _tshark(
            pcap,
            f"(tcp.analysis.retransmission || tcp.analysis.out_of_order) && ip.src == {SENDER}",
        )
        assert f["retransmissions"] == resent
    else:
        # Told too: on this sub-millisecond veth path the handshake's gaps are the scheduler's
        # noise, and a loaded machine once made a receiver capture look like the sender's
        # (the headline 258 resends against Wireshark's 256, a clean-clone CI run).
        (f,) = vho.analyze(pcap, capture_point="receiver").metrics["flows"]
        assert f["retransmissions_by"] == "wireshark"
        assert f["retransmissions"] == f["wireshark_retransmissions"]
    assert f["duplicate_acks"] == _tshark(
        pcap, f"{FILTERS['duplicate_acks']} && ip.src == {RECEIVER}"
    )
    # The small queue did its job: the comparison is not of zeros.
    assert theirs["retransmissions"] > 0 and theirs["duplicate_acks"] > 0


# ---- Handovers there and back in real captures (issue 18, item 4) ----

BIG = 12_000_000
SLOW = ["rate", "250kbit", "burst", "8kb", "limit", "12kb"]  # 80x below TBF's 20 Mb/s


def test_a_slow_path_there_and_back_is_found_in_real_captures(
    netns: tuple[str, str], tmp_path: Path
) -> None:
    # A real Linux transfer whose path drops to 250 kb/s for 4 s and comes back (tbf changed
    # in place, as a vertical handover there and back changes the bottleneck), captured at
    # the sender and at the receiver at once: both handovers are found in each capture, near
    # the instants the rate was switched, each with its t_a.
    a, b = netns
    client = f"""
import socket
c = socket.create_connection(("{RECEIVER}", {PORT})); c.sendall(b"x" * {BIG}); c.close()
"""
    server = subprocess.Popen(
        ["ip", "netns", "exec", b, sys.executable, "-c", SERVER.replace(str(SIZE), str(BIG))],
        stdout=subprocess.PIPE,
        text=True,
    )
    dumps: list[subprocess.Popen[str]] = []
    pcaps = {"sender": tmp_path / "sender.pcap", "receiver": tmp_path / "receiver.pcap"}
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        for (ns, dev), pcap in zip(((a, "vs"), (b, "vr")), pcaps.values(), strict=True):
            d = subprocess.Popen(
                ["ip", "netns", "exec", ns, "tcpdump", "-i", dev, "-s", "128",
                 "--immediate-mode", "-U", "-w", str(pcap), "tcp"],
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            dumps.append(d)
            assert d.stderr is not None and "listening" in d.stderr.readline()
        sender = subprocess.Popen(["ip", "netns", "exec", a, sys.executable, "-c", client])
        time.sleep(1.5)
        tc = ["ip", "netns", "exec", a, "tc", "qdisc", "change", "dev", "vs", "root", "tbf"]
        _run(*tc, *SLOW)
        switched_down = time.time()
        time.sleep(4.0)
        _run(*tc, *TBF)
        switched_up = time.time()
        assert sender.wait(timeout=120) == 0
        assert int(server.communicate(timeout=60)[0].strip()) == BIG
        time.sleep(0.5)
    finally:
        for d in dumps:
            d.terminate()
            d.wait(timeout=10)
        server.kill()
        server.wait()
    for where, pcap in pcaps.items():
        m = vho.analyze(pcap).metrics
        h = m["handover"]
        assert h["source"] == "detected", (where, h)
        # Times count from the capture's first packet (issue 18, item 5); the switches were
        # taken on the wall clock.
        assert m["time"]["origin"] == "first_packet"
        down, up = (t - m["time"]["origin_epoch_s"] for t in (switched_down, switched_up))
        found = h["all"]
        # At least the two; more where the sender also stalled on the slow path (its timer
        # backed off: a level with no data at its start is no path, but one with a lone
        # retransmission can pass: 3 in 2 of 9 runs here, 4 once under a loaded CI), and
        # those only between the switches: nothing is found outside them.
        assert len(found) >= 2, (where, found)
        assert all(down - 0.4 < c["at_s"] < up + 15 for c in found), (where, found, down, up)
        # The first segment that went the slow way: within 0.4 s of the switch (the queue
        # drains at the old rate first; at the receiver the path's delay comes on top). The
        # way back is found where the data rate came back, which is after the switch by as
        # long as the sender's backed-off retransmission timer still held it (the thesis's
        # §7.2 phenomenon; seconds in some runs here).
        assert abs(found[0]["at_s"] - down) < 0.4, (where, found[0], down)
        assert up - 0.4 < found[-1]["at_s"] < up + 15, (where, found[-1], up)
        assert all(c["signal"] == "data-rate" for c in found)
        # Down first, up last: the evidence gives the rates each side.
        rates = [re.findall(r"(\d+) b/s", c["evidence"]) for c in (found[0], found[-1])]
        assert int(rates[0][0]) > 10 * int(rates[0][1])
        assert int(rates[1][1]) > 10 * int(rates[1][0])
