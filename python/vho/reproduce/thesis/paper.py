"""The numbers of the thesis, ``003_c2115c75cc9a1c40.txt`` (Chapter 7: a download across
WaveLAN <-> GSM/PPP handovers with Linux 2.0.36 and MosquitoNet Mobile IP), each with the
line it is read from ("l.N": line N of the plain-text thesis; docs/design/issue-19-sources.md
§1 is the reading). Chapter 7 has no tables: every number is in the text, and every number it
gives of what it measured is a row here (the testbed's parameters, §6, are the study file's).
Each is one run's (the thesis gives no spread): it is judged by the precision its words state
(:mod:`vho.reproduce.verdict`): a count or a stated value ("200 ms", "three times") exactly,
"approximately"/"about" and a calculated value with no precision ±10 %, "almost X" in [0.9 X,
X], "more than X" above X, "less than X" below X, "several" at least 2; a comparison ("the
throughput decreased") as a claim.

**[derived]** marks a value the thesis does not state but implies; the derivation is beside it.
Keys are ``<case>.<measurement>`` (``thesis/measure.py``'s names).
"""

from __future__ import annotations

from ..verdict import claim, value

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
FIG72_SWITCH_S = 5.8
STEADY_INTERVAL_AFTER_SWITCH = (58 - FIG72_SWITCH_S, 116 - FIG72_SWITCH_S)
#: [derived] The thesis's stall after the fast -> slow switch: segment 991161 "after 24
#: seconds" (l.1639) in Fig. 7-2's clock, its ACK "approximately 26 seconds" later
#: (l.1639-1640): from about 18 s to about 44 s after its switch.
THESIS_STALL_S = (24 - FIG72_SWITCH_S, 24 + 26 - FIG72_SWITCH_S)
#: [derived] The thesis's RTO at the end over its RTT at the end (about 20 s, almost 11 s,
#: l.1665-1669), and its RTO's rise after the slow -> fast RTT fell (20 s to more than 50 s,
#: l.1895-1896).
THESIS_RTO_OVER_RTT_AT_END = 20 / 11
THESIS_RTO_RISE = 50 / 20

#: [derived] The thesis's slow->fast switch: "according to the tcpdump output, the handover
#: occurs already after 70 seconds" (l.1860-1864).
SLOW_FAST_SWITCH_S = 70.0


#: Every number of Chapter 7's measurements, as data.
NUMBERS = (
    # §7.1.2: WaveLAN -> GSM, 16 KB window, MSS 1420 (Figs. 7-1 to 7-3).
    value("fast-slow.rto_at_switch_s", "fast-slow: RTO at the switch", 0.2,
          "§7.1.2 l.1626", "exact", unit="s",
          words="The RTO value is 200 ms when the handover occurs"),
    value("fast-slow.window_segments", "fast-slow: segments in flight at the switch", 11,
          "§7.1.2 l.1569", "exact", words="a window of 11 segments is sent"),
    value("fast-slow.first_segment_timeouts",
          "fast-slow: timeouts while the first segment over GSM awaits its ACK", 3,
          "§7.1.2 l.1627-1628", "exact",
          words="a timeout of the first segment occurs three times"),
    value("fast-slow.window_resent", "fast-slow: segments of the window at the switch resent",
          11, "§7.1.2 l.1629-1632", "exact",
          words="the first 11 segments are received ... the sender [retransmits] those segments"),
    value("fast-slow.window_first_resend_s", "fast-slow: first resend of that window", 0.2,
          "§7.1.2 l.1631-1632", unit="s after the switch",
          words="retransmit those segments in the interval 6-22 seconds",
          derived="6 s in Fig. 7-2's clock, whose switch is at about 5.8 s (l.1626: the RTO "
                  "of 0.2 s after the window went out)"),
    value("fast-slow.window_last_resend_s", "fast-slow: last resend of that window", 16.2,
          "§7.1.2 l.1631-1632", unit="s after the switch",
          words="retransmit those segments in the interval 6-22 seconds",
          derived="22 s in Fig. 7-2's clock, switch at about 5.8 s"),
    value("fast-slow.fast_retransmits", "fast-slow: fast retransmits", 0, "§7.1.2 l.1642-1644",
          "exact", words="TCP does not use the fast retransmit and fast recovery algorithms, "
          "although more than three duplicate ACKs are received"),
    value("fast-slow.duplicate_acks", "fast-slow: duplicate ACKs after the switch", 18,
          "§7.1.2 l.1644-1645", "exact",
          words="After the 15 duplicate ACKs ... except for three more duplicate ACKs"),
    value("fast-slow.longest_wait_s", "fast-slow: longest wait of a new segment for its ACK",
          26, "§7.1.2 l.1639-1640", "about", unit="s",
          words="Between when segment 991161 was sent (after 24 seconds) and the ACK for that "
          "segment was received, approximately 26 seconds elapsed"),
    value("fast-slow.longest_wait_over_25_s", "fast-slow: the longest round trips", 25,
          "§7.1.2 l.1572-1573", "more", unit="s",
          words="higher than 25 seconds for some segments"),
    value("fast-slow.no_new_data_s", "fast-slow: longest time without new data", 26,
          "§7.1.2 l.1659-1660", "about", unit="s",
          words="the 26 seconds interval when no new data is transferred"),
    value("fast-slow.recovery_s", "fast-slow: new data flows again", 30, "§7.1.2 l.1669-1670",
          "more", unit="s after the switch",
          words="it takes more than 30 seconds for TCP to recover after the handover"),
    value("fast-slow.rtt_after_recovery_s", "fast-slow: RTT after the stall", 1.5,
          "§7.1.2 l.1664-1665", "about", unit="s",
          words="After the many duplicate ACKs the round-trip time is approximately 1.5 "
          "seconds"),
    value("fast-slow.rtt_at_end_s", "fast-slow: RTT at the end", 11, "§7.1.2 l.1665-1666",
          "almost", unit="s",
          words="at the end of the connection the round-trip time has increased to almost 11 "
          "seconds"),
    value("fast-slow.rto_at_end_s", "fast-slow: RTO at the end", 20, "§7.1.2 l.1668-1669",
          "about", unit="s", words="The RTO has a value of about 20 seconds at the end"),
    value("fast-slow.steady_throughput_Bps", "fast-slow: throughput 58-116 s (Fig. 7-3)", 900,
          "§7.1.2 l.1656-1658", unit="B/s",
          words="The calculated value of the mean throughput is 900 bytes/s in the time "
          "interval 58-116 seconds"),
    value("fast-slow.throughput_after_Bps", "fast-slow: mean throughput after the handover",
          680, "§7.1.2 l.1658-1659", unit="B/s",
          words="The mean throughput of the entire data transfer after handover is 680 "
          "bytes/s"),
    value("fast-slow.time_over_theoretical_s", "fast-slow: time beyond 960 B/s", 40,
          "§7.1.2 l.1653-1655", "almost", unit="s",
          words="the transmission over the PPP link continues almost 40 seconds longer than "
          "it would have had if the link achieved its theoretical throughput"),
    # §7.1.3: smaller windows and segments (Figs. 7-4, 7-5).
    value("fast-slow-4k.throughput_after_Bps", "4096 B / MSS 1024: throughput after", 790,
          "§7.1.3 l.1699-1700", unit="B/s",
          words="The calculated throughput for the same number of bytes as in the previous "
          "measurement is 790 bytes/s"),
    value("fast-slow-4k.gain_over_16k", "4096 B / MSS 1024: gain over 16 KB / MSS 1420", 0.16,
          "§7.1.3 l.1700-1701",
          words="an improvement of 16% compared to the measurements with a window size of 16 "
          "kbytes and an MSS of 1420 bytes"),
    value("fast-slow-4k.window_resent", "4096 B / MSS 1024: segments resent after the switch",
          4, "§7.1.3 l.1695-1696", "exact",
          words="the retransmissions directly after the handover will only concern four "
          "segments"),
    value("fast-slow-4k.first_segment_timeouts", "4096 B / MSS 1024: first segment's timeouts",
          3, "§7.1.3 l.1706-1707", "exact",
          words="resulting in three retransmissions of the first segment"),
    claim("fast-slow-4k.rto_lower", "4096 B / MSS 1024: a much lower stable RTO than 16 KB / "
          "MSS 1420 (A: 4 KB's RTO at the end, B: 16 KB's)", "<", "§7.1.3 l.1697-1698",
          words="a significant improvement of the throughput and a much lower stable value of "
          "the RTO"),
    claim("fast-slow-4k.not_queued", "4096 B / MSS 1024: not queued at a bottleneck (A: 4 KB's "
          "RTT at the end, B: 16 KB's)", "<", "§7.1.3 l.1698-1699",
          words="the constant interval between data segments and ACKs, indicate that segments "
          "are not being queued up by a bottleneck"),
    claim("fast-slow-4k.beats_2k", "4 KB's throughput above 2 KB's (MSS 1024)", ">",
          "§7.1.3 l.1687, l.1702",
          words="We made measurements with window sizes of 2, 4, 8 and 16 kbytes ... "
          "Observations of the other window sizes were also made, but the throughput "
          "decreased"),
    claim("fast-slow-4k.beats_8k", "4 KB's throughput above 8 KB's (MSS 1024)", ">",
          "§7.1.3 l.1687, l.1702", words="... but the throughput decreased"),
    claim("fast-slow-4k.beats_16k", "4 KB's throughput above 16 KB's (MSS 1024)", ">",
          "§7.1.3 l.1687, l.1702", words="... but the throughput decreased"),
    value("fast-slow-536.throughput_after_Bps", "2144 B / MSS 536: throughput after", 700,
          "§7.1.3 l.1720", unit="B/s", words="The calculated throughput is 700 bytes/s"),
    value("fast-slow-536.first_segment_timeouts", "2144 B / MSS 536: first segment's timeouts",
          2, "§7.1.3 l.1719-1720", "at-least",
          words="The problem with several retransmissions of the first segment sent after the "
          "handover remains"),
    # §7.1.4: the same WaveLAN -> GSM handover, the MH sending (Figs. 7-6, 7-7).
    value("upload.first_segment_timeouts", "upload: first segment's timeouts", 3,
          "§7.1.4 l.1744-1745", "exact",
          words="the first 1460 data bytes are retransmitted three times before the first ACK "
          "arrives"),
    value("upload.second_segment_sends", "upload: sends of the second segment", 3,
          "§7.1.4 l.1746-1747", "exact", words="The data bytes 1460-2919 are sent three times"),
    value("upload.rtt_at_end_s", "upload: RTT at the end", 20, "§7.1.4 l.1760-1761", "almost",
          unit="s", words="The RTT reaches a value of almost twenty seconds at the end"),
    value("upload.throughput_after_Bps", "upload: throughput over the PPP link", 390,
          "§7.1.4 l.1762-1763", "less", unit="B/s",
          words="the actual throughput obtained over the PPP link is less than 390 bytes"),
    value("upload.throughput_under_half", "upload: throughput of more measurements", 480,
          "§7.1.4 l.1764-1766", "less", unit="B/s",
          words="More measurements of bulk data transfer from the mobile host ... showed a "
          "constant low throughput of less than half the theoretical value",
          derived="half the theoretical 960 B/s"),
    # §7.2.2: GSM -> WaveLAN, 16 KB window (Figs. 7-8 to 7-11).
    value("slow-fast.old_link_segments", "slow-fast: segments arriving over GSM after the "
          "switch", 11, "§7.2.2 l.1873-1875", "exact",
          words="11 segments (Segment 1 ... and the ten buffered segments) arrive at the PPP "
          "interface of the mobile host after the handover"),
    value("slow-fast.drain_s", "slow-fast: until the old PPP queue is drained", 15,
          "§7.2.2 l.1863-1864, l.1894", "about", unit="s",
          words="poorly utilized the first 15 seconds after handover; the segments start to "
          "go over the WaveLAN after approximately 86 seconds"),
    value("slow-fast.fast_retransmits", "slow-fast: fast retransmits", 0, "§7.2.2 l.1877-1891",
          "exact", words="no fast retransmit seen (only foreseen, §7.2.1 l.1851-1856)"),
    value("slow-fast.rto_before_fall_s", "slow-fast: RTO before the RTT fell", 20,
          "§7.2.2 l.1895", "about", unit="s",
          words="the RTO value increases from 20 seconds"),
    value("slow-fast.rto_peak_after_fall_s", "slow-fast: RTO peak after the RTT fell", 50,
          "§7.2.2 l.1895-1896", "more", unit="s", words="to more than 50 seconds"),
    value("slow-fast.rto_settled_s", "slow-fast: RTO settled over WaveLAN", 0.2,
          "§7.2.2 l.1976-1978", "about", unit="s",
          words="until it stabilizes to a value of approximately 200 ms"),
    value("slow-fast.rto_peak_over_settled", "slow-fast: RTO peak over the settled RTO", 250,
          "§7.2.2 l.1983", "more", words="more than 250 times higher RTO in the worst case"),
)  # fmt: skip
