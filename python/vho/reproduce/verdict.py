"""The verdict rule: one way to judge every number a paper gives against vho's runs.

A number of a paper (:class:`PaperNumber`) is one of five kinds, and each kind has one test;
vho's side (:class:`Evidence`) is the per-replication values the runs give for it:

- a **mean** given with its sigma and count (Cottingham & Vidales' Table 1, Naoe et al.'s
  Tables II and III): vho's mean with its 95 % confidence interval (Student's t), the
  difference with its 95 % interval from both standard errors (Welch-Satterthwaite degrees of
  freedom), and Welch's two-sided p-value;
- a **sigma** given with its count: the ratio of vho's sample standard deviation to it, with
  its 95 % interval, and the two-sided F-test of the ratio of the variances;
- a **minimum or maximum** of the paper's n runs: where it falls in the distribution of the
  minimum (maximum) of n of vho's runs, from vho's empirical distribution:
  P(min of n <= x) = 1 - (1 - F(x))^n, two-sided;
- a **correlation** given (or implied) with its count: Fisher's z of the two, two-sided;
- a **number without spread**: judged by the precision the paper states ("about", "almost",
  "more than", "less than", "several", a range "2-5 %"), or ±10 % when it states none. The
  number stands for an interval; vho's mean agrees unless its 95 % interval misses that
  interval (the t-test of vho's mean against the interval's nearest end, two-sided);
- a **claim** (one variant above another, about equal, a sign): tested as such, paired over
  common random numbers where the design has them (replication r of both sides drew the same
  numbers), Welch otherwise: "holds" when the difference is significant in the claimed
  direction, "reversed" when significant the other way, "not significant" otherwise; "about
  equal" holds when the difference's 95 % interval lies within ±10 % of the second side's
  mean, and "differs" when it lies wholly outside.

A number agrees (``agrees`` or ``holds``) when its p-value is at least :data:`ALPHA` (a claim:
below it, in the claimed direction). A number vho cannot measure has a row that says why, and
is not counted. :data:`RULE` is this rule in the words every report states.

Distributions are scipy's (``scipy.stats``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

#: The significance level of every test.
ALPHA = 0.05
#: A number given without spread, and without a word for its precision, stands for ±10 %
#: (and so does "about"/"approximately"); "almost X" for [0.9 X, X].
TOLERANCE = 0.10

KINDS = ("mean", "sd", "min", "max", "corr", "value", "claim")
PRECISIONS = ("exact", "about", "stated", "almost", "more", "less", "at-least", "range")
RELATIONS = (">", "<", "~", ">=0")

AGREE = ("agrees", "holds")
VERDICTS = ("agrees", "differs", "holds", "reversed", "not significant", "not measured")

#: The rule as every report states it (one paragraph).
RULE = (
    "**The rule** (`vho/reproduce/verdict.py`, the same for every study): a paper's mean given "
    "with its σ and count is compared with vho's mean by Welch's t-test (the difference's 95 % "
    "interval from both standard errors); a σ by the F-test of the ratio of the variances; a "
    "minimum or maximum of the paper's n runs by where it falls among minima (maxima) of n of "
    "vho's runs; a correlation by Fisher's z; a number without spread by the precision the "
    'paper states ("about" and none stated: ±10 %; "almost X": [0.9 X, X]; "more than X": '
    "above X; a range: within it), vho's mean agreeing unless its 95 % interval misses that "
    "interval (t-test against the nearest end). A number agrees when p ≥ 0.05. A claim is "
    "tested as such, paired over common random numbers where the design has them: it *holds* "
    "when the difference is significant (p < 0.05) in the claimed direction, is *reversed* "
    'when significant the other way, and *not significant* otherwise (an "about equal" '
    "claim holds when the difference's 95 % interval lies within ±10 %). A number vho cannot "
    "measure says why and is not counted."
)


@dataclass(frozen=True)
class PaperNumber:
    """One number a paper gives (or a claim it makes), as data: which statistic it is
    (``kind``, see the module doc), its value and how it is given, where it is and its words.

    Build one with :func:`mean`, :func:`sd`, :func:`extreme`, :func:`corr`, :func:`value` or
    :func:`claim`."""

    key: str
    kind: str
    what: str
    source: str
    value: float = math.nan
    unit: str = ""
    words: str = ""
    sd: float = math.nan
    n: int = 0
    precision: str = "stated"
    hi: float = math.nan
    relation: str = ""
    #: Why vho cannot measure it ("" when it can).
    unmeasurable: str = ""
    #: How a number the paper does not print follows from those it does.
    derived: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind: expected one of {KINDS}, got {self.kind!r}")
        if self.kind == "value" and self.precision not in PRECISIONS:
            raise ValueError(f"{self.key}: precision: expected one of {PRECISIONS}")
        if self.kind == "claim" and self.relation not in RELATIONS:
            raise ValueError(f"{self.key}: relation: expected one of {RELATIONS}")

    def interval(self) -> tuple[float, float]:
        """A number without spread as the interval it stands for (see the module doc)."""
        v = self.value
        p = self.precision
        if p == "exact":
            return v, v
        if p in ("about", "stated"):
            d = abs(v) * TOLERANCE
            return v - d, v + d
        if p == "almost":
            return min(v, (1 - TOLERANCE) * v), max(v, (1 - TOLERANCE) * v)
        if p in ("more", "at-least"):
            return v, math.inf
        if p == "less":
            return -math.inf, v
        if p == "range":
            return v, self.hi
        raise ValueError(p)

    def shown(self) -> str:
        """The number as the paper gives it ("2848 (σ 1127, n 20)", "≈ 26", "> 30",
        "6-22", "holds: A > B")."""
        u = f" {self.unit}" if self.unit and self.unit not in ("%",) else self.unit
        if self.kind == "mean":
            return f"{num(self.value)}{u} (σ {num(self.sd)}, n {self.n})"
        if self.kind == "sd":
            return f"σ {num(self.value)}{u} (n {self.n})"
        if self.kind in ("min", "max"):
            return f"{self.kind} {num(self.value)}{u} (n {self.n})"
        if self.kind == "corr":
            return f"ρ {self.value:+.2f} (n {self.n})"
        if self.kind == "claim":
            return {">": "A > B", "<": "A < B", "~": "A ≈ B", ">=0": "A > 0"}[self.relation]
        v = num(self.value)
        return {
            "exact": f"{v}{u}",
            "about": f"≈ {v}{u}",
            "stated": f"{v}{u}",
            "almost": f"almost {v}{u}",
            "more": f"> {v}{u}",
            "at-least": f"≥ {v}{u}",
            "less": f"< {v}{u}",
            "range": f"{v}-{num(self.hi)}{u}",
        }[self.precision]


def mean(
    key: str, what: str, value: float, sd: float, n: int, source: str, **kw: Any
) -> PaperNumber:
    """A mean the paper gives with its sigma and count."""
    return PaperNumber(key, "mean", what, source, value=value, sd=sd, n=n, **kw)


def sd(key: str, what: str, value: float, n: int, source: str, **kw: Any) -> PaperNumber:
    """A sigma the paper gives with its count."""
    return PaperNumber(key, "sd", what, source, value=value, n=n, **kw)


def extreme(
    key: str, which: str, what: str, value: float, n: int, source: str, **kw: Any
) -> PaperNumber:
    """The minimum or maximum (``which``) of the paper's ``n`` runs."""
    return PaperNumber(key, which, what, source, value=value, n=n, **kw)


def corr(key: str, what: str, value: float, n: int, source: str, **kw: Any) -> PaperNumber:
    """A correlation the paper gives or implies, over ``n`` runs."""
    return PaperNumber(key, "corr", what, source, value=value, n=n, **kw)


def value(
    key: str,
    what: str,
    v: float,
    source: str,
    precision: str = "stated",
    hi: float = math.nan,
    **kw: Any,
) -> PaperNumber:
    """A number the paper gives without spread, with the precision its words state
    (``exact``, ``about``, ``almost``, ``more``, ``at-least``, ``less``, ``range`` to ``hi``;
    ``stated``: no word, ±10 %)."""
    return PaperNumber(key, "value", what, source, value=v, precision=precision, hi=hi, **kw)


def claim(key: str, what: str, relation: str, source: str, **kw: Any) -> PaperNumber:
    """A claim: side A ``>``, ``<`` or ``~`` (about equal) side B; ``>=0``: A above zero."""
    return PaperNumber(key, "claim", what, source, relation=relation, **kw)


def unmeasured(n: PaperNumber, why: str) -> PaperNumber:
    """The same number, marked as one vho cannot measure, and why."""
    return replace(n, unmeasurable=why)


@dataclass(frozen=True)
class Evidence:
    """vho's side of a number: one value per replication (``x``); a claim's second side or a
    correlation's second variable (``y``); whether ``x[i]`` and ``y[i]`` share replication i's
    random numbers (``paired``); how they were measured (``note``)."""

    x: np.ndarray
    y: np.ndarray | None = None
    paired: bool = False
    note: str = ""

    @staticmethod
    def of(x: Any, y: Any = None, paired: bool = False, note: str = "") -> Evidence:
        xs = _clean(x)
        ys = None if y is None else _clean(y)
        if paired and ys is not None:
            a = np.asarray(x, dtype=float).ravel()
            b = np.asarray(y, dtype=float).ravel()
            if len(a) != len(b):
                raise ValueError("paired evidence: both sides need one value per replication")
            ok = np.isfinite(a) & np.isfinite(b)
            xs, ys = a[ok], b[ok]
        return Evidence(xs, ys, paired, note)


def _clean(x: Any) -> np.ndarray:
    """The values, NaN (no value) left out; an infinite value (a time that never came: a
    drop in a run without any) is kept."""
    a = np.asarray(x, dtype=float).ravel()
    return a[~np.isnan(a)]


@dataclass(frozen=True)
class Verdict:
    """One number judged: the paper's, vho's with its interval, the difference (or ratio)
    with its interval, the test and its p-value, and the verdict."""

    number: PaperNumber
    verdict: str
    n: int = 0
    ours: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    #: ours - paper (a sigma: ours / paper), and its 95 % interval.
    diff: float = math.nan
    diff_lo: float = math.nan
    diff_hi: float = math.nan
    test: str = ""
    p: float = math.nan
    note: str = ""
    #: A claim's sides' means.
    a: float = math.nan
    b: float = math.nan
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def agrees(self) -> bool | None:
        """True when it agrees (or holds), False when not, None when not measured."""
        if self.verdict == "not measured":
            return None
        return self.verdict in AGREE

    def row(self) -> dict[str, Any]:
        """The verdict as a row of ``table.csv``."""
        n = self.number
        return {
            "key": n.key,
            "kind": n.kind,
            "what": n.what,
            "source": n.source,
            "paper": n.value,
            "paper_sd": n.sd,
            "paper_n": n.n or math.nan,
            "precision": n.precision if n.kind == "value" else "",
            "paper_shown": n.shown(),
            "n": self.n,
            "ours": self.ours,
            "ours_lo": self.lo,
            "ours_hi": self.hi,
            "diff": self.diff,
            "diff_lo": self.diff_lo,
            "diff_hi": self.diff_hi,
            "a": self.a,
            "b": self.b,
            "test": self.test,
            "p": self.p,
            "verdict": self.verdict,
            "agrees": {True: "yes", False: "no", None: ""}[self.agrees],
            "note": self.note or n.unmeasurable,
        }


# --- the tests ----------------------------------------------------------------------------


def _t():
    from scipy import stats

    return stats


def _t_ppf(q: float, df: float) -> float:
    """``scipy.stats.t.ppf(q, df)`` for 0 < q < 1 and df > 0, as it computes it (its
    ``_ppf``: ``scipy.special.stdtrit``) without importing ``scipy.stats`` (a second of a
    study's serial time, issue 38); anything else goes to scipy.stats."""
    if 0 < q < 1 and df > 0:
        from scipy import special

        return float(special.stdtrit(df, q))
    return float(_t().t.ppf(q, df))


def _t_sf(x: float, df: float) -> float:
    """``scipy.stats.t.sf(x, df)`` for finite x and df > 0, as it computes it (``_sf``:
    ``scipy.special.stdtr(df, -x)``) without importing ``scipy.stats``."""
    if math.isfinite(x) and df > 0:
        from scipy import special

        return float(special.stdtr(df, -x))
    return float(_t().t.sf(x, df))


def mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and its 95 % interval (Student's t, n - 1 degrees of freedom); NaN interval for
    fewer than two values, a point for values all equal."""
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(np.mean(x))
    if n < 2:
        return m, math.nan, math.nan
    se = float(np.std(x, ddof=1)) / math.sqrt(n)
    h = _t_ppf(0.975, n - 1) * se
    return m, m - h, m + h


def judge(number: PaperNumber, ev: Evidence | None) -> Verdict:
    """Judges one number of the paper on vho's evidence (see the module doc)."""
    if number.unmeasurable:
        return Verdict(number, "not measured", note=number.unmeasurable)
    if ev is None or len(ev.x) == 0:
        why = ev.note if ev is not None and ev.note else "no run gave a value"
        return Verdict(number, "not measured", note=why)
    k = number.kind
    if k == "mean":
        v = _mean(number, ev.x)
    elif k == "sd":
        v = _sd(number, ev.x)
    elif k in ("min", "max"):
        v = _extreme(number, ev.x)
    elif k == "corr":
        v = _corr(number, ev)
    elif k == "value":
        v = _value(number, ev.x)
    else:
        v = _claim(number, ev)
    return replace(v, note=ev.note) if ev.note and not v.note else v


def welch(
    m1: float, s1: float, n1: int, m2: float, s2: float, n2: int
) -> tuple[float, float, float, float]:
    """Welch's test of m1 - m2 from two samples' means, sample sigmas and counts: (t, degrees
    of freedom, two-sided p, half-width of the difference's 95 % interval). A sample of one
    contributes no variance (its sigma may be NaN)."""
    a = s1 * s1 / n1 if n1 > 1 and math.isfinite(s1) else 0.0
    b = s2 * s2 / n2 if n2 > 1 and math.isfinite(s2) else 0.0
    d = m1 - m2
    se = math.sqrt(a + b)
    if se == 0:
        return (
            (0.0 if d == 0 else math.copysign(math.inf, d)),
            math.inf,
            (1.0 if d == 0 else 0.0),
            0.0,
        )
    num_ = (a + b) ** 2
    den = (a * a / (n1 - 1) if a else 0.0) + (b * b / (n2 - 1) if b else 0.0)
    df = num_ / den
    t = d / se
    return t, df, float(2 * _t_sf(abs(t), df)), _t_ppf(0.975, df) * se


def _mean(number: PaperNumber, x: np.ndarray) -> Verdict:
    m, lo, hi = mean_ci(x)
    s = float(np.std(x, ddof=1)) if len(x) > 1 else math.nan
    t, df, p, h = welch(m, s, len(x), number.value, number.sd, number.n)
    d = m - number.value
    test = f"Welch t = {_fmt_stat(t)}, df = {_fmt_df(df)}"
    return Verdict(number, "agrees" if p >= ALPHA else "differs", len(x), m, lo, hi, d,
                   d - h, d + h, test, p)  # fmt: skip


def _sd(number: PaperNumber, x: np.ndarray) -> Verdict:
    n = len(x)
    if n < 2:
        return Verdict(number, "not measured", n, note="one replication has no σ")
    s = float(np.std(x, ddof=1))
    if number.value == 0 or number.n < 2:
        same = s == 0
        return Verdict(number, "agrees" if same else "differs", n, s, test="paper σ is 0",
                       p=1.0 if same else 0.0)  # fmt: skip
    st = _t()
    f = (s / number.value) ** 2
    d1, d2 = n - 1, number.n - 1
    p = float(min(1.0, 2 * min(st.f.cdf(f, d1, d2), st.f.sf(f, d1, d2))))
    ratio = s / number.value
    lo = math.sqrt(f / st.f.ppf(0.975, d1, d2))
    hi = math.sqrt(f / st.f.ppf(0.025, d1, d2))
    return Verdict(number, "agrees" if p >= ALPHA else "differs", n, s, diff=ratio, diff_lo=lo,
                   diff_hi=hi, test=f"F = {f:.3g}, df = ({d1}, {d2})", p=p)  # fmt: skip


def _extreme(number: PaperNumber, x: np.ndarray) -> Verdict:
    """Where the paper's minimum (maximum) of its n runs falls among the minima (maxima) of n
    draws from vho's runs (their empirical distribution)."""
    n, k = number.n, len(x)
    xs = np.sort(x)
    v = number.value
    below = float(np.searchsorted(xs, v, side="right")) / k  # F(v) = P(X <= v)
    strictly = float(np.searchsorted(xs, v, side="left")) / k  # P(X < v)
    if number.kind == "min":
        p_le = 1 - (1 - below) ** n  # P(min of n <= v)
        p_ge = (1 - strictly) ** n  # P(min of n >= v)
        q = lambda a: float(np.quantile(xs, 1 - (1 - a) ** (1 / n)))  # noqa: E731
        ours = float(np.min(x[: min(n, k)]))
    else:
        p_le = below**n  # P(max of n <= v)
        p_ge = 1 - strictly**n  # P(max of n >= v)
        q = lambda a: float(np.quantile(xs, a ** (1 / n)))  # noqa: E731
        ours = float(np.max(x[: min(n, k)]))
    p = float(min(1.0, 2 * min(p_le, p_ge)))
    return Verdict(number, "agrees" if p >= ALPHA else "differs", k, ours, q(0.025), q(0.975),
                   test=f"{number.kind} of {n} from vho's {k} runs", p=p)  # fmt: skip


def _corr(number: PaperNumber, ev: Evidence) -> Verdict:
    if ev.y is None:
        raise ValueError(f"{number.key}: a correlation needs two variables")
    n = len(ev.x)
    if n < 4 or np.std(ev.x) == 0 or np.std(ev.y) == 0:
        return Verdict(number, "not measured", n, note="too few runs, or a constant variable")
    r = float(np.corrcoef(ev.x, ev.y)[0, 1])
    r = max(min(r, 1 - 1e-12), -1 + 1e-12)
    z1, z2 = math.atanh(r), math.atanh(number.value)
    se = math.sqrt(1 / (n - 3) + 1 / (number.n - 3))
    z = (z1 - z2) / se
    p = float(2 * _t().norm.sf(abs(z)))
    h = 1.959964 / math.sqrt(n - 3)
    lo, hi = math.tanh(z1 - h), math.tanh(z1 + h)
    return Verdict(number, "agrees" if p >= ALPHA else "differs", n, r, lo, hi,
                   r - number.value, test=f"Fisher z = {z:+.2f}", p=p)  # fmt: skip


def _value(number: PaperNumber, x: np.ndarray) -> Verdict:
    lo_p, hi_p = number.interval()
    m, lo, hi = mean_ci(x)
    n = len(x)
    strict = number.precision in ("more", "less")
    inside = (lo_p < m < hi_p) if strict else (lo_p <= m <= hi_p)
    nearest = min(max(m, lo_p), hi_p)
    d = m - number.value
    s = float(np.std(x, ddof=1)) if n > 1 else 0.0
    if inside:
        p, t = 1.0, 0.0
    elif s == 0:
        p, t = 0.0, math.copysign(math.inf, m - nearest)
    else:
        se = s / math.sqrt(n)
        t = (m - nearest) / se
        p = float(2 * _t_sf(abs(t), n - 1))
    dl, dh = (lo - number.value, hi - number.value) if n > 1 else (math.nan, math.nan)
    test = "mean inside" if inside else f"t = {_fmt_stat(t)} against {num(nearest)}"
    return Verdict(number, "agrees" if p >= ALPHA else "differs", n, m, lo, hi, d, dl, dh,
                   test, p)  # fmt: skip


def _claim(number: PaperNumber, ev: Evidence) -> Verdict:
    """A claim: A (``x``) against B (``y``), or A against the claim's ``value`` (a
    constant, 0 unless given) when there is no ``y``."""
    x = ev.x
    rel = number.relation
    if ev.y is None:
        c = 0.0 if math.isnan(number.value) else number.value
        m, s, n = float(np.mean(x)), (float(np.std(x, ddof=1)) if len(x) > 1 else math.nan), len(x)
        t, df, p, h = welch(m, s, n, c, math.nan, 1)
        d, a, b = m - c, m, c
        test = f"t = {_fmt_stat(t)}, df = {_fmt_df(df)}"
        scale = abs(c)
    elif ev.paired:
        dd = x - ev.y
        n = len(dd)
        m = float(np.mean(dd))
        s = float(np.std(dd, ddof=1)) if n > 1 else math.nan
        t, df, p, h = welch(m, s, n, 0.0, math.nan, 1)
        d, a, b = m, float(np.mean(x)), float(np.mean(ev.y))
        test = f"paired t = {_fmt_stat(t)}, df = {_fmt_df(df)}"
        scale = abs(b)
    else:
        n1, n2 = len(x), len(ev.y)
        a, b = float(np.mean(x)), float(np.mean(ev.y))
        s1 = float(np.std(x, ddof=1)) if n1 > 1 else math.nan
        s2 = float(np.std(ev.y, ddof=1)) if n2 > 1 else math.nan
        t, df, p, h = welch(a, s1, n1, b, s2, n2)
        d, n = a - b, min(n1, n2)
        test = f"Welch t = {_fmt_stat(t)}, df = {_fmt_df(df)}"
        scale = abs(b)
    lo, hi = d - h, d + h
    if rel == "~":
        margin = TOLERANCE * scale
        if -margin <= lo and hi <= margin:
            v = "holds"
        elif hi < -margin or lo > margin:
            v = "differs"
        else:
            v = "not significant"
    else:
        want = -1 if rel == "<" else 1
        if p >= ALPHA or d == 0:
            v = "not significant"
        else:
            v = "holds" if math.copysign(1, d) == want else "reversed"
    return Verdict(number, v, n, d, lo, hi, d, lo, hi, test, p, a=a, b=b)


# --- counting and showing -----------------------------------------------------------------


def tally(verdicts: list[Verdict]) -> tuple[int, int, int]:
    """(agreeing, judged, not measured)."""
    judged = [v for v in verdicts if v.agrees is not None]
    return sum(1 for v in judged if v.agrees), len(judged), len(verdicts) - len(judged)


def headline(verdicts: list[Verdict]) -> str:
    """ "N of M paper numbers agree by the rule" (and how many vho cannot measure)."""
    ok, m, k = tally(verdicts)
    tail = f"; {k} more cannot be measured, each row says why" if k else ""
    return f"**{ok} of {m} paper numbers agree by the rule**{tail}."


def summary_paragraph(verdicts: list[Verdict], what: str = "") -> str:
    """The one-paragraph verdict, from the verdicts alone: per kind of number how many agree,
    the claims' outcomes, and the numbers furthest off (smallest p)."""
    parts = []
    names = {
        "mean": "means",
        "sd": "σ's",
        "min": "minima",
        "max": "maxima",
        "corr": "correlations",
        "value": "numbers without spread",
    }
    for k, name in names.items():
        vs = [v for v in verdicts if v.number.kind == k and v.agrees is not None]
        if vs:
            parts.append(f"{sum(v.agrees for v in vs)} of {len(vs)} {name}")
    claims = [v for v in verdicts if v.number.kind == "claim" and v.agrees is not None]
    text = ""
    if parts:
        text = "Agreeing: " + ", ".join(parts) + "."
    if claims:
        counts = {
            c: sum(v.verdict == c for v in claims)
            for c in ("holds", "reversed", "not significant", "differs")
        }
        shown = ", ".join(f"{n} {c}" for c, n in counts.items() if n)
        text += f" Of {len(claims)} claims: {shown}."
    off = sorted(
        (v for v in verdicts if v.agrees is False),
        key=lambda v: v.p if math.isfinite(v.p) else 0.0,
    )
    if off:
        worst = "; ".join(
            f"{v.number.what} ({v.number.shown()} against {ours_shown(v)})" for v in off[:3]
        )
        text += f" Furthest off: {worst}."
    k = sum(1 for v in verdicts if v.agrees is None)
    if k:
        text += f" {k} not measured."
    return (what + " " + text).strip()


def num(v: float, digits: int | None = None) -> str:
    """A number as the reports print it: 4 significant digits at most, thousands separated,
    no trailing zeros beyond the digits the size needs; "-" for NaN."""
    if v is None or not isinstance(v, int | float | np.floating | np.integer):
        return str(v)
    v = float(v)
    if math.isnan(v):
        return "-"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if digits is None:
        a = abs(v)
        digits = 0 if a >= 100 or a == int(a) else 1 if a >= 10 else 2 if a >= 1 else 3
    s = f"{v:,.{digits}f}"
    return "0" if s in ("-0", "-0.0", "-0.00", "-0.000") else s


def ours_shown(v: Verdict) -> str:
    """vho's side of a verdict, as the tables print it."""
    k = v.number.kind
    u = v.number.unit
    us = f" {u}" if u and u != "%" else u
    if v.verdict == "not measured":
        return "-"
    if k == "claim":
        rel = {">": ">", "<": "<", "~": "≈", ">=0": ">"}[v.number.relation]
        if v.number.relation == ">=0" and math.isnan(v.number.value):
            return f"{num(v.a)}{us}"
        return f"{num(v.a)} vs {num(v.b)}{us} (A {rel} B?)"
    if k == "corr":
        return f"r {v.ours:+.2f} [{v.lo:+.2f}, {v.hi:+.2f}] (n {v.n})"
    if k == "sd":
        return f"σ {num(v.ours)}{us} (n {v.n}; ratio {num(v.diff, 2)})"
    ci = f" [{num(v.lo)}, {num(v.hi)}]" if math.isfinite(v.lo) else ""
    return f"{num(v.ours)}{us}{ci} (n {v.n})"


def p_shown(p: float) -> str:
    if not math.isfinite(p):
        return "-"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def table_md(verdicts: list[Verdict], *, why: dict[str, str] | None = None) -> list[str]:
    """The verdicts as one Markdown table: what, source, paper, vho, difference, test, p,
    verdict, and (``why``) the cause the study measured for a row, or the reason it is not
    measured."""
    why = why or {}
    out = [
        "| number | source | paper | vho (95 % CI) | difference (95 % CI) | test | p | verdict "
        "| cause / note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        n = v.number
        if v.verdict == "not measured":
            diff = "-"
        elif n.kind == "sd":
            diff = f"ratio {num(v.diff, 2)} [{num(v.diff_lo, 2)}, {num(v.diff_hi, 2)}]"
        elif math.isfinite(v.diff):
            ci = f" [{num(v.diff_lo)}, {num(v.diff_hi)}]" if math.isfinite(v.diff_lo) else ""
            diff = f"{num(v.diff)}{ci}"
        else:
            diff = "-"
        verdict = v.verdict if v.agrees in (True, None) else f"**{v.verdict}**"
        note = why.get(n.key) or v.note or n.unmeasurable or n.derived
        cells = [
            _cell(n.what),
            _cell(n.source),
            _cell(n.shown()),
            _cell(ours_shown(v)),
            diff,
            _cell(v.test),
            p_shown(v.p),
            verdict,
            _cell(note),
        ]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _fmt_stat(t: float) -> str:
    if math.isinf(t):
        return "∞" if t > 0 else "-∞"
    return f"{t:+.2f}" if abs(t) < 1000 else f"{t:+.2e}"


def _fmt_df(df: float) -> str:
    return "∞" if math.isinf(df) else f"{df:.1f}"
