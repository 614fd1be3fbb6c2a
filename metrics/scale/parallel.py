"""Scoring many runs on every core: one process per core, the qrels encoded once and shared.

``ir-eval --jobs N`` (default: every core) hands each run file to a worker
process; the qrels are read and encoded once in the parent and inherited by
the workers (``fork``: shared, not copied, until written) or sent once to each
(``spawn``, where fork is not available).  Each worker reads its run, scores it
and returns trec_eval's output for it, as one text; the parent writes them in
the order the runs were given, as soon as each is due, so the output is
byte-identical to one process and memory holds a few runs' output (two runs per
process are in flight), never every run at once.

One large run is scored in parts, query by query (:func:`score_part`,
:func:`merge`): a plain (not gzip) run file of at least :data:`SPLIT_BYTES`
bytes (``$IR_EVAL_SPLIT_BYTES``, or the ``split_bytes`` keyword of
:func:`score_runs`), with two processes or more to score it, is cut into byte
ranges, one per process (each range at least a quarter of the threshold).  A
range starts and ends at line boundaries moved forward to the next change of
query id, so that every range holds whole queries when the file lists each
query's lines together, as run files do.  Each task reads its range itself and
returns per-query values; the caller puts them in trec_eval's query order and
makes the summary ("all") values from them as one task would (``-c``'s missing
queries, ``num_q``, ``runid`` from the file's last line, ``gm_map``...).  When
the parts cannot give exactly the output of one task (a query id in two
ranges: a file not grouped by query, which may also hide a duplicate document;
a range that is not read by the fast reader: a bad line, extra columns,
invalid text), the run is scored again in one task, whose output and error
messages (file and line) are those of one process.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from typing import TYPE_CHECKING, Generator, Iterator, Optional

from metrics.engine.settings import Settings
from metrics.scale.parts import Scored, WorkerState, in_parts, partitions, score_part, split_threshold

if TYPE_CHECKING:
    import pandas as pd

    from metrics.io.table import Columns

_STATE: list[WorkerState] = []  # a worker process's state, set once by the pool's initializer
TASKS_PER_PROCESS = 2  # runs in flight per process: none waits for work, few results wait to be written


def _init(qrels, measures, settings: Settings, ranked, queries, summary) -> None:
    _STATE[:] = [state(qrels, measures, settings, ranked, queries, summary)]


def _init_worker(*args) -> None:
    """The pool's initializer: Python's own Ctrl-C (the process was forked while its parent held it),
    :func:`exit_with_parent`, then :func:`_init`."""
    import signal

    if callable(signal.getsignal(signal.SIGINT)):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    exit_with_parent()
    _init(*args)


def exit_with_parent() -> None:
    """In a pool's process: leave as soon as the process that started it is gone (killed, crashed, or
    left without shutting its pool down).  A pool's processes wait for work on a queue whose writing end
    each of them holds too, so they would otherwise wait for ever, each holding its memory."""
    import multiprocessing
    import threading

    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel  # ready once the parent has exited

    def watch() -> None:
        from multiprocessing.connection import wait

        wait([sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _score(path: str) -> Scored:
    return score_file(_STATE[0], path)


def _score_job(path: str, part: int, parts: int, width: Optional[int], before: Optional[list]):
    """A task of the pool: a whole run (``part`` < 0) or one range of it (:func:`score_part`)."""
    if part < 0:
        return score_file(_STATE[0], path)
    return score_part(_STATE[0], path, part, parts, width, before)


def state(qrels, measures, settings: Settings, ranked, queries, summary) -> WorkerState:
    """The :class:`WorkerState` of these, under ``settings`` (the one value every door builds)."""
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a metrics.Settings, not {type(settings).__name__}")
    return WorkerState(qrels, measures, settings, bool(ranked), bool(queries), bool(summary))


def score_file(s: WorkerState, path: str, source: str | None = None) -> Scored:
    """Read one run file (``source``, by default ``path``) and score it as ``ir-eval`` does, with the
    :func:`state` ``s``; the result names it ``path``."""
    from metrics.engine.evaluate import evaluate
    from metrics.io.columns import read_columns

    source = path if source is None else source
    run: pd.DataFrame | Columns  # the run of a ranked file as a frame, else its columns
    if s.ranked:
        from metrics.io.readers import read_ranked_judgments

        run = read_ranked_judgments(source)[0]
    else:
        run = read_columns(source, "run")
        if source != path:  # a warning names the file as given, not the path or copy read
            run.warnings = [f"{path}{w[len(source) :]}" if w.startswith(f"{source}: ") else w for w in run.warnings]
    from metrics.errors import NoSharedQueries

    try:
        ev = evaluate(s.qrels, run, s.measures, keep_names=False, settings=s.settings)
    except NoSharedQueries as exc:  # ir-eval says so once every run is scored (and exits with 2)
        ev = exc.evaluation
    label = ev.runs[0]
    return Scored(
        path,
        "".join(ev.trec_text(label, queries=s.queries, summary=s.summary)),
        list(ev.warnings),
        bool(ev.query_ids[label]),
    )


# ------------------------------------------------------------------------------ one run in parts


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def score_runs(
    qrels,
    paths,
    measures,
    settings: Settings,
    *,
    jobs: int,
    ranked: bool = False,
    queries: bool = False,
    summary: bool = True,
    split_bytes: Optional[int] = None,
    forked: bool = False,
) -> Generator[Scored, None, None]:
    """Score the run files ``paths`` in ``jobs`` processes; results in the order of ``paths``.

    ``qrels``: an encoded qrels (:func:`metrics.ranking.judged.encode_qrels`); ``settings``: trec_eval's
    options as one :class:`Settings`.  Reading errors are raised (:class:`metrics.InputError`) when their run is due.
    A run file of ``split_bytes`` or more (default :func:`split_threshold`) is scored in parts by up to
    ``jobs`` processes (see the module's docstring).  ``forked``: no pool is started; the runs are
    scored whole, shared between this process and ``jobs - 1`` copies of it forked now
    (:func:`metrics.scale.forked.in_order`: for a few small runs, which a pool costs more to start than
    they take to score), and a copy that fails or dies is made up for here, as one process does it.
    """
    if forked:
        _init(qrels, measures, settings, ranked, queries, summary)
        from metrics.scale.forked import in_order as shared

        yield from shared(list(paths), _score, jobs)
        return
    threshold = split_threshold(split_bytes)
    plans = [(path, path, partitions(path, jobs, threshold, ranked)) for path in paths] if jobs > 1 else []
    tasks = sum(parts for _, _, parts in plans)
    if jobs <= 1 or tasks <= 1:
        _init(qrels, measures, settings, ranked, queries, summary)
        yield from map(_score, paths)
        return
    # imported here: the command line asks default_jobs() on every call, and these cost more than scoring a small run
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    processes = min(jobs, tasks)
    pool = ProcessPoolExecutor(
        max_workers=processes,
        mp_context=context,
        initializer=_init_worker,
        initargs=(qrels, measures, settings, ranked, queries, summary),
    )
    # a window of tasks in flight rather than Executor.map, which submits every task at once: the results
    # that wait for an earlier, slower task are bounded, and none is cancelled if the work stops
    window = TASKS_PER_PROCESS * processes

    def in_order(todo: Iterator[tuple]) -> Iterator:
        from metrics.scale.forked import hold_ctrl_c

        with hold_ctrl_c():  # (the pool forks its processes at the first submit)
            pending = deque(pool.submit(_score_job, path, *rest) for path, _, *rest in itertools.islice(todo, window))
        while pending:
            result = pending.popleft().result()
            for path, _, *rest in itertools.islice(todo, 1):
                pending.append(pool.submit(_score_job, path, *rest))
            yield result

    def rescore(task: tuple):
        path, _, *rest = task
        return pool.submit(_score_job, path, *rest).result()

    from concurrent.futures.process import BrokenProcessPool

    from metrics.errors import WorkerDied

    s = state(qrels, measures, settings, ranked, queries, summary)
    written = 0  # runs whose scores were given out, in the order of paths
    try:
        try:
            for scored in in_parts(s, plans, in_order, rescore):
                yield scored
                written += 1
        except BrokenProcessPool:
            raise WorkerDied([str(p) for p in list(paths)[written:]]) from None
    except BaseException:
        # Ctrl-C, a bad file, the output closed: stop the workers now rather than finish every run first.
        # The pool then marks the runs in flight as broken; they are not cancelled first, as on Python
        # before 3.12 the pool's thread fails with a traceback on a cancelled one (CPython gh-107219).
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False)
        raise
    pool.shutdown()
