"""Multipath TCP in `vho compare` (issue 39 item 5), read from a comparison's directory: per
scenario hosting the MPTCP variants, how each did against the best TCP variant and the oracle,
and what its connection did (bytes delivered per interface, time to resume after the handover,
data-level bytes sent again), the figures `docs/design/mptcp.md` quotes.

    vho compare --out out/compare                       # the default comparison
    python3 benches/compare_mptcp.py out/compare [--scenarios A,B,...]
    python3 benches/compare_mptcp.py --thesis-window    # the thesis's window experiment
    python3 benches/compare_mptcp.py --handshake        # MPTCP's cost without a handover

`--thesis-window` runs the thesis's base case (seed 1) as TCP and as MPTCP with its 16 KiB
receive window and with 1 MiB, and prints the bytes each interface carried. `--handshake`
runs Daniel & Kojo's 200 KB WLAN -> GPRS cell at HTime 5 (the transfer ends before the
handover; seed 1) as the study's TCP, as it with a handshake, and as MPTCP.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import pandas as pd

from vho import _native, sweep
from vho.reproduce.thesis import study_path
from vho.sweep.spec import NO_RECORDING

MP = ("mptcp", "mptcp-backup")
REFS = ("oracle", "oracle-system")


def summary(d: Path, only: list[str] | None) -> None:
    t = pd.read_csv(d / "compare.csv", keep_default_na=True)
    t["skipped"] = t["skipped"].fillna("")
    runs = pd.concat([sweep.results(r) for r in sorted((d / "runs").iterdir())])
    # The completed runs (an incomplete one's bytes would pull the means down).
    runs = runs[runs["variant"].isin(MP) & runs["error"].isna() & runs["transfer_time_s"].notna()]
    tcp = t[~t["variant"].isin([*REFS, *MP]) & t["transfer_time_s_mean"].notna()]
    best = tcp.loc[tcp.groupby("scenario")["transfer_time_s_mean"].idxmin()].set_index("scenario")
    print("| scenario | variant | T (s) | incomplete | vs best TCP | vs oracle | "
          "bytes per interface (KB) | resume (s) | bytes sent again |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for _, r in t[t["variant"].isin(MP) & (t["skipped"] == "")].iterrows():
        s, v = r["scenario"], r["variant"]
        if only and s not in only:
            continue
        per: dict[str, list[int]] = {}
        for rec in runs[(runs["scenario"] == s) & (runs["variant"] == v)]["mptcp"]:
            for sf in json.loads(rec)["subflows"]:
                per.setdefault(sf["interface"], []).append(sf["bytes_received"])
        n = len(runs[(runs["scenario"] == s) & (runs["variant"] == v)])
        kb = ", ".join(f"{i} {sum(b) / n / 1000:.0f}" for i, b in per.items())
        tb = best.loc[s, "transfer_time_s_mean"] if s in best.index else float("nan")
        print(
            f"| {s} | {v} | {r['transfer_time_s_mean']:.3f} | {r['incomplete']} | "
            f"{(r['transfer_time_s_mean'] / tb - 1) * 100:+.1f} % | "
            f"{r['distance_mean'] * 100:+.1f} % | {kb} | {r['mptcp_resume_s_mean']:.2f} | "
            f"{r['mptcp_bytes_retrans_mean']:.0f} |"
        )


def counts(d: Path) -> None:
    """Per MPTCP variant: the scenarios hosting it, where it beats the best TCP variant, plain
    TCP and the oracle, and its ratio to the best TCP variant's time (of the means); then the
    same per handover direction (the variant's name suffixed ``-fast-slow`` / ``-slow-fast``),
    the slow -> fast scenarios' oracle being the system-oracle (`compare.csv`'s `distance`)."""
    t = pd.read_csv(d / "compare.csv", keep_default_na=True)
    t["skipped"] = t["skipped"].fillna("")
    tcp = t[~t["variant"].isin([*REFS, *MP]) & t["transfer_time_s_mean"].notna()]
    best = tcp.loc[tcp.groupby("scenario")["transfer_time_s_mean"].idxmin()].set_index("scenario")
    groups: list[tuple[str, pd.Series]] = [(m, t["variant"] == m) for m in MP]
    for direction in ("fast-slow", "slow-fast"):
        groups += [
            (f"{m}-{direction}", (t["variant"] == m) & (t["direction"] == direction)) for m in MP
        ]
    for name, sel in groups:
        r = t[sel & (t["skipped"] == "")].set_index("scenario")
        done = r[r["transfer_time_s_mean"].notna()]
        vb = done["transfer_time_s_mean"] / best.loc[done.index, "transfer_time_s_mean"] - 1
        skipped = int(sel.sum()) - len(r)
        if vb.empty:
            print(f"{name}: hosted by {len(r)} scenarios (skipped in {skipped}), none completed")
            continue
        print(
            f"{name}: hosted by {len(r)} scenarios (skipped in {skipped}), "
            f"a transfer completed in {len(done)}, some replication incomplete in "
            f"{int((r['incomplete'] > 0).sum())}; beats the best TCP variant in {(vb < 0).sum()}, "
            f"plain TCP in {int((done['gain_vs_plain_mean'] > 0).sum())}, the oracle in "
            f"{int((done['distance_mean'] < 0).sum())}; within 5 % of the oracle in "
            f"{int((done['distance_mean'] <= 0.05).sum())}; vs the best TCP variant: median "
            f"{vb.median() * 100:+.1f} %, best {vb.min() * 100:+.1f} % ({vb.idxmin()}), worst "
            f"{vb.max() * 100:+.1f} % ({vb.idxmax()})"
        )


def thesis_window() -> None:
    p = study_path()
    text = p.read_text(encoding="utf-8")
    base = [*NO_RECORDING, 'run.stop="2000 s"']
    cases = {
        "TCP, 16 KiB": [],
        "mptcp, 16 KiB": ['flow.0.kind="mptcp"'],
        "mptcp, 1 MiB": ['flow.0.kind="mptcp"', 'flow.0.tcp.receive_window="1 MiB"'],
        "mptcp-backup, 16 KiB": [
            'flow.0.kind="mptcp"',
            'flow.0.mptcp.endpoints={gsm=["subflow", "backup"]}',
        ],
    }
    print("| thesis fast-slow, seed 1 | T (s) | bytes per interface (KB) | handover at (s) |")
    print("|---|---|---|---|")
    for name, extra in cases.items():
        r = _native.run_scenario(str(p), text, [*base, *extra], 1, None)
        s = json.loads(r["summary_json"])
        f = s["flows"][0]
        m = f.get("mptcp")
        kb = (
            ", ".join(f"{x['interface']} {x['bytes_received'] / 1000:.0f}" for x in m["subflows"])
            if m
            else "-"
        )
        at = statistics.fmean(h["at_s"] for h in s["handovers"])
        print(f"| {name} | {f['transfer_time_s']:.1f} | {kb} | {at:.2f} |")


def handshake() -> None:
    from vho import compare
    from vho.sweep.spec import toml_literal

    p = compare.plan(variants=["mptcp"], scenarios=["daniel-kojo"], replications=1)
    s = next(x for x in p.scenarios if x.name == "dk-wlan-gprs-200KB-ideal-soft-h5")
    keys = [f"{k}={toml_literal(v)}" for k, v in s.keys.items()]
    print(f"| {s.name}, seed 1 | T (s) |")
    print("|---|---|")
    for name, extra in {
        "the study's TCP (ns2, no handshake)": [],
        "the same, tcp.handshake = true": ["flow.0.tcp.handshake=true"],
        "mptcp": ['flow.0.kind="mptcp"'],
    }.items():
        r = _native.run_scenario(s.base.label, s.base.text, [*NO_RECORDING, *keys, *extra], 1, None)
        print(f"| {name} | {json.loads(r['summary_json'])['flows'][0]['transfer_time_s']:.4f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", help="a vho compare output directory")
    ap.add_argument("--scenarios", help="comma-separated scenario names (default: all)")
    ap.add_argument("--thesis-window", action="store_true")
    ap.add_argument("--handshake", action="store_true")
    a = ap.parse_args()
    if a.handshake:
        handshake()
    if a.thesis_window:
        thesis_window()
    if a.dir:
        summary(Path(a.dir), a.scenarios.split(",") if a.scenarios else None)
        counts(Path(a.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
