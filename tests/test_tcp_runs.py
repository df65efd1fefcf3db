"""Whole runs that check TCP rules users rely on beyond handovers: transfers past 2^31 and
2^32 bytes, and a congestion window that does not outgrow what the sender uses."""

from __future__ import annotations

import pytest

import vho

# One fast link (1 Gb/s, 1 ms), nothing lost: only the receive window limits the sender.
FAST_LINK = """
[run]
name = "fast link"
seed = 1
stop = "1000 s"

[wired]
preset = "lan-100m"
rate = "1 Gb/s"

[access.link]
rate = "1 Gb/s"
delay = "1 ms"
queue = "1000 packets"

[mobile]
start = "link"

[[flow]]
from = "ch"
to = "mh"
size = "1 MB"
tcp = { profile = "rfc" }
"""


@pytest.mark.parametrize("size", [2_200_000_000, 4_400_000_000])
def test_transfers_past_2_gib_and_the_32_bit_wrap_complete(size: int) -> None:
    # Issue 16: 2.2 GB sent nothing and 4.4 GB stopped after 105 MB (32-bit byte counts and
    # comparisons across more than 2^31 bytes). RFC 9293 §3.4: sequence numbers wrap at 2^32.
    s = vho.run(
        FAST_LINK, overrides=[f'flow.0.size="{size} B"', 'flow.0.tcp.profile="linux"']
    ).summary
    f = s["flows"][0]
    assert f["completed"]
    assert f["bytes_delivered"] == size
    assert f["retransmissions"] == 0


@pytest.mark.parametrize("profile", ["rfc", "linux"])
def test_cwnd_does_not_grow_past_what_the_receive_window_lets_out(profile: str) -> None:
    # Linux tcp_is_cwnd_limited / RFC 7661 §4.3: no growth while the window is not used. Here
    # the 64 KB (rfc) or 128 KB (linux) receive window holds the flight; before the rule the
    # rfc profile's cwnd reached 100 MB over 200 MB.
    r = vho.run(
        FAST_LINK,
        overrides=[
            'flow.0.size="200 MB"',
            f'flow.0.tcp.profile="{profile}"',
            "record.series=true",
        ],
    )
    tcp = next(iter(r.tcp.values()))
    assert r.flows[0]["completed"]
    assert tcp["cwnd"].max() <= 2 * tcp["flight"].max() + 2 * 1460
