"""The statistics of a paired comparison: tests, bootstrap interval, effect size, corrections.

The conventions are stated in :mod:`metrics.compare`; these functions work on one array of paired
differences (or one family of p-values) at a time.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from metrics.stat_methods import canonical_correction

TIE_TOLERANCE = 1e-12
_CHUNK = 1 << 20  # elements of one block of random draws (8 MiB as float64)


def _clean(d: np.ndarray) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64).copy()
    d[np.abs(d) <= TIE_TOLERANCE] = 0.0
    return d


def permutation_test(differences, permutations: int = 10000, rng: np.random.Generator | int | None = 0) -> float:
    """Two-sided paired randomization test of ``mean(differences) == 0``.

    Draws a ``permutations x n`` matrix of independent fair random signs (in
    blocks of about a million entries to bound memory), and returns ``(k + 1) / (permutations + 1)`` where ``k`` is the
    number of sign vectors ``s`` with ``|s @ d| >= |sum(d)|`` (within a relative
    rounding allowance of 1e-9 of ``sum(|d|)``). NaN for fewer than 2
    differences, 1.0 when all differences are zero.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or np.isnan(d).any():
        raise ValueError("differences must be a 1-d array without NaN")
    if permutations < 1:
        raise ValueError("permutations must be at least 1")
    n = d.size
    if n < 2:
        return math.nan
    if not d.any():
        return 1.0
    rng = np.random.default_rng(rng)
    total = d.sum()
    observed = abs(total)
    allowance = 1e-9 * np.abs(d).sum()
    rows = max(1, _CHUNK // n)
    count = 0
    done = 0
    while done < permutations:
        m = min(rows, permutations - done)
        # a block of the sign matrix as random bits b (sign = 2b - 1), so that
        # the signed sums are 2 (b @ d) - sum(d)
        bits = (
            np.unpackbits(np.frombuffer(rng.bytes((m * n + 7) // 8), dtype=np.uint8), count=m * n)
            .reshape(m, n)
            .astype(np.float64)
        )
        sums = 2.0 * (bits @ d) - total
        count += int(np.count_nonzero(np.abs(sums) >= observed - allowance))
        done += m
    return (count + 1) / (permutations + 1)


def bootstrap_ci(
    differences, resamples: int = 10000, ci: float = 0.95, rng: np.random.Generator | int | None = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(differences)``.

    ``resamples`` samples of ``n`` differences drawn with replacement; returns
    the ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles of their means. (NaN,
    NaN) for fewer than 2 differences or ``resamples == 0``.
    """
    d = np.asarray(differences, dtype=np.float64)
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie strictly between 0 and 1; got {ci}")
    if resamples < 0:
        raise ValueError("resamples must not be negative")
    n = d.size
    if n < 2 or resamples == 0:
        return math.nan, math.nan
    if not d.any():
        return 0.0, 0.0
    rng = np.random.default_rng(rng)
    rows = max(1, _CHUNK // n)
    means = np.empty(resamples)
    done = 0
    while done < resamples:
        m = min(rows, resamples - done)
        idx = rng.integers(0, n, size=(m, n))
        means[done : done + m] = d[idx].mean(axis=1)
        done += m
    low, high = np.quantile(means, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0])
    return float(low), float(high)


def _t_pvalue(d: np.ndarray) -> float:
    if np.all(d == d[0]):  # zero spread, non-zero mean: |t| is infinite
        return 0.0
    return float(paired_t_pvalues(d[np.newaxis, :])[0])


def paired_t_pvalues(d: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p-values of the rows of ``d`` (pairs x queries of differences), as
    ``scipy.stats.ttest_rel(row, 0).pvalue`` gives them (equal to 1e-12, checked in the tests).

    Written out because importing scipy.stats takes a second or more; the formula is scipy's:
    ``t = mean / sqrt(var(ddof=1) / n)``, ``p = 2 * stdtr(n - 1, -|t|)`` (:func:`t_two_sided`)."""
    n = d.shape[1]
    mean = d.mean(axis=1)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # one query: no spread to speak of (NaN, as scipy)
        t = mean / np.sqrt(d.var(axis=1, ddof=1) / n)
    return t_two_sided(t, n - 1)


# ---------------------------------------------------------------- the t distribution
#
# Written out rather than taken from scipy.special.stdtr: importing scipy.special costs 0.1-0.2 s of CPU
# and about 150 modules (its array-API layer brings numpy.f2py, numpy.testing and unittest), paid by every
# window start, where the paired t-test marks the summary before its first paint, and by every comparison
# on the command line.  The method is the regularised incomplete beta function by its continued fraction
# (modified Lentz, as Numerical Recipes' betacf), on whichever side of (a + 1) / (a + b + 2) it converges
# fast.  Equal to scipy.special.stdtr within 1e-12 (relative) up to 10,000 degrees of freedom, and
# within 1e-11 up to 100,000 (the tests check both, and the closed forms for 1 and 2).

_CF_EPS = 2.3e-16  # a step of the fraction within about one unit in the last place of 1: converged
_CF_TINY = 1e-300
_CF_STEPS = 10_000  # bound; fewer than 60 steps were needed from 1 to 10^6 degrees of freedom


def t_two_sided(t, df: int) -> np.ndarray:
    """``2 P(T >= |t|)`` for Student's t with ``df`` degrees of freedom, a whole number (``2 * stdtr(df,
    -|t|)``), for each value of ``t``: 1 at 0, 0 at infinity, NaN for NaN (and for every ``t`` when
    ``df < 1``)."""
    if df != int(df):
        raise ValueError(f"df must be a whole number of degrees of freedom; got {df}")
    t = np.abs(np.asarray(t, dtype=np.float64))
    p = np.full(t.shape, np.nan)
    if df < 1:
        return p
    a, b = df / 2.0, 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t2 = t * t
        x = df / (df + t2)  # p = I_x(a, b)
        y = t2 / (df + t2)  # 1 - x, without its rounding
        # x^a y^b / B(a, b), in logarithms; 1 / B(a, 1/2) = Gamma(a + 1/2) / (Gamma(a) sqrt(pi))
        front = np.exp(a * -np.log1p(t2 / df) + b * (np.log(t2) - np.log(df + t2)) + _log_half_gamma_ratio(a))
        front /= math.sqrt(math.pi)
        finite = np.isfinite(t2)
        direct = finite & (x < (a + 1.0) / (a + b + 2.0))
        other = finite & ~direct
        # the fraction's first step, 1 - (a + b) x / (a + 1), written so that it does not cancel on that side
        p[direct] = front[direct] * _beta_fraction(a, b, x[direct], (1.0 - b + (a + b) * y[direct]) / (a + 1.0)) / a
        p[other] = 1.0 - front[other] * _beta_fraction(b, a, y[other], 1.0 - (a + b) * y[other] / (b + 1.0)) / b
    p[np.isposinf(t2)] = 0.0  # (and |t| beyond 1e154, where p is below 1e-300 for any df)
    return p


def _log_half_gamma_ratio(a: float) -> float:
    """``log(Gamma(a + 1/2) / Gamma(a))`` for ``a = df / 2``: its asymptotic series from a = 50 (error below
    1e-18 there), else the product of its recursion from ``Gamma(1) / Gamma(1/2)`` or ``Gamma(3/2) /
    Gamma(1)`` (the difference of two math.lgamma loses about a * 1e-16)."""
    if a >= 50.0:
        return 0.5 * math.log(a) - 1 / (8 * a) + 1 / (192 * a**3) - 1 / (640 * a**5) + 17 / (14336 * a**7)
    start = 0.5 if (2 * a) % 2 else 1.0
    k = np.arange(start, a)
    first = -0.5 * math.log(math.pi) if start == 0.5 else math.log(math.sqrt(math.pi) / 2)
    return first + float(np.sum(np.log1p(0.5 / k)))


def _beta_fraction(a: float, b: float, x: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The continued fraction of ``I_x(a, b) * a * B(a, b) / (x^a (1-x)^b)`` for each ``x``, ``first``
    being its first denominator ``1 - (a + b) x / (a + 1)``; each value stops when its step is 1 to
    within :data:`_CF_EPS`."""
    out = np.empty_like(x)
    left = np.arange(x.size)
    c = np.ones_like(x)
    d = 1.0 / _not_zero(first)
    h = d.copy()
    m = 1
    while left.size:
        m2 = 2 * m
        # the two steps of the fraction's m-th term (coefficients as scalars: one array operation each)
        for step in (m * (b - m) / ((a - 1.0 + m2) * (a + m2)), -(a + m) * (a + b + m) / ((a + m2) * (a + 1.0 + m2))):
            d = 1.0 / _not_zero(1.0 + (step * x) * d)
            c = _not_zero(1.0 + (step * x) / c)
            dc = d * c
            h *= dc
        done = ~(np.abs(dc - 1.0) > _CF_EPS)  # (NaN, from an overflow, stops too)
        if m >= _CF_STEPS:
            done[:] = True
        if done.any():
            out[left[done]] = h[done]
            keep = ~done
            left, x, c, d, h = left[keep], x[keep], c[keep], d[keep], h[keep]
        m += 1
    return out


def _not_zero(v: np.ndarray) -> np.ndarray:
    v[np.abs(v) < _CF_TINY] = _CF_TINY  # (the modified Lentz method's guard against a zero denominator)
    return v


def _wilcoxon_pvalue(d: np.ndarray) -> float:
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # normal approximation with ties
        return float(stats.wilcoxon(d).pvalue)


def _effect_size(d: np.ndarray) -> float:
    mean = d.mean()
    sd = d.std(ddof=1)
    if sd == 0.0:
        return 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    return float(mean / sd)


def _test_pair(d: np.ndarray, test: str, permutations: int, rng) -> float:
    """One pair's p-value by the conventions, from its own differences (the reference that
    :func:`metrics.compare.pairs.pair_statistics`, which tests many pairs at once, is checked against)."""
    if d.size < 2:
        return math.nan
    if not d.any():
        return 1.0
    if test == "t":
        return _t_pvalue(d)
    if test == "wilcoxon":
        return _wilcoxon_pvalue(d)
    return permutation_test(d, permutations, rng)


# ---------------------------------------------------------------- corrections


def adjust_pvalues(p_values, method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values for multiple testing.

    ``method``: ``"none"``, ``"bonferroni"`` (``min(1, m p)``), ``"holm"``
    (step-down: the i-th smallest becomes ``max_{j<=i} min(1, (m - j + 1) p_(j))``)
    or ``"bh"`` (Benjamini-Hochberg step-up: ``min_{j>=i} min(1, m p_(j) / j)``).
    NaN entries stay NaN and are not counted in the family size ``m``.
    """
    method = canonical_correction(method)
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p_values must be one-dimensional")
    valid = ~np.isnan(p)
    if ((p[valid] < 0) | (p[valid] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    out = p.copy()
    q = p[valid]
    m = q.size
    if method == "none" or m == 0:
        return out
    if method == "bonferroni":
        out[valid] = np.minimum(1.0, q * m)
        return out
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ranked))
    else:  # bh
        adjusted = np.minimum.accumulate(np.minimum(1.0, ranked * m / rank)[::-1])[::-1]
    back = np.empty(m)
    back[order] = adjusted
    out[valid] = back
    return out
