"""vho beside ns-2.35 on Daniel & Kojo's vhoideal soft and hard WLAN -> GPRS handovers at fixed
instants (no randomisation), to see where "hard costs more than soft" (§6.2: "a 1-5 %
increase in the transfer time compared to that of soft handoff") comes from.

    python3 benches/ns2_handover_models.py [--sizes 200000 2000000] [--at 0.3 0.6 1.0 ...]
        [--delays 4 7 12] [--window PACKETS]

Both run the study's parameter set (scenarios/studies/daniel-kojo.toml: wired 22 ms, ns-2's
Sack1 with window 40 unless --window, BDP queues): ns-2 through benches/ns2/dk_wlan_gprs.tcl
(hard = queue limit 0 and DropTail's shrink-queue, §5.1), vho through its run_timed example.
Prints, per size and instant, the time the sender saw the last byte acknowledged (what ns-2
reports) for soft and hard in each simulator, and hard - soft; then, for the vhodelay models
(§5.2, ns-2's Delayer blocked for D seconds; vho's handover delay), what each added second of
delay adds.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from vho.reproduce.daniel_kojo import ns2_tcl_args

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "benches" / "ns2" / "dk_wlan_gprs.tcl"
STUDY = ROOT / "scenarios" / "studies" / "daniel-kojo.toml"
RUN_TIMED = ROOT / "target" / "release" / "examples" / "run_timed"


def _field(out: str, name: str) -> float:
    m = re.search(rf"\b{name}=([0-9.eE+-]+)", out)
    if m is None:
        raise SystemExit(f"no {name}= in: {out!r}")
    return float(m.group(1))


def ns2(size: int, at: float, model: str, window: str) -> float:
    """`model`: soft, hard or delayD; `window`: window_ in packets."""
    wired_delay_s, _ = ns2_tcl_args()
    out = subprocess.run(
        ["ns", str(TCL), str(size), str(at), "speed", wired_delay_s, model, "wlan-gprs", window],
        capture_output=True,
        text=True,
        check=True,
        cwd="/tmp",
    ).stdout
    return _field(out, "done_s")


def vho(size: int, at: float, model: str, window: str) -> float:
    """`model`: soft, hard or delayD; `window`: send_window in packets."""
    kind = "hard" if model == "hard" else "soft-reconfigure"
    delay = model[len("delay") :] if model.startswith("delay") else "0"
    sets = [
        f'flow.0.size="{size} B"',
        f'handover.0.at="{at} s"',
        'handover.0.window="0 s"',
        f'handover.0.kind="{kind}"',
        f'handover.0.delay="{delay} s"',
        f'flow.0.tcp.send_window="{window} packets"',
    ]
    if model.startswith("delay"):
        # ns-2's Delayer holds a packet of its own between the access queue and the link, as
        # `vho reproduce daniel-kojo` models it in its delay cells.
        sets += [f'access.{a}.queue_model="ns2-droptail-delayer"' for a in ("wlan", "gprs")]
    cmd = [str(RUN_TIMED), str(STUDY), "1"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return _field(out, "sender_done_s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200_000, 2_000_000])
    ap.add_argument("--at", type=float, nargs="+", default=[0.3, 0.6, 0.8, 1.0, 1.5, 2.0, 2.5, 3.0])
    ap.add_argument("--delays", type=float, nargs="+", default=[4, 7, 12])
    ap.add_argument(
        "--window", help="window in packets (default: the study's send_window)", default=None
    )
    a = ap.parse_args()
    w = a.window or ns2_tcl_args()[1]
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "vho-sim", "--example", "run_timed"],
        cwd=ROOT,
        check=True,
    )
    cols = ["size", "at (s)", "ns-2 soft", "ns-2 hard", "ns-2 hard-soft", "vho soft", "vho hard"]
    print("| " + " | ".join([*cols, "vho hard-soft"]) + " |")
    print("|---|---|---|---|---|---|---|---|")
    sums = {"ns2": 0.0, "vho": 0.0}
    for size in a.sizes:
        for at in a.at:
            n_s, n_h = ns2(size, at, "soft", w), ns2(size, at, "hard", w)
            v_s, v_h = vho(size, at, "soft", w), vho(size, at, "hard", w)
            sums["ns2"] += n_h - n_s
            sums["vho"] += v_h - v_s
            print(
                f"| {size} | {at} | {n_s:.3f} | {n_h:.3f} | {n_h - n_s:+.3f} | {v_s:.3f} | "
                f"{v_h:.3f} | {v_h - v_s:+.3f} |"
            )
    n = len(a.sizes) * len(a.at)
    print(f"\nmean hard - soft: ns-2 {sums['ns2'] / n:+.3f} s, vho {sums['vho'] / n:+.3f} s\n")
    heads = ["size", "at (s)", "delay (s)", "ns-2", "ns-2 - soft", "vho", "vho - soft"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for size in a.sizes:
        for at in a.at:
            n_s, v_s = ns2(size, at, "soft", w), vho(size, at, "soft", w)
            for d in a.delays:
                m = f"delay{d:g}"
                n_d, v_d = ns2(size, at, m, w), vho(size, at, m, w)
                print(
                    f"| {size} | {at} | {d:g} | {n_d:.3f} | {n_d - n_s:+.3f} | {v_d:.3f} | "
                    f"{v_d - v_s:+.3f} |"
                )


if __name__ == "__main__":
    main()
