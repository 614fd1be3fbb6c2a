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

import functools
import itertools
import math
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from metrics.errors import checkpoint
from metrics.io.columns import read_columns
from metrics.io.ids import shown
from metrics.io.labels import unique_label
from metrics.io.table import Columns
from metrics.measures import FAMILIES, NICKNAMES, Measure, parse_measures
from metrics.ranking.judged import EncodedQrels, JudgedRanking, RunArrays, build_ranking, encode_qrels

__all__ = ["evaluate", "Evaluation", "Evaluator", "format_value", "labelled_runs"]


@dataclass(frozen=True, eq=False)
class RunResult:
    """One run's values: ``values[i, j]`` is measure ``names[j]`` on query ``query_ids[i]``."""

    label: str
    query_ids: list
    names: list  # numeric measures, as named in the results
    values: np.ndarray  # (queries, measures) float64
    aggregates: list  # per numeric measure, the "all" value
    texts: list  # (query id or "all", name, text) of the text measures


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Result of :func:`evaluate`.

    ``per_query``: tidy frame run, query_id, measure, value (float64), one row
    per (run, evaluated query, numeric measure), queries in trec_eval order; a
    query without a value for a measure (``Accuracy`` with no document of the
    grade) has no row for it, as in ir_measures (other NaN values are kept).
    ``aggregate``: tidy frame run, measure, value: trec_eval's "all" values.
    ``text``: run, query_id, measure, value (str) for the text measures
    (``runid`` with query_id "all", ``relstring`` per query).
    ``warnings``: messages about skipped queries, for stderr.
    The frames are made on first use from ``results`` (numpy, one per run).
    """

    runs: list[str]
    measures: list[Measure]
    query_ids: dict[str, list[str]]
    results: list[RunResult]
    warnings: list[str] = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    #: measure -> the name it was asked for by, when that differs from its canonical name
    #: (``nDCG@10`` rather than ``ndcg_cut_10``); the frames use these names
    names: dict = field(default_factory=dict)

    def name(self, measure: Measure) -> str:
        """The name a measure has in the frames (as asked for, or canonical)."""
        return self.names.get(measure, str(measure))

    def measure_names(self) -> list[str]:
        """The names of the measures in the frames, in trec_eval's order."""
        return [self.name(m) for m in self.measures]

    @functools.cached_property
    def per_query(self):
        from metrics.measures.irm_families import defined_mean

        # the measures whose NaN is "no value" (left out of their mean): ir_measures has no row for them
        undefined = {self.name(m) for m in self.measures if FAMILIES[m.family].aggregate is defined_mean}
        return _per_query_frame(self.results, undefined)

    @functools.cached_property
    def aggregate(self):
        import pandas as pd

        rows = [(r.label, n, float(v)) for r in self.results for n, v in zip(r.names, r.aggregates)]
        return pd.DataFrame(rows, columns=["run", "measure", "value"]).astype(
            {"run": "str", "measure": "str", "value": "float64"}
        )

    @functools.cached_property
    def text(self):
        import pandas as pd

        rows = [(r.label, q, n, v) for r in self.results for q, n, v in r.texts]
        return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"]).astype("str")

    def per_query_wide(self, measure):
        """Values of one measure: index query_id, one column per run."""
        if isinstance(measure, str) and measure in self._names():
            name = measure
        else:
            name = self.name(measure if isinstance(measure, Measure) else parse_measures(measure)[0])
        sub = self.per_query[self.per_query["measure"] == name]
        wide = sub.pivot(index="query_id", columns="run", values="value")
        order = list(dict.fromkeys(q for r in self.runs for q in self.query_ids[r]))
        wide = wide.reindex(index=[q for q in order if q in wide.index], columns=self.runs)
        wide.columns.name = None
        return wide

    def summary(self):
        """Aggregate values: index runs, one column per numeric measure."""
        wide = self.aggregate.pivot(index="run", columns="measure", values="value")
        cols = [n for n in self._names() if n in wide.columns]
        wide = wide.reindex(index=self.runs, columns=cols)
        wide.columns.name = None
        return wide

    def _names(self) -> list[str]:
        return self.measure_names()

    def describe_settings(self) -> str:
        """The settings that made these values, in trec_eval's words (``-l 2, -c``), or "trec_eval's defaults"
        (:func:`metrics.engine.settings.in_short`; every export states them in full from the same defaults)."""
        from metrics.engine.settings import in_short

        return in_short(self.settings)

    def _repr_html_(self) -> str:
        """The summary as a table in Jupyter, under a line saying what was evaluated and with which settings."""
        import html

        sizes = sorted({len(q) for q in self.query_ids.values()}) or [0]
        counted = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
        caption = (
            f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''}, {counted} queries, "
            f"{len(self.measure_names())} measures; {self.describe_settings()}"
        )
        table = self.summary().to_html(float_format=lambda v: f"{v:.4f}", na_rep="")
        notes = "".join(f"<li>{html.escape(w)}</li>" for w in self.warnings[:5])
        more = f"<li>... {len(self.warnings) - 5} more</li>" if len(self.warnings) > 5 else ""
        return (
            f"<div><p><b>Evaluation</b>: {html.escape(caption)}</p>{table}"
            + (f"<ul>{notes}{more}</ul>" if notes else "")
            + "</div>"
        )

    def result(self, run: str) -> RunResult:
        """The numpy values of one run."""
        for r in self.results:
            if r.label == run:
                return r
        raise KeyError(run)

    def trec_lines(self, run: str | None = None, *, queries: bool = False, summary: bool = True) -> list[str]:
        """trec_eval's output lines for one run (no newlines): per-query rows
        (``-q``) query by query, then the "all" rows, each in trec_eval's
        format (``%-22s\\t%s\\t%6.4f``; ``%ld`` for counts).  :meth:`trec_text`
        gives the same as text, a block of queries at a time."""
        return "".join(self.trec_text(run, queries=queries, summary=summary)).split("\n")[:-1]

    def trec_text(self, run: str | None = None, *, queries: bool = False, summary: bool = True) -> Iterator[str]:
        """trec_eval's output for one run as pieces of text, each of whole lines: the per-query rows
        (``-q``) a block of queries at a time, then the "all" rows.  Written out piece by piece, the
        output takes memory for one block, not for every line."""
        res = self.result(self.runs[0] if run is None else run)
        texts = {(q, m): v for q, m, v in res.texts}
        if queries and res.query_ids:
            shown = [(m, self.name(m)) for m in self.measures if FAMILIES[m.family].per_query]
            yield from _query_rows(res, shown, texts)
        if summary:
            out = []
            aggregates = dict(zip(res.names, res.aggregates))
            for m in self.measures:
                if not FAMILIES[m.family].summary:
                    continue
                name = self.name(m)
                if m.kind == "text":
                    out.append(f"{m.trec_name:<22}\tall\t{texts[('all', name)]}\n")
                else:
                    out.append(_format_line(m, "all", aggregates[name]) + "\n")
            if out:
                yield "".join(out)


#: queries per piece of :meth:`Evaluation.trec_text` (100 measures: about 4 MB of text)
_QUERY_BLOCK = 1000


def _query_rows(res: RunResult, shown: list, texts: dict) -> Iterator[str]:
    """The ``-q`` rows of ``res`` for the measures ``shown`` ((measure, name) in trec_eval's order),
    ``_QUERY_BLOCK`` queries at a time.

    Each query's rows are one ``%`` format of a template made once for all queries (its names padded
    already, ``%6.4f``, ``%d``, the query id and the value its arguments), so that Python's C formatting
    does the work: ``-q -m all_trec`` on 10,000 queries x 100 documents (950,000 lines) took 1.73 s and
    241 MiB with each line formatted by itself (``_format_line``) and kept in a list, 0.71 s and 87 MiB
    this way (0.54 s and 87 MiB without ``-q``).  Python's ``%6.4f`` and ``%d`` of a float
    are glibc's ``%6.4f`` and ``%ld`` of the truncated value for every value but a NaN with its sign bit
    set (``-nan``): a query with a NaN is formatted line by line (:func:`format_value`)."""
    column = {name: j for j, name in enumerate(res.names)}
    numeric = [column[name] for m, name in shown if m.kind != "text"]
    text_at = [(i, name) for i, (m, name) in enumerate(shown) if m.kind == "text"]
    code = {"text": "'%s'", "long": "%d"}
    template = "".join(
        f"{m.trec_name:<22}".replace("%", "%%") + "\t%s\t" + code.get(m.kind, "%6.4f") + "\n" for m, _ in shown
    )
    qids = res.query_ids
    for start in range(0, len(qids), _QUERY_BLOCK):
        stop = min(start + _QUERY_BLOCK, len(qids))
        block = res.values[start:stop, numeric]
        with_nan = np.isnan(block).any(axis=1).tolist()
        out = []
        args: list = [None] * (2 * len(shown))
        for q, row, nan in zip(qids[start:stop], block.tolist(), with_nan):
            for i, name in text_at:
                row.insert(i, texts[(q, name)])
            if nan:
                out.append("".join(_row_line(m, q, v) for (m, _), v in zip(shown, row)))
                continue
            args[0::2] = itertools.repeat(q, len(shown))
            args[1::2] = row
            out.append(template % tuple(args))
        yield "".join(out)


def _row_line(m: Measure, qid: str, value) -> str:
    if m.kind == "text":
        return f"{m.trec_name:<22}\t{qid}\t'{value}'\n"
    return _format_line(m, qid, value) + "\n"


def format_value(kind: str, value: float) -> str:
    """A value as trec_eval prints it: ``%ld`` of the truncated value for
    counts, ``%6.4f`` otherwise (glibc spells NaN ``nan``/``-nan``)."""
    if kind == "long":
        return str(int(value))
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def _format_line(m: Measure, qid: str, value: float) -> str:
    return f"{m.trec_name:<22}\t{qid}\t{format_value(m.kind, value)}"


def written_names(measures) -> dict:
    """``{measure: name}`` for the measures asked for by a name other than trec_eval's syntax or the
    canonical name (ir_measures' ``nDCG@10``, ranx's ``mrr@10``, measure objects): results keep them."""
    if measures is None or isinstance(measures, Measure):
        return {}
    items = [measures] if isinstance(measures, str) else list(measures)
    out: dict = {}
    for item in items:
        if not isinstance(item, str):
            continue
        text = item.strip()
        head = text.partition(".")[0]
        if head in FAMILIES or head in NICKNAMES:
            continue  # trec_eval syntax: its output names are the names
        found = parse_measures([text])
        if len(found) == 1 and str(found[0]) != text:
            out.setdefault(found[0], text)
    return out


def _is_frame(x) -> bool:
    """Whether ``x`` is a DataFrame, without importing pandas (nothing is one before pandas is)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.DataFrame)


def _as_qrels(qrels):
    """Qrels ready to encode: :class:`~metrics.io.columns.Columns` (a path is read into them, without
    pandas) or our qrels frame as they are; anything else users hold (PyTerrier or ranx frames,
    dicts of dicts, records, ranx Qrels) through the readers (:mod:`metrics.io.inputs`)."""
    if isinstance(qrels, (EncodedQrels, Columns)):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_columns(qrels, "qrels")
    if _is_frame(qrels) and {"query_id", "doc_id", "relevance"} <= set(qrels.columns):
        return qrels
    from metrics.io.readers import read_qrels

    return read_qrels(qrels)


def _is_run(x) -> bool:
    return isinstance(x, Columns) or (_is_frame(x) and {"query_id", "doc_id", "score"} <= set(x.columns))


def _as_runs(runs):
    """``runs`` as evaluate takes them: one run in any accepted form becomes a list of one; a list
    or dict of runs is converted run by run (lazily, in :func:`labelled_runs`)."""
    if isinstance(runs, (str, os.PathLike, Columns)) or _is_frame(runs):
        return [runs]
    if type(runs).__module__.startswith("ranx"):
        return [_read_run(runs, None)]
    if isinstance(runs, Mapping):
        if isinstance(next(iter(runs.values()), None), Mapping):  # {qid: {docid: score}}, or a dict of those
            from metrics.io.inputs import is_single_run  # (with pandas: not for a dict of runs read already)

            if is_single_run(runs):
                return [_read_run(runs, None)]
        return {label: run for label, run in runs.items()}
    items = iter(runs)
    first = next(items, None)
    if first is None:
        return []
    if not _is_run(first) and hasattr(first, "query_id"):  # records of one run (ScoredDoc...)
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
    from metrics.io.readers import read_run

    return read_run(source, label)


def _run_name(run) -> str:
    if isinstance(run, Columns):
        return run.name
    return str(run.attrs.get("name") or "")


def labelled_runs(runs, *, columns: bool = False) -> Iterator[tuple[str, object]]:
    """Yield (unique label, run), checked, one run at a time.

    Runs are DataFrames, or with ``columns`` also :class:`~metrics.io.columns.Columns` (paths are then
    read into columns).  ``runs`` is consumed lazily and nothing is kept here, so a generator of
    runs is read one run at a time.
    """
    if _is_frame(runs) or isinstance(runs, Columns):
        runs = [runs]
    keyed = isinstance(runs, Mapping)
    seen: set[str] = set()
    i = 0  # counted here: enumerate would hold the last item (in its reused result tuple)
    for item in runs.items() if keyed else runs:
        i += 1
        label, run = (str(item[0]), item[1]) if keyed else (None, item)
        del item
        if isinstance(run, Columns) and not columns:
            raise TypeError("numpy columns are taken by evaluate, not here: pass run DataFrames")
        if not _is_run(run):
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
    name in the result frames (``ir-eval`` uses trec_eval's names instead).
    """
    if max_docs is not None and int(max_docs) < 0:
        raise ValueError("max_docs must be >= 0")
    wanted = parse_measures(measures)
    shown = written_names(measures) if keep_names else {}
    options = dict(
        relevance_level=relevance_level,
        complete=complete,
        max_docs=max_docs,
        judged_only=judged_only,
        num_docs_in_coll=num_docs_in_coll,
    )
    return _evaluate(_encoded(qrels), runs, wanted, shown, options)


def _encoded(qrels) -> EncodedQrels:
    """The qrels encoded once for all the runs (a path's columns, read here, let go as they are encoded)."""
    read = isinstance(qrels, (str, os.PathLike))
    return encode_qrels(_as_qrels(qrels), consume=read)


def _evaluate(enc: EncodedQrels, runs, wanted: list, shown: dict, options: dict, also=None) -> Evaluation:
    """The loop of :func:`evaluate`; ``also(label, ranking)``, if given, is called with each run's
    ranking before it is let go (curves computed from the same ranking as the measures)."""
    labels: list[str] = []
    warnings: list[str] = []
    results: list[RunResult] = []
    query_ids: dict[str, list[str]] = {}
    for label, run in labelled_runs(_as_runs(runs), columns=True):
        labels.append(label)
        if isinstance(run, Columns):
            run_id = run.run_id or run.name or label
            warnings.extend(run.warnings)
        else:
            attrs = getattr(run, "attrs", {})
            run_id = str(attrs.get("run_id", attrs.get("name", label)))
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
        settings=dict(options),
    )


def _result(label: str, ranking: JudgedRanking, wanted: list, shown: dict) -> RunResult:
    return result_of(label, ranking.query_ids.tolist(), _compute(ranking, wanted), shown)


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
    ):
        if max_docs is not None and int(max_docs) < 0:
            raise ValueError("max_docs must be >= 0")
        self.measures = parse_measures(measures)
        self.names = written_names(measures)
        self.qrels = _encoded(qrels)
        self.options: dict = dict(
            relevance_level=relevance_level,
            complete=complete,
            max_docs=max_docs,
            judged_only=judged_only,
            num_docs_in_coll=num_docs_in_coll,
        )

    def evaluate(self, runs) -> Evaluation:
        """Score ``runs`` (a path, a run frame, a list of them or a dict label -> run), as :func:`evaluate` does.

        The public :class:`metrics.Evaluator` (:mod:`metrics.scale.evaluator`) also scores them on a Dask
        cluster; the evaluator itself knows nothing of scaling out."""
        return _evaluate(self.qrels, runs, self.measures, self.names, self.options)


def _strings(parts: list[tuple[list[str], np.ndarray]]):
    """A ``str`` column from (names, codes) parts: ``names[codes]`` of each
    part, one after the other.  Built by arrow from the few distinct names,
    not from one Python string per row."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    # text that is not UTF-8 (query ids of old collections, kept as surrogates) shown with replacement characters
    names = [shown(n) for part_names, _ in parts for n in part_names]
    base = np.cumsum([0] + [len(part_names) for part_names, _ in parts[:-1]])
    codes = np.concatenate([c + b for (_, c), b in zip(parts, base)] or [np.zeros(0, np.int64)])
    column = pc.take(pa.array(names, type=pa.large_string()), pa.array(codes))
    return pd.Series(column, dtype="str")


def _per_query_frame(results: list[RunResult], undefined: frozenset | set = frozenset()):
    """The tidy per-query frame of the runs' values, query-major like trec_eval's -q output.  A query
    without a value for a measure of ``undefined`` (NaN, left out of the mean: ``Accuracy`` with no
    document of the grade) has no row for it, as in ir_measures' per-query results; the NaN of other
    measures (trec_eval's ``-nan``) is kept."""
    import pandas as pd

    parts = [r for r in results if r.names and r.query_ids]
    sizes = [r.values.size for r in parts]
    runs = _strings([([r.label], np.zeros(k, dtype=np.int64)) for r, k in zip(parts, sizes)])
    queries = _strings([(r.query_ids, np.repeat(np.arange(len(r.query_ids)), len(r.names))) for r in parts])
    measures = _strings([(r.names, np.tile(np.arange(len(r.names)), len(r.query_ids))) for r in parts])
    values = np.concatenate([r.values.ravel() for r in parts] or [np.zeros(0)])
    frame = pd.DataFrame({"run": runs, "query_id": queries, "measure": measures, "value": values.astype(np.float64)})
    if undefined:
        missing = np.isnan(values)
        if missing.any():
            missing &= frame["measure"].isin(undefined).to_numpy()
            frame = frame[~missing].reset_index(drop=True)
    return frame


def _is_true(text) -> bool:
    if str(text).strip().lower() not in ("true", "false"):
        raise ValueError(f"judged_only must be true or false, not {text!r}")
    return str(text).strip().lower() == "true"


def _compute(ranking: JudgedRanking, wanted: list[Measure]):
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
        if _is_true(options.pop("judged_only", "false")):  # a measure of its own ranking (ir_measures' judged_only)
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
