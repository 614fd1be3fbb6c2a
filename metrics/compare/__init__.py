"""Paired comparison of runs against a baseline, with multiple-testing correction.

Input is the tidy per-query frame produced by :func:`metrics.evaluate`
(``Evaluation.per_query``): columns ``run``, ``query_id``, ``measure``, ``value``.

Conventions (shared by every function in this module)
-----------------------------------------------------
Pairing
    For one run and one measure, the run's per-query values are paired with the
    baseline's on ``query_id`` (an inner join). A value that is NaN counts as
    missing. Queries with a value for only one of the two runs are left out of
    every statistic of that pair and counted in the columns ``n_baseline_only``
    and ``n_run_only``; ``n_queries`` is the number of paired queries.
Differences
    ``d = run value - baseline value`` per paired query. A difference whose
    absolute value is at most ``TIE_TOLERANCE`` (1e-12, floating-point noise from
    summation order) is set to exactly zero before anything else is computed, so
    ties, the tests and the effect size all see the same differences.
Means
    ``baseline_mean`` and ``mean`` are arithmetic means over the *paired*
    queries, so ``delta = mean - baseline_mean = mean(d)``. (They can differ from
    the ``Evaluation.aggregate`` value when queries are unpaired or when the
    measure does not aggregate by an arithmetic mean, e.g. ``gm_map``.)
Wins, ties, losses
    Number of paired queries with ``d > 0``, ``d == 0`` and ``d < 0``.
Tests (all two-sided, all on the paired differences)
    ``"t"``: paired t-test, :func:`scipy.stats.ttest_rel`'s p-values bit for bit
    (``ttest_1samp``'s arithmetic on the differences with ``scipy.special.stdtr``,
    for many pairs at once: :func:`metrics.compare.statistics.paired_t_pvalues`).
    ``"wilcoxon"``: Wilcoxon signed-rank test, :func:`scipy.stats.wilcoxon` with
    scipy's defaults (``zero_method="wilcox"``, i.e. zero differences are
    dropped; ``method="auto"``, exact for at most 50 differences).
    ``"permutation"``: paired randomization test on the sum (equivalently the
    mean) of the differences: each of ``permutations`` random sign vectors
    (independent fair coin flips per query) flips the signs of the differences;
    ``p = (k + 1) / (permutations + 1)`` where ``k`` counts the sign vectors whose
    ``|sum|`` is at least the observed ``|sum|`` (the observed assignment counts
    as one more; Phipson & Smyth 2010), so ``p`` is never zero.
Edge cases
    Fewer than 2 paired queries: no test, no interval, no effect size (all NaN),
    ``significant`` is False. All differences zero (including after the tie
    tolerance): ``p_value`` is 1.0 for every test (scipy's Wilcoxon cannot
    handle an all-zero sample; no test finds evidence of a difference), the
    interval is [0, 0] and the effect size 0. All differences equal and non-zero
    (zero spread): the t-test p-value is 0.0 and the effect size is +-inf (the
    limits of the t statistic and of d_z).
Confidence interval
    Percentile bootstrap of ``mean(d)``: ``bootstrap`` resamples of the paired
    queries with replacement; the interval's ends are the ``(1 - ci) / 2`` and
    ``(1 + ci) / 2`` quantiles (numpy's default linear interpolation) of the
    resampled means. ``bootstrap=0`` skips it (NaN).
Effect size
    Paired Cohen's d, ``d_z = mean(d) / sd(d)`` with the sample standard
    deviation (``ddof=1``).
Random numbers
    The runs compared with the baseline on the same paired queries (all of them,
    when no run misses a query) share one resampling per measure: one matrix of
    random signs for the permutation test and one matrix of bootstrap resamples
    of the queries for the intervals (a resample of the queries is a resample of
    every run; each pair's interval or p-value on its own is distributed as
    with draws of its own). The generators are seeded through
    :class:`numpy.random.SeedSequence` by ``(seed, measure, stream, labels of
    the paired queries)``, with the stream ``"test"`` for the sign flips and
    ``"ci"`` for the bootstrap, so a pair's numbers depend on the seed, the
    measure and the two runs' values only: not on which other runs or measures
    are compared in the same call. They are the numbers
    :func:`metrics.compare.allpairs.compare_all_pairs` gives the same pair with the same
    settings (for the pair (baseline, run) there: the same p-value, the interval
    negated, up to rounding in the interpolation of its quantiles). Each pair
    used to draw from a generator seeded by ``(seed, run, measure)``, so the same
    seed gives other (equally distributed) intervals and permutation p-values
    than before this change; the t-test, the Wilcoxon test and everything else
    are unchanged. (:mod:`metrics.compare.pairs` computes the statistics of all
    the pairs at once, for both comparisons.)
Multiple testing
    The family is every (run, measure) pair of one :func:`compare` call that has
    a p-value (pairs with NaN p-values are not counted). ``"none"``,
    ``"bonferroni"``, ``"holm"`` (step-down) or ``"bh"`` (Benjamini-Hochberg
    step-up, false-discovery rate). ``significant`` is ``p_corrected <= alpha``,
    the rejection rule these procedures are defined with.
"""

from __future__ import annotations

from metrics import stat_methods as _methods

# the underscored helpers keep the names they had when this package was one module, for metrics.compare.allpairs
# and code written against that module; new code imports them from .baseline and .statistics
from metrics.compare.baseline import (  # noqa: F401
    COLUMNS,
    _baseline,
    _run_order,
    _select_measures,
    _tidy,
    _unique,
    compare,
    paired_differences,
    per_query_differences,
    per_query_differences_by_measure,
)
from metrics.compare.statistics import (  # noqa: F401
    TIE_TOLERANCE,
    _clean,
    _effect_size,
    _test_pair,
    adjust_pvalues,
    bootstrap_ci,
    permutation_test,
)
from metrics.compare.text import describe_settings, format_comparison
from metrics.presentation import format_pvalue, significance_marker
from metrics.stat_methods import CORRECTIONS, TESTS

_TEST_ALIASES = {a: m.code for m in _methods.TEST_METHODS if not m.pairs_only for a in (m.code, *m.aliases)}
_CORRECTION_ALIASES = {a: m.code for m in _methods.CORRECTION_METHODS for a in (m.code, *m.aliases)}


def _canonical(value: str, aliases: dict, what: str, known: dict) -> str:
    key = str(value).strip().lower()
    if key not in aliases:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(known)}")
    return aliases[key]


__all__ = [
    "COLUMNS",
    "CORRECTIONS",
    "TESTS",
    "TIE_TOLERANCE",
    "adjust_pvalues",
    "compare",
    "format_comparison",
    "paired_differences",
    "per_query_differences",
    "per_query_differences_by_measure",
    "permutation_test",
    "bootstrap_ci",
    "describe_settings",
    "format_pvalue",
    "significance_marker",
]
