"""`vho analyze` on a capture of many one-packet flows (issue 17, item 4): its peak memory.

    python3 benches/analyze_many_flows.py [--flows 1000000] [--keep]

Builds (with struct, no simulator) a classic pcap, LINKTYPE_RAW, of N TCP SYNs, each from its
own address and port: N conversations that never close, the worst case for a per-flow table.
1,000,000 SYNs are a 56 MB file under target/bench-captures/. Then runs
`python -m vho.cli analyze FILE --out DIR` as a child process and reports its wall time and
peak resident memory (`getrusage(RUSAGE_CHILDREN).ru_maxrss`). The target is under 200 MB.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rawpcap

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "target" / "bench-captures"
SYN = 0x02


def syn(i: int) -> bytes:
    """A 40-byte IPv4 + TCP SYN of flow i: from 10.x.y.z:(1024 + i % 60000) to 192.0.2.1:80."""
    src = (10 << 24 | (i + 1)).to_bytes(4, "big")
    dst = bytes((192, 0, 2, 1))
    return rawpcap.ipv4_tcp(src, dst, 1024 + i % 60000, 80, i, 0, SYN, i, checksum=True)


def build(path: Path, flows: int) -> None:
    """The capture: one SYN per flow, 1 us apart."""
    rawpcap.write(path, ((i, syn(i)) for i in range(flows)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=1_000_000)
    ap.add_argument("--keep", action="store_true", help="keep the analysis output")
    args = ap.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    pcap = CACHE / f"syn-{args.flows}.pcap"
    if not pcap.exists():
        build(pcap, args.flows)
    out = Path(tempfile.mkdtemp(prefix="analyze-many-")) / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-m", "vho.cli", "analyze", str(pcap), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    sizes = {f.name: f.stat().st_size for f in out.iterdir()} if out.is_dir() else {}
    print(f"capture: {pcap} ({pcap.stat().st_size / 1e6:.1f} MB, {args.flows} one-SYN flows)")
    print(f"vho analyze: exit {p.returncode}, {wall:.1f} s, peak RSS {rss_mib:.0f} MiB")
    if p.returncode:
        print(p.stderr.strip()[-2000:])
    for name, size in sorted(sizes.items()):
        print(f"  {name}: {size / 1e6:.1f} MB")
    if args.keep:
        print(f"-> {out}")
    else:
        shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
