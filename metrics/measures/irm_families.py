"""Measures as ir_measures' own providers define them: RBP (``rbp_ext``), Compat and Accuracy.

``rbp_ext`` -- rank-biased precision (Moffat and Zobel 2008) as ir_measures
computes ``RBP``: ``(1 - p) * sum over the first k ranks of gain_i * p**(i-1)``
(the whole ranking for cutoff 0), persistence ``p`` (ir_measures' default
0.8).  The gain is the judged grade itself when positive (ir_measures'
trectools provider: graded, *not* rescaled as trec_eval's ``rbp`` rescales
grades above 1 into [0, 1]), or, with ``binary_at=r`` (ir_measures'
``RBP(rel=r)``, its cwl_eval provider), 1 for a grade >= r and 0 otherwise.
Documents outside the qrels or with a negative grade gain 0.  Powers of p
are formed by repeated multiplication, as trec_eval's rbp.  cwl_eval divides
by ``1 - p**1000`` and stops at rank 1000 (its ``max_n``): the same up to
``p**1000`` on rankings of at most 1000 documents.  trectools averages the
weights of documents with tied scores (``average_ties``); ties here are
ranked as trec_eval ranks them (docid descending).

``compat`` -- Clarke, Vtyurina and Smucker's compatibility (TOIS 2021) as
ir_measures' compat provider computes it: rank-biased overlap
``RBO = sum_{t<D} p**t * |R[:t+1] & I[:t+1]| / (t+1) / sum_{t<D} p**t``
between the ranking R and an ideal ranking I of the documents judged with a
grade > 0 (by decreasing grade; within a grade, the retrieved ones in the
order of the ranking, then the others), D = max(len(R), len(I)), persistence
``p`` (default 0.95); with ``normalize=true`` (the default) divided by the
RBO of the ideal ranking with itself (when positive).  A query without
relevant documents scores 0.  Where ir_measures' code differs: it breaks
score ties by docid *ascending* (here trec_eval's descending order), and it
puts a relevant document missing from the run at score 0.0 when ordering
the ideal ranking, so with negative run scores unretrieved documents go
before retrieved ones of the same grade there; the ideal ranking here keeps
the retrieved documents first, which is what ordering it by run score
intends.  Both only matter with tied or negative scores.

``Accuracy`` -- ir_measures' Accuracy: among the first k ranks (the whole
ranking for cutoff 0), the fraction of (relevant, non-relevant) pairs in
which the relevant document comes first, relevant meaning a grade >= the
relevance level (documents outside the qrels and negative grades are
non-relevant).  Undefined (NaN, and left out of the mean as ir_measures
leaves the query out) when no relevant document is among the first k, or no
non-relevant one (where ir_measures 0.4.3 raises ZeroDivisionError).  The
mean is over the queries where it is defined.
"""

from __future__ import annotations

import math

import numpy as np

from metrics.measures._kernels import at_depth, ranks_within, segment_cumsum, segment_sum
from metrics.measures.extra import WHOLE_RANKING, OptionalCutoffs
from metrics.measures.registry import measure

__all__ = ["defined_mean", "option_float", "option_bool"]


def option_float(name: str, value, *, low: float = 0.0, high: float = 1.0) -> float:
    """A numeric option given as text, checked to lie in (low, high)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None
    if not (low < v < high):
        raise ValueError(f"{name} must lie strictly between {low:g} and {high:g}, not {value!r}")
    return v


def option_bool(name: str, value) -> bool:
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise ValueError(f"{name} must be true or false, not {value!r}")
    return text == "true"


def defined_mean(values: np.ndarray, r) -> float:
    """Mean over the queries with a defined (not NaN) value; NaN when there is none (ir_measures' MeanAgg
    over the queries its provider reports)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    return float(np.cumsum(v)[-1] / len(v)) if len(v) else math.nan


def _powers(p: float, n: int) -> np.ndarray:
    """p**i for i <= n by repeated multiplication (as trec_eval's rbp)."""
    a = np.full(n + 1, p)
    a[0] = 1.0
    return np.cumprod(a)


def _depths(r, cutoffs) -> np.ndarray:
    cut = np.asarray(cutoffs, dtype=np.int64)
    full = r.num_ret[:, None]
    return np.where(cut[None, :] == WHOLE_RANKING, full, np.minimum(cut[None, :], full))


# ------------------------------------------------------------------ RBP


@measure("rbp_ext", params=OptionalCutoffs(WHOLE_RANKING), ir_measures="RBP", options={"p": "0.8", "binary_at": ""})
def rbp_ext(r, cutoffs, *, p="0.8", binary_at=""):
    """Rank-biased precision as ir_measures computes RBP: (1 - p) times the sum over the first k ranks
    (whole ranking for cutoff 0) of gain * p**(rank - 1); the gain is the positive grade (not rescaled),
    or with binary_at=r 1 for a grade >= r; unjudged documents gain 0.  Summary: mean."""
    pv = option_float("RBP p", p)
    if str(binary_at).strip():
        level = int(binary_at)
        if level < 1:
            raise ValueError(f"RBP rel must be >= 1, not {binary_at!r}")
        gains = (r.rel >= level).astype(np.float64)
    else:
        gains = np.where(r.rel > 0, r.rel, 0).astype(np.float64)
    pw = _powers(pv, int(r.num_ret.max()) if r.n_queries and len(r.rel) else 0)
    prefix = segment_cumsum(gains * pw[r.rank], r.offsets)
    return (1.0 - pv) * at_depth(prefix, r.offsets, _depths(r, cutoffs), 0.0)


# --------------------------------------------------------------- Compat


@measure("compat", ir_measures="Compat", options={"p": "0.95", "normalize": "true"})
def compat(r, *, p="0.95", normalize="true"):
    """Compatibility (Clarke et al. 2021), as ir_measures: rank-biased overlap with persistence p between
    the ranking and the ideal ranking of the documents with a grade > 0 (by grade, then in ranking
    order), to the depth of the longer of the two; divided by the ideal ranking's own overlap when
    normalize=true.  0 without relevant documents.  Summary: mean.  Within a grade the ideal ranking
    lists the documents the run retrieved first, in its order, then the others: what only the run's ranking
    decides, so the value does not change when every score is shifted.  ir_measures orders them by the
    run's score with the documents it did not retrieve at score 0, so on a run whose scores are negative (a
    re-ranker's logits) the unretrieved ones come first and the two differ (monoBERT on TREC DL 2019:
    0.5500 here, 0.3273 in ir_measures); on runs whose scores are positive they agree."""
    pv = option_float("Compat p", p, high=math.inf)
    norm = option_bool("Compat normalize", normalize)
    nq = r.n_queries
    width = r.rel_levels.shape[1]
    # relevant judged documents per query (grade > 0), retrieved or not
    num_ideal = r.rel_levels[:, 1:].sum(axis=1) if width > 1 else np.zeros(nq, dtype=np.int64)
    # documents judged with a higher grade than g, per query: above[q, g]
    above = np.zeros((nq, width + 1), dtype=np.int64)
    if width:
        above[:, :-1] = np.cumsum(r.rel_levels[:, ::-1], axis=1)[:, ::-1] - r.rel_levels
    pos = np.flatnonzero(r.rel > 0)
    q, g, i = r.qidx[pos].astype(np.int64), r.rel[pos].astype(np.int64), r.rank[pos].astype(np.int64)
    # place in the ideal ranking: the higher grades, then the retrieved ones of its grade above it
    order = np.lexsort((i, g, q))
    q, g, i = q[order], g[order], i[order]
    new_group = np.ones(len(q), dtype=bool)
    new_group[1:] = (q[1:] != q[:-1]) | (g[1:] != g[:-1])
    start = np.maximum.accumulate(np.where(new_group, np.arange(len(q)), 0))
    ideal_place = above[q, g] + (np.arange(len(q)) - start)
    # a document retrieved and ideal counts in the overlap from depth max(rank, ideal place) on
    first = np.maximum(i, ideal_place)
    depth = np.maximum(r.num_ret, num_ideal)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(depth, out=offsets[1:])
    t = ranks_within(offsets)
    overlap = segment_cumsum(np.bincount(offsets[:-1][q] + first, minlength=offsets[-1]).astype(np.float64), offsets)
    weight = _powers(pv, int(depth.max()) if nq else 0)[t]
    total = segment_sum(weight, offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = segment_sum(weight * overlap / (t + 1), offsets) / total
        if norm:
            best = segment_sum(weight * np.minimum(t + 1, np.repeat(num_ideal, depth)) / (t + 1), offsets) / total
            score = np.where(best > 0, score / np.where(best > 0, best, 1.0), score)
    return np.where(depth > 0, score, 0.0)


# -------------------------------------------------------------- Accuracy


@measure("Accuracy", params=OptionalCutoffs(WHOLE_RANKING), ir_measures="Accuracy", aggregate=defined_mean)
def accuracy(r, cutoffs):
    """ir_measures' Accuracy: among the first k ranks (whole ranking for cutoff 0), the fraction of
    (relevant, non-relevant) document pairs where the relevant one ranks first; NaN (left out of the
    mean) without a relevant or without a non-relevant document there.  Summary: mean over the queries
    where it is defined."""
    depth = _depths(r, cutoffs)  # (nq, n_cutoffs)
    isrel = r.isrel()
    nonrel_above = r.rank - r.relcum + isrel  # non-relevant documents above each rank (0-based rank)
    prefix = segment_cumsum(np.where(isrel, nonrel_above, 0).astype(np.float64), r.offsets)
    violations = at_depth(prefix, r.offsets, depth, 0.0)
    n_rel = at_depth(r.relcum, r.offsets, depth, 0).astype(np.float64)
    n_nonrel = depth - n_rel
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 - violations / (n_nonrel * n_rel)
    return np.where((n_rel > 0) & (n_nonrel > 0), value, math.nan)
