"""The window's one scoring service (plain Python, no Qt): every run scored once per key, by one owner.

A run's scores depend on the run's content, the qrels' content, the :class:`metrics.Settings` and the
measures, and on nothing else: that is the :class:`ScoreKey`.  :meth:`ScoringService.submit` is
idempotent, as ``concurrent.futures`` and Dask key their futures: a second submit of a key that is
being scored, or has been, gives the same future, so the scoring done ahead of an evaluation (while
files are read, or before the window exists) is found by the evaluation's own submit, with no
hand-over.  Every submit counts one holder of its key; :meth:`ScoringService.release` takes one away,
and a key nobody holds is let go: its scores are dropped, its work cancelled if not started, and
stopped if under way (the worker processes are stopped; the work of the keys still held is sent to new
ones).  A :class:`Lease` holds keys for one owner (an evaluation under way, the scores kept for the next
evaluation, the scoring ahead) and releases them all at once, when closed or when collected.

Runs held in memory are scored in the service's thread; runs on disk are read and scored by its worker
processes (:class:`workbench.scoring.disk_runs.Workers`), to which the encoded qrels, the measures and the
settings go once per key of theirs, in a file.
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from metrics.engine.settings import MeasureSet, Settings
from metrics.errors import Cancelled, stop_when
from workbench.scoring import disk_runs
from workbench.scoring.run_on_disk import RunOnDisk


@dataclass(frozen=True)
class ScoreKey:
    """What one run's scores are made from: its label (the results name it), the identity of its content
    (:func:`run_identity`), that of the qrels (:func:`qrels_identity`), the settings and the measures."""

    label: str
    run: Hashable
    qrels: Hashable
    settings: Settings
    measures: MeasureSet


def file_identity(path: str, size: int, mtime: float, kind: str | None) -> tuple:
    """The identity of what a file held when it was read: its path, size and modification time, and the
    kind it was read as (a file read again as another kind gives other frames)."""
    return ("file", os.path.abspath(path), int(size), float(mtime), kind)


def frame_digest(frame: Any, columns: tuple[str, ...]) -> tuple:
    """The identity of a frame's content (its ``columns`` and its name): for intent qrels, which the
    window holds as a frame (a few ms per 100,000 rows)."""
    import pandas as pd

    h = hashlib.blake2b(digest_size=16)
    h.update(pd.util.hash_pandas_object(frame[list(columns)], index=False).to_numpy().tobytes())
    h.update(str(getattr(frame, "attrs", {}).get("name", "")).encode("utf-8", "surrogatepass"))
    return ("frame", len(frame), h.hexdigest())


def content_digest(data: Any, kind: str) -> tuple:
    """The identity of a run's or qrels' content (``kind``), held as columns (or given as a frame by the
    library's users and tests): a digest of its ids' bytes, its values and a run's name."""
    from metrics.ranking.qrels_index import as_columns

    cols = as_columns(data, kind)
    h = hashlib.blake2b(digest_size=16)
    for ids in (cols.qid, cols.doc):
        h.update(ids.tobytes() if ids.dtype != object else b"\0".join(ids.tolist()))
        h.update(str(ids.dtype).encode())
    h.update(cols.value.tobytes())
    h.update(str(cols.name).encode("utf-8", "surrogateescape"))
    return (kind, len(cols), h.hexdigest())


def run_identity(run: Any, given: Hashable | None = None) -> Hashable:
    """The identity of a run's content: a run on disk's file as opened (a file changed since is another
    run), ``given`` (the file its columns were read from, see :func:`file_identity`), else a digest."""
    if isinstance(run, RunOnDisk):
        return ("disk", run.path, tuple(run.stat) if run.stat is not None else None)
    if given is not None:
        return given
    return content_digest(run, "run")


def qrels_identity(parts: tuple, given: tuple | None = None) -> Hashable:
    """The identity of the qrels made of ``parts``: ``given`` (one :func:`file_identity` per part), else
    their digests."""
    if given is not None and len(given) == len(parts) and all(g is not None for g in given):
        return tuple(given)
    return tuple(content_digest(p, "qrels") for p in parts)


@dataclass(eq=False)
class _Entry:
    """One key's work: the future handed out, how many hold it, and what computes it."""

    future: Future
    holders: int
    start: Callable[[], Future] | None  # (re)starts the work, returning the future of whoever does it
    on_disk: bool
    inner: Future | None = None
    generation: int = 0  # the processes' generation the work was sent to (see ScoringService._stops)
    retried: bool = False


class ScoringService:
    """The futures of every run scored for a window, keyed by :class:`ScoreKey` (thread-safe)."""

    def __init__(self, workers: disk_runs.Workers | None = None) -> None:
        self.workers = workers if workers is not None else disk_runs.Workers()
        self._lock = threading.RLock()
        self._entries: dict[ScoreKey, _Entry] = {}
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="scoring")
        self._states: dict[Hashable, str] = {}  # (qrels, settings, measures) -> the processes' state file
        self._encoded: list[tuple[Hashable, Any]] = []  # the latest qrels encoded, by identity
        self._derived: dict[Hashable, Any] = {}  # see derived()
        self._stops = 0  # the processes stopped under work so far
        self._closed = False
        # runs on disk are sent to the processes one per process at a time, the others wait here: work not
        # sent is let go by taking it out of this queue (a pool's future cancelled and then failed by a
        # stop would break the pool's own thread on Python before 3.12, CPython gh-107219)
        self._waiting: deque[tuple[ScoreKey, _Entry]] = deque()
        self._sent: set[Future] = set()

    # ------------------------------------------------------------------ the rules
    def submit(
        self,
        key: ScoreKey,
        here: Callable[[], Any] | None = None,
        there: Callable[[], tuple] | None = None,
    ) -> Future:
        """The future of ``key``'s scores, counted as one more holder.  The first submit of a key starts its
        work: ``here()`` in the service's thread, or the call ``there()`` gives (a function and its
        arguments, made only when needed: it may write the processes' state) in a worker process.  A key
        whose work failed or was given up is started again."""
        if (here is None) == (there is None):
            raise TypeError("give the work to do here or there, one of them")
        with self._lock:
            if self._hold(key):
                return self._entries[key].future
        call = there() if there is not None else None  # (outside the lock: it may encode the qrels)
        with self._lock:
            if self._hold(key):
                return self._entries[key].future
            future: Future = Future()
            if here is not None:
                work = here

                def start() -> Future:
                    return self._thread.submit(self._here, entry, work)

            else:
                assert call is not None
                task = call

                def start() -> Future:
                    return self.workers.pool().submit(*task)

            entry = _Entry(future, 1, start, on_disk=there is not None)
            self._entries[key] = entry
            self._start(key, entry)
            return future

    def _hold(self, key: ScoreKey) -> bool:
        """Count one more holder of ``key`` if it is there (under the lock)."""
        if self._closed:
            raise RuntimeError("the scoring service is closed")
        entry = self._entries.get(key)
        if entry is None:
            return False
        entry.holders += 1
        return True

    def release(self, key: ScoreKey) -> None:
        """One holder of ``key`` fewer; with none left, the key is let go (see the module's docstring)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            entry.holders -= 1
            if entry.holders > 0:
                return
            del self._entries[key]
            inner = entry.inner
            if not entry.future.done():
                entry.future.cancel()
            if not entry.on_disk:
                if inner is not None:
                    inner.cancel()  # (not started: never runs; under way: stops at its next stage)
            elif inner is None:
                self._waiting = deque(x for x in self._waiting if x[1] is not entry)  # not sent: dropped
            elif not inner.done():
                # a process scores what nobody waits for (a run of millions of lines takes a minute): the
                # processes are stopped, the work still held is sent to new ones (see _settle)
                self._stop_processes()

    def holders(self, key: ScoreKey) -> int:
        """How many hold ``key`` (0: it is not kept)."""
        with self._lock:
            entry = self._entries.get(key)
            return 0 if entry is None else entry.holders

    def lease(self) -> Lease:
        return Lease(self)

    # ------------------------------------------------------------------ what the work shares
    def encoded(self, identity: Hashable, make: Callable[[], Any]) -> Any:
        """The qrels of ``identity`` encoded for scoring (``make()`` encodes them, once while they are in use)."""
        with self._lock:
            for ident, enc in self._encoded:
                if ident == identity:
                    return enc
        enc = make()
        with self._lock:
            self._encoded = [(identity, enc)] + [x for x in self._encoded if x[0] != identity][:1]
        return enc

    #: derived values kept (:meth:`derived`): a run of a million lines takes a second to rank for an
    #: explanation, and clicking along a row of the per-query table explains the same runs again
    DERIVED_KEPT = 4

    def derived(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """What ``make()`` derives from the content ``key`` names (a run's ranking prepared for explanations,
        keyed by the run's and the qrels' identities and the level), made once while among the latest
        :data:`DERIVED_KEPT` asked for.  ``make`` runs outside the lock (two threads asking at once may
        both make it; the values are equal)."""
        with self._lock:
            if key in self._derived:
                value = self._derived.pop(key)
                self._derived[key] = value  # the latest last
                return value
        value = make()
        with self._lock:
            self._derived[key] = value
            while len(self._derived) > self.DERIVED_KEPT:
                del self._derived[next(iter(self._derived))]
        return value

    def state_file(self, key: Hashable, make: Callable[[], disk_runs.ScoringState]) -> str:
        """The file that hands the processes their state for ``key`` (written once, the latest few kept)."""
        with self._lock:
            path = self._states.get(key)
            if path is not None and os.path.exists(path):
                return path
        path = self.workers.state_file(make())
        with self._lock:
            self._states = {k: p for k, p in self._states.items() if os.path.exists(p)}
            self._states[key] = path
        return path

    def close(self) -> None:
        """Stop everything (the window closes): the processes, the thread, every future not done."""
        with self._lock:
            self._closed = True
            self._derived.clear()
            entries, self._entries = list(self._entries.values()), {}
            self._waiting.clear()
        for entry in entries:
            entry.holders = 0
            entry.future.cancel()
            if entry.inner is not None and not entry.on_disk:
                entry.inner.cancel()
        self._thread.shutdown(wait=False, cancel_futures=True)
        self.workers.shutdown()

    # ------------------------------------------------------------------ internals
    def _start(self, key: ScoreKey, entry: _Entry) -> None:
        """Start the work of ``entry`` now (in the thread), or when a process is free (runs on disk)."""
        if entry.on_disk:
            entry.inner = None
            self._waiting.append((key, entry))
            self._dispatch()
            return
        self._launch(key, entry)

    def _dispatch(self) -> None:
        """Send the runs on disk waiting to the processes, one per process at a time (under the lock)."""
        while self._waiting and len(self._sent) < disk_runs.processes() and not self._closed:
            key, entry = self._waiting.popleft()
            if entry.holders > 0 and not entry.future.done():
                self._launch(key, entry)

    def _launch(self, key: ScoreKey, entry: _Entry) -> None:
        entry.generation = self._stops
        try:
            assert entry.start is not None
            inner = entry.start()
        except BaseException as exc:  # (a broken pool, a state that cannot be written)
            if self._entries.get(key) is entry:
                del self._entries[key]
            entry.future.set_exception(exc)
            return
        entry.inner = inner
        if entry.on_disk:
            self._sent.add(inner)
        inner.add_done_callback(lambda done: self._settle(key, entry, done))

    @staticmethod
    def _here(entry: _Entry, work: Callable[[], Any]) -> Any:
        """Work in the service's thread: it stops (:class:`~metrics.errors.Cancelled`) once nobody holds it."""
        with stop_when(lambda: entry.holders <= 0):
            if entry.holders <= 0:
                raise Cancelled("nobody waits for it")
            return work()

    def _settle(self, key: ScoreKey, entry: _Entry, done: Future) -> None:
        from concurrent.futures.process import BrokenProcessPool

        with self._lock:
            if done in self._sent:
                self._sent.discard(done)
                self._dispatch()  # (a process is free)
            if entry.inner is not done or entry.future.done():
                return  # work sent again meanwhile, or given up
            if done.cancelled():
                entry.future.cancel()
                return
            exc = done.exception()
            if isinstance(exc, BrokenProcessPool) and entry.holders > 0:
                # the processes were stopped under it for work nobody wanted (sent again, as often as that
                # happens), or this run's reading killed its process (sent again once: a second death fails it)
                ours = entry.generation < self._stops
                if ours or not entry.retried:
                    entry.retried |= not ours
                    self._start(key, entry)
                    return
            if exc is not None and self._entries.get(key) is entry:
                del self._entries[key]  # (a failed key is started again by its next submit)
            entry.start = None  # (what it was made from, a frame, is not kept with its scores)
        if exc is not None:
            entry.future.set_exception(exc)
        else:
            entry.future.set_result(done.result())

    def _stop_processes(self) -> None:
        self._stops += 1
        self.workers.stop()


@dataclass(eq=False)
class Lease:
    """Keys held for one owner: each submitted once (:meth:`submit`), released together by :meth:`close`,
    or when the lease is collected (an outcome nobody applies lets go of what it held).  Thread-safe; a
    closed lease holds nothing more."""

    service: ScoringService
    _keys: dict = field(default_factory=dict)  # ScoreKey -> its future

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _release_all, self.service, self._keys)

    def submit(self, key: ScoreKey, here=None, there=None) -> Future:
        """``key``'s future, held by this lease once however often it is asked for."""
        with self._lock:
            if not self._finalizer.alive:
                raise RuntimeError("the lease is closed")
            future = self._keys.get(key)
            if future is None:
                future = self._keys[key] = self.service.submit(key, here, there)
            return future

    def hold(self, key: ScoreKey, future: Future) -> None:
        """Hold ``key`` too (its ``future`` is held by another lease, whose work is done)."""
        with self._lock:
            if self._finalizer.alive and key not in self._keys:
                self._keys[key] = self.service.submit(key, here=lambda: future.result())

    def release(self, key: ScoreKey) -> None:
        with self._lock:
            held = self._keys.pop(key, None) is not None
        if held:
            self.service.release(key)

    @property
    def keys(self) -> list[ScoreKey]:
        with self._lock:
            return list(self._keys)

    def close(self) -> None:
        with self._lock:
            self._finalizer()


def _release_all(service: ScoringService, keys: dict) -> None:
    held = list(keys)
    keys.clear()
    for key in held:
        service.release(key)


def submit_on_disk(lease: Lease, key: ScoreKey, run: RunOnDisk, measures, encode: Callable[[], Any]) -> Future:
    """``run``'s future, held by ``lease``: read and scored by a worker process (:func:`disk_runs.score`),
    with the qrels ``encode()`` gives (called only when the processes' state for the key's qrels, settings
    and measures is not written yet) and the parsed ``measures``."""
    service = lease.service
    path, stat = run.path, run.stat

    def there() -> tuple:
        state = service.state_file(
            (key.qrels, key.settings, key.measures),
            lambda: disk_runs.ScoringState(encode(), measures, key.settings),
        )
        return (disk_runs.score, state, key.label, path, stat)

    return lease.submit(key, there=there)


def as_done(futures: dict, runs: dict, check):
    """``(label, the future's result or why its run's file cannot be read, future)`` of each future (future ->
    label of the run in ``runs``) as it is done, whichever evaluation waits for them; ``check()``
    is called a tenth of a second at most apart (it raises :class:`~metrics.errors.Cancelled` to stop: a
    run of millions of lines takes its process many seconds)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from metrics.errors import InputError
    from workbench.scoring.failures import describe_error

    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
        check()
        for future in done:
            label = futures[future]
            try:
                outcome = future.result()
            except (InputError, OSError, ValueError, UnicodeError, MemoryError) as exc:
                yield label, describe_error(getattr(runs[label], "path", label), exc), future
                continue
            yield label, outcome, future
