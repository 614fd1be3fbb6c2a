"""Resampling for all pairs of runs at once: bootstrap intervals and tests and the sign-flip
randomisation test from one shared resampling of the queries per group of pairs, and the randomised
Tukey HSD, vectorised over resamples in blocks (:mod:`metrics.allpairs` explains the methods)."""

from __future__ import annotations

import math
import zlib

import numpy as np

from ..errors import Cancelled
from .statistics import _CHUNK as _DRAW_BLOCK
from .statistics import _clean

_CHUNK = 1 << 22  # values of one block of permuted tables (32 MiB as float64)


def _rng(seed: int, measure, stream: str) -> np.random.Generator:
    words = [int(seed), zlib.crc32(str(measure).encode()), zlib.crc32(stream.encode())]
    return np.random.default_rng(np.random.SeedSequence(words))


def bootstrap_test(differences, resamples: int = 10000, rng=0) -> float:
    """Two-sided paired bootstrap test of ``mean(differences) == 0`` (shift method)."""
    d = np.asarray(differences, dtype=np.float64)
    n = d.size
    if n < 2:
        return math.nan
    if not d.any():
        return 1.0
    rng = np.random.default_rng(rng)
    centred = d - d.mean()
    observed = abs(d.mean())
    allowance = 1e-12 * max(1.0, np.abs(d).max())
    rows = max(1, (1 << 20) // n)
    count = done = 0
    while done < resamples:
        m = min(rows, resamples - done)
        means = centred[rng.integers(0, n, size=(m, n))].mean(axis=1)
        count += int(np.count_nonzero(np.abs(means) >= observed - allowance))
        done += m
    return (count + 1) / (resamples + 1)


def paired_bootstrap_intervals(
    differences, resamples: int = 10000, ci: float = 0.95, rng: np.random.Generator | int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of the mean of every column of ``differences`` (queries x pairs) at once.

    One matrix of resampled query indices (``resamples x n``, drawn with
    ``rng.integers(0, n, size=(resamples, n))``) is shared by every column.
    The design is paired: a query is one observation of every system, so
    resampling queries and reading every pair's difference on the same
    resample is the bootstrap of each pair (each column's interval, on its
    own, is distributed exactly as :func:`metrics.compare.bootstrap_ci`'s);
    only the intervals of different pairs become dependent.  It is the
    computation of ``scipy.stats.bootstrap((differences.T,), np.mean,
    vectorized=True, method="percentile")`` (scipy also shares one index matrix
    over the batch dimensions, and draws it the same way, so the same generator
    gives the same intervals), without its ``pairs x resamples x n``
    temporaries: the means are ``counts @ differences / n`` with ``counts`` the
    number of times each query is drawn in each resample, one matrix product
    per block.  Quantiles are numpy's linear ones, as in ``bootstrap_ci``.

    Columns with no non-zero difference get (0, 0); fewer than 2 rows or
    ``resamples == 0`` give NaN intervals.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or np.isnan(d).any():
        raise ValueError("differences must be a 2-d array (queries x pairs) without NaN")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie strictly between 0 and 1; got {ci}")
    if resamples < 0:
        raise ValueError("resamples must not be negative")
    n, pairs = d.shape
    low, high = np.full(pairs, np.nan), np.full(pairs, np.nan)
    if n < 2 or resamples == 0 or pairs == 0:
        return low, high
    for first, part in _resampled_means(d, resamples, rng):
        low[first : first + part.shape[1]], high[first : first + part.shape[1]] = np.quantile(
            part, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=0
        )
    zero = ~d.any(axis=0)
    low[zero] = high[zero] = 0.0
    return low, high


def _resampled_means(d: np.ndarray, resamples: int, rng):
    """Yield ``(first, means)``: the means of columns ``first:first + k`` of ``d`` (n x pairs) over
    ``resamples`` bootstrap resamples of its rows, a ``resamples x k`` block; every block from the
    same index matrix ``rng.integers(0, n, size=(resamples, n))`` (drawn in row blocks)."""
    n, pairs = d.shape
    rng = np.random.default_rng(rng)
    start = rng.bit_generator.state
    rows = max(1, _CHUNK // (4 * n))  # resamples per block of counts
    cols = max(1, _CHUNK // resamples)  # pairs per block of resampled means
    means = np.empty((resamples, min(cols, pairs)))
    for first in range(0, pairs, cols):
        block = d[:, first : first + cols]
        # the same index matrix for every block of pairs: the generator restarts from its state
        rng.bit_generator.state = start
        done = 0
        while done < resamples:
            m = min(rows, resamples - done)
            idx = rng.integers(0, n, size=(m, n))
            idx += (np.arange(m) * n)[:, None]
            counts = np.bincount(idx.ravel(), minlength=m * n).reshape(m, n).astype(np.float64)
            np.matmul(counts, block, out=means[done : done + m, : block.shape[1]])
            done += m
        part = means[:, : block.shape[1]]
        part /= n
        yield first, part


def paired_bootstrap_tests(
    differences, resamples: int = 10000, rng: np.random.Generator | int | None = 0
) -> np.ndarray:
    """:func:`bootstrap_test` of every column of ``differences`` (queries x pairs) at once.

    One shared resampling of the queries, as in :func:`paired_bootstrap_intervals`
    (the paired design: a resample of queries is a resample of every pair);
    each column's p-value is the one :func:`bootstrap_test` gives with the same
    generator: the resampled means of the centred differences are
    ``counts @ d / n - mean(d)``.  NaN for fewer than 2 rows, 1.0 for a column
    without any non-zero difference.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or np.isnan(d).any():
        raise ValueError("differences must be a 2-d array (queries x pairs) without NaN")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    n, pairs = d.shape
    if n < 2:
        return np.full(pairs, np.nan)
    mean = d.mean(axis=0)
    observed = np.abs(mean)
    allowance = 1e-12 * np.maximum(1.0, np.abs(d).max(axis=0, initial=0.0))
    count = np.zeros(pairs, dtype=np.int64)
    for first, part in _resampled_means(d, resamples, rng):
        k = part.shape[1]
        part -= mean[first : first + k]
        count[first : first + k] = np.count_nonzero(
            np.abs(part) >= observed[first : first + k] - allowance[first : first + k], axis=0
        )
    p = (count + 1) / (resamples + 1)
    p[~d.any(axis=0)] = 1.0
    return p


def paired_permutation_tests(
    differences, permutations: int = 10000, rng: np.random.Generator | int | None = 0
) -> np.ndarray:
    """:func:`metrics.compare.permutation_test` of every column of ``differences`` (queries x pairs) at once.

    One matrix of random signs (``permutations x n``) shared by every column:
    flipping the sign of a query's difference swaps the two runs' values on
    that query, and in the paired design one set of swaps serves every pair
    (each pair's p-value, on its own, is distributed as with its own signs).
    The signs are drawn exactly as ``permutation_test`` draws them (random
    bits in the same blocks), so each column's p-value is the one it gives
    with the same generator; the signed sums are ``2 (bits @ d) - sum(d)``,
    one matrix product per block.  NaN for fewer than 2 rows, 1.0 for a
    column without any non-zero difference.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or np.isnan(d).any():
        raise ValueError("differences must be a 2-d array (queries x pairs) without NaN")
    if permutations < 1:
        raise ValueError("permutations must be at least 1")
    n, pairs = d.shape
    if n < 2:
        return np.full(pairs, np.nan)
    rng = np.random.default_rng(rng)
    start = rng.bit_generator.state
    total = d.sum(axis=0)
    observed = np.abs(total)
    allowance = 1e-9 * np.abs(d).sum(axis=0)
    rows = max(1, _DRAW_BLOCK // n)  # permutation_test's blocks of draws
    cols = max(1, _CHUNK // min(rows, permutations))
    count = np.zeros(pairs, dtype=np.int64)
    for first in range(0, pairs, cols):
        block = d[:, first : first + cols]
        last = first + block.shape[1]
        rng.bit_generator.state = start  # the same signs for every block of pairs
        done = 0
        while done < permutations:
            m = min(rows, permutations - done)
            bits = np.unpackbits(np.frombuffer(rng.bytes((m * n + 7) // 8), dtype=np.uint8), count=m * n)
            sums = 2.0 * (bits.reshape(m, n).astype(np.float64) @ block) - total[first:last]
            count[first:last] += np.count_nonzero(np.abs(sums) >= observed[first:last] - allowance[first:last], axis=0)
            done += m
    p = (count + 1) / (permutations + 1)
    p[~d.any(axis=0)] = 1.0
    return p


def _groups(wide: np.ndarray, pairs: list) -> list:
    """``[(query mask, pairs)]``: the pairs of columns of ``wide`` grouped by their paired queries."""
    present = ~np.isnan(wide)
    groups: dict[bytes, list] = {}
    for i, j in pairs:
        groups.setdefault(np.packbits(present[:, i] & present[:, j]).tobytes(), []).append((i, j))
    return list(groups.items())


def _pair_resamplings(wide: np.ndarray, pairs: list, seed: int, measure, stream: str, kernel) -> dict:
    """``{(i, j): kernel(d, rng)[column]}`` for the pairs of columns of ``wide`` (queries x runs, NaN = missing).

    Pairs with the same paired queries (all of them, when no run misses a
    query) share one resampling, seeded by the seed, the measure, ``stream``
    and those queries.
    """
    out = {}
    for key, members in _groups(wide, pairs):
        mask = np.unpackbits(np.frombuffer(key, dtype=np.uint8), count=wide.shape[0]).astype(bool)
        sub = wide[mask]
        d = _clean(sub[:, [i for i, _ in members]] - sub[:, [j for _, j in members]])
        values = kernel(d, _rng(seed, measure, f"{stream} {zlib.crc32(key)}"))
        out.update({pair: value for pair, value in zip(members, values)})
    return out


def _pair_intervals(wide: np.ndarray, pairs: list, resamples: int, ci: float, seed: int, measure) -> dict:
    """``{(i, j): (low, high)}``: :func:`paired_bootstrap_intervals` by groups of pairs."""

    def kernel(d, rng):
        low, high = paired_bootstrap_intervals(d, resamples, ci, rng)
        return [(float(lo), float(hi)) for lo, hi in zip(low, high)]

    return _pair_resamplings(wide, pairs, seed, measure, "ci", kernel)


def tukey_hsd(table: np.ndarray, permutations: int = 10000, rng=0, progress=None) -> np.ndarray:
    """Randomised Tukey HSD p-values, a runs x runs matrix, for ``table`` (queries x runs, no NaN)."""
    x = np.asarray(table, dtype=np.float64)
    q, s = x.shape
    p = np.full((s, s), np.nan)
    if q < 2 or s < 2:
        return p
    rng = np.random.default_rng(rng)
    observed = np.abs(x.mean(axis=0)[:, None] - x.mean(axis=0)[None, :])
    allowance = 1e-12 * max(1.0, float(np.abs(x).max()))
    rows = max(1, _CHUNK // (q * s))
    counts = np.zeros((s, s), dtype=np.int64)
    done = 0
    while done < permutations:
        m = min(rows, permutations - done)
        shuffled = rng.permuted(np.broadcast_to(x, (m, q, s)), axis=2)  # each query's values across runs
        means = shuffled.mean(axis=1)
        ranges = means.max(axis=1) - means.min(axis=1)  # the largest difference of one permutation
        ranges.sort()
        # for each pair: permutations whose range reaches the observed difference
        counts += m - np.searchsorted(ranges, observed - allowance, side="left")
        done += m
        if progress is not None and progress(done / permutations) is False:
            raise Cancelled("Tukey HSD cancelled")
    p = (counts + 1) / (permutations + 1)
    np.fill_diagonal(p, np.nan)
    return p
