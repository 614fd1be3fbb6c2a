"""Binary-relevance measures over the ranking: map, gm_map, Rprec,
recip_rank, P, recall, map_cut, relative_P, success, Rprec_mult, unj.

"Relevant" means judged grade >= the relevance level (trec_eval -l, default 1);
documents not in the qrels, or in the qrels with a negative grade, count as
non-relevant.  Ranks follow trec_eval: score descending, ties broken by
document id in descending byte order.
"""

from __future__ import annotations

import numpy as np

from metrics.measures._kernels import (
    at_depth,
    count_at_depth,
    cutoff_matrix,
    masked_at_depth,
    masked_prefix,
    segment_total,
)
from metrics.measures.registry import DoubleCutoffs, LongCutoffs, geometric_mean, measure

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def _relcum(r):
    """Running number of relevant documents, per rank, inclusive."""
    return r.relcum


def _ap_sparse(r):
    """Running sum of precision over the relevant ranks, left to right as
    trec_eval sums it (masked_prefix form)."""
    isrel = r.isrel()
    return masked_prefix(r, isrel, r.relcum[isrel] / (r.rank[isrel] + 1.0))


def _average_precision(r):
    """Average precision per query (made once for map and gm_map: ``r.memo``)."""
    return r.memo.get("average_precision", lambda: _ap(r))


def _ap(r):
    _, prefix, poff = _ap_sparse(r)
    total = segment_total(prefix, poff)
    # trec_eval tests its own count of ranks with a code >= the level (at a
    # negative level more than num_rel_ret)
    return np.where(segment_total(r.relcum, r.offsets, 0) > 0, total / np.maximum(r.num_rel, 1), 0.0)


@measure("map", label="MAP (mean average precision)", ir_measures="AP", aliases=("MAP",))
def average_precision(r):
    """Average precision: sum over retrieved relevant docs of precision at
    their rank, divided by the number of relevant docs (num_rel, retrieved or
    not).  0 when no relevant doc is retrieved (and for queries without
    relevant docs).  Summary: mean."""
    return _average_precision(r)


@measure("gm_map", aggregate=geometric_mean, per_query=False)
def gm_average_precision(r):
    """Average precision per query (as map); the summary is the geometric
    mean exp(mean(log(max(AP, 0.00001)))).  trec_eval prints no per-query rows."""
    return _average_precision(r)


@measure("Rprec", label="R-precision", ir_measures="Rprec", aliases=("RPrec",))
def r_precision(r):
    """Precision after R = num_rel docs: relevant in the top min(R, num_ret)
    divided by R.  0 when R or num_ret is 0."""
    depth = np.minimum(r.num_ret, r.num_rel)
    hits = at_depth(_relcum(r), r.offsets, depth, 0)
    return np.where(depth > 0, hits / np.maximum(r.num_rel, 1), 0.0)


@measure("recip_rank", label="Reciprocal rank", ir_measures="RR", aliases=("MRR",))
def reciprocal_rank(r):
    """Reciprocal rank: 1 / rank of the first retrieved relevant doc; 0 if none is retrieved."""
    isrel = r.isrel()
    first = np.full(r.n_queries, -1, dtype=np.int64)
    idx = np.nonzero(isrel)[0]
    q = r.qidx[idx]
    # first relevant rank per query: reversed assignment keeps the smallest
    first[q[::-1]] = r.rank[idx][::-1]
    return np.where(first >= 0, 1.0 / (first + 1.0), 0.0)


@measure("P", params=LongCutoffs(*_CUTS), label="P@{k}", ir_measures="P", aliases=("Precision",))
def precision(r, cutoffs):
    """Precision at cutoff k: relevant docs in the top k divided by k; when
    fewer than k docs are retrieved the missing ones count as non-relevant."""
    k = cutoff_matrix(r.n_queries, cutoffs)
    return at_depth(_relcum(r), r.offsets, k, 0) / k


@measure("recall", params=LongCutoffs(*_CUTS), label="Recall@{k}", ir_measures="R", aliases=("Recall",))
def recall(r, cutoffs):
    """Recall at cutoff k: relevant docs in the top k divided by num_rel;
    0 for a query without relevant docs."""
    k = cutoff_matrix(r.n_queries, cutoffs)
    hits = at_depth(_relcum(r), r.offsets, k, 0)
    nrel = r.num_rel[:, None]
    return np.where(nrel > 0, hits / np.maximum(nrel, 1), 0.0)


@measure("map_cut", params=LongCutoffs(*_CUTS), ir_measures="AP")
def average_precision_cut(r, cutoffs):
    """Average precision over the top k: sum of precision at the relevant
    ranks <= k, divided by num_rel.  0 for a query without relevant docs."""
    k = cutoff_matrix(r.n_queries, cutoffs)
    sums = masked_at_depth(r, _ap_sparse(r), k)
    nrel = r.num_rel[:, None]
    return np.where(nrel > 0, sums / np.maximum(nrel, 1), 0.0)


@measure("relative_P", params=LongCutoffs(*_CUTS))
def relative_precision(r, cutoffs):
    """Precision at k relative to the best possible: relevant in the top k
    divided by min(k, num_rel).  0 for a query without relevant docs."""
    k = cutoff_matrix(r.n_queries, cutoffs)
    hits = at_depth(_relcum(r), r.offsets, k, 0)
    nrel = r.num_rel[:, None]
    return np.where(nrel > 0, hits / np.maximum(np.minimum(k, nrel), 1), 0.0)


@measure("success", params=LongCutoffs(1, 5, 10), ir_measures="Success")
def success(r, cutoffs):
    """1 if a relevant doc is in the top k, else 0."""
    k = cutoff_matrix(r.n_queries, cutoffs)
    return (at_depth(_relcum(r), r.offsets, k, 0) > 0).astype(np.float64)


@measure("Rprec_mult", params=DoubleCutoffs(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0))
def r_precision_mult(r, multiples):
    """Precision at m * R docs, for multiples m of R = num_rel.  The cutoff is
    (long)(m * R + 0.9) (trec_eval 10.0 still truncates here); precision at a
    cutoff beyond num_ret is num_rel_ret / cutoff; a cutoff of 0 scores 0."""
    m = np.asarray(multiples, dtype=np.float64)[None, :]
    c = np.trunc(m * r.num_rel[:, None] + 0.9).astype(np.int64)
    hits = at_depth(_relcum(r), r.offsets, c, 0)
    # trec_eval counts down from num_rel_ret at every rank with a code >= the
    # level: at a negative level (documents outside the qrels count there,
    # not in num_rel_ret) the count is lower by the difference, and ranks
    # where it has reached 0 score 0
    extra = at_depth(_relcum(r), r.offsets, r.num_ret, 0) - r.num_rel_ret
    hits = np.maximum(hits - extra[:, None], 0)
    beyond = c > r.num_ret[:, None]
    val = np.where(beyond, r.num_rel_ret[:, None] / np.maximum(c, 1), hits / np.maximum(c, 1))
    return np.where(c > 0, val, 0.0)


@measure("unj", params=LongCutoffs(5, 10, 20))
def unjudged(r, cutoffs):
    """Fraction of the top k that is unjudged (not in the qrels, or in them
    with a negative grade); missing docs below num_ret count as judged.
    0 for a -c placeholder query."""
    k = cutoff_matrix(r.n_queries, cutoffs)
    # ranks in the top k minus the judged ones there (judged ranks are few)
    judged = count_at_depth(r, np.flatnonzero(r.rel >= 0), k)
    val = (np.minimum(k, r.num_ret[:, None]) - judged) / k
    return np.where(r.placeholder[:, None], 0.0, val)
