"""Do two sets of judgments agree?  Two qrels of the same queries (two assessors, a second round, an
automatic judge against people) compared on the (query, document) pairs both judged: the grade-by-grade
confusion matrix, Cohen's kappa (unweighted and linearly weighted), Krippendorff's alpha (ordinal), per
query and over all pairs, the pairs only one of them judged, and the queries where they disagree most.

Negative grades are left out.  trec_eval reads a negative grade (``-1`` in some TREC qrels: "in the
pool, not judged"; ``-2`` and lower: spam, junk) as judged and not relevant for ``Judged@k`` and
``bpref``, but it is a mark of how the document was treated, not a relevance on the scale: put below 0
on the ordinal scale it would read as "less relevant than not relevant", and weigh on kappa and alpha as
the largest disagreements.  A pair with a negative grade on a side is counted as not judged by that
side (``negative_a``, ``negative_b`` say how many each had).

* Cohen's kappa: ``(p_o - p_e) / (1 - p_e)`` over the shared pairs' confusion matrix (statsmodels'
  ``cohens_kappa``); linearly weighted, with disagreement weights ``|g - h|`` on the grades' values
  (grades 0, 1, 3: a 0 against a 3 weighs three times a 0 against a 1; statsmodels' ``wt="linear"`` with
  the grades as its ``weights``).
* Krippendorff's alpha, ordinal: two coders, every shared pair a unit, the ordinal metric over the
  grades seen (the ``krippendorff`` package's ``level_of_measurement="ordinal"``).
* Per query the same, over its shared pairs.  Where every shared pair of a query has one grade on both
  sides, kappa and alpha are 0/0: NaN, the reason in ``not_computable``.
* The queries that disagree most: the largest share of shared pairs with different grades, then the
  largest mean ``|grade a - grade b|``, then the most shared pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from metrics.judgments.common import not_computable, qrels_frame

__all__ = ["QrelsAgreement", "compare", "cohen_kappa", "krippendorff_ordinal"]


@dataclass
class QrelsAgreement:
    """What :func:`compare` found.  ``kappa``, ``weighted_kappa``, ``alpha``: over every shared pair,
    NaN where not computable (``not_computable[name]`` says why).  ``confusion``: a frame, index the
    grades of qrels a, columns those of qrels b (the grades either gives), counts of shared pairs.
    ``per_query``: a frame ``query_id, pairs, only_a, only_b, agreement`` (share of shared pairs with
    one grade), ``mean_abs_diff, kappa, weighted_kappa, alpha``, one row per query either judged, in
    query-id order.  ``most_disputed``: the first ``top`` rows of ``per_query`` (of the queries with a
    shared pair) in order of disagreement."""

    pairs: int
    only_a: int
    only_b: int
    negative_a: int
    negative_b: int
    queries_both: int
    queries_only_a: int
    queries_only_b: int
    agreement: float
    kappa: float
    weighted_kappa: float
    alpha: float
    confusion: pd.DataFrame
    per_query: pd.DataFrame
    most_disputed: pd.DataFrame
    not_computable: dict = field(default_factory=dict)

    def summary(self):
        """The overall numbers as a one-column frame (index: what, column: value)."""
        import pandas as pd

        names = ["pairs", "only_a", "only_b", "negative_a", "negative_b", "queries_both", "queries_only_a"]
        names += ["queries_only_b", "agreement", "kappa", "weighted_kappa", "alpha"]
        return pd.DataFrame({"value": [getattr(self, n) for n in names]}, index=pd.Index(names, name="what"))


def cohen_kappa(table: np.ndarray, grades=None, weighted: bool = False) -> float:
    """Cohen's kappa of a square confusion matrix (rows: rater a, columns: rater b, categories in
    ``grades``' order); ``weighted``: linear disagreement weights ``|g_i - g_j|`` on ``grades`` (default
    0, 1, 2...).  NaN when the chance disagreement is 0 (both raters use one and the same category)."""
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    if n == 0:
        return float("nan")
    k = table.shape[0]
    values = np.arange(k, dtype=np.float64) if grades is None else np.asarray(grades, dtype=np.float64)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    weights = np.abs(values[:, None] - values[None, :]) if weighted else 1.0 - np.eye(k)
    chance = float((weights * expected).sum())
    if chance <= 0:
        return float("nan")
    return 1.0 - float((weights * table).sum()) / chance


def krippendorff_ordinal(table: np.ndarray) -> float:
    """Krippendorff's alpha, ordinal metric, of two coders who coded every unit (the confusion matrix
    ``table`` of their values, categories in order): the coincidence matrix ``o = table + table.T``,
    ``n_c`` its margins, ``delta_ck = (sum of n_g for g from c to k - (n_c + n_k) / 2) ** 2``, and
    ``alpha = 1 - (n - 1) * sum(o * delta) / sum(n_c n_k delta)``.  NaN when only one value is seen."""
    table = np.asarray(table, dtype=np.float64)
    o = table + table.T
    margins = o.sum(axis=1)
    n = margins.sum()
    cum = np.concatenate([[0.0], np.cumsum(margins)])
    lo = np.minimum.outer(np.arange(len(margins)), np.arange(len(margins)))
    hi = np.maximum.outer(np.arange(len(margins)), np.arange(len(margins)))
    delta = (cum[hi + 1] - cum[lo] - (margins[:, None] + margins[None, :]) / 2.0) ** 2
    expected = float((np.outer(margins, margins) * delta).sum())
    if n < 2 or expected <= 0:
        return float("nan")
    return 1.0 - (n - 1.0) * float((o * delta).sum()) / expected


def _split(frame):
    """(the pairs with a grade of 0 or more, last one of a pair kept; the number of negative rows)."""
    frame = frame.drop_duplicates(["query_id", "doc_id"], keep="last")
    negative = frame["relevance"].to_numpy() < 0
    return frame[~negative], int(negative.sum())


def compare(a, b, *, top: int = 5) -> QrelsAgreement:
    """Compare two qrels (paths, frames or dicts: anything :func:`metrics.read_qrels` takes) on the
    (query, document) pairs both judged: see the module's note and :class:`QrelsAgreement`.  Nothing in
    common is no error: the counts are given, and the rest is NaN and said not computable."""
    import pandas as pd

    qa, neg_a = _split(qrels_frame(a))
    qb, neg_b = _split(qrels_frame(b))
    both = qa.merge(qb, on=["query_id", "doc_id"], how="outer", suffixes=("_a", "_b"), indicator=True)
    shared = both[both["_merge"] == "both"]
    ga = shared["relevance_a"].to_numpy(dtype=np.int64)
    gb = shared["relevance_b"].to_numpy(dtype=np.int64)
    grades = np.union1d(ga, gb)
    why: dict[str, str] = {}

    def table_of(x, y):
        t = np.zeros((len(grades), len(grades)), dtype=np.int64)
        np.add.at(t, (np.searchsorted(grades, x), np.searchsorted(grades, y)), 1)
        return t

    confusion = pd.DataFrame(
        table_of(ga, gb),
        index=pd.Index(grades.tolist(), name="grade_a"),
        columns=pd.Index(grades.tolist(), name="grade_b"),
    )
    overall = _measures(confusion.to_numpy(), grades)
    if len(ga) == 0:
        for name in ("agreement", "kappa", "weighted_kappa", "alpha"):
            why[name] = not_computable("no (query, document) pair is judged by both qrels")
    elif len(grades) == 1:
        for name in ("kappa", "weighted_kappa", "alpha"):
            why[name] = not_computable(f"every shared pair has grade {grades[0]} in both qrels: no chance to disagree")
    per_query = _per_query(both, grades, table_of)
    disputed = per_query[per_query["pairs"] > 0].sort_values(
        ["agreement", "mean_abs_diff", "pairs"], ascending=[True, False, False], kind="stable"
    )
    queries_a, queries_b = set(qa["query_id"]), set(qb["query_id"])
    return QrelsAgreement(
        pairs=len(ga),
        only_a=int((both["_merge"] == "left_only").sum()),
        only_b=int((both["_merge"] == "right_only").sum()),
        negative_a=neg_a,
        negative_b=neg_b,
        queries_both=len(queries_a & queries_b),
        queries_only_a=len(queries_a - queries_b),
        queries_only_b=len(queries_b - queries_a),
        agreement=overall[0],
        kappa=overall[1],
        weighted_kappa=overall[2],
        alpha=overall[3],
        confusion=confusion,
        per_query=per_query,
        most_disputed=disputed.head(top).reset_index(drop=True),
        not_computable=why,
    )


def _measures(table: np.ndarray, grades) -> tuple[float, float, float, float]:
    n = table.sum()
    agreement = float(np.trace(table) / n) if n else float("nan")
    return agreement, cohen_kappa(table), cohen_kappa(table, grades, weighted=True), krippendorff_ordinal(table)


def _per_query(both, grades, table_of):
    import pandas as pd

    rows = []
    for qid, part in both.groupby("query_id", sort=True):
        shared = part[part["_merge"] == "both"]
        x = shared["relevance_a"].to_numpy(dtype=np.int64)
        y = shared["relevance_b"].to_numpy(dtype=np.int64)
        table = table_of(x, y)
        agreement, kappa, weighted, alpha = _measures(table, grades)
        rows.append(
            (
                str(qid),
                len(x),
                int((part["_merge"] == "left_only").sum()),
                int((part["_merge"] == "right_only").sum()),
                agreement,
                float(np.abs(x - y).mean()) if len(x) else float("nan"),
                kappa,
                weighted,
                alpha,
            )
        )
    columns = ["query_id", "pairs", "only_a", "only_b", "agreement", "mean_abs_diff", "kappa", "weighted_kappa"]
    return pd.DataFrame(rows, columns=columns + ["alpha"])
