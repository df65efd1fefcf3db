"""How accurately `vho emulate` reproduces the links it models, and how fast it can go.

Three measurements, each an emulation on this machine (root needed):

1. **Delay probe.** A UDP probe (one 1000-byte datagram every 20 ms) from ch to mh over a
   path whose one-way delay is known in closed form (each hop: serialisation at its rate plus
   its propagation delay). The emulator's own captures give each datagram's send and receive
   instants on one clock: the error is measured minus closed form, p50 and p99.
2. **Rate.** A bulk TCP transfer (cubic) over a 10 Mb/s bottleneck: the rate at which data
   arrives at mh while the queue is never empty, against the configured rate.
3. **Throughput limit.** A bulk transfer over links of 10 Gb/s with 100 µs delay: what the
   emulator carries with 1500-byte packets, its loop's CPU use and its timing error.
4. **At 1 Gb/s.** The same with a 1 Gb/s access link (issue 21's target rate): the timing
   error when the model, not the emulator, sets the rate.

    python3 benches/emu_accuracy.py [--out benches/out/emu_accuracy.json] [--no-offload]
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tempfile
from pathlib import Path

from vho.emulate import emulate

PROBE_SIZE = 1000  # UDP payload bytes
PROBE_GAP_S = 0.020
PROBES = 200

PATH = """
[run]
name = "{name}"
stop = "{stop}"

[wired]
rate = "{wired_rate}"
delay = "{wired_delay}"
queue = "1000 packets"

[access.link]
rate = "{rate}"
delay = "{delay}"
queue = "{queue}"

[mobile]
start = "link"

[[flow]]
from = "ch"
to = "mh"
size = "{size}"
"""

PROBE = (
    "import socket,os,time,struct;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);"
    f"a=(os.environ['VHO_MH_ADDR'],9000);t=time.monotonic()\n"
    f"for i in range({PROBES}):\n"
    f" s.sendto(struct.pack('!I',i)+bytes({PROBE_SIZE - 4}),a);t+={PROBE_GAP_S}\n"
    " time.sleep(max(0,t-time.monotonic()))\n"
    "time.sleep(0.5)"
)


def read_pcap(path: Path) -> list[tuple[float, bytes]]:
    """(time in s, IP packet) of every record of a nanosecond pcap of raw IP."""
    data = path.read_bytes()
    out, i = [], 24
    while i + 16 <= len(data):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", data, i)
        out.append((sec + nsec / 1e9, data[i + 16 : i + 16 + incl]))
        i += 16 + incl
    return out


def udp_probes(path: Path) -> dict[int, float]:
    """Probe number -> instant, from the UDP datagrams to port 9000 in a capture."""
    seen = {}
    for t, p in read_pcap(path):
        ihl = (p[0] & 0x0F) * 4
        if p[9] != 17 or struct.unpack_from("!H", p, ihl + 2)[0] != 9000:
            continue
        seq = struct.unpack_from("!I", p, ihl + 8)[0]
        seen.setdefault(seq, t)
    return seen


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[round((len(v) - 1) * q)]


#: Options every emulation of the run gets (`--no-offload`: {"offload": False}).
COMMON: dict = {}


def emulate_path(work: Path, name: str, path: dict[str, str], **options):
    """Emulates the two-hop path of `PATH` with these values; the run's result and its
    output directory."""
    scenario = work / f"{name}.toml"
    scenario.write_text(PATH.format(name=name, **path))
    out = work / name
    return emulate(scenario, out_dir=out, force=True, **COMMON, **options), out


def delay_probe(work: Path) -> dict:
    rates = {"wired": 100e6, "link": 10e6}
    delays = {"wired": 0.005, "link": 0.020}
    path = dict(
        stop="30 s", wired_rate="100 Mb/s", wired_delay="5 ms",
        rate="10 Mb/s", delay="20 ms", queue="100 packets", size="1 KB",
    )  # fmt: skip
    r, out = emulate_path(
        work, "probe", path, command=[sys.executable, "-c", PROBE], command_at="ch"
    )
    sent, got = udp_probes(out / "ch.pcap"), udp_probes(out / "mh.pcap")
    wire = PROBE_SIZE + 28  # IPv4 + UDP headers
    expected = sum(wire * 8 / rates[k] + delays[k] for k in rates)
    errors = [(got[i] - sent[i] - expected) * 1e6 for i in sent if i in got]
    return {
        "probes_sent": len(sent),
        "probes_received": len(errors),
        "expected_one_way_ms": expected * 1e3,
        "error_us_p50": pct(errors, 0.5),
        "error_us_p99": pct(errors, 0.99),
        "abs_error_us_p99": pct([abs(e) for e in errors], 0.99),
        "emulator": r.summary["emulator"]["accuracy"],
    }


def rate(work: Path) -> dict:
    path = dict(
        stop="60 s", wired_rate="1 Gb/s", wired_delay="1 ms",
        rate="10 Mb/s", delay="10 ms", queue="200 packets", size="8 MB",
    )  # fmt: skip
    r, out = emulate_path(work, "rate", path, cc="cubic")
    # Data packets reaching mh: while the bottleneck is busy they arrive back to back, one
    # 1500-byte packet per 1.2 ms. The rate over the middle half of the transfer.
    data = [(t, len(p)) for t, p in read_pcap(out / "mh.pcap") if len(p) > 100]
    n = len(data)
    mid = data[n // 4 : 3 * n // 4]
    span = mid[-1][0] - mid[0][0]
    achieved = 8 * sum(size for _, size in mid[1:]) / span
    return {
        "configured_bps": 10e6,
        "achieved_bps": achieved,
        "error_pct": 100 * (achieved - 10e6) / 10e6,
        "transfer_time_s": r.summary["flows"][0]["transfer_time_s"],
        "emulator": r.summary["emulator"]["accuracy"],
    }


def limit(work: Path, rate: str = "10 Gb/s", size: str = "1000 MB") -> dict:
    path = dict(
        stop="60 s", wired_rate="10 Gb/s", wired_delay="100 us",
        rate=rate, delay="100 us", queue="1000 packets", size=size,
    )  # fmt: skip
    r, _ = emulate_path(work, "limit", path, cc="cubic")
    f, e = r.summary["flows"][0], r.summary["emulator"]
    return {
        "bytes": f["bytes"],
        "transfer_time_s": f["transfer_time_s"],
        "goodput_bps": f["goodput_bps"],
        "packets_carried": e["packets_in"],
        "loop_cpu_share": e["loop_cpu_s"] / e["wall_s"],
        # Offloads (a build without them reports none): GSO packets read and cut, and
        # writes that carried several segments.
        "offload": e.get("offload", False),
        "gso_reads": e.get("gso_reads", 0),
        "gso_segments": e.get("gso_segments", 0),
        "gro_writes": e.get("gro_writes", 0),
        "gro_segments": e.get("gro_segments", 0),
        "accuracy": e["accuracy"],
        "limited_by_emulator": e["limited_by_emulator"],
        "reasons": e["reasons"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="benches/out/emu_accuracy.json")
    ap.add_argument(
        "--no-offload", action="store_true", help="the devices without segmentation offloads"
    )
    args = ap.parse_args()
    if args.no_offload:
        COMMON["offload"] = False
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        result = {
            "delay_probe": delay_probe(work),
            "rate": rate(work),
            "limit": limit(work),
            "at_1g": limit(work, rate="1 Gb/s", size="500 MB"),
        }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    d, r, lim = result["delay_probe"], result["rate"], result["limit"]
    print(
        f"delay probe: {d['probes_received']}/{d['probes_sent']} datagrams, one way "
        f"{d['expected_one_way_ms']:.3f} ms expected; error p50 {d['error_us_p50']:.1f} µs, "
        f"p99 {d['error_us_p99']:.1f} µs"
    )
    print(
        f"rate: {r['achieved_bps'] / 1e6:.3f} Mb/s of {r['configured_bps'] / 1e6:.0f} "
        f"({r['error_pct']:+.2f} %)"
    )
    print(
        f"limit: {lim['goodput_bps'] / 1e9:.2f} Gb/s goodput with 1500-byte packets, loop CPU "
        f"{100 * lim['loop_cpu_share']:.0f} %, delivery lateness p50 "
        f"{lim['accuracy']['delivery_lateness']['p50_us']:.1f} µs, p99 "
        f"{lim['accuracy']['delivery_lateness']['p99_us']:.0f} µs"
        + (f" (limited: {'; '.join(lim['reasons'])})" if lim["limited_by_emulator"] else "")
    )
    g = result["at_1g"]
    print(
        f"at 1 Gb/s: {g['goodput_bps'] / 1e9:.3f} Gb/s goodput, loop CPU "
        f"{100 * g['loop_cpu_share']:.0f} %, delivery lateness p50 "
        f"{g['accuracy']['delivery_lateness']['p50_us']:.1f} µs, p99 "
        f"{g['accuracy']['delivery_lateness']['p99_us']:.0f} µs"
    )
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
