"""What the capture benches share: synthetic captures (a classic pcap of raw IP packets,
LINKTYPE_RAW, built with struct, no simulator) and `vho analyze` timed on one."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Where the benches keep the captures they build (built once per size).
CACHE = ROOT / "target" / "bench-captures"

LINKTYPE_RAW = 101  # tcpdump.org LINKTYPE_RAW: the frame is an IP packet


def ipv4_tcp(
    src: bytes, dst: bytes, sport: int, dport: int, seq: int, ack: int, flags: int,
    ip_id: int, payload: int = 0, checksum: bool = False,
) -> bytes:  # fmt: skip
    """An IPv4 + TCP packet (no options) with `payload` zero bytes; the IP header checksum
    only if asked (the analysis does not read it), the TCP checksum 0."""
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + payload, ip_id & 0xFFFF, 0, 64, 6, 0, src, dst)
    if checksum:
        s = sum(struct.unpack("!10H", ip))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        ip = ip[:10] + struct.pack("!H", ~s & 0xFFFF) + ip[12:]
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack, 5 << 4, flags, 65535, 0, 0)
    return ip + tcp + bytes(payload)


def write(path: Path, packets: Iterable[tuple[int, bytes]]) -> None:
    """The capture of `(time in microseconds, packet)` pairs, replacing `path` whole."""
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_RAW))
        chunk: list[bytes] = []
        for us, pkt in packets:
            chunk.append(struct.pack("<IIII", us // 1_000_000, us % 1_000_000, len(pkt), len(pkt)))
            chunk.append(pkt)
            if len(chunk) >= 131072:
                f.write(b"".join(chunk))
                chunk.clear()
        f.write(b"".join(chunk))
    os.replace(tmp, path)


def time_cli_analyze(pcap: Path, keep: bool = False) -> tuple[int, float, dict[str, int], Path]:
    """Runs `vho analyze` on ``pcap`` in a child process (this checkout's python/): its exit
    status, wall time (s), the sizes of the files it wrote, and its --out (removed unless
    ``keep``). Prints the last of its stderr on failure."""
    out = Path(tempfile.mkdtemp(prefix="analyze-bench-")) / "out"
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
    if p.returncode:
        print(p.stderr.strip()[-2000:])
    sizes = {f.name: f.stat().st_size for f in out.iterdir()} if out.is_dir() else {}
    if not keep:
        shutil.rmtree(out.parent, ignore_errors=True)
    return p.returncode, wall, sizes, out
