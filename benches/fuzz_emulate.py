"""`vho emulate` interrupted at random instants (issue 40): SIGINT, SIGTERM, SIGKILL and SIGHUP,
to the process or to its whole process group (a terminal's Ctrl-C), alone or twice within a few
ms, over varied scenarios and options. After every case: no traceback; an exit status the case
explains; no `vho-<pid>-*` namespace or process of the run left (after `vho emulate --cleanup`
for SIGKILL, and without it for the signals a run handles); nothing written outside --out; an
interrupted output never present as complete (an earlier output it was to replace untouched).

Needs root and iproute2; creates and removes network namespaces (every packet stays in them).
Run it with one job: emulations are timed by the wall clock.

    sudo python3 benches/fuzz_emulate.py --cases 1000            # counts, then each failure
    sudo python3 benches/fuzz_emulate.py --cases 50 --seed 3 --progress 10

The scenarios: a 20 KB download with a hard handover at 0.3 s (tests/test_emulate_hostile.py's),
two of its flows (one starting after run.stop), Daniel & Kojo's Fig. 1 and 2 and the thesis
testbed, Naoe's links and NEMO scenarios with --cc reno, and ones vho emulate refuses (TFRC,
[mipv6], tcp.cc against --cc); `run.stop` from 0.2 to 3 s. Options: --multipath, --no-offload,
`-- COMMAND` (exits at once, with a status, sleeps past run.stop, ignores SIGINT and SIGTERM,
forks a daemon that outlives it) and --serve (a server that ignores SIGTERM). Each command
sleeps under a name of its case (`sleep 977.<case>`), so that one left running is found.
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
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenarios" / "examples"
VHO = [sys.executable, "-m", "vho.cli"]

BASE = """
[run]
name = "hostile"
seed = 1
stop = "5 s"

[wired]
preset = "lan-100m"
delay = "10 ms"

[access.wlan]
preset = "dk-wlan"

[access.gprs]
preset = "dk-gprs"

[mobile]
start = "wlan"

[[handover]]
at = "0.3 s"
from = "wlan"
to = "gprs"
kind = "hard"

[[flow]]
from = "ch"
to = "mh"
size = "20 KB"
"""
TWO_FLOWS = BASE + '\n[[flow]]\nfrom = "ch"\nto = "mh"\nsize = "10 KB"\nstart = "100 s"\n'

#: (name, scenario text or example path, extra arguments, refused by vho emulate).
SCENARIOS: list[tuple[str, str | Path, list[str], bool]] = [
    ("base", BASE, [], False),
    ("two-flows", TWO_FLOWS, [], False),
    ("dk-fig1", EXAMPLES / "dk-fig1-wlan-gprs.toml", [], False),
    ("dk-fig2", EXAMPLES / "dk-fig2-gprs-wlan.toml", [], False),
    ("thesis", EXAMPLES / "thesis-wavelan-gsm.toml", [], False),
    ("naoe-links", EXAMPLES / "naoe-links.toml", ["--cc", "reno"], False),
    ("naoe-apc", EXAMPLES / "naoe-apc.toml", ["--cc", "reno"], False),
    ("tfrc", EXAMPLES / "tfrc-lossy.toml", [], True),
    ("chen", EXAMPLES / "chen-probe.toml", [], True),
    ("cottingham", EXAMPLES / "cottingham-wlan-gprs.toml", [], True),
    ("naoe-cubic", EXAMPLES / "naoe-links.toml", [], True),
]

#: What the case runs besides the scenario's flows ({m}: the case's sleep marker).
COMMANDS: list[tuple[str, list[str]]] = [
    ("none", []),
    ("exits", ["--", "sh", "-c", "exit 3"]),
    ("sleeps-then-exits", ["--", "sh", "-c", "sleep 0.{r}; exit 5"]),
    ("outlives-stop", ["--", "sleep", "{m}"]),
    ("ignores-signals", ["--", "sh", "-c", "trap '' INT TERM HUP; sleep {m}"]),
    ("forks-a-daemon", ["--", "sh", "-c", "(sleep {m} &); exit 0"]),
    ("serve", ["--serve", "sleep {m}"]),
    ("serve-ignoring-term", ["--serve", "sh -c \"trap '' TERM INT; sleep {m}\""]),
    ("serve-and-command", ["--serve", "sleep {m}", "--", "sh", "-c", "sleep 0.{r}"]),
]

#: (name, [(signal, to the group?, delay after the previous one, s)]).
PLANS: list[tuple[str, list[tuple[int, bool, float]]]] = [
    ("none", []),
    ("int", [(signal.SIGINT, False, 0)]),
    ("int-group", [(signal.SIGINT, True, 0)]),
    ("term", [(signal.SIGTERM, False, 0)]),
    ("term-group", [(signal.SIGTERM, True, 0)]),
    ("kill", [(signal.SIGKILL, False, 0)]),
    ("kill-group", [(signal.SIGKILL, True, 0)]),
    ("hup", [(signal.SIGHUP, False, 0)]),
    ("int-int", [(signal.SIGINT, False, 0), (signal.SIGINT, False, -0.01)]),
    ("term-term", [(signal.SIGTERM, False, 0), (signal.SIGTERM, False, -0.01)]),
    ("int-term", [(signal.SIGINT, False, 0), (signal.SIGTERM, False, -0.03)]),
    ("int-group-twice", [(signal.SIGINT, True, 0), (signal.SIGINT, True, -0.02)]),
    ("int-then-kill", [(signal.SIGINT, False, 0), (signal.SIGKILL, False, -1.0)]),
]
#: The statuses of a process ended by each signal (a handled one: 128 + its number).
STATUS = {
    signal.SIGINT: {128 + signal.SIGINT},
    signal.SIGTERM: {128 + signal.SIGTERM},
    signal.SIGKILL: {-signal.SIGKILL},
    signal.SIGHUP: {128 + signal.SIGHUP},
}
#: Before the command's handlers are in place (Python starting) or after they are gone (its
#: exit), a signal ends the process by its default action: nothing is made or left then.
EARLY_OR_LATE = {-signal.SIGINT, -signal.SIGTERM, -signal.SIGHUP}


#: The vho package's lines up to its import of `vho._sigint`, which installs the command's
#: handler for a Ctrl-C while it loads (a SIGINT 52 ms in once came at its `from __future__`).
START_LINE = next(
    n
    for n, line in enumerate((ROOT / "python/vho/__init__.py").read_text().splitlines(), 1)
    if line.startswith("from . import _sigint")
)


def _before_the_handler(frame: str) -> bool:
    """Whether a traceback's `File ...` line is vho/__init__.py's before its handler is set."""
    m = re.search(r'vho/__init__\.py", line (\d+), in <module>', frame)
    return m is not None and int(m.group(1)) <= START_LINE


#: The verdicts that pass: a run (complete, or interrupted and gone), a refusal, or a signal in
#: the interpreter's start-up, before any of vho's code ran (Python's "Fatal Python error:
#: init_import_site" traceback: not vho's to catch).
GOOD = ("ok", "refused", "startup")


@dataclass
class Case:
    case: int
    scenario: str
    command: str
    plan: str
    stop_s: float
    #: When the first signal goes, seconds after the start.
    at_s: float
    multipath: bool
    offload: bool
    over_output: bool
    args: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    case: Case
    verdict: str
    detail: str = ""
    status: int | None = None


def draw(cases: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    out = []
    for i in range(cases):
        scen = rng.choice(SCENARIOS)
        cmd = rng.choice(COMMANDS) if rng.random() < 0.5 else COMMANDS[0]
        plan = rng.choice(PLANS)
        stop = rng.choice([0.2, 0.5, 1.0, 1.5, 3.0])
        # The instant: often early (imports, checks, namespaces being made), else anywhere in
        # the run and its teardown.
        at = rng.uniform(0, 0.8) if rng.random() < 0.4 else rng.uniform(0, stop + 4.0)
        c = Case(i, scen[0], cmd[0], plan[0], stop, at, rng.random() < 0.15,
                 rng.random() < 0.85, rng.random() < 0.2)  # fmt: skip
        marker = f"977.{i}"
        tail = [a.format(m=marker, r=rng.randrange(1, 9)) for a in cmd[1]]
        c.args = [*scen[2], *(["--multipath"] if c.multipath else [])]
        c.args += [*([] if c.offload else ["--no-offload"]), "--set", f'run.stop="{stop} s"']
        c.args += tail
        out.append(c)
    return out


def namespaces_of(pid: int) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(f"vho-{pid}-")]


def root_devices() -> set[str]:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return {line.split(": ")[1].split("@")[0] for line in out.splitlines() if ": " in line}


def leftover_processes(marker: str) -> list[str]:
    out = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "pgrep" not in line]


def _snapshot(root: Path) -> dict[str, float]:
    return {str(p): p.lstat().st_mtime for p in root.rglob("*")}


def _same_tree(a: Path, b: Path) -> bool:
    names = sorted(x.name for x in a.iterdir())
    if names != sorted(x.name for x in b.iterdir()):
        return False
    return all(filecmp.cmp(a / n, b / n, shallow=False) for n in names)


def _sandbox(d: Path, c: Case) -> Path:
    d.mkdir(parents=True)
    scen = dict((s[0], s[1]) for s in SCENARIOS)[c.scenario]
    path = d / "s.toml"
    path.write_text(scen if isinstance(scen, str) else scen.read_text(), encoding="utf-8")
    return path


def run_case(c: Case, work: Path, pristine: Path, timeout: float) -> Outcome:
    d = work / "a" / "b" / f"case{c.case}"
    scen = _sandbox(d, c)
    out = d / "out"
    if c.over_output:
        shutil.copytree(pristine, out)
    before = _snapshot(work)
    devices = root_devices()
    p = subprocess.Popen(
        [*VHO, "emulate", str(scen), "--out", str(out), *c.args], cwd=d, text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    sent: list[int] = []
    plan = dict(PLANS)[c.plan]
    t0 = time.monotonic()
    for k, (signum, group, delay) in enumerate(plan):
        # The first at the case's instant; a negative delay is "up to" that long after.
        wait = c.at_s if k == 0 else random.Random(c.case * 31 + k).uniform(0, -delay)
        try:
            p.wait(timeout=max(0.0, wait))
            break  # it ended first
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(p.pid, signum) if group else os.kill(p.pid, signum)
            sent.append(signum)
        except ProcessLookupError:
            break
    try:
        _, err = p.communicate(timeout=timeout - (time.monotonic() - t0))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        subprocess.run([*VHO, "emulate", "--cleanup"], capture_output=True)
        return Outcome(c, "HANG", f"no end in {timeout} s after the start; signals {sent}")
    status = p.returncode
    verdict = _judge(c, p.pid, status, err, sent, out, d, pristine)
    # Whatever the verdict: leave nothing for the next case.
    subprocess.run([*VHO, "emulate", "--cleanup"], capture_output=True)
    for line in leftover_processes(f"977.{c.case}"):
        pid = int(line.split()[0])
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if verdict.verdict in GOOD:
        after = _snapshot(work)
        changed = [x for x, t in after.items() if before.get(x) != t and x != str(d)]
        outside = [x for x in changed if not (x == str(out) or x.startswith(str(out) + os.sep))]
        killed = signal.SIGKILL in sent
        # A run killed outright leaves its staging (the next run beside it removes it).
        outside = [x for x in outside if not (killed and ".vho-partial-" in x)]
        if outside:
            verdict = Outcome(c, "WROTE OUTSIDE --out", ", ".join(outside[:3]), status)
        new = {x for x in root_devices() - devices if "vho" in x}
        if new:
            verdict = Outcome(c, "DEVICE LEFT", ", ".join(sorted(new)), status)
    return verdict


def _complete(out: Path) -> bool:
    """An emulation's output as a finished run leaves it: a summary that reads, and only the
    files an emulation writes."""
    try:
        s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    owned = {"summary.json", "timing.json", "scenario.resolved.toml", ".vho-output",
             "series_tcp.parquet", "command.log", "serve.log"}  # fmt: skip
    names = {x.name for x in out.iterdir()}
    return "run" in s and all(n in owned or n.endswith(".pcap") for n in names)


def _judge(
    c: Case, pid: int, status: int, err: str, sent: list[int], out: Path, d: Path, pristine: Path
) -> Outcome:
    if "Traceback" in err or "panicked" in err:
        frames = [x for x in err.splitlines() if x.strip().startswith("File ")]
        ours = [x for x in frames if "/vho/" in x]
        if all(_before_the_handler(x) for x in ours) and not namespaces_of(pid):
            # Python's own start-up (site's .pth imports) or the vho package's first line,
            # before the handler that line installs: the interpreter's traceback (and its
            # death by SIGINT), not the command's; nothing made yet.
            return Outcome(c, "startup", err.strip().splitlines()[0], status)
        return Outcome(c, "TRACEBACK", err.strip()[-500:], status)
    killed = signal.SIGKILL in sent or status in EARLY_OR_LATE
    left = namespaces_of(pid)
    if left and not killed:
        return Outcome(c, "NAMESPACES LEFT", ", ".join(left), status)
    if left:
        subprocess.run([*VHO, "emulate", "--cleanup"], capture_output=True)
        left = namespaces_of(pid)
        if left:
            return Outcome(c, "NAMESPACES LEFT AFTER --cleanup", ", ".join(left), status)
    if not killed:
        time.sleep(0.2)  # a process the run killed may take a moment to go
        procs = leftover_processes(f"977.{c.case}")
        if procs:
            return Outcome(c, "PROCESS LEFT", "; ".join(procs[:3]), status)
    by_signal = set().union(*(STATUS[s] for s in sent)) if sent else set()
    by_signal |= {-s for s in sent} & EARLY_OR_LATE
    command = {"exits": {3}, "sleeps-then-exits": {5, 124}, "outlives-stop": {124},
               "ignores-signals": {124}, "forks-a-daemon": {0}, "serve": {0},
               "serve-ignoring-term": {0}, "serve-and-command": {0, 124}}  # fmt: skip
    normal = {0, 2} | command.get(c.command, set())
    if status not in normal | by_signal:
        return Outcome(c, f"EXIT {status}", err.strip()[-400:], status)
    interrupted = status in by_signal and status not in normal
    previous = pristine if c.over_output else None
    # Killed after the output was swapped in whole (its summary written last): complete.
    late = interrupted and out.exists() and _complete(out)
    if (interrupted and not late) or status == 2:
        if previous is None and out.exists():
            return Outcome(c, "INTERRUPTED OUTPUT LEFT", str(sorted(os.listdir(out))), status)
        if previous is not None and not _same_tree(previous, out):
            return Outcome(c, "EARLIER OUTPUT CHANGED", "", status)
        lines = [x for x in err.splitlines() if x.strip()]
        if status == 2 and len(lines) != 1:
            return Outcome(c, "REFUSAL NOT ONE LINE", err[-400:], status)
        return Outcome(c, "refused" if status == 2 else "ok", err.strip()[-200:], status)
    try:
        s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return Outcome(c, "RUN WITHOUT A SUMMARY", str(e), status)
    if s["run"]["ended_by"] not in ("completed", "stop_time", "command_exited"):
        return Outcome(c, "ODD END", s["run"]["ended_by"], status)
    return Outcome(c, "ok", s["run"]["ended_by"], status)


def fuzz(cases: int, seed: int, timeout: float, progress: int = 0) -> list[Outcome]:
    todo = draw(cases, seed)
    results: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # An earlier output that a case may be told to replace.
        pristine_dir = work / "pristine"
        pristine_dir.mkdir()
        (pristine_dir / "s.toml").write_text(BASE, encoding="utf-8")
        p = subprocess.run(
            [*VHO, "emulate", "s.toml", "--out", "out", "--set", 'run.stop="0.5 s"'],
            cwd=pristine_dir, capture_output=True, text=True,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
        pristine = pristine_dir / "out"
        t0 = time.monotonic()
        for c in todo:
            results.append(run_case(c, work / f"w{c.case}", pristine, timeout))
            shutil.rmtree(work / f"w{c.case}", ignore_errors=True)
            if progress and len(results) % progress == 0:
                bad = sum(r.verdict not in GOOD for r in results)
                print(f"{len(results)} of {len(todo)} cases, {bad} failed, "
                      f"{time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--progress", type=int, default=0, help="report every N cases")
    a = ap.parse_args()
    if os.geteuid() != 0 or shutil.which("ip") is None:
        sys.exit("fuzz_emulate.py: needs root and ip (iproute2)")
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    results = fuzz(a.cases, a.seed, a.timeout, a.progress)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print(json.dumps(counts, sort_keys=True))
    by_plan: dict[str, int] = {}
    for r in results:
        by_plan[r.case.plan] = by_plan.get(r.case.plan, 0) + 1
    print("plans:", json.dumps(by_plan, sort_keys=True))
    # Exit statuses (a negative one: the process died by that signal), with the verdicts
    # each came with: what the signals did, not only whether the checks held.
    by_status: dict[str, dict[str, int]] = {}
    for r in results:
        v = by_status.setdefault(str(r.status), {})
        v[r.verdict] = v.get(r.verdict, 0) + 1
    order = sorted(by_status, key=lambda k: (k == "None", int(k) if k != "None" else 0))
    print("statuses:", json.dumps({k: by_status[k] for k in order}))
    for r in results:
        if r.verdict not in GOOD:
            c = r.case
            print(f"case {c.case}: {r.verdict} (status {r.status}): {r.detail} <- {c.scenario}, "
                  f"{c.command}, {c.plan} at {c.at_s:.3f} s, {c.args}")  # fmt: skip
    sys.exit(1 if any(r.verdict not in GOOD for r in results) else 0)


if __name__ == "__main__":
    main()
