"""metrics.judgments.reproduction against repro_eval's RpdEvaluator and RplEvaluator (Breuer et al.,
SIGIR 2020) on generated TREC runs written to files: 30 queries, 100 to 1000 documents each, tied
scores, unjudged documents."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from judgments_data import make_qrels, regrade, write_qrels, write_run

from metrics.judgments import reproduction

repro_eval = pytest.importorskip("repro_eval.Evaluator")

MEASURES = ["AP", "P@10", "nDCG@10"]  # repro_eval's names for them (ir_measures'), taken by metrics.evaluate too


def _run(rng, queries, universe, sizes, grades):
    """Each query's documents drawn from the universe, the judged ones always among them, scored so that
    the relevant ones tend to come first (one decimal: ties)."""
    rows = []
    for q, n in zip(queries, sizes):
        judged = [int(d[1:]) for d in grades[q]]
        rest = np.setdiff1d(np.arange(universe), judged)
        docs = np.concatenate([judged, rng.choice(rest, size=max(n - len(judged), 0), replace=False)])[:n]
        names = [f"d{d:03d}" for d in docs]
        boost = np.array([grades[q].get(d, 0) for d in names], dtype=float)
        scores = np.round(rng.random(len(docs)) * 20 + 6 * boost, 1)
        rows += [(q, d, float(s)) for d, s in zip(names, scores)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _perturbed(rng, run, universe):
    """A reproduction: each query's scores jittered (ties kept), a tenth of the documents replaced."""
    out = run.copy()
    out["score"] = np.round(out["score"] + rng.normal(0, 1.5, len(out)), 1)
    swap = rng.random(len(out)) < 0.1
    out.loc[swap, "doc_id"] = [f"x{i:05d}" for i in range(int(swap.sum()))]
    return out.drop_duplicates(["query_id", "doc_id"])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(2020)
    tmp = tmp_path_factory.mktemp("repro")
    qrels = make_qrels(rng, queries=30, judged=80, universe=1200)
    qrels = qrels[qrels["relevance"] >= 0]  # repro_eval reads negative grades as ir_measures does: left out here
    queries = sorted(qrels["query_id"].unique())
    sizes = rng.integers(100, 1001, size=len(queries))
    universe = 1200
    grades = {q: dict(zip(part["doc_id"], part["relevance"])) for q, part in qrels.groupby("query_id")}
    orig_a = _run(rng, queries, universe, sizes, grades)
    orig_b = _run(rng, queries, universe, sizes, {q: {d: g // 2 for d, g in gq.items()} for q, gq in grades.items()})
    rep_a, rep_b = _perturbed(rng, orig_a, universe), _perturbed(rng, orig_b, universe)
    # the same length per query in both runs of a pair (repro_eval's KTU pairs the i-th documents)
    rep_a = rep_a.groupby("query_id").head(1000)
    paths = {
        "qrels": write_qrels(tmp / "qrels.txt", qrels),
        "qrels_rpl": write_qrels(tmp / "qrels_rpl.txt", regrade(rng, qrels, universe)),
        "orig_a": write_run(tmp / "orig_a.txt", orig_a, "a"),
        "orig_b": write_run(tmp / "orig_b.txt", orig_b, "b"),
        "rep_a": write_run(tmp / "rep_a.txt", rep_a, "ra"),
        "rep_b": write_run(tmp / "rep_b.txt", rep_b, "rb"),
    }
    return paths


def _lengths_equal(paths):
    from metrics import read_run

    a, b = read_run(paths["orig_a"]), read_run(paths["rep_a"])
    return (a.groupby("query_id").size() == b.groupby("query_id").size()).all()


def test_reproducibility_equals_repro_eval(files):
    rpd = repro_eval.RpdEvaluator(
        qrels_orig_path=files["qrels"],
        run_b_orig_path=files["orig_b"],
        run_a_orig_path=files["orig_a"],
        run_b_rep_path=files["rep_b"],
        run_a_rep_path=files["rep_a"],
    )
    rpd.trim()
    rpd.evaluate()
    found = reproduction(
        files["orig_a"], files["rep_a"], files["qrels"], files["orig_b"], files["rep_b"], measures=MEASURES
    )
    assert found.kind == "reproducibility"
    rankings = found.rankings.set_index("role")
    rbo = rpd.rbo()
    for role in ("advanced", "baseline"):
        assert rankings.loc[role, "rbo"] == pytest.approx(rbo[role], abs=1e-9)
    if _lengths_equal(files):
        ktu = rpd.ktu()
        assert rankings.loc["advanced", "ktu"] == pytest.approx(ktu["advanced"], abs=1e-9)
    per_topic = rpd.rbo(per_topic=True)["advanced"]
    mine = found.per_query[found.per_query["role"] == "advanced"].set_index("query_id")["rbo"]
    assert max(abs(mine[q] - v) for q, v in per_topic.items()) < 1e-9
    scores = found.scores.set_index(["role", "measure"])
    rmse, nrmse, p = rpd.rmse(), rpd.nrmse(), rpd.ttest()
    effects = found.effects.set_index("measure")
    er, dri = rpd.er(), rpd.dri()
    for m in MEASURES:
        for role in ("advanced", "baseline"):
            assert scores.loc[(role, m), "rmse"] == pytest.approx(rmse[role][m], abs=1e-9)
            assert scores.loc[(role, m), "nrmse"] == pytest.approx(nrmse[role][m], abs=1e-9)
            assert scores.loc[(role, m), "p_value"] == pytest.approx(p[role][m], abs=1e-9)
        assert effects.loc[m, "er"] == pytest.approx(er[m], abs=1e-9)
        assert effects.loc[m, "dri"] == pytest.approx(dri[m], abs=1e-9)


def test_ktu_equals_repro_eval_where_the_lengths_agree(files):
    rpd = repro_eval.RpdEvaluator(
        qrels_orig_path=files["qrels"], run_b_orig_path=files["orig_b"], run_b_rep_path=files["orig_b"]
    )
    rpd.trim()
    rpd.evaluate()
    found = reproduction(files["orig_b"], files["orig_b"], files["qrels"], measures=MEASURES)
    assert found.rankings.loc[0, "ktu"] == pytest.approx(rpd.ktu()["baseline"], abs=1e-9) == 1.0
    from repro_eval.measure.document_order import KTU

    from metrics.judgments.reproduction import ktu

    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2, 60))
        a = [f"d{i}" for i in rng.choice(100, n, replace=False)]
        b = [f"d{i}" for i in rng.choice(100, n, replace=False)]
        ref = KTU({"1": dict.fromkeys(a, 1.0)}, {"1": dict.fromkeys(b, 1.0)}, per_topic=True)["1"]
        assert ktu(sorted(a, reverse=True), sorted(b, reverse=True)) == pytest.approx(ref, abs=1e-12)


def test_replicability_equals_repro_eval(files):
    rpl = repro_eval.RplEvaluator(
        qrels_orig_path=files["qrels"],
        qrels_rpl_path=files["qrels_rpl"],
        run_b_orig_path=files["orig_b"],
        run_a_orig_path=files["orig_a"],
        run_b_rep_path=files["rep_b"],
        run_a_rep_path=files["rep_a"],
    )
    rpl.trim()
    rpl.evaluate()
    found = reproduction(
        files["orig_a"],
        files["rep_a"],
        files["qrels"],
        files["orig_b"],
        files["rep_b"],
        qrels_reproduced=files["qrels_rpl"],
        measures=MEASURES,
    )
    assert found.kind == "replicability"
    scores = found.scores.set_index(["role", "measure"])
    effects = found.effects.set_index("measure")
    er, dri, p = rpl.er(), rpl.dri(), rpl.ttest()
    for m in MEASURES:
        assert effects.loc[m, "er"] == pytest.approx(er[m], abs=1e-9)
        assert effects.loc[m, "dri"] == pytest.approx(dri[m], abs=1e-9)
        for role in ("advanced", "baseline"):
            assert scores.loc[(role, m), "p_value"] == pytest.approx(p[role][m], abs=1e-9)
            assert math.isnan(scores.loc[(role, m), "rmse"])
    assert "replicability" in found.not_computable["ktu"]


def test_what_cannot_be_computed_is_said(files):
    found = reproduction(files["orig_a"], files["rep_a"], files["qrels"], measures=["AP"])
    assert math.isnan(found.effects.loc[0, "er"]) and "baseline pair" in found.not_computable["er"]
    with pytest.raises(ValueError, match="in pairs"):
        reproduction(files["orig_a"], files["rep_a"], files["qrels"], baseline_original=files["orig_b"])
    same = reproduction(
        files["orig_a"], files["rep_a"], files["qrels"], files["orig_a"], files["rep_a"], measures=["AP"]
    )
    assert math.isnan(same.effects.loc[0, "er"]) and "do not differ" in same.not_computable["er"]


def test_runs_on_different_queries_are_compared_on_those_they_share(files):
    from metrics import read_run

    rep = read_run(files["rep_a"])
    kept = sorted(rep["query_id"].unique())[5:]
    found = reproduction(files["orig_a"], rep[rep["query_id"].isin(kept)], files["qrels"], measures=["AP"])
    whole = reproduction(files["orig_a"], files["rep_a"], files["qrels"], measures=["AP"])
    assert found.rankings.loc[0, "queries"] == len(kept) == whole.rankings.loc[0, "queries"] - 5
    assert any("different queries" in note for note in found.notes)
    per_query = whole.per_query.set_index("query_id").loc[kept, "rbo"]
    assert found.rankings.loc[0, "rbo"] == pytest.approx(per_query.mean(), abs=1e-12)
