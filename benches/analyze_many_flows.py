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
import resource
from pathlib import Path

import capture_bench

CACHE = capture_bench.CACHE
SYN = 0x02


def syn(i: int) -> bytes:
    """A 40-byte IPv4 + TCP SYN of flow i: from 10.x.y.z:(1024 + i % 60000) to 192.0.2.1:80."""
    src = (10 << 24 | (i + 1)).to_bytes(4, "big")
    dst = bytes((192, 0, 2, 1))
    return capture_bench.ipv4_tcp(src, dst, 1024 + i % 60000, 80, i, 0, SYN, i, checksum=True)


def build(path: Path, flows: int) -> None:
    """The capture: one SYN per flow, 1 us apart."""
    capture_bench.write(path, ((i, syn(i)) for i in range(flows)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=1_000_000)
    ap.add_argument("--keep", action="store_true", help="keep the analysis output")
    args = ap.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    pcap = CACHE / f"syn-{args.flows}.pcap"
    if not pcap.exists():
        build(pcap, args.flows)
    status, wall, sizes, out = capture_bench.time_cli_analyze(pcap, keep=args.keep)
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    print(f"capture: {pcap} ({pcap.stat().st_size / 1e6:.1f} MB, {args.flows} one-SYN flows)")
    print(f"vho analyze: exit {status}, {wall:.1f} s, peak RSS {rss_mib:.0f} MiB")
    for name, size in sorted(sizes.items()):
        print(f"  {name}: {size / 1e6:.1f} MB")
    if args.keep:
        print(f"-> {out}")


if __name__ == "__main__":
    main()
