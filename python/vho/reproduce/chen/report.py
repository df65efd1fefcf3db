"""The report of `vho reproduce chen`: IHN's detection lags, the packets lost at HIGH-to-LOW,
what FRA buys at LOW-to-HIGH, the rates around the handoff, and Figs. 6-9. It only reads: the
runs table and the first replication's kept runs. :func:`evidence` gives vho's side of every
number of the paper, per replication; a difference's cause is named only where a sensitivity
variant shows it (:func:`vho.reproduce.study.causes`)."""

from __future__ import annotations

import math

import pandas as pd

from ..study import Context, Design, causes, column, md_table, mean_of, one, paired, pm
from ..verdict import Evidence, num
from .design import (
    CASES,
    DELIVERED_AFTER_S,
    EHN_B_OFFSET_MS,
    FILL_SHARE,
    LOSS_WINDOW_S,
    TCP,
    TFRC,
    variants,
)
from .figures import figures

HL, LT, LC = "high-low-tfrc", "low-high-tfrc", "low-high-tcp"

#: Claims: (A's point, B's point, measurement, paired over the replications).
CLAIMS = {
    "low-high-tfrc.ihn_fra_faster": ((LT, "ihn-fra"), (LT, "original"), "x_after_bps"),
    "low-high-tfrc.ehn_fra_faster": ((LT, "ehn-fra"), (LT, "original"), "x_after_bps"),
    "low-high-tfrc.ihn_fra_delivers_more": (
        (LT, "ihn-fra"),
        (LT, "original"),
        "delivered_after_bytes",
    ),
    "low-high-tfrc.ehn_fra_delivers_more": (
        (LT, "ehn-fra"),
        (LT, "original"),
        "delivered_after_bytes",
    ),
    "low-high-tcp.ihn_fra_delivers_more": (
        (LC, "ihn-fra"),
        (LC, "original"),
        "delivered_after_bytes",
    ),
    "low-high-tcp.ehn_fra_delivers_more": (
        (LC, "ehn-fra"),
        (LC, "original"),
        "delivered_after_bytes",
    ),
    "high-low-tfrc.ehn_a_cuts_harder": ((HL, "ehn-a"), (HL, "original"), "x_first_s_bps"),
    "high-low-tfrc.ehn_b_cuts_harder": ((HL, "ehn-b"), (HL, "original"), "x_first_s_bps"),
    "high-low-tfrc.ehn_a_same_throughput": (
        (HL, "ehn-a"),
        (HL, "original"),
        "delivered_to_end_bytes",
    ),
    "high-low-tfrc.ehn_b_same_throughput": (
        (HL, "ehn-b"),
        (HL, "original"),
        "delivered_to_end_bytes",
    ),
    "high-low-tfrc.ehn_reduces_losses": ((HL, "ehn-a"), (HL, "original"), "lost_window"),
    "high-low-tfrc.err_reduces_losses": ((HL, "ehn-b"), (HL, "ehn-a"), "lost_window"),
}
#: Numbers read from one point: (point, measurement).
ONE = {
    "low-high-tfrc.ihn_s": ((LT, "ihn-fra"), "ihn_s"),
    "low-high-tfrc.ihn_fra_no_congestion": ((LT, "ihn-fra"), "lost_after_low_high"),
    "low-high-tfrc.ehn_fra_no_congestion": ((LT, "ehn-fra"), "lost_after_low_high"),
    "high-low-tfrc.original_x_final_bps": ((HL, "original"), "x_final_bps"),
    "high-low-tfrc.ehn_a_x_final_bps": ((HL, "ehn-a"), "x_final_bps"),
    "high-low-tfrc.ehn_b_x_final_bps": ((HL, "ehn-b"), "x_final_bps"),
    "high-low-tfrc.original_lost": ((HL, "original"), "lost_window"),
    "high-low-tfrc.ehn_a_lost": ((HL, "ehn-a"), "lost_window"),
    "high-low-tfrc.ehn_b_lost": ((HL, "ehn-b"), "lost_window"),
}


def evidence(runs: pd.DataFrame, design: Design) -> dict[str, Evidence]:
    """vho's side of every number of §5, per replication (common random numbers: replication
    r of every point drew the same start, instant and cross traffic)."""
    out: dict[str, Evidence] = {}
    for key, (a, b, m) in CLAIMS.items():
        out[key] = paired(runs, a, b, m)
    for key, ((case, variant), m) in ONE.items():
        out[key] = one(runs, case, variant, m)
    for case in (LT, LC):
        lag = column(runs, case, "ihn-fra", "ihn_s") - column(runs, case, "ehn-fra", "ehn_s")
        out[f"{case}.ihn_minus_ehn_s"] = Evidence.of(
            lag, note="per replication: the IHN+FRA run's IHN less the EHN+FRA run's EHN"
        )
    a = column(runs, HL, "ehn-a", "lost_window")
    b = column(runs, HL, "ehn-b", "lost_window")
    out["high-low-tfrc.ehn_a_over_ehn_b"] = Evidence.of(a / b, note="per replication")
    return out


def why(ctx: Context) -> dict[str, str]:
    return causes(ctx, evidence)


def body(ctx: Context) -> list[str]:
    """The report's sections between its header and the table of every number."""
    runs = ctx.runs
    figs = figures(ctx)
    lo, hi = LOSS_WINDOW_S
    first = runs[runs["replication"] == 0]
    stop = float(first["simulated_s"].max())
    lines = [
        "## How the paper's runs are run",
        "",
        "The world is `scenarios/studies/chen.toml` (§5, l.129-133): 14 nodes, 100 Mb/s wired "
        "links, the last hop 1xRTT (150 kb/s) <-> 802.11b (5 Mb/s) changed in place, one "
        "application flow from node 1 to node 6 and 16 Pareto flows of 25 Mb/s in all; its "
        "open values are argued in its comments. A run stops at "
        f"{num(stop)} s: the report reads nothing later than the handoff plus two minutes, and "
        "the paper's 600 s before the handoff are kept.",
        "",
        "- *original*: TFRC/TCP Probe with IHN watching but nothing acting on it (so that "
        "IHN's lag is known in both directions);",
        "- *IHN+FRA*, *EHN+FRA* (LOW-to-HIGH): EHN at the handoff (§5.1.1: 'right before it "
        "actually occurred (at the 600th second)');",
        "- *EHN(a)*: told at the handoff, the rate cut to R*C2/C1 then; *EHN(b)*: told "
        f"{EHN_B_OFFSET_MS} ms (the path's base one-way delay) before it, the cut one OWD early "
        "(ERR). The paper's 'EHN(a) ... without ERR' is read as without the *early* cut "
        "(l.182: EHN(a) 'reduced the sending rate more drastically than the original');",
        "- TFRC Probe: " + ", ".join(f"`{o}`" for o in TFRC) + " (ns-2's Agent/TFRC, "
        "the paper's simulator, l.127);",
        "- TCP Probe: " + ", ".join(f"`{o}`" for o in TCP) + " (ns-2's TCP and its "
        "delayed-ACK sink, as the paper; ns-2's window_ lifted).",
        "",
        "## IHN's detection lag (LOW-to-HIGH)",
        "",
        "Seconds after the handoff, from `summary.json`'s `flows[0].probe.detections`; mean and "
        "95 % interval over the replications.",
        "",
        *md_table(
            [
                "protocol",
                "IHN (IHN+FRA)",
                "EHN (EHN+FRA)",
                "IHN - EHN",
                "IHN in the original's runs",
                "distinct lags",
            ],
            [
                [
                    c.protocol.upper() + " Probe",
                    pm(runs, c.name, "ihn-fra", "ihn_s"),
                    pm(runs, c.name, "ehn-fra", "ehn_s"),
                    num(
                        mean_of(runs, c.name, "ihn-fra", "ihn_s")
                        - mean_of(runs, c.name, "ehn-fra", "ehn_s")
                    ),
                    pm(runs, c.name, "original", "ihn_s"),
                    _distinct(runs, c.name, "ihn-fra", "ihn_s"),
                ]
                for c in CASES
                if c.direction == "low-to-high"
            ],
        ),
        "",
        f"At HIGH-to-LOW (not run with IHN in the paper, l.178), IHN in the original's runs "
        f"detects {pm(runs, HL, 'original', 'ihn_s')} s after the handoff.",
        "",
        "## Packets lost during the HIGH-to-LOW handoff (Fig. 9)",
        "",
        f"The application flow's data packets dropped in [handoff {lo:+g} s, handoff {hi:+g} s) "
        "(`series_drops.parquet`; the paper does not say its window); beside it the same "
        "flow's drops in the windows of the same length before (old link) and after (new "
        "link), and the packets TFRC offered beyond 1xRTT's rate from the handoff to the "
        "window's end (the integral of max(X - 150 kb/s, 0)).",
        "",
        *md_table(
            [
                "variant",
                "lost",
                "before",
                "after",
                "offered beyond 150 kb/s",
                "rate before (Mb/s)",
                "distinct counts",
            ],
            [
                [
                    v.label,
                    pm(runs, HL, v.name, "lost_window"),
                    pm(runs, HL, v.name, "lost_before_window"),
                    pm(runs, HL, v.name, "lost_after_window"),
                    pm(runs, HL, v.name, "excess_packets"),
                    num(mean_of(runs, HL, v.name, "rate_before_bps") / 1e6),
                    _distinct(runs, HL, v.name, "lost_window"),
                ]
                for v in variants(CASES[2])
            ],
        ),
        "",
        "## LOW-to-HIGH: what FRA buys (Figs. 6(b), 7(b))",
        "",
        f"Bytes delivered in the {DELIVERED_AFTER_S:g} s after the handoff, the packets lost "
        "in them, and how long after it the delivered rate over 1 s first reached "
        f"{FILL_SHARE:.0%} of 5 Mb/s.",
        "",
        *md_table(
            [
                "case",
                "variant",
                "delivered (MB)",
                "lost",
                "filled after (s)",
                "TFRC's mean X (Mb/s)",
            ],
            [
                [
                    c.name,
                    v.label,
                    num(mean_of(runs, c.name, v.name, "delivered_after_bytes") / 1e6),
                    pm(runs, c.name, v.name, "lost_after_low_high"),
                    pm(runs, c.name, v.name, "fill_s"),
                    num(mean_of(runs, c.name, v.name, "x_after_bps") / 1e6),
                ]
                for c in CASES
                if c.direction == "low-to-high"
                for v in variants(c)
            ],
        ),
        "",
        "## Figures",
        "",
        *(f"![{key}]({path.relative_to(ctx.out)})\n" for key, path in figs.items()),
        "Figs. 6-8: the first replication, 30 s before to 120 s after its handoff; dotted "
        "lines: when each remedy's IHN detected or EHN was told. The sequence panel counts the "
        "packets delivered in order (1000 bytes each), per 0.1 s. Those runs are kept in "
        "`runs/<case>/<variant>/rep-0/`.",
    ]
    return lines


def _distinct(runs: pd.DataFrame, case: str, variant: str, key: str) -> str:
    """How many replications gave distinct values: whether a replication replicates."""
    v = column(runs, case, variant, key).dropna().round(6)
    return f"{v.nunique()} of {len(v)}" if len(v) else "-"


def _finite(x: float) -> bool:
    return x is not None and math.isfinite(x)
