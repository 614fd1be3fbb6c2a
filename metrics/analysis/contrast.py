"""Where two runs differ most, query by query (diffir's "where to look first"): their rank-biased overlap
(RBO_ext, :mod:`metrics.analysis.overlap`), their AP rank correlation (tau_AP, Yilmaz, Aslam and Robertson,
SIGIR 2008), or a measure's difference against the qrels.

tau_AP of a ranking against a reference, both strict rankings of the same ``n`` items: with ``C(i)`` the
number of the items above rank ``i`` of the ranking that the reference also puts above that item,

    tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1

(1 when the two agree, -1 when one is the other reversed; like AP, a disagreement near the top costs more
than one further down).  It is not symmetric: the ranking is weighed by its own ranks.  With ties, as
:func:`tau_ap` takes scores: each item ``j`` of the ranking is compared with the items the ranking puts
strictly above it (none: it does not count), an item the reference also puts above it counting 1 and one
the reference ties with it counting 1/2; tau_AP is twice the mean of those fractions less one, which is
the formula above when nothing is tied (and stays within [-1, 1]; diffir's version of the sum can leave
it).

Two runs do not retrieve the same documents.  :func:`contrast` compares each query's first ``depth``
documents of both on their union, as diffir does: a document one run does not list (within ``depth``) is
put below that run's last document, tied with the others it lacks.  So two lists that share nothing come
out well below 0 (each list's documents are tied at the bottom of the other), and identical lists at 1.
Run B is the ranking, run A the reference.
"""

from __future__ import annotations

import numpy as np

__all__ = ["contrast", "measure_contrast", "tau_ap", "CONTRASTS"]

#: the contrasts other than a measure's: name -> what it is
CONTRASTS = {
    "rbo": "rank-biased overlap of the top lists (RBO_ext), lowest first",
    "tau_ap": "AP rank correlation of run B's list against run A's (tau_AP), lowest first",
}
#: rows of the pairs compared at a time (bounds tau_AP's temporaries: rows x n booleans)
_BLOCK = 1 << 20


def tau_ap(reference, ranking) -> float:
    """tau_AP of ``ranking`` against ``reference``: two sequences of scores of the same items (higher is
    better; ties allowed, see the module's docstring).  1.0 for fewer than two items; nan when the ranking
    ties every item."""
    x = np.asarray(reference, dtype=np.float64)
    y = np.asarray(ranking, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"tau_AP compares two sequences of the same length, not {x.shape} and {y.shape}")
    n = len(x)
    if n < 2:
        return 1.0
    credit = np.zeros(n, dtype=np.float64)
    above = np.zeros(n, dtype=np.int64)
    rows = max(1, _BLOCK // n)
    for lo in range(0, n, rows):  # items i (rows) above items j (columns)
        xi, yi = x[lo : lo + rows, None], y[lo : lo + rows, None]
        higher = yi > y[None, :]
        above += higher.sum(axis=0)
        credit += (higher & (xi > x[None, :])).sum(axis=0) + 0.5 * (higher & (xi == x[None, :])).sum(axis=0)
    counted = above > 0
    if not counted.any():
        return float("nan")
    return float(2.0 * np.mean(credit[counted] / above[counted]) - 1.0)


def _union_scores(a: list, b: list) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the union of the lists ``a`` and ``b`` (documents, best first): minus a document's place
    in each list, and below its last for a document the list lacks (those tied)."""
    union = list(dict.fromkeys([*a, *b]))
    place_a = {d: i for i, d in enumerate(a)}
    place_b = {d: i for i, d in enumerate(b)}
    return (
        -np.array([place_a.get(d, len(a)) for d in union], dtype=np.float64),
        -np.array([place_b.get(d, len(b)) for d in union], dtype=np.float64),
    )


def contrast(run_a, run_b, qrels=None, by: str = "rbo", depth: int = 10, *, p: float = 0.9):
    """Per query both runs answer, how much run B differs from run A, most different first: a frame
    ``query_id, value, rank`` (rank 1 the most different; ties keep trec_eval's order of the queries).

    ``by``: ``"rbo"`` (RBO_ext of the first ``depth`` documents, persistence ``p``; lowest first),
    ``"tau_ap"`` (tau_AP of B's first ``depth`` documents against A's, on their union as the module's
    docstring says; lowest first), or a measure's name (``"nDCG@10"``, ``"map"``: B's value less A's
    against ``qrels``, the largest difference either way first; the frame also has the columns ``a`` and
    ``b``, each run's value).  Runs and qrels are anything :func:`metrics.evaluate` takes; with ``qrels``
    only their queries are compared (as trec_eval evaluates)."""
    import pandas as pd

    if depth < 1:
        raise ValueError(f"the depth must be 1 or more, not {depth}")
    runs = {"a": run_a, "b": run_b}
    key = str(by)
    if key.lower() == "rbo":
        from metrics.analysis.overlap import rank_overlap

        frame = rank_overlap(runs, depth, p, qrels)
        ids, values = frame["query_id"].to_numpy(dtype=object), frame["rbo"].to_numpy(dtype=np.float64)
        order = np.argsort(values, kind="stable")
    elif key.lower().replace("-", "_") in ("tau_ap", "tauap"):
        ids, values = _tau_ap_by_query(runs, depth, qrels)
        order = np.argsort(values, kind="stable")
    else:
        if qrels is None:
            raise ValueError(f"contrast by the measure {key!r} needs qrels")
        from metrics.engine.evaluate import evaluate

        return measure_contrast(evaluate(qrels, runs, [key]), "a", "b", key)
    return pd.DataFrame({"query_id": ids[order], "value": values[order], "rank": np.arange(1, len(order) + 1)})


def measure_contrast(results, run_a: str, run_b: str, measure):
    """:func:`contrast` by a measure, of two runs of an evaluation already made (``results``: a
    :class:`metrics.Evaluation` or its per-query frame; ``run_a``, ``run_b`` their labels in it): per query
    both answer, run B's value less run A's, the largest difference either way first (ties keep
    trec_eval's order of the queries); a frame ``query_id, value, rank, a, b``."""
    import pandas as pd

    from metrics.analysis.queries import versus

    frame = versus(results, run_b, run_a, measure)
    ids, values = frame["query_id"].to_numpy(dtype=object), frame["difference"].to_numpy(dtype=np.float64)
    order = np.argsort(-np.abs(values), kind="stable")
    return pd.DataFrame(
        {
            "query_id": ids[order],
            "value": values[order],
            "rank": np.arange(1, len(order) + 1),
            "a": frame["b"].to_numpy()[order],
            "b": frame["a"].to_numpy()[order],
        }
    )


def _tau_ap_by_query(runs: dict, depth: int, qrels) -> tuple[np.ndarray, np.ndarray]:
    from metrics.analysis.ranked import top_documents

    enc = None
    if qrels is not None:
        from metrics.engine.evaluate import encoded

        enc = encoded(qrels)
    top = top_documents(runs, depth, enc, judge=False)
    ids: list[str] = []
    values: list[float] = []
    for q, qid in enumerate(top.queries):
        if top.lengths[0, q] == 0 or top.lengths[1, q] == 0:
            continue
        lists = []
        for r in (0, 1):
            rows = np.flatnonzero((top.run == r) & (top.query == q))
            rows = rows[np.argsort(top.rank[rows], kind="stable")]
            lists.append([bytes(d) for d in top.doc[rows].tolist()])
        x, y = _union_scores(lists[0], lists[1])
        ids.append(qid)
        values.append(tau_ap(x, y))
    return np.array(ids, dtype=object), np.array(values, dtype=np.float64)
