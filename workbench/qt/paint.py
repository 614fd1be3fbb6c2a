"""Work put off until the window has painted what it was just given, and work done a piece per turn of the
event loop: the session's :class:`AfterPaint`."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

__all__ = ["AFTER_PAINT_MS", "AfterPaint"]

#: how long after new scores are shown the work put off for them starts (the inspection of a file, the
#: first comparison with the baseline, which imports scipy): long enough for the window to paint them
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
        # the views' refreshes for new scores, one per turn of the event loop (:meth:`in_turn`)
        self.turns: deque[Callable[[], None]] = deque()
        self.turn_timer = QTimer(self)
        self.turn_timer.setSingleShot(True)
        self.turn_timer.setInterval(0)
        self.turn_timer.timeout.connect(self._next_turn)

    def in_turn(self, work: Callable[[], None]) -> None:
        """Run ``work()`` on a turn of the event loop of its own, after the pieces given before it (once, if
        given again meanwhile): the views taking in the scores of 500 runs one after the other, with the
        window painting between them, rather than all in one go."""
        if work not in self.turns:
            self.turns.append(work)
        if not self.turn_timer.isActive():
            self.turn_timer.start()

    def _next_turn(self) -> None:
        if self.turns:
            self.turns.popleft()()
        if self.turns:
            self.turn_timer.start()
        elif not self.timer.isActive():
            self.sigDone.emit()

    def later(self, work: Callable[[], None]) -> None:
        """Run ``work()`` once the window has painted what it was just given."""
        if work not in self.work:
            self.work.append(work)
        self.timer.start(AFTER_PAINT_MS)

    @property
    def waiting(self) -> bool:
        return self.timer.isActive() or bool(self.turns)

    @property
    def turns_pending(self) -> bool:
        """Whether some work given to :meth:`in_turn` has not run yet."""
        return bool(self.turns)

    def clear(self) -> None:
        """Forget the work put off (Cancel, the window closing); the views' refreshes still come."""
        self.timer.stop()
        self.work.clear()

    def close(self) -> None:
        """Nothing more is run (the window closing)."""
        self.clear()
        self.turns.clear()
        self.turn_timer.stop()

    def _run(self) -> None:
        work, self.work = self.work, []
        for w in work:
            w()
        if not self.turns:
            self.sigDone.emit()
