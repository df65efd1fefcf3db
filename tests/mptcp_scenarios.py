"""The emulator scenarios of the MPTCP capture fixtures (issue 39): a 300 KB download from
ch to mh, WLAN -> GPRS at 0.3 s, hard (the queued packets lost) and soft, over the shipped
presets, as `tests/test_emulate.py`'s HANDOVER. Run through `vho emulate --multipath` (root),
each gives `mh.pcap` and `ch.pcap`.

The committed fixtures are two such captures cut to 96 bytes a packet (`editcap -s 96`: the
IP, TCP and MPTCP headers whole; the analysis reads lengths from the IP header):
`tests/data/mptcp_hard_mh.pcap` (hard, at the mobile) and `tests/data/mptcp_soft_ch.pcap`
(soft, at the correspondent), with tshark 4.0.17's fields for them beside
(`python3 benches/mptcp_vs_tshark.py --tshark-csv CAPTURE OUT.csv`).
"""

from __future__ import annotations

HARD = """
[run]
name = "mptcp wlan-gprs hard"
seed = 1
stop = "40 s"

[wired]
preset = "lan-100m"
delay = "10 ms"

[access.wlan]
preset = "dk-wlan"

[access.gprs]
preset = "dk-gprs"

[mobile]
start = "wlan"

[[handover]]
at = "0.3 s"
from = "wlan"
to = "gprs"
kind = "hard"

[[flow]]
from = "ch"
to = "mh"
size = "300 KB"
tcp = { mss = 1460 }
"""

SOFT = HARD.replace('kind = "hard"', 'kind = "soft"').replace("gprs hard", "gprs soft")

SCENARIOS = {"hard": HARD, "soft": SOFT}
