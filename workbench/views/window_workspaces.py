"""The main window's workspaces: saving and opening ``*.irwb`` files, and the last session kept at exit."""

from __future__ import annotations

import os

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QFileDialog

from metrics.errors import InputError
from workbench.model import workspace_file
from workbench.views.window_layout import LAYOUT_VERSION


class WorkspaceActions:
    """Part of :class:`workbench.views.main_window.MainWindow`: File > Open/Save workspace."""

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
        self.update_title()
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
        self.update_title()
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
