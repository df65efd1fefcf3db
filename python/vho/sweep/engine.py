"""Running a sweep's tasks in batches: on local worker processes or on a Dask cluster.

The parent process is the only writer: each finished batch becomes one Parquet part under
``DIR/results/`` (see :mod:`vho.sweep.store`), so a killed sweep loses at most the batches
in flight, and ``--resume`` runs exactly the tasks that have no row yet.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import _native
from ..errors import SweepError, VhoError
from . import store
from .spec import Sweep, Task

#: A batch should take about this long on one worker, so that scheduling (pickling, a round
#: trip to the pool or the Dask scheduler, one Parquet part) stays a few percent of the work.
TARGET_BATCH_S = 0.5
#: Batches also stay small enough that the progress bar moves and a kill loses little.
MAX_BATCH = 256


@dataclass(frozen=True)
class Batch:
    """What a worker needs for a batch: the scenario and, per task, overrides and seed."""

    label: str
    text: str
    columns: tuple[str, ...]
    runs: tuple[tuple[Task, tuple[str, ...], tuple[Any, ...]], ...]


def run_batch(batch: Batch) -> list[dict[str, Any]]:
    """Runs a batch (in a worker): one row per task; a run that fails is a row with its error."""
    rows = []
    for task, overrides, values in batch.runs:
        row: dict[str, Any] = {
            "task": task.task,
            "point": task.point,
            "replication": task.replication,
            "seed": task.seed,
        }
        row.update(zip(batch.columns, values, strict=True))
        t0 = time.perf_counter()
        try:
            raw = _native.run_scenario(batch.label, batch.text, list(overrides), task.seed, None)
            row.update(flatten_summary(json.loads(raw["summary_json"])))
            row["error"] = None
        except VhoError as e:
            row["error"] = str(e)
        except Exception as e:  # a fault of vho: still a row, never the end of the sweep
            row["error"] = f"internal error: {type(e).__name__}: {e}"
        row["wall_s"] = time.perf_counter() - t0
        rows.append(row)
    return rows


def flatten_summary(s: dict) -> dict[str, Any]:
    """One flat row from a run's summary: the run's fields, the first flow's metrics without a
    prefix (the common single-flow case) and every flow's under ``flow.<name>.``, each
    handover's under ``handover.<i>.``, and drops per cause summed over links."""
    run = s["run"]
    row: dict[str, Any] = {
        "vho_version": run["vho_version"],
        "scenario_hash": run["scenario_hash"],
        "events": run["events"],
        "simulated_s": run["simulated_s"],
        "ended_by": run["ended_by"],
        "conservation_ok": run["conservation_ok"],
    }
    for i, f in enumerate(s["flows"]):
        m = {k: v for k, v in f.items() if k not in ("name", "from", "to", "tcp_profile", "drops")}
        m["drops"] = sum(d["packets"] for d in f["drops"])
        if i == 0:
            row.update(m)
        row.update({f"flow.{f['name']}.{k}": v for k, v in m.items()})
    for i, h in enumerate(s["handovers"]):
        row[f"handover.{i}.at_s"] = h["at_s"]
        row[f"handover.{i}.interruption_s"] = h["interruption_s"]
    for cause in ("queue_overflow", "handover_flush", "random_loss"):
        row[f"dropped_{cause}"] = sum(link[f"dropped_{cause}"] for link in s["links"])
    return row


def batch_size(sweep: Sweep, workers: int, n_tasks: int, per_run_s: float) -> int:
    """Runs per batch: the sweep's own, or enough for ~TARGET_BATCH_S per batch at the probe
    run's pace, without starving workers (at least 4 batches per worker)."""
    if sweep.batch is not None:
        return sweep.batch
    by_time = int(TARGET_BATCH_S / max(per_run_s, 1e-5))
    by_spread = n_tasks // (4 * max(workers, 1))
    return max(1, min(by_time, by_spread, MAX_BATCH))


def _make_batch(sweep: Sweep, tasks: list[Task]) -> Batch:
    return Batch(
        label=sweep.label,
        text=sweep.text,
        columns=tuple(sweep.columns),
        runs=tuple(
            (
                t,
                tuple(sweep.overrides(t.point)),
                tuple(sweep.points[t.point][c] for c in sweep.columns),
            )
            for t in tasks
        ),
    )


def _batches(sweep: Sweep, tasks: list[Task], size: int) -> Iterator[Batch]:
    for i in range(0, len(tasks), size):
        yield _make_batch(sweep, tasks[i : i + size])


def _local(batches: Iterator[Batch], workers: int) -> Iterator[list[dict[str, Any]]]:
    """Batches on local worker processes (fork: the workers share the loaded library), at
    most two per worker in flight."""
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        pending: set[Future] = set()
        for b in batches:
            pending.add(pool.submit(run_batch, b))
            if len(pending) >= 2 * workers:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()


def _dask(batches: Iterator[Batch], scheduler: str) -> Iterator[list[dict[str, Any]]]:
    """Batches on an existing dask.distributed cluster; its workers need this vho installed."""
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
        futures = client.map(run_batch, list(batches), pure=False)
        for f in as_completed(futures):
            yield f.result()
            f.release()
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
) -> Path:
    """Runs a sweep into ``out`` (see :mod:`vho.sweep.store` for the layout); returns the
    results directory."""
    out = Path(out)
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise SweepError(f"--workers: expected an integer >= 1, got {workers}")
    st = store.Store.open(out, sweep, resume=resume)
    todo = [t for t in sweep.tasks() if t.task not in st.done]
    total = len(sweep.points) * sweep.replications
    size = 1
    if todo:
        # One probe run (not stored): its time sizes the batches, its row fixes the schema.
        t0 = time.perf_counter()
        probe = run_batch(_make_batch(sweep, [todo[0]]))[0]
        if st.schema is None and probe["error"] is None:
            st.schema = store.schema_of(probe)
        size = batch_size(sweep, 1 if scheduler else workers, len(todo), time.perf_counter() - t0)
    bar = _progress(total, total - len(todo), quiet)
    source = (
        _dask(_batches(sweep, todo, size), scheduler)
        if scheduler
        else _local(_batches(sweep, todo, size), workers)
    )
    try:
        for rows in source:
            st.write(rows)
            bar.update(len(rows))
            if on_progress is not None:
                on_progress(bar.n, total)
    finally:
        bar.close()
    st.finish(total)
    return st.results


def _progress(total: int, initial: int, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit="run",
        disable=quiet,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.1,
    )
