"""The sources of `docs/design/mptcp.md`'s and `docs/design/analyze.md`'s MPTCP figures, for
`scripts/doc_numbers.py` (which names them and says which are *full*)."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _s(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


def _kernel_table(at: str | None) -> dict[str, str]:
    """The rows of `benches/mptcp_vs_kernel.py`'s table (``at``: its `--at`, the GPRS -> WLAN
    cells only, their kernel times from `benches/data/emu_kernel_mptcp_gprs_wlan_2s.csv`).
    A cell neither side completes (the run's stop) is counted apart, not as a difference."""
    sys.path.insert(0, str(ROOT / "benches"))
    import mptcp_vs_kernel as bench
    from emu_vs_profile import cells

    out: dict[str, str] = {}
    within = both_incomplete = n = 0
    for size in bench.KERNEL_CSV:
        path = bench.KERNEL_LATE_CSV if at else bench.KERNEL_CSV[size]
        kernel = bench.kernel_times(path)
        for cell in cells(["handover"], [size]):
            if at:
                if not cell.name.startswith("gprs-wlan"):
                    continue
                cell.sets = [*cell.sets, f"handover.0.at={at}"]
                cell.name = f"{cell.name} at {at.replace(' ', '')}"
            r = bench.model_row(cell, kernel.get(cell.name))
            key = cell.name.split(" at ")[0].lower().replace(" ", "_").replace("-", "_")
            num = [r[c] for c in ("kernel_mptcp_s", "model_mptcp_s")]
            k, m = (math.nan if x is None else float(x) for x in num)  # type: ignore[arg-type]
            d = float(r["diff_pct"])  # type: ignore[arg-type]
            resume = r["model_resume_s"]
            done = not (math.isnan(k) and math.isnan(m))
            out |= {
                f"{key}_kernel": "never" if math.isnan(k) else _s(k, 2),
                f"{key}_model": "never" if math.isnan(m) else _s(m, 2),
                f"{key}_diff": f"{d:+.1f} %" if done else "both never",
                f"{key}_reinjected": str(r["model_bytes_retrans"]),
                f"{key}_resume": "-" if resume is None else _s(float(resume), 2),  # type: ignore[arg-type]
            }
            n += 1
            within += abs(d) <= 10
            both_incomplete += not done
    return out | {"cells": str(n), "within10": str(within), "never": str(both_incomplete)}


@cache
def mptcpkernel() -> dict[str, str]:
    """`benches/mptcp_vs_kernel.py`'s table: the MPTCP model's run of each of Daniel & Kojo's
    12 handover cells (deterministic: one run each, the bench's `model_row`) beside the
    kernel's times stored in `benches/data/emu_kernel_*.csv` (well under a second)."""
    return _kernel_table(None)


@cache
def mptcpkernel2s() -> dict[str, str]:
    """`benches/mptcp_vs_kernel.py --only gprs-wlan --at "2 s" --kernel-csv
    benches/data/emu_kernel_mptcp_gprs_wlan_2s.csv`: the GPRS -> WLAN cells with the handover
    after the connection is fully established."""
    return _kernel_table("2 s")


def _opt(x: object, digits: int = 2) -> str:
    return "-" if x is None else _s(float(x), digits)  # type: ignore[arg-type]


@cache
def mptcpblackhole() -> dict[str, str]:
    """`benches/mptcp_vs_kernel.py --blackhole`: the model's run of each blackhole cell
    (WLAN's path blackholed by a link schedule, for good or back 3 s later) beside the
    kernel's median stored in `benches/data/emu_kernel_mptcp_blackhole.csv` and its runs."""
    import csv

    sys.path.insert(0, str(ROOT / "benches"))
    import mptcp_vs_kernel as bench

    with open(bench.KERNEL_BLACKHOLE_CSV, newline="") as fh:
        stored = {r["cell"]: r for r in csv.DictReader(fh)}
    out: dict[str, str] = {}
    within = within5 = n = 0
    for cell in bench.blackhole_cells(list(bench.KERNEL_CSV)):
        k = stored.get(cell.name)
        r = bench.model_row(cell, float(k["mptcp_s"]) if k else None)
        name = cell.name.removeprefix("blackhole ").lower()
        key = name.replace(".", "_").replace("-", "_to_").replace(" ", "_")
        d = float(r["diff_pct"])  # type: ignore[arg-type]
        runs = k["mptcp_runs"].split() if k else []
        out |= {
            f"{key}_kernel": _opt(k["mptcp_s"] if k else None),
            f"{key}_runs": ", ".join(_s(float(x), 2) for x in runs) or "-",
            f"{key}_model": _opt(r["model_mptcp_s"]),
            f"{key}_diff": f"{d:+.1f} %",
            f"{key}_reinjected": str(r["model_bytes_retrans"]),
            f"{key}_resume": _opt(r["model_resume_s"]),
            f"{key}_failback": _opt(r["model_failback_s"]),
            f"{key}_gprs": str(r["model_gprs_bytes"]),
        }
        n += 1
        within += abs(d) <= 10
        within5 += abs(d) <= 5
    return out | {"cells": str(n), "within10": str(within), "within5": str(within5)}


@cache
def mptcpfix() -> dict[str, str]:
    """`benches/mptcp_vs_tshark.py tests/data/mptcp_*.pcap` without tshark: `vho analyze`'s
    MPTCP figures of the committed fixtures against tshark's fields stored beside them
    (``.tshark.csv``), as `tests/test_analyze_mptcp.py` reads them (a second or two)."""
    sys.path.insert(0, str(ROOT / "benches"))
    import mptcp_vs_tshark as peer

    out: dict[str, str] = {}
    for cap in sorted((ROOT / "tests" / "data").glob("mptcp_*.pcap")):
        theirs = peer.tshark_figures(peer.read_csv(cap.with_suffix(".tshark.csv")))
        c = peer.compare(peer.vho_figures(peer.vho_mptcp(cap)), theirs)
        r, rl = c["reinjections_by_fields"], c["reinjected_later_by_fields"]
        key = cap.stem.removeprefix("mptcp_")
        out |= {
            f"{key}_subflows": f"{c['subflows']['vho']}/{c['subflows']['tshark']}",
            f"{key}_segments": f"{c['data_segments']['vho']}/{c['data_segments']['tshark']}",
            f"{key}_dsn_equal": f"{c['dsn_equal']['equal']}/{c['dsn_equal']['of']}",
            f"{key}_mappings": f"{sum(c['mappings_per_subflow']['vho'].values())}/"
            f"{sum(c['mappings_per_subflow']['tshark'].values())}",
            f"{key}_reinjections": f"{r['vho']}/{c['reinjections']['tshark']}",
            f"{key}_reinjected_later": f"{rl['vho']} / {c['reinjected_later']['tshark']}",
            f"{key}_agrees": "agrees" if peer.agrees(c) else "DIFFERS",
        }
    return out


@cache
def mptcpbench() -> dict[str, str]:
    """`python3 benches/compare_mptcp.py --handshake --thesis-window` (seed 1, about a second):
    the setup's cost without a handover, and the thesis's base case as TCP and as MPTCP."""
    import contextlib
    import io

    sys.path.insert(0, str(ROOT / "benches"))
    import compare_mptcp as bench

    def rows(f: Callable[[], None]) -> list[list[str]]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            f()
        lines = buf.getvalue().splitlines()[2:]
        return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]

    (_, tcp), (_, hs), (_, mp) = rows(bench.handshake)
    w = {r[0]: r for r in rows(bench.thesis_window)}

    def kb(case: str, interface: str) -> str:
        per = dict(x.split() for x in w[case][2].split(", "))
        return per[interface]

    ms = 1000 * (float(hs) - float(tcp)), 1000 * (float(mp) - float(tcp))
    return {
        "hs_tcp": tcp,
        "hs_handshake": hs,
        "hs_mptcp": mp,
        "hs_handshake_ms": f"{ms[0]:.0f}",
        "hs_mptcp_ms": f"{ms[1]:.0f}",
        "hs_rest_ms": f"{ms[1] - ms[0]:.0f}",
        "tw_tcp_s": w["TCP, 16 KiB"][1],
        "tw_at": w["TCP, 16 KiB"][3],
        "tw_mptcp_s": f"{float(w['mptcp, 16 KiB'][1]):.0f}",
        "tw_mptcp_wavelan": kb("mptcp, 16 KiB", "wavelan"),
        "tw_mptcp_gsm": kb("mptcp, 16 KiB", "gsm"),
        "tw_1mib_wavelan": kb("mptcp, 1 MiB", "wavelan"),
        "tw_1mib_s": w["mptcp, 1 MiB"][1],
        "tw_backup_wavelan": kb("mptcp-backup, 16 KiB", "wavelan"),
        "tw_backup_s": w["mptcp-backup, 16 KiB"][1],
    }


#: The scenarios of `docs/design/mptcp.md`'s tables, in their order.
MPTCP_DK = [
    f"dk-wlan-gprs-{size}-{model}-h{h}"
    for size in ("200KB", "2MB")
    for h in (0, 1, 3, 5)
    for model in ("ideal-hard", "delay-4")
] + [f"dk-wlan-gprs-20MB-delay-4-h{h}" for h in (0, 1, 3, 5)]
#: The slow -> fast rows quoted (Daniel & Kojo's GPRS -> WLAN), and the thesis's.
MPTCP_DK_SF = [
    f"dk-gprs-wlan-{size}-{model}-h{h}"
    for size in ("200KB", "2MB")
    for h in (0, 1, 3, 5)
    for model in ("ideal-hard", "delay-1")
] + ["thesis-slow-fast"]
MPTCP_THESIS = ["thesis-fast-slow", "thesis-fast-slow-4k", "thesis-fast-slow-536", "thesis-upload"]
MPTCP_WHY = [
    "dk-wlan-gprs-200KB-ideal-soft-h0",
    "dk-wlan-gprs-200KB-ideal-hard-h0",
    "dk-wlan-gprs-2MB-ideal-hard-h3",
    "dk-wlan-gprs-2MB-ideal-soft-h5",
    "dk-wlan-gprs-20MB-ideal-soft-h5",
]


def comparemptcp(d: Path) -> dict[str, str]:
    """`docs/design/mptcp.md`'s `vho compare` figures from the default run's folder ``d``:
    rows of `compare.md`'s Multipath TCP section, `benches/compare_mptcp.py`'s per-scenario
    table and its counts: a *full* source."""
    import contextlib
    import io

    sys.path.insert(0, str(ROOT / "benches"))
    import compare_mptcp as bench
    import pandas as pd

    md = (d / "compare.md").read_text(encoding="utf-8")
    sec = md[md.index("## Multipath TCP beside") :].split("\n## ")[0]
    rows = {ln.split(" | ")[0][2:]: ln for ln in sec.splitlines() if ln.startswith("| dk-")}
    rows |= {ln.split(" | ")[0][2:]: ln for ln in sec.splitlines() if ln.startswith("| thesis")}
    out = {
        "dk_table": "\n".join(rows[x] for x in MPTCP_DK),
        "sf_table": "\n".join(rows[x] for x in MPTCP_DK_SF),
        "thesis_table": "\n".join(rows[x] for x in MPTCP_THESIS),
    }
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        bench.summary(d, MPTCP_WHY)
    why = [ln for ln in buf.getvalue().splitlines() if ln.startswith("| dk-")]
    out["why_table"] = "\n".join(why)
    # The prose beside it: the no-handover cell, the mid-transfer one, and those at HTime 0.
    w = {tuple(c.strip() for c in ln.strip("|").split("|")[:2]): ln for ln in why}
    cell = {k: [c.strip() for c in v.strip("|").split("|")] for k, v in w.items()}

    def per(k: tuple[str, str], interface: str) -> str:
        return dict(x.split() for x in cell[k][6].split(", "))[interface]

    h5, h3 = "dk-wlan-gprs-2MB-ideal-soft-h5", "dk-wlan-gprs-2MB-ideal-hard-h3"
    h0 = [v for k, v in cell.items() if k[0].endswith("-h0")]
    inc = [int(c[3]) for c in h0]
    res = [float(c[7]) for c in h0]
    again = [float(c[8]) / 1000 for c in h0]
    out |= {
        "h5_gprs_kb": per((h5, "mptcp"), "gprs"),
        "h5_again": cell[(h5, "mptcp")][8],
        "h5_t": _s(float(cell[(h5, "mptcp")][2]), 2),
        "h5_best_t": _s(float(rows[h5].split(" | ")[2].split()[0]), 2),
        "h5_vs_best": f"{float(cell[(h5, 'mptcp')][4].split()[0]):+.0f}",
        "h5_backup_gprs_kb": per((h5, "mptcp-backup"), "gprs"),
        "h5_backup_vs_best": cell[(h5, "mptcp-backup")][4].split()[0],
        "h3_gprs_kb": per((h3, "mptcp"), "gprs"),
        "h3_backup_gprs_kb": per((h3, "mptcp-backup"), "gprs"),
        "h3_t": _s(float(cell[(h3, "mptcp")][2]), 1),
        "h3_backup_t": _s(float(cell[(h3, "mptcp-backup")][2]), 1),
        "h0_incomplete": f"{min(inc)} to {max(inc)}",
        "h0_resume": f"{min(res):.1f} to {max(res):.1f}",
        "h0_again_kb": f"{min(again):.0f}-{max(again):.0f}",
    }
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        bench.counts(d)
    pat = re.compile(
        r"^(\S+): hosted by (\d+) scenarios \(skipped in (\d+)\), a transfer completed in "
        r"(\d+), some replication incomplete in (\d+); beats the best TCP variant in (\d+), "
        r"plain TCP in (\d+), the oracle in (\d+); within 5 % of the oracle in (\d+); vs the "
        r"best TCP variant: median (\S+) %, best (\S+) % \((\S+)\), worst (\S+) % \((\S+)\)$"
    )
    for ln in buf.getvalue().splitlines():
        m = pat.match(ln)
        if m is None and ln.endswith(", none completed"):
            continue
        if m is None:
            raise ValueError(f"benches/compare_mptcp.py counts: unexpected line {ln!r}")
        k = m.group(1).replace("-", "_")
        g = m.groups()
        out |= {
            f"{k}_hosted": g[1],
            f"{k}_skipped": g[2],
            f"{k}_completed": g[3],
            f"{k}_incomplete": g[4],
            f"{k}_beats_best": g[5],
            f"{k}_beats_plain": g[6],
            f"{k}_beats_oracle": g[7],
            f"{k}_within5": g[8],
            f"{k}_median": g[9].lstrip("+"),
            f"{k}_best": g[10],
            f"{k}_best_scenario": g[11],
            f"{k}_worst": g[12],
            f"{k}_worst_scenario": g[13],
        }
    t = pd.read_csv(d / "compare.csv", keep_default_na=True)
    t["skipped"] = t["skipped"].fillna("")
    both = (
        t[t["variant"].isin(bench.MP)]
        .groupby("scenario")["skipped"]
        .apply(lambda x: bool((x != "").all()))
    )
    # Slow -> fast: the replications of 32 that never completed, per HTime (`mptcp`).
    sf = t[(t["variant"] == "mptcp") & t["scenario"].str.startswith("dk-gprs-wlan")]
    for h in (0, 1, 3):
        inc = sf[sf["scenario"].str.endswith(f"-h{h}")]["incomplete"].astype(int)
        out[f"sf_h{h}_incomplete"] = (
            str(inc.min()) if inc.min() == inc.max() else f"{inc.min()} to {inc.max()}"
        )
    out["sf_scenarios_dk"] = str(sf["scenario"].nunique())
    return out | {"skip_both": str(int(both.sum()))}
