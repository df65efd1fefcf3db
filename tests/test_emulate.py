"""`vho emulate` (issue 21): real Linux TCP through the simulator's own links and handovers, in
network namespaces made by the run.

Each test checks that the run leaves nothing behind: no `vho-` namespace, no TUN device, no
child process. Needs root and `ip` (iproute2, which `.ci/run` installs); skipped otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mptcp_scenarios import HARD

from vho import _native
from vho.analysis import analyze

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="needs root and ip (iproute2)",
)

# A download from ch to mh, WLAN -> GPRS (hard, the queued packets lost) at 0.3 s, over the
# shipped presets: about half of the 300 KB crosses the WLAN, the rest GPRS (a few seconds).
# The MPTCP capture fixtures were made from the same scenario (tests/mptcp_scenarios.py).
HANDOVER = HARD.replace('name = "mptcp wlan-gprs hard"', 'name = "emulated handover"')


def _vho(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vho.cli", *args], capture_output=True, text=True, **kw
    )


def _ours() -> list[str]:
    """The vho namespaces present (any run's)."""
    return [name for name, _alive in _native.emulate_namespaces()]


def _left_behind() -> set[str]:
    """The vho namespaces whose run is dead (another live run's are not left behind)."""
    return {name for name, alive in _native.emulate_namespaces() if not alive}


def _children_of(pid: int) -> list[int]:
    """Live child processes of `pid` (from /proc; zombies excluded)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            kids.append(int(stat.parent.name))
    return kids


@pytest.fixture(autouse=True)
def nothing_left_behind():
    before = _left_behind()
    yield
    left = _left_behind() - before
    assert not left, f"namespaces left behind: {left}"


def test_an_emulated_handover_completes_and_its_capture_shows_it(tmp_path: Path) -> None:
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    out = tmp_path / "out"
    r = _vho("emulate", str(scenario), "--out", str(out), "--cc", "reno")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    (flow,) = summary["flows"]
    # The kernel's transfer completed, every byte read by the receiving socket.
    assert flow["completed"] and flow["transfer_time_s"] > 1.0  # not all over the WLAN
    assert flow["congestion_control"] == "reno"
    (h,) = summary["handovers"]
    assert h["happened"] and h["from"] == "wlan" and h["to"] == "gprs"
    # The model carried the packets: the GPRS downlink delivered data after the handover.
    down = {(x["link"], x["from"], x["to"]): x for x in summary["links"]}
    assert down[("gprs", "ha", "mh")]["delivered"] > 0
    assert summary["run"]["conservation_ok"]
    # The captures show the handover, found by `vho analyze` without being told: at the
    # sender the minimum RTT jumps from WLAN's to GPRS's; the interval it gives (the last
    # sign of the old link, the first of the new) holds the 0.3 s instant. The kernel's timing
    # varies from run to run: the new link's first sign comes within a few GPRS round trips.
    h_ch = analyze(out / "ch.pcap").metrics["handover"]
    assert h_ch["source"] == "detected" and "rtt" in h_ch["signal"]
    assert h_ch["after_s"] <= 0.3 < h_ch["at_s"] <= 2.5, h_ch
    # The receiver's capture holds every byte (given the instant, `vho analyze` measures t_a).
    (rx,) = analyze(out / "mh.pcap", handover_at=0.3).metrics["flows"]
    assert rx["bytes"] >= 300_000
    assert flow["bytes"] == 300_000 and flow["retransmissions"] is not None
    series = pytest.importorskip("pandas").read_parquet(out / "series_tcp.parquet")
    assert (series["snd_cwnd"] > 0).all() and len(series) > 10
    assert not _children_of(os.getpid())


def test_a_command_runs_in_the_mobile_host_against_a_server_at_the_correspondent(
    tmp_path: Path,
) -> None:
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    # The server counts what it read and answers with the count; the client waits for the
    # answer, so every byte crossed the emulated network before the command exits.
    server = (
        "import socket,os;s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);"
        "s.bind((os.environ['VHO_CH_ADDR'],7000));s.listen(1);c,_=s.accept();n=0\n"
        "while d:=c.recv(65536): n+=len(d)\nc.sendall(str(n).encode());c.close()"
    )
    client = (
        "import socket,os,sys;c=socket.create_connection((os.environ['VHO_CH_ADDR'],7000));"
        "c.sendall(b'x'*50000);c.shutdown(socket.SHUT_WR);r=c.recv(100);print(r.decode());"
        "sys.exit(0 if r==b'50000' else 1)"
    )
    out = tmp_path / "out"
    r = _vho(
        "emulate", str(scenario), "--out", str(out),
        "--serve", f"{sys.executable} -c \"{server}\"",
        "--", sys.executable, "-c", client,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["ended_by"] == "command_exited"
    assert summary["run"]["command_exit"] == 0
    # The upload crossed the model: mh's capture holds its data packets to ch.
    # The upload crossed the model: 50,000 bytes in at least 35 data packets.
    assert summary["emulator"]["packets_in"] > 35
    assert (out / "command.log").read_text().strip() == "50000"


def test_a_command_gets_the_runs_congestion_control_where_a_namespace_may_have_it(
    tmp_path: Path,
) -> None:
    # A socket born with one congestion control keeps what it set up when switched: born BBR
    # (the machine's default), it paces as reno never does (bbr_init's sk_pacing_status).
    # So each namespace's default is the run's, where tcp_allowed_congestion_control lets a
    # namespace have it (reno and bbr on this machine), else reno, which sets nothing up.
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    allowed = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control").read_text().split()
    for cc in ("reno", "cubic", "bbr"):
        out = tmp_path / cc
        r = _vho(
            "emulate", str(scenario), "--out", str(out), "--cc", cc,
            "--", "cat", "/proc/sys/net/ipv4/tcp_congestion_control",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        want = cc if cc in allowed else "reno"  # reno is always allowed (tcp_cong.c)
        assert (out / "command.log").read_text().strip() == want, cc


def test_vho_emulate_exits_with_the_commands_status(tmp_path: Path) -> None:
    # Issue 40 item 25: `-- sh -c 'exit 7'` exited 0. The command's status is the run's; a
    # command still running at run.stop is stopped, said in one line, status 124 (timeout(1)).
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    r = _vho("emulate", str(scenario), "--out", str(tmp_path / "a"), "--", "sh", "-c", "exit 7")
    assert r.returncode == 7, r.stderr
    assert "command exited with status 7" in r.stdout
    r = _vho(
        "emulate", str(scenario), "--out", str(tmp_path / "b"), "--set", 'run.stop="0.5 s"',
        "--", "sleep", "30",
    )  # fmt: skip
    assert r.returncode == 124, r.stderr
    assert r.stderr.count("\n") == 1 and "still running at the scenario's run.stop" in r.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["run"]["command_exit"] is None
    assert not _children_of(os.getpid())


def test_sigkill_leaves_namespaces_that_cleanup_removes(tmp_path: Path) -> None:
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    p = subprocess.Popen(
        [sys.executable, "-m", "vho.cli", "emulate", str(scenario), "--out", str(tmp_path / "o"),
         "--", "sleep", "300"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    mine = f"vho-{p.pid}-"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not [n for n in _ours() if n.startswith(mine)]:
        time.sleep(0.1)
    time.sleep(1.0)  # the command started
    sleeper = _children_of(p.pid)
    assert sleeper, "the command did not start"
    p.send_signal(signal.SIGKILL)
    p.wait()
    left = [n for n in _ours() if n.startswith(mine)]
    assert len(left) == 2, left  # ch and mh, their run dead
    # The command died with its emulator (PR_SET_PDEATHSIG).
    time.sleep(0.2)
    for pid in sleeper:
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    r = _vho("emulate", "--cleanup")
    assert r.returncode == 0, r.stderr
    assert not [n for n in _ours() if n.startswith(mine)]
    assert "removed" in r.stdout


def test_sigterm_stops_the_run_and_removes_everything(tmp_path: Path) -> None:
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    out = tmp_path / "o"
    p = subprocess.Popen(
        [sys.executable, "-m", "vho.cli", "emulate", str(scenario), "--out", str(out),
         "--", "sleep", "300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    mine = f"vho-{p.pid}-"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not [n for n in _ours() if n.startswith(mine)]:
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM
    assert "terminated" in err
    assert not [n for n in _ours() if n.startswith(mine)]
    # Nothing half-written left looking complete.
    assert not (out / "summary.json").exists()


def test_an_unknown_congestion_control_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    r = _vho("emulate", str(scenario), "--out", str(tmp_path / "o"), "--cc", "vegas")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["--cc: expected one of reno, cubic, bbr, got 'vegas'"]
    assert not (tmp_path / "o").exists()


def test_without_cap_net_admin_it_refuses_in_one_line(tmp_path: Path) -> None:
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    # Root without CAP_NET_ADMIN (util-linux setpriv(1): out of the bounding and inheritable
    # sets, so the command's effective set lacks it).
    drop = ["setpriv", "--inh-caps=-net_admin", "--bounding-set=-net_admin"]
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux)")
    for args in (
        ["emulate", str(scenario), "--out", str(tmp_path / "o")],
        ["emulate", "--cleanup"],
    ):
        r = subprocess.run(
            [*drop, sys.executable, "-m", "vho.cli", *args], capture_output=True, text=True
        )
        assert r.returncode == 2, r.stderr
        (line,) = r.stderr.strip().splitlines()
        assert "needs root or CAP_NET_ADMIN" in line
    assert not (tmp_path / "o").exists()


def test_multipath_tcp_opens_a_subflow_per_interface_and_survives_the_hard_handover(
    tmp_path: Path,
) -> None:
    # Break before make: the WLAN is lost at 0.3 s, before the GPRS join completes (its third
    # ACK reaches the correspondent at about 1 s). Linux admits a join only while the
    # connection is ESTABLISHED (mptcp_can_accept_new_subflow), so the bulk sender shuts its
    # side only once everything is acknowledged: shut at once, having written its 300 KB into
    # the socket, it was FIN-WAIT-1 and refused the join (MP_RST "administratively
    # prohibited", 3 runs of 3), and the connection died with the WLAN.
    scenario = tmp_path / "h.toml"
    scenario.write_text(HANDOVER)
    out = tmp_path / "out"
    r = _vho("emulate", str(scenario), "--out", str(out), "--multipath")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["multipath"]
    (flow,) = summary["flows"]
    # RFC 8684: the initial subflow over the WLAN, a joined one over GPRS (ip mptcp endpoint
    # ... subflow); the WLAN's is lost with the link at 0.3 s and the transfer ends on GPRS.
    assert flow["subflows"] == 2
    assert flow["completed"], flow
    links = {(x["link"], x["from"], x["to"]): x for x in summary["links"]}
    assert links[("gprs", "ha", "mh")]["delivered"] > 50
    assert links[("wlan", "ha", "mh")]["delivered"] > 10


def _stamped(path: Path) -> list[tuple[float, bytes]]:
    """The IP packets of a vho capture (raw IP) with their times, seconds from the run's
    start (the record headers' seconds and microseconds)."""
    data, out, i = path.read_bytes(), [], 24
    while i + 16 <= len(data):
        sec, usec = (int.from_bytes(data[i + k : i + k + 4], "little") for k in (0, 4))
        incl = int.from_bytes(data[i + 8 : i + 12], "little")
        out.append((sec + usec / 1e6, data[i + 16 : i + 16 + incl]))
        i += 16 + incl
    return out


@pytest.mark.parametrize(("at", "joined"), [("2 s", True), ("1 s", False)])
def test_multipath_an_interface_that_appears_at_its_handover_gets_a_subflow_only_then(
    tmp_path: Path, at: str, joined: bool
) -> None:
    # GPRS -> WLAN: WLAN is down until the handover, whose instant adds its MPTCP endpoint
    # (`ip mptcp endpoint add`). At 2 s the connection is fully established over GPRS and the
    # kernel joins from WLAN's address (`mptcp_nl_add_subflow_or_signal_addr`); at 1 s it is
    # not yet (its first data comes at about 1.4 s), and with no endpoint when it was created
    # the path manager has no work at full establishment (`mptcp_pm_data_reset`): no join.
    text = (
        HARD.replace('start = "wlan"', 'start = "gprs"')
        .replace('at = "0.3 s"', f'at = "{at}"')
        .replace('from = "wlan"\nto = "gprs"', 'from = "gprs"\nto = "wlan"')
        .replace('size = "300 KB"', 'size = "200 KB"')
        .replace('stop = "40 s"', 'stop = "15 s"')
    )
    scenario = tmp_path / "up.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    r = _vho("emulate", str(scenario), "--out", str(out), "--multipath")
    assert r.returncode == 0, r.stderr
    (flow,) = json.loads((out / "summary.json").read_text())["flows"]
    pkts = _stamped(out / "mh.pcap")
    first_src = pkts[0][1][12:16]  # the MP_CAPABLE SYN, from GPRS's address
    other = [(t, p) for t, p in pkts if p[12:16] != first_src and p[16:20] != first_src]
    from_mobile = [t for t, p in other if p[12] == 10 and p[13] != 66]
    if joined:
        assert flow["completed"] and flow["subflows"] == 2, flow
        assert from_mobile and min(from_mobile) >= float(at.split()[0]), from_mobile[:3]
    else:
        assert not flow["completed"] and flow["subflows"] == 1, flow
        assert from_mobile == []


def _tcp_flags(p: bytes) -> int:
    return p[(p[0] & 0x0F) * 4 + 13]


@pytest.mark.parametrize("accepted", [0, 1])
def test_multipath_a_signal_endpoint_is_announced_and_opens_no_subflow(
    tmp_path: Path, accepted: int
) -> None:
    # `signal` on GPRS (ip mptcp endpoint add ... signal): the mobile announces GPRS's address
    # (ADD_ADDR, RFC 8684 §3.4.1); within the correspondent's add_addr_accepted (ip mptcp
    # limits, set from flow.mptcp) the correspondent connects to it at the mobile's port
    # (`mptcp_pm_nl_add_addr_received`), where nothing listens: the mobile's RST. No subflow
    # either way; with Linux's default limit, 0, no SYN. The handover comes after the transfer.
    text = (
        HARD.replace('at = "0.3 s"', 'at = "30 s"')
        .replace('stop = "40 s"', 'stop = "10 s"')
        .replace('size = "300 KB"', 'size = "200 KB"\nkind = "mptcp"')
        + f'[flow.mptcp]\nadd_addr_accepted = {accepted}\nendpoints = {{ gprs = ["signal"] }}\n'
    )
    scenario = tmp_path / "signal.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    r = _vho("emulate", str(scenario), "--out", str(out), "--multipath")
    assert r.returncode == 0, r.stderr
    (flow,) = json.loads((out / "summary.json").read_text())["flows"]
    assert flow["completed"] and flow["subflows"] == 1, flow
    pkts = [p for _t, p in _stamped(out / "mh.pcap") if p[9] == 6]
    # The correspondent's SYN (no ACK) from its 10.66/16 address, and the mobile's RST.
    syns = [p for p in pkts if p[12:14] == bytes([10, 66]) and _tcp_flags(p) & 0x12 == 0x02]
    rsts = [p for p in pkts if p[12:14] != bytes([10, 66]) and _tcp_flags(p) & 0x04]
    assert len(syns) == accepted and len(rsts) == accepted, (len(syns), len(rsts))


# A fast path, where the sender's TCP sends whole GSO packets and segments reach the
# receiver microseconds apart: what the devices' offloads are for.
FAST = """
[run]
name = "fast"
stop = "30 s"

[wired]
rate = "10 Gb/s"
delay = "100 us"
queue = "1000 packets"

[access.link]
rate = "10 Gb/s"
delay = "100 us"
queue = "1000 packets"

[mobile]
start = "link"

[[flow]]
from = "ch"
to = "mh"
size = "30 MB"
"""


def _packets(path: Path) -> list[bytes]:
    """The IP packets of a pcap of raw IP (vho's captures: 24-byte file header, 16-byte
    record headers)."""
    data, out, i = path.read_bytes(), [], 24
    while i + 16 <= len(data):
        incl = int.from_bytes(data[i + 8 : i + 12], "little")
        out.append(data[i + 16 : i + 16 + incl])
        i += 16 + incl
    return out


def _ip_tcp_ok(p: bytes) -> bool:
    """Whether an IPv4/TCP packet's header and TCP checksums verify (RFC 1071)."""

    def fold(b: bytes) -> int:
        b += b"\0" * (len(b) % 2)
        s = sum(int.from_bytes(b[i : i + 2], "big") for i in range(0, len(b), 2))
        while s > 0xFFFF:
            s = (s & 0xFFFF) + (s >> 16)
        return s

    ihl = (p[0] & 0x0F) * 4
    pseudo = p[12:20] + bytes([0, 6]) + (len(p) - ihl).to_bytes(2, "big")
    return fold(p[:ihl]) == 0xFFFF and fold(pseudo + p[ihl:]) == 0xFFFF


@pytest.mark.parametrize("offload", [True, False])
def test_with_or_without_offloads_every_segment_is_carried_captured_and_timed(
    tmp_path: Path, offload: bool
) -> None:
    from vho.emulate import emulate

    scenario = tmp_path / "fast.toml"
    scenario.write_text(FAST)
    r = emulate(scenario, out_dir=tmp_path / "out", offload=offload)
    (flow,) = r.summary["flows"]
    em = r.summary["emulator"]
    assert flow["completed"], flow
    assert em["offload"] == offload
    if offload:
        # The kernel handed over whole sends, cut here; segments due together went in as one.
        assert em["gso_reads"] > 0 and em["gso_segments"] > em["gso_reads"]
        assert em["gro_writes"] > 0 and em["gro_segments"] >= 2 * em["gro_writes"]
    else:
        assert em["gso_reads"] == em["gro_writes"] == 0
    # Every delivered packet is timed, written or refused.
    lateness = em["accuracy"]["delivery_lateness"]
    assert lateness["count"] == em["packets_out"] + em["host_queue_drops"]
    # The captures hold wire packets: none above the 1500-byte MTU, checksums valid.
    for host in ("ch", "mh"):
        pkts = [p for p in _packets(tmp_path / "out" / f"{host}.pcap") if p[9] == 6]
        assert len(pkts) > 1000
        assert max(len(p) for p in pkts) <= 1500
        assert all(_ip_tcp_ok(p) for p in pkts[::10])
