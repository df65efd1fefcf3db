"""Cottingham & Vidales's Table 1, T_n split into its parts per case (issue 36: why vho's
LAN -> GPRS T_n is not above WLAN -> GPRS's, and why t_a's share and sigma differ).

The paper (000_2dceaee3c96622fa.txt) gives T_n = t_d + t_c + t_r (eq. 1-4) and says where the
LAN's extra 2.5 s goes (§6.1, l.183; §7, l.220): between the home agent's Binding
Acknowledgement and the start of route optimisation, "a few packets are tunneled via the HA in
the meantime". This script runs the study's two Table 1 cases, each with the variants given,
and prints per case the mean of each part (from each run's summary.json: t_d detection, t_c
configuration, t_r registration; the BA and the first tunnelled segment after the handover's
instant, the BA to the first route-optimised segment, how long segments came tunnelled before
it), the correspondent's timeouts, and t_a (from the capture, as the study measures it: from
§5's first data packet on the new interface) with its sigma and share; ``t_a.end`` is t_a
read from T_n's end instead (the first route-optimised packet), which differs only where
packets come through the tunnel first.

    python3 benches/cottingham_components.py [--seeds 1-20] [--variant NAME=KEY=VAL;KEY=VAL ...]

A variant applies to both cases unless its name starts with ``lan:`` or ``wlan:`` (then only to
that case); ``delay=MEAN/SD`` in it sets the GPRS link's extra delay each way. ``base`` (the
study file as it is) always runs first. What it found (issue 36, 40 seeds):

    python3 benches/cottingham_components.py --seeds 1-40 \
        --variant "lan:bound=mipv6.cn_bound=true" \
        --variant 'lan:bound-after-ba=mipv6.cn_bound=true;mipv6.ro_start="after-ba"' \
        --variant "old-delay=delay=150 ms/150 ms" --variant "no-spread=delay=18.37 ms/0 ms" \
        --variant "spread-2ms=delay=18.37 ms/2 ms"

T_n's parts: t_d 0.16 s and t_c 0 in every case (detection and DAD are the same for the two
links, and the GPRS interface was configured before), so the cases differ in t_r alone. At the
study's defaults WLAN -> GPRS has T_n 3.13 s (BA 0.90 s after the handover, then 2.23 s to the
first route-optimised segment); LAN -> GPRS 4.04 s: the first segment through the tunnel 1.57 s
after the handover, route optimisation 3.14 s after the BA, segments tunnelled for 2.47 s
before it. With the correspondent bound to the LAN's address (the study before issue 36) LAN's
T_n is 3.42 s, nothing tunnelled (3.66 s with return routability at the BA). With the old delay
(150 / 150 ms): WLAN 3.77 s, LAN 5.39 s (paper 2.85, 5.36). t_a's σ: 1.10 s (WLAN) and 1.11 s
(LAN) at the defaults, 1.46 and 1.50 s at 150 / 150 ms, 0.10 and 0.30 s with no spread (t_a's
mean then 1.28 and 1.35 s), 0.47 and 0.71 s with a spread of 2 ms: any spread at all moves the
first crossing of the mean by whole bursts. t_a read from T_n's end instead (``t_a.end``) is
1.10 s on the LAN, against 3.09 s from §5's first packet on the new interface.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from pathlib import Path

from vho.analysis import analyze
from vho.reproduce.cottingham import CASES, study_path
from vho.reproduce.cottingham.measure import measure
from vho.runner import run

COLUMNS = (
    ("t_d", "t_d_s"),
    ("t_c", "t_c_s"),
    ("t_r", "t_r_s"),
    ("T_n", "t_n_s"),
    ("BA", "ba_after_s"),
    ("tun", "tunnelled_after_s"),
    ("BA->RO", "ba_to_ro_s"),
    ("tun<RO", "tunnelled_before_ro_s"),
    ("RTOs", "timeouts"),
    ("t_a", "t_a_s"),
    ("t_a.end", "t_a_from_t_n_end_s"),
)


def one(case: str, sets: list[str], seed: int, out: Path) -> dict[str, float]:
    """One run of ``case`` with ``sets`` over the study file; its parts (seconds)."""
    base = next(c for c in CASES if c.name == case).overrides
    r = run(study_path(), seed=seed, overrides=[*base, *sets], out_dir=out, force=True)
    row = measure(out, r.summary)
    m = r.summary["handovers"][0].get("mipv6") or {}
    # t_a from T_n's end (the first route-optimised packet) instead of §5's first data packet
    # on the new interface: the two differ when packets come through the tunnel first.
    ro = m.get("first_route_optimised_s")
    row["t_a_from_t_n_end_s"] = row["t_a_s"]
    if ro is not None and m.get("first_tunnelled_s") is not None:
        a = analyze(
            out / "mn.pcap", ta_mean="after-handover", handover_at=math.floor(ro * 1e6) / 1e6
        )
        row["t_a_from_t_n_end_s"] = float(a.flows.iloc[0]["adaptation_time_s"])
    at = row["at_s"]
    row["ba_after_s"] = row["ba_s"] - at
    tun = m.get("first_tunnelled_s")
    row["tunnelled_after_s"] = float("nan") if tun is None else tun - at
    return row


def _expand(s: str) -> list[str]:
    """``delay=MEAN/SD`` (e.g. ``delay=150 ms/150 ms``): the GPRS link's extra delay each way
    (link 6 and its reverse); anything else is a --set item as it is."""
    if not s.startswith("delay="):
        return [s]
    mean, _, sd = s.removeprefix("delay=").partition("/")
    return [
        f'link.6{d}.jitter_{k}="{v.strip()}"'
        for d in ("", ".reverse")
        for k, v in (("mean", mean), ("sd", sd))
    ]


def _seeds(s: str) -> list[int]:
    if "-" in s:
        a, b = s.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in s.split(",")]


def _mean(xs: list[float]) -> float:
    xs = [x for x in xs if x == x]
    return statistics.mean(xs) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1-20", help="e.g. 1-20 or 1,2,3")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME=KEY=VAL;KEY=VAL (NAME lan:x or wlan:x for one case only)",
    )
    args = ap.parse_args()
    seeds = _seeds(args.seeds)
    variants: list[tuple[str, list[str]]] = [("base", [])]
    for v in args.variant:
        name, _, sets = v.partition("=")
        variants.append((name, [x for s in sets.split(";") if s for x in _expand(s)]))
    head = "".join(f"{c:>8}" for c, _ in COLUMNS)
    print(f"{'case':10} {'variant':22}{head} {'sd t_a':>7} {'share':>6}  (s; n={len(seeds)})")
    with tempfile.TemporaryDirectory() as tmp:
        for name, sets in variants:
            only = name.split(":")[0] if ":" in name else None
            for case in ("wlan-gprs", "lan-gprs"):
                if only and not case.startswith(only + "-"):
                    continue
                rows = [one(case, sets, s, Path(tmp) / "r") for s in seeds]
                cells = "".join(f"{_mean([r[k] for r in rows]):8.3f}" for _, k in COLUMNS)
                ta = [r["t_a_s"] for r in rows if r["t_a_s"] == r["t_a_s"]]
                sd = statistics.stdev(ta) if len(ta) > 1 else float("nan")
                share = _mean([r["share_t_a"] for r in rows])
                print(f"{case:10} {name:22}{cells} {sd:7.3f} {share:6.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
