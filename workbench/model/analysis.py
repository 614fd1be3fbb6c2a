"""Everything the window shows, computed in one go from qrels, runs and options.

Plain Python (no Qt).  :func:`compute` runs in a worker thread; the GUI thread
only looks results up (:class:`CurveTable`, :class:`Results`).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

import metrics
import metrics.engine.curves
import metrics.measures
import metrics.ranking.judged
from metrics.errors import Cancelled, InputError
from workbench.model import disk_runs, diversity, diversity_scores
from workbench.model.defaults import parse_each

# the views and the session name these through analysis, where the evaluation is made
from workbench.model.results import (  # noqa: F401
    MEAN,
    CurveTable,
    Request,
    Results,
    _wide_per_query,
    query_sort_key,
    sort_queries,
)
from workbench.model.workspace import merge_qrels

if TYPE_CHECKING:
    from metrics.engine.evaluation import Evaluation


def compute(request: Request, progress=None) -> Results:
    """Evaluate every run, and compute the curves the plots show.

    The returned ``Results.request`` holds the qrels as one frame.  With ``request.cache`` (a
    :class:`RunCache`), runs already scored with the same qrels and options are not scored again:
    adding a run to a hundred, or renaming one, scores only what changed.  ``progress(fraction)``
    hears of every run scored and stops the work (:class:`metrics.errors.Cancelled`) when it
    returns False.
    """
    if request.cache is None:  # a cache of this evaluation only: its worker processes stop with it
        cache = RunCache()
        try:
            return _measures_of_both(request, cache, progress)
        finally:
            cache.close()
    return _measures_of_both(request, request.cache, progress)


def _measures_of_both(request: Request, cache: RunCache, progress) -> Results:
    """The diversity measures against the intent qrels (:mod:`workbench.model.diversity`), the others here."""
    adhoc, wanted = diversity.split(request.measures)
    if wanted and request.intents is not None:
        return diversity_scores.compute(request, adhoc, wanted, cache, progress, _compute)
    return _compute(replace(request, measures=adhoc), cache, progress)


def _compute(request: Request, cache: RunCache, progress) -> Results:
    parts = request.qrels if isinstance(request.qrels, tuple) else (request.qrels,)
    request = replace(request, qrels=merge_qrels(parts))
    runs = dict(request.runs)
    spec = ndcg_variant(request.measures, dict(request.ndcg_options))
    measures, bad = parse_each(spec)
    if bad and not measures:
        raise ValueError("measures: " + "; ".join(bad))
    key = (tuple(spec), request.relevance_level, request.k_max, tuple(sorted(request.ndcg_options)))
    scored = cache.scored(parts, key)
    found = {label: scored.get(label, runs[label]) for label in runs}
    todo = [label for label, hit in found.items() if hit is None]
    step = _Steps(progress, len(todo) + 2)
    taken_over = request.taken_over or (lambda: None)
    if not (todo or not runs):
        taken_over()  # (every run kept from before: nothing to claim)
    failed: dict[str, str] = {}
    if todo or not runs:
        qrels = cache.encoded(parts, request.qrels)
        options = dict(
            relevance_level=request.relevance_level,
            k_max=request.k_max,
            ndcg_options=_changed_ndcg_options(dict(request.ndcg_options)),
        )
        on_disk = {label: runs[label] for label in todo if isinstance(runs[label], disk_runs.RunOnDisk)}
        # the processes read and score the runs on disk while this thread scores the runs held
        with _DiskScorer(cache.workers, qrels, on_disk, measures, options, scored, parts, step.check) as from_disk:
            taken_over()
            for label in todo:
                if label not in on_disk:
                    # each run's ranking is built once, for the measures and both kinds of curves
                    one = _score(qrels, label, runs[label], measures, options)
                    found[label] = one
                    scored.put(label, runs[label], one)
                    step()
            for label, outcome in from_disk:
                if isinstance(outcome, _Scored):
                    found[label] = outcome
                    scored.put(label, runs[label], outcome)
                else:
                    failed[label] = outcome
                step()
    done = [d for label, d in found.items() if d is not None and label not in failed]
    ev = _merge([d.evaluation for d in done]) if done else _score(qrels, None, None, measures, options).evaluation
    step()
    names = ev.measure_names()
    summary = ev.summary()
    names = [n for n in names if n in summary.columns]
    summary = summary.reindex(index=list(ev.runs), columns=names)
    coverage = {r: (len(ev.query_ids[r]), d.queries) for r, d in zip(ev.runs, done)}
    unscored = [r for r, (shared, _) in coverage.items() if shared == 0]
    summary.loc[unscored] = np.nan  # a mean over no query is not a score of 0
    ev.per_query  # the comparison's input, made here rather than on the GUI thread  # noqa: B018
    wide, query_ids = _wide_per_query(ev)
    step()
    return Results(
        request=request,
        evaluation=ev,
        summary=summary,
        per_query=wide,
        measures=names,
        runs=list(ev.runs),
        query_ids=query_ids,
        pr=CurveTable.from_blocks(b for d in done for b in d.pr),
        ndcg=CurveTable.from_blocks(b for d in done for b in d.atk),
        coverage=coverage,
        measure_errors=bad,
        failed=failed,
    )


def _score(qrels, label, run, measures, options: dict) -> _Scored:
    """One run scored in this thread (``run`` None: no run, for an evaluation of none)."""
    ev, pr, atk = metrics.engine.curves.evaluate_with_curves(
        qrels,
        {} if run is None else {label: run},
        measures,
        relevance_level=options["relevance_level"],
        kind="NDCG",
        k_max=options["k_max"],
        tidy=False,
        **options["ndcg_options"],
    )
    queries = 0 if run is None else int(run["query_id"].nunique())
    return _Scored(ev, pr, atk, queries)


class _DiskScorer:
    """Runs on disk read and scored by worker processes (:mod:`workbench.model.disk_runs`), started on
    entering; iterating yields ``(label, _Scored or the message of why its file cannot be read)`` as
    each is done.  A run already being scored for the same qrels and options (by the scoring done while
    files were read, which the evaluation supersedes) is awaited rather than scored again: ``scored``
    (:class:`_Scores`) shares the future.  Leaving gives the futures up: one that nothing else awaits is
    dropped if not started (Cancel), and kept in ``scored`` when it finishes otherwise."""

    def __init__(
        self,
        workers: disk_runs.Workers,
        qrels,
        runs: dict,
        measures,
        options: dict,
        scored: _Scores,
        parts=(),
        check=lambda: None,
    ):
        self.runs = runs
        self.futures: dict = {}
        self._scored = scored
        self._workers = workers
        self._check = check  # raises Cancelled when the evaluation is to stop
        state: list[str] = []

        def submit(label, run):
            early = disk_runs.take_early(label, run, parts, measures, options)  # scored since the window started
            if early is not None:
                return early
            if not state:  # the processes' state file: written once, and only if some run is not under way
                state.append(workers.state_file(dict(qrels=qrels, measures=measures, **options)))
            return workers.pool().submit(disk_runs.score, state[0], label, run.path, run.stat)

        self._submit = submit
        self._again: set[str] = set()  # runs sent again once their processes were stopped under them
        try:
            for label, run in runs.items():
                self.futures[self._scored.claim(label, run, submit)] = label
        except BaseException:  # (a broken pool) the runs claimed so far are given up
            self.__exit__()
            raise

    def __enter__(self) -> _DiskScorer:
        return self

    def __iter__(self):
        from concurrent.futures import FIRST_COMPLETED, wait

        from workbench.model.loading import describe_error

        pending = set(self.futures)
        while pending:
            # a tenth of a second at most between looks at Cancel: one run of millions of lines takes
            # its process many seconds
            done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            self._check()
            for future in done:
                again = self._send_again(future)
                if again is not None:
                    pending.add(again)
                else:
                    yield from self._outcomes([future], describe_error)

    def _send_again(self, future):
        """A new future for the run of ``future`` when the processes were stopped under it, once per run.

        Another evaluation's Cancel stops the processes (:meth:`__exit__`) when it gives up a run nothing
        else awaits *yet*: the evaluation superseding a scoring ahead may not have claimed the runs that
        scoring sent when the scoring stops them; the pool then fails every future it holds, this
        evaluation's too.  Those runs are sent to new processes rather than reported as failed (a run
        whose reading kills its process fails twice, and is reported then)."""
        from concurrent.futures.process import BrokenProcessPool

        label = self.futures[future]
        if future.cancelled() or not isinstance(future.exception(), BrokenProcessPool) or label in self._again:
            return None
        self._again.add(label)
        del self.futures[future]
        self._scored.release(label, future)
        again = self._scored.claim(label, self.runs[label], self._submit)
        self.futures[again] = label
        return again

    def _outcomes(self, done, describe_error):
        for future in done:
            label = self.futures[future]
            try:
                ev, pr, atk, queries = future.result()
            except (InputError, OSError, ValueError, UnicodeError, MemoryError) as exc:
                yield label, describe_error(self.runs[label].path, exc)
            else:
                yield label, _Scored(ev, pr, atk, queries)

    def __exit__(self, *exc) -> None:
        cancelled = bool(exc) and exc[0] is not None and issubclass(exc[0], Cancelled)
        if cancelled and any(f.running() and self._scored.sole_claim(label, f) for f, label in self.futures.items()):
            # cancelled while a process was scoring a run nothing else awaits: that process would go on
            # for as long as the run takes (a minute for seven million lines); the processes are stopped
            # (new ones start when next needed) and the pool fails its futures, awaited here before they
            # are given up (a future cancelled meanwhile cannot be failed: the pool's thread would raise)
            from concurrent.futures import wait

            self._workers.stop()
            wait(self.futures, timeout=1.0)
        for future, label in self.futures.items():
            self._scored.release(label, future)


@dataclass(frozen=True)
class _Scored:
    """One run scored: its one-run :class:`metrics.engine.evaluate.Evaluation`, its curve blocks, and the number
    of queries in the run (evaluated or not)."""

    evaluation: Evaluation
    pr: list
    atk: list
    queries: int


def _merge(evaluations: list):
    """One :class:`metrics.engine.evaluate.Evaluation` of the runs of several one-run evaluations, in order."""
    from metrics.engine.evaluation import Evaluation

    first = evaluations[0]
    return Evaluation(
        runs=[r for e in evaluations for r in e.runs],
        measures=first.measures,
        query_ids={r: q for e in evaluations for r, q in e.query_ids.items()},
        results=[x for e in evaluations for x in e.results],
        warnings=[w for e in evaluations for w in e.warnings],
        names=first.names,
        settings=first.settings,
    )


class _Scores:
    """The runs scored with one qrels and one set of options: label -> (weak reference to the run, _Scored);
    and the runs being scored in worker processes: label -> their future, shared by the evaluations that
    await it (:meth:`claim`, :meth:`release`)."""

    def __init__(self) -> None:
        self._runs: dict[str, tuple[weakref.ref, _Scored]] = {}
        self._pending: dict[str, list] = {}  # label -> [weak reference to the run, future, claims]
        self._lock = threading.Lock()

    def get(self, label: str, run) -> _Scored | None:
        with self._lock:
            hit = self._runs.get(label)
        return hit[1] if hit is not None and hit[0]() is run else None

    def put(self, label: str, run, scored: _Scored) -> None:
        with self._lock:
            self._runs[label] = (weakref.ref(run), scored)

    def claim(self, label: str, run, submit):
        """The future scoring ``run``: the one under way for it, else ``submit(label, run)``'s."""
        with self._lock:
            entry = self._pending.get(label)
            if entry is not None and entry[0]() is run and not entry[1].done():  # (a failed one is not shared)
                entry[2] += 1
                return entry[1]
            future = submit(label, run)
            entry = self._pending[label] = [weakref.ref(run), future, 1]
        future.add_done_callback(lambda f: self._settle(label, entry))
        return future

    def sole_claim(self, label: str, future) -> bool:
        """Whether ``future`` is claimed once only (by the one evaluation about to give it up)."""
        with self._lock:
            entry = self._pending.get(label)
            return entry is not None and entry[1] is future and entry[2] == 1

    def release(self, label: str, future) -> bool:
        """Give up a claimed future; the last claim dropped cancels it unless it has started.  Whether
        nothing is left running for it: False for a future under way that nothing awaits any more."""
        with self._lock:
            entry = self._pending.get(label)
            if entry is None or entry[1] is not future:
                return True
            entry[2] -= 1
            if entry[2] > 0:
                return True
            del self._pending[label]
        return future.cancel() or future.done()

    def _settle(self, label: str, entry: list) -> None:
        """A future done: its scores kept (those of a scoring given up while under way too)."""
        with self._lock:
            if self._pending.get(label) is entry:
                del self._pending[label]
        future, run = entry[1], entry[0]()
        if run is None or future.cancelled() or future.exception() is not None:
            return
        ev, pr, atk, queries = future.result()
        self.put(label, run, _Scored(ev, pr, atk, queries))


class RunCache:
    """What an evaluation keeps for the next one, shared by the evaluations of one window (thread-safe).

    For the two latest (qrels, options) it keeps every run's scores and curves, keyed by the run's
    label and the identity of its frame (a file read again is a new frame), and the encoded qrels:
    frames are never changed in place once loaded (:mod:`workbench.model.workspace`).
    """

    KEEP = 2  # sets of options kept: switching an option back and forth scores nothing again

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scores: dict[tuple, tuple[list, _Scores]] = {}
        self._encoded: tuple[list, object] | None = None
        self.diversity = diversity_scores.Scores()  # the runs scored with the diversity measures
        self.workers = disk_runs.workers()  # the processes that score runs on disk

    def close(self) -> None:
        """Stop the worker processes (the window closes)."""
        self.workers.shutdown()

    @staticmethod
    def _alive(refs: list, parts) -> bool:
        return len(refs) == len(parts) and all(ref() is part for ref, part in zip(refs, parts))

    def scored(self, parts, options: tuple) -> _Scores:
        """The scores kept for the qrels ``parts`` (frames) and ``options`` (made empty when new)."""
        key = (tuple(id(p) for p in parts), options)
        with self._lock:
            hit = self._scores.pop(key, None)
            if hit is None or not self._alive(hit[0], parts):
                hit = ([weakref.ref(p) for p in parts], _Scores())
            self._scores[key] = hit  # the latest last
            while len(self._scores) > self.KEEP:
                del self._scores[next(iter(self._scores))]
            return hit[1]

    def encoded(self, parts, qrels):
        """``qrels`` (the merged ``parts``) encoded for scoring, once while the parts are loaded."""
        with self._lock:
            if self._encoded is not None and self._alive(self._encoded[0], parts):
                return self._encoded[1]
        from metrics.engine.evaluate import encoded

        enc = encoded(qrels)
        with self._lock:
            self._encoded = ([weakref.ref(p) for p in parts], enc)
        return enc


class _Steps:
    def __init__(self, progress, total):
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self):
        self.done += 1
        self.check()

    def check(self) -> None:
        """Raise :class:`~metrics.errors.Cancelled` once the progress callback says to stop."""
        if self.progress is not None and self.progress(self.done / self.total) is False:
            from metrics.errors import Cancelled

            raise Cancelled("evaluation cancelled")


def _ndcg_defaults() -> dict:
    """trec_eval's nDCG options: the defaults registered with the ``ndcg_ext`` family."""
    return metrics.measures.FAMILIES["ndcg_ext"].options


def _same_option(a, b) -> bool:
    if str(a) == str(b):
        return True
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def _changed_ndcg_options(options: dict) -> dict:
    defaults = _ndcg_defaults()
    return {k: v for k, v in options.items() if v is not None and not (k in defaults and _same_option(defaults[k], v))}


def ndcg_variant(measures, options: dict) -> tuple[str, ...]:
    """The measures to compute when nDCG is asked for with non-default options.

    trec_eval's ``ndcg`` and ``ndcg_cut`` measures (whatever name asks for them: ``ndcg_cut.10``,
    ``nDCG@10``, ``NDCG``; the registry parses it) become the core's ``ndcg_ext`` with these options
    (``ndcg_ext_10(gain=exp)``), so the measure names say which variant a column holds.  nDCG with gain
    values or a relevance level of its own stays as asked.  With trec_eval's options (linear gain,
    log2(i + 1) discount, ideal from all judgments) the measures stay as given.
    """
    measures = tuple(measures or ())
    opts = _changed_ndcg_options(options)
    if not opts:
        return measures
    suffix = "(" + ",".join(f"{k}={v}" for k, v in sorted(opts.items())) + ")"
    out: list[str] = []
    for name in measures:
        try:
            parsed = metrics.parse_measures([name])
        except (ValueError, KeyError, TypeError):
            parsed = []
        plain = parsed and all(
            m.family in ("ndcg", "ndcg_cut")
            and m.rel is None
            and not m.options
            and (m.family != "ndcg" or not m.params)
            for m in parsed
        )
        if not plain:
            out.append(name)
            continue
        for m in parsed:
            out.append("ndcg_ext" + suffix if m.family == "ndcg" else f"ndcg_ext_{m.params[0]}{suffix}")
    return tuple(dict.fromkeys(out))
