"""The published numbers of Daniel & Kojo (2005), ``001_b31677fe21b9faf1.txt`` §7, Tables 3-6:
mean transfer time in seconds over 32 replications, per handover time (HTime, s) and model.

Model names as in vho: ``ideal-soft`` / ``ideal-hard`` are the paper's "Vhoideal soft/hard
handoff" (Tables 4 and 6 have one "Vhoideal" column: soft, the paper's default §5.1);
``delay-N`` is "VhodelayN", an N-second handover delay with the soft handover (§5.2).
"""

from __future__ import annotations

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
