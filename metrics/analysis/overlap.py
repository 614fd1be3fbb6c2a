"""Rank overlap between runs: for every pair of runs and every query both answer, the Jaccard index of
their top-k sets and rank-biased overlap, extrapolated (RBO_ext, Webber, Moffat and Zobel 2010).

Both are computed for all pairs and queries at once.  The first ``depth`` documents of every run are
laid end to end (:func:`metrics.analysis.ranked.top_documents`, each run in trec_eval's order) and
sorted once on (query, document hash, run): the rows of one (query, document) then lie together, and
every two runs among them share that document.  Each shared document is one item with the pair, the
query and the deeper of its two ranks; the overlaps at every depth and RBO's sums are counts and sums
of those items per (pair, query) (``np.bincount``), a block of items at a time.

RBO_ext at depth k (the paper's equation 32, which is its equation 30 when both lists hold k
documents): with ``l`` and ``s`` the lengths of the longer and the shorter list (each cut at k; a run
that retrieved fewer than k documents has a shorter list) and ``X_d`` the number of documents the two
lists share within their first ``d``, the shorter list whole when ``d > s``,

    RBO_ext = (1 - p) / p * (sum_{d=1..l} X_d / d * p^d + sum_{d=s+1..l} X_s * (d - s) / (s * d) * p^d)
              + ((X_l - X_s) / l + X_s / s) * p^l

A shared document whose deeper rank (1-based) is ``m`` counts in every ``X_d`` with ``d >= m``, so
``sum_d X_d / d * p^d`` is, over the shared documents, ``C(l) - C(m - 1)`` with
``C(n) = sum_{d=1..n} p^d / d``.  Jaccard is ``X_l / (|A| + |B| - X_l)`` on the same lists.
"""

from __future__ import annotations

import numpy as np

from metrics.analysis.ranked import TopDocuments, top_documents
from metrics.io.ids import id_hash

__all__ = ["rank_overlap", "overlap_of", "mean_overlap", "overlap_matrix", "DEFAULT_PERSISTENCE"]

#: RBO's persistence p by default (the paper's examples; an expected depth of 1 / (1 - p) = 10)
DEFAULT_PERSISTENCE = 0.9
#: shared-document items handled at a time: bounds the temporaries (a few bytes each)
_ITEMS = 1 << 22


def rank_overlap(runs, depth: int = 10, p: float = DEFAULT_PERSISTENCE, qrels=None):
    """Jaccard index of the top-``depth`` sets and RBO_ext at depth ``depth`` with persistence ``p`` for
    every pair of ``runs`` (anything :func:`metrics.evaluate` takes) and every query both answer.

    Each run is ranked in trec_eval's order.  With ``qrels`` (anything :func:`metrics.evaluate` takes)
    only their queries are compared, as trec_eval evaluates; without, every query.  Returns a frame
    ``run_a, run_b, query_id, shared, jaccard, rbo`` (``shared``: documents the two top lists share),
    pairs in the order of the runs (a before b), queries in trec_eval's order; a query that one run
    of the pair does not answer has no row."""
    enc = None
    if qrels is not None:
        from metrics.engine.evaluate import encoded

        enc = encoded(qrels)
    return overlap_of(top_documents(runs, depth, enc, judge=False), p)


def overlap_of(top: TopDocuments, p: float = DEFAULT_PERSISTENCE):
    """:func:`rank_overlap` of runs already cut to their top documents."""
    import pandas as pd

    if not 0.0 < p < 1.0:
        raise ValueError(f"RBO's persistence p must lie strictly between 0 and 1, not {p:g}")
    nr, nq, k = len(top.runs), len(top.queries), top.depth
    ia, ib = np.triu_indices(nr, 1)
    shared, before_short, weight = _shared_sums(top, nr, nq, k, p)
    la, lb = top.lengths[ia], top.lengths[ib]  # (pairs, queries)
    pair, q = np.nonzero((la > 0) & (lb > 0))
    la, lb = la[pair, q], lb[pair, q]
    x_l, x_s, w = shared[pair, q], before_short[pair, q], weight[pair, q]
    long, short = np.maximum(la, lb), np.minimum(la, lb)
    d = np.arange(k + 1, dtype=np.float64)
    powers = p**d
    c = np.concatenate([[0.0], np.cumsum(powers[1:] / d[1:])])  # C(n) = sum_{d<=n} p^d / d
    g = np.concatenate([[0.0], np.cumsum(powers[1:])])  # G(n) = sum_{d<=n} p^d
    first = x_l * c[long] - w  # sum_{d<=l} X_d / d * p^d
    tail = x_s / short * ((g[long] - g[short]) - short * (c[long] - c[short]))  # sum_{s<d<=l} X_s(d-s)/(sd) p^d
    rbo = (1.0 - p) / p * (first + tail) + ((x_l - x_s) / long + x_s / short) * powers[long]
    jaccard = x_l / (la + lb - x_l)
    labels = np.array(top.runs, dtype=object)
    return pd.DataFrame(
        {
            "run_a": labels[ia[pair]],
            "run_b": labels[ib[pair]],
            "query_id": np.array(top.queries, dtype=object)[q],
            "shared": x_l.astype(np.int64),
            "jaccard": jaccard,
            "rbo": rbo,
        }
    )


def _shared_sums(top: TopDocuments, nr: int, nq: int, k: int, p: float):
    """Per (pair of runs, query), as (pairs, queries) arrays: the documents the two top lists share
    (``X_l``), those shared within the shorter list's length (``X_s``), and the sum of ``C(m - 1)``
    over the shared documents, ``m`` the deeper of their two 1-based ranks."""
    npairs = nr * (nr - 1) // 2
    size = npairs * nq
    shared = np.zeros(size, dtype=np.int64)
    weight = np.zeros(size, dtype=np.float64)
    d = np.arange(1, k + 1, dtype=np.float64)
    c_before = np.concatenate([[0.0], np.cumsum(p**d / d)])[:k]  # C(m - 1) for 0-based deeper rank m - 1
    ia, ib = np.triu_indices(nr, 1)
    lengths_a, lengths_b = top.lengths[ia].ravel(), top.lengths[ib].ravel()
    # X_s differs from X_l only where the two lists differ in length (a run short of k documents)
    uneven = (lengths_a != lengths_b) & (lengths_a > 0) & (lengths_b > 0)
    short = np.minimum(lengths_a, lengths_b)
    track_short = bool(uneven.any())
    before_short = np.zeros(size, dtype=np.int64) if track_short else shared
    if size and len(top.run):
        order, starts = _grouped(top)
        run = top.run[order].astype(np.int64)
        cell_type = np.int32 if size < 2**31 else np.int64
        # cell (pair, query) of an item = (pair index of (run_a, run_b)) * nq + query, pair index =
        # run_a * (2 nr - run_a - 1) / 2 + run_b - run_a - 1: a part from each of its two rows
        cell_left = ((run * (2 * nr - run - 1) // 2 - run - 1) * nq + top.query[order]).astype(cell_type)
        cell_right = (run * nq).astype(cell_type)
        rank = top.rank[order].astype(np.int16 if k < 2**15 else np.int32)
        twice = _listed_twice(run, starts)
        del run
        n = len(order)
        ends = np.append(starts[1:], n)
        partners = (np.repeat(ends, np.diff(ends, prepend=0)) - 1 - np.arange(n)).astype(np.int64)
        done = np.concatenate([[0], np.cumsum(partners)])
        steps = np.arange(min(int(done[-1]), _ITEMS), dtype=np.int64)
        lo = 0
        while lo < n:
            hi = max(int(np.searchsorted(done, done[lo] + _ITEMS, side="right")) - 1, lo + 1)
            count = partners[lo:hi]
            total = int(done[hi] - done[lo])
            if total == 0:
                lo = hi
                continue
            rows = np.arange(lo, hi, dtype=np.int64)
            left = np.repeat(rows, count)
            # the item's second row: after its first, one more with each item of the same first row
            right = np.repeat(rows + 1 - (done[lo:hi] - done[lo]), count)
            right += steps[:total] if total <= len(steps) else np.arange(total)
            if twice:  # a run that lists a document twice pairs with itself: not a pair
                keep = top.run[order[left]] != top.run[order[right]]
                left, right = left[keep], right[keep]
            cell = cell_left[left] + cell_right[right]
            deeper = np.maximum(rank[left], rank[right])
            del left, right
            shared += np.bincount(cell, minlength=size)
            weight += np.bincount(cell, weights=c_before[deeper], minlength=size)
            if track_short:
                within = np.flatnonzero(uneven[cell])
                within = within[deeper[within] < short[cell[within]]]
                before_short += np.bincount(cell[within], minlength=size)
            lo = hi
    if track_short:
        before_short = np.where(uneven, before_short, shared)
    shape = (npairs, nq)
    return shared.reshape(shape), before_short.reshape(shape), weight.reshape(shape)


def _listed_twice(run: np.ndarray, starts: np.ndarray) -> bool:
    """Whether some run lists a document of a query twice (rows grouped by (query, document), run
    ascending within a group): the readers refuse such runs, frames made by hand may hold them."""
    same = run[1:] == run[:-1]
    if len(starts) > 1:
        same[starts[1:] - 1] = False
    return bool(same.any())


def _grouped(top: TopDocuments) -> tuple[np.ndarray, np.ndarray]:
    """The rows' order by (query, document, run), and where each (query, document) starts in it.
    Documents are compared by their 64-bit hash, every match confirmed on the ids; should two
    documents share a hash, by exact codes of their ids."""
    key = id_hash(top.doc)
    # rows come run after run: stable sorts keep the runs in order within a (query, document)
    order = np.argsort(key, kind="stable")
    order = order[np.argsort(top.query[order], kind="stable")]
    new = (top.query[order[1:]] != top.query[order[:-1]]) | (key[order[1:]] != key[order[:-1]])
    doc = top.doc[order]
    if (doc[1:] != doc[:-1])[~new].any():
        codes = np.unique(top.doc, return_inverse=True)[1].ravel()
        order = np.lexsort((top.run, codes, top.query))
        doc = top.doc[order]
        new = (top.query[order[1:]] != top.query[order[:-1]]) | (doc[1:] != doc[:-1])
    return order, np.flatnonzero(np.concatenate([[True], new]))


def mean_overlap(overlap):
    """Per pair of runs, the mean of each measure over the queries both answer: a frame ``run_a, run_b,
    queries, jaccard, rbo``, pairs in the order of ``overlap`` (a frame of :func:`rank_overlap`)."""
    means = overlap.groupby(["run_a", "run_b"], sort=False)[["jaccard", "rbo"]].mean()
    counts = overlap.groupby(["run_a", "run_b"], sort=False).size().rename("queries")
    return means.join(counts)[["queries", "jaccard", "rbo"]].reset_index()


def overlap_matrix(overlap, runs: list[str] | None = None, value: str = "rbo"):
    """The mean ``value`` (``rbo`` or ``jaccard``) of every pair as a square run-by-run frame,
    symmetric, 1 on the diagonal, NaN for a pair with no query in common; ``runs`` orders it
    (by default the order in which runs first appear in ``overlap``)."""
    import pandas as pd

    means = mean_overlap(overlap)
    if runs is None:
        runs = list(pd.unique(pd.concat([overlap["run_a"], overlap["run_b"]])))
    index = {r: i for i, r in enumerate(runs)}
    matrix = np.full((len(runs), len(runs)), np.nan)
    np.fill_diagonal(matrix, 1.0)
    a = means["run_a"].map(index).to_numpy()
    b = means["run_b"].map(index).to_numpy()
    matrix[a, b] = matrix[b, a] = means[value].to_numpy()
    return pd.DataFrame(matrix, index=pd.Index(runs, name="run"), columns=list(runs))
