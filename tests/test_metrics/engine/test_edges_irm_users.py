"""ir_measures' users: results indexed by the measure objects asked (``summary()[nDCG@10]``),
``calc_aggregate`` and ``iter_calc`` shaped as ir_measures' own (checked against ir_measures), and one
warning per call for ``Accuracy@10``."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pytest
from ir_measures import AP, RR, P, R, nDCG

import metrics

MEASURES = [nDCG @ 10, AP, P @ 5, RR, R @ 100]


def _dicts(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{d}" for d in rng.choice(80, size=40, replace=False)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[:20], rng.integers(0, 3, size=20))}
        retrieved = docs[int(rng.integers(0, 10)) :]
        run[f"q{q}"] = {d: float(s) for d, s in zip(retrieved, rng.permutation(len(retrieved)) + 1.0)}
    return qrels, run


def test_summary_is_indexed_by_the_measure_objects():
    qrels, run = _dicts(0)
    summary = metrics.evaluate(qrels, run, MEASURES).summary()
    assert summary[nDCG @ 10].tolist() == summary["nDCG@10"].tolist()
    assert summary[[AP, nDCG @ 10]].columns.tolist() == ["AP", "nDCG@10"]
    # the same measure asked by trec_eval's name
    by_trec = metrics.evaluate(qrels, run, ["ndcg_cut.10"]).summary()
    assert by_trec[nDCG @ 10].tolist() == by_trec["ndcg_cut_10"].tolist()


@pytest.mark.parametrize("seed", [0, 1])
def test_calc_aggregate_as_ir_measures(seed):
    qrels, run = _dicts(seed)
    ours = metrics.calc_aggregate(MEASURES, qrels, run)
    theirs = ir_measures.calc_aggregate(MEASURES, qrels, run)
    assert set(ours) == set(theirs) == set(MEASURES)
    for m in MEASURES:
        assert ours[m] == pytest.approx(theirs[m], abs=1e-9), m


@pytest.mark.parametrize("seed", [0, 1])
def test_iter_calc_as_ir_measures(seed):
    qrels, run = _dicts(seed)
    ours = {(m.query_id, str(m.measure)): m.value for m in metrics.iter_calc(MEASURES, qrels, run)}
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-9), key
    first = next(iter(metrics.iter_calc([nDCG @ 10], qrels, run)))
    assert first.measure is not None and first._fields == ("query_id", "measure", "value")


def test_accuracy_at_10_warns_once_per_call():
    qrels, run = _dicts(2)
    for call in (
        lambda: metrics.evaluate(qrels, run, ["Accuracy@10"]),
        lambda: metrics.evaluator(qrels, ["Accuracy@10"]).evaluate(run),
    ):
        with warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            call()
        assert len([w for w in told if "Accuracy@10" in str(w.message)]) == 1
