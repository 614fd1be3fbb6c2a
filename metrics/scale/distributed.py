"""Scoring many runs on a Dask cluster: ``ir-eval --dask ADDRESS`` and ``Evaluator.evaluate(runs, client=...)``.

The qrels are read and encoded once by the caller and scattered once to every
worker (``broadcast=True``); the runs are read by the workers from the paths or
URLs they are given (``s3://...`` and the other fsspec protocols, which come
with dask), so the runs themselves never pass through the caller.  At most a
few tasks per worker thread are in flight at once and results are handed back
in the order the runs were given, each as soon as it is due: the caller holds a
bounded number of results however many runs there are, and the output is byte
for byte that of one process.

Consecutive small run files are scored together, several in one task (a batch):
up to :data:`BATCH_FILES` files and :data:`BATCH_BYTES` bytes
(``$IR_EVAL_BATCH_BYTES``; 0: one task per run), which divides the costs per
task (the scheduler's, the caller's, a worker's) by the runs in a batch.  A
batch holds fewer files when there are few runs, so that every worker thread
gets :data:`BATCHES_PER_THREAD` tasks or more: with fewer than that many runs
per thread each run is one task, as batching would leave workers idle.  A
worker scores the runs of a batch one after the other and stops at the first
that cannot be read; the caller writes the runs before it, then reports the
error (file and line) as one process does.  The runs of a batch are due
together.  A file the caller cannot see (it needs the file's size), a URL (its
size is not asked for: that would cost a request per run) and a run in memory
are one task each.

``ir-eval --dask`` scores a local run file of 64 MiB or more
(:data:`metrics.scale.parts.SPLIT_BYTES`, ``$IR_EVAL_SPLIT_BYTES``) in parts, one
per worker thread: each worker reads its byte range of the file (whole queries)
itself, and the caller merges the per-query values into the lines of one task
(:func:`metrics.scale.parts.merge`).  A URL is never cut in parts (the worker
copies the object before reading it), nor is a run given to
``Evaluator.evaluate(runs, client=...)``, whose paths are batched as
``ir-eval``'s are and whose runs in memory are one task each.

Dask is optional (``pip install 'ir-workbench[dask]'``) and imported only
here, inside the functions that need it.  The workers need ir-workbench
installed (the same version as the caller).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import pickle
import posixpath
import re
import shutil
import stat
import tempfile
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Generator, Iterable, Iterator
from urllib.parse import urlparse

from metrics.errors import InputError
from metrics.scale.parallel import score_file
from metrics.scale.parts import Scored, WorkerState, in_parts, partitions, score_part, split_threshold

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BATCH_BYTES",
    "BATCH_ENV",
    "BATCH_FILES",
    "ENV",
    "INSTALL",
    "DaskUnavailable",
    "batch_limit",
    "connect",
    "evaluate_on_cluster",
    "quiet_logs",
    "score_runs",
]

ENV = "DASK_SCHEDULER_ADDRESS"
INSTALL = "pip install 'ir-workbench[dask]'"
TASKS_PER_THREAD = 2  # in flight per worker thread: keeps every worker busy, bounds what waits to be gathered
#: consecutive run files scored in one task: at most this many bytes together (a file this large is alone) ...
BATCH_BYTES = 16 << 20
#: ... and at most this many files
BATCH_FILES = 32
#: the environment variable that sets :data:`BATCH_BYTES` (a number of bytes; 0: one task per run)
BATCH_ENV = "IR_EVAL_BATCH_BYTES"
#: batches hold fewer files when there are few runs, so that each worker thread gets at least this many tasks
BATCHES_PER_THREAD = 8
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class DaskUnavailable(RuntimeError):
    """dask.distributed is not installed, or the scheduler cannot be reached."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DaskUnavailable(f"scoring on a Dask cluster needs dask.distributed: {INSTALL}") from None
    return distributed


def connect(address: str, timeout: float = 10.0):
    """A ``distributed.Client`` connected to the scheduler at ``address`` (not made the default client).

    Raises :class:`DaskUnavailable` with one line when dask is not installed or nobody answers."""
    distributed = _distributed()
    try:
        _probe(address, timeout)
    except (OSError, ValueError, TypeError) as exc:  # refused, timed out, malformed address
        raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    return distributed.Client(address, timeout=timeout, set_as_default=False)


def quiet_logs() -> None:
    """Keep the log records of dask, tornado and asyncio off standard error (``ir-eval`` reports what
    went wrong in one line of its own; a Ctrl-C otherwise makes tornado log a traceback)."""
    _distributed()  # its import sets up the loggers that are silenced here
    names = set(logging.root.manager.loggerDict) | {"distributed", "tornado", "asyncio"}
    for name in names:
        if name.split(".")[0] in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _probe(address: str, timeout: float) -> None:
    """Open and close one connection to the scheduler, as a Client would (the same TLS settings).

    A Client that fails to connect prints a traceback when it is collected, after a few seconds of
    trying to close; a failed probe leaves nothing behind."""
    import asyncio

    from distributed.comm import connect as open_comm
    from distributed.security import Security

    async def probe() -> None:
        comm = await open_comm(address, timeout=timeout, **Security().get_connection_args("client"))
        await comm.close()

    asyncio.run(probe())


def _is_url(source) -> bool:
    return isinstance(source, str) and bool(_URL.match(source))


@contextlib.contextmanager
def _local(source: str):
    """A local path to read ``source`` from: the path itself, or for a URL a temporary copy with the
    same file name (the readers take paths, and name ranked judgments after the file)."""
    if not _is_url(source):
        yield source
        return
    try:
        import fsspec
    except ImportError:
        raise InputError(f"reading a URL needs fsspec: {INSTALL}", path=source) from None
    with tempfile.TemporaryDirectory(prefix="ir-eval-") as folder:
        local = os.path.join(folder, posixpath.basename(urlparse(source).path.rstrip("/")) or "run")
        try:
            with fsspec.open(source, "rb") as remote, open(local, "wb") as copy:
                shutil.copyfileobj(remote, copy, 1 << 20)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), source) from None
        yield local


@contextlib.contextmanager
def _named(display: str):
    """Errors name the run as the caller gave it, not the absolute path or copy a worker read."""
    try:
        yield
    except InputError as exc:
        if exc.path == display:
            raise
        raise InputError(exc.message, path=display, line=exc.line, expected=exc.expected) from None
    except OSError as exc:  # no such file, a folder, not allowed: named as given too
        if exc.filename is None or exc.filename == display or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno), display) from None


def _score_task(state: WorkerState, source: str, display: str, part: int = -1, parts: int = 1, width=None, before=None):
    """A run scored by a worker (``part`` < 0), or one byte range of it (:func:`metrics.scale.parts.score_part`)."""
    if part >= 0:
        return score_part(state, display, part, parts, width, before, source=source)
    with _named(display), _local(source) as local:
        return score_file(state, display, source=local)


def _evaluate_task(evaluator, source, display, label):
    """One run scored by a worker: (its Evaluation, whether the run carried a name of its own)."""
    from metrics.engine.evaluate import is_run
    from metrics.io.columns import read_columns
    from metrics.io.table import Columns

    run: Columns | pd.DataFrame  # a file's columns, the caller's run as it is, or the frame read from it
    if isinstance(source, (str, os.PathLike)):
        with _named(display), _local(os.fspath(source)) as local:
            run = read_columns(local, "run", label)  # a key names the run, as in evaluate
        if local != display:  # a warning names the file as given, not the path or copy read
            run.warnings = [f"{display}{w[len(local) :]}" if w.startswith(f"{local}: ") else w for w in run.warnings]
    elif is_run(source):
        run = source
    else:  # PyTerrier's columns, dicts of dicts, records: converted as evaluate converts them
        from metrics.io.readers import read_run

        run = read_run(source, label)
    named = bool(run.name if isinstance(run, Columns) else run.attrs.get("name"))
    from metrics.errors import NoSharedQueries

    try:
        ev = evaluator.evaluate({label: run} if label is not None else [run])
    except NoSharedQueries as exc:  # one run of several: the whole evaluation says whether any was scored
        ev = exc.evaluation
    return ev, named


def _each(task: Callable, shared, items: list) -> list:
    """``task(shared, *item)`` for each item in turn (a batch, on a worker): the results, and in place of
    the first that raises, its exception (the items after it are not scored; the caller raises it when
    its run is due, after writing the runs before it)."""
    done: list = []
    for item in items:
        try:
            done.append(task(shared, *item))
        except Exception as exc:
            try:
                pickle.dumps(exc)
            except Exception:  # sent back as a result, it must pickle (as dask does for the error of a task)
                exc = RuntimeError(f"{type(exc).__name__}: {exc}")
            done.append(exc)
            break
    return done


def _score_batch(state: WorkerState, tasks: list) -> list:
    """Consecutive whole runs of :func:`_score_task` on one worker."""
    return _each(_score_task, state, tasks)


def _evaluate_batch(evaluator, items: list) -> list:
    """Consecutive runs of :func:`_evaluate_task` on one worker."""
    return _each(_evaluate_task, evaluator, items)


def batch_limit(value: int | None = None) -> int:
    """The bytes of run files scored together in one task: ``value``, else ``$IR_EVAL_BATCH_BYTES``,
    else :data:`BATCH_BYTES`; 0: one task per run."""
    if value is not None:
        return max(0, int(value))
    text = os.environ.get(BATCH_ENV, "").strip()
    return int(text) if text.isdigit() else BATCH_BYTES


def _per_batch(runs: int, threads: int, limit: int) -> int:
    """How many run files one task scores at most: :data:`BATCH_FILES`, fewer when there are few runs
    (every worker thread gets :data:`BATCHES_PER_THREAD` tasks or more, which keeps them all busy to
    the end: with fewer runs than that per thread, 1), and 1 when ``limit`` (bytes) is 0."""
    if limit <= 0:
        return 1
    return max(1, min(BATCH_FILES, runs // (BATCHES_PER_THREAD * max(1, threads))))


def _file_size(source) -> int | None:
    """Bytes of the local file ``source``; None for a URL, a run in memory, or what this process cannot
    see as a file (the worker that reads it says what is wrong)."""
    if not isinstance(source, str) or _is_url(source):
        return None
    try:
        info = os.stat(source)
    except (OSError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def _batches(items: Iterable[tuple], size: Callable[[tuple], int | None], most: int, limit: int) -> Iterator[list]:
    """``items`` grouped into lists of consecutive items, one task each: up to ``most`` items whose
    ``size`` (bytes) is known and together at most ``limit`` (an item of ``limit`` bytes or more is
    alone); an item of unknown size (None) is alone.  Lazy: an item is looked at when the list before
    it is asked for (and the one after it, to know where a list ends)."""
    batch: list = []
    total = 0
    for item in items:
        n = size(item) if most > 1 else None
        if batch and (n is None or len(batch) >= most or total + n > limit):
            yield batch
            batch, total = [], 0
        if n is None:
            yield [item]
            continue
        batch.append(item)
        total += n
    if batch:
        yield batch


def _in_batches(
    client, one: Callable, many: Callable, shared, items: Iterable[tuple], size, count: int, limit: int
) -> Iterator:
    """``one(shared, *item)`` for each of ``items`` (``count`` of them) on the cluster, consecutive
    items of known size grouped (:func:`_batches`, ``limit`` bytes) into tasks ``many(shared, items)``
    (:func:`_each`), an item alone in a task of ``one`` as before; run with :func:`_in_order`.  Yields
    the result of every item, in order; an error is raised when its item is due, after the results
    before it."""
    most = _per_batch(count, sum(client.nthreads().values()), limit)
    grouped: deque = deque()  # whether each task submitted, in order, is a batch

    def tasks() -> Iterator[tuple]:
        for batch in _batches(items, size, most, limit):
            grouped.append(len(batch) > 1)
            yield (many, (batch,)) if len(batch) > 1 else (one, batch[0])

    results = _in_order(client, shared, tasks())
    try:
        for result in results:
            if not grouped.popleft():
                yield result
                continue
            for outcome in result:
                if isinstance(outcome, BaseException):
                    raise outcome
                yield outcome
    finally:
        results.close()  # the tasks in flight are cancelled now


def _where(source):
    """What a worker is sent for ``source``: URLs as they are, local paths made absolute (workers on
    other machines read them from shared storage mounted at the same place)."""
    if isinstance(source, (str, os.PathLike)) and not _is_url(source):
        return os.path.abspath(os.fspath(source))
    return source


def _in_order(client, shared, tasks: Iterable[tuple]) -> Generator:
    """``function(shared, *arguments)`` on the cluster for every ``(function, arguments)`` of ``tasks``,
    results in order, each yielded once due.

    A window of :data:`TASKS_PER_THREAD` tasks per worker thread is kept in flight: the workers never
    wait for the caller, and finished results waiting for an earlier one are bounded.  The window is
    refilled half at a time, by one ``Client.map`` per function (one message to the scheduler for
    many tasks, which costs it less than one per task).  The first error (a bad run file) is raised
    when its run is due, and the tasks in flight are cancelled."""
    threads = sum(client.nthreads().values()) or 1
    window = max(2, TASKS_PER_THREAD * threads)
    todo = iter(tasks)
    pending: deque = deque()
    refills = 0

    def refill() -> None:
        nonlocal refills
        batch = list(itertools.islice(todo, window - len(pending)))
        for function, group in itertools.groupby(batch, key=lambda task: task[0]):
            columns = zip(*[(shared, *arguments) for _, arguments in group])
            pending.extend(client.map(function, *columns, pure=False, priority=-refills))
        refills += 1

    try:
        refill()
        while pending:
            future = pending.popleft()
            result = future.result()
            future.release()
            if len(pending) <= window // 2:
                refill()
            yield result
    finally:
        if pending:
            _cancel(client, list(pending))


def _cancel(client, futures: list) -> None:
    """Let the cluster drop ``futures`` now; a client already closed (after a Ctrl-C, the generator that
    held them is finished later) has let go of everything."""
    if client.status == "running":
        client.cancel(futures)


def score_runs(
    client, state: WorkerState, paths: list[str], split_bytes: int | None = None, batch_bytes: int | None = None
) -> Generator[Scored, None, None]:
    """``ir-eval``'s lines for every run file in ``paths`` (paths or URLs), scored on the cluster of
    ``client``, in the order of ``paths``.  ``state``: :func:`metrics.scale.parallel.state`, scattered once to
    every worker.  Reading errors are raised (:class:`metrics.InputError`) when their run is due.

    A local run file of ``split_bytes`` or more (default :func:`metrics.scale.parts.split_threshold`) is
    scored in parts, one per worker thread, each read by its worker from the file (the same path on
    every machine); the caller merges them (:mod:`metrics.scale.parallel`).  URLs are one task each.
    Consecutive smaller local files are scored several in one task, up to ``batch_bytes`` together
    (default :func:`batch_limit`; 0: one task per run) and :data:`BATCH_FILES` files."""
    [shared] = client.scatter([state], broadcast=True, hash=False)
    threshold = split_threshold(split_bytes)
    limit = batch_limit(batch_bytes)
    threads = sum(client.nthreads().values())

    def runs() -> Iterator[tuple]:
        for path in paths:
            where = _where(path)
            parts = 1 if _is_url(where) else partitions(where, threads, threshold, state.ranked)
            yield where, path, parts

    def rescore(task: tuple):
        future = client.submit(_score_task, shared, *task, pure=False)
        try:
            return future.result()
        finally:
            future.release()

    def size(task: tuple) -> int | None:  # of a whole run (part -1) read from a local file
        return _file_size(task[0]) if task[2] < 0 else None

    def run(tasks: Iterator[tuple]) -> Iterator:
        return _in_batches(client, _score_task, _score_batch, shared, tasks, size, len(paths), limit)

    try:
        yield from in_parts(state, runs(), run, rescore)
    finally:
        _cancel(client, [shared])


def evaluate_on_cluster(evaluator, runs, client):
    """:meth:`metrics.Evaluator.evaluate` with every run scored on the cluster of ``client``.

    ``runs``: a list of paths, fsspec URLs (read by the workers) or run frames (sent to them), or a
    dict label -> one of these; one path, URL or frame alone is one run.  Labels and numbers are those
    of ``evaluator.evaluate(runs)``; the evaluator (encoded qrels and measures) is scattered once.
    """
    from metrics.engine.evaluate import is_frame, is_run, refuse_nothing_scored
    from metrics.engine.evaluation import Evaluation
    from metrics.io.inputs import is_single_run
    from metrics.io.labels import unique_label

    # one run, several or a dict of them, told apart as evaluate tells them apart
    single = isinstance(runs, (str, os.PathLike)) or is_run(runs) or is_single_run(runs)
    if single or type(runs).__module__.startswith("ranx"):
        runs = [runs]
    keyed = isinstance(runs, Mapping)
    runs = list(runs.items()) if keyed else list(runs)
    if runs and not keyed and not is_frame(runs[0]) and hasattr(runs[0], "query_id"):
        runs = [runs]  # records of one run (ir_measures' ScoredDoc)
    items = runs if keyed else [(None, run) for run in runs]
    if not items:
        return evaluator.evaluate([])
    [shared] = client.scatter([evaluator], broadcast=True, hash=False)

    def arguments(label, source) -> tuple:
        if isinstance(source, (str, os.PathLike)):
            display, where = os.fspath(source), _where(source)
        else:  # a run in memory goes straight to a worker, not through the scheduler inside the task graph
            display, [where] = None, client.scatter([source], hash=False)
        return where, display, None if label is None else str(label)

    def size(task: tuple) -> int | None:  # of a run read from a local file
        return _file_size(task[0])

    try:
        todo = (arguments(*item) for item in items)
        results = list(
            _in_batches(client, _evaluate_task, _evaluate_batch, shared, todo, size, len(items), batch_limit())
        )
    finally:
        _cancel(client, [shared])
    # the labels evaluate would give: the key, else the run's name, else its position; made unique
    labels: list[str] = []
    for i, ((label, _), (ev, named)) in enumerate(zip(items, results)):
        base = str(label) if label is not None else (ev.runs[0] if named else f"run{i + 1}")
        labels.append(unique_label(base, set(labels)))
    evs = [_relabel(ev, label) for (ev, _), label in zip(results, labels)]
    # the file each run was read from, as given (a worker names it by where it read it: absolute)
    shown_as = {
        label: os.fspath(source) for (_, source), label in zip(items, labels) if isinstance(source, (str, os.PathLike))
    }
    paths = {label: shown_as.get(label, ev.paths.get(label)) for ev, label in zip(evs, labels)}
    first = evs[0]
    return refuse_nothing_scored(
        Evaluation(
            runs=labels,
            measures=first.measures,
            query_ids={label: ev.query_ids[label] for ev, label in zip(evs, labels)},
            results=[r for ev in evs for r in ev.results],
            warnings=[w for ev in evs for w in ev.warnings],
            settings=first.settings,
            names=first.names,
            paths={label: path for label, path in paths.items() if path},
        )
    )


def _relabel(ev, label: str):
    """``ev`` (one run) under ``label``: a second run with the same name is ``name_2``, as in evaluate."""
    import dataclasses

    old = ev.runs[0]
    if old == label:
        return ev
    # the one message that names the label rather than the run's tag
    before, after = (f"run {name!r}: no queries with both results and relevance info" for name in (old, label))
    return dataclasses.replace(
        ev,
        runs=[label],
        query_ids={label: ev.query_ids[old]},
        warnings=[after if w == before else w for w in ev.warnings],
        results=[dataclasses.replace(r, label=label) for r in ev.results],
        paths={label: path for path in [ev.paths.get(old)] if path},
    )
