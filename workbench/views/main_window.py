"""The main window: the views as docks around the per-query table, menus, drops, progress, messages."""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from workbench.system import qtcompat
from workbench.views.status import MessageArea, StaleBar
from workbench.views.window_explain import ExplainActions
from workbench.views.window_exports import ExportActions
from workbench.views.window_files import FileActions
from workbench.views.window_layout import LAYOUT_VERSION, LayoutActions
from workbench.views.window_progress import ProgressActions
from workbench.views.window_startup import StartupActions, _InputShield
from workbench.views.window_workspaces import WorkspaceActions

APP_NAME = "ir-workbench"


class MainWindow(
    ProgressActions,
    StartupActions,
    FileActions,
    WorkspaceActions,
    ExportActions,
    ExplainActions,
    LayoutActions,
    QMainWindow,
):
    sigExported = Signal(str)

    def __init__(self, session=None, settings: QSettings | None = None, parent=None, *, deferred: bool = False):
        """``deferred``: show the window first and build its views (which import pandas, pyqtgraph and
        the session's models) just after it is shown; :meth:`when_ready` runs work once they are."""
        super().__init__(parent)
        qtcompat.quicker_feature_check()  # before the session's and the views' modules are imported
        self.settings = settings if settings is not None else QSettings(APP_NAME, APP_NAME)
        self.workspace_path: str | None = None  # the workspace file last opened or saved
        self.setWindowTitle(APP_NAME)
        icon = os.path.join(os.path.dirname(os.path.dirname(__file__)), "resources", "icon.svg")
        if os.path.exists(icon):
            self.setWindowIcon(QIcon(icon))
        self._first_show = True
        self._ready: list | None = []  # work waiting for the views; None once they are built
        self._session_waiting: list | None = []  # work waiting for the session; None once it is made
        self._early: list[tuple] = []  # what the session said before the views were there to show it
        self._paint_held = False  # the views wait for the first scores to be painted (paint_with_first_scores)
        self._shield: _InputShield | None = None  # takes the input meanwhile
        if deferred:
            self._pending_session = session
            self.statusBar().showMessage("Starting…")
            self._fit_to_screen()
            geometry = self.settings.value("geometry")
            if geometry is not None:
                self.restoreGeometry(geometry)
        else:
            self._build(session)

    #: a window opened on files shows its views with their first scores (:meth:`paint_with_first_scores`),
    #: or this long after they are built at most
    FIRST_PAINT_WAIT_MS = 1000

    def _make_session(self, session=None) -> None:
        """The session, and what it says kept until the views can show it."""
        from workbench.session import Session

        self.session = session or Session(self)
        self.session.chosen_kinds.update(self._chosen_kinds())
        if self._ready is not None:  # views to come: keep errors and loaded files for them
            self.session.sigError.connect(self._keep_early_error)
            self.session.sigFileLoaded.connect(self._keep_early_file)
            self.session.sigMessage.connect(self._show_early_message)
        waiting, self._session_waiting = self._session_waiting or [], None
        for work in waiting:
            work()

    def showEvent(self, event) -> None:
        if self._ready is not None and not getattr(self, "_build_scheduled", False) and not hasattr(self, "docks"):
            # shown before its views: they are built once this first frame is on the screen
            super(LayoutActions, self).showEvent(event)
            self._build_scheduled = True
            # the modules of the session and of the views are imported by a thread of their own while the
            # window stays responsive; the session is made (and starts reading files) as soon as its
            # modules are there, the views once theirs are
            QTimer.singleShot(30, self._start_imports)  # once the first frame is on the screen
            return
        super().showEvent(event)

    def _build(self, session=None) -> None:
        from workbench.views.diffchart import DifferenceChart
        from workbench.views.drilldown import QueryDrilldownView
        from workbench.views.inspect import InspectView
        from workbench.views.measure_panel import MeasurePanel
        from workbench.views.pairs import PairsView
        from workbench.views.panels import FilesPanel
        from workbench.views.plots import NdcgAtKPlot, PrecisionRecallPlot
        from workbench.views.tables import PerQueryView, SummaryView

        if not hasattr(self, "session"):
            self._make_session(session)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)

        # central: the per-query table; the summary spans the window's top, above it and the plots
        self.summary = SummaryView(self.session, self)
        self.per_query = PerQueryView(self.session, self)
        central = QWidget(self)
        box = QVBoxLayout(central)
        box.setContentsMargins(2, 2, 2, 0)
        box.setSpacing(2)
        box.addWidget(self.per_query)
        self.setCentralWidget(central)

        self.files = FilesPanel(self.session, self)
        self.measures = MeasurePanel(self.session, self)
        self.pr_plot = PrecisionRecallPlot(self.session, self)
        self.ndcg_plot = NdcgAtKPlot(self.session, self)
        self.docks: dict[str, QDockWidget] = {}
        self.add_dock("files", "Files", self.files, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.add_dock("measures", "Measures", self.measures, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.add_dock("summary", "Summary", self.summary, Qt.DockWidgetArea.TopDockWidgetArea)
        self.add_dock("prCurves", "Precision-recall", self.pr_plot, Qt.DockWidgetArea.RightDockWidgetArea)
        self.add_dock("ndcgAtK", "NDCG@k", self.ndcg_plot, Qt.DockWidgetArea.RightDockWidgetArea)
        self.diff_chart = DifferenceChart(self.session, self)
        self.drilldown = QueryDrilldownView(self.session, self)
        self.add_dock("diffChart", "Per-query differences", self.diff_chart, Qt.DockWidgetArea.RightDockWidgetArea)
        self.add_dock("drilldown", "Query drill-down", self.drilldown, Qt.DockWidgetArea.RightDockWidgetArea)
        self.inspect_view = InspectView(self.session, self)
        self.add_dock("inspect", "Inspect file", self.inspect_view, Qt.DockWidgetArea.RightDockWidgetArea)
        self.pairs_view = PairsView(self.session, self)
        self.add_dock("pairs", "All pairs", self.pairs_view, Qt.DockWidgetArea.RightDockWidgetArea)
        # right area: a column of curves (precision-recall over NDCG@k), then the comparison column
        self.splitDockWidget(self.docks["prCurves"], self.docks["diffChart"], Qt.Orientation.Horizontal)
        self.splitDockWidget(self.docks["prCurves"], self.docks["ndcgAtK"], Qt.Orientation.Vertical)
        self.splitDockWidget(self.docks["diffChart"], self.docks["drilldown"], Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.docks["drilldown"], self.docks["inspect"])
        self.tabifyDockWidget(self.docks["drilldown"], self.docks["pairs"])
        from workbench.views.analysis_docks import add_analysis_docks  # why runs differ (tabbed with diffChart)

        self.analysis_views = add_analysis_docks(self, self.session)
        self._build_explain()
        self.docks["drilldown"].raise_()
        self.setCorner(Qt.Corner.TopRightCorner, Qt.DockWidgetArea.TopDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)

        self._build_status_bar()
        self._build_menus()
        # messages: a banner across the window under the toolbar, shown only while there is one
        self.addToolBarBreak()
        self.message_bar = QToolBar("Messages", self)
        self.message_bar.setObjectName("messageBar")
        self.message_bar.setMovable(False)
        self.message_bar.setFloatable(False)
        self.message_bar.toggleViewAction().setVisible(False)
        self.messages = MessageArea(self.message_bar)
        self.message_bar.addWidget(self.messages)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.message_bar)
        self.message_bar.hide()
        self.addToolBarBreak()
        self.stale_toolbar = QToolBar("Out of date", self)
        self.stale_toolbar.setObjectName("staleBar")
        self.stale_toolbar.setMovable(False)
        self.stale_toolbar.setFloatable(False)
        self.stale_toolbar.toggleViewAction().setVisible(False)
        self.stale_bar = StaleBar(self.session, self.stale_toolbar)
        self.stale_toolbar.addWidget(self.stale_bar)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.stale_toolbar)
        self.stale_toolbar.hide()
        if not self.isVisible():
            self._fit_to_screen()
        self._initial_state = self.saveState(LAYOUT_VERSION)  # dock positions for "Reset layout"
        self._restored = False

        s = self.session
        s.sigError.connect(self.messages.add)
        s.sigMessage.connect(lambda text: self.statusBar().showMessage(text, 8000))
        s.sigBusyChanged.connect(self._on_busy)
        s.sigProgress.connect(self._on_progress)
        s.sigFileLoaded.connect(self._remember_recent)
        s.sigFilesChanged.connect(self._on_files_changed)
        s.sigMeasuresChanged.connect(self._sync_undo)
        s.sigResultsChanged.connect(self._on_results)
        s.sigQueryChanged.connect(self._on_query)
        s.sigFileChangedOnDisk.connect(self._on_file_changed_on_disk)
        self.files.sigOpenRequested.connect(self.open_dialog)
        self.files.sigSelected.connect(self._inspect_selected)
        s.sigInspectionChanged.connect(self._on_inspection)
        self.pairs_view.sigPairChosen.connect(self._show_pair)
        s.sigComparisonChanged.connect(self._on_comparison)
        self.pr_plot.sigExportRequested.connect(lambda: self._export_dialog("pr"))
        self.ndcg_plot.sigExportRequested.connect(lambda: self._export_dialog("ndcg"))
        self.update_title()
        self.restore_layout()
        if self.isVisible() and self._first_show:  # built after the first frame: lay the docks out
            self._first_show = False  # once they have their places (the next turn of the event loop)
            if not self._restored:
                QTimer.singleShot(0, self._default_sizes)
        self.statusBar().clearMessage()
        # the session was at work while the views were built (files given on the command line): they show
        # where it is now, then what it said meanwhile
        s.sigError.disconnect(self._keep_early_error)
        s.sigFileLoaded.disconnect(self._keep_early_file)
        s.sigMessage.disconnect(self._show_early_message)
        if s.workspace.entries:
            for plot in (self.pr_plot, self.ndcg_plot):
                plot.refresh()
            self._on_files_changed()
            self._on_results(s.results)
            self._on_query(s.selected_query)
            if s.comparison is not None:
                self._on_comparison(s.comparison)
            self.stale_bar.refresh()
        for kind, value in self._early:
            (self.messages.add if kind == "error" else self._remember_recent)(value)
        self._early = []
        self._on_busy(s.busy)
        waiting, self._ready = self._ready or [], None
        for work in waiting:
            work()

    # ------------------------------------------------------------------
    # structure
    def add_dock(self, name: str, title: str, widget: QWidget, area) -> QDockWidget:
        """Add a view as a dock (its layout is saved under ``name``)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        if hasattr(self, "view_menu"):
            self.view_menu.insertAction(self._view_sep, dock.toggleViewAction())
        return dock

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        act = file_menu.addAction("&Open…", self.open_dialog)
        act.setShortcut(QKeySequence.StandardKey.Open)
        file_menu.addAction("Open &folder…", self.open_folder_dialog)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addAction("Open &sample data", self.open_sample)
        file_menu.addAction("Open ir_&datasets dataset…", self.open_dataset_dialog)
        file_menu.addSeparator()
        file_menu.addAction("Open &workspace…", self.open_workspace_dialog)
        act = file_menu.addAction("&Save workspace", self.save_workspace)
        act.setShortcut(QKeySequence.StandardKey.Save)
        act = file_menu.addAction("Save workspace &as…", self.save_workspace_as)
        act.setShortcut(QKeySequence.StandardKey.SaveAs)
        self.reopen_action = file_menu.addAction("Reopen &last session", self.reopen_last_session)
        self.reopen_action.setEnabled(os.path.isfile(self.last_session_path()))
        file_menu.addSeparator()
        exp = file_menu.addMenu("&Export")
        exp.addAction("Summary as CSV…", lambda: self._export_dialog("summary"))
        exp.addAction("Per-query table as shown (CSV)…", lambda: self._export_dialog("per_query_table"))
        exp.addAction("Per-query values, all measures (CSV)…", lambda: self._export_dialog("per_query"))
        exp.addSeparator()
        exp.addAction("Precision-recall plot (PNG/SVG)…", lambda: self._export_dialog("pr"))
        exp.addAction("NDCG@k plot (PNG/SVG)…", lambda: self._export_dialog("ndcg"))
        exp.addSeparator()
        exp.addAction("Comparison report (HTML, Markdown, LaTeX, CSV)…", self.report_dialog)
        file_menu.addSeparator()
        act = file_menu.addAction("&Quit", self.close)
        act.setShortcut(QKeySequence.StandardKey.Quit)

        edit = self.menuBar().addMenu("&Edit")
        self.undo_action = edit.addAction("&Undo", self.undo)
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_action.setEnabled(False)
        edit.addSeparator()
        act = edit.addAction("&Find queries…", self.find_queries)
        act.setShortcut(QKeySequence.StandardKey.Find)
        act = edit.addAction("More &measures…", self.type_measures)
        act.setShortcut(QKeySequence("Ctrl+M"))

        self.view_menu = self.menuBar().addMenu("&View")
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        self._view_sep = self.view_menu.addSeparator()
        act = self.view_menu.addAction("Show the mean over queries", lambda: self.session.select_query(None))
        act.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.view_menu.addAction("Reset layout", self.reset_layout)

        help_menu = self.menuBar().addMenu("&Help")
        act = help_menu.addAction("&Measure reference", lambda: self.show_help("measures"))
        act.setShortcut(QKeySequence.StandardKey.HelpContents)
        help_menu.addAction("&Keyboard shortcuts", lambda: self.show_help("shortcuts"))
        help_menu.addAction("&About ir-workbench", lambda: self.show_help("about"))

        tools = self.addToolBar("Query")
        tools.setObjectName("queryToolBar")
        tools.addWidget(QLabel(" Query: ", self))
        self.query_box = QComboBox(self)
        self.query_box.setMinimumContentsLength(12)
        self.query_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.query_box.setToolTip("Query shown in the plots (or the mean over all queries)")
        self.query_box.activated.connect(lambda i: self.session.select_query(self.query_box.itemData(i)))
        tools.addWidget(self.query_box)
        tools.addAction("Mean", lambda: self.session.select_query(None))
        sig_tools = self.addToolBar("Significance")
        sig_tools.setObjectName("significanceToolBar")
        from workbench.views.significance import SignificancePanel

        self.significance = SignificancePanel(self.session, self)
        sig_tools.addWidget(self.significance)

    # ------------------------------------------------------------------
    # help and editing
    def show_help(self, page: str = "measures"):
        from workbench.views.help import HelpDialog

        if getattr(self, "_help", None) is None:
            self._help = HelpDialog(self, page)
        else:
            self._help.show_page(page)
        self._help.show()
        self._help.raise_()
        return self._help

    def _inspect_selected(self, path: str) -> None:
        self.session.inspect(path)
        self._show_inspection = True

    def _on_inspection(self, inspection) -> None:
        """Bring the Inspect view forward for a file the user selected, or when nothing can be scored
        (a run dropped without qrels, a qrels file alone, a file that could not be read)."""
        if inspection is None:
            return
        s = self.session
        nothing_to_score = s.evaluation_key() is None and not s.workspace.loading()
        if getattr(self, "_show_inspection", False) or nothing_to_score:
            self._show_inspection = False
            self.docks["inspect"].show()
            self.docks["inspect"].raise_()

    def _show_pair(self, run: str, baseline: str) -> None:
        """A cell of the all-pairs matrix: ``run`` against ``baseline``, query by query."""
        e = self.session.workspace.entry_by_label(baseline)
        if e is not None:
            self.session.set_baseline(e.path)
        self._pair_to_show = run
        self.docks["diffChart"].show()
        self.docks["diffChart"].raise_()

    def _on_comparison(self, comparison) -> None:
        run = getattr(self, "_pair_to_show", None)
        if comparison is not None and run is not None and run != comparison.baseline:
            self._pair_to_show = None
            self.diff_chart.set_run(run)
        if comparison is not None and comparison.pairs is not None and not getattr(self, "_pairs_shown", False):
            self._pairs_shown = True  # the first all-pairs result brings its matrix forward
            self.docks["pairs"].show()
            self.docks["pairs"].raise_()

    def undo(self) -> None:
        told = self.session.undo()
        if told:
            self.statusBar().showMessage(told, 5000)
        self._sync_undo()

    undo_remove = undo

    def _sync_undo(self) -> None:
        what = self.session.undo_text
        self.undo_action.setEnabled(what is not None)
        self.undo_action.setText(f"&Undo {what}" if what else "&Undo")

    def find_queries(self) -> None:
        self.per_query.focus_filter()

    def type_measures(self) -> None:
        self.docks["measures"].show()
        self.docks["measures"].raise_()
        self.measures.focus_free_text()

    def _on_files_changed(self) -> None:
        self.update_title()
        self._sync_undo()

    # ------------------------------------------------------------------
    # session -> window
    def update_title(self) -> None:
        if self.session.is_sample:
            self.setWindowTitle(f"{APP_NAME} — Sample data")
            self.sample_label.setText("Sample data (made up, for a first look)")
            self.sample_label.show()
            self.reopen_button.setVisible(os.path.isfile(self.last_session_path()))
        else:
            q = self.session.workspace.qrels_entry()
            parts = [os.path.basename(self.workspace_path)] if self.workspace_path else []
            parts += [q.name] if q else []
            self.setWindowTitle(" — ".join([APP_NAME, *parts]))
            self.sample_label.hide()
            self.reopen_button.hide()

    def _fit_summary(self, results) -> None:
        """Give the summary dock the height its rows need (up to 40% of the window) when the number of
        runs changes, so that a small window does not hide a run's row."""
        n = len(results.runs)
        if n == getattr(self, "_summary_rows", None) or not self.docks["summary"].isVisible():
            return
        self._summary_rows = n
        need = self.summary.height_for_rows(n)
        need += 2 * self.docks["summary"].style().pixelMetric(
            self.docks["summary"].style().PixelMetric.PM_TitleBarHeight
        )
        need += 16
        self.resizeDocks([self.docks["summary"]], [min(need, int(self.height() * 0.4))], Qt.Orientation.Vertical)

    def _on_results(self, results) -> None:
        if results is not None:
            self._fit_summary(results)
            # errors of earlier evaluations no longer describe what is shown; those of files still in error do
            self.messages.keep_only({e.error for e in self.session.workspace.entries if e.error})
        self.query_box.clear()
        self.query_box.addItem("mean over queries", None)
        if results is not None:
            for q in results.query_ids:
                self.query_box.addItem(q, q)
        self._on_query(self.session.selected_query)

    def _on_query(self, query_id) -> None:
        if query_id is not None:  # a query chosen: its ranked lists come forward
            self.docks["drilldown"].raise_()
        i = self.query_box.findData(query_id) if query_id is not None else 0
        if i >= 0 and i != self.query_box.currentIndex():
            self.query_box.setCurrentIndex(i)

    def closeEvent(self, event) -> None:
        import json

        if not hasattr(self, "docks"):  # closed before its views were built: they never will be
            self._closed = True
            if hasattr(self, "session"):
                self.session.shutdown()
            super().closeEvent(event)
            return
        self.settings.setValue("chosenKinds", json.dumps(dict(list(self.session.chosen_kinds.items())[-500:])))
        self._save_last_session()
        self.save_layout()
        self.session.shutdown()
        super().closeEvent(event)
