"""The main window's workspaces: saving and opening ``*.irwb`` files, and the last session kept at exit.

(Imported with the main window, before its first frame: the workspace files' module, which imports the
core and numpy, is imported where it is used, once the window is shown.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QFileDialog, QWidget

if TYPE_CHECKING:
    from workbench.model.workspace_file import WorkspaceDoc
    from workbench.session import Session
    from workbench.views.window_files import RecentFiles
    from workbench.views.window_layout import WindowLayout


class WorkspaceActions:
    """File > Open/Save workspace: what ``session`` holds and the dock positions of ``layout``, in a file;
    dialogs are children of ``parent``; the last session is kept next to the ``settings`` file.
    ``show_error(text)`` reports a failure, ``tell(text)`` says something in the status bar,
    ``after_change()`` runs once the workspace file changed (the title names it)."""

    def __init__(
        self,
        parent: QWidget,
        session: Session,
        settings: QSettings,
        recent: RecentFiles,
        layout: WindowLayout,
        show_error: Callable[[str], None],
        tell: Callable[[str], None],
        after_change: Callable[[], None],
    ):
        self.parent = parent
        self.session = session
        self.settings = settings
        self.recent = recent
        self.layout = layout
        self._show_error = show_error
        self._tell = tell
        self._after_change = after_change
        self.path: str | None = None  # the workspace file last opened or saved

    def last_session_path(self) -> str:
        """Where the session is kept when the window closes (next to the settings file)."""
        return last_session_path(self.settings)

    def doc(self) -> WorkspaceDoc:
        doc = self.session.snapshot()
        doc.layout = bytes(self.layout.state().toBase64().data()).decode("ascii")
        return doc

    def open(self, path: str) -> bool:
        from metrics.errors import InputError
        from workbench.model import workspace_file

        try:
            doc = workspace_file.read(path)
        except (InputError, OSError) as exc:
            self._show_error(
                str(exc) if isinstance(exc, InputError) else f"{os.path.basename(path)}: {exc.strerror or exc}"
            )
            return False
        self.session.open_workspace(doc)
        if doc.layout:
            self.layout.restore_state(QByteArray.fromBase64(doc.layout.encode("ascii")))
        if os.path.abspath(path) != os.path.abspath(self.last_session_path()):
            self.path = os.path.abspath(path)
            self.recent.remember(self.path)
        self._after_change()
        return True

    def save(self) -> bool:
        if not self.path:
            return self.save_as()
        return self.write(self.path)

    def save_as(self) -> bool:
        from workbench.model import workspace_file

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
        from workbench.model import workspace_file

        try:
            workspace_file.write(self.doc(), path)
        except OSError as exc:
            self._show_error(f"Saving the workspace to {path} failed: {exc.strerror or exc}")
            return False
        self.path = os.path.abspath(path)
        self.recent.remember(self.path)
        self._after_change()
        self._tell(f"Workspace saved to {path}")
        return True

    def open_dialog(self) -> None:
        from workbench.model import workspace_file

        path, _ = QFileDialog.getOpenFileName(
            self.parent,
            "Open workspace",
            self.recent.last_dir(),
            f"Workspace (*{workspace_file.SUFFIX});;All files (*)",
        )
        if path:
            self.open(path)

    def reopen_last_session(self) -> bool:
        path = self.last_session_path()
        return os.path.isfile(path) and self.open(path)

    def save_last_session(self) -> None:
        from workbench.model import workspace_file

        if self.session.is_sample or not self.session.workspace.entries:
            return
        try:
            workspace_file.write(self.doc(), self.last_session_path())
        except OSError:
            pass  # a convenience; the user's own workspace files are saved explicitly


def last_session_path(settings: QSettings) -> str:
    """Where the session is kept when the window closes: next to the ``settings`` file."""
    from workbench.model import workspace_file

    return os.path.join(os.path.dirname(settings.fileName()) or ".", "last-session" + workspace_file.SUFFIX)
