"""Why NEMO-SHO reorders so little in `vho reproduce naoe` (issue 36): each count of
"out-of-order delivery" the paper could mean, and what the two links do, per variant.

Naoe et al. give NEMO-SHO 152 out-of-order deliveries a trial downward and 153 upward (Tables
II-III), MBB 0; vho's `reordered_deliveries` (first transmissions delivered after a higher
first transmission) gives ~8 and ~35. This script runs NEMO-SHO (and MBB, APC with
``--schemes``) over seeds 1..N with captures at the MR and the LFN and prints, per variant:

- ``vho``: summary.json's ``reordered_deliveries``;
- ``ts``: data arrivals at the LFN whose TCP timestamp (TSval, 1 ms) is below the highest
  seen so far, i.e. sent before something already delivered: the LFN's view of "out of the
  sending order", retransmissions and duplicates included;
- ``seq``: arrivals of data the LFN had not had, below its highest sequence number
  (tcptrace's out-of-order at the receiver; a retransmission filling a hole counts);
- ``above``: summary.json's ``out_of_order_deliveries``, arrivals above the LFN's next
  expected byte (what Linux queues out of order; every arrival behind a hole counts);
- ``dup``: data arrivals at the LFN it already had;
- per bicast pair at the MR (PIO sequence): the pairs, how many lost their WLAN copy and
  kept their 3G copy (``w-lost``), the reverse (``3g-lost``), the median lag of the 3G copy
  behind the WLAN copy over the pairs with both (s), and the share of pairs whose 3G copy came
  first (``3g-first``).

    python3 benches/naoe_reorder.py [--trials 10] [--direction downward] [--schemes nemo-sho]
        [--variants default,wlan-retry1,...]

Each variant is a set of ``--set`` overrides on the study (VARIANTS below). Counts are per
trial, over the whole run. (With ``no-combining`` the APC row is NEMO-SHO's run: combining
"none" turns APC off too.)

What it found (10 trials, seeds 1-10, at the commit that added it;
``python3 benches/naoe_reorder.py --trials 10 --schemes mbb,nemo-sho,apc`` and the same with
``--direction upward``), NEMO-SHO's cells unless said:

- H0, the mechanism. With both links in order (RLC-AM's in-sequence delivery, a FIFO WLAN)
  and the first copy winning, a segment is overtaken only when its copy on the leading link
  is lost and the other survives (or, at the trigger, when it had one copy): min of two
  increasing arrival sequences is increasing. Downward the WLAN leads (the 3G copy first in
  10 % of pairs, 1.18 s behind at the median), loses 6.3 copies a trial whose 3G twin came,
  and vho counts 3.3; 147.6 of the 319.8 bicast pairs a trial never get their 3G copy (the
  50-packet 3G queue overflows: the sender runs at the WLAN's pace, §III's "accumulated
  queuing delay on the slow link"). The paper's 152 of the ~220 segments its 248 kb/s
  carries would need the leading link to lose about 70 % of its copies.
- H1, the count. Other readings of "out-of order delivery" at the LFN: TSval below the
  highest seen (sent before something already delivered) 37.0 / 13.5 / 3.9 (NEMO-SHO / APC /
  MBB; the paper's order, a quarter of its size), tcptrace's (new data below the highest
  sequence: a retransmission filling a hole counts) 40.5 / 39.1 / 57.9, arrivals above the
  next expected byte 206.8 / 154.8 / 248.5. The last two give MBB the most, the paper 0
  (sd 0.0 upward): not those. Upward the TSval count is vho's within 4 (28.4 against 24.2).
- H2, the WLAN's retry limit (the preset's 7, dot11ShortRetryLimit; Table I does not give
  one, §V-B's NETEM drops on the BER): 1 / 2 / 3 / 4 / 7 attempts give 44.3 / 26.6 / 19.3
  / 10.1 / 3.3 downward (goodput 148 / 216 / 298 / 332 / 386 kb/s) and 13.6 / 40.9 / 34.9 /
  42.2 / 24.2 upward; APC's 27.9 / 17.0 / 14.5 / 9.0 / 1.5 and 5.1 / 12.4 / 17.7 / 20.8 /
  23.7. Upward at 2-3 attempts the three headline effects take the paper's direction
  (reordering 40.9 against 12.4, spurious 14.9 against 6.1, goodput 178 against 209 kb/s at
  2) but MBB's goodput falls to 78-115 kb/s (paper 153). Declared open:
  ``link.4.retry_limit`` in both calibration files.
- H3, the 3G queue (NETEM's default limit is 1000 packets): 23.3 downward (spurious 38.2,
  the 3G copy 1.95 s behind), 62.4 with one WLAN attempt; upward nothing moves (the 3G is the
  new link and never fills 50).
- H4, duplicate elimination. Forwarding every copy (``nemo.combining="none"``, no Sequence
  Number Table) gives 134.8 downward and 105.2 upward, the paper's size, from 169.1 and 107.4
  duplicates delivered to the LFN; spurious retransmissions stay 4.0 and 10.7 (a duplicate
  below the next expected byte draws a D-SACK, not a fast retransmit). §III ("forwards only
  the packet copy arrived earlier") and §IV-B ("This avoids injecting multiple copies") say
  the MR discards them: not adopted, but it is the only reading in which today's links reach
  the paper's count (a NEMO-SHO combiner "only based on sequence number", §VI, that forgets
  numbers and forwards a forgotten one would give it; vho's 4096-number table drops them).
- H5, the receive window (the standing 3G queue, §VII's 102 ms): 32 KB gives 11.2 / 1.1 /
  0.1 downward (the 3G 0.74 s behind), 13.1 / 9.8 / 0.0 upward.
- Together (``paper-like-down``: 2 attempts, 48 KB, the 3G's BLER 0.05 -> 0.2): NEMO-SHO
  75.8 out-of-order, 35.1 spurious, 239 kb/s; APC 39.7, 12.9, 292 kb/s (paper 152, 34, 248;
  39, 5, 283), but MBB 16.7, 15.7, 287 kb/s (paper 0, 1, 122): its 3G is too good.
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import tempfile
from pathlib import Path

from vho.reproduce.naoe import SCHEME_OVERRIDES, study_path
from vho.reproduce.naoe.design import direction_overrides
from vho.reproduce.naoe.measure import pio_seq, records
from vho.runner import run

#: name -> overrides. link.3 is the 3G bearer, link.4 the WLAN, flow.0 the bulk transfer.
VARIANTS: dict[str, tuple[str, ...]] = {
    "default": (),
    # H1: the paper's NETEM WLAN drops a frame on its BER with no MAC retransmission.
    "wlan-retry1": ("link.4.retry_limit=1",),
    "wlan-retry2": ("link.4.retry_limit=2",),
    "wlan-retry3": ("link.4.retry_limit=3",),
    "wlan-retry4": ("link.4.retry_limit=4",),
    # H2: a deep 3G queue (NETEM's default limit is 1000 packets).
    "3g-queue-1000": ('link.3.queue="1000 packets"',),
    "3g-queue-1000-wlan-retry1": ('link.3.queue="1000 packets"', "link.4.retry_limit=1"),
    # H4: the MR forwards every copy (no Sequence Number Table): the LFN gets both.
    "no-combining": ('nemo.combining="none"',),
    # H3: the receive window sets the standing queues.
    "rwnd-32k": ('flow.0.tcp.receive_window="32 KB"',),
    "rwnd-32k-wlan-retry1": ('flow.0.tcp.receive_window="32 KB"', "link.4.retry_limit=1"),
    # What reaches the paper's NEMO-SHO and APC cells downward: the WLAN losing copies (2
    # attempts), a 48 KB window (no standing 3G queue) and a 3G good enough to carry what the
    # WLAN loses (BLER 0.05 -> 0.2 downward); MBB's cells then miss (its 3G is too good).
    # (Downward only: it sets the downward 3G ramp.)
    "paper-like-down": (
        'flow.0.tcp.receive_window="48 KB"',
        "link.4.retry_limit=2",
        "schedule.0.bler=[0.05, 0.2]",
    ),
}


def _tcp(p: bytes, at: int):
    """(seq, payload length, TSval) of the TCP segment at offset ``at`` of IPv6 packet ``p``
    whose TCP header starts there (payload length from the IPv6 header at ``at - 40``)."""
    seq = struct.unpack(">I", p[at + 4 : at + 8])[0]
    doff = (p[at + 12] >> 4) * 4
    plen = struct.unpack(">H", p[at - 40 + 4 : at - 40 + 6])[0] - doff
    tsval = None
    opt = at + 20
    while opt < at + doff:
        kind = p[opt]
        if kind == 0:
            break
        if kind == 1:
            opt += 1
            continue
        if kind == 8:
            tsval = struct.unpack(">I", p[opt + 2 : opt + 6])[0]
        opt += p[opt + 1]
    return seq, plen, tsval


def lfn_counts(path: Path) -> dict:
    ts_max, seq_hi, have = -1, None, set()
    ts = seq = dup = 0
    for _, p in records(path):
        if p[6] != 6:
            continue
        s, n, tsv = _tcp(p, 40)
        if n <= 0:
            continue
        if tsv is not None:
            if tsv < ts_max:
                ts += 1
            ts_max = max(ts_max, tsv)
        if s in have:
            dup += 1
            continue
        have.add(s)
        if seq_hi is not None and ((s - seq_hi) & 0xFFFFFFFF) > 0x7FFFFFFF:
            seq += 1
        else:
            seq_hi = s
    return {"ts": ts, "seq": seq, "dup": dup}


def mr_pairs(path: Path) -> dict:
    """Bicast copies at the MR by PIO sequence: {pio: {outer destination: first arrival}}."""
    copies: dict[int, dict[bytes, float]] = {}
    dsts: dict[bytes, int] = {}
    for t, p in records(path):
        pio = pio_seq(p)
        if pio is None:
            continue
        dst = p[24:40]
        dsts[dst] = dsts.get(dst, 0) + 1
        copies.setdefault(pio, {}).setdefault(dst, t)
    return {"copies": copies, "dsts": dsts}


def measure(scheme: str, direction: str, variant: tuple[str, ...], seed: int, tmp: Path) -> dict:
    out = tmp / f"{scheme}-{seed}"
    sets = (
        *direction_overrides(direction),
        *SCHEME_OVERRIDES[scheme],
        *variant,
        'record.pcap=["lfn","mr"]',
    )
    run(study_path(), seed=seed, overrides=sets, out_dir=out, force=True)
    summary = json.loads((out / "summary.json").read_text())
    flow = summary["flows"][0]
    row = {
        "vho": flow["reordered_deliveries"],
        "above": flow["out_of_order_deliveries"],
        "spurious": flow["spurious_retransmissions"],
        "goodput": flow["window_goodput_bps"] / 1e3,
        **lfn_counts(out / "lfn.pcap"),
    }
    m = mr_pairs(out / "mr.pcap")
    copies = m["copies"]
    if copies:
        # The 3G's care-of address is the one whose copies start first downward (the MR is
        # on the 3G before the trigger), the WLAN's upward: take the link names from the
        # resolved order of arrival at the trigger instead: the address with more copies
        # before 5.1 s is the old link's.
        first = sorted((min(c.values()), d) for c in copies.values() for d in c)
        old = first[0][1]
        old_link = "3g" if direction == "downward" else "wlan"
        names = {
            d: (old_link if d == old else ("wlan" if old_link == "3g" else "3g")) for d in m["dsts"]
        }
        lags, w_lost, g_lost, g_first = [], 0, 0, 0
        for c in copies.values():
            byname = {names[d]: t for d, t in c.items()}
            if "3g" in byname and "wlan" in byname:
                lags.append(byname["3g"] - byname["wlan"])
                g_first += byname["3g"] < byname["wlan"]
            elif "3g" in byname:
                w_lost += 1
            else:
                g_lost += 1
        row.update(
            pairs=len(copies),
            w_lost=w_lost,
            g_lost=g_lost,
            lag=statistics.median(lags) if lags else float("nan"),
            g_first=g_first / max(1, len(lags)),
        )
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--direction", default="downward")
    ap.add_argument("--schemes", default="nemo-sho")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()
    keys = ["vho", "ts", "seq", "above", "dup", "spurious", "goodput", "pairs", "w_lost", "g_lost",
            "lag", "g_first"]  # fmt: skip
    print(f"{args.direction}, {args.trials} trials (seeds 1..{args.trials}), means a trial")
    print(f"{'scheme':9} {'variant':26} " + " ".join(f"{k:>8}" for k in keys))
    with tempfile.TemporaryDirectory() as d:
        for variant in args.variants.split(","):
            for scheme in args.schemes.split(","):
                rows = [
                    measure(scheme, args.direction, VARIANTS[variant], s, Path(d))
                    for s in range(1, args.trials + 1)
                ]
                cells = []
                for k in keys:
                    vals = [r[k] for r in rows if k in r]
                    cells.append(f"{statistics.mean(vals):8.2f}" if vals else f"{'-':>8}")
                print(f"{scheme:9} {variant:26} " + " ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
