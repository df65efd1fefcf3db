"""`vho calibrate`: fit the values a paper or a testbed leaves open, and judge the fit on
numbers it did not see.

A calibration file (:mod:`vho.calibrate.spec`) names a scenario (or a study), the open values
with their ranges and the reasons for them, and target numbers with their standard errors,
each fitted or held out. The search (:mod:`vho.calibrate.fit`) runs Optuna's TPE sampler over
the open values, every trial ``replications`` runs on the sweep engine
(:mod:`vho.calibrate.trials`); the defaults and the best point are then run again on fresh
draws, and the report (:mod:`vho.calibrate.report`) judges both on those runs, the held-out
targets apart, with each target's sensitivity to each open value
(:mod:`vho.calibrate.sensitivity`).

The runs are made in a directory beside the output (``.vho-calibrate-<out>-<key>``, the key a
hash of what the trials run, vho's version and Optuna's), so a calibration killed (even by
SIGKILL) and started again with the same ``--out`` resumes: its trials are replayed, their
runs read back.
The output is staged and swapped in whole (:func:`vho.files.staged_output`); the runs move
into it as ``runs/``.

>>> from vho import calibrate
>>> calibrate.run("scenarios/calibrations/dk-fig1-gprs.toml", "out/cal")  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

from .. import files
from .spec import Calibration, CalibrationError, OpenValue, Target, load, parse

#: What `vho calibrate` writes: a directory holding only these is a previous output.
OWNED = (
    r"calibration\.json",
    r"report\.md",
    r"trials\.parquet",
    r"sensitivity\.(csv|png|svg)",
    r"verdicts\.csv",
    "runs",
)
COMMAND = "vho calibrate"


def with_fit(cal: Calibration, fit: list[str] | None) -> Calibration:
    """``--fit``: the named targets fitted, every other held out."""
    if not fit:
        return cal
    names = {t.name for t in cal.targets}
    for n in fit:
        if n not in names:
            raise CalibrationError(
                f"--fit: no target {n!r} in {cal.path}; expected one of {', '.join(sorted(names))}"
            )
    targets = [dataclasses.replace(t, fit=t.name in fit) for t in cal.targets]
    return dataclasses.replace(cal, targets=targets)


def _runs_dir(out: Path, cal: Calibration) -> Path:
    """Where the trials run: beside the output, keyed by what they run, vho's version and
    Optuna's (another sampler would propose other points: its trials are not these)."""
    import optuna

    from .. import __version__

    body = f"{cal.digest()}\0{__version__}\0{optuna.__version__}"
    key = hashlib.blake2b(body.encode(), digest_size=8).hexdigest()
    return out.absolute().parent / f".vho-calibrate-{out.name}-{key}"


def _previous_runs(out: Path, cal: Calibration) -> Path | None:
    """A previous output's runs, when it calibrated the same thing (rerun: nothing to run)."""
    try:
        prev = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    import optuna

    same = prev.get("optimiser", {}).get("version") == optuna.__version__
    if same and prev.get("digest") == cal.digest() and (out / "runs").is_dir():
        return out / "runs"
    return None


def run(
    calibration: str | os.PathLike[str] | Calibration,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    trials: int | None = None,
    fit: list[str] | None = None,
    quiet: bool = False,
    force: bool = False,
    argv: list[str] | None = None,
) -> Path:
    """Runs a calibration into ``out``; returns the path of ``report.md``. ``trials``
    overrides the file's; ``fit`` names the targets fitted (the rest held out)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .. import __version__
    from ..reproduce.study import command_line
    from . import fit as fitmod
    from . import report, sensitivity

    cal = calibration if isinstance(calibration, Calibration) else load(calibration)
    cal = with_fit(cal, fit)
    if trials is not None:
        if trials < 1:
            raise CalibrationError(f"--trials: expected an integer >= 1, got {trials}")
        cal = dataclasses.replace(cal, trials=trials)
    out = Path(out)
    t0 = time.perf_counter()
    runs_dir = _runs_dir(out, cal)
    with files.staged_output(out, command=COMMAND, owned=OWNED, force=force) as stage:
        prev = _previous_runs(out, cal)
        if prev is not None and not runs_dir.exists():
            shutil.copytree(prev, runs_dir)
        runs_dir.mkdir(parents=True, exist_ok=True)
        s = fitmod.search(cal, runs_dir, workers=workers, scheduler=scheduler, quiet=quiet)
        os.replace(runs_dir, stage / "runs")
        try:
            sens = sensitivity.table(cal, s.study)
            res = report.results(cal, s, sens, __version__)
            res["digest"] = cal.digest()
            extra: list[str] = []
            if cal.study is not None:
                from . import studies

                table = studies.verdicts(cal, s)
                counts = studies.tally(table)
                res["verdicts"] = counts
                files.write_table(table, stage / "verdicts.csv")
                extra = studies.markdown(table, counts, cal.study)
            files.write_text_atomic(stage / "calibration.json", report.dumps(res))
            rows = s.rows.drop(columns=[c for c in ("wall_s",) if c in s.rows.columns])
            table = pa.Table.from_pandas(rows, preserve_index=False)
            pq.write_table(table, stage / "trials.parquet")
            files.write_table(sens, stage / "sensitivity.csv")
            title = (
                "sensitivity of each target to each open value (the "
                f"{cal.trials} trials over the declared ranges)"
            )
            sensitivity.figure(sens, stage / "sensitivity", title)
            md = report.markdown(cal, res, command_line(argv))
            files.write_text_atomic(stage / "report.md", md + "\n".join(extra))
        except BaseException:
            os.replace(stage / "runs", runs_dir)
            raise
    if not quiet:
        n = cal.trials + cal.refine
        sys.stderr.write(f"calibration: {n} trials in {time.perf_counter() - t0:.1f} s\n")
    return out / "report.md"


__all__ = ["Calibration", "CalibrationError", "OpenValue", "Target", "load", "parse", "run"]
