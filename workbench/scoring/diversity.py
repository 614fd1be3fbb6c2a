"""The diversity measures scored by the window's scoring service (plain Python, no Qt): each run against the
intent qrels as :func:`metrics.evaluate_diversity` scores it, under the same keys and kept as the ad hoc
runs are, and their values joined to those of the ad hoc measures as one
:class:`workbench.scoring.results.Results` (see :mod:`workbench.scoring.intents`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

import metrics
from metrics.engine.settings import MeasureSet, Settings
from metrics.errors import Cancelled
from metrics.ranking.qrels_index import as_columns
from workbench.scoring.defaults import SETTINGS
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.scoring.service import ScoreKey, as_done, frame_digest, run_identity

if TYPE_CHECKING:
    from metrics.engine.evaluation import RunResult
    from metrics.engine.intents import DiversityEvaluation
    from workbench.scoring.results import KeptScores


@dataclass(frozen=True)
class _Scored:
    """One run scored with the diversity measures: its values, warnings, and the queries of the run."""

    result: RunResult
    warnings: tuple
    queries: int


#: the kind of judgments the diversity measures' scores are kept under (:meth:`RunCache.kept`)
KIND = "intents"


def _source(run):
    """What :func:`metrics.evaluate_diversity` reads for a run of the workspace (a run on disk: its file)."""
    return run.path if isinstance(run, RunOnDisk) else run


def _bad_names(names) -> dict[str, str]:
    """The names :func:`metrics.evaluate_diversity` refuses -> why (each name on its own: one bad name among
    several does not stop the others from being computed)."""
    empty = pd.DataFrame({c: pd.Series([], dtype=str) for c in ("query_id", "intent", "doc_id")})
    empty["relevance"] = pd.Series([], dtype=np.int64)
    bad = {}
    for name in names:
        try:
            metrics.evaluate_diversity(empty, {}, [name])
        except ValueError as exc:
            bad[name] = str(exc)
    return bad


def score(
    intents: pd.DataFrame,
    runs: dict,
    names: tuple,
    cache: KeptScores,
    check=lambda: None,
    settings: Settings = SETTINGS,
    identities: Mapping | None = None,
):
    """Score ``runs`` (label -> frame or run on disk) with the diversity ``names`` against ``intents``
    under ``settings`` (a document relevant to an intent from their grade on, for the names that set no
    ``rel``, and their ``complete``: :func:`metrics.engine.intents.evaluate_diversity`'s).

    Each run is scored by ``cache``'s scoring service (:class:`workbench.scoring.service.ScoringService`),
    in its thread (a run on disk is read there), under a :class:`~workbench.scoring.service.ScoreKey` as
    an ad hoc run is: the run's identity, the intent qrels' (``("intents", digest)``), the settings and the
    names; the scores are kept for the next evaluation as the ad hoc ones are (``cache.kept``), so adding
    a run to a hundred scores one run.

    Returns (the :class:`metrics.engine.intents.DiversityEvaluation` of the runs that could be read, in order,
    or None when no name is one of a measure; the names refused, with why; the runs whose file could
    not be read -> why; label -> queries in the run).  ``check()`` raises
    :class:`metrics.errors.Cancelled` to stop (a tenth of a second at most apart while runs are scored).
    ``identities``: the identity of the intent qrels (key ``None``) and of each run held in memory (its
    label); digests of their content where not given."""
    from metrics.engine.intents import diversity_settings, intent_scoring

    try:
        settings = diversity_settings(settings)
    except ValueError as err:  # (-M, -J or -N in use: no diversity measure can be scored)
        return None, [f"{name!r}: {err}" for name in names], {}, {}
    refused = _bad_names(names)
    bad = [f"{name!r}: {why}" for name, why in refused.items()]
    good = tuple(n for n in names if n not in refused)
    if not good:
        return None, bad, {}, {}
    service = cache.service
    known = dict(identities or {})
    source = ("intents", known.get(None) or frame_digest(intents, ("query_id", "intent", "doc_id", "relevance")))
    asked = MeasureSet(good)
    ready = service.derived((source, settings, asked), lambda: intent_scoring(intents, good, settings))
    kept = cache.kept(source, settings, asked, KIND)
    keys = {
        label: ScoreKey(label, run_identity(run, known.get(label)), source, settings, asked)
        for label, run in runs.items()
    }
    lease = service.lease()  # what this evaluation waits for, given up when it ends
    futures: dict[Future, str] = {}
    found: dict[str, _Scored] = {}
    failed: dict[str, str] = {}
    try:
        for label, run in runs.items():
            work = functools.partial(_score_one, ready, label, run)
            futures[lease.submit(keys[label], here=work)] = label
        for label, outcome, _ in as_done(futures, runs, check):
            if isinstance(outcome, str):  # a run that cannot be read: on its own
                failed[label] = outcome
                kept.drop(label)
            else:
                found[label] = outcome
        check()
    finally:
        for future, label in futures.items():  # what was scored is kept (also when cancelled), the rest let go
            if future.done() and not future.cancelled() and future.exception() is None:
                kept.keep(label, keys[label], future)
        lease.close()
    kept.only(runs)
    template = ready.evaluate({})  # (an evaluation of no run names the measures)
    labels = [label for label in runs if label not in failed]
    merged = replace(
        template,
        runs=labels,
        query_ids={label: list(found[label].result.query_ids) for label in labels},
        results=[found[label].result for label in labels],
        warnings=[w for label in labels for w in found[label].warnings],
    )
    return merged, bad, failed, {label: found[label].queries for label in labels}


def _score_one(ready, label: str, run) -> _Scored:
    """One run scored with the prepared intent qrels and measures (in the scoring service's thread)."""
    return _scored(ready.evaluate({label: _source(run)}), label, run)


def _scored(ev, label: str, run) -> _Scored:
    result = ev.result(label)
    warnings = tuple(w for w in ev.warnings if w.startswith(f"run {label!r}:"))
    queries = len(result.query_ids) if isinstance(run, RunOnDisk) else as_columns(run, "run").query_count()
    return _Scored(result, warnings, queries)


# ----------------------------------------------------------------------------------- the results


@dataclass(frozen=True, eq=False)
class WithDiversity(metrics.Evaluation):
    """The ad hoc evaluation and the diversity evaluation of the same runs as one
    :class:`metrics.Evaluation`: its frames (``per_query``, ``aggregate``), which the comparison with
    the baseline and the exports read, hold the values of both; ``diversity`` is the diversity one."""

    diversity: DiversityEvaluation | None = None  # (a default: the fields of Evaluation before it have some)

    def measure_names(self) -> list[str]:
        extra = self.diversity.measure_names() if self.diversity is not None else []
        return super().measure_names() + extra


def compute(request, adhoc: tuple, wanted: tuple, cache, progress, score_adhoc):
    """The evaluation of ``request`` with diversity measures ``wanted`` (its ``intents`` loaded): the ad hoc
    measures ``adhoc`` by ``score_adhoc(request, cache, progress)`` when there are ad hoc judgments, then
    the diversity measures of the same runs (those the ad hoc scoring could read), as one
    :class:`workbench.scoring.results.Results`."""
    from workbench.scoring import results as made

    parts = request.qrels if isinstance(request.qrels, tuple) else (request.qrels,)
    parts = tuple(p for p in parts if p is not None)
    base = None
    if parts and adhoc:
        base = score_adhoc(replace(request, measures=adhoc), cache, _part(progress, 0.0, 0.8))
    runs = dict(request.runs)
    if base is not None:
        runs = {label: run for label, run in runs.items() if label not in base.failed}

    def check() -> None:
        if progress is not None and progress(0.9 if base is not None else 0.5) is False:
            raise Cancelled("evaluation cancelled")

    known = {**dict(request.identities or {}), None: request.intents_identity}
    dev, bad, failed, queries = score(request.intents, runs, wanted, cache, check, request.settings, known)
    return _combine(made, request, base, dev, bad, failed, queries)


def _part(progress, start: float, end: float):
    if progress is None:
        return None
    return lambda fraction: progress(start + (end - start) * max(0.0, min(1.0, fraction)))


def _combine(made, request, base, dev, bad, failed, queries):
    if dev is None:  # no diversity name is a measure: the ad hoc results, with the names refused
        if base is None:
            raise ValueError("measures: " + "; ".join(bad))
        return replace(base, measure_errors=base.measure_errors + bad)
    names = list(dev.measure_names())
    summary = dev.summary().reindex(index=list(dev.runs), columns=names)
    unscored = [r for r in dev.runs if not dev.query_ids[r]]
    summary.loc[unscored] = np.nan  # a mean over no query is not a score of 0
    dev.per_query  # made here rather than on the GUI thread  # noqa: B018
    wide, query_ids = made._wide_per_query(dev)
    if base is None:
        # (the drill-down shows each document's best grade over the query's intents)
        best = request.intents.groupby(["query_id", "doc_id"], sort=False)["relevance"].max().reset_index()
        return made.Results(
            request=replace(request, qrels=best),
            evaluation=dev,
            summary=summary,
            per_query=wide,
            measures=names,
            runs=list(dev.runs),
            query_ids=query_ids,
            pr=made.CurveTable.from_blocks([]),
            ndcg=made.CurveTable.from_blocks([]),
            coverage={r: (len(dev.query_ids[r]), queries[r]) for r in dev.runs},
            measure_errors=bad,
            failed=failed,
        )
    adhoc = base.evaluation
    runs = [r for r in adhoc.runs if r in set(dev.runs)]
    ev = WithDiversity(
        runs=runs,
        measures=adhoc.measures,
        query_ids={r: adhoc.query_ids[r] for r in runs},
        results=[x for r in runs for x in (adhoc.result(r), dev.result(r))],
        # (the same queries skipped by both are said once)
        warnings=list(adhoc.warnings)
        + [w.replace(" qrels quer", " intent qrels quer", 1) for w in dev.warnings if w not in adhoc.warnings],
        settings=adhoc.settings,
        names=adhoc.names,
        diversity=dev,
    )
    ev.per_query  # noqa: B018
    return replace(
        base,
        request=replace(request, qrels=base.request.qrels),
        evaluation=ev,
        summary=pd.concat([base.summary.reindex(index=runs), summary.reindex(index=runs)], axis=1),
        per_query={**{m: f[runs] for m, f in base.per_query.items()}, **{m: f[runs] for m, f in wide.items()}},
        measures=list(base.measures) + names,
        runs=runs,
        query_ids=made.sort_queries(set(base.query_ids) | set(query_ids)),
        coverage={r: base.coverage[r] for r in runs if r in base.coverage},
        measure_errors=base.measure_errors + bad,
        failed={**base.failed, **failed},
    )
