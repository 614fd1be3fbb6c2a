"""Scoring many runs on every core: one process per core, the qrels encoded once and shared.

``ir-eval --jobs N`` (default: every core) hands each run file to a worker
process; the qrels are read and encoded once in the parent and inherited by
the workers (``fork``: shared, not copied, until written) or sent once to each
(``spawn``, where fork is not available).  Each worker reads its run, scores it
and returns trec_eval's output lines for it; the parent writes them in the
order the runs were given, as soon as each is due, so the output is
byte-identical to one process and memory holds a few runs' lines (two runs per
process are in flight), never every run at once.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from dataclasses import dataclass
from typing import Iterator

_STATE: dict = {}
TASKS_PER_PROCESS = 2  # runs in flight per process: none waits for work, few results wait to be written


@dataclass
class Scored:
    path: str
    lines: list
    warnings: list
    evaluated: bool  # some query had both results and judgments


def _init(qrels, measures, options, ranked, queries, summary) -> None:
    _STATE.update(state(qrels, measures, options, ranked, queries, summary))


def _score(path: str) -> Scored:
    return score_file(_STATE, path)


def state(qrels, measures, options, ranked, queries, summary) -> dict:
    """What every worker needs to score a run file: sent once (inherited here, scattered by Dask)."""
    return dict(qrels=qrels, measures=measures, options=options, ranked=ranked, queries=queries, summary=summary)


def score_file(s: dict, path: str, source: str | None = None) -> Scored:
    """Read one run file (``source``, by default ``path``) and score it as ``ir-eval`` does, with the
    :func:`state` ``s``; the result names it ``path``."""
    from .columns import read_columns
    from .evaluate import evaluate

    source = path if source is None else source
    if s["ranked"]:
        from .readers import read_ranked_judgments

        run = read_ranked_judgments(source)[0]
    else:
        run = read_columns(source, "run")
    ev = evaluate(s["qrels"], run, s["measures"], keep_names=False, **s["options"])
    label = ev.runs[0]
    return Scored(
        path,
        ev.trec_lines(label, queries=s["queries"], summary=s["summary"]),
        list(ev.warnings),
        bool(ev.query_ids[label]),
    )


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def score_runs(
    qrels,
    paths,
    measures,
    options: dict,
    *,
    jobs: int,
    ranked: bool = False,
    queries: bool = False,
    summary: bool = True,
) -> Iterator[Scored]:
    """Score the run files ``paths`` in ``jobs`` processes; results in the order of ``paths``.

    ``qrels``: an encoded qrels (:func:`metrics.ranking.encode_qrels`); ``options``: those of
    :func:`metrics.evaluate`.  Reading errors are raised (:class:`metrics.InputError`) when their run is due.
    """
    if jobs <= 1 or len(paths) <= 1:
        _init(qrels, measures, options, ranked, queries, summary)
        yield from map(_score, paths)
        return
    # imported here: the command line asks default_jobs() on every call, and these cost more than scoring a small run
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(paths)),
        mp_context=context,
        initializer=_init,
        initargs=(qrels, measures, options, ranked, queries, summary),
    )
    # a window of runs in flight rather than Executor.map, which submits every run at once: the results
    # that wait for an earlier, slower run are bounded, and none is cancelled if the work stops
    window = TASKS_PER_PROCESS * min(jobs, len(paths))
    todo = iter(paths)
    pending = deque(pool.submit(_score, path) for path in itertools.islice(todo, window))
    try:
        while pending:
            scored = pending.popleft().result()
            for path in itertools.islice(todo, 1):
                pending.append(pool.submit(_score, path))
            yield scored
    except BaseException:
        # Ctrl-C, a bad file, the output closed: stop the workers now rather than finish every run first.
        # The pool then marks the runs in flight as broken; they are not cancelled first, as on Python
        # before 3.12 the pool's thread fails with a traceback on a cancelled one (CPython gh-107219).
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False)
        raise
    pool.shutdown()
