"""Scoring many runs on a Dask cluster: ``ir-eval --dask ADDRESS`` and ``Evaluator.evaluate(runs, client=...)``.

The qrels are read and encoded once by the caller and scattered once to every
worker (``broadcast=True``); each run is one task, read by a worker from the
path or URL it is given (``s3://...`` and the other fsspec protocols, which
come with dask), so the runs themselves never pass through the caller.  At most
a few tasks per worker thread are in flight at once and results are handed
back in the order the runs were given, each as soon as it is due: the caller
holds a bounded number of results however many runs there are, and the output
is byte for byte that of one process.

``ir-eval --dask`` scores a local run file of 64 MiB or more
(:data:`metrics.parallel.SPLIT_BYTES`, ``$IR_EVAL_SPLIT_BYTES``) in parts, one
per worker thread: each worker reads its byte range of the file (whole queries)
itself, and the caller merges the per-query values into the lines of one task
(:func:`metrics.parallel.merge`).  A URL is always one task (the worker copies
the object before reading it), and so is every run given to
``Evaluator.evaluate(runs, client=...)``.

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
import posixpath
import re
import shutil
import tempfile
from collections import deque
from collections.abc import Mapping
from typing import Callable, Iterable, Iterator
from urllib.parse import urlparse

from .errors import InputError
from .parallel import Scored, in_parts, partitions, score_file, score_part, split_threshold

__all__ = ["ENV", "INSTALL", "DaskUnavailable", "connect", "quiet_logs", "score_runs", "evaluate_on_cluster"]

ENV = "DASK_SCHEDULER_ADDRESS"
INSTALL = "pip install 'ir-workbench[dask]'"
TASKS_PER_THREAD = 2  # in flight per worker thread: keeps every worker busy, bounds what waits to be gathered
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
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), display) from None


def _score_task(state: dict, source: str, display: str, part: int = -1, parts: int = 1, width=None, before=None):
    """A run scored by a worker (``part`` < 0), or one byte range of it (:func:`metrics.parallel.score_part`)."""
    if part >= 0:
        return score_part(state, display, part, parts, width, before, source=source)
    with _named(display), _local(source) as local:
        return score_file(state, display, source=local)


def _evaluate_task(evaluator, source, display, label):
    """One run scored by a worker: (its Evaluation, whether the run carried a name of its own)."""
    from .columns import Columns, read_columns
    from .evaluate import _is_run

    if isinstance(source, (str, os.PathLike)):
        with _named(display), _local(os.fspath(source)) as local:
            run = read_columns(local, "run")
    elif _is_run(source):
        run = source
    else:  # PyTerrier's columns, dicts of dicts, records: converted as evaluate converts them
        from .readers import read_run

        run = read_run(source, label)
    named = bool(run.name if isinstance(run, Columns) else run.attrs.get("name"))
    ev = evaluator.evaluate({label: run} if label is not None else [run])
    return ev, named


def _where(source):
    """What a worker is sent for ``source``: URLs as they are, local paths made absolute (workers on
    other machines read them from shared storage mounted at the same place)."""
    if isinstance(source, (str, os.PathLike)) and not _is_url(source):
        return os.path.abspath(os.fspath(source))
    return source


def _in_order(client, task: Callable, shared, items: Iterable[tuple]) -> Iterator:
    """``task(shared, *item)`` on the cluster for every item, results in order, each yielded once due.

    A window of :data:`TASKS_PER_THREAD` tasks per worker thread is kept in flight: the workers never
    wait for the caller, and finished results waiting for an earlier one are bounded.  The window is
    refilled half at a time, by one ``Client.map`` (one message to the scheduler for many tasks,
    which costs it less than one per task).  The first error (a bad run file) is raised when its run
    is due, and the tasks in flight are cancelled."""
    threads = sum(client.nthreads().values()) or 1
    window = max(2, TASKS_PER_THREAD * threads)
    todo = iter(items)
    pending: deque = deque()
    batches = 0

    def refill() -> None:
        nonlocal batches
        batch = list(itertools.islice(todo, window - len(pending)))
        if batch:
            columns = zip(*[(shared, *item) for item in batch])
            pending.extend(client.map(task, *columns, pure=False, priority=-batches))
            batches += 1

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


def score_runs(client, state: dict, paths: list[str], split_bytes: int | None = None) -> Iterator[Scored]:
    """``ir-eval``'s lines for every run file in ``paths`` (paths or URLs), scored on the cluster of
    ``client``, in the order of ``paths``.  ``state``: :func:`metrics.parallel.state`, scattered once to
    every worker.  Reading errors are raised (:class:`metrics.InputError`) when their run is due.

    A local run file of ``split_bytes`` or more (default :func:`metrics.parallel.split_threshold`) is
    scored in parts, one per worker thread, each read by its worker from the file (the same path on
    every machine); the caller merges them (:mod:`metrics.parallel`).  URLs are one task each."""
    [shared] = client.scatter([state], broadcast=True, hash=False)
    threshold = split_threshold(split_bytes)
    threads = sum(client.nthreads().values())

    def runs() -> Iterator[tuple]:
        for path in paths:
            where = _where(path)
            parts = 1 if _is_url(where) else partitions(where, threads, threshold, state["ranked"])
            yield where, path, parts

    def rescore(task: tuple):
        future = client.submit(_score_task, shared, *task, pure=False)
        try:
            return future.result()
        finally:
            future.release()

    try:
        yield from in_parts(state, runs(), lambda tasks: _in_order(client, _score_task, shared, tasks), rescore)
    finally:
        _cancel(client, [shared])


def evaluate_on_cluster(evaluator, runs, client):
    """:meth:`metrics.Evaluator.evaluate` with every run scored on the cluster of ``client``.

    ``runs``: a list of paths, fsspec URLs (read by the workers) or run frames (sent to them), or a
    dict label -> one of these; one path, URL or frame alone is one run.  Labels and numbers are those
    of ``evaluator.evaluate(runs)``; the evaluator (encoded qrels and measures) is scattered once.
    """
    from .evaluate import Evaluation, _is_frame, _is_run
    from .inputs import is_single_run
    from .labels import unique_label

    # one run, several or a dict of them, told apart as evaluate tells them apart
    single = isinstance(runs, (str, os.PathLike)) or _is_run(runs) or is_single_run(runs)
    if single or type(runs).__module__.startswith("ranx"):
        runs = [runs]
    keyed = isinstance(runs, Mapping)
    runs = list(runs.items()) if keyed else list(runs)
    if runs and not keyed and not _is_frame(runs[0]) and hasattr(runs[0], "query_id"):
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

    try:
        results = list(_in_order(client, _evaluate_task, shared, (arguments(*item) for item in items)))
    finally:
        _cancel(client, [shared])
    # the labels evaluate would give: the key, else the run's name, else its position; made unique
    labels: list[str] = []
    for i, ((label, _), (ev, named)) in enumerate(zip(items, results)):
        base = str(label) if label is not None else (ev.runs[0] if named else f"run{i + 1}")
        labels.append(unique_label(base, set(labels)))
    evs = [_relabel(ev, label) for (ev, _), label in zip(results, labels)]
    first = evs[0]
    return Evaluation(
        runs=labels,
        measures=first.measures,
        query_ids={label: ev.query_ids[label] for ev, label in zip(evs, labels)},
        results=[r for ev in evs for r in ev.results],
        warnings=[w for ev in evs for w in ev.warnings],
        settings=first.settings,
        names=first.names,
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
    )
