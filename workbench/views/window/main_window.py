"""The main window: its views as docks around the per-query table, and the parts that act on them
(files, workspaces, exports, explain, the layout, progress, menus), each made with what it needs and
assembled here; the window's start (:class:`~workbench.views.window.startup.Startup`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMainWindow

from workbench.qt.kept_settings import KeptSettings
from workbench.system import process, qtcompat
from workbench.views.window.files import chosen_kinds, keep_chosen_kinds
from workbench.views.window.layout import fit_to_screen
from workbench.views.window.recent import RecentFiles
from workbench.views.window.startup import Startup

if TYPE_CHECKING:
    from PySide6.QtGui import (
        QCloseEvent,
        QDragEnterEvent,
        QDragMoveEvent,
        QDropEvent,
        QResizeEvent,
        QShowEvent,
    )

    from workbench.qt.session import Session
    from workbench.views.dialogs.help import HelpDialog
    from workbench.views.window.explain_dock import ExplainActions
    from workbench.views.window.exports import ExportActions
    from workbench.views.window.files import FileActions
    from workbench.views.window.layout import WindowLayout
    from workbench.views.window.menus import QueryToolbars, WindowMenus
    from workbench.views.window.progress import ProgressDisplay
    from workbench.views.window.results import DocksForward, ResultsFollower
    from workbench.views.window.views import WindowBars, WindowViews
    from workbench.views.window.workspaces import WorkspaceActions

APP_NAME = "ir-workbench"


@dataclass(frozen=True)
class WindowParts:
    """What the window is made of once its views are built."""

    views: WindowViews
    bars: WindowBars
    menus: WindowMenus
    toolbars: QueryToolbars
    progress: ProgressDisplay
    layout: WindowLayout
    recent: RecentFiles
    files: FileActions
    workspaces: WorkspaceActions
    exports: ExportActions
    explain: ExplainActions
    results: ResultsFollower
    forward: DocksForward


class MainWindow(QMainWindow):
    """The window: it makes the docks, menus and views and hands each the part of the session it uses."""

    sigExported = Signal(str)
    sigWorkspaceSaved = Signal(str)  # (its path, once written by a job: File > Save workspace, write_workspace)

    #: a window opened on files shows its views with their first scores (:meth:`paint_with_first_scores`),
    #: or this long after they are built at most
    FIRST_PAINT_WAIT_MS = 1000

    def __init__(
        self,
        session: Session | None = None,
        settings: QSettings | None = None,
        parent=None,
        *,
        deferred: bool = False,
    ):
        """``deferred``: show the window first and build its views (which import pandas, pyqtgraph and
        the session's models) just after it is shown; :meth:`when_ready` runs work once they are."""
        super().__init__(parent)
        qtcompat.quicker_feature_check()  # before the session's and the views' modules are imported
        qtcompat.lazy_pyqtgraph_qt()
        #: read here, written by a thread of their own (a sync to disk is never the window's wait)
        self.settings = KeptSettings(settings if settings is not None else QSettings(APP_NAME, APP_NAME))
        self.setWindowTitle(APP_NAME)
        icon = str(Path(__file__).resolve().parents[2] / "resources" / "icon.svg")  # (workbench/resources)
        self.setWindowIcon(QIcon(icon))  # (a null icon, changing nothing, were the file not there)
        self.startup = Startup(self, self.FIRST_PAINT_WAIT_MS)
        self._session: Session | None = None  # made once its modules are imported (deferred)
        self._parts: WindowParts | None = None  # built once the window is shown (deferred)
        self._given_session = session
        self.help_dialog: HelpDialog | None = None  # made when first asked for
        if deferred:
            self.statusBar().showMessage("Starting…")
            fit_to_screen(self)
            geometry = self.settings.value("geometry")
            if geometry is not None:
                self.restoreGeometry(geometry)
        else:
            self._build()

    # ------------------------------------------------------------------
    # the parts, once made
    @property
    def session(self) -> Session:
        if self._session is None:
            raise RuntimeError("the session is made once its modules are imported: see when_session_ready")
        return self._session

    @property
    def session_made(self) -> bool:
        """Whether the session is made (see :meth:`when_session_ready`)."""
        return self._session is not None

    @property
    def built(self) -> bool:
        """Whether the views are built (see :meth:`when_ready`)."""
        return self._parts is not None

    @property
    def parts(self) -> WindowParts:
        if self._parts is None:
            raise RuntimeError("the views are built once the window is shown: see when_ready")
        return self._parts

    def _make_session(self) -> None:
        """The session, and what it says kept until the views can show it."""
        from workbench.qt.session import Session

        session = self._session = self._given_session or Session(self)
        session.model.chosen_kinds.update(chosen_kinds(self.settings))
        self.startup.session_made(session)

    def _build(self) -> None:
        from workbench.views.window.explain_dock import ExplainActions
        from workbench.views.window.exports import ExportActions
        from workbench.views.window.files import FileActions
        from workbench.views.window.last_session import LastSession
        from workbench.views.window.layout import WindowLayout
        from workbench.views.window.menus import QueryToolbars, WindowMenus
        from workbench.views.window.progress import ProgressDisplay
        from workbench.views.window.results import DocksForward, ResultsFollower
        from workbench.views.window.views import WindowBars, WindowViews
        from workbench.views.window.workspaces import WorkspaceActions

        if self._session is None:
            self._make_session()
        s = self.session
        settings, tell, title = self.settings, self._tell, self.update_title
        self.setAcceptDrops(True)
        views = WindowViews(self, s)
        toolbars = QueryToolbars(self, s)
        bars = WindowBars(self, s)
        recent = RecentFiles(settings)
        layout = WindowLayout(self, settings, views.docks, bars.after_restore, choice=views.analysis_views)
        saved, messages = self.sigWorkspaceSaved.emit, bars.messages.add
        workspaces = WorkspaceActions(
            self,
            s,
            settings=settings,
            recent=recent,
            layout=layout,
            choice=views.analysis_views,
            show_error=messages,
            tell=tell,
            after_change=title,
            saved=saved,
        )
        files = FileActions(self, s, recent=recent, workspaces=workspaces, tell=tell, after_open=title)
        exports = ExportActions(
            self,
            s,
            settings=settings,
            recent=recent,
            per_query=views.per_query,
            pr_plot=views.pr_plot,
            ndcg_plot=views.ndcg_plot,
            show_error=bars.messages.add,
            tell=tell,
            exported=self.sigExported.emit,
            contrast=views.contrast_settings,
        )
        progress = ProgressDisplay(self.statusBar(), self, cancel=s.cancel, reopen=workspaces.reopen_last_session)
        explain = ExplainActions(
            s,
            panel=views.explain,
            dock=views.docks["explain"],
            summary=views.summary,
            per_query=views.per_query,
            diff_chart=views.diff_chart,
            drilldown=views.drilldown,
        )
        menus = WindowMenus(
            self,
            s,
            views=views,
            files=files,
            workspaces=workspaces,
            exports=exports,
            open_sample=files.open_sample,
            reset_layout=layout.reset,
            show_help=self.show_help,
            tell=tell,
            explain_current=explain.explain_current,
        )
        results = ResultsFollower(
            self, s, query_box=toolbars.query_box, summary=views.summary, docks=views.docks, messages=bars.messages
        )
        forward = DocksForward(s, views.docks, views.diff_chart)
        self._parts = WindowParts(
            views=views,
            bars=bars,
            menus=menus,
            toolbars=toolbars,
            progress=progress,
            layout=layout,
            recent=recent,
            files=files,
            workspaces=workspaces,
            exports=exports,
            explain=explain,
            results=results,
            forward=forward,
        )
        self._last_session = LastSession(workspaces.last_session_path(), menus.reopen_action, title, self)
        if not self.isVisible():
            fit_to_screen(self)
        layout.keep_initial()  # dock positions for "Reset layout"
        process.collect_on_gui_thread()  # (never by a worker thread, which would destroy Qt objects there)

        s.sigError.connect(bars.messages.add)
        s.sigNotice.connect(bars.messages.add_notice)  # (kept in view until the user's next action)
        s.sigUserActed.connect(bars.messages.clear_notices)
        s.sigMessage.connect(lambda text: self._tell(text, 8000))
        s.sigBusyChanged.connect(progress.on_busy)
        s.sigProgress.connect(progress.on_progress)
        s.sigFileLoaded.connect(recent.remember)
        s.sigFilesChanged.connect(self.update_title)
        s.sigFileChangedOnDisk.connect(files.on_file_changed_on_disk)
        views.files.sigOpenRequested.connect(files.open_dialog)
        views.files.sigSelected.connect(forward.inspect_selected)
        views.files.sigWidthWanted.connect(layout.fit_left)
        layout.fit_left(views.files.width_wanted)  # (the files read while the views were built)
        views.pairs_view.sigPairChosen.connect(forward.show_pair)
        views.pr_plot.sigExportRequested.connect(lambda: exports.export_dialog("pr"))
        views.ndcg_plot.sigExportRequested.connect(lambda: exports.export_dialog("ndcg"))
        self.update_title()
        layout.restore()
        if self.isVisible():
            layout.built_while_shown()
        self.statusBar().clearMessage()
        # the session was at work while the views were built (files given on the command line): they show
        # where it is now, then what it said meanwhile
        if s.workspace.entries:
            for plot in (views.pr_plot, views.ndcg_plot):
                plot.refresh()
            self.update_title()
            menus.sync_undo()
            results.on_results(s.results)
            results.on_query(s.selected_query)
            if s.comparison is not None:
                forward.on_comparison(s.comparison)
            bars.stale_bar.refresh()
        progress.on_busy(s.busy)
        self.startup.views_made(bars.messages.add, recent.remember)

    # ------------------------------------------------------------------
    # the window's own events
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._parts is not None:
            self._parts.layout.shown()
        else:
            # shown before its views: they are built once this first frame is on the screen; the modules
            # of the session and of the views are imported by a thread of their own while the window stays
            # responsive; the session is made (and starts reading files) as soon as its modules are there,
            # the views once theirs are
            QTimer.singleShot(30, self, lambda: self.startup.start_imports(self._make_session, self._build))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self._parts is not None:
            self._parts.layout.resized(event.oldSize(), event.size())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        self._offered(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt's name
        self._offered(event)

    @staticmethod
    def _offered(event: QDragMoveEvent) -> None:
        """Files dragged over the window are taken, anything else is not."""
        data = event.mimeData()
        if data.hasUrls() and any(u.isLocalFile() for u in data.urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.parts.files.open_files(paths)
        else:
            event.ignore()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if self._parts is None:  # closed before its views were built: they never will be
            self.startup.closed = True
            if self._session is not None:
                self._session.shutdown()
            super().closeEvent(event)
            return
        keep_chosen_kinds(self.settings, self.session.chosen_kinds)
        self._parts.workspaces.save_last_session()  # (written by a thread while the jobs shut down)
        self._parts.layout.save()
        self.session.shutdown()
        self._parts.workspaces.wait_for_last_session()
        self.settings.close()  # (what was set, on disk)
        super().closeEvent(event)

    # ------------------------------------------------------------------
    # what the window itself offers (its parts offer the rest: :attr:`parts`)
    def show_help(self, page: str = "measures") -> HelpDialog:
        from workbench.views.dialogs.help import HelpDialog

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(self, page)
        else:
            self.help_dialog.show_page(page)
        self.help_dialog.show()
        self.help_dialog.raise_()
        return self.help_dialog

    def update_title(self) -> None:
        parts = self.parts
        sample = self.session.is_sample
        parts.progress.show_sample(sample, self._last_session.kept)
        if sample:
            self.setWindowTitle(f"{APP_NAME} — Sample data")
        else:
            q = self.session.workspace.qrels_entry()
            path = parts.workspaces.path
            names = [os.path.basename(path)] if path else []
            names += [q.name] if q else []
            self.setWindowTitle(" — ".join([APP_NAME, *names]))

    def _tell(self, text: str, ms: int = 5000) -> None:
        """Say ``text`` in the status bar for ``ms`` milliseconds."""
        self.statusBar().showMessage(text, ms)
