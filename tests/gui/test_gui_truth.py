"""What the window shows is what it computed: every panel follows the session, exports state their
settings, changes can be taken back, and files that change, go or come twice are told."""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics  # noqa: E402
from workbench.scoring import disk_runs  # noqa: E402
from workbench.state.loading import SAMPLE_DIR  # noqa: E402
from workbench.views.panels.measures import COMMON_MEASURES  # noqa: E402
from workbench.views.window import files as window_files  # noqa: E402

TIMEOUT = 20000
RUNS = ("run_bm25.txt", "run_bm25_rm3.txt", "run_tfidf_title.txt")


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("qrels.txt", *RUNS):
        shutil.copy(SAMPLE_DIR / name, folder / name)
    return folder


def _idle(qtbot, w):
    qtbot.waitUntil(lambda: not w.session.busy and w.session.results is not None, timeout=TIMEOUT)


def _open(qtbot, w, folder, names=("qrels.txt", *RUNS)):
    w.parts.files.open_files([str(folder / n) for n in names])
    _idle(qtbot, w)


def assert_panels_show_the_session(w) -> None:
    """Every control of the Measures panel, the significance bar and the per-query table equals the session."""
    s, panel = w.session, w.parts.views.measures
    ticked = {
        panel.list.item(i).data(Qt.ItemDataRole.UserRole)
        for i in range(panel.list.count())
        if panel.list.item(i).checkState() == Qt.CheckState.Checked
    }
    assert ticked == {m for m in s.measures if m in COMMON_MEASURES}
    assert panel.extra.text().split() == [m for m in s.measures if m not in COMMON_MEASURES]
    assert panel.chosen() and tuple(sorted(panel.chosen())) == tuple(sorted(s.measures))
    assert panel.relevance.value() == s.settings.relevance_level
    for name, box in panel.ndcg_boxes.items():
        assert box.currentData() == s.settings.ndcg_options().get(name, box.itemData(0)), name
    sig, cs = w.parts.toolbars.significance, s.compare_settings
    assert (sig.test_box.currentData(), sig.alpha_box.currentData(), sig.correction_box.currentData()) == (
        cs.test,
        cs.alpha,
        cs.correction,
    )
    assert w.parts.toolbars.query_box.currentData() == s.selected_query
    if s.results is not None:
        assert w.parts.views.per_query.shown_measure() == s.focus_measure


def test_a_reopened_workspace_is_shown_by_every_panel_and_edited_from_there(qtbot, project, tmp_path):
    (tmp_path / "a").mkdir()
    w = open_window(qtbot, tmp_path / "a", ("map",))
    try:
        _open(qtbot, w, project)
        s = w.session
        s.model.set_measures(("map", "P.5", "ndcg_cut.10", "P.30"))
        s.model.set_relevance_level(2)
        s.model.set_ndcg_option("gain", "exp")
        s.followups.set_compare_settings(test="wilcoxon", alpha=0.01, correction="bh")
        _idle(qtbot, w)
        path = project / "study.irwb"
        with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):  # (written by a job)
            assert w.parts.workspaces.write(str(path))
        summary = s.results.summary.copy()
    finally:
        close_window(w)

    (tmp_path / "b").mkdir()
    w2 = open_window(qtbot, tmp_path / "b", ("map",))  # the defaults: map, level 1, trec_eval's gain
    try:
        s2 = w2.session
        assert w2.parts.views.measures.relevance.value() == 1
        w2.parts.files.open_files([str(path)])
        _idle(qtbot, w2)
        assert s2.settings.relevance_level == 2 and s2.settings.ndcg_options() == {"gain": "exp"}
        assert s2.results.summary.equals(summary)
        assert_panels_show_the_session(w2)
        p5 = next(
            w2.parts.views.measures.list.item(i)
            for i in range(w2.parts.views.measures.list.count())
            if "[P.5]" in w2.parts.views.measures.list.item(i).text()
        )
        assert p5.checkState() == Qt.CheckState.Checked
        # the next tick keeps P@5, and the level box edits the level in force
        p10 = next(
            w2.parts.views.measures.list.item(i)
            for i in range(w2.parts.views.measures.list.count())
            if "[P.10]" in w2.parts.views.measures.list.item(i).text()
        )
        p10.setCheckState(Qt.CheckState.Checked)
        assert {"P.5", "P.10", "P.30", "ndcg_cut.10"} <= set(s2.measures)
        w2.parts.views.measures.relevance.setValue(3)
        assert s2.settings.relevance_level == 3
        _idle(qtbot, w2)
        assert_panels_show_the_session(w2)
        # undo puts the level back, and the panel shows it
        w2.parts.menus.undo_action.trigger()
        assert s2.settings.relevance_level == 2 and w2.parts.views.measures.relevance.value() == 2
        w2.parts.menus.undo_action.trigger()
        assert "P.10" not in s2.measures
        _idle(qtbot, w2)
        assert_panels_show_the_session(w2)
    finally:
        close_window(w2)


def _read_back(path) -> str:
    return open(path, encoding="utf-8-sig").read()


def test_every_export_states_the_settings_that_made_its_numbers(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map", "ndcg_cut.10"))
    try:
        s = w.session
        _open(qtbot, w, project)
        s.model.set_relevance_level(2)
        s.model.set_ndcg_option("gain", "exp")
        _idle(qtbot, w)
        qtbot.waitUntil(lambda: s.comparison is not None, timeout=TIMEOUT)
        map_at_2 = float(s.results.summary.loc["bm25", "map"])
        default = metrics.evaluate(str(project / "qrels.txt"), str(project / "run_bm25.txt"), ["map"]).summary()
        assert map_at_2 != pytest.approx(float(default.loc["bm25", "map"]))  # the level changes the number
        out = tmp_path / "out"
        out.mkdir()
        for what, name in (("summary", "s.csv"), ("per_query", "pq.csv"), ("per_query_table", "t.csv")):
            with qtbot.waitSignal(w.sigExported, timeout=TIMEOUT):
                assert w.parts.exports.export(what, str(out / name))
        for name in ("pr.png", "ndcg.svg"):
            with qtbot.waitSignal(w.sigExported, timeout=TIMEOUT):
                assert w.parts.exports.export("pr" if name.startswith("pr") else "ndcg", str(out / name))
        from workbench.state.report import write_report

        for fmt, name in (("markdown", "r.md"), ("latex", "r.tex"), ("html", "r.html"), ("csv", "r.csv")):
            write_report(
                out / name,
                fmt,
                evaluation=s.results.evaluation,
                comparison=s.comparison.table,
                table="summary",
                qrels=s.results.request.qrels_name,
            )
        for name in ("s.csv", "pq.csv", "t.csv", "r.md", "r.tex", "r.html", "r.csv", "ndcg.svg"):
            text = _read_back(out / name)
            assert "trec_eval -l 2" in text, name
            assert "2^grade - 1" in text, name
            assert "ir-workbench" in text, name
            assert "no -c" in text, name
        from PySide6.QtGui import QImage

        image = QImage(str(out / "pr.png"))
        assert "trec_eval -l 2" in image.text("Description")
        assert "k = 1 to" in _read_back(out / "ndcg.svg")
        # the CSV still reads back as the numbers
        import pandas as pd

        back = pd.read_csv(out / "s.csv", comment="#").set_index("run")
        assert back.loc["bm25", "map"] == map_at_2
    finally:
        close_window(w)


def test_a_second_qrels_file_says_it_replaces_the_first_and_undo_brings_it_back(qtbot, project, tmp_path):
    other = tmp_path / "qrels_graded.txt"
    lines = _read_back(project / "qrels.txt").splitlines()
    other.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        first = dict(s.results.summary["map"])
        told = []
        s.sigMessage.connect(told.append)
        w.parts.files.open_files([str(other)])
        _idle(qtbot, w)
        assert s.workspace.qrels_entry().name == "qrels_graded.txt"
        assert any("qrels_graded.txt replaces qrels.txt as the qrels" in m for m in told)
        assert "qrels_graded.txt" in w.windowTitle() and "against qrels_graded.txt" in told[-1]
        assert "qrels" in w.parts.menus.undo_action.text()
        w.parts.menus.undo_action.trigger()
        _idle(qtbot, w)
        qtbot.waitUntil(lambda: s.results.request.qrels_name.endswith("qrels.txt"), timeout=TIMEOUT)
        assert s.workspace.qrels_entry().name == "qrels.txt"
        assert dict(s.results.summary["map"]) == first
    finally:
        close_window(w)


def test_a_rename_is_taken_back_by_undo(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        s.model.files.rename(str(project / "run_bm25.txt"), "BM25 k1=0.9")
        _idle(qtbot, w)
        assert "BM25 k1=0.9" in s.results.runs
        w.parts.menus.undo_action.trigger()
        _idle(qtbot, w)
        qtbot.waitUntil(lambda: "bm25" in s.results.runs, timeout=TIMEOUT)
        assert "BM25 k1=0.9" not in s.results.runs
    finally:
        close_window(w)


def test_a_file_opened_again_or_twice_under_another_name_is_told(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        told = []
        s.sigMessage.connect(told.append)
        w.parts.files.open_files([str(project / "run_bm25.txt")])
        _idle(qtbot, w)
        assert any("Already open" in m and "run_bm25.txt" in m for m in told)
        copy = tmp_path / "bm25_copy.txt"
        shutil.copy(project / "run_bm25.txt", copy)
        w.parts.files.open_files([str(copy)])
        _idle(qtbot, w)
        assert any("bm25_copy.txt has the same content as bm25" in m for m in told)
    finally:
        close_window(w)


def _status(w, name):
    t = w.parts.views.files.table
    return {t.item(r, 0).text(): t.item(r, 2).text() for r in range(t.rowCount())}[name]


def test_a_file_deleted_from_disk_is_said_so(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        os.remove(project / "run_tfidf_title.txt")
        qtbot.waitUntil(lambda: _status(w, "tfidf_title").startswith("deleted from disk"), timeout=TIMEOUT)
        qtbot.waitUntil(lambda: w.parts.bars.stale_toolbar.isVisible(), timeout=TIMEOUT)
        assert "run_tfidf_title.txt was deleted from disk" in w.parts.bars.stale_bar.label.text()
        assert "tfidf_title" in s.results.runs  # held in memory: what it held is still shown, and said to be
    finally:
        close_window(w)


def test_declining_to_read_a_changed_run_again_keeps_the_window(qtbot, project, tmp_path, monkeypatch):
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 0)  # every run scored from its file
    w = open_window(qtbot, tmp_path, ("map",))
    monkeypatch.setattr(window_files, "LARGE_FILE", -1)  # asked whether to read it again, the user answers No
    no = window_files.QMessageBox.StandardButton.No
    monkeypatch.setattr(window_files.QMessageBox, "question", lambda *a, **k: no)
    try:
        s = w.session
        _open(qtbot, w, project)
        assert len(s.results.runs) == 3
        with open(project / "run_bm25.txt", "a") as f:
            f.write("1 Q0 extra_doc 1001 -5.0 bm25\n")
        qtbot.waitUntil(lambda: _status(w, "bm25").startswith("changed on disk"), timeout=TIMEOUT)
        s.model.set_measures(("map", "P.5"))  # a tick: the runs are scored again
        _idle(qtbot, w)
        qtbot.waitUntil(lambda: "P_5" in s.results.measures, timeout=TIMEOUT)
        assert set(s.results.runs) == {"bm25_rm3", "tfidf_title"}  # left out, not failed
        e = s.workspace.entry(str(project / "run_bm25.txt"))
        assert e.status == "ok" and e.run is not None
        assert _status(w, "bm25").startswith("changed on disk")
        qtbot.waitUntil(lambda: w.parts.bars.stale_toolbar.isVisible(), timeout=TIMEOUT)
        assert "its scores are left out until it is" in w.parts.bars.stale_bar.label.text()
        assert w.parts.bars.stale_bar.reload_button.isVisibleTo(w.parts.bars.stale_bar)
        w.parts.bars.stale_bar.reload_button.click()
        _idle(qtbot, w)
        qtbot.waitUntil(lambda: "bm25" in s.results.runs, timeout=TIMEOUT)
        assert set(s.results.runs) == {"bm25", "bm25_rm3", "tfidf_title"}
    finally:
        close_window(w)


def test_a_cell_bar_or_summary_value_is_explained_with_the_number_it_shows(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map", "ndcg_cut.10"))
    try:
        s = w.session
        _open(qtbot, w, project)
        s.model.set_relevance_level(2)
        _idle(qtbot, w)
        view = w.parts.views.per_query
        view.measure_box.setCurrentText("map")
        row = 3
        query = view.proxy.index(row, 0).data()
        column = [view.proxy.headerData(c, Qt.Orientation.Horizontal) for c in range(view.proxy.columnCount())]
        index = view.proxy.index(row, column.index("bm25_rm3"))
        view.view.clicked.emit(index)
        qtbot.waitUntil(lambda: s.model.explainer.explained is not None and not s.busy, timeout=TIMEOUT)
        e = s.model.explainer.explained.explanation
        assert (e.run, e.query_id, e.measure) == ("bm25_rm3", query, "map")
        shown = float(s.results.per_query["map"].loc[query, "bm25_rm3"])
        assert e.value == shown and e.explained
        assert "-l 2" in " ".join(e.conventions)  # under the level in force
        assert e.line.split("\t") == ["map".ljust(22), query, f"{shown:.4f}"]
        assert w.parts.views.explain_view.text() == e.to_text()
        # a summary cell: the mean over the queries
        summary = w.parts.views.summary
        headers = [summary.proxy.headerData(c, Qt.Orientation.Horizontal) for c in range(summary.proxy.columnCount())]
        runs = [summary.proxy.index(r, 0).data().split(" ")[0] for r in range(summary.proxy.rowCount())]
        summary.view.clicked.emit(summary.proxy.index(runs.index("bm25"), headers.index("ndcg_cut_10")))
        qtbot.waitUntil(
            lambda: s.model.explainer.explained.explanation.query_id == "all" and not s.busy, timeout=TIMEOUT
        )
        e = s.model.explainer.explained.explanation
        assert e.value == float(s.results.summary.loc["bm25", "ndcg_cut_10"])
        # a bar of the difference chart
        w.parts.views.diff_chart.sigBarClicked.emit("tfidf_title", query, "map")
        qtbot.waitUntil(
            lambda: s.model.explainer.explained.explanation.run == "tfidf_title" and not s.busy, timeout=TIMEOUT
        )
        assert s.model.explainer.explained.explanation.value == float(
            s.results.per_query["map"].loc[query, "tfidf_title"]
        )
        # map is pictured by its precision at each relevant rank; cumulative gain is the DCG family's picture
        assert s.model.explainer.explained.gain_curve is None
        assert (
            w.parts.views.explain_view.picture == "precision at each relevant rank"
            and w.parts.views.explain_view.plot.isVisible()
        )
        # a row of the explanation selects its document in the drill-down
        doc = next(r["docid"] for t in s.model.explainer.explained.explanation.tables for r in t.rows if r.get("docid"))
        w.parts.views.explain_view.documentActivated.emit(query, doc)
        qtbot.waitUntil(lambda: s.drilldown is not None and s.drilldown.query_id == query, timeout=TIMEOUT)
        qtbot.waitUntil(
            lambda: any(
                doc in col.doc_ids() and col.view.selectionModel().hasSelection()
                for col in w.parts.views.drilldown.columns.values()
            ),
            timeout=TIMEOUT,
        )
        # new results (another level) explain the same cell again, under the new level
        s.model.set_relevance_level(1)
        _idle(qtbot, w)
        qtbot.waitUntil(
            lambda: "-l 1" in " ".join(s.model.explainer.explained.explanation.conventions), timeout=TIMEOUT
        )
    finally:
        close_window(w)


def test_tab_goes_through_every_control_and_entering_a_table_chooses_nothing(qtbot, project, tmp_path):
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        w.activateWindow()
        w.parts.views.files.table.setFocus()
        seen = []
        for _ in range(80):
            focus = QApplication.focusWidget()
            seen.append(focus)
            QTest.keyClick(focus, Qt.Key.Key_Tab)
        # out of the files table to its buttons and the measures, and round the window back to the table
        for widget in (
            w.parts.views.files.up_button,
            w.parts.views.files.remove_button,
            w.parts.views.measures.list,
            w.parts.views.measures.relevance,
        ):
            assert widget in seen
        assert seen.count(w.parts.views.files.table) >= 2 and w.parts.views.per_query.view in seen
        for view in (w.parts.views.files.table, w.parts.views.per_query.view):
            at = seen.index(view)
            assert seen[at + 1] is not view  # one Tab leaves a table
        assert s.selected_query is None  # entering the per-query table chose no query
        w.parts.views.per_query.view.setFocus()
        qtbot.wait(20)
        QTest.keyClick(w.parts.views.per_query.view, Qt.Key.Key_Down)
        assert s.selected_query is not None  # a key that moves in it does
    finally:
        close_window(w)


def test_bad_files_dropped_leave_no_traceback_on_the_terminal(project, tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "bad_run.txt"
    bad.write_text("301 Q0 d1 1 2.0 run\n301 Q0 d2 2 high run\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-m", "workbench.app", "--screenshot", str(tmp_path / "shot.png"), "--timeout", "60"]
        + [str(project / "qrels.txt"), str(project / "run_bm25.txt"), str(bad), str(empty)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert (tmp_path / "shot.png").exists()
    logs = list((tmp_path / "data").rglob("ir-workbench.log"))
    assert logs and "bad_run.txt" in logs[0].read_text()  # the details are in the log


def test_every_plot_copies_its_image_and_the_drilldown_finds_a_document(qtbot, project, tmp_path):
    from PySide6.QtGui import QGuiApplication

    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        for plot in (
            w.parts.views.pr_plot,
            w.parts.views.ndcg_plot,
            w.parts.views.diff_chart,
            w.parts.views.explain_view,
        ):
            QGuiApplication.clipboard().clear()
            plot.copy_image_action.trigger()
            image = QGuiApplication.clipboard().image()
            assert not image.isNull() and image.width() == plot.plot.width(), type(plot).__name__
            assert plot.copy_image_action in plot.plot.getPlotItem().getViewBox().menu.actions()
        query = s.results.query_ids[0]
        s.model.select_query(query)
        qtbot.waitUntil(lambda: s.drilldown is not None and not s.busy, timeout=TIMEOUT)
        view = w.parts.views.drilldown
        column = view.columns["bm25"]
        doc = column.doc_ids()[4]
        view.find_edit.setText(doc)
        assert column.view.selectionModel().isRowSelected(4, column.view.rootIndex())
        assert view.find_status.text().startswith("in ") and "of 3 lists" in view.find_status.text()
        view.find_edit.setText("no-such-document")
        assert "not in the top" in view.find_status.text()
        assert not column.view.selectionModel().hasSelection()
    finally:
        close_window(w)


def test_a_run_named_like_a_baseline_is_the_default_one(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        # dropped first: the expansion and the title run; BM25 is the baseline all the same
        _open(qtbot, w, project, ("qrels.txt", "run_bm25_rm3.txt", "run_tfidf_title.txt", "run_bm25.txt"))
        assert s.model.workspace.baseline_label() == "bm25"
        assert "baseline: bm25" in w.parts.views.per_query.baseline_label.text()
        s.model.files.set_baseline(str(project / "run_tfidf_title.txt"))
        assert s.model.workspace.baseline_label() == "tfidf_title"  # a choice is kept
    finally:
        close_window(w)


def test_a_workspace_file_that_moved_is_located_and_keeps_its_label(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        _open(qtbot, w, project)
        s.model.files.rename(str(project / "run_bm25_rm3.txt"), "RM3")
        _idle(qtbot, w)
        path = project / "study.irwb"
        with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):  # (written by a job)
            assert w.parts.workspaces.write(str(path))
    finally:
        close_window(w)
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.move(str(project / "run_bm25_rm3.txt"), moved / "run_bm25_rm3.txt")
    w2 = open_window(qtbot, tmp_path / "elsewhere", ("map",))
    try:
        s2 = w2.session
        w2.parts.files.open_files([str(path)])
        _idle(qtbot, w2)
        assert "RM3" not in s2.results.runs
        assert "Locate" in w2.parts.bars.messages.text()
        missing = next(e for e in s2.workspace.entries if e.missing)
        s2.reading.locate(missing.path, str(moved / "run_bm25_rm3.txt"))
        _idle(qtbot, w2)
        qtbot.waitUntil(lambda: "RM3" in s2.results.runs, timeout=TIMEOUT)
        assert list(s2.results.runs) == ["bm25", "RM3", "tfidf_title"]  # its label and its place
    finally:
        close_window(w2)
