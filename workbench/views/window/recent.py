"""The files and workspaces opened lately, kept in the window's settings (File > Open recent)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.qt.kept_settings import KeptSettings


MAX_RECENT = 10


class RecentFiles:
    """The files and workspaces opened lately, kept in ``settings``."""

    def __init__(self, settings: KeptSettings):
        self.settings = settings

    def paths(self) -> list[str]:
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):  # (one path, as an ini file keeps it)
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def remember(self, path: str) -> None:
        from workbench.state.loading import SAMPLE_DIR

        if os.path.dirname(path) == str(SAMPLE_DIR):
            return
        recent = [p for p in self.paths() if p != path]
        self.settings.set_value("recentFiles", ([path] + recent)[:MAX_RECENT])

    def clear(self) -> None:
        self.settings.set_value("recentFiles", [])

    def last_dir(self) -> str:
        """Where the latest file came from (else the working folder): where the dialogs open."""
        recent = self.paths()
        return os.path.dirname(recent[0]) if recent else os.getcwd()
