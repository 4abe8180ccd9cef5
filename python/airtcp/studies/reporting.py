"""What every study's report needs: summary statistics over seeds (mean,
standard deviation, a 95 % confidence interval from Student's t), number
formatting, markdown tables, and the table that puts a seed's claim beside
the value we measured.

Pure Python (``math`` only), so a study can build its report without numpy or
scipy; the t quantile is computed from the regularised incomplete beta
function (Numerical Recipes, 3rd ed., §6.4) rather than read from a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

NAN = float("nan")


def is_missing(x) -> bool:
    """None, "" or NaN: a value that was not measured."""
    return x is None or x == "" or (isinstance(x, float) and math.isnan(x))


def present(xs) -> list[float]:
    """The measured values of `xs` (None, "" and NaN left out)."""
    return [x for x in xs if not is_missing(x)]


def mean_sd(xs) -> tuple[float, float]:
    """Mean and sample standard deviation of the measured values (sd 0 for
    one value, NaN for none)."""
    import statistics

    xs = present(xs)
    if not xs:
        return NAN, NAN
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


# --- Student's t ---------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betai(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=256)
def t_quantile(q: float, df: float) -> float:
    """The `q` quantile of Student's t (e.g. q = 0.975, df = 19 -> 2.093),
    by bisection on :func:`t_cdf` (to 1e-12 relative)."""
    if not 0.0 < q < 1.0 or not df > 0:
        raise ValueError(f"t_quantile needs 0 < q < 1 and df > 0, got q={q}, df={df}")
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    if q == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < q:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Stats:
    """Summary of one quantity over seeds: `n` measured values, their mean,
    sample sd and the two-sided 95 % confidence interval of the mean
    (Student's t, n - 1 degrees of freedom; NaN for fewer than 2 values)."""

    n: int
    mean: float
    sd: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


def summarize(xs, level: float = 0.95) -> Stats:
    """:class:`Stats` of the measured values of `xs`."""
    vals = present(xs)
    n = len(vals)
    m, s = mean_sd(vals)
    if n < 2:
        return Stats(n, m, s, NAN, NAN)
    h = t_quantile(0.5 + level / 2, n - 1) * s / math.sqrt(n)
    return Stats(n, m, s, m - h, m + h)


def summarize_counts(xs, level: float = 0.95, resamples: int = 2000) -> Stats:
    """:class:`Stats` of counts (retransmissions, timeouts per run): the mean
    with a percentile bootstrap interval of the mean
    (``scipy.stats.bootstrap``, fixed seed: reports are reproducible), which
    stays within the data's range, never below 0 as a t interval on a few
    skewed counts does. With every count equal the interval is that value."""
    vals = present(xs)
    n = len(vals)
    m, s = mean_sd(vals)
    if n < 2:
        return Stats(n, m, s, NAN, NAN)
    if s == 0:
        return Stats(n, m, s, m, m)
    from scipy.stats import bootstrap

    r = bootstrap((vals,), _mean_of, confidence_level=level, n_resamples=resamples, method="percentile", rng=1)
    return Stats(n, m, s, float(r.confidence_interval.low), float(r.confidence_interval.high))


def _mean_of(x, axis=-1):
    import numpy as np

    return np.mean(x, axis=axis)


def ratio_stats(a: Stats, b: Stats, level: float = 0.95) -> Stats:
    """The ratio of two means, a.mean / b.mean, with an approximate interval
    from the delta method on the log scale: se(log r)² = sd_a²/(n_a·mean_a²)
    + sd_b²/(n_b·mean_b²), t quantile with min(n_a, n_b) - 1 degrees of
    freedom (conservative against Welch's). `n` is min(n_a, n_b); `sd` is
    se(log r)."""
    n = min(a.n, b.n)
    if n < 1 or is_missing(a.mean) or is_missing(b.mean) or a.mean <= 0 or b.mean <= 0:
        return Stats(n, NAN, NAN, NAN, NAN)
    r = a.mean / b.mean
    if n < 2:
        return Stats(n, r, NAN, NAN, NAN)
    se = math.sqrt(a.sd**2 / (a.n * a.mean**2) + b.sd**2 / (b.n * b.mean**2))
    k = t_quantile(0.5 + level / 2, n - 1) * se
    return Stats(n, r, se, r * math.exp(-k), r * math.exp(k))


# --- formatting -----------------------------------------------------------


def fmt(x, spec: str = "{:.2f}") -> str:
    """`x` formatted, or "-" when it was not measured."""
    if is_missing(x):
        return "-"
    return spec.format(x)


def fmt_ci(st: Stats, spec: str = "{:.2f}") -> str:
    """ "mean [lo, hi]" (just the mean when there is no interval)."""
    if is_missing(st.mean):
        return "-"
    if is_missing(st.lo):
        return spec.format(st.mean)
    return f"{spec.format(st.mean)} [{spec.format(st.lo)}, {spec.format(st.hi)}]"


def pct(part: float, whole: float) -> float:
    """100 · part / whole, 0 when `whole` is not positive."""
    return 100.0 * part / whole if whole > 0 else 0.0


def ratio(a: float, b: float) -> float:
    """a / b, NaN when either is missing or b is 0."""
    if is_missing(a) or is_missing(b) or b == 0:
        return NAN
    return a / b


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table as lines: header, ``|---|`` rule, one line per row."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out.extend("| " + " | ".join(str(c) for c in r) + " |" for r in rows)
    return out


@dataclass(frozen=True)
class Claim:
    """One number a seed reports, beside what the simulation measured.

    `seed` is the seed's value as a number (or None when it only gives
    text), `seed_text` how the seed states it; `measured` the simulation's
    value with its interval; `note` how it was computed."""

    what: str
    seed_text: str
    seed: float | None
    measured: Stats
    note: str = ""
    spec: str = "{:.2f}"

    @property
    def measured_over_seed(self) -> float:
        return ratio(self.measured.mean, self.seed) if self.seed is not None else NAN


def claims_table(claims: list[Claim]) -> list[str]:
    """The "seed claim beside measured value" table."""
    rows = [
        [
            c.what,
            c.seed_text,
            fmt_ci(c.measured, c.spec),
            fmt(c.measured_over_seed, "{:.3g}"),
            c.note or "-",
        ]
        for c in claims
    ]
    return md_table(["claim", "seed", "measured (mean [95 % CI])", "measured / seed", "how measured"], rows)
