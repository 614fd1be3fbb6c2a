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
