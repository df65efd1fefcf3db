"""vho-trace on a capture of never-contiguous segments (issue 17, item 4): packets per second
when the received ranges pile up.

    python3 benches/analyze_holes.py [--segments 300000] [--runs 3]

Builds (with struct, no simulator) a classic pcap, LINKTYPE_RAW, of one conversation whose
sender sends N segments of 100 bytes, each 100 bytes past the end of the one before, 10 us
apart, and no ACK: every segment leaves a hole below it, so the receiver-side bookkeeping of
the ranges seen (vho-trace's spurious.rs, up to MAX_RANGES = 10,000 ranges) is as full as it
gets. The capture is under target/bench-captures/. Times
`$CARGO_TARGET_DIR/release/examples/analyze FILE` (best of --runs; packets/s) and
`python -m vho.cli analyze FILE --out DIR` once (wall time, like the issue's 48 s).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

import capture_bench

ROOT = capture_bench.ROOT
CACHE = capture_bench.CACHE
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
ANALYZE = TARGET / "release" / "examples" / "analyze"
ACK = 0x10
PAYLOAD = 100


def segment(i: int) -> bytes:
    """Segment i: 10.0.0.1:40000 -> 192.0.2.1:80, seq 1000 + 200 i, 100 bytes."""
    src, dst = bytes((10, 0, 0, 1)), bytes((192, 0, 2, 1))
    return capture_bench.ipv4_tcp(src, dst, 40000, 80, 1000 + 2 * PAYLOAD * i, 1, ACK, i, PAYLOAD)


def build(path: Path, n: int) -> None:
    """The capture: segment i at 10 i microseconds."""
    capture_bench.write(path, ((10 * i, segment(i)) for i in range(n)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--segments", type=int, default=300_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "vho-trace", "--example", "analyze"],
        cwd=ROOT,
        check=True,
    )
    CACHE.mkdir(parents=True, exist_ok=True)
    pcap = CACHE / f"holes-{a.segments}.pcap"
    if not pcap.exists():
        build(pcap, a.segments)
    best = float("inf")
    for _ in range(a.runs):
        t0 = time.perf_counter()
        subprocess.run([str(ANALYZE), str(pcap)], stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t0)
    print(f"capture: {pcap} ({pcap.stat().st_size / 1e6:.1f} MB, {a.segments} segments)")
    print(f"vho-trace: {best:.2f} s, {a.segments / best / 1e3:.0f} k packets/s (best of {a.runs})")
    status, wall, _, _ = capture_bench.time_cli_analyze(pcap)
    print(f"vho analyze: exit {status}, {wall:.1f} s")


if __name__ == "__main__":
    main()
