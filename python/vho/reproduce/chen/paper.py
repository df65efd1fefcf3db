"""What Chen, Yang, Sun, Sanadidi & Gerla (``004_131556780010e7f2.txt``) report in §5, as data:
every number of its text and every claim it makes of its figures (6-9), each with its line
("l.N": line N of the paper's text file) and its words. The paper has no replications, no
intervals and no table: each number is read from one ns-2 run, and is judged by the precision
its words state (:mod:`vho.reproduce.verdict`: "approximately"/"about" and none stated ±10 %).
The run's parameters (1200 s, the handoff at 600 s, the links and cross traffic) are the study
file's. Keys are ``<case>.<what>``.
"""

from __future__ import annotations

from ..verdict import claim, unmeasured, value

#: The run: l.133 "During the 1200-second simulation, a vertical handoff event was generated
#: at the 600th second on the last hop".
STOP_S = 1200.0
HANDOFF_S = 600.0

LAG = "a lag of approximately 15 seconds between the moment of handoff and its detection by IHN"

NUMBERS = (
    # §5.1.1, Fig. 6: TFRC Probe, LOW-to-HIGH.
    value("low-high-tfrc.ihn_s", "TFRC Probe: IHN's detection after the LOW-to-HIGH handoff",
          15, "l.151", "about", unit="s", words=LAG),
    value("low-high-tfrc.ihn_minus_ehn_s", "TFRC Probe: EHN+FRA's slow start ahead of IHN+FRA's",
          15, "l.151", unit="s",
          words="TFRC Probe with EHN+FRA entered slow start and increased the rate 15 seconds "
          "earlier"),
    claim("low-high-tfrc.ihn_fra_faster", "TFRC Probe: IHN+FRA sends faster than the original "
          "after the handoff (A: IHN+FRA's mean rate X in the 60 s after, B: the original's)",
          ">", "l.151", words="TFRC Probe with IHN+FRA was able to enter slow start and increase "
          "its sending rate faster than the original TFRC Probe"),
    claim("low-high-tfrc.ihn_fra_delivers_more", "TFRC Probe: IHN+FRA delivers more than the "
          "original in the 60 s after the handoff", ">", "l.151",
          words="Both advanced TFRC Probe variants managed to utilize the increased capacity "
          "after handoff more efficiently, in terms of the sending rate (Fig. 6(a)) and "
          "throughput (Fig. 6(b))"),
    claim("low-high-tfrc.ehn_fra_delivers_more", "TFRC Probe: EHN+FRA delivers more than the "
          "original in the 60 s after the handoff", ">", "l.151",
          words="Both advanced TFRC Probe variants managed to utilize the increased capacity"),
    claim("low-high-tfrc.ehn_fra_faster", "TFRC Probe: EHN+FRA sends faster than the original "
          "after the handoff (mean rate X in the 60 s after)", ">", "l.151",
          words="in terms of the sending rate (Fig. 6(a))"),
    value("low-high-tfrc.ihn_fra_no_congestion", "TFRC Probe: IHN+FRA's packets lost in the 60 s "
          "after the handoff", 0, "l.151", "exact", unit="packets",
          words="they exited the slow start phase quickly and continued in congestion avoidance "
          "without incurring any congestion"),
    value("low-high-tfrc.ehn_fra_no_congestion", "TFRC Probe: EHN+FRA's packets lost in the 60 s "
          "after the handoff", 0, "l.151", "exact", unit="packets",
          words="without incurring any congestion"),
    # §5.1.2, Fig. 7: TCP Probe, LOW-to-HIGH.
    value("low-high-tcp.ihn_minus_ehn_s", "TCP Probe: IHN's lag behind EHN", 5, "l.164",
          unit="s", words="IHN lagged behind EHN by 5 seconds in this case"),
    claim("low-high-tcp.ihn_fra_delivers_more", "TCP Probe: FRA+IHN delivers more than the "
          "original in the 60 s after the handoff", ">", "l.164",
          words="the throughput of TCP Probe with FRA+IHN or FRA+EHN was significantly higher "
          "than the original scheme"),
    claim("low-high-tcp.ehn_fra_delivers_more", "TCP Probe: FRA+EHN delivers more than the "
          "original in the 60 s after the handoff", ">", "l.164",
          words="significantly higher than the original scheme"),
    # §5.2, Figs. 8 and 9: TFRC Probe, HIGH-to-LOW.
    claim("high-low-tfrc.ehn_a_cuts_harder", "EHN(a) cuts the rate harder than the original at "
          "the handoff (A: EHN(a)'s mean X in the first second, B: the original's)", "<", "l.182",
          words="TFRC Probe with EHN(a) and EHN(b) both reduced the sending rate more "
          "drastically than the original TFRC Probe when the handoff occurred"),
    claim("high-low-tfrc.ehn_b_cuts_harder", "EHN(b) cuts the rate harder than the original at "
          "the handoff (mean X in the first second)", "<", "l.182",
          words="both reduced the sending rate more drastically"),
    unmeasured(
        value("high-low-tfrc.second_cut", "the time between the rate's first and second cuts, "
              "EHN's against the original's", 0, "l.182-183",
              words="They also experienced a second rate cut as the original TFRC Probe did, "
              "but the time between rate cuts was accordingly prolonged"),
        "the text gives no length and defines no rate cut (Fig. 8(a), where they show, is not "
        "in the text); vho's rate series is in runs/high-low-tfrc/*/rep-0/series_tfrc.parquet",
    ),
    value("high-low-tfrc.original_x_final_bps", "the original's final rate", 150e3, "l.183-184",
          "about", unit="b/s",
          words="Finally all TFRC Probe variants had their sending rate converged to the new "
          "last-hop capacity (150 kbps)"),
    value("high-low-tfrc.ehn_a_x_final_bps", "EHN(a)'s final rate", 150e3, "l.183-184", "about",
          unit="b/s", words="converged to the new last-hop capacity (150 kbps)"),
    value("high-low-tfrc.ehn_b_x_final_bps", "EHN(b)'s final rate", 150e3, "l.183-184", "about",
          unit="b/s", words="converged to the new last-hop capacity (150 kbps)"),
    claim("high-low-tfrc.ehn_a_same_throughput", "EHN(a) delivers about what the original does "
          "after the handoff (packets received at node 6)", "~", "l.186-187",
          words="Fig. 8(b) seemingly indicates that all TFRC Probe variants had practically the "
          "same throughput ... considering solely the number of received packets at node 6"),
    claim("high-low-tfrc.ehn_b_same_throughput", "EHN(b) delivers about what the original does "
          "after the handoff", "~", "l.186-187", words="practically the same throughput"),
    value("high-low-tfrc.ehn_b_lost", "EHN(b): packets lost during the handoff", 200, "l.189",
          "about", unit="packets",
          words="TFRC Probe with EHN(b), namely ERR-equipped, had approximately 200 packets lost "
          "during the handoff"),
    value("high-low-tfrc.ehn_a_lost", "EHN(a): packets lost during the handoff", 400, "l.189",
          "about", unit="packets",
          words="Without ERR, TFRC Probe with EHN (a) lost about 400 packets"),
    # The text names EHN(a) twice: "TFRC Probe with EHN (a) lost about 400 packets, twice as
    # many as TFRC Probe with EHN(a)" - the second is EHN(b), whose 200 it has just given.
    value("high-low-tfrc.ehn_a_over_ehn_b", "EHN(a)'s losses over EHN(b)'s", 2, "l.189",
          unit="times", words="twice as many as TFRC Probe with EHN(a) [EHN(b)]"),
    value("high-low-tfrc.original_lost", "the original: packets lost during the handoff", 650,
          "l.189", unit="packets",
          words="The original TFRC Probe suffered the most packet losses with a number of 650"),
    claim("high-low-tfrc.ehn_reduces_losses", "EHN(a) loses fewer packets than the original",
          "<", "l.189", words="both EHN and ERR are effective algorithms that reduce the "
          "number of packets [lost] during a HIGH-to-LOW vertical handoff"),
    claim("high-low-tfrc.err_reduces_losses", "EHN(b) (ERR) loses fewer packets than EHN(a)",
          "<", "l.189", words="both EHN and ERR are effective algorithms"),
)  # fmt: skip
