"""Which measure families have their working written out, and the conventions every explanation
states (the ranking order, the relevance level, ``-M``, ``-J``, ``-c``)."""

from __future__ import annotations

from metrics.explain import counts, graded, ranked, user_models
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
    "map_cut": ranked.average_precision_cut,
    "rr_cut": ranked.reciprocal_rank_cut,
    "hits": ranked.hits_at,
    "relative_P": ranked.relative_precision,
    "f1_cut": ranked.f1_at,
    "Rprec_mult": ranked.r_precision_mult,
    "unj": ranked.unjudged_at,
    "Judged": ranked.judged_at,
    "map_ext": ranked.map_ext,
    "binG": ranked.binary_g,
    "11pt_avg": ranked.eleven_point_average,
    "Accuracy": ranked.accuracy,
    "dcg": graded.dcg,
    "dcg_cut": graded.dcg,
    "ideal_dcg": graded.ideal_dcg,
    "ERR": graded.expected_reciprocal_rank,
    "G": graded.g_measure,
    "ndcg_rel": graded.ndcg_rel,
    "Rndcg": graded.rndcg,
    "rbp": user_models.rbp,
    "rbp_resid": user_models.rbp_residual,
    "rbp_ext": user_models.rbp_ext,
    "inst": user_models.cwl,
    "insq": user_models.cwl,
    "bpm": user_models.cwl,
    "sdcg": user_models.cwl,
    "nerr8": user_models.cwl,
    "nerr9": user_models.cwl,
    "nerr10": user_models.cwl,
    "nerr11": user_models.cwl,
    "compat": user_models.compat,
    "num_ret": counts.num_ret,
    "num_rel": counts.num_rel,
    "num_rel_ret": counts.num_rel_ret,
    "num_nonrel_judged_ret": counts.num_nonrel_judged_ret,
    "set_relative_P": counts.set_relative_precision,
    "set_map": counts.set_map,
    "utility": counts.utility,
    "relstring": counts.relstring,
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
