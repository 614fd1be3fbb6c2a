"""Every run against every other: all-pairs comparisons, the randomised Tukey HSD, and letters.

Input is the tidy per-query frame of :func:`metrics.evaluate` (columns ``run``,
``query_id``, ``measure``, ``value``), as for :func:`metrics.compare.compare`.

:func:`compare_all_pairs` returns one row per (measure, a, b) with a before b
in the runs' order: means over the paired queries, ``difference`` (a - b),
effect size d_z, a bootstrap interval of the difference, wins/ties/losses of
a, the p-value of the chosen test and the p-value corrected over every pair
and measure.  The statistics of all the pairs of a measure are computed at
once, by the engine :func:`metrics.compare.compare` uses too
(:func:`metrics.compare.pairs.pair_statistics`), with the pairs grouped by
their paired queries (one group when no run misses a query).  The intervals
of a group's pairs come from one shared resampling of the queries
(:func:`paired_bootstrap_intervals`; the kernel gives ``bootstrap_ci``'s and
``scipy.stats.bootstrap``'s percentile interval for the same generator), read
from the runs' resampled sums: a matrix product per group instead of one
resampling per pair.  The tests:

* ``"t"``, ``"wilcoxon"``, ``"permutation"``: the paired tests of
  :mod:`metrics.compare` on each pair's paired queries: scipy's ``ttest_rel``
  and ``wilcoxon``, called once per group with ``axis`` (the p-values of the
  calls pair by pair), and a vectorised sign-flip randomisation test whose
  pairs with the same paired queries share one matrix of random signs
  (:func:`paired_permutation_tests`);
* ``"bootstrap"``: the paired bootstrap test of Sakai (2006): resamples of
  the centred differences ``d - mean(d)``; ``p = (k + 1) / (B + 1)`` with k the
  resamples whose ``|mean|`` reaches the observed ``|mean(d)|``.  scipy's
  ``bootstrap`` gives intervals, not this test, so it is written here; all
  pairs with the same paired queries share one resampling
  (:func:`paired_bootstrap_tests`, as for the intervals);
* ``"tukey"``: the randomised Tukey HSD (Carterette 2012, "Multiple testing
  in statistical analysis of systems-based information retrieval
  experiments"): on the queries every run has a value for, each permutation
  shuffles every query's values across the runs; a pair's p-value is the
  share of permutations whose largest difference between run means (max -
  min) reaches the pair's observed |difference| (with the observed assignment
  counted once more).  It controls the family-wise error over all pairs of a
  measure by construction, so no further correction is applied to it.  No
  library offers it (statsmodels' ``pairwise_tukeyhsd`` is the parametric,
  unpaired relative), hence numpy here, vectorised over permutations in chunks
  with ``Generator.permuted``.

The shared draws of a group come from a generator seeded by the seed, the
measure, the stream (``"ci"`` for the intervals, ``"test"`` for the
randomisation and bootstrap tests) and the labels of the group's paired
queries, so a pair's numbers do not depend on which other runs are compared
(and are those :func:`metrics.compare.compare` gives when one of the two is
the baseline).  Each pair first drew its own resamples from a stream named
after the pair; then the groups shared theirs, with a stream named after the
group's rows in the measure's table (which changed when a run with other
queries joined); now after the queries themselves.  Each change gives other
(equally distributed) intervals and randomisation/bootstrap p-values for the
same seed; the Tukey HSD's draws are unchanged.

Seeds make every p-value and interval reproducible (the same seed, runs and
measures give the same numbers; ``ir-eval --seed``).  The default 10,000
permutations (and bootstrap resamples) keep a p-value near 0.05 within about
0.01 of its exact value: its Monte-Carlo standard error ``sqrt(p (1 - p) / B)``
is 0.0022, so 0.01 is 4.6 standard errors (checked in the tests against p-values
from full enumeration, for the randomisation test and the Tukey HSD).

:func:`significance_letters` gives each run a letter (a, b, c... in order) and
each (run, measure) the letters of the runs it is significantly better than,
as ranx and many papers print them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from metrics.compare.baseline import TEST_COLUMNS, _asked, _labels, _run_order, _select_measures, _tables, _tidy
from metrics.compare.letters import letter, significance_letters  # noqa: F401  (importable from here too)
from metrics.compare.pairs import _pair_intervals, pair_statistics  # noqa: F401  (_pair_intervals: for benchmarks)
from metrics.compare.resampling import (  # noqa: F401  (importable from here, where the methods are described)
    _rng,
    bootstrap_test,
    paired_bootstrap_intervals,
    paired_bootstrap_tests,
    paired_permutation_tests,
    tukey_hsd,
)
from metrics.compare.statistics import adjust_pvalues
from metrics.errors import Cancelled
from metrics.stat_methods import ALL_PAIRS_TESTS, CORRECTIONS, canonical_correction, canonical_test

PAIR_COLUMNS = ["measure", "a", "b", "mean_a", "mean_b", "difference", *TEST_COLUMNS]


def compare_all_pairs(
    per_query,
    *,
    runs=None,
    measures=None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10000,
    bootstrap: int = 10000,
    ci: float = 0.95,
    seed: int = 0,
    progress=None,
) -> pd.DataFrame:
    """Compare every pair of runs on every measure; one row per (measure, a, b), a before b in order.

    ``runs``: the runs to compare, in order (default: all, in the frame's order).
    ``permutations``: permutations of the randomisation test and the Tukey
    HSD, resamples of the bootstrap test; the default 10,000 keeps a p-value
    near 0.05 within about 0.01 (module docstring).  ``bootstrap``: resamples
    of the intervals.  ``seed`` makes p-values and intervals reproducible.
    ``correction`` applies over every pair and measure for the pairwise tests;
    the Tukey HSD controls the family-wise error over a measure's pairs itself
    and gets ``correction = "none"``.  ``progress(fraction)`` may return False
    to cancel (:class:`metrics.errors.Cancelled`).
    """
    frame = _tidy(per_query)
    test = canonical_test(test, pairs=True)
    correction = "none" if test == "tukey" else canonical_correction(correction)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1; got {alpha}")
    if int(permutations) < 1:
        raise ValueError("permutations must be at least 1")
    order = _run_order(per_query, frame) if runs is None else list(runs)
    chosen = _select_measures(frame, measures, _asked(per_query))
    parts = []
    steps = max(1, len(chosen))
    every = [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]
    first, second = np.array(every, dtype=np.intp).reshape(-1, 2).T
    for mi, (measure, (queries, table)) in enumerate(zip(chosen, _tables(frame, order, chosen))):
        found = pair_statistics(
            table,
            every,
            queries=queries,
            measure=measure,
            test=None if test == "tukey" else test,
            permutations=int(permutations),
            bootstrap=int(bootstrap),
            ci=ci,
            seed=int(seed),
        )
        if test == "tukey":
            complete = table[~np.isnan(table).any(axis=1)]
            part = None if progress is None else (lambda f, mi=mi: progress((mi + f) / steps))
            tukey = tukey_hsd(complete, int(permutations), _rng(seed, measure, "tukey"), part)
            found["p_value"] = tukey[first, second]
        parts.append(found)
        if progress is not None and test != "tukey" and progress((mi + 1) / steps) is False:
            raise Cancelled("comparison cancelled")

    def column(name: str) -> np.ndarray:  # measure by measure, the pairs in order
        return np.concatenate([found[name] for found in parts]) if parts else np.empty(0)

    result = pd.DataFrame(
        {
            "measure": _labels([m for m in chosen for _ in every]),
            "a": _labels([order[i] for _ in chosen for i in first]),
            "b": _labels([order[j] for _ in chosen for j in second]),
            "mean_a": column("mean_i"),
            "mean_b": column("mean_j"),
            "difference": column("difference"),
            **{name: column(name) for name in ("wins", "ties", "losses", "n_queries", "effect_size")},
            "ci_low": column("ci_low"),
            "ci_high": column("ci_high"),
            "p_value": column("p_value"),
        }
    )
    result["p_corrected"] = adjust_pvalues(result["p_value"].to_numpy(np.float64), correction, alpha)
    result["test"], result["correction"], result["alpha"] = test, correction, float(alpha)
    result["significant"] = (result["p_corrected"] <= alpha).fillna(False).astype(bool)
    for col in ("wins", "ties", "losses", "n_queries"):
        result[col] = result[col].astype(np.int64)
    result = result[PAIR_COLUMNS]
    result.attrs.update(
        runs=list(order),
        test=test,
        correction=correction,
        alpha=float(alpha),
        permutations=int(permutations),
        seed=int(seed),
        ci=float(ci),
        bootstrap=int(bootstrap),
    )
    from metrics.compare.frame import comparison_frame

    return comparison_frame(result)


def json_value(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return str(value)


def pairs_to_json(pairs: pd.DataFrame) -> dict:
    """The document ``ir-eval --all-pairs --format json`` writes, as a dict ready for :func:`json.dump`.

    ``runs``: the run labels in the order compared (a before b in every pair);
    ``test``, ``correction``, ``alpha``, ``permutations``, ``seed``, ``ci``
    (the intervals' confidence level) and ``bootstrap`` (their resamples);
    ``pairs``: one object per row of :func:`compare_all_pairs` with its columns
    but ``alpha`` (``measure``, ``a``, ``b``, ``p_value``, ``p_corrected``,
    ``difference`` = mean of a - b, ``effect_size`` d_z, ``ci_low``/``ci_high``,
    ...).  Numbers are written in full (``repr`` precision: pandas' ``to_json``
    rounds to a number of decimal places, which loses the digits of small
    p-values); NaN and infinite values (an effect size without spread) as null.
    """
    attrs = pairs.attrs
    records = [
        {key: json_value(value) for key, value in row.items() if key != "alpha"}
        for row in pairs.to_dict(orient="records")
    ]
    return {
        "runs": [str(r) for r in attrs.get("runs", [])],
        "test": attrs.get("test"),
        "correction": attrs.get("correction"),
        "alpha": attrs.get("alpha"),
        "permutations": attrs.get("permutations"),
        "seed": attrs.get("seed"),
        "ci": attrs.get("ci"),
        "bootstrap": attrs.get("bootstrap"),
        "pairs": records,
    }


def describe(pairs: pd.DataFrame) -> str:
    """One sentence stating the test, the correction and alpha, for under a table."""
    test = pairs.attrs.get("test", "t")
    correction = pairs.attrs.get("correction", "none")
    alpha = pairs.attrs.get("alpha", 0.05)
    n = int(pairs["p_value"].notna().sum())
    if test == "tukey":
        how = (
            f"which controls the family-wise error over each measure's pairs, "
            f"{pairs.attrs.get('permutations', 10000)} permutations"
        )
    else:
        how = f"{CORRECTIONS[correction]} correction over {n} tests" if correction != "none" else "no correction"
    return (
        f"Letters: the runs a value is significantly better than ({ALL_PAIRS_TESTS[test]}, {how}, alpha = {alpha:g})."
    )


def format_pairs(pairs: pd.DataFrame) -> str:
    """A readable table of the pairs for a terminal."""
    head = f"{'measure':<14} {'a':<16} {'b':<16} {'diff':>8} {'p':>8} {'p corr':>8}  sig"
    lines = [describe(pairs), "", head, "-" * len(head)]
    for r in pairs.itertuples(index=False):
        lines.append(
            f"{str(r.measure):<14} {str(r.a):<16} {str(r.b):<16} {r.difference:>+8.4f} "
            f"{r.p_value:>8.4f} {r.p_corrected:>8.4f}  {'*' if r.significant else ''}"
        )
    return "\n".join(lines) + "\n"
