"""``compare.md`` and the figure: the issue's questions answered from the table.

- Which candidate (a variant that is not an oracle) comes closest to the oracle in every
  scenario, how close, and where and why it does not reach the goal (within 5 %).
- Per scenario: the best candidate, how far it is from the scenario's oracle, how much it
  beats plain TCP.
- How much each variant beats plain TCP in each scenario.

The figure: the distance of every variant to each scenario's oracle (a heat map, the goal's
cells marked), and the closest candidate's distance per scenario with its 95 % CI.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import files
from .scenarios import SLOW_FAST
from .stats import GOAL, best, closest
from .variants import MPTCP_NAMES

if TYPE_CHECKING:
    from .run import Plan


def _pct(v: float, ci: float | None = None, signed: bool = True) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    s = f"{v * 100:+.1f} %" if signed else f"{v * 100:.1f} %"
    if ci is not None and not math.isnan(ci):
        s += f" ± {ci * 100:.1f}"
    return s


def _s(v: float, ci: float | None = None) -> str:
    if v is None or math.isnan(v):
        return "-"
    return f"{v:.3f}" + (f" ± {ci:.3f}" if ci is not None and not math.isnan(ci) else "")


#: A cell whose variant completed no transfer in the scenario (every replication stopped by
#: run.stop, or failed): nothing to average.
NOT_COMPLETED = "not completed"


def _t(r: pd.Series) -> str:
    """A row's mean transfer time with its CI, or :data:`NOT_COMPLETED`."""
    v = r["transfer_time_s_mean"]
    return NOT_COMPLETED if pd.isna(v) else _s(v, r["transfer_time_s_ci95"])


def _oracle_word(p: Plan, ref: str) -> str:
    if p.system == p.sender:
        return ref
    if ref == p.system.name:
        return f"system ({ref})"
    return f"sender ({ref})"


def write_markdown(
    t: pd.DataFrame, p: Plan, runs: pd.DataFrame, command: str, wall_runs_s: float
) -> str:
    refs = p.references
    codes = {x.name: f"V{i}" for i, x in enumerate(p.variants)}
    by = t.set_index(["scenario", "variant"])
    out = [
        "# vho compare: remedies against the oracle",
        "",
        f"`{command}`: {len(p.scenarios)} scenarios x {len(p.variants)} variants x "
        f"{p.replications} replications = {_count(p, runs)} in {wall_runs_s:.1f} s "
        f"(seeds common from {p.seed}: replication r has one handover instant in every "
        "variant). Every number is a mean over the replications, ± the half-width of its 95 % "
        "CI (Student's t); a ratio is paired, replication by replication. "
        "`compare.csv` holds every metric.",
        "",
        "Distance to the oracle: (T - T_oracle) / T_oracle of the transfer time; a scenario "
        f"is measured against the system-oracle (`{p.system.name}`"
        f") when its handover is slow -> fast and against the sender-oracle (`{p.sender.name}`)"
        " otherwise (the oracles: docs/design/issue-19-oracle.md in vho's source). Beats plain:"
        " (T_plain - T) / T_plain.",
        "",
    ]
    copied = runs[runs["same_as"].notna()]
    if len(copied):
        pairs = copied.groupby(["variant", "same_as"], sort=False)["scenario"].nunique()
        shown = "; ".join(
            f"{v} = {w} in {n} scenario{'s' * (n != 1)}" for (v, w), n in pairs.head(8).items()
        )
        more = f"; and {len(pairs) - 8} more (compare.csv's rows)" if len(pairs) > 8 else ""
        out += [
            f"{len(runs) - len(copied)} runs made; {len(copied)} rows are copies: a variant "
            "whose resolved scenario is another's but for the names of its remedies is the "
            f"same runs (vho.compare.fold): {shown}{more}.",
            "",
        ]
    failed = int(runs["error"].notna().sum())
    if failed:
        first = runs.loc[runs["error"].notna(), "error"].iloc[0]
        out += [f"**{failed} runs failed** and are left out; the first: {first}", ""]
    if p.not_built:
        names = ", ".join(f"`{x.name}`" for x in p.not_built)
        out += [f"Default variants left out (a remedy not in this vho yet): {names}.", ""]
    out += _skipped(p)

    out += ["## The goal: one combination within 5 % of the oracle in every scenario", ""]
    # Against a reference that is not an oracle there is no goal to meet: the distances are
    # to the reference (negative: faster than it), and nothing below says "oracle".
    oracle = all("oracle" in r for r in refs)
    target = "oracle" if oracle else "reference"
    if not oracle:
        shown = " and ".join(f"`{r}`" for r in sorted(refs))
        which = (
            f"references here, {shown}, are" if len(refs) > 1 else f"reference here, {shown}, is"
        )
        out += [
            f"**The {which} not the oracle**: every distance below is to it (negative: faster "
            "than it), and the goal, which is about the oracle, is not judged here.",
            "",
        ]
    c = closest(t, refs)
    if len(c) and math.isnan(c.iloc[0]["worst_distance"]):
        out += [
            f"No candidate has a distance to the {target} in any scenario: in each, the "
            f"candidate or its {target} completed no transfer (the cells '{NOT_COMPLETED}' "
            "below)." + (" The goal is not met." if oracle else ""),
            "",
        ]
    elif len(c):
        top = c.iloc[0]
        met = oracle and top["worst_distance"] <= GOAL and top["within_goal"] == top["scenarios"]
        unknown = int(top["scenarios"] - top["measured"])
        where = (
            "in every scenario"
            if not unknown
            else f"in the {top['measured']} of {top['scenarios']} scenarios where it and its "
            f"{target} completed transfers"
        )
        if oracle:
            out.append(
                f"Closest: **{top['variant']}**, within "
                f"{_pct(top['worst_distance'], signed=False)} of the oracle {where} (worst: "
                f"{top['worst_scenario']}); within 5 % in {top['within_goal']} of "
                f"{top['scenarios']} scenarios. "
                + ("The goal is met." if met else "The goal is not met.")
            )
        else:
            out.append(
                f"Lowest worst distance to the reference: **{top['variant']}**, "
                f"{_pct(top['worst_distance'])} {where} (worst: {top['worst_scenario']})."
            )
        out.append("")
        if oracle and not met:
            row = t[t["variant"] == top["variant"]]
            far = row[~(row["distance_mean"] <= GOAL)].sort_values("distance_mean", ascending=False)
            out += [
                f"Where {top['variant']} is beyond 5 %, beside its oracle (spurious timeouts, "
                "spurious retransmissions, t_a):",
                "",
                "| scenario | distance | T (s) | T oracle (s) | spurious timeouts | oracle's | "
                "spurious retransmissions | oracle's | t_a (s) | oracle's |",
                "|---|---|---|---|---|---|---|---|---|---|",
            ]
            for _, r in far.head(20).iterrows():
                o = by.loc[(r["scenario"], r["reference"])]
                out.append(
                    f"| {r['scenario']} | {_pct(r['distance_mean'], r['distance_ci95'])} | "
                    f"{_t(r)} | {_t(o)} | "
                    f"{_tcp(r, 'spurious_timeouts_mean')} | {_s(o['spurious_timeouts_mean'])} | "
                    f"{_tcp(r, 'spurious_retransmissions_mean')} | "
                    f"{_s(o['spurious_retransmissions_mean'])} | "
                    f"{_s(r['adaptation_time_s_mean'])} | {_s(o['adaptation_time_s_mean'])} |"
                )
            if len(far) > 20:
                out.append(f"| ... {len(far) - 20} more in compare.csv | | | | | | | | | |")
            out.append("")
        out += [
            "Every candidate, closest first:"
            if oracle
            else "Every candidate, by its worst distance to the reference (lowest first):",
            "",
            "| variant | code | worst distance | worst in | within 5 % | mean beats plain |",
            "|---|---|---|---|---|---|",
        ]
        for _, r in c.iterrows():
            skip = f" ({r['skipped']} skipped)" if r["skipped"] else ""
            out.append(
                f"| {r['variant']} | {codes[r['variant']]} | {_pct(r['worst_distance'])} | "
                f"{r['worst_scenario'] or '-'} | {r['within_goal']}/{r['scenarios']}{skip} | "
                f"{_pct(r['mean_gain_vs_plain'])} |"
            )
        out.append("")
        if c["skipped"].any():
            out += [
                "A variant skipped in some scenarios (it cannot run there) comes after those "
                "that run in every one, however close: it is no answer to the goal.",
                "",
            ]

    out += [
        "## Per scenario: the best variant",
        "",
        f"| scenario | direction | {target} | T plain (s) | T {target} (s) | best variant | "
        f"T best (s) | beats plain by | distance to the {target} |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    b = best(t, refs).set_index("scenario")
    for s in p.scenarios:
        plain = by.loc[(s.name, "plain")]  # plain TCP is a row of every plan
        ref = p.system.name if s.direction == SLOW_FAST else p.sender.name
        o = by.loc[(s.name, ref)]
        cells = [
            s.name,
            s.direction,
            _oracle_word(p, ref),
            _t(plain),
            _t(o),
        ]
        if s.name in b.index:
            r = b.loc[s.name]
            cells += [
                r["variant"],
                _s(r["transfer_time_s_mean"], r["transfer_time_s_ci95"]),
                _pct(r["gain_vs_plain_mean"], r["gain_vs_plain_ci95"]),
                _pct(r["distance_mean"], r["distance_ci95"]),
            ]
        else:
            none = NOT_COMPLETED if any(x.name not in refs for x in p.variants) else "no candidate"
            cells += [f"none ({none})"] + ["-"] * 3
        out.append("| " + " | ".join(cells) + " |")
    out.append("")

    shown = [x for x in p.variants if x.name != "plain"]
    out += [
        "## How much each variant beats plain TCP (transfer time, %)",
        "",
        "Codes: " + "; ".join(f"{codes[x.name]} = {x.name}" for x in p.variants) + ".",
        "",
        "| scenario | " + " | ".join(codes[x.name] for x in shown) + " |",
        "|---|" + "---|" * len(shown),
    ]
    unpaired = False
    for s in p.scenarios:
        cells = []
        for x in shown:
            r = by.loc[(s.name, x.name)]
            if r.get("skipped", ""):
                cells.append(SKIPPED)
            elif pd.isna(r["transfer_time_s_mean"]):
                cells.append(NOT_COMPLETED)
            elif pd.isna(r["gain_vs_plain_mean"]):
                cells.append("-")
                unpaired = True
            else:
                cells.append(f"{r['gain_vs_plain_mean'] * 100:+.1f}")
        out.append(f"| {s.name} | " + " | ".join(cells) + " |")
    if unpaired:
        out += ["", "-: no replication where both the variant and plain TCP completed."]
    out += ["", "The figure: `compare.png` / `compare.svg`.", ""]
    out += _mptcp_section(t, p)
    return "\n".join(out)


#: A cell of a variant the scenario cannot host (its reason in the report's "Skipped").
SKIPPED = "skipped"


def _count(p: Plan, runs: pd.DataFrame) -> str:
    """The runs, and those skipped (a scenario that cannot host a variant)."""
    if not p.skipped:
        return f"{len(runs)} runs"
    return f"{len(runs) + len(p.skipped) * p.replications} runs ({len(runs)} run, " + (
        f"{len(p.skipped) * p.replications} skipped)"
    )


def _tcp(r: pd.Series, col: str) -> str:
    """A TCP sender's count, or ``n/a`` on an MPTCP row (not measured there, not zero)."""
    return "n/a" if r["variant"] in MPTCP_NAMES.values() else _s(r[col])


def _skipped(p: Plan) -> list[str]:
    """The (scenario, variant) pairs not run, grouped by variant and reason."""
    if not p.skipped:
        return []
    groups: dict[tuple[str, str], list[str]] = {}
    for (s, x), why in p.skipped.items():
        groups.setdefault((x, why), []).append(s)
    lines = [
        f"**Skipped** ({len(p.skipped)} scenario x variant pairs, not run, `{SKIPPED}` below; "
        "`compare.csv`'s `skipped` column):",
        "",
    ]
    for (x, why), ss in groups.items():
        some = ", ".join(ss[:3]) + (f" and {len(ss) - 3} more" if len(ss) > 3 else "")
        lines.append(f"- `{x}` in {len(ss)} scenario{'s' * (len(ss) != 1)} ({some}): {why}.")
    return [*lines, ""]


def _mptcp_section(t: pd.DataFrame, p: Plan) -> list[str]:
    """Multipath TCP beside the best TCP remedy and the oracle, per scenario that hosts it."""
    mp = [x.name for x in p.variants if x.mptcp]
    if not mp:
        return []
    refs = p.references
    by = t.set_index(["scenario", "variant"])
    tcp = t[~t["variant"].isin([*refs, *mp])]
    bt = best(tcp, set()).set_index("scenario")
    head = " | ".join(f"T {m} (s) | vs best TCP | vs oracle" for m in mp)
    out = [
        "## Multipath TCP beside the best TCP remedy and the oracle",
        "",
        "Per scenario that hosts it: the best TCP variant (the lowest mean transfer time of the "
        "candidates that are not MPTCP), each MPTCP variant's time, its ratio to the best TCP "
        "variant's (T_mptcp / T_best - 1, of the means: negative, MPTCP is faster) and its "
        "paired distance to the scenario's oracle. t_a and the time to resume are the "
        "receiver's, as for TCP; the TCP sender's counts (spurious retransmissions and timeouts, "
        "timeouts) are not measured on an MPTCP connection (n/a, not zero): `compare.csv`'s "
        "`mptcp_bytes_retrans` and `mptcp_resume_s` are its own.",
        "",
        f"| scenario | best TCP | T best TCP (s) | T oracle (s) | {head} |",
        "|---|---|---|---|" + "---|---|---|" * len(mp),
    ]
    shown = 0
    for s in p.scenarios:
        if all(by.loc[(s.name, m)].get("skipped", "") for m in mp):
            continue
        ref = p.system.name if s.direction == SLOW_FAST else p.sender.name
        o = by.loc[(s.name, ref)]
        if s.name in bt.index:
            b = bt.loc[s.name]
            cells = [s.name, b["variant"], _t(b), _t(o)]
            tb = b["transfer_time_s_mean"]
        else:
            cells, tb = [s.name, "none", NOT_COMPLETED, _t(o)], math.nan
        for m in mp:
            r = by.loc[(s.name, m)]
            if r.get("skipped", ""):
                cells += [SKIPPED, "-", "-"]
                continue
            tm = r["transfer_time_s_mean"]
            cells += [_t(r), _pct(tm / tb - 1), _pct(r["distance_mean"], r["distance_ci95"])]
        out.append("| " + " | ".join(cells) + " |")
        shown += 1
    if not shown:
        out.append("| no scenario hosts an MPTCP variant (see Skipped above) |")
    return [*out, ""]


#: Font sizes of the figure, points: tick labels (scenario and variant names) and titles. A row
#: per scenario is as tall as a label needs (ROW_IN inches).
LABEL_PT, TITLE_PT = 9, 10
ROW_IN = 0.2


def figure(t: pd.DataFrame, p: Plan) -> Any:
    """Left: every variant's mean distance to each scenario's oracle (%; green within the goal,
    red from 100 % on; a dot where within the goal). Right: the closest candidate's and plain
    TCP's distance per scenario with the 95 % CI."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    names = [s.name for s in p.scenarios]
    variants = [x.name for x in p.variants]
    by = t.set_index(["scenario", "variant"])
    d = np.array([[by.loc[(s, v), "distance_mean"] for v in variants] for s in names]) * 100
    # Inches: a row per scenario, a column per variant, margins for the names (fixed margins:
    # a layout engine measures every tick label, seconds for a hundred scenarios).
    # About 0.6 of the font size a character at 9 pt: 0.075 in.
    left = 0.3 + 0.075 * max(len(n) for n in names)
    bottom = 0.6 + 0.075 * max(len(v) for v in variants)
    heat_w, bar_w, right_w = ROW_IN * 1.6 * len(variants) + 0.5, 0.15, 4.0
    rows_h = max(2.0, ROW_IN * len(names))
    # The right plot's legend names the closest combination: room for it.
    right_w = max(right_w, 0.4 + 0.075 * max(len(v) for v in variants))
    width = left + heat_w + 0.2 + bar_w + 1.1 + right_w + 0.3
    # Above the plots: the titles and, over the right one, its legend (one entry a line).
    height = bottom + rows_h + 1.4
    fig = plt.figure(figsize=(width, height))

    def box(x: float, w: float) -> list[float]:
        return [x / width, bottom / height, w / width, rows_h / height]

    ax = fig.add_axes(box(left, heat_w))
    cax = fig.add_axes(box(left + heat_w + 0.2, bar_w))
    ax2 = fig.add_axes(box(left + heat_w + 0.2 + bar_w + 1.1, right_w))
    norm = TwoSlopeNorm(vmin=-20, vcenter=GOAL * 100, vmax=100)
    im = ax.imshow(np.clip(d, -20, 100), aspect="auto", cmap="RdYlGn_r", norm=norm)
    within = np.argwhere(d <= GOAL * 100)
    ax.scatter(within[:, 1], within[:, 0], s=8, color="black", marker=".", linewidths=0)
    ax.set_xticks(range(len(variants)), variants, rotation=90, fontsize=LABEL_PT)
    ax.set_yticks(range(len(names)), names, fontsize=LABEL_PT)
    # Against a reference that is not an oracle the figure says so, as compare.md does.
    target = "oracle" if all("oracle" in r for r in p.references) else "reference"
    ax.set_title(f"distance to the {target} (%, mean; dot: within 5 %)", fontsize=TITLE_PT)
    bar = fig.colorbar(im, cax=cax)
    bar.set_label("% (cut at -20 and 100)", fontsize=LABEL_PT)
    bar.ax.tick_params(labelsize=LABEL_PT)
    c = closest(t, p.references)
    y = np.arange(len(names))
    top = c.iloc[0]["variant"] if len(c) else None
    for k, (name, color) in enumerate([(top, "tab:green"), ("plain", "tab:gray")]):
        if name is None or name not in variants:
            continue
        m = np.array([by.loc[(s, name), "distance_mean"] for s in names]) * 100
        e = np.array([by.loc[(s, name), "distance_ci95"] for s in names]) * 100
        ax2.errorbar(
            np.clip(m, -20, 100), y + 0.25 * k, xerr=np.nan_to_num(e), fmt="o", ms=3, lw=0.8,
            color=color, label=name,
        )  # fmt: skip
    ax2.axvline(GOAL * 100, color="black", ls="--", lw=0.8, label="goal: 5 %")
    ax2.set_xlim(-20, 100)
    ax2.set_ylim(len(names) - 0.5, -0.5)
    ax2.set_yticks([])
    ax2.set_xlabel(
        f"distance to the {target} (%),\nmean and 95 % CI (cut at -20, 100)", fontsize=LABEL_PT
    )
    ax2.tick_params(labelsize=LABEL_PT)
    ax2.set_title("closest candidate and plain TCP", fontsize=TITLE_PT, pad=50)
    ax2.grid(alpha=0.3)
    # Above the plot, between it and its title: never over the points.
    ax2.legend(fontsize=LABEL_PT, loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False)
    return fig


def write_figure(t: pd.DataFrame, p: Plan, stem: Path) -> list[Path]:
    """:func:`figure`, written as `stem`.png and `stem`.svg."""
    import matplotlib.pyplot as plt

    fig = figure(t, p)
    paths = []
    try:
        for fmt in ("png", "svg"):
            path = stem.with_suffix(f".{fmt}")
            # Fixed metadata, so that reruns give byte-identical SVGs (as vho.plots).
            meta = {"Date": None} if fmt == "svg" else None
            files.write_atomic(
                path, lambda tmp, f=fmt, m=meta: fig.savefig(tmp, format=f, dpi=100, metadata=m)
            )
            paths.append(path)
    finally:
        plt.close(fig)
    return paths
