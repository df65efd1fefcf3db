"""What Cottingham & Vidales (``000_2dceaee3c96622fa.txt``) report, as numbers: Table 1 (l.156-165)
and the shares of §6.1 (l.183). Times in milliseconds as the paper gives them.

The ``%`` column is the mean of per-handover shares, not the ratio of the means (2786 / 5635 is
49.4 %, the table says 50.7 %; l.183 gives the share with its own sd): vho computes it the same
way and prints the ratio of means beside it.
"""

from __future__ import annotations

from ..verdict import PaperNumber, claim, corr, extreme, mean, sd, unmeasured, value

#: Table 1, per case: rows ``t_n`` (handover time T_n), ``t_a`` (adaptation time), ``total``;
#: each (mean, %, sd, min, max) in ms (the % column in percent).
TABLE1: dict[str, dict[str, tuple[float, float, float, float, float]]] = {
    "wlan-gprs": {
        "t_n": (2848, 49.3, 1127, 1103, 4782),
        "t_a": (2786, 50.7, 628, 2142, 4022),
        "total": (5635, 100.0, 881, 3802, 7285),
    },
    "lan-gprs": {
        "t_n": (5356, 68.5, 1791, 4146, 10303),
        "t_a": (2355, 31.5, 337, 1924, 3119),
        "total": (7711, 100.0, 1751, 6339, 12452),
    },
}

#: l.183: t_a's share with its sd, in percent.
TA_SHARE_SIGMA = {"wlan-gprs": 13.9, "lan-gprs": 6.1}

#: The handovers each case of Table 1 averages (l.138).
PAPER_COUNT = {"wlan-gprs": 20, "lan-gprs": 10}

ROWS = {"t_n": "Handover time T_n", "t_a": "Adaptation time t_a", "total": "Total latency"}

SOURCE = "§5 Table 1"
STATS = ("mean", "share", "sigma", "min", "max")
CASE_NAME = {"wlan-gprs": "WLAN -> GPRS", "lan-gprs": "LAN -> GPRS"}


def implied_correlation(case: str) -> float:
    """[derived] The correlation of T_n and t_a that Table 1's sigmas imply: total = T_n + t_a
    per handover, so sigma_total^2 = sigma_n^2 + sigma_a^2 + 2 rho sigma_n sigma_a."""
    sn, sa, st = (TABLE1[case][k][2] for k in ("t_n", "t_a", "total"))
    return (st * st - sn * sn - sa * sa) / (2 * sn * sa)


def _table1() -> list[PaperNumber]:
    out = []
    for case, rows in TABLE1.items():
        n = PAPER_COUNT[case]
        for key, (mu, share, sigma, lo, hi) in rows.items():
            what = f"{CASE_NAME[case]}: {ROWS[key]}"
            k = f"{case}.{key}"
            out += [
                mean(f"{k}.mean", what, mu, sigma, n, SOURCE, unit="ms"),
                sd(f"{k}.sigma", f"{what}, σ", sigma, n, SOURCE, unit="ms"),
                extreme(f"{k}.min", "min", f"{what}, min", lo, n, SOURCE, unit="ms"),
                extreme(f"{k}.max", "max", f"{what}, max", hi, n, SOURCE, unit="ms"),
            ]
            if key == "total":
                out.append(
                    unmeasured(
                        value(f"{k}.share", f"{what}, %", share, SOURCE, "exact", unit="%"),
                        "a definition (T_n + t_a is the whole), not a measurement",
                    )
                )
            else:
                # The % column is the mean of per-handover shares with its own sigma (l.183,
                # given for t_a; T_n's share is 100 % less it, the same sigma).
                out.append(
                    mean(
                        f"{k}.share",
                        f"{what}, % (mean of per-handover shares)",
                        share,
                        TA_SHARE_SIGMA[case],
                        n,
                        f"{SOURCE}, l.183",
                        unit="%",
                    )
                )
        out.append(
            sd(
                f"{case}.t_a.share_sigma",
                f"{CASE_NAME[case]}: t_a's share, σ",
                TA_SHARE_SIGMA[case],
                n,
                "§6.1 l.183",
                unit="%",
                words="on average 31.5% of the handover is t_a, with a σ of 6.1 ... (50.7%, σ "
                "of 13.9)",
            )
        )
        out.append(
            corr(f"{case}.t_n_t_a_corr", f"{CASE_NAME[case]}: correlation of T_n and t_a",
                 implied_correlation(case), n, SOURCE,
                 derived="implied by Table 1's σ's: σ_total² = σ_n² + σ_a² + 2ρ σ_n σ_a")
        )  # fmt: skip
    return out


#: Every number of the paper, as data.
NUMBERS: tuple[PaperNumber, ...] = (
    *_table1(),
    claim("lan-gprs.share_t_a_less", "t_a's share less for LAN -> GPRS than WLAN -> GPRS (A: "
          "LAN's per-handover share, B: WLAN's)", "<", "§6.1 l.183",
          words="the fraction of the total handover time due to t_a is consistently less for "
          "the LAN => GPRS scenario"),
    claim("lan-gprs.t_a_similar", "t_a about the same for LAN and WLAN -> GPRS", "~",
          "§6.1 l.183", words="Comparing the values of t_a between the two types of handover "
          "in Table 1, we see that they are approximately similar"),
    claim("lan-gprs.t_n_larger", "T_n larger for LAN -> GPRS than WLAN -> GPRS", ">",
          "§6.1 l.183", words="However, the values of T_n differ significantly"),
    claim("lan-gprs.ba_to_ro_longer", "the time from the home agent's BA to route optimisation "
          "longer for LAN -> GPRS than WLAN -> GPRS", ">", "§6.1 l.183",
          words="the extra time that the LAN handover takes elapses between the binding "
          "acknowledgement being sent from the HA to the MN, and the route optimisation "
          "process being initiated"),
    claim("gprs-wlan.t_a_negligible", "GPRS -> WLAN: t_a below WLAN -> GPRS's (A: downward, "
          "B: upward)", "<", "§5, §6.2", words="downward handovers ... the adaptation time "
          "is negligible"),
    claim("gprs-lan.t_a_negligible", "GPRS -> LAN: t_a below LAN -> GPRS's (A: downward, B: "
          "upward)", "<", "§5, §6.2", words="the adaptation time is negligible"),
    claim("soft.t_n_smaller", "soft WLAN -> GPRS: T_n below the hard handover's", "<",
          "§6.3", words="performing soft handovers leads to dramatic reductions in handover "
          "latency"),
    value("soft.drops", "soft WLAN -> GPRS -> WLAN: packets lost", 0, "§6.3", "exact",
          unit="packets", words="there is no packet loss during the handover, although packet "
          "reordering can occur"),
    claim("soft.timeouts", "soft WLAN -> GPRS: the correspondent times out (A: timeouts a run)",
          ">=0", "§6.3", words="The CN times out and starts retransmitting these packets"),
    unmeasured(
        value("soft.old_interface_s", "soft WLAN -> GPRS: how long the CN keeps sending to the "
              "old interface", 0.001, "§6.3", "about", unit="s",
              words="the source (CN) continues sending packets destined to the old interface "
              "for approximately 1ms"),
        "the study records no capture at the correspondent, and the summary does not time its "
        "last packet to the old address",
    ),
)  # fmt: skip
