"""All-pairs and baseline comparisons against statsmodels: the paired t-test, the corrections, Tukey HSD."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from metrics import compare
from metrics.compare import allpairs

sm_multitest = pytest.importorskip("statsmodels.stats.multitest")
from statsmodels.stats.multicomp import pairwise_tukeyhsd  # noqa: E402
from statsmodels.stats.weightstats import DescrStatsW  # noqa: E402


def _frame(values: dict, measure: str = "map") -> pd.DataFrame:
    rows = [
        (run, f"q{i}", measure, float(v)) for run, vs in values.items() for i, v in enumerate(vs) if not np.isnan(v)
    ]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


@pytest.fixture
def runs_with_gaps():
    """Six runs over 50 queries: values rounded to 2 decimals (ties), a copy of another run, a constant
    shift of another run (no spread in the differences), and two runs missing different queries."""
    rng = np.random.default_rng(31)
    base = rng.random(50)
    values = {
        "bm25": np.round(base, 2),
        "same": np.round(base, 2),
        "shift": np.round(base, 2) + 0.25,
        "dense": np.round(np.clip(base + 0.06 + 0.1 * rng.standard_normal(50), 0, 1), 2),
        "gappy": np.round(base - 0.03 + 0.08 * rng.standard_normal(50), 2),
        "sparse": np.round(base + 0.01 * rng.standard_normal(50), 3),
    }
    values["gappy"][[0, 5, 9, 17]] = np.nan
    values["sparse"][[5, 40]] = np.nan
    return values


def _statsmodels_paired_t(a: np.ndarray, b: np.ndarray) -> float:
    keep = ~np.isnan(a) & ~np.isnan(b)
    d = a[keep] - b[keep]
    d[np.abs(d) <= 1e-12] = 0.0  # the comparisons' tie tolerance (rounded values minus each other)
    if not d.any():
        return 1.0  # no difference at all: both tests are undefined, the comparisons report 1
    if np.all(d == d[0]):
        return 0.0  # no spread and a non-zero mean: |t| is infinite
    return float(DescrStatsW(d).ttest_mean(0.0)[1])


def test_all_pairs_paired_t_equals_statsmodels(runs_with_gaps):
    pairs = allpairs.compare_all_pairs(_frame(runs_with_gaps), test="t", correction="none", bootstrap=0)
    assert len(pairs) == 15
    for r in pairs.itertuples():
        expected = _statsmodels_paired_t(runs_with_gaps[r.a], runs_with_gaps[r.b])
        assert r.p_value == pytest.approx(expected, rel=1e-10, abs=1e-300), (r.a, r.b)
    by_pair = {(r.a, r.b): r.p_value for r in pairs.itertuples()}
    assert by_pair["bm25", "same"] == 1.0 and by_pair["bm25", "shift"] == 0.0


def test_baseline_paired_t_equals_statsmodels(runs_with_gaps):
    result = compare.compare(_frame(runs_with_gaps), "bm25", test="t", correction="none", bootstrap=0)
    assert len(result) == 5
    for r in result.itertuples():
        expected = _statsmodels_paired_t(runs_with_gaps[r.run], runs_with_gaps["bm25"])
        assert r.p_value == pytest.approx(expected, rel=1e-10, abs=1e-300), r.run


@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_corrections_equal_statsmodels_multipletests(ours, theirs):
    rng = np.random.default_rng(5)
    for size in (1, 2, 7, 60, 1000):
        p = rng.beta(0.3, 2.0, size)  # many small p-values
        p[rng.random(size) < 0.2] = 1.0  # and some ones
        p[: size // 3] = np.round(p[: size // 3], 2)  # ties
        got = compare.adjust_pvalues(p, ours)
        expected = sm_multitest.multipletests(p, method=theirs)[1]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
    with_nan = np.array([0.01, np.nan, 0.04, 0.03, np.nan])
    got = compare.adjust_pvalues(with_nan, ours)  # NaN stays NaN and is not counted in the family
    assert np.isnan(got[[1, 4]]).all()
    np.testing.assert_allclose(got[[0, 2, 3]], sm_multitest.multipletests(with_nan[[0, 2, 3]], method=theirs)[1])


@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_all_pairs_correct_over_every_pair_and_measure_as_statsmodels(runs_with_gaps, ours, theirs):
    frame = pd.concat(
        [_frame(runs_with_gaps, "map"), _frame({k: v[::-1] ** 2 for k, v in runs_with_gaps.items()}, "P_10")]
    )
    pairs = allpairs.compare_all_pairs(frame, test="wilcoxon", correction=ours, bootstrap=0)
    assert len(pairs) == 30
    expected = sm_multitest.multipletests(pairs["p_value"].to_numpy(), method=theirs)[1]
    np.testing.assert_allclose(pairs["p_corrected"].to_numpy(), expected, rtol=1e-12, atol=0)
    assert (pairs["significant"] == (expected <= 0.05)).all()


def test_randomised_tukey_hsd_and_its_parametric_relative_agree_where_they_should():
    """statsmodels' ``pairwise_tukeyhsd`` is a different test from the randomised Tukey HSD: it is
    parametric (the studentized range distribution, normal errors with one pooled variance) and treats
    the runs as independent groups, so the per-query variation stays in its error term, while the
    randomised HSD permutes each query's values across the runs (paired, no distributional assumption).
    Their p-values are not comparable.  What must agree: the mean differences themselves; with equal
    group sizes both p-values fall as |difference| grows (one reference distribution for every pair), so
    both order the pairs the same way; a pair whose runs are clearly separated is significant in both,
    and runs that differ by a hair in neither.  The paired test has more power here, so every pair the
    parametric test rejects is rejected by the randomised one too."""
    rng = np.random.default_rng(12)
    queries, effects = 60, {"r0": 0.0, "r1": 0.004, "r2": 0.05, "r3": 0.12, "r4": 0.2, "r5": 0.35}
    base = rng.random(queries)
    values = {run: base + effect + 0.05 * rng.standard_normal(queries) for run, effect in effects.items()}
    pairs = allpairs.compare_all_pairs(_frame(values), test="tukey", permutations=10000, seed=1, bootstrap=0)
    ours = {(r.a, r.b): r for r in pairs.itertuples()}

    stacked = np.concatenate(list(values.values()))
    groups = np.repeat(list(values), queries)
    sm = pairwise_tukeyhsd(stacked, groups, alpha=0.05)
    names = sm.groupsunique
    combos = itertools.combinations(names, 2)  # statsmodels' order of the pairs (as in its summary table)
    theirs = {pair: (diff, p, rej) for pair, diff, p, rej in zip(combos, sm.meandiffs, sm.pvalues, sm.reject)}
    assert set(theirs) == set(ours) and len(ours) == 15

    for pair, (diff, p, reject) in theirs.items():
        # statsmodels: mean(group2) - mean(group1); ours: a - b with a first
        assert -ours[pair].difference == pytest.approx(diff, abs=1e-12)
        if reject:
            assert ours[pair].significant, pair
    order = sorted(ours, key=lambda pair: abs(ours[pair].difference))
    ours_p = [ours[pair].p_value for pair in order]
    theirs_p = [theirs[pair][1] for pair in order]
    assert all(x >= y for x, y in zip(ours_p, ours_p[1:]))  # non-increasing in |difference|
    assert all(x >= y - 1e-12 for x, y in zip(theirs_p, theirs_p[1:]))
    for pair in [("r0", "r5"), ("r1", "r5"), ("r0", "r4"), ("r2", "r5")]:  # clearly separated
        assert ours[pair].significant and theirs[pair][2], pair
    assert not ours["r0", "r1"].significant and not theirs["r0", "r1"][2]  # a hair apart
