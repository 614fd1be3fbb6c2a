"""How a diversity measure's value was computed: alpha-nDCG@k, ERR-IA@k, P-IA@k, StRecall@k, NRBP, alpha-DCG@k,
nERR-IA@k, nNRBP and AP-IA of one run against intent qrels (``qid intent docid grade``), for one query or the
mean over the queries.

:class:`PreparedDiversity` ranks the run once with the functions :func:`metrics.evaluate_diversity` ranks
it with (:func:`metrics.engine.intents.ranked_documents`, :func:`~metrics.engine.intents.ranked_relevance`),
so the ranking, the intents and the relevance are those the measures read.  The value of an explanation
is the kernel's (:func:`metrics.measures.diversity.query_values` on those matrices, the mean as
evaluate_diversity takes it); the rows are the kernel's own steps (:func:`metrics.measures.diversity.steps`)
laid out by :mod:`metrics.explain.intent_rows`, and the number the rows add up to must reproduce the value
for the explanation to be shown.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from metrics.engine.evaluate import as_runs, labelled_runs
from metrics.engine.evaluation import format_value
from metrics.engine.intents import (
    Judged,
    diversity_settings,
    judged_matrices,
    mean_over_queries,
    parse_diversity_measures,
    ranked_documents,
    ranked_relevance,
    read_intent_qrels,
)
from metrics.engine.settings import Settings
from metrics.explain.intent_rows import IntentRanking, explainable, working
from metrics.explain.model import Explanation, Table, counted
from metrics.explain.query import RANKING, UnknownQuery, explanation_of, reproduces
from metrics.measures.diversity import DiversityMeasure, parse_diversity, query_values, steps
from metrics.measures.registry import INTENT_FAMILIES

__all__ = ["PreparedDiversity"]

SUMMARY = "all"
_COLUMNS = ["query_id", "intent", "doc_id", "relevance"]


class PreparedDiversity:
    """A run ranked against intent qrels, once, from which any diversity measure's value for any query (or
    the mean) is explained.  Pure computation: safe to build and use in a worker thread."""

    def __init__(self, intent_qrels, run, *, settings: Settings | None = None, label=None):
        settings = diversity_settings(settings)
        qrels = intent_qrels
        if not (isinstance(qrels, pd.DataFrame) and list(qrels.columns) == _COLUMNS):
            qrels = read_intent_qrels(qrels)
        found = list(labelled_runs(as_runs({str(label): run} if label else run)))
        if len(found) != 1:
            raise ValueError(f"explain one run at a time, not {len(found)}")
        self.label, frame = found[0]
        self.qrels = qrels
        self.settings = settings
        self.level = settings.relevance_level
        self.complete = settings.complete
        self.queries: list[str] = sorted(set(qrels["query_id"]))  # evaluate_diversity's order
        self._docs, self._starts, present = ranked_documents(frame, self.queries)  # type: ignore[arg-type]
        self._present = set(present)
        self._evaluated = list(range(len(self.queries))) if self.complete else present
        self._index = {self.queries[i]: i for i in self._evaluated}
        self._judged: dict[int, dict[str, Judged]] = {}
        self._grades: dict[str, dict[str, list[tuple[str, int]]]] | None = None

    @property
    def query_ids(self) -> list[str]:
        """The queries evaluated for the run (those evaluate_diversity averages over)."""
        return [self.queries[i] for i in self._evaluated]

    @staticmethod
    def measure_named(measure, level: int = 1) -> tuple[DiversityMeasure, str]:
        """The diversity measure ``measure`` names at relevance level ``level`` (for a name that sets no
        ``rel``), and its name as written; ValueError when it names none."""
        ((m, name),) = parse_diversity_measures([str(measure)], level).items()
        return m, name

    def measure(self, measure) -> tuple[DiversityMeasure, str]:
        """The diversity measure ``measure`` names, and its name as written."""
        return self.measure_named(measure, self.level)

    def _qid(self, qid) -> int:
        qid = str(qid)
        if qid in self._index:
            return self._index[qid]
        if qid in set(self.queries):
            why = "the run has no results for it (with complete=True, -c, it scores 0)"
        else:
            why = "it is not in the intent qrels"
        raise UnknownQuery(f"query {qid!r} is not evaluated for this run: {why}")

    def judged(self, level: int) -> dict[str, Judged]:
        if level not in self._judged:
            self._judged[level] = judged_matrices(self.qrels, level)
        return self._judged[level]

    def _grade_pairs(self, qid: str) -> dict[str, list[tuple[str, int]]]:
        if self._grades is None:
            grades: dict[str, dict[str, list[tuple[str, int]]]] = {}
            for q, intent, doc, grade in zip(*(self.qrels[c].tolist() for c in _COLUMNS)):
                grades.setdefault(str(q), {}).setdefault(str(doc), []).append((str(intent), int(grade)))
            self._grades = grades
        return self._grades.get(qid, {})

    def query(self, qid, m: DiversityMeasure) -> IntentRanking:
        """Query ``qid``'s ranking against its intents at measure ``m``'s relevance level."""
        i = self._qid(qid)
        qid = self.queries[i]
        docs = [str(d) for d in self._docs[self._starts[i] : self._starts[i + 1]]]
        judged = self.judged(m.rel)[qid]
        return IntentRanking(qid, docs, ranked_relevance(docs, judged), judged, self._grade_pairs(qid), m.rel)

    def values(self, m: DiversityMeasure) -> list[float]:
        """``m``'s value for each query evaluated, as evaluate_diversity computes it."""
        out = []
        for qid in self.query_ids:
            q = self.query(qid, m)
            out.append(query_values(q.relevance, q.judged.matrix, q.judged.ids, [m])[m])
        return out

    # ------------------------------------------------------------------ explanations
    def conventions(self, m: DiversityMeasure, name: str) -> list[str]:
        own = parse_diversity(name, self.level + 1) == m  # the name sets its own rel
        out = [
            RANKING,
            f"Relevant to an intent: judged for it with a grade >= {m.rel}"
            + (" (the measure's own)" if own else f" (-l {self.level})")
            + "; documents the intent qrels do not judge for it, and negative grades, never are",
        ]
        fam = INTENT_FAMILIES[m.name]
        if fam.alpha:
            beta = f", beta = {m.beta:g}" if fam.beta else ""
            out.append(
                f"alpha = {m.alpha:g}{beta}: a document's gain for an intent is (1 - alpha)^c, c the documents "
                "above it relevant to the same intent (ndeval's novelty penalty)"
            )
        if self.complete:
            out.append("-c: queries of the intent qrels the run lacks count, scoring 0")
        return out

    def explain(self, measure, qid) -> Explanation:
        """How ``measure``'s value for query ``qid`` (``"all"``: the mean) was computed."""
        m, name = self.measure(measure)
        base: dict[str, Any] = dict(measure=name, run=self.label)
        if str(qid) == SUMMARY:
            return self._summary(m, name, base)
        q = self.query(qid, m)
        value = float(query_values(q.relevance, q.judged.matrix, q.judged.ids, [m])[m])
        line = _line(name, q.query_id, value)
        if not explainable(m):
            reason = f"{name} cannot be explained yet: its working is not written out (its value is as computed)"
            return Explanation(query_id=q.query_id, value=value, explained=False, reason=reason, line=line, **base)
        work = working(q, m, steps(m, q.relevance, q.judged.matrix, q.judged.ids, ideal=True))
        conventions = self.conventions(m, name)
        return explanation_of(work, value, query_id=q.query_id, line=line, conventions=conventions, **base)

    def _summary(self, m: DiversityMeasure, name: str, base: dict) -> Explanation:
        values = self.values(m)
        value = mean_over_queries(values)
        rows, running = [], 0.0
        for qid, v in zip(self.query_ids, values):
            running += v
            note = "" if self._index[qid] in self._present else "not in the run: scores 0"
            rows.append({"query": qid, "value": v, "running sum": running, "note": note})
        n = len(values)
        worked = running / n if n else 0.0
        lines = [f"{counted(n, 'query', 'queries')} evaluated"]
        lacking = len(self.queries) - len(self._present)
        if self.complete:
            lines.append(
                f"-c: the mean is over all {counted(n, 'query', 'queries')} of the intent qrels; "
                f"{lacking} of them the run lacks"
            )
        elif lacking:
            are, them = ("is", "it") if lacking == 1 else ("are", "they")
            lines.append(
                f"{counted(lacking, 'query', 'queries')} of the intent qrels the run lacks {are} left out "
                f"(with -c {them} would count)"
            )
        lines.append(f"{name} = {running:.4f} / {n} = {worked:.4f}")
        ok = reproduces(worked, value)
        return Explanation(
            query_id=SUMMARY,
            value=value,
            explained=ok,
            reason="" if ok else f"its working ({worked!r}) does not reproduce the mean ({value!r})",
            formula=f"{name} (all) = (sum of the per-query values) / number of queries",
            tables=(Table("Per-query values", ("query", "value", "running sum", "note"), tuple(rows)),) if ok else (),
            summary=tuple(lines) if ok else (),
            conventions=tuple(self.conventions(m, name)) if ok else (),
            line=_line(name, SUMMARY, value),
            worked=worked,
            **base,
        )


def _line(name: str, qid: str, value: float) -> str:
    """The line ``ir-eval -q -m NAME`` prints for the value (trec_eval's layout)."""
    return f"{name:<22}\t{qid}\t{format_value('double', value)}"
