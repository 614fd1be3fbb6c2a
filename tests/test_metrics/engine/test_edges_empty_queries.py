"""A query given in a run dict with no documents (``run[q] = {}``) is a query of that run, as pytrec_eval's
dict door has it: every measure scores 0 for it and it counts in the mean.  A query missing from the run
is still skipped (without ``complete``), as pytrec_eval and trec_eval skip it."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

import metrics

MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000", "num_q"]


def _dicts(seed: int):
    """Qrels and a run with tied scores, unjudged documents, queries given empty and queries missing."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        qid = f"q{q}"
        docs = [f"d{d}" for d in rng.choice(200, size=60, replace=False)]
        qrels[qid] = {d: int(g) for d, g in zip(docs[:30], rng.integers(0, 3, size=30))}
        kind = q % 5
        if kind == 0:
            run[qid] = {}  # given, with no documents
        elif kind == 1 and q > 10:
            continue  # missing from the run
        else:
            retrieved = docs[int(rng.integers(0, 20)) : int(rng.integers(25, 60))]  # judged and unjudged
            run[qid] = {d: float(s) for d, s in zip(retrieved, rng.integers(0, 6, size=len(retrieved)))}  # ties
    run["only_in_run"] = {"d1": 1.0}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_empty_queries_count_as_pytrec_eval_counts_them(seed):
    qrels, run = _dicts(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    ev = metrics.evaluate(qrels, run, MEASURES)
    empty = sorted(q for q, docs in run.items() if not docs)
    assert empty and set(empty) <= set(theirs)  # pytrec_eval reports the empty queries
    assert sorted(ev.query_ids["run"]) == sorted(theirs)
    per_query = ev.per_query.set_index(["query_id", "measure"])["value"]
    for q in theirs:
        for m in MEASURES:
            assert per_query[(q, m)] == pytest.approx(theirs[q][m], abs=1e-12), (q, m)
    for q in empty:
        assert all(theirs[q][m] == 0 for m in MEASURES if m != "num_q")
    summary = ev.summary().loc["run"]
    for m in MEASURES:
        values = [theirs[q][m] for q in theirs]
        expected = sum(values) if m == "num_q" else float(np.mean(values))
        assert summary[m] == pytest.approx(expected, abs=1e-12), m
    assert summary["num_q"] == len(theirs)


def test_the_mean_of_a_small_case():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 1}, "q3": {"z": 1}}
    run = {"q1": {"a": 1.0, "u": 1.0}, "q2": {}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_q"}).evaluate(run)
    assert sorted(theirs) == ["q1", "q2"] and theirs["q2"]["map"] == 0.0
    summary = metrics.evaluate(qrels, run, ["map", "num_q"]).summary().loc["run"]
    assert summary["num_q"] == 2 and summary["map"] == pytest.approx((theirs["q1"]["map"] + 0.0) / 2)


def test_the_evaluator_counts_them_too():
    qrels, run = _dicts(4)
    once = metrics.evaluate(qrels, run, MEASURES).summary()
    again = metrics.evaluator(qrels, MEASURES).evaluate(run).summary()
    assert once.equals(again)


def test_a_query_of_a_file_is_never_empty_and_files_are_unchanged(tmp_path):
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 1}}
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 a 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2.0 r\nq1 Q0 u 2 1.0 r\n")
    from_file = metrics.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["map", "num_q"])
    from_dict = metrics.evaluate(qrels, {"q1": {"a": 2.0, "u": 1.0}}, ["map", "num_q"])
    assert from_file.summary().loc[from_file.runs[0], "num_q"] == 1
    assert from_file.summary().iloc[0].tolist() == from_dict.summary().iloc[0].tolist()
