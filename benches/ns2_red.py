"""vho's RED (`queue_model = "red"`) against ns-2.35's Queue/RED: statistics over seeds.

Each case is N long-lived TCP flows (flow i starting at 0.2 i s) from the correspondent host
through a 100 Mb/s, 22 ms wired link and one RED bottleneck to the mobile host, for a fixed
time. ns-2 runs `benches/ns2/red_bottleneck.tcl` (Agent/TCP/Sack1, DelAck sinks, Queue/RED at
every ns-2.35 default, seeded per run); vho runs the same topology with the `ns2` TCP profile
and RED at its defaults (the same automatic parameters). RED draws cannot match between the
simulators, so per case the means over seeds are compared, each with its 95 % confidence
interval: RED's mean average queue (bytes, over arrivals), early drops per second, forced
drops (the hard limit) and the goodput of all flows together.

The hard limit: ns-2's byte-mode RED compares the bytes waiting with `limit_ x mean_pktsize_`
(red.cc: `qlim = qlim_ * edp_.mean_pktsize`), so ns-2's 100-packet limit is 50,000 B; vho is
given that byte limit (`queue = "50000 B"`).

    python3 benches/ns2_red.py                     # 4 cases x 20 seeds
    python3 benches/ns2_red.py --seeds 40 --duration 200

Writes OUT/cases.csv and OUT/report.md and prints the table.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import vho
from vho.sweep.summarize import t975

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "benches" / "ns2" / "red_bottleneck.tcl"
#: ns-2's queue limit of the bottleneck, packets; in byte mode RED holds limit x 500 B.
LIMIT_PKTS = 100
MEAN_PKTSIZE = 500
MSS = 1460
WIRED_DELAY_S = 0.022


@dataclass(frozen=True)
class Case:
    name: str
    flows: int
    rate_bps: float
    delay_s: float
    window: int = 64


CASES = [
    Case("4 flows, 2 Mb/s, 20 ms", 4, 2e6, 0.020),
    Case("8 flows, 2 Mb/s, 20 ms", 8, 2e6, 0.020),
    Case("4 flows, 10 Mb/s, 5 ms", 4, 10e6, 0.005),
    # The Daniel & Kojo GPRS link (scenarios/presets/dk-gprs.toml): 200 kb/s, 300 ms.
    Case("4 flows, dk-gprs 200 kb/s, 300 ms", 4, 200e3, 0.300),
]

PATTERN = re.compile(
    r"early=(\d+) forced=(\d+) arrivals=(\d+) avg=([0-9.]+) acked=(\d+)",
)


def scenario(c: Case, duration_s: float) -> str:
    """The vho side of one case, as TOML text."""
    flows = "".join(
        f"""
[[flow]]
from = "ch"
to = "mh"
size = "100 GB"
start = "{0.2 * i:.1f} s"
tcp = {{ profile = "ns2", mss = {MSS}, send_window = "{c.window} packets" }}
"""
        for i in range(c.flows)
    )
    return f"""
[run]
name = "bench: {c.name} through RED"
stop = "{duration_s} s"

[wired]
preset = "lan-100m"
queue_model = "ns2-droptail"
queue = "1000 packets"
delay = "{WIRED_DELAY_S * 1000:g} ms"

[access.link]
rate = "{c.rate_bps:g} b/s"
delay = "{c.delay_s * 1000:g} ms"
queue = "{LIMIT_PKTS * MEAN_PKTSIZE} B"
queue_model = "red"

[mobile]
start = "link"
{flows}"""


def ns2_run(c: Case, seed: int, duration_s: float, cwd: str) -> dict[str, float]:
    args = [c.flows, c.rate_bps, c.delay_s, duration_s, seed, LIMIT_PKTS, c.window, WIRED_DELAY_S]
    out = subprocess.run(
        ["ns", str(TCL), *map(str, args)], capture_output=True, text=True, check=True, cwd=cwd
    ).stdout
    m = PATTERN.search(out)
    if not m:
        raise RuntimeError(f"ns-2: {out!r}")
    return {
        "early_per_s": int(m.group(1)) / duration_s,
        "forced": int(m.group(2)),
        "mean_avg_bytes": float(m.group(4)),
        "goodput_bps": int(m.group(5)) * 8 / duration_s,
    }


def vho_run(c: Case, seed: int, duration_s: float) -> dict[str, float]:
    s = vho.run(scenario(c, duration_s), seed=seed).summary
    (down,) = [d for d in s["links"] if d["link"] == "link" and d["to"] == "mh"]
    delivered = sum(f["bytes_delivered"] for f in s["flows"])
    return {
        "early_per_s": down["dropped_early_drop"] / duration_s,
        "forced": down["dropped_queue_overflow"],
        "mean_avg_bytes": down["red_mean_avg_bytes"],
        "goodput_bps": delivered * 8 / duration_s,
    }


def mean_ci(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = statistics.fmean(xs)
    return m, (t975(n - 1) * statistics.stdev(xs) / math.sqrt(n) if n > 1 else math.nan)


KEYS = ("mean_avg_bytes", "early_per_s", "forced", "goodput_bps")


def compare(c: Case, seeds: range, duration_s: float, jobs: int = 2) -> dict[str, object]:
    """Runs case `c` in both simulators for every seed; the means, CIs and relative gaps."""
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool:
        ns = list(pool.map(lambda s: ns2_run(c, s, duration_s, tmp), seeds))
    ours = [vho_run(c, s, duration_s) for s in seeds]
    row: dict[str, object] = {"case": c.name}
    for key in KEYS:
        mn, cn = mean_ci([r[key] for r in ns])
        mv, cv = mean_ci([r[key] for r in ours])
        row |= {
            f"ns2_{key}": mn,
            f"ns2_{key}_ci": cn,
            f"vho_{key}": mv,
            f"vho_{key}_ci": cv,
            f"{key}_rel": mv / mn - 1 if mn else math.nan,
        }
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--duration", type=float, default=100.0, help="simulated seconds per run")
    ap.add_argument("--out", type=Path, default=Path("out/ns2-red"))
    ap.add_argument("--jobs", type=int, default=2, help="ns processes at a time")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    seeds = range(1, a.seeds + 1)
    rows = []
    for c in CASES:
        # The slow link carries few packets per second: give it twice the time.
        duration = a.duration * (2 if c.rate_bps < 1e6 else 1)
        row = compare(c, seeds, duration, a.jobs)
        row["duration_s"] = duration
        rows.append(row)
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))
    lines = [
        f"# ns-2.35 Queue/RED vs vho `red` ({a.seeds} seeds per case, means ± 95 % CI)",
        "",
        "| case | s | avg queue B ns-2 | vho | diff | early drops/s ns-2 | vho | diff "
        "| forced drops ns-2 | vho | goodput Mb/s ns-2 | vho | diff |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:

        def pair(key: str, scale: float = 1.0, fmt: str = ".0f", r: dict = r) -> str:
            n, v = r[f"ns2_{key}"], r[f"vho_{key}"]
            cn, cv = r[f"ns2_{key}_ci"], r[f"vho_{key}_ci"]
            return (
                f"{n * scale:{fmt}} ± {cn * scale:{fmt}} | {v * scale:{fmt}} ± {cv * scale:{fmt}}"
            )

        lines.append(
            f"| {r['case']} | {r['duration_s']:g} | {pair('mean_avg_bytes')} "
            f"| {r['mean_avg_bytes_rel']:+.1%} | {pair('early_per_s', fmt='.3f')} "
            f"| {r['early_per_s_rel']:+.1%} | {pair('forced', fmt='.1f')} "
            f"| {pair('goodput_bps', 1e-6, '.3f')} | {r['goodput_bps_rel']:+.1%} |"
        )
    (a.out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with open(a.out / "cases.csv", "w", encoding="utf-8") as f:
        f.write(",".join(rows[0]) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r.values()) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
