"""One query looked at closely: the ranked lists of several runs next to each other.

For a query, :func:`query_drilldown` returns every run's ranking cut at a depth
with the judged grade of each document, whether it is judged at all, and how
far it moved against a baseline run; plus the relevant documents that none of
the runs retrieved.

Conventions
-----------
Ranking order
    trec_eval's: score descending, ties broken by document id in descending
    byte order; the ranks of the input lines are ignored. The order comes from
    the engine's ranking code (:mod:`metrics.ranking.judged`), so the drill-down shows
    exactly the ranking that the measures were computed on (under the settings' ``-M`` and
    ``-J``, too).
Grades
    ``relevance`` is the grade from the qrels when it is ``>= 0``; a document
    not in the qrels of the query, or listed with a negative grade (pooled but
    not judged), has no grade (``<NA>``) and ``judged`` is False.
Movement
    ``baseline_rank`` is the rank of the same document in the baseline's full
    ranking of the query (not only its first ``depth`` ranks), ``<NA>`` when the
    baseline did not retrieve it. ``moved = baseline_rank - rank``: positive when
    the document rose (it is ranked higher than in the baseline), negative when
    it fell, ``<NA>`` when it is new. Both columns are ``<NA>`` throughout for the
    baseline itself and for every run when no baseline is given.
Missing relevant documents
    Documents judged relevant (grade ``>= relevance_level``) for the query that
    no run retrieved at any rank (not only within ``depth``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metrics.engine.settings import Settings
from metrics.io.frames import frame_from_columns, text_column, text_values
from metrics.io.ids import ids_from_series
from metrics.io.labels import unique_label
from metrics.io.table import Columns, rows_of_queries
from metrics.ranking.judged import rank_order

__all__ = ["RANKING_COLUMNS", "MISSING_COLUMNS", "QueryDrilldown", "query_drilldown"]

#: Columns of every frame in :attr:`QueryDrilldown.rankings`.
RANKING_COLUMNS = ["rank", "doc_id", "score", "relevance", "judged", "baseline_rank", "moved"]
#: Columns of :attr:`QueryDrilldown.missing`.
MISSING_COLUMNS = ["doc_id", "relevance"]


@dataclass(frozen=True)
class QueryDrilldown:
    """The drill-down of one query (see the module docstring for the conventions)."""

    query_id: str
    depth: int | None
    baseline: str | None
    relevance_level: int
    #: run label -> ranking cut at ``depth`` (columns :data:`RANKING_COLUMNS`), in the runs' order
    rankings: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: run label -> number of documents the run retrieved for the query (before the cut)
    num_ret: dict[str, int] = field(default_factory=dict)
    #: relevant documents no run retrieved (columns :data:`MISSING_COLUMNS`),
    #: by grade (highest first), then document id
    missing: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=MISSING_COLUMNS))
    #: number of judged relevant documents of the query
    num_rel: int = 0
    #: the query occurs in the qrels
    judged_query: bool = True

    @property
    def runs(self) -> list[str]:
        return list(self.rankings)


def _labelled(runs) -> dict[str, pd.DataFrame | Columns]:
    if isinstance(runs, (pd.DataFrame, Columns)):
        runs = [runs]
    if isinstance(runs, Mapping):
        return {str(k): v for k, v in runs.items()}
    out: dict[str, pd.DataFrame | Columns] = {}
    for i, run in enumerate(runs):
        name = run.name if isinstance(run, Columns) else run.attrs.get("name")
        out[unique_label(str(name or f"run{i + 1}"), out)] = run
    return out


def _of_query(data: pd.DataFrame | Columns, query_id: str) -> pd.DataFrame:
    """A run's or the qrels' frame, or the frame of one query's rows of their columns (columns are cut
    first: a run of millions of lines is not made a frame whole for one query)."""
    if isinstance(data, Columns):
        return frame_from_columns(rows_of_queries(data, [query_id]))
    return data


def _scored(ranked: pd.DataFrame, grade_of: Mapping[str, int], settings: Settings) -> pd.DataFrame:
    """The ranking as ``settings`` score it (trec_eval's order of the two): cut at ``max_docs`` (``-M``),
    then without the documents that have no grade >= 0 (``-J``; ranks counted again)."""
    if settings.max_docs is not None:
        ranked = ranked.iloc[: settings.max_docs]
    if settings.judged_only:
        ranked = ranked.loc[[grade_of.get(d, -1) >= 0 for d in ranked["doc_id"]]].reset_index(drop=True)
        ranked["rank"] = np.arange(1, len(ranked) + 1, dtype=np.int64)
    return ranked


def _ranked(run: pd.DataFrame, query_id: str) -> pd.DataFrame:
    """The run's lines for one query, in trec_eval's ranking order, with 1-based ranks."""
    lines = run.loc[text_values(run["query_id"]) == query_id, ["doc_id", "score"]]
    scores = lines["score"].to_numpy(dtype=np.float64)
    order = rank_order(np.zeros(len(scores), dtype=np.int64), scores, ids_from_series(lines["doc_id"]))
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(order) + 1, dtype=np.int64),
            "doc_id": text_column(lines["doc_id"].to_numpy(dtype=object)[order]),
            "score": scores[order],
        }
    )


def query_drilldown(
    qrels: pd.DataFrame | Columns,
    runs,
    query_id,
    *,
    depth: int | None = 20,
    baseline: str | None = None,
    settings: Settings | None = None,
) -> QueryDrilldown:
    """The ranked lists of ``runs`` for ``query_id``, side by side material.

    Parameters
    ----------
    qrels : DataFrame with columns query_id, doc_id, relevance, or the qrels'
        :class:`~metrics.io.table.Columns`.
    runs : a run DataFrame (or Columns), a list of them (labels from
        ``attrs["name"]``, made unique) or a dict ``{label: run}``; each with
        columns query_id, doc_id, score.
    query_id : the query.
    depth : ranks kept per run (None: all).
    baseline : label of the run the others are compared with (None: no movement).
    settings : the :class:`~metrics.engine.settings.Settings` the run is scored with (None: trec_eval's):
        its ``relevance_level`` (``-l``) says which grades are relevant, and the rankings shown are the
        ones scored: with ``judged_only`` (``-J``) unjudged documents are dropped before ranks are
        counted, with ``max_docs`` (``-M``) only its first ranks are kept.

    Returns
    -------
    :class:`QueryDrilldown`. A run that retrieved nothing for the query has an
    empty ranking; a query missing from the qrels has no judged documents.
    """
    if depth is not None and int(depth) < 1:
        raise ValueError(f"depth must be at least 1 (or None for all ranks); got {depth}")
    query_id = str(query_id)
    runs = {label: _of_query(run, query_id) for label, run in _labelled(runs).items()}
    qrels = _of_query(qrels, query_id)
    if baseline is not None and baseline not in runs:
        raise ValueError(f"baseline run {baseline!r} not found; runs are {', '.join(map(repr, runs))}")
    settings = Settings.of(settings)
    relevance_level = settings.relevance_level

    judged = qrels.loc[text_values(qrels["query_id"]) == query_id, ["doc_id", "relevance"]]
    grade_of = dict(zip(text_values(judged["doc_id"]), judged["relevance"].astype(np.int64)))

    full = {label: _scored(_ranked(run, query_id), grade_of, settings) for label, run in runs.items()}
    base_rank = {}
    if baseline is not None:
        b = full[baseline]
        base_rank = dict(zip(b["doc_id"], b["rank"]))

    rankings, num_ret = {}, {}
    for label, ranked in full.items():
        num_ret[label] = len(ranked)
        part = ranked if depth is None else ranked.iloc[: int(depth)]
        part = part.reset_index(drop=True)
        grades = [grade_of.get(d) for d in part["doc_id"]]
        relevance = pd.array([g if g is not None and g >= 0 else pd.NA for g in grades], dtype="Int64")
        part["relevance"] = relevance
        part["judged"] = ~relevance.isna()
        if baseline is None or label == baseline:
            part["baseline_rank"] = pd.array([pd.NA] * len(part), dtype="Int64")
            part["moved"] = pd.array([pd.NA] * len(part), dtype="Int64")
        else:
            part["baseline_rank"] = pd.array([base_rank.get(d, pd.NA) for d in part["doc_id"]], dtype="Int64")
            part["moved"] = part["baseline_rank"] - part["rank"]  # (Int64: NA where the baseline lacks it)
        rankings[label] = part[RANKING_COLUMNS]

    retrieved: set[str] = set()
    for ranked in full.values():
        retrieved.update(ranked["doc_id"])
    grades = judged["relevance"].to_numpy(dtype=np.int64)
    relevant = judged.loc[(grades >= relevance_level) & (grades >= 0)]
    unretrieved = [d not in retrieved for d in text_values(relevant["doc_id"])]
    missing = relevant.loc[np.asarray(unretrieved, dtype=bool)]
    missing = pd.DataFrame(
        {
            "doc_id": text_column(missing["doc_id"].to_numpy(dtype=object)),
            "relevance": missing["relevance"].to_numpy(dtype=np.int64),
        }
    )
    missing = missing.sort_values(["relevance", "doc_id"], ascending=[False, True], kind="stable")
    return QueryDrilldown(
        query_id=query_id,
        depth=None if depth is None else int(depth),
        baseline=baseline,
        relevance_level=relevance_level,
        rankings=rankings,
        num_ret=num_ret,
        missing=missing.reset_index(drop=True),
        num_rel=int(len(relevant)),
        judged_query=bool(len(judged)),
    )
