"""One engine for both comparisons (metrics.compare.pairs): every pair at once against a loop over the pairs,
the shared resampling against the kernels on differences, and a baseline comparison against all pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics.compare import allpairs, compare, resampling
from metrics.compare import pairs as engine
from metrics.compare.statistics import _clean, _effect_size, _test_pair


def _table(seed: int, queries: int = 30, runs: int = 7, decimals: int = 2) -> np.ndarray:
    """queries x runs: rounded values (ties), some missing, a copy of run 0 (no difference), run 0 plus a
    constant (no spread) and run 0 plus floating-point noise on some queries (within the tie tolerance)."""
    rng = np.random.default_rng(seed)
    base = rng.random(queries)
    x = np.round(base[:, None] + 0.04 * np.arange(runs) + 0.1 * rng.standard_normal((queries, runs)), decimals)
    x[:, 0] = np.round(x[:, 0] * 64) / 64  # dyadic: plus 0.25 exactly
    x[:, 1] = x[:, 0]
    x[:, 2] = x[:, 0] + 0.25
    x[:, 3] = x[:, 0] + np.where(np.arange(queries) % 3 == 0, 1e-13, 0.0)
    x[:, 3] += np.where(np.arange(queries) % 5 == 0, 0.5, 0.0)  # and some real differences
    x[rng.random((queries, runs)) < 0.06] = np.nan  # a few queries missing: several groups of pairs
    x[: queries // 2, 5] = np.nan  # a run with half the queries
    return x


def _every(runs: int) -> list:
    return [(i, j) for i in range(runs) for j in range(runs) if i != j]  # both orders


def _reference(x: np.ndarray, i: int, j: int, test: str) -> dict:
    """One pair on its own: the statistics as the loop over pairs computed them."""
    paired = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
    vi, vj = x[paired, i].copy(), x[paired, j].copy()
    d = _clean(vi - vj)
    n = d.size
    return {
        "mean_i": vi.mean() if n else np.nan,
        "mean_j": vj.mean() if n else np.nan,
        "difference": d.mean() if n else np.nan,
        "wins": np.count_nonzero(d > 0),
        "ties": np.count_nonzero(d == 0),
        "losses": np.count_nonzero(d < 0),
        "n_queries": n,
        "effect_size": _effect_size(d) if n >= 2 else np.nan,
        "p_value": _test_pair(d, test, 100, 0),
    }


@pytest.mark.parametrize(
    "queries, decimals",
    [(30, 2), (12, 1), (60, 1), (9, 3)],  # 12 and 9 queries with ties: Wilcoxon by its sign flips
)
@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_every_pair_at_once_equals_the_loop_over_pairs(queries, decimals, test):
    x = _table(queries, queries, decimals=decimals)
    pairs = _every(x.shape[1])
    got = engine.pair_statistics(x, pairs, test=test, bootstrap=0)
    for k, (i, j) in enumerate(pairs):
        ref = _reference(x, i, j, test)
        for name, value in ref.items():
            # bitwise: the rows of the pairs x queries array are reduced as the 1-d arrays of the loop
            assert np.array_equal(got[name][k], value, equal_nan=True), (i, j, name, got[name][k], value)
    assert got["wins"].dtype == got["n_queries"].dtype == np.int64
    assert got["effect_size"][pairs.index((2, 0))] == np.inf and got["effect_size"][pairs.index((0, 2))] == -np.inf
    if test == "t":
        assert got["p_value"][pairs.index((2, 0))] == 0.0
    assert got["p_value"][pairs.index((1, 0))] == 1.0 and got["effect_size"][pairs.index((1, 0))] == 0.0


def test_the_wilcoxon_test_of_rows_equals_scipy_row_by_row():
    rng = np.random.default_rng(3)
    for n, decimals in ((5, 1), (11, 1), (13, 2), (14, 1), (40, 1), (40, 6), (51, 2), (120, 1)):
        rows = 2 if n > 8 and n <= 13 else 25  # scipy enumerates 2**n sign flips row by row: 2.8 s a row at 13
        d = _clean(np.round(rng.normal(0.02, 0.1, size=(rows, n)), decimals))
        d = d[d.any(axis=1)]
        got = engine._wilcoxon_pvalues(d)
        ref = np.array([_test_pair(row.copy(), "wilcoxon", 1, 0) for row in d])
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_shared_resampling_equals_the_kernels_on_differences_with_the_group_generator(test):
    x = _table(5, 40)
    labels = [f"q{i:02d}" for i in range(x.shape[0])]
    pairs = _every(x.shape[1])
    got = engine.pair_statistics(x, pairs, queries=labels, measure="map", test=test, permutations=3000, bootstrap=2000)
    kernel = {"permutation": allpairs.paired_permutation_tests, "bootstrap": allpairs.paired_bootstrap_tests}[test]
    index = np.array(pairs)
    groups = resampling._groups(x, index)
    assert len(groups) > 3  # missing values: several groups of pairs, each with its own generator
    for mask, members in groups:
        if mask.sum() < 2:
            continue
        key = resampling._queries_key(np.array(labels)[mask])
        d = _clean(x[mask][:, index[members, 0]] - x[mask][:, index[members, 1]])
        low, high = allpairs.paired_bootstrap_intervals(d, 2000, 0.95, resampling._rng(0, "map", f"ci {key}"))
        np.testing.assert_allclose(got["ci_low"][members], low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got["ci_high"][members], high, rtol=0, atol=1e-12)
        p = kernel(d, 3000, resampling._rng(0, "map", f"test {key}"))
        np.testing.assert_array_equal(got["p_value"][members], p)


def test_blocks_of_pairs_give_the_numbers_of_one_block(monkeypatch):
    x = _table(8, 25)
    pairs = _every(x.shape[1])
    whole = {
        test: engine.pair_statistics(x, pairs, test=test, permutations=500, bootstrap=300)
        for test in ("t", "permutation")
    }
    monkeypatch.setattr(engine, "_BLOCK", 50)  # two pairs of 25 queries per block
    monkeypatch.setattr(resampling, "_PAIR_BLOCK", 700)  # two pairs of 300 resamples per block
    for test, expected in whole.items():
        got = engine.pair_statistics(x, pairs, test=test, permutations=500, bootstrap=300)
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


def _frame(x: np.ndarray, runs: list, measure: str) -> pd.DataFrame:
    rows = [
        (run, f"q{q:02d}", measure, float(x[q, r]))
        for r, run in enumerate(runs)
        for q in range(x.shape[0])
        if not np.isnan(x[q, r])
    ]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation"])
def test_a_baseline_comparison_gives_the_numbers_of_all_pairs(test):
    runs = ["r0", "r1", "r2", "base", "r4", "r5", "r6"]
    frame = pd.concat([_frame(_table(11, 35), runs, "map"), _frame(_table(12, 14, decimals=1), runs, "P_10")])
    settings = dict(test=test, permutations=2000, bootstrap=1000, seed=7, correction="none")
    against = compare(frame, "base", **settings).set_index(["run", "measure"])
    every = allpairs.compare_all_pairs(frame, **settings)
    assert len(against) == 12 and len(every) == 42
    for row in every.itertuples():
        if "base" not in (row.a, row.b):
            continue
        run = row.b if row.a == "base" else row.a
        one = against.loc[(run, row.measure)]
        assert one["n_queries"] == row.n_queries
        assert one["p_value"] == row.p_value or (np.isnan(one["p_value"]) and np.isnan(row.p_value)), (run, row)
        if row.a == run:  # d = run - base in both
            low, high, delta = row.ci_low, row.ci_high, row.difference
            wins, losses = row.wins, row.losses
        else:  # the pair (base, run): the other sign
            low, high, delta = -row.ci_high, -row.ci_low, -row.difference
            wins, losses = row.losses, row.wins
        assert (one["wins"], one["losses"], one["ties"]) == (wins, losses, row.ties)
        assert one["delta"] == pytest.approx(delta, abs=1e-15, nan_ok=True)
        assert one["ci_low"] == pytest.approx(low, abs=1e-12, nan_ok=True)
        assert one["ci_high"] == pytest.approx(high, abs=1e-12, nan_ok=True)
    assert against["p_value"].notna().sum() >= 10 and (against["ci_high"] > against["ci_low"]).sum() >= 8
