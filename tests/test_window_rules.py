"""Rules of the window decided in plain Python (no Qt): the default baseline, what derived views follow."""

from __future__ import annotations

import pytest

from workbench.model.workspace import FileEntry, default_baseline, names_a_baseline


def _runs(*labels: str) -> list[FileEntry]:
    return [FileEntry(path=f"/runs/{label}.txt", kind="run", label=label) for label in labels]


@pytest.mark.parametrize(
    "label", ["bm25", "BM25", "BM25+RM3", "bm25_rm3", "run_tfidf_title", "tf-idf", "baseline", "QL", "run.bm25"]
)
def test_a_label_leading_with_a_baseline_word_names_a_baseline(label):
    assert names_a_baseline(label)


@pytest.mark.parametrize(
    "label", ["colbert-on-bm25-trec-dl-queries", "monot5-bm25", "dl19-bm25", "basement", "qlm", "splade"]
)
def test_a_longer_name_holding_a_baseline_word_does_not(label):
    assert not names_a_baseline(label)


def test_the_default_baseline_of_dl19_shaped_runs_is_never_a_reranker_of_bm25():
    runs = _runs("colbert-on-bm25-trec-dl-queries", "splade", "monot5-bm25", "tct-colbert")
    assert default_baseline(runs).label == "colbert-on-bm25-trec-dl-queries"  # the first: none is a baseline
    runs = _runs("colbert-on-bm25-trec-dl-queries", "splade", "BM25_rm3", "bm25", "monot5-bm25")
    assert default_baseline(runs).label == "bm25"  # the shortest label leading with a baseline word


# -- the Explain dock follows the results -------------------------------------------------------------------


def test_an_explained_diversity_value_is_explained_again_under_a_new_level(tmp_path):
    """A diversity value explained at level 1 is explained again once the results at level 2 come; the
    explanation's value is the one the new results show (it stayed at 0.5996, the cell showing 0.1211)."""
    from intent_data import write_files
    from test_session_model import _evaluate, _open

    from workbench.model import explaining
    from workbench.model.session import SessionModel

    files = write_files(tmp_path / "data")
    model = SessionModel()
    _open(model, [files["intents"], files["runA"], files["runB"]])
    _evaluate(model)
    measure = next(m for m in model.results.measures if m.startswith("alpha"))
    model.explain("sysB", "101", measure)
    first = model.explain_request()
    assert first is not None
    model.apply_explanation(explaining.compute(first))
    assert model.explain_request() is None  # shown already

    model.set_relevance_level(2)
    _evaluate(model)
    again = model.explain_request()
    assert again is not None and again.results is model.results
    explained = explaining.compute(again)
    model.apply_explanation(explained)
    shown = model.results.per_query[measure].loc["101", "sysB"]
    assert explained.explanation.value == pytest.approx(shown, abs=0)
    before = first.results.per_query[measure].loc["101", "sysB"]
    assert shown != before  # the level changes this value: the test would not see a stale one otherwise
