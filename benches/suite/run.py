"""The benchmark suite (issue 38): workloads that differ in what dominates, each a vho scenario
in this folder (the 20 MB cell is benches/scenarios/dk-wlan-gprs-20mb.toml) and, where ns-2
can express it, the same world in ns-2.35 (benches/ns2/). Runs them paired and interleaved
(for each round, each workload: vho, then ns-2) and prints per workload the events and
packets of each simulator, the ns per event of each (the loop's median CPU time over its
events; ns-2's loop in wall time where its script reads no CPU time), the median loop time
of each in wall and in CPU seconds and the ratio of the medians (ns-2's over vho's: how
many times faster vho is; "x cpu" is the figure to quote on a shared machine, whose wall
time moves with its neighbours' load) and the peak memory of each (the largest max RSS
over the runs, from wait4).

    cargo build --release -p vho-sim --example run_timed
    python3 benches/suite/run.py [--runs 5] [--only NAME[,NAME]] [--json FILE]
        [--no-ns2] [--bin PATH] [--vs-bin PATH]

`--vs-bin` runs a second build of `run_timed` (another commit's, a profile-guided one) in
turn with the first and prints, per workload, the ratio of its median loop CPU time to the
first's.

vho runs as `target/release/examples/run_timed SCENARIO 1` (recording off; it prints the
events, the packets its sources sent and the wall time of `world::run` alone); ns-2 as
`ns SCRIPT ARGS`, each script printing its events (Scheduler::uid_), the packets its sources
sent and the wall time of its event loop (Tcl's clock from the first event) and its CPU
time (/proc/self/stat, in ticks of 10 ms: a loop of 0.5 s is read to 2 %). "packets" are
data packets sent by the sources (TCP's with retransmissions, TFRC's, cross traffic's): the
two columns should agree to within the randomness of loss and of Pareto bursts, which the
two draw from different generators. The load average is printed at the start and the end:
the machine is shared, and wall times move with it; the ratio of medians of runs taken in
turn holds better than either time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
SUITE = ROOT / "benches" / "suite"
NS2 = ROOT / "benches" / "ns2"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
RUN_TIMED = TARGET / "release" / "examples" / "run_timed"


def dumbbell(**kw: object) -> list[str]:
    """benches/ns2/suite_dumbbell.tcl's arguments."""
    return [str(NS2 / "suite_dumbbell.tcl"), *(f"{k}={v}" for k, v in kw.items())]


@dataclass
class Workload:
    name: str
    dominates: str
    scenario: Path
    ns2: list[str] | None
    sets: list[str] = field(default_factory=list)


WORKLOADS = [
    Workload(
        "handover-20mb",
        "one TCP flow, WLAN -> GPRS soft handover",
        ROOT / "benches" / "scenarios" / "dk-wlan-gprs-20mb.toml",
        [str(NS2 / "dk_wlan_gprs.tcl"), "20000000", "0.5", "speed"],
    ),
    Workload(
        "cross-small",
        "64-byte Pareto datagrams",
        SUITE / "cross-small.toml",
        dumbbell(
            rate="20e6",
            delay=0.020,
            q=100,
            cross="pareto",
            cross_n=20,
            cross_size=64,
            cross_rate="0.8e6",
            duration=120,
        ),
    ),
    Workload(
        "cross-large",
        "1500-byte CBR datagrams",
        SUITE / "cross-large.toml",
        dumbbell(
            rate="100e6",
            delay=0.020,
            q=100,
            cross="cbr",
            cross_n=10,
            cross_size=1500,
            cross_rate="5e6",
            duration=240,
        ),
    ),
    Workload(
        "queue-deep-droptail",
        "1000-packet drop-tail queue, 8 flows",
        SUITE / "queue-deep-droptail.toml",
        dumbbell(
            wired_q=2000,
            rate="50e6",
            delay=0.020,
            q=1001,
            tcp_flows=8,
            window=1000,
            duration=300,
        ),
    ),
    Workload(
        "queue-shallow-ns2",
        "10-packet ns-2 drop-tail, 8 flows",
        SUITE / "queue-shallow-ns2.toml",
        dumbbell(
            wired_q=2000, rate="50e6", delay=0.020, q=10, tcp_flows=8, window=100, duration=300
        ),
    ),
    Workload(
        "queue-red",
        "RED (ns-2.35 automatic), 8 flows",
        SUITE / "queue-red.toml",
        dumbbell(
            wired_q=2000,
            rate="50e6",
            delay=0.020,
            q=100,
            qtype="RED",
            tcp_flows=8,
            window=100,
            duration=300,
        ),
    ),
    Workload("rlc-am", "RLC-AM bearer, BLER 10 %", SUITE / "rlc-am.toml", None),
    Workload("dcf", "802.11b DCF, BER 1e-5", SUITE / "dcf.toml", None),
    Workload("mip6-ro", "MIPv6 signalling + RO, 59 handovers", SUITE / "mip6-ro.toml", None),
    Workload(
        "tfrc-probes",
        "TFRC Probe + IHN, 1 % loss, Pareto",
        SUITE / "tfrc-probes.toml",
        dumbbell(
            wired_delay=0.010,
            rate="10e6",
            delay=0.040,
            q=100,
            loss=0.01,
            tcp_flows=0,
            tfrc=1,
            cross="pareto",
            cross_n=8,
            cross_size=210,
            cross_rate="1e6",
            duration=1200,
        ),
    ),
    Workload(
        "flows-1000",
        "1,000 TCP flows of 500 KB",
        SUITE / "flows-1000.toml",
        dumbbell(
            wired_q=1000,
            rate="100e6",
            delay=0.020,
            q=1000,
            tcp_flows=1000,
            tcp_bytes=500000,
            duration=600,
        ),
    ),
    Workload(
        "lossy-long",
        "2 GB at 1 % loss, window 20",
        SUITE / "lossy-long.toml",
        dumbbell(
            wired_delay=0.022,
            rate="5e6",
            delay=0.002,
            q=20,
            loss=0.01,
            tcp_bytes=2000000000,
            duration=20000,
        ),
    ),
]


@dataclass
class Run:
    loop_s: float
    loop_cpu_s: float | None
    cpu_s: float
    wall_s: float
    maxrss_kib: int
    minflt: int
    events: int
    packets: int
    sender_done_s: float | None = None  # when the sender saw its last byte acknowledged


def fields(text: str, prefix: str) -> dict[str, float]:
    lines = [ln for ln in text.splitlines() if ln.startswith(prefix)]
    if not lines:
        raise ValueError(f"no line starting {prefix!r} in {text[-300:]!r}")
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.eE+-]+)", lines[-1])}


def timed(cmd: list[str], prefix: str) -> Run:
    """One process under GNU time (its max RSS and minor faults: a child forked from this
    interpreter would carry the interpreter's RSS as its high-water mark), reaped by wait4
    (CPU seconds): its line's figures, CPU, wall, max RSS, minor faults."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.perf_counter()
        p = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M %R", "-o", tf.name, *cmd],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(),
            text=True,
        )
        assert p.stdout is not None
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {out[-300:]}")
        maxrss, minflt = (int(x) for x in tf.read().split()[-2:])
    f = fields(out, prefix)
    return Run(
        loop_s=f["loop_wall_s"],
        loop_cpu_s=f.get("loop_cpu_s"),
        cpu_s=ru.ru_utime + ru.ru_stime,
        wall_s=wall,
        maxrss_kib=maxrss,
        minflt=minflt,
        events=int(f["events"]),
        packets=int(f.get("packets", f.get("data_packets", 0))),
        sender_done_s=f.get("sender_done_s"),
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_json(path: Path, loads: tuple[str, str], n_runs: int, table: Any, runs: Any) -> None:
    """The measurements kept: the load averages at the start and the end, the runs per
    side, the table printed and every run of each workload and side."""
    each = {k: {side: [r.__dict__ for r in rs] for side, rs in d.items()} for k, d in runs.items()}
    path.write_text(
        json.dumps({"load": list(loads), "runs": n_runs, "table": table, "each": each}, indent=1)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", help="comma-separated workload names")
    ap.add_argument("--no-ns2", action="store_true", help="vho only")
    ap.add_argument("--json", type=Path, help="write every run's figures here")
    ap.add_argument("--bin", type=Path, default=RUN_TIMED, help="the run_timed build to time")
    ap.add_argument("--vs-bin", type=Path, help="a second run_timed build, in turn")
    a = ap.parse_args()
    chosen = WORKLOADS
    if a.only:
        names = a.only.split(",")
        unknown = [n for n in names if n not in {w.name for w in WORKLOADS}]
        if unknown:
            print(
                f"--only: {', '.join(unknown)}: expected one of "
                f"{', '.join(w.name for w in WORKLOADS)}",
                file=sys.stderr,
            )
            sys.exit(2)
        chosen = [w for w in WORKLOADS if w.name in names]
    if not Path("/usr/bin/time").exists():
        sys.exit("/usr/bin/time: install GNU time (apt-get install time)")
    for b in (a.bin, a.vs_bin):
        if b is not None and not b.exists():
            sys.exit(f"{b}: build it (cargo build --release -p vho-sim --example run_timed)")
    have_ns = shutil.which("ns") is not None and not a.no_ns2
    if shutil.which("ns") is None and not a.no_ns2:
        print("ns-2 not found (apt-get install ns2): vho only", file=sys.stderr)
    load0 = load()
    runs: dict[str, dict[str, list[Run]]] = {
        w.name: {"vho": [], "ns2": [], "vs": []} for w in chosen
    }
    for r in range(a.runs):
        for w in chosen:
            runs[w.name]["vho"].append(timed([str(a.bin), str(w.scenario), "1", *w.sets], "vho "))
            if a.vs_bin is not None:
                runs[w.name]["vs"].append(
                    timed([str(a.vs_bin), str(w.scenario), "1", *w.sets], "vho ")
                )
            if w.ns2 and have_ns:
                runs[w.name]["ns2"].append(timed(["ns", *w.ns2], "ns2 "))
        print(f"round {r + 1}/{a.runs} done, load {load()}", file=sys.stderr)
    load1 = load()
    print(f"median of {a.runs} runs each, interleaved; load average {load0} -> {load1}")
    head = (
        f"{'workload':20} {'events vho':>11} {'ns-2':>10} {'packets vho':>11} {'ns-2':>9} "
        f"{'ns/ev vho':>9} {'ns-2':>6} {'wall vho s':>10} {'ns-2 s':>8} {'x wall':>6} "
        f"{'cpu vho s':>9} {'ns-2 s':>6} {'x cpu':>6} {'MB vho':>6} {'ns-2':>6}"
    )
    print(head)
    table = {}
    for w in chosen:
        v, n = runs[w.name]["vho"], runs[w.name]["ns2"]
        lv = statistics.median(x.loop_s for x in v)
        row = {
            "events_vho": v[-1].events,
            "packets_vho": v[-1].packets,
            "loop_vho_s": lv,
            "ns_per_event_vho": (
                statistics.median(x.loop_cpu_s or 0.0 for x in v) / v[-1].events * 1e9
            ),
            "cpu_vho_s": statistics.median(x.cpu_s for x in v),
            "loop_cpu_vho_s": statistics.median(x.loop_cpu_s or 0.0 for x in v),
            "maxrss_vho_mb": max(x.maxrss_kib for x in v) / 1024,
            "minflt_vho": statistics.median(x.minflt for x in v),
        }
        if n:
            ln = statistics.median(x.loop_s for x in n)
            row |= {
                "events_ns2": n[-1].events,
                "packets_ns2": n[-1].packets,
                "loop_ns2_s": ln,
                "ns_per_event_ns2": ln / n[-1].events * 1e9,
                "cpu_ns2_s": statistics.median(x.cpu_s for x in n),
                "maxrss_ns2_mb": max(x.maxrss_kib for x in n) / 1024,
                "ratio_loop": ln / lv,
            }
            if all(x.loop_cpu_s is not None for x in n):
                row["loop_cpu_ns2_s"] = statistics.median(x.loop_cpu_s or 0.0 for x in n)
                row["ratio_loop_cpu"] = row["loop_cpu_ns2_s"] / row["loop_cpu_vho_s"]
                row["ns_per_event_ns2"] = row["loop_cpu_ns2_s"] / n[-1].events * 1e9
        vs = runs[w.name]["vs"]
        if vs:
            row["vs_loop_cpu_s"] = statistics.median(x.loop_cpu_s or 0.0 for x in vs)
            row["vs_over_bin_cpu"] = row["vs_loop_cpu_s"] / row["loop_cpu_vho_s"]
            print(
                f"{w.name:20} --vs-bin / --bin, loop CPU: {row['vs_over_bin_cpu']:.3f} "
                f"({row['vs_loop_cpu_s']:.3f} s against {row['loop_cpu_vho_s']:.3f} s)"
            )
        table[w.name] = row

        def g(k: str, fmt: str, row: dict = row) -> str:
            return format(row[k], fmt) if k in row else "-"

        print(
            f"{w.name:20} {g('events_vho', ',d'):>11} {g('events_ns2', ',d'):>10} "
            f"{g('packets_vho', ',d'):>11} {g('packets_ns2', ',d'):>9} "
            f"{g('ns_per_event_vho', '.0f'):>9} {g('ns_per_event_ns2', '.0f'):>6} "
            f"{g('loop_vho_s', '.3f'):>10} {g('loop_ns2_s', '.3f'):>8} "
            f"{g('ratio_loop', '.2f'):>6} {g('loop_cpu_vho_s', '.3f'):>9} "
            f"{g('loop_cpu_ns2_s', '.2f'):>6} {g('ratio_loop_cpu', '.2f'):>6} "
            f"{g('maxrss_vho_mb', '.1f'):>6} {g('maxrss_ns2_mb', '.1f'):>6}"
        )
    if a.json:
        write_json(a.json, (load0, load1), a.runs, table, runs)


if __name__ == "__main__":
    main()
