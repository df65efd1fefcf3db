"""The report of `vho reproduce cottingham`: Table 1 beside the paper's, where T_n goes, the
figures in the forms of Figs. 5-9, the downward and soft cases, the variants that test a cause
(§6.1's unexplained LAN time among them). It only reads: the runs table and the kept runs'
captures (`vho analyze` reads them for Figs. 7-8: an analysis, not a run). :func:`evidence`
gives vho's side of every number, per handover."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..study import Context, Design, causes, column, md_table, mean_of, one, pm
from ..verdict import Evidence, num
from .design import CASES, DOWNWARD, RO_CANDIDATES, SENSITIVITY, TABLE1_CASES
from .paper import PAPER_COUNT, ROWS, TABLE1

#: Table 1's rows: (key, the runs' column in seconds, its share's column).
T1 = (("t_n", "t_n_s", "share_t_n"), ("t_a", "t_a_s", "share_t_a"), ("total", "total_s", None))


def evidence(runs: pd.DataFrame, design: Design) -> dict[str, Evidence]:
    """vho's side of every number: per handover, in ms (Table 1) or percent (its % column)."""
    out: dict[str, Evidence] = {}
    for case in TABLE1_CASES:
        for key, col, share in T1:
            ms = column(runs, case, "base", col) * 1e3
            for stat in ("mean", "sigma", "min", "max"):
                out[f"{case}.{key}.{stat}"] = Evidence.of(ms)
            if share is not None:
                out[f"{case}.{key}.share"] = Evidence.of(column(runs, case, "base", share) * 100)
        out[f"{case}.t_a.share_sigma"] = Evidence.of(column(runs, case, "base", "share_t_a") * 100)
        out[f"{case}.t_n_t_a_corr"] = Evidence.of(
            column(runs, case, "base", "t_n_s"), column(runs, case, "base", "t_a_s"), paired=True
        )

    def welch(a: str, b: str, col: str) -> Evidence:
        return Evidence.of(
            column(runs, a, "base", col), column(runs, b, "base", col), note="two cases: Welch"
        )

    out["lan-gprs.share_t_a_less"] = welch("lan-gprs", "wlan-gprs", "share_t_a")
    out["lan-gprs.t_a_similar"] = welch("lan-gprs", "wlan-gprs", "t_a_s")
    out["lan-gprs.t_n_larger"] = welch("lan-gprs", "wlan-gprs", "t_n_s")
    out["lan-gprs.ba_to_ro_longer"] = welch("lan-gprs", "wlan-gprs", "ba_to_ro_s")
    out["gprs-wlan.t_a_negligible"] = welch("gprs-wlan", "wlan-gprs", "t_a_s")
    out["gprs-lan.t_a_negligible"] = welch("gprs-lan", "lan-gprs", "t_a_s")
    out["soft.t_n_smaller"] = welch("soft", "wlan-gprs", "t_n_s")
    out["soft.drops"] = one(runs, "soft", "base", "drops")
    out["soft.timeouts"] = one(runs, "soft", "base", "timeouts")
    return out


def why(ctx: Context) -> dict[str, str]:
    return causes(ctx, evidence)


def _stats(runs: pd.DataFrame, case: str, col: str, share: str | None) -> dict[str, float]:
    v = column(runs, case, "base", col).dropna() * 1e3
    return {
        "mean": float(v.mean()),
        "share": 100.0
        if share is None
        else float(column(runs, case, "base", share).dropna().mean() * 100),
        "sigma": float(v.std(ddof=1)) if len(v) > 1 else np.nan,
        "min": float(v.min()),
        "max": float(v.max()),
    }


def _table1_md(runs: pd.DataFrame, case: str) -> list[str]:
    n = int(column(runs, case, "base", "t_n_s").notna().sum())
    rows = []
    for key, col, share in T1:
        st = _stats(runs, case, col, share)
        p = TABLE1[case][key]
        rows.append(
            [ROWS[key]]
            + [
                f"{num(st[s], 1 if s == 'share' else 0)} ({num(p[i], 1 if s == 'share' else 0)})"
                for i, s in enumerate(("mean", "share", "sigma", "min", "max"))
            ]
        )
    mean = {key: _stats(runs, case, col, share)["mean"] for key, col, share in T1}
    return [
        f"**{case}**, {n} handovers (the paper's: {PAPER_COUNT[case]}), ms: vho (paper)",
        "",
        *md_table(["", "mean", "%", "sd", "min", "max"], rows),
        "",
        "The % column is the mean of per-handover shares, as the paper's (l.183); the ratio of "
        f"the means is {num(100 * mean['t_n'] / mean['total'], 1)} % / "
        f"{num(100 * mean['t_a'] / mean['total'], 1)} %.",
        "",
    ]


def body(ctx: Context) -> list[str]:
    runs = ctx.runs
    figs = ctx.out / "figures"
    bars = _bars(runs, figs / "fig5_6_latency_per_handover")
    f7 = _throughput(ctx, "wlan-gprs", "fig7_throughput_wlan_gprs")
    f8 = _throughput(ctx, "lan-gprs", "fig8_throughput_lan_gprs")
    f9 = _soft_sequences(ctx)

    def m(case: str, key: str, variant: str = "base") -> float:
        return mean_of(runs, case, variant, key)

    lines = [
        "T_n and its parts come from each run's `summary.json` (the mobile node's signalling "
        "as packets); t_a from each run's capture at the mobile node by `vho analyze "
        "--ta-mean after-handover` (§5's method), in the worker; the captures are then dropped "
        "but for the runs the figures read.",
        "",
        "## Table 1",
        "",
    ]
    for case in TABLE1_CASES:
        lines += _table1_md(runs, case)
    lines += [
        "### Where T_n goes",
        "",
        *md_table(
            [
                "case",
                "t_d",
                "t_c",
                "t_r",
                "BA to the first route-optimised packet",
                "tunnelled before it",
            ],
            [
                [
                    case,
                    *(
                        f"{num(m(case, k), 3)} s"
                        for k in ("t_d_s", "t_c_s", "t_r_s", "ba_to_ro_s", "tunnelled_before_ro_s")
                    ),
                ]
                for case in TABLE1_CASES
            ],
        ),
        "",
        f"![Figs. 5-6](figures/{bars})",
        "",
    ]
    for fig, cap in ((f7, "Fig. 7: WLAN -> GPRS"), (f8, "Fig. 8: LAN -> GPRS")):
        if fig:
            lines += [f"![{cap}](figures/{fig})", ""]
    sens_rows = []
    for case in TABLE1_CASES:
        for variant, what in (("base", "the study"), *((n, w) for n, w, _ in SENSITIVITY)):
            if not len(column(runs, case, variant, "t_n_s")):
                continue
            sens_rows.append(
                [
                    case,
                    what,
                    pm(runs, case, variant, "t_n_s"),
                    pm(runs, case, variant, "t_a_s"),
                    num(m(case, "timeouts", variant), 1),
                    num(m(case, "spurious_timeouts", variant), 1),
                ]
            )
    lines += [
        "## What moves the means: one open value at a time",
        "",
        *md_table(
            ["case", "variant", "T_n (s)", "t_a (s)", "timeouts", "spurious timeouts"], sens_rows
        ),
        "",
        "## Downward handovers (§6.2)",
        "",
        *md_table(
            [
                "case",
                "DAD",
                "T_n (s)",
                "t_a (s)",
                "timeouts",
                "cwnd at the new link (KB)",
                "its window full after (s)",
            ],
            [
                [
                    case,
                    dad,
                    pm(runs, case, v, "t_n_s"),
                    pm(runs, case, v, "t_a_s"),
                    num(m(case, "timeouts", v), 1),
                    num(m(case, "cwnd_at_new_link", v) / 1e3, 1),
                    pm(runs, case, v, "window_full_after_s"),
                ]
                for case in DOWNWARD
                for v, dad in (("base", "full"), ("dad-optimistic", "optimistic"))
                if len(column(runs, case, v, "t_n_s"))
            ],
        ),
        "",
        "## Soft handovers (§6.3, Fig. 9): WLAN -> GPRS at 30 s, GPRS -> WLAN at 50 s",
        "",
        f"Means over {len(column(runs, 'soft', 'base', 't_n_s'))} runs: spurious "
        f"retransmissions {num(m('soft', 'spurious_retransmissions'), 1)}, timeouts "
        f"{num(m('soft', 'timeouts'), 1)}, out-of-order deliveries "
        f"{num(m('soft', 'out_of_order_deliveries'), 1)}, D-SACK blocks at the mobile "
        f"{num(m('soft', 'dsack_blocks'), 1)}, packets lost {num(m('soft', 'drops'), 1)}; T_n "
        f"{num(m('soft', 't_n_s'), 3)} s up and {num(m('soft', 't_n2_s'), 3)} s down.",
        "",
        *[f"![Fig. 9](figures/{f})\n" for f in f9],
        "## §6.1's unexplained LAN time: the correspondent's binding, and when route "
        "optimisation starts",
        "",
        *md_table(
            [
                "variant",
                "what",
                "T_n (s)",
                "BA to the first route-optimised packet (s)",
                "tunnelled before it (s)",
            ],
            [
                [
                    name,
                    what,
                    pm(runs, "lan-gprs", v, "t_n_s"),
                    pm(runs, "lan-gprs", v, "ba_to_ro_s"),
                    pm(runs, "lan-gprs", v, "tunnelled_before_ro_s"),
                ]
                for name, what, _ in RO_CANDIDATES
                for v in ["base" if name == RO_CANDIDATES[0][0] else f"ro-{name}"]
                if len(column(runs, "lan-gprs", v, "t_n_s"))
            ],
        ),
        "",
        "Cases: " + "; ".join(f"`{c.name}`: {c.title}" for c in CASES) + ".",
    ]
    return lines


def _bars(runs: pd.DataFrame, path: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, (case, fig_no) in zip(axes, (("wlan-gprs", 5), ("lan-gprs", 6)), strict=True):
        g = runs[(runs["case"] == case) & (runs["variant"] == "base")].sort_values("replication")
        g = g.head(PAPER_COUNT[case])
        x = np.arange(1, len(g) + 1)
        ax.bar(x, g["t_n_s"], label="T_n (network)", color="#4c72b0")
        ax.bar(x, g["t_a_s"], bottom=g["t_n_s"], label="t_a (TCP)", color="#dd8452")
        p = TABLE1[case]
        ax.axhline(p["total"][0] / 1e3, color="k", ls="--", lw=1, label="paper: mean total")
        ax.axhline(p["t_n"][0] / 1e3, color="#4c72b0", ls=":", lw=1, label="paper: mean T_n")
        ax.set_title(f"Fig. {fig_no}: {case}, the first {len(g)} handovers")
        ax.set_xlabel("handover")
        ax.set_xticks(x)
    axes[0].set_ylabel("s")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(path.with_suffix(f".{ext}"))
    plt.close(fig)
    return path.with_suffix(".png").name


def _throughput(ctx: Context, case: str, name: str) -> str | None:
    """Figs. 7-8: the throughput after the handover of the first run, by `vho analyze`'s
    reading of its capture (the figure `vho analyze` draws of it, alone)."""
    from ... import plots
    from ...analysis import analyze

    src = ctx.kept(case, "base")
    if not (src / "mn.pcap").exists():
        return None
    a = analyze(src / "mn.pcap", ta_mean="after-handover")
    entries = a.raw_entries()
    if not entries:
        return None
    e = entries[0]
    thr = a.throughput(e["index"])
    if len(thr) < 2:
        return None
    at = a.metrics["handover"]["at_s"]
    plots.throughput_adaptation(
        thr,
        ctx.out / "figures" / name,
        handover_at=at,
        mean_bps=e["adaptation_time_by_mean"][e["ta_mean"]]["mean_bps"],
        adaptation_time_s=e["adaptation_time_s"],
        t_a_from=e["first_after_handover_s"],
        title=f"{case}: throughput per 0.1 s interval after the handover (Cottingham & "
        "Vidales §5), the first run",
        handovers=[at],
    )
    return f"{name}.png"


def _soft_sequences(ctx: Context) -> list[str]:
    """Fig. 9: the soft handovers' time-sequence graphs at the mobile node, each handover's
    Mobile IPv6 steps marked."""
    from ... import capture, plots
    from ...runner import mipv6_steps

    src = ctx.kept("soft", "base")
    if not (src / "mn.pcap").exists():
        return []
    summary = json.loads((src / "summary.json").read_text())
    data, acks = capture.sequence(capture.read_tcp(src / "mn.pcap"))
    steps = mipv6_steps(summary)
    out = []
    for h in summary["handovers"]:
        at = h["at_s"]
        name = f"fig9_soft_{h['from']}_{h['to']}"
        plots.time_sequence(
            data,
            acks,
            ctx.out / "figures" / name,
            title=f"Fig. 9: soft {h['from']} -> {h['to']} at {at:.3f} s, captured at the "
            "mobile node",
            handovers=[at],
            steps=[(t, n) for t, n in steps if at <= t <= at + 8],
            window=(at - 1, at + 8),
            drops=capture.flow_gaps(data),
        )
        out.append(f"{name}.png")
    return out
