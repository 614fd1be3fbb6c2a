"""The main window's workspaces: saving and opening ``*.irwb`` files, and the last session kept at exit.

(Imported with the main window, before its first frame: the workspace files' module, which imports the
core and numpy, is imported where it is used, once the window is shown.)"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QFileDialog, QWidget

if TYPE_CHECKING:
    from workbench.qt.kept_settings import KeptSettings
    from workbench.qt.session import Session
    from workbench.state.workspace_file import WorkspaceDoc
    from workbench.views.window.layout import KeptChoice, WindowLayout
    from workbench.views.window.recent import RecentFiles


class WorkspaceActions:
    """File > Open/Save workspace: what ``session`` holds, the dock positions of ``layout`` and ``choice`` (the
    view the "Why runs differ" dock shows), in a file; dialogs are children of ``parent``; the last session
    is kept next to the ``settings`` file.  ``show_error(text)`` reports a failure, ``tell(text)`` says
    something in the status bar,
    ``after_change()`` runs once the workspace file changed (the title names it), ``saved(path)`` once a
    workspace is written.

    The window's thread neither reads nor writes a workspace file: it is read and parsed in the job that
    looks at the files it names (:meth:`workbench.qt.reading.ReadingJobs.open_workspace_file`), and only once
    it is taken do the title, the recent files and the layout follow it (a cancelled opening leaves them
    as they were); a document is taken on the window's thread (a plain value) and written by a job."""

    #: seconds the window waits, as it closes, for the last session to be written (it is written while the
    #: session's jobs shut down; a disk that does not answer by then keeps the last session written before)
    LAST_SESSION_WAIT_SECONDS = 5.0

    def __init__(
        self,
        parent: QWidget,
        session: Session,
        *,
        settings: KeptSettings,
        recent: RecentFiles,
        layout: WindowLayout,
        choice: KeptChoice | None = None,
        show_error: Callable[[str], None],
        tell: Callable[[str], None],
        after_change: Callable[[], None],
        saved: Callable[[str], object] = lambda path: None,
    ):
        self.parent = parent
        self.session = session
        self.settings = settings
        self.recent = recent
        self.layout = layout
        self.choice = choice
        self._show_error = show_error
        self._tell = tell
        self._after_change = after_change
        self._saved = saved
        self.path: str | None = None  # the workspace file last opened or saved
        #: the latest save asked for, by file: a write that starts after a newer one is asked for is skipped
        #: (the writes take turns under the lock, so the newest document is the one left on disk)
        self._latest: dict[str, int] = {}
        self._saves = itertools.count(1)
        self._write_lock = threading.Lock()
        self._last_session: threading.Thread | None = None

    def last_session_path(self) -> str:
        """Where the session is kept when the window closes (next to the settings file)."""
        return last_session_path(self.settings)

    def doc(self) -> WorkspaceDoc:
        doc = self.session.model.snapshot()
        doc.layout = bytes(self.layout.state().toBase64().data()).decode("ascii")
        doc.analysis_view = self.choice.chosen() if self.choice is not None else None
        return doc

    def open(self, path: str) -> None:
        """Open the workspace file at ``path``: read, parsed and its files looked at in a worker, then taken
        (what is open is replaced); a file that cannot be read is reported, naming it."""
        path = os.path.abspath(path)

        def opened(doc: WorkspaceDoc) -> None:
            if doc.layout:
                self.layout.restore_state(QByteArray.fromBase64(doc.layout.encode("ascii")))
            if doc.analysis_view and self.choice is not None:
                self.choice.choose(doc.analysis_view)
            if path != os.path.abspath(self.last_session_path()):
                self.path = path
                self.recent.remember(path)
            self._after_change()

        self.session.reading.open_workspace_file(path, opened, lambda exc: self._show_error(_not_read(path, exc)))

    def save(self) -> bool:
        if not self.path:
            return self.save_as()
        return self.write(self.path)

    def save_as(self) -> bool:
        from workbench.state import workspace_file

        start = self.path or os.path.join(self.recent.last_dir(), "workspace" + workspace_file.SUFFIX)
        path, _ = QFileDialog.getSaveFileName(
            self.parent, "Save workspace", start, f"Workspace (*{workspace_file.SUFFIX})"
        )
        if not path:
            return False
        if not path.endswith(workspace_file.SUFFIX):
            path += workspace_file.SUFFIX
        return self.write(path)

    def write(self, path: str) -> bool:
        """Save what the window holds to ``path``: the document is taken now and written (atomically) by a
        job (Cancel does not stop it: it is short, and a file half written is never seen); once it is, the
        title names the file and ``saved(path)`` is called.  True: the save started."""
        from workbench.state import workspace_file

        doc, path = self.doc(), os.path.abspath(path)
        save = self._latest[path] = next(self._saves)

        def write(progress: Callable[[float], bool]) -> bool:
            with self._write_lock:
                if self._latest.get(path) != save:
                    return False  # (a newer save of the same file is written instead)
                workspace_file.write(doc, path)
                return True

        self.session.run_job(
            write,
            f"Saving {os.path.basename(path)}",
            lambda written: self._written(path) if written else None,
            lambda exc: self._show_error(f"Saving the workspace to {path} failed: {_reason(exc)}"),
        )
        return True

    def _written(self, path: str) -> None:
        self.path = path
        self.recent.remember(path)
        self._after_change()
        self._tell(f"Workspace saved to {path}")
        self._saved(path)

    def open_dialog(self) -> None:
        from workbench.state import workspace_file

        path, _ = QFileDialog.getOpenFileName(
            self.parent,
            "Open workspace",
            self.recent.last_dir(),
            f"Workspace (*{workspace_file.SUFFIX});;All files (*)",
        )
        if path:
            self.open(path)

    def reopen_last_session(self) -> None:
        """Open the last session again (offered once a worker found it, :mod:`workbench.views.window.last_session`;
        gone since, the read in the worker says so)."""
        self.open(self.last_session_path())

    def save_last_session(self) -> None:
        """Keep what the window holds as the last session (the window closes): the document is taken now
        and written by a thread of its own while the session shuts down; :meth:`wait_for_last_session`
        waits for it before the process ends."""
        from workbench.state import workspace_file

        if self.session.is_sample or not self.session.workspace.entries:
            return
        doc, path = self.doc(), self.last_session_path()

        def write() -> None:
            try:
                workspace_file.write(doc, path)
            except OSError:
                pass  # a convenience; the user's own workspace files are saved explicitly

        self._last_session = threading.Thread(target=write, name="last session", daemon=True)
        self._last_session.start()

    def wait_for_last_session(self) -> None:
        """Wait, at most :attr:`LAST_SESSION_WAIT_SECONDS`, for the last session to be written."""
        if self._last_session is not None:
            self._last_session.join(self.LAST_SESSION_WAIT_SECONDS)
            self._last_session = None


def _not_read(path: str, exc: BaseException) -> str:
    """Why the workspace file at ``path`` could not be opened, naming it."""
    from metrics.errors import InputError

    name = os.path.basename(path)
    if isinstance(exc, InputError):
        return str(exc)  # (it names the file)
    return f"{name}: {_reason(exc)}"


def _reason(exc: BaseException) -> str:
    return (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)


def last_session_path(settings: KeptSettings) -> str:
    """Where the session is kept when the window closes: next to the ``settings`` file."""
    from workbench.state import workspace_file

    return os.path.join(os.path.dirname(settings.file_name()) or ".", "last-session" + workspace_file.SUFFIX)
