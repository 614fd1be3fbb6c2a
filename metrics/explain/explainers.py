"""Which measure families have their working written out, and the conventions every explanation
states (the ranking order, the relevance level, ``-M``, ``-J``, ``-c``)."""

from __future__ import annotations

from metrics.explain import graded, ranked
from metrics.explain.query import RANKING
from metrics.measures import Measure
from metrics.ranking.judged import JudgedRanking

__all__ = ["EXPLAINERS", "conventions", "explained_families"]

#: family -> explainer(query ranking, measure, judged ranking) -> Working
EXPLAINERS = {
    "map": ranked.average_precision,
    "recip_rank": ranked.reciprocal_rank,
    "P": ranked.precision_at,
    "recall": ranked.recall_at,
    "Rprec": ranked.r_precision,
    "success": ranked.success_at,
    "set_P": ranked.set_measure,
    "set_recall": ranked.set_measure,
    "set_F": ranked.set_measure,
    "bpref": ranked.bpref,
    "infAP": ranked.inferred_ap,
    "iprec_at_recall": ranked.iprec_at_recall,
    "ndcg": graded.ndcg,
    "ndcg_cut": graded.ndcg,
    "ndcg_ext": graded.ndcg,
}


def explained_families() -> list[str]:
    """The measure families whose per-query values are explained (any family's summary is)."""
    return list(EXPLAINERS)


def conventions(r: JudgedRanking, m: Measure) -> list[str]:
    """The conventions in force for measure ``m`` on ranking ``r``, as sentences."""
    out = [RANKING]
    level = r.relevance_level
    own = " (the measure's own)" if m.rel is not None else f" (-l {level})"
    out.append(f"Relevant: judged with a grade >= {level}{own}")
    if r.max_docs is not None:
        out.append(f"-M {r.max_docs}: only the first {r.max_docs} documents of each ranking are read")
    if r.judged_only:
        out.append("-J: documents the qrels do not judge are removed before ranking, the ranks closed up")
    if r.complete:
        out.append("-c: queries of the qrels the run lacks count, scored against trec_eval's placeholder ranking")
    return out
