"""The window's analyses in plain Python (workbench.state.analyses): what they are computed from, their
numbers against metrics.analysis on the same runs, one query's runs side by side, and when what a view
shows is out of date.  No Qt."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from conftest import random_collection, run_frame

import metrics
from metrics.analysis import (
    condensed_scores,
    judgment_coverage,
    measure_agreement,
    overlap_matrix,
    query_traits,
    rank_overlap,
    ranking_flips,
    versus,
)
from metrics.engine.settings import Settings
from workbench.scoring import evaluation as window_analysis
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.state import analyses

MEASURES = ("map", "P.5", "ndcg_cut.10", "recip_rank", "bpref")


def collection(seed: int = 3):
    """Qrels and four runs: ties, unjudged documents, a query one run does not answer, and a run whose top
    documents the qrels mostly never judged."""
    qrels, _ = random_collection(seed)
    runs = {name: random_collection(seed + 10 * i, name=name)[1] for i, name in enumerate("abc")}
    runs["b"] = runs["b"][runs["b"]["query_id"] != "q3"]
    runs["d"] = runs["a"].assign(score=runs["a"]["score"].round(0))  # a's documents, more ties
    fresh = []
    for q in sorted(set(qrels["query_id"])):
        fresh += [(q, f"new{i}", 10.0 - i) for i in range(9)]
        fresh += [(q, d, 1.0) for d in qrels[qrels["query_id"] == q]["doc_id"][:4]]
    runs["fresh"] = run_frame(fresh, "fresh")
    return qrels, runs


@pytest.fixture(scope="module")
def results():
    qrels, runs = collection()
    request = window_analysis.Request(qrels=qrels, runs=runs, measures=MEASURES, qrels_name="qrels.txt")
    return window_analysis.compute(request), qrels, runs


def test_inputs_hand_runs_on_disk_over_as_paths():
    frame = run_frame([("q1", "d1", 1.0)], "a")
    request = SimpleNamespace(
        qrels="Q",
        runs={"a": frame, "b": RunOnDisk("/data/b.run")},
        settings=Settings(relevance_level=2),
        qrels_name="q.txt",
    )
    results = SimpleNamespace(
        request=request, runs=["a", "b"], evaluation="EV", summary=pd.DataFrame(), measures=["map"]
    )
    inputs = analyses.inputs_of(results, {"q1": "two words"})
    assert inputs is not None
    assert inputs.runs["a"] is frame and inputs.runs["b"] == "/data/b.run"
    assert (
        inputs.settings == Settings(relevance_level=2)
        and inputs.measures == ("map",)
        and inputs.queries == {"q1": "two words"}
    )
    assert analyses.inputs_of(None) is None
    assert analyses.inputs_of(SimpleNamespace(request=request, runs=[])) is None


def test_overlap_equals_the_core_on_the_same_runs(results):
    res, qrels, runs = results
    settings = analyses.OverlapSettings(depth=7, p=0.8)
    out = analyses.compute("overlap", analyses.inputs_of(res), settings)
    expected = rank_overlap(runs, depth=7, p=0.8, qrels=qrels)
    pd.testing.assert_frame_equal(out.tables["overlap"], expected)
    for value in ("rbo", "jaccard"):
        pd.testing.assert_frame_equal(out.tables[value], overlap_matrix(expected, list(runs), value))
    # b does not answer q3: its pairs' means are over the queries both answer
    assert "q3" not in set(expected[(expected["run_a"] == "a") & (expected["run_b"] == "b")]["query_id"])
    # d has a's documents in another order (its ties): closer to a than any other run
    for value in ("rbo", "jaccard"):
        matrix = out.tables[value]
        assert matrix.loc["a", "d"] > matrix.loc["a", ["b", "c", "fresh"]].max()
        assert matrix.loc["a", "d"] == matrix.loc["d", "a"] and matrix.loc["a", "a"] == 1.0


def test_beads_link_the_documents_two_neighbouring_runs_share(results):
    res, qrels, runs = results
    out = analyses.compute("overlap", analyses.inputs_of(res), analyses.OverlapSettings(depth=10))
    query = "q2"
    b = analyses.beads(out.extra["top"], query)
    assert b.runs == list(runs)

    def top(run):  # trec_eval's order: score descending, ties by document id descending
        sub = runs[run][runs[run]["query_id"] == query]
        return [d for _, d in sorted(zip(sub["score"], sub["doc_id"]), key=lambda t: (t[0], t[1]), reverse=True)][:10]

    for i, run in enumerate(runs):
        assert b.docs[i] == top(run)
    want = []
    for i, column in enumerate(b.docs):  # each document to the next column to the right holding it
        for r, d in enumerate(column):
            later = [j for j in range(i + 1, len(b.docs)) if d in b.docs[j]]
            if later:
                want.append((i, r, later[0], b.docs[later[0]].index(d)))
    assert b.links == sorted(want)
    a, d = b.runs.index("a"), b.runs.index("d")  # d holds a's documents: threads reach it past b and c
    assert any(link[0] == a and link[2] == d for link in b.links)
    judged = set(qrels[qrels["query_id"] == query]["doc_id"])
    fresh = list(runs).index("fresh")
    unjudged = [d not in judged for d in b.docs[fresh]]
    from metrics.ranking.qrels_index import NONPOOL

    assert list(b.rels[fresh] == NONPOOL) == unjudged and any(unjudged)
    # a query no run answers: empty columns
    assert all(len(d) == 0 for d in analyses.beads(out.extra["top"], "no such query").docs)


def test_coverage_flags_the_run_scored_on_an_old_pool(results):
    res, qrels, runs = results
    cutoffs = analyses.coverage_cutoffs(res.measures)
    assert cutoffs == (10, 5)  # Judged@10, then the cutoffs of P.5 and ndcg_cut.10
    out = analyses.compute("coverage", analyses.inputs_of(res), analyses.CoverageSettings(cutoffs))
    pd.testing.assert_frame_equal(out.tables["coverage"], judgment_coverage(qrels, runs, cutoffs))
    flagged = out.tables["coverage"].set_index("run")["below_others"]
    assert list(flagged[flagged].index) == ["fresh"]
    holes = out.tables["holes"]
    assert set(holes[holes["run"] == "fresh"]["doc_id"]) >= {f"new{i}" for i in range(9)}
    pd.testing.assert_frame_equal(out.tables["condensed"], condensed_scores(qrels, runs, list(res.measures)))
    cond = out.tables["condensed"].set_index(["run", "measure"])
    assert cond.loc[("fresh", "P_5"), "condensed"] > cond.loc[("fresh", "P_5"), "value"]


def test_versus_queries_and_agreement_equal_the_core(results):
    res, qrels, runs = results
    inputs = analyses.inputs_of(res)
    out = analyses.compute("versus", inputs, analyses.VersusSettings("map", "a", "b"))
    table = versus(metrics.evaluate(qrels, runs, list(MEASURES)), "a", "b", "map")
    pd.testing.assert_frame_equal(out.tables["versus"].reset_index(drop=True), table.reset_index(drop=True))
    assert sum(out.extra["counts"].values()) == len(table) and "q3" not in set(table["query_id"])

    out = analyses.compute("queries", inputs, analyses.QueriesSettings("map", n=3))
    traits = query_traits(res.evaluation, "map", qrels=qrels)
    pd.testing.assert_frame_equal(out.tables["traits"], traits)
    assert len(out.tables["extremes"]) == 9

    out = analyses.compute("agreement", inputs, analyses.AgreementSettings(("map", "P_5", "recip_rank")))
    summary = metrics.evaluate(qrels, runs, list(MEASURES)).summary()
    np.testing.assert_allclose(
        out.tables["tau"].to_numpy(), measure_agreement(summary, ["map", "P_5", "recip_rank"]).to_numpy()
    )
    pd.testing.assert_frame_equal(out.tables["flips"], ranking_flips(summary, ["map", "P_5", "recip_rank"]))


def test_what_a_view_shows_is_current_only_for_the_results_and_settings_shown(results):
    res = results[0]
    settings = analyses.OverlapSettings()
    assert analyses.state(None, None, settings) == "empty"
    assert analyses.state(None, res, settings) == "outdated"
    assert analyses.state(None, res, settings, running=True) == "computing"
    outcome = analyses.compute("agreement", analyses.inputs_of(res), analyses.AgreementSettings(("map", "P_5")))
    same = analyses.AgreementSettings(("map", "P_5"))
    assert analyses.state(outcome, res, same) == "current"
    assert analyses.state(outcome, res, analyses.AgreementSettings(("map",))) == "outdated"
    assert analyses.state(outcome, SimpleNamespace(), same) == "outdated"  # other results
    assert analyses.state(outcome, res, same, evaluation_state="outdated") == "outdated"


def test_the_export_states_the_evaluation_and_the_analysis_settings(results):
    res = results[0]
    outcome = analyses.compute("overlap", analyses.inputs_of(res), analyses.OverlapSettings(depth=5, p=0.95))
    header = analyses.export_header(outcome, "rank overlap")
    text = "\n".join(header)
    assert header[0] == "ir-workbench rank overlap"
    assert "qrels: qrels.txt" in text and "relevance level: 1" in text
    assert "top K = 5" in text and "p = 0.95" in text
    assert "runs: a, b, c, d, fresh" in text


def test_loaded_query_texts_are_a_setting_of_the_queries_analysis():
    entries = [
        SimpleNamespace(path="/q/topics.tsv", version=2, kind="queries", status="ok"),
        SimpleNamespace(path="/q/other.tsv", version=1, kind="queries", status="loading"),
        SimpleNamespace(path="/r/a.run", version=1, kind="run", status="ok"),
    ]
    texts = analyses.query_texts(SimpleNamespace(entries=entries))
    assert texts == (("/q/topics.tsv", 2),)
    with_texts = analyses.QueriesSettings("map", texts=texts)
    assert with_texts != analyses.QueriesSettings("map")  # texts loaded: the analysis is computed again
    assert ("query texts", "/q/topics.tsv") in with_texts.stated()
    assert [name for name, _ in analyses.QueriesSettings("map").stated()] == ["queries"]


@pytest.mark.parametrize("by", ["rbo", "tau_ap", "map", "P_5"])
def test_where_to_look_first_equals_the_cores_contrast(results, by):
    res, qrels, runs = results
    inputs = analyses.inputs_of(res, {"q1": "first query"})
    settings = analyses.ContrastSettings(by, "a", "b", depth=5)
    out = analyses.compute("contrast", inputs, settings)
    frame = out.tables["contrast"]
    core = metrics.contrast(runs["a"], runs["b"], qrels, by, 5)
    pd.testing.assert_frame_equal(frame.drop(columns="text"), core)
    assert dict(zip(frame["query_id"], frame["text"])).get("q1", "first query") == "first query"
    assert set(frame["text"]) <= {"", "first query"}
    assert settings.unsupervised == (by in analyses.CONTRAST_BY)
    (name, stated), *_ = settings.stated()
    assert name == "where to look first" and stated.startswith("a (A) against b (B); ")
