"""The `linux` profile held against the kernel it is named after (issue 21, point 8): Daniel &
Kojo's cells through `vho emulate` (real Linux TCP, reno and cubic) and through `vho run` with
the `linux` profile and the same congestion control, the same links, losses and handovers; and
Multipath TCP (`--multipath`, cubic, a subflow per interface). Prints, per cell, the mean
transfer time and spurious retransmissions of each side, and the profile's difference from the
kernel's, and writes them as CSV.

    python3 benches/emu_vs_profile.py [--reps 3] [--cells handover,lossy] [--sizes 200KB,2MB]
                                      [--profile-only | --kernel-only | --kernel-csv K.csv]
                                      [--mptcp-only] [--no-mptcp | --mptcp-csv M.csv]
                                      [--out FILE.csv]
                                      [--profile-tcp 'loss_detection="rfc6675"']

`--profile-tcp` adds keys to the profile's `tcp` table (e.g. the profile as it was before a
mechanism, to measure what the mechanism changed). `--kernel-only` emulates without running
the profile; `--kernel-csv` takes the kernel's columns from such a run's CSV instead of
emulating again (the profile changes, the kernel does not); `--mptcp-only` with it emulates
only Multipath TCP, `--mptcp-csv` takes MPTCP's columns from a CSV. The kernel runs of
README's table are `benches/data/emu_kernel_200k.csv` (`--kernel-only --no-mptcp --cells
handover,lossy --sizes "200 KB" --reps 3`) and `benches/data/emu_kernel_2m.csv` (`--kernel-only
--no-mptcp --cells handover --sizes "2 MB" --reps 2`), their MPTCP columns from `--mptcp-only
--cells handover` (`--mptcp-stop "60 s"` for 200 KB, `"150 s"` for 2 MB), Linux 6.18 on this
2-core machine (stop 32: the receiver opening each connection, every socket born with its
congestion control).

Needs root (but not with --profile-only); the machine should be otherwise idle (the kernel's
timing is real). The cells:

- handover: downloads of each size over Daniel & Kojo's links, WLAN -> GPRS at 0.2 s and
  GPRS -> WLAN at 1 s (exactly: the simulated side is then one run), soft (ns-2's vhoideal
  soft), hard (the old queue lost) and with a 1 s delay;
- lossy: no handover, a download over one access link whose downlink drops each packet at
  entry with a fixed probability (WLAN 1 % and 3 % with 2 MB, GPRS 1 % with 200 KB); run i
  of each side has seed i, so the profile's mean is over as many loss patterns as the
  kernel's.

The emulations' counts come from the capture analysis of the sender's capture (`vho analyze`'s
D-SACK and timestamp evidence); the simulation's from its ground truth. The profile is run
with `cc = "reno"` beside kernel reno and `cc = "cubic"` beside kernel cubic; a `cc` the
profile does not have is reported as missing, not replaced.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from vho.emulate import emulate
from vho.errors import ScenarioError
from vho.runner import run

STUDY = Path(__file__).resolve().parent.parent / "scenarios" / "studies" / "daniel-kojo.toml"
MODELS = {
    "soft": ("soft-reconfigure", "0 s"),
    "hard": ("hard", "0 s"),
    "delay-1": ("soft-reconfigure", "1 s"),
}
#: The lossy cells: (access link, downlink loss probability, download size).
LOSSY = [("wlan", 0.01, "2 MB"), ("wlan", 0.03, "2 MB"), ("gprs", 0.01, "200 KB")]
#: Kernel congestion control -> the profile's `cc` beside it. Linux's `reno` module is only
#: RFC 5681's window growth and halving (net/ipv4/tcp_cong.c: tcp_reno_cong_avoid,
#: tcp_reno_ssthresh); recovery is the stack's own, SACK-based and never Reno's exit on the
#: first partial ACK: vho's `newreno` (with SACK) is the match, not its `reno`.
CCS = {"reno": "newreno", "cubic": "cubic"}


@dataclass
class Cell:
    name: str
    sets: list[str]
    #: Whether a run's outcome depends on its seed (random loss): then run i has seed i.
    seeded: bool


def handover_cell(direction: str, model: str, size: str) -> Cell:
    a, b = direction.split("-")
    kind, delay = MODELS[model]
    sets = [
        f"mobile.start={a}",
        f"handover.0.from={a}",
        f"handover.0.to={b}",
        # WLAN -> GPRS at 0.2 s: 200 KB over the WLAN alone takes 0.45 s (kernel and profile).
        f"handover.0.at={'0.2 s' if a == 'wlan' else '1 s'}",
        "handover.0.window=0 s",
        f"handover.0.kind={kind}",
        f"handover.0.delay={delay}",
        f"flow.0.size={size}",
        "run.stop=300 s",
    ]
    return Cell(f"{direction} {model} {size.replace(' ', '')}", sets, seeded=False)


def lossy_cell(link: str, loss: float, size: str) -> Cell:
    other = "gprs" if link == "wlan" else "wlan"
    sets = [
        f"mobile.start={link}",
        f"handover.0.from={link}",
        f"handover.0.to={other}",
        # The study's handover after the run's end: it never happens.
        "handover.0.at=1000 s",
        f'access.{link}.down={{loss = {loss}, loss_at = "entry"}}',
        f"flow.0.size={size}",
        "run.stop=300 s",
    ]
    return Cell(f"{link} loss {loss:g} {size.replace(' ', '')}", sets, seeded=True)


def cells(which: list[str], sizes: list[str]) -> list[Cell]:
    out = []
    if "handover" in which:
        for size in sizes:
            for direction in ("wlan-gprs", "gprs-wlan"):
                out += [handover_cell(direction, m, size) for m in MODELS]
    if "lossy" in which:
        out += [lossy_cell(*c) for c in LOSSY]
    return out


def profile_sets(cell: Cell, cc: str, extra: str = "") -> list[str]:
    """The cell with the `linux` profile and the profile's `cc` beside kernel `cc`, and the
    `extra` TCP keys (`key = value, ...`)."""
    # The profile alone (the study's flow sets ns-2's window and MSS: not Linux's).
    more = f", {extra}" if extra else ""
    return [*cell.sets, f'flow.0.tcp={{profile="linux", cc="{CCS[cc]}"{more}}}']


def kernel_sets(cell: Cell) -> list[str]:
    """The cell for the kernel: the `linux` profile's TCP settings give the namespaces'
    sysctls (SACK, timestamps, ...); the congestion control is `emulate`'s `cc`."""
    return [*cell.sets, 'flow.0.tcp={profile="linux"}']


def mean_sd(xs: list[float]) -> tuple[float, float]:
    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cells", default="handover,lossy")
    ap.add_argument("--sizes", default="200 KB,2 MB")
    ap.add_argument("--profile-only", action="store_true", help="no emulation (no root)")
    ap.add_argument("--kernel-only", action="store_true", help="no profile runs")
    ap.add_argument("--kernel-csv", help="the kernel's columns from this CSV")
    ap.add_argument(
        "--mptcp-only",
        action="store_true",
        help="emulate Multipath TCP only, the single-path kernel columns from --kernel-csv",
    )
    ap.add_argument("--no-mptcp", action="store_true")
    ap.add_argument(
        "--mptcp-csv",
        help="MPTCP's columns from this CSV instead of emulating them (with --no-mptcp)",
    )
    ap.add_argument("--mptcp-stop", default="150 s", help="run.stop of the MPTCP emulations")
    ap.add_argument("--out", default="benches/out/emu_vs_profile.csv")
    ap.add_argument("--profile-tcp", default="", help="extra keys of the profile's tcp table")
    args = ap.parse_args()
    if args.mptcp_only and not args.kernel_csv:
        ap.error("--mptcp-only takes the single-path kernel columns from --kernel-csv")
    kernel: dict[str, dict[str, str]] = {}
    if args.kernel_csv:
        with open(args.kernel_csv, newline="") as fh:
            kernel = {r["cell"]: r for r in csv.DictReader(fh)}
    mptcp: dict[str, dict[str, str]] = {}
    if args.mptcp_csv:
        with open(args.mptcp_csv, newline="") as fh:
            mptcp = {r["cell"]: r for r in csv.DictReader(fh)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cell in cells(args.cells.split(","), args.sizes.split(",")):
            reps = range(1, args.reps + 1) if cell.seeded else [1]
            row: dict[str, object] = {"cell": cell.name}
            for cc in CCS if not (args.kernel_only or args.mptcp_only) else ():
                times, spurious = [], []
                try:
                    for seed in reps:
                        sets = profile_sets(cell, cc, args.profile_tcp)
                        f = run(STUDY, overrides=sets, seed=seed).summary["flows"][0]
                        times.append(f["transfer_time_s"] or float("nan"))
                        spurious.append(f["spurious_retransmissions"])
                except ScenarioError as e:
                    if "flow.tcp.cc" not in str(e):
                        raise
                    print(f"{cell.name}: the profile has no cc {CCS[cc]}")
                    times, spurious = [float("nan")], [float("nan")]
                row[f"profile_{cc}_s"], row[f"profile_{cc}_s_sd"] = mean_sd(times)
                row[f"profile_{cc}_spurious"] = statistics.mean(spurious)
            if cell.name in kernel:
                k = kernel[cell.name]
                kept = ("kernel_",) if args.mptcp_only else ("kernel_", "mptcp_")
                row.update({c: _num(v) for c, v in k.items() if c.startswith(kept)})
                for cc in CCS if not args.mptcp_only else ():
                    row[f"profile_vs_{cc}_pct"] = 100 * (
                        float(row[f"profile_{cc}_s"]) / float(row[f"kernel_{cc}_s"]) - 1  # type: ignore[arg-type]
                    )
            elif not args.profile_only:
                for cc in CCS:
                    times, spurious = [], []
                    for rep in range(1, args.reps + 1):
                        out = Path(tmp) / f"{cell.name.replace(' ', '_')}-{cc}-{rep}"
                        f = emulate(
                            STUDY,
                            out_dir=out,
                            overrides=kernel_sets(cell),
                            seed=rep,
                            cc=cc,
                        ).summary["flows"][0]
                        times.append(f["transfer_time_s"] or float("nan"))
                        spurious.append(f["spurious_retransmissions"] or 0)
                    row[f"kernel_{cc}_s"], row[f"kernel_{cc}_s_sd"] = mean_sd(times)
                    row[f"kernel_{cc}_spurious"] = statistics.mean(spurious)
                    if not args.kernel_only:
                        row[f"profile_vs_{cc}_pct"] = 100 * (
                            float(row[f"profile_{cc}_s"]) / float(row[f"kernel_{cc}_s"]) - 1  # type: ignore[arg-type]
                        )
                if cell.name in mptcp:
                    row.update(
                        {c: _num(v) for c, v in mptcp[cell.name].items() if c.startswith("mptcp_")}
                    )
            emulated = cell.name not in kernel or args.mptcp_only
            if emulated and not (args.profile_only or args.no_mptcp or cell.seeded):
                done, times = 0, []
                for rep in range(1, args.reps + 1):
                    out = Path(tmp) / f"{cell.name.replace(' ', '_')}-mptcp-{rep}"
                    f = emulate(
                        STUDY,
                        out_dir=out,
                        # A run that never opens its second subflow waits for run.stop
                        # in real time: stop it at the single-path time's bound.
                        overrides=[*kernel_sets(cell), f"run.stop={args.mptcp_stop}"],
                        seed=rep,
                        multipath=True,
                    ).summary["flows"][0]
                    if f["completed"]:
                        done += 1
                        times.append(f["transfer_time_s"])
                row["mptcp_s"] = statistics.mean(times) if times else float("nan")
                row["mptcp_completed"] = f"{done}/{args.reps}"
            rows.append(row)
            print(
                " | ".join(
                    f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                ),
                flush=True,
            )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as fh:
        # Columns in the order they first appear (a cell without MPTCP lacks its columns).
        w = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        w.writeheader()
        w.writerows(rows)
    print(f"-> {args.out}")
    return 0


def _num(v: str) -> float | str:
    try:
        return float(v)
    except ValueError:
        return v


if __name__ == "__main__":
    raise SystemExit(main())
