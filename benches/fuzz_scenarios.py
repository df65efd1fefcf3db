"""Mutated scenarios through `vho run`: every outcome must be a clean refusal (exit 2, one line
on stderr, no traceback, nothing in --out) or a plausible run (exit 0, a summary.json whose
flows deliver no more than they were given), never a hang, a traceback, another exit status or
a file written outside --out.

    python3 benches/fuzz_scenarios.py --cases 1000            # report counts, list failures
    python3 benches/fuzz_scenarios.py --cases 200 --seed 7 --timeout 30

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
SEEDS = [
    ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml",
    ROOT / "scenarios" / "examples" / "dk-fig2-gprs-wlan.toml",
    ROOT / "scenarios" / "examples" / "thesis-wavelan-gsm.toml",
    ROOT / "benches" / "scenarios" / "lossy-link.toml",
]

ODD_NUMBERS = ["0", "-1", "-0.5", "1e30", "18446744073709551616", "0.0000001", "nan", "inf"]
ODD_STRINGS = ['""', '"../../x"', '"/etc/passwd"', '"5"', '"0 s"', '"1 ns"', '"-3 ms"',
               '"99999999 GB"', '"\\u0000"', '"bdp"', '"1 packets"', '"hard"']  # fmt: skip
ODD_KEYS = ["loss = 1.0", "loss = 2", 'queue = "1 packets"', 'delay = "1000 s"',
            'rate = "1 b/s"', "seed = -4", 'stop = "0 s"', "drop_packets = [3, 1]",
            'tcp = { profile = "linux", max_rto = "0 s" }', "mtu = 0"]  # fmt: skip


def mutate(text: str, rng: random.Random) -> str:
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
            lines.insert(i, rng.choice(ODD_KEYS))
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
        if f["bytes_delivered"] > f["bytes"]:
            return Outcome(case, "IMPLAUSIBLE", f"{f['bytes_delivered']} > {f['bytes']} bytes")
    return Outcome(case, "run", s["run"]["ended_by"])


def fuzz(cases: int, seed: int, timeout: float) -> list[Outcome]:
    rng = random.Random(seed)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for case in range(cases):
            base = rng.choice(SEEDS).read_text(encoding="utf-8")
            out.append(run_case(case, mutate(base, rng), work, timeout))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    a = ap.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    results = fuzz(a.cases, a.seed, a.timeout)
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
