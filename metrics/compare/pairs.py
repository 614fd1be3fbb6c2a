"""The statistics of many pairs of runs on one measure at once: the engine of both comparisons.

:func:`pair_statistics` takes one measure's table (queries x runs, NaN = missing) and a list of
pairs of columns ``(i, j)`` and returns every pair's statistics as arrays, on the pair's paired
queries (both values present) with ``d = column i - column j``, by the conventions of
:mod:`metrics.compare`.  :func:`metrics.compare.compare` asks it for the pairs (run, baseline) and
:func:`metrics.compare.allpairs.compare_all_pairs` for every pair (a, b), a before b.

The pairs are grouped by their paired queries (a single group when no run misses a query), and a
group's statistics are computed for all its pairs together: means, wins/ties/losses and the
effect size as reductions along rows of a pairs x queries array (each row reduced as the 1-d
array of that pair alone would be, so the numbers are the ones a loop over the pairs gives);
the t-test by scipy's ``ttest_1samp`` on the differences for all rows at once (``ttest_rel``'s numbers,
:func:`paired_t_pvalues`), and the
Wilcoxon test as one call of scipy's ``wilcoxon`` with ``axis`` (p-values equal to the per-pair
calls of scipy, checked in the tests); the bootstrap interval
and the randomisation and bootstrap tests from one resampling of the group's queries shared by
its pairs (:mod:`metrics.compare.resampling`).

Random numbers: the resampling of a group is seeded by the seed, the measure, the stream
(``"ci"`` for the intervals, ``"test"`` for the p-values) and the labels of the group's paired
queries (:func:`metrics.compare.resampling._queries_key`).  A pair's interval and p-value depend
only on that generator and on the two runs' values on those queries, so they do not depend on
which other runs, pairs or measures are compared; the pair (b, a) gets the same p-value as the
pair (a, b) and the negated interval (up to rounding in the interpolation of the quantiles).
The resampled means of a group come from the runs' resampled sums (a resample of the queries is
a resample of every run: one matrix product per group, then a difference of two columns per
pair); pairs whose differences the tie tolerance changed use the kernels on the cleaned
differences instead, with the same draws.
"""

from __future__ import annotations

import warnings

import numpy as np

from metrics.compare.resampling import (
    _bootstrap_tests_by_runs,
    _groups,
    _intervals_by_runs,
    _permutation_tests_by_runs,
    _queries_key,
    _rng,
    paired_bootstrap_intervals,
    paired_bootstrap_tests,
    paired_permutation_tests,
)
from metrics.compare.statistics import _clean, paired_t_pvalues

#: The arrays :func:`pair_statistics` returns, float64 ...
FLOAT_STATISTICS = ("mean_i", "mean_j", "difference", "effect_size", "ci_low", "ci_high", "p_value")
#: ... and int64.
INT_STATISTICS = ("wins", "ties", "losses", "n_queries")
#: the tests whose p-values come from the group's shared resampling
_RESAMPLED_TESTS = {"permutation": paired_permutation_tests, "bootstrap": paired_bootstrap_tests}
_BLOCK = 1 << 21  # differences (pairs x queries) handled at once: 16 MiB as float64
_EXACT_SIGNED_RANK = 13  # scipy's Wilcoxon enumerates every sign flip up to this many differences with ties or zeros


def pair_statistics(
    table,
    pairs,
    *,
    queries=None,
    measure="",
    test: str | None = "t",
    permutations: int = 10000,
    bootstrap: int = 10000,
    ci: float = 0.95,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Every pair's statistics, as arrays in the order of ``pairs``.

    ``table``: queries x runs, NaN for a missing value.  ``pairs``: ``(i, j)`` column pairs; the
    differences are ``d = table[:, i] - table[:, j]`` on the queries where both are present, with
    the tie tolerance applied (:func:`metrics.compare.statistics._clean`).  ``queries``: the
    labels of the table's rows (default: their positions), which seed the resampling together
    with ``seed``, ``measure`` and the stream.  ``test``: ``"t"``, ``"wilcoxon"``,
    ``"permutation"``, ``"bootstrap"`` or None (no p-value, e.g. for the Tukey HSD, which the
    caller computes on the whole table).

    Returns ``mean_i``, ``mean_j`` (means over the paired queries), ``difference`` (mean of d),
    ``wins``/``ties``/``losses`` (d > 0, == 0, < 0), ``n_queries``, ``effect_size`` (d_z: 0 when
    sd and mean are 0, +-inf when only sd is), ``ci_low``/``ci_high`` (percentile bootstrap of
    mean(d), ``bootstrap`` resamples; NaN when 0) and ``p_value``.  Fewer than 2 paired queries:
    NaN effect size, interval and p-value (means NaN without any).  No non-zero difference:
    p-value 1.0, interval [0, 0].  Zero spread with a non-zero mean: t-test p-value 0.0.
    """
    x = np.asarray(table, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("table must be a 2-d array (queries x runs)")
    index = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    if test not in (None, "t", "wilcoxon", *_RESAMPLED_TESTS):
        raise ValueError(f"unknown test {test!r}")
    labels = np.array([str(q) for q in (range(x.shape[0]) if queries is None else queries)], dtype=object)
    if labels.size != x.shape[0]:
        raise ValueError(f"{labels.size} query labels for a table of {x.shape[0]} rows")
    out = {name: np.full(len(index), np.nan) for name in FLOAT_STATISTICS}
    out.update({name: np.zeros(len(index), dtype=np.int64) for name in INT_STATISTICS})
    for mask, members in _groups(x, index):
        n = int(np.count_nonzero(mask))
        out["n_queries"][members] = n
        if n == 0:
            continue
        runs, local = np.unique(index[members], return_inverse=True)
        first, second = local.reshape(-1, 2).T
        values = x[np.ix_(mask, runs)]  # paired queries x the group's runs, no NaN
        rows = np.ascontiguousarray(values.T)  # one row per run
        resampled = n >= 2 and (int(bootstrap) > 0 or test in _RESAMPLED_TESTS)
        sums = {name: np.empty(members.size) for name in ("total", "spread", "largest")}
        noisy = np.zeros(members.size, dtype=bool)
        step = max(1, _BLOCK // n)
        for k0 in range(0, members.size, step):
            part = slice(k0, k0 + step)
            vi, vj = rows[first[part]], rows[second[part]]
            d = _fill(out, members[part], vi, vj, test)
            if resampled:  # the differences the tie tolerance changed
                noisy[part] = ((d == 0.0) & (vi != vj)).any(axis=1)
            if resampled and test in _RESAMPLED_TESTS:  # what the resampled tests need
                size = np.abs(d)
                sums["total"][part], sums["spread"][part], sums["largest"][part] = (
                    d.sum(axis=1),
                    size.sum(axis=1),
                    size.max(axis=1),
                )
        if resampled:
            settings = (test, int(permutations), int(bootstrap), float(ci))
            seeds = (int(seed), measure, _queries_key(labels[mask]))
            _resampled(out, members, values, first, second, sums, noisy, settings, seeds)
    return out


def _resampled(out: dict, at, values, first, second, sums: dict, noisy, settings: tuple, seeds: tuple) -> None:
    """The bootstrap intervals and the resampled tests' p-values of the pairs ``at`` of one group (at least 2
    paired queries): ``values`` (paired queries x runs) and the pairs' columns ``first``, ``second`` in it.

    Pairs with a difference within the tie tolerance but not zero (``noisy``) go to the kernels on the
    cleaned differences, the others to the kernels on the runs' values; both draw from the same generator.
    """
    test, permutations, bootstrap, ci = settings
    seed, measure, key = seeds
    plain = ~noisy & (out["ties"][at] < values.shape[0])  # some difference, none changed by the tolerance
    d = _clean(values[:, first[noisy]] - values[:, second[noisy]])

    def rng(stream: str) -> np.random.Generator:  # the same draws for both kinds of kernel
        return _rng(seed, measure, f"{stream} {key}")

    if bootstrap > 0:
        low, high = np.zeros(len(at)), np.zeros(len(at))  # no non-zero difference: [0, 0]
        if plain.any():
            low[plain], high[plain] = _intervals_by_runs(values, first[plain], second[plain], bootstrap, ci, rng("ci"))
        if noisy.any():
            low[noisy], high[noisy] = paired_bootstrap_intervals(d, bootstrap, ci, rng("ci"))
        out["ci_low"][at], out["ci_high"][at] = low, high
    if test not in _RESAMPLED_TESTS:
        return
    p = np.ones(len(at))  # no non-zero difference: 1.0
    i, j = first[plain], second[plain]
    if plain.any() and test == "permutation":
        total, spread = sums["total"][plain], sums["spread"][plain]
        p[plain] = _permutation_tests_by_runs(values, i, j, total, spread, permutations, rng("test"))
    elif plain.any():
        mean, largest = out["difference"][at][plain], sums["largest"][plain]
        p[plain] = _bootstrap_tests_by_runs(values, i, j, mean, largest, permutations, rng("test"))
    if noisy.any():
        p[noisy] = _RESAMPLED_TESTS[test](d, permutations, rng("test"))
    out["p_value"][at] = p


def _fill(out: dict, at: np.ndarray, vi: np.ndarray, vj: np.ndarray, test) -> np.ndarray:
    """The statistics of the pairs ``at`` but the resampled ones, from their values (pairs x paired
    queries) ``vi`` and ``vj``; returns the differences (pairs x queries)."""
    d = _clean(vi - vj)  # C-contiguous: every row reduced as the 1-d array of its pair alone
    n = d.shape[1]
    difference = d.mean(axis=1)
    out["mean_i"][at], out["mean_j"][at], out["difference"][at] = vi.mean(axis=1), vj.mean(axis=1), difference
    out["wins"][at] = np.count_nonzero(d > 0, axis=1)
    out["ties"][at] = np.count_nonzero(d == 0, axis=1)
    out["losses"][at] = np.count_nonzero(d < 0, axis=1)
    if n < 2:
        return d
    sd = d.std(axis=1, ddof=1)
    flat = sd == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = difference / sd
    effect[flat] = np.where(difference[flat] == 0.0, 0.0, np.copysign(np.inf, difference[flat]))
    out["effect_size"][at] = effect
    if test not in ("t", "wilcoxon"):
        return d
    p = np.ones(len(at))  # no non-zero difference: 1.0
    varied = d.any(axis=1)
    if test == "t":
        constant = varied & (d == d[:, :1]).all(axis=1)
        p[constant] = 0.0  # zero spread, non-zero mean: |t| is infinite
        p[varied & ~constant] = _t_pvalues(d[varied & ~constant])
    else:
        p[varied] = _wilcoxon_pvalues(d[varied])
    out["p_value"][at] = p
    return d


def _t_pvalues(d: np.ndarray) -> np.ndarray:
    """Paired t-test p-values of the rows of ``d`` (each with some spread), as ``ttest_rel(row, 0)``."""
    return paired_t_pvalues(d) if len(d) else np.empty(0)


def _wilcoxon_pvalues(d: np.ndarray) -> np.ndarray:
    """``scipy.stats.wilcoxon(row).pvalue`` for every row of ``d`` (each with a non-zero difference).

    scipy chooses the method of a call from the whole array it is given (exact when no difference
    is zero or tied, else the enumeration of sign flips for up to 13 differences, else the normal
    approximation), so the rows are split by what a call with one row would choose.  The sign
    flips are enumerated with ``permutation_test`` as scipy's Wilcoxon does, but with a vectorised
    statistic (scipy calls its own once per flip).
    """
    p = np.empty(len(d))
    if not len(d):
        return p
    from scipy import stats  # (a second to import: only when a rank test is asked for)

    size = np.sort(np.abs(d), axis=1)
    plain = (size[:, 0] != 0.0) & (size[:, 1:] != size[:, :-1]).all(axis=1)  # no zero, no tie
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the normal approximation with ties
        warnings.simplefilter("ignore", RuntimeWarning)
        if plain.any():
            p[plain] = stats.wilcoxon(d[plain], axis=1).pvalue
        if (~plain).any():
            rest = d[~plain]
            small = d.shape[1] <= _EXACT_SIGNED_RANK
            p[~plain] = _signed_rank_flips(rest) if small else stats.wilcoxon(rest, axis=1).pvalue
    return p


def _signed_rank_flips(d: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the signed-rank sum of every row by all its sign flips (scipy's small-sample method).

    scipy.stats.permutation_test with the statistic written here for all rows and flips at once: 99 rows of
    13 differences with ties and zeros took 633 ms, against 72.5 s for scipy.stats.wilcoxon row by row (the
    same p-values; benchmarks/library_numerics.py)."""
    from scipy import stats

    n = d.shape[1]
    rows = max(1, _BLOCK // (n << n))  # every sign flip of a block of rows at once
    p = np.empty(len(d))
    for first in range(0, len(d), rows):
        p[first : first + rows] = stats.permutation_test(
            (d[first : first + rows],),
            _signed_rank_sum,
            permutation_type="samples",
            vectorized=True,
            n_resamples=9999,  # scipy's PermutationMethod default: more than the 2**13 flips, so all of them
            alternative="two-sided",
            axis=-1,
        ).pvalue
    return p


def _signed_rank_sum(d: np.ndarray, axis: int = -1) -> np.ndarray:
    """Wilcoxon's W+ along ``axis``: the sum of the ranks of |d| (zeros left out, ties averaged) where d > 0."""
    from scipy import stats

    d = np.moveaxis(d, axis, -1)
    ranks = stats.rankdata(np.where(d == 0, np.inf, np.abs(d)), axis=-1)  # zeros rank last and add nothing
    return np.where(d > 0, ranks, 0.0).sum(axis=-1)


def _pair_intervals(wide, pairs: list, resamples: int, ci: float, seed: int, measure, queries=None) -> dict:
    """``{(i, j): (low, high)}``: the bootstrap intervals of :func:`pair_statistics` for the column pairs of
    ``wide`` (queries x runs, NaN = missing; ``queries`` the rows' labels, default their positions)."""
    found = pair_statistics(
        wide, pairs, queries=queries, measure=measure, test=None, bootstrap=resamples, ci=ci, seed=seed
    )
    return {
        (int(i), int(j)): (float(lo), float(hi))
        for (i, j), lo, hi in zip(np.asarray(pairs).reshape(-1, 2), found["ci_low"], found["ci_high"])
    }
