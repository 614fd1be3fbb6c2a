"""How the session reads files: what the user opens listed in a worker, loads started in batches as
jobs, their outcomes handed to the model, the runs on disk scored while the others are read, and the
loaded files watched for changes on disk.

Made by :class:`workbench.qt.session.Session` (``Session.reading``); the rules of each step are the
model's file rules (:class:`workbench.state.files.FileRules`, ``model.files``)."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QTimer

from workbench.scoring import evaluation as analysis
from workbench.state.listing import Listing, list_files, look_at
from workbench.state.loading import load_file, sample_files
from workbench.state.session_state import user_action
from workbench.state.workspace import ONE_IN_USE, FileEntry, normalize

if TYPE_CHECKING:
    from workbench.qt.jobs import Jobs
    from workbench.scoring.service import Lease
    from workbench.state.disk_watch import DiskState, DiskWatch
    from workbench.state.session import SessionModel
    from workbench.state.session_state import UserTurn
    from workbench.state.workspace_file import WorkspaceDoc


_Listed = TypeVar("_Listed")  # what a listing job finds: a Listing, or a workspace read and its files


def _timer(parent: QObject, ms: int, slot: Callable[[], None]) -> QTimer:
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(ms)
    timer.timeout.connect(slot)
    return timer


class ReadingJobs:
    """The reading and file-watching jobs of a session: the files are listed and read in ``jobs``, what
    they hold goes to ``model``'s file rules, and ``disk`` (a :class:`~workbench.state.disk_watch.DiskWatch`)
    looks at them once read.  ``parent`` owns the timers; ``state_changed()`` says that what is current may have
    changed, ``changed_on_disk(path, size)`` that a loaded file changed on disk; ``error(text)`` and
    ``message(text)`` tell the user."""

    #: seconds of starting reads per turn of the event loop, at most: starting 500 at once (a worker, its
    #: signals) kept the window's thread from painting for 0.7 s
    LOAD_SLICE_SECONDS = 0.02

    def __init__(
        self,
        model: SessionModel,
        jobs: Jobs,
        disk: DiskWatch,
        *,
        parent: QObject,
        state_changed: Callable[[], None],
        changed_on_disk: Callable[[str, int], None],
        error: Callable[[str], None],
        message: Callable[[str], None],
    ):
        self.model = model
        self.jobs = jobs
        self.disk = disk
        #: after Cancel, nothing listed is opened and nothing changed on disk is read again until the user acts
        self.turn: UserTurn = model.turn
        self._state_changed = state_changed
        self._changed_on_disk = changed_on_disk
        self._error = error
        self._message = message
        #: files read and to read since the last time none was being read
        self.reads = [0, 0]
        #: the runs on disk scored ahead of the evaluation (while files are read, or since the window
        #: started), held until the evaluation that wants them is applied: it submits the same keys and
        #: finds their futures
        self.scored_ahead: list[Lease] = []
        self._unannounced = False  # files read whose arrival the model has not announced yet
        self._workers_warm = False
        self._load_queue: list[tuple[FileEntry, int]] = []  # files to read, started a batch at a time
        self._load_timer = _timer(parent, 0, self._start_loads)
        self._announce_timer = _timer(parent, 100, self._announce_loaded)
        #: what the user asked to open, by ticket in the order asked: what to do once it is listed (None:
        #: still being listed); applied in that order, each once those asked before are
        self._opening: dict[int, Callable[[], object] | None] = {}
        self._tickets = itertools.count(1)

    @property
    def busy(self) -> bool:
        """Whether reads are queued or their arrival is still to be announced (the jobs say the rest)."""
        return bool(self._load_queue) or self._load_timer.isActive() or self._announce_timer.isActive()

    def loading(self) -> bool:
        """Whether files asked for are still being listed or read."""
        return bool(self._opening) or bool(self.model.workspace.loading())

    def reading(self) -> bool:
        return bool(self._load_queue) or any(isinstance(k, tuple) and k[0] == "load" for k in self.jobs.keys())

    # ------------------------------------------------------------------
    # what the user opens: listed in a worker, then handed to the model in the order asked
    @user_action
    def open_files(self, paths: Iterable[str | os.PathLike], kind: str | None = None) -> None:
        """Open files and folders (a folder stands for the files in it and its subfolders): listed in a
        worker, then loaded by the model's rules (:meth:`workbench.state.files.FileRules.open_listed`)."""
        names: list[str] = [os.fspath(p) for p in paths]
        files = self.model.files
        self._list(
            lambda: list_files(names),
            lambda found: files.open_listed(found, kind, start=self.submit_load, forget=self.unwatch),
            _opening_what(names),
        )

    @user_action
    def open_sample(self) -> None:
        """Show the bundled sample instead of whatever is loaded (what was asked before is dropped)."""
        self.drop_files()
        files = self.model.files
        self._list(
            lambda: list_files(sample_files()),
            lambda found: files.open_sample(found, start=self.submit_load),
            "Opening the sample",
        )

    @user_action
    def open_workspace(self, doc: WorkspaceDoc) -> None:
        """Replace what is open with what a workspace document holds: the files it names are looked at in
        a worker (which are there, their sizes), then taken by the model
        (:meth:`workbench.state.session.SessionModel.open_workspace_listed`), in the order asked."""
        names = [f.path for f in doc.files]
        self._list(lambda: look_at(names), lambda found: self._take_workspace(doc, found), "Opening the workspace")

    @user_action
    def open_workspace_file(
        self,
        path: str,
        opened: Callable[[WorkspaceDoc], object],
        failed: Callable[[BaseException], object],
    ) -> None:
        """:meth:`open_workspace` with the document read from the workspace file at ``path``, in the same
        worker (the window's thread neither reads nor parses it); ``opened(doc)`` once it is taken, in the
        order asked, or ``failed(exception)`` if the file cannot be read.  Neither is called if the opening
        is cancelled or dropped: nothing of the workspace is taken then."""
        from workbench.state import workspace_file

        def read() -> tuple[WorkspaceDoc, Listing]:
            doc = workspace_file.read(path)
            return doc, look_at(f.path for f in doc.files)

        def take(read_: tuple[WorkspaceDoc, Listing]) -> None:
            doc, found = read_
            self._take_workspace(doc, found)
            opened(doc)

        self._list(read, take, "Opening the workspace", failed)

    def _take_workspace(self, doc: WorkspaceDoc, found: Listing) -> None:
        self._drop_reads()  # (what was asked after it is still listed, and opened after it)
        self.model.files.clear()
        self.model.open_workspace_listed(doc, found, start=self.submit_load)

    @user_action
    def locate(self, path: str, found: str) -> None:
        """Read ``found`` in place of ``path``, a file named by the workspace but missing."""
        files = self.model.files
        self._list(
            lambda: list_files([found]),
            lambda listed: files.locate(path, found, listed.sizes.get(normalize(found), 0), start=self.submit_load),
            _opening_what([found]),
        )

    @user_action
    def reload(self, path: str) -> None:
        """Read a file again (as the kind chosen for it, if one was)."""
        e = self.model.workspace.entry(path)
        if e is not None:
            self.open_files([e.path], kind=e.forced_kind)

    @user_action
    def set_kind(self, path: str, kind: str) -> None:
        """Correct the detected kind of a file; it is read again as that kind."""
        e = self.model.files.choose_kind(path, kind)
        if e is not None:
            self.open_files([e.path], kind=kind)

    def _list(
        self,
        listing: Callable[[], _Listed],
        then: Callable[[_Listed], object],
        what: str,
        failed: Callable[[BaseException], object] | None = None,
    ) -> None:
        """List in a worker (folders walked, sizes looked at: never on the window's thread), then ``then``;
        a failure goes to ``failed`` (by default, an error saying ``what`` failed)."""
        ticket = next(self._tickets)
        self._opening[ticket] = None

        def ended(report: Callable[[], object]) -> None:
            report()
            self._opening[ticket] = lambda: None
            self._open_listed()

        def cancelled() -> None:
            ended(lambda: self._message(f"{what}: cancelled"))

        def listed(found: _Listed) -> None:
            if self.turn.stopped:  # (Cancel pressed since it was asked for: nothing is opened)
                cancelled()
                return
            self._opening[ticket] = lambda: then(found)
            self._open_listed()

        def not_listed(exc: BaseException) -> None:
            ended(lambda: failed(exc) if failed is not None else self._error(f"{what} failed: {exc}"))

        self.jobs.submit(("list", ticket), lambda progress: listing(), what, listed, not_listed, cancelled)

    def _open_listed(self) -> None:
        while self._opening:
            ticket, then = next(iter(self._opening.items()))
            if then is None:
                return  # (listed after one asked before it: waits for that one)
            del self._opening[ticket]
            then()

    # ------------------------------------------------------------------
    # what the user changes in the list
    @user_action
    def remove(self, path: str) -> None:
        """Remove a file from the list (its load, if still under way, stops and is dropped); Undo brings
        back what was loaded."""
        e = self.model.workspace.entry(path)
        if e is None:
            return
        self.stop_reading(e.path)
        self.model.files.remove(e.path)

    @user_action
    def undo(self) -> str | None:
        """Take back the last change (a removal, a qrels file replaced, measures or options, a rename); what
        to tell the user.  A file back in the list is watched again."""
        told = self.model.undo_stack.undo()
        for e in self.model.workspace.entries:
            self.watch(e.path)
        self._state_changed()
        return told

    def clear(self) -> None:
        """Forget every file (what is being listed or read is dropped)."""
        self.drop_files()
        self.model.files.clear()

    # ------------------------------------------------------------------
    # reading
    def submit_load(self, e: FileEntry) -> None:
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
            if self.model.workspace.entry(e.path) is e and e.generation == gen:  # (not removed nor read again since)
                self._start_load(e)
        self._load_queue = queue[started:]
        if self._load_queue:
            self._load_timer.start()

    def drop_queued_loads(self) -> None:
        """Reads not started yet are dropped (Cancel): the model hears that each was cancelled."""
        queued, self._load_queue = self._load_queue, []
        self._load_timer.stop()
        for e, gen in queued:
            self.model.files.cancel_load(e.path, gen)

    def drop_files(self) -> None:
        """What was asked to be opened and is still listed, loads queued or under way dropped, files no
        longer watched."""
        opening, self._opening = list(self._opening), {}
        for ticket in opening:
            self.jobs.discard(("list", ticket))
        self._drop_reads()

    def _drop_reads(self) -> None:
        """Loads queued or under way dropped, files no longer watched (what is being listed stays)."""
        self._load_queue = []
        for e in list(self.model.workspace.entries):
            self.stop_reading(e.path)

    def stop_reading(self, path: str) -> None:
        """A file no longer watched, and its load still under way stopped and dropped."""
        self.unwatch(path)
        self.jobs.discard(("load", normalize(path)))

    def _start_load(self, e: FileEntry) -> None:
        path, kind, gen, hold = e.path, e.forced_kind, e.generation, e.hold
        if not self.jobs.running(("load", path)):
            self.reads[1] += 1
        if not hold and not self._workers_warm:  # runs on disk to score soon: start their processes now
            self._workers_warm = True
            self.model.run_cache.workers.warm()
        files = self.model.files
        self.jobs.submit(
            ("load", path),
            lambda progress: load_file(path, kind, progress, hold),
            f"Loading {os.path.basename(path)}",
            lambda outcome: self._on_loaded(path, gen, outcome),
            lambda exc: files.fail_load(path, gen, exc),
            lambda: files.cancel_load(path, gen),
        )

    def _on_loaded(self, path: str, gen: int, outcome) -> None:
        e = self.model.files.finish_load(path, gen, outcome)
        if e is None:
            return
        self.watch(e.path)
        if e.kind in ONE_IN_USE:  # a (intent) qrels file or collection replaced by this one is no longer watched
            self.disk.keep_only({x.path for x in self.model.workspace.entries})
        # while files are still being read, what they change is said at most ten times a second (the
        # views, the state and the evaluation follow each announcement; a folder of a thousand runs
        # would otherwise redo them a thousand times); the last file read is announced at once
        self._unannounced = True
        if not self.reading():
            self._announce_loaded()
        elif not self._announce_timer.isActive():
            self._announce_timer.start()

    def _announce_loaded(self) -> None:
        self._announce_timer.stop()
        if self._unannounced:
            self._unannounced = False
            self.model.files.announce_loaded()
        if self.reading():
            self._prescore()

    def job_ended(self, key: Hashable) -> bool:
        """Count a read that ended (however it ended); whether one was counted among several being read."""
        if not (isinstance(key, tuple) and key[0] == "load"):
            return False
        if self.reading():
            self.reads[0] += 1
            return True
        self.reads = [0, 0]
        return False

    def progress(self, fraction: float, what: str) -> tuple[float, str]:
        """The progress to show: while several files are read, of all of them (a folder of a thousand runs
        says how many of them are read, not how far the latest one is)."""
        done, total = self.reads
        if total > 1 and self.reading():
            return done / total, f"Reading files: {done} of {total}"
        return fraction, what

    # ------------------------------------------------------------------
    # scoring the runs on disk while the others are read
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
            self.take_scored_ahead,
            lambda exc: None,  # the evaluation scores them again and says what went wrong
        )

    def take_scored_ahead(self, lease: Lease) -> None:
        """Hold the runs now scored ahead, beside those scored ahead before; after Cancel, nothing: they stop."""
        if self.turn.stopped:
            lease.close()
            return
        self.hold_scored_ahead(lease)

    def hold_scored_ahead(self, lease: Lease | None) -> None:
        """Hold ``lease`` too until the next evaluation is applied.  What was held before is kept: a lease
        taken while files are still read holds only the runs read so far, and letting go of the runs the
        window scored since it started, some of them in a process, stopped the processes under them."""
        if lease is not None:
            self.scored_ahead.append(lease)

    def let_go_of_scoring_ahead(self) -> None:
        """The evaluation is applied (or none will be): what was scored ahead and not wanted stops."""
        held, self.scored_ahead = self.scored_ahead, []
        for lease in held:
            lease.close()

    # ------------------------------------------------------------------
    # files changing on disk
    def watch(self, path: str) -> None:
        """Have the disk watch look at a loaded file, against what was read of it."""
        e = self.model.workspace.entry(path)
        if e is not None and e.status == "ok" and e.mtime:
            self.disk.expect(e.path, (e.size, e.mtime))

    def unwatch(self, path: str) -> None:
        self.disk.forget(normalize(path))

    def on_disk_news(self, states: list[DiskState]) -> None:
        """What the disk watch found (on the window's thread): a file changed, or deleted and written again,
        is offered to be read again (read at once when small; after Cancel, by the stale bar's Read again
        only: no work starts by itself then); a deleted one is said to be."""
        for state in self.model.workspace.apply_disk(states):
            if state.status == "changed" and not self.turn.stopped:
                self._changed_on_disk(state.path, state.size)
        self._state_changed()

    def shutdown(self) -> None:
        """No read starts after this."""
        for timer in (self._load_timer, self._announce_timer):
            timer.stop()
        self._load_queue = []
        self._opening = {}
        self.let_go_of_scoring_ahead()


def _opening_what(paths: list[str]) -> str:
    names = ", ".join(os.path.basename(p.rstrip("/\\")) or p for p in paths[:2])
    return f"Opening {names}" + (" …" if len(paths) > 2 else "")
