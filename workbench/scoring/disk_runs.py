"""Runs the window does not hold in memory: scored from their files by worker processes (no Qt).

A DL19-sized run takes about 3.5 MB in memory as a frame, so a folder of a thousand runs cannot all
be held.  The window holds run files while their sizes add up to :data:`HOLD_BYTES`; the files
opened beyond that are *runs on disk* (:class:`RunOnDisk`): opening one reads only the start of the
file (its kind and the tag that names it), and each evaluation reads and scores it again in a
worker process, as ``ir-eval --jobs`` does: the qrels are encoded once and handed to every process
when it starts, each process reads its run files itself, and what comes back per run is its
per-query values and curves (a few tens of kilobytes), kept by the window's scoring service
(:mod:`workbench.scoring.service`) so that a run is not read again until the qrels or settings change.
A file that cannot be read is reported with its line when its run is scored, and is then left out like
a file that failed to load.

The processes are started with ``spawn``: ``fork`` would copy the window's process with the locks its
other threads (Qt's, the readers') may hold at that moment.  The one exception is
:func:`workbench.scoring.service.start` on Linux, which runs before Qt is loaded and before any other
thread: it imports what scoring needs once and forks the processes from there (:func:`can_fork`), so
that they do not each import it again
(about 0.2 s of a core each, while the window is importing its own modules).
"""

from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from metrics.engine.settings import Settings
from workbench.scoring.run_on_disk import RunOnDisk

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

#: run files are held in memory while the held ones add up to less than this many bytes on disk
#: (about 70 DL19-sized runs, 10 Robust04-sized ones) and number fewer than HOLD_FILES; the files
#: opened beyond that stay on disk, and so do all the runs of files opened together (a folder, a
#: drop, the command line) that are more than the slots left.  Runs on disk are read and scored by
#: every core at once while the window builds its views, so a folder of a hundred runs is scored
#: sooner on disk than read into the window and scored there, and takes a tenth of the memory; a few
#: runs are quicker held (starting the worker processes takes about half a second).
HOLD_BYTES = 96 << 20
HOLD_FILES = 32


def head_of_run(path: str, kind: Optional[str]) -> Optional[RunOnDisk]:
    """A :class:`RunOnDisk` for ``path`` when it is a run file (``kind`` "run", or detected as one
    from its first data line); None for anything else (read as usual)."""
    if kind not in (None, "run"):
        return None
    from metrics.io.detect import first_data_line, sniff_layout

    try:
        tokens, _, line = first_data_line(path)
        if tokens is None or len(tokens) < 6 or not sniff_layout(line, "run").trec:
            return None  # a header's or JSON's layout is read as usual
    except (OSError, EOFError, ValueError):
        return None  # the usual reader says what is wrong
    try:
        tag = tokens[5].decode("utf-8") if isinstance(tokens[5], bytes) else str(tokens[5])
    except UnicodeDecodeError:
        return None
    return RunOnDisk(os.path.abspath(path), {"name": tag, "path": path})


# ------------------------------------------------------------------------------ worker processes


class Workers:
    """The worker processes of one window, started once and kept (starting them takes about half a
    second); each evaluation hands them its state (encoded qrels, measures, options) through a file
    written once, which each process reads once (:func:`score`).  Thread-safe."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._folder: tempfile.TemporaryDirectory | None = None
        self._states = 0

    def pool(self):
        """The process pool (started on first use)."""
        with self._lock:
            if self._pool is None:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                method = "fork" if can_fork() else "spawn"
                self._pool = ProcessPoolExecutor(
                    processes(), mp_context=multiprocessing.get_context(method), initializer=_start_process
                )
            return self._pool

    def warm(self) -> None:
        """Start the processes now, and have them import what scoring needs (runs on disk were opened:
        they will be scored soon)."""
        pool = self.pool()
        for _ in range(processes()):
            pool.submit(prepare)

    def state_file(self, state: ScoringState) -> str:
        """A file holding ``state`` for the processes (the latest few are kept)."""
        import pickle

        with self._lock:
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(prefix="ir-workbench-")
            self._states += 1
            path = os.path.join(self._folder.name, f"state-{self._states}.pickle")
            old = os.path.join(self._folder.name, f"state-{self._states - 4}.pickle")
        with open(path + ".part", "wb") as out:
            pickle.dump(state, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(path + ".part", path)
        if os.path.exists(old):
            os.remove(old)  # an evaluation that old has been superseded long ago
        return path

    def stop(self) -> None:
        """Stop the processes now, whatever they are scoring (Cancel during a long run); the next
        :meth:`pool` starts new ones.  concurrent.futures cannot stop one task under way, so the
        processes are terminated (the pool then fails its futures, which nothing awaits any more)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            _terminate(pool, cancel_futures=False)  # (the service sends the work it still holds to new ones)

    def shutdown(self) -> None:
        """Stop the processes (the window closes: what they score is not wanted any more) and remove the
        files of their states."""
        with self._lock:
            pool, self._pool = self._pool, None
            folder, self._folder = self._folder, None
        if pool is not None:
            _terminate(pool, cancel_futures=True)
        if folder is not None:
            folder.cleanup()


def _terminate(pool: ProcessPoolExecutor, cancel_futures: bool) -> None:
    """Terminate ``pool``'s processes, whatever they are doing, without leaving its thread waiting for ever.

    A process terminated while it wrote a result leaves part of a message in the pool's result pipe: the
    pool's thread reads it and waits for the rest, which cannot come while this process holds the pipe's
    end for writing (the processes write through it), and the interpreter's exit joins that thread: the
    window never exited.  Once the processes are gone, a thread of its own closes this process's end for
    writing, so that the pool's thread reads the end of the pipe, takes the pool for broken and ends."""
    import threading

    processes = list((getattr(pool, "_processes", None) or {}).values())  # (no public way to them)
    results = getattr(pool, "_result_queue", None)  # (taken before shutdown, which forgets them)
    pool.shutdown(wait=False, cancel_futures=cancel_futures)
    for process in processes:
        if process.is_alive():
            process.terminate()
    if results is None:
        return

    def close_when_gone() -> None:
        for process in processes:
            process.join(timeout=5.0)
            if process.is_alive():
                process.kill()
                process.join(timeout=5.0)
        results._writer.close()

    threading.Thread(target=close_when_gone, name="pool-stopped", daemon=True).start()


def stat_of(path: str) -> Optional[tuple]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime


def count_files(paths, enough: int) -> int:
    """How many visible files ``paths`` name (a folder: those in it and its subfolders), counted up to
    ``enough``."""
    count, todo = 0, [os.fspath(p) for p in paths]
    while todo and count < enough:
        path = todo.pop()
        if not os.path.isdir(path):
            count += 1
            continue
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    if not entry.name.startswith("."):
                        todo.append(entry.path)
        except OSError:
            pass  # the window says what it cannot read
    return count


def can_fork() -> bool:
    """Whether worker processes can be forked from this one: on Linux (macOS and Windows have no safe
    ``fork``), before Qt is loaded and while no other thread runs (a forked process has only the thread
    that forked it, and any lock another thread held at that moment stays held for ever)."""
    import sys
    import threading

    return sys.platform.startswith("linux") and "PySide6" not in sys.modules and threading.active_count() == 1


def _start_process() -> None:
    """A worker process's first step: leave with the window (:func:`metrics.scale.parallel.exit_with_parent`),
    and collect garbage again if it was forked from a window that had stopped collecting while it
    started (:func:`workbench.system.process.prepare`)."""
    import gc

    from metrics.scale.parallel import exit_with_parent

    exit_with_parent()
    gc.enable()


def prepare() -> None:
    """What a worker process imports to score runs, done before the first run comes."""
    import metrics.engine.curves  # noqa: F401
    import metrics.io.columns  # noqa: F401
    import workbench.scoring.body  # noqa: F401


@functools.lru_cache(maxsize=2)
def _state(path: str) -> ScoringState:
    """The state in ``path``, read once per process (the two latest are kept: a state file is written once
    and never changed, so its path stands for its content)."""
    import pickle

    with open(path, "rb") as f:
        return pickle.load(f)


@dataclass(frozen=True)
class ScoringState:
    """What the worker processes score runs on disk with, handed over in a file (:meth:`Workers.state_file`):
    the encoded qrels, the parsed measures and the :class:`metrics.Settings`."""

    qrels: Any
    measures: Any
    settings: Settings


def score(state_path: str, label: str, path: str, stat: Optional[tuple] = None):
    """Read and score one run file in a worker process, with the state in ``state_path``
    (:meth:`Workers.state_file`).

    Returns its :class:`workbench.scoring.body.Scored`, as a run held in memory is scored (the one body).
    ``stat``: the file's (size, modification time) when it was opened; a file changed since raises
    :class:`InputError`."""
    from metrics.io.columns import read_columns
    from workbench.scoring import body

    s = _state(state_path)
    if stat is not None:
        st = os.stat(path)
        if (st.st_size, st.st_mtime) != tuple(stat):
            from metrics.errors import InputError

            raise InputError("changed on disk since it was opened; read it again to score what it holds now", path=path)
    return body.score(s.qrels, label, read_columns(path, "run"), s.measures, s.settings)


def processes() -> int:
    """Worker processes for runs on disk: one per core, at least one."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
