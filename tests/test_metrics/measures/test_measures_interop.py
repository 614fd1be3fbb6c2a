"""Measures users bring from ir_measures and ranx: RR@k, DCG@k, F1@k, hits@k, and ranx's names.

RR@k is checked against ir_measures itself; the others against plain loops written here, in
trec_eval's ranking order (score descending, ties by docid descending), on generated collections with
ties, unjudged documents, negative grades and queries missing on either side; ranx, where installed,
on the same data.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import random_collection

import metrics


def _ranked(run, q):
    part = run[run["query_id"] == q]
    return [d for s, d in sorted(zip(part["score"], part["doc_id"]), key=lambda x: (x[0], x[1]), reverse=True)]


def _values(ev, name):
    pq = ev.per_query[ev.per_query["measure"] == name]
    return dict(zip(pq["query_id"], pq["value"]))


def _expected(qrels, run, k):
    grades = {(q, d): g for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"])}
    out = {}
    for q in sorted(set(run["query_id"]) & set(qrels["query_id"])):
        docs = _ranked(run, q)[:k]
        g = [grades.get((q, d), -9) for d in docs]
        rel = [x >= 1 for x in g]
        nrel = sum(1 for (qq, _), x in grades.items() if qq == q and x >= 1)
        hits = sum(rel)
        p, r = hits / k, (hits / nrel if nrel else 0.0)
        first = next((i for i, x in enumerate(rel) if x), None)
        out[q] = {
            "rr": 0.0 if first is None else 1.0 / (first + 1),
            "dcg": sum(max(x, 0) / math.log2(i + 2) for i, x in enumerate(g)),
            "dcg_exp": sum((2 ** max(x, 0) - 1) / math.log2(i + 2) for i, x in enumerate(g)),
            "f1": 0.0 if hits == 0 else 2 * p * r / (p + r),
            "hits": float(hits),
        }
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [1, 5, 10])
def test_cutoff_measures_against_plain_loops(seed, k):
    qrels, run = random_collection(seed)
    names = [f"RR@{k}", f"DCG@{k}", f"DCG(gain=exp)@{k}", f"F1@{k}", f"hits@{k}"]
    ev = metrics.evaluate(qrels, run, names)
    got = {n: _values(ev, n) for n in names}  # results keyed by the names as written
    expected = _expected(qrels, run, k)
    for q, e in expected.items():
        assert got[f"RR@{k}"][q] == pytest.approx(e["rr"], abs=1e-12)
        assert got[f"DCG@{k}"][q] == pytest.approx(e["dcg"], abs=1e-12)
        assert got[f"DCG(gain=exp)@{k}"][q] == pytest.approx(e["dcg_exp"], abs=1e-12)
        assert got[f"F1@{k}"][q] == pytest.approx(e["f1"], abs=1e-12)
        assert got[f"hits@{k}"][q] == e["hits"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rr_at_10_matches_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_collection(seed)
    qrels = qrels[qrels["relevance"] >= 0]  # ir_measures' providers read negative grades differently
    # ir_measures' RR@k provider breaks score ties its own way (not by docid as trec_eval does):
    # compared on distinct scores
    run = run.assign(score=run["score"] + np.arange(len(run)) * 1e-9)
    ev = metrics.evaluate(qrels, run, ["RR@10"])
    ours = _values(ev, "RR@10")
    q_in = [ir_measures.Qrel(q, d, int(g)) for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"])]
    r_in = [ir_measures.ScoredDoc(q, d, float(s)) for q, d, s in zip(run["query_id"], run["doc_id"], run["score"])]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.RR @ 10], q_in, r_in)}
    assert set(ours) <= set(theirs)
    for q, v in ours.items():
        assert v == pytest.approx(theirs[q], abs=1e-12), q


def test_ranx_names_are_aliases():
    same = {
        "precision@10": "P_10",
        "recall@100": "recall_100",
        "mrr": "recip_rank",
        "mrr@10": "rr_cut_10",
        "ndcg@10": "ndcg_cut_10",
        "ndcg_burges@10": "ndcg_ext_10(gain=exp)",
        "hit_rate@10": "success_10",
        "hits@10": "hits_10",
        "f1@10": "f1_cut_10",
        "r-precision": "Rprec",
        "map@100": "map_cut_100",
        "dcg@10": "dcg_cut_10",
        "MRR@10": "rr_cut_10",
        "RR@10": "rr_cut_10",
    }
    for name, canonical in same.items():
        assert [str(m) for m in metrics.parse_measures([name])] == [canonical], name


def test_against_ranx_where_installed():
    ranx = pytest.importorskip("ranx")
    qrels, run = random_collection(5)
    qrels = qrels[qrels["relevance"] >= 0]
    # ranx breaks score ties its own way: give every document a distinct score
    run = run.assign(score=run["score"] + np.arange(len(run)) * 1e-9)
    q_dict, r_dict = {}, {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
        q_dict.setdefault(q, {})[d] = int(g)
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]):
        r_dict.setdefault(q, {})[d] = float(s)
    shared = set(q_dict) & set(r_dict)
    q_dict = {q: v for q, v in q_dict.items() if q in shared}
    r_dict = {q: v for q, v in r_dict.items() if q in shared}
    names = ["mrr@10", "dcg@10", "f1@10", "hits@10", "precision@5", "ndcg_burges@10"]
    theirs = ranx.evaluate(ranx.Qrels(q_dict), ranx.Run(r_dict), names, return_mean=False)
    ev = metrics.evaluate(qrels, run, names)
    order = list(ranx.Run(r_dict).keys())  # ranx returns per-query values in its run's order
    for name in names:
        ours = _values(ev, name)
        np.testing.assert_allclose([ours[q] for q in order], theirs[name], atol=1e-9, err_msg=name)


def test_results_are_keyed_by_the_names_as_written():
    qrels, run = random_collection(1)
    ev = metrics.evaluate(qrels, run, ["AP", "nDCG@10", "P.5,10", "mrr@10", "ndcg_cut_10"])
    assert list(ev.summary().columns) == ["AP", "nDCG@10", "P_5", "P_10", "mrr@10"]  # in the order asked
    canonical = metrics.evaluate(qrels, run, ["AP", "nDCG@10"], keep_names=False)
    assert list(canonical.summary().columns) == ["map", "ndcg_cut_10"]
    assert ev.per_query_wide("nDCG@10").equals(ev.per_query_wide("ndcg_cut_10"))
    reused = metrics.evaluator(qrels, ["AP", "nDCG@10"]).evaluate(run)
    assert list(reused.summary().columns) == ["AP", "nDCG@10"]


def test_measure_objects_round_trip_and_key_the_results():
    from metrics import AP, RR, P, nDCG

    names = [AP, nDCG @ 10, P(rel=2) @ 5, RR @ 10, nDCG(gain="exp") @ 10]
    assert [str(n) for n in names] == ["AP", "nDCG@10", "P(rel=2)@5", "RR@10", "nDCG(gain='exp')@10"]
    assert {nDCG @ 10: 1}["nDCG@10"] == 1  # hashable, equal to its text
    for n in names:
        assert metrics.parse_measures([str(n)]) == metrics.parse_measures([n])
    qrels, run = random_collection(2)
    ev = metrics.evaluate(qrels, run, names)
    summary = ev.summary()
    assert summary[nDCG @ 10].iloc[0] == summary["nDCG@10"].iloc[0]
    assert set(map(str, names)) == set(summary.columns)
    with pytest.raises(ValueError):
        (nDCG @ 10) @ 5
