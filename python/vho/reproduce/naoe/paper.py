"""The published numbers of Naoe, Wetterwald & Bonnet, ``002_5cc86ff6918d98af.txt``, as data:
§VI's Tables II (downward handover, 3G -> WLAN) and III (upward, WLAN -> 3G), per handover
scheme the mean and standard deviation over 30 trials of the out-of-order deliveries at the
LFN, the spurious TCP retransmissions and the average TCP goodput between 5 and 15 s (kb/s),
exactly as printed; §VI's and §VII's claims about them; §VII's two delays.

Scheme names as in vho: ``mbb`` is "Make-Before-Break HO", ``nemo-sho`` "NEMO-SHO without
APC", ``apc`` "NEMO-SHO with APC". Keys are ``<direction>.<scheme>.<metric>[.sd]``.
"""

from __future__ import annotations

from ..verdict import PaperNumber, claim, mean, sd, value

#: §VI: "30 trials were conducted per scenario".
TRIALS = 30

SCHEMES = ("mbb", "nemo-sho", "apc")
LABELS = {
    "mbb": "Make-Before-Break HO",
    "nemo-sho": "NEMO-SHO without APC",
    "apc": "NEMO-SHO with APC",
}
METRICS = ("out_of_order", "spurious_retransmissions", "goodput_kbps")
METRIC_LABELS = {
    "out_of_order": "Out-of-order delivery",
    "spurious_retransmissions": "Spurious TCP retransmissions",
    "goodput_kbps": "Avg. TCP goodput 5-15 s (kb/s)",
}
UNITS = {"out_of_order": "", "spurious_retransmissions": "", "goodput_kbps": "kb/s"}

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
SOURCE = {"downward": "§VI-A Table II", "upward": "§VI-B Table III"}


def _tables() -> list[PaperNumber]:
    out = []
    for direction, schemes in TABLES.items():
        for scheme, metrics in schemes.items():
            for m, (mu, sigma) in metrics.items():
                what = f"{direction}, {LABELS[scheme]}: {METRIC_LABELS[m]}"
                key = f"{direction}.{scheme}.{m}"
                src = SOURCE[direction]
                out.append(mean(key, what, mu, sigma, TRIALS, src, unit=UNITS[m]))
                out.append(sd(f"{key}.sd", f"{what}, σ", sigma, TRIALS, src, unit=UNITS[m]))
    return out


def _claims() -> list[PaperNumber]:
    out = []
    for direction in ("downward", "upward"):
        src = SOURCE[direction]
        out += [
            claim(f"{direction}.apc_fewer_spurious", f"{direction}: APC below NEMO-SHO in "
                  "spurious retransmissions", "<", src,
                  words="NEMO-SHO with APC ... succeeded to reduce spurious TCP retransmissions"),
            claim(f"{direction}.apc_less_reordering", f"{direction}: APC below NEMO-SHO in "
                  "out-of-order deliveries", "<", src,
                  words="NEMO-SHO with APC significantly avoided out-of order delivery"
                  if direction == "downward" else "Table III's order"),
            claim(f"{direction}.apc_above_mbb", f"{direction}: APC's goodput above MBB's", ">",
                  src, words="achieve[d] better TCP goodput than Make-Before-Break handover"),
            claim(f"{direction}.apc_above_sho", f"{direction}: APC's goodput above NEMO-SHO's "
                  f"(Table {TABLE_NUMBER[direction]}'s order)", ">", src,
                  words=f"Table {TABLE_NUMBER[direction]}: APC's goodput above NEMO-SHO's"),
        ]  # fmt: skip
    out.append(
        claim("upward.apc_reordering_increased", "APC's out-of-order deliveries upward above "
              "downward (A: upward, B: downward)", ">", "§VI-B",
              words="However, the number of out-of order delivery slightly increased")
    )  # fmt: skip
    return out


#: Every number of the paper.
NUMBERS: tuple[PaperNumber, ...] = (
    *_tables(),
    *_claims(),
    value("downward.first_slow_copy_delay_s", "single session: the first duplicate from "
          "the 3G after its WLAN copy", 0.102, "§VII", unit="s",
          words="the first duplicate packet (TCP seq. 60) from the 3G link arrived at the "
          "MR only 102 ms later than the WLAN link"),
    value("downward.two_sessions.first_slow_copy_delay_s", "two sessions: the first "
          "duplicate from the 3G after its WLAN copy", 1.1, "§VII", "about", unit="s",
          words="the first duplicate packet from the 3G link arrived approximately 1.1 "
          "seconds later than the WLAN link"),
)  # fmt: skip
