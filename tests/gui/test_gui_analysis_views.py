"""The "why runs differ" views of the window, checked on what they show: the overlap matrix and the
beads of a query, the coverage warning, holes and condensed scores, run against run, the queries'
traits and lists, the measures' agreement; clicks select queries; a change of runs recomputes the view
shown and marks a hidden one out of date; exports state their settings.  Generated runs with ties,
unjudged documents, a query one run does not answer and a run scored on an old pool."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPointF, Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402
from qt_support import close_window, open_window, window_on  # noqa: E402

import metrics  # noqa: E402
from metrics.analysis import (  # noqa: E402
    condensed_scores,
    judgment_coverage,
    measure_agreement,
    overlap_matrix,
    query_extremes,
    query_traits,
    rank_overlap,
    ranking_flips,
    trait_correlations,
    versus,
)
from metrics.analysis.coverage import UNDERESTIMATED  # noqa: E402
from tests.test_workbench.state.test_analysis_views_model import MEASURES, collection  # noqa: E402
from workbench.state.export import read_csv  # noqa: E402
from workbench.views.analysis.versus import OUTCOME_COLOURS  # noqa: E402

#: the fixtures ``files`` and ``window`` (tests/analysis_windows.py)
pytest_plugins = ["analysis_windows"]
TIMEOUT = 30000


def shown(qtbot, window, name):
    """Bring the dock of why runs differ forward with the view ``name`` chosen and wait for the view to show
    the analysis of the scores shown."""
    window.parts.views.analysis_views.show(name)
    view = window.parts.views.analysis_views[name]
    qtbot.waitUntil(lambda: view.follower.state() == "current" and not window.session.busy, timeout=TIMEOUT)
    return view


def turned(qtbot):
    """Wait until the event loop has run what was scheduled for its next turn until now."""
    from PySide6.QtCore import QTimer

    ticked = []
    QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: bool(ticked), timeout=TIMEOUT)


def click_cell(qtbot, table, row, column):
    """A real click on a cell of a table view."""
    index = table.model().index(row, column)
    table.scrollTo(index)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center())


def pixel_of(plot, x, y) -> tuple[int, int]:
    """Where the point (x, y) of ``plot`` is drawn, in the plot's pixels."""
    pos = plot.mapFromScene(plot.getPlotItem().getViewBox().mapViewToScene(QPointF(x, y)))
    return pos.x(), pos.y()


def click_point(qtbot, window, plot, x, y):
    vb = plot.getPlotItem().getViewBox()
    pos = plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))
    with qtbot.waitSignal(window.session.sigQueryChanged, timeout=TIMEOUT):
        qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_overlap_matrix_shows_the_cores_means_and_the_beads_of_the_selected_query(qtbot, window, files, tmp_path):
    qrels, runs = files
    view = shown(qtbot, window, "overlap")
    table = rank_overlap(list(runs.values()), depth=10, p=0.9, qrels=qrels)
    labels = list(runs)
    rbo = overlap_matrix(table, labels, "rbo")
    for a in labels:
        for b in labels:
            assert view.cell_text(a, b) == f"{rbo.loc[a, b]:.3f}"
    view.value_box.setCurrentIndex(view.value_box.findData("jaccard"))
    view.value_box.activated.emit(view.value_box.currentIndex())
    jac = overlap_matrix(table, labels, "jaccard").to_numpy()
    assert view.cell_text("a", "d") == f"{jac[0, 3]:.3f}"
    assert "Mean Jaccard" in view.caption.text()

    # K changed: computed again at the new depth
    view.depth_box.setValue(5)
    qtbot.waitUntil(
        lambda: view.follower.outcome.settings.depth == 5 and view.follower.state() == "current", timeout=TIMEOUT
    )
    jac5 = overlap_matrix(rank_overlap(list(runs.values()), depth=5, qrels=qrels), labels, "jaccard").to_numpy()
    assert view.cell_text("b", "c") == f"{jac5[1, 2]:.3f}"

    # the beads of the selected query: each run's top 5 in trec_eval's order, threads across the runs
    window.session.model.select_query("q2")
    b = view.current_beads
    assert b.query_id == "q2" and b.runs == labels
    for i, name in enumerate(labels):
        sub = collection()[1][name]
        sub = sub[sub["query_id"] == "q2"]
        order = sorted(zip(sub["score"], sub["doc_id"]), key=lambda t: (t[0], t[1]), reverse=True)
        assert b.docs[i] == [d for _, d in order][:5]
    xs, ys = view.links.getData()
    assert len(xs) == 2 * len(b.links)
    drawn = view.beads.data
    assert len(drawn) == sum(len(d) for d in b.docs)

    # a click on a cell puts that pair side by side
    click_cell(qtbot, view.matrix, labels.index("a"), labels.index("fresh"))
    assert view.current_beads.runs == ["a", "fresh"]

    # the exports state the settings
    csv = tmp_path / "overlap.csv"
    view.export.export_csv(str(csv))
    text = csv.read_text(encoding="utf-8-sig")
    assert "# top K = 5" not in text and "top K = 5 of each run" in text and "qrels: " in text
    back = read_csv(csv)
    assert list(back.columns) == ["run_a", "run_b", "query", "jaccard", "rbo"]
    alls = back[back["query"] == "all"].set_index(["run_a", "run_b"])
    assert alls.loc[("b", "c"), "jaccard"] == pytest.approx(jac5[1, 2], abs=1e-12)
    png = tmp_path / "overlap.png"
    view.export.export_png(str(png))
    image = QImage(str(png))
    assert not image.isNull() and "RBO_ext with p = 0.9" in image.text("Description")


def test_an_export_asked_for_in_its_dialog_is_written_by_a_worker(qtbot, window, tmp_path, monkeypatch):
    """What the view shows is taken on the window's thread (the table, the picture grabbed), the file is
    written by a worker; the window then says it is saved, or why not."""
    import threading

    from PySide6.QtWidgets import QFileDialog

    from metrics.io import fileio

    view = shown(qtbot, window, "overlap")
    writers: list[tuple[str, bool]] = []

    def spy(module, name):
        real = getattr(module, name)

        def call(path, *args, **kwargs):
            writers.append((os.path.basename(path), threading.current_thread() is threading.main_thread()))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(module, name, call)

    spy(fileio, "write_bytes")  # (every file the window writes goes through it)
    said: list[str] = []
    window.session.sigMessage.connect(said.append)
    for fmt in ("csv", "png"):
        target = str(tmp_path / f"asked.{fmt}")
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, target=target: (target, ""))
        view.export._ask(fmt)
        qtbot.waitUntil(lambda fmt=fmt: f"Saved asked.{fmt}" in said, timeout=TIMEOUT)
    assert writers == [("asked.csv", False), ("asked.png", False)]
    assert "RBO_ext with p = 0.9" in (tmp_path / "asked.csv").read_text(encoding="utf-8-sig")
    assert "RBO_ext with p = 0.9" in QImage(str(tmp_path / "asked.png")).text("Description")
    errors: list[str] = []
    window.session.sigError.connect(errors.append)
    qrels = window.session.workspace.qrels_entry().path
    view.export.export("csv", qrels)  # a file loaded as input is never written to
    qtbot.waitUntil(lambda: bool(errors), timeout=TIMEOUT)
    assert errors[-1].startswith("Export failed:") and "loaded as input" in errors[-1]


def test_coverage_warns_of_the_run_on_an_old_pool_lists_its_holes_and_its_condensed_scores(qtbot, window, files):
    qrels, runs = files
    view = shown(qtbot, window, "coverage")
    cutoffs = view.follower.outcome.settings.cutoffs
    assert cutoffs == (10, 5)
    expected = judgment_coverage(qrels, list(runs.values()), cutoffs)
    warning = view.warning_text()
    assert "fresh" in warning and UNDERESTIMATED[1:] in warning
    assert not any(f"<b>{r}</b>" in warning for r in "abcd")
    fresh = expected.iloc[-1]
    assert bool(fresh["below_others"]) and f"Judged@10 {fresh['Judged@10']:.2f}" in warning
    # the runs table shows each run's Judged@10
    shown_runs = view.runs.frame()
    for i in range(len(runs)):
        assert view.runs.text(i, "Judged@10") == f"{expected['Judged@10'][i]:.3f}"
    assert list(shown_runs["flagged"]) == ["", "", "", "", "yes"]
    # the holes of the flagged run, most first; a click selects the query
    assert view.run_box.currentText() == "fresh"
    holes = view.holes.frame()
    assert holes["holes@10"].iloc[0].startswith("1:new0 2:new1 ")  # rank:document, best first
    assert list(holes.columns[:3]) == ["query_id", "unjudged@10", "holes@10"]
    with qtbot.waitSignal(window.session.sigQueryChanged, timeout=TIMEOUT):
        click_cell(qtbot, view.holes_table, 1, 0)
    assert window.session.selected_query == holes["query_id"].iloc[1]
    # a click on a run lists its holes
    click_cell(qtbot, view.runs_table, 0, 0)
    assert view.run_box.currentText() == "a" and set(view.holes.frame()["query_id"]) <= set(shown_runs["run"]) | set(
        window.session.results.query_ids
    )
    # the condensed scores, one click away
    view.condensed_button.click()
    assert view.pages.currentWidget() is view.condensed_table
    cond = condensed_scores(qrels, list(runs.values()), list(window.session.results.measures))
    assert view.condensed.model.rowCount() == len(cond)
    np.testing.assert_allclose(view.condensed.frame()["condensed (-J)"].to_numpy(), cond["condensed"].to_numpy())
    assert view.condensed.text(0, "condensed (-J)") == f"{cond['condensed'][0]:.4f}"


def test_run_against_run_scatter_colours_outcomes_and_a_click_selects_the_query(qtbot, window, files, tmp_path):
    qrels, runs = files
    view = shown(qtbot, window, "versus")
    view.choose(measure="map", a="b", b="a")
    qtbot.waitUntil(lambda: view.follower.state() == "current", timeout=TIMEOUT)
    expected = versus(metrics.evaluate(qrels, {n: p for n, p in runs.items()}, ["map"]), "b", "a", "map")
    assert "q3" not in set(expected["query_id"])  # b does not answer it
    points = view.points.points()
    assert len(points) == len(expected)
    for q, a, b, outcome in zip(expected["query_id"], expected["a"], expected["b"], expected["outcome"]):
        assert view.point_of(q) == (pytest.approx(b), pytest.approx(a), outcome)
    colours = {p.data(): p.brush().color().getRgb()[:3] for p in points}
    for q, outcome in zip(expected["query_id"], expected["outcome"]):
        assert colours[q] == OUTCOME_COLOURS[outcome]
    counts = expected["outcome"].value_counts()
    assert f"wins {counts.get('win', 0)}" in view.caption.text()
    # the point farthest from the others on the screen (a click selects the nearest point's query)
    xy = np.array([pixel_of(view.plot, b, a) for b, a in expected[["b", "a"]].to_numpy(dtype=float)])
    gaps = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(axis=2)) + np.eye(len(xy)) * 1e6
    target = expected.iloc[int(np.argmax(gaps.min(axis=1)))]
    click_point(qtbot, window, view.plot, float(target["b"]), float(target["a"]))
    assert window.session.selected_query == target["query_id"]
    assert list(view.ring.data["x"]) == [pytest.approx(target["b"])]
    # the CSV export: ir-eval --versus's columns, the settings stated
    csv = tmp_path / "versus.csv"
    view.export.export_csv(str(csv))
    assert "versus: b (A) against a (B) on map; tie margin 0" in csv.read_text(encoding="utf-8-sig")
    back = read_csv(csv)
    assert list(back.columns) == ["query", "run_a", "value_a", "run_b", "value_b", "difference", "outcome"]
    np.testing.assert_array_equal(back["difference"].to_numpy(), expected["difference"].to_numpy())


def test_queries_lists_and_rho_equal_the_core_and_a_click_selects(qtbot, window, files, tmp_path):
    qrels, runs = files
    window.session.model.set_focus_measure("map")
    view = shown(qtbot, window, "queries")
    traits = query_traits(window.session.results.evaluation, "map", qrels=qrels)
    extremes = query_extremes(traits, 5)
    for kind in ("hardest", "easiest", "disputed"):
        assert view.listed(kind) == list(extremes[extremes["kind"] == kind]["query_id"])
    rho = trait_correlations(traits).set_index("trait").loc["relevant", "rho"]
    assert f"{rho:+.3f}" in view.caption.text()
    widget = view.lists["hardest"]
    with qtbot.waitSignal(window.session.sigQueryChanged, timeout=TIMEOUT):
        pos = widget.visualItemRect(widget.item(2)).center()
        qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert window.session.selected_query == view.listed("hardest")[2]
    assert view.trait_box.findData("length") < 0 and "Load query texts" in view.caption.text()

    # query texts loaded: the length of each query is a trait, computed again
    texts = tmp_path / "queries.tsv"
    ids = list(window.session.results.query_ids)
    texts.write_text("".join(f"{q}\t{' '.join(['word'] * (1 + i % 4))}\n" for i, q in enumerate(ids)))
    window.parts.files.open_files([str(texts)])
    qtbot.waitUntil(
        lambda: bool(view.follower.outcome.settings.texts) and view.follower.state() == "current", timeout=TIMEOUT
    )
    i = view.trait_box.findData("length")
    assert i >= 0
    view.trait_box.setCurrentIndex(i)
    view.trait_box.activated.emit(i)
    traits = query_traits(window.session.results.evaluation, "map", qrels=qrels, queries=str(texts))
    rho = trait_correlations(traits).set_index("trait").loc["length", "rho"]
    assert f"{rho:+.3f}" in view.caption.text()
    np.testing.assert_array_equal(view._xy["x"].to_numpy(), traits.dropna(subset=["length", "mean"])["length"])


def test_measure_agreement_matrix_and_flips_equal_the_core(qtbot, window, files):
    qrels, runs = files
    view = shown(qtbot, window, "agreement")
    summary = window.session.results.summary
    names = list(window.session.results.measures)
    tau = measure_agreement(summary, names)
    for a in names:
        for b in names:
            v = tau.loc[a, b]
            assert view.cell_text(a, b) == ("–" if v != v else f"{v:+.2f}")
    flips = ranking_flips(summary, names)
    assert view.flips_table.model.rowCount() == len(flips) > 0
    first = flips.iloc[0]
    click_cell(qtbot, view.matrix, names.index(first["measure_a"]), names.index(first["measure_b"]))
    pair = flips[(flips["measure_a"] == first["measure_a"]) & (flips["measure_b"] == first["measure_b"])]
    assert view.flips_table.model.rowCount() == len(pair)
    np.testing.assert_allclose(view.shown_flips()["diff_a"].to_numpy(), pair["diff_a"].to_numpy())


def test_a_change_of_runs_recomputes_the_view_shown_and_marks_a_hidden_one_out_of_date(qtbot, window, files):
    qrels, runs = files
    overlap = shown(qtbot, window, "overlap")
    coverage = window.parts.views.analysis_views["coverage"]
    shown(qtbot, window, "coverage")
    window.parts.views.analysis_views.show("overlap")  # coverage is hidden behind it now
    qtbot.waitUntil(lambda: overlap.follower.state() == "current" and not coverage.follower.shown(), timeout=TIMEOUT)
    with qtbot.waitSignal(window.session.sigResultsChanged, timeout=TIMEOUT):
        window.session.reading.remove(runs["c"])
    # the view shown computes again without c
    qtbot.waitUntil(lambda: overlap.follower.state() == "current" and not window.session.busy, timeout=TIMEOUT)
    assert overlap.runs() == ["a", "b", "d", "fresh"]
    assert overlap.matrix.model().rowCount() == 4
    # the hidden one says it is out of date, and still shows what it showed
    assert coverage.follower.state() == "outdated"
    assert coverage.banner.isVisibleTo(coverage) and "Out of date" in coverage.banner.text()
    assert "c" in list(coverage.follower.outcome.tables["coverage"]["run"])
    # brought forward, it computes again
    view = shown(qtbot, window, "coverage")
    assert list(view.follower.outcome.tables["coverage"]["run"]) == ["a", "b", "d", "fresh"]
    assert not view.banner.isVisibleTo(view)
    expected = judgment_coverage(qrels, [runs[r] for r in ("a", "b", "d", "fresh")], (10, 5))
    np.testing.assert_allclose(
        view.follower.outcome.tables["coverage"]["Judged@10"].to_numpy(), expected["Judged@10"].to_numpy()
    )
    pd.testing.assert_series_equal(
        view.follower.outcome.tables["coverage"]["below_others"], expected["below_others"], check_names=False
    )


def test_the_analyses_are_computed_in_a_worker_not_on_the_gui_thread(qtbot, window, monkeypatch):
    import threading

    from workbench.state import analyses

    threads = []
    original = analyses._KINDS["agreement"]

    def recorded(*args):
        threads.append(threading.current_thread())
        return original(*args)

    monkeypatch.setitem(analyses._KINDS, "agreement", recorded)
    view = shown(qtbot, window, "agreement")
    assert view.follower.outcome is not None
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_cancel_stops_an_analysis_and_its_pane_says_it_is_out_of_date(qtbot, window, monkeypatch):
    import time

    from workbench.state import analyses

    original = analyses._KINDS["agreement"]

    def slow(inputs, settings, progress):
        for _ in range(1000):  # until cancelled
            analyses._step(progress, 0.5)
            time.sleep(0.01)
        return original(inputs, settings, progress)

    monkeypatch.setitem(analyses._KINDS, "agreement", slow)
    window.parts.views.analysis_views.show("agreement")
    view = window.parts.views.analysis_views["agreement"]
    qtbot.waitUntil(lambda: view.follower.running, timeout=TIMEOUT)
    assert view.banner.text() == "Computing…"
    window.session.cancel()
    qtbot.waitUntil(lambda: not view.follower.running, timeout=TIMEOUT)
    assert view.follower.outcome is None and view.follower.state() == "outdated"
    assert "Out of date" in view.banner.text() and view.banner.isVisibleTo(view)


def test_a_view_is_made_when_it_first_comes_forward_and_shows_what_a_view_made_early_shows(qtbot, tmp_path, files):
    from workbench.views.analysis.coverage import CoverageView
    from workbench.views.window.analysis_docks import VIEWS

    qrels, runs = files
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    try:
        # a view made before anything is loaded, shown all along
        early = CoverageView(w.session)
        qtbot.addWidget(early)
        early.resize(700, 500)
        early.show()
        with qtbot.waitSignal(w.session.sigIdle, timeout=TIMEOUT):
            w.parts.files.open_files([qrels, *runs.values()])
        # the evaluation finished: no analysis view of the window is made yet, its pages are empty
        why = w.parts.views.analysis_views
        page = why.pane.pages[[name for name, *_ in VIEWS].index("coverage")]
        assert why.built() == [] and page.widget() is None
        qtbot.waitUntil(lambda: early.follower.state() == "current" and not w.session.busy, timeout=TIMEOUT)

        why.pane.box.setCurrentText("Coverage")  # chosen while the dock is behind the per-query differences
        assert why.chosen() == "coverage" and why.dock.visibleRegion().isEmpty()
        turned(qtbot)  # (a view made when chosen behind would be made by now)
        assert why.built() == []
        why.dock.raise_()  # its tab chosen
        qtbot.waitUntil(lambda: why.built() == ["coverage"], timeout=TIMEOUT)
        late = page.widget()
        assert isinstance(late, CoverageView) and late is why["coverage"]
        qtbot.waitUntil(lambda: late.follower.state() == "current" and not w.session.busy, timeout=TIMEOUT)
        # what it shows: the core's Judged@10 per run, the same table, warning and holes as the early view
        expected = judgment_coverage(qrels, list(runs.values()), (10, 5))
        for i in range(len(runs)):
            assert late.runs.text(i, "Judged@10") == f"{expected['Judged@10'][i]:.3f}"
        pd.testing.assert_frame_equal(late.runs.frame(), early.runs.frame())
        assert late.warning_text() == early.warning_text() and "fresh" in late.warning_text()
        assert late.run_box.currentText() == early.run_box.currentText() == "fresh"
        pd.testing.assert_frame_equal(late.holes.frame(), early.holes.frame())
        pd.testing.assert_frame_equal(late.condensed.frame(), early.condensed.frame())
        assert not late.banner.isVisibleTo(late)
        # the other views are still not made; another chosen in front is made then
        assert why.built() == ["coverage"]
        why.pane.box.setCurrentText("Overlap")
        qtbot.waitUntil(lambda: why.built() == ["coverage", "overlap"], timeout=TIMEOUT)
        assert why.pane.stack.currentWidget().widget() is why["overlap"]
    finally:
        close_window(w)


def test_a_workspace_restores_the_view_chosen_and_whether_its_dock_is_open(qtbot, tmp_path, files):
    qrels, runs = files
    first = tmp_path / "first"
    first.mkdir()
    w = open_window(qtbot, first, MEASURES, size=(1400, 900))
    shown_path, closed_path = tmp_path / "study.irwb", tmp_path / "closed.irwb"
    try:
        with qtbot.waitSignal(w.session.sigIdle, timeout=TIMEOUT):
            w.parts.files.open_files([qrels, *runs.values()])
        shown(qtbot, w, "overlap")
        with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):  # (written by a job)
            assert w.parts.workspaces.write(str(shown_path))
        w.parts.views.analysis_views.choose("agreement")
        w.parts.views.analysis_views.dock.close()
        with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):
            assert w.parts.workspaces.write(str(closed_path))
    finally:
        close_window(w)

    second = tmp_path / "second"
    second.mkdir()
    w2 = open_window(qtbot, second, MEASURES, size=(1400, 900))
    try:
        why = w2.parts.views.analysis_views
        assert why.built() == [] and why.chosen() == "contrast"
        w2.parts.files.open_files([str(shown_path)])
        qtbot.waitUntil(lambda: w2.session.results is not None and not w2.session.busy, timeout=TIMEOUT)
        qtbot.waitUntil(lambda: "overlap" in why.built(), timeout=TIMEOUT)
        assert why.chosen() == "overlap" and not why.dock.visibleRegion().isEmpty()
        assert why.built() == ["overlap"]  # (not the view chosen before the workspace's was)
        view = why["overlap"]
        qtbot.waitUntil(lambda: view.follower.state() == "current" and not w2.session.busy, timeout=TIMEOUT)
        labels = list(runs)
        rbo = overlap_matrix(rank_overlap(list(runs.values()), depth=10, p=0.9, qrels=qrels), labels, "rbo")
        assert view.cell_text("a", "b") == f"{rbo.loc['a', 'b']:.3f}"

        w2.parts.files.open_files([str(closed_path)])
        qtbot.waitUntil(lambda: why.chosen() == "agreement" and why.dock.isHidden(), timeout=TIMEOUT)
        qtbot.waitUntil(lambda: not w2.session.busy, timeout=TIMEOUT)
        assert why.built() == ["overlap"]  # (a closed dock makes no view)
    finally:
        close_window(w2)


def test_the_view_chosen_is_kept_with_the_windows_layout(qtbot, tmp_path):
    """Closed, the window keeps the view chosen with its layout; the next window shows it, made only once the
    dock comes forward."""

    ini = str(tmp_path / "layout.ini")
    w = window_on(qtbot, ini)
    w.parts.views.analysis_views.choose("poolBias")
    w.close()
    again = window_on(qtbot, ini)
    try:
        why = again.parts.views.analysis_views
        assert why.chosen() == "poolBias" and why.pane.box.currentText() == "Pool bias"
        assert why.built() == []
        why.dock.raise_()
        qtbot.waitUntil(lambda: why.built() == ["poolBias"], timeout=TIMEOUT)
    finally:
        close_window(again)


def test_a_layout_saved_with_the_nine_docks_of_before_opens_the_default_layout(qtbot, qtlog, tmp_path):
    """A layout saved when each view of why runs differ was a dock of its own (and a choice no longer offered)
    opens without a word from Qt: the default layout, the views in one dock beside the per-query
    differences, every dock open."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QDockWidget, QMainWindow

    from workbench.views.window.analysis_docks import VIEWS

    old = QMainWindow()
    qtbot.addWidget(old)
    names = ["files", "measures", "summary", "prCurves", "ndcgAtK", "diffChart", "drilldown", "inspect", "pairs"]
    docks = {}
    for name in [*names, "explain", *(view for view, *_ in VIEWS)]:
        dock = docks[name] = QDockWidget(name, old)
        dock.setObjectName(name)
        dock.setWidget(QWidget(dock))
        old.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    for view, *_ in VIEWS:
        old.tabifyDockWidget(docks["diffChart"], docks[view])
    docks["poolBias"].raise_()
    ini = str(tmp_path / "old.ini")
    settings = QSettings(ini, QSettings.Format.IniFormat)
    settings.setValue("windowState", old.saveState(5))  # (the version of the layouts saved then)
    settings.setValue("analysisView", "retired")
    settings.sync()

    w = window_on(qtbot, ini)
    try:
        views = w.parts.views
        diff = views.docks["diffChart"]
        qtbot.waitUntil(lambda: not diff.visibleRegion().isEmpty(), timeout=TIMEOUT)
        assert [x.objectName() for x in w.tabifiedDockWidgets(diff)] == ["whyRunsDiffer"]
        assert not any(dock.isHidden() for dock in views.docks.values())
        assert not set(views.docks) & {view for view, *_ in VIEWS}
        assert views.analysis_views.chosen() == "contrast"
        said = [r.message for r in qtlog.records if "propagateSizeHints" not in r.message]
        assert said == []
    finally:
        close_window(w)


def _view_menu(window):
    return next(a for a in window.menuBar().actions() if a.text() == "&View").menu()


def test_view_why_runs_differ_lists_the_views_and_brings_the_dock_forward_with_the_one_chosen(qtbot, window):
    from workbench.views.window.analysis_docks import VIEWS

    menu = next(a.menu() for a in _view_menu(window).actions() if a.text() == "&Why runs differ")
    actions = [a for a in menu.actions() if not a.isSeparator()]
    assert [a.text() for a in actions] == [title for _, title, *_ in VIEWS] + ["Show the &dock"]
    why = window.parts.views.analysis_views
    assert why.dock.visibleRegion().isEmpty()  # (behind the per-query differences)
    pool = next(a for a in actions if a.text() == "Pool bias")
    pool.trigger()
    qtbot.waitUntil(lambda: why.built() == ["poolBias"] and not why.dock.visibleRegion().isEmpty(), timeout=TIMEOUT)
    assert why.chosen() == "poolBias"
    menu.aboutToShow.emit()
    assert [a.text() for a in actions if a.isChecked()] == ["Pool bias", "Show the &dock"]
    # closed, the dock is opened again by a view chosen from the menu
    actions[-1].trigger()
    assert why.dock.isHidden()
    next(a for a in actions if a.text() == "Overlap").trigger()
    qtbot.waitUntil(lambda: "overlap" in why.built() and not why.dock.visibleRegion().isEmpty(), timeout=TIMEOUT)
    assert why.chosen() == "overlap" and why.pane.stack.currentWidget().widget() is why["overlap"]


def test_reset_layout_puts_every_dock_back_and_chooses_the_first_view_again(qtbot, window):
    """View > Reset layout: a dock floated, one closed and the view chosen in "Why runs differ" all go back to
    how the window first placed them (the first view of :data:`VIEWS` chosen)."""
    from workbench.views.window.analysis_docks import VIEWS

    why, docks = window.parts.views.analysis_views, window.parts.views.docks
    tabbed_first = set(window.tabifiedDockWidgets(docks["diffChart"]))
    why.show("poolBias")
    qtbot.waitUntil(lambda: why.built() == ["poolBias"], timeout=TIMEOUT)
    docks["measures"].setFloating(True)
    docks["files"].close()
    qtbot.waitUntil(lambda: docks["files"].isHidden() and docks["measures"].isFloating(), timeout=TIMEOUT)
    reset = next(a for a in _view_menu(window).actions() if a.text() == "Reset layout")
    reset.trigger()
    qtbot.waitUntil(lambda: not docks["files"].isHidden() and not docks["measures"].isFloating(), timeout=TIMEOUT)
    assert why.chosen() == VIEWS[0][0] != "poolBias"
    assert set(window.tabifiedDockWidgets(docks["diffChart"])) == tabbed_first and why.dock in tabbed_first
    assert window.dockWidgetArea(docks["measures"]) == Qt.DockWidgetArea.LeftDockWidgetArea


def test_the_chooser_of_the_view_is_reached_by_tab_and_named(qtbot, window):
    from PySide6.QtWidgets import QApplication

    why = window.parts.views.analysis_views
    why.show("coverage")
    qtbot.waitUntil(lambda: not why.dock.visibleRegion().isEmpty(), timeout=TIMEOUT)
    box = why.pane.box
    assert box.accessibleName() == "Why runs differ: view shown"
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    before = box.previousInFocusChain()  # the widget the keyboard leaves for the chooser with Tab
    while not (before.isVisible() and before.isEnabled() and before.focusPolicy() & Qt.FocusPolicy.TabFocus):
        before = before.previousInFocusChain()
    before.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is before, timeout=TIMEOUT)
    qtbot.keyClick(before, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box, timeout=TIMEOUT)
    qtbot.keyClick(box, Qt.Key.Key_Down)  # the next view, chosen from the keyboard
    qtbot.waitUntil(lambda: why.chosen() == "versus" and "versus" in why.built(), timeout=TIMEOUT)


def _cells_whole(view, columns: int) -> bool:
    """Whether the first ``columns`` cells of the first row lie whole in the view's viewport."""
    width = view.viewport().width()
    return all(
        view.visualRect(view.model().index(0, c)).left() >= 0
        and view.visualRect(view.model().index(0, c)).right() < width
        for c in range(columns)
    )


@pytest.mark.parametrize("size", [(1024, 700), (1400, 900)])
def test_the_overlap_and_agreement_matrices_show_their_numbers_at_their_default_width(qtbot, tmp_path, size):
    """DL19's five runs with their long names: the overlap matrix shows its numbers (the names filled the pane:
    no number was visible), rows are named and columns numbered, the bead plot's runs are numbered as the
    matrix numbers them (the names overlapped), and the agreement matrix's headers are whole (\"re…nk\")."""
    from dl19_data import write_dl19_like

    names = ["bm25", "colbert-on-bm25-trec-dl-queries", "splade", "monot5-bm25", "tct-colbert"]
    (tmp_path / "data").mkdir()
    qrels, runs = write_dl19_like(tmp_path / "data", names, seed=5)
    w = open_window(qtbot, tmp_path, MEASURES, size=size)
    try:
        with qtbot.waitSignal(w.session.sigIdle, timeout=TIMEOUT):
            w.parts.files.open_files([str(qrels), *map(str, runs)])
        overlap = shown(qtbot, w, "overlap")
        model = overlap.matrix_model
        qtbot.waitUntil(lambda: model.rowCount() == 5, timeout=TIMEOUT)
        qtbot.waitUntil(lambda: _cells_whole(overlap.matrix, 3), timeout=TIMEOUT)
        assert model.headerData(1, Qt.Orientation.Horizontal) == "2"
        assert model.headerData(1, Qt.Orientation.Vertical) == "2 colbert-on-bm25-trec-dl-queries"
        assert model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == names[1]
        ticks = overlap.plot.getPlotItem().getAxis("bottom")._tickLevels[0]
        assert [label for _, label in ticks] == [str(i + 1) for i in range(len(ticks))]
        agreement = shown(qtbot, w, "agreement")
        qtbot.waitUntil(lambda: agreement.matrix_model.rowCount() >= 2, timeout=TIMEOUT)
        header = agreement.matrix.horizontalHeader()
        metrics_ = header.fontMetrics()
        for c in range(agreement.matrix_model.columnCount()):
            text = agreement.matrix_model.headerData(c, Qt.Orientation.Horizontal)
            assert metrics_.horizontalAdvance(text) <= header.sectionSize(c), text
    finally:
        close_window(w)
