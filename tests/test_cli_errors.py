"""Bad input is refused with one line naming file, line, field and what was expected, exit
status 2, and nothing left in the output directory that looks complete
(ARCHITECTURE.md, "Invariants")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vho.cli import main

GOOD = """\
[run]
seed = 1

[access.wlan]
preset = "dk-wlan"

[access.gprs]
preset = "dk-gprs"

[mobile]
start = "wlan"

[[handover]]
at = "0.6 s"
from = "wlan"
to = "gprs"

[[flow]]
from = "ch"
to = "mh"
size = "20 KB"
"""

# (case, scenario text, extra arguments, the one line expected on stderr, after "<file>:")
CASES = [
    (
        "unknown key",
        GOOD.replace("seed = 1", "seed = 1\ncolour = 1"),
        [],
        "3: run: unknown field `colour`, expected one of `name`, `seed`, `stop`",
    ),
    (
        "unit",
        GOOD.replace('preset = "dk-wlan"', 'rate = "5 Mbs"\ndelay = "2 ms"'),
        [],
        '5: access.wlan.rate: expected a rate such as "200 kb/s"',
    ),
    (
        "negative delay",
        GOOD.replace('preset = "dk-wlan"', 'rate = "5 Mb/s"\ndelay = "-2 ms"'),
        [],
        '6: access.wlan.delay: expected a time that is not negative, got "-2 ms"',
    ),
    (
        "unknown preset",
        GOOD.replace('"dk-wlan"', '"dk-lte"'),
        [],
        "5: access.wlan.preset: expected one of cdma-1xrtt, dk-gprs",
    ),
    (
        "undefined link",
        GOOD.replace('to = "gprs"', 'to = "lte"'),
        [],
        '16: handover.to: expected a link: one of wired, gprs, wlan, got "lte"',
    ),
    ("malformed toml", GOOD.replace("[mobile]", "[mobile"), [], "10: invalid table header"),
    (
        "negative rate in --set",
        GOOD,
        ["--set", 'access.wlan.rate="-5 Mb/s"'],
        '--set access.wlan.rate="-5 Mb/s": access.wlan.rate: expected a positive rate',
    ),
    (
        # Issue 17: "0 s" looped for ever at time zero.
        "a maximum RTO that cannot make progress",
        GOOD.replace(
            'size = "20 KB"', 'size = "20 KB"\ntcp = { profile = "rfc", max_rto = "0 s" }'
        ),
        [],
        '22: flow.tcp.max_rto: expected a time of at least 1 ms, got "0 s"',
    ),
    (
        "a value inside an inline table, from --set",
        GOOD.replace('size = "20 KB"', 'size = "20 KB"\ntcp = { profile = "rfc" }'),
        ["--set", 'flow.0.tcp.max_rto="1 ns"'],
        '--set flow.0.tcp.max_rto="1 ns": flow.tcp.max_rto: expected a time of at least 1 ms',
    ),
    (
        "overlapping handover windows",
        GOOD.replace('to = "gprs"', 'to = "gprs"\nwindow = "1 s"')
        + '\n[[handover]]\nat = "0.7 s"\nfrom = "gprs"\nto = "wlan"\n',
        [],
        "handover.at: expected a time at or after 1.6 s, where the previous handover's window",
    ),
    (
        # Python's tomllib recurses once per level (it overflowed into a traceback, exit 1).
        "arrays nested thousands deep",
        GOOD.replace("seed = 1", "seed = " + "[" * 5000 + "]" * 5000),
        [],
        "2: recursion limit exceeded",
    ),
    (
        "a node name that is a path",
        '[[node]]\nname = "/tmp/x"\nkind = "host"\n',
        [],
        "2: node.name: expected a name of letters, digits",
    ),
]


@pytest.mark.parametrize("case,text,extra,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_is_one_line_with_exit_2_and_no_output(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    text: str,
    extra: list[str],
    expected: str,
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(text)
    out = tmp_path / "out"
    status = main(["run", str(path), "--out", str(out), *extra])
    err = capsys.readouterr().err
    assert status == 2, case
    assert err.count("\n") == 1, err
    assert expected in err, err
    if not extra:
        assert err.startswith(f"{path}:"), err
    assert not out.exists(), "nothing may be written for a refused scenario"


def test_the_good_scenario_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.toml"
    path.write_text(GOOD)
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "summary.json").is_file()


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["run", "no/such.toml"], "no/such.toml: no such scenario file"),
        (["run", "x.toml", "--seed", "-3"], "argument --seed: expected an integer in [0, 2^64)"),
        (["run", "x.toml", "--seed", "many"], "argument --seed: expected a non-negative integer"),
        (["presets", "dk-lte"], "no preset 'dk-lte'; expected one of cdma-1xrtt"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_arguments_are_one_line_with_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1, err
    assert expected in err, err


def test_the_installed_command_exits_2_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[run\n")
    p = subprocess.run(
        [sys.executable, "-m", "vho.cli", "run", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2
    assert p.stderr == f"{path}:1: invalid table header; expected `.`, `]`\n"
    assert "Traceback" not in p.stderr


def test_a_failed_run_leaves_the_previous_complete_output_untouched(tmp_path: Path) -> None:
    good = tmp_path / "s.toml"
    good.write_text(GOOD)
    out = tmp_path / "out"
    assert main(["run", str(good), "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('"dk-wlan"', '"nope"'))
    assert main(["run", str(bad), "--out", str(out)]) == 2
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert after == before


def test_a_handover_after_the_end_and_a_stop_time_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 17: a handover the run never reached was listed as if it happened; issue 18: a run
    # cut by run.stop says so and how to let it run longer; --plot with nothing to plot says
    # so. Each a warning on stderr and in summary.json's run.warnings.
    path = tmp_path / "s.toml"
    path.write_text(GOOD.replace('at = "0.6 s"', 'at = "50 s"'))
    assert main(["run", str(path), "--out", str(tmp_path / "a"), "--plot"]) == 0
    cap = capsys.readouterr()
    assert "at 50.000 s (not reached)" in cap.out
    assert "warning: handover 0 (wlan -> gprs at 50 s) not reached: the run ended at" in cap.err
    assert "warning: --plot: the scenario captures at no node" in cap.err
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["handovers"][0]["happened"] is False
    assert summary["run"]["warnings"][0].startswith("handover 0 (wlan -> gprs at 50 s)")
    args = ["--set", 'flow.0.size="20 MB"', "--set", 'run.stop="2 s"']
    assert main(["run", str(path), "--out", str(tmp_path / "b"), *args]) == 0
    cap = capsys.readouterr()
    assert "ended by stop_time" in cap.out
    assert (
        "warning: stopped by run.stop at 2.000 s before flow flow0 completed; to let it run "
        'longer: --set run.stop="4 s"'
    ) in cap.err


def test_presets_show_a_per_direction_value_as_down_and_up(capsys) -> None:
    # gprs-cottingham: 53.6 kb/s towards the mobile host, 13.4 kb/s from it (000 l.59).
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("gprs-cottingham"))
    assert "53.6 kb/s / 13.4 kb/s" in line


def test_an_unbalanced_quote_in_serve_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # shlex's ValueError (No closing quotation) was a traceback; refused before anything is made.
    scen = tmp_path / "s.toml"
    scen.write_text(GOOD)
    out = tmp_path / "out"
    assert main(["emulate", str(scen), "--out", str(out), "--serve", "'x"]) == 2
    err = capsys.readouterr().err
    assert err == (
        'vho emulate: --serve "\'x": no closing quotation; expected one command line, quoted '
        "as a whole (--serve 'iperf3 -s')\n"
    )
    assert not out.exists()


# The `vho` console script, with Ctrl-C arriving while `import vho` loads its core module.
INTERRUPTED_IMPORT = """\
import builtins, os, signal, sys
real = builtins.__import__
def hook(name, globals=None, locals=None, fromlist=(), level=0):
    if name == "runner" and level == 1:  # vho/__init__.py: from .runner import ...
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, globals, locals, fromlist, level)
builtins.__import__ = hook
from vho.cli import main
sys.exit(main())
"""


def test_ctrl_c_while_the_command_loads_is_one_line_and_status_130(tmp_path: Path) -> None:
    script = tmp_path / "vho"
    script.write_text(INTERRUPTED_IMPORT)
    p = subprocess.run(
        [sys.executable, str(script), "presets"], capture_output=True, text=True, check=False
    )
    assert (p.returncode, p.stderr, p.stdout) == (130, "vho: interrupted\n", "")


def test_ctrl_c_while_the_arguments_are_parsed_is_one_line_and_status_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import vho.cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(vho.cli, "build_parser", interrupted)
    assert main(["presets"]) == 130
    assert capsys.readouterr().err == "vho: interrupted\n"


def test_importing_vho_in_a_program_leaves_its_ctrl_c_alone() -> None:
    # Whatever the program's SIGINT disposition (a job started in the background by a
    # non-interactive shell inherits it ignored), importing vho leaves it as it was.
    code = (
        "import signal\nbefore = signal.getsignal(2)\nimport vho.cli\n"
        "assert signal.getsignal(2) is before, signal.getsignal(2)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_emulations_unknown_counts_print_as_a_dash_not_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 40 item 25: a flow without a capture to analyse printed "retransmissions None".
    import vho.emulate

    summary = {
        "run": {"scenario": "s", "kernel": "6", "congestion_control": "reno", "multipath": False,
                "wall_s": 0.1, "ended_by": "stop_time", "command_exit": None},
        "handovers": [],
        "flows": [{"name": "f", "from": "ch", "to": "mh", "bytes": 10, "transfer_time_s": None,
                   "retransmissions": None, "spurious_retransmissions": None,
                   "duplicate_acks": None}],
        "emulator": {"packets_in": 0, "packets_out": 0, "dropped_in_network": 0,
                     "accuracy": {"delivery_lateness": {"p50_us": 3.0, "p99_us": 9.0}},
                     "loop_cpu_s": 0.0, "reasons": []},
    }  # fmt: skip

    def emulated(scenario: object, **kw: object) -> vho.emulate.EmulationResult:
        return vho.emulate.EmulationResult(summary, tmp_path)

    monkeypatch.setattr(vho.emulate, "emulate", emulated)
    assert main(["emulate", "s.toml", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "None" not in out
    assert "not completed, retransmissions - (spurious -), duplicate ACKs -" in out


@pytest.mark.parametrize("command", [["run", "--dry-run"], ["run", "--out", "o"]])
def test_a_trace_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path, command: list) -> None:
    """Issue 40 item 5: a schedule.trace_file naming a FIFO blocked the command in open() for
    a writer (SIGINT and SIGTERM could not stop it); it is refused as a scenario file is."""
    import os

    os.mkfifo(tmp_path / "t.fifo")
    path = tmp_path / "s.toml"
    path.write_text(f'{GOOD}\n[[schedule]]\nlink = "wlan"\nat = "1 s"\ntrace_file = "t.fifo"\n')
    verb, *rest = command
    p = subprocess.run(
        [sys.executable, "-m", "vho.cli", verb, str(path), *rest],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    line = path.read_text().splitlines().index('trace_file = "t.fifo"') + 1
    assert p.returncode == 2
    assert p.stderr == (
        f"{path}:{line}: schedule.trace_file: expected a trace file (a regular file; "
        f'{tmp_path / "t.fifo"} is a FIFO), got "t.fifo"\n'
    )


# Issue 40, benches/fuzz_set.py: hostile --set values and paths, each refused in one line that
# starts with the --set and says what was wrong (once: a flow named with its stray quote, a
# multi-line string on three lines, the value quoted where the index was wrong, the file
# blamed for what a --set caused).
SET_CASES = [
    ('flow.0.size="2 MB', 'flow.0.size: expected a TOML value such as "2 MB"'),
    ("flow.0.size=", "flow.0.size: expected a value after '='"),
    ('flow.3.size="2 MB"', "flow.3.size: expected an index from 0 to 0 for [[flow]] (the "),
    ('link.0.rate="1 Mb/s"', "link.0.rate: the scenario has no [[link]] for link.0 to set"),
    ('handover.0.kind="""so\nft"""', "handover.kind: expected one of soft,"),
    ('flow.0.tcp.min_rto="1000 s"', "flow.tcp.max_rto: expected at least min_rto"),
    ("flow. 0.size=1", "expected a dotted key path of bare names and indices"),
]


@pytest.mark.parametrize("sets,expected", SET_CASES, ids=[c[0] for c in SET_CASES])
def test_a_hostile_set_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sets: str, expected: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(GOOD)
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--set", sets]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"--set {sets}: ".replace("\n", "\\n")), err
    assert expected in err, err
    assert not out.exists()


def test_an_error_quoting_a_line_break_stays_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The CLI's one place that prints a VhoError escapes what the input brought: here an
    # --out path with a line break in it that exists as a file.
    (tmp_path / "a\nb").write_text("x")
    path = tmp_path / "s.toml"
    path.write_text(GOOD)
    assert main(["run", str(path), "--out", str(tmp_path / "a\nb")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "a\\nb: exists and is not a directory" in err, err
