"""One run against another per query, query traits and difficulty, and the agreement of the measures
(metrics.analysis.queries, metrics.analysis.agreement), against direct computations and scipy, on
generated runs with ties, unjudged documents and queries missing from one run."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import random_collection
from scipy import stats

import metrics
from metrics.analysis import (
    measure_agreement,
    query_extremes,
    query_traits,
    ranking_flips,
    trait_correlations,
    versus,
)
from metrics.engine.settings import Settings

MEASURES = ["map", "P.5", "ndcg_cut.10", "recip_rank", "bpref", "Rprec"]


def evaluation(seed: int, runs: int = 6):
    qrels, _ = random_collection(seed)
    named = {f"r{i}": random_collection(seed + 7 * i, name=f"r{i}")[1] for i in range(runs)}
    named["r1"] = named["r1"][named["r1"]["query_id"] != "q2"]  # a query r1 does not answer
    return qrels, metrics.evaluate(qrels, named, MEASURES)


@pytest.mark.parametrize("seed", [0, 1])
def test_versus_per_query(seed):
    _, ev = evaluation(seed)
    table = versus(ev, "r0", "r1", "P@5")  # an ir_measures name for P.5
    wide = ev.per_query_wide("P_5")[["r0", "r1"]].dropna()
    assert table["query_id"].tolist() == wide.index.tolist()
    assert "q2" not in set(table["query_id"])
    np.testing.assert_array_equal(table["a"], wide["r0"])
    np.testing.assert_array_equal(table["b"], wide["r1"])
    for a, b, outcome in zip(table["a"], table["b"], table["outcome"]):
        assert outcome == ("win" if a > b else "loss" if a < b else "tie")
    loose = versus(ev, "r0", "r1", "P_5", tie=0.25)
    assert (loose["outcome"] == "tie").sum() == (np.abs(table["difference"]) <= 0.25).sum()
    with pytest.raises(ValueError, match="no run"):
        versus(ev, "r0", "nope", "P_5")
    with pytest.raises(ValueError, match="not among"):
        versus(ev, "r0", "r1", "ERR@20")


@pytest.mark.parametrize("seed", [0, 2])
def test_query_traits(seed):
    qrels, ev = evaluation(seed)
    texts = {"q2": "one two three", "q3": "  tabs\tand  spaces ", "Q6": "x"}
    table = query_traits(ev, "map", qrels, texts, settings=Settings(relevance_level=2))
    wide = ev.per_query_wide("map")
    assert table["query_id"].tolist() == wide.index.tolist()
    by_query = qrels.groupby("query_id")["relevance"]
    for row in table.itertuples(index=False):
        grades = by_query.get_group(row.query_id)
        assert row.relevant == (grades >= 2).sum()
        assert row.judged == (grades >= 0).sum()
        values = wide.loc[row.query_id].dropna().to_numpy()
        assert row.runs == len(values)
        assert row.mean == pytest.approx(values.mean(), abs=1e-15)
        assert row.std == pytest.approx(np.std(values, ddof=1), abs=1e-15)
        assert (row.min, row.max) == (values.min(), values.max())
    lengths = table.set_index("query_id")["length"]
    assert lengths["q2"] == 3 and lengths["q3"] == 3 and lengths["Q6"] == 1
    assert lengths.drop(["q2", "q3", "Q6"]).isna().all()
    assert "length" not in query_traits(ev, "map", qrels).columns


def test_query_texts_from_a_file(tmp_path):
    qrels, ev = evaluation(0)
    path = tmp_path / "queries.tsv"
    path.write_text("q2\twhat is a run\nq3\tprecision at ten documents\n")
    lengths = query_traits(ev, "map", qrels, str(path)).set_index("query_id")["length"]
    assert (lengths["q2"], lengths["q3"]) == (4, 4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spearman_against_scipy_and_a_direct_rank_correlation(seed):
    qrels, ev = evaluation(seed)
    texts = {q: " ".join(["w"] * (i % 4 + 1)) for i, q in enumerate(ev.per_query_wide("map").index)}
    table = query_traits(ev, "ndcg_cut_10", qrels, texts)
    rho = trait_correlations(table).set_index("trait")
    assert list(rho.index) == ["relevant", "judged", "length"]
    for trait in rho.index:
        x, y = table[trait].to_numpy(float), table["mean"].to_numpy(float)
        ref = stats.spearmanr(x, y)
        assert rho.loc[trait, "rho"] == pytest.approx(ref.statistic, abs=1e-12)
        assert rho.loc[trait, "p_value"] == pytest.approx(ref.pvalue, abs=1e-12)
        # Spearman's rho is Pearson's r of the average ranks
        direct = np.corrcoef(pd.Series(x).rank().to_numpy(), pd.Series(y).rank().to_numpy())[0, 1]
        assert rho.loc[trait, "rho"] == pytest.approx(direct, abs=1e-12)
        assert rho.loc[trait, "queries"] == len(table)
    std = trait_correlations(table, against="std").set_index("trait")
    assert std.loc["judged", "rho"] == pytest.approx(stats.spearmanr(table["judged"], table["std"]).statistic)


def test_hardest_easiest_and_most_disputed():
    qrels, ev = evaluation(1)
    table = query_traits(ev, "map", qrels)
    extremes = query_extremes(table, 3)
    assert extremes["kind"].tolist() == ["hardest"] * 3 + ["easiest"] * 3 + ["disputed"] * 3
    by_kind = {kind: rows for kind, rows in extremes.groupby("kind")}
    assert by_kind["hardest"]["mean"].tolist() == sorted(table["mean"])[:3]
    assert by_kind["easiest"]["mean"].tolist() == sorted(table["mean"], reverse=True)[:3]
    assert by_kind["disputed"]["std"].tolist() == sorted(table["std"].dropna(), reverse=True)[:3]
    assert by_kind["hardest"]["place"].tolist() == [1, 2, 3]


def tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b by its definition: (concordant - discordant) / sqrt((n0 - ties x)(n0 - ties y))."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        ties_x += dx == 0
        ties_y += dy == 0
        concordant += dx * dy > 0
        discordant += dx * dy < 0
    pairs = len(x) * (len(x) - 1) / 2
    return (concordant - discordant) / np.sqrt((pairs - ties_x) * (pairs - ties_y))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kendall_tau_between_measures(seed):
    _, ev = evaluation(seed, runs=8)
    summary = ev.summary()
    matrix = measure_agreement(ev)
    assert list(matrix.index) == list(matrix.columns) == list(summary.columns)
    long = measure_agreement(ev, with_p=True)
    assert len(long) == len(summary.columns) * (len(summary.columns) - 1) // 2
    for row in long.itertuples(index=False):
        x, y = summary[row.measure_a].to_numpy(), summary[row.measure_b].to_numpy()
        assert row.tau == pytest.approx(tau_b(x, y), abs=1e-12)
        ref = stats.kendalltau(x, y)
        assert row.p_value == pytest.approx(ref.pvalue, abs=1e-12)
        assert matrix.loc[row.measure_a, row.measure_b] == matrix.loc[row.measure_b, row.measure_a] == row.tau
    assert (np.diag(matrix.to_numpy()) == 1.0).all()
    two = measure_agreement(ev, ["map", "P_5"])
    assert two.shape == (2, 2)
    with pytest.raises(ValueError, match="not evaluated"):
        measure_agreement(ev, ["map", "ERR@20"])


@pytest.mark.parametrize("seed", [0, 2])
def test_flips_between_measures(seed):
    _, ev = evaluation(seed, runs=8)
    summary = ev.summary()
    flips = ranking_flips(ev)
    want = []
    for ma, mb in itertools.combinations(summary.columns, 2):
        for ra, rb in itertools.combinations(summary.index, 2):
            da = summary.loc[ra, ma] - summary.loc[rb, ma]
            db = summary.loc[ra, mb] - summary.loc[rb, mb]
            if (da > 0 and db < 0) or (da < 0 and db > 0):
                want.append((ma, mb, ra, rb, da, db))
    assert len(want) > 0
    got = list(flips[["measure_a", "measure_b", "run_a", "run_b", "diff_a", "diff_b"]].itertuples(index=False))
    assert [tuple(r) for r in got] == want
    # the number of flips between two measures is the discordant pairs of Kendall's tau
    map_p5 = flips[(flips["measure_a"] == "map") & (flips["measure_b"] == "P_5")]
    tau = measure_agreement(ev, with_p=True).set_index(["measure_a", "measure_b"]).loc[("map", "P_5"), "tau"]
    x, y = summary["map"].to_numpy(), summary["P_5"].to_numpy()
    if len(set(x)) == len(x) and len(set(y)) == len(y):
        pairs = len(x) * (len(x) - 1) / 2
        assert tau == pytest.approx((pairs - 2 * len(map_p5)) / pairs)


def test_a_constant_trait_or_measure_gives_nan_quietly(recwarn):
    traits = pd.DataFrame({"query_id": ["a", "b", "c"], "relevant": [4, 4, 4], "mean": [0.1, 0.3, 0.2]})
    assert np.isnan(trait_correlations(traits)["rho"][0])
    summary = pd.DataFrame({"flat": [0.5, 0.5, 0.5], "P_5": [0.1, 0.3, 0.2]}, index=["x", "y", "z"])
    assert np.isnan(measure_agreement(summary).loc["flat", "P_5"])
    assert ranking_flips(summary).empty
    assert not [w for w in recwarn if issubclass(w.category, stats.ConstantInputWarning)]
