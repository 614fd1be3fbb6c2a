"""Runs the window does not hold in memory: scored from their files by worker processes (no Qt).

A DL19-sized run takes about 3.5 MB in memory as a frame, so a folder of a thousand runs cannot all
be held.  The window holds run files while their sizes add up to :data:`HOLD_BYTES`; the files
opened beyond that are *runs on disk* (:class:`RunOnDisk`): opening one reads only the start of the
file (its kind and the tag that names it), and each evaluation reads and scores it again in a
worker process, as ``ir-eval --jobs`` does: the qrels are encoded once and handed to every process
when it starts, each process reads its run files itself, and what comes back per run is its
per-query values and curves (a few tens of kilobytes), kept by :class:`workbench.model.analysis.RunCache`
so that a run is not read again until the qrels or options change.  A file that cannot be read is
reported with its line when its run is scored, and is then left out like a file that failed to load.

The processes are started with ``spawn``: ``fork`` would copy the window's process with the locks its
other threads (Qt's, the readers') may hold at that moment.  The one exception is :func:`start_early`
on Linux, which runs before Qt is loaded and before any other thread: it imports what scoring needs
once and forks the processes from there (:func:`_can_fork`), so that they do not each import it again
(about 0.2 s of a core each, while the window is importing its own modules).
"""

from __future__ import annotations

import os
import tempfile
import threading
from typing import Optional

from workbench.model.run_on_disk import RunOnDisk

#: run files are held in memory while the held ones add up to less than this many bytes on disk
#: (about 70 DL19-sized runs, 10 Robust04-sized ones) and number fewer than HOLD_FILES; the files
#: opened beyond that stay on disk, and so do all the runs of files opened together (a folder, a
#: drop, the command line) that are more than the slots left.  Runs on disk are read and scored by
#: every core at once while the window builds its views, so a folder of a hundred runs is scored
#: sooner on disk than read into the window and scored there, and takes a tenth of the memory; a few
#: runs are quicker held (starting the worker processes takes about half a second).
HOLD_BYTES = 96 << 20
HOLD_FILES = 32

_STATE: dict = {}
_EARLY: dict = {}  # "workers": processes started before the session (start_early), until it takes them


def head_of_run(path: str, kind: Optional[str]) -> Optional[RunOnDisk]:
    """A :class:`RunOnDisk` for ``path`` when it is a run file (``kind`` "run", or detected as one
    from its first data line); None for anything else (read as usual)."""
    if kind not in (None, "run"):
        return None
    from metrics.io.detect import _first_data_line, sniff_layout

    try:
        tokens, _, line = _first_data_line(path)
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
        self._pool = None
        self._folder: tempfile.TemporaryDirectory | None = None
        self._states = 0

    def pool(self):
        """The process pool (started on first use)."""
        with self._lock:
            if self._pool is None:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                method = "fork" if _can_fork() else "spawn"
                self._pool = ProcessPoolExecutor(
                    processes(), mp_context=multiprocessing.get_context(method), initializer=_start_process
                )
            return self._pool

    def warm(self) -> None:
        """Start the processes now, and have them import what scoring needs (runs on disk were opened:
        they will be scored soon)."""
        pool = self.pool()
        for _ in range(processes()):
            pool.submit(_prepare)

    def state_file(self, state: dict) -> str:
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
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())  # (no public way to them)
        pool.shutdown(wait=False)
        for process in processes:
            if process.is_alive():
                process.terminate()

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            folder, self._folder = self._folder, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if folder is not None:
            folder.cleanup()


def start_early(paths) -> bool:
    """Start the worker processes now when ``paths`` (the files and folders given to the window) hold
    more files than the window holds runs: those runs will be scored from disk, and the processes'
    start (about half a second of their own) then overlaps the window's.  The session's first
    :func:`workers` call takes them, and they are given the runs to score at once (:func:`_score_early`).
    Returns whether they were started."""
    if "workers" in _EARLY or _count_files(paths, HOLD_FILES + 1) <= HOLD_FILES:
        return False
    early = Workers()
    if _can_fork():
        import gc

        _prepare()  # imported here once, for every process forked from here on
        gc.freeze()  # (what exists now is not traced again by the processes' collections: not copied)
    early.warm()
    _EARLY["workers"] = early
    # here rather than in a thread beside the window's start: the plan takes about 15 ms (the start of each
    # file), but a thread waited on Qt's import, which holds the interpreter, and the processes sat idle
    # for 0.2 s before their first run
    _score_early(early, list(paths))
    return True


def workers() -> Workers:
    """The worker processes of a new session: those :func:`start_early` started, or new ones (started
    on first use)."""
    return _EARLY.pop("workers", None) or Workers()


def discard_early() -> None:
    """Stop the processes :func:`start_early` started if no session took them."""
    drop_early()
    early = _EARLY.pop("workers", None)
    if early is not None:
        early.shutdown()


# ------------------------------------------------------------------------------ scored before the session
#
# The window's session exists only once pandas and its models are imported (about half a second), and
# scores once it has read every file.  Meanwhile the processes started by start_early would wait: before
# the window is made, start_early finds the one qrels file and the runs among the files given, and has the
# processes score the runs as a new session will (its default measures and options, the labels its
# workspace gives).  The session's scoring takes a future over (take_early) only if it asks for exactly
# that: the same qrels file, unchanged since, the same measures and options, the same run file, unchanged,
# under the same label; anything else is scored again as usual.

_EARLY_LOCK = threading.Lock()


def _score_early(workers: Workers, paths: list) -> None:
    try:
        plan = _early_plan(paths)
        if plan is None:
            return
        (qrels_path, qrels_stat), runs = plan
        from metrics.engine.evaluate import _encoded
        from workbench.model.defaults import DEFAULT_MEASURES, K_MAX, RELEVANCE_LEVEL, parse_each

        qrels = _encoded(qrels_path)
        if _stat(qrels_path) != qrels_stat:
            return  # changed while it was read
        measures, _ = parse_each(DEFAULT_MEASURES)
        options = dict(relevance_level=RELEVANCE_LEVEL, k_max=K_MAX, ndcg_options={})
        state = workers.state_file(dict(qrels=qrels, measures=measures, **options))
        pool = workers.pool()
        scores: dict = {}
        with _EARLY_LOCK:
            _EARLY["scores"] = dict(qrels=(qrels_path, qrels_stat), asked=_asked(measures, options), runs=scores)
        for label, run in runs:
            future = pool.submit(score, state, label, run.path, run.stat)
            with _EARLY_LOCK:
                if _EARLY.get("scores", {}).get("runs") is not scores:  # dropped meanwhile
                    future.cancel()
                    return
                scores[run.path] = (label, run.stat, future)
    except Exception:  # noqa: BLE001 - the session reads these files itself and says what is wrong
        return


def _early_plan(paths: list):
    """``((qrels path, its stat), [(label, RunOnDisk)...])``: the one qrels file and the runs among ``paths``
    as a new session would take them (found, detected and labelled by the same code, in the order given);
    None without exactly one qrels file and some run."""
    from metrics.io.detect import detect_kind, holds_queries
    from workbench.model.workspace import Workspace, expand

    space = Workspace()  # labels as the session's workspace gives them
    qrels, runs = [], []
    for path in expand(paths).files:
        stat = _stat(path)
        try:
            if holds_queries(path):
                continue  # queries (workbench.model.loading._load_file asks first too)
        except OSError:
            continue
        run = head_of_run(path, None)
        if run is not None and stat is not None:
            run.stat = stat
            entry = space.begin_load(path)
            space.finish_load(path, entry.generation, "run", run, None, stat)
            runs.append((entry.label, run))
            continue
        try:
            if stat is not None and detect_kind(path) == "qrels":
                qrels.append((path, stat))
        except (OSError, ValueError, UnicodeError):
            continue
    return (qrels[0], runs) if len(qrels) == 1 and runs else None


def _stat(path: str) -> Optional[tuple]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime


def _asked(measures, options: dict) -> tuple:
    """What a scoring asked for, compared in full (measures that are equal may be named differently)."""
    return [(m, getattr(m, "trec_text", None)) for m in measures or ()], sorted(options.items(), key=lambda kv: kv[0])


def take_early(label: str, run: RunOnDisk, qrels_parts, measures, options: dict):
    """The future of ``run`` scored since the window started (see above), if that scoring is the one asked
    for now: ``qrels_parts`` (the qrels frames in use), ``measures`` and ``options`` as given to the
    processes.  A future is handed out once; None when there is none to take."""
    with _EARLY_LOCK:
        early = _EARLY.get("scores")
        if early is None:
            return None
        entry = early["runs"].get(run.path)
        if entry is None or entry[0] != label or entry[1] != run.stat:
            return None
        path, stat = early["qrels"]
        parts = list(qrels_parts)
        if len(parts) != 1 or os.path.abspath(str(getattr(parts[0], "attrs", {}).get("path", ""))) != path:
            return None
        if early["asked"] != _asked(measures, options) or _stat(path) != stat:
            return None
        del early["runs"][run.path]
        return entry[2]


def drop_early() -> None:
    """Let go of the runs scored since the window started that no scoring took (those not started are
    cancelled): the session has scored what it shows."""
    with _EARLY_LOCK:
        early = _EARLY.pop("scores", None)
    for _, _, future in (early or {}).get("runs", {}).values():
        future.cancel()


def _count_files(paths, enough: int) -> int:
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


def _can_fork() -> bool:
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


def _prepare() -> None:
    """What a worker process imports to score runs, done before the first run comes."""
    import metrics.engine.curves  # noqa: F401
    import metrics.io.columns  # noqa: F401


def _state(path: str) -> dict:
    """The state in ``path``, read once per process (the two latest are kept)."""
    if path not in _STATE:
        import pickle

        with open(path, "rb") as f:
            state = pickle.load(f)
        while len(_STATE) >= 2:
            del _STATE[next(iter(_STATE))]
        _STATE[path] = state
    return _STATE[path]


def score(state_path: str, label: str, path: str, stat: Optional[tuple] = None):
    """Read and score one run file in a worker process, with the state in ``state_path``
    (:meth:`Workers.state_file`).

    Returns ``(evaluation of the one run, precision-recall blocks, NDCG@k blocks, queries in the run)``
    as :func:`metrics.engine.curves.evaluate_with_curves` (``tidy=False``) gives them.  ``stat``: the file's
    (size, modification time) when it was opened; a file changed since raises :class:`InputError`."""
    import metrics.engine.curves
    from metrics.io.columns import read_columns
    from metrics.io.ids import stretch_heads
    from metrics.ranking.qrels_index import distinct

    s = _state(state_path)
    if stat is not None:
        st = os.stat(path)
        if (st.st_size, st.st_mtime) != tuple(stat):
            from metrics.errors import InputError

            raise InputError("changed on disk since it was opened; read it again to score what it holds now", path=path)
    run = read_columns(path, "run")
    ev, pr, atk = metrics.engine.curves.evaluate_with_curves(
        s["qrels"],
        {label: run},
        s["measures"],
        relevance_level=s["relevance_level"],
        kind="NDCG",
        k_max=s["k_max"],
        tidy=False,
        **s["ndcg_options"],
    )
    return ev, pr, atk, len(distinct(run.qid[stretch_heads(run.qid)]))  # distinct queries, a stretch each


def processes() -> int:
    """Worker processes for runs on disk: one per core, at least one."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
