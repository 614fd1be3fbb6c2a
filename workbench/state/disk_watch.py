"""The loaded files looked at on disk from a thread of their own (plain Python, no Qt).

What the window shows is what was read; whether a file changed, went or came back since is found by
this thread, never by the window's: a ``stat`` of each of a thousand loaded files after every job kept
the window's thread from painting for a second. The thread looks at every file it is told of every
:data:`DiskWatch.INTERVAL` seconds (sooner when asked: :meth:`DiskWatch.look_now`), and reports only
what changed since its last report, through ``report`` (called from its thread: the Qt session passes it
on to the window's thread as a queued signal).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["DiskState", "DiskWatch", "weak_report"]

#: (size in bytes, modification time) of a file, as ``os.stat`` gives them
Stamp = tuple[int, float]


@dataclass(frozen=True)
class DiskState:
    """A loaded file on disk, against what was read of it (``read``): ``status`` is ``"changed"`` (another
    size or time: written since, or deleted and written again), ``"deleted"`` or None (as read)."""

    path: str
    read: Stamp
    status: str | None
    size: int = 0  # on disk now, when changed


class DiskWatch:
    """Looks at files on disk in its own thread and reports what changed; :meth:`close` stops it."""

    #: seconds between two looks at every file (a look at a thousand files takes a few milliseconds)
    INTERVAL = 0.5

    def __init__(self, report: Callable[[list[DiskState]], None], interval: float | None = None) -> None:
        self._report = report
        self._interval = self.INTERVAL if interval is None else interval
        self._expected: dict[str, Stamp] = {}
        self._reported: dict[str, DiskState] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None

    def expect(self, path: str, read: Stamp) -> None:
        """Watch ``path``, read when it had ``read`` (size, time); a file read again is expected anew."""
        with self._lock:
            self._expected[path] = (int(read[0]), float(read[1]))
            self._reported.pop(path, None)  # (what was said of the content read before)
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="disk-watch", daemon=True)
                self._thread.start()
        # (no look at once: a folder of a thousand runs read would have every file looked at a thousand times)

    def forget(self, path: str) -> None:
        with self._lock:
            self._expected.pop(path, None)
            self._reported.pop(path, None)

    def keep_only(self, paths: set[str]) -> None:
        """Stop watching every file but ``paths`` (a replaced qrels file, removed runs)."""
        with self._lock:
            for path in [p for p in self._expected if p not in paths]:
                self._expected.pop(path, None)
                self._reported.pop(path, None)

    def watched(self) -> set[str]:
        with self._lock:
            return set(self._expected)

    def look_now(self) -> None:
        """Look at every file soon (a change was told, or the user asked)."""
        self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    # -- the thread ------------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self._interval)
            self._wake.clear()
            if self._closed:
                return
            news = self.look()
            if news:
                self._report(news)

    def look(self) -> list[DiskState]:
        """Look at every watched file once; the states that differ from those last reported (recorded
        as reported). Called by the thread; a test may call it directly."""
        with self._lock:
            expected = dict(self._expected)
        found = [_state_of(path, read) for path, read in expected.items()]
        news = []
        with self._lock:
            for state in found:
                if self._expected.get(state.path) != state.read:
                    continue  # read again, or forgotten, meanwhile
                if self._reported.get(state.path, DiskState(state.path, state.read, None)) != state:
                    self._reported[state.path] = state
                    news.append(state)
        return news


def _state_of(path: str, read: Stamp) -> DiskState:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return DiskState(path, read, "deleted")
    except OSError:
        return DiskState(path, read, None)  # unreadable for a moment (being replaced): what was read stays
    if (st.st_size, st.st_mtime) != read:
        return DiskState(path, read, "changed", int(st.st_size))
    return DiskState(path, read, None)


def weak_report(owner: object, signal: str) -> Callable[[list[DiskState]], None]:
    """A ``report`` for :class:`DiskWatch` that emits ``owner``'s ``signal`` while ``owner`` lives, without
    holding it (the watch's thread, holding the session, would keep it and every widget it reaches)."""
    ref = weakref.ref(owner)

    def emit(states: list[DiskState]) -> None:
        target = ref()
        if target is not None:
            getattr(target, signal).emit(states)

    return emit
