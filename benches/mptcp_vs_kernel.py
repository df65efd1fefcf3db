"""The MPTCP model (`kind = "mptcp"`, `agent::mptcp`) held against the kernel's Multipath TCP
(`vho emulate --multipath`, issue 39 item 2): Daniel & Kojo's handover cells of
`benches/emu_vs_profile.py` (WLAN -> GPRS at 0.2 s and GPRS -> WLAN at 1 s; soft, hard and with
a 1 s delay; 200 KB and 2 MB downloads), the same links and handovers on both sides, the
subflows running the `linux` profile with cubic beside the kernel's cubic.

    python3 benches/mptcp_vs_kernel.py [--sizes 200KB,2MB] [--out FILE.csv] [--only TEXT]
                                       [--emulate [--reps 3] [--keep DIR] [--update-data]]
                                       [--stop SECONDS] [--at SECONDS --kernel-csv K.csv]

The kernel's transfer times are, by default, the `mptcp_s` columns of
`benches/data/emu_kernel_200k.csv` and `benches/data/emu_kernel_2m.csv` (measured by
`benches/emu_vs_profile.py --mptcp-only --cells handover`, Linux 6.18 on this 2-core machine:
3 runs per 200 KB cell, 2 per 2 MB cell; see that script's doc). `--emulate` measures them
again (needs root and an idle machine: the kernel's timing is real). The model is
deterministic here (no random loss): one run per cell. `--only` keeps the cells whose name
holds TEXT (`gprs-wlan`); `--keep` keeps the emulations' outputs (captures, summaries) under
DIR; `--update-data` writes the kernel's means measured by `--emulate` into the data files'
`mptcp_s` and `mptcp_completed` columns, for the cells measured (the rest stay). `--stop`
is the emulations' `run.stop` (150 s). `--at` moves the handover of the cells kept to that
instant (the GPRS -> WLAN cells' 1 s comes before the connection is fully established over
GPRS, see docs/design/mptcp.md); their kernel times are then read from (or, with
`--update-data`, written to) `--kernel-csv`, columns `cell`, `mptcp_s`, `mptcp_completed`.

`--blackhole` runs the third group instead: no handover, both interfaces up the whole run, and
WLAN's path blackholed in both directions by a link schedule (`[[schedule]]`, `state =
"blackhole"`: the interface stays up, every packet whose serialisation ends in it is lost, the
path manager hears nothing), for good or until it comes back (`BLACKHOLES`). Their kernel
times are `benches/data/emu_kernel_mptcp_blackhole.csv` (`--blackhole --emulate --reps 3
--stop "150 s" --update-data`: the median of the runs, each run's time beside it).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches"))

from emu_vs_profile import STUDY, Cell, cells, kernel_sets  # noqa: E402

from vho.runner import run  # noqa: E402

KERNEL_CSV = {
    "200 KB": ROOT / "benches" / "data" / "emu_kernel_200k.csv",
    "2 MB": ROOT / "benches" / "data" / "emu_kernel_2m.csv",
}
#: The kernel's times of the GPRS -> WLAN cells with the handover at 2 s (`--at "2 s"`), after
#: the connection is fully established (`--emulate --reps 2 --stop "60 s" --update-data`).
KERNEL_LATE_CSV = ROOT / "benches" / "data" / "emu_kernel_mptcp_gprs_wlan_2s.csv"
#: The kernel's times of the blackhole cells (`--blackhole --emulate --reps 3 --update-data`).
KERNEL_BLACKHOLE_CSV = ROOT / "benches" / "data" / "emu_kernel_mptcp_blackhole.csv"

#: The blackhole cells: (size, instant WLAN's path goes, instant it returns or None: for good).
#: 0.2 s, as the WLAN -> GPRS handover cells: WLAN's subflow in slow start with a window in
#: flight, GPRS's join not yet established (its handshake crosses GPRS's 300 ms twice), so the
#: stale rule has no alternative until it is. 1 s (2 MB only: 200 KB is done at 0.46 s): WLAN's
#: window at its largest (its queue full), GPRS's subflow established and carrying data. The
#: return 3 s later: WLAN's subflow is stale by then, its RTO backed off to seconds, so failing
#: back waits for that subflow's next retransmission to be acknowledged.
BLACKHOLES: list[tuple[str, str, str | None]] = [
    ("200 KB", "0.2 s", None),
    ("200 KB", "0.2 s", "3.2 s"),
    ("2 MB", "0.2 s", None),
    ("2 MB", "0.2 s", "3.2 s"),
    ("2 MB", "1 s", None),
    ("2 MB", "1 s", "4 s"),
]


@dataclass
class BlackholeCell:
    """A cell whose scenario is the study with a `[[schedule]]` added (`--set` cannot add an
    array's table): ``text``, with ``sets`` on it."""

    name: str
    sets: list[str]
    text: str


def blackhole_text(at: str, until: str | None) -> str:
    """Daniel & Kojo's study with WLAN's path blackholed in both directions from ``at`` (to
    ``until``): `link::change`'s `blackhole` state, the interface up."""
    lines = ["", "[[schedule]]", 'link = "wlan"', 'direction = "both"', f'at = "{at}"']
    lines += ['state = "blackhole"'] + ([f'until = "{until}"'] if until else [])
    return STUDY.read_text(encoding="utf-8") + "\n".join(lines) + "\n"


def blackhole_cells(sizes: list[str]) -> list[BlackholeCell]:
    """The blackhole cells of ``sizes``: the mobile on WLAN with GPRS up beside it, the study's
    handover after the run's end (it never happens)."""
    out = []
    for size, at, until in BLACKHOLES:
        if size not in sizes:
            continue
        sets = [
            "mobile.start=wlan",
            "handover.0.from=wlan",
            "handover.0.to=gprs",
            "handover.0.at=1000 s",
            "handover.0.window=0 s",
            f"flow.0.size={size}",
            "run.stop=300 s",
        ]
        span = at.replace(" ", "") + (f"-{until.replace(' ', '')}" if until else "")
        name = f"blackhole {span} {size.replace(' ', '')}"
        out.append(BlackholeCell(name, sets, blackhole_text(at, until)))
    return out


def model_sets(sets: list[str]) -> list[str]:
    """The cell as an MPTCP flow: its subflows the `linux` profile with cubic (the kernel's
    `--cc` default), the path manager's endpoints as `vho emulate --multipath` sets them."""
    return [*sets, 'flow.0.tcp={profile="linux", cc="cubic"}', 'flow.0.kind="mptcp"']


def kernel_times(path: Path) -> dict[str, float]:
    if not path.exists():
        return {}
    with open(path, newline="") as fh:
        return {
            r["cell"]: float(r["mptcp_s"])
            for r in csv.DictReader(fh)
            if r.get("mptcp_s") not in (None, "", "nan")
        }


def model_row(cell: Cell | BlackholeCell, k: float | None) -> dict[str, object]:
    """The model's run of ``cell`` (one: it is deterministic) beside the kernel's time ``k``.
    A blackhole cell's time to resume and to fail back are its outage's (`outages[]`)."""
    scenario = cell.text if isinstance(cell, BlackholeCell) else STUDY
    f = run(scenario, overrides=model_sets(cell.sets)).summary["flows"][0]
    m = f["transfer_time_s"] if f["completed"] else float("nan")
    mp = f["mptcp"]
    lost = mp.get("outages") if isinstance(cell, BlackholeCell) else mp["handovers"]
    return {
        "cell": cell.name,
        "kernel_mptcp_s": k,
        "model_mptcp_s": m,
        "diff_pct": 100 * (m - k) / k if k else float("nan"),
        "model_bytes_retrans": mp["bytes_retrans"],
        "model_resume_s": lost[0]["resume_s"] if lost else None,
        "model_failback_s": lost[0]["failback_s"] if lost else None,
        "model_stale": mp["stale_subflows"],
        "model_gprs_bytes": sum(
            x["bytes_received"] for x in mp["subflows"] if x["interface"] == "gprs"
        ),
        "model_subflows": mp["subflows_created"],
    }


def emulated(
    cell_sets: list[str],
    reps: int,
    keep: Path | None,
    stop: str = "150 s",
    scenario: str | Path = STUDY,
    runs: list[float] | None = None,
) -> tuple[float, str]:
    """The kernel's mean transfer time over ``reps`` emulations and how many completed (each
    completed run's time appended to ``runs`` when given)."""
    from vho.emulate import emulate

    times = []
    with tempfile.TemporaryDirectory() as tmp:
        base = keep if keep is not None else Path(tmp)
        for rep in range(1, reps + 1):
            f = emulate(
                scenario,
                out_dir=base / f"k{rep}",
                overrides=[*cell_sets, f"run.stop={stop}"],
                seed=rep,
                multipath=True,
            ).summary["flows"][0]
            if f["completed"]:
                times.append(f["transfer_time_s"])
    if runs is not None:
        runs += times
    return (statistics.mean(times) if times else float("nan")), f"{len(times)}/{reps}"


def update_data(
    path: Path, measured: dict[str, tuple[float, str]], runs: dict[str, str] | None = None
) -> None:
    """Writes ``measured`` (cell -> mean, completed) into the kernel CSV ``path`` (made when
    missing, a row added for a cell it lacks); with ``runs`` (cell -> each run's time), a
    `mptcp_runs` column too."""
    rows: list[dict[str, str]] = []
    if path.exists():
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    have = {r["cell"] for r in rows}
    empty = {"cell": "", "mptcp_s": "", "mptcp_completed": ""} | (
        {"mptcp_runs": ""} if runs else {}
    )
    rows += [empty | {"cell": c} for c in measured if c not in have]
    for r in rows:
        if r["cell"] in measured:
            r["mptcp_s"], r["mptcp_completed"] = str(measured[r["cell"]][0]), measured[r["cell"]][1]
            if runs is not None:
                r["mptcp_runs"] = runs[r["cell"]]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def print_row(row: dict[str, object], k: float | None) -> None:
    kk = k if k is not None else float("nan")
    extra = f" {row['model_failback_s']} |" if "model_failback_s" in row else ""
    print(
        f"| {row['cell']} | {kk:.2f} | {row['model_mptcp_s']:.2f} | "
        f"{row['diff_pct']:+.1f} % | {row['model_bytes_retrans']} | "
        f"{row['model_resume_s']} |{extra}",
        flush=True,
    )


def after_return(run_dir: Path, until: float) -> str:
    """What a kept emulation of a failback cell did once WLAN was back, from the mobile's
    capture (`mh.pcap`, tshark): the first data over WLAN after ``until`` (the failback), the
    data bytes GPRS brought in all and from then on, and WLAN's idle time after it (its gaps
    over 0.3 s before its last data: the connection waiting on what GPRS holds). The mobile's
    addresses are `vho emulate`'s 10.(67 + link).x.y: WLAN 10.69, GPRS 10.68 in this study."""
    import itertools
    import subprocess

    fields = ["-e", "frame.time_relative", "-e", "ip.dst", "-e", "tcp.len"]
    cmd = ["tshark", "-r", str(run_dir / "mh.pcap"), "-Y", "tcp.len>0", "-T", "fields", *fields]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = [ln.split("\t") for ln in out.splitlines() if ln.count("\t") == 2]
    pkts = [(float(t), dst, int(n)) for t, dst, n in rows]
    # The mobile's addresses: 10.(67 + link).x.y; the links in the study's order.
    wlan = [t for t, dst, _ in pkts if dst.startswith("10.69.") and t >= until]
    if not wlan:
        return "no data over WLAN after its return"
    fb = wlan[0]
    gprs = [(t, n) for t, dst, n in pkts if dst.startswith("10.68.")]
    after = sum(n for t, n in gprs if t >= fb)
    idle = sum(b - a for a, b in itertools.pairwise(wlan) if b - a > 0.3)
    return (
        f"failback {fb - until:.2f} s, GPRS {sum(n for _, n in gprs)} B ({after} B after the "
        f"failback), WLAN idle {idle:.2f} s after it"
    )


def blackhole_rows(args: argparse.Namespace, sizes: list[str]) -> list[dict[str, object]]:
    """The blackhole group (`--blackhole`): each cell's model row beside the kernel's median
    (stored, or measured with `--emulate`, then written with `--update-data`)."""
    data = Path(args.kernel_csv) if args.kernel_csv else KERNEL_BLACKHOLE_CSV
    kernel = {} if args.emulate else kernel_times(data)
    measured: dict[str, tuple[float, str]] = {}
    each: dict[str, str] = {}
    rows = []
    for cell in blackhole_cells(sizes):
        if args.only not in cell.name:
            continue
        if args.emulate:
            keep = Path(args.keep) / cell.name.replace(" ", "_") if args.keep else None
            times: list[float] = []
            sets = [*cell.sets, 'flow.0.tcp={profile="linux"}']
            _, done = emulated(sets, args.reps, keep, args.stop, cell.text, times)
            med = statistics.median(times) if times else float("nan")
            measured[cell.name] = (med, done)
            each[cell.name] = " ".join(f"{t:.3f}" for t in times)
            k: float | None = med
            until = cell.text.split("until = ")[1:]
            for rep in range(1, args.reps + 1) if keep and until else ():
                back = float(until[0].split()[0].strip('"'))
                print(f"  k{rep}: {after_return(keep / f'k{rep}', back)}")  # type: ignore[operator]
        else:
            k = kernel.get(cell.name)
        row = model_row(cell, k)
        rows.append(row)
        print_row(row, k)
    if args.update_data and measured:
        update_data(data, measured, each)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="200KB,2MB")
    ap.add_argument("--out", default=str(ROOT / "benches" / "out" / "mptcp_vs_kernel.csv"))
    ap.add_argument("--emulate", action="store_true", help="measure the kernel again (root)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="the cells whose name holds this")
    ap.add_argument("--keep", help="keep the emulations' outputs under this folder")
    ap.add_argument("--update-data", action="store_true", help="write --emulate's means")
    ap.add_argument("--stop", default="150 s", help="run.stop of the emulations")
    ap.add_argument("--at", help="the handover instant of the cells kept (e.g. '2 s')")
    ap.add_argument("--kernel-csv", help="with --at: the kernel's times of those cells")
    ap.add_argument("--blackhole", action="store_true", help="the blackhole cells instead")
    args = ap.parse_args()
    if args.at and not args.kernel_csv:
        ap.error("--at needs --kernel-csv (the stored kernel times are of the study's instants)")
    sizes = [s.replace("KB", " KB").replace("MB", " MB") for s in args.sizes.split(",")]
    rows = blackhole_rows(args, sizes) if args.blackhole else []
    for size in sizes if not args.blackhole else []:
        data = Path(args.kernel_csv) if args.kernel_csv else KERNEL_CSV[size]
        kernel = {} if args.emulate else kernel_times(data)
        measured: dict[str, tuple[float, str]] = {}
        for cell in cells(["handover"], [size]):
            if args.only not in cell.name:
                continue
            if args.at:
                cell.sets = [*cell.sets, f"handover.0.at={args.at}"]
                cell.name = f"{cell.name} at {args.at.replace(' ', '')}"
            if args.emulate:
                keep = Path(args.keep) / cell.name.replace(" ", "_") if args.keep else None
                measured[cell.name] = emulated(kernel_sets(cell), args.reps, keep, args.stop)
                k: float | None = measured[cell.name][0]
            else:
                k = kernel.get(cell.name)
            row = model_row(cell, k)
            rows.append(row)
            print_row(row, k)
        if args.update_data and measured:
            update_data(data, measured)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
