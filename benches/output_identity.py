"""Whether a change moved any output: every bundled example (series on) and every study's
`--quick` run by one build into a folder, then two such folders compared file by file.

    python3 benches/output_identity.py write DIR [--jobs 2]
    python3 benches/output_identity.py compare BEFORE AFTER

`write` runs `vho` as installed (the build under test). `compare` prints every file whose bytes
differ, and every file present on one side only; it exits 1 when anything moved. Left out or
read past, as they carry the machine's time and not the model's: `timing.json`, sweep locks,
figures (matplotlib stamps SVGs; they are drawn from the tables compared), a report's lines
that give a wall-clock time, a report stamp's commit, study code hash and command line, CSV
columns named `wall*`. A sweep's results are compared as one table per sweep (its part files
split where the workers happened to finish), sorted by every column; any other Parquet file by
content when its bytes differ. `--ignore-key K` drops a summary key from both sides (a key a
change adds on purpose).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "scenarios" / "examples").glob("*.toml"))
STUDIES = ("daniel-kojo", "cottingham", "naoe", "chen", "thesis")
#: Files that carry wall-clock time by design.
SKIP = {"timing.json", ".lock"}
SKIP_SUFFIXES = {".svg", ".png"}
#: A report's line that gives a wall-clock time.
WALL = re.compile(r"(?i)wall|runs in [0-9.]+ s")
#: A study report's stamp that names the build and the command, not the model: the commit,
#: the study code's hash (any change to the study's package moves it) and the command line
#: (its --out). Read past; the study file's hash and the runs digest stay compared.
STAMP = (
    (re.compile(r"commit [0-9a-f]+(\+dirty)?"), "commit -"),
    (re.compile(r"study code sha256 [0-9a-f]+"), "study code sha256 -"),
    (re.compile(r"^- command: `.*`$"), "- command: -"),
)
#: Keys of a JSON file that carry wall-clock time or the build, dropped before comparing.
VOLATILE_KEYS = {"wall_s", "wall_clock_s", "elapsed_s", "started_at", "finished_at", "commit"}


def _jobs() -> list[list[str]]:
    out = []
    for ex in EXAMPLES:
        out.append(["run", str(ex), "--set", "record.series=true", "--out", f"ex/{ex.stem}"])
    for s in STUDIES:
        out.append(["reproduce", s, "--quick", "--out", f"studies/{s}"])
    return out


def write(dest: Path, jobs: int) -> int:
    dest.mkdir(parents=True, exist_ok=True)

    def one(args: list[str]) -> tuple[list[str], int, str]:
        out = dest / args[-1]
        cmd = [sys.executable, "-m", "vho.cli", *args[:-1], str(out), "--force"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0 and "--force" in p.stderr:
            p = subprocess.run(cmd[:-1], capture_output=True, text=True)
        return args, p.returncode, p.stderr[-400:]

    status = 0
    with ThreadPoolExecutor(jobs) as pool:
        for args, rc, err in pool.map(one, _jobs()):
            print(f"{rc}  {' '.join(args)}")
            if rc != 0:
                status = 1
                print(err, file=sys.stderr)
    return status


def _digest(path: Path, ignore: frozenset[str] = frozenset()) -> str:
    if path.suffix == ".csv":
        import pandas as pd

        try:
            t = pd.read_csv(path)
        except Exception:
            return hashlib.sha256(path.read_bytes()).hexdigest()
        t = t[[c for c in t.columns if not str(c).startswith("wall")]]
        return hashlib.sha256(t.to_csv(index=False).encode()).hexdigest()
    if path.suffix == ".md":
        lines = [_stamp(ln) for ln in path.read_text().splitlines() if not WALL.search(ln)]
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            return hashlib.sha256(path.read_bytes()).hexdigest()
        scrubbed = json.dumps(_scrub(data, ignore), sort_keys=False)
        return hashlib.sha256(scrubbed.encode()).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stamp(line: str) -> str:
    for pattern, plain in STAMP:
        line = pattern.sub(plain, line)
    return line


def _scrub(x: object, ignore: frozenset[str] = frozenset()) -> object:
    if isinstance(x, dict):
        return {
            k: _scrub(v, ignore) for k, v in x.items() if k not in VOLATILE_KEYS and k not in ignore
        }
    if isinstance(x, list):
        return [_scrub(v, ignore) for v in x]
    return x


def _results(folder: Path) -> object:
    """A sweep's results as one table, sorted by every column (None when absent)."""
    import pandas as pd

    parts = sorted(folder.glob("part-*.parquet"))
    if not parts:
        return None
    t = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
    t = t[[c for c in t.columns if not str(c).startswith("wall")]]
    return t.sort_values(list(t.columns)).reset_index(drop=True)


def _same_parquet(a: Path, b: Path) -> bool:
    import pandas as pd

    try:
        return pd.read_parquet(a).equals(pd.read_parquet(b))
    except Exception:
        return False


def compare(before: Path, after: Path, ignore: frozenset[str] = frozenset()) -> int:
    def listed(root: Path) -> set[Path]:
        return {
            p.relative_to(root)
            for p in root.rglob("*")
            if p.is_file()
            and p.name not in SKIP
            and p.suffix not in SKIP_SUFFIXES
            and not p.name.startswith("part-")
        }

    files = listed(before) | listed(after)
    moved = 0
    for rel in sorted(files):
        a, b = before / rel, after / rel
        if not a.exists() or not b.exists():
            print(f"only in {'after' if b.exists() else 'before'}: {rel}")
            moved += 1
        elif _digest(a, ignore) != _digest(b, ignore):
            if rel.suffix == ".parquet" and _same_parquet(a, b):
                continue
            print(f"differs: {rel}")
            moved += 1
    sweeps = {p.parent.relative_to(before) for p in before.rglob("results/part-*.parquet")}
    sweeps |= {p.parent.relative_to(after) for p in after.rglob("results/part-*.parquet")}
    for rel in sorted(sweeps):
        ta, tb = _results(before / rel), _results(after / rel)
        if ta is None or tb is None or not ta.equals(tb):
            print(f"differs: {rel} (sweep results)")
            moved += 1
    print(f"{len(files)} files and {len(sweeps)} sweeps' results, {moved} moved")
    return 1 if moved else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("dest", type=Path)
    w.add_argument("--jobs", type=int, default=2)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--ignore-key", action="append", default=[])
    a = ap.parse_args()
    if a.cmd == "write":
        return write(a.dest, a.jobs)
    return compare(a.before, a.after, frozenset(a.ignore_key))


if __name__ == "__main__":
    sys.exit(main())
