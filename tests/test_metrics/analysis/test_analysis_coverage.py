"""Judgment coverage (metrics.analysis.coverage): Judged@k against ir_measures, the holes against the
qrels, the flag of a run well below the others, and the condensed-list scores against scoring the run
with its unjudged documents taken out, on generated runs with ties, negative grades, unjudged documents
and queries missing from a run."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import qrels_frame, random_collection, run_frame

import metrics
from metrics.analysis import condensed_scores, coverage_by_query, judgment_coverage, judgment_holes
from metrics.analysis.coverage import UNDERESTIMATED
from metrics.engine.settings import Settings


def generated(seed: int):
    qrels, _ = random_collection(seed)
    runs = {name: random_collection(seed + 10 * i, name=name)[1] for i, name in enumerate("abc")}
    runs["b"] = runs["b"][runs["b"]["query_id"] != "q2"]  # a query run b does not answer
    return qrels, runs


def trec_ranks(run: pd.DataFrame) -> pd.DataFrame:
    """The run with its trec_eval rank (score descending, ties by document id in descending bytes)."""
    keyed = run.assign(_doc=run["doc_id"].map(str.encode))
    ordered = keyed.sort_values(["query_id", "score", "_doc"], ascending=[True, False, False], kind="stable")
    return ordered.assign(rank=ordered.groupby("query_id").cumcount() + 1).drop(columns="_doc")


def irm_judged(qrels: pd.DataFrame, run: pd.DataFrame, k: int) -> dict[str, float]:
    """ir_measures' Judged@k per query, the run given in trec_eval's order (ir_measures breaks ties by
    document id ascending, trec_eval descending: scores from the ranks leave it no tie to break)."""
    ranked = trec_ranks(run)
    q_in = [ir_measures.Qrel(q, d, int(g)) for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"])]
    r_in = [
        ir_measures.ScoredDoc(q, d, -float(r)) for q, d, r in zip(ranked["query_id"], ranked["doc_id"], ranked["rank"])
    ]
    return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Judged @ k], q_in, r_in)}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 5, 10, 100])
def test_judged_at_k_matches_ir_measures(seed, k):
    """Per query the run answers, and the mean over the qrels' queries with -c (ir_measures gives the
    qrels queries a run does not answer 0)."""
    qrels, runs = generated(seed)
    per_query = coverage_by_query(qrels, runs, (k,))
    complete = judgment_coverage(qrels, runs, (k,), settings=Settings(complete=True)).set_index("run")
    summary = judgment_coverage(qrels, runs, (k,)).set_index("run")
    for name, run in runs.items():
        theirs = irm_judged(qrels, run, k)
        mine = per_query[per_query["run"] == name].set_index("query_id")[f"Judged@{k}"]
        answered = set(run["query_id"])
        assert set(mine.index) == {q for q in theirs if q in answered}
        assert all(v == 0 for q, v in theirs.items() if q not in answered)
        for q, value in mine.items():
            assert value == pytest.approx(theirs[q], abs=1e-15), (name, q)
        assert complete.loc[name, f"Judged@{k}"] == pytest.approx(np.mean(list(theirs.values())), abs=1e-14)
        assert complete.loc[name, "queries"] == len(theirs)
        assert summary.loc[name, f"Judged@{k}"] == pytest.approx(mine.mean(), abs=1e-14)
        assert summary.loc[name, "queries"] == len(mine)


@pytest.mark.parametrize("seed", [0, 1])
def test_with_ties_the_whole_ranking_matches_ir_measures(seed):
    """Beyond every run's depth the order inside ties does not matter: the runs as they are."""
    qrels, runs = generated(seed)
    summary = judgment_coverage(qrels, runs, (1000,), settings=Settings(complete=True)).set_index("run")
    for name, run in runs.items():
        q_in = [ir_measures.Qrel(q, d, int(g)) for q, d, g in qrels.itertuples(index=False)]
        r_in = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run.itertuples(index=False)]
        theirs = ir_measures.calc_aggregate([ir_measures.Judged @ 1000], q_in, r_in)[ir_measures.Judged @ 1000]
        assert summary.loc[name, "Judged@1000"] == pytest.approx(theirs, abs=1e-14)


@pytest.mark.parametrize("seed", [0, 2])
def test_holes_are_the_unjudged_documents_of_the_top_k(seed):
    qrels, runs = generated(seed)
    k = 10
    holes = judgment_holes(qrels, runs, k)
    counts = coverage_by_query(qrels, runs, (k, 3))
    listed = set(zip(qrels["query_id"], qrels["doc_id"]))
    for name, run in runs.items():
        ranked = trec_ranks(run)
        ranked = ranked[(ranked["rank"] <= k) & ranked["query_id"].isin(set(qrels["query_id"]))]
        want = ranked[[(q, d) not in listed for q, d in zip(ranked["query_id"], ranked["doc_id"])]]
        mine = holes[holes["run"] == name]
        assert sorted(zip(mine["query_id"], mine["rank"], mine["doc_id"])) == sorted(
            zip(want["query_id"], want["rank"], want["doc_id"])
        )
        per_query = counts[counts["run"] == name].set_index("query_id")
        for q, rows in want.groupby("query_id"):
            assert per_query.loc[q, "unjudged@10"] == len(rows)
            assert per_query.loc[q, "unjudged@3"] == (rows["rank"] <= 3).sum()
        retrieved = ranked.groupby("query_id").size()
        np.testing.assert_allclose(
            per_query["Judged@10"], 1 - per_query["unjudged@10"] / retrieved.reindex(per_query.index), atol=1e-15
        )


def test_a_run_well_below_the_others_is_flagged():
    judged = [("q1", f"d{i}", i % 2) for i in range(20)] + [("q2", f"d{i}", 1) for i in range(20)]
    qrels = qrels_frame(judged)

    def run(name: str, unjudged: int) -> pd.DataFrame:
        rows = []
        for q in ("q1", "q2"):
            docs = [f"x{i}" for i in range(unjudged)] + [f"d{i}" for i in range(10 - unjudged)]
            rows += [(q, d, float(10 - r)) for r, d in enumerate(docs)]
        return run_frame(rows, name)

    runs = {"pooled": run("pooled", 0), "also": run("also", 1), "near": run("near", 2), "new": run("new", 6)}
    table = judgment_coverage(qrels, runs, (10, 5)).set_index("run")
    assert table["Judged@10"].tolist() == [1.0, 0.9, 0.8, 0.4]
    assert table["others"].tolist() == [0.8, 0.8, 0.9, 0.9]
    assert table["below_others"].tolist() == [False, False, False, True]
    assert not judgment_coverage(qrels, runs, (10,), gap=0.6)["below_others"].any()
    assert judgment_coverage(qrels, runs, (10,), gap=0.05)["below_others"].tolist() == [False, False, True, True]
    alone = judgment_coverage(qrels, {"new": runs["new"]}, (10,))
    assert not alone["below_others"].any() and np.isnan(alone["others"][0])
    assert "underestimated" in UNDERESTIMATED


@pytest.mark.parametrize("seed", [0, 1])
def test_condensed_scores_are_those_of_the_runs_without_their_unjudged_documents(seed):
    qrels, runs = generated(seed)
    measures = ["map", "P.5", "ndcg_cut.10", "bpref"]
    table = condensed_scores(qrels, runs, measures)
    judged = qrels[qrels["relevance"] >= 0]  # -J drops what the qrels do not list or list with a negative grade
    listed = set(zip(judged["query_id"], judged["doc_id"]))
    for name, run in runs.items():
        kept = run[[(q, d) in listed for q, d in zip(run["query_id"], run["doc_id"])]]
        # a query left with no document still counts, with 0 (trec_eval -J keeps it, with no document)
        answered = sorted(set(run["query_id"]) & set(qrels["query_id"]))
        ev = metrics.evaluate(qrels, {name: kept}, measures)
        want = pd.Series({m: ev.per_query_wide(m)[name].reindex(answered).fillna(0.0).mean() for m in ev.summary()})
        plain = metrics.evaluate(qrels, {name: run}, measures).summary().loc[name]
        mine = table[table["run"] == name].set_index("measure")
        for m in want.index:
            assert mine.loc[m, "condensed"] == pytest.approx(want[m], abs=1e-15)
            assert mine.loc[m, "value"] == pytest.approx(plain[m], abs=1e-15)
        np.testing.assert_allclose(mine["change"], mine["condensed"] - mine["value"])


def test_runs_from_paths_are_read_once_and_labelled_as_evaluate_labels_them(tmp_path):
    qrels, runs = generated(0)
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag{name}\n" for q, d, s in run.itertuples(index=False)))
        paths.append(str(path))
    table = judgment_coverage(qrels, paths, (10,))
    assert table["run"].tolist() == ["taga", "tagb", "tagc"]
    want = judgment_coverage(qrels, runs, (10,))
    np.testing.assert_array_equal(table["Judged@10"], want["Judged@10"])


@pytest.mark.parametrize("cutoffs", [(), (0,), (10, -1)])
def test_cutoffs_below_one_are_refused(cutoffs):
    qrels, runs = generated(0)
    with pytest.raises(ValueError, match="cutoffs"):
        judgment_coverage(qrels, runs, cutoffs)
