"""Running a sweep's tasks in batches: on local worker processes or on a Dask cluster.

The parent process is the only writer: each finished batch becomes one Parquet part under
``DIR/results/`` (see :mod:`vho.sweep.store`), so a killed sweep loses at most the batches
in flight, and ``--resume`` runs exactly the tasks that have no row yet.

Local workers die with the parent, however it dies (SIGKILL, the OOM killer): each asks the
kernel for SIGKILL when its parent goes (Linux ``PR_SET_PDEATHSIG``) and, as a fallback, a
thread watches the parent's pid. With ``run_timeout``, each run is made in a child process
that is killed when it exceeds its wall time; the run is a failed row saying so (the core
cannot be interrupted from Python while it runs).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import multiprocessing
import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import _native
from ..errors import SweepError, VhoError
from ..runner import DROP_CAUSES
from . import store
from .spec import Measure, Sweep, Task

#: A batch should take about this long on one worker, so that scheduling (pickling, a round
#: trip to the pool or the Dask scheduler, one Parquet part) stays a few percent of the work.
TARGET_BATCH_S = 0.5
#: Batches also stay small enough that the progress bar moves and a kill loses little.
MAX_BATCH = 256


@dataclass(frozen=True)
class Run:
    """One run of a batch: its task, overrides, row values, scenario (an index into the
    batch's texts) and how it is measured (None: from its summary)."""

    task: Task
    overrides: tuple[str, ...]
    values: tuple[Any, ...]
    text: int = 0
    measure: Measure | None = None
    #: How many of the overrides, at the end, the replication drew.
    drawn: int = 0


@dataclass(frozen=True)
class Batch:
    """What a worker needs for a batch: the scenarios and, per task, overrides and seed."""

    label: str
    texts: tuple[str, ...]
    columns: tuple[str, ...]
    runs: tuple[Run, ...]
    #: Wall-time limit of one run in seconds (None: no limit).
    run_timeout: float | None = None
    #: The sweep's directory, where measured runs' kept directories go (see :class:`Measure`).
    root: str | None = None
    #: Send kept directories back with the rows (a Dask worker need not share our disk)
    #: instead of writing them.
    ship: bool = False
    #: Whether the sweep's replications draw overrides (the rows' ``draws`` column).
    draws: bool = False


#: How often a worker checks that its parent is still there, when the kernel cannot tell it.
PARENT_POLL_S = 0.2
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """Makes this process end when ``parent`` does: PR_SET_PDEATHSIG (Linux), and a thread
    polling the parent's pid (everywhere; also covers a parent that died before the prctl).
    Its copies of the parent's sweep lock are closed: the lock is the parent's alone."""
    for fd in list(store.HELD_LOCKS):
        try:
            os.close(fd)
        except OSError:
            pass
    store.HELD_LOCKS.clear()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="vho-parent-watch", daemon=True).start()


def _native_run(label: str, text: str, overrides: list[str], seed: int) -> tuple[str, str]:
    """One run: ("ok", summary JSON) or ("error", message)."""
    try:
        raw = _native.run_scenario(label, text, overrides, seed, None)
        return "ok", raw["summary_json"]
    except VhoError as e:
        return "error", str(e)
    except Exception as e:  # a fault of vho: still a row, never the end of the sweep
        return "error", f"internal error: {type(e).__name__}: {e}"


def measure_function(ref: str) -> Callable[..., dict[str, Any]]:
    """The function a :class:`Measure` names (``"package.module:name"``)."""
    import importlib

    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


#: What a measured run hands back besides its summary: its measurements (JSON) and, when it
#: is kept and shipped, its directory (relative to the sweep's) and files (path, bytes).
Measured = tuple[str, str, list[tuple[str, bytes]]]


def _measured_run(
    label: str,
    text: str,
    overrides: list[str],
    task: Task,
    m: Measure,
    root: str | None,
    ship: bool,
) -> tuple[str, str, Measured | None]:
    """One measured run (see :class:`Measure`): ("ok", summary JSON, its measurements and
    shipped files) or ("error", message, None)."""
    import shutil
    import tempfile

    from ..runner import run as run_scenario

    scratch = Path(tempfile.mkdtemp(prefix="vho-run-"))
    try:
        out = scratch / "run"
        r = run_scenario(text, seed=task.seed, overrides=overrides, out_dir=out, label=label)
        values = measure_function(m.function)(out, r, dict(m.params))
        measured = json.dumps(values, sort_keys=True, default=float)
        rel, shipped = f"{m.keep_dir}/rep-{task.replication}", []
        if m.keeps(task.replication) and root is not None:
            if ship:
                shipped = [
                    (str(f.relative_to(out)), f.read_bytes())
                    for f in sorted(out.rglob("*"))
                    if f.is_file()
                ]
            else:
                _place(out, Path(root) / rel)
        return "ok", json.dumps(r.summary), (measured, rel, shipped)
    except VhoError as e:
        return "error", str(e), None
    except Exception as e:  # a fault of vho (or of the measurement): a row saying so
        return "error", f"internal error: {type(e).__name__}: {e}", None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _place(src: Path, dest: Path) -> None:
    """Moves a run's directory to ``dest``, replacing what a killed sweep left there."""
    import shutil

    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        shutil.rmtree(dest)
    try:
        os.replace(src, dest)
    except OSError:  # another filesystem than the scratch directory's
        tmp = dest.parent / f".{dest.name}-{os.getpid()}"
        shutil.copytree(src, tmp)
        os.replace(tmp, dest)


def land(rows: list[dict[str, Any]], root: Path) -> None:
    """Writes the kept directories shipped with rows (a Dask worker's) under ``root``, each
    whole before its row is published."""
    import tempfile

    for row in rows:
        shipped = row.pop("_shipped", None)
        if not shipped:
            continue
        rel, items = shipped
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
        for path, data in items:
            f = tmp / path
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(data)
        _place(tmp, dest)


def _limited_run(
    label: str, text: str, overrides: list[str], seed: int, timeout: float
) -> tuple[str, str]:
    """:func:`_native_run` in a forked child, killed after ``timeout`` seconds of wall time."""
    r, w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: run, send the result, leave without cleanup of the parent's
        try:
            os.close(r)
            die_with_parent(parent)
            data = pickle.dumps(_native_run(label, text, overrides, seed))
            with os.fdopen(w, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(w)
    deadline = time.monotonic() + timeout
    chunks = []
    try:
        while True:
            left = deadline - time.monotonic()
            ready = select.select([r], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                os.kill(pid, signal.SIGKILL)
                return "error", f"timed out: the run took more than {timeout:g} s of wall time"
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    if not chunks:
        return "error", "internal error: the run's process ended without a result"
    return pickle.loads(b"".join(chunks))


def _seed_groups(batch: Batch) -> dict[int, tuple[str, str]]:
    """The plain runs of a batch (no measure, no time limit) made by one native call per run of
    consecutive runs with the same scenario and overrides (a point's replications: only the
    seed differs), the scenario loaded once (``_native.run_seeds``): by the index of each
    run, its ("ok", summary JSON) or ("error", message), as :func:`_native_run` gives them.
    A run's ``wall_s`` is then its group's wall time shared out (the file holds no better)."""
    out: dict[int, tuple[str, str]] = {}
    if batch.run_timeout is not None:
        return out
    runs = batch.runs
    i = 0
    while i < len(runs):
        run = runs[i]
        j = i + 1
        if run.measure is None:
            while (
                j < len(runs)
                and runs[j].measure is None
                and runs[j].text == run.text
                and runs[j].overrides == run.overrides
            ):
                j += 1
        if j - i > 1:
            seeds = [r.task.seed for r in runs[i:j]]
            try:
                res = [
                    ("ok", v) if ok else ("error", v)
                    for ok, v in _native.run_seeds(
                        batch.label, batch.texts[run.text], list(run.overrides), seeds
                    )
                ]
            except VhoError as e:
                res = [("error", str(e))] * len(seeds)
            except Exception as e:  # a fault of vho: still rows, never the end of the sweep
                res = [("error", f"internal error: {type(e).__name__}: {e}")] * len(seeds)
            for k, r in enumerate(res):
                out[i + k] = r
        i = j
    return out


def run_batch(batch: Batch) -> list[dict[str, Any]]:
    """Runs a batch (in a worker): one row per task; a run that fails is a row with its error."""
    rows = []
    t_group = time.perf_counter()
    grouped = _seed_groups(batch)
    shared = (time.perf_counter() - t_group) / len(grouped) if grouped else 0.0
    for i, run in enumerate(batch.runs):
        task = run.task
        row: dict[str, Any] = {
            "task": task.task,
            "point": task.point,
            "replication": task.replication,
            "seed": task.seed,
        }
        row.update(zip(batch.columns, run.values, strict=True))
        if batch.draws:
            row["draws"] = "; ".join(run.overrides[len(run.overrides) - run.drawn :])
        t0 = time.perf_counter()
        text = batch.texts[run.text]
        measured = None
        if i in grouped:
            kind, value = grouped[i]
        elif run.measure is not None:
            kind, value, measured = _measured_run(
                batch.label, text, list(run.overrides), task, run.measure, batch.root, batch.ship
            )
        else:
            args = (batch.label, text, list(run.overrides), task.seed)
            if batch.run_timeout is None:
                kind, value = _native_run(*args)
            else:
                kind, value = _limited_run(*args, batch.run_timeout)
        if kind == "ok":
            row.update(flatten_summary(json.loads(value)))
            row["error"] = None
        else:
            row["error"] = value
        if run.measure is not None:
            row["measured"] = measured[0] if measured is not None else None
            if measured is not None and measured[2]:
                row["_shipped"] = (measured[1], measured[2])
        row["wall_s"] = time.perf_counter() - t0 + (shared if i in grouped else 0.0)
        rows.append(row)
    return rows


def run_batch_shipped(batch: Batch) -> list[dict[str, Any]]:
    """:func:`run_batch` on a Dask worker: kept directories come back with the rows."""
    return run_batch(replace(batch, ship=True))


def run_batch_to_part(
    batch: Batch, results: Path, schema: Any
) -> tuple[Path, list[int], dict[str, Any] | None]:
    """Runs a batch (in a local worker) and writes its rows as a hidden part, so that the
    parent only renames it: (the hidden file, its tasks, a successful row if any)."""
    rows = run_batch(batch)
    ok = next((r for r in rows if r["error"] is None), None)
    return store.write_hidden(results, rows, schema), [r["task"] for r in rows], ok


def flatten_summary(s: dict) -> dict[str, Any]:
    """One flat row from a run's summary: the run's fields; the flows' metrics, each once: bare
    (``transfer_time_s``) when the scenario has one flow, under ``flow.<name>.`` for every flow
    when it has several (no bare column then: it could only be one flow's); each handover's
    under ``handover.<i>.``; and drops per cause summed over links."""
    run = s["run"]
    row: dict[str, Any] = {
        "vho_version": run["vho_version"],
        "scenario_hash": run["scenario_hash"],
        "events": run["events"],
        "simulated_s": run["simulated_s"],
        "ended_by": run["ended_by"],
        "conservation_ok": run["conservation_ok"],
    }
    flows = s["flows"]
    for f in flows:
        m = {k: v for k, v in f.items() if k not in ("name", "from", "to", "tcp_profile", "drops")}
        m["drops"] = sum(d["packets"] for d in f["drops"])
        prefix = f"flow.{f['name']}." if len(flows) > 1 else ""
        row.update({f"{prefix}{k}": v for k, v in m.items()})
    for i, h in enumerate(s["handovers"]):
        row[f"handover.{i}.at_s"] = h["at_s"]
        row[f"handover.{i}.interruption_s"] = h["interruption_s"]
    # A NEMO run's combining at the mobile router (copies, holds; `world::nemo`).
    for k, v in (s.get("nemo") or {}).items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            row[f"nemo.{k}"] = v
    for cause in DROP_CAUSES:
        # dropped_early_drop is only on a RED direction's row, dropped_link_state only on a
        # direction a schedule gives a state, dropped_link_layer_discard only on a direction
        # with a link layer.
        row[f"dropped_{cause}"] = sum(link.get(f"dropped_{cause}", 0) for link in s["links"])
    return {k: _cell(v) for k, v in row.items()}


def _cell(v: Any) -> Any:
    """A summary value as a Parquet cell: a count beyond int64 (a bulk flow's unbounded size,
    u64::MAX) as a float; a table or list (a TFRC flow's ``tfrc``, a probe's detections) as its
    JSON text."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 2**63:
        return float(v)
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    return v


def batch_sizes(sweep: Sweep, workers: int, n_tasks: int, per_run_s: float) -> Iterator[int]:
    """Runs per batch, batch after batch: the sweep's own ``batch``, or guided
    self-scheduling: a quarter of what is left per worker, at most ~TARGET_BATCH_S of runs at
    the first run's pace, so batches shrink towards the end and no worker idles long while
    another finishes a big last batch."""
    if sweep.batch is not None:
        while True:
            yield sweep.batch
    cap = max(1, min(int(TARGET_BATCH_S / max(per_run_s, 1e-5)), MAX_BATCH))
    left = n_tasks
    while left > 0:
        size = max(1, min(cap, left // (4 * max(workers, 1))))
        left -= size
        yield size


def _make_batch(
    sweep: Sweep, tasks: list[Task], run_timeout: float | None = None, root: Path | None = None
) -> Batch:
    texts: dict[str, int] = {}
    runs = []
    for t in tasks:
        text = sweep.text_of(t.point)
        runs.append(
            Run(
                t,
                (*sweep.overrides(t.point), *sweep.drawn(t.point, t.replication)),
                sweep.row_values(t.point),
                texts.setdefault(text, len(texts)),
                sweep.measure(t.point),
                len(sweep.drawn(t.point, t.replication)),
            )
        )
    return Batch(
        run_timeout=run_timeout,
        label=sweep.label,
        texts=tuple(texts),
        columns=tuple(sweep.row_columns()),
        runs=tuple(runs),
        root=None if root is None else str(root),
        draws=sweep.draws is not None,
    )


def _batches(
    sweep: Sweep,
    tasks: list[Task],
    sizes: Iterator[int],
    run_timeout: float | None,
    root: Path | None = None,
) -> Iterator[Batch]:
    i = 0
    while i < len(tasks):
        n = next(sizes)
        yield _make_batch(sweep, tasks[i : i + n], run_timeout, root)
        i += n


def _local(batches: Iterator[Batch], workers: int, st: store.Store) -> Iterator[int]:
    """Batches on local worker processes (fork: the workers share the loaded library), at
    most two per worker in flight; workers write their parts, this process publishes them.
    Yields the number of runs finished."""
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        try:
            yield from _drive(pool, batches, workers, st)
        except BaseException:
            # Stopped (a signal, a write that failed): the batches in flight are not waited
            # for. (The executor has no public way to stop its workers.)
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.kill()
            raise


def _drive(
    pool: ProcessPoolExecutor, batches: Iterator[Batch], workers: int, st: store.Store
) -> Iterator[int]:
    pending: set[Future] = set()

    def publish(done: set[Future]) -> Iterator[int]:
        for f in done:
            tmp, tasks, ok = f.result()
            if st.schema is None and ok is not None:
                st.schema = store.schema_of(ok)
            st.publish(tmp, tasks)
            yield len(tasks)

    for b in batches:
        pending.add(pool.submit(run_batch_to_part, b, st.results, st.schema))
        if len(pending) >= 2 * workers:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from publish(done)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        yield from publish(done)


def _dask(batches: Iterator[Batch], scheduler: str, st: store.Store) -> Iterator[int]:
    """Batches on an existing dask.distributed cluster (its workers need this vho installed
    and need not share our disk: rows come back, this process writes the parts)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepError(
            "--scheduler: dask.distributed is not installed (pip install 'dask[distributed]')"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as e:
        raise SweepError(f"--scheduler {scheduler}: cannot reach the scheduler: {e}") from None
    try:
        futures = client.map(run_batch_shipped, list(batches), pure=False)
        for f in as_completed(futures):
            rows = f.result()
            f.release()
            land(rows, st.root)
            st.write(rows)
            yield len(rows)
    finally:
        client.close()


def run(
    sweep: Sweep,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    quiet: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    run_timeout: float | None = None,
    desc: str | None = None,
) -> Path:
    """Runs a sweep into ``out`` (see :mod:`vho.sweep.store` for the layout); returns the
    results directory. ``run_timeout``: a run's wall-time limit in seconds; a run that
    exceeds it is a failed row. ``desc``: the progress bar's label (a caller running several
    sweeps names each)."""
    out = Path(out)
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise SweepError(f"--workers: expected an integer >= 1, got {workers}")
    if run_timeout is not None and not run_timeout > 0:
        raise SweepError(f"--run-timeout: expected a number of seconds > 0, got {run_timeout}")
    st = store.Store.open(out, sweep, resume=resume)
    try:
        _run_open(sweep, st, workers, scheduler, quiet, on_progress, run_timeout, desc)
    finally:
        st.close()
    return st.results


def _run_open(
    sweep: Sweep,
    st: store.Store,
    workers: int,
    scheduler: str | None,
    quiet: bool,
    on_progress: Callable[[int, int], None] | None,
    run_timeout: float | None,
    desc: str | None = None,
) -> None:
    todo = [t for t in sweep.tasks() if t.task not in st.done]
    total = sweep.n_runs
    bar = _progress(total, total - len(todo), quiet, desc)
    try:
        if todo:
            # The first run, here: its time sizes the batches, its row fixes the schema. The
            # time is the run's alone: the first Parquet write (tens of ms, pyarrow's first
            # use) made the Daniel & Kojo tables' 1 ms runs look 40 ms long, and 311 batches
            # of 16 runs where 256 fit (issue 38).
            t0 = time.perf_counter()
            first = run_batch(_make_batch(sweep, todo[:1], run_timeout, st.root))
            per_run_s = time.perf_counter() - t0
            st.write(first)
            bar.update(1)
            sizes = batch_sizes(sweep, 1 if scheduler else workers, len(todo) - 1, per_run_s)
            rest = _batches(sweep, todo[1:], sizes, run_timeout, st.root)
            source = _dask(rest, scheduler, st) if scheduler else _local(rest, workers, st)
            for n in source:
                bar.update(n)
                if on_progress is not None:
                    on_progress(bar.n, total)
    finally:
        bar.close()
    st.finish(total)


class _Quiet:
    """The progress bar of a quiet sweep: counts, draws nothing. (A disabled tqdm still starts
    its monitor thread, which outlives the sweep in the caller's process: a program that runs
    sweeps in-process, `vho calibrate`'s trials, would be left with a thread it never made.)"""

    def __init__(self, initial: int) -> None:
        self.n = initial

    def update(self, k: int = 1) -> None:
        self.n += k

    def close(self) -> None:
        pass


def _progress(total: int, initial: int, quiet: bool, desc: str | None = None) -> Any:
    if quiet:
        return _Quiet(initial)
    from tqdm import tqdm

    return tqdm(
        desc=desc,
        total=total,
        initial=initial,
        unit="run",
        disable=quiet,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.1,
    )
