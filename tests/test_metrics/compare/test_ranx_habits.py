"""ranx's habits: a Run's name kept as its label, ranx's metric spellings (``rbp.95``, ``ndcg@10-l2``) read as
the measures ranx computes (checked against ranx), the test names ``student`` and ``fisher``."""

from __future__ import annotations

import numpy as np
import pytest
import ranx

import metrics
from metrics.compare import compare
from metrics.compare.allpairs import compare_all_pairs


def _data(seed: int):
    """Qrels with grades 0-3 and runs without tied scores (ranx orders tied documents its own way)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(15):
        docs = [f"d{d}" for d in rng.choice(100, size=40, replace=False)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[:25], rng.integers(0, 4, size=25))}
        qrels[f"q{q}"][docs[0]] = 3  # a relevant document at every level
        retrieved = docs[int(rng.integers(0, 10)) :]
        run[f"q{q}"] = {d: float(s) for d, s in zip(retrieved, rng.permutation(len(retrieved)) + 1.0)}
    return qrels, run


NAMES = [
    "rbp.95",
    "rbp.8",
    "rbp.5",
    "precision@10-l2",
    "recall@20-l3",
    "mrr-l2",
    "map@20-l2",
    "hits@10-l2",
    "hit_rate@5-l3",
    "ndcg@10-l2",
    "ndcg@20-l3",
    "ndcg-l2",
    "f1@10-l2",
    "r-precision-l2",
    "map-l1",
]


#: ranx's rbp.NN is refused here (trec_eval's rbp.p=0.NN or RBP(p=0.NN)): its values under RBP(p=0.NN)
OURS = {"rbp.95": "RBP(p=0.95)", "rbp.8": "RBP(p=0.8)", "rbp.5": "RBP(p=0.5)"}


@pytest.mark.parametrize("seed", [1, 2])
def test_ranx_spellings_give_ranx_values(seed):
    qrels, run = _data(seed)
    ours = metrics.evaluate(qrels, run, [OURS.get(n, n) for n in NAMES]).per_query
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), NAMES, return_mean=False)
    queries = sorted(qrels)
    for name in NAMES:
        got = ours[ours["measure"] == OURS.get(name, name)].set_index("query_id")["value"].reindex(queries).to_numpy()
        np.testing.assert_allclose(got, np.asarray(theirs[name]), rtol=1e-9, atol=1e-12, err_msg=name)


def test_spellings_without_a_counterpart_name_ours():
    with pytest.raises(ValueError, match=r"RBP\(p=0.95\) gains every positive grade, RBP\(p=0.95,rel=2\)"):
        metrics.parse_measures("rbp.95-l2")
    with pytest.raises(ValueError, match="no counterpart here"):
        metrics.parse_measures("ndcg_burges@10-l2")
    with pytest.raises(ValueError, match=r"rbp\.p=0\.95.*RBP\(p=0\.95\)"):
        metrics.parse_measures("rbp.95")
    assert metrics.parse_measures("precision@5-l2") == metrics.parse_measures("P(rel=2)@5")
    assert metrics.parse_measures("P.5") == metrics.parse_measures("P@5")  # trec_eval's syntax as before
    assert metrics.parse_measures("rbp.p=0.5")[0].family == "rbp"


def test_run_names_are_kept_as_labels():
    qrels, run = _data(3)
    bm25, dense = ranx.Run(run, name="bm25"), ranx.Run({q: {d: -s for d, s in docs.items()} for q, docs in run.items()})
    dense.name = "dense"
    ev = metrics.evaluate(ranx.Qrels(qrels), [bm25, dense], ["map"])
    assert ev.runs == ["bm25", "dense"]
    assert metrics.evaluate(qrels, bm25, ["map"]).runs == ["bm25"]
    assert metrics.read_run(bm25).attrs["name"] == "bm25"
    assert metrics.fuse([bm25, dense], "rrf").attrs["name"] == "rrf"


def test_student_and_fisher_are_the_t_and_randomization_tests():
    qrels, run = _data(4)
    other = {q: {d: s + (3.0 if qrels[q].get(d, 0) > 1 else 0.0) for d, s in docs.items()} for q, docs in run.items()}
    ev = metrics.evaluate(qrels, {"a": run, "b": other}, ["map", "P@10"])
    assert compare(ev, "a", test="student", bootstrap=0).equals(compare(ev, "a", test="t", bootstrap=0))
    fisher = compare(ev, "a", test="fisher", permutations=500, bootstrap=0)
    assert fisher.equals(compare(ev, "a", test="permutation", permutations=500, bootstrap=0))
    assert set(compare_all_pairs(ev, test="student", bootstrap=0)["test"]) == {"t"}
