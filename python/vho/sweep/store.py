"""The on-disk form of a sweep: ``DIR/sweep.json`` and a Parquet dataset ``DIR/results/``.

- ``sweep.json`` names the sweep (file, digest of its runs, number of runs) and says
  ``"complete": false`` until the last row is written; it is rewritten atomically.
- ``results/part-NNNNNN.parquet``: one part per finished batch, written under a hidden name
  and renamed into place, so a part is either whole or absent. Readers (pandas, polars,
  DuckDB, pyarrow) ignore hidden files; a resumed sweep deletes the debris of a killed one.
- One row per run: ``task``, ``point``, ``replication``, ``seed``, the axis columns, every
  summary metric, ``error`` (null when the run succeeded), ``wall_s``, ``vho_version`` and
  ``scenario_hash``.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import SweepError
from .spec import Sweep

MANIFEST = "sweep.json"
RESULTS = "results"


@dataclass
class Store:
    root: Path
    results: Path
    manifest: dict[str, Any]
    done: set[int] = field(default_factory=set)
    next_part: int = 0
    #: One schema for every part, so that the dataset reads as one table.
    schema: pa.Schema | None = None

    @classmethod
    def open(cls, root: Path, sweep: Sweep, *, resume: bool) -> Store:
        results = root / RESULTS
        man_path = root / MANIFEST
        manifest = {
            "name": sweep.name,
            "scenario": sweep.label,
            "digest": sweep.digest(),
            "columns": sweep.columns,
            "points": len(sweep.points),
            "replications": sweep.replications,
            "runs": len(sweep.points) * sweep.replications,
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
        st = cls(root, results, manifest, done, next_part, schema)
        st._write_manifest()
        return st

    def _write_manifest(self) -> None:
        tmp = self.root / f".{MANIFEST}.tmp"
        tmp.write_text(json.dumps(self.manifest, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.root / MANIFEST)

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
        """Renames a part written under a hidden name (by a worker) into place."""
        name = f"part-{self.next_part:06d}.parquet"
        os.replace(tmp, self.results / name)
        self.next_part += 1
        self.done.update(tasks)

    def finish(self, total: int) -> None:
        if len(self.done) == total:
            self.manifest["complete"] = True
            self._write_manifest()


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


def write_hidden(results: Path, rows: list[dict[str, Any]], schema: pa.Schema | None) -> Path:
    """Rows as a Parquet file under a hidden, unique name in ``results`` (readers skip it
    until it is published)."""
    if schema is not None:
        table = pa.Table.from_pylist(rows, schema=schema)
    else:  # every run so far failed: no metrics to fix a schema by yet
        table = pa.Table.from_pylist(rows)
    tmp = results / f".part-{uuid.uuid4().hex}.parquet"
    pq.write_table(table, tmp)
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
