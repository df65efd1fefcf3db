"""The published numbers of Naoe, Wetterwald & Bonnet, ``002_5cc86ff6918d98af.txt`` §VI,
Tables II (downward handover, 3G -> WLAN) and III (upward, WLAN -> 3G): per handover scheme,
the mean and standard deviation over 30 trials of the out-of-order deliveries at the LFN, the
spurious TCP retransmissions, and the average TCP goodput between 5 and 15 s (kb/s), exactly
as printed.

Scheme names as in vho: ``mbb`` is "Make-Before-Break HO", ``nemo-sho`` "NEMO-SHO without
APC", ``apc`` "NEMO-SHO with APC".
"""

from __future__ import annotations

#: §VI: "30 trials were conducted per scenario".
TRIALS = 30

SCHEMES = ("mbb", "nemo-sho", "apc")
LABELS = {
    "mbb": "Make-Before-Break HO",
    "nemo-sho": "NEMO-SHO without APC",
    "apc": "NEMO-SHO with APC",
}
METRICS = ("out_of_order", "spurious_retransmissions", "goodput_kbps")

#: direction -> scheme -> metric -> (mean, sigma).
TABLES: dict[str, dict[str, dict[str, tuple[float, float]]]] = {
    # Table II: TCP performance of downward handover.
    "downward": {
        "mbb": {"out_of_order": (0, 0.7), "spurious_retransmissions": (1, 0.8),
                "goodput_kbps": (122, 28.0)},
        "nemo-sho": {"out_of_order": (152, 29.0), "spurious_retransmissions": (34, 5.8),
                     "goodput_kbps": (248, 28.4)},
        "apc": {"out_of_order": (39, 18.8), "spurious_retransmissions": (5, 2.9),
                "goodput_kbps": (283, 35.8)},
    },
    # Table III: TCP performance of upward handover.
    "upward": {
        "mbb": {"out_of_order": (0, 0.0), "spurious_retransmissions": (1, 1.1),
                "goodput_kbps": (153, 32.5)},
        "nemo-sho": {"out_of_order": (153, 33.3), "spurious_retransmissions": (34, 7.0),
                     "goodput_kbps": (245, 25.9)},
        "apc": {"out_of_order": (46, 8.5), "spurious_retransmissions": (6, 2.8),
                "goodput_kbps": (292, 21.5)},
    },
}  # fmt: skip

TABLE_NUMBER = {"downward": "II", "upward": "III"}
