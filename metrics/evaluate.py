"""Evaluate runs against qrels: per-query values, then aggregation.

The evaluator knows nothing about individual measures: it builds one
:class:`~metrics.ranking.JudgedRanking` per run, asks each requested family
of the registry for its per-query values, and applies the family's aggregate.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .measures import FAMILIES, NICKNAMES, Measure, parse_measures
from .ranking import EncodedQrels, JudgedRanking, build_ranking, encode_qrels
from .readers import read_qrels, read_run

__all__ = ["evaluate", "Evaluation", "format_value", "labelled_runs"]


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Result of :func:`evaluate`.

    ``per_query``: tidy frame run, query_id, measure, value (float64), one row
    per (run, evaluated query, numeric measure), queries in trec_eval order.
    ``aggregate``: tidy frame run, measure, value: trec_eval's "all" values.
    ``text``: run, query_id, measure, value (str) for the text measures
    (``runid`` with query_id "all", ``relstring`` per query).
    ``warnings``: messages about skipped queries, for stderr.
    """

    runs: list[str]
    measures: list[Measure]
    query_ids: dict[str, list[str]]
    per_query: pd.DataFrame
    aggregate: pd.DataFrame
    text: pd.DataFrame
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

    def per_query_wide(self, measure) -> pd.DataFrame:
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

    def summary(self) -> pd.DataFrame:
        """Aggregate values: index runs, one column per numeric measure."""
        wide = self.aggregate.pivot(index="run", columns="measure", values="value")
        cols = [n for n in self._names() if n in wide.columns]
        wide = wide.reindex(index=self.runs, columns=cols)
        wide.columns.name = None
        return wide

    def _names(self) -> list[str]:
        return self.measure_names()

    def trec_lines(self, run: str | None = None, *, queries: bool = False, summary: bool = True) -> list[str]:
        """trec_eval's output lines for one run (no newlines): per-query rows
        (``-q``) query by query, then the "all" rows, each in trec_eval's
        format (``%-22s\\t%s\\t%6.4f``; ``%ld`` for counts)."""
        run = self.runs[0] if run is None else run
        out: list[str] = []
        tx = self.text[self.text["run"] == run]
        texts = {(q, m): v for q, m, v in zip(tx["query_id"], tx["measure"], tx["value"])}
        agg = self.aggregate[self.aggregate["run"] == run]
        agg_values = dict(zip(agg["measure"], agg["value"]))
        if queries:
            pq = self.per_query[self.per_query["run"] == run]
            values = dict(zip(zip(pq["query_id"], pq["measure"]), pq["value"].tolist()))
            shown = [m for m in self.measures if FAMILIES[m.family].per_query]
            for q in self.query_ids[run]:
                for m in shown:
                    key = (q, self.name(m))
                    if m.kind == "text":
                        out.append(f"{m.trec_name:<22}\t{q}\t'{texts[key]}'")
                    else:
                        out.append(_format_line(m, q, values[key]))
        if summary:
            for m in self.measures:
                if not FAMILIES[m.family].summary:
                    continue
                if m.kind == "text":
                    out.append(f"{m.trec_name:<22}\tall\t{texts[('all', self.name(m))]}")
                else:
                    out.append(_format_line(m, "all", agg_values[self.name(m)]))
        return out


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


def _as_qrels(qrels) -> pd.DataFrame:
    """Our qrels frame as is; anything else users hold (paths, PyTerrier or ranx frames, dicts of dicts,
    records, ranx Qrels) through the readers (:mod:`metrics.inputs`)."""
    if isinstance(qrels, pd.DataFrame) and {"query_id", "doc_id", "relevance"} <= set(qrels.columns):
        return qrels
    return read_qrels(qrels)


def _as_runs(runs):
    """``runs`` as evaluate takes them: one run in any accepted form becomes a list of one frame; a list
    or dict of runs is converted run by run (lazily, in :func:`labelled_runs`)."""
    from .inputs import is_single_run

    if isinstance(runs, (str, os.PathLike)) or is_single_run(runs) or type(runs).__module__.startswith("ranx"):
        return [read_run(runs)]
    if isinstance(runs, pd.DataFrame):
        return [runs]
    if isinstance(runs, Mapping):
        return {label: run for label, run in runs.items()}
    items = iter(runs)
    first = next(items, None)
    if first is None:
        return []
    if not isinstance(first, pd.DataFrame) and hasattr(first, "query_id"):  # records of one run (ScoredDoc...)
        return [read_run(itertools.chain([first], items))]
    return itertools.chain([first], items)


def labelled_runs(runs) -> Iterator[tuple[str, pd.DataFrame]]:
    """Yield (unique label, run frame), checked, one run at a time.

    ``runs`` is consumed lazily and nothing is kept here, so a generator
    of runs is read one run at a time.
    """
    if isinstance(runs, pd.DataFrame):
        runs = [runs]
    keyed = isinstance(runs, Mapping)
    seen = set()
    for i, item in enumerate(runs.items() if keyed else runs):
        label, df = (str(item[0]), item[1]) if keyed else (None, item)
        del item
        if not (isinstance(df, pd.DataFrame) and {"query_id", "doc_id", "score"} <= set(df.columns)):
            df = read_run(df, label)  # a path, PyTerrier's columns, a dict of dicts, records (metrics.inputs)
        base = label or str(df.attrs.get("name") or f"run{i + 1}")
        name, k = base, 2
        while name in seen:
            name, k = f"{base}_{k}", k + 1
        seen.add(name)
        yield name, df
        del df  # before the next run is produced


def evaluate(
    qrels: pd.DataFrame,
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

    ``qrels``: columns query_id, doc_id, relevance.  ``runs``: a run
    DataFrame (query_id, doc_id, score; ``attrs["name"]`` = run tag), a list
    or other iterable of them (labelled by their names, made unique) or a
    dict label -> run.  Runs are ranked one after the other and not kept:
    given a generator that reads them, only one run frame is in memory at a
    time.
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
    if not isinstance(qrels, EncodedQrels):
        qrels = _as_qrels(qrels)
    if max_docs is not None and int(max_docs) < 0:
        raise ValueError("max_docs must be >= 0")
    wanted = parse_measures(measures)
    shown = written_names(measures) if keep_names else {}
    qrels = qrels if isinstance(qrels, EncodedQrels) else encode_qrels(qrels)  # once for all the runs
    labels: list[str] = []
    warnings: list[str] = []

    pq_parts, agg_rows, text_rows = [], [], []
    query_ids: dict[str, list[str]] = {}
    for label, run in labelled_runs(_as_runs(runs)):
        labels.append(label)
        ranking = build_ranking(
            qrels,
            run,
            relevance_level=relevance_level,
            complete=complete,
            max_docs=max_docs,
            judged_only=judged_only,
            run_id=str(run.attrs.get("run_id", run.attrs.get("name", label))),
            warnings=warnings,
            num_docs_in_coll=num_docs_in_coll,
        )
        del run  # the ranking is all that is needed from here on
        qids = ranking.query_ids.tolist()
        query_ids[label] = qids
        if not qids:
            warnings.append(f"run {label!r}: no queries with both results and relevance info")
        names, columns = [], []
        for m, values, agg in _compute(ranking, wanted):
            name = shown.get(m, str(m))
            if m.kind == "text":
                if FAMILIES[m.family].per_query:
                    text_rows += [(label, q, name, v) for q, v in zip(qids, values)]
                if agg is not None:
                    text_rows.append((label, "all", name, agg))
                continue
            names.append(name)
            columns.append(np.asarray(values, dtype=np.float64))
            agg_rows.append((label, name, float(agg)))
        if names and qids:
            # query-major, like trec_eval's -q output
            pq_parts.append((label, qids, names, np.vstack(columns).T.ravel()))
        del ranking

    per_query = _per_query_frame(pq_parts)
    aggregate = pd.DataFrame(agg_rows, columns=["run", "measure", "value"]).astype(
        {"run": "str", "measure": "str", "value": "float64"}
    )
    text = pd.DataFrame(text_rows, columns=["run", "query_id", "measure", "value"]).astype("str")
    return Evaluation(
        runs=labels,
        measures=wanted,
        query_ids=query_ids,
        per_query=per_query,
        aggregate=aggregate,
        text=text,
        warnings=warnings,
        names=shown,
        settings=dict(
            relevance_level=relevance_level,
            complete=complete,
            max_docs=max_docs,
            judged_only=judged_only,
            num_docs_in_coll=num_docs_in_coll,
        ),
    )


class Evaluator:
    """Qrels and measures fixed once; :meth:`evaluate` scores any number of runs, as often as asked.

    The qrels are encoded once (their distinct queries and documents and the
    sorted keys the runs are joined on), which is most of the work of scoring
    a small run, and the measure names are parsed once::

        ev = metrics.evaluator(qrels, ["map", "nDCG@10"])
        for path in run_files:
            print(ev.evaluate(metrics.read_run(path)).summary())

    Options are those of :func:`evaluate`.
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
        missing = {"query_id", "doc_id", "relevance"} - set(qrels.columns)
        if missing:
            raise ValueError(f"qrels lack columns {sorted(missing)}")
        self.measures = parse_measures(measures)
        self.names = written_names(measures)
        self.qrels = encode_qrels(qrels)
        self.options: dict = dict(
            relevance_level=relevance_level,
            complete=complete,
            max_docs=max_docs,
            judged_only=judged_only,
            num_docs_in_coll=num_docs_in_coll,
        )

    def evaluate(self, runs, *, client=None) -> Evaluation:
        """Score ``runs`` (a run frame, a list of them or a dict label -> run), as :func:`evaluate` does.

        ``client``: a ``distributed.Client``; each run is then scored by a worker of its cluster (paths
        and fsspec URLs are read by the workers), with the same result (:mod:`metrics.distributed`)."""
        if client is not None:
            from .distributed import evaluate_on_cluster

            return evaluate_on_cluster(self, runs, client)
        ev = evaluate(self.qrels, runs, self.measures, keep_names=False, **self.options)
        if self.names:  # the names as asked for, as evaluate gives them
            rename = {str(m): n for m, n in self.names.items()}
            for frame in (ev.per_query, ev.aggregate, ev.text):
                frame["measure"] = frame["measure"].replace(rename)
            ev = dataclasses.replace(ev, names=dict(self.names))
        return ev


def evaluator(qrels, measures=None, **options) -> Evaluator:
    """An :class:`Evaluator` for ``qrels`` and ``measures`` (options as :func:`evaluate`)."""
    return Evaluator(qrels, measures, **options)


def _strings(parts: list[tuple[list[str], np.ndarray]]) -> pd.Series:
    """A ``str`` column from (names, codes) parts: ``names[codes]`` of each
    part, one after the other.  Built by arrow from the few distinct names,
    not from one Python string per row."""
    names = [n for part_names, _ in parts for n in part_names]
    base = np.cumsum([0] + [len(part_names) for part_names, _ in parts[:-1]])
    codes = np.concatenate([c + b for (_, c), b in zip(parts, base)] or [np.zeros(0, np.int64)])
    column = pc.take(pa.array(names, type=pa.large_string()), pa.array(codes))
    return pd.Series(column, dtype="str")


def _per_query_frame(parts) -> pd.DataFrame:
    """The tidy per-query frame from (label, query ids, measure names,
    query-major values) per run."""
    runs = _strings([([label], np.zeros(len(block), dtype=np.int64)) for label, _, _, block in parts])
    queries = _strings([(qids, np.repeat(np.arange(len(qids)), len(names))) for _, qids, names, _ in parts])
    measures = _strings([(names, np.tile(np.arange(len(names)), len(qids))) for _, qids, names, _ in parts])
    values = np.concatenate([block for *_, block in parts] or [np.zeros(0)])
    return pd.DataFrame({"run": runs, "query_id": queries, "measure": measures, "value": values.astype(np.float64)})


def _compute(ranking: JudgedRanking, wanted: list[Measure]):
    """Yield (measure, per-query values, aggregate value) in ``wanted`` order."""
    groups: dict[tuple, list[Measure]] = {}
    for m in wanted:
        fam = FAMILIES[m.family]
        key = (m.family, m.rel, m.options, None if fam.params.expands else m.params)
        groups.setdefault(key, []).append(m)
    by_level: dict[int, JudgedRanking] = {ranking.relevance_level: ranking}
    results: dict[Measure, tuple] = {}
    for (family, rel, options, params), members in groups.items():
        fam = FAMILIES[family]
        r = ranking
        if rel is not None:
            r = by_level.get(rel) or by_level.setdefault(rel, ranking.with_relevance_level(rel))
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
    for m in wanted:
        yield (m, *results[m])
