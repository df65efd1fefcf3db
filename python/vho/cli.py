"""The ``vho`` command.

Bad input (a :class:`vho.errors.VhoError`) is printed as one line on stderr with exit status
2; argument errors too. Anything else is a fault of vho and keeps its traceback. SIGINT and
SIGTERM remove the command's staging directories before it exits, with one line (status 130 or
143), also while the command is still loading (:mod:`vho._sigint`); a closed stdout (``vho run
... | head -1``) ends it quietly, as it does a Unix tool.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import EmulationError, VhoError

EXIT_BAD_INPUT = 2
#: 128 + SIGPIPE, the status of a Unix tool whose reader went away.
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
#: `vho emulate -- COMMAND`: the command was still running at run.stop (timeout(1)'s status).
EXIT_COMMAND_STOPPED = 124


class _Parser(argparse.ArgumentParser):
    """argparse, with errors on one line (no usage block) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


class _Once(argparse.Action):
    """An option that may be given once: argparse would keep the last of several silently."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None:
            parser.error(f"{option_string} given twice ({before!r} and {values!r}); give it once")
        setattr(namespace, self.dest, values)


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


def _mipv6_line(m: dict) -> str:
    """A Mobile IPv6 handover's latency in one line: T_n = t_d + t_c + t_r (Cottingham &
    Vidales eq. 1), or how far it got."""

    def s(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f} s"

    head = f"T_n {s(m['t_n_s'])}" if m["t_n_s"] is not None else "T_n - (not completed)"
    return (
        f"{head} = t_d {s(m['t_d_s'])} + t_c {s(m['t_c_s'])} + t_r {s(m['t_r_s'])}; "
        f"BU sent {m['bu_transmissions']} time(s)"
    )


def _flow_lines(f: dict) -> list[str]:
    """A flow's lines in `vho run`'s report, by its kind (`summary.json`'s `flows[].kind`)."""
    kind = f.get("kind", "tcp")
    state = "done" if f["completed"] else "NOT COMPLETE"
    size = "unbounded" if f["bytes"] is None else f"{f['bytes']} B"
    tag = "" if kind == "tcp" else f" ({kind})"
    head = f"flow {f['name']} {f['from']} -> {f['to']}{tag}: {size}"
    if kind == "tcp":
        return [
            f"{head} {state} in {_fmt(f['transfer_time_s'], ' s')}, "
            f"goodput {_fmt(f['goodput_bps'], ' b/s', 0)}",
            f"  data packets {f['data_packets_sent']}, retransmissions {f['retransmissions']} "
            f"(spurious {f['spurious_retransmissions']}), timeouts {f['timeouts']} "
            f"(spurious {f['spurious_timeouts']}), fast retransmits {f['fast_retransmits']}",
        ]
    ended = f" {state} in {_fmt(f['transfer_time_s'], ' s')}" if f["bytes"] is not None else ""
    if kind == "tfrc":
        t = f["tfrc"]
        return [
            f"{head}{ended}, received {t['bytes_received']} B of {t['bytes_sent']} B sent",
            f"  throughput {_fmt(t['mean_throughput_bps'], ' b/s', 0)}, final rate "
            f"{_fmt(t['final_rate_bps'], ' b/s', 0)}, mean p {t['mean_p']:.4g}, "
            f"packets lost {t['packets_lost']} in {t['loss_events']} loss events",
        ]
    if kind == "pareto":
        c = f["cross"]
        return [
            f"{head}, sent {c['packets_sent']} datagrams ({c['bytes_sent']} B), delivered "
            f"{c['packets_delivered']}, dropped {c['packets_dropped']}",
            f"  mean sent {_fmt(c['mean_sent_bps'], ' b/s', 0)}, delivered "
            f"{_fmt(c['mean_delivered_bps'], ' b/s', 0)} (configured mean "
            f"{_fmt(c['configured_mean_bps'], ' b/s', 0)})",
        ]
    if kind == "cbr":
        c = f["cbr"]
        gap = f"longest gap {_fmt(c['max_gap_s'], ' s')}"
        if c["max_gap_from_s"] is not None:
            gap += f" from {c['max_gap_from_s']:.3f} s"
        return [
            f"{head}{ended}, received {c['packets_received']} of {c['packets_sent']} "
            f"datagrams, lost {c['packets_lost']} ({100 * c['loss_ratio']:.2f} %), "
            f"{c['packets_after_last']} after the last received",
            f"  one-way delay min {_fmt(c['delay_min_s'], ' s')}, median "
            f"{_fmt(c['delay_p50_s'], ' s')}, p95 {_fmt(c['delay_p95_s'], ' s')}, max "
            f"{_fmt(c['delay_max_s'], ' s')}; jitter {_fmt(c['jitter_s'] * 1e3, ' ms')}; {gap}",
        ]
    if kind == "mptcp":
        m = f["mptcp"]
        lines = [
            f"{head}{ended}, goodput {_fmt(f['goodput_bps'], ' b/s', 0)}; "
            f"{m['subflows_created']} subflows, reinjected {m['bytes_retrans']} B",
        ]
        for s in m["subflows"]:
            closed = "" if s["closed_s"] is None else f", closed at {s['closed_s']:.3f} s"
            lines.append(
                f"  subflow {s['id']} over {s['interface']}{' (backup)' if s['backup'] else ''}: "
                f"sent {s['bytes_sent']} B, acked {s['bytes_acked']} B, "
                f"retransmissions {s['total_retrans']}{closed}"
            )
        for h in m["handovers"]:
            back = "" if h["failback_s"] is None else f", failback {_fmt(h['failback_s'], ' s')}"
            lines.append(
                f"  {h['lost']} lost at {h['at_s']:.3f} s: resumed in "
                f"{_fmt(h['resume_s'], ' s')}{back}"
            )
        for o in m.get("outages", []):
            back = "" if o["failback_s"] is None else f", failback {_fmt(o['failback_s'], ' s')}"
            end = "" if o["until_s"] is None else f" to {o['until_s']:.3f} s"
            lines.append(
                f"  {o['interface']} {o['state']} at {o['at_s']:.3f} s{end}: resumed in "
                f"{_fmt(o['resume_s'], ' s')}{back}"
            )
        return lines
    return [f"{head} {state}"]


def _print_run(summary: dict, out: Path | None) -> None:
    run = summary["run"]
    print(
        f"{run['scenario']}  (seed {run['seed']}, {run['events']} events, "
        f"simulated {run['simulated_s']:.3f} s, ended by {run['ended_by']})"
    )
    for h in summary["handovers"]:
        reached = "" if h.get("happened", True) else " (not reached)"
        print(f"  handover {h['from']} -> {h['to']} ({h['kind']}) at {h['at_s']:.3f} s{reached}")
        if h.get("mipv6"):
            print(f"    {_mipv6_line(h['mipv6'])}")
    for f in summary["flows"]:
        for line in _flow_lines(f):
            print(f"  {line}")
        for d in f["drops"]:
            print(f"    drops {d['link']} {d['from']}->{d['to']} {d['cause']}: {d['packets']}")
    if not run["conservation_ok"]:
        print("  WARNING: packet conservation failed on a link (see summary.json links)")
    if out is not None:
        print(f"  -> {out}/summary.json")


def _cmd_run(args: argparse.Namespace) -> int:
    from .runner import resolved, run

    scenario = Path(args.scenario)
    if args.dry_run:
        sys.stdout.write(resolved(scenario, seed=args.seed, overrides=args.set or ()))
        return 0
    out = Path(args.out) if args.out else Path("out") / scenario.stem
    result = run(
        scenario,
        seed=args.seed,
        overrides=args.set or (),
        out_dir=out,
        plot=args.plot,
        force=args.force,
    )
    _print_run(result.summary, out)
    for w in result.summary["run"].get("warnings", []):
        print(f"warning: {w}", file=sys.stderr)
    if args.plot and not list(out.glob("*.pcap")):
        print(
            "warning: --plot: the scenario captures at no node ([record] pcap = [...]): "
            "nothing to plot",
            file=sys.stderr,
        )
    return 0


def _nonneg_seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a time in seconds >= 0, got {text!r}") from None
    if not (v >= 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a time in seconds >= 0, got {text}")
    return v


def _positive_seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a time in seconds > 0, got {text!r}") from None
    if not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a time in seconds > 0, got {text}")
    return v


def _cmd_analyze(args: argparse.Namespace) -> int:
    from .analysis import analyze

    capture = Path(args.capture)
    out = Path(args.out) if args.out else Path("out") / f"analyze-{capture.stem}"
    a = analyze(
        capture,
        flow=args.flow,
        handover_at=args.handover_at,
        capture_point=args.capture_point,
        out_dir=out,
        series=args.series,
        force=args.force,
        ta_mean=args.ta_mean,
    )
    m = a.metrics
    for w in m["warnings"]:
        print(f"vho analyze: warning: {w}", file=sys.stderr)
    t = m["time"]
    start = (
        f"from its first packet at {t['origin_utc']}"
        if t["origin"] == "first_packet"
        else "in simulated time"
    )
    print(
        f"{capture}: {m['packets']} packets, {m['tcp_segments']} TCP segments, "
        f"{m['flows_total']} flows, {t['end_s']:.3f} s {start}"
    )
    h = m["handover"]
    if h["source"] == "given":
        print(f"  handover at {h['at_s']:.3f} s (given)")
    elif h["source"] == "detected":
        found = h.get("all") or [h]
        if len(found) > 1:
            print(f"  {len(found)} handovers found in flow {h['flow']}:")
        for c in found:
            ta = c.get("adaptation_time_s")
            print(
                f"  handover found at {c['at_s']:.3f} s in flow {h['flow']} ({c['signal']}): "
                f"{c['evidence']}" + ("" if ta is None else f"; t_a {ta:.3f} s")
            )
    else:
        print("  no handover found")
    for e in m["flows"]:
        goodput = "undefined" if e["goodput_bps"] is None else _fmt(e["goodput_bps"], " b/s", 0)
        print(
            f"  flow {e['index']} {e['id']}: {e['bytes']} B, goodput "
            f"{goodput}{_delay(e)}, t_a {_adaptation(e, h)}{_other_mean(e)}"
        )
        if e["spurious_evidence"] == "none":
            # No receiver-side capture, D-SACK or timestamps: zero would read as "none found".
            spurious = "spurious not measurable here"
        else:
            spurious = f"spurious {e['spurious_retransmissions']} by {e['spurious_evidence']}"
        if e["retransmissions_by"] == "segments-sent-again":
            # At the sender every resend is seen as such; Wireshark's labels differ there.
            how = (
                "segments sent again at the sender; Wireshark: "
                f"{e['wireshark_retransmissions']} retransmissions, "
                f"{e['wireshark_out_of_order']} out of order"
            )
            print(
                f"    retransmissions {e['retransmissions']} ({how}; fast "
                f"{e['fast_retransmissions']}, {spurious}), duplicate ACKs {e['duplicate_acks']}"
            )
        else:
            print(
                f"    retransmissions {e['retransmissions']} (Wireshark's; fast "
                f"{e['fast_retransmissions']}, {spurious}), duplicate ACKs "
                f"{e['duplicate_acks']}, out of order {e['out_of_order']}"
            )
    rest = m["flows_total"] - m["flows_listed"]
    if rest:
        small = m["small_flows"]
        print(
            f"  ... and {rest} more flows in {out}/{m['flows_file']} ({small['flows']} with "
            f"under {small['max_data_segments'] + 1} data segments, {small['syn_only']} a lone SYN)"
        )
    if "mptcp" in m:
        from .analysis.mptcp import lines

        print("\n".join(lines(m["mptcp"])))
    print(f"-> {out}/metrics.json" + (f" and {len(a.figures)} figure files" if a.figures else ""))
    return 0


def _delay(e: dict) -> str:
    """The flow's mean RTT or, at a receiver-side capture, its ACK delay (what the same
    data/ACK timing measures there); nothing when no segment was timed."""
    for key, name in (("rtt", "RTT"), ("ack_delay", "ACK delay")):
        if e[key] and e[key]["mean_s"] is not None:
            return f", {name} mean {e[key]['mean_s'] * 1e3:.1f} ms"
    return ""


def _adaptation(e: dict, handover: dict) -> str:
    """t_a of a flow, or why there is none (Cottingham & Vidales §5 needs a handover instant,
    data after it, and a throughput that reaches the connection's mean)."""
    if e["adaptation_time_s"] is not None:
        return _fmt(e["adaptation_time_s"], " s")
    if handover["source"] not in ("given", "detected"):
        return "- (no handover known: give --handover-at)"
    if e.get("first_after_handover_s") is None:
        return "- (no data after the handover)"
    return "- (the throughput never reached its mean after the handover)"


def _other_mean(e: dict) -> str:
    """With --ta-mean: which mean t_a was measured against, and t_a against the other."""
    if "ta_mean" not in e:
        return ""
    (other,) = (k for k in e["adaptation_time_by_mean"] if k != e["ta_mean"])
    ta = e["adaptation_time_by_mean"][other]["adaptation_time_s"]
    return f" (mean {e['ta_mean']}; {other}: {'-' if ta is None else _fmt(ta, ' s')})"


def _cmd_examples(args: argparse.Namespace) -> int:
    from . import examples

    if args.copy:
        for p in examples.copy(Path(args.copy)):
            print(p)
        return 0
    found = examples.bundled()
    if args.name:
        text = examples.text(args.name)
        sys.stdout.write(text)
        return 0
    w = max(len(e.name) for e in found)
    k = max(len(e.kind) for e in found)
    for e in found:
        print(f"{e.name:<{w}}  {e.kind:<{k}}  {e.title}")
    print("\nvho examples NAME prints one; vho examples --copy DIR writes them all to DIR")
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
    wr = max(len(p["rate"]) for p in ps)
    for p in ps:
        print(
            f"{p['name']:<{w}}  {p['rate']:>{wr}}  {p['delay']:>8}  queue {p['queue']:<8}  "
            f"{p['description']}"
        )
    print('\nA value "down / up" differs by direction: towards the mobile host / from it.')
    print(
        "\nTCP profiles (flow.tcp.profile): rfc (the standards as written), linux (a Linux "
        "host's defaults: CUBIC, SACK, Linux's RTO estimator), ns2 (ns-2.35's Sack1), "
        "linux-2.0 (the thesis testbed's Linux 2.0.36: Reno, no SACK, its own RTO). "
        "Every key: vho schema"
    )
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from . import _native

    sys.stdout.write(_native.scenario_reference())
    return 0


def _workers(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {v}")
    return v


def _cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweep

    # `vho sweep summarize DIR` and `vho sweep plot DIR` share the command with `vho sweep FILE`.
    if args.target == "summarize":
        return _sweep_summarize(args)
    if args.target == "plot":
        return _sweep_plot(args)
    if args.rest:
        raise VhoError(f"vho sweep: unexpected arguments {' '.join(args.rest)}")
    s = sweep.load(args.target)
    out = Path(args.out) if args.out else Path("out") / s.name
    total = s.n_runs
    if not args.quiet:
        where = f"on {args.scheduler}" if args.scheduler else f"{args.workers or 'all'} workers"
        print(
            f"{s.name}: {len(s.points)} points x {s.replications} replications = {total} runs, "
            f"{where} -> {out}/results"
        )
    # What an interrupted sweep prints (see main): its runs so far are kept; --resume adds the rest.
    again = ["vho", "sweep", args.target, "--out", str(out), "--resume"]
    if args.scheduler:
        again += ["--scheduler", args.scheduler]
    if args.run_timeout is not None:
        again += ["--run-timeout", f"{args.run_timeout:g}"]
    args.stop_hint = (
        f"the finished runs are kept in {out}/results; to run the missing ones: "
        + shlex.join(again)
    )
    sweep.run(
        s,
        out,
        workers=args.workers,
        scheduler=args.scheduler,
        resume=args.resume,
        quiet=args.quiet,
        run_timeout=args.run_timeout,
    )
    df = sweep.results(out)
    failed = int(df["error"].notna().sum())
    if not args.quiet:
        print(f"{len(df)} runs, {failed} failed; summary: vho sweep summarize {out}")
    return 0


def _sweep_dir(args: argparse.Namespace) -> Path:
    if len(args.rest) != 1:
        raise VhoError(f"vho sweep {args.target}: expected one sweep output directory")
    return Path(args.rest[0])


def _sweep_summarize(args: argparse.Namespace) -> int:
    from . import files, sweep
    from .sweep.summarize import axes_of

    root = _sweep_dir(args)
    axes = axes_of(root)
    df = sweep.results(root)
    table = sweep.summarize(df, axes, args.metric or sweep.default_metrics(df))
    md = sweep.to_markdown(table, axes)
    files.write_atomic(root / "summary.csv", lambda p: table.to_csv(p, index=False))
    files.write_text_atomic(root / "summary.md", md)
    print(md)
    print(f"-> {root}/summary.csv, {root}/summary.md")
    return 0


def _sweep_plot(args: argparse.Namespace) -> int:
    from . import sweep
    from .sweep.summarize import averaged_axes, axes_of, plot

    root = _sweep_dir(args)
    if not args.x or not args.y:
        raise VhoError("vho sweep plot: expected --x AXIS and --y METRIC")
    axes = axes_of(root)
    df = sweep.results(root)
    name = f"plot_{args.y}_vs_{args.x}" + (f"_by_{args.hue}" if args.hue else "")
    paths = plot(df, args.x, args.y, root / name.replace("/", "_"), args.hue, axes=axes)
    over = averaged_axes(df, axes, args.x, args.hue)
    if over:
        print(
            f"averaged over {', '.join(over)} (not plotted): each point is the mean of every "
            "run at its x, with a 95 % CI band"
        )
    print("-> " + ", ".join(str(p) for p in paths))
    return 0


#: Replications: an integer >= 1, read as workers are.
_replications = _workers


def _cmd_compare(args: argparse.Namespace) -> int:
    import math
    import time

    from . import compare

    t0 = time.perf_counter()
    plan = compare.plan(
        variants=args.variant,
        scenarios=args.scenario,
        fixed=tuple(args.set or ()),
        reference=args.reference,
        system_reference=args.system_reference,
        replications=args.replications,
        seed=args.seed,
    )
    out = Path(args.out) if args.out else Path("out") / "compare"
    runs = len(plan.scenarios) * len(plan.variants) * plan.replications
    if not args.quiet:
        where = f"on {args.scheduler}" if args.scheduler else f"{args.workers or 'all'} workers"
        print(
            f"vho compare: {len(plan.scenarios)} scenarios x {len(plan.variants)} variants x "
            f"{plan.replications} replications = {runs} runs, {where} -> {out}"
        )
    again = ["vho", *(args.argv or ["compare"])]
    if "--resume" not in again:
        again.append("--resume")
    args.stop_hint = f"the finished runs are kept in {out}/runs; to run the rest: " + shlex.join(
        again
    )
    table, report = compare.compare(
        plan,
        out,
        workers=args.workers,
        scheduler=args.scheduler,
        resume=args.resume,
        quiet=args.quiet,
        command=shlex.join(["vho", *args.argv]),
        fold=args.fold,
    )
    c = compare.stats.closest(table, plan.references)
    if len(c) and math.isnan(c.iloc[0]["worst_distance"]):
        print(
            f"no candidate has a distance to {' / '.join(sorted(plan.references))} in any "
            "scenario: no transfer completed beside its oracle's (see the report)"
        )
    elif len(c):
        top = c.iloc[0]
        print(
            f"closest to {' / '.join(sorted(plan.references))} in every scenario: "
            f"{top['variant']} (worst "
            f"{top['worst_distance'] * 100:+.1f} % in {top['worst_scenario']}; within 5 % in "
            f"{top['within_goal']}/{top['scenarios']}"
            + (
                f"; not measured in {top['scenarios'] - top['measured']}: "
                + (
                    f"{top['skipped']} skipped, the rest no transfer completed)"
                    if top["skipped"]
                    else "no transfer completed)"
                )
                if top["measured"] < top["scenarios"]
                else ")"
            )
        )
    print(
        f"-> {out}/compare.csv, {report}, {out}/compare.png "
        f"({runs} runs, {time.perf_counter() - t0:.1f} s)"
    )
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from .reproduce import STUDIES
    from .reproduce.study import megabytes, size_of
    from .reproduce.study import reproduce as reproduce_study

    study = STUDIES.get(args.study)
    if study is None:
        raise VhoError(
            f"vho reproduce: no study {args.study!r}; expected one of {', '.join(STUDIES)}"
        )
    if args.calibrate:
        return _reproduce_calibrated(args)
    if args.split is not None:
        raise VhoError(f"vho reproduce {args.study}: --split {args.split}: only with --calibrate")
    out = Path(args.out) if args.out else Path("out") / args.study
    report = reproduce_study(
        study,
        out,
        quick=args.quick,
        seed=args.seed,
        reps=args.reps if args.reps is not None else args.trials,
        workers=args.workers,
        scheduler=args.scheduler,
        sensitivity=args.sensitivity,
        keep_captures=args.keep_captures,
        quiet=args.quiet,
        force=args.force,
        argv=args.argv,
    )
    print(f"-> {out}/table.csv, {report} ({megabytes(size_of(out))})")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from . import calibrate

    cal = calibrate.load(args.calibration)
    out = Path(args.out) if args.out else Path("out") / f"calibrate-{Path(args.calibration).stem}"
    again = ["vho", *(args.argv or ["calibrate", args.calibration])]
    args.stop_hint = (
        f"the finished runs are kept beside {out}; the same command resumes them: "
        + shlex.join(again)
    )
    report = calibrate.run(
        cal,
        out,
        workers=args.workers,
        scheduler=args.scheduler,
        trials=args.trials,
        fit=args.fit,
        quiet=args.quiet,
        force=args.force,
        argv=args.argv,
    )
    import json

    res = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    d, b = res["defaults"], res["best"]

    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.4g}"

    print(
        f"loss at the defaults {f(d['loss'])}, at the best point {f(b['loss'])} "
        f"(trial {b['trial']})"
    )
    print("best: " + ", ".join(f"{k} = {v}" for k, v in b["params"].items()))
    if res["held_out"] is None:
        print("held out: nothing (every target was fitted)")
    else:
        hd, hb = res["held_out"]["defaults"], res["held_out"]["best"]
        print(
            f"held out ({len(hb['targets'])}): mean abs. relative error "
            f"{f(hd['mean_abs_rel_error'])} at the defaults, {f(hb['mean_abs_rel_error'])} at "
            "the best point"
        )
    print(f"-> {out}/calibration.json, {report}")
    return 0


def _reproduce_calibrated(args: argparse.Namespace) -> int:
    """`vho reproduce STUDY --calibrate`: the study's calibration file (its open values and
    hold-out split), run by `vho calibrate`."""
    from . import calibrate
    from .calibrate import studies

    if args.study in studies.NOT_CALIBRATED:
        raise VhoError(
            f"vho reproduce {args.study} --calibrate: the study declares no open values to fit: "
            f"{studies.NOT_CALIBRATED[args.study]}"
        )
    import dataclasses

    split = args.split
    cal = dataclasses.replace(calibrate.load(studies.path(args.study, split)), seed=args.seed)
    if args.quick:
        cal = studies.quick(cal)
    tail = f"-{split}" if split else ""
    out = Path(args.out) if args.out else Path("out") / f"{args.study}-calibrated{tail}"
    args.stop_hint = "the finished runs are kept beside the output; the same command resumes them"
    report = calibrate.run(
        cal,
        out,
        workers=args.workers,
        scheduler=args.scheduler,
        quiet=args.quiet,
        force=args.force,
        argv=args.argv,
    )
    import json

    res = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    for side, c in res["verdicts"].items():
        print(
            f"{side}: {c['defaults']} of {c['of']} paper numbers agree at the defaults, "
            f"{c['calibrated']} of {c['of']} calibrated"
        )
    print(f"-> {out}/verdicts.csv, {report}")
    return 0


def _serve(text: str | None) -> list[str] | None:
    """``--serve``'s command line, split as a shell would (one line if it cannot be)."""
    if not text:
        return None
    try:
        return shlex.split(text) or None
    except ValueError as e:
        raise VhoError(
            f"vho emulate: --serve {text!r}: {str(e).lower()}; expected one command line, "
            "quoted as a whole (--serve 'iperf3 -s')"
        ) from None


def _cmd_emulate(args: argparse.Namespace) -> int:
    from .emulate import cleanup, emulate

    if args.cleanup:
        removed = cleanup()
        print(
            f"vho emulate --cleanup: removed {len(removed)} namespaces"
            + (f" ({', '.join(removed)})" if removed else "")
        )
        return 0
    if args.scenario is None:
        raise VhoError("vho emulate: expected a scenario (or --cleanup)")
    scenario = Path(args.scenario)
    command = list(getattr(args, "cmd", None) or [])
    sysctls = {}
    for item in args.sysctl or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise VhoError(f"--sysctl: expected KEY=VALUE (net.ipv4.tcp_frto=2), got {item!r}")
        sysctls[key.replace(".", "/")] = value
    out = Path(args.out) if args.out else Path("out") / f"emulate-{scenario.stem}"
    result = emulate(
        scenario,
        out_dir=out,
        seed=args.seed,
        overrides=args.set or (),
        cc=args.cc,
        command=command or None,
        command_at=args.at,
        serve=_serve(args.serve),
        serve_at=args.serve_at,
        sysctls=sysctls,
        multipath=args.multipath,
        offload=not args.no_offload,
        force=args.force,
    )
    _print_emulation(result.summary, out)
    if not command:
        return 0
    # The command's status is the run's, as env(1) and timeout(1) give it.
    run = result.summary["run"]
    if run["command_exit"] is None:
        print(
            "vho emulate: the command was still running at the scenario's run.stop and was "
            f"stopped (exit status {EXIT_COMMAND_STOPPED}, as timeout(1)); give it longer with "
            "--set 'run.stop=\"...\"'",
            file=sys.stderr,
        )
        return EXIT_COMMAND_STOPPED
    return int(run["command_exit"]) & 0xFF


def _print_emulation(s: dict, out: Path) -> None:
    run = s["run"]
    print(
        f"{run['scenario']}: emulated with Linux {run['kernel']} ({run['congestion_control']}"
        + (", Multipath TCP" if run["multipath"] else "")
        + "), "
        f"{run['wall_s']:.3f} s, ended by {run['ended_by']}"
    )
    for h in s["handovers"]:
        gap = h["interruption_s"]
        if not h["happened"]:
            print(
                f"  handover {h['from']} -> {h['to']} at {h['at_s']:.3f} s ({h['kind']}): "
                "did not happen, the run ended first"
            )
            # As `vho run` warns: a run that ends before its handover measured no handover.
            print(
                f"warning: handover {h['from']} -> {h['to']} at {h['at_s']:.3f} s not reached: "
                f"the emulation ended at {run['wall_s']:.3f} s (a larger flow.0.size or a later "
                "run.stop crosses it)",
                file=sys.stderr,
            )
            continue
        print(
            f"  handover {h['from']} -> {h['to']} at {h['at_s']:.3f} s ({h['kind']})"
            + ("" if gap is None else f", first packet over {h['to']} after {gap:.3f} s")
        )
    for f in s["flows"]:
        tt = f["transfer_time_s"]
        print(
            f"  flow {f['name']} {f['from']}->{f['to']}: {f['bytes']} B, "
            + ("not completed" if tt is None else f"transfer time {tt:.3f} s")
            + f", retransmissions {_fmt(f['retransmissions'])} (spurious "
            f"{_fmt(f['spurious_retransmissions'])}), duplicate ACKs {_fmt(f['duplicate_acks'])}"
        )
        # With --multipath: each subflow as the kernel reported it (vho.emu_mptcp).
        m = f.get("mptcp")
        for x in m["subflows"] if m else []:
            closed = "" if x["closed_s"] is None else f", closed at {x['closed_s']:.3f} s"
            print(
                f"    subflow {x['id']} over {x['interface']}: sent {x['bytes_sent']} B, acked "
                f"{x['bytes_acked']} B, received {_fmt(x['bytes_received'], ' B')}, "
                f"retransmissions {x['total_retrans']}{closed}"
            )
        for h in m["handovers"] if m else []:
            back = "" if h["failback_s"] is None else f", failback {_fmt(h['failback_s'], ' s')}"
            print(
                f"    {h['lost']} lost at {h['at_s']:.3f} s: resumed in "
                f"{_fmt(h['resume_s'], ' s')}{back}"
            )
    e = s["emulator"]
    late = e["accuracy"]["delivery_lateness"]
    print(
        f"  emulator: {e['packets_in']} packets in, {e['packets_out']} out, "
        f"{e['dropped_in_network']} dropped by the model; delivery lateness p50 "
        f"{_fmt(late['p50_us'], ' µs', 0)}, p99 {_fmt(late['p99_us'], ' µs', 0)}; loop CPU "
        f"{e['loop_cpu_s']:.2f} s"
    )
    for reason in e["reasons"]:
        print(f"warning: the emulator may have limited the traffic: {reason}", file=sys.stderr)
    if run["command_exit"] is not None:
        print(f"  command exited with status {run['command_exit']} (its output: {out}/command.log)")
    print(f"  -> {out}/summary.json")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``vho`` (exposed for the docs and tests)."""
    p = _Parser(prog="vho", description="A lab for TCP across vertical handovers.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    from . import _native

    r = sub.add_parser(
        "run",
        help="simulate a scenario",
        description="Simulates a scenario (every key: vho schema). What it writes, every key of "
        "summary.json, every Parquet column and the captures' addresses: python3 -m vho.outputs "
        "(docs/output-reference.md).",
        epilog="Handover kinds ([[handover]] kind): "
        + (_native.key_meaning("handover", "kind") or ""),
    )
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("--out", help="output directory (default: out/<scenario name>)")
    r.add_argument("--seed", type=_seed, help="seed of the run (default: the scenario's)")
    r.add_argument(
        "--set",
        action="append",
        metavar="KEY.PATH=VALUE",
        help=(
            "override a scenario value (repeatable): a dotted path, an array of tables by "
            'index, e.g. --set flow.0.size="2 MB" --set link.1.delay="50 ms"'
        ),
    )
    r.add_argument(
        "--plot",
        action="store_true",
        help="draw a time-sequence graph per capture (sequence_<node>.png/.svg)",
    )
    r.add_argument(
        "--force",
        action="store_true",
        help="replace a non-empty --out that is not a previous run's output, whole",
    )
    r.add_argument(
        "--dry-run",
        action="store_true",
        help="print the scenario with every default filled in (as TOML) and run nothing",
    )
    r.set_defaults(func=_cmd_run)

    an = sub.add_parser(
        "analyze",
        help="analyse a TCP capture (pcap, pcapng)",
        description="Analyses a TCP capture, simulated or real. Every key of metrics.json: "
        "python3 -m vho.outputs (docs/output-reference.md).",
    )
    an.add_argument("capture", help="capture file")
    an.add_argument(
        "--flow",
        metavar="SPEC",
        help="flows to report: N, ADDR:PORT, :PORT or ADDR:PORT,ADDR:PORT (default: all)",
    )
    an.add_argument(
        "--handover-at",
        type=_nonneg_seconds,
        metavar="SECONDS",
        help="the handover instant in seconds from the capture's first packet, as Wireshark's "
        "relative time (a simulator's capture: simulated time) (default: found in the capture)",
    )
    an.add_argument(
        "--capture-point",
        choices=["receiver", "sender"],
        help="where the capture was taken, relative to the data (default: found per flow)",
    )
    an.add_argument(
        "--ta-mean",
        choices=["whole-connection", "after-handover"],
        help="the mean t_a is measured against (Cottingham & Vidales §5 leave it open): "
        "over the whole connection, or over the samples after the first data packet on the "
        "new interface; either way the last sample is dropped. Given, metrics.json reports "
        "t_a against both (default: whole-connection, reported alone)",
    )
    an.add_argument("--out", help="output directory (default: out/analyze-<capture name>)")
    an.add_argument(
        "--series",
        help="vho's series_tcp.parquet for the RTO and cwnd in the figures "
        "(default: the one beside the capture, for a one-flow run)",
    )
    an.add_argument(
        "--force",
        action="store_true",
        help="replace a non-empty --out that is not a previous analysis, whole",
    )
    an.set_defaults(func=_cmd_analyze)

    ex = sub.add_parser(
        "examples",
        help="the scenarios and sweeps shipped with vho: list, print one, or copy them",
    )
    ex.add_argument("name", nargs="?", help="an example to print")
    ex.add_argument("--copy", metavar="DIR", help="write every example into DIR (kept as laid out)")
    ex.set_defaults(func=_cmd_examples)

    pr = sub.add_parser("presets", help="list the link presets, or print one with its sources")
    pr.add_argument("name", nargs="?", help="a preset to print in full")
    pr.set_defaults(func=_cmd_presets)

    sc = sub.add_parser(
        "schema",
        help="the scenario reference: every key, its type and unit, default and meaning",
        description="Prints the scenario reference as Markdown (docs/scenario-reference.md).",
    )
    sc.set_defaults(func=_cmd_schema)

    sw = sub.add_parser(
        "sweep",
        help="run a sweep file; or: sweep summarize DIR; sweep plot DIR --x AXIS --y METRIC",
        description="vho sweep SWEEP.toml [options] | vho sweep summarize DIR [--metric M] | "
        "vho sweep plot DIR --x AXIS --y METRIC [--hue AXIS]",
    )
    sw.add_argument("target", help="a sweep file, or summarize / plot")
    sw.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    sw.add_argument("--out", help="output directory (default: out/<sweep name>)")
    sw.add_argument("--workers", type=_workers, help="local worker processes (default: all cores)")
    sw.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on a Dask cluster")
    sw.add_argument("--resume", action="store_true", help="continue an interrupted sweep")
    sw.add_argument(
        "--run-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="wall-time limit of one run; a run over it is a failed row (default: none)",
    )
    sw.add_argument("--quiet", action="store_true", help="no progress bar")
    sw.add_argument("--metric", action="append", help="summarize: a metric (repeatable)")
    sw.add_argument("--x", action=_Once, help="plot: the axis on the x axis")
    sw.add_argument("--y", action=_Once, help="plot: the metric")
    sw.add_argument(
        "--hue",
        action=_Once,
        help="plot: an axis drawn as separate lines (axes neither --x nor --hue are averaged over)",
    )
    sw.set_defaults(func=_cmd_sweep)

    cp = sub.add_parser(
        "compare",
        help="remedies x scenarios: transfer time, spurious events, t_a, distance to the oracle",
        description="Runs every variant (a set of remedies) on every scenario, --replications "
        "times with common seeds, on the sweep engine; writes compare.csv, compare.md and "
        "compare.png/.svg. Default: Daniel & Kojo's cells with HTime <= 5 s and the thesis's "
        "cases, each remedy alone and the combinations the sources argue for.",
    )
    cp.add_argument(
        "--variant",
        action="append",
        metavar="REMEDY[,REMEDY...]",
        help="a set of remedies to compare, or plain, or mptcp / mptcp-backup (the flow as "
        "Multipath TCP; skipped, with the reason, where the scenario cannot host it) "
        "(repeatable; default: the built-in set; plain TCP and the oracles are always run)",
    )
    cp.add_argument(
        "--scenario",
        action="append",
        metavar="FILE",
        help="a one-flow scenario file, or daniel-kojo / thesis for the built-in sets "
        "(repeatable; default: both built-in sets)",
    )
    cp.add_argument(
        "--set",
        action="append",
        metavar="KEY.PATH=VALUE",
        help='override a value in every scenario (repeatable), e.g. --set flow.0.size="2 MB"',
    )
    cp.add_argument(
        "--reference",
        action=_Once,
        metavar="VARIANT",
        help="the sender-oracle, measuring fast -> slow scenarios (default: oracle)",
    )
    cp.add_argument(
        "--system-reference",
        action=_Once,
        metavar="VARIANT",
        help="the system-oracle, measuring slow -> fast scenarios (default: oracle-system; "
        "with --reference alone: that one, measuring every scenario)",
    )
    cp.add_argument(
        "--replications",
        type=_replications,
        default=32,
        help="runs per scenario and variant (default 32, Daniel & Kojo's)",
    )
    cp.add_argument("--seed", type=_seed, default=1, help="base seed (default 1)")
    cp.add_argument("--out", help="output directory (default: out/compare)")
    cp.add_argument("--workers", type=_workers, help="local worker processes (default: all cores)")
    cp.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on a Dask cluster")
    cp.add_argument("--resume", action="store_true", help="continue (and reuse) the runs in --out")
    cp.add_argument(
        "--no-fold",
        dest="fold",
        action="store_false",
        help="run every variant, also one whose resolved scenario is another's but for the "
        "names of its remedies (by default such a variant is the same runs: run once, copied)",
    )
    cp.add_argument("--quiet", action="store_true", help="no progress bars")
    cp.set_defaults(func=_cmd_compare)

    em = sub.add_parser(
        "emulate",
        help="run real Linux TCP through a scenario's links and handovers (root)",
        description="Emulates a scenario: each host a network namespace with a TUN device, the "
        "simulator's links, queues, losses and handovers carrying their real packets in real "
        "time. The scenario's flows become real bulk transfers, or COMMAND runs in the mobile "
        "host's namespace (VHO_<NODE>_ADDR gives each host's address); vho emulate then exits "
        "with COMMAND's status, or 124 (as timeout(1)) if the scenario's run.stop stopped it.",
        usage="vho emulate [options] SCENARIO [-- COMMAND ...] | vho emulate --cleanup",
    )
    em.add_argument("scenario", nargs="?", help="scenario TOML file")
    em.add_argument("--out", help="output directory (default: out/emulate-<scenario name>)")
    em.add_argument("--seed", type=_seed, help="seed of the run (default: the scenario's)")
    em.add_argument(
        "--set",
        action="append",
        metavar="KEY.PATH=VALUE",
        help='override a value (repeatable), e.g. --set flow.0.size="2 MB"',
    )
    em.add_argument(
        "--cc", default="cubic", help="congestion control of the bulk senders: reno, cubic, bbr"
    )
    em.add_argument(
        "--sysctl", action="append", metavar="KEY=VALUE", help="set in every host (repeatable)"
    )
    em.add_argument("--at", metavar="NODE", help="host that runs COMMAND (default: the mobile)")
    em.add_argument("--serve", metavar="'CMD ...'", help="a server started first (quoted)")
    em.add_argument("--serve-at", metavar="NODE", help="host of --serve (default: the first fixed)")
    em.add_argument(
        "--multipath",
        action="store_true",
        help="Multipath TCP: an address per mobile interface, a subflow over each",
    )
    em.add_argument(
        "--no-offload",
        action="store_true",
        help="no segmentation offloads at the devices: one read and one write per packet",
    )
    em.add_argument("--force", action="store_true", help="replace a non-empty --out whole")
    em.add_argument(
        "--cleanup",
        action="store_true",
        help="remove the namespaces and processes that killed emulations left, and exit",
    )
    em.set_defaults(func=_cmd_emulate)

    rp = sub.add_parser("reproduce", help="reproduce a study's tables and figures")
    rp.add_argument("study", help="chen, cottingham, daniel-kojo, naoe or thesis")
    rp.add_argument("--quick", action="store_true", help="fewer replications, for CI")
    rp.add_argument("--out", help="output directory (default: out/<study>)")
    rp.add_argument("--workers", type=_workers, help="local worker processes (default: all)")
    rp.add_argument(
        "--reps",
        type=int,
        help="replications of the paper's cases (default: the study's; report.md says it)",
    )
    rp.add_argument("--seed", type=_seed, default=1, help="base seed (default 1)")
    rp.add_argument("--trials", type=int, help="the same as --reps (naoe's trials)")
    rp.add_argument("--quiet", action="store_true", help="no progress bars")
    rp.add_argument(
        "--scheduler",
        help="a dask.distributed scheduler (tcp://HOST:PORT) to run the study's runs on",
    )
    rp.add_argument(
        "--keep-captures",
        action="store_true",
        help="keep every run's directory (captures, series), not only those the report reads",
    )
    rp.add_argument(
        "--no-sensitivity",
        dest="sensitivity",
        action="store_false",
        help="skip the variant runs that test a cause (each study's sensitivity points)",
    )
    rp.add_argument(
        "--force",
        action="store_true",
        help="replace a non-empty --out that is not a previous output of the study, whole",
    )
    rp.add_argument(
        "--calibrate",
        action="store_true",
        help="fit the study's declared open values on its declared split (vho calibrate with "
        "vho/reproduce/<study>/calibration.toml); the report judges the defaults and the "
        "calibrated set side by side, fitted and held-out numbers apart",
    )
    rp.add_argument(
        "--split",
        help="with --calibrate: another declared hold-out split, "
        "vho/reproduce/<study>/calibration-<split>.toml (naoe: reverse, fit Table III and "
        "predict Table II)",
    )
    rp.set_defaults(func=_cmd_reproduce)

    ca = sub.add_parser(
        "calibrate",
        help="fit a scenario's (or a study's) open values to target numbers, held out",
        description="Fits the open values a calibration file declares (each a --set key with a "
        "range and the reason for it) to its target numbers (each with a standard error), with "
        "Optuna's TPE sampler, every trial a few replications on the sweep engine; then runs "
        "the defaults and the best point again on fresh draws and judges both, on the fitted "
        "targets and on the held-out ones (fit = false). Writes calibration.json, report.md, "
        "trials.parquet (every run), sensitivity.csv/.png. A killed calibration resumes when "
        "run again with the same --out. Format: docs/guide/calibrate.md.",
    )
    ca.add_argument("calibration", help="calibration TOML file")
    ca.add_argument("--out", help="output directory (default: out/calibrate-<file name>)")
    ca.add_argument("--trials", type=_workers, help="optimiser trials (default: the file's)")
    ca.add_argument(
        "--fit",
        action="append",
        metavar="TARGET",
        help="fit this target (repeatable); every other is held out (default: the targets the "
        "file marks fit = true)",
    )
    ca.add_argument("--workers", type=_workers, help="local worker processes (default: all)")
    ca.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on a Dask cluster")
    ca.add_argument("--quiet", action="store_true", help="no progress lines")
    ca.add_argument(
        "--force",
        action="store_true",
        help="replace a non-empty --out that is not a previous calibration's output, whole",
    )
    ca.set_defaults(func=_cmd_calibrate)
    return p


def _version() -> str:
    from . import __version__

    return f"vho {__version__}"


class _Terminated(BaseException):
    """SIGTERM (or SIGHUP: the terminal closed), raised in the main thread so that every
    ``finally`` (staging directories, worker processes, an emulation's namespaces) runs before
    the command exits."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


#: The signals that stop a command cleanly: Ctrl-C, kill(1)'s default, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _ignore(signum: int, frame: object) -> None:
    """A signal after the one that stops the command. (Not SIG_IGN: a signal the C handler
    had already noted when the disposition became SIG_IGN is reported by Python as "OSError:
    Signal 15 ignored due to race condition", a traceback on stderr: a SIGTERM 30 ms after a
    SIGINT did that.)"""


#: The signal that stopped the command, once one has: what a library made of the exception the
#: handler raised is still that stop (see :func:`main`).
_stopped_by: int | None = None


def _on_stop_signal(signum: int, frame: object) -> None:
    """SIGINT, SIGTERM or SIGHUP while a command runs: the first stops it (KeyboardInterrupt,
    or :class:`_Terminated`, so that every ``finally`` runs); the ones after it are ignored while
    it stops. A Ctrl-C held down once raised a second KeyboardInterrupt in the stop path (a
    traceback, the staging or namespaces left: issue 40, benches/fuzz_emulate.py); the
    handler itself ignores the next, so that no instant is left between the two."""
    global _stopped_by
    for s in STOP_SIGNALS:
        signal.signal(s, _ignore)
    _stopped_by = signum
    if signum != signal.SIGINT:
        raise _Terminated(signum)
    raise KeyboardInterrupt


def _quiet_stdout() -> None:
    """After a broken pipe: stdout to /dev/null, so that the interpreter's last flush at exit
    does not complain about the pipe again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _stopped(how: str, status: int) -> int:
    """The end of a command stopped by a signal: its staging directories removed, one line.
    A simulation still running in its thread (the core cannot be interrupted) would abort the
    interpreter's shutdown, so then the process ends here."""
    import threading

    from . import files

    files.remove_staged()
    sys.stderr.write(f"vho: {how}\n")
    if threading.active_count() > 1 and threading_main():
        sys.stderr.flush()
        os._exit(status)
    return status


def _stop_reason(signum: int) -> str:
    return "terminated" if signum == signal.SIGTERM else "hung up (SIGHUP)"


def _with_hint(how: str, args: argparse.Namespace) -> str:
    """The stop message, with what the command said to do next (a sweep: how to resume)."""
    hint = getattr(args, "stop_hint", None)
    return f"{how}; {hint}" if hint else how


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vho`` command."""
    if threading_main():
        from . import _sigint

        _sigint.restore()  # Ctrl-C from here on: KeyboardInterrupt, handled below
    given = list(sys.argv[1:] if argv is None else argv)
    # `vho emulate ... -- COMMAND ...`: what follows `--` is the command, never vho's options.
    command = None
    if given[:1] == ["emulate"] and "--" in given:
        cut = given.index("--")
        given, command = given[:cut], given[cut + 1 :]
    try:
        args = build_parser().parse_args(given)
    except KeyboardInterrupt:
        return _stopped("interrupted", 130)
    args.cmd = command
    args.argv = list(sys.argv[1:] if argv is None else argv)
    global _stopped_by
    _stopped_by = None
    previous: dict[int, object] = {}
    if threading_main():
        for s in STOP_SIGNALS:
            previous[s] = signal.signal(s, _on_stop_signal)
    try:
        status = int(args.func(args))
        sys.stdout.flush()  # here, so that a closed pipe is caught below
        return status
    except VhoError as e:
        # One line, whatever the input it quotes held (a --set of a multi-line string).
        sys.stderr.write(str(e).replace("\r", "\\r").replace("\n", "\\n") + "\n")
        return EXIT_BAD_INPUT
    except EmulationError as e:
        sys.stderr.write(f"vho emulate: {e}\n")
        return 1
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return _stopped(_with_hint("interrupted", args), 130)
    except _Terminated as e:
        return _stopped(_with_hint(_stop_reason(e.signum), args), 128 + e.signum)
    except Exception:
        if _stopped_by is None:
            raise
        # The stop signal's exception, turned into another by the code it interrupted: numpy's
        # Cython `import_array` makes whatever is raised while it imports an ImportError
        # ("numpy._core.multiarray failed to import"), a traceback with status 1 for a SIGTERM
        # while pandas loaded (benches/fuzz_emulate.py, seed 1, case 532).
        how = "interrupted" if _stopped_by == signal.SIGINT else _stop_reason(_stopped_by)
        return _stopped(_with_hint(how, args), 128 + _stopped_by)
    finally:
        from . import _sigint

        for s, handler in previous.items():
            # The command ends here: a signal now has nothing left to stop, and would only
            # interrupt the interpreter's exit. A program calling main gets its handlers back.
            signal.signal(s, _ignore if _sigint.the_command() else handler)  # type: ignore[arg-type]
        if previous and _sigint.the_command():
            # The interpreter's exit puts the default actions back: blocked, a Ctrl-C held
            # down no longer ends the exit by SIGINT (status -2 for 130).
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def threading_main() -> bool:
    """Signal handlers can only be set from the main thread (tests may call main elsewhere)."""
    import threading

    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":
    raise SystemExit(main())
