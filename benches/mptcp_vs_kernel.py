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
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
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


def model_row(cell: Cell, k: float | None) -> dict[str, object]:
    """The model's run of ``cell`` (one: it is deterministic) beside the kernel's time ``k``."""
    f = run(STUDY, overrides=model_sets(cell.sets)).summary["flows"][0]
    m = f["transfer_time_s"] if f["completed"] else float("nan")
    mp = f["mptcp"]
    return {
        "cell": cell.name,
        "kernel_mptcp_s": k,
        "model_mptcp_s": m,
        "diff_pct": 100 * (m - k) / k if k else float("nan"),
        "model_bytes_retrans": mp["bytes_retrans"],
        "model_resume_s": mp["handovers"][0]["resume_s"] if mp["handovers"] else None,
        "model_subflows": mp["subflows_created"],
    }


def emulated(
    cell_sets: list[str], reps: int, keep: Path | None, stop: str = "150 s"
) -> tuple[float, str]:
    """The kernel's mean transfer time over ``reps`` emulations and how many completed."""
    from vho.emulate import emulate

    times = []
    with tempfile.TemporaryDirectory() as tmp:
        base = keep if keep is not None else Path(tmp)
        for rep in range(1, reps + 1):
            f = emulate(
                STUDY,
                out_dir=base / f"k{rep}",
                overrides=[*cell_sets, f"run.stop={stop}"],
                seed=rep,
                multipath=True,
            ).summary["flows"][0]
            if f["completed"]:
                times.append(f["transfer_time_s"])
    return (statistics.mean(times) if times else float("nan")), f"{len(times)}/{reps}"


def update_data(path: Path, measured: dict[str, tuple[float, str]]) -> None:
    """Writes ``measured`` (cell -> mean, completed) into the kernel CSV ``path`` (made when
    missing, a row added for a cell it lacks)."""
    rows: list[dict[str, str]] = []
    if path.exists():
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    have = {r["cell"] for r in rows}
    rows += [{"cell": c, "mptcp_s": "", "mptcp_completed": ""} for c in measured if c not in have]
    for r in rows:
        if r["cell"] in measured:
            r["mptcp_s"], r["mptcp_completed"] = str(measured[r["cell"]][0]), measured[r["cell"]][1]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


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
    args = ap.parse_args()
    if args.at and not args.kernel_csv:
        ap.error("--at needs --kernel-csv (the stored kernel times are of the study's instants)")
    sizes = [s.replace("KB", " KB").replace("MB", " MB") for s in args.sizes.split(",")]
    rows = []
    for size in sizes:
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
            kk = k if k is not None else float("nan")
            print(
                f"| {cell.name} | {kk:.2f} | {row['model_mptcp_s']:.2f} | "
                f"{row['diff_pct']:+.1f} % | {row['model_bytes_retrans']} | "
                f"{row['model_resume_s']} |",
                flush=True,
            )
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
