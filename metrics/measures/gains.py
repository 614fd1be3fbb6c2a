"""Graded (gain-based) measures: ndcg, dcg, ideal_dcg, ndcg_rel, Rndcg,
ndcg_cut, binG, G, rbp, rbp_resid.

Gains: by default a judged document's gain is its grade; ``name=value``
parameters (``ndcg.1=3,2=9``) override the gain of single grades (grades may
be negative, so ``-1=...`` gives documents outside the qrels a gain).
Unjudged documents otherwise gain 0.  Ranks are 1-based in the formulas:
the discount of rank i is log2(i + 1).

The ideal ranking lists the judged documents of the query (retrieved or
not) by decreasing gain, the grades ordered as trec_eval's ``setup_gains``
orders them, and stops at the first grade whose gain is not positive.
"""

from __future__ import annotations

import math

import numpy as np

from metrics.measures._kernels import (
    at_depth,
    cutoff_matrix,
    masked_at_depth,
    masked_prefix_at,
    masked_segment_sum,
    positions_offsets,
    ranks_within,
    segment_cumsum,
    segment_sum,
    segment_total,
)
from metrics.measures.registry import LongCutoffs, ParamPairs, measure
from metrics.ranking.judged import NONPOOL, distinct

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def _log2_of(values: np.ndarray) -> np.ndarray:
    """log2 through the C library (as trec_eval), element by element; many whole numbers (G's
    arguments with integer gains) through a table of the logs of 1..their maximum."""
    v = np.asarray(values, dtype=np.float64)
    if len(v) > 256:
        low, top = v.min(), v.max()  # NaN: neither comparison holds
        if low >= 1.0 and top <= max(4096.0, 4.0 * len(v)) and (v == np.floor(v)).all():
            ones_to_top = np.arange(1.0, top + 1.0).tolist()
            table = np.fromiter(map(math.log2, ones_to_top), dtype=np.float64, count=len(ones_to_top))
            return table[v.astype(np.int64) - 1]
    return np.fromiter(map(math.log2, v.tolist()), dtype=np.float64, count=len(v))


def log2_discounts(n: int) -> np.ndarray:
    """log2(i + 2) for 0-based ranks i < n."""
    return _log2_of(np.arange(2, n + 2, dtype=np.float64))


def _valid_int(name: str) -> bool:
    s = name[1:] if name[:1] in "+-" else name
    return bool(s) and s.isdigit()


def gain_pairs(params) -> list[tuple[int, float]]:
    """Integer-named pairs; a grade named twice keeps its first gain."""
    out, seen = [], set()
    for k, v in params:
        if _valid_int(k) and int(k) not in seen:
            seen.add(int(k))
            out.append((int(k), float(v)))
    return out


def _cmp_gain(a, b) -> int:
    # trec_eval's comparator: (int)(gain1 - gain2), truncated toward zero
    return int(a[1] - b[1])


def _msort(items: list) -> list:
    """glibc's qsort for small arrays: top-down merge sort (stable)."""
    if len(items) <= 1:
        return list(items)
    n1 = len(items) // 2
    left, right = _msort(items[:n1]), _msort(items[n1:])
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if _cmp_gain(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def gain_table(pairs, num_levels: int) -> list[tuple[int, float]]:
    """(grade, gain) sorted as trec_eval's setup_gains for a query whose
    highest judged grade is num_levels - 1."""
    entries = list(pairs)
    names = {lvl for lvl, _ in pairs}
    entries += [(i, float(i)) for i in range(num_levels) if i not in names]
    return _msort(entries)


def _gains_at(r, pairs, pos) -> np.ndarray:
    """Gain of the documents at flat rank positions ``pos`` (a slice or an
    index array): the gain given for its code in ``pairs``, else its grade,
    else 0 (codes < 0)."""
    rel = r.rel[pos]
    gains = np.where(rel >= 0, rel, 0).astype(np.float64)
    for lvl, g in pairs:
        gains[rel == lvl] = g
    return gains


def _nonzero_gains(r, pairs):
    """(positions, gains) of the ranks with a non-zero gain, in rank order.

    Only judged or pooled documents can have a gain unless ``pairs`` gives
    one to the code of documents outside the qrels (-1); the others are
    skipped without being looked at.  Skipping zero gains leaves every
    running sum below unchanged.
    """
    if dict(pairs).get(NONPOOL, 0.0) == 0.0:
        pos = np.flatnonzero(r.rel != NONPOOL)
    else:
        pos = np.arange(len(r.rel), dtype=np.int64)
    gains = _gains_at(r, pairs, pos)
    nz = gains != 0
    return pos[nz], gains[nz]


def trec_levels(r):
    """Grade counts and number of grades as trec_eval's gain measures see them.

    For a query whose qrels hold only negative grades, trec_eval's
    form_res_rels leaves its grade table untouched, so the query inherits
    the counts of the query evaluated before it (zeros for the first one).
    This shows in ideal_dcg (and in gains given to negative codes); the
    normalised measures are 0 for such a query either way.
    """
    nq = r.n_queries
    valid = r.num_rel_levels > 0
    src = np.maximum.accumulate(np.where(valid, np.arange(nq), -1)) if nq else np.zeros(0, int)
    levels = np.where((src >= 0)[:, None], r.rel_levels[np.maximum(src, 0)], 0)
    num_levels = np.where(src >= 0, r.num_rel_levels[np.maximum(src, 0)], 0)
    return levels, num_levels


def ideal_gains(r, pairs):
    """Ideal gain sequence per query: (flat gains, offsets)."""
    nq = r.n_queries
    levels, num_levels = trec_levels(r)
    chunks_q, chunks_g, chunks_c = [], [], []
    for L in distinct(num_levels):
        qs = np.nonzero(num_levels == L)[0]
        table = gain_table(pairs, int(L))
        if not table or table[-1][1] <= 0.0:
            continue
        table = table[::-1]  # traversal order: highest first
        lv = np.array([t[0] for t in table], dtype=np.int64)
        gv = np.array([t[1] for t in table], dtype=np.float64)
        ok = (lv >= 0) & (lv < levels.shape[1])
        counts = np.zeros((len(qs), len(table)), dtype=np.int64)
        counts[:, ok] = levels[qs][:, lv[ok]]
        stop = (counts > 0) & (gv <= 0.0)[None, :]
        stop = np.cumsum(stop, axis=1) > 0
        counts = np.where(stop, 0, counts)
        chunks_q.append(np.repeat(qs, len(table)))
        chunks_g.append(np.tile(gv, len(qs)))
        chunks_c.append(counts.ravel())
    if not chunks_q:
        return np.zeros(0), np.zeros(nq + 1, dtype=np.int64)
    q = np.concatenate(chunks_q)
    g = np.concatenate(chunks_g)
    c = np.concatenate(chunks_c)
    order = np.argsort(q, kind="stable")
    q, g, c = q[order], g[order], c[order]
    flat = np.repeat(g, c)
    K = np.bincount(q, weights=c, minlength=nq).astype(np.int64)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(K, out=offsets[1:])
    return flat, offsets


def _dcg_sparse(r, pos, gains):
    """Running DCG over the ranks with a non-zero gain (masked_prefix form);
    ``pos``, ``gains`` as :func:`_nonzero_gains` returns them."""
    disc = log2_discounts(int(r.num_ret.max()) if r.n_queries and len(r.rel) else 0)
    return masked_prefix_at(r, pos, gains / disc[r.rank[pos]])


def _dcg_total(r, sparse):
    return segment_total(sparse[1], sparse[2])


def _idcg_prefix(flat, offsets):
    if not len(flat):
        return segment_cumsum(flat, offsets)
    K = np.diff(offsets)
    # one array of the ideal ranking's size besides ``flat`` (a qrels with many relevant documents
    # makes it the largest of the gain measures): discounts, then gains over them, then their sums
    scaled = log2_discounts(int(K.max()))[ranks_within(offsets)]
    np.divide(flat, scaled, out=scaled)
    return segment_cumsum(scaled, offsets, out=scaled)


def _shared_gains(r, pairs):
    """:func:`_nonzero_gains`, made once for the families that ask in a row (``r.memo``)."""
    return r.memo.get(("nonzero_gains", tuple(pairs)), lambda: _nonzero_gains(r, pairs))


def _shared_dcg(r, pairs):
    """:func:`_dcg_sparse` of the :func:`_shared_gains`, made once (``r.memo``)."""
    return r.memo.get(("dcg_sparse", tuple(pairs)), lambda: _dcg_sparse(r, *_shared_gains(r, pairs)))


def _shared_ideal(r, pairs):
    """:func:`ideal_gains`, made once (``r.memo``)."""
    return r.memo.get(("ideal", tuple(pairs)), lambda: ideal_gains(r, pairs))


def _shared_ideal_prefix(r, pairs):
    """:func:`_idcg_prefix` of the :func:`_shared_ideal` gains, made once (``r.memo``)."""
    return r.memo.get(("idcg_prefix", tuple(pairs)), lambda: _idcg_prefix(*_shared_ideal(r, pairs)))


def _dcg_parts(r, params):
    pairs = gain_pairs(params)
    dcg = _dcg_total(r, _shared_dcg(r, pairs))
    ioff = _shared_ideal(r, pairs)[1]
    idcg = segment_total(_shared_ideal_prefix(r, pairs), ioff)
    return dcg, idcg


@measure("dcg", params=ParamPairs())
def dcg(r, params):
    """Discounted cumulative gain over the whole ranking: sum of gain /
    log2(rank + 1)."""
    return _dcg_parts(r, params)[0]


@measure("ideal_dcg", params=ParamPairs())
def ideal_dcg(r, params):
    """DCG of the ideal ranking of all judged documents of the query."""
    return _dcg_parts(r, params)[1]


@measure("ndcg", params=ParamPairs(), label="NDCG (full ranking)", ir_measures="nDCG", aliases=("NDCG",))
def ndcg(r, params):
    """DCG of the whole ranking divided by the DCG of the ideal ranking of
    all judged docs (not cut at num_ret); 0 when the ideal DCG is 0."""
    d, i = _dcg_parts(r, params)
    return np.where(i > 0, d / np.where(i > 0, i, 1.0), 0.0)


@measure("ndcg_rel", params=ParamPairs())
def ndcg_rel(r, params):
    """nDCG averaged over the relevant documents (positive ideal gain): at
    each retrieved doc with positive gain, DCG so far / ideal DCG at the same
    depth; each relevant doc not retrieved scores final DCG / ideal DCG.
    Sum divided by the number of positive-gain judged docs; 0 when not
    positive."""
    pairs = gain_pairs(params)
    pos, gains = _shared_gains(r, pairs)
    sparse = _shared_dcg(r, pairs)
    _, dprefix, _ = sparse
    flat, ioff = _shared_ideal(r, pairs)
    iprefix = _shared_ideal_prefix(r, pairs)
    K = np.diff(ioff)
    # at each positive-gain rank: DCG so far / ideal DCG at the same depth
    # (capped at K)
    sel = gains > 0
    p, q = pos[sel], r.qidx[pos[sel]]
    depth = np.minimum(r.rank[p] + 1, K[q])
    ipos = np.where(depth > 0, ioff[:-1][q] + depth - 1, 0)
    ideal_here = np.where(depth > 0, iprefix[ipos] if len(iprefix) else 0.0, 0.0)
    s = masked_segment_sum(dprefix[sel] / ideal_here, q, r.n_queries)
    nrg = np.bincount(q, minlength=r.n_queries)
    dtot = _dcg_total(r, sparse)
    itot = segment_total(iprefix, ioff)
    s = s + ((K - nrg).astype(np.float64) * dtot) / itot
    return np.where(s > 0.0, s / np.where(K > 0, K, 1), 0.0)


@measure("Rndcg", params=ParamPairs())
def rndcg(r, params):
    """nDCG averaged over the R-level points: the depths where the ideal gain
    changes value (the last one is the number of positive-gain judged docs,
    K), nDCG at each such depth (DCG over the retrieved docs within it), plus
    nDCG of the whole ranking when num_ret >= K + 2.  0 without relevant
    docs."""
    pairs = gain_pairs(params)
    sparse = _shared_dcg(r, pairs)
    flat, ioff = _shared_ideal(r, pairs)
    iprefix = _shared_ideal_prefix(r, pairs)
    K = np.diff(ioff)
    nq = r.n_queries
    # change point at ideal depth c (1 <= c <= K): gain at c differs from c+1,
    # or c == K.  Point at depth c sits on ideal position c - 1.  A few per
    # query: found without an array of every ideal position's query and depth.
    changes = np.flatnonzero(flat[1:] != flat[:-1]) if len(flat) else np.zeros(0, dtype=np.int64)
    pts = distinct(np.concatenate([changes, ioff[1:][K > 0] - 1]).astype(np.int64))
    pq = np.searchsorted(ioff, pts, side="right") - 1
    depth = pts - ioff[pq] + 1
    # DCG over the retrieved docs within each depth
    dmat = np.zeros(len(pts))
    if len(pts):
        spos, sprefix, soff = sparse
        end = r.offsets[:-1][pq] + np.minimum(depth, r.num_ret[pq])
        n = np.searchsorted(spos, end) - soff[:-1][pq]
        dmat = np.where(n > 0, sprefix[np.where(n > 0, soff[:-1][pq] + n - 1, 0)] if len(sprefix) else 0.0, 0.0)
    vals = dmat / iprefix[pts]
    poff = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(pq, minlength=nq), out=poff[1:])
    s = segment_total(segment_cumsum(vals, poff), poff)
    n = np.diff(poff).astype(np.float64)
    dtot = _dcg_total(r, sparse)
    itot = segment_total(iprefix, ioff)
    extra = (r.num_ret >= K + 2) & (itot > 0)
    s = np.where(extra, s + dtot / np.where(itot > 0, itot, 1.0), s)
    n = n + extra
    return np.where(r.num_rel > 0, s / n, 0.0)


@measure("ndcg_cut", params=LongCutoffs(*_CUTS), label="NDCG@{k}", ir_measures="nDCG")
def ndcg_cut(r, cutoffs):
    """nDCG at cutoff k: DCG of the top k (gain = grade, positive grades
    only) divided by the DCG of the top k of the ideal ranking of all judged
    docs; 0 when that ideal DCG is 0.  Gains are the grades (no parameters)."""
    sparse = _shared_dcg(r, [])  # gains: positive grades
    ioff = _shared_ideal(r, [])[1]
    iprefix = _shared_ideal_prefix(r, [])
    k = cutoff_matrix(r.n_queries, cutoffs)
    d = masked_at_depth(r, sparse, k)
    i = at_depth(iprefix, ioff, k, 0.0)
    return np.where(i > 0, d / np.where(i > 0, i, 1.0), d)


@measure("binG")
def bin_g(r):
    """Binary G: for each retrieved relevant doc, 1 / log2(2 + non-relevant
    docs above it); summed and divided by num_rel.  0 if no relevant doc is
    retrieved."""
    pos = np.nonzero(r.isrel())[0]
    nonrel_before = r.rank[pos] - (r.relcum[pos] - 1)
    table = log2_discounts(int(nonrel_before.max()) + 1 if len(pos) else 0)  # log2(i + 2)
    total = masked_segment_sum(1.0 / table[nonrel_before], r.qidx[pos], r.n_queries)
    # trec_eval tests its own count of ranks with a code >= the level (at a
    # negative level more than num_rel_ret)
    return np.where(segment_total(r.relcum, r.offsets, 0) > 0, total / np.maximum(r.num_rel, 1), 0.0)


@measure("G", params=ParamPairs())
def g_measure(r, params):
    """Normalized gain G: each retrieved doc with gain g at rank i adds
    g / log2(2 + cost(i) - gain(i)), where gain(i) sums the gains of ranks
    1..i and cost(i) sums max(ideal gain, 1) over ideal ranks 1..i (1 past
    the ideal ranking); the sum is divided by the total ideal gain (0 when
    that is 0)."""
    pairs = gain_pairs(params)
    flat, ioff = _shared_ideal(r, pairs)
    ideal = segment_sum(flat, ioff)
    # only ranks with a non-zero gain add a term; the running sums there
    # are those over all ranks (adding a zero gain changes nothing)
    pos, gains = _shared_gains(r, pairs)
    q, rank = r.qidx[pos], r.rank[pos]
    sum_res = segment_cumsum(gains, positions_offsets(r, pos))
    sum_cost = _g_cost_sums(flat, ioff, q, rank)
    term = gains / _log2_of((2 + sum_cost) - sum_res)
    total = masked_segment_sum(term, q, r.n_queries)
    return np.where(ideal > 0, total / np.where(ideal > 0, ideal, 1.0), 0.0)


def _g_cost_sums(flat, ioff, q, rank) -> np.ndarray:
    """G's cost(i) at the given (query, 0-based rank) pairs: the running sum,
    left to right, of max(ideal gain, 1) over the ideal ranks 0..i, where
    ranks at or beyond the ideal ranking's length K cost 1.

    Beyond K the sum is the one at K - 1 plus one 1.0 per rank; when that
    base is an integer (always with integer gains) the repeated additions
    are exact and equal base + (i - K + 1); otherwise the ones are added one
    at a time, as trec_eval does.
    """
    K = np.diff(ioff)
    iprefix = np.where(flat >= 1.0, flat, 1.0)  # the costs, then their running sums in place
    segment_cumsum(iprefix, ioff, out=iprefix)
    Kq = K[q]
    out = np.empty(len(q), dtype=np.float64)
    within = rank < Kq
    out[within] = iprefix[ioff[q[within]] + rank[within]]
    beyond = ~within
    qb, Kb = q[beyond], Kq[beyond]
    base = np.where(Kb > 0, iprefix[np.maximum(ioff[qb] + Kb - 1, 0)] if len(iprefix) else 0.0, 0.0)
    ones = (rank[beyond] - Kb + 1).astype(np.float64)
    exact = (base == np.floor(base)) & (np.abs(base) + ones < 2.0**53)
    value = base + ones
    if not exact.all():
        b, n = base[~exact], ones[~exact]
        for step in range(int(n.max())):
            b = np.where(n > step, b + 1.0, b)
        value[~exact] = b
    out[beyond] = value
    return out


def persistence(params) -> float:
    p = 0.9
    for k, v in params:
        if k == "p":
            p = float(v)
    return p


def _powers(p: float, n: int) -> np.ndarray:
    """p**i for i < n + 1 by repeated multiplication, as trec_eval does."""
    a = np.full(n + 1, p)
    a[0] = 1.0
    return np.cumprod(a)


@measure("rbp", params=ParamPairs())  # ir_measures' RBP is rbp_ext (no rescaling of grades)
def rbp(r, params):
    """Rank-biased precision (Moffat & Zobel): (1 - p) * sum of gain * p^(rank-1),
    persistence p = 0.9 unless given (``rbp.p=0.8``).  Gains are the grades
    (or the given ``grade=gain`` pairs) rescaled to [0, 1] by min-max over
    the query's gain table (its grades and the pairs, and 0) when any lies
    outside [0, 1]; codes outside that table (documents not in the qrels,
    pooled but unjudged ones) gain 0, not rescaled."""
    p = persistence(params)
    pairs = gain_pairs(params)
    # min-max rescaling over the query's gain table (its grades 0..L-1 and
    # the given pairs)
    lo = np.zeros(r.n_queries)
    hi = np.zeros(r.n_queries)
    num_levels = trec_levels(r)[1]
    for L in distinct(num_levels):
        qs = num_levels == L
        table = [g for _, g in gain_table(pairs, int(L))]
        lo[qs] = min(table + [0.0])
        hi[qs] = max(table + [0.0])
    scale_q = (lo < 0) | (hi > 1)
    # Only the codes in the gain table are rescaled: judged grades and the
    # codes named in the pairs.  Others (outside the qrels, pooled but
    # unjudged, unless named) gain 0 whatever the scale, and are skipped.
    named = np.array([lvl for lvl, _ in pairs], dtype=np.int64)
    if NONPOOL in named:
        pos = np.arange(len(r.rel), dtype=np.int64)
    else:
        pos = np.flatnonzero(r.rel != NONPOOL)
    gains = _gains_at(r, pairs, pos)
    q = r.qidx[pos]
    if scale_q.any():
        rel = r.rel[pos]
        listed = rel >= 0
        for level in set(named.tolist()):  # the few named grades (np.isin would import numpy.ma)
            listed |= rel == level
        scaled = scale_q[q] & listed
        with np.errstate(divide="ignore", invalid="ignore"):
            gains = np.where(scaled, (gains - lo[q]) / (hi[q] - lo[q]), gains)
    pw = _powers(p, int(r.num_ret.max()) if r.n_queries else 0)
    nz = gains != 0
    total = masked_segment_sum(gains[nz] * pw[r.rank[pos[nz]]], q[nz], r.n_queries)
    return (1.0 - p) * total


@measure("rbp_resid", params=ParamPairs())
def rbp_resid(r, params):
    """RBP residual: the most RBP could grow if every unjudged retrieved doc
    (not in the qrels, or negative grade) had gain 1, plus the tail beyond
    the ranking: p^num_ret + (1 - p) * sum over unjudged ranks of p^(rank-1).
    0 when no retrieved doc is unjudged, and for a -c placeholder query
    (without parameters, as trec_eval)."""
    p = persistence(params)
    pw = _powers(p, int(r.num_ret.max()) if r.n_queries else 0)
    # p^rank at the unjudged ranks, 0 elsewhere (zeros add nothing)
    weights = pw[r.rank]
    weights[r.rel >= 0] = 0.0
    total = segment_sum(weights, r.offsets)
    del weights
    n_unj = r.num_nonpool + r.num_unjudged
    val = pw[r.num_ret] + (1 - p) * total
    val = np.where(n_unj > 0, val, 0.0)
    if not params:
        # trec_eval resets a -c placeholder query only under the plain name
        val = np.where(r.placeholder, 0.0, val)
    return val
