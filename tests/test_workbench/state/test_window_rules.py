"""Rules of the window decided in plain Python (no Qt): the default baseline, what derived views follow."""

from __future__ import annotations

import pytest

from workbench.state.workspace import FileEntry, default_baseline, names_a_baseline


def _runs(*labels: str) -> list[FileEntry]:
    return [FileEntry(path=f"/runs/{label}.txt", kind="run", label=label) for label in labels]


@pytest.mark.parametrize(
    "label",
    [
        *("bm25", "BM25", "BM25+RM3", "bm25_rm3", "run_tfidf_title", "tf-idf", "baseline", "QL", "run.bm25"),
        *("dl19-bm25", "bm25base", "bm25tuned_p", "run.msmarco-v1-passage.bm25-default.dl19", "trec-dl-2019-bm25"),
    ],
)
def test_a_label_leading_with_a_baseline_word_names_a_baseline(label):
    assert names_a_baseline(label)


@pytest.mark.parametrize(
    "label",
    ["colbert-on-bm25-trec-dl-queries", "monot5-bm25", "dl19-monot5-bm25", "basement", "qlm", "splade", "bm25x"],
)
def test_a_longer_name_holding_a_baseline_word_does_not(label):
    assert not names_a_baseline(label)


def test_the_default_baseline_of_dl19_shaped_runs_is_never_a_reranker_of_bm25():
    runs = _runs("colbert-on-bm25-trec-dl-queries", "splade", "monot5-bm25", "tct-colbert")
    assert default_baseline(runs).label == "colbert-on-bm25-trec-dl-queries"  # the first: none is a baseline
    runs = _runs("colbert-on-bm25-trec-dl-queries", "splade", "BM25_rm3", "bm25", "monot5-bm25")
    assert default_baseline(runs).label == "bm25"  # the shortest label leading with a baseline word
    # Pyserini's DL19 runs, labelled by their file names (their tag "Anserini" is generic), ColBERT first
    runs = _runs("colbert-on-bm25-trec-dl-queries", "run.msmarco-v1-passage.bm25-default.dl19", "monot5-bm25")
    assert default_baseline(runs).label == "run.msmarco-v1-passage.bm25-default.dl19"


# -- the Explain dock follows the results -------------------------------------------------------------------


def test_an_explained_diversity_value_is_explained_again_under_a_new_level(tmp_path):
    """A diversity value explained at level 1 is explained again once the results at level 2 come; the
    explanation's value is the one the new results show (it stayed at 0.5996, the cell showing 0.1211)."""
    from intent_data import write_files

    from tests.test_workbench.state.test_session_model import _evaluate, _open
    from workbench.state import explaining
    from workbench.state.session import SessionModel

    files = write_files(tmp_path / "data")
    model = SessionModel()
    _open(model, [files["intents"], files["runA"], files["runB"]])
    _evaluate(model)
    measure = next(m for m in model.results.measures if m.startswith("alpha"))
    model.explainer.explain("sysB", "101", measure)
    first = model.explainer.explain_request()
    assert first is not None
    model.explainer.apply_explanation(explaining.compute(first))
    assert model.explainer.explain_request() is None  # shown already

    model.set_relevance_level(2)
    _evaluate(model)
    again = model.explainer.explain_request()
    assert again is not None and again.results is model.results
    explained = explaining.compute(again)
    model.explainer.apply_explanation(explained)
    shown = model.results.per_query[measure].loc["101", "sysB"]
    assert explained.explanation.value == pytest.approx(shown, abs=0)
    before = first.results.per_query[measure].loc["101", "sysB"]
    assert shown != before  # the level changes this value: the test would not see a stale one otherwise


# -- the disk watch (its own thread; looked at here directly) -----------------------------------------------


def test_the_disk_watch_reports_a_change_a_deletion_and_a_file_written_again(tmp_path):
    import os

    from workbench.state.disk_watch import DiskWatch

    path = tmp_path / "run.txt"
    path.write_text("1 Q0 d1 1 1.0 r\n")
    read = (os.path.getsize(path), os.path.getmtime(path))
    watch = DiskWatch(lambda states: None, interval=3600.0)  # looked at by hand below
    watch.expect(str(path), read)
    try:
        assert watch.look() == []  # as read: nothing to report
        os.remove(path)
        [gone] = watch.look()
        assert (gone.status, gone.read) == ("deleted", read)
        assert watch.look() == []  # said once
        path.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d2 2 0.5 r\n")
        os.utime(path, (1, 1))
        [back] = watch.look()
        assert back.status == "changed" and back.size == os.path.getsize(path)
        watch.expect(str(path), (os.path.getsize(path), os.path.getmtime(path)))  # read again
        assert watch.look() == []
    finally:
        watch.close()


def test_the_workspace_takes_the_watch_s_word_only_for_the_content_it_holds(tmp_path):
    from workbench.state.disk_watch import DiskState
    from workbench.state.workspace import Workspace

    ws = Workspace()
    e = ws.begin_load(str(tmp_path / "a.run"), None)
    e.status, e.size, e.mtime = "ok", 10, 5.0
    assert ws.apply_disk([DiskState(e.path, (10, 5.0), "deleted")]) != []
    assert ws.deleted_from_disk() == [e]
    e.size, e.mtime = 12, 6.0  # read again since that look
    assert ws.deleted_from_disk() == [] and ws.changed_on_disk() == []


def test_an_explanation_carries_the_textbooks_conventions_and_only_the_dcg_family_a_gain_curve():
    from metrics.explain import Prepared
    from tests.test_workbench.state.test_session_model import _evaluate, _open
    from workbench.state import explaining
    from workbench.state.loading import sample_files
    from workbench.state.session import SessionModel

    model = SessionModel()
    model.set_measures(["map", "ndcg_cut_10", "P_10"])
    _open(model, sample_files())
    _evaluate(model)
    run = model.results.runs[0]
    qrels, source = model.results.request.qrels, model.results.request.runs[run]
    for measure, pictured in (("map", False), ("ndcg_cut_10", True), ("P_10", False)):
        model.explainer.explain(run, "401", measure)
        explained = explaining.compute(model.explainer.explain_request())
        assert (explained.gain_curve is not None) is pictured, measure
        want = Prepared(qrels, source).side_by_side(measure, "401")
        got = explained.textbook
        assert list(got["convention"]) == list(want["convention"]) and len(got) >= 3
        assert got["value"].tolist() == want["value"].tolist()
        assert got.iloc[0]["value"] == model.results.per_query[measure].loc["401", run]  # trec_eval's, as shown
