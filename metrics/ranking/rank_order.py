"""trec_eval's ranking order for all queries at once: score descending, ties by document id in
descending byte order, queries in code order; one sort, or none when the file is already in order."""

from __future__ import annotations

import numpy as np

from metrics.io.ids import among, stretch_heads

_BLOCK = 1 << 16  # rows at a time: bounds the temporaries


def _blocks(n: int):
    """(lo, hi) bounds of consecutive blocks of ``_BLOCK`` rows out of n."""
    for lo in range(0, n, _BLOCK):
        yield lo, min(lo + _BLOCK, n)


def rank_order(qcode: np.ndarray, score: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """Indices putting rows in (query, score desc, doc id desc bytes) order.

    ``qcode``: query code per row (queries come out in ascending code order); ``doc``: the
    document ids as bytes (numpy ``S`` or object array) for breaking score ties.
    """
    n = len(qcode)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = _grouped_order(qcode, score)
    if order is None:
        # sort by score (ties are settled below, so it need not be stable),
        # then by query (radix sort up to 65536 queries)
        key = qcode.astype(np.uint16) if qcode.max() < 2**16 else qcode
        order = np.argsort(-score)
        order = order[np.argsort(key[order], kind="stable")]
        del key
    # ties: neighbours with equal scores in the same query (rare, so the
    # query test runs on the equal-score pairs only)
    parts: list[np.ndarray] = []
    for lo, hi in _blocks(n - 1):
        s = score[order[lo : hi + 1]]
        parts.append(lo + np.flatnonzero(s[1:] == s[:-1]))
    eq = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    if len(eq):
        eq = eq[qcode[order[eq]] == qcode[order[eq + 1]]]
    if not len(eq):
        return order
    # rows belonging to a tie group, reordered by doc id, descending bytes
    tie = np.zeros(n, dtype=bool)
    tie[eq] = True
    in_group = np.zeros(n, dtype=bool)
    in_group[eq] = True
    in_group[eq + 1] = True
    rows = np.nonzero(in_group)[0]
    del in_group
    # group id: increments where a row does not tie with the previous one
    starts_group = np.ones(len(rows), dtype=bool)
    starts_group[1:] = ~(tie[rows[1:] - 1] & (rows[1:] == rows[:-1] + 1))
    del tie
    gid = np.cumsum(starts_group)
    # ascending ids within ascending groups, then each group reversed: descending ids
    sub = np.lexsort((doc[order[rows]], gid))
    g = gid[sub]
    reverse = np.searchsorted(g, g, side="left") + np.searchsorted(g, g, side="right") - 1 - np.arange(len(g))
    order[rows] = order[rows[sub[reverse]]]
    return order


def _grouped_order(qcode: np.ndarray, score: np.ndarray):
    """The ranking order when each query's rows are contiguous and sorted by
    score descending (the usual run file): the query blocks put in query
    order, ties not yet settled.  None for other files."""
    n = len(qcode)
    starts = stretch_heads(qcode)
    block_q = qcode[starts]
    sorted_q = np.sort(block_q)
    if (sorted_q[1:] == sorted_q[:-1]).any():
        return None  # a query in several blocks
    rise = np.flatnonzero(score[1:] > score[:-1]) + 1
    if not among(rise, starts).all():
        return None  # scores increase inside a query
    lengths = np.diff(np.append(starts, n))
    by_query = np.argsort(block_q, kind="stable")
    if (by_query == np.arange(len(by_query))).all():
        return np.arange(n, dtype=np.int64)
    # row i of the result comes from row i - new_start + old_start
    new_starts = np.zeros(len(starts), dtype=np.int64)
    np.cumsum(lengths[by_query][:-1], out=new_starts[1:])
    order = np.repeat(starts[by_query] - new_starts, lengths[by_query])
    for lo, hi in _blocks(n):
        order[lo:hi] += np.arange(lo, hi)
    return order
