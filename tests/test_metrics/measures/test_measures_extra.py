"""ir_measures-style names and the measures beyond trec_eval (metrics/measures/irm.py,
metrics/measures/extra.py): parsing and round trips, straightforward per-query
reference implementations, reduction to trec_eval's measures with the default
options, and ir_measures itself where it is installed."""

from __future__ import annotations

import functools
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics.measures.irm  # noqa: F401  (ir_measures-style names)
from metrics import Measure, parse_measures
from metrics import evaluate as evaluate_as_named
from metrics.measures import FAMILIES
from metrics.measures.extra import ndcg_options
from metrics.measures.irm import IR_MEASURES_NAMES
from metrics.measures.irm_names import ir_measures_name

# ------------------------------------------------------------------ data


# these tests look values up by the measures' canonical names (ndcg_cut_10, not nDCG@10)
evaluate = functools.partial(evaluate_as_named, keep_names=False)


def frames(qrels_rows, run_rows, name="run"):
    q, d, r = zip(*qrels_rows)
    qrels = pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "relevance": np.asarray(r, dtype=np.int64),
        }
    )
    q, d, s = zip(*run_rows)
    run = pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "score": np.asarray(s, dtype=np.float64),
        }
    )
    run.attrs["name"] = name
    return qrels, run


def random_collection(
    seed, n_queries=14, n_docs=50, ties=True, max_grade=4, numeric_ids=False, every_query_relevant=False
):
    """Grades -1..max_grade (negative: in the qrels, unjudged), score ties,
    retrieved documents outside the qrels, queries without relevant
    documents, a qrels-only and a run-only query; rankings of 1..45 docs."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(n_docs)]
    qrels, run = [], []
    for i in range(n_queries):
        q = str(100 + i) if numeric_ids else f"q{i}"
        judged = rng.choice(n_docs, size=int(rng.integers(2, n_docs // 2)), replace=False)
        if i % 5 == 2 and not every_query_relevant:
            grades = np.zeros(len(judged), dtype=int)
        else:
            grades = rng.choice([-1, 0, 0, 0] + list(range(1, max_grade + 1)), size=len(judged))
            grades[0] = max(grades[0], 1)
        qrels += [(q, docs[d], int(g)) for d, g in zip(judged, grades)]
        if i == n_queries - 1:
            continue  # qrels only
        retrieved = rng.choice(n_docs, size=int(rng.integers(1, 46)), replace=False)
        scores = np.round(rng.normal(size=len(retrieved)), 1) if ties else rng.permutation(len(retrieved)) + 1.0
        run += [(q, docs[d], float(s)) for d, s in zip(retrieved, scores)]
    run.append(("999" if numeric_ids else "run_only", docs[0], 1.0))
    return frames(qrels, run)


@pytest.fixture(params=[0, 1, 2, 3])
def collection(request):
    return random_collection(request.param)


# ------------------------------------------------------- reference versions


def reference_rankings(qrels, run):
    """{query: (relevance codes in rank order, judged grades >= 0)} with
    trec_eval's order (score descending, ties by doc id descending) and codes
    (grade; -1 not in the qrels; -2 in the qrels with a negative grade)."""
    judged = {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
        judged.setdefault(q, {})[d] = int(g)
    out = {}
    rows = sorted(zip(run["query_id"], run["score"], run["doc_id"]), key=lambda t: t[2].encode(), reverse=True)
    rows.sort(key=lambda t: (t[0], -t[1]))  # stable: ties stay in descending doc id order
    for q, _, d in rows:
        if q in judged:
            g = judged[q].get(d)
            code = -1 if g is None else (g if g >= 0 else -2)
            out.setdefault(q, ([], [g for g in judged[q].values() if g >= 0]))[0].append(code)
    return out


def ref_ndcg(codes, grades, k, gain="linear", discount="log", base=2.0, ideal="all"):
    def g(x):
        return 0.0 if x <= 0 else (2.0**x - 1.0 if gain == "exp" else float(x))

    def d(i):  # 1-based rank
        if discount == "jk":
            return 1.0 if i < base else math.log(i, base)
        return math.log(i + 1, base)

    k = k or None
    dcg = sum(g(x) / d(i) for i, x in enumerate(codes[:k], 1))
    pool = grades if ideal == "all" else codes
    best = sorted((g(x) for x in pool if g(x) > 0), reverse=True)
    idcg = sum(x / d(i) for i, x in enumerate(best[:k], 1))
    return dcg / idcg if idcg > 0 else 0.0


def ref_interpolated_ap(codes, grades, level=1):
    rel = [c >= level for c in codes]
    prec = [sum(rel[: i + 1]) / (i + 1) for i in range(len(codes))]
    num_rel = sum(1 for x in grades if x >= level)
    total = sum(max(prec[i:]) for i in range(len(codes)) if rel[i])
    return total / num_rel if any(rel) else 0.0


def ref_err(codes, k):
    score, decay = 0.0, 1.0
    for i, c in enumerate(codes[: k or None], 1):
        r = (2.0**c - 1.0) / 16.0 if c > 0 else 0.0
        score += r * decay / i
        decay *= 1.0 - r
    return score


def ref_judged(codes, k):
    top = codes[: k or None]
    return sum(c != -1 for c in top) / len(top)


def per_query(ev) -> dict:
    return {(m, q): v for m, q, v in zip(ev.per_query["measure"], ev.per_query["query_id"], ev.per_query["value"])}


# ------------------------------------------------------------- the names

EXPECTED = {
    "AP": Measure("map"),
    "MAP": Measure("map"),
    "RR": Measure("recip_rank"),
    "MRR": Measure("recip_rank"),
    "nDCG@10": Measure("ndcg_cut", (10,)),
    "NDCG@10": Measure("ndcg_cut", (10,)),
    "nDCG": Measure("ndcg"),
    "P@5": Measure("P", (5,)),
    "Precision@5": Measure("P", (5,)),
    "R@100": Measure("recall", (100,)),
    "Recall@100": Measure("recall", (100,)),
    "Rprec": Measure("Rprec"),
    "RPrec": Measure("Rprec"),
    "Bpref": Measure("bpref"),
    "BPref": Measure("bpref"),
    "Success@1": Measure("success", (1,)),
    "Judged@10": Measure("Judged", (10,)),
    "Judged": Measure("Judged", (0,)),
    "P(rel=2)@5": Measure("P", (5,), rel=2),
    "P(rel=1)@5": Measure("P", (5,), rel=1),
    # ir_measures' RBP (graded, not rescaled), not trec_eval's rbp
    "RBP(p=0.8)": Measure("rbp_ext", (0,)),
    "RBP": Measure("rbp_ext", (0,)),
    "RBP(p=0.95)": Measure("rbp_ext", (0,), options=(("p", "0.95"),)),
    "RBP(rel=2)@10": Measure("rbp_ext", (10,), options=(("binary_at", "2"),)),
    "Compat(p=0.9)": Measure("compat", options=(("p", "0.9"),)),
    "Accuracy(rel=2)@5": Measure("Accuracy", (5,), rel=2),
    "ERR@20": Measure("ERR", (20,)),
    "ERR": Measure("ERR", (0,)),
    "AP@100": Measure("map_cut", (100,)),
    "AP(rel=2)@100": Measure("map_cut", (100,), rel=2),
    "NumRet": Measure("num_ret"),
    "NumRel": Measure("num_rel"),
    "NumRelRet": Measure("num_rel_ret"),
    "NumRet(rel=1)": Measure("num_rel_ret", rel=1),
    "NumRet(rel=2)": Measure("num_rel_ret", rel=2),
    "NumQ": Measure("num_q"),
    "IPrec@0.5": Measure("iprec_at_recall", (0.5,)),
    "IPrec(rel=2)@0.25": Measure("iprec_at_recall", (0.25,), rel=2),
    "SetP": Measure("set_P"),
    "SetP(relative=True)": Measure("set_relative_P"),
    "SetRelP": Measure("set_relative_P"),
    "SetR": Measure("set_recall"),
    "SetF": Measure("set_F", (1.0,)),
    "SetF(beta=0.5)": Measure("set_F", (0.5,)),
    "SetAP": Measure("set_map"),
    "infAP": Measure("infAP"),
    "Bpref(rel=2)": Measure("bpref", rel=2),
    "RR(rel=3)": Measure("recip_rank", rel=3),
    "Success(rel=2)@10": Measure("success", (10,), rel=2),
    "nDCG(gains={1: 3, 2: 9})": Measure("ndcg", (("1", 3.0), ("2", 9.0))),
    "nDCG(dcg='exp-log2')@10": Measure("ndcg_ext", (10,), options=(("gain", "exp"),)),
    "nDCG(dcg=log2)@10": Measure("ndcg_cut", (10,)),
    "nDCG(gain=exp,discount=jk,base=2,ideal=retrieved)@10": Measure(
        "ndcg_ext", (10,), options=(("discount", "jk"), ("gain", "exp"), ("ideal", "retrieved"))
    ),
    "nDCG(discount=jk, base=3)": Measure("ndcg_ext", (0,), options=(("base", "3"), ("discount", "jk"))),
    "nDCG(gain='exp')": Measure("ndcg_ext", (0,), options=(("gain", "exp"),)),
    "AP(interpolated)": Measure("map_ext", options=(("precision", "interpolated"),)),
    "AP(precision=interpolated, rel=2)": Measure("map_ext", rel=2, options=(("precision", "interpolated"),)),
    # trec_eval's defaults written out are the trec_eval measures themselves
    "nDCG(gain=linear,discount=log,base=2,ideal=all)@10": Measure("ndcg_cut", (10,)),
    "nDCG(gain=linear,discount=log2,ideal=all)": Measure("ndcg"),
    "nDCG(base=10)@5": Measure("ndcg_cut", (5,)),  # log_b(i+1): nDCG does not depend on b
    "AP(precision=observed)": Measure("map"),
    "AP(interpolated=False)": Measure("map"),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_ir_measures_name_parses_and_round_trips(name):
    (m,) = parse_measures(name)
    assert m == EXPECTED[name]
    assert parse_measures(str(m)) == [m]  # canonical name
    back = ir_measures_name(m)
    assert back is not None
    assert parse_measures(back) == [m]  # ir_measures-style name


def test_every_ir_measures_name_is_understood():
    cutoff = {"P", "Precision", "R", "Recall", "Success", "IPrec", "BPM", "SDCG", "F1", "Hits", "NERR8", "NERR9"}
    for name in IR_MEASURES_NAMES:
        (m,) = parse_measures(name + ("@1" if name in cutoff else ""))
        assert m.family in FAMILIES


def test_canonical_names_of_the_variants():
    assert (
        str(parse_measures("nDCG(gain=exp,discount=jk,base=2,ideal=retrieved)@10")[0])
        == "ndcg_ext_10(discount=jk,gain=exp,ideal=retrieved)"
    )
    assert str(parse_measures("AP(interpolated)")[0]) == "map_ext(precision=interpolated)"
    assert str(parse_measures("ERR@20")[0]) == "ERR_20"
    assert str(parse_measures("P(rel=2)@5")[0]) == "P_5(rel=2)"
    assert ir_measures_name(parse_measures("ndcg_cut.10")[0]) == "nDCG@10"
    assert ir_measures_name(parse_measures("map")[0]) == "AP"
    assert ir_measures_name(parse_measures("ndcg_ext_10(gain=exp,discount=jk)")[0]) == "nDCG(discount=jk,gain=exp)@10"
    # measures without an ir_measures name
    for trec in ("gm_map", "utility", "rbp", "11pt_avg", "relative_P_5", "ndcg_cut_10(rel=2)"):
        assert ir_measures_name(parse_measures(trec)[0]) is None


def test_trec_syntax_items_for_the_new_families():
    assert [str(m) for m in parse_measures("ERR.5,20")] == ["ERR_5", "ERR_20"]
    assert [str(m) for m in parse_measures("Judged")] == ["Judged"]
    assert [str(m) for m in parse_measures("ndcg_ext_10(gain=exp)")] == ["ndcg_ext_10(gain=exp)"]


@pytest.mark.parametrize(
    "name",
    [
        "R",
        "Success",
        "IPrec",
        "nDCG(rel=2)@10",
        "Bpref(judged_only=True)",
        "NumRel(judged_only=True)",
        "nDCG(gain=cubic)@10",
        "nDCG(discount=zipf)",
        "nDCG(base=1,discount=jk)",
        "nDCG(ideal=best)",
        "nDCG(dcg=exp)@5",
        "nDCG(dcg='exp-log2', gain=linear)@5",
        "nDCG(gains={1: -3})@10",
        "nDCG(gains={1: 3}, gain=exp)",
        "RBP(rel=0)",
        "RBP(p=1.5)@10",
        "Accuracy(rel=0)",
        "Compat@10",
        "AP(interpolated)@10",
        "AP(precision=smoothed)",
        "P(rel=1.5)@5",
        "P@0",
        "P@2.5",
        "P(cutoff=5, foo=1)",
        "SetF(beta=x)",
        "NumQ(rel=2)",
        "alpha_nDCG@10",
        "nDCG@10@5",
    ],
)
def test_unsupported_names_are_refused(name):
    with pytest.raises(ValueError):
        parse_measures(name)


def test_judged_only_is_an_option_where_ir_measures_has_it():
    with pytest.raises(ValueError, match="judged_only"):
        parse_measures("Bpref(judged_only=True)")
    assert parse_measures("AP(judged_only=True)") == [Measure("map", options=(("judged_only", "true"),))]
    assert parse_measures("AP(judged_only=False)") == [Measure("map")]


# ------------------------------------------------- values of the new families

OPTION_SETS = [
    {},
    {"gain": "exp"},
    {"discount": "jk"},
    {"discount": "jk", "base": "3"},
    {"discount": "log", "base": "10"},
    {"ideal": "retrieved"},
    {"gain": "exp", "discount": "jk", "ideal": "retrieved"},
    {"discount": "jk", "base": "1.5"},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "trec")
def test_ndcg_ext_matches_reference(collection, options):
    qrels, run = collection
    cutoffs = (0, 1, 3, 10, 50)
    opts = tuple(sorted(options.items()))
    measures = [Measure("ndcg_ext", (k,), options=opts) for k in cutoffs]
    ev = evaluate(qrels, run, measures)
    got = per_query(ev)
    ref = reference_rankings(qrels, run)
    assert set(ev.query_ids["run"]) == set(ref)
    o = ndcg_options(**options)
    for q, (codes, grades) in ref.items():
        for m, k in zip(measures, cutoffs):
            expected = ref_ndcg(codes, grades, k, o.gain, o.discount, o.base, o.ideal)
            assert got[(str(m), q)] == pytest.approx(expected, rel=1e-12, abs=1e-15), (q, k)


def test_variants_with_default_options_are_trec_eval_ndcg_and_map(collection):
    qrels, run = collection
    cuts = (1, 5, 10, 20, 1000)
    ev = evaluate(
        qrels,
        run,
        ["ndcg", "map", "ndcg_cut." + ",".join(map(str, cuts)), Measure("ndcg_ext", (0,)), Measure("map_ext")]
        + [Measure("ndcg_ext", (k,)) for k in cuts],
    )
    pq = ev.per_query.pivot(index="query_id", columns="measure", values="value")
    agg = dict(zip(ev.aggregate["measure"], ev.aggregate["value"]))
    pairs = [("ndcg_ext", "ndcg"), ("map_ext", "map")] + [(f"ndcg_ext_{k}", f"ndcg_cut_{k}") for k in cuts]
    for ours, trec in pairs:
        assert (pq[ours] == pq[trec]).all(), ours  # bit for bit
        assert agg[ours] == agg[trec]


@pytest.mark.parametrize("level", [1, 2])
def test_interpolated_ap_matches_reference(collection, level):
    qrels, run = collection
    ev = evaluate(qrels, run, ["AP(interpolated)", "AP"], relevance_level=level)
    got = per_query(ev)
    for q, (codes, grades) in reference_rankings(qrels, run).items():
        value = got[("map_ext(precision=interpolated)", q)]
        assert value == pytest.approx(ref_interpolated_ap(codes, grades, level), rel=1e-12, abs=1e-15)
        assert value >= got[("map", q)] - 1e-15  # interpolation never lowers precision


def test_err_and_judged_match_reference():
    qrels, run = random_collection(5, max_grade=4)
    cutoffs = (0, 1, 2, 5, 20)
    ev = evaluate(qrels, run, [Measure("ERR", (k,)) for k in cutoffs] + [Measure("Judged", (k,)) for k in cutoffs])
    got = per_query(ev)
    for q, (codes, _) in reference_rankings(qrels, run).items():
        for k in cutoffs:
            sfx = f"_{k}" if k else ""
            assert got[(f"ERR{sfx}", q)] == pytest.approx(ref_err(codes, k), rel=1e-12, abs=1e-15)
            assert got[(f"Judged{sfx}", q)] == pytest.approx(ref_judged(codes, k), rel=1e-12)


def test_err_and_judged_by_hand():
    qrels, run = frames(
        [("q", "a", 4), ("q", "b", 0), ("q", "c", 2), ("q", "e", -1)],
        [("q", "a", 5.0), ("q", "x", 4.0), ("q", "c", 3.0), ("q", "e", 2.0)],
    )
    ev = evaluate(qrels, run, ["ERR@1", "ERR@3", "Judged@2", "Judged@10", "Judged"])
    got = {m: v for m, v in zip(ev.aggregate["measure"], ev.aggregate["value"])}
    assert got["ERR_1"] == 15 / 16
    assert got["ERR_3"] == pytest.approx(15 / 16 + (3 / 16) / 3 * (1 / 16))
    assert got["Judged_2"] == 0.5
    # 4 documents retrieved: a, c, e (grade -1 is still in the qrels) are judged
    assert got["Judged_10"] == 0.75 and got["Judged"] == 0.75


def test_err_refuses_grades_above_four():
    qrels, run = frames([("q", "a", 5)], [("q", "a", 1.0)])
    with pytest.raises(ValueError, match="grades above 4"):
        evaluate(qrels, run, "ERR@10")


def test_bad_options_on_measure_objects_are_refused():
    qrels, run = random_collection(0)
    for m in (
        Measure("ndcg_ext", (10,), options=(("gain", "cubic"),)),
        Measure("ndcg_ext", (10,), options=(("gian", "exp"),)),
        Measure("map_ext", options=(("precision", "smoothed"),)),
        Measure("map_ext", options=(("interpolated", ""),)),
    ):
        with pytest.raises(ValueError):
            evaluate(qrels, run, [m])


def test_extra_measures_ignore_line_order(collection):
    qrels, run = collection
    names = ["nDCG(gain=exp,discount=jk,ideal=retrieved)@10", "AP(interpolated)", "ERR@10", "Judged@10"]
    a = evaluate(qrels, run, names)
    shuffled = run.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled.attrs = dict(run.attrs)
    b = evaluate(qrels.sample(frac=1.0, random_state=4).reset_index(drop=True), shuffled, names)
    pd.testing.assert_frame_equal(a.per_query, b.per_query)
    assert ((a.per_query["value"] >= 0) & (a.per_query["value"] <= 1)).all()


# ----------------------------------------------------------- ir_measures


def _ir_measures():
    """ir_measures if installed (the tests comparing with it are skipped otherwise)."""
    return pytest.importorskip("ir_measures")


@pytest.mark.parametrize("seed", [11, 12])
def test_same_values_as_ir_measures_pytrec_eval(seed):
    irm = _ir_measures()
    pytest.importorskip("pytrec_eval")
    qrels, run = random_collection(seed, ties=False)
    names = [
        "AP",
        "AP@10",
        "RR",
        "nDCG",
        "nDCG@10",
        "P@5",
        "P(rel=2)@5",
        "R@20",
        "Rprec",
        "Bpref",
        "Success@1",
        "IPrec@0.5",
        "NumRet",
        "NumRelRet",
        "NumRel",
        "SetP",
        "SetR",
        "SetF",
        "SetF(beta=0.5)",
        "SetAP",
        "infAP",
        "AP(rel=2)",
    ]
    ev = evaluate(qrels, run, names)
    got = per_query(ev)
    for name in names:
        (ours,) = parse_measures(name)
        theirs = irm.parse_measure(name)
        for metric in irm.pytrec_eval.iter_calc([theirs], qrels, run):
            if metric.query_id not in ev.query_ids["run"]:
                continue  # pytrec_eval also scores qrels queries the run does not have
            assert got[(str(ours), metric.query_id)] == pytest.approx(metric.value, rel=1e-9, abs=1e-12), (
                name,
                metric.query_id,
            )


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
def test_err_and_exponential_ndcg_as_ir_measures_gdeval():
    irm = _ir_measures()
    qrels, run = random_collection(21, ties=False, numeric_ids=True, every_query_relevant=True)
    names = ["ERR@5", "ERR@20", "nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@20"]
    ev = evaluate(qrels, run, names)
    got = per_query(ev)
    n = 0
    for name in names:
        (ours,) = parse_measures(name)
        for metric in irm.gdeval.iter_calc([irm.parse_measure(name)], qrels, run):
            if metric.query_id not in ev.query_ids["run"]:
                continue  # ir_measures fills in qrels queries the run does not have
            assert got[(str(ours), metric.query_id)] == pytest.approx(metric.value, abs=5e-6), name
            n += 1
    assert n == len(names) * 13


def test_judged_as_ir_measures():
    irm = _ir_measures()
    qrels, run = random_collection(31, ties=False)
    names = ["Judged@1", "Judged@10", "Judged@100", "Judged"]
    got = per_query(evaluate(qrels, run, names))
    for name in names:
        (ours,) = parse_measures(name)
        for metric in irm.judged.iter_calc([irm.parse_measure(name)], qrels, run):
            if metric.query_id in {q for _, q in got}:
                assert got[(str(ours), metric.query_id)] == pytest.approx(metric.value, rel=1e-12), name


def test_compat_does_not_depend_on_the_scores_sign_where_ir_measures_does():
    """Compat's ideal ranking lists, within a grade, the documents the run retrieved first: shifting every
    score changes nothing here; ir_measures orders them by score with the unretrieved at 0, so it agrees
    on positive scores and not on negative ones (as a re-ranker's logits are), as the measures page says."""
    import ir_measures
    from ir_measures import Compat as IrmCompat

    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 1, "d5": 0}, "q2": {"d1": 2, "d4": 1, "d6": 1}}
    negative = {"q1": {"d1": -1.0, "d9": -2.0, "d8": -3.0}, "q2": {"d4": -0.5, "d1": -0.7, "d7": -2.0}}
    positive = {q: {d: s + 10 for d, s in docs.items()} for q, docs in negative.items()}
    measure = IrmCompat(p=0.95)
    ours = {
        name: float(metrics.evaluate(qrels, run, ["Compat(p=0.95)"]).summary().iloc[0, 0])
        for name, run in (("negative", negative), ("positive", positive))
    }
    runs = (("negative", negative), ("positive", positive))
    theirs = {name: ir_measures.calc_aggregate([measure], qrels, run)[measure] for name, run in runs}
    assert ours["negative"] == pytest.approx(ours["positive"], abs=1e-12)
    assert ours["positive"] == pytest.approx(theirs["positive"], abs=1e-9)
    assert theirs["negative"] < ours["negative"] - 0.1
    page = (Path(__file__).resolve().parents[3] / "docs" / "measures.md").read_text(encoding="utf-8")
    assert "0.5500 here, 0.3273 in ir_measures" in page
