"""The explain view's state and work: which value (run, query, measure) is explained, computed in a worker
from the results shown (plain Python, no Qt).

Part of :class:`workbench.model.session.SessionModel` (as :class:`ExplainRules`); the explanation comes
from :mod:`metrics.explain`, which builds it from the same judged ranking the measures read, under the
options the results were computed with: an ad hoc measure's from the qrels, a diversity measure's
(alpha-nDCG@k, ERR-IA@k, P-IA@k, StRecall@k, NRBP) from the intent qrels the results were scored against.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.model.diversity import is_diversity
from workbench.model.session_state import SessionState

if TYPE_CHECKING:
    from metrics.explain.model import Explanation, GainCurve

#: the runs' prepared rankings kept for more explanations of the same results (a run of a million lines
#: takes a second to rank; clicking along a row of the per-query table explains the same runs again)
_KEEP = 4
_prepared: dict = {}
_lock = threading.Lock()


@dataclass(frozen=True, eq=False)
class Request:
    """Explain ``measure`` of ``run`` on ``query_id`` ("all": the mean) as ``results`` computed it."""

    results: object
    run: str
    query_id: str
    measure: str

    def same_as(self, other) -> bool:
        return other is not None and (self.results, self.run, self.query_id, self.measure) == (
            other.results,
            other.run,
            other.query_id,
            other.measure,
        )


@dataclass(frozen=True)
class Explained:
    """What the explain view shows: the explanation and, for a query, the run's gain against the ideal."""

    request: Request
    explanation: Explanation
    gain_curve: GainCurve | None  # (None for a diversity measure)


def _prepare(results, run: str, diversity: bool = False):
    """The run's ranking prepared for explanations: against the qrels (:class:`metrics.explain.Prepared`), or
    with ``diversity`` against the intent qrels (:class:`metrics.explain.PreparedDiversity`)."""
    from metrics.explain import Prepared, PreparedDiversity
    from workbench.model.run_on_disk import RunOnDisk

    key = (id(results), run, diversity)
    with _lock:
        hit = _prepared.get(key)
        if hit is not None and hit[0] is results:
            return hit[1]
    request = results.request
    source = request.runs[run]
    if isinstance(source, RunOnDisk):
        source = source.path
    level = request.relevance_level
    prepared: object
    if diversity:
        prepared = PreparedDiversity(request.intents, source, relevance_level=level, label=run)
    else:
        prepared = Prepared(request.qrels, source, relevance_level=level, label=run)
    with _lock:
        _prepared[key] = (results, prepared)
        while len(_prepared) > _KEEP:
            del _prepared[next(iter(_prepared))]
    return prepared


def compute(request: Request, progress=None) -> Explained:
    """The explanation of ``request`` (in a worker)."""
    if is_diversity(request.measure):  # (no gain curve: the diversity measures' gains are not nDCG's)
        prepared = _prepare(request.results, request.run, diversity=True)
        return Explained(request, prepared.explain(request.measure, request.query_id), None)
    prepared = _prepare(request.results, request.run)
    explanation = prepared.explain(request.measure, request.query_id)
    curve = None
    if request.query_id != "all" and explanation.explained:
        curve = prepared.gain_curve(request.query_id, request.measure)
    return Explained(request, explanation, curve)


class ExplainRules(SessionState):
    """The explain rules of :class:`~workbench.model.session.SessionModel`: ``explain_target`` is what
    the user chose to explain (run, query id or "all", measure), ``explained`` what is shown."""

    explain_target: tuple[str, str, str] | None = None
    explained: Explained | None = None

    def explain(self, run: str, query_id, measure: str) -> None:
        """Explain ``measure`` of ``run`` on ``query_id`` (None: the mean over queries)."""
        self.explain_target = (str(run), "all" if query_id is None else str(query_id), str(measure))

    def explain_request(self) -> Request | None:
        """The explanation to compute now; None (and the one shown dropped) when there is nothing to
        explain: no target, or results without its run, query or measure."""
        results, target = self.results, self.explain_target
        if results is None or target is None:
            self.apply_explanation(None)
            return None
        run, query, measure = target
        if (
            run not in results.runs
            or run not in results.request.runs
            or measure not in results.measures
            or (is_diversity(measure) and getattr(results.request, "intents", None) is None)
        ):
            self.apply_explanation(None)
            return None
        if query != "all" and query not in set(results.query_ids):
            self.apply_explanation(None)
            return None
        request = Request(results, run, query, measure)
        if self.explained is not None and self.explained.request.same_as(request):
            return None  # shown already
        return request

    def apply_explanation(self, explained: Explained | None) -> None:
        if explained is None and self.explained is None:
            return
        self.explained = explained
        self.events.explanation_changed.emit(explained)
