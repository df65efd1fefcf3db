"""The shape of every reproduction: a design, runs made by the sweep engine, and a report that
only reads the runs.

A study is a folder ``vho/reproduce/<name>/`` of data and small functions, gathered in one
:class:`Study`:

- ``paper.py``: the paper's numbers as data (:class:`vho.reproduce.verdict.PaperNumber`), every
  number it gives, each with its source and words; one vho cannot measure says why;
- ``design.py``: ``design(options) -> Design``: the cases and variants as :class:`Point`\\ s
  (overrides on the study's scenario file, replications, the runs the report reads kept),
  what each replication draws, and the seed policy;
- ``measure.py`` (when the summary is not enough): what one run measures, called in the
  worker on the run's output directory (:class:`vho.sweep.spec.Measure`);
- ``report.py``: ``evidence(runs, design)``: vho's side of every paper number from the runs
  table; ``body(ctx)``: the report's sections, from the runs table and the kept runs' files.

:func:`reproduce` does the rest the same way for every study: the runs on the sweep engine
(local workers, or a Dask cluster with ``scheduler``), in a directory beside the output that a
killed run resumes (``.vho-runs-<out>-<key>``, the key a hash of the runs, vho's version and
commit and the study's files); ``runs.csv`` (one row per run: the labels, the summary's
metrics and the measurements); ``table.csv`` (one row per paper number, judged by
:mod:`vho.reproduce.verdict`); ``report.md``, stamped (vho's version, the commit, the study
file's hash, the command line) and opening with "N of M paper numbers agree by the rule"; all
staged and swapped in whole (:func:`vho.files.staged_output`). The runs directory moves into
the output as ``runs/`` (the sweep's Parquet results and the kept runs' directories).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import files
from ..errors import VhoError
from ..runner import identity
from . import verdict as vd

#: What every study writes: a directory holding only these is a previous output.
OWNED = (r"report\.md", r"[a-z0-9_-]+\.csv", "runs", "figures")


@dataclass(frozen=True)
class Point:
    """One case of a study run with one variant: its overrides on the study's scenario file,
    its replications, and what the worker does with each run.

    ``role`` is ``study`` (the paper's cases and the comparison rows) or ``sensitivity``
    (a variant run that shows a cause; skipped with ``--no-sensitivity``). ``params`` go to
    the study's measure function. ``keep``: the first replications whose run directories
    the report reads (captures, series for figures); ``--keep-captures`` keeps them all.
    ``text``: another scenario text than the study file's."""

    case: str
    variant: str
    overrides: tuple[str, ...] = ()
    replications: int = 1
    role: str = "study"
    params: tuple[tuple[str, Any], ...] = ()
    keep: int = 0
    text: str | None = None
    #: What the variant is, as the report names it.
    label: str = ""
    #: A sensitivity point: the variant of its case it stands in for (see :func:`causes`).
    replaces: str = ""
    #: Whether the design's measure function measures its runs (False: the summary alone,
    #: recording off, as a plain sweep: the fast path).
    measured: bool = True

    @property
    def runs_dir(self) -> str:
        """Where its kept runs are, relative to the output: ``runs/<case>/<variant>``."""
        return f"runs/{self.case}/{self.variant}"


@dataclass(frozen=True)
class Options:
    """The command's options a design depends on."""

    quick: bool = False
    seed: int = 1
    #: Replications per point of the paper's cases (None: the study's own).
    reps: int | None = None
    sensitivity: bool = True


@dataclass(frozen=True)
class Design:
    """A study's runs: the points, the seed policy (``common`` and ``sequential`` give common
    random numbers: replication r draws the same at every point), what a replication draws
    (a sentence the report states), the study's scenario file (``vho/data/studies/``), keys
    set at every point, and the measure function (``module:name``) with what its runs
    record; ``facts``: the design's values the report states (windows, offsets)."""

    study_file: str
    points: tuple[Point, ...]
    options: Options
    seeds: str
    draws: str
    fixed: tuple[str, ...] = ()
    measure: str | None = None
    record: tuple[str, ...] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)
    #: What replication r of a point draws that its scenario cannot draw from the seed, as
    #: overrides (a flow's start, a handover's instant): a function of the point and r, the
    #: same r drawing the same at every point (None: the seed draws everything).
    draw: Callable[[Point, int], tuple[str, ...]] | None = None
    #: Prefixes of the runs table's columns ``runs.csv`` leaves out (the summary's metrics of
    #: flows no number reads: Chen's 16 Pareto flows).
    drop_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        seen = set()
        for p in self.points:
            if (p.case, p.variant) in seen:
                raise ValueError(f"{self.study_file}: point {p.case}/{p.variant} twice")
            seen.add((p.case, p.variant))
            if p.case in ("results",) or "/" in p.case or "/" in p.variant:
                raise ValueError(f"{self.study_file}: a point's names must be plain: {p}")

    @property
    def path(self) -> Path:
        """The study's scenario file inside the installed package."""
        return study_file(self.study_file)

    def point(self, case: str, variant: str) -> Point:
        for p in self.points:
            if p.case == case and p.variant == variant:
                return p
        raise KeyError(f"{case}/{variant}")

    def sweep(self, keep_all: bool = False) -> Any:
        """The design as a sweep of the engine (:class:`vho.sweep.Sweep`)."""
        from ..sweep.spec import Measure, Sweep

        path = self.path
        text = path.read_text(encoding="utf-8")
        measures = None
        if self.measure is not None:
            measures = [
                Measure(
                    self.measure,
                    self.record,
                    p.params,
                    -1 if keep_all else p.keep,
                    f"{p.case}/{p.variant}",
                )
                if p.measured
                else None
                for p in self.points
            ]
        return Sweep(
            label=str(path),
            text=text,
            fixed=[*identity(path, text), *self.fixed],
            columns=[],
            points=[{"case": p.case, "variant": p.variant} for p in self.points],
            replications=max((p.replications for p in self.points), default=1),
            seed=self.options.seed,
            seeds=self.seeds,
            name=path.stem,
            labels=["case", "variant"],
            extra=[p.overrides for p in self.points],
            texts=[p.text for p in self.points] if any(p.text for p in self.points) else None,
            point_replications=[p.replications for p in self.points],
            measures=measures,
            draws=(
                None
                if self.draw is None
                else [[self.draw(p, r) for r in range(p.replications)] for p in self.points]
            ),
        )


def study_file(name: str) -> Path:
    """A study's scenario file inside the installed package (``vho/data/studies/``; a symbolic
    link to ``scenarios/studies/`` in the repository, a copy in a wheel)."""
    return Path(str(resources.files("vho").joinpath("data", "studies", name)))


class _Drawing:
    """:meth:`Context.draw`'s process (forked when first asked for: it inherits the imported
    matplotlib) and what it was given."""

    def __init__(self) -> None:
        self.pool: Any = None
        self.futures: list[Any] = []

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from ..sweep.engine import die_with_parent

            self.pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("fork"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        self.futures.append(self.pool.submit(fn, *args))

    def finish(self, wait: bool = True) -> None:
        """Waits for every figure (raising the first error), or (``wait`` false: the report
        failed) drops those not started; the process ends either way."""
        if self.pool is None:
            return
        try:
            if wait:
                for f in self.futures:
                    f.result()
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool, self.futures = None, []


@dataclass(frozen=True)
class Context:
    """What a report is given: the output directory being written (its ``runs/`` holds the
    kept runs), the runs table, the verdicts, the design and the stamp."""

    out: Path
    runs: pd.DataFrame
    verdicts: list[vd.Verdict]
    design: Design
    stamp: Stamp
    #: The figures being drawn beside the report (:meth:`draw`).
    drawing: _Drawing = field(default_factory=lambda: _Drawing(), compare=False, repr=False)

    def draw(self, fn: Callable[..., Any], *args: Any) -> None:
        """Calls ``fn(*args)``, a figure that writes its files and returns nothing the report
        reads, in a forked process while the report goes on: on two cores a study's largest
        figure overlaps the rest of its report (issue 38). :func:`write_report` waits for it
        and raises what it raised."""
        self.drawing.submit(fn, *args)

    def kept(self, case: str, variant: str, replication: int = 0) -> Path:
        """A kept run's directory (``vho run``'s output)."""
        return self.out / "runs" / case / variant / f"rep-{replication}"

    def rows(self, case: str, variant: str | None = None) -> pd.DataFrame:
        """The runs of a case (and variant), in replication order."""
        if variant is not None:
            return point_rows(self.runs, case, variant)
        return self.runs[self.runs["case"] == case].sort_values("replication")

    def verdict(self, key: str) -> vd.Verdict:
        return next(v for v in self.verdicts if v.number.key == key)


@dataclass(frozen=True)
class Study:
    """A reproduction: its command name, title, the paper's numbers, and its functions (see
    the module doc). ``why``: per paper number, the cause the study's own variant rows show
    (or "unexplained"), from the context."""

    name: str
    title: str
    paper: tuple[vd.PaperNumber, ...]
    design: Callable[[Options], Design]
    evidence: Callable[[pd.DataFrame, Design], dict[str, vd.Evidence]]
    body: Callable[[Context], list[str]]
    #: The study's package (for the stamp's hash of its files).
    package: str = ""
    why: Callable[[Context], dict[str, str]] | None = None


@dataclass(frozen=True)
class Stamp:
    """Which build produced which numbers: vho's version, the commit it was built from, the
    hash of the study's scenario file and of its code, the command line, the runs' digest."""

    version: str
    commit: str
    study_hash: str
    code_hash: str
    command: str
    runs_digest: str

    def lines(self, study_name: str) -> list[str]:
        return [
            f"- vho {self.version}, commit {self.commit}",
            f"- study file `scenarios/studies/{study_name}` sha256 {self.study_hash[:16]}; "
            f"study code sha256 {self.code_hash[:16]}; runs digest {self.runs_digest[:16]}",
            f"- command: `{self.command}`",
        ]


def commit() -> str:
    """The commit this vho was built from: ``git rev-parse`` in its source tree (``+dirty``
    when tracked files differ), or "unknown" for an installed wheel without one."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown (not built from a git checkout)"
    return rev + ("+dirty" if dirty else "")


def code_hash(package: str) -> str:
    """SHA-256 over the study's Python files and the shared ones (study, verdict, the sweep
    engine that makes and stores its runs)."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    paths = [here / "study.py", here / "verdict.py", *sorted((here.parent / "sweep").glob("*.py"))]
    if package:
        paths += sorted((here / package).glob("*.py"))
    for p in paths:
        if p.exists():
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def command_line(argv: list[str] | None) -> str:
    """The command as typed (``vho reproduce ...``), for the stamp."""
    if argv is None:
        return "(called from Python)"
    return shlex.join(["vho", *argv])


def keep_only(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """A measure function that measures nothing: the run is made to be kept (its capture or
    series for a figure), its numbers are the summary's."""
    return {}


# --- running ------------------------------------------------------------------------------


def _runs_dir(out: Path, sweep: Any, stamp_key: str) -> Path:
    """Where the runs are made: beside the output, named after it and a key of everything that
    decides them, so a killed study resumes and another build's runs never pass for this
    one's."""
    key = hashlib.blake2b(f"{sweep.digest()}\0{stamp_key}".encode(), digest_size=8).hexdigest()
    return out.absolute().parent / f".vho-runs-{out.name}-{key}"


def expand(df: pd.DataFrame) -> pd.DataFrame:
    """The sweep's rows as the runs table: the ``measured`` JSON as columns."""
    if "measured" not in df.columns:
        return df
    m = pd.DataFrame(
        [json.loads(x) if isinstance(x, str) else {} for x in df["measured"]], index=df.index
    )
    base = df.drop(columns=["measured"])
    # A measurement named as a summary metric replaces it where the run measured it.
    for c in [c for c in m.columns if c in base.columns]:
        m[c] = m[c].where(m[c].notna(), pd.to_numeric(base[c], errors="coerce"))
    base = base.drop(columns=[c for c in m.columns if c in base.columns])
    return pd.concat([base, m], axis=1)


def run_design(
    design: Design,
    runs_dir: Path,
    *,
    workers: int | None,
    scheduler: str | None,
    quiet: bool,
    keep_all: bool,
    desc: str,
) -> pd.DataFrame:
    """Runs a design on the sweep engine into ``runs_dir`` (resumed when it holds part of
    them); the runs table."""
    from .. import sweep as sw

    s = design.sweep(keep_all)
    sw.run(s, runs_dir, workers=workers, scheduler=scheduler, resume=True, quiet=quiet, desc=desc)
    df = sw.results(runs_dir)
    failed = df[df["error"].notna()]
    if len(failed):
        r = failed.iloc[0]
        raise VhoError(
            f"{runs_dir}: {len(failed)} runs failed, first ({r['case']}/{r['variant']}, "
            f"replication {r['replication']}): {r['error']}"
        )
    return expand(df)


def judge_all(study: Study, runs: pd.DataFrame, design: Design) -> list[vd.Verdict]:
    """Every paper number judged on the runs (:mod:`vho.reproduce.verdict`)."""
    ev = study.evidence(runs, design)
    unknown = set(ev) - {n.key for n in study.paper}
    if unknown:
        raise ValueError(f"{study.name}: evidence for no paper number: {sorted(unknown)}")
    return [vd.judge(n, ev.get(n.key)) for n in study.paper]


def write_report(study: Study, ctx: Context) -> Path:
    """``report.md``: the title, the stamp, "N of M paper numbers agree by the rule" and the
    one-paragraph verdict, the rule, what a replication draws, the study's body, the table of
    every paper number."""
    try:
        path = _write_report(study, ctx)
    except BaseException:
        ctx.drawing.finish(wait=False)
        raise
    ctx.drawing.finish()
    return path


def _write_report(study: Study, ctx: Context) -> Path:
    d = ctx.design
    why = study.why(ctx) if study.why is not None else {}
    n_runs = len(ctx.runs)
    lines = [
        f"# {study.title}",
        "",
        vd.headline(ctx.verdicts),
        "",
        vd.summary_paragraph(ctx.verdicts),
        "",
        *ctx.stamp.lines(d.study_file),
        f"- {n_runs} runs: {_describe_points(d)}" + (" (quick mode)" if d.options.quick else ""),
        f"- a replication draws: {d.draws}",
        "",
        vd.RULE,
        "",
        *study.body(ctx),
        "",
        "## Every number of the paper",
        "",
        "One row per number the paper gives (or claim it makes), judged by the rule above "
        "(`table.csv` holds the same rows). A cause is named only where a variant run of this "
        "output shows it; otherwise the row says unexplained.",
        "",
        *vd.table_md(ctx.verdicts, why=why),
        "",
    ]
    path = ctx.out / "report.md"
    files.write_text_atomic(path, "\n".join(lines))
    return path


def _describe_points(d: Design) -> str:
    roles: dict[str, list[Point]] = {}
    for p in d.points:
        roles.setdefault(p.role, []).append(p)
    parts = []
    for role, ps in roles.items():
        reps = sorted({p.replications for p in ps})
        r = f"{reps[0]}" if len(reps) == 1 else f"{reps[0]}-{reps[-1]}"
        parts.append(f"{len(ps)} {role} points x {r} replications")
    return "; ".join(parts)


def size_of(path: Path) -> int:
    """Bytes under ``path``."""
    total = 0
    for root, _, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(root, n)).st_size
            except OSError:
                pass
    return total


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def reproduce(
    study: Study,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    seed: int = 1,
    reps: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    sensitivity: bool = True,
    keep_captures: bool = False,
    quiet: bool = False,
    force: bool = False,
    argv: list[str] | None = None,
) -> Path:
    """Runs ``study`` into ``out`` (see the module doc); returns the path of ``report.md``.
    ``reps``: replications of the paper's cases (default the study's); ``keep_captures``:
    keep every run's directory, not only those the report reads."""
    if reps is not None and reps < 2:
        raise VhoError(
            f"vho reproduce {study.name}: --reps: expected at least 2 (a confidence interval), "
            f"got {reps}"
        )
    out = Path(out)
    t0 = time.perf_counter()
    options = Options(quick=quick, seed=seed, reps=reps, sensitivity=sensitivity)
    design = study.design(options)
    sweep = design.sweep(keep_captures)
    from .. import __version__

    study_hash = hashlib.sha256(design.path.read_bytes()).hexdigest()
    stamp = Stamp(
        version=__version__,
        commit=commit(),
        study_hash=study_hash,
        code_hash=code_hash(study.package),
        command=command_line(argv),
        runs_digest=sweep.digest(),
    )
    runs_dir = _runs_dir(out, sweep, f"{stamp.version}\0{stamp.commit}\0{stamp.code_hash}")
    command = f"vho reproduce {study.name}"
    # Refuse a foreign --out before any run (staged_output checks it again when it starts).
    with files.staged_output(out, command=command, owned=OWNED, force=force) as stage:
        runs = run_design(
            design,
            runs_dir,
            workers=workers,
            scheduler=scheduler,
            quiet=quiet,
            keep_all=keep_captures,
            desc=f"{study.name}: {sweep.n_runs} runs",
        )
        # The kept runs are read where the report will find them: in the output's runs/.
        os.replace(runs_dir, stage / "runs")
        try:
            verdicts = judge_all(study, runs, design)
            files.write_table(_runs_csv(runs, design.drop_columns), stage / "runs.csv")
            files.write_table(pd.DataFrame([v.row() for v in verdicts]), stage / "table.csv")
            ctx = Context(stage, runs, verdicts, design, stamp)
            (stage / "figures").mkdir(exist_ok=True)
            write_report(study, ctx)
        except BaseException:
            # The runs stay for the next attempt (it resumes them: nothing to run again).
            os.replace(stage / "runs", runs_dir)
            raise
    size = size_of(out)
    if not quiet:
        sys.stderr.write(
            f"{study.name}: {len(runs)} runs in {time.perf_counter() - t0:.1f} s; "
            f"{out} holds {megabytes(size)}\n"
        )
    return out / "report.md"


#: The runs table's columns that are the engine's, not the study's.
_ENGINE = ("task", "point", "error", "vho_version", "scenario_hash", "ended_by", "wall_s")


def _runs_csv(runs: pd.DataFrame, drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """The runs table as ``runs.csv``: labels first, the engine's bookkeeping and the columns
    the design leaves out (``drop``, prefixes) dropped."""
    cols = ["case", "variant", "replication", "seed"]
    rest = [
        c
        for c in runs.columns
        if c not in cols and c not in _ENGINE and not any(c.startswith(d) for d in drop)
    ]
    return runs[cols + rest]


# --- causes -------------------------------------------------------------------------------


def causes(
    ctx: Context, evidence: Callable[[pd.DataFrame, Design], dict[str, vd.Evidence]]
) -> dict[str, str]:
    """Per paper number that differs, its cause as the study's sensitivity variants show it.
    A sensitivity point stands in for the variant of its case it ``replaces`` (the points of
    one label together: one variant applied to several cases): the runs with its rows in that
    variant's place give every number again (``evidence``), judged by the same
    rule; a variant under which a number agrees, having moved significantly towards the
    paper's (:func:`_moved`), is named as its cause; when none does the number is
    "unexplained", with what each variant that touched it gave. A number no variant touches is
    "unexplained"."""
    base = evidence(ctx.runs, ctx.design)
    tried: dict[str, list[tuple[str, vd.Verdict]]] = {}
    # Points with one label are one variant applied to several cases: swapped in together.
    groups: dict[str, list[Point]] = {}
    for p in ctx.design.points:
        if p.role == "sensitivity" and p.replaces:
            groups.setdefault(p.label or p.variant, []).append(p)
    if not any(v.agrees is False for v in ctx.verdicts):
        groups = {}
    for label, ps in groups.items():
        runs = swapped(ctx.runs, [(p.case, p.variant, p.replaces) for p in ps])
        ev = evidence(runs, ctx.design)
        for v in ctx.verdicts:
            k = v.number.key
            if v.agrees is False and k in ev and k in base and _differs(ev[k], base[k]):
                tried.setdefault(k, []).append((label, vd.judge(v.number, ev[k])))
    out = {}
    for v in ctx.verdicts:
        if v.agrees is not False:
            continue
        t = tried.get(v.number.key, [])
        ok = [(label, x) for label, x in t if x.agrees and _moved(v, x)]
        if ok:
            out[v.number.key] = "cause shown: " + "; ".join(
                f"with {label}, vho gives {vd.ours_shown(x)} ({x.verdict}, p {vd.p_shown(x.p)})"
                for label, x in ok
            )
        elif t:
            out[v.number.key] = "unexplained; tried " + "; ".join(
                f"{label}: {vd.ours_shown(x)} ({x.verdict})" for label, x in t
            )
        else:
            out[v.number.key] = "unexplained"
    return out


def swapped(runs: pd.DataFrame, swaps: list[tuple[str, str, str]]) -> pd.DataFrame:
    """The runs with those of each (case, variant) in the place of (case, replaces)."""
    key = runs["case"].astype(str) + "\0" + runs["variant"].astype(str)
    drop = {f"{c}\0{r}" for c, _, r in swaps}
    relabel = {f"{c}\0{v}": r for c, v, r in swaps}
    out = runs[~key.isin(drop)].copy()
    k = key[~key.isin(drop)]
    take = k.isin(relabel)
    out.loc[take, "variant"] = k[take].map(relabel)
    return out


def _differs(a: vd.Evidence, b: vd.Evidence) -> bool:
    """Whether two evidences differ (a variant that changes nothing of a number is not tried
    for it)."""
    return not (
        np.array_equal(a.x, b.x)
        and (a.y is None) == (b.y is None)
        and (a.y is None or np.array_equal(a.y, b.y))
    )


def _moved(base: vd.Verdict, variant: vd.Verdict) -> bool:
    """Whether a variant moved a number towards the paper's, significantly: its mean closer
    to the paper's than the baseline's, by more than both means' 95 % intervals allow."""
    if base.number.kind == "claim" or not math.isfinite(variant.ours):
        return False
    target = base.number.value
    closer = abs(variant.ours - target) < abs(base.ours - target)
    apart = (
        not math.isfinite(base.lo)
        or not math.isfinite(variant.lo)
        or variant.hi < base.lo
        or variant.lo > base.hi
    )
    return closer and apart and variant.ours != base.ours


# --- helpers the reports share --------------------------------------------------------------


#: The runs table last indexed by point (:func:`_index`): the table, per point the positions of
#: its rows in replication order, and the columns already read as numbers.
_INDEX: list[tuple[pd.DataFrame, dict[tuple[str, str], np.ndarray], dict[str, np.ndarray]]] = []


def _index(runs: pd.DataFrame) -> tuple[dict[tuple[str, str], np.ndarray], dict[str, np.ndarray]]:
    """Per point, the positions of its rows in replication order; kept while the same table
    is asked about (a report asks thousands of times)."""
    if not _INDEX or _INDEX[0][0] is not runs:
        order = np.argsort(runs["replication"].to_numpy(), kind="stable")
        case = runs["case"].astype(str).to_numpy()[order]
        variant = runs["variant"].astype(str).to_numpy()[order]
        pos: dict[tuple[str, str], list[int]] = {}
        for i, c, v in zip(order, case, variant, strict=True):
            pos.setdefault((c, v), []).append(int(i))
        _INDEX[:] = [(runs, {k: np.array(x, dtype=int) for k, x in pos.items()}, {})]
    return _INDEX[0][1], _INDEX[0][2]


def point_rows(runs: pd.DataFrame, case: str, variant: str) -> pd.DataFrame:
    """A point's runs, in replication order (empty when it has none)."""
    pos, _ = _index(runs)
    return runs.iloc[pos.get((case, variant), np.array([], dtype=int))]


def values(runs: pd.DataFrame, case: str, variant: str, key: str) -> np.ndarray:
    """One measurement over a point's replications, in replication order, as numbers (NaN
    where a run has none)."""
    pos, cols = _index(runs)
    at = pos.get((case, variant), np.array([], dtype=int))
    if key not in runs.columns:
        return np.full(len(at), math.nan)
    if key not in cols:
        cols[key] = pd.to_numeric(runs[key], errors="coerce").to_numpy(dtype=float)
    return cols[key][at]


def column(runs: pd.DataFrame, case: str, variant: str, key: str) -> pd.Series:
    """:func:`values` as a Series."""
    return pd.Series(values(runs, case, variant, key), dtype=float)


def paired(
    runs: pd.DataFrame, a: tuple[str, str], b: tuple[str, str], key: str, key_b: str | None = None
) -> vd.Evidence:
    """A claim's evidence: ``key`` at point ``a`` against ``key_b`` (default the same) at point
    ``b``, replication by replication (the designs' common random numbers)."""
    x = column(runs, *a, key)
    y = column(runs, *b, key_b or key)
    n = min(len(x), len(y))
    return vd.Evidence.of(x[:n], y[:n], paired=True)


def one(runs: pd.DataFrame, case: str, variant: str, key: str, note: str = "") -> vd.Evidence:
    """The evidence of a number measured at one point."""
    return vd.Evidence.of(column(runs, case, variant, key), note=note)


def mean_of(runs: pd.DataFrame, case: str, variant: str, key: str) -> float:
    v = column(runs, case, variant, key).dropna()
    return float(v.mean()) if len(v) else math.nan


def pm(runs: pd.DataFrame, case: str, variant: str, key: str, digits: int | None = None) -> str:
    """``mean [lo, hi]`` of a measurement at a point, as the reports print it."""
    v = column(runs, case, variant, key).dropna().to_numpy()
    m, lo, hi = vd.mean_ci(v)
    if not math.isfinite(lo) or lo == hi:
        return vd.num(m, digits)
    return f"{vd.num(m, digits)} [{vd.num(lo, digits)}, {vd.num(hi, digits)}]"


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return out
