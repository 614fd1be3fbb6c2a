"""The window on the screen it has: at 1024x700 every run of the summary shows and no plot is narrower than
250 px (the right-hand views become tabs of one column); grown to 1400x900 the plots have their share of
the width again; a restored layout whose left column is too wide is laid out anew; Explain is reachable
from the keyboard."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from dl19_data import write_dl19_like  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QFontMetrics  # noqa: E402
from qt_support import close_window, open_window, window_on  # noqa: E402

from workbench.views.window.layout import COMPACT_BELOW  # noqa: E402
from workbench.views.window.main_window import MainWindow  # noqa: E402

TIMEOUT = 30000
MEASURES = ["map", "P_10", "ndcg_cut_10", "recall_100", "recip_rank", "bpref", "Rprec"]
NAMES = ["bm25", "colbert-on-bm25-trec-dl-queries", "splade", "monot5-bm25", "tct-colbert"]


@pytest.fixture(scope="module")
def dl19(tmp_path_factory):
    """Five runs of 43 queries (TREC DL 2019's shape) and their qrels."""
    qrels, runs = write_dl19_like(tmp_path_factory.mktemp("dl19"), NAMES, seed=5)
    return [qrels, *runs]


def _loaded(qtbot, w, paths):
    w.parts.files.open_files([str(p) for p in paths])
    qtbot.waitUntil(lambda: w.session.results is not None and not w.session.busy, timeout=TIMEOUT)


def _rows_shown(view) -> int:
    model, height = view.model(), view.viewport().height()
    rects = [view.visualRect(model.index(r, 0)) for r in range(model.rowCount())]
    return sum(1 for r in rects if r.top() >= 0 and r.bottom() <= height)


def test_a_small_window_shows_every_run_and_wide_plots_and_they_come_back_when_it_grows(qtbot, tmp_path, dl19):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1024, 700))
    try:
        _loaded(qtbot, w, dl19)
        views = w.parts.views
        assert w.height() <= 700 and w.width() <= 1024  # the window fits the screen it was given
        qtbot.waitUntil(lambda: _rows_shown(views.summary.view) == 5, timeout=5000)
        assert w.parts.layout.compact
        for dock in ("prCurves", "ndcgAtK", "diffChart"):  # each plot as wide as the column, in front
            views.docks[dock].raise_()
            qtbot.waitUntil(lambda dock=dock: views.docks[dock].widget().width() >= 250, timeout=5000)
        w.resize(1400, 900)
        qtbot.waitUntil(lambda: not w.parts.layout.compact and views.pr_plot.width() >= 300, timeout=5000)
        assert views.pr_plot.width() >= 300 and views.ndcg_plot.width() >= 300
        assert views.pr_plot.isVisible() and views.ndcg_plot.isVisible() and views.diff_chart.isVisible()
        qtbot.waitUntil(lambda: _rows_shown(views.summary.view) == 5, timeout=5000)
    finally:
        close_window(w)


def test_a_restored_layout_with_a_wide_left_column_is_laid_out_anew(qtbot, tmp_path, dl19):
    ini = str(tmp_path / "layout.ini")
    w = window_on(qtbot, ini)
    w.resizeDocks([w.parts.views.docks["files"]], [590], Qt.Orientation.Horizontal)  # as a start without a
    # window manager once left it
    qtbot.waitUntil(lambda: w.parts.views.docks["files"].width() > 0.3 * w.width(), timeout=5000)
    w.close()
    again = window_on(qtbot, ini)
    try:
        qtbot.waitUntil(lambda: again.parts.views.docks["files"].width() <= 0.3 * again.width(), timeout=5000)
    finally:
        close_window(again)


def test_explain_is_reachable_from_the_keyboard(qtbot, tmp_path, dl19):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    try:
        _loaded(qtbot, w, dl19)
        table = w.parts.views.per_query.view
        table.setFocus()
        proxy = table.model()
        table.setCurrentIndex(proxy.index(3, 1))  # the fourth query, the first run
        shortcut = next(a for a in w.menuBar().actions() if a.text() == "&Edit").menu().actions()
        explain = next(a for a in shortcut if "xplain" in a.text())
        assert explain.shortcut().toString() == "Ctrl+E"
        explain.trigger()
        s = w.session
        qtbot.waitUntil(lambda: s.model.explainer.explained is not None and not s.busy, timeout=TIMEOUT)
        query = str(proxy.index(3, 0).data())
        assert s.model.explainer.explained.explanation.query_id == query
        assert w.parts.views.docks["explain"].isVisible()
    finally:
        close_window(w)


@pytest.mark.parametrize(
    "size, front",
    [((1400, 900), ("prCurves", "ndcgAtK", "diffChart", "drilldown")), ((1024, 700), ("prCurves", "drilldown"))],
)
def test_a_window_built_after_its_first_frame_shows_the_default_views_in_front(qtbot, tmp_path, size, front):
    """As ``ir-workbench`` starts: the window shown, its views built just after.  The docks tabbed then are
    in front as in a window built before it is shown, every view of the right is still open, and no analysis
    view is made (each is made when it first comes forward in the dock of why runs differ)."""
    w = MainWindow(settings=QSettings(str(tmp_path / "deferred.ini"), QSettings.Format.IniFormat), deferred=True)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitUntil(lambda: w.built, timeout=TIMEOUT)
    try:
        docks = w.parts.views.docks
        tabbed = {"prCurves", "ndcgAtK", "diffChart", "drilldown", "whyRunsDiffer"}

        def in_front() -> set[str]:
            return {name for name, dock in docks.items() if not dock.visibleRegion().isEmpty()} & tabbed

        # (laid out once every dock is shown, those tabbed then behind the ones in front)
        qtbot.waitUntil(
            lambda: not any(dock.isHidden() for dock in docks.values()) and in_front() == set(front), timeout=5000
        )
        assert w.parts.views.analysis_views.built() == []
        w.resize(1400, 900)  # (grown, a narrow window's tabs go back side by side)
        wide = ("prCurves", "ndcgAtK", "diffChart", "drilldown")
        qtbot.waitUntil(lambda: in_front() >= set(wide), timeout=5000)
        tabs = {
            name: {x.objectName() for x in w.tabifiedDockWidgets(docks[name])} for name in ("diffChart", "drilldown")
        }
        assert tabs == {"diffChart": {"whyRunsDiffer"}, "drilldown": {"inspect", "pairs", "explain"}}
    finally:
        close_window(w)


@pytest.mark.parametrize("size", [(1024, 700), (1400, 900), (1920, 1080)])
def test_no_tab_title_is_cut_at_any_size(qtbot, tmp_path, dl19, size):
    """Every tab of the docks tabbed together shows its whole title ("A against B" and "All pairs",
    "Queries" and "Query drill-down" told apart): wide enough for its text, never elided; a bar whose
    tabs do not all fit scrolls, and every tab can be brought into view."""
    from PySide6.QtWidgets import QTabBar

    w = open_window(qtbot, tmp_path, MEASURES, size=size)
    try:
        _loaded(qtbot, w, dl19)
        bars = [b for b in w.findChildren(QTabBar) if b.isVisible() and b.count() > 1]
        assert bars, "no docks are tabbed together"
        titles = []
        for bar in bars:
            assert bar.elideMode() == Qt.TextElideMode.ElideNone
            metrics = bar.fontMetrics()
            for i in range(bar.count()):
                text = bar.tabText(i)
                titles.append(text)
                assert bar.tabRect(i).width() >= metrics.horizontalAdvance(text), (size, text)
            if bar.tabRect(bar.count() - 1).right() > bar.width():  # more tabs than room: the bar scrolls
                assert bar.usesScrollButtons()
        assert len(set(titles)) == len(titles)  # no two tabs alike
    finally:
        close_window(w)


@pytest.fixture(scope="module")
def dl19_100(tmp_path_factory):
    """100 runs of DL19's shape and their qrels."""
    qrels, runs = write_dl19_like(tmp_path_factory.mktemp("dl19_100"), [f"run{i:03d}" for i in range(100)], seed=7)
    return [qrels, *runs]


#: the docks of the right that are tabs of a group side by side, and also narrow (tabs of one column)
TABBED = ("diffChart", "whyRunsDiffer", "drilldown", "inspect", "pairs", "explain")
TABBED_NARROW = ("prCurves", "ndcgAtK", *TABBED)


def _bars_on_screen(w):
    """The tab bars of ``w`` that show (Qt keeps a bar it no longer uses off the window, never drawn)."""
    from PySide6.QtWidgets import QTabBar

    return [b for b in w.findChildren(QTabBar) if b.isVisible() and b.count() and not b.visibleRegion().isEmpty()]


def _too_narrow(w) -> list[tuple[list[str], int, int]]:
    """The tab bars on the screen that need more width than they have (their titles, their width and the
    width they need): such a bar scrolls, a tab at its edge cut."""
    narrow = []
    for bar in _bars_on_screen(w):
        need = max(bar.sizeHint().width(), bar.tabRect(bar.count() - 1).right() + 1)
        if need > bar.width():
            narrow.append(([bar.tabText(i) for i in range(bar.count())], bar.width(), need))
    return narrow


def _tabs_placed(w) -> bool:
    """Every dock of the right that the window's width makes a tab is one of a bar on the screen (the
    window's layout is done)."""
    titles = {bar.tabText(i) for bar in _bars_on_screen(w) for i in range(bar.count())}
    names = TABBED_NARROW if w.width() < COMPACT_BELOW else TABBED
    return all(w.parts.views.docks[name].windowTitle() in titles for name in names)


@pytest.mark.parametrize("runs", ["sample", "100 runs"])
@pytest.mark.parametrize("size", [(1024, 700), (1400, 900), (1920, 1080)])
def test_every_tab_bar_has_the_width_its_titles_need(qtbot, tmp_path, dl19_100, size, runs):
    """No bar of tabs scrolls with a tab cut at its edge, on the sample and with 100 runs open: at 1024x700
    the right column is two groups of tabs as wide as their titles need, at 1400x900 and 1920x1080 the
    views of why runs differ are one tab beside the per-query differences; the window keeps its size, and
    the dock of why runs differ brought forward shows a view, its tabs still whole."""
    w = open_window(qtbot, tmp_path, MEASURES, size=size)
    try:
        if runs == "sample":
            w.session.reading.open_sample()
            qtbot.waitUntil(lambda: w.session.results is not None and not w.session.busy, timeout=TIMEOUT)
        else:
            _loaded(qtbot, w, dl19_100)
            assert len(w.session.results.runs) == 100
        qtbot.waitUntil(lambda: _tabs_placed(w), timeout=5000)
        assert _too_narrow(w) == []
        assert w.width() <= size[0] and w.height() <= size[1]
        why = w.parts.views.analysis_views
        why.show("overlap")
        qtbot.waitUntil(lambda: why.built() == ["overlap"] and not why.dock.visibleRegion().isEmpty(), timeout=5000)
        assert why.pane.stack.currentWidget().widget() is why["overlap"]
        qtbot.waitUntil(lambda: _tabs_placed(w), timeout=5000)
        assert _too_narrow(w) == []
        assert w.width() <= size[0] and w.height() <= size[1]
    finally:
        close_window(w)


def test_the_default_baseline_of_pyserini_named_dl19_runs_is_bm25_not_a_reranker_of_it(qtbot, tmp_path):
    """DL19's runs as Pyserini writes them (tag "Anserini", so labelled by their file names), ColBERT's
    re-ranking of BM25 dropped first: the plain BM25 run is the baseline."""
    names = ["colbert-on-bm25-trec-dl-queries", "run.msmarco-v1-passage.bm25-default.dl19", "monot5-bm25"]
    (tmp_path / "data").mkdir()
    qrels, runs = write_dl19_like(tmp_path / "data", names, seed=3)
    for run, name in zip(runs, names):
        run.write_text(run.read_text().replace(f" {name}\n", " Anserini\n"))
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    try:
        _loaded(qtbot, w, [qrels, *runs])
        assert w.session.workspace.baseline_label() == "run.msmarco-v1-passage.bm25-default.dl19"
        qtbot.waitUntil(
            lambda: (
                "baseline: run.msmarco-v1-passage.bm25-default.dl19" in w.parts.views.per_query.baseline_label.text()
            ),
            timeout=TIMEOUT,
        )
    finally:
        close_window(w)


@pytest.mark.parametrize("measure", ["map", "ndcg_cut_10", "bpref"])
@pytest.mark.parametrize("size", [(1024, 700), (1400, 900)])
def test_explaining_a_value_keeps_the_window_on_its_screen(qtbot, tmp_path, dl19, size, measure):
    """Explain opened at 1024x700 widened the window to 1041 px, past the screen; the window keeps its
    size and the Explain dock shows the value's answer line without scrolling sideways."""
    w = open_window(qtbot, tmp_path, MEASURES, size=size)
    try:
        _loaded(qtbot, w, dl19)
        w.session.model.set_focus_measure(measure)
        qtbot.waitUntil(lambda: w.parts.views.per_query.measure_box.currentText() == measure, timeout=TIMEOUT)
        table = w.parts.views.per_query.view
        table.setFocus()
        table.setCurrentIndex(table.model().index(3, 1))
        edit = next(a for a in w.menuBar().actions() if a.text() == "&Edit").menu().actions()
        next(a for a in edit if "xplain" in a.text()).trigger()
        s = w.session
        qtbot.waitUntil(lambda: s.model.explainer.explained is not None and not s.busy, timeout=TIMEOUT)
        qtbot.waitUntil(lambda: w.parts.views.docks["explain"].isVisible(), timeout=TIMEOUT)
        qtbot.wait(100)  # (the layout settles: a widening would show by now)
        assert w.width() <= size[0] and w.height() <= size[1]
    finally:
        close_window(w)


def test_a_message_opening_moves_no_panel_under_the_mouse(qtbot, tmp_path, dl19):
    """A notice or an error shown in its bar leaves the top of every panel where it was (the bar opened
    above the panels and pushed them down under the mouse); the bar sits above the status bar."""
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    try:
        _loaded(qtbot, w, dl19)
        views = w.parts.views
        watched = [views.summary.view, views.per_query.view, views.pr_plot, views.docks["files"]]

        def tops():
            return [x.mapTo(w, x.rect().topLeft()).y() for x in watched]

        before = tops()
        w.session.sigNotice.emit("qrels2.txt replaces qrels.txt as the qrels")
        w.session.sigError.emit("bad.run, line 2: found 5 columns; expected 6")
        bars = w.parts.bars
        qtbot.waitUntil(lambda: bars.message_bar.isVisible(), timeout=TIMEOUT)
        qtbot.wait(50)  # (a layout that moves the panels would have done so by now)
        assert tops() == before
        assert bars.message_bar.mapTo(w, bars.message_bar.rect().topLeft()).y() > w.height() / 2
    finally:
        close_window(w)


SAMPLE = sorted(str(p) for p in (Path(__file__).parents[2] / "workbench" / "resources" / "sample").iterdir())


@pytest.mark.parametrize("size", [(1024, 700), (1400, 900), (1920, 1080)])
def test_a_view_brought_forward_among_its_tabs_leaves_the_drill_down_its_share(qtbot, tmp_path, size):
    """Clicking the tab of "Why runs differ" gives it at least half of its column, and the drill-down under it
    keeps the rest: its height, or half the column. Qt fitted the column to the view's size hint instead:
    on the sample, the drill-down went from 181 to 132 pixels at 1024x700 (one row of its lists left), from
    349 to 227 at 1400x900 and from 465 to 321 at 1920x1080."""
    from PySide6.QtWidgets import QTabBar

    w = open_window(qtbot, tmp_path, MEASURES, size=size)
    try:
        _loaded(qtbot, w, SAMPLE)
        s, docks = w.session, w.parts.views.docks
        s.model.select_query(s.results.query_ids[0])
        qtbot.waitUntil(lambda: s.drilldown is not None and not s.busy, timeout=TIMEOUT)
        drill, why = docks["drilldown"], docks["whyRunsDiffer"]
        qtbot.wait(100)
        before = drill.height()
        bar, index = next(
            (b, i) for b in w.findChildren(QTabBar) for i in range(b.count()) if b.tabText(i) == "Why runs differ"
        )
        qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
        qtbot.waitUntil(lambda: why.isVisible() and not why.visibleRegion().isEmpty() and not s.busy, timeout=TIMEOUT)
        qtbot.wait(300)  # (the column is fitted again once the view is shown and filled)
        half = (drill.height() + why.height()) // 2
        assert drill.height() >= min(before, half) - 12, (before, drill.height(), half)
        assert why.height() >= half - 12, (why.height(), half)
    finally:
        close_window(w)


def _cut(panel, column: int) -> list[str]:
    """The texts of ``column`` of the Files panel (0: the names, 2: the statuses) it does not show whole."""
    table = panel.table
    items = [table.item(row, column) for row in range(table.rowCount())]
    # (an item's text is drawn inside a margin of 3 px each side)
    return [
        i.text() for i in items if table.columnWidth(column) < QFontMetrics(i.font()).horizontalAdvance(i.text()) + 6
    ]


@pytest.mark.parametrize("size", [(1400, 900), (1920, 1080)])
def test_the_files_panel_shows_every_name_whole_and_at_1920_every_status(qtbot, tmp_path, size):
    """The left column widened to the files' names (it was 260 px at every size: "collecti…", "bm25_r…"
    at 1400x900, "collectio…" at 1920x1080), up to a share of the width."""
    w = open_window(qtbot, tmp_path, MEASURES, size=size)
    try:
        _loaded(qtbot, w, SAMPLE)
        files = w.parts.views.files
        names = [files.table.item(r, 0).text() for r in range(files.table.rowCount())]
        assert "collection.tsv" in names and "bm25_rm3" in names
        qtbot.waitUntil(lambda: not _cut(files, 0), timeout=5000)
        if size[0] >= 1920:
            assert not _cut(files, 2)
        assert w.parts.views.docks["files"].width() <= 0.22 * w.width() + 1
    finally:
        close_window(w)


def test_the_left_column_widens_to_the_files_texts_as_the_window_grows(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    try:
        _loaded(qtbot, w, SAMPLE)
        files = w.parts.views.files
        qtbot.waitUntil(lambda: not _cut(files, 0), timeout=5000)
        assert _cut(files, 2)  # "tsv, 13,416 documents" does not fit beside the names at 1400 px
        statuses = [files.table.item(r, 2) for r in range(files.table.rowCount())]
        assert all(i.text() in i.toolTip() for i in statuses)  # (whole in its tooltip)
        w.resize(1920, 1080)
        qtbot.waitUntil(lambda: not _cut(files, 0) and not _cut(files, 2), timeout=5000)
    finally:
        close_window(w)


def test_a_left_column_the_user_narrowed_stays_so_until_the_files_need_more(qtbot, tmp_path):
    ini = str(tmp_path / "layout.ini")
    longer = tmp_path / "run_bm25_under_a_much_longer_name.txt"
    longer.write_bytes(Path(SAMPLE[3]).read_bytes())
    w = window_on(qtbot, ini)
    _loaded(qtbot, w, SAMPLE)
    files, dock = w.parts.views.files, w.parts.views.docks["files"]
    qtbot.waitUntil(lambda: not _cut(files, 0), timeout=5000)
    wide = dock.width()
    w.resizeDocks([dock], [150], Qt.Orientation.Horizontal)  # as the user drags its edge (to its least width)
    qtbot.waitUntil(lambda: dock.width() < wide - 30, timeout=5000)
    narrow = dock.width() + 5
    w.session.model.set_relevance_level(2)  # (a change every panel follows: the same texts, the same need)
    qtbot.waitUntil(lambda: not w.session.busy, timeout=TIMEOUT)
    qtbot.wait(100)
    assert dock.width() <= narrow
    w.close()
    again = window_on(qtbot, ini)  # the next start, on the same files
    try:
        _loaded(qtbot, again, SAMPLE)
        dock = again.parts.views.docks["files"]
        qtbot.wait(100)
        assert dock.width() <= narrow
        _loaded(qtbot, again, [longer])  # a longer name: the column widens for it
        qtbot.waitUntil(lambda: dock.width() > narrow, timeout=5000)
    finally:
        close_window(again)
