"""Resampling for many pairs of runs at once: bootstrap intervals and tests and the sign-flip
randomisation test from one shared resampling of the queries per group of pairs (the pairs with the
same paired queries), and the randomised Tukey HSD, vectorised over resamples in blocks
(:mod:`metrics.compare.allpairs` explains the methods, :mod:`metrics.compare.pairs` uses them for both
comparisons).

A group's generator is ``_rng(seed, measure, stream + " " + _queries_key(paired query labels))``
with the stream ``"ci"`` (intervals) or ``"test"`` (p-values); the Tukey HSD's is
``_rng(seed, measure, "tukey")``."""

from __future__ import annotations

import math
import zlib

import numpy as np

from metrics.compare.statistics import _CHUNK as _DRAW_BLOCK
from metrics.compare.statistics import bootstrap_means
from metrics.errors import Cancelled

_CHUNK = 1 << 22  # values of one block of permuted tables (32 MiB as float64)

# Kept written out, against the library calls that do the same job (benchmarks/library_numerics.py: one
# measure of 250 queries, 100 runs, the 99 pairs with the baseline, 10,000 resamples; best of 2 rounds):
# * the bootstrap intervals of many pairs: 61 ms here, 469 ms by scipy.stats.bootstrap (vectorised over
#   the pairs, in batches of 32 MiB) with the same draws and intervals (6e-16 apart): scipy resamples every
#   pair's differences where a matrix product of the counts resamples every run once;
# * the bootstrap test of many pairs: 25 ms, 468 ms from scipy.stats.bootstrap's distribution (the same
#   p-values; scipy has no bootstrap test, and its one-pair form is :func:`bootstrap_test`);
# * the sign-flip randomisation test of many pairs: 24 ms, 1,588 ms by scipy.stats.permutation_test
#   (permutation_type="samples", vectorised), which also draws other signs than the ones
#   :func:`metrics.compare.permutation_test` draws, so a seed would give other p-values;
# * the randomised Tukey HSD (1,000 permutations of 100 runs): 351 ms, 426 ms by
#   scipy.stats.permutation_test with the spread of the run means as its statistic, whose other draws
#   would change every p-value of a seed.  (scipy.stats.tukey_hsd, and its studentized_range, are the
#   parametric test of independent samples: another test, not this one's parts.)
_PAIR_BLOCK = 1 << 20  # resampled values of one block of pairs (8 MiB)


def _rng(seed: int, measure, stream: str) -> np.random.Generator:
    words = [int(seed), zlib.crc32(str(measure).encode()), zlib.crc32(stream.encode())]
    return np.random.default_rng(np.random.SeedSequence(words))


def bootstrap_test(differences, resamples: int = 10000, rng=0) -> float:
    """Two-sided paired bootstrap test of ``mean(differences) == 0`` (shift method): the share of the
    resampled means of the centred differences (:func:`scipy.stats.bootstrap`'s bootstrap distribution)
    whose ``|mean|`` reaches the observed ``|mean(differences)|``, as ``(k + 1) / (resamples + 1)``."""
    d = np.asarray(differences, dtype=np.float64).ravel()
    n = d.size
    if n < 2:
        return math.nan
    if not d.any():
        return 1.0
    means = bootstrap_means(d - d.mean(), resamples, np.random.default_rng(rng)).bootstrap_distribution
    allowance = 1e-12 * max(1.0, np.abs(d).max())
    count = int(np.count_nonzero(np.abs(means) >= abs(d.mean()) - allowance))
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


def _count_blocks(n: int, resamples: int, rng: np.random.Generator):
    """Yield ``(done, counts)``: the index matrix ``rng.integers(0, n, size=(resamples, n))`` of a
    bootstrap of ``n`` rows, drawn in blocks of resamples, as the number of times each row is drawn in
    each resample of the block (``m x n`` float64)."""
    rows = max(1, _CHUNK // (4 * n))  # resamples per block of counts
    done = 0
    while done < resamples:
        m = min(rows, resamples - done)
        idx = rng.integers(0, n, size=(m, n))
        idx += (np.arange(m) * n)[:, None]
        yield done, np.bincount(idx.ravel(), minlength=m * n).reshape(m, n).astype(np.float64)
        done += m


def _resampled_means(d: np.ndarray, resamples: int, rng):
    """Yield ``(first, means)``: the means of columns ``first:first + k`` of ``d`` (n x pairs) over
    ``resamples`` bootstrap resamples of its rows, a ``resamples x k`` block; every block from the
    same index matrix ``rng.integers(0, n, size=(resamples, n))`` (drawn in row blocks)."""
    n, pairs = d.shape
    rng = np.random.default_rng(rng)
    start = rng.bit_generator.state
    cols = max(1, _CHUNK // resamples)  # pairs per block of resampled means
    means = np.empty((resamples, min(cols, pairs)))
    for first in range(0, pairs, cols):
        block = d[:, first : first + cols]
        # the same index matrix for every block of pairs: the generator restarts from its state
        rng.bit_generator.state = start
        for done, counts in _count_blocks(n, resamples, rng):
            np.matmul(counts, block, out=means[done : done + counts.shape[0], : block.shape[1]])
        part = means[:, : block.shape[1]]
        part /= n
        yield first, part


# ---------------------------------------------------------------- the same, from the runs' values
#
# In a group of pairs with the same paired queries, a resample of the queries is a resample of every
# run: the resampled sums of the runs (resamples x runs, one matrix product) give every pair's
# resampled sum of differences as a difference of two columns, instead of a matrix product per block
# of pairs.  The draws are those of the functions above with the same generator, and the numbers
# theirs up to rounding (the order of the additions): the intervals agree to about 1e-16, and the
# p-values are the same unless a resampled statistic falls within rounding of the edge of the
# tests' allowance.  Only for pairs whose differences are exactly ``values[:, i] - values[:, j]``
# (the tie tolerance changed none of them); :mod:`metrics.compare.pairs` sends the others to the
# functions above.


def _resampled_sums(values: np.ndarray, resamples: int, rng) -> np.ndarray:
    """``resamples x runs``: the sums of every column of ``values`` (queries x runs) over the bootstrap
    resamples of its rows, from the index matrix :func:`_resampled_means` draws with this generator."""
    n, runs = values.shape
    out = np.empty((resamples, runs))
    for done, counts in _count_blocks(n, resamples, np.random.default_rng(rng)):
        np.matmul(counts, values, out=out[done : done + counts.shape[0]])
    return out


def _pair_blocks(per_run: np.ndarray, first: np.ndarray, second: np.ndarray):
    """Yield ``(k0, block)``: ``per_run[first] - per_run[second]`` (rows: runs) for pairs ``k0:k0 + k``."""
    step = max(1, _PAIR_BLOCK // max(1, per_run.shape[1]))
    for k0 in range(0, len(first), step):
        i, j = first[k0 : k0 + step], second[k0 : k0 + step]
        block = per_run[i]
        block -= per_run[j[0]] if (j == j[0]).all() else per_run[j]  # against a baseline: one row
        yield k0, block


def _intervals_by_runs(values, first, second, resamples: int, ci: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """:func:`paired_bootstrap_intervals` of the differences ``values[:, first] - values[:, second]``."""
    n = values.shape[0]
    low, high = np.empty(len(first)), np.empty(len(first))
    sums = np.ascontiguousarray(_resampled_sums(values, resamples, rng).T)  # runs x resamples
    for k0, block in _pair_blocks(sums, first, second):
        block /= n
        low[k0 : k0 + len(block)], high[k0 : k0 + len(block)] = np.quantile(
            block, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=1, overwrite_input=True
        )
    return low, high


def _bootstrap_tests_by_runs(values, first, second, mean, largest, resamples: int, rng) -> np.ndarray:
    """:func:`paired_bootstrap_tests` of ``values[:, first] - values[:, second]``, whose means are ``mean``
    and largest absolute values ``largest``."""
    n = values.shape[0]
    observed = np.abs(mean)
    threshold = observed - 1e-12 * np.maximum(1.0, largest)
    count = np.zeros(len(first), dtype=np.int64)
    sums = np.ascontiguousarray(_resampled_sums(values, resamples, rng).T)
    for k0, block in _pair_blocks(sums, first, second):
        k = len(block)
        block /= n
        block -= mean[k0 : k0 + k, None]
        count[k0 : k0 + k] = np.count_nonzero(np.abs(block) >= threshold[k0 : k0 + k, None], axis=1)
    return (count + 1) / (resamples + 1)


def _permutation_tests_by_runs(values, first, second, total, spread, permutations: int, rng) -> np.ndarray:
    """:func:`paired_permutation_tests` of ``values[:, first] - values[:, second]``, whose sums are ``total``
    and sums of absolute values ``spread``."""
    n = values.shape[0]
    rng = np.random.default_rng(rng)
    threshold = np.abs(total) - 1e-9 * spread
    rows = max(1, _DRAW_BLOCK // n)  # permutation_test's blocks of draws
    count = np.zeros(len(first), dtype=np.int64)
    done = 0
    while done < permutations:
        m = min(rows, permutations - done)
        bits = np.unpackbits(np.frombuffer(rng.bytes((m * n + 7) // 8), dtype=np.uint8), count=m * n)
        signed = np.ascontiguousarray((bits.reshape(m, n).astype(np.float64) @ values).T)  # runs x draws
        for k0, block in _pair_blocks(signed, first, second):
            k = len(block)
            block *= 2.0
            block -= total[k0 : k0 + k, None]
            count[k0 : k0 + k] += np.count_nonzero(np.abs(block) >= threshold[k0 : k0 + k, None], axis=1)
        done += m
    return (count + 1) / (permutations + 1)


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


def _groups(table: np.ndarray, index: np.ndarray) -> list:
    """``[(query mask, positions)]``: the pairs ``index`` (k x 2 columns of ``table``, queries x runs,
    NaN = missing) grouped by their paired queries, as the rows they have and the positions of the
    pairs in ``index``, in order of first appearance."""
    rows, pairs = table.shape[0], len(index)
    if pairs == 0:
        return []
    present = ~np.isnan(table)
    if present.all() or rows == 0:
        return [(np.ones(rows, dtype=bool), np.arange(pairs))]
    step = max(1, (1 << 24) // rows)  # masks of a block of pairs at once
    packed = np.concatenate(
        [
            np.packbits(present[:, index[f : f + step, 0]] & present[:, index[f : f + step, 1]], axis=0).T
            for f in range(0, pairs, step)
        ]
    )
    keys, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    members = np.split(order, np.cumsum(np.bincount(inverse, minlength=len(keys)))[:-1])
    masks = np.unpackbits(keys, axis=1, count=rows).astype(bool)
    return [(masks[g], members[g]) for g in np.argsort(first, kind="stable")]


def _queries_key(labels) -> int:
    """The word of a group's seed that names its paired queries: the CRC-32 of their labels, in order."""
    return zlib.crc32("\t".join(map(str, labels)).encode())


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
