"""Evaluate runs against qrels: per-query values, then aggregation.

The evaluator knows nothing about individual measures: it builds one
:class:`~metrics.ranking.judged.JudgedRanking` per run, asks each requested family
of the registry for its per-query values, and applies the family's aggregate.

Results are kept as numpy blocks, one per run; the tidy DataFrames of
:class:`Evaluation` are built from them when first asked for, so scoring
and printing trec_eval's output (``ir-eval``) import neither pandas nor
pyarrow.
"""

from __future__ import annotations

import itertools
import os
import sys
import warnings
from collections.abc import Iterator, Mapping

import numpy as np

from metrics.engine.evaluation import Evaluation, RunResult
from metrics.engine.settings import Settings, in_ndcg_variant
from metrics.errors import NoSharedQueries, checkpoint
from metrics.io.columns import read_columns
from metrics.io.labels import unique_label
from metrics.io.nested import is_nested_run, nested_columns, ranx_dict
from metrics.io.table import Columns
from metrics.measures import FAMILIES, NICKNAMES, Measure, parse_measures
from metrics.measures.names import as_name, foreign_name
from metrics.measures.registry import early_syntax
from metrics.ranking.judged import EncodedQrels, JudgedRanking, RunArrays, build_ranking, encode_qrels

__all__ = ["evaluate", "Evaluator", "labelled_runs", "resolve_settings"]


def written_names(measures) -> dict:
    """``{measure: name}`` for every measure asked for, in the order asked: the name as written where it is
    other than trec_eval's syntax or the canonical name (ir_measures' ``nDCG@10``, ranx's ``mrr@10``, measure
    objects), else the canonical name.  Results keep these names, and tables list the measures in this order."""
    if measures is None or isinstance(measures, Measure):
        return {}
    items = [measures] if isinstance(measures, str) or foreign_name(measures) else list(measures)
    renamed: dict = {}
    order: list = []
    for raw in items:
        item = as_name(raw)  # ir_measures' measure objects by their names
        if isinstance(item, Measure):
            order.append(item)
            continue
        if not isinstance(item, str):
            continue
        text = item.strip()
        with warnings.catch_warnings():  # told once, by the parse of the measures themselves
            warnings.simplefilter("ignore")
            found = parse_measures([raw])  # (an object is parsed as itself: no warning meant for a name)
        order += found
        head = text.partition(".")[0]
        if (head in FAMILIES or head in NICKNAMES) and early_syntax(text) is None:
            continue  # trec_eval syntax: its output names are the names
        if len(found) == 1 and str(found[0]) != text:
            renamed.setdefault(found[0], text)
    return {m: renamed.get(m, str(m)) for m in dict.fromkeys(order)}


def is_frame(x) -> bool:
    """Whether ``x`` is a DataFrame, without importing pandas (nothing is one before pandas is)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.DataFrame)


def as_qrels(qrels):
    """Qrels ready to encode: :class:`~metrics.io.columns.Columns` (a path is read into them, without
    pandas) or our qrels frame as they are; anything else users hold (PyTerrier or ranx frames,
    dicts of dicts, records, ranx Qrels) through the readers (:mod:`metrics.io.inputs`)."""
    if isinstance(qrels, (EncodedQrels, Columns)):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_columns(qrels, "qrels")
    if is_frame(qrels) and {"query_id", "doc_id", "relevance"} <= set(qrels.columns):
        return qrels
    nested = ranx_dict(qrels) or (qrels, "")
    if isinstance(nested[0], Mapping):  # {qid: {docid: grade}}, ranx's Qrels: numpy columns, no frame
        try:
            return nested_columns(nested[0], "qrels")
        except TypeError:
            pass  # not of that form: the readers say what is wrong
    from metrics.io.readers import read_qrels

    return read_qrels(qrels)


def is_run(x) -> bool:
    return isinstance(x, Columns) or (is_frame(x) and {"query_id", "doc_id", "score"} <= set(x.columns))


def as_runs(runs, columns: bool = False):
    """``runs`` as evaluate takes them: one run in any accepted form becomes a list of one; a list
    or dict of runs is converted run by run (lazily, in :func:`labelled_runs`).  ``columns``: a run
    held as a dict (or ranx's Run) becomes numpy columns rather than a frame (what :func:`evaluate`
    scores; the diversity measures read frames)."""
    if isinstance(runs, (str, os.PathLike, Columns)) or is_frame(runs):
        return [runs]
    if type(runs).__module__.startswith("ranx"):
        return [_read_run(runs, None, columns=columns)]
    if isinstance(runs, Mapping):
        if is_nested_run(runs):  # {qid: {docid: score}}, not a dict of runs
            return [_read_run(runs, None, columns=columns)]
        return {label: run for label, run in runs.items()}
    items = iter(runs)
    first = next(items, None)
    if first is None:
        return []
    if not is_run(first) and hasattr(first, "query_id"):  # records of one run (ScoredDoc...)
        return [_read_run(itertools.chain([first], items), None)]
    return _handed_over([first], items)


def _handed_over(first: list, rest):
    """The one item of ``first`` (taken out of the list), then those of ``rest``: nothing here keeps
    a run that has been given (``itertools.chain([run], ...)`` would keep the first one until the
    second is asked for)."""
    yield first.pop()
    yield from rest


def _read_run(source, label, columns: bool = False):
    """A run from a path (numpy columns when ``columns``) or any form :func:`metrics.read_run` takes."""
    if columns and isinstance(source, (str, os.PathLike)):
        return read_columns(source, "run", label)
    nested = ranx_dict(source) or (source, label or "")
    if columns and is_nested_run(nested[0]):  # pytrec_eval's and ranx's dicts: numpy columns, no frame
        return nested_columns(nested[0], "run", label or nested[1] or None)
    from metrics.io.readers import read_run

    return read_run(source, label)


def _run_name(run) -> str:
    if isinstance(run, Columns):
        return run.name
    return str(run.attrs.get("name") or "")


def labelled_runs(runs, *, columns: bool = False) -> Iterator[tuple[str, object]]:
    """Yield (unique label, run), checked, one run at a time.

    Runs are DataFrames, or with ``columns`` :class:`~metrics.io.columns.Columns` (paths are then read
    into columns; without it, columns given are made frames).  ``runs`` is consumed lazily and nothing
    is kept here, so a generator of runs is read one run at a time.
    """
    if is_frame(runs) or isinstance(runs, Columns):
        runs = [runs]
    keyed = isinstance(runs, Mapping)
    seen: set[str] = set()
    i = 0  # counted here: enumerate would hold the last item (in its reused result tuple)
    for item in runs.items() if keyed else runs:
        i += 1
        label, run = (str(item[0]), item[1]) if keyed else (None, item)
        del item
        if isinstance(run, Columns) and not columns:  # a door that reads frames: the columns made one
            from metrics.io.frames import frame_from_columns

            run = frame_from_columns(run)
        if not is_run(run):
            run = _read_run(run, label, columns)  # a path, PyTerrier's columns, a dict of dicts, records
        name = unique_label(label or _run_name(run) or f"run{i}", seen)
        seen.add(name)
        held = [run]
        del run
        # handed over: this frame keeps no reference while the consumer scores the run
        yield name, held.pop()


def evaluate(
    qrels,
    runs,
    measures=None,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs_in_coll: int = 0,
    keep_names: bool = True,
    settings: Settings | None = None,
) -> Evaluation:
    """Evaluate ``runs`` against ``qrels`` as trec_eval 10.0 does.

    ``qrels``: a path, a frame with columns query_id, doc_id, relevance, or any form
    :func:`metrics.read_qrels` takes.  ``runs``: a path or a run DataFrame (query_id, doc_id,
    score; ``attrs["name"]`` = run tag), a list or other iterable of them (labelled by their
    names, made unique) or a dict label -> run.  Runs are ranked one after the other and not
    kept: given a generator that reads them, only one run is in memory at a time.
    ``measures``: None for trec_eval's "official" set, or anything
    :func:`~metrics.parse_measures` accepts.  ``relevance_level`` (``-l``):
    minimum grade counted as relevant.  ``complete`` (``-c``): average over
    all qrels queries, scoring those missing from a run against trec_eval's
    placeholder ranking; otherwise they are skipped with a warning.
    ``max_docs`` (``-M``): ranks kept per query.  ``judged_only`` (``-J``):
    drop unjudged documents from the rankings.  ``num_docs_in_coll``
    (``-N``): documents in the collection, for ``utility``'s fourth
    coefficient (trec_eval's default is 0).  ``keep_names``: a measure asked
    for by an ir_measures or ranx name (``nDCG@10``, ``mrr@10``) keeps that
    name in the result frames (``ir-eval`` uses trec_eval's names instead).  ``settings``: all of these
    options as one :class:`~metrics.engine.settings.Settings` instead (the keywords are then left out).
    """
    chosen = resolve_settings(
        settings,
        relevance_level=relevance_level,
        complete=complete,
        max_docs=max_docs,
        judged_only=judged_only,
        num_docs_in_coll=num_docs_in_coll,
    )
    wanted = parse_measures(measures)
    shown = written_names(measures) if keep_names else {}
    return refuse_nothing_scored(_evaluate(encoded(qrels), runs, wanted, shown, chosen))


def refuse_nothing_scored(ev: Evaluation) -> Evaluation:
    """``ev``, unless no run of it has a query in common with the qrels: then
    :class:`~metrics.errors.NoSharedQueries` (an :class:`~metrics.errors.InputError`, ``ir-eval``'s exit 2),
    carrying ``ev``, rather than a mean over no query that reads as a score."""
    if ev.runs and all(not ev.query_ids[r] for r in ev.runs):
        runs = ("runs " if len(ev.runs) > 1 else "run ") + ", ".join(repr(r) for r in ev.runs)
        raise NoSharedQueries(
            f"no queries with both results and relevance info: no query of the qrels is in {runs}, so nothing "
            "was scored (check that both give the same query ids)",
            ev,
        )
    return ev


def resolve_settings(settings: Settings | None, **options) -> Settings:
    """``settings``, or the :class:`Settings` of trec_eval's keyword ``options`` (``relevance_level``,
    ``complete``, ...) when None.  Both given: a keyword that differs from its default is a mistake (which one
    would hold?) and is refused."""
    if settings is None:
        return Settings(**options)
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a metrics.Settings, not {type(settings).__name__}")
    default = Settings().trec_options()
    given = sorted(k for k, v in options.items() if v != default[k])
    if given:
        raise ValueError(f"give either settings= or {', '.join(given)}=, not both")
    return settings


def encoded(qrels) -> EncodedQrels:
    """The qrels encoded once for all the runs (a path's columns, read here, let go as they are encoded)."""
    read = isinstance(qrels, (str, os.PathLike))
    return encode_qrels(as_qrels(qrels), consume=read)


def _evaluate(enc: EncodedQrels, runs, wanted: list, shown: dict, settings: Settings, also=None) -> Evaluation:
    """The loop of :func:`evaluate`; ``also(label, ranking)``, if given, is called with each run's
    ranking before it is let go (curves computed from the same ranking as the measures)."""
    varied = in_ndcg_variant(wanted, settings)
    if varied != wanted:  # (an nDCG measure of another variant is named by that variant's own name)
        wanted, shown = varied, {m: name for m, name in shown.items() if m in varied}
    labels: list[str] = []
    warnings: list[str] = []
    results: list[RunResult] = []
    query_ids: dict[str, list[str]] = {}
    paths: dict[str, str] = {}
    options = settings.trec_options()
    for label, run in labelled_runs(as_runs(runs, columns=True), columns=True):
        labels.append(label)
        if isinstance(run, Columns):
            run_id = run.run_id or run.name or label
            warnings.extend(run.warnings)
            path = run.path
        else:
            attrs = getattr(run, "attrs", {})
            run_id = str(attrs.get("run_id", attrs.get("name", label)))
            path = attrs.get("path")
        if path:
            paths[label] = str(path)
        arrays = RunArrays(run)
        del run  # build_ranking lets each of the run's arrays go as soon as it is done with it
        ranking = build_ranking(enc, arrays, run_id=run_id, warnings=warnings, **options)
        del arrays
        checkpoint()
        results.append(_result(label, ranking, wanted, shown))
        if also is not None:
            also(label, ranking)
        del ranking
        query_ids[label] = results[-1].query_ids
        if not query_ids[label]:
            warnings.append(f"run {label!r}: no queries with both results and relevance info")
    return Evaluation(
        runs=labels,
        measures=wanted,
        query_ids=query_ids,
        results=results,
        warnings=warnings,
        names=dict(shown),
        settings=settings,
        paths=paths,
    )


def _result(label: str, ranking: JudgedRanking, wanted: list, shown: dict) -> RunResult:
    return result_of(label, ranking.query_ids.tolist(), compute(ranking, wanted), shown)


def result_of(label: str, qids: list, computed, shown: dict) -> RunResult:
    """A run's :class:`RunResult` from ``(measure, per-query values, aggregate)`` of each measure (in
    the order of ``computed``); ``shown``: the names measures are written with, where not their own."""
    names, columns, aggregates, texts = [], [], [], []
    for m, values, agg in computed:
        name = shown.get(m, str(m))
        if m.kind == "text":
            if FAMILIES[m.family].per_query:
                texts += [(q, name, v) for q, v in zip(qids, values)]
            if agg is not None:
                texts.append(("all", name, agg))
            continue
        names.append(name)
        columns.append(np.asarray(values, dtype=np.float64))
        aggregates.append(float(agg))
    values = np.vstack(columns).T if columns and qids else np.zeros((len(qids), len(names)))
    return RunResult(label, qids, names, values, aggregates, texts)


class Evaluator:
    """Qrels and measures fixed once; :meth:`evaluate` scores any number of runs, as often as asked.

    The qrels are encoded once (their distinct queries and documents and the
    sorted keys the runs are joined on), which is most of the work of scoring
    a small run, and the measure names are parsed once::

        ev = metrics.evaluator(qrels, ["map", "nDCG@10"])
        for path in run_files:
            print(ev.evaluate(path).summary())

    ``qrels`` is anything :func:`evaluate` takes; options are those of :func:`evaluate`.
    """

    def __init__(
        self,
        qrels,
        measures=None,
        *,
        relevance_level: int = 1,
        complete: bool = False,
        max_docs: int | None = None,
        judged_only: bool = False,
        num_docs_in_coll: int = 0,
        settings: Settings | None = None,
    ):
        self.settings = resolve_settings(
            settings,
            relevance_level=relevance_level,
            complete=complete,
            max_docs=max_docs,
            judged_only=judged_only,
            num_docs_in_coll=num_docs_in_coll,
        )
        self.measures = parse_measures(measures)
        self.names = written_names(measures)
        self.qrels = encoded(qrels)

    def evaluate(self, runs) -> Evaluation:
        """Score ``runs`` (a path, a run frame, a list of them or a dict label -> run), as :func:`evaluate` does.

        The public :class:`metrics.Evaluator` (:mod:`metrics.scale.evaluator`) also scores them on a Dask
        cluster; the evaluator itself knows nothing of scaling out."""
        return refuse_nothing_scored(_evaluate(self.qrels, runs, self.measures, self.names, self.settings))


def is_true(text) -> bool:
    if str(text).strip().lower() not in ("true", "false"):
        raise ValueError(f"judged_only must be true or false, not {text!r}")
    return str(text).strip().lower() == "true"


def compute(ranking: JudgedRanking, wanted: list[Measure]):
    """Yield (measure, per-query values, aggregate value) in ``wanted`` order."""
    groups: dict[tuple, list[Measure]] = {}
    for m in wanted:
        fam = FAMILIES[m.family]
        key = (m.family, m.rel, m.options, None if fam.params.expands else m.params)
        groups.setdefault(key, []).append(m)
    by_level: dict[int, JudgedRanking] = {ranking.relevance_level: ranking}
    judged_views: dict[int, JudgedRanking] = {}
    results: dict[Measure, tuple] = {}
    for (family, rel, options, params), members in groups.items():
        fam = FAMILIES[family]
        r = ranking
        if rel is not None:
            r = by_level.get(rel) or by_level.setdefault(rel, ranking.with_relevance_level(rel))
        options = dict(options)
        if is_true(options.pop("judged_only", "false")):  # a measure of its own ranking (ir_measures' judged_only)
            r = judged_views.get(r.relevance_level) or judged_views.setdefault(r.relevance_level, r.judged_only_view())
        if fam.params.expands:
            cutoffs = tuple(sorted({m.params[0] for m in members}))
            values = fam.compute(r, cutoffs, dict(options))
            for m in members:
                v = values[:, cutoffs.index(m.params[0])]
                results[m] = (v, fam.aggregate(v, r))
        else:
            v = fam.compute(r, params, dict(options))
            results[members[0]] = (v, fam.aggregate(v, r))
            for m in members[1:]:
                results[m] = results[members[0]]
        r.memo.sweep()  # what this family did not use, the next ones are unlikely to need
        checkpoint()  # (Cancel in the window is heard between families)
    for m in wanted:
        yield (m, *results[m])
