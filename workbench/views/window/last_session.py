"""Whether a last session is kept to reopen, looked at by a worker: the window's thread makes no file
system call.  The sample's Reopen button and File > Reopen last session follow what it finds."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool
from PySide6.QtGui import QAction

from workbench.qt.workers import Worker


class LastSession(QObject):
    """Looks whether the file at ``path`` (where the last session is kept) is there, in a worker, once; then,
    on the window's thread, enables ``reopen`` (the menu's action) if it is and calls ``found()`` (the
    title and the sample's Reopen button follow :attr:`kept`, False until then).  A child of ``parent``:
    the answer is dropped if the window has gone meanwhile."""

    def __init__(self, path: str, reopen: QAction, found: Callable[[], object], parent: QObject):
        super().__init__(parent)
        self.path = path
        self.kept = False
        self._reopen = reopen
        self._found = found
        self._look: Worker | None = Worker(lambda progress: os.path.isfile(path))
        self._look.signals.sigFinished.connect(self._looked)
        QThreadPool.globalInstance().start(self._look)

    def _looked(self, kept: object) -> None:
        self._look = None  # (kept until it reported)
        self.kept = bool(kept)
        self._reopen.setEnabled(self.kept)
        self._found()
