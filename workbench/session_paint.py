"""Work put off until the window has painted what it was just given: the session's :class:`AfterPaint`."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

__all__ = ["AFTER_PAINT_MS", "AfterPaint"]

#: how long after new scores are shown the work put off for them starts (the inspection of a file, the
#: bootstrap intervals of the comparison with the baseline): long enough for the window to paint them
#: first (a hundred runs take about a quarter of a second), since that work, in a thread of this process,
#: would slow the painting down
AFTER_PAINT_MS = 300


class AfterPaint(QObject):
    """Runs the work it is given :data:`AFTER_PAINT_MS` after the last of it was given, once each; then
    ``sigDone``."""

    sigDone = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._run)
        self.work: list[Callable[[], None]] = []

    def later(self, work: Callable[[], None]) -> None:
        """Run ``work()`` once the window has painted what it was just given."""
        if work not in self.work:
            self.work.append(work)
        self.timer.start(AFTER_PAINT_MS)

    @property
    def waiting(self) -> bool:
        return self.timer.isActive()

    def clear(self) -> None:
        """Forget the work put off (Cancel, the window closing)."""
        self.timer.stop()
        self.work.clear()

    def _run(self) -> None:
        work, self.work = self.work, []
        for w in work:
            w()
        self.sigDone.emit()
