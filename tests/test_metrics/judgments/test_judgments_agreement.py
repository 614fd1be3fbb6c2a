"""metrics.judgments.compare against statsmodels' cohens_kappa and the krippendorff package."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from judgments_data import collection_of
from statsmodels.stats.inter_rater import cohens_kappa

from metrics.judgments import compare


@pytest.fixture
def collection():
    """The generated collection of tests/judgments_data.py."""
    return collection_of()


def _shared(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    a, b = a[a["relevance"] >= 0], b[b["relevance"] >= 0]
    return a.merge(b, on=["query_id", "doc_id"], suffixes=("_a", "_b"))


def _references(shared: pd.DataFrame):
    table = pd.crosstab(shared["relevance_a"], shared["relevance_b"])
    grades = sorted(set(table.index) | set(table.columns))
    table = table.reindex(index=grades, columns=grades, fill_value=0).to_numpy()
    kappa = cohens_kappa(table, return_results=False)
    weighted = cohens_kappa(table, weights=np.array(grades, dtype=float), wt="linear", return_results=False)
    data = np.vstack([shared["relevance_a"].to_numpy(float), shared["relevance_b"].to_numpy(float)])
    alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    return table, kappa, weighted, alpha


def test_overall_and_per_query_against_statsmodels_and_krippendorff(collection):
    a, b, _ = collection
    found = compare(a, b)
    shared = _shared(a, b)
    table, kappa, weighted, alpha = _references(shared)
    assert found.pairs == len(shared)
    assert np.array_equal(found.confusion.to_numpy(), table)
    assert found.kappa == pytest.approx(kappa, abs=1e-12)
    assert found.weighted_kappa == pytest.approx(weighted, abs=1e-12)
    assert found.alpha == pytest.approx(alpha, abs=1e-12)
    assert found.agreement == pytest.approx(np.trace(table) / table.sum(), abs=1e-15)
    checked = 0
    for qid, part in shared.groupby("query_id"):
        if part["relevance_a"].nunique() + part["relevance_b"].nunique() < 3:
            continue
        row = found.per_query.set_index("query_id").loc[qid]
        _, k, w, al = _references(part)
        assert row["kappa"] == pytest.approx(k, abs=1e-12)
        assert row["weighted_kappa"] == pytest.approx(w, abs=1e-12)
        assert row["alpha"] == pytest.approx(al, abs=1e-12)
        checked += 1
    assert checked >= 20


def test_counts_of_pairs_only_one_side_judged_and_negative_grades(collection):
    a, b, _ = collection
    found = compare(a, b)
    pa = {(q, d) for q, d, g in a.itertuples(index=False) if g >= 0}
    pb = {(q, d) for q, d, g in b.itertuples(index=False) if g >= 0}
    assert (found.only_a, found.only_b, found.pairs) == (len(pa - pb), len(pb - pa), len(pa & pb))
    assert found.negative_a == int((a["relevance"] < 0).sum()) > 0
    worst = found.most_disputed.iloc[0]
    assert worst["agreement"] == found.per_query[found.per_query["pairs"] > 0]["agreement"].min()


def test_grades_that_skip_a_value_weigh_by_their_values():
    a = {"1": {f"d{i}": g for i, g in enumerate([0, 0, 1, 3, 3, 1, 0, 3])}}
    b = {"1": {f"d{i}": g for i, g in enumerate([0, 1, 1, 3, 1, 1, 3, 0])}}
    found = compare(a, b)
    table = found.confusion.to_numpy()
    assert list(found.confusion.index) == [0, 1, 3]
    ref = cohens_kappa(table, weights=np.array([0.0, 1.0, 3.0]), wt="linear", return_results=False)
    assert found.weighted_kappa == pytest.approx(ref, abs=1e-12)
    data = np.array([[0, 0, 1, 3, 3, 1, 0, 3], [0, 1, 1, 3, 1, 1, 3, 0]], dtype=float)
    assert found.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))


def test_identical_qrels_agree_fully(collection):
    a, _, _ = collection
    found = compare(a, a.copy())
    assert (found.kappa, found.weighted_kappa, found.alpha, found.agreement) == (1.0, 1.0, 1.0, 1.0)
    assert found.only_a == found.only_b == 0 and not found.not_computable


def test_nothing_in_common_says_what_cannot_be_computed():
    found = compare({"1": {"a": 1, "b": 0}}, {"2": {"a": 1}})
    assert found.pairs == 0 and found.only_a == 2 and found.only_b == 1
    assert np.isnan(found.kappa) and np.isnan(found.alpha)
    assert "no (query, document) pair is judged by both" in found.not_computable["kappa"]
    assert found.queries_only_a == found.queries_only_b == 1


def test_one_grade_everywhere_is_not_computable():
    found = compare({"1": {"a": 1, "b": 1}}, {"1": {"a": 1, "b": 1}})
    assert found.agreement == 1.0 and np.isnan(found.kappa) and np.isnan(found.alpha)
    assert "no chance to disagree" in found.not_computable["alpha"]
