"""Hostile `--set key=value` through `vho run` on the later sections' scenarios: every case
must end in a plausible run (exit 0, a complete output) or a clean refusal (exit 2, one line on
stderr that names where the bad input came from, nothing in --out), never a hang, a traceback,
another exit status, a write outside --out or a half-written output that looks complete.

    python3 benches/fuzz_set.py --cases 1000 --jobs 2      # report counts, list failures
    python3 benches/fuzz_set.py --cases 200 --seed 7 --timeout 30 --show refused

The scenarios are those of `fuzz_scenarios.py --surface new` ([mipv6], [nemo], [[schedule]]
ramps, link layers, TFRC, Pareto, probes, and Daniel & Kojo's Fig. 1 with a Mahimahi trace
schedule). Their keys are read from the file and from `vho run --dry-run` (every default
written out, in the general form), so each case draws from the keys a scenario really has,
with one to three `--set`s (issue 40):

- the key: a real one (a leaf, a table, an array of tables), an index out of range (the length,
  -1, 2^64, ` 0`, `01`), an unknown key under a real table, a key of another scenario's section
  (`mipv6.*` on a scenario without it), or a malformed path (empty, `flow..size`, `flow[0]`,
  quoted parts, a trailing dot, 5,000 characters);
- the value: the same type gone wrong (0, negative, huge, NaN, inf, fractional counts), a
  quantity with another, a missing or a bad unit, another key's value (an enum of another
  field), the wrong type (a table, an array, a boolean), trace files that are FIFOs, devices,
  directories, missing or empty, and TOML that does not parse (an unterminated string or
  array, two values, nothing).

A quarter of the cases run over an output of an earlier clean run: a refusal must leave it as
it was. An eighth are `--dry-run`, whose resolved scenario must load again. The cases are drawn
from the seed alone (whatever `--jobs`). tests/test_fuzz_set.py runs two dozen of them.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenarios" / "examples"
BASES = [
    EXAMPLES / "cottingham-wlan-gprs.toml",
    EXAMPLES / "naoe-apc.toml",
    EXAMPLES / "naoe-links.toml",
    EXAMPLES / "tfrc-lossy.toml",
    EXAMPLES / "chen-probe.toml",
    EXAMPLES / "dk-fig1-wlan-gprs.toml",
]
#: A small Mahimahi trace (one delivery opportunity a millisecond, twice) and the schedule
#: that plays it, appended to Daniel & Kojo's Fig. 1 (as fuzz_scenarios.py does).
TRACE = "".join(f"{ms}\n" for ms in range(1, 200) for _ in range(2))
TRACE_SCHEDULE = '\n[[schedule]]\nlink = "gprs"\nat = "0.2 s"\ntrace_file = "t.down"\n'
#: What `vho run` may write in its output (vho.runner.OWNED and the mark).
OWNED = re.compile(
    r"summary\.json|timing\.json|scenario\.resolved\.toml|.+\.pcap|\.vho-output"
    r"|series_(tcp|tfrc|queues|drops|cross|probe)\.parquet|sequence_.+\.(png|svg)"
)

NUMBERS = ["0", "-1", "-0.0", "0.5", "1e308", "-1e308", "1e-320", "nan", "-nan", "inf", "-inf",
           "18446744073709551616", "9223372036854775807", "-9223372036854775808", "4294967296",
           "65536", "1_000", "0x10", "1e3"]  # fmt: skip
UNITS = ["s", "ms", "us", "ns", "b/s", "kb/s", "Mb/s", "Gb/s", "B", "KB", "MB", "GB", "KiB",
         "packets", "parsecs", "", "S", "Ms", "mb/s", "b", "%", "s s"]  # fmt: skip
QUANTITIES = ["0", "-1", "-0", "0.0000001", "1e-12", "1e400", "nan", "inf", "18446744073709551616",
              "1.5", "1e9", "99999999999999", " 5", "5 ", ""]  # fmt: skip
STRINGS = ['""', '" "', '"\\u0000"', '"../../x"', '"/etc/passwd"', '"none"', '"bdp"',
           '"on-traffic"', '"lost"', '"hard"', '"tfrc"', '"pareto"', '"rlc-am"', '"dcf"',
           '"linux"', '"ns2"', '"reno"', '"soft"', "'single'", '"""multi\nline"""',
           '"' + "x" * 5000 + '"', '"ünïcödé"', '"a\\tb"']  # fmt: skip
#: Values that are not TOML (or not one value).
BROKEN = ['"unterminated', "[1,", "{a=", "1 2", "", "=", "[[1]", '"a" "b"', "{", "}", "tru",
          "1979-05-27", "07:32:00", "+", "--1", "[1, 'a']", "{a = 1, a = 2}", "1.", ".5",
          "0b102", "\\", '"\\q"', "[" * 300 + "]" * 300]  # fmt: skip
TYPES = ["true", "false", "[]", "{}", "[1, 2]", '["a"]', "{ x = 1 }", '{ rate = "1 Mb/s" }',
         "[{}]", "[[]]"]  # fmt: skip
#: Files a trace or scenario path may name, made in each case's sandbox.
TRACE_FILES = ['"t.down"', '"missing.trace"', '"/dev/zero"', '"/dev/stdin"', '"/dev/null"',
               '"fifo"', '"."', '"empty.trace"', '"binary.trace"', '"../t.down"', '"/"',
               '"t.down/"', '"huge.trace"']  # fmt: skip
#: Index spellings for a table array of n entries.
INDEXES = ["{n}", "{n1}", "-1", "18446744073709551616", " 0", "01", "0 ", "+0", "1e0", "x", ""]
KEY_WORDS = ["bogus", "rate_bps", "Rate", "seed", "stop", "enabled", "size", "kind", "ra_min",
             "ra_max", "step", "until", "trace", "trace_file", "bler", "ber", "max_dat",
             "retry_limit", "packet_size", "alpha", "mean", "shape", "home_agent"]  # fmt: skip
BROKEN_KEYS = ["", ".", "..", "flow..size", "flow.0.", ".flow.0.size", "flow[0].size",
               'flow."0".size', '"flow".0.size', "flow.0.size ", " flow.0.size", "flow .0.size",
               "flow.0.size.x", "flöw.0.size", "flow.0.size=1", "a" * 5000, ".".join("a" * 300),
               "run", "run.stop.s", "record.pcap.0", "#", "flow.0.'size'",
               "link.0.forward.rate.rate"]  # fmt: skip


def literal(v: object) -> str:
    """A TOML value written back as a `--set` value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {literal(x)}" for k, x in v.items()) + " }"
    return json.dumps(str(v))


@dataclass
class Key:
    path: str
    value: object
    #: "leaf", "table" or "tables" (an array of tables).
    kind: str


def keys_of(doc: dict, prefix: str = "") -> list[Key]:
    """Every key of a resolved scenario as a `--set` path, tables and arrays of tables too."""
    out: list[Key] = []
    for k, v in doc.items():
        name = k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)
        path = prefix + name
        if isinstance(v, dict):
            out.append(Key(path, v, "table"))
            out += keys_of(v, path + ".")
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            out.append(Key(path, v, "tables"))
            for i, x in enumerate(v):
                out.append(Key(f"{path}.{i}", x, "table"))
                out += keys_of(x, f"{path}.{i}.")
        else:
            out.append(Key(path, v, "leaf"))
    return out


@dataclass
class Base:
    path: Path
    text: str
    keys: list[Key]
    #: Each array of tables' length ("flow" -> 2).
    arrays: dict[str, int]
    #: Every string value the scenario holds (an enum of one field is a value for another).
    strings: list[str] = field(default_factory=list)
    #: The keys as the file writes them (the common form's [access.NAME], inline tables).
    own: list[Key] = field(default_factory=list)


def load_bases() -> list[Base]:
    """The scenarios with their keys, read from `vho run --dry-run`."""
    bases = []
    for path in BASES:
        text = path.read_text(encoding="utf-8")
        if path.name == "dk-fig1-wlan-gprs.toml":
            text += TRACE_SCHEDULE
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "s.toml").write_text(text, encoding="utf-8")
            (Path(tmp) / "t.down").write_text(TRACE, encoding="utf-8")
            p = subprocess.run(
                [sys.executable, "-m", "vho.cli", "run", "s.toml", "--dry-run"],
                capture_output=True, text=True, cwd=tmp, check=True,
            )  # fmt: skip
        doc = tomllib.loads(p.stdout)
        keys = keys_of(doc)
        arrays = {k.path: len(k.value) for k in keys if k.kind == "tables"}  # type: ignore[arg-type]
        strings = sorted({k.value for k in keys if isinstance(k.value, str)})  # type: ignore[misc]
        own = keys_of(tomllib.loads(text))
        bases.append(Base(path, text, keys, arrays, strings, own))
    return bases


def hostile_value(rng: random.Random, key: Key | None, base: Base) -> str:
    """A value for `key` gone wrong in one of the ways the module doc lists."""
    v = key.value if key is not None else None
    if rng.random() < 0.45 and key is not None:
        return extreme_value(rng, key, base)
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(BROKEN)
    if roll < 0.16:
        return rng.choice(TYPES)
    if roll < 0.22 or (key is not None and "trace" in key.path and roll < 0.5):
        return rng.choice(TRACE_FILES)
    if roll < 0.3:
        return json.dumps(rng.choice(base.strings)) if base.strings else rng.choice(STRINGS)
    if isinstance(v, bool):
        return rng.choice(["1", "0", '"true"', "yes", "True", "[true]"])
    if isinstance(v, int | float):
        if rng.random() < 0.5:
            return rng.choice(NUMBERS)
        return repr(rng.choice([v * 1e6, -v, v / 3, v + 0.5, v * 1e-9, float(v), int(v)]))
    if isinstance(v, str):
        m = re.fullmatch(r"(-?\d[\d.]*(?:e[+-]?\d+)?)\s*(\S.*)?", v)
        if m and rng.random() < 0.8:
            number, unit = m.group(1), m.group(2) or ""
            if rng.random() < 0.5:
                number = rng.choice(QUANTITIES)
            else:
                unit = rng.choice(UNITS)
            return json.dumps(f"{number} {unit}".strip() if unit else number)
        return rng.choice(STRINGS)
    if isinstance(v, list):
        if v and rng.random() < 0.5:
            i = rng.randrange(len(v))
            w = list(v)
            w[i] = tomllib.loads(f"x = {rng.choice(NUMBERS + STRINGS[:8])}")["x"]
            return literal(w)
        return rng.choice(["[]", "[1e308]", '["x", 1]', literal(v * 50), "[[1], [2]]", "nan"])
    if isinstance(v, dict):
        if v and rng.random() < 0.6:
            w = dict(v)
            k = rng.choice(list(w))
            if rng.random() < 0.5:
                del w[k]
            else:
                w[k + rng.choice(["", "x"])] = tomllib.loads(f"x = {rng.choice(NUMBERS)}")["x"]
            return literal(w)
        return rng.choice(["{}", "5", '"x"', "[]"])
    return rng.choice(NUMBERS + STRINGS + TYPES)


#: Factors a valid quantity is scaled by: each still a value of the field's type.
FACTORS = [0, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 2, 10, 1e3, 1e6, 1e9]


def extreme_value(rng: random.Random, key: Key, base: Base) -> str:
    """A value of the key's own type and unit taken to an extreme (zero, tiny, huge), or
    another value that field could hold: most of these parse, and many run."""
    v = key.value
    if isinstance(v, bool):
        return literal(not v)
    if isinstance(v, int):
        return repr(int(v * rng.choice(FACTORS)) + rng.choice([0, 0, 1, -1]))
    if isinstance(v, float):
        return repr(v * rng.choice(FACTORS) + rng.choice([0.0, 0.0, 1e-12]))
    if isinstance(v, str):
        m = re.fullmatch(r"(-?\d[\d.]*(?:e[+-]?\d+)?)\s*(\S.*)?", v)
        if m:
            x = float(m.group(1)) * rng.choice(FACTORS)
            number = f"{x:g}" if rng.random() < 0.7 else repr(x)
            return json.dumps(f"{number} {m.group(2) or ''}".strip())
        return json.dumps(rng.choice(base.strings))
    if isinstance(v, list) and v:
        return literal(rng.choice([v[:1], v[::-1], v * 2, []]))
    return literal(v)


def hostile_key(rng: random.Random, base: Base, bases: list[Base]) -> tuple[str, Key | None]:
    """A `--set` path and the real key it stands for (None when there is none)."""
    roll = rng.random()
    if roll < 0.3:
        k = rng.choice(base.own)
        return k.path, k
    if roll < 0.55:
        k = rng.choice(base.keys)
        return k.path, k
    if roll < 0.7 and base.arrays:
        # An index out of range or misspelt, then the rest of a real key under that array.
        array = rng.choice(sorted(base.arrays))
        n = base.arrays[array]
        under = [k for k in base.keys if k.path.startswith(f"{array}.0.")]
        rest = rng.choice(under).path.removeprefix(f"{array}.0.") if under else "x"
        index = rng.choice(INDEXES).format(n=n, n1=n + 5)
        return f"{array}.{index}.{rest}", None
    if roll < 0.8:
        table = rng.choice([k for k in base.keys if k.kind == "table"])
        return f"{table.path}.{rng.choice(KEY_WORDS)}", None
    if roll < 0.92:
        other = rng.choice(bases)
        k = rng.choice(other.keys)
        return k.path, k
    return rng.choice(BROKEN_KEYS), None


@dataclass
class Case:
    case: int
    base: Base
    sets: list[str]
    dry_run: bool
    #: Run over an earlier clean output of the same scenario.
    over_output: bool


def draw(cases: int, seed: int, bases: list[Base]) -> list[Case]:
    rng = random.Random(seed)
    out = []
    for case in range(cases):
        base = rng.choice(bases)
        sets = []
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            path, key = hostile_key(rng, base, bases)
            if rng.random() < 0.04:
                sets.append(path)  # no '=' at all
                continue
            value = hostile_value(rng, key, base)
            if path == "run.stop" and re.search(r"e\d{2,}|\d{8,}|inf", value):
                value = '"0 s"'  # a long run is what it asks for, not a hang
            sets.append(f"{path}={value}")
        out.append(Case(case, base, sets, rng.random() < 0.125, rng.random() < 0.25))
    return out


@dataclass
class Outcome:
    case: int
    verdict: str  # "run", "refused", "dry-run", or a failure
    detail: str = ""
    sets: list[str] = field(default_factory=list)


def _sandbox(d: Path, base: Base) -> None:
    d.mkdir(parents=True)
    (d / "s.toml").write_text(base.text, encoding="utf-8")
    (d / "t.down").write_text(TRACE, encoding="utf-8")
    (d / "empty.trace").write_bytes(b"")
    (d / "binary.trace").write_bytes(bytes(range(256)) * 4)
    with open(d / "huge.trace", "wb") as f:  # sparse: 2 GiB of zero bytes that take no disk
        f.truncate(2 << 30)
    os.mkfifo(d / "fifo")


def _snapshot(root: Path) -> dict[str, float]:
    return {str(p): p.lstat().st_mtime for p in root.rglob("*")}


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str] | None:
    """`vho` with `args` in its own process group (killed whole on a timeout); None then."""
    p = subprocess.Popen(
        [sys.executable, "-m", "vho.cli", *args], cwd=cwd, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    return subprocess.CompletedProcess(args, p.returncode, out, err)


def _names_its_source(line: str, sets: list[str]) -> bool:
    """A refusal's line starts with where the bad input came from: a `--set`, the scenario,
    a file it names, or the output."""
    return line.startswith(("--set ", "s.toml", "t.down", "out:", "vho run: --set")) or any(
        line.startswith(s) for s in ("/", "./", "../", "fifo", "empty.trace", "binary.trace")
    )


def run_case(c: Case, work: Path, pristine: dict[str, Path], timeout: float) -> Outcome:
    # Three levels down: a path such as ../../x stays inside `work`, where it is seen.
    d = work / "a" / "b" / f"case{c.case}"
    _sandbox(d, c.base)
    out = d / "out"
    if c.over_output:
        shutil.copytree(pristine[c.base.path.name], out)
    args = ["run", "s.toml", "--out", "out"] + [a for s in c.sets for a in ("--set", s)]
    if c.dry_run:
        args.append("--dry-run")
    before = _snapshot(work)
    p = _run(args, d, timeout)
    if p is None:
        return Outcome(c.case, "HANG", f"no answer in {timeout} s", c.sets)
    after = _snapshot(work)
    changed = [x for x, t in after.items() if before.get(x) != t]
    outside = [x for x in changed if not (x == str(out) or x.startswith(str(out) + os.sep))]
    outside = [x for x in outside if x != str(d)]  # the sandbox's own mtime (out created)
    if outside:
        return Outcome(c.case, "WROTE OUTSIDE --out", ", ".join(outside[:3]), c.sets)
    if "Traceback" in p.stderr or "panicked" in p.stderr:
        return Outcome(c.case, "TRACEBACK", p.stderr.strip()[-400:], c.sets)
    untouched = not out.exists() or (c.over_output and _same_tree(pristine[c.base.path.name], out))
    if p.returncode == 2:
        if p.stderr.count("\n") != 1:
            return Outcome(c.case, "REFUSAL NOT ONE LINE", p.stderr[:400], c.sets)
        if not untouched:
            return Outcome(c.case, "REFUSED BUT CHANGED --out", p.stderr.strip(), c.sets)
        if not _names_its_source(p.stderr, c.sets):
            return Outcome(c.case, "REFUSAL NAMES NO SOURCE", p.stderr.strip(), c.sets)
        return Outcome(c.case, "refused", p.stderr.strip(), c.sets)
    if p.returncode != 0:
        return Outcome(c.case, f"EXIT {p.returncode}", p.stderr.strip()[-400:], c.sets)
    if c.dry_run:
        return _check_dry_run(c, d, p.stdout, untouched, timeout)
    return _check_output(c, out, p.stderr)


def _same_tree(a: Path, b: Path) -> bool:
    names = sorted(x.name for x in a.iterdir())
    if names != sorted(x.name for x in b.iterdir()):
        return False
    return all(filecmp.cmp(a / n, b / n, shallow=False) for n in names)


def _check_dry_run(c: Case, d: Path, stdout: str, untouched: bool, timeout: float) -> Outcome:
    if not untouched:
        return Outcome(c.case, "DRY RUN WROTE --out", "", c.sets)
    try:
        tomllib.loads(stdout)
    except tomllib.TOMLDecodeError as e:
        return Outcome(c.case, "DRY RUN NOT TOML", str(e), c.sets)
    # The resolved scenario loads again as it is (issue 40 item 24).
    (d / "resolved.toml").write_text(stdout, encoding="utf-8")
    p = _run(["run", "resolved.toml", "--dry-run"], d, timeout)
    if p is None or p.returncode != 0:
        detail = "no answer" if p is None else p.stderr.strip()[-400:]
        return Outcome(c.case, "RESOLVED DOES NOT LOAD", detail, c.sets)
    return Outcome(c.case, "dry-run", "", c.sets)


def _check_output(c: Case, out: Path, stderr: str) -> Outcome:
    try:
        s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return Outcome(c.case, "RUN WITHOUT A SUMMARY", str(e), c.sets)
    odd = [x.name for x in out.iterdir() if not OWNED.fullmatch(x.name)]
    if odd:
        return Outcome(c.case, "STRAY FILES IN --out", ", ".join(odd[:3]), c.sets)
    leftovers = [x.name for x in out.parent.iterdir() if x.name.startswith(".vho-partial-")]
    if leftovers:
        return Outcome(c.case, "STAGING LEFT", ", ".join(leftovers), c.sets)
    for f in s["flows"]:
        # An unbounded flow (TFRC, Pareto, CBR without a size) has `bytes` null.
        if f.get("bytes") is not None and f["bytes_delivered"] > f["bytes"]:
            return Outcome(c.case, "IMPLAUSIBLE", f"{f['bytes_delivered']} > {f['bytes']}", c.sets)
    lines = [x for x in stderr.splitlines() if x.strip()]
    if any(not x.startswith("warning: ") for x in lines):
        return Outcome(c.case, "STDERR ON SUCCESS", stderr[-400:], c.sets)
    return Outcome(c.case, "run", s["run"]["ended_by"], c.sets)


def fuzz(cases: int, seed: int, timeout: float, jobs: int = 1) -> list[Outcome]:
    bases = load_bases()
    todo = draw(cases, seed, bases)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pristine = {}
        for base in bases:
            d = work / "pristine" / base.path.stem
            _sandbox(d, base)
            p = _run(["run", "s.toml", "--out", "out"], d, timeout)
            assert p is not None and p.returncode == 0, (base.path, p and p.stderr)
            pristine[base.path.name] = d / "out"
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            futures = [ex.submit(run_case, c, work / f"w{c.case}", pristine, timeout) for c in todo]
            results = []
            for c, f in zip(todo, futures, strict=True):
                results.append(f.result())
                shutil.rmtree(work / f"w{c.case}", ignore_errors=True)
            return results


def _short(text: str, n: int = 300) -> str:
    return text if len(text) <= n else f"{text[: n // 2]}...({len(text)} chars)...{text[-n // 2 :]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at a time")
    ap.add_argument("--show", choices=["failures", "refused", "all"], default="failures")
    a = ap.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    results = fuzz(a.cases, a.seed, a.timeout, a.jobs)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(json.dumps(counts, sort_keys=True))
    good = {"run", "refused", "dry-run"}
    for r in results:
        if r.verdict not in good or a.show == "all" or (a.show == "refused" == r.verdict):
            print(f"case {r.case}: {r.verdict}: {_short(r.detail)} <- {_short(repr(r.sets))}")
    sys.exit(1 if any(r.verdict not in good for r in results) else 0)


if __name__ == "__main__":
    main()
