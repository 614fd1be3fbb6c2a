"""metrics.engine.curves: precision-recall points and measures at every k agree with
metrics.evaluate (same queries, same values to the last bit) and with hand
computations."""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
import pytest

from metrics import evaluate
from metrics.engine.curves import AT_K_KINDS, RECALL_LEVELS, at_k, precision_recall
from metrics.engine.settings import Settings


def qrels_frame(rows) -> pd.DataFrame:
    q, d, r = zip(*rows)
    return pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "relevance": np.asarray(r, dtype=np.int64),
        }
    )


def run_frame(rows, name="run") -> pd.DataFrame:
    q, d, s = zip(*rows)
    df = pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "score": np.asarray(s, dtype=np.float64),
        }
    )
    df.attrs["name"] = name
    return df


def random_collection(seed: int, n_queries: int = 12, n_docs: int = 60, name: str = "rnd"):
    """Grades -1..3, score ties, unjudged retrieved docs, queries without
    relevant docs, qrels-only and run-only queries."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(n_docs)]
    qrels, run = [], []
    for i in range(n_queries):
        q = f"q{i + 1}"
        judged = rng.choice(n_docs, size=int(rng.integers(1, n_docs // 2)), replace=False)
        pool = [0] if i % 5 == 1 else [-1, 0, 0, 0, 1, 1, 2, 3]
        qrels += [(q, docs[d], int(g)) for d, g in zip(judged, rng.choice(pool, size=len(judged)))]
        if i % 7 == 3:
            continue
        retrieved = rng.choice(n_docs, size=int(rng.integers(1, 40)), replace=False)
        run += [(q, docs[d], float(s)) for d, s in zip(retrieved, np.round(rng.normal(size=len(retrieved)), 1))]
    run += [("run_only", docs[0], 1.0)]
    return qrels_frame(qrels), run_frame(run, name)


@pytest.fixture(params=[0, 1, 2])
def collection(request):
    return random_collection(request.param)


def _wide(frame: pd.DataFrame, x: str, y: str) -> dict:
    return {(q, float(v)): val for q, v, val in zip(frame["query_id"], frame[x], frame[y])}


def _evaluated(ev, run):
    pq = ev.per_query[ev.per_query["run"] == run]
    agg = ev.aggregate[ev.aggregate["run"] == run]
    out = {(q, m): v for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"])}
    out.update({("all", m): v for m, v in zip(agg["measure"], agg["value"])})
    return out


@pytest.mark.parametrize(
    "settings",
    [Settings(), Settings(relevance_level=2), Settings(max_docs=7, judged_only=True), Settings(complete=True)],
    ids=["defaults", "l2", "M7-J", "c"],
)
def test_precision_recall_is_iprec_at_recall(collection, settings):
    """Every trec_eval option of the settings reaches the curve as it reaches the measure."""
    qrels, run = collection
    pr = precision_recall(qrels, run, settings=settings)
    ev = evaluate(qrels, run, "iprec_at_recall", settings=settings)
    expected = _evaluated(ev, "rnd")
    assert list(pr.columns) == ["run", "query_id", "recall", "precision"]
    queries = ev.query_ids["rnd"]
    assert list(dict.fromkeys(pr["query_id"])) == queries + ["all"]
    assert len(pr) == (len(queries) + 1) * len(RECALL_LEVELS)
    for (q, x), v in _wide(pr, "recall", "precision").items():
        want = expected[(q, f"iprec_at_recall_{x:3.2f}")]
        assert v == want or (math.isnan(v) and math.isnan(want))


def test_precision_recall_any_levels(collection):
    qrels, run = collection
    levels = [0.75, 0.25, 0.33, 0.05]
    pr = precision_recall(qrels, run, levels=levels)
    assert sorted(set(pr["recall"])) == sorted(levels)
    assert list(pr["recall"][:4]) == sorted(levels)
    ev = evaluate(qrels, run, "iprec_at_recall.0.05,0.25,0.33,0.75")
    by_level = {m.params[0]: str(m) for m in ev.measures}
    expected = _evaluated(ev, "rnd")
    for (q, x), v in _wide(pr, "recall", "precision").items():
        assert v == expected[(q, by_level[x])]


@pytest.mark.parametrize("kind, family", [("P", "P"), ("R", "recall"), ("NDCG", "ndcg_cut")])
def test_at_k_matches_trec_measures(collection, kind, family):
    qrels, run = collection
    curve = at_k(qrels, run, kind, k_max=25)
    ev = evaluate(qrels, run, f"{family}." + ",".join(str(k) for k in range(1, 26)))
    expected = _evaluated(ev, "rnd")
    assert list(curve.columns) == ["run", "query_id", "k", "value"]
    assert curve["k"].dtype == np.int64
    assert len(curve) == (len(ev.query_ids["rnd"]) + 1) * 25
    for (q, k), v in _wide(curve, "k", "value").items():
        assert v == expected[(q, f"{family}_{int(k)}")], (q, k)


def test_at_k_relevance_level_follows_evaluate(collection):
    qrels, run = collection
    curve = at_k(qrels, run, "P", k_max=10, settings=Settings(relevance_level=2))
    ev = evaluate(qrels, run, "P.10", relevance_level=2)
    got = curve[(curve["k"] == 10) & (curve["query_id"] == "all")]["value"].item()
    assert got == ev.aggregate["value"].item()


def test_hand_computed_curves():
    # one query, 3 relevant docs (one never retrieved); relevant at ranks 2 and 3
    qrels = qrels_frame([("q", "a", 1), ("q", "b", 2), ("q", "c", 0), ("q", "z", 3)])
    run = run_frame([("q", "c", 3.0), ("q", "a", 2.0), ("q", "b", 1.0), ("q", "x", 0.5)], "r")
    pr = precision_recall(qrels, run, levels=[0.0, 0.3, 0.5, 0.7, 1.0])
    per_q = pr[pr["query_id"] == "q"]["precision"].tolist()
    # lround(level * 3) = 0, 1, 2, 2, 3 relevant docs; precision 1/2 at rank 2, 2/3 at rank 3
    assert per_q == [2 / 3, 2 / 3, 2 / 3, 2 / 3, 0.0]
    assert pr[pr["query_id"] == "all"]["precision"].tolist() == per_q

    p = at_k(qrels, run, "P", k_max=5)
    assert p[p["query_id"] == "q"]["value"].tolist() == [0.0, 1 / 2, 2 / 3, 2 / 4, 2 / 5]
    rc = at_k(qrels, run, "R", k_max=4)
    assert rc[rc["query_id"] == "q"]["value"].tolist() == [0.0, 1 / 3, 2 / 3, 2 / 3]

    dcg = at_k(qrels, run, "DCG", k_max=3)["value"].tolist()[:3]
    assert dcg == pytest.approx([0.0, 1 / math.log2(3), 1 / math.log2(3) + 2 / 2])
    # Järvelin-Kekäläinen with base 2: ranks 1 and 2 undiscounted, exponential gain
    jk = at_k(qrels, run, "DCG", k_max=3, settings=Settings(discount="jk", gain="exp"))["value"].tolist()[:3]
    assert jk == pytest.approx([0.0, 1.0, 1.0 + 3 / math.log2(3)])
    # ideal from all judged docs (3, 2, 1) vs from the retrieved ones only (2, 1)
    n_all = at_k(qrels, run, "NDCG", k_max=2)["value"].tolist()[:2]
    assert n_all == pytest.approx([0.0, (1 / math.log2(3)) / (3 + 2 / math.log2(3))])
    n_ret = at_k(qrels, run, "NDCG", k_max=2, settings=Settings(ideal="retrieved"))["value"].tolist()[:2]
    assert n_ret == pytest.approx([0.0, (1 / math.log2(3)) / (2 + 1 / math.log2(3))])


def test_all_rows_are_means_and_runs_are_labelled_like_evaluate():
    qrels, run = random_collection(4)
    _, other = random_collection(5)
    curve = at_k(qrels, [run, other], "P", k_max=3)
    assert list(dict.fromkeys(curve["run"])) == ["rnd", "rnd_2"]
    for label, sub in curve.groupby("run", sort=False):
        per_q = sub[sub["query_id"] != "all"].pivot(index="query_id", columns="k", values="value")
        overall = sub[sub["query_id"] == "all"].set_index("k")["value"]
        np.testing.assert_allclose(per_q.mean(axis=0).to_numpy(), overall.to_numpy(), rtol=1e-12)
    named = precision_recall(qrels, {"base": run, "new": other})
    assert list(dict.fromkeys(named["run"])) == ["base", "new"]
    assert named["run"].dtype == "str" and named["query_id"].dtype == "str"


def test_line_order_does_not_matter(collection):
    qrels, run = collection
    shuffled = run.sample(frac=1.0, random_state=7).reset_index(drop=True)
    shuffled.attrs = dict(run.attrs)
    qshuffled = qrels.sample(frac=1.0, random_state=8).reset_index(drop=True)
    for kind in AT_K_KINDS:
        pd.testing.assert_frame_equal(at_k(qrels, run, kind, 12), at_k(qshuffled, shuffled, kind, 12))
    pd.testing.assert_frame_equal(precision_recall(qrels, run), precision_recall(qshuffled, shuffled))


def test_run_without_evaluated_queries_gives_no_rows():
    qrels = qrels_frame([("q1", "a", 1)])
    run = run_frame([("q2", "a", 1.0)])
    assert len(precision_recall(qrels, run)) == 0
    empty = at_k(qrels, run, "NDCG", 5)
    assert len(empty) == 0 and list(empty.columns) == ["run", "query_id", "k", "value"]


@pytest.mark.parametrize(
    "call",
    [
        lambda q, r: at_k(q, r, "MAP"),
        lambda q, r: at_k(q, r, "P", k_max=0),
        lambda q, r: at_k(q, r, "NDCG", settings=Settings(gain="cubic")),
        lambda q, r: at_k(q, r, "NDCG", settings=Settings(base=1)),
        lambda q, r: precision_recall(q, r, levels=[0.5, 1.5]),
        lambda q, r: precision_recall(q, r, levels=[]),
    ],
)
def test_invalid_arguments(call):
    qrels, run = random_collection(0)
    with pytest.raises(ValueError):
        call(qrels, run)


def test_evaluate_with_curves_builds_each_ranking_once_and_equals_the_three_calls(monkeypatch):
    from conftest import random_collection

    import metrics
    import metrics.engine.curves as curves_module
    from metrics.ranking import judged as ranking

    qrels, run = random_collection(21, n_queries=15)
    other = run.copy()
    other["score"] = -other["score"]
    other.attrs = {"name": "reversed"}
    runs = {"a": run, "b": other}
    ev0 = metrics.evaluate(qrels, runs, ["map", "ndcg_cut.10"], settings=Settings(gain="exp"))  # (ndcg_ext_10)
    pr0 = metrics.engine.curves.precision_recall(qrels, runs)
    atk0 = metrics.engine.curves.at_k(qrels, runs, "NDCG", k_max=20, settings=Settings(gain="exp"))

    built = []
    original = ranking.build_ranking

    def counting(*args, **kwargs):
        built.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(sys.modules["metrics.engine.evaluate"], "build_ranking", counting)
    ev, pr, atk = curves_module.evaluate_with_curves(
        qrels, runs, ["map", "ndcg_cut.10"], settings=Settings(k_max=20, gain="exp")
    )
    assert len(built) == 2  # one ranking per run
    pd.testing.assert_frame_equal(ev.summary(), ev0.summary())
    pd.testing.assert_frame_equal(ev.per_query, ev0.per_query)
    pd.testing.assert_frame_equal(pr, pr0)
    pd.testing.assert_frame_equal(atk, atk0)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"gain": "exp"},
        {"discount": "jk", "base": 3.0},
        {"ideal": "retrieved"},
        {"gain": "exp", "ideal": "retrieved"},
    ],
)
def test_dcg_at_cutoffs_reads_only_the_ranks_above_the_deepest_and_equals_the_whole_ranking(collection, options):
    """The DCG matrices at cutoffs 1..k are made from each query's first k ranks: the same bits as from the
    whole ranking (a cutoff of 0, the whole ranking, keeps every rank)."""
    from metrics.engine.evaluate import encoded
    from metrics.measures.extra import WHOLE_RANKING, _top, dcg_matrices, ndcg_options
    from metrics.ranking.judged import build_ranking

    qrels, run = collection
    r = build_ranking(encoded(qrels), run)
    opts = ndcg_options(**options)
    for k in (1, 3, 7, 40):
        cutoffs = tuple(range(1, k + 1))
        dcg, idcg = dcg_matrices(r, cutoffs, opts)
        whole_dcg, whole_idcg = dcg_matrices(r, (*cutoffs, WHOLE_RANKING), opts)
        assert dcg.tobytes() == whole_dcg[:, :k].tobytes() and idcg.tobytes() == whole_idcg[:, :k].tobytes()
    values, offsets = _top(np.arange(10.0), np.array([0, 4, 4, 10]), 3)
    assert values.tolist() == [0.0, 1.0, 2.0, 4.0, 5.0, 6.0] and offsets.tolist() == [0, 3, 3, 6]


def test_the_mean_curve_adds_the_queries_in_order_as_the_mean_of_a_measure(collection):
    from metrics.engine.curves import _means
    from metrics.engine.evaluate import encoded
    from metrics.measures.aggregates import mean
    from metrics.ranking.judged import build_ranking

    qrels, run = collection
    for complete in (False, True):
        r = build_ranking(encoded(qrels), run, complete=complete)
        values = np.random.default_rng(len(r.query_ids)).random((r.n_queries, 30)) ** 3
        expected = np.array([mean(values[:, j], r) for j in range(30)])
        assert _means(values, r).tobytes() == expected.tobytes()
        assert _means(values[:0], r).tolist() == [mean(values[:0, j], r) for j in range(30)]
