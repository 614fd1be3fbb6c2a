"""Show the working: how every value was computed, from the ranked list it came from.

>>> from metrics.explain import explain, gain_curve
>>> e = explain("qrels.txt", "run.txt", "map", "1")      # doctest: +SKIP
>>> print(e.to_text())                                    # doctest: +SKIP

:class:`Prepared` builds a run's judged ranking once for many explanations (the window's worker
does that); :func:`explain` and :func:`gain_curve` are one-off shortcuts.  The diversity measures
(alpha-nDCG@k, ERR-IA@k, P-IA@k, StRecall@k, NRBP) are explained from intent qrels by
:func:`explain_diversity` (:class:`PreparedDiversity` for many values of one run).  Everything here is pure
computation: call it off the GUI thread, the widget only shows the result.

:func:`side_by_side` sets a measure's value next to its textbook conventions (AP over the relevant
retrieved, interpolated AP, the Järvelin-Kekäläinen discount, ...), each computed by the measure's kernel
(:mod:`metrics.explain.textbook`).

The explained measures are listed by :func:`explained_families`; their value is always the
measure's own kernel's, and their rows' arithmetic is checked against it when the explanation is
made.  Other measures give an :class:`Explanation` with ``explained`` False that says so.
"""

from __future__ import annotations

from metrics.engine.settings import Settings
from metrics.explain.core import Prepared, resolve_measure
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
    "side_by_side",
    "explained_families",
    "resolve_measure",
]


def explain(qrels, run, measure, query_id, *, settings: Settings | None = None, label=None) -> Explanation:
    """How ``measure``'s value for ``query_id`` (``"all"``: the summary) was computed for ``run``.

    ``qrels`` and ``run``: paths, frames or columns, as :func:`metrics.evaluate` takes them;
    ``settings``: the :class:`~metrics.Settings` the run is scored with (None: trec_eval's);
    ``label``: the run's name in the text."""
    return Prepared(qrels, run, settings=settings, label=label).explain(measure, query_id)


def explain_diversity(
    intent_qrels, run, measure, query_id, *, settings: Settings | None = None, label=None
) -> Explanation:
    """How diversity ``measure``'s value for ``query_id`` (``"all"``: the mean over the queries) was computed
    for ``run`` against ``intent_qrels``, as :func:`metrics.evaluate_diversity` computes it under the same
    ``settings`` (their relevance level and ``complete``; see :mod:`metrics.explain.diversity`);
    ``label``: the run's name."""
    from metrics.explain.diversity import PreparedDiversity

    return PreparedDiversity(intent_qrels, run, settings=settings, label=label).explain(measure, query_id)


def __getattr__(name: str):
    if name == "PreparedDiversity":  # (with pandas: imported when first asked for)
        from metrics.explain.diversity import PreparedDiversity

        return PreparedDiversity
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def side_by_side(qrels, run, measure, query_id, *, settings: Settings | None = None, label=None):
    """trec_eval's value of ``measure`` for ``query_id`` (``"all"``: the summary) next to the textbook
    conventions that apply (AP over the relevant retrieved, interpolated AP, positional relevance, the
    Järvelin-Kekäläinen discount, exponential gain, the ideal ranking of the retrieved documents, other
    ``-l`` levels), each computed by the measures' kernels, as a DataFrame with one row per variant and
    a sentence on where it differs (:mod:`metrics.explain.textbook`).  Arguments as :func:`explain`."""
    return Prepared(qrels, run, settings=settings, label=label).side_by_side(measure, query_id)


def gain_curve(
    qrels, run, query_id, measure=None, k_max: int | None = None, *, settings: Settings | None = None
) -> GainCurve:
    """The run's DCG@k against the ideal ranking's for ``query_id``, under ``measure``'s nDCG variant."""
    return Prepared(qrels, run, settings=settings).gain_curve(query_id, measure, k_max)
