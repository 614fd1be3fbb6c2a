"""BEIR's Accuracy@k (the share of queries with a relevant document among the first k) by a name that says so,
against BEIR's own rule; the name BEIR uses, which ir_measures gives another measure, warns."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pytest

import metrics


def beir_top_k_accuracy(qrels: dict, results: dict, k_values: list[int]) -> dict:
    """BEIR's ``EvaluateRetrieval.top_k_accuracy`` (beir/retrieval/custom_metrics.py), its rule as written there:
    the first k of each query's results by score, a hit when one of the query's documents graded above 0 is
    among them, the hits divided by the number of qrels queries."""
    top_k_acc = {f"Accuracy@{k}": 0.0 for k in k_values}
    k_max, top_hits = max(k_values), {}
    for query_id, doc_scores in results.items():
        top_hits[query_id] = [d for d, _ in sorted(doc_scores.items(), key=lambda x: x[1], reverse=True)[:k_max]]
    for query_id in top_hits:
        relevant = {d for d in qrels.get(query_id, {}) if qrels[query_id][d] > 0}
        for k in k_values:
            if any(d in top_hits[query_id][:k] for d in relevant):
                top_k_acc[f"Accuracy@{k}"] += 1.0
    return {name: hits / len(qrels) for name, hits in top_k_acc.items()}


def _data(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(30):
        docs = [f"d{d}" for d in rng.choice(300, size=60, replace=False)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[:6], rng.choice([0, 0, 1, 2], size=6))}
        if q % 7 == 3:
            continue  # a query the run lacks: BEIR counts it as a miss
        scores = rng.permutation(50) + 0.5
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs[2:52], scores)}
    return qrels, run


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_top_k_accuracy_is_beirs_accuracy(seed):
    qrels, run = _data(seed)
    ks = [1, 3, 5, 10, 100]
    expected = beir_top_k_accuracy(qrels, run, ks)
    names = [f"top_k_accuracy@{k}" for k in ks]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # these names warn of nothing
        summary = metrics.evaluate(qrels, run, names, complete=True).summary()
    for k in ks:
        assert summary[f"top_k_accuracy@{k}"].iloc[0] == pytest.approx(expected[f"Accuracy@{k}"], abs=1e-12)
    other = metrics.evaluate(qrels, run, ["TopKAccuracy@10"], complete=True).summary()
    assert other["TopKAccuracy@10"].iloc[0] == summary["top_k_accuracy@10"].iloc[0]
    assert metrics.parse_measures("top_k_accuracy@10") == metrics.parse_measures("Success@10")


def test_beirs_name_warns_and_keeps_ir_measures_meaning():
    qrels, run = _data(4)
    with pytest.warns(UserWarning, match=r"BEIR's Accuracy@10.*is top_k_accuracy@10"):
        ev = metrics.evaluate(qrels, run, ["Accuracy@10"])
    assert ev.summary()["Accuracy@10"].iloc[0] != pytest.approx(beir_top_k_accuracy(qrels, run, [10])["Accuracy@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ir_measures' own object means ir_measures' measure: no warning
        metrics.evaluate(qrels, run, [ir_measures.Accuracy @ 10])
        metrics.parse_measures(["Accuracy(rel=2)@10", "Accuracy"])


def test_ir_eval_says_so_too(tmp_path, capsys):
    from metrics.cli.ir_eval import main

    qrels, run = _data(5)
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in run.items() for d, s in docs.items()))
    assert main(["-c", "-m", "Accuracy@10", "-m", "top_k_accuracy@10", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("ir-eval: warning: 'Accuracy@10' is read as ir_measures' Accuracy@10")
    expected = beir_top_k_accuracy(qrels, run, [10])["Accuracy@10"]
    assert f"{'success_10':<22}\tall\t{expected:.4f}" in out
