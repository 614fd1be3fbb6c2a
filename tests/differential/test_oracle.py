"""Every registered measure against an independent implementation.

Oracle: pytrec_eval (package pytrec-eval-terrier), which embeds trec_eval
9.x.  Where trec_eval 10.0 changed a rule, 10.0 wins and the difference is
pinned in a test with the 10.0 value.  With TREC_EVAL_BIN pointing at a
trec_eval 10.0 binary, the complete output (-q, every option) is compared
byte for byte as well.
"""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest
import pytrec_eval
import trec_eval_ref
from conftest import qrels_frame, random_collection, run_frame, write_trec

import metrics
from metrics.measures import FAMILIES

# Every registered family that pytrec_eval knows is checked against it.
# trec_eval 10.0 families that 9.x lacks are checked against the 10.0 binary.
NOT_IN_9X = {"rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"}
TEXT = {name for name, fam in FAMILIES.items() if fam.kind == "text"}
# trec_eval 10.0 turns a recall level p into lround(p * num_rel) relevant
# docs; 9.x used (long)(p * num_rel + 0.9).  See test_recall_levels_round.
ROUNDING_CHANGED = {"iprec_at_recall", "11pt_avg"}


def _dicts(qrels, run):
    qd, rd = {}, {}
    for q, d, r in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
        qd.setdefault(q, {})[d] = int(r)
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]):
        rd.setdefault(q, {})[d] = float(s)
    return qd, rd


def _rounding_agrees(num_rel: int, levels) -> bool:
    return all(math.floor(p * num_rel + 0.5) == int(p * num_rel + 0.9) for p in levels)


def _oracle_families():
    return sorted((set(FAMILIES) & set(pytrec_eval.supported_measures)) - NOT_IN_9X - TEXT)


@pytest.mark.parametrize("family", _oracle_families())
@pytest.mark.parametrize("options", [dict(), dict(relevance_level=2), dict(judged_only=True)], ids=["l1", "l2", "J"])
def test_matches_pytrec_eval(family, options, collection):
    qrels, run = collection
    measures = metrics.parse_measures(family)
    ev = metrics.evaluate(qrels, run, measures, **options)
    qd, rd = _dicts(qrels, run)
    oracle = pytrec_eval.RelevanceEvaluator(
        qd,
        {family},
        relevance_level=options.get("relevance_level", 1),
        judged_docs_only_flag=options.get("judged_only", False),
    ).evaluate(rd)
    pq = ev.per_query
    ours = {(q, m): v for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"])}
    num_rel = {q: int(v) for q, v in ev_num_rel(qrels, run, options).items()}
    assert set(oracle) == set(ev.query_ids[ev.runs[0]])
    levels = FAMILIES[family].params.default if family in ROUNDING_CHANGED else ()
    checked = 0
    for q, values in oracle.items():
        if family in ROUNDING_CHANGED and not _rounding_agrees(num_rel[q], levels):
            continue
        for name, expected in values.items():
            got = ours[(q, name)]
            if family.startswith("gm_"):
                got = math.log(max(got, metrics.measures.registry.MIN_GEO_MEAN))  # 9.x reports the log
            assert got == pytest.approx(expected, abs=1e-12, nan_ok=True), (q, name)
            checked += 1
    assert checked > 0
    # "all" row: mean (or sum, count, geometric mean) of the per-query values
    agg = dict(zip(ev.aggregate["measure"], ev.aggregate["value"]))
    for m in measures:
        col = np.array([ours[(q, str(m))] for q in ev.query_ids[ev.runs[0]]])
        fam = FAMILIES[m.family]
        if fam.aggregate is metrics.measures.registry.mean:
            assert agg[str(m)] == pytest.approx(col.mean(), abs=1e-12, nan_ok=True)


PARAMETERISED = [
    "P.1,3,7",
    "recall.1,3,7",
    "ndcg_cut.1,3,7",
    "map_cut.1,3,7",
    "relative_P.1,3,7",
    "success.1,2,7",
    "Rprec_mult.0.5,1.5,3",
    "set_F.0.5",
]


@pytest.mark.parametrize("spec", PARAMETERISED)
def test_parameters_match_pytrec_eval(spec, collection):
    qrels, run = collection
    measures = metrics.parse_measures(spec)
    ours = {
        (q, m): v
        for q, m, v in zip(
            *(metrics.evaluate(qrels, run, measures).per_query[c] for c in ("query_id", "measure", "value"))
        )
    }
    qd, rd = _dicts(qrels, run)
    oracle = pytrec_eval.RelevanceEvaluator(qd, {spec}).evaluate(rd)
    for q, vals in oracle.items():
        for m in measures:
            # pytrec_eval names a measure with one parameter set by its family
            key = str(m) if FAMILIES[m.family].params.expands else m.family
            assert ours[(q, str(m))] == pytest.approx(vals[key], abs=1e-12), (q, str(m))


def ev_num_rel(qrels, run, options):
    ev = metrics.evaluate(qrels, run, "num_rel", relevance_level=options.get("relevance_level", 1))
    return dict(zip(ev.per_query["query_id"], ev.per_query["value"]))


def test_recall_levels_round():
    # 7 relevant docs: level 0.3 -> 2.1 docs.  10.0: lround -> 2; 9.x: (long)(2.1 + 0.9) -> 3.
    qrels = qrels_frame([("1", f"r{i}", 1) for i in range(7)])
    ranked = ["r0", "n0", "r1", "n1", "n2", "r2", "r3", "r4", "r5", "r6"]
    run = run_frame([("1", d, 10.0 - i) for i, d in enumerate(ranked)])
    ev = metrics.evaluate(qrels, run, ["iprec_at_recall.0.3", "11pt_avg.0.3"])
    got = dict(zip(ev.per_query["measure"], ev.per_query["value"]))
    # 2nd relevant doc at rank 3: best precision from there on is 7/10 at rank 10
    assert got["iprec_at_recall_0.30"] == pytest.approx(7 / 10)
    assert got["11pt_avg_0.3"] == pytest.approx(7 / 10)
    qd, rd = _dicts(qrels, run)
    old = pytrec_eval.RelevanceEvaluator(qd, {"iprec_at_recall"}).evaluate(rd)["1"]
    assert old["iprec_at_recall_0.30"] == pytest.approx(7 / 10)  # same here: 3rd rel at rank 6
    # a case where the two rules give different values
    ranked = ["r0", "r1", "n0", "n1", "n2", "n3", "n4", "n5", "r2", "r3", "r4", "r5", "r6"]
    run = run_frame([("1", d, 20.0 - i) for i, d in enumerate(ranked)])
    ev = metrics.evaluate(qrels, run, ["iprec_at_recall.0.3"])
    assert ev.per_query["value"].iloc[0] == pytest.approx(1.0)  # 10.0: 2nd rel at rank 2
    old = pytrec_eval.RelevanceEvaluator(qd, {"iprec_at_recall"}).evaluate(_dicts(qrels, run)[1])["1"]
    assert old["iprec_at_recall_0.30"] == pytest.approx(7 / 13)  # 9.x: 3rd rel at rank 9


# ------------------------------------------------------- trec_eval 10.0 binary

TREC_EVAL_BIN = trec_eval_ref.BIN

BINARY_CASES = [
    ([], {}),
    (["-c"], dict(complete=True)),
    (["-l2"], dict(relevance_level=2)),
    (["-J"], dict(judged_only=True)),
    (["-M7"], dict(max_docs=7)),
    (["-c", "-l3", "-M20"], dict(complete=True, relevance_level=3, max_docs=20)),
]
BINARY_MEASURES = [
    [
        "all_trec",
        "ndcg.1=0.5,2=1.7,3=-2",
        "P.1,2,3,7",
        "rbp.p=0.8",
        "iprec_at_recall.0,.05,.15,.33,.45,.55,.65,.85,.95,1",
        "relstring.15",
    ],
    [
        "all_trec",
        "dcg",
        "ideal_dcg",
        "Rndcg.1=2,2=2,3=5",
        "G.0=0.5,3=2.5",
        "utility.2,-1,0.5,0",
        "11pt_avg..25,.5",
        "set_F.0.5",
    ],
]


@pytest.mark.skipif(not TREC_EVAL_BIN, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("flags, options", BINARY_CASES, ids=[" ".join(c[0]) or "plain" for c in BINARY_CASES])
def test_matches_trec_eval_10_binary(seed, flags, options, tmp_path):
    qrels, run = random_collection(seed, n_queries=15, n_docs=80, depth=70)
    if not options.get("complete"):
        # trec_eval 10.0 stops at a qrels query without results unless -c
        qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]
    qpath, rpath = write_trec(qrels, run, tmp_path)
    measures = BINARY_MEASURES[seed % 2]
    args = [TREC_EVAL_BIN, "-q", *[a for m in measures for a in ("-m", m)], *flags, qpath, rpath]
    expected = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    ev = metrics.evaluate(qrels, run, metrics.parse_measures(measures, trec_rules=True), **options)
    assert ev.trec_lines(queries=True) == expected


def test_families_missing_from_9x_are_in_the_binary_check():
    exercised = {m.family for ms in BINARY_MEASURES for m in metrics.parse_measures(ms, trec_rules=True)}
    assert NOT_IN_9X | TEXT <= exercised
