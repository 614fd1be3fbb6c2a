"""Background jobs: a QRunnable that runs one function and reports through signals.

A worker only computes and emits.  It never touches a widget; whoever starts it
keeps a reference until it has finished and decides whether its result is still
wanted (a newer request supersedes older ones).
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, Signal


class WorkerSignals(QObject):
    """Signals of one job; lives in the thread that created it (the GUI thread)."""

    sigProgress = Signal(float)
    sigFinished = Signal(object)
    sigFailed = Signal(object)


class Worker(QRunnable):
    """Run ``fn(progress)`` in a pool thread.

    ``progress(fraction)`` is handed to the function; it forwards the fraction
    through ``sigProgress`` (at most every ``min_interval`` seconds) and returns
    False once :meth:`cancel` was called, which is how ``metrics.io.readers`` learns
    that it should stop.  The return value goes out through ``sigFinished``, any
    exception (including ``metrics.errors.Cancelled``) through ``sigFailed``.
    """

    def __init__(self, fn: Callable[[Callable[[float], bool]], Any], *, min_interval: float = 0.05):
        super().__init__()
        self.setAutoDelete(False)
        self.signals = WorkerSignals()
        self._fn = fn
        self._cancelled = threading.Event()
        self._min_interval = min_interval
        self._last_emit = 0.0
        #: the failure's traceback, written out in the pool thread (for the log, on the window's thread)
        self.failure_text: str | None = None

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def progress(self, fraction: float) -> bool:
        now = time.monotonic()
        if now - self._last_emit >= self._min_interval or fraction >= 1.0:
            self._last_emit = now
            self.signals.sigProgress.emit(float(fraction))
        return not self._cancelled.is_set()

    def run(self) -> None:
        from metrics.errors import Cancelled, stop_when

        try:
            with stop_when(self._cancelled.is_set):  # (heard between the stages of long numpy work)
                result = self._fn(self.progress)
        except BaseException as exc:  # reported, never raised into the pool thread
            if not isinstance(exc, Cancelled):  # (formatted here: its source lines are read from disk)
                self.failure_text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            self.signals.sigFailed.emit(exc)
        else:
            self.signals.sigFinished.emit(result)
