"""Every remedy against the oracle on the shipped examples (docs/design/issue-19-oracle.md):

    python3 benches/oracle_remedies.py [SET ...]

runs each example with each remedy (and none), with the overrides given (for instance
'handover.0.kind="hard"' or 'handover.0.delay="1 s"'), and prints per run the transfer time,
retransmissions (spurious), timeouts (spurious), fast retransmits and the oracle's repairs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import vho

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["dk-fig1-wlan-gprs", "dk-fig2-gprs-wlan", "thesis-wavelan-gsm"]
REMEDIES = [
    "",
    "frto",
    "eifel",
    "dsack-undo",
    "no-restore",
    "rto-reset",
    "new-path",
    "rtt-injection",
    "fast-rto-decrease",
    "flush-on-handover",
    "red",
    "cwnd-clamp",
    "link-flow-control",
    "adaptive-dupthresh",
    "oracle",
    "oracle-system",
]


def main(sets: list[str]) -> None:
    for name in EXAMPLES:
        print(f"== {name} {' '.join(sets)}")
        print("remedy               T_s       rtx sp_rtx  to sp_to  fr repairs")
        for r in REMEDIES:
            remedies = f'flow.0.remedies=["{r}"]' if r else "flow.0.remedies=[]"
            path = ROOT / f"scenarios/examples/{name}.toml"
            (f,) = vho.run(path, overrides=[*sets, remedies]).flows
            print(
                f"{r or 'baseline':20s} {f['transfer_time_s']:9.4f} {f['retransmissions']:4d} "
                f"{f['spurious_retransmissions']:6d} {f['timeouts']:3d} "
                f"{f['spurious_timeouts']:5d} {f['fast_retransmits']:3d} "
                f"{f.get('oracle_repairs', '-')!s:>7s}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
