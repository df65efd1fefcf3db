"""The report of `vho reproduce cottingham`: Table 1 beside the paper's, the figures in the
forms of Figs. 5-8, the downward, soft and §6.1 cases, every number from this run's tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from .cottingham import CASES, DOWNWARD, RO_CANDIDATES, SENSITIVITY, STUDY, run_dir
from .cottingham_paper import PAPER_COUNT, ROWS, TA_SHARE_SIGMA, TABLE1


def _f(v: float, digits: int = 0) -> str:
    return "-" if v is None or not np.isfinite(v) else f"{v:,.{digits}f}"


def _table1_md(t: pd.DataFrame, case: str, variant: str) -> list[str]:
    g = t[(t["case"] == case) & (t["variant"] == variant)]
    if not len(g):
        return []
    n = int(g["n"].iloc[0])
    out = [
        f"**{case}**, {n} handovers (the paper's: {PAPER_COUNT[case]}), ms:",
        "",
        "| | mean (paper) | % (paper) | sd (paper) | min (paper) | max (paper) | mean within "
        "the paper's sd |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, label in ROWS.items():
        r = g[g["key"] == key].set_index("stat")
        cells = [
            f"{_f(r.loc[s, 'ours'], 1 if s == 'share' else 0)} "
            f"({_f(r.loc[s, 'paper'], 1 if s == 'share' else 0)})"
            for s in ("mean", "share", "sigma", "min", "max")
        ]
        out.append(f"| {label} | {' | '.join(cells)} | {r.loc['mean', 'within']} |")
    mean = g[g["stat"] == "mean"].set_index("key")["ours"]
    out += [
        "",
        f"The % column is the mean of per-handover shares, as the paper's (l.183: t_a's share "
        f"has its own sd, {TA_SHARE_SIGMA[case]} %); the ratio of the means is "
        f"{_f(100 * mean['t_n'] / mean['total'], 1)} % / "
        f"{_f(100 * mean['t_a'] / mean['total'], 1)} %. sd is the sample standard deviation "
        "(the paper does not say which).",
        "",
    ]
    return out


def _mean(runs: pd.DataFrame, case: str, variant: str, key: str) -> float:
    g = runs[(runs["case"] == case) & (runs["variant"] == variant)]
    return float(pd.to_numeric(g[key], errors="coerce").mean()) if len(g) else float("nan")


def _bars(runs: pd.DataFrame, path: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, (case, fig_no) in zip(axes, (("wlan-gprs", 5), ("lan-gprs", 6)), strict=True):
        g = runs[(runs["case"] == case) & (runs["variant"] == "base")].sort_values("seed")
        g = g.head(PAPER_COUNT[case])
        x = np.arange(1, len(g) + 1)
        ax.bar(x, g["t_n_s"], label="T_n (network)", color="#4c72b0")
        ax.bar(x, g["t_a_s"], bottom=g["t_n_s"], label="t_a (TCP)", color="#dd8452")
        p = TABLE1[case]
        ax.axhline(p["total"][0] / 1e3, color="k", ls="--", lw=1, label="paper: mean total")
        ax.axhline(p["t_n"][0] / 1e3, color="#4c72b0", ls=":", lw=1, label="paper: mean T_n")
        ax.set_title(f"Fig. {fig_no}: {case}, per handover")
        ax.set_xlabel("handover")
        ax.set_xticks(x)
    axes[0].set_ylabel("s")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    written = []
    for ext in ("png", "svg"):
        fig.savefig(path.with_suffix(f".{ext}"))
        written.append(path.with_suffix(f".{ext}").name)
    plt.close(fig)
    return written


def _throughput(stage: Path, case: str, seed: int, name: str) -> str | None:
    """Figs. 7-8: the throughput after the handover of one run, by `vho analyze`."""
    from ..analysis import analyze

    src = run_dir(stage, case, "base", seed)
    if not (src / "mn.pcap").exists():
        return None
    tmp = stage / "figures" / f".analysis-{case}"
    analyze(src / "mn.pcap", ta_mean="after-handover", out_dir=tmp, force=True)
    png = tmp / "throughput_flow0.png"
    if not png.exists():
        return None
    shutil.copy(png, stage / "figures" / f"{name}.png")
    shutil.copy(tmp / "throughput_flow0.svg", stage / "figures" / f"{name}.svg")
    shutil.rmtree(tmp)
    return f"{name}.png"


def _soft_sequences(stage: Path, seed: int) -> list[str]:
    """Fig. 9: the soft handovers' time-sequence graphs at the mobile node, each handover's
    Mobile IPv6 steps marked."""
    import json

    from .. import capture, plots
    from ..runner import mipv6_steps

    src = run_dir(stage, "soft", "base", seed)
    if not (src / "mn.pcap").exists():
        return []
    summary = json.loads((src / "summary.json").read_text())
    df = capture.read_tcp(src / "mn.pcap")
    data, acks = capture.sequence(df)
    steps = mipv6_steps(summary)
    out = []
    for h in summary["handovers"]:
        at = h["at_s"]
        name = f"fig9_soft_{h['from']}_{h['to']}"
        plots.time_sequence(
            data,
            acks,
            stage / "figures" / name,
            title=f"Fig. 9: soft {h['from']} -> {h['to']} at {at:.3f} s, captured at the "
            "mobile node",
            handovers=[at],
            steps=[(t, n) for t, n in steps if at <= t <= at + 8],
            window=(at - 1, at + 8),
            drops=capture.flow_gaps(data),
        )
        out.append(f"{name}.png")
    return out


def write_report(
    stage: Path, runs: pd.DataFrame, t: pd.DataFrame, *, command: str, wall_s: float
) -> None:
    figs = stage / "figures"
    figs.mkdir(exist_ok=True)
    seed = int(runs["seed"].min())
    bars = _bars(runs, figs / "fig5_6_latency_per_handover")
    f7 = _throughput(stage, "wlan-gprs", seed, "fig7_throughput_wlan_gprs")
    f8 = _throughput(stage, "lan-gprs", seed, "fig8_throughput_lan_gprs")
    f9 = _soft_sequences(stage, seed)
    m = lambda case, key, variant="base": _mean(runs, case, variant, key)  # noqa: E731
    lines = [
        "# Cottingham & Vidales: Mobile IPv6 vertical handovers, reproduced",
        "",
        f"`{command}`: {len(runs)} runs in {wall_s:.1f} s of wall time. Parameters: "
        f"`{STUDY}` (every value argued there and in `docs/design/issue-20-sources.md` §5.1). "
        "T_n and its parts come from each run's `summary.json` (the mobile node's signalling "
        "as packets); t_a from each run's capture at the mobile node by `vho analyze "
        "--ta-mean after-handover` (§5's method).",
        "",
        "## Table 1",
        "",
    ]
    for case in TABLE1:
        lines += _table1_md(t, case, "paper-count")
        for v in t[(t["case"] == case) & (t["variant"].str.startswith("n"))]["variant"].unique():
            lines += _table1_md(t, case, v)
    lines += [
        "### Where T_n goes",
        "",
        "| case | t_d | t_c | t_r | of which: BA after the BU | BU to the correspondent after "
        "the BA | first route-optimised packet after that |",
        "|---|---|---|---|---|---|---|",
    ]
    for case in TABLE1:
        bu_ba = m(case, "ba_s") - (m(case, "at_s") + m(case, "t_d_s") + m(case, "t_c_s"))
        lines.append(
            f"| {case} | {_f(m(case, 't_d_s'), 3)} s | {_f(m(case, 't_c_s'), 3)} s | "
            f"{_f(m(case, 't_r_s'), 3)} s | {_f(bu_ba, 3)} s | "
            f"{_f(m(case, 'bu_cn_sent_s') - m(case, 'ba_s'), 3)} s | "
            f"{_f(m(case, 'ba_to_ro_s') - (m(case, 'bu_cn_sent_s') - m(case, 'ba_s')), 3)} s |"
        )
    lines += [
        "",
        "The last column runs from the Binding Update to the correspondent to the first "
        "route-optimised segment at the mobile: the update's way up the GPRS link, the "
        "correspondent's wait for its next segment, and the segment's way down. The "
        "correspondent's segments to the lost WLAN/LAN address are lost until its binding "
        "moves, so it sends again only when its retransmission timer, backed off since the "
        "handover, fires.",
        "",
        f"![Figs. 5-6](figures/{bars[0]})",
        "",
    ]
    for fig, cap in ((f7, "Fig. 7: WLAN -> GPRS"), (f8, "Fig. 8: LAN -> GPRS")):
        if fig:
            lines += [f"![{cap}](figures/{fig})", ""]
    lines += [
        "### What moves the means: one open value at a time",
        "",
        "| case | variant | runs | T_n (paper) | t_a (paper) | timeouts | spurious timeouts |",
        "|---|---|---|---|---|---|---|",
    ]
    for case in TABLE1:
        p = TABLE1[case]
        g0 = runs[(runs["case"] == case) & (runs["variant"] == "base")].sort_values("seed")
        rows = [("the study", g0.head(PAPER_COUNT[case]))]
        for name, what, _ in SENSITIVITY:
            g = runs[(runs["case"] == case) & (runs["variant"] == name)]
            rows.append((f"{name}: {what}", g))
        for label, g in rows:
            if not len(g):
                continue
            lines.append(
                f"| {case} | {label} | {len(g)} | {_f(1e3 * g['t_n_s'].mean())} "
                f"({p['t_n'][0]:.0f} ± {p['t_n'][2]:.0f}) ms | {_f(1e3 * g['t_a_s'].mean())} "
                f"({p['t_a'][0]:.0f} ± {p['t_a'][2]:.0f}) ms | {_f(g['timeouts'].mean(), 1)} | "
                f"{_f(g['spurious_timeouts'].mean(), 1)} |"
            )
    lines += [
        "",
        "## Downward handovers (§6.2: t_a negligible)",
        "",
        "| case | DAD | runs | T_n | t_d | t_c | t_a | timeouts | spurious retransmissions "
        "| cwnd at the new link | its window full after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case in DOWNWARD:
        for variant, dad in (("base", "full"), ("dad-optimistic", "optimistic")):
            n = int(((runs["case"] == case) & (runs["variant"] == variant)).sum())
            if not n:
                continue
            v = lambda key, d=3, variant=variant, case=case: _f(m(case, key, variant), d)  # noqa: E731
            lines.append(
                f"| {case} | {dad} | {n} | {v('t_n_s')} s | {v('t_d_s')} s | {v('t_c_s')} s | "
                f"{v('t_a_s')} s | {v('timeouts', 1)} | {v('spurious_retransmissions', 1)} | "
                f"{_f(m(case, 'cwnd_at_new_link', variant) / 1e3, 1)} KB | "
                f"{v('window_full_after_s')} s |"
            )
    lines += [
        "",
        "The paper's condition for a negligible t_a is a handover shorter than the "
        "correspondent's RTO (l.187): with full DAD the new link's configuration (RFC 4862: "
        "1 s per address) makes T_n longer and the correspondent times out (slow start on the "
        "new link); with optimistic DAD (RFC 4429) it does not. Even without a timeout t_a is "
        "not negligible: the cwnd column is the sender's window when the first packet reached "
        "the new link (fast recovery then halves it), the last column how long its flight "
        "took to reach the most it carried afterwards (the receive window), growing by a "
        "segment per round trip in congestion avoidance. On the LAN, where the throughput is "
        "that window over the round trip, t_a is about that climb; on the WLAN the link's "
        "rate is reached before the window is full, and t_a is shorter.",
        "",
        "## Soft handovers (§6.3, Fig. 9): WLAN -> GPRS at 30 s, GPRS -> WLAN at 50 s",
        "",
        f"Means over {int((runs['case'] == 'soft').sum())} runs: spurious retransmissions "
        f"{_f(m('soft', 'spurious_retransmissions'), 1)}, timeouts {_f(m('soft', 'timeouts'), 1)}"
        f", out-of-order deliveries {_f(m('soft', 'out_of_order_deliveries'), 1)}, D-SACK "
        f"blocks at the mobile {_f(m('soft', 'dsack_blocks'), 1)}; T_n "
        f"{_f(m('soft', 't_n_s'), 3)} s up and {_f(m('soft', 't_n2_s'), 3)} s down.",
        "",
        *[f"![Fig. 9](figures/{f})\n" for f in f9],
        "## §6.1's unexplained LAN time: when route optimisation starts",
        "",
        f"| ro_start | what | runs | T_n (paper {TABLE1['lan-gprs']['t_n'][0]:.0f} ms, sd "
        f"{TABLE1['lan-gprs']['t_n'][2]:.0f}) | BA to the first route-optimised packet | "
        "tunnelled before it |",
        "|---|---|---|---|---|---|",
    ]
    for name, what, _ in RO_CANDIDATES:
        variant = "base" if name == "parallel" else f"ro-{name}"
        g = runs[(runs["case"] == "lan-gprs") & (runs["variant"] == variant)]
        lines.append(
            f"| {name} | {what} | {len(g)} | {_f(1e3 * m('lan-gprs', 't_n_s', variant))} ms | "
            f"{_f(m('lan-gprs', 'ba_to_ro_s', variant), 3)} s | "
            f"{_f(m('lan-gprs', 'tunnelled_before_ro_s', variant), 3)} s |"
        )
    never = runs[(runs["case"] == "lan-gprs") & runs["t_n_s"].isna()]["variant"].unique()
    if len(never):
        lines += [
            "",
            "T_n is `-` where route optimisation never started: with "
            + ", ".join(f"`{v}`" for v in never)
            + " the correspondent keeps its binding to the lost care-of address (nothing tells "
            "it otherwise), sends nothing to the home address, and so nothing ever arrives "
            "tunnelled to start it.",
        ]
    lines += ["", "Cases: " + "; ".join(f"`{c.name}`: {c.title}" for c in CASES) + "."]
    (stage / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
