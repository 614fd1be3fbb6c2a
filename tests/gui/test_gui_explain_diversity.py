"""The Explain dock explains the diversity measures: a cell of the per-query table or the summary shows the
working computed in the worker from the intent qrels, with the value the cell shows, under the level in
force (tests/intent_data.py: tied scores, unjudged documents, negative grades, a query with no relevant
document)."""

from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from intent_data import write_files  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics  # noqa: E402
from metrics.explain import diversity as explain_diversity  # noqa: E402

TIMEOUT = 20000


@pytest.fixture
def data(tmp_path):
    return write_files(tmp_path / "data")


def _cells(block) -> list[list[str]]:
    m = block.model
    return [[m.index(r, c).data() for c in range(m.columnCount())] for r in range(m.rowCount())]


def _click_per_query(qtbot, w, measure: str, query: str, run: str) -> str:
    """Click the per-query cell of ``run`` and ``query`` under ``measure``; the text the cell shows."""
    w.session.model.set_focus_measure(measure)
    qtbot.waitUntil(lambda: w.parts.views.per_query.shown_measure() == measure, timeout=TIMEOUT)
    view = w.parts.views.per_query
    headers = [view.proxy.headerData(c, Qt.Orientation.Horizontal) for c in range(view.proxy.columnCount())]
    rows = [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())]
    index = view.proxy.index(rows.index(query), headers.index(run))
    view.view.clicked.emit(index)
    return str(index.data())


def _explained(qtbot, s, measure: str, query: str, run: str):
    qtbot.waitUntil(
        lambda: (
            s.model.explainer.explained is not None
            and (s.model.explainer.explained.explanation.measure, s.model.explainer.explained.explanation.query_id)
            == (measure, query)
            and s.model.explainer.explained.explanation.run == run
            and not s.busy
        ),
        timeout=TIMEOUT,
    )
    return s.model.explainer.explained


def test_a_diversity_cell_is_explained_with_the_value_it_shows(qtbot, data, tmp_path, monkeypatch):
    threads = []
    made = explain_diversity.PreparedDiversity.explain

    def watched(self, *args):
        threads.append(threading.current_thread())
        return made(self, *args)

    monkeypatch.setattr(explain_diversity.PreparedDiversity, "explain", watched)
    w = open_window(qtbot, tmp_path, ("map",))
    messages: list[str] = []
    errors: list[str] = []
    w.session.sigError.connect(errors.append)
    w.session.model.events.message.connect(messages.append)
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        qtbot.waitUntil(lambda: not s.busy and s.results is not None and "NRBP" in s.results.measures, timeout=TIMEOUT)
        expected = metrics.evaluate_diversity(str(data["intents"]), {"sysA": str(data["runA"])}, ["alpha_nDCG@20"])
        pq = expected.per_query
        value = float(pq[pq["query_id"] == "101"]["value"].iloc[0])

        shown = _click_per_query(qtbot, w, "alpha_nDCG@20", "101", "sysA")
        explained = _explained(qtbot, s, "alpha_nDCG@20", "101", "sysA")
        assert threads and all(t is not threading.main_thread() for t in threads)  # computed in the worker
        e = explained.explanation
        assert e.explained and e.value == value == float(s.results.per_query["alpha_nDCG@20"].loc["101", "sysA"])
        assert shown == f"{value:.4f}" == "0.9282"
        assert explained.gain_curve is None and not w.parts.views.explain_view.plot.isVisible()
        panel = w.parts.views.explain_view
        assert panel.text() == e.to_text() and not panel.message.isVisible()
        assert "alpha-nDCG@20 = 2.8741 / 3.0963 = 0.9282" in panel.result.text()
        assert "alpha_nDCG@20" in panel.heading.text() and "101" in panel.heading.text()
        run_rows, ideal_rows = _cells(panel.blocks[0]), _cells(panel.blocks[1])
        assert [r[1] for r in run_rows] == ["d1", "x1", "d2", "d5", "d4"]  # x1 before d2: tied, docid descending
        assert run_rows[1][2:4] == ["not in qrels", ""] and run_rows[-1][-1] == "2.8741"
        assert [r[1] for r in ideal_rows] == ["d1", "d5", "d4", "d2"] and ideal_rows[-1][-1] == "3.0963"
        assert panel.blocks[2].caption.text() == "Intents of the query"
        assert not any("diversity measure" in m for m in messages) and not errors

        # a summary cell: the mean over the queries the run retrieves for
        summary = w.parts.views.summary
        headers = [summary.proxy.headerData(c, Qt.Orientation.Horizontal) for c in range(summary.proxy.columnCount())]
        runs = [summary.proxy.index(r, 0).data().split(" ")[0] for r in range(summary.proxy.rowCount())]
        cell = summary.proxy.index(runs.index("sysB"), headers.index("ERR_IA@20"))
        summary.view.clicked.emit(cell)
        e = _explained(qtbot, s, "ERR_IA@20", "all", "sysB").explanation
        assert e.explained and e.value == float(s.results.summary.loc["sysB", "ERR_IA@20"])
        assert str(cell.data()).startswith(f"{e.value:.4f}")
        assert [r[0] for r in _cells(panel.blocks[0])] == ["101", "102", "103"]  # sysB retrieves nothing for 104
        assert f"ERR_IA@20 = {e.rows[-1]['running sum']:.4f} / 3 = {e.value:.4f}" in panel.result.text()

        # a query without a relevant document for any intent
        shown = _click_per_query(qtbot, w, "P_IA@20", "104", "sysA")
        e = _explained(qtbot, s, "P_IA@20", "104", "sysA").explanation
        assert shown == "0.0000" and e.value == 0.0 and "S = 0" in panel.result.text()

        # another level: the same cell explained again, under it
        shown = _click_per_query(qtbot, w, "StRecall@20", "101", "sysB")
        e = _explained(qtbot, s, "StRecall@20", "101", "sysB").explanation
        assert shown == f"{e.value:.4f}" == "0.6667" and "grade >= 1 (-l 1)" in e.conventions[1]
        s.model.set_relevance_level(2)
        qtbot.waitUntil(
            lambda: (
                not s.busy
                and s.model.explainer.explained is not None
                and "grade >= 2" in s.model.explainer.explained.explanation.conventions[1]
            ),
            timeout=TIMEOUT,
        )
        e = s.model.explainer.explained.explanation
        level2 = metrics.evaluate_diversity(
            str(data["intents"]), {"sysB": str(data["runB"])}, ["StRecall@20"], relevance_level=2
        ).per_query
        assert e.value == float(level2[level2["query_id"] == "101"]["value"].iloc[0]) == 0.5  # intent 3 of 1, 3
        assert e.value == float(s.results.per_query["StRecall@20"].loc["101", "sysB"])
        assert "StRecall@20 = 1 intents covered in the top 20 / S = 1/2 = 0.5000" in panel.result.text()
        assert not errors
    finally:
        close_window(w)
