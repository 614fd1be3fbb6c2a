"""Bootstrap intervals of every pair at once: against scipy.stats.bootstrap and the one-pair kernel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.compare import allpairs, bootstrap_ci


def _differences(seed: int, n: int, pairs: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = np.round(rng.normal(0.02, 0.1, size=(n, pairs)), 2)  # rounded: ties among the differences
    d[:, 1] = 0.0  # a pair without any difference
    d[: n // 2, 2] = 0.0  # half the queries tied
    return d


@pytest.mark.parametrize("n, pairs, resamples, ci", [(37, 9, 3000, 0.9), (2, 4, 500, 0.95), (120, 300, 2000, 0.95)])
def test_intervals_equal_scipy_bootstrap_percentile_with_the_same_generator(n, pairs, resamples, ci):
    d = _differences(n, n, pairs)
    low, high = allpairs.paired_bootstrap_intervals(d, resamples, ci, np.random.default_rng(5))
    ref = stats.bootstrap(
        (d.T,),
        np.mean,
        vectorized=True,
        axis=-1,
        method="percentile",
        n_resamples=resamples,
        confidence_level=ci,
        rng=np.random.default_rng(5),
    ).confidence_interval
    np.testing.assert_allclose(low, ref.low, rtol=0, atol=1e-14)
    np.testing.assert_allclose(high, ref.high, rtol=0, atol=1e-14)
    assert low[1] == high[1] == 0.0


def test_each_column_equals_the_one_pair_kernel_with_the_same_generator():
    d = _differences(1, 41, 7)
    low, high = allpairs.paired_bootstrap_intervals(d, 4000, 0.95, 9)
    for k in range(d.shape[1]):
        one = bootstrap_ci(d[:, k], 4000, 0.95, 9)
        assert one == pytest.approx((low[k], high[k]), abs=1e-15)


def test_blocks_of_pairs_share_one_resampling():
    # more pairs than one block holds: every block restarts the generator from the same state
    d = _differences(2, 30, 700)
    low, high = allpairs.paired_bootstrap_intervals(d, 20000, 0.95, 3)  # 20,000 x 700 > one block
    ref_low, ref_high = allpairs.paired_bootstrap_intervals(d[:, 650:], 20000, 0.95, 3)
    np.testing.assert_array_equal(low[650:], ref_low)
    np.testing.assert_array_equal(high[650:], ref_high)


def test_degenerate_input():
    assert all(np.isnan(allpairs.paired_bootstrap_intervals(np.ones((1, 3)), 100)).ravel())
    assert all(np.isnan(allpairs.paired_bootstrap_intervals(np.ones((5, 3)), 0)).ravel())
    with pytest.raises(ValueError, match="queries x pairs"):
        allpairs.paired_bootstrap_intervals(np.ones(5))
    with pytest.raises(ValueError, match="ci must lie"):
        allpairs.paired_bootstrap_intervals(np.ones((5, 2)), 100, ci=1.5)


def test_coverage_matches_scipy_bootstrap_within_monte_carlo_error():
    # 600 independent data sets (columns) of 30 paired differences with true mean 0.05
    rng = np.random.default_rng(21)
    d = rng.gamma(2.0, 0.05, size=(30, 600)) - 0.1 + 0.05  # skewed, mean 0.05
    low, high = allpairs.paired_bootstrap_intervals(d, 2000, 0.9, 4)
    ref = stats.bootstrap(
        (d.T,), np.mean, vectorized=True, axis=-1, method="percentile", n_resamples=2000, confidence_level=0.9, rng=77
    ).confidence_interval
    ours = np.mean((low <= 0.05) & (0.05 <= high))
    theirs = np.mean((ref.low <= 0.05) & (0.05 <= ref.high))
    # both near the nominal 0.9 (the percentile interval undercovers a little at n = 30) ...
    assert abs(ours - 0.9) < 0.05 and abs(theirs - 0.9) < 0.05
    # ... and equal within 4 binomial standard errors of a difference of two coverages
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * 0.9 * 0.1 / 600)


def test_compare_all_pairs_intervals_agree_with_scipy_per_pair_with_missing_queries():
    rng = np.random.default_rng(8)
    base = rng.random(40)
    values = {
        "a": base,
        "b": np.round(base + 0.03 + 0.05 * rng.standard_normal(40), 2),
        "c": base - 0.05 + 0.1 * rng.standard_normal(40),
    }
    rows = [(run, f"q{i}", "map", float(v)) for run, vs in values.items() for i, v in enumerate(vs)]
    frame = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    frame = frame.loc[~((frame["run"] == "c") & frame["query_id"].isin(["q3", "q7", "q8"]))]  # c misses 3 queries
    pairs = allpairs.compare_all_pairs(frame, test="t", bootstrap=20000, seed=3)
    for r in pairs.itertuples():
        keep = [i for i in range(40) if not (r.b == "c" and i in (3, 7, 8))]
        d = values[r.a][keep] - values[r.b][keep]
        assert r.n_queries == len(keep)
        ref = stats.bootstrap(
            (d,), np.mean, method="percentile", n_resamples=20000, confidence_level=0.95, rng=11
        ).confidence_interval
        se = d.std(ddof=1) / np.sqrt(d.size)
        # two independent 20,000-resample quantiles at 2.5%: each about 0.019 se of Monte-Carlo error
        assert abs(r.ci_low - ref.low) < 0.12 * se and abs(r.ci_high - ref.high) < 0.12 * se
    again = allpairs.compare_all_pairs(frame, test="t", bootstrap=20000, seed=3)
    assert again["ci_low"].tolist() == pairs["ci_low"].tolist()
    other = allpairs.compare_all_pairs(frame, test="t", bootstrap=20000, seed=4)
    assert other["ci_low"].tolist() != pairs["ci_low"].tolist()


def test_bootstrap_tests_of_every_column_equal_the_one_pair_test_with_the_same_generator():
    d = _differences(4, 37, 700)  # more pairs than one block of 10,000 resampled means holds
    d[:, 4] = 0.01  # no spread: no centred resample reaches the mean
    got = allpairs.paired_bootstrap_tests(d, 10000, 7)
    for k in (0, 1, 2, 3, 4, 5, 419, 420, 699):
        assert got[k] == allpairs.bootstrap_test(d[:, k], 10000, 7), k
    assert got[1] == 1.0 and got[4] == 1 / 10001
    assert np.isnan(allpairs.paired_bootstrap_tests(np.ones((1, 3)))).all()


def test_compare_all_pairs_bootstrap_test_agrees_with_the_one_pair_test_with_missing_queries():
    rng = np.random.default_rng(13)
    base = rng.random(30)
    values = {run: base + shift + 0.08 * rng.standard_normal(30) for run, shift in (("a", 0), ("b", 0.03), ("c", 0.01))}
    rows = [(run, f"q{i}", "map", float(v)) for run, vs in values.items() for i, v in enumerate(vs)]
    frame = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    frame = frame.loc[~((frame["run"] == "b") & frame["query_id"].isin(["q0", "q1"]))]
    pairs = allpairs.compare_all_pairs(frame, test="bootstrap", correction="none", permutations=20000, bootstrap=0)
    for r in pairs.itertuples():
        keep = [i for i in range(30) if not ("b" in (r.a, r.b) and i in (0, 1))]
        expected = allpairs.bootstrap_test(values[r.a][keep] - values[r.b][keep], 20000, rng=99)
        se = np.sqrt(expected * (1 - expected) / 20000)
        assert abs(r.p_value - expected) <= 4 * np.sqrt(2) * se + 1e-4, (r.a, r.b, r.p_value, expected)


def test_permutation_tests_of_every_column_equal_the_one_pair_test_with_the_same_generator():
    from metrics.compare import permutation_test

    d = _differences(5, 37, 700)  # 37 x 10,000 sign bits: blocks not byte-aligned; two blocks of pairs
    d[:, 4] = 0.01
    got = allpairs.paired_permutation_tests(d, 10000, 3)
    for k in (0, 1, 2, 3, 4, 5, 418, 419, 699):
        assert got[k] == permutation_test(d[:, k], 10000, 3), k
    assert got[1] == 1.0 and got[4] == 1 / 10001
    many = _differences(6, 3000, 3)  # more queries than one block of draws holds
    got = allpairs.paired_permutation_tests(many, 1000, 8)
    assert got.tolist() == [permutation_test(many[:, k], 1000, 8) for k in range(3)]
    assert np.isnan(allpairs.paired_permutation_tests(np.ones((1, 3)))).all()
