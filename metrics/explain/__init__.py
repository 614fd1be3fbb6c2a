"""Show the working: how every value was computed, from the ranked list it came from.

>>> from metrics.explain import explain, gain_curve
>>> e = explain("qrels.txt", "run.txt", "map", "1")      # doctest: +SKIP
>>> print(e.to_text())                                    # doctest: +SKIP

:class:`Prepared` builds a run's judged ranking once for many explanations (the window's worker
does that); :func:`explain` and :func:`gain_curve` are one-off shortcuts.  The diversity measures
(alpha-nDCG@k, ERR-IA@k, P-IA@k, StRecall@k, NRBP) are explained from intent qrels by
:func:`explain_diversity` (:class:`PreparedDiversity` for many values of one run).  Everything here is pure
computation: call it off the GUI thread, the widget only shows the result.

The explained measures are listed by :func:`explained_families`; their value is always the
measure's own kernel's, and their rows' arithmetic is checked against it when the explanation is
made.  Other measures give an :class:`Explanation` with ``explained`` False that says so.
"""

from __future__ import annotations

from metrics.explain.core import Prepared, resolve_measure
from metrics.explain.diversity import PreparedDiversity, explain_diversity
from metrics.explain.explainers import explained_families
from metrics.explain.model import Explanation, GainCurve, RelevantMark, Table
from metrics.explain.query import QueryRanking, UnknownQuery

__all__ = [
    "Explanation",
    "GainCurve",
    "RelevantMark",
    "Table",
    "Prepared",
    "PreparedDiversity",
    "explain_diversity",
    "QueryRanking",
    "UnknownQuery",
    "explain",
    "gain_curve",
    "explained_families",
    "resolve_measure",
]


def explain(qrels, run, measure, query_id, **options) -> Explanation:
    """How ``measure``'s value for ``query_id`` (``"all"``: the summary) was computed for ``run``.

    ``qrels`` and ``run``: paths, frames or columns, as :func:`metrics.evaluate` takes them;
    ``options``: ``relevance_level``, ``complete``, ``max_docs``, ``judged_only``, ``num_docs_in_coll``
    and ``label`` (the run's name in the text)."""
    return Prepared(qrels, run, **options).explain(measure, query_id)


def gain_curve(qrels, run, query_id, measure=None, k_max: int | None = None, **options) -> GainCurve:
    """The run's DCG@k against the ideal ranking's for ``query_id``, under ``measure``'s nDCG variant."""
    return Prepared(qrels, run, **options).gain_curve(query_id, measure, k_max)
