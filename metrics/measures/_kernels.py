"""Segment kernels shared by the measure functions.

A segment is one query's run of ranks in a :class:`JudgedRanking`.  Floating
sums are accumulated strictly left to right inside each segment (as the C
loops of trec_eval do), so results agree with trec_eval to the last bit:
queries are grouped by length into power-of-two buckets, padded into a 2-D
array per bucket, and accumulated along rows with ``ufunc.accumulate``.
"""

from __future__ import annotations

import numpy as np

from metrics.ranking.judged import distinct


def _buckets(lengths: np.ndarray):
    """Yield (query indices, width) for queries grouped by length bucket."""
    nonempty = lengths > 0
    if not nonempty.any():
        return
    exp = np.zeros(len(lengths), dtype=np.int64)
    _, e = np.frexp(np.maximum(lengths - 1, 0).astype(np.float64))
    exp[nonempty] = e[nonempty]
    for b in distinct(exp[nonempty]):
        qs = np.nonzero(nonempty & (exp == b))[0]
        yield qs, int(lengths[qs].max())


# Elements per padded block: bounds the temporaries of the 2-D kernels
# (a few MB) whatever the size of the ranking.
_BLOCK = 1 << 16


def _row_blocks(offsets: np.ndarray, reverse: bool = False):
    """Yield (rows, lengths, matrix index, mask) for blocks of segments.

    Segments of similar length (power-of-two buckets) are padded into a 2-D
    block, one segment per row, at most about ``_BLOCK`` elements a block.
    ``index`` holds flat positions (0 where padded), ``mask`` the real
    cells; with ``reverse`` each row runs right to left.
    """
    lengths = np.diff(offsets)
    for qs, w in _buckets(lengths):
        cols = np.arange(w)
        if reverse:
            cols = cols[::-1]
        step = max(1, _BLOCK // w)
        for lo in range(0, len(qs), step):
            rows = qs[lo : lo + step]
            ln = lengths[rows][:, None]
            mask = cols[None, :] < ln
            idx = offsets[rows][:, None] + cols[None, :]
            idx = np.where(mask, idx, 0)
            yield rows, ln[:, 0], idx, mask


def _uniform_rows(offsets: np.ndarray):
    """Width w when all segments have the same length w > 0 and lie end to
    end (the ranks then reshape to a matrix without copying), else None."""
    lengths = np.diff(offsets)
    if len(lengths) and lengths[0] > 0 and (lengths == lengths[0]).all():
        return int(lengths[0])
    return None


def segment_accumulate(
    x: np.ndarray, offsets: np.ndarray, ufunc=np.add, *, fill=0.0, reverse: bool = False, out=None
) -> np.ndarray:
    """``ufunc.accumulate`` of ``x`` within each segment, left to right
    (right to left with ``reverse``), exact and sequential.  ``out`` (of the result's type) may be
    ``x`` itself: each block of segments is read before it is written."""
    if out is None:
        out = np.empty(len(x), dtype=np.result_type(x, np.float64) if ufunc is np.add else x.dtype)
    w = _uniform_rows(offsets)
    if w is not None:
        m = np.asarray(x[offsets[0] : offsets[-1]], dtype=out.dtype).reshape(-1, w)
        o = out[offsets[0] : offsets[-1]].reshape(-1, w)
        step = max(1, _BLOCK // w)
        for lo in range(0, len(m), step):
            if reverse:
                o[lo : lo + step] = ufunc.accumulate(m[lo : lo + step, ::-1], axis=1)[:, ::-1]
            else:
                ufunc.accumulate(m[lo : lo + step], axis=1, out=o[lo : lo + step])
        return out
    for _, _, idx, mask in _row_blocks(offsets, reverse):
        m = np.where(mask, x[idx], fill).astype(out.dtype)
        acc = ufunc.accumulate(m, axis=1)
        out[idx[mask]] = acc[mask]
    return out


def segment_sum(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-segment sum of float ``x``, added strictly left to right (as the
    C loops do); 0.0 for an empty segment.  Equal to the last value of
    :func:`segment_cumsum` without materialising the running sums."""
    lengths = np.diff(offsets)
    out = np.zeros(len(lengths), dtype=np.float64)
    w = _uniform_rows(offsets)
    if w is not None:
        m = np.asarray(x[offsets[0] : offsets[-1]], dtype=np.float64).reshape(-1, w)
        step = max(1, _BLOCK // w)
        for lo in range(0, len(m), step):
            out[lo : lo + step] = np.add.accumulate(m[lo : lo + step], axis=1)[:, -1]
        return out
    for rows, ln, idx, mask in _row_blocks(offsets):
        m = np.where(mask, x[idx], 0.0).astype(np.float64)
        acc = np.add.accumulate(m, axis=1)
        out[rows] = acc[np.arange(len(rows)), ln - 1]
    return out


def segment_cumsum(x: np.ndarray, offsets: np.ndarray, out=None) -> np.ndarray:
    """Sequential per-segment prefix sums of float ``x`` (into ``out``, which may be ``x``)."""
    return segment_accumulate(np.asarray(x, dtype=np.float64), offsets, np.add, out=out)


def ranks_within(offsets: np.ndarray) -> np.ndarray:
    """The 0-based place of every element in its segment."""
    lengths = np.diff(offsets)
    return np.arange(offsets[-1] - offsets[0], dtype=np.int64) - np.repeat(offsets[:-1] - offsets[0], lengths)


def segment_count(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-segment running count of true flags (int64), inclusive."""
    cs = np.cumsum(flags, dtype=np.int64)
    starts = offsets[:-1]
    base = np.zeros(len(starts), dtype=np.int64)  # the count before each segment
    inside = starts > 0
    base[inside] = cs[starts[inside] - 1]
    cs -= np.repeat(base, np.diff(offsets))
    return cs


def segment_total(prefix: np.ndarray, offsets: np.ndarray, empty=0.0) -> np.ndarray:
    """Last value of a per-segment prefix array (``empty`` for empty segments)."""
    lengths = np.diff(offsets)
    out = np.full(len(lengths), empty, dtype=np.result_type(prefix, type(empty)))
    ne = lengths > 0
    out[ne] = prefix[offsets[1:][ne] - 1]
    return out


def at_depth(prefix: np.ndarray, offsets: np.ndarray, depth: np.ndarray, empty=0.0) -> np.ndarray:
    """Prefix value after ``depth`` ranks per segment (depth clipped to the
    segment length; ``empty`` where that is 0).  ``depth`` is (n,) or (n, k)."""
    lengths = np.diff(offsets)
    depth = np.asarray(depth)
    ln = lengths if depth.ndim == 1 else lengths[:, None]
    st = offsets[:-1] if depth.ndim == 1 else offsets[:-1][:, None]
    d = np.minimum(depth, ln)
    pos = np.where(d > 0, st + d - 1, 0)
    if len(prefix) == 0:
        return np.full(d.shape, empty, dtype=np.float64)
    return np.where(d > 0, prefix[pos], empty)


def cutoff_matrix(n_queries: int, cutoffs) -> np.ndarray:
    return np.broadcast_to(np.asarray(cutoffs, dtype=np.int64)[None, :], (n_queries, len(cutoffs)))


def lround(x: np.ndarray) -> np.ndarray:
    """C ``lround``: nearest integer, halves away from zero."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    f = np.floor(a)
    r = f + ((a - f) >= 0.5)
    return (np.sign(x) * r).astype(np.int64)


def positions_offsets(r, pos: np.ndarray) -> np.ndarray:
    """Per-query offsets into ``pos``, sorted flat rank positions of ``r``."""
    offsets = np.zeros(r.n_queries + 1, dtype=np.int64)
    if len(pos):
        np.cumsum(np.bincount(r.qidx[pos], minlength=r.n_queries), out=offsets[1:])
    return offsets


def masked_segment_sum(values: np.ndarray, qidx: np.ndarray, n_queries: int) -> np.ndarray:
    """Per-query sum of ``values`` (already restricted to some ranks, in rank
    order), left to right; ``qidx`` gives each value's query."""
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(qidx, minlength=n_queries), out=offsets[1:])
    return segment_sum(values, offsets)


def masked_prefix(r, mask: np.ndarray, values: np.ndarray):
    """Per-query running sums of ``values`` over the ranks where ``mask`` is
    true (``values`` given for those ranks only), left to right.

    Returns (positions, prefix, offsets): flat rank positions of the masked
    ranks, the running sum there, and per-query offsets into both.
    """
    return masked_prefix_at(r, np.nonzero(mask)[0], values)


def masked_prefix_at(r, pos: np.ndarray, values: np.ndarray):
    """:func:`masked_prefix` for the sorted flat rank positions ``pos``."""
    offsets = positions_offsets(r, pos)
    return pos, segment_cumsum(values, offsets), offsets


def count_at_depth(r, pos: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """How many of the sorted flat rank positions ``pos`` lie within the
    first ``depth`` ranks (clipped to num_ret) of each query; ``depth`` is
    (n,) or (n, k)."""
    depth = np.asarray(depth)
    two_d = depth.ndim == 2
    st = r.offsets[:-1][:, None] if two_d else r.offsets[:-1]
    nret = r.num_ret[:, None] if two_d else r.num_ret
    end = st + np.clip(np.minimum(depth, nret), 0, None)
    return np.searchsorted(pos, end) - np.searchsorted(pos, st)


def masked_at_depth(r, sparse, depth: np.ndarray, empty=0.0) -> np.ndarray:
    """Value of a :func:`masked_prefix` sum after ``depth`` ranks (clipped to
    num_ret) per query; ``depth`` is (n,) or (n, k)."""
    pos, prefix, poff = sparse
    depth = np.asarray(depth)
    two_d = depth.ndim == 2
    st = r.offsets[:-1][:, None] if two_d else r.offsets[:-1]
    nret = r.num_ret[:, None] if two_d else r.num_ret
    lo = poff[:-1][:, None] if two_d else poff[:-1]
    end = st + np.clip(np.minimum(depth, nret), 0, None)
    n = np.searchsorted(pos, end) - lo
    idx = np.where(n > 0, lo + n - 1, 0)
    if len(prefix) == 0:
        return np.full(n.shape, empty, dtype=np.float64)
    return np.where(n > 0, prefix[idx], empty)
