"""The design of `vho reproduce thesis` (003_c2115c75cc9a1c40.txt, Chapter 7): the thesis's
cases (downloads WaveLAN -> GSM with three windows and MSSs, the window sizes of §7.1.3, the
upload, GSM -> WaveLAN), each with the thesis's TCP (Linux 2.0.36, the `linux-2.0` profile);
the two directions also with what exists today against spurious timeouts and every remedy built
(the comparison rows); and the variants that test a cause of a difference (``--no-sensitivity``
skips them). Every case overrides only the keys its entry lists on the one parameter set,
``scenarios/studies/thesis.toml``, whose header lists the same (a test keeps them in step).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..study import Design, Options, Point

#: The study's parameter set as the repository shows it; the package reads the same file as
#: ``vho/data/studies/thesis.toml`` (a symbolic link here, a copy in a wheel).
STUDY = "scenarios/studies/thesis.toml"


@dataclass(frozen=True)
class Case:
    """A measurement of the thesis: its name, title, the figures it redraws, the keys it sets
    over the study file, its direction (``fast-slow`` or ``slow-fast``) and MSS."""

    name: str
    title: str
    figures: str
    overrides: tuple[str, ...]
    direction: str
    mss: int


#: The thesis's download measurements; the study file's header lists the same overrides.
CASES: tuple[Case, ...] = (
    Case("fast-slow", "WaveLAN -> GSM, 16 KiB window, MSS 1420 (§7.1.2)",
         "Figs. 7-1 to 7-3", (), "fast-slow", 1420),
    Case("fast-slow-4k", "WaveLAN -> GSM, 4096 B window, MSS 1024 (§7.1.3)", "Fig. 7-4",
         ("flow.0.tcp.mss=1024", 'flow.0.tcp.receive_window="4096 B"'), "fast-slow", 1024),
    Case("fast-slow-536", "WaveLAN -> GSM, 2144 B window, MSS 536 (§7.1.3)", "Fig. 7-5",
         ("flow.0.tcp.mss=536", 'flow.0.tcp.receive_window="2144 B"'), "fast-slow", 536),
    Case("upload", "WaveLAN -> GSM, the MH sending, 16 KiB window, MSS 1460 (§7.1.4)",
         "Figs. 7-6, 7-7",
         ('flow.0.from="mh"', 'flow.0.to="ch"', "flow.0.tcp.mss=1460"), "fast-slow", 1460),
    Case("slow-fast", "GSM -> WaveLAN, 16 KiB window, MSS 1420 (§7.2.2)", "Figs. 7-10, 7-11",
         ('mobile.start="gsm"', 'handover.0.from="gsm"', 'handover.0.to="wavelan"',
          'handover.0.at="70 s"', 'handover.0.window="1.5 s"',
          'handover.0.uplink_delay="2 ms"'), "slow-fast", 1420),
    # §7.1.3 l.1686-1702: "We made measurements with window sizes of 2, 4, 8 and 16 kbytes"
    # with "The maximum segment size in these measurements was 1024 bytes" (l.1679-1681); 4 KB
    # is Fig. 7-4 (above), and of the others "the throughput decreased".
    Case("fast-slow-2k", "WaveLAN -> GSM, 2048 B window, MSS 1024 (§7.1.3)", "",
         ("flow.0.tcp.mss=1024", 'flow.0.tcp.receive_window="2048 B"'), "fast-slow", 1024),
    Case("fast-slow-8k", "WaveLAN -> GSM, 8192 B window, MSS 1024 (§7.1.3)", "",
         ("flow.0.tcp.mss=1024", 'flow.0.tcp.receive_window="8192 B"'), "fast-slow", 1024),
    Case("fast-slow-16k-1024", "WaveLAN -> GSM, 16384 B window, MSS 1024 (§7.1.3)", "",
         ("flow.0.tcp.mss=1024", 'flow.0.tcp.receive_window="16384 B"'), "fast-slow", 1024),
)  # fmt: skip


@dataclass(frozen=True)
class Variant:
    """The TCP a case runs with: the thesis's, or a comparison row (the keys it sets)."""

    name: str
    label: str
    overrides: tuple[str, ...]


BASELINE = "linux-2.0"
#: The thesis's TCP, what exists today against spurious timeouts, then the remedies built so far
#: on the thesis's TCP (`flow.remedies`; the others are listed in the report). The MSS and
#: window stay the case's.
VARIANTS: tuple[Variant, ...] = (
    Variant(BASELINE, "Linux 2.0.36 (the thesis's TCP)", ()),
    # CUBIC, PRR, RACK, the tail loss probe, F-RTO, Linux's undo by timestamps and D-SACK, cwnd
    # and ssthresh restored (tcp_frto = 2), SACK, timestamps, Linux's RTO estimator
    # (tcp::profile's linux).
    Variant("linux", "today's Linux", ('flow.0.tcp.profile="linux"',)),
    # RFC 5682 §3.1's F-RTO (vho runs it without SACK too, as Linux), the only detector
    # that needs neither SACK nor timestamps.
    Variant("frto", "F-RTO on Linux 2.0", ('flow.0.tcp.spurious_detection=["frto"]',)),
    Variant("rto-reset", "rto-reset (§8.1)", ('flow.0.remedies=["rto-reset"]',)),
    Variant("new-path", "new-path (§7.1.5)", ('flow.0.remedies=["new-path"]',)),
    Variant(
        "fast-rto-decrease",
        "fast-rto-decrease (§7.2.2)",
        ('flow.0.remedies=["fast-rto-decrease"]',),
    ),
    Variant(
        "flush-on-handover",
        "flush-on-handover (§7.2.3)",
        ('flow.0.remedies=["flush-on-handover"]',),
    ),
    Variant("red", "red (§7.1.5, §8.2)", ('flow.0.remedies=["red"]',)),
    # Functions of the home agent, not of TCP (`[[node_function]]`).
    Variant(
        "link-flow-control",
        "link-flow-control (§7.2.3)",
        ('flow.0.remedies=["link-flow-control"]',),
    ),
    Variant(
        "cwnd-clamp",
        "cwnd-clamp (Cottingham & Vidales §7)",
        ('flow.0.remedies=["cwnd-clamp"]',),
    ),
    # Tolerates the reordering of a slow -> fast handover (Daniel & Kojo §2); acts on the
    # notification, which it turns on.
    Variant(
        "adaptive-dupthresh",
        "adaptive-dupthresh (D&K §2)",
        ('flow.0.remedies=["adaptive-dupthresh"]',),
    ),
    # The bound (issue 19 item 3): told the new path at the switch, no loss of its own
    # making; the system oracle also moves the old queue onto a faster link.
    Variant("oracle", "the oracle", ('flow.0.remedies=["oracle"]',)),
    Variant("oracle-system", "the system oracle", ('flow.0.remedies=["oracle-system"]',)),
)
#: The cases run with every variant (the others with the thesis's TCP only).
COMPARED = ("fast-slow", "slow-fast")


#: The cases run with every variant (the others with the thesis's TCP only).
COMPARED = ("fast-slow", "slow-fast")
#: The cases whose first replication the report draws (its figures).
DRAWN = ("fast-slow", "fast-slow-4k", "fast-slow-536", "slow-fast")

#: Replications per point: each runs seed + r (``sequential``), which draws the handover
#: instant in the study's window (see DRAWS); and for --quick.
REPLICATIONS = 10
QUICK_REPLICATIONS = 2

#: What a replication draws, as the report states it.
DRAWS = (
    "the instant of the handover, uniformly in the study file's window (`handover.0.window`: "
    "a second after 4 s WaveLAN -> GSM, as a hand-triggered switch on the testbed; 1.5 s after "
    "70 s GSM -> WaveLAN); replication r runs seed + r at every point (common random numbers: "
    "the cases and variants of one replication switch at the same instant of their own window)"
)

#: The variants that test a cause of a difference from the thesis, on the case they concern:
#: (case, name, label, overrides). Each is run like the baseline; the report names it as a
#: cause only if it moves the number to agree with the thesis.
SENSITIVITY: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    # The MH's ACKs keep crossing WaveLAN until its registration completes (0.302 s after
    # the switch, l.1307-1313): those that return over WaveLAN free segments that crossed
    # before the switch.
    ("fast-slow", "registered-at-once", "the MH's ACKs over GSM from the switch on",
     ('handover.0.uplink_delay="0 s"',)),
    ("fast-slow-536", "registered-at-once", "the MH's ACKs over GSM from the switch on",
     ('handover.0.uplink_delay="0 s"',)),
    # Without the home agent's IP-in-IP tunnel (20 bytes a data packet, l.1521-1522).
    ("fast-slow-536", "no-tunnel", "no IP-in-IP tunnel at the HA", ("node_function=[]",)),
    ("fast-slow", "no-tunnel", "no IP-in-IP tunnel at the HA", ("node_function=[]",)),
)  # fmt: skip

MEASURE = "vho.reproduce.thesis.measure:measure_run"

#: IPv4 and TCP headers without options (Linux 2.0 sends none but the MSS, on the SYN).
HEADERS = 40
#: The IP-in-IP header the HA's tunnel adds to every data packet (§7 l.1521-1522: triangle
#: routing, CH -> MH through the HA's tunnel; the study file's ``ip-in-ip`` node function).
TUNNEL = 20


def design(o: Options) -> Design:
    """Every point: each case with the thesis's TCP, the compared cases with every variant,
    the sensitivity variants (unless ``o.sensitivity`` is off)."""
    reps = o.reps or (QUICK_REPLICATIONS if o.quick else REPLICATIONS)
    cases = {c.name: c for c in CASES}
    points = []
    for c in CASES:
        for v in VARIANTS:
            if v.name != BASELINE and c.name not in COMPARED:
                continue
            points.append(
                Point(
                    c.name,
                    v.name,
                    (*c.overrides, *v.overrides),
                    reps,
                    role="study" if v.name == BASELINE else "comparison",
                    params=_params(c, v.name == BASELINE),
                    keep=1 if v.name == BASELINE and c.name in DRAWN else 0,
                    label=v.label,
                )
            )
    if o.sensitivity:
        for case, name, label, overrides in SENSITIVITY:
            c = cases[case]
            points.append(
                Point(
                    case,
                    name,
                    (*c.overrides, *overrides),
                    reps,
                    role="sensitivity",
                    params=_params(c, False),
                    label=label,
                    replaces=BASELINE,
                )
            )
    return Design(
        study_file="thesis.toml",
        points=tuple(points),
        options=o,
        seeds="sequential",
        draws=DRAWS,
        measure=MEASURE,
    )


def _params(c: Case, replay: bool) -> tuple[tuple[str, object], ...]:
    return (("direction", c.direction), ("mss", c.mss), ("replay", replay))
