"""Worked examples from textbooks and course notes, computed through the public API.

Each number is checked to the decimals the example prints: ``printed("0.8304")``
accepts any value that rounds to 0.8304.  Every test names the variant it uses:
trec_eval's measures are ``map``, ``recip_rank``, ``ndcg_cut`` (linear gain =
the grade, discount log2(i + 1), ideal ranking of all judged documents);
the other variants are options of ``nDCG(...)`` and ``AP(...)``.
"""

from __future__ import annotations

import functools
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import metrics.measures.irm  # noqa: F401  (ir_measures-style names)
from metrics import build_ranking
from metrics import evaluate as evaluate_as_named
from metrics.engine.curves import at_k
from metrics.engine.settings import Settings
from metrics.measures import FAMILIES

# these tests look values up by the measures' canonical names (ndcg_cut_10, not nDCG@10)
evaluate = functools.partial(evaluate_as_named, keep_names=False)


def printed(text: str):
    """pytest.approx accepting exactly the values that print as ``text``."""
    decimals = -Decimal(text).as_tuple().exponent
    return pytest.approx(float(text), abs=0.5 * 10.0**-decimals)


def qrels_frame(rows) -> pd.DataFrame:
    q, d, r = zip(*rows)
    return pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "relevance": np.asarray(r, dtype=np.int64),
        }
    )


def ranked(lists: dict[str, list[str]], name="run") -> pd.DataFrame:
    """A run from {query: [doc at rank 1, doc at rank 2, ...]} (decreasing scores)."""
    rows = [(q, d, float(len(docs) - i)) for q, docs in lists.items() for i, d in enumerate(docs)]
    q, d, s = zip(*rows)
    run = pd.DataFrame(
        {"query_id": pd.Series(q, dtype="str"), "doc_id": pd.Series(d, dtype="str"), "score": np.asarray(s)}
    )
    run.attrs["name"] = name
    return run


def graded(grades: list[int], query="q", extra: dict[str, int] | None = None):
    """qrels and run for one query whose rank i holds a doc of grade grades[i];
    ``extra`` adds judged documents that are not retrieved."""
    docs = [f"d{i + 1}" for i in range(len(grades))]
    rows = [(query, d, g) for d, g in zip(docs, grades)]
    rows += [(query, d, g) for d, g in (extra or {}).items()]
    return qrels_frame(rows), ranked({query: docs})


def one(ev, query: str = "all") -> float:
    """Value of the only measure of ``ev`` for ``query`` ("all" = aggregate)."""
    (m,) = ev.measures
    if query == "all":
        return ev.aggregate.loc[ev.aggregate["measure"] == str(m), "value"].item()
    pq = ev.per_query
    return pq.loc[(pq["measure"] == str(m)) & (pq["query_id"] == query), "value"].item()


def test_average_precision_two_topics():
    """trec_eval's map: precision at each relevant retrieved document, summed
    and divided by the number of relevant documents (retrieved or not)."""
    qrels = qrels_frame(
        [("t1", f"r{i}", 1) for i in range(1, 5)]
        + [("t1", f"n{i}", 0) for i in range(1, 7)]
        + [("t2", f"r{i}", 1) for i in range(1, 6)]
        + [("t2", f"n{i}", 0) for i in range(1, 7)]
    )
    run = ranked(
        {
            "t1": ["r1", "r2", "n1", "r3", "n2", "n3", "r4", "n4", "n5", "n6"],  # ranks 1, 2, 4, 7
            "t2": ["r1", "n1", "r2", "n2", "r3", "n3", "n4", "n5", "n6"],  # ranks 1, 3, 5; r4, r5 missed
        }
    )
    ev = evaluate(qrels, run, "AP")
    assert [str(m) for m in ev.measures] == ["map"]
    assert one(ev, "t1") == printed("0.8304")
    assert one(ev, "t2") == printed("0.4533")
    assert one(ev) == printed("0.6418")


def test_dcg_grades_3_2_3_0_1_2():
    """Grades 3,2,3,0,1,2 at ranks 1..6, ideal order 3,3,2,2,1,0.

    Järvelin-Kekäläinen discount, base 2 (divide by log2(i), ranks 1 and 2
    undiscounted), linear gain: DCG 8.097, ideal DCG 8.693, nDCG 0.9315.
    trec_eval's discount log2(i + 1), linear gain: DCG 6.861.  With two more
    judged, unretrieved documents of grades 3 and 0 the ideal top 6 becomes
    3,3,3,2,2,1: ideal DCG@6 8.384, nDCG@6 0.8184 (trec_eval's ndcg_cut_6).
    Texts that round every term to two decimals before adding print 8.37 and
    0.8196; the exact sums are tested here.
    """
    grades = [3, 2, 3, 0, 1, 2]
    qrels, run = graded(grades)
    ideal_run = ranked({"q": [f"d{i + 1}" for i in np.argsort(grades, kind="stable")[::-1]]})

    def dcg_at(run, k, **options):
        curve = at_k(qrels, run, "DCG", k_max=k, settings=Settings(**options))
        return curve.loc[(curve["query_id"] == "q") & (curve["k"] == k), "value"].item()

    assert dcg_at(run, 6, discount="jk") == printed("8.097")
    assert dcg_at(ideal_run, 6, discount="jk") == printed("8.693")
    ev = evaluate(qrels, run, "nDCG(discount=jk,base=2)@6")
    assert str(ev.measures[0]) == "ndcg_ext_6(discount=jk)"
    assert one(ev, "q") == printed("0.9315")

    assert dcg_at(run, 6) == printed("6.861")
    assert one(evaluate(qrels, run, "dcg"), "q") == printed("6.861")

    qrels8, _ = graded(grades, extra={"x1": 3, "x2": 0})
    assert one(evaluate(qrels8, run, "ideal_dcg"), "q") == printed("8.384")
    ev = evaluate(qrels8, run, "nDCG@6")
    assert str(ev.measures[0]) == "ndcg_cut_6"
    assert one(ev, "q") == printed("0.8184")
    assert one(ev, "q") != printed("0.8196")


def test_ndcg_linear_and_exponential_gain():
    """Grades 7,2,5,10,1 at ranks 1..5, discount log2(i + 1), ideal of all
    judged documents.  Linear gain (trec_eval's ndcg_cut_5): DCG 15.455,
    ideal DCG 18.165, nDCG@5 0.8509.  Exponential gain 2**grade - 1:
    DCG 585.36, ideal DCG 1120.31, nDCG@5 0.5225."""
    qrels, run = graded([7, 2, 5, 10, 1])
    assert one(evaluate(qrels, run, "dcg"), "q") == printed("15.455")
    assert one(evaluate(qrels, run, "ideal_dcg"), "q") == printed("18.165")
    assert one(evaluate(qrels, run, "nDCG@5"), "q") == printed("0.8509")

    dcg = at_k(qrels, run, "DCG", k_max=5, settings=Settings(gain="exp"))
    assert dcg["value"].iloc[4] == printed("585.36")
    ev = evaluate(qrels, run, "nDCG(gain=exp)@5")
    assert str(ev.measures[0]) == "ndcg_ext_5(gain=exp)"
    ndcg = one(ev, "q")
    assert ndcg == printed("0.5225")
    assert dcg["value"].iloc[4] / ndcg == printed("1120.31")


def test_mean_reciprocal_rank():
    """trec_eval's recip_rank: 1 / rank of the first relevant document, 0
    when none is retrieved; MRR is the mean over the four queries
    (1/4 + 0 + 0 + 1/5) / 4."""
    qrels = qrels_frame([(q, "rel", 1) for q in ("a", "b", "c", "d")])
    other = [f"n{i}" for i in range(6)]
    run = ranked({"a": other[:3] + ["rel"] + other[3:], "b": other, "c": other[:2], "d": other[:4] + ["rel"]})
    ev = evaluate(qrels, run, "RR")
    assert str(ev.measures[0]) == "recip_rank"
    assert [one(ev, q) for q in "abcd"] == [0.25, 0.0, 0.0, 0.2]
    assert one(ev) == printed("0.1125")


def test_interpolated_ap_and_jk_ndcg_at_every_k():
    """Relevance 1,0,0,1,1,0,0,1,0,0 with 4 relevant documents.  AP with the
    interpolated precision at each relevant document's recall (the highest
    precision at that rank or below: 1, 0.6, 0.6, 0.5): 0.675.

    Gains 2,0,0,3,5,0,0,4,0,0 (ideal 5,4,3,2), linear gain, Järvelin-
    Kekäläinen discount log2(i) with rank 1 undiscounted (base 2), ideal of
    all judged documents: nDCG@1..10."""
    qrels, run = graded([1, 0, 0, 1, 1, 0, 0, 1, 0, 0])
    ev = evaluate(qrels, run, "AP(interpolated)")
    assert str(ev.measures[0]) == "map_ext(precision=interpolated)"
    assert one(ev, "q") == printed("0.675")
    assert one(evaluate(qrels, run, "AP"), "q") == pytest.approx((1 + 2 / 4 + 3 / 5 + 4 / 8) / 4)

    qrels, run = graded([2, 0, 0, 3, 5, 0, 0, 4, 0, 0])
    curve = at_k(qrels, run, "NDCG", k_max=10, settings=Settings(discount="jk", base=2))
    got = curve.loc[curve["query_id"] == "q", "value"].tolist()
    expected = "0.4000 0.2222 0.1836 0.2943 0.4754 0.4754 0.4754 0.5875 0.5875 0.5875".split()
    assert got == [printed(x) for x in expected]
    ev = evaluate(qrels, run, [f"nDCG(discount=jk)@{k}" for k in range(1, 11)])
    assert [one_measure(ev, m) for m in ev.measures] == [printed(x) for x in expected]


def one_measure(ev, m) -> float:
    return ev.aggregate.loc[ev.aggregate["measure"] == str(m), "value"].item()


def test_prediction_against_a_target_order_and_mean_of_aps():
    """Prediction e,b,a,d,c against the target order a,b,c,d,e: "only b and d
    match" means position by position, so b (rank 2) and d (rank 4) are the
    relevant documents and the other three are judged non-relevant.  AP =
    (1/2 + 2/4) / 2 = 0.5.  (Taking all five target items as relevant would
    give AP 1.0, since every retrieved document is then relevant; dividing
    by the five target items would give 0.2.  Only the positional reading
    gives the stated 0.5.)

    The APs 0.4, 0.5, 0.6, 0.9 of four queries average to MAP 0.6: checked
    with the aggregate the map measure uses (arithmetic mean over the
    evaluated queries)."""
    target, prediction = list("abcde"), list("ebadc")
    matches = {d for d, t in zip(prediction, target) if d == t}
    assert matches == {"b", "d"}
    qrels = qrels_frame([("q", d, int(d in matches)) for d in target])
    ev = evaluate(qrels, ranked({"q": prediction}), "AP")
    assert one(ev, "q") == printed("0.5")

    four = qrels_frame([(q, "d", 1) for q in "wxyz"])
    r = build_ranking(four, ranked({q: ["d"] for q in "wxyz"}))
    assert r.n_queries == 4
    assert FAMILIES["map"].aggregate(np.array([0.4, 0.5, 0.6, 0.9]), r) == printed("0.6")
