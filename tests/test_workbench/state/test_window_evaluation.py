"""The window's evaluation (workbench.scoring.evaluation.compute) with many runs, no Qt: what is kept between
evaluations, what is scored again, cancelling, and the tables and curves built from the runs' blocks
equal those built from the tidy frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
import metrics.engine.curves
from metrics.engine.settings import Settings
from metrics.errors import Cancelled
from workbench.scoring import evaluation as analysis
from workbench.scoring.evaluation import CurveTable, Request, RunCache, compute, sort_queries

MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100", "num_ret")


def _data(runs: int = 6, queries: int = 12, depth: int = 40, seed: int = 3):
    """Qrels with graded and negative grades and unjudged documents; runs with tied scores, one run
    missing a query, one query of the qrels in no run."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, queries + 1)]
    qrels = []
    for q in qids[:-1]:  # the last query is retrieved but has no judgment
        for d in range(30):
            qrels.append((q, f"d{d}", int(rng.choice([-1, 0, 0, 1, 2]))))
    qrels.append(("999", "d1", 1))  # judged, in no run
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    out = {}
    for r in range(runs):
        rows = []
        for q in qids:
            if r == 1 and q == "3":
                continue  # a run without query 3
            docs = rng.permutation(60)[:depth]
            scores = np.round(rng.random(depth), 1)  # many ties
            rows += [(q, f"d{d}", float(s)) for d, s in zip(docs, scores)]
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        frame.attrs["name"] = f"run{r}"
        out[f"run{r}"] = frame
    return qrels_frame, out


def _request(qrels, runs, cache=None, **kw) -> Request:
    return Request(qrels=(qrels,), runs=runs, measures=MEASURES, cache=cache, **kw)


def _counting(monkeypatch) -> list:
    calls: list = []
    real = metrics.engine.curves.evaluate_with_curves

    def counted(qrels, runs, *a, **kw):
        calls.extend(runs)
        return real(qrels, runs, *a, **kw)

    monkeypatch.setattr(metrics.engine.curves, "evaluate_with_curves", counted)
    return calls


def _same(a: analysis.Results, b: analysis.Results) -> None:
    assert a.runs == b.runs and a.measures == b.measures and a.query_ids == b.query_ids
    pd.testing.assert_frame_equal(a.summary, b.summary)
    assert list(a.per_query) == list(b.per_query)
    for m in a.per_query:
        pd.testing.assert_frame_equal(a.per_query[m], b.per_query[m])
    pd.testing.assert_frame_equal(a.evaluation.per_query, b.evaluation.per_query)
    for q in [analysis.MEAN, *a.query_ids]:
        for r in a.runs:
            for ta, tb in ((a.pr, b.pr), (a.ndcg, b.ndcg)):
                x, y = ta.get(q, r), tb.get(q, r)
                assert (x is None) == (y is None)
                if x is not None:
                    np.testing.assert_array_equal(x[0], y[0])
                    np.testing.assert_array_equal(x[1], y[1])


def test_a_run_added_to_those_scored_is_the_only_one_scored(monkeypatch):
    qrels, runs = _data()
    cache = RunCache()
    calls = _counting(monkeypatch)
    first = dict(list(runs.items())[:5])
    compute(_request(qrels, first, cache))
    assert calls == list(first)
    calls.clear()
    both = compute(_request(qrels, runs, cache))
    assert calls == ["run5"]
    _same(both, compute(_request(qrels, runs)))  # equal to scoring every run afresh


def test_what_changes_a_run_or_the_options_scores_again_and_switching_back_does_not(monkeypatch):
    qrels, runs = _data(runs=3)
    cache = RunCache()
    calls = _counting(monkeypatch)
    compute(_request(qrels, runs, cache))
    calls.clear()
    compute(_request(qrels, runs, cache))
    assert calls == []  # nothing changed
    copied = dict(runs)
    copied["run1"] = runs["run1"].copy()  # another frame with the same content: the same run
    compute(_request(qrels, copied, cache))
    assert calls == []
    reread = dict(runs)
    reread["run1"] = runs["run1"].iloc[:-1].copy()  # the file read again, changed: a new run
    reread["run1"].attrs["name"] = "run1"
    compute(_request(qrels, reread, cache))
    assert calls == ["run1"]
    calls.clear()
    deeper = compute(_request(qrels, reread, cache, settings=Settings(relevance_level=2)))
    assert calls == ["run0", "run1", "run2"]
    calls.clear()
    compute(_request(qrels, reread, cache))  # back to level 1: kept
    assert calls == []
    _same(deeper, compute(_request(qrels, reread, settings=Settings(relevance_level=2))))
    other_qrels = qrels.iloc[1:].copy()  # (a copy of the same judgments would be the same qrels)
    calls.clear()
    compute(_request(other_qrels, reread, cache))  # other qrels: every run again
    assert calls == ["run0", "run1", "run2"]
    calls.clear()
    known = {"run0": ("file", "run0.txt", 100, 1.0, "run")}  # known by the file it was read from
    compute(_request(other_qrels, reread, cache, identities=known))
    assert calls == ["run0"]


def test_cancelling_stops_what_nobody_waits_for_and_keeps_what_was_scored(monkeypatch):
    qrels, runs = _data(runs=6)
    cache = RunCache()
    calls = _counting(monkeypatch)
    finished: list = []
    real = metrics.engine.curves.evaluate_with_curves

    def counted(qrels, runs, *a, **kw):  # (counted by _counting as it starts, here as it ends)
        out = real(qrels, runs, *a, **kw)
        finished.extend(runs)
        return out

    monkeypatch.setattr(metrics.engine.curves, "evaluate_with_curves", counted)
    seen: list = []

    def progress(fraction):
        seen.append(fraction)
        return len(finished) < 3  # stop once three runs are scored

    with pytest.raises(Cancelled):
        compute(_request(qrels, runs, cache), progress)
    assert finished[:3] == ["run0", "run1", "run2"]
    assert all(0 <= f <= 1 for f in seen) and seen == sorted(seen)
    calls.clear()
    again = compute(_request(qrels, runs, cache))
    # the runs scored before the Cancel was heard are kept (run2's scores may have come a moment after it)
    assert "run0" not in calls and "run1" not in calls and calls == sorted(calls)
    _same(again, compute(_request(qrels, runs)))


def test_per_query_tables_from_blocks_equal_the_pivot_of_the_tidy_frame():
    qrels, runs = _data()
    res = compute(_request(qrels, runs))
    pq = res.evaluation.per_query
    assert set(res.per_query) == set(pq["measure"])
    for name, part in pq.groupby("measure", sort=False):
        wide = part.pivot(index="query_id", columns="run", values="value").reindex(columns=res.runs)
        wide.columns.name = None
        wide = wide.reindex(sort_queries(wide.index))
        pd.testing.assert_frame_equal(res.per_query[str(name)], wide)
    assert np.isnan(res.per_query["map"].loc["3", "run1"])  # the run without query 3
    assert "999" not in res.query_ids  # judged, retrieved by no run: skipped as trec_eval skips it


def test_curves_from_blocks_equal_the_tidy_frames():
    qrels, runs = _data(runs=3)
    res = compute(_request(qrels, runs))
    _, pr, atk = metrics.engine.curves.evaluate_with_curves(qrels, runs, list(MEASURES), kind="NDCG")
    for table, frame, x, y in ((res.pr, pr, "recall", "precision"), (res.ndcg, atk, "k", "value")):
        expected = CurveTable(frame, x, y)
        assert set(expected._curves) == set(table._curves)
        for key in expected._curves:
            np.testing.assert_array_equal(expected.get(*key)[0], table.get(*key)[0])
            np.testing.assert_array_equal(expected.get(*key)[1], table.get(*key)[1])
    # the mean curve is the mean of the query curves (summed in query order)
    x, y = res.ndcg.get(analysis.MEAN, "run0")
    per_query = np.vstack([res.ndcg.get(q, "run0")[1] for q in res.evaluation.query_ids["run0"]])
    np.testing.assert_allclose(y, per_query.mean(axis=0), rtol=0, atol=1e-15)
    assert x.tolist() == list(range(1, 101))


def test_all_pairs_of_many_runs_compares_the_best_by_the_measure_in_focus():
    from workbench.state import significance
    from workbench.state.session import SessionModel

    qrels, runs = _data(runs=significance.MAX_PAIR_RUNS + 6, queries=8, depth=20)
    model = SessionModel()
    for label, frame in runs.items():  # the runs as if read from files
        e = model.workspace.begin_load(f"/data/{label}.txt")
        model.workspace.finish_load(e.path, e.generation, "run", frame, None)
    assert model.workspace.baseline_label() == "run0"
    model.results = compute(_request(qrels, runs))
    model.focus_measure = "map"
    model.compare_settings = significance.Settings(mode="pairs", bootstrap=0)
    request = model.followups.comparison_request()
    scores = model.results.summary["map"]
    best = list(scores.sort_values(ascending=False, kind="stable").index[: significance.MAX_PAIR_RUNS])
    assert request.pair_runs == tuple(r for r in model.results.runs if r in best or r == "run0")
    comparison = significance.compute(request)
    assert comparison.pairs.attrs["runs"] == list(request.pair_runs)
    n = len(request.pair_runs)
    assert n in (significance.MAX_PAIR_RUNS, significance.MAX_PAIR_RUNS + 1)  # and the baseline
    assert len(comparison.pairs) == n * (n - 1) // 2 * comparison.pairs["measure"].nunique()
    assert set(comparison.table["run"]) == set(model.results.runs[1:])  # the baseline table has every run
    assert "best 50 of 56 runs" in significance.legend(comparison)
    # another measure in focus: other runs
    model.focus_measure = "P_10"
    assert model.followups.comparison_request().pair_runs != request.pair_runs or scores.rank().equals(
        model.results.summary["P_10"].rank()
    )
    # few runs: every run, and no note
    few = dict(list(runs.items())[:4])
    model.results = compute(_request(qrels, few))
    assert model.followups.comparison_request().pair_runs is None
