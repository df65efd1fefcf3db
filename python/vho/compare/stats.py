"""The comparison's numbers: per scenario and variant, each metric's mean and 95 % CI over the
replications, and two *paired* ratios, replication by replication (the seeds are common, so
replication r has the same handover instant in every variant):

- the gain over plain TCP, ``(T_plain - T_variant) / T_plain``;
- the distance to an oracle, ``(T_variant - T_oracle) / T_oracle`` (the digest §4 point 5),
  to the sender-oracle and to the system-oracle, and ``distance`` to the one the scenario's
  direction names (system on slow -> fast, sender otherwise).

A replication where either transfer did not complete pairs with nothing. The CI is Student's
t on the paired differences (``vho.sweep.summarize.t975``), as ``vho sweep summarize``'s.

An MPTCP variant's rows (issue 39 item 5) have the transfer time and t_a (both the receiver's:
the connection's in-order delivery, whichever subflow brought it) and the ratios; the TCP
sender's counts (:data:`TCP_ONLY`: spurious retransmissions and timeouts, timeouts) are NaN
there, not zero: a connection of subflows has no one sender to count them on. Its own counts
are :data:`MPTCP_METRICS`, NaN on TCP rows. A (scenario, variant) the scenario cannot host is
a row of NaNs with its reason in ``skipped``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from ..sweep.summarize import t975
from .scenarios import SLOW_FAST, Scenario
from .variants import BASELINE, Variant

#: The metrics of the table (issue 19, item 5), as the run summaries name them.
METRICS = (
    "transfer_time_s",
    "spurious_retransmissions",
    "spurious_timeouts",
    "timeouts",
    "adaptation_time_s",
)

#: The TCP sender's counts: not measured on an MPTCP connection (NaN there).
TCP_ONLY = ("spurious_retransmissions", "spurious_timeouts", "timeouts")

#: An MPTCP connection's own numbers (``flows[].mptcp`` of its summary, read by
#: :func:`mptcp_metrics`): data-level bytes sent again (``mptcpi_bytes_retrans``: reinjected
#: or resent by the connection's timer) and the time to resume after the first handover
#: (from it to in-order progress by data over another interface than the one lost).
MPTCP_METRICS = ("mptcp_bytes_retrans", "mptcp_resume_s")

#: The issue's goal: one combination within 5 % of the oracle in every scenario.
GOAL = 0.05


def mean_ci(x: pd.Series | np.ndarray) -> tuple[float, float, int]:
    """Mean, half-width of the 95 % CI (NaN below two values) and n of the finite values."""
    a = np.asarray(pd.to_numeric(pd.Series(x), errors="coerce"), dtype=float)
    a = a[np.isfinite(a)]
    n = len(a)
    if n == 0:
        return math.nan, math.nan, 0
    if n == 1:
        return float(a[0]), math.nan, 1
    return float(a.mean()), t975(n - 1) * float(a.std(ddof=1)) / math.sqrt(n), n


def _grouped(values: pd.Series, by: list[pd.Series] | pd.Series) -> pd.DataFrame:
    """Per group, the mean and 95 % CI half-width of the finite values (as :func:`mean_ci`)."""
    v = pd.to_numeric(values, errors="coerce").astype(float)
    v = v.where(np.isfinite(v))
    g = v.groupby(by, sort=False)
    n, mean, std = g.count(), g.mean(), g.std(ddof=1)
    t = n.map(lambda k: t975(int(k) - 1) if k > 1 else math.nan)
    return pd.DataFrame({"mean": mean, "ci95": t * std / np.sqrt(n.where(n > 1))})


def mptcp_metrics(record: object) -> tuple[float, float]:
    """:data:`MPTCP_METRICS` from a run's ``mptcp`` cell (the flow's ``flows[].mptcp``, as JSON
    text in the sweep's rows); NaN for a TCP run's (None) or a missing figure."""
    if not isinstance(record, str):
        return math.nan, math.nan
    m = json.loads(record)
    hs = m.get("handovers") or []
    resume = hs[0].get("resume_s") if hs else None
    return float(m.get("bytes_retrans", math.nan)), math.nan if resume is None else float(resume)


def table(
    df: pd.DataFrame,
    scenarios: list[Scenario],
    variants: list[Variant],
    sender: Variant,
    system: Variant,
    skipped: dict[tuple[str, str], str] | None = None,
) -> pd.DataFrame:
    """One row per scenario and variant (in their orders), see the module doc. ``df``: every
    run, with ``scenario``, ``variant`` and ``replication`` columns beside the metrics;
    ``skipped``: (scenario, variant) -> why it was not run."""
    names = [x.name for x in variants]
    index = pd.MultiIndex.from_product([[s.name for s in scenarios], names])
    ok = df[df["error"].isna()]
    keys = [ok["scenario"], ok["variant"]]
    out = pd.DataFrame(index=index)
    direction = {s.name: s.direction for s in scenarios}
    out["direction"] = [direction[s] for s, _ in index]
    ref = {s.name: (system if s.direction == SLOW_FAST else sender).name for s in scenarios}
    out["reference"] = [ref[s] for s, _ in index]
    out["replications"] = df.groupby(["scenario", "variant"]).size().reindex(index).fillna(0)
    out["failed"] = out["replications"] - ok.groupby(keys).size().reindex(index).fillna(0)
    t = pd.to_numeric(ok["transfer_time_s"], errors="coerce")
    out["incomplete"] = t.isna().groupby(keys).sum().reindex(index).fillna(0)
    for m in (*METRICS, *MPTCP_METRICS):
        st = _grouped(ok[m], keys).reindex(index) if m in ok else None
        out[f"{m}_mean"] = st["mean"] if st is not None else math.nan
        out[f"{m}_ci95"] = st["ci95"] if st is not None else math.nan
    # Paired: transfer time by (scenario, replication), a column per variant.
    wide = (
        ok.assign(t=t)
        .pivot_table(
            index=["scenario", "replication"], columns="variant", values="t", aggfunc="first"
        )
        .reindex(columns=names)
    )
    per_ref = wide.index.get_level_values("scenario").map(ref)
    own = wide.to_numpy()
    plain = wide[BASELINE.name].to_numpy()[:, None]
    pick = np.array([names.index(r) for r in per_ref], dtype=int)
    oracle = own[np.arange(len(own)), pick][:, None]
    ratios = {
        "gain_vs_plain": (plain - own) / plain,
        "distance_sender": own / wide[sender.name].to_numpy()[:, None] - 1,
        "distance_system": own / wide[system.name].to_numpy()[:, None] - 1,
        "distance": own / oracle - 1,
    }
    for col, r in ratios.items():
        frame = pd.DataFrame(r, index=wide.index, columns=pd.Index(names, name="variant"))
        long = frame.stack(future_stack=True)
        lv = long.index.get_level_values
        st = _grouped(long, [lv("scenario"), lv("variant")]).reindex(index)
        out[f"{col}_mean"], out[f"{col}_ci95"] = st["mean"], st["ci95"]
    out.index.names = ["scenario", "variant"]
    out = out.reset_index()
    out.insert(1, "direction", out.pop("direction"))
    for c in ("replications", "failed", "incomplete"):
        out[c] = out[c].astype(int)
    pairs = zip(out["scenario"], out["variant"], strict=True)
    out["skipped"] = [(skipped or {}).get(k, "") for k in pairs]
    return out


def best(t: pd.DataFrame, references: set[str]) -> pd.DataFrame:
    """Per scenario, the row of the candidate (not an oracle) with the lowest mean transfer
    time; ties to the first in variant order. A scenario where no candidate completed a
    transfer has no row."""
    cand = t[~t["variant"].isin(references) & t["transfer_time_s_mean"].notna()]
    idx = cand.groupby("scenario", sort=False)["transfer_time_s_mean"].idxmin()
    return cand.loc[idx.astype(int)]


def closest(t: pd.DataFrame, references: set[str]) -> pd.DataFrame:
    """Per candidate variant: its worst (largest) mean distance to the scenario's oracle over
    every scenario, the scenario where it is, in how many scenarios it is within GOAL and in
    how many its distance is known (``measured``: it and its oracle completed transfers), in
    how many it was ``skipped`` (the scenario cannot host it); sorted, closest first, those
    skipped somewhere last. A scenario where its distance is unknown counts as not within."""
    cand = t[~t["variant"].isin(references)]
    rows = []
    for name, g in cand.groupby("variant", sort=False):
        d = g["distance_mean"]
        worst = d.idxmax() if d.notna().any() else None
        rows.append(
            {
                "variant": name,
                "worst_distance": float(d.max()) if worst is not None else math.nan,
                "worst_scenario": g.loc[worst, "scenario"] if worst is not None else "",
                "within_goal": int((d <= GOAL).sum()),
                "measured": int(d.notna().sum()),
                "scenarios": len(g),
                "mean_gain_vs_plain": float(g["gain_vs_plain_mean"].mean()),
                "skipped": int((g["skipped"] != "").sum()) if "skipped" in g else 0,
            }
        )
    columns = ["variant", "worst_distance", "worst_scenario", "within_goal", "measured"]
    columns += ["scenarios", "mean_gain_vs_plain", "skipped"]
    out = pd.DataFrame(rows, columns=columns)  # the columns also when every variant is a reference
    # A variant some scenarios cannot host is no answer to "one combination for every
    # scenario": after those that run everywhere, however close.
    out["_partial"] = out["skipped"] > 0
    return (
        out.sort_values(
            ["_partial", "worst_distance", "mean_gain_vs_plain"],
            ascending=[True, True, False],
            kind="stable",
        )
        .drop(columns="_partial")
        .reset_index(drop=True)
    )
