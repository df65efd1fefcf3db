"""Running a comparison on the sweep engine, and what it writes.

One sweep per base scenario file (the Daniel & Kojo study, the thesis study, each user file):
its points are scenario x variant, each the scenario's keys plus ``flow.0.remedies``; the
seeds are common (``seeds = "common"``: replication r has one seed at every point), so every
variant of a scenario sees the same handover instant in replication r, and the ratios pair.

``DIR`` (``--out``) holds, when complete:

- ``compare.csv``: a row per scenario and variant (:mod:`vho.compare.stats`'s columns);
- ``compare.md``: the report (:mod:`vho.compare.report`);
- ``compare.png`` / ``compare.svg``: the figure;
- ``compare.json``: what was compared, ``"complete": true`` once the three above are written;
- ``runs/<base>-<digest>/``: each sweep (``sweep.json``, ``results/*.parquet``), resumable.

Everything is checked before anything is written. A run starts by marking ``compare.json``
incomplete and removing the previous report, so an interrupted comparison leaves its runs
(``--resume`` continues them) and no report that looks like its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import files, sweep
from ..errors import OutputError, VhoError
from ..sweep.spec import NO_RECORDING, Sweep, toml_literal
from . import fold as folding
from . import stats
from .scenarios import Base, Scenario, check
from .variants import BASELINE, Interfaces, Variant

MANIFEST = "compare.json"
RUNS = "runs"
#: The report's files; removed when a comparison starts, written when it ends.
REPORT = ("compare.csv", "compare.md", "compare.png", "compare.svg")
#: Files a compare directory may hold (a non-empty --out holding anything else is refused).
OWNED = (MANIFEST, RUNS, *REPORT)

#: Daniel & Kojo §5: "For each handoff time, 32 replications are done".
REPLICATIONS = 32


@dataclass(frozen=True)
class Plan:
    """What a comparison runs: scenarios x variants (the oracles among them), replications."""

    scenarios: list[Scenario]
    variants: list[Variant]
    sender: Variant
    system: Variant
    replications: int
    seed: int
    fixed: tuple[str, ...]
    #: Default variants left out because a remedy of theirs is not in this vho.
    not_built: tuple[Variant, ...] = ()
    #: Per scenario, the mobile's interfaces (for the MPTCP variants; :func:`.scenarios.hosts`).
    ifaces: dict[str, Interfaces] = field(default_factory=dict, compare=False)
    #: (scenario, variant) -> why the scenario cannot host the variant (an MPTCP variant on a
    #: mobile with one interface, or refused by the resolver): not run, named in the report.
    skipped: dict[tuple[str, str], str] = field(default_factory=dict, compare=False)

    @property
    def references(self) -> set[str]:
        return {self.sender.name, self.system.name}

    def keys_of(self, s: Scenario, x: Variant) -> dict:
        """Every key one run of ``x`` on ``s`` sets (the scenario's, then the variant's)."""
        return {**s.keys, **x.override(self.ifaces.get(s.name))}

    def bases(self) -> list[tuple[Base, list[Scenario]]]:
        out: dict[str, tuple[Base, list[Scenario]]] = {}
        for s in self.scenarios:
            out.setdefault(s.base.label, (s.base, []))[1].append(s)
        return list(out.values())

    def sweep_of(
        self, base: Base, scenarios: list[Scenario], same: dict[tuple[str, str], str]
    ) -> LabelledSweep:
        """The sweep of one base: a point per scenario and variant, in that order, but the
        variants in ``same`` (:func:`vho.compare.fold.same_runs`), which are run as another."""
        points, labels = [], []
        for s in scenarios:
            for x in self.variants:
                if (s.name, x.name) in same or (s.name, x.name) in self.skipped:
                    continue
                points.append(self.keys_of(s, x))
                labels.append((s.name, x.name))
        return LabelledSweep(
            label=base.label,
            text=base.text,
            fixed=[*base.fixed, *self.fixed],
            # The keys differ between scenarios (the thesis's cases set different ones): the
            # rows are labelled by scenario and variant instead (see LabelledSweep).
            columns=[],
            points=points,
            replications=self.replications,
            seed=self.seed,
            seeds="common",
            name=base.name,
            labels=labels,
        )


@dataclass
class LabelledSweep(Sweep):
    """A sweep whose result rows carry the names of their scenario and variant as columns
    (``scenario``, ``variant``) instead of the keys each point sets."""

    labels: list[tuple[str, str]] = field(default_factory=list)

    def row_columns(self) -> list[str]:
        return ["scenario", "variant"]

    def row_values(self, point: int) -> tuple[str, str]:
        return self.labels[point]

    def digest(self) -> str:
        """The sweep's digest with the labels: rows labelled otherwise are another sweep's."""
        body = json.dumps([super().digest(), self.labels])
        return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()


def validate(plan: Plan) -> None:
    """Every scenario with plain TCP, and every variant on each base's first scenario, through
    the simulator's checks: a refusal is one line, before anything is written."""
    if plan.replications < 1:
        raise VhoError(f"--replications: expected an integer >= 1, got {plan.replications}")
    for base, scenarios in plan.bases():
        fixed = [*base.fixed, *plan.fixed, *NO_RECORDING]
        for s in scenarios:
            check(s, [*fixed, *_keys(plan, s, BASELINE)])
        for x in plan.variants:
            # Each variant on the base's first scenario that hosts it.
            s = next((s for s in scenarios if (s.name, x.name) not in plan.skipped), None)
            if s is not None:
                check(s, [*fixed, *_keys(plan, s, x)])


def _keys(plan: Plan, s: Scenario, x: Variant) -> list[str]:
    return [f"{k}={toml_literal(v)}" for k, v in plan.keys_of(s, x).items()]


def prepare_out(out: Path, resume: bool) -> None:
    """Refuses, before anything is written, an ``out`` that is a file, holds anything but a
    comparison, or holds runs without ``--resume``."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    if not out.is_dir():
        return
    try:
        names = [p.name for p in out.iterdir()]
    except OSError as e:
        raise files.output_error(out, e, "cannot read the output directory") from None
    stray = [n for n in names if n not in OWNED and not n.startswith(".")]
    if stray:
        raise OutputError(
            f"{out}: not empty and not an output of vho compare (holds {stray[0]!r}); "
            "choose another --out"
        )
    runs = out / RUNS
    if not resume and runs.is_dir() and any(runs.iterdir()):
        raise OutputError(
            f"{out}: already holds vho compare runs; pass --resume to continue (and reuse) "
            "them, or choose another --out"
        )


def _manifest(plan: Plan, complete: bool, extra: dict | None = None) -> str:
    body = {
        "scenarios": [s.name for s in plan.scenarios],
        "variants": [x.name for x in plan.variants],
        "sender_oracle": plan.sender.name,
        "system_oracle": plan.system.name,
        "replications": plan.replications,
        "seed": plan.seed,
        "seeds": "common",
        "set": list(plan.fixed),
        "not_built": [x.name for x in plan.not_built],
        "skipped": [
            {"scenario": s, "variant": x, "reason": r} for (s, x), r in plan.skipped.items()
        ],
        "complete": complete,
        **(extra or {}),
    }
    return json.dumps(body, indent=2) + "\n"


def run_all(
    plan: Plan,
    out: Path,
    *,
    workers: int | None,
    scheduler: str | None,
    quiet: bool,
    same: dict[tuple[str, str], str] | None = None,
) -> pd.DataFrame:
    """Runs (or resumes) every base's sweep; every run as one frame with ``scenario``,
    ``variant`` and ``same_as`` columns. ``same``: variants that are the same runs as another,
    run once (:func:`vho.compare.fold.same_runs`; None: found here)."""
    frames = []
    bases = plan.bases()
    if same is None:
        same = folding.same_runs(plan)
    for i, (base, scenarios) in enumerate(bases, 1):
        sw = plan.sweep_of(base, scenarios, same)
        d = out / RUNS / f"{base.name}-{sw.digest()[:16]}"
        desc = f"{i}/{len(bases)} {base.name}: {len(scenarios)} scenarios x {len(plan.variants)}"
        sweep.run(sw, d, workers=workers, scheduler=scheduler, resume=True, quiet=quiet, desc=desc)
        frames.append(_results(d))
    return folding.expand(pd.concat(frames, ignore_index=True), same)


#: The columns of a run the comparison reads (the others stay in the Parquet parts); ``mptcp``,
#: an MPTCP run's record, becomes :data:`vho.compare.stats.MPTCP_METRICS`.
READ = (
    "task", "replication", "seed", "scenario", "variant", "error", "wall_s", *stats.METRICS,
    "mptcp",
)  # fmt: skip


def _results(d: Path) -> pd.DataFrame:
    """A sweep's rows, only the columns the comparison reads: the whole rows of 60 000 runs
    take seconds to convert, these a fraction of that."""
    parts = sorted((d / "results").glob("part-*.parquet"))
    if not parts:
        df = sweep.results(d)
    else:
        # Part by part: the parts' columns differ when some runs are MPTCP (``mptcp``) and some
        # TCP (the TCP sender's counts), and a part lacking a column reads as nulls there.
        tables = []
        for part in parts:
            have = set(pq.read_schema(part).names)
            tables.append(pq.read_table(part, columns=[c for c in READ if c in have]))
        table = pa.concat_tables(tables, promote_options="permissive")
        df = table.to_pandas().sort_values("task", kind="stable").reset_index(drop=True)
    record = df.pop("mptcp") if "mptcp" in df else pd.Series([None] * len(df), index=df.index)
    values = [stats.mptcp_metrics(r) for r in record]
    for i, m in enumerate(stats.MPTCP_METRICS):
        df[m] = [v[i] for v in values]
    return df


def compare(
    plan: Plan,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    quiet: bool = False,
    command: str = "vho compare",
    fold: bool = True,
) -> tuple[pd.DataFrame, Path]:
    """Runs the comparison into ``out``; returns the table and the report's path."""
    from .report import write_figure, write_markdown

    out = Path(out)
    validate(plan)
    # Resolves every run's scenario: a variant refused on one scenario only is refused here,
    # before anything is written.
    same = folding.same_runs(plan) if fold else {}
    prepare_out(out, resume)
    t0 = time.perf_counter()
    try:
        (out / RUNS).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise files.output_error(out, e, "cannot create the output directory") from None
    files.write_text_atomic(out / MANIFEST, _manifest(plan, False))
    for name in REPORT:
        try:
            (out / name).unlink(missing_ok=True)
        except IsADirectoryError:
            shutil.rmtree(out / name)
    runs = run_all(plan, out, workers=workers, scheduler=scheduler, quiet=quiet, same=same)
    wall_runs = time.perf_counter() - t0
    t = stats.table(
        runs, plan.scenarios, plan.variants, plan.sender, plan.system, skipped=plan.skipped
    )
    files.write_atomic(
        out / "compare.csv",
        lambda p: t.to_csv(p, index=False, float_format="%.6f", lineterminator="\n"),
    )
    write_figure(t, plan, out / "compare")
    md = out / "compare.md"
    files.write_text_atomic(md, write_markdown(t, plan, runs, command, wall_runs))
    failed = int(runs["error"].notna().sum())
    extra = {
        "runs": len(runs),
        "runs_made": int(runs["same_as"].isna().sum()),
        "failed_runs": failed,
        "wall_runs_s": round(wall_runs, 1),
    }
    files.write_text_atomic(out / MANIFEST, _manifest(plan, True, extra))
    return t, md
