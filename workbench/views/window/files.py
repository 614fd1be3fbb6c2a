"""Opening files in the window: the Open dialogs, folders, ir_datasets, the recent files and a file changed
on disk (drops come through :meth:`FileActions.open_files`)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from workbench.views.window.recent import RecentFiles

if TYPE_CHECKING:
    from workbench.qt.kept_settings import KeptSettings
    from workbench.qt.session import Session
    from workbench.views.window.workspaces import WorkspaceActions

LARGE_FILE = 50 * 1024 * 1024  # ask before reloading a changed file larger than this


def chosen_kinds(settings: KeptSettings) -> dict[str, str]:
    """The kinds the user chose for files (path -> kind), kept across runs in ``settings``."""
    from workbench.state import workspace_file  # (imported once the window is shown: it imports the core)

    try:
        value = json.loads(str(settings.value("chosenKinds", "{}")))
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items() if v in workspace_file.KINDS} if isinstance(value, dict) else {}


def keep_chosen_kinds(settings: KeptSettings, kinds: dict[str, str]) -> None:
    """Keep the latest 500 of the kinds the user chose for files in ``settings``."""
    settings.set_value("chosenKinds", json.dumps(dict(list(kinds.items())[-500:])))


class FileActions:
    """The window's ways of opening files: dialogs (children of ``parent``) whose files ``session`` reads,
    workspaces opened through ``workspaces``, ``recent`` files; ``tell(text)`` says something in the
    status bar, ``after_open()`` runs once files are opened (the title follows)."""

    def __init__(
        self,
        parent: QWidget,
        session: Session,
        *,
        recent: RecentFiles,
        workspaces: WorkspaceActions,
        tell: Callable[[str], None],
        after_open: Callable[[], None],
    ):
        self.parent = parent
        self.session = session
        self.recent = recent
        self.workspaces = workspaces
        self._tell = tell
        self._after_open = after_open

    def open_files(self, paths) -> None:
        from workbench.state import workspace_file

        paths = [str(p) for p in paths]
        workspaces = [p for p in paths if p.lower().endswith(workspace_file.SUFFIX)]
        if workspaces:  # a workspace replaces everything; other files given with it are added to it
            self.workspaces.open(workspaces[-1])
            paths = [p for p in paths if p not in workspaces]
        if paths:
            self.session.reading.open_files(paths)
        self._after_open()

    def open_sample(self) -> None:
        self.workspaces.path = None
        self.session.reading.open_sample()
        self._after_open()

    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self.parent, "Open qrels and runs", self.recent.last_dir())
        if paths:
            self.open_files(paths)

    def open_held_dialog(self) -> None:
        """Open qrels files to hold beside the qrels in use (compared with them in the Judgments views;
        they score nothing)."""
        paths, _ = QFileDialog.getOpenFileNames(
            self.parent, "Open qrels to compare with the qrels in use", self.recent.last_dir()
        )
        if paths:
            self.open_held(paths)

    def open_held(self, paths) -> None:
        """Open ``paths`` as qrels held beside the qrels in use."""
        self.session.reading.open_files([str(p) for p in paths], kind="held")
        self._after_open()

    def open_dataset_dialog(self) -> None:
        from workbench.views.dialogs.dataset import open_dataset

        open_dataset(self.parent, self.session)

    def open_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(self.parent, "Open a folder of qrels and runs", self.recent.last_dir())
        if path:
            self.open_files([path])

    def fill_recent_menu(self, menu: QMenu) -> None:
        menu.clear()
        recent = self.recent.paths()
        for path in recent:
            menu.addAction(path, functools.partial(self.open_files, [path]))
        if recent:
            menu.addSeparator()
            menu.addAction("Clear list", self.recent.clear)
        else:
            menu.addAction("(none)").setEnabled(False)

    def on_file_changed_on_disk(self, path: str, size: int) -> None:
        """A loaded file changed on disk: read it again (a large one once the user agrees)."""
        if size > LARGE_FILE:
            answer = QMessageBox.question(
                self.parent,
                "File changed",
                f"{os.path.basename(path)} changed on disk ({size / 2**20:.0f} MiB). Load it again?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._tell(f"{os.path.basename(path)} changed on disk; loading it again")
        self.session.reading.reload(path)
