"""Scoring many runs on every core: one process per core, the qrels encoded once and shared.

``ir-eval --jobs N`` (default: every core) hands each run file to a worker
process; the qrels are read and encoded once in the parent and inherited by
the workers (``fork``: shared, not copied, until written) or sent once to each
(``spawn``, where fork is not available).  Each worker reads its run, scores it
and returns trec_eval's output lines for it; the parent writes them in the
order the runs were given, as soon as each is due, so the output is
byte-identical to one process and memory holds a few runs' lines, never every
run at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

_STATE: dict = {}


@dataclass
class Scored:
    path: str
    lines: list
    warnings: list
    evaluated: bool  # some query had both results and judgments


def _init(qrels, measures, options, ranked, queries, summary) -> None:
    _STATE.update(qrels=qrels, measures=measures, options=options, ranked=ranked, queries=queries, summary=summary)


def _score(path: str) -> Scored:
    from .columns import read_columns
    from .evaluate import evaluate

    s = _STATE
    if s["ranked"]:
        from .readers import read_ranked_judgments

        run = read_ranked_judgments(path)[0]
    else:
        run = read_columns(path, "run")
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
    # submitted one by one rather than with pool.map, whose clean-up cancels the waiting futures:
    # Python 3.11's pool thread then fails with a traceback when it marks them broken
    futures = [pool.submit(_score, path) for path in paths]
    try:
        for future in futures:
            yield future.result()
    except BaseException:
        # Ctrl-C, a bad file, the output closed: stop the workers now rather than finish every run first
        # (the futures are not cancelled: the pool's own thread then marks every one broken, where
        # marking a cancelled one would fail in that thread with a traceback on stderr)
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False)
        raise
    pool.shutdown()
