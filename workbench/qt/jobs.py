"""Background jobs: the one mechanism behind loading, evaluating, comparing, inspecting and exporting.

Every job has a *key* that says what it is for: ``"evaluate"``, ``"compare"``,
``("load", path)``, ``("inspect", path)``...  The rules, true by construction:

* **A request supersedes the older one of its kind.**  Submitting a job under a
  key whose previous job is still running cancels that one; its outcome is
  never handed to anybody.
* **A result is applied only while it is the latest wanted.**  The callbacks of a
  job run only if, when its worker reports, the job is still the one wanted for
  its key.
* **Cancel is not supersede.**  :meth:`Jobs.cancel` asks workers to stop but keeps
  their jobs wanted, so every owner learns how its job ended (``on_cancelled``
  or, when the worker finished anyway, ``on_done``) and can say that what is
  shown is out of date.  :meth:`Jobs.discard` forgets a job without a
  replacement (a file removed while it loads).

* **Outcomes are applied a slice at a time.**  Workers' outcomes queue up and are applied for at most
  :data:`Jobs.SLICE_SECONDS` per turn of the event loop: five hundred files read at once would otherwise
  be applied in one go, and the window would not paint meanwhile.

A failure's traceback goes to the log (:mod:`logging`, see
:func:`workbench.system.logs.setup`), never lost; the owner's ``on_failed`` gets the
exception for a message.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from metrics.errors import Cancelled
from workbench.qt.workers import Worker

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Job:
    """One piece of work in a worker: its key, what it is called, and what to do when it ends, fails or is cancelled."""

    key: Hashable
    what: str
    worker: Worker
    on_done: Callable[[Any], None]
    on_failed: Callable[[BaseException], None] | None = None
    on_cancelled: Callable[[], None] | None = None


class Jobs(QObject):
    """Runs functions ``fn(progress)`` in a thread pool under the rules above.

    Signals: ``sigBusyChanged(bool)`` (some job is wanted / none is),
    ``sigProgress(float, str)`` (fraction, or < 0 for unknown, and what runs),
    ``sigFinished(object)`` (a key whose job has just ended, however it ended).
    """

    sigBusyChanged = Signal(bool)
    sigProgress = Signal(float, str)
    sigFinished = Signal(object)

    #: seconds of outcomes applied per turn of the event loop, at most (the window paints between slices)
    SLICE_SECONDS = 0.03

    def __init__(self, parent=None, *, max_threads: int | None = None):
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads or max(2, QThreadPool.globalInstance().maxThreadCount()))
        self._wanted: dict[Hashable, Job] = {}
        self._running: set[Worker] = set()  # every worker until it reports (superseded ones too)
        self._outcomes: deque[tuple[Job, str, Any]] = deque()  # reported, not applied yet
        self._drain = QTimer(self)
        self._drain.setSingleShot(True)
        self._drain.setInterval(0)
        self._drain.timeout.connect(self._apply_some)

    # -- queries ---------------------------------------------------------
    @property
    def busy(self) -> bool:
        return bool(self._wanted)

    def running(self, key: Hashable) -> bool:
        return key in self._wanted

    def keys(self) -> list[Hashable]:
        return list(self._wanted)

    def describe(self) -> str:
        """What runs now, for the progress bar."""
        return next(reversed(self._wanted.values())).what if self._wanted else ""

    # -- changes ---------------------------------------------------------
    def submit(
        self,
        key: Hashable,
        fn: Callable,
        what: str,
        on_done: Callable[[Any], None],
        on_failed: Callable[[BaseException], None] | None = None,
        on_cancelled: Callable[[], None] | None = None,
    ) -> Job:
        """Run ``fn(progress)`` as the job for ``key``, superseding the one before."""
        was_busy = self.busy
        self._supersede(key)
        worker = Worker(fn)
        job = Job(key, what, worker, on_done, on_failed, on_cancelled)
        self._wanted[key] = job
        self._running.add(worker)
        worker.signals.sigProgress.connect(lambda f, job=job: self._progress(job, f))
        worker.signals.sigFinished.connect(lambda value, job=job: self._queue(job, "done", value))
        worker.signals.sigFailed.connect(lambda exc, job=job: self._queue(job, "failed", exc))
        if not was_busy:
            self.sigBusyChanged.emit(True)
        self.sigProgress.emit(-1.0, what)
        self._pool.start(worker)
        return job

    def cancel(self, key: Hashable | None = None) -> None:
        """Ask the job for ``key`` (every job, without a key) to stop; its owner still hears how it ended."""
        jobs = list(self._wanted.values()) if key is None else [self._wanted[key]] if key in self._wanted else []
        for job in jobs:
            job.worker.cancel()

    def discard(self, key: Hashable) -> None:
        """Stop the job for ``key`` and forget it: its outcome is never applied."""
        if key in self._wanted:
            self._supersede(key)
            self._after_change(key)

    def shutdown(self, timeout_ms: int = 10000) -> None:
        for job in list(self._wanted.values()):
            job.worker.cancel()
        self._wanted.clear()
        self._outcomes.clear()
        self._drain.stop()
        self._pool.clear()
        self._pool.waitForDone(timeout_ms)

    # -- internals -------------------------------------------------------
    def _supersede(self, key: Hashable) -> None:
        old = self._wanted.pop(key, None)
        if old is not None:
            old.worker.cancel()

    def _progress(self, job: Job, fraction: float) -> None:
        if self._wanted.get(job.key) is job:
            self.sigProgress.emit(fraction, job.what)

    def _queue(self, job: Job, how: str, value) -> None:
        self._outcomes.append((job, how, value))
        if not self._drain.isActive():
            self._drain.start()

    def _apply_some(self) -> None:
        """Apply the queued outcomes for a slice of time; the rest on the next turn of the event loop."""
        until = time.monotonic() + self.SLICE_SECONDS
        while self._outcomes:
            self._report(*self._outcomes.popleft())
            if time.monotonic() > until:
                break
        if self._outcomes:
            self._drain.start()

    def _report(self, job: Job, how: str, value) -> None:
        self._running.discard(job.worker)
        cancelled = how == "failed" and isinstance(value, Cancelled)
        if how == "failed" and not cancelled:
            # (the traceback written out by the worker's thread: writing it reads the source files)
            log.error("%s failed\n%s", job.what, (job.worker.failure_text or repr(value)).rstrip())
        if self._wanted.get(job.key) is not job:
            return  # superseded: a newer request of the same kind is what is wanted
        del self._wanted[job.key]
        try:
            if how == "done":
                job.on_done(value)
            elif cancelled:
                if job.on_cancelled is not None:
                    job.on_cancelled()
            elif job.on_failed is not None:
                job.on_failed(value)
        finally:
            self._after_change(job.key)

    def _after_change(self, key: Hashable) -> None:
        if self._wanted:
            self.sigProgress.emit(-1.0, self.describe())
        else:
            self.sigBusyChanged.emit(False)
        self.sigFinished.emit(key)
