"""The design of `vho reproduce daniel-kojo` (Daniel & Kojo 2005, ``001_b31677fe21b9faf1.txt``):
every cell of Tables 3-6 (160 cells, 32 replications each) with one parameter set
(``scenarios/studies/daniel-kojo.toml``); the cases of Figures 1 and 2 re-run at the figures'
instants and over WLAN alone (captured, kept); and the open values moved one at a time over
every cell (``--no-sensitivity`` skips them).

A replication draws the handover's instant in HTime's 1 s window (§5: "uniformly distributed
in a 1 second interval ... 32 replications"): replication r draws the same offset in every
cell (common random numbers), so models and sizes are compared on the same draws.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ... import sweep
from ...errors import VhoError
from ...sweep.spec import Sweep, toml_literal
from ...sweep.summarize import t975
from ..study import Design, Options, Point, study_file
from .paper import MB, cells

#: The study's parameter set as the repository shows it (``vho/data/studies/daniel-kojo.toml``
#: in the package, which is what vho reads, so that an installed vho needs no source tree).
STUDY = "scenarios/studies/daniel-kojo.toml"


def study_path() -> Path:
    """The study's TOML file inside the installed package."""
    return study_file("daniel-kojo.toml")


#: §5: "For each handoff time, 32 replications are done".
REPLICATIONS = 32
#: --quick: a few replications, and the 20 MB rows (Tables 4 and 6) at these HTimes only.
QUICK_REPLICATIONS = 4
#: The sensitivity runs (each open value's alternatives, and the chosen set again) at fewer
#: replications, indexed by --quick: they take ~80 % of the study's time as it is.
SENSITIVITY_REPLICATIONS = {False: 8, True: 1}
QUICK_20MB_HTIMES = (0, 15, 30)
#: The issue's criterion: a cell agrees when ours is within 10 % of the paper's.
TOLERANCE = 0.10

#: The keys every cell sets (see ``overrides``).
COLUMNS = [
    "mobile.start",
    "handover.0.from",
    "handover.0.to",
    "handover.0.at",
    "handover.0.window",
    "handover.0.kind",
    "handover.0.delay",
    "access.wlan.queue_model",
    "access.gprs.queue_model",
    "flow.0.size",
]


@dataclass(frozen=True)
class Alternative:
    """A value tried for an open parameter: its label, the scenario overrides it takes, and
    how it reads HTime (see INSTANTS)."""

    label: str
    overrides: tuple[str, ...] = ()
    instant: str = "centred"


def alt(label: str, *overrides: str, instant: str = "centred") -> Alternative:
    return Alternative(label, overrides, instant)


#: The open values of the paper, each with the alternatives the report tries (the first is
#: the study's choice): (name, what the paper says, alternatives).
OPEN_VALUES: list[tuple[str, str, list[Alternative]]] = [
    ("wired link delay", "not given", [
        alt("22 ms (chosen)"),
        alt("5 ms", 'wired.delay="5 ms"'),
        alt("50 ms", 'wired.delay="50 ms"'),
    ]),
    ("WLAN delay", "2-10 ms (Table 1)", [
        alt("2 ms (chosen)"),
        alt("10 ms", 'access.wlan.delay="10 ms"'),
    ]),
    ("sender/receiver window", "\"adjusted to the delay-bandwidth product\" (§4.1)", [
        alt("40 packets, WLAN's BDP + queue (chosen)"),
        alt("20 packets, ns-2's default window_", 'flow.0.tcp.send_window="20 packets"'),
        # Above GPRS's 22 packets, below where the window stops binding over GPRS (34).
        alt("24 packets", 'flow.0.tcp.send_window="24 packets"'),
        alt("64 packets", 'flow.0.tcp.send_window="64 packets"'),
    ]),
    ("router queues", "Bandwidth*RTT (Table 1), in packets or bytes not said", [
        alt("one BDP of the path, 1500-byte packets (chosen)"),
        alt("both 20 packets (\"same amount of buffers\", §5)",
            'access.wlan.queue="20 packets"', 'access.gprs.queue="20 packets"'),
        # One BDP is 20 packets on WLAN (5 Mb/s x 48 ms) and 11 on GPRS (200 kb/s x 644 ms).
        alt("two BDPs", 'access.wlan.queue="40 packets"', 'access.gprs.queue="22 packets"'),
    ]),
    ("delayed ACKs", "DelAck sink implied by Fig. 1 (\"the effect of delayed acks\")", [
        alt("ns-2 DelAck sink (chosen)"),
        alt("an ACK per segment", "flow.0.tcp.delayed_ack=false"),
    ]),
    ("TCP", "ns-2 TCP Sack (§4.1)", [
        alt("ns-2.35 Sack1 (chosen)"),
        alt("Linux profile", 'flow.0.tcp.profile="linux"'),
        alt("RFC profile", 'flow.0.tcp.profile="rfc"'),
    ]),
    ("what HTime h means", "\"uniformly distributed in a 1 second interval\" (§5)", [
        alt("uniform in [h - 0.5, h + 0.5) from 0 (chosen)"),
        alt("uniform in [h, h + 1)", instant="after"),
        alt("exactly h", instant="exact"),
    ]),
]  # fmt: skip


@functools.cache
def ns2_tcl_args() -> tuple[str, str]:
    """The study's wired delay (seconds) and window (packets) as benches/ns2/dk_wlan_gprs.tcl
    takes them, read from the study's TOML so that the ns-2 side follows it."""
    import tomllib

    study = tomllib.loads(study_path().read_text(encoding="utf-8"))
    delay, unit = study["wired"]["delay"].split()
    # No send_window: ns-2's window_ default, as the ns2 profile's.
    window, wunit = study["flow"][0]["tcp"].get("send_window", "20 packets").split()
    if unit != "ms" or wunit != "packets":
        raise VhoError(f"{STUDY}: expected wired.delay in ms and send_window in packets")
    return f"{float(delay) / 1000:g}", window


@dataclass(frozen=True)
class Cell:
    table: int
    direction: str
    model: str
    size_bytes: int
    htime_s: float
    paper_s: float


def study_cells(quick: bool) -> list[Cell]:
    out = [Cell(*c) for c in cells()]
    if quick:
        out = [c for c in out if c.size_bytes < 20 * MB or c.htime_s in QUICK_20MB_HTIMES]
    return out


#: What HTime h means (§5: "The starting point for each handoff is uniformly distributed in a
#: 1 second interval ... to observe the average behavior in the neighborhood of the chosen
#: point"): the study reads "neighborhood" as centred on h, clipped at 0 (``centred``: uniform
#: in [h - 0.5, h + 0.5) ∩ [0, ∞)). The tables' HTime-0 rows agree: GPRS->WLAN 200 KB takes
#: 0.95 s, longer than over WLAN alone (0.66 s), so the handover is not at 0 exactly, and
#: shorter than with a handover anywhere in the first second. Alternatives in the report:
#: ``after`` ([h, h + 1)) and ``exact`` (h).
INSTANTS = ("centred", "after", "exact")


def instant(h: float, how: str) -> tuple[float, float]:
    """(at, window) in seconds of HTime ``h`` read as ``how`` (see INSTANTS)."""
    if how == "centred":
        at = max(h - 0.5, 0.0)
        return at, h + 0.5 - at
    if how == "after":
        return h, 1.0
    if how == "exact":
        return h, 0.0
    raise ValueError(f"instant: expected one of {INSTANTS}, got {how!r}")


def overrides(c: Cell, how: str = "centred") -> dict[str, Any]:
    """The scenario keys of a cell: direction, handover time and model, transfer size."""
    a, b = c.direction.split("-")
    kind, delay = "soft-reconfigure", 0
    queue_model = "ns2-droptail"
    if c.model == "ideal-hard":
        # §5.1: the old link's queue shrinks to zero at the handover: everything queued lost.
        kind = "hard"
    elif c.model.startswith("delay-"):
        # §5.2: the soft handover, with nothing crossing for N seconds (ns-2's delayer).
        delay = int(c.model.split("-")[1])
        # "the delayer in ns-2" sits between the access link's queue and the link for the
        # whole run and holds one packet of its own (delayer.cc): one packet more of buffer.
        # benches/ns2_handover_models.py, 2 MB delay cells at fixed instants, window 20: without
        # it vho ends 0.50 s after ns-2 where the queue fills during the block; with it 8 ms before
        # (0.8, 1.0, 3.0 s) or 0.21 s before (a delayed-ACK timer tied with a packet; see
        # sched.rs).
        queue_model = "ns2-droptail-delayer"
    at, window = instant(c.htime_s, how)
    return {
        "mobile.start": a,
        "handover.0.from": a,
        "handover.0.to": b,
        "handover.0.at": f"{at:g} s",
        "handover.0.window": f"{window:g} s",
        "handover.0.kind": kind,
        "handover.0.delay": f"{delay} s",
        "access.wlan.queue_model": queue_model,
        "access.gprs.queue_model": queue_model,
        "flow.0.size": f"{c.size_bytes} B",
    }


DRAWS = (
    "the handover's instant, uniformly in HTime h's 1 s window [h - 0.5, h + 0.5) clipped at "
    "0 (§5: 'uniformly distributed in a 1 second interval'); replication r draws the same "
    "offset in every cell (common random numbers); the figures' cases run at their fixed "
    "instants"
)


def cell_name(c: Cell) -> str:
    """A cell as a point's case: ``t3-gprs-wlan-200KB-h0``."""
    size = f"{c.size_bytes // MB}MB" if c.size_bytes >= MB else f"{c.size_bytes // 1000}KB"
    return f"t{c.table}-{c.direction}-{size}-h{c.htime_s:g}"


def _keys(d: dict[str, Any]) -> tuple[str, ...]:
    return tuple(f"{k}={toml_literal(v)}" for k, v in d.items())


#: Figures 1 and 2 re-run (§3.1, §3.2) and WLAN alone (§3.1's 0.65 s, §6.2's overshoot
#: "around 0.7"): (case, direction, instant (None: no handover), size, what the paper says).
FIGURE_CASES: tuple[tuple[str, str, float | None, str, str], ...] = (
    ("fig1", "wlan-gprs", 0.6, "200 KB",
     "12 packets dropped at the handover, a timeout at 0.89 s, 29 unnecessary "
     "retransmissions, transfer complete at 5.2 s (0.65 s over WLAN alone)"),
    ("fig2", "gprs-wlan", 6.0, "200 KB",
     "handover at 6 s (6.2 s in the text), duplicate ACKs from 6.32 s, needless window "
     "reduction, transfer complete at 6.8 s"),
    ("wlan-200KB", "wlan-gprs", None, "200 KB", "200 KB over WLAN alone in 0.65 s"),
    ("wlan-2MB", "wlan-gprs", None, "2 MB", "WLAN's slow start overshoot around 0.7 s"),
)  # fmt: skip


def figure_overrides(direction: str, at: float | None, size: str) -> tuple[str, ...]:
    """A figure case's keys: the direction, the instant (none: after the transfer), the
    size."""
    a, b = direction.split("-")
    return (
        f'mobile.start="{a}"',
        f'handover.0.from="{a}"',
        f'handover.0.to="{b}"',
        f'handover.0.at="{1000 if at is None else at:g} s"',
        'handover.0.window="0 s"',
        f'flow.0.size="{size}"',
    )


def alt_name(name: str, label: str) -> str:
    """A plain variant suffix of an open value's alternative ("sender-receiver-20")."""
    slug = re.sub(r"[^a-z0-9.]+", "-", f"{name.split()[0]} {label.split()[0]}".lower())
    return slug.strip("-")


def design(o: Options) -> Design:
    """Every cell; the figures' cases; and (with ``o.sensitivity``) each open value's
    alternatives over every cell at SENSITIVITY_REPLICATIONS (the chosen values' rows are the
    cells' own first replications: the same seeds)."""
    cs = study_cells(o.quick)
    reps = o.reps or (QUICK_REPLICATIONS if o.quick else REPLICATIONS)
    points = [Point(cell_name(c), c.model, _keys(overrides(c)), reps, measured=False) for c in cs]
    for name, direction, at, size, what in FIGURE_CASES:
        points.append(
            Point(
                name,
                "re-run",
                figure_overrides(direction, at, size),
                1,
                role="comparison",
                keep=1,
                label=what,
            )
        )
    if o.sensitivity:
        sreps = SENSITIVITY_REPLICATIONS[o.quick]
        for name, _, alts in OPEN_VALUES:
            for a in alts:
                if "(chosen)" in a.label:
                    continue
                label = f"{name}: {a.label}"
                for c in cs:
                    points.append(
                        Point(
                            cell_name(c),
                            f"{c.model}~{alt_name(name, a.label)}",
                            (*_keys(overrides(c, a.instant)), *a.overrides),
                            sreps,
                            role="sensitivity",
                            label=label,
                            replaces=c.model,
                            measured=False,
                        )
                    )
    return Design(
        study_file="daniel-kojo.toml",
        points=tuple(points),
        options=o,
        seeds="common",
        draws=DRAWS,
        measure="vho.reproduce.daniel_kojo.measure:figure_case",
        record=('record.pcap=["ch", "mh"]', "record.series=true"),
    )


def cell_of(case: str, cs: list[Cell]) -> Cell | None:
    """The cell a point's case names (None: not a cell)."""
    return next((c for c in cs if cell_name(c) == case), None)


# --- the cells as one sweep (benches/ns2_daniel_kojo.py, dk_profiles.py, dk_window_bounds.py) --


def make_sweep(
    cs: list[Cell], replications: int, seed: int, extra: list[str], how: str = "centred"
) -> Sweep:
    """The cells as one sweep, as the study runs them: common random numbers."""
    path = study_path()
    return Sweep(
        label=str(path),
        text=path.read_text(encoding="utf-8"),
        fixed=list(extra),
        columns=list(COLUMNS),
        points=[overrides(c, how) for c in cs],
        replications=replications,
        seed=seed,
        seeds="common",
        name="daniel-kojo",
    )


def run_sweep(
    s: Sweep, runs_dir: Path, workers: int | None, quiet: bool, desc: str | None = None
) -> pd.DataFrame:
    """Runs a sweep under ``runs_dir/<digest>``; ``desc`` labels its progress bar."""
    out = runs_dir / s.digest()[:16]
    sweep.run(s, out, workers=workers, resume=True, quiet=quiet, desc=desc)
    df = sweep.results(out)
    failed = df[df["error"].notna()]
    if len(failed):
        raise VhoError(f"{out}: {len(failed)} runs failed, first: {failed['error'].iloc[0]}")
    return df


def per_cell(df: pd.DataFrame, cs: list[Cell]) -> pd.DataFrame:
    """Per cell: the mean and 95 % CI of the transfer time (s) and the ground-truth means."""
    rows = []
    for point, g in df.groupby("point", sort=True):
        c = cs[int(point)]
        t = pd.to_numeric(g["transfer_time_s"], errors="coerce")
        done = t.dropna()
        n = len(done)
        sd = float(done.std(ddof=1)) if n > 1 else math.nan
        rows.append(
            {
                "table": c.table,
                "direction": c.direction,
                "model": c.model,
                "size_bytes": c.size_bytes,
                "htime_s": c.htime_s,
                "replications": len(g),
                "incomplete": len(g) - n,
                "ours_mean_s": float(done.mean()) if n else math.nan,
                "ours_ci95_s": t975(n - 1) * sd / math.sqrt(n) if n > 1 else math.nan,
                "paper_s": c.paper_s,
                "spurious_timeouts": g["spurious_timeouts"].mean(),
                "timeouts": g["timeouts"].mean(),
                "spurious_retransmissions": g["spurious_retransmissions"].mean(),
                "retransmissions": g["retransmissions"].mean(),
                "duplicate_acks": g["duplicate_acks"].mean(),
                "out_of_order_deliveries": g["out_of_order_deliveries"].mean(),
                "fast_retransmits": g["fast_retransmits"].mean(),
                "drops": g["drops"].mean(),
                "handover_flush_drops": g["dropped_handover_flush"].mean(),
            }
        )
    out = pd.DataFrame(rows)
    out["rel_diff"] = out["ours_mean_s"] / out["paper_s"] - 1
    return out


TABLE_COLUMNS = [
    "table", "direction", "model", "size_bytes", "htime_s", "replications",
    "ours_mean_s", "ours_ci95_s", "paper_s", "rel_diff",
]  # fmt: skip


def write_csv(df: pd.DataFrame, path: Path, columns: list[str]) -> None:
    """Fixed formats (6 decimals), so that the same seed gives a byte-identical file."""
    tmp = path.parent / f".{path.name}.tmp"
    df[columns].to_csv(tmp, index=False, float_format="%.6f", lineterminator="\n")
    os.replace(tmp, path)


def agreement(t: pd.DataFrame) -> float:
    return float((t["rel_diff"].abs() <= TOLERANCE).mean())
