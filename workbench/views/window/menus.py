"""The main window's menus (File, Edit, View, Help) and toolbars (the query, the significance test), and
Edit > Undo following the session."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QVBoxLayout,
)

from workbench.views.window.analysis_docks import VIEWS

if TYPE_CHECKING:
    from workbench.qt.session import Session
    from workbench.views.window.exports import ExportActions
    from workbench.views.window.files import FileActions
    from workbench.views.window.views import WindowViews
    from workbench.views.window.workspaces import WorkspaceActions


class QueryToolbars:
    """The toolbars of ``window``: the query shown (or the mean over queries), and the significance test of
    the comparison with the baseline."""

    def __init__(self, window: QMainWindow, session: Session):
        from workbench.views.panels.significance import SignificancePanel

        tools = window.addToolBar("Query")
        tools.setObjectName("queryToolBar")
        tools.addWidget(QLabel(" Query: ", window))
        self.query_box = QComboBox(window)
        self.query_box.setMinimumContentsLength(12)
        self.query_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.query_box.setToolTip("Query shown in the plots (or the mean over all queries)")
        tools.addWidget(self.query_box)
        tools.addAction("Mean", lambda: session.model.select_query(None))
        sig_tools = window.addToolBar("Significance")
        sig_tools.setObjectName("significanceToolBar")
        self.significance = SignificancePanel(session, window)
        sig_tools.addWidget(self.significance)


class WindowMenus:
    """The menus of ``window``: what they do is asked of ``files``, ``workspaces``,
    ``exports``, ``session`` and the ``views``; ``open_sample()``, ``reset_layout()`` and ``show_help(page)``
    are the window's; ``tell(text)`` says something in the status bar."""

    def __init__(
        self,
        window: QMainWindow,
        session: Session,
        *,
        views: WindowViews,
        files: FileActions,
        workspaces: WorkspaceActions,
        exports: ExportActions,
        open_sample: Callable[[], None],
        reset_layout: Callable[[], None],
        show_help: Callable[[str], object],
        tell: Callable[[str], None],
        explain_current: Callable[[], None],
    ):
        self.session = session
        self.views = views
        self.window = window
        self._tell = tell
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        act = file_menu.addAction("&Open…", files.open_dialog)
        act.setShortcut(QKeySequence.StandardKey.Open)
        file_menu.addAction("Open &folder…", files.open_folder_dialog)
        act = file_menu.addAction("Open qrels to &compare…", files.open_held_dialog)
        act.setToolTip("Qrels held beside the qrels in use: the Judgments views compare them")
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(lambda: files.fill_recent_menu(self.recent_menu))
        file_menu.addAction("Open &sample data", open_sample)
        file_menu.addAction("Open ir_&datasets dataset…", files.open_dataset_dialog)
        file_menu.addSeparator()
        file_menu.addAction("Open &workspace…", workspaces.open_dialog)
        act = file_menu.addAction("&Save workspace", workspaces.save)
        act.setShortcut(QKeySequence.StandardKey.Save)
        act = file_menu.addAction("Save workspace &as…", workspaces.save_as)
        act.setShortcut(QKeySequence.StandardKey.SaveAs)
        self.reopen_action = file_menu.addAction("Reopen &last session", workspaces.reopen_last_session)
        self.reopen_action.setEnabled(False)  # (until a worker finds a last session: LastSession)
        file_menu.addSeparator()
        file_menu.addAction("F&use runs…", self.show_fuse)
        exp = file_menu.addMenu("&Export")
        exp.addAction("Summary as CSV…", lambda: exports.export_dialog("summary"))
        exp.addAction("Per-query table as shown (CSV)…", lambda: exports.export_dialog("per_query_table"))
        exp.addAction("Per-query values, all measures (CSV)…", lambda: exports.export_dialog("per_query"))
        exp.addSeparator()
        exp.addAction("Precision-recall plot (PNG/SVG)…", lambda: exports.export_dialog("pr"))
        exp.addAction("NDCG@k plot (PNG/SVG)…", lambda: exports.export_dialog("ndcg"))
        exp.addSeparator()
        exp.addAction("Comparison report (HTML, Markdown, LaTeX, CSV)…", exports.report_dialog)
        exp.addAction("Comparison page (two runs with their documents, HTML)…", exports.comparison_page_dialog)
        file_menu.addSeparator()
        act = file_menu.addAction("&Quit", window.close)
        act.setShortcut(QKeySequence.StandardKey.Quit)

        edit = bar.addMenu("&Edit")
        self.undo_action = edit.addAction("&Undo", self.undo)
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_action.setEnabled(False)
        edit.addSeparator()
        act = edit.addAction("&Find queries…", views.per_query.focus_filter)
        act.setShortcut(QKeySequence.StandardKey.Find)
        act = edit.addAction("More &measures…", self.type_measures)
        act.setShortcut(QKeySequence("Ctrl+M"))
        act = edit.addAction("E&xplain the current value", explain_current)
        act.setShortcut(QKeySequence("Ctrl+E"))
        act.setToolTip("How the value of the current cell of the per-query table or the summary was computed")

        self.view_menu = bar.addMenu("&View")
        why = views.analysis_views
        for dock in views.docks.values():
            if dock is why.dock:
                self.why_menu = self._why_menu(self.view_menu)
            else:
                self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        act = self.view_menu.addAction("Show the mean over queries", lambda: session.model.select_query(None))
        act.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.view_menu.addAction("Reset layout", reset_layout)
        self.view_menu.addAction("&Messages…", self.show_messages)

        help_menu = bar.addMenu("&Help")
        act = help_menu.addAction("&Measure reference", lambda: show_help("measures"))
        act.setShortcut(QKeySequence.StandardKey.HelpContents)
        help_menu.addAction("&Keyboard shortcuts", lambda: show_help("shortcuts"))
        help_menu.addAction("&Worked examples…", self.show_examples)
        help_menu.addAction("&About ir-workbench", lambda: show_help("about"))

        session.sigMeasuresChanged.connect(self.sync_undo)
        session.sigFilesChanged.connect(self.sync_undo)

    def _why_menu(self, view_menu: QMenu) -> QMenu:
        """View > Why runs differ: each of its views (the one chosen checked), which brings the dock forward
        with it, and whether the dock is shown."""
        why = self.views.analysis_views
        menu = view_menu.addMenu("&Why runs differ")
        group = QActionGroup(menu)
        chosen: dict[str, QAction] = {}
        for name, title, _, _ in VIEWS:
            act = menu.addAction(title, partial(why.show, name))
            act.setCheckable(True)
            group.addAction(act)
            chosen[name] = act
        menu.aboutToShow.connect(lambda: chosen[why.chosen()].setChecked(True))
        menu.addSeparator()
        shown = why.dock.toggleViewAction()
        shown.setText("Show the &dock")
        menu.addAction(shown)
        return menu

    def show_examples(self) -> QDialog:
        """Help > Worked examples: the textbooks' examples, each openable as a session."""
        from workbench.views.dialogs.examples import WorkedExamplesDialog

        dialog = WorkedExamplesDialog(self.session, self.window)
        dialog.show()
        return dialog

    def show_fuse(self) -> QDialog:
        """File > Fuse runs: the loaded runs fused into one, written to a file and opened as a run."""
        from workbench.views.dialogs.fuse import FuseDialog

        dialog = FuseDialog(self.session, self.window)
        dialog.show()
        return dialog

    def show_messages(self) -> QDialog:
        """View > Messages: every message told since the window opened (errors, notices, status lines)."""
        dialog = QDialog(self.window)
        dialog.setWindowTitle("Messages")
        text = QPlainTextEdit(dialog)
        text.setReadOnly(True)
        text.setPlainText(self.session.model.messages.text() or "Nothing told yet.")
        text.moveCursor(QTextCursor.MoveOperation.End)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.reject)
        box = QVBoxLayout(dialog)
        box.addWidget(text)
        box.addWidget(buttons)
        dialog.resize(760, 360)
        dialog.show()
        return dialog

    def undo(self) -> None:
        told = self.session.reading.undo()
        if told:
            self._tell(told)
        self.sync_undo()

    def sync_undo(self) -> None:
        """Edit > Undo names what it would take back."""
        what = self.session.model.undo_stack.next_text
        self.undo_action.setEnabled(what is not None)
        self.undo_action.setText(f"&Undo {what}" if what else "&Undo")

    def type_measures(self) -> None:
        """Put the keyboard in the Measures panel's field for more measures."""
        dock = self.views.docks["measures"]
        dock.show()
        dock.raise_()
        self.views.measures.focus_free_text()
