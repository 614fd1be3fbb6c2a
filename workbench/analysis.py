"""Everything the window shows, computed in one go from qrels, runs and options.

Plain Python (no Qt).  :func:`compute` runs in a worker thread; the GUI thread
only looks results up (:class:`CurveTable`, :class:`Results`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

import metrics
import metrics.curves

MEAN = "all"  # query_id under which metrics.curves reports the mean over queries


@dataclass(frozen=True)
class Request:
    """Inputs of one evaluation; a value, so a worker can own it."""

    qrels: pd.DataFrame
    runs: Mapping[str, pd.DataFrame]
    measures: tuple[str, ...]
    relevance_level: int = 1
    k_max: int = 100
    ndcg_options: tuple[tuple[str, object], ...] = ()
    qrels_name: str | None = None


class CurveTable:
    """Curves per (query, run) looked up without scanning the frame.

    ``frame`` is tidy: columns ``run``, ``query_id``, ``x`` column, ``y`` column.
    """

    def __init__(self, frame: pd.DataFrame, x: str, y: str):
        frame = frame.sort_values(["query_id", "run", x], kind="stable").reset_index(drop=True)
        self.frame = frame
        self.x_name, self.y_name = x, y
        self._x = frame[x].to_numpy(dtype=float)
        self._y = frame[y].to_numpy(dtype=float)
        self._index = {
            (str(q), str(r)): idx for (q, r), idx in frame.groupby(["query_id", "run"], sort=False).indices.items()
        }

    def get(self, query_id: str, run: str) -> tuple[np.ndarray, np.ndarray] | None:
        idx = self._index.get((str(query_id), str(run)))
        if idx is None:
            return None
        return self._x[idx], self._y[idx]

    def __contains__(self, key) -> bool:
        return key in self._index


@dataclass
class Results:
    request: Request
    evaluation: object                       # metrics Evaluation
    summary: pd.DataFrame                    # index runs, columns measure names
    per_query: dict[str, pd.DataFrame]       # measure name -> index query_id, columns runs
    measures: list[str]
    runs: list[str]
    query_ids: list[str]                     # all evaluated queries, natural order
    pr: CurveTable
    ndcg: CurveTable
    extra: dict = field(default_factory=dict)


def compute(request: Request, progress=None) -> Results:
    """Evaluate every run, and compute the curves the plots show."""
    runs = dict(request.runs)
    step = _Steps(progress, 4)
    measures = metrics.parse_measures(list(request.measures)) if request.measures else None
    step()
    ev = metrics.evaluate(request.qrels, runs, measures, relevance_level=request.relevance_level)
    step()
    names = [str(m) for m in ev.measures]
    summary = ev.summary()
    names = [n for n in names if n in summary.columns]
    summary = summary.reindex(index=list(ev.runs), columns=names)
    wide = {}
    pq = ev.per_query
    for name, part in pq.groupby("measure", sort=False):
        w = part.pivot(index="query_id", columns="run", values="value")
        w = w.reindex(columns=list(ev.runs))
        w.columns.name = None
        wide[str(name)] = w.reindex(sort_queries(w.index))
    query_ids = sort_queries(pd.unique(pq["query_id"]))
    pr = metrics.curves.precision_recall(request.qrels, runs, relevance_level=request.relevance_level)
    step()
    atk = metrics.curves.at_k(request.qrels, runs, "NDCG", k_max=request.k_max, **dict(request.ndcg_options))
    step()
    return Results(
        request=request,
        evaluation=ev,
        summary=summary,
        per_query=wide,
        measures=names,
        runs=list(ev.runs),
        query_ids=query_ids,
        pr=CurveTable(pr, "recall", "precision"),
        ndcg=CurveTable(atk, "k", "value"),
    )


class _Steps:
    def __init__(self, progress, total):
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self):
        self.done += 1
        if self.progress is not None and self.progress(self.done / self.total) is False:
            from metrics.errors import Cancelled

            raise Cancelled("evaluation cancelled")


def query_sort_key(q) -> tuple:
    """Natural order of query ids: numbers by value first, then other ids alphabetically."""
    s = str(q)
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


def sort_queries(ids) -> list[str]:
    return sorted((str(q) for q in ids), key=query_sort_key)
