"""Everything the window shows, computed in one go from qrels, runs and options.

Plain Python (no Qt).  :func:`compute` runs in a worker thread; the GUI thread
only looks results up (:class:`CurveTable`, :class:`Results`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np
import pandas as pd

import metrics
import metrics.curves
import metrics.measures
import metrics.ranking
from workbench.model.workspace import merge_qrels

MEAN = "all"  # query_id under which metrics.curves reports the mean over queries


@dataclass(frozen=True)
class Request:
    """Inputs of one evaluation; a value, so a worker can own it."""

    qrels: pd.DataFrame | tuple[pd.DataFrame, ...]  # several parts are merged by compute()
    runs: Mapping[str, pd.DataFrame]
    measures: tuple[str, ...]
    relevance_level: int = 1
    k_max: int = 100
    ndcg_options: tuple[tuple[str, object], ...] = ()
    qrels_name: str | None = None
    key: tuple | None = None  # what the session evaluated (Session.evaluation_key); compared, never read


class CurveTable:
    """Curves per (query, run) looked up without scanning the frame.

    ``frame`` is tidy: columns ``run``, ``query_id``, ``x`` column, ``y`` column.
    """

    def __init__(self, frame: pd.DataFrame, x: str, y: str):
        frame = frame.sort_values(["query_id", "run", x], kind="stable").reset_index(drop=True)
        self.frame = frame
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
    evaluation: object  # metrics Evaluation
    summary: pd.DataFrame  # index runs, columns measure names
    per_query: dict[str, pd.DataFrame]  # measure name -> index query_id, columns runs
    measures: list[str]
    runs: list[str]
    query_ids: list[str]  # all evaluated queries, natural order
    pr: CurveTable
    ndcg: CurveTable
    extra: dict = field(default_factory=dict)
    # run -> (queries evaluated, i.e. both retrieved and judged; queries in the run)
    coverage: dict[str, tuple[int, int]] = field(default_factory=dict)
    measure_errors: list[str] = field(default_factory=list)  # names that were skipped, with the reason

    def unscored(self) -> list[str]:
        """Runs that share no query with the qrels: their zeros are not scores."""
        return [r for r, (shared, _) in self.coverage.items() if shared == 0]

    @property
    def problems(self) -> list[str]:
        """Sentences about runs that match the qrels badly, for the user."""
        out = [f"Measure skipped: {e}" for e in self.measure_errors]
        for run, (shared, total) in self.coverage.items():
            if shared == 0:
                out.append(
                    f"Run {run!r} shares no query with the qrels: it is not scored (is it a run of another collection?)"
                )
            elif shared < total:
                out.append(f"Run {run!r}: only {shared} of its {total} queries are in the qrels")
        return out


def compute(request: Request, progress=None) -> Results:
    """Evaluate every run, and compute the curves the plots show.

    The returned ``Results.request`` holds the qrels as one frame.
    """
    if isinstance(request.qrels, tuple):
        request = replace(request, qrels=merge_qrels(request.qrels))
    runs = dict(request.runs)
    step = _Steps(progress, 3)
    spec = ndcg_variant(request.measures, dict(request.ndcg_options))
    measures, bad = parse_each(spec)
    if bad and not measures:
        raise ValueError("measures: " + "; ".join(bad))
    step()
    # each run's ranking is built once, for the measures and both kinds of curves
    ev, pr, atk = metrics.curves.evaluate_with_curves(
        request.qrels,
        runs,
        measures,
        relevance_level=request.relevance_level,
        kind="NDCG",
        k_max=request.k_max,
        **_changed_ndcg_options(dict(request.ndcg_options)),
    )
    step()
    names = ev.measure_names()
    summary = ev.summary()
    names = [n for n in names if n in summary.columns]
    summary = summary.reindex(index=list(ev.runs), columns=names)
    coverage = {r: (len(ev.query_ids[r]), int(runs[r]["query_id"].nunique())) for r in ev.runs}
    unscored = [r for r, (shared, _) in coverage.items() if shared == 0]
    summary.loc[unscored] = np.nan  # a mean over no query is not a score of 0
    wide = {}
    pq = ev.per_query
    for name, part in pq.groupby("measure", sort=False):
        w = part.pivot(index="query_id", columns="run", values="value")
        w = w.reindex(columns=list(ev.runs))
        w.columns.name = None
        wide[str(name)] = w.reindex(sort_queries(w.index))
    query_ids = sort_queries(pd.unique(pq["query_id"]))
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
        coverage=coverage,
        measure_errors=bad,
    )


def parse_each(spec) -> tuple[list | None, list[str]]:
    """The measures named in ``spec``, and a sentence for each name that is not one.

    One bad name among several does not stop the others from being computed.
    ``(None, [])`` for an empty spec (the default set).
    """
    if not spec:
        return None, []
    measures: dict = {}
    bad: list[str] = []
    for name in spec:
        try:
            for m in metrics.parse_measures([name]):
                measures.setdefault(m, None)
        except (ValueError, KeyError) as exc:
            bad.append(f"{name!r}: {exc}")
    return list(measures), bad


class _Steps:
    def __init__(self, progress, total):
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self):
        self.done += 1
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


def query_sort_key(q) -> tuple:
    """Natural order of query ids: numbers by value first, then other ids alphabetically."""
    s = str(q)
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


def sort_queries(ids) -> list[str]:
    return sorted((str(q) for q in ids), key=query_sort_key)
