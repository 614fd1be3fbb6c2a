"""File > Export > Comparison page: the page of ir-eval --diff for two runs of the window, with the
collection and query texts loaded, the runs and ranking of "Where to look first" when it is open; built
and written in a worker, atomically, never over a file loaded."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re  # noqa: E402
import shutil  # noqa: E402

import pytest  # noqa: E402
from qt_support import close_window, drop, open_window  # noqa: E402

from metrics.cli.diff import comparison_page  # noqa: E402
from metrics.documents import open_documents  # noqa: E402
from metrics.io.topics import read_queries  # noqa: E402
from workbench.state.loading import SAMPLE_DIR  # noqa: E402

MEASURES = ("map", "P.10")
TIMEOUT = 60000


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def sample(tmp_path):
    out = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, out, ignore=shutil.ignore_patterns("run_tfidf*"))
    return out


@pytest.fixture
def window(qtbot, tmp_path, sample):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    drop(w, [sample])
    s = w.session
    qtbot.waitUntil(
        lambda: s.results is not None and s.workspace.documents() is not None and not s.busy, timeout=TIMEOUT
    )
    assert len(s.results.runs) == 2
    yield w
    close_window(w)


def export_page(qtbot, window, path, settings=None):
    with qtbot.waitSignal(window.sigExported, timeout=TIMEOUT) as done:
        assert window.parts.exports.export_comparison_page(str(path), settings)
    assert done.args == [str(path)]
    return path.read_text(encoding="utf-8")


def sections(page: str) -> str:
    """The page from its first query's rankings on (the settings and the overview above left out)."""
    return page[page.index('<h2 id="q0"') :]


def settings_shown(page: str) -> dict[str, str]:
    table = page[page.index('<table class="settings">') : page.index("</table>")]
    return dict(re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table))


def test_the_page_is_that_of_the_where_to_look_first_view(qtbot, window, sample, tmp_path):
    s = window.session
    window.parts.views.analysis_views.show("contrast")
    view = window.parts.views.analysis_views["contrast"]
    a, b = s.results.runs
    view.choose("tau_ap", a=b, b=a, depth=5)
    qtbot.waitUntil(lambda: view.follower.state() == "current" and "tau_AP" in view.shown_frame(), timeout=TIMEOUT)
    page = export_page(qtbot, window, tmp_path / "page.html")
    said = settings_shown(page)
    assert said["run A"] == str(sample / "run_bm25_rm3.txt") and said["run B"] == str(sample / "run_bm25.txt")
    assert said["collection"] == f"{sample / 'collection.tsv'} (tsv, 13416 documents)"
    assert said["query texts"] == str(sample / "queries.tsv")
    assert said["depth compared and shown"] == "5" and said["queries ranked by"].startswith("tau_ap: ")
    assert said["relevance level"].startswith("1")
    # the queries in the order the view shows, the first shown with both lists, its words marked
    overview = re.findall(r'<tr><td class="n">\d+</td><td>(?:<a href="#q\d+">)?([^<]+)', page)
    assert overview == view.queries()
    first = view.queries()[0]
    assert f"1. Query {first}" in page and "<mark>" in sections(page)
    # the same page as ir-eval --diff makes from the files (the documents, grades and marks)
    store = open_documents(sample / "collection.tsv")
    expected, shown, compared = comparison_page(
        sample / "run_bm25_rm3.txt",
        sample / "run_bm25.txt",
        labels=(b, a),
        store=store,
        qrels=sample / "qrels.txt",
        texts=read_queries(sample / "queries.tsv"),
        by="tau_ap",
        top=5,
    )
    store.close()
    assert (shown, compared) == (20, 60)
    assert sections(page) == sections(expected)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]  # (written whole, then renamed)


def test_without_the_view_the_page_is_of_the_baseline_by_rbo_to_the_drilldown_depth(qtbot, window, tmp_path):
    s = window.session
    settings = window.parts.exports.page_settings()
    baseline = s.model.workspace.baseline_label()
    assert (settings.by, settings.run_a, settings.depth) == ("rbo", baseline, s.drilldown_depth)
    page = export_page(qtbot, window, tmp_path / "rbo.html")
    said = settings_shown(page)
    assert said["depth compared and shown"] == str(s.drilldown_depth)
    assert said["queries ranked by"].startswith("rbo: ")
    assert f"<h1>{baseline} against {settings.run_b}" in page


def test_the_page_is_never_written_over_a_file_loaded(qtbot, window, sample, tmp_path):
    qrels = sample / "qrels.txt"
    before = qrels.read_bytes()
    window.parts.exports.export_comparison_page(str(qrels))
    qtbot.waitUntil(lambda: "is loaded as input" in window.parts.bars.messages.text(), timeout=TIMEOUT)
    assert "Export to" in window.parts.bars.messages.text()
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)
    assert qrels.read_bytes() == before
