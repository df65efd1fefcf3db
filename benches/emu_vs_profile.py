"""The `linux` profile held against the kernel it is named after (issue 21, point 8): Daniel &
Kojo's cells through `vho emulate` (real Linux TCP, reno and cubic) and through `vho run` with
the `linux` profile, the same links and handovers; and Multipath TCP (`--multipath`, cubic, a
subflow per interface). Prints, per cell, the mean transfer time and spurious retransmissions
of each, and the profile's difference from the kernel's.

    python3 benches/emu_vs_profile.py [--reps 3] [--out benches/out/emu_vs_profile.csv]
    python3 benches/emu_vs_profile.py --profile-only [--size "2 MB"]

`--profile-only` runs the `vho run` side alone (no root, no emulation: a few seconds) and
prints the profile's transfer time, spurious retransmissions and timeouts per cell.

Needs root; the machine should be otherwise idle (the kernel's timing is real). The cells:
200 KB downloads, WLAN -> GPRS at 0.2 s and GPRS -> WLAN at 1 s (exactly: the simulated side
is then one run), soft (ns-2's vhoideal soft), hard (the old queue lost) and
with a 1 s delay. The emulations' counts come from the capture analysis of the sender's
capture (`vho analyze`'s D-SACK and timestamp evidence); the simulation's from its ground
truth.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
from pathlib import Path

from vho.emulate import emulate
from vho.runner import run

STUDY = Path(__file__).resolve().parent.parent / "scenarios" / "studies" / "daniel-kojo.toml"
MODELS = {
    "soft": ("soft-reconfigure", "0 s"),
    "hard": ("hard", "0 s"),
    "delay-1": ("soft-reconfigure", "1 s"),
}


def overrides(direction: str, model: str, size: str) -> list[str]:
    a, b = direction.split("-")
    kind, delay = MODELS[model]
    return [
        f"mobile.start={a}",
        f"handover.0.from={a}",
        f"handover.0.to={b}",
        # WLAN -> GPRS at 0.2 s: 200 KB over the WLAN alone takes 0.45 s (kernel and profile).
        f"handover.0.at={'0.2 s' if a == 'wlan' else '1 s'}",
        "handover.0.window=0 s",
        f"handover.0.kind={kind}",
        f"handover.0.delay={delay}",
        f"flow.0.size={size}",
        # The profile alone (the study's flow sets ns-2's window and MSS: not Linux's).
        'flow.0.tcp={profile="linux"}',
        "run.stop=300 s",
    ]


def profile_only(size: str) -> int:
    """The simulated side of every cell: `vho run` with the `linux` profile."""
    for direction in ("wlan-gprs", "gprs-wlan"):
        for model in MODELS:
            f = run(STUDY, overrides=overrides(direction, model, size)).summary["flows"][0]
            print(
                f"{direction:9} {model:7}  linux profile {f['transfer_time_s']:8.3f} s  "
                f"spurious {f['spurious_retransmissions']}  timeouts {f['timeouts']}",
                flush=True,
            )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", default="200 KB")
    ap.add_argument("--out", default="benches/out/emu_vs_profile.csv")
    ap.add_argument(
        "--profile-only", action="store_true", help="only `vho run` with the linux profile"
    )
    args = ap.parse_args()
    if args.profile_only:
        return profile_only(args.size)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for direction in ("wlan-gprs", "gprs-wlan"):
            for model in MODELS:
                sets = overrides(direction, model, args.size)
                sim = run(STUDY, overrides=sets).summary["flows"][0]
                row = {
                    "direction": direction,
                    "model": model,
                    "profile_s": sim["transfer_time_s"],
                    "profile_spurious": sim["spurious_retransmissions"],
                }
                for cc in ("reno", "cubic"):
                    times, spurious = [], []
                    for rep in range(args.reps):
                        out = Path(tmp) / f"{direction}-{model}-{cc}-{rep}"
                        f = emulate(STUDY, out_dir=out, overrides=sets, cc=cc).summary
                        flow = f["flows"][0]
                        times.append(flow["transfer_time_s"] or float("nan"))
                        spurious.append(flow["spurious_retransmissions"] or 0)
                    row[f"{cc}_s"] = statistics.mean(times)
                    row[f"{cc}_s_sd"] = statistics.stdev(times) if len(times) > 1 else 0.0
                    row[f"{cc}_spurious"] = statistics.mean(spurious)
                # Multipath TCP (cubic), a subflow per interface: the handover as phones do it.
                times = []
                for rep in range(args.reps):
                    out = Path(tmp) / f"{direction}-{model}-mptcp-{rep}"
                    f = emulate(STUDY, out_dir=out, overrides=sets, multipath=True).summary
                    times.append(f["flows"][0]["transfer_time_s"] or float("nan"))
                row["mptcp_s"] = statistics.mean(times)
                for cc in ("reno", "cubic"):
                    row[f"profile_vs_{cc}_pct"] = 100 * (row["profile_s"] / row[f"{cc}_s"] - 1)
                rows.append(row)
                print(
                    f"{direction:9} {model:7}  linux profile {row['profile_s']:7.3f} s "
                    f"({row['profile_spurious']:4.1f} spurious)  kernel reno "
                    f"{row['reno_s']:7.3f} s ({row['reno_spurious']:4.1f})  cubic "
                    f"{row['cubic_s']:7.3f} s "
                    f"({row['cubic_spurious']:4.1f})  mptcp {row['mptcp_s']:7.3f} s  "
                    f"profile vs reno {row['profile_vs_reno_pct']:+6.1f} %",
                    flush=True,
                )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
