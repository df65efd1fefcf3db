"""The published numbers of Daniel & Kojo (2005), ``001_b31677fe21b9faf1.txt`` §7, Tables 3-6:
mean transfer time in seconds over 32 replications, per handover time (HTime, s) and model.

Model names as in vho: ``ideal-soft`` / ``ideal-hard`` are the paper's "Vhoideal soft/hard
handoff" (Tables 4 and 6 have one "Vhoideal" column: soft, the paper's default §5.1);
``delay-N`` is "VhodelayN", an N-second handover delay with the soft handover (§5.2).
"""

from __future__ import annotations

from ..verdict import PaperNumber, claim, unmeasured, value

KB, MB = 1000, 1000 * 1000

#: (table, direction, size in bytes, models, {htime: values per model}).
TABLES: list[tuple[int, str, int, tuple[str, ...], dict[int, tuple[float, ...]]]] = [
    (3, "gprs-wlan", 200 * KB, ("ideal-soft", "ideal-hard", "delay-1", "delay-3", "delay-5"), {
        0: (0.95, 0.95, 1.2, 3.2, 5.2),
        1: (2.2, 2.2, 2.2, 4.8, 6.8),
        3: (4.1, 4.1, 4.2, 6.5, 8.6),
        5: (5.6, 5.8, 5.9, 8.1, 10.2),
    }),
    (3, "gprs-wlan", 2 * MB, ("ideal-soft", "ideal-hard", "delay-1", "delay-3", "delay-5"), {
        0: (3.9, 3.9, 4.2, 6.2, 8.2),
        1: (5.2, 5.2, 5.1, 7.9, 9.9),
        3: (7.3, 7.3, 7.0, 9.6, 11.7),
        5: (8.7, 8.8, 8.9, 11.1, 13.5),
    }),
    (4, "gprs-wlan", 20 * MB, ("ideal-soft", "delay-1", "delay-3", "delay-5"), {
        0: (33.2, 33.8, 35.8, 37.8),
        1: (34.2, 34.7, 37.5, 39.5),
        3: (36.5, 36.6, 39.2, 41.3),
        5: (38.1, 38.4, 40.7, 43.1),
        7: (39.7, 40.4, 42.9, 45),
        11: (43.7, 44.3, 46.6, 48.6),
        15: (47.7, 48.3, 50.3, 52.6),
        20: (52.8, 53, 55.3, 57.9),
        25: (57.8, 57.8, 60.1, 62.5),
        30: (62.4, 62.6, 64.9, 66.9),
    }),
    (5, "wlan-gprs", 200 * KB, ("ideal-soft", "ideal-hard", "delay-4", "delay-7", "delay-12"), {
        0: (8.2, 8.2, 16.4, 19.5, 24.3),
        1: (0.66, 0.66, 0.66, 0.66, 0.66),
        3: (0.66, 0.66, 0.66, 0.66, 0.66),
        5: (0.66, 0.66, 0.66, 0.66, 0.66),
    }),
    (5, "wlan-gprs", 2 * MB, ("ideal-soft", "ideal-hard", "delay-4", "delay-7", "delay-12"), {
        0: (82.6, 82.6, 88.8, 93.7, 98.5),
        1: (59.8, 59.8, 67.4, 70.4, 75.4),
        3: (10.1, 10.1, 19.1, 22.1, 27.1),
        5: (3.6, 3.6, 3.6, 3.6, 3.6),
    }),
    (6, "wlan-gprs", 20 * MB, ("ideal-soft", "delay-4", "delay-7", "delay-12"), {
        0: (824.1, 828.6, 833.4, 838.3),
        1: (807, 807, 810.1, 815.1),
        3: (759.3, 759, 762.1, 767.1),
        5: (711, 711.1, 714.1, 719.1),
        7: (663, 663, 666, 671),
        11: (567.1, 567.1, 570, 575),
        15: (472, 471, 474, 479),
        20: (351.7, 351.7, 354, 359),
        25: (231.7, 231.7, 234, 239),
        30: (111.3, 111.1, 114.1, 119),
    }),
]  # fmt: skip


def cells() -> list[tuple[int, str, str, int, int, float]]:
    """Every cell: (table, direction, model, size_bytes, htime_s, paper_s), in table order."""
    out = []
    for table, direction, size, models, rows in TABLES:
        for htime, values in rows.items():
            for model, v in zip(models, values, strict=True):
                out.append((table, direction, model, size, htime, float(v)))
    return out


def cell_key(table: int, direction: str, size: int, htime: float, model: str) -> str:
    """A cell's key among the paper's numbers: ``t3.gprs-wlan.200KB.h0.ideal-soft``."""
    s = f"{size // MB}MB" if size >= MB else f"{size // KB}KB"
    return f"t{table}.{direction}.{s}.h{htime:g}.{model}"


def _cells() -> list[PaperNumber]:
    out = []
    for table, direction, size, model_names, rows in TABLES:
        s = f"{size // MB} MB" if size >= MB else f"{size // KB} KB"
        for htime, values in rows.items():
            for model, v in zip(model_names, values, strict=True):
                out.append(
                    value(
                        cell_key(table, direction, size, htime, model),
                        f"Table {table}, {direction} {s}, HTime {htime}, {model}",
                        v,
                        f"§7 Table {table}",
                        unit="s",
                    )
                )
    return out


#: The figures' and the text's numbers and claims (§3, §6, §7, §8).
TEXT: tuple[PaperNumber, ...] = (
    value("fig1.dropped", "Fig. 1: packets dropped at the handover", 12, "§3.1", "exact",
          unit="packets", words="The buffer overflow occurs at the time of handoff and 12 "
          "packets are dropped"),
    value("fig1.first_retransmission_s", "Fig. 1: the timeout", 0.89, "§3.1", unit="s",
          words="Since the ACKs are delayed, a timeout happens at 0.89"),
    value("fig1.spurious_retransmissions", "Fig. 1: unnecessary retransmissions", 29, "§3.1",
          "exact", words="There are 29 unnecessary retransmissions"),
    value("fig1.complete_s", "Fig. 1: the transfer completes", 5.2, "§3.1", unit="s",
          words="the transfer completes only at 5.2 secs"),
    value("wlan-200KB.complete_s", "200 KB over WLAN alone", 0.65, "§3.1", unit="s",
          words="The transfer of 200KB data by WLAN takes only 0.65 sec"),
    value("fig2.first_duplicate_ack_s", "Fig. 2: duplicate ACKs start", 6.32, "§3.2", unit="s",
          words="dupacks start coming at 6.32 secs",
          derived="the handover at 6 s here (Fig. 2's caption; the text says 6.2 s)"),
    value("fig2.complete_s", "Fig. 2: the transfer completes", 6.8, "§3.2", unit="s",
          words="the transfer completes at 6.8 secs as WLAN is a fast link"),
    value("wlan-2MB.first_drop_s", "WLAN's slow start overshoot", 0.7, "§6.2", "about",
          unit="s", words="The slow start overshoot in WLAN occurs around 0.7"),
    claim("gprs-wlan.hard_above_soft", "GPRS -> WLAN: hard above soft (A: hard, B: soft, every "
          "cell and replication)", ">", "§6.1",
          words="the transfer time increases, and it is slightly more than the corresponding "
          "soft handoff"),
    value("gprs-wlan.soft_drops", "GPRS -> WLAN soft: packets lost", 0, "§6", "exact",
          unit="packets", words="no packet losses occur when mobile host moves from GPRS to "
          "WLAN"),
    claim("gprs-wlan.early_is_faster", "GPRS -> WLAN: a handoff at the beginning shortens the "
          "transfer (A: HTime 0, B: HTime 5; ideal soft, 200 KB and 2 MB)", "<", "§6.1",
          words="the transfer time is reduced if the handoff happens at the beginning of the "
          "connection"),
    value("wlan-gprs.spread_pct", "WLAN -> GPRS: the transfer times' spread among a cell's "
          "replications ((max - min) / mean)", 2, "§6.2", "range", hi=5, unit="%",
          words="there can be 2- 5 % difference in the transfer time among the 32 replications "
          "of a particular handoff time"),
    value("wlan-gprs.hard_increase_pct", "WLAN -> GPRS: hard over soft", 1, "§6.2", "range",
          hi=5, unit="%", words="there is a 1- 5 % increase in the transfer time compared to "
          "that of soft handoff"),
    claim("gprs-wlan.delay1_close", "GPRS -> WLAN: delay 1 s about the ideal handoff (A: "
          "delay-1, B: ideal soft)", "~", "§7.1",
          words="the transfer time is not increased much compared to the handoff in the case "
          "of ideal vertical handoff"),
    claim("gprs-wlan.delay3_timeouts", "GPRS -> WLAN, delay 3 s: timeouts a transfer", ">=0",
          "§7.1", words="When the handoff delay becomes 3 and 5, timeout takes place in both "
          "cases"),
    claim("gprs-wlan.delay5_timeouts", "GPRS -> WLAN, delay 5 s: timeouts a transfer", ">=0",
          "§7.1", words="timeout takes place in both cases"),
    value("gprs-wlan.delay3_increase_pct", "GPRS -> WLAN 20 MB: delay 3 s over ideal", 10,
          "§7.1", "about", unit="%", words="That is why there is a 10 % increase in the "
          "transfer time", derived="judged on Table 4 (20 MB), where the paper's own cells "
          "give 5-10 %"),
    value("gprs-wlan.delay5_increase_pct", "GPRS -> WLAN 20 MB: delay 5 s over ideal", 10,
          "§7.1", "about", unit="%", words="there is a 10 % increase in the transfer time"),
    unmeasured(
        claim("gprs-wlan.hard_delay", "GPRS -> WLAN: hard handoff with delay above soft with "
              "delay", ">", "§7.1", words="There is a slight increase in the transfer time in "
              "the case of hard handoff with handoff delay"),
        "no table gives hard handoffs with delay, and vho runs the tables' models",
    ),
    claim("wlan-gprs.delay_timeouts", "WLAN -> GPRS with delay: timeouts a transfer", ">=0",
          "§7.2", words="In all the cases with WLAN-GPRS soft handoff with delay, timeout "
          "happens"),
    value("wlan-gprs.delay_increase_pct", "WLAN -> GPRS 20 MB: delay over ideal", 1, "§7.2",
          "range", hi=2, unit="%", words="there is an increase of about 1-2% in the transfer "
          "time", derived="judged on Table 6 (20 MB), where the paper's own cells give it"),
    claim("wlan-gprs.delay_hurts_short", "WLAN -> GPRS: delay's relative cost larger for 200 "
          "KB and 2 MB than for 20 MB (A: short, B: 20 MB)", ">", "§7.2",
          words="the effect of delay is more on 200KB and 2 MB flows than on 20MB flow"),
    claim("wlan-gprs.early_is_slow", "WLAN -> GPRS 20 MB: an early handoff makes the transfer "
          "long (A: HTime 0, B: HTime 30; ideal soft)", ">", "§8",
          words="the transfer time for 20 MB is large if handoff occurs during the early phase "
          "of the connection"),
)  # fmt: skip

#: Every number of the paper.
NUMBERS: tuple[PaperNumber, ...] = (*_cells(), *TEXT)
