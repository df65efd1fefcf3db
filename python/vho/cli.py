"""The ``vho`` command.

Bad input (a :class:`vho.errors.VhoError`) is printed as one line on stderr with exit status
2; argument errors too. Anything else is a fault of vho and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import VhoError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, with errors on one line (no usage block) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _seed(text: str) -> int:
    try:
        v = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2^64), got {text}")
    return v


def _fmt(v: object, unit: str = "", digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}{unit}"
    return f"{v}{unit}"


def _print_run(summary: dict, out: Path | None) -> None:
    run = summary["run"]
    print(
        f"{run['scenario']}  (seed {run['seed']}, {run['events']} events, "
        f"simulated {run['simulated_s']:.3f} s, ended by {run['ended_by']})"
    )
    for h in summary["handovers"]:
        print(f"  handover {h['from']} -> {h['to']} ({h['kind']}) at {h['at_s']:.3f} s")
    for f in summary["flows"]:
        state = "done" if f["completed"] else "NOT COMPLETE"
        print(
            f"  flow {f['name']} {f['from']} -> {f['to']}: {f['bytes']} B {state} in "
            f"{_fmt(f['transfer_time_s'], ' s')}, goodput {_fmt(f['goodput_bps'], ' b/s', 0)}"
        )
        print(
            f"    data packets {f['data_packets_sent']}, retransmissions {f['retransmissions']} "
            f"(spurious {f['spurious_retransmissions']}), timeouts {f['timeouts']} "
            f"(spurious {f['spurious_timeouts']}), fast retransmits {f['fast_retransmits']}"
        )
        for d in f["drops"]:
            print(f"    drops {d['link']} {d['from']}->{d['to']} {d['cause']}: {d['packets']}")
    if not run["conservation_ok"]:
        print("  WARNING: packet conservation failed on a link (see summary.json links)")
    if out is not None:
        print(f"  -> {out}/summary.json")


def _cmd_run(args: argparse.Namespace) -> int:
    from .runner import run

    scenario = Path(args.scenario)
    out = Path(args.out) if args.out else Path("out") / scenario.stem
    result = run(scenario, seed=args.seed, overrides=args.set or (), out_dir=out, plot=args.plot)
    _print_run(result.summary, out)
    return 0


def _cmd_presets(args: argparse.Namespace) -> int:
    from .runner import presets

    ps = presets()
    if args.name:
        for p in ps:
            if p["name"] == args.name:
                sys.stdout.write(p["source"])
                return 0
        names = ", ".join(p["name"] for p in ps)
        raise VhoError(f"vho presets: no preset {args.name!r}; expected one of {names}")
    w = max(len(p["name"]) for p in ps)
    for p in ps:
        print(
            f"{p['name']:<{w}}  {p['rate']:>10}  {p['delay']:>8}  queue {p['queue']:<8}  "
            f"{p['description']}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``vho`` (exposed for the docs and tests)."""
    p = _Parser(prog="vho", description="A lab for TCP across vertical handovers.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    r = sub.add_parser("run", help="simulate a scenario")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("--out", help="output directory (default: out/<scenario name>)")
    r.add_argument("--seed", type=_seed, help="seed of the run (default: the scenario's)")
    r.add_argument(
        "--set",
        action="append",
        metavar="KEY.PATH=VALUE",
        help="override a scenario value (repeatable)",
    )
    r.add_argument(
        "--plot",
        action="store_true",
        help="draw a time-sequence graph per capture (sequence_<node>.png/.svg)",
    )
    r.set_defaults(func=_cmd_run)

    pr = sub.add_parser("presets", help="list the link presets, or print one with its sources")
    pr.add_argument("name", nargs="?", help="a preset to print in full")
    pr.set_defaults(func=_cmd_presets)
    return p


def _version() -> str:
    from . import __version__

    return f"vho {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vho`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except VhoError as e:
        sys.stderr.write(f"{e}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("vho: interrupted\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
