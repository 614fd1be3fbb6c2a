"""The statistics of a paired comparison: tests, bootstrap interval, effect size, corrections.

The conventions are stated in :mod:`metrics.compare`; these functions work on one array of paired
differences (or one family of p-values) at a time.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from metrics.compare.corrections import adjust_pvalues  # noqa: F401  (its home before it had a module of its own)

TIE_TOLERANCE = 1e-12
_CHUNK = 1 << 20  # elements of one block of random draws (8 MiB as float64)


def _clean(d: np.ndarray) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64).copy()
    d[np.abs(d) <= TIE_TOLERANCE] = 0.0
    return d


def permutation_test(differences, permutations: int = 10000, rng: np.random.Generator | int | None = 0) -> float:
    """Two-sided paired randomization test of ``mean(differences) == 0``.

    Written out: scipy.stats.permutation_test (permutation_type="samples") draws other signs, so a seed
    would give other p-values than the kernels of many pairs, which draw these (and are 24 ms against
    scipy's 1,588 ms for the 99 pairs of 100 runs with a baseline, 250 queries, 10,000 permutations:
    :mod:`metrics.compare.resampling`).

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
    """Percentile bootstrap interval of ``mean(differences)``: :func:`scipy.stats.bootstrap` with
    ``method="percentile"``.

    ``resamples`` samples of ``n`` differences drawn with replacement (the index matrix
    ``rng.integers(0, n, size=(resamples, n))``, in blocks of about a million entries); returns
    the ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles of their means. (NaN,
    NaN) for fewer than 2 differences or ``resamples == 0``, (0, 0) when every difference is zero.
    """
    d = np.asarray(differences, dtype=np.float64).ravel()
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie strictly between 0 and 1; got {ci}")
    if resamples < 0:
        raise ValueError("resamples must not be negative")
    n = d.size
    if n < 2 or resamples == 0:
        return math.nan, math.nan
    if not d.any():
        return 0.0, 0.0
    found = bootstrap_means(d, resamples, np.random.default_rng(rng), ci)
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


def bootstrap_means(d: np.ndarray, resamples: int, rng: np.random.Generator, ci: float = 0.95):
    """``scipy.stats.bootstrap((d,), np.mean, method="percentile")`` of the differences ``d`` (1-d): its
    ``confidence_interval`` and ``bootstrap_distribution`` (the resampled means), drawn from ``rng``."""
    from scipy import stats

    kwargs = dict(vectorized=True, method="percentile", n_resamples=resamples, confidence_level=ci)
    kwargs["batch"] = max(1, _CHUNK // d.size)  # resamples at once: bounded memory for many queries
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a degenerate distribution (one value resampled)
        try:
            return stats.bootstrap((d,), np.mean, rng=rng, **kwargs)
        except TypeError:  # scipy before 1.15 names the generator random_state
            return stats.bootstrap((d,), np.mean, random_state=rng, **kwargs)


def _t_pvalue(d: np.ndarray) -> float:
    if np.all(d == d[0]):  # zero spread, non-zero mean: |t| is infinite
        return 0.0
    return float(paired_t_pvalues(d[np.newaxis, :])[0])


def paired_t_pvalues(d: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p-values of the rows of ``d`` (pairs x queries of differences, at least
    two queries), all rows at once: the numbers of ``scipy.stats.ttest_1samp(d, 0, axis=1)``, the test
    ``ttest_rel(row, 0)`` computes on the differences.

    Computed here in scipy's own arithmetic (its mean, its central second moment scaled by ``n / (n - 1)``,
    ``t = mean / sqrt(v / n)``, ``p = 2 stdtr(n - 1, -|t|)``), so that each p-value is scipy's to the last
    bit (a test holds them equal), with only :mod:`scipy.special` imported: ``scipy.stats`` takes about
    0.6 s of CPU to import, and the window's marks of significance waited for it."""
    from scipy import special

    d = np.ascontiguousarray(d, dtype=np.float64)
    n = d.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.mean(d, axis=-1)
        centred = d - np.mean(d, axis=-1, keepdims=True)
        v = np.mean(centred**2, axis=-1)
        count = np.float64(n)
        v *= count / (count - 1)
        t = np.divide(mean, np.sqrt(v / count))
        return np.asarray(2 * special.stdtr(count - 1, -np.abs(t)), dtype=np.float64)


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
