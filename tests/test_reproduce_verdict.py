"""The verdict rule (vho/reproduce/verdict.py): each kind of paper number judged as its test
says, the expected statistics worked out by hand (closed forms for small degrees of freedom);
scipy's distributions are the reference where a tail has no closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from vho.reproduce import verdict as vd


def test_a_mean_with_its_sigma_is_judged_by_welchs_test() -> None:
    # vho 10, 12, 14 (mean 12, s 2, n 3) against the paper's 10 (σ 3, n 9): variances of the
    # means 4/3 and 9/9, se = sqrt(7/3) = 1.5275, t = 2 / 1.5275 = 1.3093; Welch-Satterthwaite
    # df = (7/3)^2 / ((4/3)^2 / 2 + 1 / 8) = 5.4444 / 1.0139 = 5.3699.
    n = vd.mean("k", "a mean", 10.0, 3.0, 9, "Table 1")
    v = vd.judge(n, vd.Evidence.of([10, 12, 14]))
    assert v.ours == 12 and v.n == 3 and v.diff == 2
    assert v.test == "Welch t = +1.31, df = 5.4"
    assert v.p == pytest.approx(2 * stats.t.sf(1.3093, 5.3699), abs=1e-4)
    assert v.verdict == "agrees"
    # The difference's interval: 2 ± t(0.975, 5.37) x 1.5275.
    h = stats.t.ppf(0.975, 5.3699) * 1.5275
    assert (v.diff_lo, v.diff_hi) == pytest.approx((2 - h, 2 + h), abs=1e-3)
    # Far off: 30, 31, 32 against 10 (σ 3, n 9).
    assert vd.judge(n, vd.Evidence.of([30, 31, 32])).verdict == "differs"


def test_a_mean_with_a_zero_sigma_counts_only_vhos_spread() -> None:
    # Naoe et al. Table III: MBB's out-of-order deliveries, 0 (σ 0.0) over 30 trials.
    n = vd.mean("k", "out of order", 0.0, 0.0, 30, "Table III")
    assert vd.judge(n, vd.Evidence.of([0, 0, 0])).verdict == "agrees"
    assert vd.judge(n, vd.Evidence.of([1, 1, 1])).verdict == "differs"


def test_a_sigma_is_judged_by_the_f_test_of_the_ratio() -> None:
    # s 2 (n 3) against σ 4 (n 11): F = 0.25 with (2, 10) degrees of freedom; for 2 numerator
    # degrees of freedom the CDF is 1 - (1 + 2x/d2)^(-d2/2) = 1 - 1.05^-5 = 0.21647, so the
    # two-sided p is 0.43295.
    n = vd.sd("k", "a sigma", 4.0, 11, "Table 1")
    v = vd.judge(n, vd.Evidence.of([10, 12, 14]))
    assert v.ours == 2 and v.diff == 0.5
    assert v.p == pytest.approx(0.43295, abs=1e-4)
    assert v.verdict == "agrees"
    # One replication has no sigma.
    assert vd.judge(n, vd.Evidence.of([3.0])).verdict == "not measured"


def test_a_minimum_is_judged_among_minima_of_the_papers_count() -> None:
    # vho's runs 1, 2, 3, 4; the paper's minimum of 2 runs is 1.5: F(1.5) = 1/4, so
    # P(min of 2 <= 1.5) = 1 - (3/4)^2 = 0.4375 and P(min of 2 >= 1.5) = 0.5625: p = 0.875.
    n = vd.extreme("k", "min", "a minimum", 1.5, 2, "Table 1")
    v = vd.judge(n, vd.Evidence.of([1, 2, 3, 4]))
    assert v.p == pytest.approx(0.875)
    assert v.verdict == "agrees"
    # Below every run of vho's: no minimum of vho's can be that low.
    assert vd.judge(vd.extreme("k", "min", "m", 0.5, 2, "T"), vd.Evidence.of([1, 2, 3, 4])).p == 0
    # The maximum the same way: P(max of 2 <= 3.5) = (3/4)^2 = 0.5625, P(max >= 3.5) = 0.4375.
    v = vd.judge(vd.extreme("k", "max", "m", 3.5, 2, "T"), vd.Evidence.of([1, 2, 3, 4]))
    assert v.p == pytest.approx(0.875)


def test_a_correlation_is_judged_by_fishers_z() -> None:
    # x 1..5, y 2 1 4 3 5: r = 0.8. Against ρ = -0.63 over 20: z = (atanh 0.8 - atanh -0.63) /
    # sqrt(1/2 + 1/17) = (1.0986 + 0.7414) / 0.7475 = 2.4615; p = 2 (1 - Φ(2.4615)) = 0.0138.
    n = vd.corr("k", "T_n against t_a", -0.63, 20, "implied by Table 1's σ's")
    v = vd.judge(n, vd.Evidence.of([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]))
    assert v.ours == pytest.approx(0.8)
    assert v.p == pytest.approx(0.0138, abs=2e-4)
    assert v.verdict == "differs"


def test_a_number_without_spread_is_judged_by_its_stated_precision() -> None:
    # "about 26": [23.4, 28.6]. vho 21, 22, 23 (mean 22, se 1/sqrt 3): t = -1.4 / 0.57735 =
    # -2.4249 against the interval's end; with 2 degrees of freedom the tail is 1/2 - t / (2
    # sqrt(t^2 + 2)) = 0.06809: p = 0.1362, agrees. 19, 20, 21: t = -5.889, p = 0.0276.
    about = vd.value("k", "stall", 26, "l.1659", "about")
    assert about.interval() == pytest.approx((23.4, 28.6))
    v = vd.judge(about, vd.Evidence.of([21, 22, 23]))
    assert v.p == pytest.approx(0.1362, abs=1e-4) and v.verdict == "agrees"
    v = vd.judge(about, vd.Evidence.of([19, 20, 21]))
    assert v.p == pytest.approx(0.0276, abs=1e-4) and v.verdict == "differs"
    # A mean inside is p = 1; without spread (every run alike) outside is p = 0.
    assert vd.judge(about, vd.Evidence.of([25, 25])).p == 1.0
    assert vd.judge(about, vd.Evidence.of([20, 20])).verdict == "differs"
    # The precisions: none stated is ±10 %; "almost X" [0.9 X, X]; "more than X" above X;
    # "exactly" a point; a range.
    assert vd.value("k", "x", 650, "l.189").interval() == pytest.approx((585, 715))
    assert vd.value("k", "x", 11, "l", "almost").interval() == pytest.approx((9.9, 11))
    assert vd.value("k", "x", 30, "l", "more").interval() == (30, math.inf)
    assert vd.judge(vd.value("k", "x", 30, "l", "more"), vd.Evidence.of([30, 30])).p == 0
    assert vd.judge(vd.value("k", "x", 3, "l", "exact"), vd.Evidence.of([3, 3, 3])).p == 1
    assert vd.value("k", "x", 2, "l", "range", hi=5).interval() == (2, 5)


def test_a_claim_holds_is_reversed_or_is_not_significant() -> None:
    # Paired over common random numbers: A 5 6 7 against B 4 4 4, d = 1 2 3 (mean 2, s 1):
    # t = 3.464 with 2 degrees of freedom, tail 1/2 - t / (2 sqrt(t^2 + 2)) = 0.0371, p 0.0742:
    # not significant. With a fourth pair (d = 2) t = 2 / (0.8165 / 2) = 4.899 (3 df): holds.
    above = vd.claim("k", "A above B", ">", "§VI")
    v = vd.judge(above, vd.Evidence.of([5, 6, 7], [4, 4, 4], paired=True))
    assert v.p == pytest.approx(0.0742, abs=1e-4) and v.verdict == "not significant"
    v = vd.judge(above, vd.Evidence.of([5, 6, 7, 6], [4, 4, 4, 4], paired=True))
    assert v.verdict == "holds" and (v.a, v.b) == (6, 4)
    below = vd.claim("k", "A below B", "<", "§VI")
    assert vd.judge(below, vd.Evidence.of([5, 6, 7, 6], [4, 4, 4, 4], paired=True)).verdict == (
        "reversed"
    )
    # Every pair the same difference: a sure sign, no test needed.
    v = vd.judge(above, vd.Evidence.of([5, 5], [4, 4], paired=True))
    assert v.verdict == "holds" and v.p == 0
    # About equal: the difference's interval within ±10 % of B.
    same = vd.claim("k", "A about B", "~", "§5.2")
    assert vd.judge(same, vd.Evidence.of([100, 101, 99, 100], [100] * 4, paired=True)).verdict == (
        "holds"
    )
    assert vd.judge(same, vd.Evidence.of([150] * 4, [100] * 4, paired=True)).verdict == "differs"


def test_a_number_vho_cannot_measure_has_a_row_and_is_not_counted() -> None:
    n = vd.unmeasured(vd.value("k", "x", 1.1, "§VII"), "no such capture point")
    v = vd.judge(n, vd.Evidence.of([1.0]))
    assert v.verdict == "not measured" and v.agrees is None
    ok = vd.judge(vd.value("j", "y", 1.0, "l", "exact"), vd.Evidence.of([1.0]))
    assert vd.tally([v, ok]) == (1, 1, 1)
    assert vd.headline([v, ok]) == (
        "**1 of 1 paper numbers agree by the rule**; 1 more cannot be measured, each row says why."
    )
    assert v.row()["note"] == "no such capture point"


def test_numbers_print_with_the_digits_their_size_needs() -> None:
    assert [vd.num(x) for x in (2848.4, 25.55, 1.234, 0.2, 3.0, math.nan)] == [
        "2,848",
        "25.6",
        "1.23",
        "0.200",
        "3",
        "-",
    ]
    assert np.isnan(vd.judge(vd.claim("k", "x", ">", "s"), vd.Evidence.of([])).ours)
