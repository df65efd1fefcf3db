"""A hand-made Mobile IPv6 capture at the mobile node (issue 20), for `vho analyze`.

One TCP download from the correspondent node (CN) to the mobile's home address (HoA), with
its ACKs, written as classic nanosecond pcap of LINKTYPE_RAW (101), as vho-sim's
`record/pcap.rs` writes, with the layouts of `docs/design/issue-20-sources.md` §4:

1. 0-0.6 s, WLAN, route-optimised to CoA1: CN -> CoA1 with a type 2 routing header naming
   the HoA (RFC 6275 §6.4), the mobile's ACKs CoA1 -> CN with a Home Address destination
   option (type 0xC9, §6.3). The segment sent at 0.58 s is lost on the way (not captured).
2. The handover: a router advertisement and DAD's neighbour solicitation on the new link, a
   binding update to the home agent (HA) and its acknowledgement, a HoTI reverse-tunnelled.
3. 0.95-1.55 s, GPRS, tunnelled by the HA: outer HA -> CoA2 (next header 41), inner
   CN -> HoA (RFC 6275 §10.4.1, RFC 2473); ACKs reverse-tunnelled, outer CoA2 -> HA, inner
   HoA -> CN. The first is the lost segment's retransmission; one segment arrives twice.
4. A binding update to the CN (with the HAO), then from 1.6 s route-optimised to CoA2, two
   segments swapped 1 ms apart (reordering), and the close.

Every checksum is right (TCP's and the MH's over the pseudo-header of the HoA, ICMPv6's
over the wire addresses). Run as a script to rewrite the committed file:
``python3 tests/mipv6_capture.py tests/data/mipv6_handover.pcap``.
"""

from __future__ import annotations

import ipaddress
import struct
import sys
from pathlib import Path

CN = "2001:db8:c::1"
HA = "2001:db8:1::1"
HOA = "2001:db8:1::100"
COA1 = "2001:db8:2::100"  # WLAN
COA2 = "2001:db8:3::100"  # GPRS
ROUTER2 = "fe80::3:1"
CN_PORT, MN_PORT = 5001, 40000
MSS = 1000
CN_ISN, MN_ISN = 100_000, 500_000

NH_TCP, NH_IPV6, NH_ROUTING, NH_ICMPV6, NH_NONE, NH_DSTOPTS, NH_MH = 6, 41, 43, 58, 59, 60, 135
MS = 1_000_000


def _a(addr: str) -> bytes:
    return ipaddress.IPv6Address(addr).packed


def _sum16(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _checksum(src: str, dst: str, nh: int, upper: bytes) -> int:
    """RFC 8200 §8.1: the upper-layer checksum over the pseudo-header."""
    pseudo = _a(src) + _a(dst) + struct.pack("!IxxxB", len(upper), nh)
    return (~_sum16(pseudo + upper)) & 0xFFFF


def ipv6(src: str, dst: str, nh: int, payload: bytes, hop_limit: int = 64) -> bytes:
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hop_limit) + _a(src) + _a(dst) + payload


def hao(nh: int, home: str) -> bytes:
    """Destination options header with PadN 4 and the Home Address option at 8n+6 (24 B)."""
    return struct.pack("!BB", nh, 2) + b"\x01\x02\0\0" + struct.pack("!BB", 0xC9, 16) + _a(home)


def rh2(nh: int, home: str) -> bytes:
    """Type 2 routing header, segments left 1, naming the home address (24 B)."""
    return struct.pack("!BBBB4x", nh, 2, 2, 1) + _a(home)


def tcp(src: str, dst: str, sport: int, dport: int, seq: int, ack: int, flags: int,
        payload_len: int = 0, mss: int | None = None) -> bytes:  # fmt: skip
    """A TCP segment (zero payload bytes), its checksum over the endpoints' addresses."""
    opts = struct.pack("!BBH", 2, 4, mss) if mss else b""
    off = (20 + len(opts)) // 4
    h = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, 65535, 0, 0)
    seg = h + opts + bytes(payload_len)
    c = _checksum(src, dst, NH_TCP, seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def mh(mh_type: int, body: bytes, src: str, dst: str) -> bytes:
    """A Mobility Header (RFC 6275 §6.1.1): payload proto 59, length in 8-B units - 1."""
    assert (6 + len(body)) % 8 == 0
    h = struct.pack("!BBBBH", NH_NONE, (6 + len(body)) // 8 - 1, mh_type, 0, 0) + body
    c = _checksum(src, dst, NH_MH, h)
    return h[:4] + struct.pack("!H", c) + h[6:]


def icmpv6(src: str, dst: str, body: bytes) -> bytes:
    c = _checksum(src, dst, NH_ICMPV6, body)
    return body[:2] + struct.pack("!H", c) + body[4:]


SYN, ACK, FIN, PSH = 0x02, 0x10, 0x01, 0x08


class Capture:
    """The frames at the mobile node, each (time in ns, IPv6 packet)."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, bytes]] = []

    def add(self, t_ns: int, packet: bytes) -> None:
        self.frames.append((t_ns, packet))

    # -- the TCP connection, by path --------------------------------------------------------

    def cn_to_mn(self, t: int, path: str, seq: int, ack: int, flags: int, n: int = 0,
                 mss: int | None = None) -> None:  # fmt: skip
        seg = tcp(CN, HOA, CN_PORT, MN_PORT, seq, ack, flags, n, mss)
        if path == "ro1" or path == "ro2":
            coa = COA1 if path == "ro1" else COA2
            self.add(t, ipv6(CN, coa, NH_ROUTING, rh2(NH_TCP, HOA) + seg))
        else:  # tunnelled by the home agent
            self.add(t, ipv6(HA, COA2, NH_IPV6, ipv6(CN, HOA, NH_TCP, seg)))

    def mn_to_cn(self, t: int, path: str, seq: int, ack: int, flags: int,
                 mss: int | None = None) -> None:  # fmt: skip
        seg = tcp(HOA, CN, MN_PORT, CN_PORT, seq, ack, flags, 0, mss)
        if path == "ro1" or path == "ro2":
            coa = COA1 if path == "ro1" else COA2
            self.add(t, ipv6(coa, CN, NH_DSTOPTS, hao(NH_TCP, HOA) + seg))
        else:  # reverse-tunnelled to the home agent
            self.add(t, ipv6(COA2, HA, NH_IPV6, ipv6(HOA, CN, NH_TCP, seg)))

    # -- signalling ---------------------------------------------------------------------------

    def router_advertisement(self, t: int) -> None:
        mac = bytes.fromhex("020000000301")
        body = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, 1800, 0, 0)
        body += struct.pack("!BB", 1, 1) + mac  # source link-layer address
        body += struct.pack("!BBBBIII", 3, 4, 64, 0xC0, 86400, 14400, 0) + _a("2001:db8:3::")
        body += struct.pack("!BBHI", 5, 1, 0, 1500)  # MTU
        body += struct.pack("!BBHI", 7, 1, 0, 1000)  # advertisement interval (ms)
        self.add(t, ipv6(ROUTER2, "ff02::1", NH_ICMPV6, icmpv6(ROUTER2, "ff02::1", body), 255))

    def dad(self, t: int) -> None:
        dst = "ff02::1:ff00:100"  # the target's solicited-node group
        body = struct.pack("!BBHI", 135, 0, 0, 0) + _a(COA2)
        self.add(t, ipv6("::", dst, NH_ICMPV6, icmpv6("::", dst, body), 255))

    def binding_update(self, t: int, to: str, seq: int) -> None:
        # A | H | L | K for the home agent (RFC 6275 §6.1.7), none for a correspondent.
        flags = 0xF000 if to == HA else 0
        body = struct.pack("!HHH", seq, flags, 100) + b"\x01\x02\0\0"
        self.add(t, ipv6(COA2, to, NH_DSTOPTS, hao(NH_MH, HOA) + mh(5, body, HOA, to)))

    def binding_ack(self, t: int, seq: int) -> None:
        body = struct.pack("!BBHH", 0, 0, seq, 100) + b"\x01\x02\0\0"
        self.add(t, ipv6(HA, COA2, NH_ROUTING, rh2(NH_MH, HOA) + mh(6, body, HA, HOA)))

    def home_test_init(self, t: int) -> None:
        inner = ipv6(HOA, CN, NH_MH, mh(1, b"\0\0" + bytes(range(1, 9)), HOA, CN))
        self.add(t, ipv6(COA2, HA, NH_IPV6, inner))

    def write(self, path: Path) -> None:
        out = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101)
        for t, p in sorted(self.frames, key=lambda f: f[0]):
            out += struct.pack("<IIII", t // 1_000_000_000, t % 1_000_000_000, len(p), len(p))
            out += p
        path.write_bytes(out)


#: Frames of the capture that are not TCP segments (RA, NS, 2 BUs, BA, HoTI).
SIGNALLING = 6


def build() -> Capture:
    c = Capture()
    mss = MSS
    c.mn_to_cn(0, "ro1", MN_ISN, 0, SYN, mss=1440)
    c.cn_to_mn(10 * MS, "ro1", CN_ISN, MN_ISN + 1, SYN | ACK, mss=1440)
    c.mn_to_cn(20 * MS, "ro1", MN_ISN + 1, CN_ISN + 1, ACK)
    seq0 = CN_ISN + 1
    ack_mn = MN_ISN + 1

    def seq(k: int) -> int:
        return seq0 + k * mss

    # 1. WLAN, route-optimised to CoA1: segment k at 30 + 10k ms, k = 0..56; 55 lost.
    received = []
    for k in range(57):
        t = (30 + 10 * k) * MS
        if k == 55:
            continue
        c.cn_to_mn(t, "ro1", seq(k), ack_mn, ACK | PSH, mss)
        received.append(k)
        if k < 55 and k % 2 == 1:
            c.mn_to_cn(t + MS, "ro1", ack_mn, seq(k + 1), ACK)
        if k == 56:  # beyond the hole: a duplicate ACK at once
            c.mn_to_cn(t + MS, "ro1", ack_mn, seq(55), ACK)

    # 2. The handover: RA on the new link, DAD for CoA2, BU/BA with the HA, HoTI.
    c.router_advertisement(610 * MS)
    c.dad(620 * MS)
    c.binding_update(700 * MS, HA, 1)
    c.binding_ack(900 * MS, 1)
    c.home_test_init(910 * MS)

    # 3. GPRS, tunnelled by the HA: the lost 55 first (its retransmission), then 57.., one
    # every 150 ms; segment 59 arrives twice (a copy, 20 ms later).
    k_next = 57
    t = 950 * MS
    c.cn_to_mn(t, "tunnel", seq(55), ack_mn, ACK | PSH, mss)
    c.mn_to_cn(t + MS, "tunnel", ack_mn, seq(57), ACK)
    for i in range(4):
        t = (1100 + 150 * i) * MS
        k = k_next + i
        c.cn_to_mn(t, "tunnel", seq(k), ack_mn, ACK | PSH, mss)
        if k == 59:
            c.cn_to_mn(t + 20 * MS, "tunnel", seq(k), ack_mn, ACK | PSH, mss)
        if i % 2 == 1:
            c.mn_to_cn(t + MS, "tunnel", ack_mn, seq(k + 1), ACK)
    k_next += 4

    # 4. Route optimisation to CoA2 from 1.6 s: 61.., one every 150 ms; 64 and 65 swapped.
    c.binding_update(1560 * MS, CN, 2)
    order = list(range(k_next, k_next + 10))
    for i, k in enumerate(order):
        t = (1600 + 150 * i) * MS
        if k == 64:
            t += MS  # 1 ms after 65
        elif k == 65:
            t -= 150 * MS
        c.cn_to_mn(t, "ro2", seq(k), ack_mn, ACK | PSH, mss)
        if k % 2 == 1 and k != 65:
            c.mn_to_cn(t + MS, "ro2", ack_mn, seq(k + 1), ACK)
        if k == 65:  # beyond the hole of 64: a duplicate ACK
            c.mn_to_cn(t + MS // 2, "ro2", ack_mn, seq(64), ACK)
        if k == 64:
            c.mn_to_cn(t + MS, "ro2", ack_mn, seq(66), ACK)
    end = seq(k_next + 10)
    t = (1600 + 150 * 10) * MS
    c.cn_to_mn(t, "ro2", end, ack_mn, FIN | ACK)
    c.mn_to_cn(t + MS, "ro2", ack_mn, end + 1, FIN | ACK)
    c.cn_to_mn(t + 300 * MS, "ro2", end + 1, ack_mn + 1, ACK)
    return c


if __name__ == "__main__":
    build().write(Path(sys.argv[1]))
