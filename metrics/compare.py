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
    ``"t"``: paired t-test, :func:`scipy.stats.ttest_rel`.
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
    Permutation and bootstrap draws for one (run, measure) pair come from a
    generator seeded by ``(seed, run, measure)`` through
    :class:`numpy.random.SeedSequence`, so the result for a pair does not depend
    on which other runs or measures are compared in the same call.
Multiple testing
    The family is every (run, measure) pair of one :func:`compare` call that has
    a p-value (pairs with NaN p-values are not counted). ``"none"``,
    ``"bonferroni"``, ``"holm"`` (step-down) or ``"bh"`` (Benjamini-Hochberg
    step-up, false-discovery rate). ``significant`` is ``p_corrected <= alpha``,
    the rejection rule these procedures are defined with.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats

from metrics.measures import is_count

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
    "permutation_test",
    "bootstrap_ci",
    "describe_settings",
    "significance_marker",
]

TIE_TOLERANCE = 1e-12

#: Columns of the frame returned by :func:`compare`, in order.
COLUMNS = [
    "run",
    "measure",
    "baseline",
    "baseline_mean",
    "mean",
    "delta",
    "p_value",
    "p_corrected",
    "ci_low",
    "ci_high",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "n_queries",
    "test",
    "correction",
    "significant",
    "alpha",
    "ci_level",
    "n_baseline_only",
    "n_run_only",
]

#: Canonical test codes and their descriptions.
TESTS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "permutation": "paired randomization test",
}
_TEST_ALIASES = {
    "t": "t",
    "ttest": "t",
    "t-test": "t",
    "paired-t": "t",
    "ttest_rel": "t",
    "wilcoxon": "wilcoxon",
    "signed-rank": "wilcoxon",
    "permutation": "permutation",
    "randomization": "permutation",
    "randomisation": "permutation",
}

#: Canonical correction codes and their descriptions.
CORRECTIONS = {
    "none": "no correction",
    "bonferroni": "Bonferroni",
    "holm": "Holm",
    "bh": "Benjamini-Hochberg",
}
_CORRECTION_ALIASES = {
    "none": "none",
    "": "none",
    "bonferroni": "bonferroni",
    "holm": "holm",
    "holm-bonferroni": "holm",
    "bh": "bh",
    "fdr_bh": "bh",
    "benjamini-hochberg": "bh",
    "fdr": "bh",
}

_CHUNK = 1 << 20  # elements of one block of random draws (8 MiB as float64)


# ---------------------------------------------------------------- validation


def _tidy(per_query) -> pd.DataFrame:
    frame = getattr(per_query, "per_query", per_query)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            "per_query must be a DataFrame with columns run, query_id, measure, "
            f"value (or an Evaluation); got {type(per_query).__name__}"
        )
    missing = [c for c in ("run", "query_id", "measure", "value") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"per-query frame lacks column(s) {', '.join(missing)}; expected run, query_id, measure, value"
        )
    dup = frame.duplicated(["run", "query_id", "measure"])
    if dup.any():
        row = frame.loc[dup].iloc[0]
        raise ValueError(
            f"per-query frame has more than one value for run {row['run']!r}, "
            f"query {row['query_id']!r}, measure {row['measure']!r}"
        )
    return frame


def _run_order(source, frame: pd.DataFrame) -> list:
    """Runs in the Evaluation's order when given one, else in order of appearance."""
    present = _unique(frame["run"])
    given = getattr(source, "runs", None)
    if isinstance(given, (list, tuple)) and set(given) >= set(present):
        return [r for r in given if r in set(present)]
    return present


def _canonical(value: str, aliases: dict, what: str, known: dict) -> str:
    key = str(value).strip().lower()
    if key not in aliases:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(known)}")
    return aliases[key]


def _unique(values) -> list:
    return list(dict.fromkeys(values))


def _select_measures(frame: pd.DataFrame, measures) -> list[str]:
    present = _unique(frame["measure"])
    if measures is None:
        return [m for m in present if not is_count(m)]
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    chosen = [str(m) for m in measures]
    unknown = [m for m in chosen if m not in set(present)]
    if unknown:
        raise ValueError(
            f"measure(s) {', '.join(unknown)} not in the per-query frame; it has {', '.join(map(str, present))}"
        )
    return _unique(chosen)


def _check_baseline(runs: list, baseline) -> None:
    if baseline not in runs:
        raise ValueError(f"baseline run {baseline!r} not found; runs are {', '.join(map(repr, runs))}")


# ---------------------------------------------------------------- kernels


def _pair_seed(seed, run, measure, stream: int) -> np.random.Generator:
    words = [seed, zlib.crc32(str(run).encode()), zlib.crc32(str(measure).encode()), stream]
    return np.random.default_rng(np.random.SeedSequence(words))


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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.ttest_rel(d, np.zeros_like(d)).pvalue)


def _wilcoxon_pvalue(d: np.ndarray) -> float:
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
    method = _canonical(method, _CORRECTION_ALIASES, "correction", CORRECTIONS)
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


# ---------------------------------------------------------------- public API


def paired_differences(per_query, baseline, measure) -> pd.DataFrame:
    """Paired values of every run against ``baseline`` for one measure.

    Returns a tidy frame ``query_id, run, baseline_value, value, delta`` with
    one row per run other than the baseline and per query where both values
    exist (inner join on ``query_id``; NaN counts as missing), in run order and
    then query order of the input. ``delta = value - baseline_value`` with the
    module's tie tolerance applied.
    """
    frame = _tidy(per_query)
    runs = _run_order(per_query, frame)
    _check_baseline(runs, baseline)
    measure = _select_measures(frame, [measure])[0]
    sub = frame.loc[frame["measure"] == measure, ["run", "query_id", "value"]]
    sub = sub.loc[sub["value"].notna()]
    base = sub.loc[sub["run"] == baseline, ["query_id", "value"]].rename(columns={"value": "baseline_value"})
    other = sub.loc[sub["run"] != baseline]
    joined = other.merge(base, on="query_id", how="inner", sort=False)
    joined["delta"] = _clean(joined["value"].to_numpy(np.float64) - joined["baseline_value"].to_numpy(np.float64))
    order = {r: i for i, r in enumerate(runs)}
    joined["_order"] = joined["run"].map(order)
    joined = joined.sort_values("_order", kind="stable").drop(columns="_order")
    return joined[["query_id", "run", "baseline_value", "value", "delta"]].reset_index(drop=True)


def per_query_differences(per_query, baseline, measure) -> pd.DataFrame:
    """Per-query differences to the baseline for one measure, for a difference chart.

    Columns ``query_id, run, delta, baseline_value, value`` (paired as in
    :func:`paired_differences`). Sorted by run (input order), then by ``delta``
    from largest to smallest, then by ``query_id``.
    """
    diffs = paired_differences(per_query, baseline, measure)
    runs = {r: i for i, r in enumerate(_run_order(per_query, _tidy(per_query)))}
    diffs["_order"] = diffs["run"].map(runs)
    diffs = diffs.sort_values(["_order", "delta", "query_id"], ascending=[True, False, True], kind="stable")
    return diffs[["query_id", "run", "delta", "baseline_value", "value"]].reset_index(drop=True)


def compare(
    per_query,
    baseline,
    *,
    measures=None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10000,
    bootstrap: int = 10000,
    ci: float = 0.95,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Compare every run with ``baseline`` on every measure, query by query.

    Parameters
    ----------
    per_query : DataFrame with columns run, query_id, measure, value (or an
        object with a ``per_query`` attribute such as ``metrics.Evaluation``).
    baseline : label of the baseline run.
    measures : measure names (or objects whose ``str`` is the name) to compare;
        None for all measures in the frame, in their order there, except
        counts (measures of kind ``long`` in the registry: ``num_ret``,
        ``num_rel_ret``, ...), which describe the runs rather than their
        effectiveness and would only enlarge the family of tests; name them
        to compare them.
    test : ``"t"``, ``"wilcoxon"`` or ``"permutation"`` (see the module
        docstring for the exact conventions).
    correction : ``"none"``, ``"bonferroni"``, ``"holm"`` or ``"bh"``; the
        family is every (run, measure) pair with a p-value in this call.
    alpha : significance level for the ``significant`` column
        (``p_corrected <= alpha``).
    permutations : sign vectors drawn by the permutation test.
    bootstrap : bootstrap resamples for the confidence interval (0 to skip).
    ci : confidence level of the interval.
    seed : seed of the permutation and bootstrap draws (None: not reproducible).

    Returns
    -------
    DataFrame with the columns of :data:`COLUMNS`: one row per (run, measure),
    runs other than the baseline in input order, measures within each run in
    the chosen order (an Evaluation's ``runs`` order when one is given).
    ``test`` and ``correction`` hold the canonical codes
    (keys of :data:`TESTS` and :data:`CORRECTIONS`); ``alpha`` and ``ci_level``
    repeat the settings. ``attrs`` records baseline, test, correction, alpha,
    ci, permutations, bootstrap and seed.
    """
    frame = _tidy(per_query)
    test = _canonical(test, _TEST_ALIASES, "test", TESTS)
    correction = _canonical(correction, _CORRECTION_ALIASES, "correction", CORRECTIONS)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1; got {alpha}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie strictly between 0 and 1; got {ci}")
    if int(permutations) < 1:
        raise ValueError("permutations must be at least 1")
    if int(bootstrap) < 0:
        raise ValueError("bootstrap must not be negative")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 63))  # type: ignore[operator]  # an int here
    elif int(seed) < 0:
        raise ValueError("seed must not be negative")
    runs = _run_order(per_query, frame)
    _check_baseline(runs, baseline)
    chosen = _select_measures(frame, measures)
    others = [r for r in runs if r != baseline]

    frame = frame.loc[frame["measure"].isin(chosen) & frame["value"].notna()]
    rows = []
    for measure in chosen:
        sub = frame.loc[frame["measure"] == measure]
        wide = sub.pivot(index="query_id", columns="run", values="value")
        if baseline in wide.columns:
            base = wide[baseline]
        else:
            base = pd.Series(np.nan, index=wide.index)
        base_present = base.notna().to_numpy()
        for run in others:
            rows.append(
                _compare_pair(
                    run,
                    measure,
                    baseline,
                    base,
                    base_present,
                    wide,
                    test,
                    int(permutations),
                    int(bootstrap),
                    ci,
                    int(seed),
                )
            )
    result = pd.DataFrame(
        rows,
        columns=[
            c for c in COLUMNS if c not in ("test", "correction", "p_corrected", "significant", "alpha", "ci_level")
        ],
    )
    if rows:
        order = {r: i for i, r in enumerate(others)}
        mpos = {m: i for i, m in enumerate(chosen)}
        result = result.iloc[np.lexsort((result["measure"].map(mpos).to_numpy(), result["run"].map(order).to_numpy()))]
    result = result.reset_index(drop=True)
    result["p_corrected"] = adjust_pvalues(result["p_value"].to_numpy(np.float64), correction)
    result["test"] = test
    result["correction"] = correction
    result["significant"] = (result["p_corrected"] <= alpha).fillna(False).astype(bool)
    result["alpha"] = float(alpha)
    result["ci_level"] = float(ci)
    for col in ("wins", "ties", "losses", "n_queries", "n_baseline_only", "n_run_only"):
        result[col] = result[col].astype(np.int64)
    for col in ("baseline_mean", "mean", "delta", "p_value", "p_corrected", "ci_low", "ci_high", "effect_size"):
        result[col] = result[col].astype(np.float64)
    result = result[COLUMNS]
    result.attrs.update(
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=float(alpha),
        ci=float(ci),
        permutations=int(permutations),
        bootstrap=int(bootstrap),
        seed=int(seed),
    )
    return result


def _compare_pair(run, measure, baseline, base, base_present, wide, test, permutations, bootstrap, ci, seed) -> dict:
    if run in wide.columns:
        values = wide[run]
    else:
        values = pd.Series(np.nan, index=wide.index)
    run_present = values.notna().to_numpy()
    paired = base_present & run_present
    b = base.to_numpy(np.float64)[paired]
    v = values.to_numpy(np.float64)[paired]
    d = _clean(v - b)
    n = int(d.size)
    row = {
        "run": run,
        "measure": measure,
        "baseline": baseline,
        "baseline_mean": float(b.mean()) if n else math.nan,
        "mean": float(v.mean()) if n else math.nan,
        "delta": float(d.mean()) if n else math.nan,
        "wins": int(np.count_nonzero(d > 0)),
        "ties": int(np.count_nonzero(d == 0)),
        "losses": int(np.count_nonzero(d < 0)),
        "n_queries": n,
        "n_baseline_only": int(np.count_nonzero(base_present & ~run_present)),
        "n_run_only": int(np.count_nonzero(run_present & ~base_present)),
    }
    if n < 2:
        row.update(p_value=math.nan, ci_low=math.nan, ci_high=math.nan, effect_size=math.nan)
        return row
    row["p_value"] = _test_pair(d, test, permutations, _pair_seed(seed, run, measure, 0))
    row["ci_low"], row["ci_high"] = bootstrap_ci(d, bootstrap, ci, _pair_seed(seed, run, measure, 1))
    row["effect_size"] = _effect_size(d)
    return row


# ---------------------------------------------------------------- text output


def describe_settings(comparison: pd.DataFrame) -> list[str]:
    """Sentences stating baseline, test, correction, alpha and interval of a comparison.

    Read from the columns, or from ``attrs`` when the frame has no rows.
    """
    attrs = {"baseline": "baseline", "test": "test", "correction": "correction", "alpha": "alpha", "ci_level": "ci"}

    def values(col):
        if col in comparison.columns and len(comparison):
            return _unique(comparison[col])
        return [comparison.attrs[attrs[col]]] if attrs[col] in comparison.attrs else []

    baselines = ", ".join(map(str, values("baseline"))) or "n/a"
    tests = ", ".join(_test_description(t, comparison) for t in values("test")) or "n/a"
    corrections = ", ".join(CORRECTIONS.get(c, str(c)) for c in values("correction")) or "n/a"
    alphas = ", ".join(f"{a:g}" for a in values("alpha")) or "n/a"
    levels = ", ".join(f"{100 * c:g}%" for c in values("ci_level"))
    family = int(comparison["p_value"].notna().sum()) if "p_value" in comparison else 0
    plural = "s" if family != 1 else ""
    if values("correction") == ["none"]:
        correction_text = f"No correction for multiple testing ({family} test{plural})."
    else:
        correction_text = f"Correction: {corrections} over {family} test{plural}."
    lines = [
        f"Baseline: {baselines}. Test: {tests} (two-sided). {correction_text} Significance level alpha = {alphas}."
    ]
    if {"n_baseline_only", "n_run_only"} <= set(comparison.columns) and len(comparison):
        unpaired = comparison["n_baseline_only"] + comparison["n_run_only"]
        if (unpaired > 0).any():
            lines.append(
                "Queries are paired on query_id; queries with a value for only one of "
                f"the two runs are left out (up to {int(unpaired.max())} per "
                "comparison, see n_baseline_only and n_run_only)."
            )
    if levels:
        draws = []
        if "bootstrap" in comparison.attrs:
            draws.append(f"{comparison.attrs['bootstrap']} resamples")
        if "seed" in comparison.attrs:
            draws.append(f"seed {comparison.attrs['seed']}")
        drawn = f" ({', '.join(draws)})" if draws else ""
        lines.append(
            f"Interval: bootstrap {levels} confidence interval of the mean difference"
            f"{drawn}; effect size d_z = mean(diff) / sd(diff)."
        )
    return lines


def _test_description(code, comparison) -> str:
    text = TESTS.get(code, str(code))
    if code == "permutation" and "permutations" in comparison.attrs:
        text += f", {comparison.attrs['permutations']} permutations"
    return text


def _fmt_num(x, digits=4, sign=False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def format_pvalue(p) -> str:
    """A p-value for tables: 4 decimals, scientific below 1e-4, 'n/a' when missing."""
    if p is None or math.isnan(p):
        return "n/a"
    if p != 0 and p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}"


def significance_marker(row, ascii_only: bool = False) -> str:
    """Marker of a comparison row: higher/lower than the baseline and significant, or ''."""
    if not bool(row["significant"]):
        return ""
    if row["delta"] > 0:
        return "+" if ascii_only else "\u2020"
    return "-" if ascii_only else "\u2021"


def format_comparison(comparison: pd.DataFrame) -> str:
    """A fixed-width text table of a :func:`compare` result, for the terminal.

    The header states baseline, test, correction (with the family size) and
    alpha; the column ``sig`` holds ``+`` (significantly higher than the
    baseline), ``-`` (significantly lower) or nothing; a footer explains the
    marks and reports queries left out by the pairing. Plain ASCII.
    """
    missing = [c for c in COLUMNS if c not in comparison.columns]
    if missing:
        raise ValueError(f"not a comparison frame: lacks {', '.join(missing)}")
    corr_codes = "/".join(map(str, _unique(comparison["correction"]) or [comparison.attrs.get("correction", "")]))
    levels = _unique(comparison["ci_level"]) or [comparison.attrs.get("ci", 0.95)]
    ci_head = f"{100 * levels[0]:g}% CI" if len(levels) == 1 else "CI"
    header = [
        "measure",
        "run",
        "baseline",
        "mean",
        "delta",
        ci_head,
        "p",
        f"p ({corr_codes or 'corrected'})",
        "d_z",
        "W/T/L",
        "n",
        "sig",
    ]
    body = []
    for _, r in comparison.iterrows():
        ci_text = (
            f"[{_fmt_num(r['ci_low'], sign=True)}, {_fmt_num(r['ci_high'], sign=True)}]"
            if not math.isnan(r["ci_low"])
            else "n/a"
        )
        body.append(
            [
                str(r["measure"]),
                str(r["run"]),
                _fmt_num(r["baseline_mean"]),
                _fmt_num(r["mean"]),
                _fmt_num(r["delta"], sign=True),
                ci_text,
                format_pvalue(r["p_value"]),
                format_pvalue(r["p_corrected"]),
                _fmt_num(r["effect_size"], 3, sign=True),
                f"{r['wins']}/{r['ties']}/{r['losses']}",
                str(r["n_queries"]),
                significance_marker(r, ascii_only=True),
            ]
        )
    numeric = {2, 3, 4, 6, 7, 8, 10}
    widths = [max([len(h)] + [len(b[i]) for b in body]) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    out = describe_settings(comparison)
    out.append("")
    out.append(line(header))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(b) for b in body)
    out.append("")
    alphas = ", ".join(f"{a:g}" for a in _unique(comparison["alpha"]) or [comparison.attrs.get("alpha", math.nan)])
    out.append(
        f"sig: + significantly higher, - significantly lower than the baseline "
        f"(corrected p <= {alphas}); W/T/L: queries where the run wins/ties/loses."
    )
    unpaired = comparison.loc[(comparison["n_baseline_only"] > 0) | (comparison["n_run_only"] > 0)]
    for _, r in unpaired.iterrows():
        out.append(
            f"note: {r['run']} / {r['measure']}: {r['n_baseline_only']} queries only in "
            f"the baseline, {r['n_run_only']} only in the run; left out (paired on "
            "query_id)."
        )
    return "\n".join(out) + "\n"
