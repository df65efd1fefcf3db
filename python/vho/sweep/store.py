"""The on-disk form of a sweep: ``DIR/sweep.json`` and a Parquet dataset ``DIR/results/``.

- ``sweep.json`` names the sweep (file, digest of its runs, number of runs) and says
  ``"complete": false`` until every task has exactly one row; it is rewritten atomically.
- ``.lock``: one sweep at a time writes a directory. The writer holds an exclusive ``flock``
  on it (released by the kernel when the process dies, however it dies) and writes into it
  who it is; a second sweep on the directory is refused, naming the holder.
- ``results/part-NNNNNN.parquet``: one part per finished batch, written under a hidden name
  and renamed into place, so a part is either whole or absent. Readers (pandas, polars,
  DuckDB, pyarrow) ignore hidden files; a resumed sweep deletes the debris of a killed one.
- One row per run: ``task``, ``point``, ``replication``, ``seed``, the axis columns (as
  written, and ``<axis>_si`` in base units for an axis with units: :mod:`vho.sweep.units`),
  every summary metric (a flow's once: :func:`vho.sweep.engine.flatten_summary`), ``error``
  (null when the run succeeded), ``wall_s``, ``vho_version`` and ``scenario_hash``
  (``docs/sweeps.md`` lists them). A run that failed, or exceeded ``--run-timeout``, is a row
  too: a resumed sweep does not run it again.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import files
from ..errors import SweepError, VhoError
from .spec import Sweep

MANIFEST = "sweep.json"
RESULTS = "results"
LOCK = ".lock"
#: Lock descriptors this process holds; a forked worker closes its copies (see
#: :func:`vho.sweep.engine.die_with_parent`), so that the lock dies with the parent alone.
HELD_LOCKS: set[int] = set()


def _lock(root: Path) -> int:
    """Takes the directory's lock (see the module doc); returns its descriptor."""
    path = root / LOCK
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise SweepError(f"{root}: cannot create the output directory: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise SweepError(f"{path}: cannot lock the sweep directory: {e.strerror}") from None
        # The holder writes who it is right after it takes the lock: give it a moment, so
        # that the refusal names it (two sweeps started together met in that gap).
        holder = ""
        for _ in range(50):
            try:
                holder = path.read_text(encoding="utf-8").strip()
            except OSError:
                holder = "another process"
            if holder:
                break
            time.sleep(0.01)
        holder = holder or "a sweep starting up"
        raise SweepError(
            f"{root}: in use by another sweep ({holder}); wait for it, or choose another --out"
        ) from None
    since = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    me = f"pid {os.getpid()} on {socket.gethostname()} since {since}"
    os.ftruncate(fd, 0)
    os.pwrite(fd, me.encode() + b"\n", 0)
    HELD_LOCKS.add(fd)
    return fd


def _part_error(results: Path, e: OSError) -> SweepError:
    return SweepError(f"{results}: cannot write a results part: {e.strerror or e}")


@dataclass
class Store:
    root: Path
    results: Path
    manifest: dict[str, Any]
    done: set[int] = field(default_factory=set)
    next_part: int = 0
    #: One schema for every part, so that the dataset reads as one table.
    schema: pa.Schema | None = None
    #: The directory's lock (a file descriptor), held until :meth:`close`.
    lock_fd: int | None = None

    @classmethod
    def open(cls, root: Path, sweep: Sweep, *, resume: bool) -> Store:
        fd = _lock(root)
        try:
            return cls._open_locked(root, sweep, resume=resume, lock_fd=fd)
        except BaseException:
            HELD_LOCKS.discard(fd)
            os.close(fd)
            raise

    @classmethod
    def _open_locked(cls, root: Path, sweep: Sweep, *, resume: bool, lock_fd: int) -> Store:
        results = root / RESULTS
        man_path = root / MANIFEST
        manifest = {
            "name": sweep.name,
            "scenario": sweep.label,
            "digest": sweep.digest(),
            "columns": sweep.columns,
            "axis_units": sweep.axis_units,
            "points": len(sweep.points),
            "replications": sweep.replications,
            "runs": sweep.n_runs,
            "seed": sweep.seed,
            "seeds": sweep.seeds,
            "sweep_file": sweep.source,
            "complete": False,
        }
        has_parts = results.is_dir() and any(results.glob("part-*.parquet"))
        if has_parts and not resume:
            raise SweepError(
                f"{root}: already holds sweep results; pass --resume to continue them, or "
                "choose another --out"
            )
        done: set[int] = set()
        next_part = 0
        schema = None
        if has_parts:
            try:
                old = json.loads(man_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                old = {}
            if old.get("digest") != manifest["digest"]:
                raise SweepError(
                    f"{root}/{MANIFEST}: these results are of another sweep (digest "
                    f"{old.get('digest')}, this sweep {manifest['digest']}); use another --out"
                )
            for f in results.iterdir():
                if f.name.startswith("."):
                    f.unlink()  # a part being written when the sweep was killed
            parts = sorted(results.glob("part-*.parquet"))
            for p in parts:
                col = pq.read_table(p, columns=["task"]).column("task").to_pylist()
                done.update(col)
            next_part = 1 + max(int(p.stem.split("-")[1]) for p in parts)
            schema = pq.read_schema(parts[0])
        try:
            results.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SweepError(f"{root}: cannot create the output directory: {e.strerror}") from None
        st = cls(root, results, manifest, done, next_part, schema, lock_fd)
        st._write_manifest()
        return st

    def close(self) -> None:
        """Releases the directory's lock."""
        if self.lock_fd is not None:
            HELD_LOCKS.discard(self.lock_fd)
            os.close(self.lock_fd)
            self.lock_fd = None

    def _write_manifest(self) -> None:
        body = json.dumps(self.manifest, indent=2) + "\n"
        try:
            files.write_text_atomic(self.root / MANIFEST, body)
        except VhoError as e:
            raise SweepError(str(e)) from None

    def write(self, rows: list[dict[str, Any]]) -> None:
        """One batch's rows as one part, atomically."""
        if not rows:
            return
        if self.schema is None:
            ok = next((r for r in rows if r.get("error") is None), None)
            if ok is not None:
                self.schema = schema_of(ok)
        tmp = write_hidden(self.results, rows, self.schema)
        self.publish(tmp, [r["task"] for r in rows])

    def publish(self, tmp: Path, tasks: list[int]) -> None:
        """Moves a part written under a hidden name (by a worker) into place, under a number
        no part has: a link, which never replaces an existing file, then the hidden name
        removed."""
        try:
            while True:
                name = self.results / f"part-{self.next_part:06d}.parquet"
                self.next_part += 1
                try:
                    os.link(tmp, name)
                    break
                except FileExistsError:
                    continue
            tmp.unlink()
        except OSError as e:
            raise _part_error(self.results, e) from None
        self.done.update(tasks)

    def finish(self, total: int) -> bool:
        """Marks the sweep complete if every task 0..total-1 has exactly one row (read back
        from the parts, not from what this process believes it wrote); returns whether."""
        tasks: list[int] = []
        for p in sorted(self.results.glob("part-*.parquet")):
            tasks += pq.read_table(p, columns=["task"]).column("task").to_pylist()
        complete = len(tasks) == total and sorted(tasks) == list(range(total))
        self.manifest["complete"] = complete
        if not complete:
            dup = len(tasks) - len(set(tasks))
            self.manifest["rows"] = len(tasks)
            self.manifest["duplicate_rows"] = dup
        self._write_manifest()
        return complete


def schema_of(row: dict[str, Any]) -> pa.Schema:
    """The schema of every part, from one row of a successful run (the engine's probe): a
    value that is null there is a float (a time or rate that did not happen), the error a
    string; rows of failed runs get nulls for the metrics they lack."""
    fields = []
    for f in pa.Table.from_pylist([row]).schema:
        if pa.types.is_null(f.type):
            f = f.with_type(pa.string() if f.name == "error" else pa.float64())
        fields.append(f)
    return pa.schema(fields)


def widened(schema: pa.Schema | None, rows: list[dict[str, Any]]) -> pa.Schema | None:
    """``schema`` with a column more for each key of ``rows`` it lacks (a study's points
    differ: a measured point's ``measured``, a two-flow scenario's ``flow.<name>.*``): the
    parts then differ in columns, and :func:`load` reads them as one table (a part without a
    column reads as nulls there)."""
    if schema is None:
        return None
    have = set(schema.names)
    new = list(dict.fromkeys(k for r in rows for k in r if k not in have))
    if not new:
        return schema
    fields = list(schema)
    for k in new:
        try:
            t = pa.array([r.get(k) for r in rows]).type
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            t = pa.string()
        if pa.types.is_null(t):
            t = pa.string() if k == "error" else pa.float64()
        fields.append(pa.field(k, t))
    return pa.schema(fields)


def write_hidden(results: Path, rows: list[dict[str, Any]], schema: pa.Schema | None) -> Path:
    """Rows as a Parquet file under a hidden, unique name in ``results`` (readers skip it
    until it is published)."""
    schema = widened(schema, rows)
    if schema is not None:
        table = pa.Table.from_pylist(rows, schema=schema)
    else:  # every run so far failed: no metrics to fix a schema by yet
        table = pa.Table.from_pylist(rows)
    tmp = results / f".part-{uuid.uuid4().hex}.parquet"
    try:
        pq.write_table(table, tmp)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise _part_error(results, e) from None
    return tmp


def load(root: str | os.PathLike[str]) -> pd.DataFrame:
    """The results of a sweep directory as a pandas DataFrame, in task order."""

    results = Path(root) / RESULTS
    parts = sorted(results.glob("part-*.parquet")) if results.is_dir() else []
    if not parts:
        raise SweepError(f"{root}: no sweep results (expected {results}/part-*.parquet)")
    tables = [pq.read_table(p) for p in parts]
    df = pa.concat_tables(tables, promote_options="permissive").to_pandas()
    return df.sort_values("task", kind="stable").reset_index(drop=True)
