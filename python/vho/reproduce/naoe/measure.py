"""What one run of `vho reproduce naoe` measures beyond its summary (Naoe et al.,
``002_5cc86ff6918d98af.txt``): from the mobile router's capture (Fig. 6's trials), how much
later the first bicast packet's copy over the old link arrived than its copy over the new one,
§VII's "the first duplicate packet (TCP seq. 60) from the 3G link arrived at the MR only 102
ms later than the WLAN link" (single session) and "approximately 1.1 seconds later" (two).

The capture is the simulator's (``record.pcap``: classic pcap, nanosecond stamps, raw IPv6,
vho_sim::record::pcap6): a bicast copy is an IPv6-in-IPv6 tunnel packet whose outer header is
followed by a Destination Options header carrying the Packet Identifier Option (Fig. 3: type
0x1e, 16-bit sequence, 16-bit timestamp); the outer destination is the care-of address of the
link it came over.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The Packet Identifier Option's type (vho_sim::record::pcap6::PIO_OPTION_TYPE).
PIO_OPTION_TYPE = 0x1E
NH_IPV6 = 41
NH_DEST_OPTS = 60
#: Beside a run: the mobile router's capture.
MR_CAPTURE = "mr.pcap"


def records(path: Path) -> Iterator[tuple[float, bytes]]:
    """(time in s, packet) of a nanosecond classic pcap of raw IP packets (link type 101)."""
    b = path.read_bytes()
    if len(b) < 24 or b[:4] != bytes.fromhex("4d3cb2a1"):
        raise ValueError(f"{path}: expected a little-endian nanosecond pcap")
    o = 24
    while o + 16 <= len(b):
        sec, nsec, incl, _ = struct.unpack("<IIII", b[o : o + 16])
        yield sec + nsec * 1e-9, b[o + 16 : o + 16 + incl]
        o += 16 + incl


def pio_seq(p: bytes) -> int | None:
    """The PIO's sequence number of a tunnelled copy, None for any other packet."""
    if len(p) < 48 or p[0] >> 4 != 6 or p[6] != NH_DEST_OPTS:
        return None
    end = 40 + (p[41] + 1) * 8
    i = 42
    while i + 1 < min(end, len(p)):
        if p[i] == 0:  # Pad1
            i += 1
            continue
        if p[i] == PIO_OPTION_TYPE and p[i + 1] == 4 and i + 4 <= len(p):
            return struct.unpack(">H", p[i + 2 : i + 4])[0]
        i += 2 + p[i + 1]
    return None


def first_duplicate_delay(path: Path) -> float | None:
    """Seconds from the new link's copy of the first bicast packet to the old link's copy
    (negative: the old link's came first); None when no bicast packet had both copies. The
    old link is the one whose care-of address the first tunnelled packets (before bicasting,
    without a PIO) were sent to."""
    old: bytes | None = None
    copies: dict[int, dict[bytes, float]] = {}
    order: list[int] = []
    for t, p in records(path):
        if len(p) < 40 or p[0] >> 4 != 6:
            continue
        dst = p[24:40]
        if old is None and p[6] == NH_IPV6:
            old = dst
        s = pio_seq(p)
        if s is None:
            continue
        if s not in copies:
            copies[s] = {}
            order.append(s)
        copies[s].setdefault(dst, t)
    if old is None:
        return None
    for s in order:
        c = copies[s]
        if len(c) == 2 and old in c:
            (new,) = [d for d in c if d != old]
            return c[old] - c[new]
    return None


def measure_run(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """A run with the mobile router's capture (Fig. 6's trials): §VII's first duplicate
    delay. Any other run: nothing beyond its summary."""
    cap = run_dir / MR_CAPTURE
    if not cap.exists():
        return {}
    d = first_duplicate_delay(cap)
    return {} if d is None else {"first_duplicate_delay_s": d}
