"""ndeval's other four measures, as pyndeval and ir_measures name them: alpha_DCG@k, nERR_IA@k, nNRBP and AP_IA
(ndeval's MAP-IA), from the same diversity kernels, equal to pyndeval per query (runs with distinct scores in our
ranking order, as in test_diversity; deep runs too), through the library, ir_measures' objects and ir-eval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyndeval  # a test requirement (pyproject's test extra): imported, so that a missing one fails, not skips
import pytest
from conftest import run_frame
from ir_measures import AP_IA, alpha_DCG, nERR_IA, nNRBP

import metrics
from metrics.cli.ir_eval import main
from metrics.measures.diversity import parse_diversity
from tests.test_metrics.measures.test_diversity import intent_collection

NDEVAL = {"alpha_DCG": "alpha-DCG", "nERR_IA": "nERR-IA", "nNRBP": "nNRBP", "AP_IA": "MAP-IA"}
NAMES = [
    "alpha_DCG@1",
    "alpha_DCG@5",
    "alpha_DCG@20",
    "alpha_DCG(alpha=0.25)@10",
    "nERR_IA@1",
    "nERR_IA@5",
    "nERR_IA@20",
    "nERR_IA(rel=2)@10",
    "nNRBP",
    "nNRBP(alpha=0.25,beta=0.8)",
    "AP_IA",
    "AP_IA(rel=2)",
]


def _theirs(qrels, run, name):
    m = parse_diversity(name)
    ndeval_name = NDEVAL[m.name] + ("" if m.cutoff is None else f"@{m.cutoff}")
    q_in = [pyndeval.SubtopicQrel(*row) for row in qrels.itertuples(index=False, name=None)]
    r_in = [pyndeval.ScoredDoc(q, d, s) for q, d, s in zip(run["query_id"], run["doc_id"], run["score"])]
    ev = pyndeval.RelevanceEvaluator(q_in, [ndeval_name], relevance_level=m.rel, alpha=m.alpha, beta=m.beta)
    return {q: v[ndeval_name] for q, v in ev.evaluate(r_in).items()}


def _deep(seed: int):
    """100 documents retrieved per query (beyond ndeval's depth of 20 for the measures over the whole ranking)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for i in range(8):
        for j in range(4):
            judged = rng.choice(150, size=30, replace=False)
            qrels += [(f"q{i}", str(j), f"d{d}", int(g)) for d, g in zip(judged, rng.choice([-1, 0, 1, 2], size=30))]
        retrieved = rng.choice(150, size=100, replace=False)
        run += [(f"q{i}", f"d{d}", float(s)) for d, s in zip(retrieved, rng.permutation(100) + 1.0)]
    return pd.DataFrame(qrels, columns=["query_id", "intent", "doc_id", "relevance"]), run_frame(run, "deep")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, "deep"])
def test_the_four_equal_pyndeval(seed):
    qrels, run = _deep(5) if seed == "deep" else intent_collection(seed)
    ev = metrics.evaluate_diversity(qrels, run, NAMES)
    pq = ev.per_query
    ours = {(m, q): v for m, q, v in zip(pq["measure"], pq["query_id"], pq["value"])}
    for name in NAMES:
        theirs = _theirs(qrels, run, name)
        keys = [q for m, q in ours if m == name]
        assert set(keys) == set(theirs), name
        for q in keys:
            if np.isnan(theirs[q]):  # ndeval's nNRBP is 0 / 0 where no intent has a relevant document (S = 0)
                assert name.startswith("nNRBP") and ours[(name, q)] == 0.0 and seed != "deep", (name, q)
                continue
            assert ours[(name, q)] == pytest.approx(theirs[q], abs=1e-12), (name, q)
        if not name.endswith("@1"):  # not all zeros: the check has something to check
            assert any(theirs[q] > 0 for q in keys), name


def test_ir_measures_objects_and_names():
    qrels, run = intent_collection(4)
    by_object = metrics.evaluate_diversity(qrels, run, [alpha_DCG @ 20, nERR_IA @ 20, nNRBP, AP_IA]).summary()
    by_name = metrics.evaluate_diversity(qrels, run, ["alpha-DCG@20", "nERR-IA@20", "nNRBP", "MAP-IA"]).summary()
    np.testing.assert_array_equal(by_object.to_numpy(), by_name.to_numpy())
    assert list(by_object.columns) == ["alpha_DCG@20", "nERR_IA@20", "nNRBP", "AP_IA"]
    with pytest.raises(ValueError, match="needs intent-annotated qrels"):
        metrics.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["AP_IA"])


def test_ir_eval_prints_and_explains_them(tmp_path, capsys):
    qrels, run = intent_collection(2)
    (tmp_path / "intents").write_text("".join(f"{q} {i} {d} {g}\n" for q, i, d, g in qrels.itertuples(index=False)))
    (tmp_path / "run").write_text(
        "".join(f"{q} Q0 {d} 0 {s} div\n" for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]))
    )
    assert main(["-q", "-m", "alpha_DCG@20 nNRBP AP_IA", str(tmp_path / "intents"), str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    theirs = _theirs(qrels, run, "AP_IA")
    assert f"{'AP_IA':<22}\tq2\t{theirs['q2']:.4f}" in out
    code = main(["--explain", "AP_IA", "--query", "q2", str(tmp_path / "intents"), str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 0 and "cannot be explained yet" not in out
    assert out.splitlines()[-1] == f"{'AP_IA':<22}\tq2\t{theirs['q2']:.4f}" and "AP-IA = (" in out
