"""Where to look first: the queries ranked by how much two runs differ (a measure's difference, RBO or
tau_AP), computed in a worker and shown as metrics.contrast ranks them; a click opens the drill-down on
the query with the two runs' lists side by side.  Generated runs with ties and unjudged documents."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

import metrics  # noqa: E402
from workbench.state.export import read_csv  # noqa: E402

#: the fixtures ``files`` and ``window`` (tests/analysis_windows.py)
pytest_plugins = ["analysis_windows"]
TIMEOUT = 30000


def shown_view(qtbot, window):
    window.parts.views.analysis_views.show("contrast")
    view = window.parts.views.analysis_views["contrast"]
    qtbot.waitUntil(lambda: view.follower.state() == "current" and not window.session.busy, timeout=TIMEOUT)
    return view


def cells(view, column) -> list[str]:
    """The texts of ``column`` as the table shows them, top to bottom."""
    table = view.table.view
    model = table.model()
    header = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    c = header.index(column)
    return [model.index(r, c).data() for r in range(model.rowCount())]


def test_the_queries_are_ranked_as_the_contrast_ranks_them(qtbot, window, files):
    qrels, runs = files
    view = shown_view(qtbot, window)
    baseline = window.session.model.workspace.baseline_label()
    other = next(r for r in window.session.results.runs if r != baseline)
    assert (view.a_box.currentText(), view.b_box.currentText()) == (baseline, other)
    # by the measure in focus at first: B's value less A's, the largest difference either way first
    measure = window.session.focus_measure
    assert view.by_box.currentText() == measure and not view.depth_box.isEnabled()
    core = metrics.contrast(runs[baseline], runs[other], qrels, measure)
    assert cells(view, "query") == list(core["query_id"])
    assert cells(view, "#") == [str(k) for k in core["rank"]]
    assert cells(view, f"Δ {measure}")[0] == f"{core['value'].iloc[0]:.4f}"
    # by RBO of the top 5, lowest first; then tau_AP of b against d
    view.choose("rbo", depth=5)
    qtbot.waitUntil(lambda: view.follower.state() == "current" and "RBO" in view.shown_frame(), timeout=TIMEOUT)
    core = metrics.contrast(runs[baseline], runs[other], qrels, "rbo", 5)
    assert cells(view, "query") == list(core["query_id"])
    assert np.allclose(view.shown_frame()["RBO"], core["value"])
    assert view.depth_box.isEnabled() and "by RBO of their top 5" in view.caption.text()
    view.choose("tau_ap", a="b", b="d")
    qtbot.waitUntil(lambda: view.follower.state() == "current" and "tau_AP" in view.shown_frame(), timeout=TIMEOUT)
    core = metrics.contrast(runs["b"], runs["d"], qrels, "tau_ap", 5)
    assert cells(view, "query") == list(core["query_id"])
    assert np.allclose(view.shown_frame()["tau_AP"], core["value"])


def test_a_click_opens_the_drilldown_on_the_query_with_both_runs_side_by_side(qtbot, window):
    view = shown_view(qtbot, window)
    view.choose("rbo", a="a", b="fresh", depth=10)
    qtbot.waitUntil(lambda: view.follower.state() == "current" and "RBO" in view.shown_frame(), timeout=TIMEOUT)
    first = cells(view, "query")[0]
    table = view.table.view
    qtbot.mouseClick(
        table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(table.model().index(0, 1)).center()
    )
    drill = window.parts.views.drilldown
    qtbot.waitUntil(
        lambda: window.session.selected_query == first and set(drill.columns) == {"a", "fresh"}, timeout=TIMEOUT
    )
    assert drill.shown_runs() == ["a", "fresh"]
    assert f"Query <b>{first}</b>" in drill.title.text()
    assert "in fresh" in drill.table_frame("a") and "in a" in drill.table_frame("fresh")
    # another pair, the same query: the drill-down follows
    view.choose(a="b", b="c")
    qtbot.waitUntil(lambda: view.follower.state() == "current" and view.pair() == ("b", "c"), timeout=TIMEOUT)
    window.parts.views.docks[
        "inspect"
    ].raise_()  # another tab over the drill-down; the query opened is the one selected
    qtbot.waitUntil(lambda: window.parts.views.docks["drilldown"].visibleRegion().isEmpty(), timeout=TIMEOUT)
    view.open_query(first)
    qtbot.waitUntil(lambda: set(drill.columns) == {"b", "c"}, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not window.parts.views.docks["drilldown"].visibleRegion().isEmpty(), timeout=TIMEOUT)


def test_the_view_exports_its_ranking_with_its_settings(qtbot, window, tmp_path):
    view = shown_view(qtbot, window)
    view.choose("rbo", a="a", b="b", depth=5)
    qtbot.waitUntil(lambda: view.follower.state() == "current" and "RBO" in view.shown_frame(), timeout=TIMEOUT)
    out = tmp_path / "contrast.csv"
    with qtbot.waitSignal(window.session.sigMessage, timeout=TIMEOUT):
        view.export.export("csv", str(out))
    text = out.read_text(encoding="utf-8-sig")
    assert "where to look first: a (A) against b (B); rank-biased overlap" in text and "top 5, p = 0.9" in text
    frame = read_csv(out)
    assert list(frame["query"].astype(str)) == cells(view, "query")
    assert set(frame["by"]) == {"rbo"}
