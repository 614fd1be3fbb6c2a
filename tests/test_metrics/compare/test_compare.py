"""Tests of metrics.compare: paired statistics against scipy and hand computations."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.compare import (
    COLUMNS,
    adjust_pvalues,
    bootstrap_ci,
    compare,
    format_comparison,
    paired_differences,
    per_query_differences,
    per_query_differences_by_measure,
    permutation_test,
)


def tidy(table: dict) -> pd.DataFrame:
    """{run: {measure: {query_id: value}}} -> tidy per-query frame (rows shuffled)."""
    rows = [(run, q, m, v) for run, ms in table.items() for m, qs in ms.items() for q, v in qs.items()]
    frame = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    frame = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    frame["value"] = frame["value"].astype(np.float64)
    return frame


def random_frame(n_queries=30, runs=("base", "a", "b"), measures=("map", "P_10"), seed=1):
    rng = np.random.default_rng(seed)
    table = {}
    for i, run in enumerate(runs):
        table[run] = {m: {f"q{q:03d}": float(rng.random() * 0.5 + 0.1 * i) for q in range(n_queries)} for m in measures}
    return table


SMALL = {
    "base": {"map": {"1": 0.2, "2": 0.5, "3": 0.1, "4": 0.4}},
    "run": {"map": {"1": 0.3, "2": 0.5, "3": 0.05, "4": 0.6}},
}


def test_columns_and_hand_computed_small_example():
    out = compare(tidy(SMALL), "base", test="t", correction="none", bootstrap=0)
    assert list(out.columns) == COLUMNS
    assert len(out) == 1
    r = out.iloc[0]
    d = np.array([0.3 - 0.2, 0.0, 0.05 - 0.1, 0.6 - 0.4])
    assert r["run"] == "run" and r["measure"] == "map" and r["baseline"] == "base"
    assert r["baseline_mean"] == pytest.approx(0.3)
    assert r["mean"] == pytest.approx(0.3625)
    assert r["delta"] == pytest.approx(0.0625)
    assert (r["wins"], r["ties"], r["losses"], r["n_queries"]) == (2, 1, 1, 4)
    assert r["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert r["p_value"] == pytest.approx(stats.ttest_rel([0.3, 0.5, 0.05, 0.6], [0.2, 0.5, 0.1, 0.4]).pvalue)
    assert r["p_corrected"] == r["p_value"]
    assert r["test"] == "t" and r["correction"] == "none"
    assert math.isnan(r["ci_low"]) and math.isnan(r["ci_high"])


@pytest.mark.parametrize(
    "test, scipy_p",
    [
        ("t", lambda x, y: stats.ttest_rel(x, y).pvalue),
        ("wilcoxon", lambda x, y: stats.wilcoxon(x, y).pvalue),
    ],
)
def test_pvalues_agree_with_scipy_on_the_paired_vectors(test, scipy_p):
    table = random_frame()
    out = compare(tidy(table), "base", test=test, correction="none", bootstrap=0)
    assert len(out) == 4
    for _, r in out.iterrows():
        qs = sorted(table["base"][r["measure"]])
        x = np.array([table[r["run"]][r["measure"]][q] for q in qs])
        y = np.array([table["base"][r["measure"]][q] for q in qs])
        assert r["p_value"] == pytest.approx(scipy_p(x, y), rel=1e-12)
        assert r["delta"] == pytest.approx((x - y).mean(), rel=1e-12)
        assert r["wins"] == (x > y).sum() and r["losses"] == (x < y).sum()


def test_pairing_is_inner_join_on_query_id_and_counts_unpaired_queries():
    table = {
        "base": {"map": {"1": 0.1, "2": 0.2, "3": 0.3, "4": 0.4, "5": np.nan}},
        "run": {"map": {"2": 0.25, "3": 0.1, "4": 0.9, "5": 0.5, "6": 0.7, "7": 0.1}},
    }
    out = compare(tidy(table), "base", correction="none", bootstrap=0).iloc[0]
    # paired: 2, 3, 4; baseline only: 1; run only: 5 (baseline NaN), 6, 7
    assert out["n_queries"] == 3
    assert out["n_baseline_only"] == 1
    assert out["n_run_only"] == 3
    assert out["baseline_mean"] == pytest.approx(0.3)
    assert out["mean"] == pytest.approx((0.25 + 0.1 + 0.9) / 3)
    assert (out["wins"], out["ties"], out["losses"]) == (2, 0, 1)
    expected = stats.ttest_rel([0.25, 0.1, 0.9], [0.2, 0.3, 0.4]).pvalue
    assert out["p_value"] == pytest.approx(expected)
    text = format_comparison(compare(tidy(table), "base", bootstrap=0))
    assert "1 queries only in the baseline, 3 only in the run" in text
    assert "left out (up to 4 per comparison" in text


def test_all_zero_differences_give_p_one_for_every_test():
    same = {"map": {str(q): q / 10 for q in range(6)}}
    table = {"base": same, "copy": same}
    for test in ("t", "wilcoxon", "permutation"):
        r = compare(tidy(table), "base", test=test, permutations=50, bootstrap=50).iloc[0]
        assert r["p_value"] == 1.0
        assert r["effect_size"] == 0.0
        assert (r["ci_low"], r["ci_high"]) == (0.0, 0.0)
        assert (r["wins"], r["ties"], r["losses"]) == (0, 6, 0)
        assert not r["significant"]


def test_floating_point_noise_counts_as_a_tie():
    table = {
        "base": {"map": {"1": 0.3, "2": 0.7, "3": 0.2}},
        "run": {"map": {"1": 0.1 + 0.2, "2": 0.7, "3": 0.6}},
    }  # 0.1 + 0.2 != 0.3
    r = compare(tidy(table), "base", test="wilcoxon", bootstrap=0).iloc[0]
    assert (r["wins"], r["ties"], r["losses"]) == (1, 2, 0)


def test_constant_nonzero_difference():
    table = {"base": {"m": {"1": 0.25, "2": 0.5, "3": 0.125}}, "run": {"m": {"1": 0.5, "2": 0.75, "3": 0.375}}}
    r = compare(tidy(table), "base", test="t", bootstrap=10).iloc[0]
    assert r["p_value"] == 0.0
    assert r["effect_size"] == math.inf
    assert r["ci_low"] == r["ci_high"] == pytest.approx(0.25)


def test_fewer_than_two_queries_and_missing_run_give_nan_without_entering_the_family():
    table = {
        "base": {"map": {"1": 0.2, "2": 0.4, "3": 0.6}, "P_5": {"1": 0.2}},
        "run": {"map": {"1": 0.5, "2": 0.6, "3": 0.9}, "P_5": {"1": 0.4}},
        "other": {"map": {"1": 0.1, "2": 0.3, "3": 0.2}},
    }
    out = compare(tidy(table), "base", correction="bonferroni", bootstrap=20)
    out = out.set_index(["run", "measure"])
    one = out.loc[("run", "P_5")]
    assert one["n_queries"] == 1 and one["delta"] == pytest.approx(0.2) and one["wins"] == 1
    assert math.isnan(one["p_value"]) and math.isnan(one["p_corrected"])
    assert math.isnan(one["ci_low"]) and math.isnan(one["effect_size"])
    assert not one["significant"]
    none = out.loc[("other", "P_5")]
    assert none["n_queries"] == 0 and math.isnan(none["mean"]) and none["n_baseline_only"] == 1
    # the family holds the two map comparisons only
    for run in ("run", "other"):
        r = out.loc[(run, "map")]
        assert r["p_corrected"] == pytest.approx(min(1.0, 2 * r["p_value"]))


def test_run_and_measure_order_and_measure_selection():
    table = random_frame(n_queries=8, runs=("x", "base", "y"), measures=("m1", "m2", "m3"))
    frame = (
        tidy(table)
        .sort_values(["run", "measure"], key=lambda s: s.map({"x": 0, "base": 1, "y": 2, "m1": 0, "m2": 1, "m3": 2}))
        .reset_index(drop=True)
    )
    out = compare(frame, "base", measures=["m3", "m1"], bootstrap=0)
    assert list(zip(out["run"], out["measure"])) == [("x", "m3"), ("x", "m1"), ("y", "m3"), ("y", "m1")]
    with pytest.raises(ValueError, match="m9"):
        compare(frame, "base", measures="m9")


def test_counts_are_compared_only_when_named():
    table = random_frame(n_queries=6, runs=("base", "x"), measures=("num_ret", "map", "num_q"))
    out = compare(tidy(table), "base", bootstrap=0)
    assert list(out["measure"]) == ["map"]
    out = compare(tidy(table), "base", measures=["num_ret", "map"], bootstrap=0)
    assert list(out["measure"]) == ["num_ret", "map"]


def test_family_is_every_run_and_measure_pair():
    table = random_frame(n_queries=12, runs=("base", "a", "b", "c"), measures=("m1", "m2"))
    for correction in ("none", "bonferroni", "holm", "bh"):
        out = compare(tidy(table), "base", test="wilcoxon", correction=correction, alpha=0.1, bootstrap=0, family="all")
        assert len(out) == 6
        expected = adjust_pvalues(out["p_value"].to_numpy(), correction)
        np.testing.assert_array_equal(out["p_corrected"].to_numpy(), expected)
        assert (out["significant"] == (out["p_corrected"] <= 0.1)).all()
        assert (out["correction"] == correction).all() and (out["test"] == "wilcoxon").all()
        assert (out["alpha"] == 0.1).all()


# ------------------------------------------------------------------ corrections

P = np.array([0.01, 0.04, 0.03, 0.005])


def test_bonferroni_hand_computed():
    np.testing.assert_allclose(adjust_pvalues(P, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    np.testing.assert_allclose(adjust_pvalues([0.3, 0.6], "bonferroni"), [0.6, 1.0])


def test_holm_hand_computed():
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, max(1*0.04, 0.06)
    np.testing.assert_allclose(adjust_pvalues(P, "holm"), [0.03, 0.06, 0.06, 0.02])


def test_benjamini_hochberg_hand_computed_and_against_scipy():
    # sorted 0.005*4/1, 0.01*4/2, 0.03*4/3, 0.04*4/4 = 0.02, 0.02, 0.04, 0.04
    np.testing.assert_allclose(adjust_pvalues(P, "bh"), [0.02, 0.04, 0.04, 0.02])
    rng = np.random.default_rng(7)
    for size in (1, 2, 7, 50):
        p = rng.random(size) ** 3
        np.testing.assert_allclose(adjust_pvalues(p, "bh"), stats.false_discovery_control(p, method="bh"), rtol=1e-12)


def test_corrections_ignore_nan_and_accept_aliases():
    p = np.array([0.01, np.nan, 0.04, 0.03, 0.005])
    out = adjust_pvalues(p, "Holm")
    assert math.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2, 3, 4]], [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(adjust_pvalues(P, "fdr_bh"), adjust_pvalues(P, "bh"))
    np.testing.assert_array_equal(adjust_pvalues(P, "none"), P)
    with pytest.raises(ValueError, match="correction"):
        adjust_pvalues(P, "sidak-holm-bh")


# ------------------------------------------------------------------ permutation test


def exact_randomization_p(d):
    d = np.asarray(d, dtype=float)
    observed = abs(d.sum())
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=d.size)))
    return np.mean(np.abs(signs @ d) >= observed - 1e-12)


def test_permutation_test_agrees_with_exact_enumeration():
    rng = np.random.default_rng(11)
    permutations = 20000
    for _ in range(3):
        d = rng.normal(0.04, 0.1, size=10)
        exact = exact_randomization_p(d)
        estimate = permutation_test(d, permutations, rng=5)
        se = math.sqrt(exact * (1 - exact) / permutations)
        assert abs(estimate - exact) <= 5 * se + 1 / (permutations + 1)


def test_permutation_test_is_reproducible_and_uses_count_plus_one():
    d = np.array([0.3, 0.2, 0.25, 0.4, 0.1, 0.35, 0.3, 0.2, 0.15, 0.3, 0.22, 0.41])
    p1 = permutation_test(d, 999, rng=42)
    assert p1 == permutation_test(d, 999, rng=42)
    # every difference positive: only the identity and its negation reach |sum|,
    # 2 / 4096 of the sign vectors; the observed one is added once
    k = round(p1 * 1000) - 1
    assert p1 == (k + 1) / 1000
    assert 1 / 1000 <= p1 < 0.01


def test_a_pairs_draws_do_not_depend_on_the_other_runs_compared():
    # the draws of a (run, measure) come from its paired queries: the same seed, measure and queries give
    # the same interval and p-value whichever other runs are compared, including a run with queries no
    # other run has and without some that they have
    table = random_frame(n_queries=15, runs=("base", "a", "b"), measures=("m1", "m2"))
    table["c"] = {
        m: {**{f"x{q}": 0.3 + q / 10 for q in range(3)}, **dict(list(table["a"][m].items())[2:])} for m in ("m1", "m2")
    }
    settings = dict(test="permutation", permutations=500, bootstrap=200, correction="none")
    full = compare(tidy(table), "base", seed=3, **settings)
    pd.testing.assert_frame_equal(full, compare(tidy(table), "base", seed=3, **settings))
    alone = tidy({"base": table["base"], "b": table["b"]})
    single = compare(alone.loc[alone["measure"] == "m2"], "base", seed=3, **settings).iloc[0]
    row = full.set_index(["run", "measure"]).loc[("b", "m2")]
    assert single["p_value"] == row["p_value"]
    assert (single["ci_low"], single["ci_high"]) == (row["ci_low"], row["ci_high"])
    assert full.set_index(["run", "measure"]).loc[("c", "m2"), "n_queries"] == 13
    # another seed, other draws
    other = compare(tidy(table), "base", seed=4, **settings)
    assert not np.array_equal(other["ci_low"].to_numpy(), full["ci_low"].to_numpy())
    assert not np.array_equal(other["p_value"].to_numpy(), full["p_value"].to_numpy())


def test_permutation_pvalue_tracks_the_t_test_on_a_large_sample():
    rng = np.random.default_rng(2)
    d = rng.normal(0.02, 0.1, size=200)
    p_perm = permutation_test(d, 4000, rng=0)
    p_t = stats.ttest_1samp(d, 0.0).pvalue
    assert abs(p_perm - p_t) < 0.03


# ------------------------------------------------------------------ bootstrap


def test_bootstrap_interval_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(9)
    d = rng.normal(0.05, 0.2, size=40)
    low, high = bootstrap_ci(d, 20000, 0.9, rng=1)
    ref = stats.bootstrap(
        (d,),
        np.mean,
        confidence_level=0.9,
        n_resamples=20000,
        method="percentile",
        random_state=np.random.default_rng(2),
    )
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert abs(low - ref.confidence_interval.low) < 0.05 * width
    assert abs(high - ref.confidence_interval.high) < 0.05 * width
    wide_low, wide_high = bootstrap_ci(d, 20000, 0.99, rng=1)
    assert wide_low < low < d.mean() < high < wide_high
    assert bootstrap_ci(d, 500, 0.9, rng=4) == bootstrap_ci(d, 500, 0.9, rng=4)


# ------------------------------------------------------------------ differences, validation, text


def test_per_query_differences_sorted_for_the_chart():
    table = {
        "base": {"map": {"1": 0.2, "2": 0.5, "3": 0.1}},
        "b": {"map": {"1": 0.1, "2": 0.9, "3": 0.1}},
        "a": {"map": {"1": 0.6, "2": 0.4, "3": 0.3}},
    }
    frame = tidy(table)
    frame = frame.iloc[np.argsort(frame["run"].map({"base": 0, "b": 1, "a": 2}).to_numpy(), kind="stable")]
    out = per_query_differences(frame, "base", "map")
    assert list(out.columns[:3]) == ["query_id", "run", "delta"]
    assert list(out["run"]) == ["b", "b", "b", "a", "a", "a"]
    assert list(out["query_id"]) == ["2", "3", "1", "1", "3", "2"]
    np.testing.assert_allclose(out["delta"], [0.4, 0.0, -0.1, 0.4, 0.2, -0.1])
    pairs = paired_differences(frame, "base", "map")
    assert len(pairs) == 6 and set(pairs.columns) == {"query_id", "run", "baseline_value", "value", "delta"}


def test_invalid_input_is_reported():
    frame = tidy(SMALL)
    with pytest.raises(ValueError, match="baseline run 'nope'"):
        compare(frame, "nope")
    with pytest.raises(ValueError, match="unknown test"):
        compare(frame, "base", test="sign")
    with pytest.raises(ValueError, match="more than one value"):
        compare(pd.concat([frame, frame.iloc[:1]]), "base")
    with pytest.raises(ValueError, match="lacks column"):
        compare(frame.drop(columns="measure"), "base")


def test_accepts_an_object_with_per_query():
    class Result:
        per_query = tidy(SMALL)

    a = compare(Result(), "base", bootstrap=0)
    b = compare(tidy(SMALL), "base", bootstrap=0)
    pd.testing.assert_frame_equal(a, b)


def test_format_comparison_states_test_alpha_and_correction():
    table = {
        "base": {"map": {str(q): 0.1 for q in range(8)}},
        "good": {"map": {str(q): 0.5 + q / 100 for q in range(8)}},
        "bad": {"map": {str(q): 0.05 - q / 1000 for q in range(8)}},
    }
    out = compare(tidy(table), "base", test="wilcoxon", correction="bh", alpha=0.05, bootstrap=100)
    text = format_comparison(out)
    assert "Wilcoxon signed-rank test" in text
    assert "Benjamini-Hochberg over 2 tests" in text
    assert "alpha = 0.05" in text
    lines = text.splitlines()
    good = next(line for line in lines if line.startswith("map") and " good " in line)
    bad = next(line for line in lines if line.startswith("map") and " bad " in line)
    assert good.endswith("+") and "8/0/0" in good and "+0.4350" in good
    assert bad.endswith("-") and "0/0/8" in bad
    assert text.isascii()


# ------------------------------------------------------------------ through metrics.evaluate


def synthetic_collection(n_queries=25, n_docs=40, seed=8):
    rng = np.random.default_rng(seed)
    qrels_rows, runs = [], {"base": [], "better": [], "noisy": []}
    for q in range(n_queries):
        qid = str(301 + q)
        grades = rng.choice([0, 0, 0, 1, 2], size=n_docs)
        for d, g in enumerate(grades):
            qrels_rows.append((qid, f"d{q}_{d}", int(g)))
        for run, signal in (("base", 0.6), ("better", 1.5), ("noisy", 0.2)):
            scores = signal * grades + rng.normal(0, 1, size=n_docs)
            runs[run] += [(qid, f"d{q}_{d}", float(s)) for d, s in enumerate(scores)]
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    frames = {}
    for name, rows in runs.items():
        frames[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        frames[name].attrs["name"] = name
    return qrels, frames


def test_compare_through_evaluate():
    from metrics import evaluate

    qrels, runs = synthetic_collection()
    ev = evaluate(qrels, runs, ["map", "P.10", "recip_rank"])
    out = compare(ev, "base", test="t", correction="bh", bootstrap=300, family="all")
    assert list(out["run"].unique()) == ["better", "noisy"]
    assert set(out["measure"]) == {"map", "P_10", "recip_rank"}
    for _, r in out.iterrows():
        wide = ev.per_query_wide(r["measure"])
        assert r["n_queries"] == len(wide) == 25
        assert r["p_value"] == pytest.approx(stats.ttest_rel(wide[r["run"]], wide["base"]).pvalue, rel=1e-9)
        assert r["baseline_mean"] == pytest.approx(wide["base"].mean(), rel=1e-12)
        agg = ev.summary().loc[r["run"], r["measure"]]
        assert r["mean"] == pytest.approx(agg, rel=1e-12)  # arithmetic-mean measures
    better = out.set_index(["run", "measure"]).loc[("better", "map")]
    assert better["delta"] > 0 and better["significant"]
    np.testing.assert_allclose(out["p_corrected"], stats.false_discovery_control(out["p_value"]), rtol=1e-12)
    diffs = per_query_differences(ev, "base", "map")
    assert len(diffs) == 50 and list(diffs["run"].unique()) == ["better", "noisy"]


def test_unseeded_call_records_a_seed_that_reproduces_it():
    table = random_frame(n_queries=10, runs=("base", "a"), measures=("m",))
    first = compare(tidy(table), "base", test="permutation", permutations=300, bootstrap=300, seed=None)
    again = compare(tidy(table), "base", test="permutation", permutations=300, bootstrap=300, seed=first.attrs["seed"])
    pd.testing.assert_frame_equal(first, again)
    text = format_comparison(compare(tidy(table), "base", correction="none", bootstrap=0))
    assert "No correction for multiple testing (1 test)" in text and "p (none)" in text


@pytest.mark.parametrize("seed", range(5))
def test_differences_of_every_measure_at_once_equal_one_measure_at_a_time(seed):
    """per_query_differences_by_measure gives per_query_differences of each measure: missing values,
    queries missing from a run or the baseline, differences within the tie tolerance, ids that sort
    differently as text and as numbers."""
    rng = np.random.default_rng(seed)
    runs = ["b", "x", "a", "z"]
    rows = []
    for r in runs:
        for q in ["10", "2", "3", "1", "7", "q9"]:
            for m in ["map", "P_10", "num_ret"]:
                if rng.random() < 0.15:
                    continue
                rows.append((r, q, m, rng.choice([0.1, 0.2, 0.5, np.nan, 0.2 + 1e-13])))
    frame = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"]).astype(
        {"run": "str", "query_id": "str"}
    )

    class Ev:
        per_query = frame

    Ev.runs = runs
    for base in ("b", "a"):
        every = per_query_differences_by_measure(Ev, base)
        assert list(every) == list(dict.fromkeys(frame["measure"]))  # in the order of the frame
        for m in every:
            pd.testing.assert_frame_equal(every[m], per_query_differences(Ev, base, m))
        assert list(per_query_differences_by_measure(Ev, base, ["P_10"])) == ["P_10"]
