"""The explain view's state and work: which value (run, query, measure) is explained, computed in a worker
from the results shown (plain Python, no Qt).

Part of :class:`workbench.state.session.SessionModel` (as :class:`ExplainRules`); the explanation comes
from :mod:`metrics.explain`, which builds it from the same judged ranking the measures read, under the
options the results were computed with: an ad hoc measure's from the qrels, a diversity measure's
(alpha-nDCG@k, ERR-IA@k, P-IA@k, StRecall@k, NRBP, alpha-DCG@k, nERR-IA@k, nNRBP, AP-IA) from the intent
qrels the results were scored against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.scoring.intents import is_diversity
from workbench.state.session_state import SessionState

if TYPE_CHECKING:
    import pandas as pd

    from metrics.explain.model import Explanation, GainCurve


@dataclass(frozen=True, eq=False)
class Request:
    """Explain ``measure`` of ``run`` on ``query_id`` ("all": the mean) as ``results`` computed it."""

    results: object
    run: str
    query_id: str
    measure: str

    def same_as(self, other: Request | None) -> bool:
        """Whether ``other`` explains the same value of the same results (the results compared by identity:
        new results are a new object, and comparing their frames by value is neither meant nor possible)."""
        return (
            other is not None
            and self.results is other.results
            and (self.run, self.query_id, self.measure) == (other.run, other.query_id, other.measure)
        )


@dataclass(frozen=True)
class Explained:
    """What the explain view shows: the explanation and, for a query, the run's gain against the ideal."""

    request: Request
    explanation: Explanation
    gain_curve: GainCurve | None  # the DCG family's only
    #: the textbooks' conventions side by side with trec_eval's value (metrics.explain.side_by_side), or None
    #: (a diversity measure, a measure that is text, or one without variants)
    textbook: pd.DataFrame | None = None


def _prepare(results, run: str, diversity: bool = False):
    """The run's ranking prepared for explanations: against the qrels (:class:`metrics.explain.Prepared`), or
    with ``diversity`` against the intent qrels (:class:`metrics.explain.PreparedDiversity`); kept by the
    window's scoring service under the identities of the run's and the judgments' content (a run of a
    million lines takes a second to rank, and the next explanation is often of the same run)."""
    request = results.request

    def make():
        from metrics.explain import Prepared, PreparedDiversity
        from workbench.scoring.run_on_disk import RunOnDisk

        source = request.runs[run]
        if isinstance(source, RunOnDisk):
            source = source.path
        if diversity:
            return PreparedDiversity(request.intents, source, settings=request.settings, label=run)
        return Prepared(request.qrels, source, settings=request.settings, label=run)

    cache = request.cache
    if cache is None:  # (results computed without the window's service: nothing to keep them in)
        return make()
    return cache.service.derived(_identity(request, run, diversity), make)


def _identity(request, run: str, diversity: bool) -> tuple:
    """What an explanation of ``run`` is made from: the run's content, the judgments' and the level."""
    from workbench.scoring.service import frame_digest, qrels_identity, run_identity

    ident = run_identity(request.runs[run], (request.identities or {}).get(run))
    if diversity:
        judged = request.intents_identity or frame_digest(
            request.intents, ("query_id", "intent", "doc_id", "relevance")
        )
    else:
        parts = request.qrels if isinstance(request.qrels, tuple) else (request.qrels,)
        judged = qrels_identity(parts, request.qrels_identity)
    return ("explain", ident, judged, request.settings, diversity)


def compute(request: Request, progress=None) -> Explained:
    """The explanation of ``request`` (in a worker)."""
    if is_diversity(request.measure):  # (no gain curve: the diversity measures' gains are not nDCG's)
        prepared = _prepare(request.results, request.run, diversity=True)
        return Explained(request, prepared.explain(request.measure, request.query_id), None)
    prepared = _prepare(request.results, request.run)
    explanation = prepared.explain(request.measure, request.query_id)
    curve = textbook = None
    if explanation.explained:
        if request.query_id != "all" and is_dcg_family(request.measure):
            curve = prepared.gain_curve(request.query_id, request.measure)
        try:
            textbook = prepared.side_by_side(request.measure, request.query_id)
        except ValueError:  # (a measure that is text: no convention to compare)
            textbook = None
    return Explained(request, explanation, curve, textbook)


def is_dcg_family(measure: str) -> bool:
    """Whether a measure is of the DCG family (nDCG, DCG, their cutoffs and variants, ndcg_rel, Rndcg): the
    only ones whose working is pictured as cumulative gain against the ideal ranking."""
    from metrics.explain import resolve_measure
    from metrics.explain.graded import CURVE_FAMILIES

    try:
        return resolve_measure(measure).family in CURVE_FAMILIES
    except (KeyError, ValueError):
        return False


class ExplainRules:
    """The explain rules, a part of :class:`~workbench.state.session.SessionModel` (``model.explainer``):
    it reads the results of ``state`` and tells the explanation through its events.  ``explain_target`` is
    what the user chose to explain (run, query id or "all", measure), ``explained`` what is shown."""

    def __init__(self, state: SessionState):
        self.state = state
        self.explain_target: tuple[str, str, str] | None = None
        self.explained: Explained | None = None

    def explain(self, run: str, query_id, measure: str) -> None:
        """Explain ``measure`` of ``run`` on ``query_id`` (None: the mean over queries)."""
        self.explain_target = (str(run), "all" if query_id is None else str(query_id), str(measure))

    def explain_request(self) -> Request | None:
        """The explanation to compute now; None (and the one shown dropped) when there is nothing to
        explain: no target, or results without its run, query or measure."""
        results, target = self.state.results, self.explain_target
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
        self.state.events.explanation_changed.emit(explained)
