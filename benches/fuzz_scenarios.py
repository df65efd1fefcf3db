"""Mutated scenarios through `vho run`: every outcome must be a clean refusal (exit 2, one line
on stderr, no traceback, nothing in --out) or a plausible run (exit 0, a summary.json whose
flows deliver no more than they were given), never a hang, a traceback, another exit status or
a file written outside --out.

    python3 benches/fuzz_scenarios.py --cases 1000            # report counts, list failures
    python3 benches/fuzz_scenarios.py --cases 200 --seed 7 --timeout 30
    python3 benches/fuzz_scenarios.py --surface new --cases 1000 --jobs 2

`--surface classic` mutates the Daniel & Kojo, thesis and lossy-link scenarios; `--surface new`
the ones of the later sections: `[mipv6]` (Cottingham), `[nemo]` and `[[schedule]]` ramps
(Naoe), TFRC, Pareto cross traffic and probes (Chen), and schedules with a Mahimahi trace
file beside the scenario; `all` both.

The mutations (one to three per case, drawn from the seed): delete, duplicate or swap lines;
replace a number by 0, a negative, a huge or a fractional value; replace a quoted value by an
empty string, a path, a unit-less number or random bytes; truncate the file; insert a key with
an odd value. tests/test_fuzz_scenarios.py runs a few dozen of them on every CI run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenarios" / "examples"
SEEDS = [
    EXAMPLES / "dk-fig1-wlan-gprs.toml",
    EXAMPLES / "dk-fig2-gprs-wlan.toml",
    EXAMPLES / "thesis-wavelan-gsm.toml",
    ROOT / "benches" / "scenarios" / "lossy-link.toml",
]
#: The later sections' scenarios, and the text of a small Mahimahi trace written beside each
#: case as `t.down` (a trace-file schedule is appended to the Fig. 1 case).
NEW_SEEDS = [
    EXAMPLES / "cottingham-wlan-gprs.toml",
    EXAMPLES / "naoe-apc.toml",
    EXAMPLES / "naoe-links.toml",
    EXAMPLES / "tfrc-lossy.toml",
    EXAMPLES / "chen-probe.toml",
]
TRACE = "".join(f"{ms}\n" for ms in range(1, 200) for _ in range(2))
TRACE_SCHEDULE = '\n[[schedule]]\nlink = "gprs"\nat = "0.2 s"\ntrace_file = "t.down"\n'

ODD_NUMBERS = ["0", "-1", "-0.5", "1e30", "18446744073709551616", "0.0000001", "nan", "inf"]
ODD_STRINGS = ['""', '"../../x"', '"/etc/passwd"', '"5"', '"0 s"', '"1 ns"', '"-3 ms"',
               '"99999999 GB"', '"\\u0000"', '"bdp"', '"1 packets"', '"hard"']  # fmt: skip
ODD_KEYS = ["loss = 1.0", "loss = 2", 'queue = "1 packets"', 'delay = "1000 s"',
            'rate = "1 b/s"', "seed = -4", 'stop = "0 s"', "drop_packets = [3, 1]",
            'tcp = { profile = "linux", max_rto = "0 s" }', "mtu = 0"]  # fmt: skip
#: Keys of the later sections with odd values (issue 40's hostile cases among them).
NEW_ODD_KEYS = ['ra_min = "1 ns"', 'ra_max = "0 s"', 'min_delay_between_ras = "1 us"',
                'dad = "psychic"', 'in_flight = "maybe"', 'in_flight = "lost"',
                "bler = [0.1, 2]", "bler = -1", 'step = "1 ns"', 'until = "2000000 s"',
                'trace_file = "/dev/zero"', 'trace_file = "/dev/stdin"', "trace = [0]",
                'trace_file = "missing.trace"', 'trace_sha256 = "00"', "max_dat = 1",
                "fra_cap = 3", 'size = "1 KB"', "count = 0", 'ro_start = "never"',
                'home_agent = "cn"', "correspondents = []", "retry_limit = 0",
                'kind = "tfrc"', 'kind = "pareto"', "preconfigured = 7"]  # fmt: skip


def mutate(text: str, rng: random.Random, odd_keys: list[str] = ODD_KEYS) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.randrange(8)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3 and re.search(r"\d", lines[i]):
            odd = rng.choice(ODD_NUMBERS)
            lines[i] = re.sub(r"-?\d+(\.\d+)?", lambda _m, odd=odd: odd, lines[i], count=1)
        elif kind == 4 and '"' in lines[i]:
            odd = rng.choice(ODD_STRINGS)
            lines[i] = re.sub(r'"[^"]*"', lambda _m, odd=odd: odd, lines[i], count=1)
        elif kind == 5:
            lines.insert(i, rng.choice(odd_keys))
        elif kind == 6:
            cut = rng.randrange(len(text) + 1)
            return text[:cut]
        else:
            junk = bytes(rng.randrange(32, 127) for _ in range(rng.randint(1, 12)))
            lines[i] = lines[i] + junk.decode()
    return "\n".join(lines) + "\n"


@dataclass
class Outcome:
    case: int
    verdict: str  # "run", "refused", or a failure description
    detail: str = ""


def run_case(case: int, text: str, work: Path, timeout: float) -> Outcome:
    d = work / f"case{case}"
    (d / "sandbox").mkdir(parents=True)
    scen = d / "sandbox" / "s.toml"
    scen.write_text(text, encoding="utf-8")
    (d / "sandbox" / "t.down").write_text(TRACE, encoding="utf-8")
    out = d / "sandbox" / "out"
    before = {p for p in work.rglob("*")}
    try:
        p = subprocess.run(
            [sys.executable, "-m", "vho.cli", "run", str(scen), "--out", str(out)],
            capture_output=True, text=True, timeout=timeout, cwd=d / "sandbox",
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return Outcome(case, "HANG", f"no answer in {timeout} s")
    written = {x for x in work.rglob("*") if x not in before}
    outside = [x for x in written if out not in x.parents and x != out]
    if outside:
        return Outcome(case, "WROTE OUTSIDE --out", ", ".join(map(str, outside[:3])))
    if "Traceback" in p.stderr:
        return Outcome(case, "TRACEBACK", p.stderr.strip().splitlines()[-1])
    if p.returncode == 2:
        if p.stderr.count("\n") != 1:
            return Outcome(case, "REFUSAL NOT ONE LINE", p.stderr[:300])
        if out.exists():
            return Outcome(case, "REFUSED BUT WROTE --out")
        return Outcome(case, "refused", p.stderr.strip())
    if p.returncode != 0:
        return Outcome(case, f"EXIT {p.returncode}", p.stderr.strip()[-300:])
    try:
        s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return Outcome(case, "RUN WITHOUT A SUMMARY", str(e))
    for f in s["flows"]:
        # An unbounded flow (TFRC, Pareto, CBR without a size) has `bytes` null.
        if f.get("bytes") is not None and f["bytes_delivered"] > f["bytes"]:
            return Outcome(case, "IMPLAUSIBLE", f"{f['bytes_delivered']} > {f['bytes']} bytes")
    return Outcome(case, "run", s["run"]["ended_by"])


def texts(cases: int, seed: int, surface: str) -> list[str]:
    """The cases' scenario texts, drawn from `seed` alone (whatever `--jobs`)."""
    rng = random.Random(seed)
    seeds = {"classic": SEEDS, "new": [*NEW_SEEDS, EXAMPLES / "dk-fig1-wlan-gprs.toml"]}
    seeds["all"] = seeds["classic"] + seeds["new"]
    out = []
    for _ in range(cases):
        path = rng.choice(seeds[surface])
        base = path.read_text(encoding="utf-8")
        if surface != "classic" and path.name == "dk-fig1-wlan-gprs.toml":
            base += TRACE_SCHEDULE
        keys = ODD_KEYS if surface == "classic" else ODD_KEYS + NEW_ODD_KEYS
        out.append(mutate(base, rng, keys))
    return out


def fuzz(
    cases: int, seed: int, timeout: float, surface: str = "classic", jobs: int = 1
) -> list[Outcome]:
    from concurrent.futures import ThreadPoolExecutor

    todo = texts(cases, seed, surface)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # Each case in a folder of its own: what one writes outside its --out is still seen
        # (the check compares the whole work tree before and after, so cases running side by
        # side must not count each other's files: each checks its own folder).
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            futures = [
                ex.submit(run_case, case, text, work / f"w{case}", timeout)
                for case, text in enumerate(todo)
            ]
            return [f.result() for f in futures]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--surface", choices=["classic", "new", "all"], default="classic")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at a time")
    a = ap.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    results = fuzz(a.cases, a.seed, a.timeout, a.surface, a.jobs)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(json.dumps(counts, sort_keys=True))
    bad = [r for r in results if r.verdict not in ("run", "refused")]
    for r in bad:
        print(f"case {r.case}: {r.verdict}: {r.detail}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
