"""metrics.judgments.system_agreement: scores against pytrec_eval, tau against scipy, tau_AP against its
O(n^2) definition written out here, flips and their t-tests against the formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from judgments_data import collection_of
from scipy import stats

from metrics.errors import Cancelled
from metrics.judgments import system_agreement
from metrics.judgments.systems import _tau_ap


@pytest.fixture
def collection():
    """The generated collection of tests/judgments_data.py."""
    return collection_of()


def tau_ap_by_definition(reference, other) -> float:
    """Yilmaz, Aslam and Robertson (2008): the items ordered by ``other`` (highest first, ties by
    position), ``C(i)`` the items above the i-th in that order that the reference order also puts above
    it; ``2 / (N - 1) * sum_{i>=2} C(i) / (i - 1) - 1``."""
    n = len(reference)
    ref_order = sorted(range(n), key=lambda k: (-reference[k], k))
    ref_place = {item: p for p, item in enumerate(ref_order)}
    order = sorted(range(n), key=lambda k: (-other[k], k))
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if ref_place[order[j]] < ref_place[order[i]])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def test_tau_ap_against_its_definition_with_ties():
    rng = np.random.default_rng(7)
    for n in (2, 3, 5, 11, 40):
        for _ in range(20):
            a = np.round(rng.random(n), 1)
            b = np.round(a + rng.normal(0, 0.2, n), 1)
            assert _tau_ap(a, b) == pytest.approx(tau_ap_by_definition(a, b), abs=1e-12)
    x = np.arange(10.0)
    assert _tau_ap(x, x) == 1.0 and _tau_ap(x, -x) == pytest.approx(-1.0)
    assert math.isnan(_tau_ap(x[:1], x[:1]))


def _pytrec_map(qrels, run):
    q = {}
    for qid, doc, g in qrels.itertuples(index=False):
        q.setdefault(qid, {})[doc] = int(g)
    r = {}
    for qid, doc, s in run[["query_id", "doc_id", "score"]].itertuples(index=False):
        r.setdefault(qid, {})[doc] = float(s)
    return {k: v["map"] for k, v in pytrec_eval.RelevanceEvaluator(q, {"map"}).evaluate(r).items()}


def test_scores_ranks_tau_and_flips(collection):
    a, b, runs = collection
    found = system_agreement(runs, a, b, "map")
    per_a = {name: _pytrec_map(a, run) for name, run in runs.items()}
    per_b = {name: _pytrec_map(b, run) for name, run in runs.items()}
    mean_a = np.array([np.mean(list(per_a[n].values())) for n in runs])
    mean_b = np.array([np.mean(list(per_b[n].values())) for n in runs])
    s = found.scores.set_index("run")
    assert np.allclose(s["score_a"].to_numpy(float), mean_a, atol=1e-12)
    assert np.allclose(s["score_b"].to_numpy(float), mean_b, atol=1e-12)
    assert list(s["rank_a"]) == list(stats.rankdata(-mean_a, method="min").astype(int))
    ref = stats.kendalltau(mean_a, mean_b)
    assert found.tau == pytest.approx(ref.statistic, abs=1e-12) and found.tau_p == pytest.approx(ref.pvalue)
    assert found.tau_ap == pytest.approx(tau_ap_by_definition(mean_a, mean_b), abs=1e-12)
    assert found.tau_ap_ba == pytest.approx(tau_ap_by_definition(mean_b, mean_a), abs=1e-12)
    names = list(runs)
    expected = {
        (names[i], names[j])
        for i in range(len(names))
        for j in range(i + 1, len(names))
        if (mean_a[i] - mean_a[j]) * (mean_b[i] - mean_b[j]) < 0
    }
    assert {(r.run_a, r.run_b) for r in found.flips.itertuples()} == expected
    for row in found.flips.itertuples():
        shared = sorted(set(per_a[row.run_a]) & set(per_a[row.run_b]))
        d = np.array([per_a[row.run_a][q] - per_a[row.run_b][q] for q in shared])
        t = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
        assert row.p_a == pytest.approx(2 * stats.t.sf(abs(t), len(d) - 1), rel=1e-9)
        assert row.significant_a == (row.p_a < 0.05)
    run = names[0]
    shared = sorted(set(per_a[run]) & set(per_b[run]))
    x, y = [per_a[run][q] for q in shared], [per_b[run][q] for q in shared]
    assert s.loc[run, "query_pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert s.loc[run, "query_kendall"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert found.notes, "the runs answer different queries: said"
    q = found.per_query.set_index("query_id").loc["q05"]
    xs = [per_a[n].get("q05", np.nan) for n in names]
    ys = [per_b[n].get("q05", np.nan) for n in names]
    ok = ~(np.isnan(xs) | np.isnan(ys))
    assert q["tau"] == pytest.approx(stats.kendalltau(np.array(xs)[ok], np.array(ys)[ok]).statistic)


def test_flips_are_found_when_the_qrels_disagree(collection):
    a, _, runs = collection
    # the second qrels reverses the grades: the orderings should differ
    b = a.assign(relevance=np.where(a["relevance"] >= 0, 3 - a["relevance"].clip(lower=0), a["relevance"]))
    found = system_agreement(runs, a, b, "P.10")
    assert len(found.flips) > 0 and found.measure == "P_10"


def test_one_run_and_cancel(collection):
    a, b, runs = collection
    one = dict(list(runs.items())[:1])
    found = system_agreement(one, a, b)
    assert math.isnan(found.tau) and "one run given" in found.not_computable["tau"]
    assert len(found.scores) == 1 and found.flips.empty
    with pytest.raises(Cancelled):
        system_agreement(runs, a, b, progress=lambda f: f < 0.5)
