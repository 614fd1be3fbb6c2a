"""Opening files in the window: the Open dialogs, folders, ir_datasets, drops, the recent files and a
file changed on disk; a mixin of :class:`~workbench.views.main_window.MainWindow`."""

from __future__ import annotations

import os

from PySide6.QtWidgets import (
    QFileDialog,
    QMessageBox,
)

from workbench.model import workspace_file

MAX_RECENT = 10
LARGE_FILE = 50 * 1024 * 1024  # ask before reloading a changed file larger than this


class FileActions:
    """The window's ways of opening files (a mixin of MainWindow)."""

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
        self.update_title()

    def open_sample(self) -> None:
        self.workspace_path = None
        self.session.open_sample()
        self.update_title()

    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open qrels and runs", self._last_dir())
        if paths:
            self.open_files(paths)

    def open_dataset_dialog(self) -> None:
        from workbench.views.dataset_dialog import open_dataset

        open_dataset(self)

    def open_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a folder of qrels and runs", self._last_dir())
        if path:
            self.open_files([path])

    def _last_dir(self) -> str:
        recent = self.recent_files()
        return os.path.dirname(recent[0]) if recent else os.getcwd()

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
        from workbench.model.loading import SAMPLE_DIR

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
    # settings kept across runs
    def _chosen_kinds(self) -> dict:
        import json

        try:
            value = json.loads(str(self.settings.value("chosenKinds", "{}")))
        except ValueError:
            return {}
        return (
            {str(k): str(v) for k, v in value.items() if v in workspace_file.KINDS} if isinstance(value, dict) else {}
        )
