"""Measures for incomplete judgments: bpref, gm_bpref, infAP.

They look only at judged documents: a retrieved document not in the qrels
(code -1) is skipped; one in the qrels with a negative grade (code -2) is
"pooled but unjudged".  Judged non-relevant means 0 <= grade < relevance level.
"""

from __future__ import annotations

import numpy as np

from metrics.measures._kernels import masked_segment_sum, positions_offsets, segment_count
from metrics.measures.registry import geometric_mean, measure
from metrics.ranking.judged import NONPOOL, UNJUDGED

INFAP_EPSILON = 0.00001


def _pooled_counts(r, unjudged: bool = True):
    """At the ranks of the relevant documents among those in the qrels (the only ones these measures
    look at): (positions, then per query and inclusive: judged relevant, judged non-relevant and, with
    ``unjudged``, pooled-unjudged docs up to the rank).  Relevant means judged with grade >= the level:
    at a negative level every judged document, never one outside the qrels (trec_eval's loops skip
    those before testing the level).  Each count is taken at the relevant ranks as soon as it is made:
    a Robust04-sized run keeps one count of every pooled rank at a time."""
    level = r.relevance_level
    pos = np.flatnonzero(r.rel != NONPOOL)
    rel = r.rel[pos]
    offsets = positions_offsets(r, pos)
    isrel = (rel >= level) & (rel >= 0)
    at = np.flatnonzero(isrel)
    relevant = segment_count(isrel, offsets)[at]
    del isrel
    nonrel = segment_count((rel >= 0) & (rel < level), offsets)[at]
    pooled_unjudged = segment_count(rel == UNJUDGED, offsets)[at] if unjudged else None
    return pos[at], relevant, nonrel, pooled_unjudged


def _bpref(r):
    """bpref per query (made once for bpref and gm_bpref: ``r.memo``)."""
    return r.memo.get("bpref", lambda: _bpref_values(r))


def _bpref_values(r):
    level = r.relevance_level
    pos, _, nonrel_before, _ = _pooled_counts(r, unjudged=False)  # judged non-relevant docs above each relevant rank
    q = r.qidx[pos]
    num_nonrel = r.rel_levels[:, : max(level, 0)].sum(axis=1) if level > 0 else np.zeros(r.n_queries, np.int64)
    R = r.num_rel[q]
    denom = np.minimum(num_nonrel[q], R)
    term = np.where(
        nonrel_before > 0, 1.0 - np.minimum(nonrel_before, R) / np.maximum(denom, 1).astype(np.float64), 1.0
    )
    total = masked_segment_sum(term, q, r.n_queries)
    return np.where(r.num_rel > 0, total / np.maximum(r.num_rel, 1), total)


@measure("bpref", label="bpref", ir_measures="Bpref", aliases=("BPref",))
def bpref(r):
    """Binary preference: for each retrieved relevant doc, 1 - min(n, R) /
    min(N, R), where n = judged non-relevant docs ranked above it, R =
    num_rel, N = judged non-relevant docs of the query (1 when n = 0); summed
    and divided by R.  Unjudged docs are ignored.  0 without relevant docs."""
    return _bpref(r)


@measure("gm_bpref", aggregate=geometric_mean, per_query=False)
def gm_bpref(r):
    """bpref per query; the summary is the geometric mean
    exp(mean(log(max(bpref, 0.00001)))).  No per-query rows in trec_eval."""
    return _bpref(r)


@measure("infAP", ir_measures="infAP")
def inferred_ap(r):
    """Inferred AP (Yilmaz & Aslam): at each judged relevant doc at 0-based
    rank j > 0, 1/(j+1) + j/(j+1) * ((k-1+n+u)/j) * ((k-1+eps)/(k-1+n+2eps)),
    where k counts judged relevant docs up to it, n judged non-relevant and u
    pooled-unjudged (negative grade) docs above it; 1 at rank 0.  Docs not in
    the qrels count only through j.  Summed and divided by num_rel; 0 without
    relevant docs.  eps = 0.00001."""
    pos, k, n, u = _pooled_counts(r)
    rank = r.rank[pos]
    fj = rank.astype(np.float64)
    a = (k - 1 + n + u) / np.where(fj > 0, fj, 1.0)
    b = ((k - 1) + INFAP_EPSILON) / (((k - 1) + n) + 2 * INFAP_EPSILON)
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * a * b
    term = np.where(rank == 0, 1.0, term)
    total = masked_segment_sum(term, r.qidx[pos], r.n_queries)
    return np.where(r.num_rel > 0, total / np.maximum(r.num_rel, 1), total)
