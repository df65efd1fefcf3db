"""``vho emulate``: a scenario through the real Linux TCP stack (``vho-emu``).

Each host of the scenario gets a network namespace and a TUN device; the simulator's own
links, queues, loss models and handovers carry the hosts' real packets between them, driven
by the wall clock. The traffic is the scenario's flows, each a real bulk transfer with the
congestion control asked for, or a command of the user's run inside a host's namespace.

An emulation writes, in its output directory (staged and swapped in whole, as ``vho run``):

- ``NODE.pcap``: every packet each host sent and received, written by the emulator itself;
- ``summary.json``: per flow the transfer time (from the socket ends) and the counts of the
  capture analysis (``vho analyze`` on the sender's capture, the handover instant given), the
  kernel's last ``TCP_INFO``; per handover and link direction what the world counted (the
  same keys as ``vho run``); ``emulator``: what it carried and how accurately, and whether it,
  not the modelled link, limited the traffic;
- ``series_tcp.parquet``: the kernel's ``TCP_INFO`` of each bulk sender over time;
- with ``--multipath``, ``series_mptcp.parquet`` and ``flows[].mptcp``: each subflow as the
  kernel reports it (``MPTCP_FULL_INFO``), in ``vho run``'s form (``vho.emu_mptcp``);
- ``scenario.resolved.toml``, ``timing.json``, and ``command.log`` / ``serve.log`` of a
  user's command.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import _native, emu_mptcp, files
from .errors import (
    EmulationError,
    NoFlowMatched,
    OutputError,
    OutsideCapture,
    ScenarioError,
    SimulationError,
    VhoError,
)
from .runner import RESOLVED, SUMMARY, TIMING, _scenario_text, identity

#: What ``vho emulate`` writes: a directory holding only these is a previous emulation.
OWNED = (
    re.escape(SUMMARY),
    re.escape(TIMING),
    re.escape(RESOLVED),
    r".+\.pcap",
    r"series_tcp\.parquet",
    r"series_mptcp\.parquet",
    r"(command|serve)\.log",
)

NOT_PERMITTED = (
    "vho emulate needs root or CAP_NET_ADMIN with CAP_SYS_ADMIN (it creates network namespaces "
    "and TUN devices); run it as root"
)

#: Congestion controls this kernel has built in (the machine's: reno, cubic, bbr).
CONGESTION_CONTROLS = ("reno", "cubic", "bbr")

#: Scenario TCP settings carried to the kernel as sysctls of every host's namespace
#: (ip-sysctl.rst): SACK and timestamps per the flow's profile.
SYSCTL_OF = {"sack": "net/ipv4/tcp_sack", "timestamps": "net/ipv4/tcp_timestamps"}


@dataclass
class EmulationResult:
    summary: dict
    out_dir: Path


def _run_interruptible(fn, *args):
    """``fn(*args)`` on a worker thread; SIGINT, SIGTERM or SIGHUP asks the emulation to stop,
    waits for it to remove what it made, then goes on up as the signal would have
    (KeyboardInterrupt, the command's exception). While the emulation runs, they only raise
    its stop flag: a
    second Ctrl-C (or SIGTERM) a few ms after the first no longer escapes the wait and ends the
    process while the namespaces are still being removed (issue 40 item 7). (The wait is on an
    event of our own: a ``Thread.join`` that a signal interrupted may report the thread stopped
    while it still runs, CPython 3.11.)"""
    box: dict = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:
            box["error"] = e
        finally:
            done.set()

    got: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        if not got:
            got.append(signum)
        _native.emulate_stop()

    # Only the main thread may set handlers; elsewhere the signal's exception arrives below.
    previous: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            previous[signum] = signal.signal(signum, on_signal)
    try:
        t = threading.Thread(target=target, daemon=True)
        t.start()
        try:
            while not done.wait(0.05):
                pass
        except BaseException:
            _native.emulate_stop()
            _wait_through_signals(done)
            raise
        if got:
            # Stopped by a signal: the emulation's own answer (interrupted) is not needed.
            _native.emulate_stop()
            _wait_through_signals(done)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
    if got:
        handler = previous.get(got[0])
        if callable(handler):
            handler(got[0], None)  # KeyboardInterrupt, or the command's SIGTERM exception
        raise KeyboardInterrupt
    if "error" in box:
        raise box["error"]
    return box["value"]


def _wait_through_signals(done: threading.Event) -> None:
    """Waits (at most ``STOP_WAIT_S``) for a stopped emulation to end, further signals'
    exceptions swallowed: the run must remove what it made before the process goes."""
    deadline = time.monotonic() + STOP_WAIT_S
    while time.monotonic() < deadline:
        try:
            if done.wait(0.05):
                return
        except BaseException:
            _native.emulate_stop()


#: How long a stopped emulation may take to remove what it made (its loop looks at the stop
#: flag every 5 ms; removing two namespaces takes tens of ms).
STOP_WAIT_S = 30


def emulate(
    scenario: str | os.PathLike[str],
    *,
    out_dir: str | os.PathLike[str],
    seed: int | None = None,
    overrides: Sequence[str] = (),
    cc: str = "cubic",
    command: Sequence[str] | None = None,
    command_at: str | None = None,
    serve: Sequence[str] | None = None,
    serve_at: str | None = None,
    sysctls: dict[str, str] | None = None,
    multipath: bool = False,
    offload: bool = True,
    force: bool = False,
) -> EmulationResult:
    """Emulates a scenario (a path to a TOML file, or TOML text); needs root.

    ``cc``: the built-in bulk senders' congestion control. ``command``: run instead of the
    built-in flows, in ``command_at``'s namespace (default: the mobile host), the run ending
    when it exits; ``serve``: started first in ``serve_at``'s (default: the first fixed host).
    Both see ``VHO_<NODE>_ADDR`` for every host (the name upper-cased, every character but a
    letter or digit as ``_``). ``sysctls``: ``/proc/sys`` paths under ``net/`` only
    (``net/ipv4/tcp_frto``; other keys are the whole machine's and refused) set in every
    namespace, after those from the flows' TCP settings. A scenario's ``record.pcap`` says
    which hosts are captured (every host when it does not give it); a capture that cannot be
    written stops the run at once, keeps what was written and raises ``EmulationError``.
    ``multipath``: the mobile host gets a device and an address per access link, every link up
    until a handover takes it down, and the flows are Multipath TCP (RFC 8684) with a subflow
    per interface, the mobile as the client (``VHO_<NODE>_<LINK>_ADDR`` names each address).
    ``offload``: the devices take TCP segmentation (a host's sends are read whole and cut into
    the wire's segments) and the segments due at a host at once enter its stack as one packet,
    as a NIC's TSO and GRO do; every segment is still carried, captured and timed on its own.
    """
    label, text, path = _scenario_text(scenario)
    if not _native.emulate_permitted():
        raise SimulationError(NOT_PERMITTED)
    if cc not in CONGESTION_CONTROLS:
        raise ScenarioError(f"--cc: expected one of {', '.join(CONGESTION_CONTROLS)}, got {cc!r}")
    for key in sysctls or {}:
        _check_sysctl(key)
    overrides = [*identity(path, text), *overrides]
    _native.check_scenario(label, text, overrides)
    resolved = _native.resolve_scenario(label, text, overrides, seed)
    _check_flow_cc(label, text, overrides, resolved, cc)
    options = {
        "cc": cc,
        "command": list(command) if command else None,
        "command_at": command_at,
        "serve": list(serve) if serve else None,
        "serve_at": serve_at,
        "sysctls": {**_profile_sysctls(resolved), **(sysctls or {})},
        "multipath": multipath,
        "offload": offload,
        "pcap_given": _pcap_given(text, overrides),
    }
    out = Path(out_dir)
    with files.staged_output(out, command="vho emulate", owned=OWNED, force=force) as stage:
        t0 = time.perf_counter()
        raw = _run_interruptible(
            _native.emulate, label, text, overrides, seed, str(stage), json.dumps(options)
        )
        wall = time.perf_counter() - t0
        report = json.loads(raw)
        summary = _summary(report, stage, cc)
        failed = report.get("capture_error")
        try:
            _write_series(report, stage)
            (stage / RESOLVED).write_text(resolved, encoding="utf-8")
            (stage / TIMING).write_text(json.dumps({"wall_s": wall}) + "\n", encoding="utf-8")
            (stage / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            if not failed:
                raise OutputError(
                    f"{out}: cannot write the emulation's output: {e.strerror or e}"
                ) from None
        if failed:
            # A capture could not be written (a full disk): the run stopped at once; what was
            # written is kept, in place of the output, and the run ends as a failure.
            _keep_partial(stage, out)
            raise EmulationError(
                f"{label}: {failed}; the run stopped at {report['emulator']['wall_s']:.3f} s, "
                f"and what was written until then is in {out}"
            )
    return EmulationResult(summary, out)


def _keep_partial(stage: Path, out: Path) -> None:
    """The staging directory of a run that could not finish its output, swapped in as it is
    (``staged_output`` has already checked that ``out`` may be replaced)."""
    import contextlib
    import shutil

    with contextlib.suppress(OSError):
        for p in stage.iterdir():
            if p.suffix != ".pcap" and p.name != files.MARK and p.stat().st_size == 0:
                p.unlink()  # begun on the full disk, nothing in it
    with contextlib.suppress(OSError):
        (stage / files.MARK).write_text("vho emulate\n", encoding="utf-8")
    try:
        if out.is_dir():
            old = stage.with_name(stage.name + "-old")
            os.replace(out, old)
            os.replace(stage, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, out)
    except OSError as e:
        raise OutputError(f"{out}: cannot keep the emulation's partial output: {e}") from None


def _pcap_given(text: str, overrides: Sequence[str]) -> bool:
    """Whether the scenario (or a ``--set``) says which nodes to capture (``record.pcap``, even
    empty); else ``vho emulate`` captures every host."""
    import tomllib

    try:
        record = tomllib.loads(text).get("record", {})
    except (tomllib.TOMLDecodeError, RecursionError):
        record = {}
    if isinstance(record, dict) and "pcap" in record:
        return True
    for o in overrides:
        key, _, raw = o.partition("=")
        key = key.strip()
        if key == "record.pcap" or key.startswith("record.pcap."):
            return True
        if key == "record":
            try:
                value = tomllib.loads(f"v = {raw.strip()}")["v"]
            except (tomllib.TOMLDecodeError, RecursionError):
                continue
            if isinstance(value, dict) and "pcap" in value:
                return True
    return False


#: A sysctl key's components (ip-sysctl.rst; an interface's name may hold '.' or '-').
_SYSCTL_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]*")


def _check_sysctl(key: str) -> None:
    """Only the network namespace's own keys (``net/...``): ``kernel.*``, ``vm.*``, ``fs.*``
    are the whole machine's, and a run must not change (and never restore) them."""
    parts = key.split("/")
    if parts[0] != "net" or len(parts) < 2 or not all(_SYSCTL_PART.fullmatch(p) for p in parts):
        raise ScenarioError(
            f"--sysctl {'.'.join(parts)}: expected a per-namespace net.* key "
            "(net.ipv4.tcp_frto); other keys (kernel.*, vm.*, fs.*) change the whole machine"
        )


#: The kernel's congestion control that runs a scenario's ``flow.tcp.cc`` as written (Linux's
#: reno has NewReno's recovery, RFC 6582, with or without SACK); ns-2's Sack1 has none.
KERNEL_CC = {"cubic": "cubic", "reno": "reno", "newreno": "reno"}


def _check_flow_cc(label: str, text: str, overrides: Sequence[str], resolved: str, cc: str) -> None:
    """A ``flow.tcp.cc`` the scenario (or a ``--set``) gives is refused unless the run's
    ``--cc`` is it: every flow runs the kernel's ``--cc``, and the key would otherwise be
    dropped without a word (issue 40 item 20). A profile's congestion control is the profile's
    default, not asked for, and is not checked."""
    import tomllib

    names = [
        f.get("name", f"flow{i}") for i, f in enumerate(tomllib.loads(resolved).get("flow", []))
    ]
    for i, asked in sorted(_explicit_cc(text, overrides).items()):
        if i >= len(names) or KERNEL_CC.get(asked) == cc:
            continue
        fix = f"run with --cc {KERNEL_CC[asked]}" if asked in KERNEL_CC else "remove it"
        raise ScenarioError(
            f"{label}: flow {names[i]}: tcp.cc = {asked!r} is not emulated (every flow runs "
            f"the kernel's --cc, here {cc}); {fix}"
        )


def _explicit_cc(text: str, overrides: Sequence[str]) -> dict[int, str]:
    """Flow index -> the ``tcp.cc`` written in the scenario or a ``--set`` (the last wins)."""
    import tomllib

    found: dict[int, str] = {}
    try:
        flows = tomllib.loads(text).get("flow", [])
    except (tomllib.TOMLDecodeError, RecursionError):
        flows = []  # the core has already reported it
    for i, f in enumerate(flows if isinstance(flows, list) else []):
        tcp = f.get("tcp") if isinstance(f, dict) else None
        if isinstance(tcp, dict) and isinstance(tcp.get("cc"), str):
            found[i] = tcp["cc"]
    for o in overrides:
        key, _, raw = o.partition("=")
        m = re.fullmatch(r"flow\.(\d+)\.tcp(\.cc)?", key.strip())
        if m is None:
            continue
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except (tomllib.TOMLDecodeError, RecursionError):
            value = raw.strip()
        i = int(m[1])
        if m[2]:
            if isinstance(value, str):
                found[i] = value
        elif isinstance(value, dict) and isinstance(value.get("cc"), str):
            found[i] = value["cc"]
        else:
            found.pop(i, None)  # the table replaced whole, or a profile's name
    return found


def _profile_sysctls(resolved: str) -> dict[str, str]:
    """SACK and timestamps as the scenario's first flow asks (the kernel's settings are per
    namespace, not per socket)."""
    import tomllib

    flows = tomllib.loads(resolved).get("flow", [])
    tcp = flows[0].get("tcp", {}) if flows else {}
    return {
        key: "1" if tcp[name] else "0"
        for name, key in SYSCTL_OF.items()
        if isinstance(tcp.get(name), bool)
    }


def _summary(report: dict, stage: Path, cc: str) -> dict:
    """``summary.json`` of an emulation: the world's links and handovers as ``vho run`` has
    them, each flow measured at its socket ends and in the captures."""
    world = report["world"]
    handovers = world["handovers"]
    # Each flow's t_a is from the first handover of its own mobile (issue 40 item 22: not
    # whichever mobile handed over first).
    flows = [
        _flow(f, report, stage, _first_handover(handovers, f.get("mobile")))
        for f in report["flows"]
    ]
    em = report["emulator"]
    run = {
        "mode": "emulation",
        "scenario": world["run"]["scenario"],
        "seed": report["seed"],
        "vho_version": world["run"]["vho_version"],
        "scenario_hash": report["scenario_hash"],
        "kernel": em["kernel"],
        "congestion_control": cc,
        "multipath": report["multipath"],
        "wall_s": em["wall_s"],
        "ended_by": _ended_by(report),
        "command_exit": report["command_exit"],
        "conservation_ok": world["run"]["conservation_ok"],
        # A capture that could not be written (a full disk): the run stopped there.
        "capture_error": report.get("capture_error"),
    }
    return {
        "run": run,
        "flows": flows,
        "handovers": handovers,
        "links": world["links"],
        "emulator": em,
        "addresses": dict(report["addresses"]),
    }


def _first_handover(handovers: list[dict], mobile: str | None) -> float | None:
    """The instant of ``mobile``'s first handover that happened; ``None`` for a flow that
    crosses no mobile."""
    if mobile is None:
        return None
    return next((h["at_s"] for h in handovers if h["happened"] and h["mobile"] == mobile), None)


def _ended_by(report: dict) -> str:
    if report.get("capture_error"):
        return "capture_failed"
    if report["command_exit"] is not None:
        return "command_exited"
    if report["flows"] and all(f["completed"] for f in report["flows"]):
        return "completed"
    return "stop_time"


def _flow(f: dict, report: dict, stage: Path, handover_at: float | None) -> dict:
    """One flow: its socket ends' figures, the capture analysis of its sender's capture."""
    from .analysis import analyze

    src, dst = f["from"], f["to"]
    entry = {
        "name": f["name"],
        "from": src,
        "to": dst,
        "congestion_control": f["cc"],
        "bytes": f["bytes"],
        "completed": f["completed"],
        "transfer_time_s": f["transfer_time_s"],
        "goodput_bps": (8 * f["bytes"] / f["transfer_time_s"] if f["transfer_time_s"] else None),
        "error": f["error"],
        # The handover its t_a counts from: its own mobile's first (null: none happened).
        "handover_at_s": handover_at,
    }
    capture = stage / f"{src}.pcap"
    port = f["port"]
    listed: list[dict] = []
    if capture.exists() and capture.stat().st_size > 24:
        # Every conversation on the flow's port: one, or a Multipath TCP connection's subflows.
        # None when the flow sent nothing (it was to start after run.stop, or never got going):
        # its counts are unknown, as `vho run` reports a flow not complete.
        # A handover after the flow was done (or after the host's last packet: its capture
        # ends there) leaves t_a undefined, not the run.
        done_at = None if f["transfer_time_s"] is None else f["start_s"] + f["transfer_time_s"]
        at = (
            None
            if done_at is not None and handover_at is not None and handover_at >= done_at
            else handover_at
        )
        try:
            try:
                a = analyze(capture, flow=f":{port}", handover_at=at, capture_point="sender")
            except OutsideCapture:
                a = analyze(capture, flow=f":{port}", capture_point="sender")
            listed = a.metrics["flows"]
        except NoFlowMatched:
            listed = []
        except VhoError:
            if not report.get("capture_error"):
                raise
            listed = []  # a capture cut short by a full disk: its counts unknown
    entry["subflows"] = len(listed)
    for key, name in (
        ("retransmissions", "retransmissions"),
        ("fast_retransmits", "fast_retransmissions"),
        ("spurious_retransmissions", "spurious_retransmissions"),
        ("duplicate_acks", "duplicate_acks"),
        ("out_of_order_segments", "out_of_order"),
    ):
        values = [m.get(name) for m in listed if m.get(name) is not None]
        entry[key] = sum(values) if values else None
    # t_a is one connection's: the first subflow's (the only one without multipath).
    entry["adaptation_time_s"] = listed[0].get("adaptation_time_s") if listed else None
    entry["spurious_evidence"] = listed[0].get("spurious_evidence") if listed else None
    last = f["tcp_info"][-1] if f["tcp_info"] else None
    entry["kernel"] = (
        None
        if last is None
        else {
            "total_retrans": last["total_retrans"],
            "rto_s": last["rto_us"] / 1e6,
            "srtt_s": last["rtt_us"] / 1e6,
            "snd_cwnd": last["snd_cwnd"],
            "snd_ssthresh": last["snd_ssthresh"],
        }
    )
    mptcp = emu_mptcp.summary_entry(f, report["world"]["handovers"])
    if mptcp is not None:
        entry["mptcp"] = mptcp
    return entry


def _write_series(report: dict, stage: Path) -> None:
    from .runner import _to_parquet

    mptcp = emu_mptcp.series_frame(report)
    if mptcp is not None:
        _to_parquet(mptcp, stage / "series_mptcp.parquet")
    rows = [{"flow": f["name"], **s} for f in report["flows"] for s in f["tcp_info"]]
    if not rows:
        return
    import pandas as pd

    df = pd.DataFrame(rows)
    df.insert(0, "t_s", df.pop("t_ns") / 1e9)
    for c in ("rto", "rtt", "rttvar"):
        df[f"{c}_s"] = df.pop(f"{c}_us") / 1e6
    df.to_parquet(stage / "series_tcp.parquet", index=False)


def cleanup() -> list[str]:
    """Removes what killed emulations left: their namespaces and the processes in them."""
    if not _native.emulate_permitted():
        raise SimulationError(NOT_PERMITTED)
    return list(_native.emulate_cleanup())
