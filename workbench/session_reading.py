"""How the session reads files: loads started in batches as jobs, their outcomes handed to the model,
the runs on disk scored while the others are read, and the loaded files watched for changes on disk.

Part of :class:`workbench.session.Session` (whose timers, queue and watcher it uses)."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench.model import analysis
from workbench.model.loading import load_file
from workbench.model.workspace import FileEntry, Workspace, normalize

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer, SignalInstance

    from workbench.jobs import Jobs
    from workbench.model.disk_watch import DiskWatch
    from workbench.model.scoring import Lease
    from workbench.model.session import SessionModel


def by_user(method):
    """A method the user calls (a file opened, a measure ticked...): after Cancel, work starts again."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self._stopped = False
        self.sigUserActed.emit()  # (the notices told before are no longer news)
        return method(self, *args, **kwargs)

    return wrapper


class ReadingJobs:
    """The reading and file-watching jobs of :class:`~workbench.session.Session`."""

    # the session's, which these jobs use (made by Session.__init__)
    model: SessionModel
    jobs: Jobs
    workspace: Workspace
    open_files: Callable[..., list[str]]
    sigFileChangedOnDisk: SignalInstance
    sigStateChanged: SignalInstance
    _stopped: bool
    _reads: list[int]
    _unannounced: bool
    _workers_warm: bool
    _load_queue: list[tuple[FileEntry, int]]
    _load_timer: QTimer
    _announce_timer: QTimer
    _disk: DiskWatch
    _scored_ahead: Lease | None
    sigUserActed: SignalInstance

    #: seconds of starting reads per turn of the event loop, at most: starting 500 at once (a worker, its
    #: signals) kept the window's thread from painting for 0.7 s
    LOAD_SLICE_SECONDS = 0.02

    def _submit_load(self, e: FileEntry) -> None:
        """Read one file in a worker, soon (a slice of them per turn of the event loop); a newer load of the same
        file supersedes this one."""
        self._load_queue.append((e, e.generation))
        if not self._load_timer.isActive():
            self._load_timer.start()

    def _start_loads(self) -> None:
        until = time.monotonic() + self.LOAD_SLICE_SECONDS
        queue = self._load_queue
        started = 0
        while started < len(queue) and (started == 0 or time.monotonic() < until):
            e, gen = queue[started]
            started += 1
            if self.workspace.entry(e.path) is e and e.generation == gen:  # (not removed nor read again since)
                self._start_load(e)
        self._load_queue = queue[started:]
        if self._load_queue:
            self._load_timer.start()

    def _drop_queued_loads(self) -> None:
        queued, self._load_queue = self._load_queue, []
        self._load_timer.stop()
        for e, gen in queued:
            self.model.cancel_load(e.path, gen)

    def _start_load(self, e: FileEntry) -> None:
        path, kind, gen, hold = e.path, e.forced_kind, e.generation, e.hold
        if not self.jobs.running(("load", path)):
            self._reads[1] += 1
        if not hold and not self._workers_warm:  # runs on disk to score soon: start their processes now
            self._workers_warm = True
            self.model.run_cache.workers.warm()
        self.jobs.submit(
            ("load", path),
            lambda progress: load_file(path, kind, progress, hold),
            f"Loading {os.path.basename(path)}",
            lambda outcome: self._on_loaded(path, gen, outcome),
            lambda exc: self.model.fail_load(path, gen, exc),
            lambda: self.model.cancel_load(path, gen),
        )

    @by_user
    def locate(self, path: str, found: str) -> str | None:
        """Read ``found`` in place of ``path``, a file named by the workspace but missing."""
        return self.model.locate(path, found, start=self._submit_load)

    @by_user
    def reload(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is not None:
            self.open_files([e.path], kind=e.forced_kind)

    @by_user
    def set_kind(self, path: str, kind: str) -> None:
        """Correct the detected kind of a file; it is read again as that kind."""
        e = self.model.choose_kind(path, kind)
        if e is not None:
            self.open_files([e.path], kind=kind)

    def _on_loaded(self, path: str, gen: int, outcome) -> None:
        e = self.model.finish_load(path, gen, outcome)
        if e is None:
            return
        self._watch(e.path)
        if e.kind in ("qrels", "intents"):  # a (intent) qrels file replaced by this one is no longer watched
            self._disk.keep_only({x.path for x in self.workspace.entries})
        # while files are still being read, what they change is said at most ten times a second (the
        # views, the state and the evaluation follow each announcement; a folder of a thousand runs
        # would otherwise redo them a thousand times); the last file read is announced at once
        self._unannounced = True
        if not self._reading():
            self._announce_loaded()
        elif not self._announce_timer.isActive():
            self._announce_timer.start()

    def _announce_loaded(self) -> None:
        self._announce_timer.stop()
        if self._unannounced:
            self._unannounced = False
            self.model.announce_loaded()
        if self._reading():
            self._prescore()

    def _prescore(self) -> None:
        """While files are read, the worker processes score the runs on disk already opened: a folder of
        many runs is scored while the runs held are still being read.  The runs are submitted to the
        scoring service (in a worker: the qrels are encoded first) and held by a lease until the evaluation
        that follows the last file is applied; its own submits of the same keys find their futures."""
        if self.jobs.running("prescore") or self.jobs.running("evaluate"):
            return
        request = self.model.prescore_request()
        if request is None:
            return
        service = self.model.run_cache.service
        self.jobs.submit(
            "prescore",
            lambda progress: analysis.score_ahead(request, service.lease()),
            f"Scoring {len(request.runs)} runs",
            self._hold_scoring_ahead,
            lambda exc: None,  # the evaluation scores them again and says what went wrong
        )

    def _hold_scoring_ahead(self, lease) -> None:
        """Hold the runs now scored ahead (those scored ahead before, if not among them, are let go); after
        Cancel, nothing: they stop."""
        if self._stopped:
            lease.close()
            return
        old, self._scored_ahead = self._scored_ahead, lease
        if old is not None:
            old.close()

    def _reading(self) -> bool:
        return bool(self._load_queue) or any(isinstance(k, tuple) and k[0] == "load" for k in self.jobs.keys())

    # ------------------------------------------------------------------
    # files changing on disk
    def _watch(self, path: str) -> None:
        """Have the disk watch look at a loaded file, against what was read of it."""
        e = self.workspace.entry(path)
        if e is not None and e.status == "ok" and e.mtime:
            self._disk.expect(e.path, (e.size, e.mtime))

    def _unwatch(self, path: str) -> None:
        self._disk.forget(normalize(path))

    def _on_disk_news(self, states) -> None:
        """What the disk watch found (on the window's thread): a file changed, or deleted and written again,
        is offered to be read again (read at once when small; after Cancel, by the stale bar's Read again
        only: no work starts by itself then); a deleted one is said to be."""
        for state in self.workspace.apply_disk(states):
            if state.status == "changed" and not self._stopped:
                self.sigFileChangedOnDisk.emit(state.path, state.size)
        self.sigStateChanged.emit()
