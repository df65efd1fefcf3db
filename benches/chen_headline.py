"""Chen et al.'s two headline effects against the model's choices (issue 36): IHN's lag at the
LOW-to-HIGH handoff (seed 004 l.151: ~15 s with TFRC Probe; l.164: ~5 s with TCP Probe) and
the packets lost at HIGH-to-LOW (l.189: original ~650, EHN(a) ~400, EHN(b)+ERR ~200).

Each hypothesis is a named set of `--set` keys on `vho reproduce chen`'s points
(:func:`vho.reproduce.chen.design.point_overrides`: no draws, the flow starting at 0); each is
run on every seed with the handoff at `--handoff` + each of `--phases` (the phase of the
probe's runs of pairs when the link changes), and the script prints, per variant:

- ihn: IHN's first LOW-to-HIGH detection after the handoff (s) for TFRC Probe and TCP Probe
  in the original's run (IHN recorded, nothing acting on it: up to the detection the IHN+FRA run),
  and for TFRC Probe the packets it sent in the 5, 10 and 15 s after the handoff (the
  integral of its rate X; a pair every 20 of them, §3.1), its R at the handoff and 5 s
  after;
- runs: IHN's lag (original's run) for TFRC Probe and TCP Probe per CapProbe run length
  (`--windows`, `flow.probe.window`), the handoff at `--grid` instants spread evenly over
  one run of that many pairs at 1xRTT's pair rate (one every PAIR_S s), so that the mean
  is over where in its run the probe is when the link changes (the lag's phase);
- ehn: the packets lost in Fig. 9's window ([h - 1 s, h + 30 s), chen/design.py), split by
  when after the handoff h ([h-1, h+0.25), [h+0.25, h+1), [h+1, h+30)), for the original,
  EHN(a) and EHN(b).

    python3 benches/chen_headline.py [--part ihn|ehn|both] [--variants a,b]
        [--seeds 1,2] [--phases 0,6] [--handoff 600] [--workers 2] [--out CSV]
    python3 benches/chen_headline.py --part runs [--variants BASE] [--windows 10,30,100,150,200,300]
        [--grid 6]   (BASE: the first of --variants, its keys under every window)

Runs stop 40 s (ihn), 60 s (runs) or 31 s (ehn) after the handoff: nothing later is read.

What it found (issue 36; the handoff at 600 s; `--part ihn --seeds 1,2 --phases 0,4,8`,
`--part ehn --seeds 1,2 --phases 0,6`, `--part runs --variants ns2-tfrc --windows
10,50,100,150,200 --grid 4 --seeds 1`), beside ns-2.35 on the same world
(benches/ns2/chen.tcl):

IHN's lag, mean s (TFRC Probe / TCP Probe), and TFRC's packets sent in the 5/10/15 s after:

    rfc5348-tfrc      3.34 / 0.55   173 / 829 / 1934   (R 457 ms at h, 138 ms 5 s after)
    ns2-tfrc          2.25 / 0.55   124 / 535 / 1710   (R 458 ms, 272 ms)
    rfc5348-runs-20   6.03 / 0.87
    ns2-tfrc-runs-20  5.27 / 0.87
    rfc5348-sliding   0.65 / 0.26
    ns-2.35 Agent/TFRC                219 / 761 / 1999 (seed 1; 226 / 776 / 2023 seeds 2, 3:
                      `ns benches/ns2/chen.tcl low-high 1 616 600 605 610 615`, bytes / 1000)

so vho's TFRC supplies pairs after the handoff as ns-2's does (~11, 39, 100 in 5, 10, 15 s);
the lag is the rest of the CapProbe run that holds the handoff, in those pairs. Over the
run's phase (`--part runs`, ns2-tfrc), TFRC / TCP: runs of 10 pairs 1.70 / 0.84 s, 50 8.05 /
2.54, 100 8.15 / 6.22, 150 12.14 / 5.36, 200 14.05 / 9.77: the paper's ~15 s and ~5 s
(l.151, l.164) together at about 150 pairs.

Packets lost at HIGH-to-LOW (Fig. 9's window), original / EHN(a) / EHN(b), and EHN(a)'s in
the first 0.25 s (what one OWD carries) and in 1-30 s (after the cut):

    rfc5348-tfrc                     538.0 / 133.8 / 104.5   27.0, 99.2
    ns2-tfrc                         265.2 /  84.5 /  58.2   27.5, 49.2
    ns2-tfrc-wired-30ms              646.8 / 192.0 / 116.0   74.8, 105.8
    ns2-tfrc-wired-50ms              901.8 / 240.5 / 155.8  120.5, 107.2
    ns2-tfrc-queue-fixed-wired-50ms  687.8 / 191.0 /  73.0  120.5, 57.5
    rfc5348-wired-50ms              1964.5 / 428.0 / 307.2  119.8, 294.0

EHN(b) loses what EHN(a) does less what the sender sends in the one OWD it acts early
(EHN(b)'s first 0.25 s: 3-4 packets in every row); both lose alike after the cut. ns-2.35's
own Agent/TFRC, the original only (`ns benches/ns2/chen.tcl high-low SEED 631 600 599 630`,
last-hop drops in [599, 630)): 300 and 290 (seeds 1, 2) at 10 ms; with CHEN_DELAY (the
four wired links, vho's "bdp" queues for them) 20 ms 570, 30 ms 889, 40 ms 1106, 50 ms 1192;
with 50-packet queues (CHEN_QUEUE=50) 240.
"""

from __future__ import annotations

import argparse
import csv
import math
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from vho.reproduce import chen
from vho.reproduce.chen import design
from vho.reproduce.chen.measure import detection
from vho.runner import run

#: TFRC Probe's pair period on 1xRTT before the handoff: 20 packets of 1040 bytes at the
#: ~148 kb/s it sends there (ns-2.35's Agent/TFRC: 11.085 MB in 600 s, benches/ns2/chen.tcl).
PAIR_S = 20 * 1040 * 8 / 148e3

#: The wired path of chen.toml: links 0-3 (n1-n2 .. n4-n5), 10 ms each.
PATH_LINKS = range(4)


def _delay(ms: float) -> tuple[str, ...]:
    """The application's four wired links at `ms` each (chen.toml's open value, 10 ms)."""
    return tuple(f'link.{i}.delay="{ms:g} ms"' for i in PATH_LINKS)


def owd_ms(link_ms: float) -> float:
    """The base one-way delay of a 1040-byte packet, node 1 to 6 over 802.11b (design.py's
    EHN_B_OFFSET_MS at 10 ms): four 100 Mb/s links and the 2 ms, 5 Mb/s hop."""
    return 4 * (link_ms + 1040 * 8 / 100e6 * 1e3) + 2.0 + 1040 * 8 / 5e6 * 1e3


RFC = 'flow.0.tfrc={profile="rfc5348"}'
NS2 = 'flow.0.tfrc={profile="ns2"}'

#: The hypotheses: name -> keys added to every point's (the EHN(b) offset follows the path's
#: one-way delay where a variant moves it: see ``_ehn_b_offset``).
VARIANTS: dict[str, tuple[str, ...]] = {
    # The study's TFRC before issue 36: RFC 5348's (tfrc/config.rs TfrcConfig::default).
    "rfc5348-tfrc": (RFC,),
    # The paper ran ns-2 (§5 l.127: "implemented in the NS-2 simulator"): Agent/TFRC's
    # behaviour (tfrc/config.rs TfrcConfig::ns2: gradual increase, df_ 0.95, ca_, ...); the
    # study's since issue 36 (design.TFRC).
    "ns2-tfrc": (NS2,),
    "rfc5348-runs-20": (RFC, "flow.0.probe.window=20"),
    "ns2-tfrc-runs-20": (NS2, "flow.0.probe.window=20"),
    "rfc5348-sliding": (RFC, 'flow.0.probe.filter="sliding"'),
    "ns2-tfrc-sliding": (NS2, 'flow.0.probe.filter="sliding"'),
    "rfc5348-wired-50ms": (RFC, *_delay(50)),
    "ns2-tfrc-wired-30ms": (NS2, *_delay(30)),
    "ns2-tfrc-wired-40ms": (NS2, *_delay(40)),
    "ns2-tfrc-wired-50ms": (NS2, *_delay(50)),
    # ns-2's chen.tcl queues (cdma-1xrtt's and wlan-80211b's "bdp" at 10 ms) kept at 50 ms.
    "ns2-tfrc-queue-fixed-wired-50ms": (
        NS2,
        *_delay(50),
        'link.12.queue="4 pkt"',
        'link.13.queue="35 pkt"',
    ),
}


def _link_ms(keys: tuple[str, ...]) -> float:
    for k in keys:
        if k.startswith("link.0.delay="):
            return float(k.split('"')[1].split()[0])
    return 10.0


def _ehn_b_offset(keys: tuple[str, ...]) -> tuple[str, ...]:
    return (f'handover.0.notify_offset="{owd_ms(_link_ms(keys)):.1f} ms"',)


def _tfrc_sent(tfrc: pd.DataFrame, h: float, span: float, size: int) -> float:
    """Packets of `size` bytes sent in [h, h + span): the integral of X."""
    t, x = tfrc["t_s"].to_numpy(), tfrc["x_bps"].to_numpy()
    k = max(int(np.searchsorted(t, h, side="right")) - 1, 0)
    edges = np.clip(np.append(t[k:], h + span), h, h + span)
    return float((x[k:] * np.diff(edges)).sum() / 8.0 / size)


def _rtt_at(tfrc: pd.DataFrame, t: float) -> float:
    s = tfrc[tfrc["t_s"] <= t]
    return float(s["rtt_s"].iloc[-1]) if len(s) else math.nan


def one(job: tuple[str, str, str, int, float]) -> dict[str, object]:
    """One run: (part, case, variant of the paper's, seed, handoff s) under VARIANTS[name]."""
    name, case, paper_variant, seed, h = job
    if name.startswith("window-"):  # --part runs: "window-N/base"
        w, base = name.removeprefix("window-").split("/")
        keys = (*VARIANTS[base], f"flow.0.probe.window={w}")
    else:
        keys = VARIANTS[name]
    if case == "low-high-tcp":  # a TFRC key on the TCP flow is refused
        keys = tuple(k for k in keys if not k.startswith("flow.0.tfrc"))
    after = 40.0 if case.startswith("low-high") else 31.0
    if name.startswith("window-"):
        after = 60.0
    sets = design.point_overrides(case, paper_variant, h + after, h)
    if paper_variant == "ehn-b":
        sets = [s for s in sets if not s.startswith("handover.0.notify_offset")]
        sets += list(_ehn_b_offset(keys))
    row: dict[str, object] = {"variant": name, "case": case, "curve": paper_variant}
    row.update(seed=seed, handoff_s=h)
    with tempfile.TemporaryDirectory() as d:
        r = run(chen.study_path(), overrides=[*sets, *keys], seed=seed, out_dir=d, force=True)
        s = r.summary
        f = s["flows"][0]
        if case.startswith("low-high"):
            row["ihn_s"] = detection(s, "ihn", "low-to-high")
            p = Path(d) / "series_tfrc.parquet"
            if f.get("tfrc") and p.exists():
                tfrc = pd.read_parquet(p)
                size = f["tfrc"]["packet_size"] + 40
                for span in (5, 10, 15):
                    row[f"sent_{span}s"] = _tfrc_sent(tfrc, h, span, size)
                row["rtt_at_h_s"] = _rtt_at(tfrc, h)
                row["rtt_h5_s"] = _rtt_at(tfrc, h + 5)
        else:
            drops = r.drops
            t = drops[drops["flow"] == f["name"]]["t_s"] if drops is not None else pd.Series([])
            for lo, hi, k in ((-1, 0.25, "lost_first"), (0.25, 1, "lost_1s"), (1, 30, "lost_late")):
                row[k] = int(((t >= h + lo) & (t < h + hi)).sum())
            row["lost"] = row["lost_first"] + row["lost_1s"] + row["lost_late"]  # type: ignore[operator]
    return row


def runs(args: argparse.Namespace, seeds: list[int]) -> int:
    """IHN's lag per run length, the handoff's phase spread over one run."""
    jobs = []
    for w in (int(x) for x in args.windows.split(",")):
        step = w * PAIR_S / args.grid
        for case in ("low-high-tfrc", "low-high-tcp"):
            jobs += [
                (f"window-{w}/{args.variants.split(',')[0]}", case, "original", s, h)
                for s in seeds
                for h in (args.handoff + k * step for k in range(args.grid))
            ]
    with ProcessPoolExecutor(args.workers) as ex:
        df = pd.DataFrame(list(ex.map(one, jobs)))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=False)
    for (v, case), g in df.groupby(["variant", "case"], sort=False):
        lags = g["ihn_s"]
        print(
            f"{v:12s} {case:14s} lag mean {lags.mean():6.2f} s, min {lags.min():5.2f}, "
            f"max {lags.max():5.2f}, undetected {int(lags.isna().sum())} of {len(lags)}"
        )
    print(f"-> {out}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", default="both", choices=["ihn", "ehn", "both", "runs"])
    ap.add_argument("--windows", default="10,30,100,150,200,300")
    ap.add_argument("--grid", type=int, default=6)
    ap.add_argument("--variants", default="rfc5348-tfrc,ns2-tfrc")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--phases", default="0,6")
    ap.add_argument("--handoff", type=float, default=chen.HANDOFF_S)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="benches/out/chen_headline.csv")
    args = ap.parse_args()
    names = args.variants.split(",")
    for n in names:
        if n not in VARIANTS:
            ap.error(f"--variants: {n!r} is none of {', '.join(VARIANTS)}")
    seeds = [int(s) for s in args.seeds.split(",")]
    phases = [float(p) for p in args.phases.split(",")]
    jobs = []
    if args.part == "runs":
        return runs(args, seeds)
    for n in names:
        if args.part in ("ihn", "both"):
            for case in ("low-high-tfrc", "low-high-tcp"):
                jobs += [
                    (n, case, "original", s, args.handoff + ph) for s in seeds for ph in phases
                ]
        if args.part in ("ehn", "both"):
            for v in ("original", "ehn-a", "ehn-b"):
                jobs += [
                    (n, "high-low-tfrc", v, s, args.handoff + ph) for s in seeds for ph in phases
                ]
    with ProcessPoolExecutor(args.workers) as ex:
        rows = list(ex.map(one, jobs))
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=False, quoting=csv.QUOTE_MINIMAL)
    for n in names:
        v = df[df["variant"] == n]
        lh = v[v["case"] == "low-high-tfrc"]
        if len(lh):
            tcp = v[v["case"] == "low-high-tcp"]
            print(
                f"{n:22s} IHN lag TFRC {lh['ihn_s'].mean():6.2f} s "
                f"[{', '.join(f'{x:.2f}' for x in lh['ihn_s'])}]  TCP {tcp['ihn_s'].mean():6.2f} s "
                f"[{', '.join(f'{x:.2f}' for x in tcp['ihn_s'])}]  TFRC sent 5/10/15 s "
                f"{lh['sent_5s'].mean():.0f}/{lh['sent_10s'].mean():.0f}/"
                f"{lh['sent_15s'].mean():.0f}  R at h {lh['rtt_at_h_s'].mean() * 1e3:.0f} ms,"
                f" +5 s {lh['rtt_h5_s'].mean() * 1e3:.0f} ms"
            )
        hl = v[v["case"] == "high-low-tfrc"]
        for c in ("original", "ehn-a", "ehn-b"):
            x = hl[hl["curve"] == c]
            if len(x):
                each = ", ".join(str(k) for k in x["lost"])
                print(
                    f"{n:22s} {c:9s} lost {x['lost'].mean():6.1f} (first 0.25 s "
                    f"{x['lost_first'].mean():.1f}, to 1 s {x['lost_1s'].mean():.1f}, "
                    f"1-30 s {x['lost_late'].mean():.1f}) [{each}]"
                )
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
