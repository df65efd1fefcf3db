"""What Cottingham & Vidales (``000_2dceaee3c96622fa.txt``) report, as numbers: Table 1 (l.156-165)
and the shares of §6.1 (l.183). Times in milliseconds as the paper gives them.

The ``%`` column is the mean of per-handover shares, not the ratio of the means (2786 / 5635 is
49.4 %, the table says 50.7 %; l.183 gives the share with its own sd): vho computes it the same
way and prints the ratio of means beside it.
"""

from __future__ import annotations

#: Table 1, per case: rows ``t_n`` (handover time T_n), ``t_a`` (adaptation time), ``total``;
#: each (mean, %, sd, min, max) in ms (the % column in percent).
TABLE1: dict[str, dict[str, tuple[float, float, float, float, float]]] = {
    "wlan-gprs": {
        "t_n": (2848, 49.3, 1127, 1103, 4782),
        "t_a": (2786, 50.7, 628, 2142, 4022),
        "total": (5635, 100.0, 881, 3802, 7285),
    },
    "lan-gprs": {
        "t_n": (5356, 68.5, 1791, 4146, 10303),
        "t_a": (2355, 31.5, 337, 1924, 3119),
        "total": (7711, 100.0, 1751, 6339, 12452),
    },
}

#: l.183: t_a's share with its sd, in percent.
TA_SHARE_SIGMA = {"wlan-gprs": 13.9, "lan-gprs": 6.1}

#: The handovers each case of Table 1 averages (l.138).
PAPER_COUNT = {"wlan-gprs": 20, "lan-gprs": 10}

ROWS = {"t_n": "Handover time T_n", "t_a": "Adaptation time t_a", "total": "Total latency"}
