"""The numbers of the thesis, ``003_c2115c75cc9a1c40.txt`` (Chapter 7: a download across
WaveLAN <-> GSM/PPP handovers with Linux 2.0.36 and MosquitoNet Mobile IP), each with the
line it is read from ("l.N": line N of the plain-text thesis; docs/design/issue-19-sources.md
§1 is the reading). Chapter 7 has no tables: every number is in the text.

How a number is compared (:class:`Claim` ``kind``), the thesis's own precision:

- ``exact``: a count ("three times", "11 segments") or a stated value ("200 ms"): equal;
- ``about``: "approximately", "about", or a value it calculated with no precision given
  ("900 bytes/s"): within ±10 %;
- ``almost``: "almost X": in [0.9 X, X];
- ``more``: "more than X", "higher than X": above X;
- ``several``: "several": at least 2;
- ``less``: "less than X": below X.

**[derived]** marks a value the thesis does not state but implies; the derivation is beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The GSM link's payload rate, "960 bytes [per s] ... about one millisecond per byte" (§7.1.3
#: l.1708-1709; 9.6 kb/s with a start and a stop bit per byte, l.1364-1366). Also the
#: "theoretical throughput" line of Fig. 7-3 (l.1653-1658).
PPP_BYTES_PER_S = 960.0

#: [derived] The bytes acknowledged after the fast->slow handover, from two of the thesis's
#: own numbers: "continues almost 40 seconds longer" than at 960 B/s (l.1653-1655) and a mean of
#: "680 bytes/s" after the handover (l.1658-1659): N / 680 - N / 960 = 40 s gives N = 93,257 B
#: (137 s at 680 B/s). It agrees with Fig. 7-1's axis (about 0.97 MB sent at the switch,
#: segment 974121, l.1557; the y-axis ends at 1.10 MB). §7.1.3 compares the windows "for the
#: same number of bytes" (l.1699-1700), and the mean "strongly depends on the total length of
#: the transfer" (l.1660-1661): every fast->slow throughput here is over these bytes.
POST_HANDOVER_BYTES = round(40 / (1 / 680 - 1 / PPP_BYTES_PER_S))

#: [derived] Fig. 7-3's interval "58-116 seconds" (l.1656-1658), in seconds after the switch.
#: Figs. 7-2/7-3 have their own clock (the switch is at 12 s in Fig. 7-1's, l.1548-1550): the
#: resends begin at 6 s (l.1630-1632), 0.2 s (the RTO at the switch, l.1626) after the
#: window went out, so the switch is at about 5.8 s there.
STEADY_INTERVAL_AFTER_SWITCH = (58 - 5.8, 116 - 5.8)

#: [derived] The thesis's slow->fast switch: "according to the tcpdump output, the handover
#: occurs already after 70 seconds" (l.1860-1864).
SLOW_FAST_SWITCH_S = 70.0


@dataclass(frozen=True)
class Claim:
    """One number of the thesis: the case and the measurement (``key``) it is compared with,
    what it says, how (see the module doc), its words and its line."""

    case: str
    key: str
    value: float
    kind: str
    text: str
    source: str
    #: How the report shows the thesis's number, when not as ``kind`` puts ``value``.
    shown: str | None = None


KINDS = ("exact", "about", "almost", "more", "several", "less")
#: ``about``: ±10 % (see the module doc).
ABOUT = 0.10

CLAIMS: list[Claim] = [
    # §7.1.2: WaveLAN -> GSM, 16 KB window, MSS 1420 (Figs. 7-1 to 7-3).
    Claim("fast-slow", "rto_at_switch_s", 0.2, "exact",
          "\"The RTO value is 200 ms when the handover occurs\"", "§7.1.2 l.1626"),
    Claim("fast-slow", "first_segment_timeouts", 3, "exact",
          "\"a timeout of the first segment occurs three times\"", "§7.1.2 l.1627-1628"),
    Claim("fast-slow", "window_resent", 11, "exact",
          "the window of 11 segments (l.1569) was received, yet resent in 6-22 s",
          "§7.1.2 l.1629-1632"),
    Claim("fast-slow", "fast_retransmits", 0, "exact",
          "\"does not use the fast retransmit ... although more than three duplicate ACKs\"",
          "§7.1.2 l.1642-1644"),
    Claim("fast-slow", "duplicate_acks", 18, "exact",
          "\"the 15 duplicate ACKs\" then \"three more\"", "§7.1.2 l.1644-1645"),
    Claim("fast-slow", "longest_wait_s", 26, "about",
          "segment 991161 sent \"after 24 seconds\", its ACK \"approximately 26 seconds\" "
          "later; \"higher than 25 seconds for some segments\" (l.1573)",
          "§7.1.2 l.1639-1640"),
    Claim("fast-slow", "no_new_data_s", 26, "about",
          "\"the 26 seconds interval when no new data is transferred\"", "§7.1.2 l.1659-1660"),
    Claim("fast-slow", "recovery_s", 30, "more",
          "\"more than 30 seconds for TCP to recover\" (\"more than 40 seconds\" in some "
          "cases, §8.1 l.2035-2036)", "§7.1.2 l.1669-1670"),
    Claim("fast-slow", "rtt_after_recovery_s", 1.5, "about",
          "\"After the many duplicate ACKs the round-trip time is approximately 1.5 seconds\"",
          "§7.1.2 l.1664-1665"),
    Claim("fast-slow", "rtt_at_end_s", 11, "almost",
          "\"at the end of the connection the round-trip time has increased to almost 11 "
          "seconds\"", "§7.1.2 l.1665-1666"),
    Claim("fast-slow", "rto_at_end_s", 20, "about",
          "\"The RTO has a value of about 20 seconds at the end of the transfer\"",
          "§7.1.2 l.1668-1669"),
    Claim("fast-slow", "steady_throughput_Bps", 900, "about",
          "\"900 bytes/s in the time interval 58-116 seconds\"", "§7.1.2 l.1656-1658"),
    Claim("fast-slow", "throughput_after_Bps", 680, "about",
          "\"The mean throughput of the entire data transfer after handover is 680 bytes/s\"",
          "§7.1.2 l.1658-1659"),
    Claim("fast-slow", "time_over_theoretical_s", 40, "almost",
          "\"continues almost 40 seconds longer\" than at 960 B/s", "§7.1.2 l.1653-1655"),
    # §7.1.3: smaller windows and segments (Figs. 7-4, 7-5).
    Claim("fast-slow-4k", "throughput_after_Bps", 790, "about",
          "\"790 bytes/s\" for the same number of bytes", "§7.1.3 l.1699-1700"),
    # An improvement at all is what is compared: a ratio of two "about" throughputs (±10 %
    # each) has no precision of ±10 % of 16 %.
    Claim("fast-slow-4k", "gain_over_16k", 0.0, "more",
          "\"an improvement of 16%\" over 16 KB / MSS 1420", "§7.1.3 l.1700-1701",
          shown="+0.16 (an improvement)"),
    Claim("fast-slow-4k", "first_segment_timeouts", 3, "exact",
          "\"three retransmissions of the first segment\"", "§7.1.3 l.1706-1707"),
    Claim("fast-slow-536", "throughput_after_Bps", 700, "about",
          "\"The calculated throughput is 700 bytes/s\"", "§7.1.3 l.1720"),
    Claim("fast-slow-536", "first_segment_timeouts", 2, "several",
          "\"several retransmissions of the first segment sent after the handover\"",
          "§7.1.3 l.1719-1720"),
    # §7.2.2: GSM -> WaveLAN, 16 KB window (Figs. 7-8 to 7-11).
    # §7.1.4: the same WaveLAN -> GSM handover, the MH sending (Figs. 7-6, 7-7).
    Claim("upload", "first_segment_timeouts", 3, "exact",
          "\"the first 1460 data bytes are retransmitted three times before the first ACK "
          "arrives\"", "§7.1.4 l.1744-1745"),
    Claim("upload", "rtt_at_end_s", 20, "almost",
          "\"The RTT reaches a value of almost twenty seconds at the end of the data "
          "transfer\"", "§7.1.4 l.1760-1761"),
    Claim("upload", "throughput_after_Bps", 390, "less",
          "\"the actual throughput obtained over the PPP link is less than 390 bytes\" [per s]",
          "§7.1.4 l.1762-1763"),
    Claim("slow-fast", "old_link_segments", 11, "exact",
          "\"11 segments (Segment 1 ... and the ten buffered segments) arrive at the PPP "
          "interface of the mobile host after the handover\"", "§7.2.2 l.1873-1875"),
    Claim("slow-fast", "drain_s", 15, "about",
          "\"poorly utilized the first 15 seconds after handover\"; WaveLAN used \"after "
          "approximately 86 seconds\" (switch at 70 s)", "§7.2.2 l.1863-1864, l.1894"),
    Claim("slow-fast", "fast_retransmits", 0, "exact",
          "no fast retransmit seen (only foreseen, §7.2.1 l.1851-1856): one duplicate ACK "
          "per overtaking segment", "§7.2.2 l.1877-1891"),
    # "The segments start to go over the WaveLAN after approximately 86 seconds and the
    # round-trip time decreases significantly. However, the RTO value increases from 20
    # seconds to more than 50 seconds" (l.1894-1896): before and after the RTT fell, i.e. when
    # the CH holds the ACK of all it sent over PPP.
    Claim("slow-fast", "rto_before_fall_s", 20, "about",
          "\"the RTO value increases from 20 seconds\" (before the RTT fell)", "§7.2.2 l.1895"),
    Claim("slow-fast", "rto_peak_after_fall_s", 50, "more",
          "\"to more than 50 seconds\" (after the RTT fell)", "§7.2.2 l.1895-1896"),
    Claim("slow-fast", "rto_settled_s", 0.2, "about",
          "\"until it stabilizes to a value of approximately 200 ms\"", "§7.2.2 l.1976-1978"),
    Claim("slow-fast", "rto_peak_over_settled", 250, "more",
          "\"more than 250 times higher RTO in the worst case\"", "§7.2.2 l.1983"),
]  # fmt: skip


def holds(c: Claim, ours: float) -> bool:
    """Whether ``ours`` agrees with the claim within the thesis's precision (module doc)."""
    if c.kind == "exact":
        return abs(ours - c.value) <= 1e-9 * max(1.0, abs(c.value))
    if c.kind == "about":
        return abs(ours - c.value) <= ABOUT * abs(c.value)
    if c.kind == "almost":
        return (1 - ABOUT) * c.value <= ours <= c.value
    if c.kind == "more":
        return ours > c.value
    if c.kind == "several":
        return ours >= c.value
    if c.kind == "less":
        return ours < c.value
    raise ValueError(f"claim kind: expected one of {KINDS}, got {c.kind!r}")


def stated(c: Claim) -> str:
    """The claim's number as the thesis puts it ("3", "≈ 26", "> 50", "almost 11")."""
    if c.shown is not None:
        return c.shown
    v = f"{c.value:g}"
    return {
        "exact": v,
        "about": f"≈ {v}",
        "almost": f"almost {v}",
        "more": f"> {v}",
        "several": "several",
        "less": f"< {v}",
    }[c.kind]
