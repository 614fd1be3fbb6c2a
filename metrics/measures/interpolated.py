"""Interpolated precision at recall levels: iprec_at_recall, 11pt_avg.

Interpolated precision at a rank is the highest precision at that rank or
any later one.  A recall level p is turned into a number of relevant docs
with lround(p * num_rel) (trec_eval 10.0; 9.x used (long)(p * num_rel + 0.9)).
"""

from __future__ import annotations

import numpy as np

from metrics.measures._kernels import lround, segment_accumulate
from metrics.measures.registry import DoubleCutoffs, DoubleParams, measure

_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _interpolated(r, levels) -> tuple[np.ndarray, np.ndarray]:
    """(n_queries, len(levels)) values trec_eval assigns to each level, in
    the given (possibly unsorted) order, walking the levels from last to
    first exactly like its reverse scan over the ranking."""
    nq = r.n_queries
    # Interpolated precision at a relevant rank: the best precision at it or
    # below.  Precision only falls between relevant ranks, so the maximum is
    # always reached at a relevant rank: scanning those is enough.
    relpos = np.nonzero(r.isrel())[0]
    nrr = r.num_rel_ret
    relcum = r.relcum[relpos]
    # trec_eval counts down from num_rel_ret at every rank with a code >= the
    # level.  At a negative level that includes documents outside the qrels
    # (num_rel_ret does not), so the count is off by `extra` and the scan
    # stops before the first `extra` relevant ranks.
    q = r.qidx[relpos]
    extra = np.bincount(q, minlength=nq) - nrr
    if extra.any():
        keep = relcum > extra[q]
        relpos, q = relpos[keep], q[keep]
        relcum = relcum[keep] - extra[q]
    relstart = np.concatenate([[0], np.cumsum(nrr)])
    prec = relcum / (r.rank[relpos] + 1.0)
    ip = segment_accumulate(prec, relstart, np.maximum, fill=-np.inf, reverse=True)
    relstart = relstart[:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        zero_rel = nrr / r.num_ret.astype(np.float64)  # 0, or nan when nothing retrieved

    def ip_at(v):  # interpolated precision at the v-th relevant doc (1 <= v <= nrr)
        ok = (v >= 1) & (v <= nrr)
        idx = np.where(ok, relstart + v - 1, 0)
        return np.where(ok, ip[idx] if len(ip) else 0.0, 0.0)

    final = np.where(nrr > 0, ip_at(np.ones(nq, dtype=np.int64)), zero_rel)
    cuts = lround(np.asarray(levels, dtype=np.float64)[None, :] * r.num_rel[:, None])
    out = np.zeros((nq, len(levels)))
    skipping = np.ones(nq, dtype=bool)
    stuck = np.zeros(nq, dtype=bool)
    t = nrr.copy()
    for k in range(len(levels) - 1, -1, -1):
        v = cuts[:, k]
        skipping &= v > nrr
        active = ~skipping
        match = active & ~stuck & (v >= 1) & (v <= t)
        stuck |= active & ~match
        out[:, k] = np.where(match, ip_at(v), np.where(stuck, final, 0.0))
        t = np.where(match, v, t)
    return out, skipping


@measure("iprec_at_recall", params=DoubleCutoffs(*_LEVELS), ir_measures="IPrec")
def iprec_at_recall(r, levels):
    """Interpolated precision at recall levels: max precision at or after the
    rank where lround(level * num_rel) relevant docs have been retrieved;
    0 when that many relevant docs are not retrieved.  Level 0 gives the
    highest precision anywhere in the ranking."""
    return _interpolated(r, levels)[0]


@measure("11pt_avg", params=DoubleParams(*_LEVELS))
def eleven_point_average(r, levels):
    """Mean of the interpolated precisions at the given recall levels
    (default 0.0, 0.1, ..., 1.0), summed from the last level to the first
    and divided by the number of levels."""
    if len(levels) == 0:
        raise ValueError("11pt_avg: no cutoff values")
    vals, skipped = _interpolated(r, levels)
    total = np.zeros(r.n_queries)
    for k in range(len(levels) - 1, -1, -1):
        total = total + vals[:, k]
    return total / len(levels)
