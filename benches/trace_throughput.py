"""vho-trace against tshark on a capture of about 1 GB (issue 5): packets analysed per second
and peak memory of each, and their retransmission counts side by side.

    python3 benches/trace_throughput.py [--runs 3] [--keep]

The capture is benches/scenarios/trace-bench.toml simulated by vho (16 Linux-profile
transfers, downloads and uploads, 0.05 % loss, a handover; about 1.0 GB and 1.0 M packets at
the correspondent host), written under target/bench-captures/ and reused. Timed, each with
GNU time for wall time and max RSS:

- vho: `target/release/examples/analyze FILE` (vho-trace, per-flow tcp.analysis, RTT, SACK,
  spurious evidence, handover signals, t_a), best of --runs;
- `tshark -q -z conv,tcp -r FILE` (conversations only);
- `tshark -r FILE -Y tcp.analysis.retransmission -T fields -e frame.number` (the analysis).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "benches" / "scenarios" / "trace-bench.toml"
CACHE = ROOT / "target" / "bench-captures"
ANALYZE = ROOT / "target" / "release" / "examples" / "analyze"


def timed(cmd: list[str], stdout: Path) -> tuple[float, float]:
    """(wall seconds, max RSS in MiB) of one process, by GNU time."""
    with tempfile.NamedTemporaryFile("r") as t, stdout.open("w") as out:
        subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", "-o", t.name, *cmd],
            stdout=out,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        wall, rss_kib = t.read().split()
    return float(wall), int(rss_kib) / 1024


def capture() -> Path:
    pcap = CACHE / "ch.pcap"
    if not pcap.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "vho.cli", "run", str(SCENARIO), "--out", str(CACHE)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return pcap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the capture (it is reused)")
    a = ap.parse_args()
    if shutil.which("tshark") is None:
        sys.exit("tshark is missing: apt-get install tshark")
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "vho-trace", "--example", "analyze"],
        cwd=ROOT,
        check=True,
    )
    pcap = capture()
    size_gb = pcap.stat().st_size / 1e9
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        runs = [timed([str(ANALYZE), str(pcap)], out / "vho.json") for _ in range(a.runs)]
        vho = min(runs)
        analysis = json.loads((out / "vho.json").read_text())
        packets = analysis["packets"]
        ours = sum(f["total"]["retransmissions"] for f in analysis["flows"])
        conv = timed(["tshark", "-q", "-z", "conv,tcp", "-r", str(pcap)], out / "conv.txt")
        flt = "tcp.analysis.retransmission"
        cmd = ["tshark", "-r", str(pcap), "-Y", flt, "-T", "fields", "-e", "frame.number"]
        ana = timed(cmd, out / "rtx.txt")
        theirs = len((out / "rtx.txt").read_text().split())
    print(
        f"capture: {pcap} ({size_gb:.2f} GB, {packets:,} packets, "
        f"{len(analysis['flows'])} flows, at most {analysis['max_open_flows']} open)"
    )
    print("| tool | wall (s) | packets/s | max RSS (MiB) | vho's speed over it |")
    print("|---|---|---|---|---|")
    for name, (wall, rss) in [
        (f"vho-trace analyze (best of {a.runs})", vho),
        ("tshark -q -z conv,tcp", conv),
        ("tshark -Y tcp.analysis.retransmission", ana),
    ]:
        print(f"| {name} | {wall:.2f} | {packets / wall:,.0f} | {rss:.0f} | {wall / vho[0]:.1f}x |")
    print(f"\ntcp.analysis.retransmission: vho {ours}, tshark {theirs}")
    if not a.keep:
        pcap.unlink()


if __name__ == "__main__":
    main()
