"""ir_measures' measure objects (``from ir_measures import AP, nDCG``) wherever a measure name is taken:
``metrics.evaluate``, ``Evaluator``, ``per_query_wide``, comparisons; the values equal ir_measures' own."""

from __future__ import annotations

import ir_measures
import numpy as np
import pytest
from conftest import random_collection
from ir_measures import (
    AP,
    INSQ,
    RR,
    Bpref,
    Compat,
    IPrec,
    Judged,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    P,
    R,
    Rprec,
    SetF,
    SetP,
    SetR,
    Success,
    alpha_nDCG,
    infAP,
    nDCG,
)

import metrics
from metrics.compare import compare

MEASURES = [
    AP,
    AP @ 10,
    AP(rel=2),
    nDCG,
    nDCG @ 10,
    nDCG(gains={0: 0, 1: 1, 2: 5, 3: 10}) @ 10,
    P @ 5,
    P(rel=2) @ 5,
    R @ 20,
    RR,
    RR @ 10,
    Rprec,
    Bpref,
    infAP,
    Success @ 1,
    IPrec @ 0.5,
    SetP,
    SetR,
    SetF,
    SetF(beta=0.5),
    NumRet,
    NumRelRet,
    NumRel,
    NumQ,
    Judged @ 10,
    Compat(p=0.8),
    INSQ(max_rel=3),
]


def _untied(seed: int):
    """A collection without score ties (ir_measures' providers order tied documents their own ways) and
    without negative grades; queries only in the run and only in the qrels stay."""
    qrels, run = random_collection(seed)
    qrels = qrels[qrels["relevance"] >= 0].reset_index(drop=True)
    run = run.copy()
    run["score"] = np.arange(len(run), 0, -1, dtype=np.float64)
    return qrels, run


def _theirs(seed: int):
    """ir_measures' values of :data:`MEASURES` on ``_untied(seed)``, computed in a process of their own:
    pytrec_eval keeps the parameters of trec_eval's measures (nDCG's gains) in C state that outlives its
    evaluators, so that in a long test process an earlier evaluation may change a later one's nDCG."""
    qrels, run = _untied(seed)
    values = [(str(m.measure), m.query_id, m.value) for m in ir_measures.iter_calc(MEASURES, qrels, run)]
    agg = ir_measures.calc_aggregate([AP, nDCG @ 10, P @ 5], qrels, run)
    return values, {str(m): v for m, v in agg.items()}


@pytest.mark.parametrize("seed", [3, 4])
def test_measure_objects_give_ir_measures_values(seed):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    qrels, run = _untied(seed)
    ev = metrics.evaluate(qrels, run, MEASURES)
    pq = ev.per_query
    ours = {(m, q): v for m, q, v in zip(pq["measure"], pq["query_id"], pq["value"])}
    assert set(pq["measure"]) == {str(m) for m in MEASURES}  # results keep the names as ir_measures writes them
    scored = set(ev.query_ids[ev.runs[0]])
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        values, agg = pool.submit(_theirs, seed).result(timeout=300)
    checked = 0
    for measure, query_id, value in values:
        if query_id not in scored:
            continue  # ir_measures also scores the qrels queries the run does not have
        assert ours[(measure, query_id)] == pytest.approx(value, rel=1e-9, abs=1e-12), (measure, query_id)
        checked += 1
    assert checked >= len(MEASURES) * (len(scored) - 1)
    # ir_measures averages over the qrels' queries, a missing one scoring 0: trec_eval's -c
    summary = metrics.evaluate(qrels, run, [AP, nDCG @ 10, P @ 5], complete=True).summary()
    for m in (AP, nDCG @ 10, P @ 5):
        assert summary[str(m)].iloc[0] == pytest.approx(agg[str(m)], rel=1e-9)


def test_every_door_takes_them(tmp_path):
    qrels, run = _untied(5)
    other = run.copy()
    other["score"] = other["score"].to_numpy()[::-1].copy()
    other.attrs["name"] = "other"
    by_text = metrics.evaluate(qrels, [run, other], ["AP", "nDCG@10"])
    by_object = metrics.evaluate(qrels, [run, other], [AP, nDCG @ 10])
    assert by_object.summary().equals(by_text.summary())
    assert metrics.evaluate(qrels, run, nDCG @ 10).summary().columns.tolist() == ["nDCG@10"]
    evaluator = metrics.evaluator(qrels, [AP, nDCG @ 10])
    assert evaluator.evaluate([run, other]).summary().equals(by_text.summary())
    assert metrics.Evaluator(qrels, [AP]).evaluate(run).summary().columns.tolist() == ["AP"]
    assert by_object.per_query_wide(nDCG @ 10).equals(by_text.per_query_wide("nDCG@10"))
    cmp_object = compare(by_object, baseline="rnd", measures=[AP, nDCG @ 10])
    cmp_text = compare(by_text, baseline="rnd", measures=["AP", "nDCG@10"])
    assert cmp_object.equals(cmp_text)
    assert metrics.parse_measures([AP, nDCG @ 10]) == metrics.parse_measures(["AP", "nDCG@10"])


def test_diversity_objects_are_sent_where_the_text_is():
    qrels, run = _untied(6)
    with pytest.raises(ValueError, match="evaluate_diversity"):
        metrics.evaluate(qrels, run, [alpha_nDCG @ 20])
    with pytest.raises(TypeError, match="ir_measures measure"):
        metrics.evaluate(qrels, run, [3.5])
