"""Diversity measures over intent-annotated qrels, checked against ndeval through pyndeval 0.0.8 (the
provider ir_measures 0.4.3 uses), and the reader of ``qid intent docid grade`` files.

Generated collections: several intents per query, documents relevant to several intents, grades -1..2
(negative: never relevant), retrieved documents outside the qrels, a query whose judgments are all 0,
qrels-only and run-only queries.  pyndeval breaks score ties by docid ascending, trec_eval (and we) by
docid descending, so the runs given to it have distinct scores, in our ranking order.  ndeval stops at
rank 20: the cutoffs are at most 20.
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import pandas as pd
import pytest
from conftest import run_frame

import metrics
from metrics.measures.diversity import parse_diversity

pyndeval = pytest.importorskip("pyndeval")


def intent_collection(seed: int, n_queries: int = 10, n_docs: int = 50):
    rng = np.random.default_rng(seed)
    docs = [("D" if i % 7 == 0 else "d") + str(i) for i in range(n_docs)]
    qrels, run = [], []
    for i in range(n_queries):
        q = ("Q" if i % 5 == 0 else "q") + str(i + 1)
        n_intents = int(rng.integers(1, 6))
        for j in range(n_intents):
            judged = rng.choice(n_docs, size=int(rng.integers(2, 15)), replace=False)
            grades = np.zeros(len(judged), int) if i == 2 else rng.choice([-1, 0, 0, 1, 1, 2], size=len(judged))
            qrels += [(q, str(j + 1), docs[d], int(g)) for d, g in zip(judged, grades)]
        if i == 4:
            continue  # qrels-only query
        retrieved = rng.choice(n_docs, size=int(rng.integers(1, 35)), replace=False)
        scores = rng.permutation(len(retrieved)).astype(float) + 1.0  # distinct
        run += [(q, docs[d], float(s)) for d, s in zip(retrieved, scores)]
    run += [("zz_run_only", docs[0], 1.0)]
    return pd.DataFrame(qrels, columns=["query_id", "intent", "doc_id", "relevance"]), run_frame(run, "div")


NAMES = [
    "alpha_nDCG@1",
    "alpha_nDCG@5",
    "alpha_nDCG@10",
    "alpha_nDCG@20",
    "alpha_nDCG(alpha=0.25)@10",
    "ERR_IA@1",
    "ERR_IA@5",
    "ERR_IA@20",
    "P_IA@1",
    "P_IA@10",
    "P_IA@20",
    "StRecall@5",
    "StRecall@20",
    "NRBP",
    "NRBP(alpha=0.25,beta=0.8)",
    "alpha_nDCG(rel=2)@10",
    "P_IA(rel=2)@5",
]


def _pyndeval(qrels, run, name):
    m = parse_diversity(name)
    ndeval_name = {"alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "P_IA": "P-IA", "StRecall": "strec"}.get(
        m.name, m.name
    )
    ndeval_name += "" if m.cutoff is None else f"@{m.cutoff}"
    q_in = [pyndeval.SubtopicQrel(*row) for row in qrels.itertuples(index=False, name=None)]
    r_in = [pyndeval.ScoredDoc(q, d, s) for q, d, s in zip(run["query_id"], run["doc_id"], run["score"])]
    ev = pyndeval.RelevanceEvaluator(q_in, [ndeval_name], relevance_level=m.rel, alpha=m.alpha, beta=m.beta)
    return {q: v[ndeval_name] for q, v in ev.evaluate(r_in).items()}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_diversity_measures_match_pyndeval(seed):
    qrels, run = intent_collection(seed)
    ev = metrics.evaluate_diversity(qrels, run, NAMES)
    pq = ev.per_query
    ours = {(m, q): v for m, q, v in zip(pq["measure"], pq["query_id"], pq["value"])}
    worst = 0.0
    for name in NAMES:
        theirs = _pyndeval(qrels, run, name)
        keys = [q for m, q in ours if m == name]
        assert set(keys) == set(theirs), name  # the queries of both the qrels and the run
        for q in keys:
            worst = max(worst, abs(ours[(name, q)] - theirs[q]))
            assert ours[(name, q)] == pytest.approx(theirs[q], abs=1e-12), (name, q)
        assert ev.summary()[name].iloc[0] == pytest.approx(np.mean([theirs[q] for q in keys]), abs=1e-12)
    assert worst < 1e-12


def test_diversity_means_match_ir_measures_over_all_qrels_queries():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = intent_collection(7)
    names = ["alpha_nDCG@20", "ERR_IA@10", "P_IA@5", "StRecall@10", "NRBP"]
    frame = qrels.rename(columns={"intent": "iteration"})
    theirs = ir_measures.pyndeval.calc_aggregate([ir_measures.parse_measure(n) for n in names], frame, run)
    ev = metrics.evaluate_diversity(qrels, run, names, complete=True)  # missing queries score 0, as there
    for name in names:
        assert ev.summary()[name].iloc[0] == pytest.approx(theirs[ir_measures.parse_measure(name)], abs=1e-12)


def _alpha_ndcg_loop(ranked, judged, k, alpha=0.5):
    """alpha-nDCG@k written out from Clarke et al. (SIGIR 2008) with ndeval's greedy ideal ranking."""

    def dcg(rows):
        seen: dict = {}
        total = 0.0
        for i, intents in enumerate(rows[:k]):
            gain = 0.0
            for j in intents:
                gain += (1 - alpha) ** seen.get(j, 0)
                seen[j] = seen.get(j, 0) + 1
            total += gain / math.log2(i + 2)
        return total

    left, ideal, seen = dict(judged), [], {}
    while left and len(ideal) < k:
        score = {d: sum((1 - alpha) ** seen.get(j, 0) for j in s) for d, s in left.items()}
        best = max(score.values())
        pick = max(d for d, v in score.items() if v == best)
        ideal.append(left.pop(pick))
        for j in ideal[-1]:
            seen[j] = seen.get(j, 0) + 1
    top = dcg(ranked)
    return top / dcg(ideal) if top else 0.0


def test_alpha_ndcg_against_a_plain_loop():
    qrels, run = intent_collection(11)
    ev = metrics.evaluate_diversity(qrels, run, ["alpha_nDCG@10"])
    rel = qrels[qrels["relevance"] >= 1]
    ranked_run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    for q, v in zip(ev.per_query["query_id"], ev.per_query["value"]):
        judged = {d: set(g["intent"]) for d, g in rel[rel["query_id"] == q].groupby("doc_id")}
        ranked = [judged.get(d, set()) for d in ranked_run[ranked_run["query_id"] == q]["doc_id"]]
        assert v == pytest.approx(_alpha_ndcg_loop(ranked, judged, 10), abs=1e-12), q


def test_reading_intent_qrels_files_frames_and_records(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text("# TREC Web 2012 style\n101 1 doc-a 1\n101 2 doc-a 0\n\n101 2 doc-b 2\n102 1 doc-c -1\n")
    qrels = metrics.read_intent_qrels(path)
    assert qrels.values.tolist() == [
        ["101", "1", "doc-a", 1],
        ["101", "2", "doc-a", 0],
        ["101", "2", "doc-b", 2],
        ["102", "1", "doc-c", -1],
    ]
    gz = tmp_path / "div.qrels.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert metrics.read_intent_qrels(gz).equals(qrels)
    ir_measures = pytest.importorskip("ir_measures")
    records = [ir_measures.Qrel("101", "doc-a", 1, "1"), ir_measures.Qrel("101", "doc-b", 2, "2")]
    assert metrics.read_intent_qrels(records)["intent"].tolist() == ["1", "2"]
    frame = pd.DataFrame({"qid": [1], "subtopic_id": [3], "docno": ["x"], "label": [1]})
    assert metrics.read_intent_qrels(frame).values.tolist() == [["1", "3", "x", 1]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("101 1 doc-a\n", "line 1: found 3 columns; expected 4 columns 'qid intent docid grade'"),
        ("101 1 doc-a 1\n101 1 doc-b x\n", "line 2: found relevance 'x' in column 4"),
        ("101 1 doc-a 1\n101 1 doc-a 2\n", "line 2: found document 'doc-a' judged twice for intent '1'"),
        ("# nothing\n", "no data lines"),
    ],
)
def test_bad_intent_qrels_name_the_problem(tmp_path, text, message):
    path = tmp_path / "bad.qrels"
    path.write_text(text)
    with pytest.raises(metrics.InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        metrics.read_intent_qrels(path)


def test_diversity_names():
    assert str(parse_diversity("alpha-nDCG@20")) == "alpha_nDCG@20"
    assert str(parse_diversity("strec@10")) == "StRecall@10"
    assert str(parse_diversity("NRBP(alpha=0.5,beta=0.8)")) == "NRBP(beta=0.8)"
    assert parse_diversity("P_IA(alpha=0.2)@5") == parse_diversity("P_IA@5")  # alpha plays no part there
    for bad in ("alpha_nDCG", "NRBP@10", "ERR_IA@0", "P_IA(rel=0)@5", "alpha_nDCG(alpha=2)@5", "StRecall(x=1)@5"):
        with pytest.raises(ValueError):
            parse_diversity(bad)
    with pytest.raises(ValueError, match="evaluate_diversity"):
        metrics.parse_measures("alpha_nDCG@20")
    with pytest.raises(ValueError, match="unknown diversity measure"):
        metrics.evaluate_diversity(intent_collection(0)[0], intent_collection(0)[1], ["nDCG@10"])


def test_results_are_keyed_by_the_names_as_written():
    qrels, run = intent_collection(1)
    ev = metrics.evaluate_diversity(qrels, run, "alpha-nDCG@20 ERR_IA@20 strec@10")
    assert list(ev.summary().columns) == ["alpha-nDCG@20", "ERR_IA@20", "strec@10"]
    assert list(ev.per_query_wide("strec@10").columns) == ["div"]
    assert any("skipped" in w for w in ev.warnings)  # the qrels-only query
    lines = ev.trec_lines()
    assert lines[0].startswith("alpha-nDCG@20") and lines[0].split("\t")[1] == "all"
