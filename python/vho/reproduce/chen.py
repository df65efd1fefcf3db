"""Chen, Yang, Sun, Sanadidi & Gerla, ``004_131556780010e7f2.txt``: TFRC Probe and TCP Probe
across a vertical handoff between 1xRTT (150 kb/s) and 802.11b (5 Mb/s) at 600 s of a 1200 s
ns-2 run, with 16 Pareto flows of cross traffic (§5). Its cases re-run with one parameter set
(``scenarios/studies/chen.toml``), replicated over seeds:

- LOW-to-HIGH (§5.1, Figs. 6 and 7), TFRC Probe and TCP Probe: the original, IHN+FRA and
  EHN+FRA; IHN's detection lag against EHN's (the paper: about 15 s and 5 s);
- HIGH-to-LOW (§5.2, Figs. 8 and 9), TFRC Probe: the original, EHN(a) (at the handoff) and
  EHN(b) (one one-way delay before it, ERR); the packets lost around the handoff (the paper:
  about 650, 400 and 200).

Writes, in the output directory (staged: swapped in whole when complete):

- ``table.csv``: ``table,case,variant,key,n,ours_mean,ours_ci95,paper,paper_line``: the
  detection lags and packets lost beside the paper's numbers, and the other measurements;
- ``runs.csv``: every run's measurements;
- ``report.md`` and ``figures/`` (PNG and SVG): Figs. 6-9 from one replication (the base
  seed), and Fig. 9's counts over every replication;
- ``runs/<case>/<variant>/seed-<n>/``: each run's ``vho run`` output (summary, the TFRC or TCP
  sender's series, the probe's estimates, the drops; no queue series), and beside it
  ``received-seed-<n>.parquet``: the application flow's bytes delivered per 0.1 s.

Every run is deterministic given its seed (the Pareto sources draw from it).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .. import files
from ..errors import VhoError
from ..sweep.summarize import t975
from .chen_paper import DETECTION_LAG, HANDOFF_S, PACKETS_LOST, STOP_S

#: The study's parameter set as the repository shows it; the package reads the same file as
#: ``vho/data/studies/chen.toml`` (a symbolic link here, a copy in a wheel).
STUDY = "scenarios/studies/chen.toml"
OWNED = (r"report\.md", r"table\.csv", r"runs\.csv", "runs", "figures")

#: Replications (seeds) per variant. The paper has one run per curve and no intervals; 5
#: seeds give each mean a 95 % interval (t with 4 degrees of freedom), and the 45 runs of 1200
#: simulated seconds took 7 min 11 s on 2 worker processes of a machine shared with other
#: builds (339 s user CPU; `vho reproduce chen --workers 2`, the README's measurement).
REPLICATIONS = 5
#: --quick: 2 seeds of 120 s runs with the handoff at 60 s (for the test).
QUICK_REPLICATIONS = 2
QUICK_STOP_S, QUICK_HANDOFF_S = 120.0, 60.0

#: Fig. 9's "packets lost during the handoff" (l.189), read as the application flow's data
#: packets dropped in [handoff - 1 s, handoff + 30 s). The paper does not say its window. 1 s
#: before catches what EHN(b)'s early cut might lose; 30 s after covers the transient: in vho's
#: runs the drops after a HIGH-to-LOW handoff come within ~10 s and then fall to the new
#: link's background rate (the report gives that rate, measured in the 30 s after the window).
LOSS_WINDOW_S = (-1.0, 30.0)
#: How long after a LOW-to-HIGH handoff the bytes delivered are counted (Figs. 6(b), 7(b):
#: "utilize the increased capacity ... more efficiently ... in terms of ... throughput").
DELIVERED_AFTER_S = 60.0
#: The new link's rate is "filled" when the application's delivered rate over 1 s first
#: reaches this share of 802.11b's 5 Mb/s (vho's measure of how soon FRA pays off).
FILL_SHARE = 0.8
WLAN_BPS, ONEX_BPS = 5e6, 150e3

#: EHN(b) "one OWD before the handoff" (l.180; §4: ERR "one OWD (one-way delay) before the
#: handoff event takes place"): the base one-way delay of a 1040-byte TFRC packet from node 1
#: to node 6 over 802.11b in chen.toml: four 100 Mb/s links of 10 ms (4 x (10 + 0.083) ms) and
#: the 802.11b hop (2 ms + 1.664 ms of serialisation at 5 Mb/s), 44.0 ms; queueing not counted.
EHN_B_OFFSET = "44 ms"

#: The TCP variant of the application flow (§5.1.2): chen.toml's header keys, with ns-2's TCP
#: (the paper's simulator) and its delayed-ACK sink: the probe's "inverted packet pair"
#: (§3.2: segment i+1 sent before i, so that the receiver acknowledges each at once) defeats
#: the delayed ACKs as in the paper; ns-2's window_ of 20 lifted (a sender held by a fixed
#: window makes no pairs; the paper gives no window_).
TCP = (
    'flow.0.kind="tcp"',
    'flow.0.size="10 GB"',
    'flow.0.tcp={profile="ns2", send_window="1000 packets"}',
)
HIGH_LOW = ('mobile.start="wlan"', 'handover.0.from="wlan"', 'handover.0.to="1xrtt"')
#: Every run records the senders' state, the drops and the probe's estimates, not the queues
#: (the 16 Pareto flows would make tens of millions of queue rows).
RECORD = ("record.series=true", "record.queues=false")


def study_path() -> Path:
    """The study's TOML file inside the installed package."""
    return Path(str(resources.files("vho").joinpath("data", "studies", "chen.toml")))


@dataclass(frozen=True)
class Case:
    """A handoff direction and protocol of §5, the figures it redraws."""

    name: str
    title: str
    direction: str
    protocol: str
    overrides: tuple[str, ...]


CASES: tuple[Case, ...] = (
    Case("low-high-tfrc", "LOW-to-HIGH, TFRC Probe (§5.1.1, Fig. 6)", "low-to-high", "tfrc", ()),
    Case("low-high-tcp", "LOW-to-HIGH, TCP Probe (§5.1.2, Fig. 7)", "low-to-high", "tcp", TCP),
    Case(
        "high-low-tfrc",
        "HIGH-to-LOW, TFRC Probe (§5.2, Figs. 8 and 9)",
        "high-to-low",
        "tfrc",
        HIGH_LOW,
    ),
)


@dataclass(frozen=True)
class Variant:
    """A curve of the paper's figures: its name, label and remedies (with any keys)."""

    name: str
    label: str
    overrides: tuple[str, ...]


#: The original TFRC/TCP Probe runs IHN without a response ("ihn" alone: the detection is
#: recorded, nothing acts on it; the runs are otherwise those of "probe" alone, which the
#: test checks), so that IHN's lag is measured in the direction the paper did not run it.
ORIGINAL = Variant("original", "original", ('flow.0.remedies=["probe","ihn"]',))
LOW_HIGH = (
    ORIGINAL,
    Variant("ihn-fra", "IHN+FRA", ('flow.0.remedies=["probe","ihn","fra"]',)),
    # §5.1.1: "EHN was able to foresee the handoff right before it actually occurred (at
    # the 600th second)": the notification at the handoff (the remedy's default, "at").
    Variant("ehn-fra", "EHN+FRA", ('flow.0.remedies=["probe","ehn","fra"]',)),
)
#: §5.2 (l.180): "EHN(a): EHN was generated when the handoff occurred, i.e. without ERR; and
#: EHN(b): EHN was generated one OWD before the handoff, i.e. with ERR". Both cut the rate to
#: R*C2/C1 when told (l.182: "TFRC Probe with EHN(a) and EHN(b) both reduced the sending rate
#: more drastically than the original ... when the handoff occurred"): "without ERR" is read
#: as without the *early* reduction. (EHN with no response at all would be the original: in
#: vho's runs it loses exactly as many packets.)
HIGH_LOW_VARIANTS = (
    ORIGINAL,
    Variant("ehn-a", "EHN(a)", ('flow.0.remedies=["probe","ehn","err"]',)),
    Variant(
        "ehn-b",
        "EHN(b)",
        (
            'flow.0.remedies=["probe","ehn","err"]',
            'handover.0.notify="before"',
            f'handover.0.notify_offset="{EHN_B_OFFSET}"',
        ),
    ),
)


def variants(case: Case) -> tuple[Variant, ...]:
    return HIGH_LOW_VARIANTS if case.direction == "high-to-low" else LOW_HIGH


def timeline(quick: bool) -> tuple[float, float]:
    """(run.stop, handoff) in seconds: the paper's 1200 s and 600 s, or quick mode's."""
    return (QUICK_STOP_S, QUICK_HANDOFF_S) if quick else (STOP_S, HANDOFF_S)


def run_dir(root: Path, case: str, variant: str, seed: int) -> Path:
    return root / "runs" / case / variant / f"seed-{seed}"


def received_path(root: Path, case: str, variant: str, seed: int) -> Path:
    return root / "runs" / case / variant / f"received-seed-{seed}.parquet"


@dataclass(frozen=True)
class Task:
    case: Case
    variant: Variant
    seed: int
    stop_s: float
    handoff_s: float

    def overrides(self) -> list[str]:
        return [
            f'run.stop="{self.stop_s:g} s"',
            f'handover.0.at="{self.handoff_s:g} s"',
            *RECORD,
            *self.case.overrides,
            *self.variant.overrides,
        ]


def plan(quick: bool, seed: int, reps: int) -> list[Task]:
    stop, handoff = timeline(quick)
    return [
        Task(c, v, s, stop, handoff)
        for s in range(seed, seed + reps)
        for c in CASES
        for v in variants(c)
    ]


# ---- What one run measures ----


def detection(summary: dict, by: str, direction: str) -> float:
    """Seconds after the handoff of the first detection ``by`` ihn/ehn of a ``direction``
    handoff (negative: before it), NaN if none."""
    probe = summary["flows"][0].get("probe") or {}
    for d in probe.get("detections", []):
        if d["by"] == by and d["direction"] == direction:
            return float(d["after_handover_s"])
    return math.nan


def count_in(t: pd.Series, lo: float, hi: float) -> int:
    return int(((t >= lo) & (t < hi)).sum())


def fill_time(received: pd.DataFrame, handoff: float) -> float:
    """Seconds after the handoff until the bytes delivered over 1 s first reach FILL_SHARE of
    802.11b's rate (NaN if never)."""
    r = received[received["t_s"] >= handoff - 1e-9]
    if not len(r):
        return math.nan
    per_s = r["bytes"].rolling(10, min_periods=10).sum() * 8.0
    hit = r["t_s"][per_s >= FILL_SHARE * WLAN_BPS]
    # The window of 1 s ends 0.1 s after its last bin's start.
    return float(hit.iloc[0] + 0.1 - handoff) if len(hit) else math.nan


def excess_packets(tfrc: pd.DataFrame, handoff: float, size: int) -> float:
    """TFRC packets sent above 1xRTT's rate from the handoff to the end of the loss window:
    the integral of max(X - 150 kb/s, 0) over time (X piecewise constant between changes),
    in packets of ``size`` bytes. What the sender offers beyond the new link, before its
    queue absorbs some: the cause of the losses that Fig. 9 counts."""
    end = handoff + LOSS_WINDOW_S[1]
    s = tfrc[tfrc["t_s"] < end]
    t = s["t_s"].to_numpy()
    x = s["x_bps"].to_numpy()
    if not len(t):
        return math.nan
    edges = np.append(np.maximum(t, handoff), end)
    widths = np.clip(np.diff(edges), 0.0, None)
    return float((np.clip(x - ONEX_BPS, 0.0, None) * widths).sum() / 8.0 / size)


def equation_bps(size: int, rtt_s: float, p: float) -> float:
    """RFC 5348 §3.1's X_Bps in bit/s, b = 1 and t_RTO = 4R (§4.3's recommendation)."""
    if p <= 0 or rtt_s <= 0:
        return math.inf
    t_rto = 4.0 * rtt_s
    den = rtt_s * math.sqrt(2.0 * p / 3.0) + t_rto * 3.0 * math.sqrt(3.0 * p / 8.0) * p * (
        1.0 + 32.0 * p * p
    )
    return size * 8.0 / den


def fra_exit(tfrc: pd.DataFrame, at: float, size: int) -> tuple[float, float]:
    """At the first report after FRA began at ``at``: (1 if its p is above the p before, the
    rule that ends FRA for TFRC (``tfrc/sender.rs`` fra_step); 1 if the equation's rate for
    its p and R is above X before it, which ended FRA too until it was found to end it before
    any doubling in every run)."""
    before = tfrc[tfrc["t_s"] <= at]
    after = tfrc[tfrc["t_s"] > at]
    if not len(before) or not len(after):
        return math.nan, math.nan
    b, a = before.iloc[-1], after.iloc[0]
    rose = float(a["p"] > b["p"])
    eq = float(equation_bps(size, float(a["rtt_s"]), float(a["p"])) > float(b["x_bps"]))
    return rose, eq


def fra_cut_after(tcp: pd.DataFrame, at: float) -> float:
    """Seconds from TCP's FRA at ``at`` (ssthresh back to its initial value) to the first
    reduction of ssthresh after it (a loss recovery ending the slow start FRA asked for); NaN
    if FRA set nothing or nothing cut it in DELIVERED_AFTER_S."""
    s = tcp[(tcp["t_s"] >= at) & (tcp["t_s"] < at + DELIVERED_AFTER_S)]
    top = s["ssthresh"].cummax()
    raised = s[s["ssthresh"] == s["ssthresh"].max()]
    if not len(raised):
        return math.nan
    after = s[(s["t_s"] >= raised["t_s"].iloc[0]) & (s["ssthresh"] < top)]
    return float(after["t_s"].iloc[0] - at) if len(after) else math.nan


def measure(task: Task, out: Path, r) -> tuple[dict, pd.DataFrame]:
    """One run's row of ``runs.csv``, and its delivered bytes per 0.1 s."""
    s = r.summary
    h = task.handoff_s
    f = s["flows"][0]
    direction = task.case.direction
    drops = r.drops
    app = drops[drops["flow"] == f["name"]]["t_s"] if drops is not None else pd.Series([])
    lo, hi = h + LOSS_WINDOW_S[0], h + LOSS_WINDOW_S[1]
    span = hi - lo
    received = r.throughput.get(f["name"], pd.DataFrame({"t_s": [], "bytes": []}))
    delivered = received[(received["t_s"] >= h) & (received["t_s"] < h + DELIVERED_AFTER_S)]
    before = received[(received["t_s"] >= h - 10.0) & (received["t_s"] < h)]
    row = {
        "case": task.case.name,
        "variant": task.variant.name,
        "seed": task.seed,
        "ihn_s": detection(s, "ihn", direction),
        "ehn_s": detection(s, "ehn", direction),
        "lost_window": count_in(app, lo, hi),
        "lost_before_window": count_in(app, lo - span, lo),
        "lost_after_window": count_in(app, hi, hi + span),
        "lost_run": len(app),
        "delivered_after_bytes": float(delivered["bytes"].sum()),
        "rate_before_bps": float(before["bytes"].sum()) * 8.0 / 10.0,
        "fill_s": fill_time(received, h) if direction == "low-to-high" else math.nan,
        "probe_pairs": (f.get("probe") or {}).get("pairs", 0),
        "events": s["run"]["events"],
        "wall_s": r.wall_s,
    }
    began = row["ehn_s"] if np.isfinite(row["ehn_s"]) else row["ihn_s"]
    fra = direction == "low-to-high" and "fra" in task.variant.name and np.isfinite(began)
    if fra and f["name"] in r.tcp:
        row["fra_cut_after_s"] = fra_cut_after(r.tcp[f["name"]], h + began)
    tfrc_path = out / "series_tfrc.parquet"
    if f.get("tfrc") and tfrc_path.exists():
        row["receiver_lost_run"] = f["tfrc"]["packets_lost"]
        tfrc = pd.read_parquet(tfrc_path)
        row["excess_packets"] = excess_packets(tfrc, h, f["tfrc"]["packet_size"])
        if fra:
            rose, eq = fra_exit(tfrc, h + began, f["tfrc"]["packet_size"])
            row["fra_exit_p_rose"], row["fra_exit_equation"] = rose, eq
    return row, received


def run_one(task: Task, root: Path) -> dict:
    """Runs a task into its directory (in a worker); returns its measurements."""
    from ..runner import run

    out = run_dir(root, task.case.name, task.variant.name, task.seed)
    r = run(study_path(), seed=task.seed, overrides=task.overrides(), out_dir=out)
    row, received = measure(task, out, r)
    received.to_parquet(
        received_path(root, task.case.name, task.variant.name, task.seed), index=False
    )
    return row


def run_all(root: Path, tasks: list[Task], workers: int | None, quiet: bool) -> pd.DataFrame:
    """Every task on ``workers`` local processes (fork: they share the loaded library)."""
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise VhoError(f"--workers: expected an integer >= 1, got {workers}")
    rows = []
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(run_one, t, root) for t in tasks]
        for i, fut in enumerate(futures, 1):
            rows.append(fut.result())
            if not quiet:
                t = tasks[i - 1]
                sys.stderr.write(
                    f"\rchen: run {i}/{len(tasks)} {t.case.name} {t.variant.name} seed {t.seed}  "
                )
    if not quiet:
        sys.stderr.write("\n")
    return pd.DataFrame(rows)


# ---- The table ----


def mean_ci(v: pd.Series) -> tuple[float, float, int]:
    """Mean and half-width of its 95 % confidence interval (t distribution), and n; the
    interval is NaN for fewer than two values."""
    v = pd.to_numeric(v, errors="coerce").dropna()
    n = len(v)
    if n == 0:
        return math.nan, math.nan, 0
    if n == 1:
        return float(v.mean()), math.nan, 1
    return float(v.mean()), t975(n - 1) * float(v.std(ddof=1)) / math.sqrt(n), n


#: The measurements the table gives per (case, variant), besides the paper's rows.
KEYS = (
    "ihn_s",
    "ehn_s",
    "lost_window",
    "lost_before_window",
    "lost_after_window",
    "lost_run",
    "excess_packets",
    "delivered_after_bytes",
    "fill_s",
    "rate_before_bps",
    "probe_pairs",
    "fra_exit_p_rose",
    "fra_exit_equation",
    "fra_cut_after_s",
)


def _row(table, case, variant, key, v, paper=None) -> dict:
    m, ci, n = mean_ci(v)
    return {
        "table": table,
        "case": case,
        "variant": variant,
        "key": key,
        "n": n,
        "ours_mean": m,
        "ours_ci95": ci,
        "paper": math.nan if paper is None else paper.value,
        "paper_line": "" if paper is None else str(paper.line),
    }


def table(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    # IHN's lag behind EHN (l.151, l.164): per seed, the IHN+FRA run's IHN detection minus the
    # EHN+FRA run's EHN detection at the LOW-to-HIGH handoff.
    for c in CASES:
        if c.direction != "low-to-high":
            continue
        g = runs[runs["case"] == c.name]
        ihn = g[g["variant"] == "ihn-fra"].set_index("seed")["ihn_s"]
        ehn = g[g["variant"] == "ehn-fra"].set_index("seed")["ehn_s"]
        rows.append(
            _row("lag", c.name, "ihn-fra", "ihn_minus_ehn_s", ihn - ehn, DETECTION_LAG[c.protocol])
        )
    # Packets lost during the HIGH-to-LOW handoff (l.189).
    g = runs[runs["case"] == "high-low-tfrc"]
    for v in HIGH_LOW_VARIANTS:
        x = g[g["variant"] == v.name]["lost_window"]
        rows.append(_row("lost", "high-low-tfrc", v.name, "lost_window", x, PACKETS_LOST[v.name]))
    # Everything else, per case and variant.
    for (case, variant), g in runs.groupby(["case", "variant"], sort=False):
        for k in KEYS:
            if k in g and g[k].notna().any():
                rows.append(_row("all", case, variant, k, g[k]))
    return pd.DataFrame(rows)


def reproduce(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    seed: int = 1,
    reps: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    force: bool = False,
) -> Path:
    """Runs the study into ``out`` (staged; a non-empty ``out`` that is not this command's
    output is refused unless ``force``); returns the path of ``report.md``. ``reps``: seeds
    per variant (default REPLICATIONS, quick QUICK_REPLICATIONS)."""
    from .chen_report import CaseDesign, Design, write_report

    out = Path(out)
    reps = reps if reps is not None else (QUICK_REPLICATIONS if quick else REPLICATIONS)
    if reps < 1:
        raise VhoError(f"--reps: expected an integer >= 1, got {reps}")
    t0 = time.perf_counter()
    command = "vho reproduce chen" + (" --quick" if quick else "") + f" --reps {reps} --seed {seed}"
    with files.staged_output(out, command="vho reproduce chen", owned=OWNED, force=force) as stage:
        tasks = plan(quick, seed, reps)
        runs = run_all(stage, tasks, workers, quiet)
        t = table(runs)
        files.write_table(runs, stage / "runs.csv")
        files.write_table(t, stage / "table.csv")
        stop, handoff = timeline(quick)
        design = Design(
            cases=tuple(
                CaseDesign(
                    c.name,
                    c.title,
                    c.direction,
                    c.protocol,
                    tuple((v.name, v.label) for v in variants(c)),
                    {v.name: run_dir(stage, c.name, v.name, seed) for v in variants(c)},
                    {v.name: received_path(stage, c.name, v.name, seed) for v in variants(c)},
                )
                for c in CASES
            ),
            loss_window_s=LOSS_WINDOW_S,
            delivered_after_s=DELIVERED_AFTER_S,
            fill_share=FILL_SHARE,
            ehn_b_offset=EHN_B_OFFSET,
            tcp=TCP,
            reps=reps,
            quick=quick,
        )
        write_report(
            stage,
            runs,
            t,
            design=design,
            command=command,
            seed=seed,
            stop_s=stop,
            handoff_s=handoff,
            wall_s=time.perf_counter() - t0,
            workers=workers or os.cpu_count() or 1,
        )
    return out / "report.md"
