"""The judged ranking of one run, ready to explain any value of any query.

:class:`Prepared` builds the :class:`~metrics.ranking.judged.JudgedRanking` the measures read, once, and
keeps the run's document ids so that each query's part of the ranking can be shown with them
(:class:`QueryRanking`).  The value of an explanation is always the measure's own kernel's value,
computed by the evaluator on that ranking (:func:`metrics.engine.evaluate.compute`); the explainers show
the working from the same ranking, and the working must reproduce that value to be shown.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from metrics.engine.evaluate import as_qrels, compute, is_true
from metrics.engine.evaluation import query_line
from metrics.engine.settings import Settings
from metrics.explain.explainers import EXPLAINERS, conventions
from metrics.explain.graded import gain_curve
from metrics.explain.model import Explanation
from metrics.explain.query import QueryRanking, UnknownQuery, explanation_of
from metrics.explain.summary import explain_summary
from metrics.io.columns import read_columns
from metrics.io.ids import shown
from metrics.io.table import Columns
from metrics.measures import FAMILIES, Measure, parse_measures
from metrics.ranking.judged import PLACEHOLDER_DOC, JudgedRanking, build_ranking
from metrics.ranking.qrels_index import NONPOOL, UNJUDGED, as_columns, encode_qrels
from metrics.ranking.rank_order import rank_order

__all__ = ["Prepared", "resolve_measure"]

SUMMARY = "all"


def resolve_measure(measure) -> Measure:
    """The one measure ``measure`` names (a Measure, or any name :func:`parse_measures` takes)."""
    if isinstance(measure, Measure):
        return measure
    found = parse_measures([str(measure)])
    if len(found) != 1:
        names = ", ".join(str(m) for m in found)
        raise ValueError(f"{measure!r} names {len(found)} measures ({names}): explain one at a time")
    return found[0]


def _run_columns(run) -> Columns:
    if isinstance(run, (str, os.PathLike)):
        return read_columns(run, "run")
    if isinstance(run, Columns):
        return run
    if hasattr(run, "columns") and {"query_id", "doc_id", "score"} <= set(run.columns):
        return as_columns(run, "run")
    from metrics.io.readers import read_run

    return as_columns(read_run(run), "run")


class Prepared:
    """A run's judged ranking against the qrels, built once, from which any measure's value for any
    query (or the summary) is explained.  ``settings``: the :class:`~metrics.engine.settings.Settings`
    the run is scored with (trec_eval's ``-l``, ``-c``, ``-M``, ``-J``, ``-N``; None: trec_eval's
    defaults).  Pure computation: safe to build and use in a worker thread."""

    def __init__(self, qrels, run, *, settings: Settings | None = None, label: str | None = None):
        self.settings = Settings.of(settings)
        self.enc = encode_qrels(as_qrels(qrels))
        self.run = _run_columns(run)
        self.label = label or self.run.name or self.run.run_id or ""
        self.ranking = build_ranking(
            self.enc, self.run, **self.settings.trec_options(), run_id=self.run.run_id or self.label
        )
        self._qcode = {q: i for i, q in enumerate(self.enc.queries)}
        self._index = {str(q): i for i, q in enumerate(self.ranking.query_ids.tolist())}
        self._shown = {shown(q): q for q in self._index}

    @property
    def query_ids(self) -> list[str]:
        return [str(q) for q in self.ranking.query_ids.tolist()]

    def row_of(self, qid) -> int:
        """The position of query ``qid`` among the evaluated queries (raises :class:`UnknownQuery`)."""
        return self._index[self._qid(qid)]

    def has_query(self, qid: str) -> bool:
        return str(qid) in self._index or str(qid) in self._shown

    def _qid(self, qid) -> str:
        qid = str(qid)
        if qid in self._index:
            return qid
        if qid in self._shown:
            return self._shown[qid]
        if qid in self._qcode:
            why = "the run has no results for it (with -c it is scored against trec_eval's placeholder)"
        else:
            why = "it is not in the qrels"
        raise UnknownQuery(f"query {qid!r} is not evaluated for this run: {why}")

    # ------------------------------------------------------------------ the ranking of one query
    def view(self, m: Measure) -> tuple[JudgedRanking, bool]:
        """The ranking measure ``m`` reads (its own relevance level, its judged-only option), as the
        evaluator makes it, and whether that view drops unjudged documents."""
        r = self.ranking
        if m.rel is not None:
            r = r.with_relevance_level(m.rel)
        own = is_true(dict(m.options).get("judged_only", "false"))
        if own:
            r = r.judged_only_view()
        return r, own

    def query(self, qid, r: JudgedRanking | None = None, judged_only: bool = False) -> QueryRanking:
        """Query ``qid``'s part of ranking ``r`` (the prepared one by default) with the documents' ids."""
        r = self.ranking if r is None else r
        qid = self._qid(qid)
        qi = self._index[qid]
        qc = self._qcode[qid]
        lo, hi = int(r.offsets[qi]), int(r.offsets[qi + 1])
        codes = [int(c) for c in r.rel[lo:hi].tolist()]
        judged_lines = np.flatnonzero(self.enc.qcode == qc)
        judged_bytes = dict(zip(self.enc.doc_sorted[judged_lines].tolist(), self.enc.rel[judged_lines].tolist()))
        if bool(r.placeholder[qi]):
            docs = [PLACEHOLDER_DOC.encode()]
        else:
            rows = np.flatnonzero(self.run.qid == self.enc.query_keys[qc])
            score = np.asarray(self.run.value, dtype=np.float64)[rows]
            doc = self.run.doc[rows]
            order = rank_order(np.zeros(len(rows), dtype=np.int32), score, doc)
            docs = doc[order].tolist()
            if r.max_docs is not None:
                docs = docs[: r.max_docs]
        own_codes = [_code(judged_bytes.get(d)) for d in docs]
        if r.judged_only or judged_only:
            docs = [d for d, c in zip(docs, own_codes) if c >= 0]
            own_codes = [c for c in own_codes if c >= 0]
        if own_codes != codes:  # the ids must be those of the ranking the measures read
            raise RuntimeError(f"query {qid!r}: the documents do not match the judged ranking")
        return QueryRanking(
            query_id=qid,
            index=qi,
            docids=[shown(d.decode("utf-8", "surrogateescape")) for d in docs],
            codes=codes,
            relcum=[int(c) for c in r.relcum[lo:hi].tolist()],
            num_ret=int(r.num_ret[qi]),
            num_rel=int(r.num_rel[qi]),
            num_rel_ret=int(r.num_rel_ret[qi]),
            level=int(r.relevance_level),
            placeholder=bool(r.placeholder[qi]),
            rel_levels=[int(x) for x in r.rel_levels[qi].tolist()],
            judged={shown(d.decode("utf-8", "surrogateescape")): int(g) for d, g in judged_bytes.items()},
        )

    # ------------------------------------------------------------------ explanations
    def kernel(self, m: Measure):
        """(per-query values, summary value) of ``m`` by the evaluator on the prepared ranking (text
        measures: their strings)."""
        ((_, values, aggregate),) = list(compute(self.ranking, [m]))
        return np.asarray(values, dtype=object if m.kind == "text" else np.float64), aggregate

    def explain(self, measure, qid) -> Explanation:
        """How ``measure``'s value for query ``qid`` (``"all"``: the summary) was computed."""

        m = resolve_measure(measure)
        fam = FAMILIES[m.family]
        asked = "" if isinstance(measure, Measure) or str(measure).partition(".")[0] in FAMILIES else str(measure)
        base: dict[str, Any] = dict(measure=m.trec_name, run=self.label, asked=asked if asked != m.trec_name else "")
        text = fam.kind == "text"
        if text and (str(qid) == SUMMARY or not fam.per_query or m.family not in EXPLAINERS):
            reason = f"{m.trec_name} is text, not a number" + (": it has no summary" if fam.per_query else "")
            return Explanation(query_id=str(qid), value=None, explained=False, reason=reason, **base)
        values, aggregate = self.kernel(m)
        if str(qid) == SUMMARY:
            return explain_summary(self, m, values, aggregate, base)
        qid = self._qid(qid)
        value: float | str = (str if text else float)(values[self._index[qid]])
        line = query_line(m, qid, value) if fam.per_query else ""
        explainer = EXPLAINERS.get(m.family)
        if explainer is None:
            reason = f"{m.trec_name} cannot be explained yet: its working is not written out (its value is as computed)"
            return Explanation(query_id=qid, value=value, explained=False, reason=reason, line=line, **base)
        r, own = self.view(m)
        q = self.query(qid, r, own)
        work = explainer(q, m, r)
        shown = conventions(r, m)
        return explanation_of(work, value, query_id=qid, line=line, conventions=shown, kind=m.kind, **base)

    def side_by_side(self, measure, qid):
        """trec_eval's value of ``measure`` for query ``qid`` (``"all"``: the summary) next to the textbook
        conventions that apply, as a DataFrame: see :func:`metrics.explain.textbook.side_by_side`."""
        from metrics.explain.textbook import side_by_side

        return side_by_side(self, resolve_measure(measure), None if str(qid) == SUMMARY else self.row_of(qid))

    def gain_curve(self, qid, measure=None, k_max: int | None = None):
        """Where the gain was lost for query ``qid``: see :func:`metrics.explain.graded.gain_curve`."""

        m = resolve_measure(measure) if measure is not None else resolve_measure("ndcg")
        return gain_curve(self, m, self._qid(qid), k_max)


def _code(grade) -> int:
    if grade is None:
        return NONPOOL
    return int(grade) if grade >= 0 else UNJUDGED
