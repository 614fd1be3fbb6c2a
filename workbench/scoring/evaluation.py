"""Everything the window shows, computed in one go from qrels, runs and options.

Plain Python (no Qt).  :func:`compute` runs in a worker thread; the GUI thread
only looks results up (:class:`CurveTable`, :class:`Results`).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

import metrics
import metrics.engine.curves
import metrics.measures
import metrics.ranking.judged
from metrics.engine.settings import MeasureSet, Settings
from metrics.ranking.qrels_index import as_columns
from workbench.scoring import disk_runs
from workbench.scoring import diversity as diversity_scores
from workbench.scoring import intents as diversity
from workbench.scoring.body import Scored, score
from workbench.scoring.defaults import parse_each

# the views and the session name these through analysis, where the evaluation is made
from workbench.scoring.results import (  # noqa: F401
    MEAN,
    CurveTable,
    Request,
    Results,
    _wide_per_query,
    query_sort_key,
    sort_queries,
)
from workbench.scoring.service import (
    Lease,
    ScoreKey,
    ScoringService,
    as_done,
    qrels_identity,
    run_identity,
    submit_on_disk,
)

if TYPE_CHECKING:
    from metrics.io.table import Columns


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
    if not isinstance(request.cache, RunCache):
        raise TypeError(f"Request.cache is a RunCache, not {type(request.cache).__name__}")
    return _measures_of_both(request, request.cache, progress)


def score_ahead(request: Request, lease: Lease) -> Lease:
    """Submit the runs of ``request`` (with its ad hoc measures) to ``lease``'s scoring service without
    waiting for them: the evaluation that follows asks for the same keys and finds them under way or done."""
    adhoc, _ = diversity.split(request.measures)
    parts = request.qrels if isinstance(request.qrels, tuple) else (request.qrels,)
    spec = ndcg_variant(adhoc, request.settings.ndcg_options())
    measures, bad = parse_each(spec)
    if bad and not measures:
        return lease  # (the evaluation says what is wrong)
    merged = replace(request, qrels=merge_qrels(parts), measures=adhoc)
    scoring = Scoring(lease.service, merged, parts, spec, measures)
    for label, run in request.runs.items():
        scoring.submit(lease, label, run)
    return lease


def _measures_of_both(request: Request, cache: RunCache, progress) -> Results:
    """The diversity measures against the intent qrels (:mod:`workbench.scoring.intents`), the others here."""
    adhoc, wanted = diversity.split(request.measures)
    if wanted and request.intents is not None:
        return diversity_scores.compute(request, adhoc, wanted, cache, progress, _compute)
    return _compute(replace(request, measures=adhoc), cache, progress)


def _compute(request: Request, cache: RunCache, progress) -> Results:
    parts = request.qrels if isinstance(request.qrels, tuple) else (request.qrels,)
    request = replace(request, qrels=merge_qrels(parts))
    runs = dict(request.runs)
    spec = ndcg_variant(request.measures, request.settings.ndcg_options())
    measures, bad = parse_each(spec)
    if bad and not measures:
        raise ValueError("measures: " + "; ".join(bad))
    scoring = Scoring(cache.service, request, parts, spec, measures)
    kept = cache.kept(scoring.qrels_id, request.settings, scoring.measure_set)
    step = _Steps(progress, len(runs) + 2)
    found: dict[str, Scored] = {}
    failed: dict[str, str] = {}
    lease = cache.service.lease()  # what this evaluation waits for, given up when it ends
    futures: dict[Future, str] = {}
    try:
        futures.update((scoring.submit(lease, label, run), label) for label, run in runs.items())
        for label, outcome, _ in as_done(futures, runs, step.check):
            if isinstance(outcome, Scored):
                found[label] = outcome
            else:
                failed[label] = outcome
                kept.drop(label)
            step()
    finally:
        for future, label in futures.items():  # what was scored is kept (also when cancelled), the rest let go
            if future.done() and not future.cancelled() and future.exception() is None:
                kept.keep(label, scoring.key(label, runs[label]), future)
        lease.close()
    kept.only(runs)  # (runs gone from the workspace, or read again: their old scores are let go)
    found = {label: found[label] for label in runs if label in found}
    done = list(found.values())
    ev = _merge([d.evaluation for d in done]) if done else scoring.empty().evaluation
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


class Scoring:
    """The runs of one request as the scoring service takes them: each run's :class:`ScoreKey`, and its
    work (a run held: scored in the service's thread; a run on disk: read and scored by a worker process)."""

    def __init__(self, service: ScoringService, request: Request, parts: tuple, spec, measures) -> None:
        self.service = service
        self.request = request  # (its qrels merged)
        self.settings = request.settings
        self.measures = measures  # parsed, or None: the default set
        self.measure_set = MeasureSet(tuple(spec))
        self.qrels_id = qrels_identity(parts, request.qrels_identity)
        self._identities = dict(request.identities or {})

    def key(self, label: str, run) -> ScoreKey:
        identity = run_identity(run, self._identities.get(label))
        return ScoreKey(label, identity, self.qrels_id, self.settings, self.measure_set)

    def encoded(self):
        from metrics.engine.evaluate import encoded

        return self.service.encoded(self.qrels_id, lambda: encoded(self.request.qrels))

    def submit(self, lease: Lease, label: str, run) -> Future:
        """The future of ``run``'s :class:`~workbench.scoring.body.Scored` (a run on disk scored by a worker
        process, :func:`workbench.scoring.disk_runs.score`), held by ``lease``."""
        key = self.key(label, run)
        if isinstance(run, disk_runs.RunOnDisk):
            return submit_on_disk(lease, key, run, self.measures, self.encoded)
        return lease.submit(  # (a frame given: its columns, as a file's are read)
            key, here=lambda: score(self.encoded(), label, as_columns(run, "run"), self.measures, self.settings)
        )

    def empty(self) -> Scored:
        """An evaluation of no run (the measures' names, for a table of none)."""
        return score(self.encoded(), "", None, self.measures, self.settings)


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


class RunCache:
    """What the evaluations of one window share (thread-safe): the :class:`~workbench.scoring.service.ScoringService`
    that scores every run, and the scores kept for the next evaluation.

    For the two latest (qrels, settings, measures) a :class:`_Kept` lease holds the key of every run scored,
    so that adding a run to a hundred, renaming one or switching an option back and forth scores only
    what changed; a run read again is a new key, and its old scores are let go.
    """

    KEEP = 2  # sets of (qrels, settings, measures) kept, of each kind of judgments (ad hoc qrels, intent qrels)

    def __init__(self, service: ScoringService | None = None) -> None:
        self._lock = threading.Lock()
        self.service = service if service is not None else ScoringService()
        self._kept: dict[tuple, _Kept] = {}

    @property
    def workers(self) -> disk_runs.Workers:
        return self.service.workers

    def close(self) -> None:
        """Stop the scoring (the window closes)."""
        with self._lock:
            kept, self._kept = list(self._kept.values()), {}
        for k in kept:
            k.lease.close()
        self.service.close()

    def kept(self, qrels_id, settings: Settings, measures: MeasureSet, kind: str = "qrels") -> _Kept:
        """The scores kept for these qrels, settings and measures (made empty when new; the latest last);
        ``kind``: what the measures are judged against (``"qrels"``, or ``"intents"`` for the diversity
        measures: :mod:`workbench.scoring.diversity`), the latest :data:`KEEP` of each kept."""
        key = (kind, qrels_id, settings, measures)
        with self._lock:
            hit = self._kept.pop(key, None) or _Kept(self.service.lease())
            self._kept[key] = hit
            same = [k for k in self._kept if k[0] == kind]
            for old in same[: max(0, len(same) - self.KEEP)]:
                self._kept.pop(old).lease.close()
            return hit


class _Kept:
    """The scores kept of one (qrels, settings, measures): the key of each run's label."""

    def __init__(self, lease: Lease) -> None:
        self.lease = lease
        self._lock = threading.Lock()
        self._labels: dict[str, ScoreKey] = {}

    def keep(self, label: str, key: ScoreKey, future) -> None:
        with self._lock:
            old = self._labels.get(label)
            self._labels[label] = key
        self.lease.hold(key, future)
        if old is not None and old != key:
            self.lease.release(old)

    def drop(self, label: str) -> None:
        with self._lock:
            key = self._labels.pop(label, None)
        if key is not None:
            self.lease.release(key)

    def only(self, labels) -> None:
        """Let go of the runs not among ``labels``, and those whose run is another one now."""
        with self._lock:
            gone = [(label, key) for label, key in self._labels.items() if label not in labels]
            for label, _ in gone:
                del self._labels[label]
        for _, key in gone:
            self.lease.release(key)


class _Steps:
    """The progress of an evaluation, one step per run scored, and Cancel looked at between steps."""

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


def ndcg_variant(measures, options: dict) -> tuple[str, ...]:
    """The names of ``measures`` as the nDCG variant of ``options`` (gain, discount, base, ideal; None or
    trec_eval's value: trec_eval's) computes them: a name of trec_eval's ``ndcg`` or ``ndcg_cut``
    (``ndcg_cut.10``, ``nDCG@10``, ``NDCG``) becomes the ``ndcg_ext`` measure's (``ndcg_ext_10(gain=exp)``),
    so that a column says which variant it holds; the rule is the core's
    (:func:`metrics.engine.settings.in_ndcg_variant`), applied name by name.  A name that also asks for
    other measures (a set) stays as given: the core varies its nDCG measures when it scores them."""
    from metrics.engine.settings import Settings, in_ndcg_variant

    settings = Settings().with_ndcg(options)
    measures = tuple(measures or ())
    if not settings.ndcg_options():
        return measures
    out: list[str] = []
    for name in measures:
        try:
            parsed = metrics.parse_measures([name])
        except (ValueError, KeyError, TypeError):
            parsed = []
        varied = in_ndcg_variant(parsed, settings)
        every = parsed and all(m.family == "ndcg_ext" for m in varied) and varied != parsed
        out += [str(m) for m in varied] if every else [name]
    return tuple(dict.fromkeys(out))


def merge_qrels(parts) -> Columns:
    """One qrels from several (columns); for a (query, document) judged twice, the later part wins."""
    from metrics.io.table import merged_qrels

    return merged_qrels([as_columns(p, "qrels") for p in parts])
