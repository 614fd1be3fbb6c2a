"""Intent-annotated qrels (TREC Web track diversity qrels) and the diversity measures over them.

File format: ``qid intent docid grade``, four fields separated by blanks, one
line per (query, intent, document); the second field is the intent
(subtopic) id, where ordinary qrels have an unused iteration field.  Blank
lines and lines starting with ``#`` are skipped; a file may be gzip
compressed (recognised by content).  The grade is an integer (negative
grades are kept and are never relevant).  A (query, intent, document) may
appear once.

Also accepted by :func:`read_intent_qrels`: a DataFrame with columns
``query_id`` (or ``qid``), ``intent`` (or ``subtopic_id``, ``iteration``),
``doc_id`` (or ``docno``) and ``relevance`` (or ``label``), and iterables of
records with the same attributes (ir_measures' ``Qrel`` with its
``iteration``, pyndeval's ``SubtopicQrel``, ir_datasets' diversity qrels).

:func:`evaluate_diversity` scores runs with the measures of
:mod:`metrics.measures.diversity` (``alpha_nDCG@k``, ``ERR_IA@k``,
``P_IA@k``, ``StRecall@k``, ``NRBP``), as ndeval computes them.  Queries are
those of the qrels that the run retrieves for (all qrels queries, scoring 0
when missing from the run, with ``complete=True``: what ir_measures
averages over); the mean is over those queries.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from metrics.engine.evaluate import as_runs, labelled_runs, resolve_settings
from metrics.engine.evaluation import Evaluation, RunResult, format_value
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.frames import text_values
from metrics.io.ids import ids_from_series
from metrics.measures.diversity import DiversityMeasure, parse_diversity, query_values
from metrics.measures.diversity_syntax import diversity_names_list
from metrics.ranking.judged import rank_order

__all__ = [
    "read_intent_qrels",
    "evaluate_diversity",
    "parse_diversity_measures",
    "DiversityEvaluation",
    "IntentScoring",
    "intent_scoring",
]

FORMAT = "4 columns 'qid intent docid grade'"
_COLUMNS = {
    "query_id": ("query_id", "qid"),
    "intent": ("intent", "subtopic_id", "iteration"),
    "doc_id": ("doc_id", "docno"),
    "relevance": ("relevance", "label"),
}


def _read_path(path) -> pd.DataFrame:
    """An intent qrels file, read by the one reader of files (:func:`metrics.io.columns.read_columns`, its
    intent layout: the file rules, gzip, errors naming the line are those of every file)."""
    from metrics.io.columns import read_columns
    from metrics.io.formats import INTENTS_LAYOUT
    from metrics.io.frames import text_column

    cols = read_columns(path, "qrels", layout=INTENTS_LAYOUT)
    assert cols.rank is not None  # the intents
    return pd.DataFrame(
        {  # (ids that are not UTF-8 kept as lone surrogates, as the runs' frames keep them: they match)
            "query_id": text_column(cols.qid),
            "intent": text_column(cols.rank),
            "doc_id": text_column(cols.doc),
            "relevance": np.asarray(cols.value, dtype=np.int64),
        }
    )


def _pick(columns, key: str):
    for name in _COLUMNS[key]:
        if name in columns:
            return name
    return None


def _from_frame(df: pd.DataFrame) -> pd.DataFrame:
    names = {key: _pick(df.columns, key) for key in _COLUMNS}
    missing = [key for key, name in names.items() if name is None]
    if missing:
        raise InputError(
            f"intent qrels frame lacks {', '.join(missing)}",
            expected="columns query_id, intent (or subtopic_id, iteration), doc_id, relevance",
        )
    grades = pd.to_numeric(df[names["relevance"]], errors="coerce")
    if grades.isna().any() or not np.all(np.asarray(grades, dtype=np.float64) % 1 == 0):
        raise InputError("intent qrels grades must be integers")
    return pd.DataFrame(
        {
            "query_id": text_values(df[names["query_id"]]),
            "intent": df[names["intent"]].astype(str).to_numpy(),
            "doc_id": text_values(df[names["doc_id"]]),
            "relevance": np.asarray(grades, dtype=np.int64),
        }
    )


def _from_records(records) -> pd.DataFrame:
    rows = []
    for r in records:
        intent = next((getattr(r, a) for a in ("intent", "subtopic_id", "iteration") if hasattr(r, a)), None)
        if intent is None or not all(hasattr(r, a) for a in ("query_id", "doc_id", "relevance")):
            raise InputError(
                f"cannot read {type(r).__name__} as an intent judgment",
                expected="records with query_id, intent (or subtopic_id, iteration), doc_id and relevance",
            )
        rows.append((str(r.query_id), str(intent), str(r.doc_id), int(r.relevance)))
    if not rows:
        raise InputError("no intent judgments", expected=FORMAT)
    return pd.DataFrame(rows, columns=["query_id", "intent", "doc_id", "relevance"])


def read_intent_qrels(source) -> pd.DataFrame:
    """Intent-annotated qrels as a frame ``query_id``, ``intent``, ``doc_id`` (str), ``relevance`` (int64),
    in input order.  ``source``: a path (``qid intent docid grade`` lines), a DataFrame or an iterable
    of records (see the module docstring).  Raises :class:`metrics.InputError` naming what was
    expected."""
    if isinstance(source, (str, os.PathLike)):
        out = _read_path(source)
    elif isinstance(source, pd.DataFrame):
        out = _from_frame(source)
    elif isinstance(source, Iterable) and not isinstance(source, (bytes, dict)):
        out = _from_records(source)
    else:
        raise InputError(
            f"cannot read {type(source).__name__} as intent qrels",
            expected="a path, a DataFrame or an iterable of (query_id, intent, doc_id, relevance) records",
        )
    dup = out.duplicated(["query_id", "intent", "doc_id"]).to_numpy()
    if dup.any():  # (the frame's index is its positions)
        q, i, d = out[["query_id", "intent", "doc_id"]].iloc[int(dup.argmax())]
        raise InputError(f"document {d!r} judged twice for intent {i!r} of query {q!r}", expected=FORMAT)
    return out


def parse_diversity_measures(measures, default_rel: int = 1) -> dict[DiversityMeasure, str]:
    """``{measure: name as written}`` for a name, a space-separated list of names or a list of names
    (``default_rel``: the relevance level of the names that set no ``rel``)."""
    items = measures.split() if isinstance(measures, str) else list(measures)
    out: dict[DiversityMeasure, str] = {}
    for item in items:
        m = parse_diversity(str(item), default_rel)
        if m is None:
            raise ValueError(f"unknown diversity measure {str(item)!r}; expected one of {diversity_names_list()}")
        out.setdefault(m, str(item).strip())
    if not out:
        raise ValueError("no diversity measure given")
    return out


@dataclass(frozen=True, eq=False, repr=False)
class DiversityEvaluation(Evaluation):
    """:class:`~metrics.Evaluation` of diversity measures: the frames, ``summary()`` and
    ``per_query_wide()`` as for any evaluation; ``diversity_measures`` lists the measures."""

    diversity_measures: list = field(default_factory=list)

    def measure_names(self) -> list[str]:
        return [self.names[m] for m in self.diversity_measures]

    def trec_lines(self, run: str | None = None, *, queries: bool = False, summary: bool = True) -> list[str]:
        """trec_eval-style lines (``%-22s\\t%s\\t%6.4f``) under the names asked for."""
        run = self.runs[0] if run is None else run
        out = []
        if queries:
            pq = self.per_query[self.per_query["run"] == run]
            for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"]):
                out.append(f"{m:<22}\t{q}\t{format_value('double', v)}")
        if summary:
            agg = self.aggregate[self.aggregate["run"] == run]
            out += [f"{m:<22}\tall\t{format_value('double', v)}" for m, v in zip(agg["measure"], agg["value"])]
        return out


class Judged(NamedTuple):
    """One query's intent qrels at one relevance level: the judged documents' ids (sorted), their rows, the
    boolean (documents, intents) relevance matrix and the intents of its columns."""

    ids: list[str]
    row_of: dict[str, int]
    matrix: np.ndarray
    intents: list[str]


def judged_matrices(qrels: pd.DataFrame, level: int) -> dict[str, Judged]:
    """Per query: its :class:`Judged` at ``level``; the intents of a query in the order they first appear in
    the qrels (ndeval's subtopic order)."""
    intent_code, names = pd.factorize(qrels["intent"])
    out = {}
    for q, rows in qrels.assign(_i=intent_code).groupby("query_id", sort=False):
        docs, doc_rows = np.unique(rows["doc_id"].to_numpy(dtype=object), return_inverse=True)
        intents, cols = np.unique(rows["_i"].to_numpy(), return_inverse=True)
        matrix = np.zeros((len(docs), len(intents)), dtype=bool)
        matrix[doc_rows, cols] |= rows["relevance"].to_numpy() >= level
        ids = [str(d) for d in docs]
        out[str(q)] = Judged(ids, {d: i for i, d in enumerate(ids)}, matrix, [str(names[i]) for i in intents])
    return out


def ranked_documents(run: pd.DataFrame, queries: list[str]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The run's documents for ``queries`` (sorted), ranked as trec_eval ranks them (score descending, ties by
    docid descending): (the document ids, query after query; where each query's start, ``len(queries) + 1``
    offsets; the indices of the queries the run retrieves for).  Other queries of the run are left out."""
    index = {q: i for i, q in enumerate(queries)}
    qid = text_values(run["query_id"])
    keep = np.array([q in index for q in qid], dtype=bool)
    run = run[keep]
    qcode = np.array([index[q] for q in qid[keep]], dtype=np.int64)
    order = rank_order(qcode, run["score"].to_numpy(dtype=np.float64), ids_from_series(run["doc_id"]))
    docs = text_values(run["doc_id"])[order]
    codes = qcode[order]
    starts = np.searchsorted(codes, np.arange(len(queries) + 1))
    return docs, starts, sorted(set(codes.tolist()))


def ranked_relevance(ranked_docs, judged: Judged) -> np.ndarray:
    """The (ranks, intents) boolean relevance of a query's ranked documents (zeros where the qrels do not
    judge the document), as :func:`metrics.measures.diversity.query_values` reads it."""
    ranked = np.zeros((len(ranked_docs), judged.matrix.shape[1]), dtype=bool)
    hit = [(r, judged.row_of[d]) for r, d in enumerate(ranked_docs) if d in judged.row_of]
    if hit:
        ranked[[r for r, _ in hit]] = judged.matrix[[j for _, j in hit]]
    return ranked


def mean_over_queries(values: list[float]) -> float:
    """The mean of a measure's per-query values, summed in query order as trec_eval adds them (0 for none)."""
    return sum(values) / len(values) if values else 0.0


def diversity_settings(settings: Settings | None) -> Settings:
    """``settings`` (None: trec_eval's) when the diversity measures can be scored under them: they take
    the relevance level (``-l``) and ``complete`` (``-c``) only; ``-M``, ``-J`` and ``-N`` are refused."""
    settings = Settings.of(settings)
    given = [
        flag
        for flag, used in (
            ("max_docs (-M)", settings.max_docs is not None),
            ("judged_only (-J)", settings.judged_only),
            ("num_docs_in_coll (-N)", settings.num_docs_in_coll != 0),
        )
        if used
    ]
    if given:
        raise ValueError(f"the diversity measures take no {', '.join(given)}: only the relevance level and -c")
    return settings


def evaluate_diversity(
    qrels,
    runs,
    measures,
    *,
    complete: bool = False,
    relevance_level: int = 1,
    settings: Settings | None = None,
) -> DiversityEvaluation:
    """Score ``runs`` with diversity ``measures`` against intent-annotated ``qrels``.

    ``qrels``: anything :func:`read_intent_qrels` reads; ``runs``: as :func:`metrics.evaluate` takes
    them; ``measures``: names such as ``"alpha_nDCG@20 ERR_IA@20 P_IA@10 StRecall@10 NRBP"`` (a string
    or a list; ir_measures' and ndeval's spellings, with ``alpha``, ``beta`` and ``rel`` parameters).
    ``complete``: also score the qrels queries missing from a run (0) and average over all of them.
    ``relevance_level``: a document is relevant to an intent from this grade on, for the names that set
    no ``rel`` (``alpha_nDCG@20`` with 2 is ``alpha_nDCG(rel=2)@20``), as :func:`metrics.evaluate`'s.
    ``settings``: both as one :class:`~metrics.Settings` instead (:func:`diversity_settings`).
    Results are keyed by the names as written."""
    if not (isinstance(qrels, pd.DataFrame) and list(qrels.columns) == ["query_id", "intent", "doc_id", "relevance"]):
        qrels = read_intent_qrels(qrels)
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise TypeError(f"relevance_level must be an integer, not {relevance_level!r}")
    settings = diversity_settings(resolve_settings(settings, relevance_level=int(relevance_level), complete=complete))
    return intent_scoring(qrels, measures, settings).evaluate(runs)


@dataclass(frozen=True, eq=False)
class IntentScoring:
    """Intent qrels made ready to score diversity measures under settings (:func:`intent_scoring`): the
    queries in trec_eval's order, the judged matrices at each relevance level the measures use, and the
    measures with their names as written.  :meth:`evaluate` scores runs with them, as
    :func:`evaluate_diversity` does; made once, it scores run after run without indexing the qrels again."""

    queries: list[str]
    by_level: dict[int, dict[str, Judged]]
    wanted: dict[DiversityMeasure, str]
    settings: Settings

    def evaluate(self, runs) -> DiversityEvaluation:
        """The :class:`DiversityEvaluation` of ``runs`` (as :func:`metrics.evaluate` takes them)."""
        queries, wanted, complete = self.queries, self.wanted, self.settings.complete
        labels: list[str] = []
        warnings: list[str] = []
        query_ids: dict[str, list[str]] = {}
        results: list[RunResult] = []
        for label, frame in labelled_runs(as_runs(runs)):
            run: pd.DataFrame = frame  # type: ignore[assignment]  # labelled_runs gives frames unless asked for columns
            labels.append(label)
            docs, starts, present = ranked_documents(run, queries)
            evaluated = list(range(len(queries))) if complete else present
            have = set(present)
            missing = [queries[i] for i in range(len(queries)) if i not in have]
            if missing and not complete:
                shown = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
                warnings.append(
                    f"run {label!r}: {len(missing)} qrels quer{'y' if len(missing) == 1 else 'ies'} without "
                    f"results skipped: {shown}"
                )
            query_ids[label] = [queries[i] for i in evaluated]
            rows = []
            for i in evaluated:
                ranked_docs = docs[starts[i] : starts[i + 1]]
                values = {}
                for level, judged in self.by_level.items():
                    query = judged[queries[i]]
                    ranked = ranked_relevance(ranked_docs, query)
                    at_level = [m for m in wanted if m.rel == level]
                    values.update(query_values(ranked, query.matrix, query.ids, at_level))
                rows.append([values[m] for m in wanted])
            matrix = np.array(rows, dtype=np.float64).reshape(len(evaluated), len(wanted))
            aggregates = [mean_over_queries(matrix[:, j].tolist()) for j in range(len(wanted))]
            results.append(RunResult(label, query_ids[label], list(wanted.values()), matrix, aggregates, []))
        return DiversityEvaluation(
            runs=labels,
            measures=[],
            query_ids=query_ids,
            results=results,
            warnings=warnings,
            settings=self.settings,
            names=dict(wanted),
            diversity_measures=list(wanted),
        )


def intent_scoring(qrels, measures, settings: Settings | None = None) -> IntentScoring:
    """``qrels`` (intent qrels, anything :func:`read_intent_qrels` reads) made ready to score ``measures``
    (names, as :func:`evaluate_diversity` takes them) under ``settings`` (:func:`diversity_settings`)."""
    if not (isinstance(qrels, pd.DataFrame) and list(qrels.columns) == ["query_id", "intent", "doc_id", "relevance"]):
        qrels = read_intent_qrels(qrels)
    settings = diversity_settings(settings)
    wanted = parse_diversity_measures(measures, settings.relevance_level)
    queries = sorted(set(qrels["query_id"]))  # trec_eval's query order (byte order of the ids)
    by_level = {level: judged_matrices(qrels, level) for level in sorted({m.rel for m in wanted})}
    return IntentScoring(queries, by_level, wanted, settings)
