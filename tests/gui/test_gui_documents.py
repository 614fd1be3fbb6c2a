"""The window with a document collection: recognised by its content, indexed in a worker (Cancel leaves no
index), one at a time, and its documents' titles and snippets shown in the drill-down."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_support import close_window, drop, open_window  # noqa: E402

from metrics.documents.store import index_file  # noqa: E402
from workbench.state.drilldown import NOT_IN_COLLECTION, TIP_CHARS  # noqa: E402
from workbench.state.loading import SAMPLE_DIR  # noqa: E402

MEASURES = ("map", "P.10")
TIMEOUT = 60000
QUERY = "401"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """The documents' indexes in a cache of the test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(folder))
    return folder


@pytest.fixture
def sample(tmp_path):
    """The bundled sample's qrels and runs in tmp_path, and its collection under a name that says nothing
    (``passages.txt``: it is recognised by its content) beside its query texts."""
    out = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, out, ignore=shutil.ignore_patterns("*.tsv"))
    shutil.copy(SAMPLE_DIR / "collection.tsv", out / "passages.txt")
    shutil.copy(SAMPLE_DIR / "queries.tsv", out / "topics.txt")
    return out


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, MEASURES)
    yield w
    close_window(w)


def drop_and_wait(qtbot, window, paths):
    drop(window, paths)
    qtbot.waitUntil(lambda: not window.session.busy and not window.session.reading.loading(), timeout=TIMEOUT)


def files_shown(window) -> dict[str, tuple[str, str]]:
    """File name -> (kind, status) as the Files panel shows them."""
    table = window.parts.views.files.table
    rows = {}
    for r in range(table.rowCount()):
        path = os.path.basename(window.session.workspace.entries[r].path)
        rows[path] = (table.item(r, 1).text(), table.item(r, 2).text())
    return rows


def beir_corpus(path, *, leave_out=(), texts=None):
    """The sample's collection as a BEIR corpus.jsonl with titles, without the documents ``leave_out`` and
    with the texts ``texts`` (doc id -> text) in place of theirs."""
    texts = texts or {}
    with open(SAMPLE_DIR / "collection.tsv", encoding="utf-8") as f, open(path, "w", encoding="utf-8") as out:
        for line in f:
            docid, text = line.rstrip("\n").split("\t", 1)
            if docid in leave_out:
                continue
            record = {"_id": docid, "title": f"Passage {docid}", "text": texts.get(docid, text)}
            out.write(json.dumps(record) + "\n")


def first_docs(sample, query=QUERY, run="run_bm25.txt", n=3) -> list[str]:
    with open(sample / run) as f:
        return [line.split()[2] for line in f if line.split()[0] == query][:n]


# ---------------------------------------------------------------- 1. a collection opened
def test_a_collection_is_recognised_by_its_content_and_indexed(qtbot, window, sample, cache):
    drop_and_wait(qtbot, window, [sample])  # a folder: its files told apart by their content
    s = window.session
    shown = files_shown(window)
    assert shown["passages.txt"] == ("collection", "tsv, 13,416 documents")
    assert shown["topics.txt"] == ("query texts", "60 queries")
    assert shown["qrels.txt"][0] == "qrels"
    assert {shown[f"{r}.txt"][0] for r in ("run_bm25", "run_bm25_rm3", "run_tfidf_title")} == {"run"}
    store = s.workspace.documents()
    assert store is not None and len(store) == 13416 and store.format == "tsv"
    assert index_file(sample / "passages.txt").exists() and str(cache) in str(index_file(sample / "passages.txt"))
    # a collection is neither a run nor qrels: the evaluation is of the three runs
    qtbot.waitUntil(lambda: s.results is not None, timeout=TIMEOUT)
    assert len(s.results.runs) == 3
    # the inspection says what it is
    s.followups.inspect(str(sample / "passages.txt"))
    qtbot.waitUntil(lambda: "document collection" in window.parts.views.inspect_view.text(), timeout=TIMEOUT)
    assert "13,416" in window.parts.views.inspect_view.text()


def test_a_second_collection_replaces_the_first_and_says_so(qtbot, window, sample, tmp_path):
    drop_and_wait(qtbot, window, [sample / "passages.txt"])
    corpus = tmp_path / "corpus.jsonl"
    beir_corpus(corpus)
    drop_and_wait(qtbot, window, [corpus])
    s = window.session
    assert [e.name for e in s.workspace.entries if e.kind == "collection"] == ["corpus.jsonl"]
    assert files_shown(window)["corpus.jsonl"] == ("collection", "beir, 13,416 documents")
    assert s.workspace.documents().format == "beir"
    assert "corpus.jsonl replaces passages.txt as the collection" in window.parts.bars.messages.text()


def test_a_workspace_keeps_its_collection(qtbot, window, sample, tmp_path):
    from workbench.state import workspace_file

    drop_and_wait(qtbot, window, [sample / "qrels.txt", sample / "run_bm25.txt", sample / "passages.txt"])
    doc = window.session.model.snapshot()
    target = tmp_path / "study.irwb"
    workspace_file.write(doc, str(target))
    kinds = {os.path.basename(f.path): f.kind for f in workspace_file.read(str(target)).files}
    assert kinds["passages.txt"] == "collection"


def test_cancel_while_indexing_leaves_no_index_and_says_so(qtbot, window, tmp_path):
    big = tmp_path / "big.tsv"
    words = "battery engine recipe garden village ribbon harbour signal copper canvas ".split()
    passage = " ".join(words * 4) + ". " + " ".join(reversed(words * 2)) + "."
    with open(big, "w") as out:
        out.write("".join(f"D{i}\t{passage}\n" for i in range(400_000)))
    s = window.session
    drop(window, [big])
    qtbot.waitUntil(lambda: s.jobs.running(("load", str(big))), timeout=TIMEOUT)
    time.sleep(0.05)  # (indexing under way)
    window.parts.progress.cancel_button.click()
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert files_shown(window)["big.tsv"] == ("collection", "indexing cancelled")
    assert s.workspace.documents() is None
    folder = index_file(big).parent
    assert not index_file(big).exists()
    assert not (folder.exists() and any(folder.iterdir()))  # (nor its temporary database)


# ---------------------------------------------------------------- 2. the drill-down shows the documents
def test_the_drilldown_shows_titles_and_snippets_with_the_query_words_marked(qtbot, window, sample, tmp_path):
    docs = first_docs(sample)
    corpus = tmp_path / "corpus.jsonl"
    # the first document left out of the collection, the second's text with what must be escaped
    beir_corpus(corpus, leave_out={docs[0]}, texts={docs[1]: "<i>battery</i> & engine " + "word " * 600})
    drop_and_wait(qtbot, window, [sample / "qrels.txt", sample / "run_bm25.txt", sample / "topics.txt", corpus])
    s = window.session
    qtbot.waitUntil(lambda: s.results is not None, timeout=TIMEOUT)
    s.model.select_query(QUERY)
    view = window.parts.views.drilldown
    qtbot.waitUntil(lambda: "bm25" in view.columns and "snippet" in view.table_frame("bm25"), timeout=TIMEOUT)
    assert "battery engine recipe" in view.title.text()
    frame = view.table_frame("bm25")
    assert list(frame["doc_id"][:3]) == docs
    assert frame["snippet"][0] == NOT_IN_COLLECTION and frame["title"][0] == ""
    assert list(frame["title"][1:3]) == [f"Passage {docs[1]}", f"Passage {docs[2]}"]
    column = view.columns["bm25"]
    marked = column.snippet_html()
    # the query's words ("battery engine recipe") in bold, the text escaped
    assert marked[1].startswith("&lt;i&gt;<b>battery</b>&lt;/i&gt; &amp; <b>engine</b>")
    assert any("<b>" in m for m in marked[2:])
    assert marked[0] == f"<i>{NOT_IN_COLLECTION}</i>"
    tip = column.model.data(column.model.index(1, 0), Qt.ItemDataRole.ToolTipRole)
    assert f"Passage {docs[1]}" in tip and "&lt;i&gt;battery" in tip
    assert "characters in all" in tip and len(tip) < TIP_CHARS + 400
    assert NOT_IN_COLLECTION in column.model.data(column.model.index(0, 0), Qt.ItemDataRole.ToolTipRole)


def test_relevant_documents_no_run_retrieved_are_shown_with_their_texts(qtbot, window, sample, tmp_path):
    """What the runs missed is there to be read: title, snippet with the query's words marked, the text on
    hover, as for the documents retrieved."""
    corpus = tmp_path / "corpus.jsonl"
    beir_corpus(corpus)
    drop_and_wait(qtbot, window, [sample / "qrels.txt", sample / "run_bm25.txt", sample / "topics.txt", corpus])
    s = window.session
    qtbot.waitUntil(lambda: s.results is not None, timeout=TIMEOUT)
    s.model.select_query(QUERY)
    view = window.parts.views.drilldown
    qtbot.waitUntil(lambda: "snippet" in view.missing_frame(), timeout=TIMEOUT)
    missing = view.missing_frame()
    assert len(missing) > 0
    assert missing["title"].tolist() == [f"Passage {d}" for d in missing["doc_id"]]
    assert all(text and text != NOT_IN_COLLECTION for text in missing["snippet"])
    assert any("<b>" in m for m in view.missing.snippet_html())  # ("battery engine recipe" marked)
    tip = view.missing.model.data(view.missing.model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert f"Passage {missing['doc_id'][0]}" in tip and "retrieved by none of the runs" in tip


def test_the_drilldown_takes_the_collection_opened_after_it(qtbot, window, sample):
    drop_and_wait(qtbot, window, [sample / "qrels.txt", sample / "run_bm25.txt"])
    s = window.session
    qtbot.waitUntil(lambda: s.results is not None, timeout=TIMEOUT)
    s.model.select_query(QUERY)
    view = window.parts.views.drilldown
    qtbot.waitUntil(lambda: "bm25" in view.columns, timeout=TIMEOUT)
    assert "snippet" not in view.table_frame("bm25")
    drop_and_wait(qtbot, window, [sample / "passages.txt"])
    qtbot.waitUntil(lambda: "snippet" in view.table_frame("bm25"), timeout=TIMEOUT)
    frame = view.table_frame("bm25")
    assert "title" not in frame and frame["snippet"][0]  # (MS MARCO's layout: no titles)


# ---------------------------------------------------------------- 3. the sample opens with its texts
def test_the_sample_opens_with_its_collection_and_query_texts(qtbot, window):
    s = window.session
    window.parts.files.open_sample()
    qtbot.waitUntil(lambda: s.results is not None and s.workspace.documents() is not None, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    shown = files_shown(window)
    assert shown["collection.tsv"] == ("collection", "tsv, 13,416 documents")
    assert shown["queries.tsv"] == ("query texts", "60 queries")
    assert len(s.results.runs) == 3
    s.model.select_query(QUERY)
    view = window.parts.views.drilldown
    qtbot.waitUntil(lambda: "bm25" in view.columns and "snippet" in view.table_frame("bm25"), timeout=TIMEOUT)
    assert any("<b>battery</b>" in m or "<b>Battery</b>" in m for m in view.columns["bm25"].snippet_html())
