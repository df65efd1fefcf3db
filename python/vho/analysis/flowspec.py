"""``--flow SPEC``: which conversations of a capture to report.

A SPEC is one of

- ``N``: the conversation numbered N in order of first appearance (Wireshark's ``tcp.stream``);
- ``ADDR:PORT``: the conversations with this endpoint on either side (IPv6 as ``[ADDR]:PORT``);
- ``:PORT``: the conversations with this port on either side;
- ``ADDR:PORT,ADDR:PORT`` (or ``-`` between them): this conversation, either direction.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from ..errors import VhoError

EXPECTED = "N, ADDR:PORT, [ADDR6]:PORT, :PORT or ADDR:PORT,ADDR:PORT"

_ENDPOINT = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<v4>[0-9.]*)):(?P<port>\d+)$")


@dataclass(frozen=True)
class Endpoint:
    """An address (None: any) and a port."""

    addr: str | None
    port: int

    def matches(self, addr: str, port: int) -> bool:
        return port == self.port and (self.addr is None or self.addr == addr)


@dataclass(frozen=True)
class FlowSpec:
    """A parsed ``--flow``: an index, or one or two endpoints."""

    text: str
    index: int | None = None
    endpoints: tuple[Endpoint, ...] = ()

    def matches(self, index: int, a: tuple[str, int], b: tuple[str, int]) -> bool:
        """True if the conversation numbered ``index`` between ``a`` and ``b`` is selected."""
        if self.index is not None:
            return index == self.index
        if len(self.endpoints) == 1:
            e = self.endpoints[0]
            return e.matches(*a) or e.matches(*b)
        e, f = self.endpoints
        return (e.matches(*a) and f.matches(*b)) or (e.matches(*b) and f.matches(*a))


def _endpoint(spec: str, part: str) -> Endpoint:
    m = _ENDPOINT.match(part.strip())
    if m is None:
        raise VhoError(f"vho analyze: --flow {spec!r}: expected {EXPECTED}")
    port = int(m["port"])
    if port > 65535:
        raise VhoError(f"vho analyze: --flow {spec!r}: port {port} is above 65535")
    addr = m["v6"] or m["v4"] or None
    if addr is not None:
        try:
            addr = str(ipaddress.ip_address(addr))
        except ValueError:
            raise VhoError(f"vho analyze: --flow {spec!r}: {addr!r} is not an IP address") from None
    return Endpoint(addr, port)


def parse(spec: str) -> FlowSpec:
    """Parses a ``--flow`` SPEC; raises :class:`vho.errors.VhoError` naming what was expected."""
    text = spec.strip()
    if text.isdigit():
        return FlowSpec(spec, index=int(text))
    # A comma always separates two endpoints; a dash does where IPv6 brackets allow it.
    parts = text.split(",") if "," in text else re.split(r"(?<=\d)-(?=[\[0-9:])", text)
    if len(parts) > 2 or not all(parts):
        raise VhoError(f"vho analyze: --flow {spec!r}: expected {EXPECTED}")
    return FlowSpec(spec, endpoints=tuple(_endpoint(spec, p) for p in parts))
