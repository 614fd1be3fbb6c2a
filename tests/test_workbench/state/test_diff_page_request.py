"""File > Export > Comparison page without Qt (workbench.state.diff_page): what the page is made from,
and the page written atomically, never over a file loaded."""

from __future__ import annotations

import shutil

import pytest

from metrics.io.fileio import ProtectedFileError
from workbench.scoring import evaluation
from workbench.state import analyses, diff_page
from workbench.state.loading import SAMPLE_DIR, load_file
from workbench.state.session import SessionModel


@pytest.fixture
def model(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, folder, ignore=shutil.ignore_patterns("run_tfidf*"))
    m = SessionModel()
    started = []
    m.files.open_files([str(p) for p in sorted(folder.iterdir())], start=started.append)
    for e in started:
        m.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    m.results = evaluation.compute(m.evaluation_request())
    return m, folder


def test_the_page_request_names_the_files_and_takes_the_depth_compared(model):
    m, folder = model
    a, b = m.results.runs
    by_rbo = diff_page.page_request(m.results, m.workspace, analyses.ContrastSettings("rbo", a, b, 7), 25)
    assert by_rbo.top == 7  # (what is compared is what is shown)
    assert by_rbo.names == (str(folder / "run_bm25.txt"), str(folder / "run_bm25_rm3.txt"))
    assert by_rbo.collection == str(folder / "collection.tsv") and by_rbo.documents is not None
    assert by_rbo.texts_name == str(folder / "queries.tsv")
    by_map = diff_page.page_request(m.results, m.workspace, analyses.ContrastSettings("map", a, b, 7), 25)
    assert by_map.top == 25  # (ranked by a measure: the lists shown to the depth given)
    assert diff_page.page_request(m.results, m.workspace, analyses.ContrastSettings("rbo", a, "gone"), 25) is None
    assert diff_page.page_request(None, m.workspace, analyses.ContrastSettings("rbo", a, b), 25) is None


def test_the_page_is_written_whole_and_never_over_an_input(model, tmp_path):
    m, folder = model
    a, b = m.results.runs
    request = diff_page.page_request(m.results, m.workspace, analyses.ContrastSettings("map", a, b), 5)
    inputs = [e.path for e in m.workspace.entries]
    out = tmp_path / "page.html"
    diff_page.write(str(out), request, inputs)
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and f"<h1>{a} against {b}" in page
    assert "<mark>" in page and "relevance level" in page
    with pytest.raises(ProtectedFileError):
        diff_page.write(str(folder / "qrels.txt"), request, inputs)
    assert (folder / "qrels.txt").read_bytes() == (SAMPLE_DIR / "qrels.txt").read_bytes()
