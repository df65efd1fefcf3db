"""The design of `vho reproduce chen` (Chen, Yang, Sun, Sanadidi & Gerla,
``004_131556780010e7f2.txt`` §5): TFRC Probe and TCP Probe across a vertical handoff between
1xRTT (150 kb/s) and 802.11b (5 Mb/s) on the last hop, with 16 Pareto flows of cross traffic,
one parameter set (``scenarios/studies/chen.toml``):

- LOW-to-HIGH (§5.1, Figs. 6 and 7), TFRC Probe and TCP Probe: the original, IHN+FRA and
  EHN+FRA;
- HIGH-to-LOW (§5.2, Figs. 8 and 9), TFRC Probe: the original, EHN(a) (at the handoff) and
  EHN(b) (one one-way delay before it, ERR);
- the variants that test a cause of a difference (``--no-sensitivity`` skips them).

The paper has one run per curve. A replication here draws what its simulation left to chance
and a rerun would move (see DRAWS): the application's start and the handoff's instant within a
run of the probe's pairs, besides the cross traffic's draws (the seed, ``seed + r``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..study import Design, Options, Point
from .paper import HANDOFF_S

#: The study's parameter set as the repository shows it (``vho/data/studies/chen.toml`` in the
#: package).
STUDY = "scenarios/studies/chen.toml"

#: Replications per point (the paper: one run per curve); and for --quick.
REPLICATIONS = 5
QUICK_REPLICATIONS = 2

#: Where a run stops: the paper's 1200 s run hands off at 600 s (l.133); nothing after the
#: handoff's latest instant plus 130 s is read (Figs. 6-8 draw to 120 s after it, the losses
#: and rates are counted within 61 s of it, the final rate over the last 30 s), so the runs
#: stop there and keep the paper's 600 s before the handoff. --quick: the handoff at 60 s.
STOP_AFTER_HANDOFF_S = 130.0
QUICK_HANDOFF_S = 60.0
#: --quick stops 70 s after the latest handoff: the counts within 61 s of it are whole, the
#: figures end there.
QUICK_STOP_AFTER_HANDOFF_S = 70.0
#: The handoff's instant is drawn uniformly in [handoff, handoff + this): one run of the
#: probe's pairs at the rate before a LOW-to-HIGH handoff (10 pairs, one every 20 packets of
#: 1040 bytes at about 141 kb/s: 11.8 s), so that the replications sample where in its run of
#: pairs the probe is when the link changes (IHN's lag depends on it, benches/chen_ihn_window.py).
HANDOFF_PHASE_S = 12.0
#: The application's start, drawn uniformly in [0, this) (the paper gives none; l.129 says only
#: that it "was initiated").
START_S = 10.0
#: TFRC Probe's pair period on 1xRTT before the handoff: 20 packets of 1040 bytes at the
#: ~148 kb/s it sends there (ns-2.35's Agent/TFRC: 11.085 MB in 600 s, benches/ns2/chen.tcl).
PAIR_S = 20 * 1040 * 8 / 148e3


def start_span_s(overrides: tuple[str, ...], quick: bool) -> float:
    """The span the application's start is drawn in: START_S, or at a point that sets CapProbe
    runs longer than the handoff's phase covers (``flow.0.probe.window``), one such run at
    1xRTT's pair period (150 pairs: 169 s), so that where in its run the probe is when the
    link changes is sampled (IHN's lag depends on it). Not under --quick: its handoff at
    60 s leaves no room."""
    for o in overrides:
        if o.startswith("flow.0.probe.window=") and not quick:
            return max(START_S, int(o.split("=")[1]) * PAIR_S)
    return START_S


DRAWS = (
    f"the application flow's start, uniformly in [0, {START_S:g} s), and the handoff's instant, "
    f"uniformly in [{HANDOFF_S:g}, {HANDOFF_S + HANDOFF_PHASE_S:g}) s (one run of the probe's "
    "pairs: the phase IHN's lag depends on), both the same at every point of a replication "
    "(`draws` in runs.csv); and the 16 Pareto flows' draws (the seed: replication r runs "
    "seed + r). The paper has one run per curve. At the variants with CapProbe runs of 150 "
    f"pairs the start is drawn in [0, {150 * PAIR_S:.0f} s), one such run"
)

#: Fig. 9's "packets lost during the handoff" (l.189), read as the application flow's data
#: packets dropped in [handoff - 1 s, handoff + 30 s). The paper does not say its window. 1 s
#: before catches what EHN(b)'s early cut might lose; 30 s after covers the transient: in vho's
#: runs the drops after a HIGH-to-LOW handoff come within ~10 s and then fall to the new
#: link's background rate (the report gives that rate, measured in the 30 s after the window).
LOSS_WINDOW_S = (-1.0, 30.0)
#: How long after a LOW-to-HIGH handoff the bytes delivered are counted (Figs. 6(b), 7(b):
#: "utilize the increased capacity ... more efficiently ... in terms of ... throughput").
DELIVERED_AFTER_S = 60.0
#: The new link's rate is "filled" when the application's delivered rate over 1 s first
#: reaches this share of 802.11b's 5 Mb/s (vho's measure of how soon FRA pays off).
FILL_SHARE = 0.8
WLAN_BPS, ONEX_BPS = 5e6, 150e3

#: EHN(b) "one OWD before the handoff" (l.180; §4: ERR "one OWD (one-way delay) before the
#: handoff event takes place"): the base one-way delay of a 1040-byte TFRC packet from node 1
#: to node 6 over 802.11b in chen.toml: four 100 Mb/s links of 10 ms (4 x (10 + 0.083) ms) and
#: the 802.11b hop (2 ms + 1.664 ms of serialisation at 5 Mb/s), 44.0 ms; queueing not counted.
EHN_B_OFFSET_MS = 44

#: The TCP variant of the application flow (§5.1.2): chen.toml's header keys, with ns-2's TCP
#: (the paper's simulator) and its delayed-ACK sink: the probe's "inverted packet pair"
#: (§3.2: segment i+1 sent before i, so that the receiver acknowledges each at once) defeats
#: the delayed ACKs as in the paper; ns-2's window_ of 20 lifted (a sender held by a fixed
#: window makes no pairs; the paper gives no window_).
TCP = (
    'flow.0.kind="tcp"',
    'flow.0.size="10 GB"',
    'flow.0.tcp={profile="ns2", send_window="1000 packets"}',
)
#: The TFRC Probe cases run on ns-2's TFRC: "Both IHN and EHN were implemented in the NS-2
#: simulator [1]" (§5, l.127), so TFRC Probe is ns-2's Agent/TFRC with pairs, as TCP Probe
#: above is ns-2's TCP (tfrc/config.rs TfrcConfig::ns2: its gradual increase, df_ 0.95, ca_,
#: receive limit and nofeedback timer; benches/ns2_tfrc.py holds it against ns-2.35). On this
#: world it matters: at HIGH-to-LOW the original loses 265 packets with it against ns-2.35's
#: own Agent/TFRC's 295 (benches/ns2/chen.tcl) and RFC 5348's 538 (seeds 1-2,
#: `python3 benches/chen_headline.py --part ehn --variants default,ns2-tfrc`).
TFRC = ('flow.0.tfrc={profile="ns2"}',)
HIGH_LOW = ('mobile.start="wlan"', 'handover.0.from="wlan"', 'handover.0.to="1xrtt"')
#: Every run records the senders' state, the drops and the probe's estimates, not the queues
#: (the 16 Pareto flows would make tens of millions of queue rows).
RECORD = ("record.series=true", "record.queues=false", "record.pcap=[]")


@dataclass(frozen=True)
class Case:
    """A handoff direction and protocol of §5, the figures it redraws."""

    name: str
    title: str
    direction: str
    protocol: str
    overrides: tuple[str, ...]


CASES: tuple[Case, ...] = (
    Case("low-high-tfrc", "LOW-to-HIGH, TFRC Probe (§5.1.1, Fig. 6)", "low-to-high", "tfrc", TFRC),
    Case("low-high-tcp", "LOW-to-HIGH, TCP Probe (§5.1.2, Fig. 7)", "low-to-high", "tcp", TCP),
    Case(
        "high-low-tfrc",
        "HIGH-to-LOW, TFRC Probe (§5.2, Figs. 8 and 9)",
        "high-to-low",
        "tfrc",
        (*TFRC, *HIGH_LOW),
    ),
)


@dataclass(frozen=True)
class Variant:
    """A curve of the paper's figures: its name, label and remedies (with any keys)."""

    name: str
    label: str
    overrides: tuple[str, ...]


#: The original TFRC/TCP Probe runs IHN without a response ("ihn" alone: the detection is
#: recorded, nothing acts on it; the runs are otherwise those of "probe" alone, which the
#: test checks), so that IHN's lag is measured in the direction the paper did not run it.
ORIGINAL = Variant("original", "original", ('flow.0.remedies=["probe","ihn"]',))
LOW_HIGH = (
    ORIGINAL,
    Variant("ihn-fra", "IHN+FRA", ('flow.0.remedies=["probe","ihn","fra"]',)),
    # §5.1.1: "EHN was able to foresee the handoff right before it actually occurred (at
    # the 600th second)": the notification at the handoff (the remedy's default, "at").
    Variant(
        "ehn-fra", "EHN+FRA", ('flow.0.remedies=["probe","ehn","fra"]', 'handover.0.notify="at"')
    ),
)
#: §5.2 (l.180): "EHN(a): EHN was generated when the handoff occurred, i.e. without ERR; and
#: EHN(b): EHN was generated one OWD before the handoff, i.e. with ERR". Both cut the rate to
#: R*C2/C1 when told (l.182: "TFRC Probe with EHN(a) and EHN(b) both reduced the sending rate
#: more drastically than the original ... when the handoff occurred"): "without ERR" is read
#: as without the *early* reduction. (EHN with no response at all would be the original: in
#: vho's runs it loses exactly as many packets.)
HIGH_LOW_VARIANTS = (
    ORIGINAL,
    # notify = "at" is what the ehn remedy sets where none is given (remedy/probe.rs), written
    # out so that the notice's delivery delay (handover.notify_delay, open in
    # calibration.toml) can be set beside it.
    Variant("ehn-a", "EHN(a)", ('flow.0.remedies=["probe","ehn","err"]', 'handover.0.notify="at"')),
    Variant(
        "ehn-b",
        "EHN(b)",
        (
            'flow.0.remedies=["probe","ehn","err"]',
            'handover.0.notify="before"',
            f'handover.0.notify_offset="{EHN_B_OFFSET_MS} ms"',
        ),
    ),
)

#: A sensitivity world: the application's four wired links (chen.toml's n1-n2 to n4-n5) at
#: 30 ms each, and the base one-way delay over 802.11b that makes, as EHN_B_OFFSET_MS:
#: 4 x (30 + 0.083) ms + 2 ms + 1.664 ms = 124.0 ms.
WIRED_30 = tuple(f'link.{i}.delay="30 ms"' for i in range(4))
EHN_B_OFFSET_30_MS = 124
WIRED_30_LABEL = "wired links of 30 ms (EHN(b) one OWD, 124 ms, early)"

#: The variants that test a cause of a difference: (case, name, label, the variant it stands
#: in for, its overrides on that variant's).
SENSITIVITY: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    # IHN hears of the handoff when the run of pairs holding the new link's first pair ends
    # (CapProbe's runs, `flow.probe.window`, 10 pairs by default; the paper gives none).
    ("low-high-tfrc", "probe-150", "CapProbe runs of 150 pairs", "ihn-fra",
     ("flow.0.probe.window=150",)),
    # One run length for both protocols, swapped in together (issue 36): the paper's lags,
    # ~15 s (l.151) and ~5 s (l.164), are both what runs of ~150 pairs give
    # (benches/chen_headline.py --part runs). Its replications draw the flow's start over one
    # such run (start_span_s), so that they sample where in its run the probe is.
    ("low-high-tcp", "probe-150", "CapProbe runs of 150 pairs", "ihn-fra",
     ("flow.0.probe.window=150",)),
    # The paper does not say how EHN reached its sender: a notice 0.5 s late (EHN(b) still one
    # OWD ahead of EHN(a)).
    ("high-low-tfrc", "ehn-a-late", "EHN told 0.5 s after the handoff", "ehn-a",
     ('handover.0.notify="after"', 'handover.0.notify_offset="500 ms"')),
    ("high-low-tfrc", "ehn-b-late", "EHN told 0.5 s after the handoff, less one OWD", "ehn-b",
     ('handover.0.notify="after"', f'handover.0.notify_offset="{500 - EHN_B_OFFSET_MS} ms"')),
    # The path's delay, which Fig. 5 holds and the text does not (chen.toml: 10 ms a link):
    # ERR saves what the sender sends in the one OWD it acts early, R*OWD (25 packets at
    # 44 ms); EHN(a) and EHN(b) share the losses after the cut. The application's four wired
    # links at 30 ms (OWD 124 ms, EHN(b) that much early; ns-2.35's own Agent/TFRC then loses
    # 889 at HIGH-to-LOW, seed 1: `CHEN_DELAY=30 ns benches/ns2/chen.tcl high-low 1 631 600
    # 599 630`), the three curves swapped in together.
    *((("high-low-tfrc", f"{v}-30ms", WIRED_30_LABEL, v, (*WIRED_30, *extra))
       for v, extra in (("original", ()), ("ehn-a", ()),
                        ("ehn-b", (f'handover.0.notify_offset="{EHN_B_OFFSET_30_MS} ms"',))))),
)  # fmt: skip

MEASURE = "vho.reproduce.chen.measure:measure_run"


def variants(case: Case) -> tuple[Variant, ...]:
    return HIGH_LOW_VARIANTS if case.direction == "high-to-low" else LOW_HIGH


def handoff_s(quick: bool) -> float:
    """The handoff's base instant: the paper's 600 s, or --quick's."""
    return QUICK_HANDOFF_S if quick else HANDOFF_S


def design(o: Options) -> Design:
    """Every case with every variant of its direction, and the sensitivity variants."""
    reps = o.reps or (QUICK_REPLICATIONS if o.quick else REPLICATIONS)
    h0 = handoff_s(o.quick)
    after = QUICK_STOP_AFTER_HANDOFF_S if o.quick else STOP_AFTER_HANDOFF_S
    stop = f'run.stop="{h0 + HANDOFF_PHASE_S + after:g} s"'
    cases = {c.name: c for c in CASES}
    points = []
    for c in CASES:
        for v in variants(c):
            points.append(
                Point(
                    c.name,
                    v.name,
                    (stop, *c.overrides, *v.overrides),
                    reps,
                    params=_params(c, v.name),
                    keep=1,
                    label=v.label,
                )
            )
    if o.sensitivity:
        for case, name, label, replaces, overrides in SENSITIVITY:
            c = cases[case]
            v = next(v for v in variants(c) if v.name == replaces)
            points.append(
                Point(
                    case,
                    name,
                    (stop, *c.overrides, *v.overrides, *overrides),
                    reps,
                    role="sensitivity",
                    params=_params(c, replaces),
                    label=label,
                    replaces=replaces,
                )
            )

    def draw(p: Point, r: int) -> tuple[str, ...]:
        # The same draws at every point of replication r (common random numbers; the start
        # stretched at points with long CapProbe runs, start_span_s).
        u = np.random.default_rng([o.seed, r]).random(2)
        return (
            f'flow.0.start="{u[0] * start_span_s(p.overrides, o.quick):.3f} s"',
            f'handover.0.at="{h0 + u[1] * HANDOFF_PHASE_S:.3f} s"',
        )

    return Design(
        study_file="chen.toml",
        points=tuple(points),
        options=o,
        seeds="sequential",
        draws=DRAWS,
        measure=MEASURE,
        record=RECORD,
        draw=draw,
        drop_columns=("flow.cross-",),
    )


def point_overrides(case: str, variant: str, stop_s: float, handoff_s: float) -> list[str]:
    """A point's keys with the handoff at ``handoff_s`` and the run stopped at ``stop_s``, the
    flow starting at 0 (no draws): one run of a case and variant, as the benches make them."""
    c = next(c for c in CASES if c.name == case)
    v = next(v for v in variants(c) if v.name == variant)
    return [
        *RECORD,
        f'run.stop="{stop_s:g} s"',
        *c.overrides,
        *v.overrides,
        f'handover.0.at="{handoff_s:g} s"',
    ]


def params(case: str, variant: str) -> dict[str, object]:
    """The measure function's parameters of a point (:func:`vho.reproduce.chen.measure.
    measure_run`)."""
    return dict(_params(next(c for c in CASES if c.name == case), variant))


def _params(c: Case, variant: str) -> tuple[tuple[str, object], ...]:
    return (("direction", c.direction), ("fra", "fra" in variant))
