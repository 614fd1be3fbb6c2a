"""The main window: the views as docks around the per-query table, menus, drops, progress, messages."""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtGui import QIcon, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from metrics import fileio
from metrics.errors import InputError
from workbench.model import export, workspace_file
from workbench.model import tables as table_model
from workbench.session import SAMPLE_DIR, Session
from workbench.views.diffchart import DifferenceChart
from workbench.views.drilldown import QueryDrilldownView
from workbench.views.inspect import InspectView
from workbench.views.pairs import PairsView
from workbench.views.panels import FilesPanel, MeasurePanel
from workbench.views.plots import NdcgAtKPlot, PrecisionRecallPlot
from workbench.views.report_dialog import ReportDialog
from workbench.views.significance import SignificancePanel
from workbench.views.tables import PerQueryView, SummaryView

APP_NAME = "ir-workbench"
MAX_RECENT = 10
LARGE_FILE = 50 * 1024 * 1024  # ask before reloading a changed file larger than this
LAYOUT_VERSION = 3  # bump when the docks change, so that an older saved layout is not applied


class MessageArea(QFrame):
    """Non-modal messages above the tables (errors stay until closed)."""

    MAX_LINES = 6

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("messageArea")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.setStyleSheet(
            "#messageArea { background: #fdecea; border: 1px solid #e6a5a0; border-radius: 3px; }"
            " QLabel { color: #611a15; }"
        )
        self.label = QLabel(self)
        self.label.setWordWrap(False)  # one line per message (wrapping labels size badly in a toolbar)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.messages: list[str] = []

    def add(self, text: str) -> None:
        if text in self.messages:  # the same message again moves to the end instead of repeating
            self.messages.remove(text)
        self.messages.append(text)
        self.messages = self.messages[-self.MAX_LINES :]
        self.label.setText("\n".join(self.messages))
        self.label.setToolTip("\n".join(self.messages))
        self._set_shown(True)

    def keep_only(self, wanted) -> None:
        """Drop the messages not in ``wanted``."""
        kept = [m for m in self.messages if m in wanted]
        if kept != self.messages:
            self.messages = []
            self.label.clear()
            for m in kept:
                self.add(m)
            if not kept:
                self._set_shown(False)

    def clear(self) -> None:
        self.messages = []
        self.label.clear()
        self._set_shown(False)

    def _set_shown(self, shown: bool) -> None:
        bar = self.parentWidget()
        if isinstance(bar, QToolBar):  # a banner across the window: the toolbar shows and hides it
            bar.setVisible(shown)
        else:
            self.setVisible(shown)

    def text(self) -> str:
        return self.label.text()


class StaleBar(QFrame):
    """Says when what is shown does not match what is loaded, and offers to compute it again."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.setObjectName("staleBar")
        self.setStyleSheet("#staleBar { background: #fff3c4; border: 1px solid #e0c060; border-radius: 3px; }")
        self.label = QLabel(self)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.recompute_button = QPushButton("Recompute", self)
        self.recompute_button.setToolTip("Evaluate and compare the loaded files again")
        self.recompute_button.clicked.connect(session.recompute)
        self.reload_button = QPushButton("Read again", self)
        self.reload_button.setToolTip("Read the files that changed on disk again")
        self.reload_button.clicked.connect(self._reload)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 4, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reload_button)
        layout.addWidget(self.recompute_button)
        session.sigStateChanged.connect(self.refresh)

    def refresh(self) -> None:
        reasons = self.session.stale_reasons()
        changed = self.session.workspace.changed_on_disk()
        self.label.setText("Out of date: " + "; ".join(reasons) + "." if reasons else "")
        self.label.setToolTip("\n".join(reasons))
        self.reload_button.setVisible(bool(changed))
        self.recompute_button.setVisible(len(reasons) > len(changed))
        bar = self.parentWidget()
        if isinstance(bar, QToolBar):
            bar.setVisible(bool(reasons))

    def _reload(self) -> None:
        for e in self.session.workspace.changed_on_disk():
            self.session.reload(e.path)


class MainWindow(QMainWindow):
    sigExported = Signal(str)

    def __init__(self, session: Session | None = None, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.session = session or Session(self)
        self.settings = settings if settings is not None else QSettings(APP_NAME, APP_NAME)
        self.workspace_path: str | None = None  # the workspace file last opened or saved
        self.session.chosen_kinds.update(self._chosen_kinds())
        self.setWindowTitle(APP_NAME)
        icon = os.path.join(os.path.dirname(os.path.dirname(__file__)), "resources", "icon.svg")
        if os.path.exists(icon):
            self.setWindowIcon(QIcon(icon))
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
        box.addWidget(QLabel("Per query", central))
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
        self._fit_to_screen()
        self._initial_state = self.saveState(LAYOUT_VERSION)  # dock positions for "Reset layout"
        self._restored = False
        self._first_show = True

        s = self.session
        s.sigError.connect(self.messages.add)
        s.sigMessage.connect(lambda text: self.statusBar().showMessage(text, 8000))
        s.sigBusyChanged.connect(self._on_busy)
        s.sigProgress.connect(self._on_progress)
        s.sigFileLoaded.connect(self._remember_recent)
        s.sigFilesChanged.connect(self._on_files_changed)
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
        self._update_title()
        self.restore_layout()

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

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.sample_label = QLabel("", self)
        self.sample_label.setStyleSheet("QLabel { background: #fff3c4; padding: 1px 6px; border-radius: 3px; }")
        self.sample_label.hide()
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop loading or evaluating")
        self.cancel_button.clicked.connect(self.session.cancel)
        self.cancel_button.hide()
        self.reopen_button = QPushButton("Reopen last session", self)
        self.reopen_button.setToolTip("Open again the files, labels, baseline and settings of the last session")
        self.reopen_button.clicked.connect(self.reopen_last_session)
        self.reopen_button.hide()
        bar.addPermanentWidget(self.reopen_button)
        bar.addPermanentWidget(self.sample_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        act = file_menu.addAction("&Open…", self.open_dialog)
        act.setShortcut(QKeySequence.StandardKey.Open)
        file_menu.addAction("Open &folder…", self.open_folder_dialog)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addAction("Open &sample data", self.open_sample)
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
        self.undo_action = edit.addAction("&Undo remove", self.undo_remove)
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

    def undo_remove(self) -> None:
        path = self.session.undo_remove()
        if path:
            self.statusBar().showMessage(f"{os.path.basename(path)} is back", 5000)
        self.undo_action.setEnabled(self.session.can_undo_remove)

    def find_queries(self) -> None:
        self.per_query.focus_filter()

    def type_measures(self) -> None:
        self.docks["measures"].show()
        self.docks["measures"].raise_()
        self.measures.focus_free_text()

    def _on_files_changed(self) -> None:
        self._update_title()
        self.undo_action.setEnabled(self.session.can_undo_remove)

    # ------------------------------------------------------------------
    # workspaces
    def last_session_path(self) -> str:
        """Where the session is kept when the window closes (next to the settings file)."""
        return os.path.join(os.path.dirname(self.settings.fileName()) or ".", "last-session" + workspace_file.SUFFIX)

    def workspace_doc(self):
        doc = self.session.snapshot()
        doc.layout = bytes(self.saveState(LAYOUT_VERSION).toBase64()).decode("ascii")
        return doc

    def open_workspace(self, path: str) -> bool:
        try:
            doc = workspace_file.read(path)
        except (InputError, OSError) as exc:
            self.messages.add(
                str(exc) if isinstance(exc, InputError) else f"{os.path.basename(path)}: {exc.strerror or exc}"
            )
            return False
        self.session.open_workspace(doc)
        if doc.layout:
            self.restoreState(QByteArray.fromBase64(doc.layout.encode("ascii")), LAYOUT_VERSION)
        if os.path.abspath(path) != os.path.abspath(self.last_session_path()):
            self.workspace_path = os.path.abspath(path)
            self._remember_recent(self.workspace_path)
        self._update_title()
        return True

    def save_workspace(self) -> bool:
        if not self.workspace_path:
            return self.save_workspace_as()
        return self.write_workspace(self.workspace_path)

    def save_workspace_as(self) -> bool:
        start = self.workspace_path or os.path.join(self._last_dir(), "workspace" + workspace_file.SUFFIX)
        path, _ = QFileDialog.getSaveFileName(self, "Save workspace", start, f"Workspace (*{workspace_file.SUFFIX})")
        if not path:
            return False
        if not path.endswith(workspace_file.SUFFIX):
            path += workspace_file.SUFFIX
        return self.write_workspace(path)

    def write_workspace(self, path: str) -> bool:
        try:
            workspace_file.write(self.workspace_doc(), path)
        except OSError as exc:
            self.messages.add(f"Saving the workspace to {path} failed: {exc.strerror or exc}")
            return False
        self.workspace_path = os.path.abspath(path)
        self._remember_recent(self.workspace_path)
        self._update_title()
        self.statusBar().showMessage(f"Workspace saved to {path}", 5000)
        return True

    def open_workspace_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open workspace", self._last_dir(), f"Workspace (*{workspace_file.SUFFIX});;All files (*)"
        )
        if path:
            self.open_workspace(path)

    def reopen_last_session(self) -> bool:
        path = self.last_session_path()
        return os.path.isfile(path) and self.open_workspace(path)

    def _save_last_session(self) -> None:
        if self.session.is_sample or not self.session.workspace.entries:
            return
        try:
            workspace_file.write(self.workspace_doc(), self.last_session_path())
        except OSError:
            pass  # a convenience; the user's own workspace files are saved explicitly

    # ------------------------------------------------------------------
    # opening files
    def open_files(self, paths) -> None:
        paths = [str(p) for p in paths]
        workspaces = [p for p in paths if p.lower().endswith(workspace_file.SUFFIX)]
        if workspaces:  # a workspace replaces everything; other files given with it are added to it
            self.open_workspace(workspaces[-1])
            paths = [p for p in paths if p not in workspaces]
        if paths:
            self.session.open_files(paths)
        self._update_title()

    def open_sample(self) -> None:
        self.workspace_path = None
        self.session.open_sample()
        self._update_title()

    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open qrels and runs", self._last_dir())
        if paths:
            self.open_files(paths)

    def open_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a folder of qrels and runs", self._last_dir())
        if path:
            self.open_files([path])

    def _last_dir(self) -> str:
        recent = self.recent_files()
        return os.path.dirname(recent[0]) if recent else os.getcwd()

    def _export_dir(self) -> str:
        """Where the last export went (else where the last file came from)."""
        folder = str(self.settings.value("lastExportDir", "") or "")
        return folder if folder and os.path.isdir(folder) else self._last_dir()

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_files(paths)
        else:
            event.ignore()

    # -- recent files ----------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember_recent(self, path: str) -> None:
        if os.path.dirname(path) == str(SAMPLE_DIR):
            return
        recent = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recentFiles", ([path] + recent)[:MAX_RECENT])

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files()
        for path in recent:
            self.recent_menu.addAction(path, lambda p=path: self.open_files([p]))
        if recent:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", lambda: self.settings.setValue("recentFiles", []))
        else:
            self.recent_menu.addAction("(none)").setEnabled(False)

    # -- changes on disk ---------------------------------------------------
    def _on_file_changed_on_disk(self, path: str, size: int) -> None:
        if size > LARGE_FILE:
            answer = QMessageBox.question(
                self,
                "File changed",
                f"{os.path.basename(path)} changed on disk ({size / 2**20:.0f} MiB). Load it again?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.statusBar().showMessage(f"{os.path.basename(path)} changed on disk; loading it again", 5000)
        self.session.reload(path)

    # ------------------------------------------------------------------
    # session -> window
    def _update_title(self) -> None:
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

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)

    def _on_progress(self, fraction: float, what: str) -> None:
        now = time.monotonic()
        shown = (fraction < 0, int(round(fraction * 100)), what)
        if shown == getattr(self, "_progress_shown", None) or (
            now - getattr(self, "_progress_at", 0.0) < 0.05 and fraction not in (-1.0, 1.0)
        ):
            return  # a progress bar repaint costs milliseconds: at most twenty a second
        self._progress_shown, self._progress_at = shown, now
        if fraction < 0:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(round(fraction * 1000)))
        self.progress.setFormat(f"{what} %p%")
        self.progress.setToolTip(what)

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

    # ------------------------------------------------------------------
    # export
    def _export_dialog(self, what: str) -> None:
        if self.session.results is None:
            self.messages.add("Nothing to export yet: load a qrels file and a run first.")
            return
        if what in ("summary", "per_query", "per_query_table"):
            name = {
                "summary": "summary.csv",
                "per_query": "per_query.csv",
                "per_query_table": f"per_query_{self.per_query.shown_measure()}.csv",
            }[what]
            filt = "CSV (*.csv)"
        else:
            name = "precision_recall.png" if what == "pr" else "ndcg_at_k.png"
            filt = "PNG image (*.png);;SVG image (*.svg)"
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export",
            os.path.join(self._export_dir(), name),
            filt,
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.export(what, path)

    def report_dialog(self) -> ReportDialog:
        """Open the comparison report dialog (it exports in the background)."""
        dialog = ReportDialog(self.session, self.confirm_overwrite, self._export_dir(), self)
        dialog.sigWritten.connect(self.sigExported.emit)
        dialog.sigWritten.connect(
            lambda path: self.settings.setValue("lastExportDir", os.path.dirname(os.path.abspath(path)))
        )
        dialog.sigWritten.connect(lambda path: self.statusBar().showMessage(f"Exported {path}", 5000))
        dialog.setModal(True)
        dialog.show()
        return dialog

    def confirm_overwrite(self, path: str) -> bool:
        answer = QMessageBox.question(
            self,
            "Replace file?",
            f"{path} already exists. Replace it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def export(self, what: str, path: str) -> bool:
        """Write an export atomically; an existing file is replaced only after confirmation.

        ``what``: ``"summary"`` (runs x measures), ``"per_query"`` (every measure
        for every run and query), both through :mod:`metrics.report`;
        ``"per_query_table"`` (the per-query table as shown, with the
        differences to the baseline); ``"pr"`` / ``"ndcg"`` (a plot, PNG or SVG
        by suffix).  Tables are written by a worker (they can be large); plots
        are drawn here.  Returns whether the export was started; ``sigExported``
        announces the written file, a failure shows in the message area.
        """
        results = self.session.results
        if results is None:
            return False
        inputs = self.input_paths()
        try:
            fileio.check_not_input(path, inputs)  # before asking whether to replace it
        except fileio.ProtectedFileError as exc:
            self._export_failed(path, exc)
            return False
        if os.path.exists(path) and not self.confirm_overwrite(path):
            return False
        if what in ("summary", "per_query", "per_query_table"):
            try:
                job = self._table_export_job(what, path, results)
            except ValueError as exc:
                self._export_failed(path, exc)
                return False
            self.session.run_job(
                job,
                f"Exporting {os.path.basename(path)}",
                lambda _: self._exported(path),
                lambda exc: self._export_failed(path, exc),
            )
            return True
        try:
            if what == "pr":
                self.pr_plot.export_image(path, protect=inputs)
            elif what == "ndcg":
                self.ndcg_plot.export_image(path, protect=inputs)
            else:
                raise ValueError(f"unknown export {what!r}")
        except (OSError, ValueError) as exc:
            self._export_failed(path, exc)
            return False
        self._exported(path)
        return True

    def input_paths(self) -> list[str]:
        """Files loaded as input: no export may replace them."""
        return [e.path for e in self.session.workspace.entries]

    def _table_export_job(self, what: str, path: str, results):
        """The work of a table export, as a function for a worker (it reads only values taken now)."""
        qrels_name = results.request.qrels_name
        inputs = self.input_paths()
        if what in ("summary", "per_query"):
            frame = results.evaluation.aggregate if what == "summary" else results.evaluation.per_query

            def job(progress):
                import metrics.report  # with scipy: imported for an export, not at start-up

                metrics.report.export(
                    frame, path, format="csv", kind=what, overwrite=True, qrels=qrels_name, protect=inputs
                )

            return job
        measure = self.per_query.shown_measure()
        if measure not in results.per_query:
            raise ValueError(f"no per-query values of {measure!r}")
        baseline = self.session.baseline_label()
        wide, runs = results.per_query[measure], list(results.runs)

        def job(progress):
            frame, _ = table_model.per_query_table(wide, baseline if baseline in runs else None)
            export.write_csv(path, frame, export.per_query_header(qrels_name, runs, measure, baseline), protect=inputs)

        return job

    def _exported(self, path: str) -> None:
        self.settings.setValue("lastExportDir", os.path.dirname(os.path.abspath(path)))
        self.statusBar().showMessage(f"Exported {path}", 5000)
        self.sigExported.emit(path)

    def _export_failed(self, path: str, exc: BaseException) -> None:
        reason = getattr(exc, "strerror", None) or exc
        self.messages.add(
            f"Export to {path} failed: {os.path.basename(path)} {reason}"
            if isinstance(exc, fileio.ProtectedFileError)
            else f"Export to {path} failed: {reason}"
        )

    # ------------------------------------------------------------------
    # layout
    def restore_layout(self) -> None:
        geometry = self.settings.value("geometry")
        state = self.settings.value("windowState")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self._restored = self.restoreState(state, LAYOUT_VERSION)
        self.message_bar.setVisible(bool(self.messages.messages))
        self.stale_bar.refresh()

    def _fit_to_screen(self) -> None:
        """A first size that shows every view: up to 1800 x 1050, within the screen."""
        w, h = 1800, 1050
        screen = QApplication.primaryScreen()
        if screen is not None:
            room = screen.availableGeometry()
            if room.width() >= 1200 and room.height() >= 800:
                w, h = min(w, int(room.width() * 0.92)), min(h, int(room.height() * 0.92))
            else:
                w, h = 1400, 900
        self.resize(w, h)

    def _default_sizes(self) -> None:
        """Columns: files and measures | summary over the per-query table | curves | comparison."""
        d = self.docks
        w, h = self.width(), self.height()
        left = min(260, int(w * 0.18))
        self.resizeDocks([d["files"]], [left], Qt.Orientation.Horizontal)
        self.resizeDocks([d["files"], d["measures"]], [int(h * 0.3), int(h * 0.7)], Qt.Orientation.Vertical)
        self.resizeDocks([d["summary"]], [int(h * 0.2)], Qt.Orientation.Vertical)
        self.resizeDocks([d["prCurves"], d["ndcgAtK"]], [int(h * 0.5), int(h * 0.5)], Qt.Orientation.Vertical)
        self.resizeDocks([d["prCurves"]], [int(w * 0.22)], Qt.Orientation.Horizontal)
        self._default_compare_sizes()

    def _default_compare_sizes(self) -> None:
        """Right column: the difference chart over the query drill-down."""
        d = self.docks
        self.resizeDocks([d["diffChart"]], [int(self.width() * 0.27)], Qt.Orientation.Horizontal)
        h = self.height()
        self.resizeDocks([d["diffChart"], d["drilldown"]], [int(h * 0.36), int(h * 0.64)], Qt.Orientation.Vertical)

    def resizeEvent(self, event) -> None:
        """The plot and comparison columns keep their share of the width as the window grows or shrinks
        (Qt gives every change to the central table, so a window made small once stayed cramped)."""
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        if (
            getattr(self, "_first_show", True)
            or not old.isValid()
            or old.width() <= 0
            or abs(new.width() - old.width()) < 40
        ):
            return
        factor = new.width() / old.width()
        columns = [d for d in (self.docks["prCurves"], self.docks["diffChart"]) if d.isVisible() and not d.isFloating()]
        if columns:
            self.resizeDocks(columns, [max(120, int(d.width() * factor)) for d in columns], Qt.Orientation.Horizontal)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._first_show:
            self._first_show = False
            if not self._restored:
                self._default_sizes()

    def save_layout(self) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState(LAYOUT_VERSION))
        self.settings.sync()

    def reset_layout(self) -> None:
        self.restoreState(self._initial_state, LAYOUT_VERSION)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        self._default_sizes()

    def _chosen_kinds(self) -> dict:
        import json

        try:
            value = json.loads(str(self.settings.value("chosenKinds", "{}")))
        except ValueError:
            return {}
        return (
            {str(k): str(v) for k, v in value.items() if v in workspace_file.KINDS} if isinstance(value, dict) else {}
        )

    def closeEvent(self, event) -> None:
        import json

        self.settings.setValue("chosenKinds", json.dumps(dict(list(self.session.chosen_kinds.items())[-500:])))
        self._save_last_session()
        self.save_layout()
        self.session.shutdown()
        super().closeEvent(event)
