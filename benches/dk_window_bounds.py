"""The bounds the Daniel & Kojo paper puts on the study's window (scenarios/studies/
daniel-kojo.toml, `send_window`): per window, single-link transfers with the study's set
(the handover moved past the end), and the share of the study's 160 cells within 10 %.

    python3 benches/dk_window_bounds.py [--windows 20 22 23 ...] [--reps 32] [--no-study]

Prints, per window in packets: 20 MB and 200 KB over WLAN alone (time at the receiver, its
share of WLAN's payload rate, retransmissions), 20 MB over GPRS alone, and the study's
agreement with the paper at `--reps` replications. With ns-2 installed (Debian `ns2`), also
ns-2.35's 20 MB over WLAN alone (sender's last ACK) and its retransmissions
(benches/ns2/dk_wlan_gprs.tcl).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import vho
from vho.reproduce import daniel_kojo as dk

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / dk.STUDY
TCL = ROOT / "benches" / "ns2" / "dk_wlan_gprs.tcl"
#: WLAN's payload rate: 5 Mb/s x 1460 / 1500 (the ns2 profile's 40-byte headers).
WLAN_PAYLOAD_BPS = 5e6 * 1460 / 1500
#: Past the end of the longest single-link transfer: no handover happens.
NO_HANDOVER = "1900 s"


def single_link(link: str, size: int, window: int) -> dict:
    other = "gprs" if link == "wlan" else "wlan"
    sets = {
        "mobile.start": link,
        "handover.0.from": link,
        "handover.0.to": other,
        "handover.0.at": NO_HANDOVER,
        "handover.0.window": "0 s",
        "flow.0.size": f"{size} B",
        "flow.0.tcp.send_window": f"{window} packets",
    }
    r = vho.run(STUDY, overrides=[f"{k}={json.dumps(v)}" for k, v in sets.items()])
    return r.flows[0]


def ns2_wlan(size: int, window: int, cwd: str) -> tuple[float, int]:
    wired_delay_s, _ = dk.ns2_tcl_args()
    args = [str(size), "1900", "speed", wired_delay_s, "soft", "wlan-gprs", str(window)]
    out = subprocess.run(
        ["ns", str(TCL), *args], capture_output=True, text=True, check=True, cwd=cwd
    ).stdout
    fields = dict(p.split("=") for p in out.split()[1:])
    # ndatapack_ counts the SYN (syn_ true) and the transfer's packets; the rest are resent.
    return float(fields["done_s"]), int(fields["data_packets"]) - 1 - (size + 1459) // 1460


def study_share(window: int, reps: int) -> float:
    cs = dk.study_cells(False)
    extra = [f'flow.0.tcp.send_window="{window} packets"']
    with tempfile.TemporaryDirectory() as runs:
        df = dk.run_sweep(dk.make_sweep(cs, reps, 1, extra), Path(runs), None, True)
    return dk.agreement(dk.per_cell(df, cs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--windows",
        type=int,
        nargs="+",
        default=[20, 22, 23, 24, 26, 28, 30, 32, 34, 36, 40, 41, 44, 48, 64],
    )
    ap.add_argument("--reps", type=int, default=32)
    ap.add_argument("--no-study", action="store_true", help="single-link transfers only")
    a = ap.parse_args()
    have_ns = shutil.which("ns") is not None
    heads = ["window", "WLAN 20 MB (s)", "of WLAN rate", "rtx", "WLAN 200 KB (s)", "rtx",
             "GPRS 20 MB (s)", "rtx"]  # fmt: skip
    if have_ns:
        heads += ["ns-2 WLAN 20 MB (s, acked)", "ns-2 rtx"]
    if not a.no_study:
        heads.append(f"study within 10 % ({a.reps} reps)")
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    with tempfile.TemporaryDirectory() as tmp:
        for w in a.windows:
            big = single_link("wlan", 20_000_000, w)
            small = single_link("wlan", 200_000, w)
            gprs = single_link("gprs", 20_000_000, w)
            t = big["transfer_time_s"]
            row = [
                str(w), f"{t:.3f}", f"{20e6 * 8 / t / WLAN_PAYLOAD_BPS:.1%}",
                str(big["retransmissions"]), f"{small['transfer_time_s']:.3f}",
                str(small["retransmissions"]), f"{gprs['transfer_time_s']:.2f}",
                str(gprs["retransmissions"]),
            ]  # fmt: skip
            if have_ns:
                done, rtx = ns2_wlan(20_000_000, w, tmp)
                row += [f"{done:.3f}", str(rtx)]
            if not a.no_study:
                row.append(f"{study_share(w, a.reps):.1%}")
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
