"""The `signal` endpoint (ADD_ADDR, `agent::mptcp::announce`) held against the kernel's
(`vho emulate --multipath`, issue 39 item 1): Daniel & Kojo's links, a 200 KB download, the
mobile's second interface flagged `signal` only, the correspondent's `add_addr_accepted` 1 (so
that it tries the subflow; 0 is Linux's default, `--accepted 0`). Per cell: the transfer time
and, in the correspondent's and the mobile's captures, the instants of the ADD_ADDR and of the
correspondent's MP_JOIN SYN toward the announced address (and the mobile's RST), from the
connection's first SYN in the same capture.

    python3 benches/mptcp_signal_vs_kernel.py [--emulate] [--reps 3] [--accepted 1]
                                              [--keep DIR] [--out FILE.csv]

Without `--emulate` only the model runs (deterministic: one run). `--emulate` needs root and
an idle machine (the kernel's timing is real): medians over `--reps` runs (seeds 1..reps).
Captures are read with tshark.

Cells:
- `wlan-gprs late`: WLAN first, GPRS up throughout, the handover after the transfer (100 s):
  the transfer runs over WLAN alone; GPRS is announced at full establishment.
- `wlan-gprs soft 0.2s`: the handover at 0.2 s (WLAN down): with no GPRS subflow the transfer
  never ends, in the kernel as in the model (`subflow` would give one: docs/design/mptcp.md).
- `gprs-wlan soft 2s`: GPRS first, WLAN brought up (its endpoint added) at 2 s, after full
  establishment: announced then, over GPRS, which goes down at 2 s: the ADD_ADDR is lost and
  resent (`mptcp_pm_add_timer`), and the transfer never ends.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "scenarios" / "studies" / "daniel-kojo.toml"

#: (name, first interface, second, handover instant, run.stop).
CELLS = [
    ("wlan-gprs late", "wlan", "gprs", "100 s", "20 s"),
    ("wlan-gprs soft 0.2s", "wlan", "gprs", "0.2 s", "20 s"),
    ("gprs-wlan soft 2s", "gprs", "wlan", "2 s", "20 s"),
]


def cell_sets(a: str, b: str, at: str, stop: str, accepted: int, kernel: bool) -> list[str]:
    """The cell; the model's subflows run the `linux` profile with cubic (the kernel's `cc`),
    the kernel's namespaces take the profile's sysctls (`emu_vs_profile.kernel_sets`)."""
    tcp = '{profile="linux"}' if kernel else '{profile="linux", cc="cubic"}'
    return [
        f"flow.0.tcp={tcp}",
        f"mobile.start={a}",
        f"handover.0.from={a}",
        f"handover.0.to={b}",
        f"handover.0.at={at}",
        "handover.0.window=0 s",
        "handover.0.kind=soft-reconfigure",
        "handover.0.delay=0 s",
        "flow.0.size=200 KB",
        f"run.stop={stop}",
        'flow.0.kind="mptcp"',
        f'flow.0.mptcp={{endpoints = {{ {b} = ["signal"] }}, add_addr_accepted = {accepted}}}',
        'record.pcap=["ch", "mh"]',
    ]


def instants(pcap: Path) -> dict[str, float | None]:
    """Seconds from the connection's first SYN (MP_CAPABLE) to the first ADD_ADDR (not an
    echo), its echo, the first MP_JOIN SYN without ACK and the first RST, in ``pcap``."""
    fields = ["frame.time_epoch", "tcp.flags.syn", "tcp.flags.ack", "tcp.flags.reset"]
    fields += ["tcp.options.mptcp.subtype", "tcp.options.mptcp.echo"]
    cmd = ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=;"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    t0 = None
    got: dict[str, float | None] = {"add_addr": None, "echo": None, "join_syn": None, "rst": None}
    adds: list[float] = []
    for line in out.splitlines():
        t, syn, ack, rst, sub, echo = (line.split(";") + [""] * 6)[:6]
        subs = sub.split(",")
        tt = float(t)
        if t0 is None and syn in ("1", "True") and ack in ("0", "False") and "0" in subs:
            t0 = tt
        if t0 is None:
            continue
        rel = tt - t0
        if "3" in subs and echo.split(",")[0] in ("0", "False"):
            adds.append(rel)
        if "3" in subs and echo.split(",")[0] in ("1", "True") and got["echo"] is None:
            got["echo"] = rel
        if syn in ("1", "True") and ack in ("0", "False") and "1" in subs:
            got["join_syn"] = got["join_syn"] if got["join_syn"] is not None else rel
        if rst in ("1", "True") and got["rst"] is None:
            got["rst"] = rel
    got["add_addr"] = adds[0] if adds else None
    got["add_addr_2nd"] = adds[1] if len(adds) > 1 else None
    got["add_addrs"] = float(len(adds))
    return got


def measure(out_dir: Path, summary: dict) -> dict[str, object]:
    f = summary["flows"][0]
    row: dict[str, object] = {
        "time_s": f["transfer_time_s"] if f["completed"] else None,
        "subflows": (f.get("mptcp") or {}).get("subflows_created"),
    }
    for node in ("ch", "mh"):
        for k, v in instants(out_dir / f"{node}.pcap").items():
            row[f"{node}_{k}_s"] = v
    return row


def median(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x: object) -> str:
    return "never" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--emulate", action="store_true", help="the kernel too (root)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--accepted", type=int, default=1, help="the correspondent's limit")
    ap.add_argument("--keep", help="keep every run's outputs under this folder")
    ap.add_argument("--only", default="", help="the cells whose name holds this")
    ap.add_argument("--out", default=str(ROOT / "benches" / "out" / "mptcp_signal.csv"))
    args = ap.parse_args()
    from vho.runner import run

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        for name, a, b, at, stop in CELLS:
            if args.only not in name:
                continue
            sets = cell_sets(a, b, at, stop, args.accepted, kernel=False)
            tag = name.replace(" ", "_")
            mdir = base / tag / "model"
            res = run(STUDY, overrides=sets, out_dir=mdir, force=True)
            sets = cell_sets(a, b, at, stop, args.accepted, kernel=True)
            runs = {"model": [measure(mdir, res.summary)]}
            if args.emulate:
                from vho.emulate import emulate

                runs["kernel"] = []
                for rep in range(1, args.reps + 1):
                    kdir = base / tag / f"k{rep}"
                    e = emulate(
                        STUDY, out_dir=kdir, overrides=sets, seed=rep, multipath=True, force=True
                    )
                    runs["kernel"].append(measure(kdir, e.summary))
            for side, rs in runs.items():
                row = {"cell": name, "side": side, "runs": len(rs)}
                for k in rs[0]:
                    row[k] = median([r[k] for r in rs])
                row["completed"] = f"{sum(r['time_s'] is not None for r in rs)}/{len(rs)}"
                rows.append(row)
                print(
                    f"| {name} | {side} | {row['completed']} | {fmt(row['time_s'])} | "
                    + " | ".join(
                        fmt(row[f"{n}_{k}_s"])
                        for n in ("mh", "ch")
                        for k in ("add_addr", "add_addr_2nd", "add_addrs", "join_syn", "rst")
                    )
                    + f" | {fmt(row['subflows'])} |",
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
    sys.exit(main())
