"""metrics.explain: every explained measure's working reproduces its value, on data with ties,
unjudged documents, negative grades, -l 2, -c, -J and -M; the value and the last line are those
of ``ir-eval -q`` (and of trec_eval 10.0 itself where it computes the measure)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from metrics import evaluate
from metrics.cli import ir_eval as cli
from metrics.engine.settings import Settings
from metrics.explain import Prepared, explain, explained_families, gain_curve
from tests.conftest import qrels_frame, random_collection, run_frame, write_trec
from tests.trec_eval_ref import BIN, REASON

#: one measure at least of every explained family, with their variants
EXPLAINED = [
    "map",
    "recip_rank",
    "P_5",
    "P_20",
    "recall_5",
    "recall_30",
    "Rprec",
    "success_1",
    "success_10",
    "set_P",
    "set_recall",
    "set_F",
    "bpref",
    "infAP",
    "iprec_at_recall_0.00",
    "iprec_at_recall_0.30",
    "iprec_at_recall_1.00",
    "ndcg",
    "ndcg_cut_5",
    "ndcg_cut_20",
    "P_5(rel=2)",
    "map_cut_10",
    "map_cut_100",
    "relative_P_5",
    "Rprec_mult_0.20",
    "Rprec_mult_1.00",
    "Rprec_mult_2.00",
    "unj_5",
    "unj_20",
    "binG",
    "11pt_avg",
    "rbp",
    "rbp_resid",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "set_relative_P",
    "set_map",
    "utility",
    "map_cut_5(rel=2)",
    "G",
    "ndcg_rel",
    "Rndcg",
]
#: explained measures beyond trec_eval (ir_measures', ranx's and the textbook ones)
BEYOND = [
    "rr_cut_10",
    "rr_cut_3",
    "hits_10",
    "f1_cut_10",
    "Judged",
    "Judged_10",
    "map_ext(precision=interpolated)",
    "map_ext(over=retrieved)",
    "Accuracy",
    "Accuracy_10",
    "dcg",
    "dcg_cut_10",
    "dcg_cut_10(gain=exp)",
    "ideal_dcg",
    "ERR",
    "ERR_10",
    "rbp_ext",
    "rbp_ext_10(p=0.5)",
    "rbp_ext_5(binary_at=2)",
    "inst",
    "insq",
    "bpm_5(T=2)",
    "sdcg_10(min_rel=1,max_rel=3)",
    "nerr8_10",
    "nerr9_10",
    "nerr10(p=0.5)",
    "nerr11(T=3)",
    "inst(max_rel=2)",
    "compat",
    "compat(p=0.8)",
    "compat(normalize=false)",
]
#: the text measure explained (its value is its string)
TEXT = ["relstring", "relstring_20", "relstring_3"]
#: one measure of each per-query family whose working is not written out
UNEXPLAINED: list[str] = []
#: measures of trec_eval's syntax with parameters (one measure each)
TREC_SYNTAX = ["ndcg.1=3,2=9,0=1", "set_F.0.5", "rbp.p=0.5", "rbp.p=0.7,1=0.5,2=1,-1=0.1", "rbp_resid.p=0.5"]
TREC_SYNTAX += ["utility.1,-2,0.5,0", "11pt_avg.0.5,0.2", "dcg.1=3,2=9", "ideal_dcg.1=3,2=9,0=1"]
TREC_SYNTAX += ["G.1=0.5,2=2.5", "ndcg_rel.1=3,2=9,0=1", "Rndcg.1=3,2=9"]
#: measures whose summary is no mean or sum of their per-query values (num_rel: with -c, the qrels' count)
SUMMARY_OF_ITS_OWN = {"num_rel"}
#: the nDCG variants (not in trec_eval)
VARIANTS = [
    "nDCG(gain=exp)@5",
    "nDCG(discount=jk,base=2)@6",
    "nDCG(discount=jk,base=3)@10",
    "nDCG(ideal=retrieved)@10",
    "nDCG(gain=exp)",
    "nDCG(judged_only=true)@10",
]
CONFIGS = {
    "default": {},
    "level 2": {"relevance_level": 2},
    "level 0": {"relevance_level": 0},
    "-c": {"complete": True},
    "-J": {"judged_only": True},
    "-M 7": {"max_docs": 7},
    "-c -M 3 -l 2": {"complete": True, "max_docs": 3, "relevance_level": 2},
}
FLAGS = {
    "relevance_level": lambda v: ["-l", str(v)],
    "complete": lambda v: ["-c"] if v else [],
    "judged_only": lambda v: ["-J"] if v else [],
    "max_docs": lambda v: ["-M", str(v)],
}


def flags(options: dict) -> list[str]:
    return [f for k, v in options.items() for f in FLAGS[k](v)]


def q_lines(paths, measures, options, capsys) -> dict:
    """``ir-eval -q`` lines by (measure, query): a list, as ``P_5`` and ``P_5(rel=2)`` both print as ``P_5``."""
    argv = ["-q", *[a for m in measures for a in ("-m", m)], *flags(options), *paths]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    lines: dict = {}
    for line in out.splitlines():
        lines.setdefault((line.split("\t")[0].strip(), line.split("\t")[1]), []).append(line)
    return lines


def test_every_family_is_explained_and_tested_or_said_not_to_be():
    from metrics.measures import FAMILIES

    unexplained = {_measure(n).family for n in UNEXPLAINED}
    numbers = {n for n, f in FAMILIES.items() if f.per_query and f.kind != "text"}
    assert numbers - set(explained_families()) == unexplained


def test_every_family_explained_is_tested():
    families = set()
    from metrics.explain import resolve_measure

    for name in EXPLAINED + BEYOND + TREC_SYNTAX + VARIANTS + TEXT:
        families.add(resolve_measure(name).family)
    assert families == set(explained_families())


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_working_reproduces_the_value_and_the_q_line(seed, config, tmp_path, capsys):
    options = CONFIGS[config]
    qrels, run = random_collection(seed)
    paths = write_trec(qrels, run, tmp_path)
    measures = EXPLAINED + BEYOND + TREC_SYNTAX + VARIANTS
    lines = q_lines(paths, EXPLAINED + BEYOND + VARIANTS, options, capsys)
    for name in TREC_SYNTAX:  # (ir-eval's -m takes a family's first parameters only, as trec_eval)
        for key, found in q_lines(paths, [name], options, capsys).items():
            lines.setdefault(key, []).extend(found)
    prep = Prepared(*paths, settings=Settings(**options))
    ev = evaluate(qrels, run, measures, keep_names=False, **options)
    pq = ev.per_query
    values = {}  # (measure, query) -> the value of its row
    for key, value in zip(zip(pq["measure"], pq["query_id"]), pq["value"]):
        assert key not in values, key
        values[key] = value
    checked = 0
    for name in measures:
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained, (name, qid, e.reason)
            assert e.worked == e.value or (np.isnan(e.worked) and np.isnan(e.value)), (name, qid)
            want = values.get((str(_measure(name)), qid), np.nan)  # (an undefined value has no row: Accuracy)
            assert e.value == want or (np.isnan(want) and np.isnan(e.value))
            assert e.line in lines[(e.measure, qid)]
            assert e.to_text().splitlines()[-1] == e.line
            _rows_add_up(e, prep)
            checked += 1
        s = prep.explain(name, "all")
        if _measure(name).family in SUMMARY_OF_ITS_OWN:
            assert not s.explained and "not a mean" in s.reason and s.line in lines[(s.measure, "all")]
            continue
        assert s.explained and s.line in lines[(s.measure, "all")], (name, s.reason)
    assert checked == len(measures) * len(prep.query_ids)


def _measure(name):
    from metrics.explain import resolve_measure

    return resolve_measure(name)


def _rows_add_up(e, prep) -> None:
    """The rows' own numbers give the value, read the way a reader of the table would."""
    rows = e.rows
    fam = _measure(e.asked or e.measure).family
    if fam in ("ndcg", "ndcg_cut", "ndcg_ext"):
        run_rows, ideal_rows = e.tables
        dcg = sum(r["contribution"] for r in run_rows.rows)
        idcg = sum(r["contribution"] for r in ideal_rows.rows)
        assert (run_rows.rows[-1]["running DCG"] if run_rows.rows else 0.0) == pytest.approx(dcg)
        if idcg > 0:
            assert e.value == pytest.approx(dcg / idcg)
        for r in run_rows.rows:
            assert r["contribution"] == pytest.approx(r["gain"] / r["discount"])
    elif fam == "map":
        total = sum(r["precision (decimal)"] for r in rows)
        for r in rows:
            num, den = map(int, r["precision"].split("/"))
            assert num / den == r["precision (decimal)"] and den == r["rank"]
        q = prep.query(e.query_id)
        assert e.value == pytest.approx(total / q.num_rel if rows else 0.0)
    elif fam in ("P", "success"):
        k = _measure(e.asked or e.measure).params[0]
        hits = sum(1 for r in rows if r["relevant"])
        assert e.value == pytest.approx(hits / k if fam == "P" else float(hits > 0))
    elif fam == "recip_rank":
        assert e.value == (1.0 / rows[-1]["rank"] if rows else 0.0)
        assert all(not r["relevant"] for r in rows[:-1])
    elif fam in ("bpref", "infAP"):
        total = sum(r["term"] for r in rows)
        q = prep.query(e.query_id)
        assert e.value == pytest.approx(total / q.num_rel if q.num_rel else total)
    elif fam == "iprec_at_recall":
        for i, r in enumerate(rows):
            assert r["interpolated precision"] == max(x["precision (decimal)"] for x in rows[i:])
    else:
        _rows_add_up_beyond(e, prep, fam)


def _rows_add_up_beyond(e, prep, fam: str) -> None:
    """:func:`_rows_add_up` for the families explained since the first ones (one family each)."""
    m = _measure(e.asked or e.measure)
    rows = e.rows
    q = prep.query(e.query_id, *prep.view(m))
    if fam in ("recall", "Rprec"):
        hits = sum(1 for r in rows if r["relevant"])
        assert e.value == pytest.approx(hits / q.num_rel if q.num_rel else 0.0)
    elif fam in ("set_P", "set_recall", "set_F"):
        assert len(rows) == q.num_rel_ret and all(r["count"] == i + 1 for i, r in enumerate(rows))
    elif fam in ("map_cut", "map_ext"):
        k = m.params[0] if fam == "map_cut" else q.num_ret
        column = "interpolated precision" if "interpolated precision" in e.tables[0].columns else "precision (decimal)"
        assert all(r["rank"] <= k for r in rows)
        over = q.num_rel if dict(m.options).get("over", "all") == "all" else len(rows)
        assert e.value == pytest.approx(sum(r[column] for r in rows) / over if rows and over else 0.0)
    elif fam in ("rr_cut", "hits", "relative_P", "f1_cut"):
        k = m.params[0]
        hits = sum(1 for r in rows if r["relevant"])
        assert all(r["rank"] <= k for r in rows)
        if fam == "rr_cut":
            assert e.value == (1.0 / rows[-1]["rank"] if hits else 0.0) and hits <= 1
        elif fam == "hits":
            assert e.value == hits
        elif fam == "relative_P":
            assert e.value == pytest.approx(hits / min(k, q.num_rel) if q.num_rel else 0.0)
        else:
            p, rec = hits / k, hits / max(q.num_rel, 1)
            assert e.value == pytest.approx(2 * p * rec / (p + rec) if hits else 0.0)
    elif fam == "Rprec_mult":
        c = int(m.params[0] * q.num_rel + 0.9)
        hits = sum(1 for r in rows if r["relevant"])
        want = 0.0 if c == 0 else (q.num_rel_ret if c > q.num_ret else hits) / c
        assert len(rows) == min(c, q.num_ret) and e.value == pytest.approx(want)
    elif fam == "unj":
        unjudged = sum(1 for r in rows if not r["judged"])
        assert e.value == (0.0 if q.placeholder else pytest.approx(unjudged / m.params[0]))
    elif fam == "Judged":
        assert e.value == pytest.approx(sum(r["in qrels"] for r in rows) / len(rows) if rows else 0.0)
    elif fam == "binG":
        for r in rows:
            assert r["term"] == 1.0 / np.log2(2 + r["non-relevant above"])
        assert e.value == pytest.approx(sum(r["term"] for r in rows) / q.num_rel if rows else 0.0)
    elif fam == "11pt_avg":
        levels = e.tables[1].rows
        assert e.value == pytest.approx(sum(r["interpolated precision"] for r in levels) / len(levels), nan_ok=True)
    elif fam == "Accuracy":
        n_rel = len(rows)
        depth = q.num_ret if m.params[0] == 0 else min(m.params[0], q.num_ret)
        out_of_order = sum(r["non-relevant above"] for r in rows)
        if n_rel and depth - n_rel:
            assert e.value == pytest.approx(1.0 - out_of_order / (n_rel * (depth - n_rel)))
        else:
            assert np.isnan(e.value)
    elif fam in ("dcg", "dcg_cut", "ideal_dcg"):
        running = "running IDCG" if fam == "ideal_dcg" else "running DCG"
        for r in rows:
            assert r["contribution"] == pytest.approx(r["gain"] / r["discount"])
        assert e.value == pytest.approx(sum(r["contribution"] for r in rows))
        assert e.value == (rows[-1][running] if rows else 0.0)
    elif fam == "ERR":
        reached = 1.0
        for r in rows:
            assert r["reached"] == pytest.approx(reached) and r["term"] == pytest.approx(
                r["stop probability"] * reached / r["rank"]
            )
            reached *= 1.0 - r["stop probability"]
        assert e.value == pytest.approx(sum(r["term"] for r in rows))
    elif fam in ("rbp", "rbp_ext"):
        p = float(dict(m.params).get("p", 0.9)) if fam == "rbp" else float(dict(m.options).get("p", 0.8))
        for r in rows:
            assert r["p^(rank-1)"] == pytest.approx(p ** (r["rank"] - 1))
            assert r["term"] == pytest.approx(r["gain"] * r["p^(rank-1)"])
        assert e.value == pytest.approx((1 - p) * sum(r["term"] for r in rows))
    elif fam == "rbp_resid":
        p = float(dict(m.params).get("p", 0.9))
        if rows and not (q.placeholder and not m.params):
            assert e.value == pytest.approx(p**q.num_ret + (1 - p) * sum(r["p^(rank-1)"] for r in rows))
        else:
            assert e.value == 0.0
    elif fam in ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"):
        assert e.value == len(rows) and [r["count"] for r in rows] == list(range(1, len(rows) + 1))
    elif fam in ("set_relative_P", "set_map"):
        a = len(rows)
        d = min(q.num_ret, q.num_rel) if fam == "set_relative_P" else q.num_ret * q.num_rel
        assert e.value == pytest.approx((a if fam == "set_relative_P" else a * a) / d if d else 0.0)
    elif fam == "utility":
        if not q.placeholder or m.params != (1.0, -1.0, 0.0, 0.0):
            assert e.value == sum(r["count"] * r["coefficient"] for r in rows)
    elif fam == "G":
        for r in rows:
            assert r["term"] == pytest.approx(r["gain"] / np.log2(2 + r["cost so far"] - r["gain so far"]))
        ideal = float(e.summary[0].split(" ")[4])  # "Total ideal gain = T (...)"
        assert e.value == pytest.approx(sum(r["term"] for r in rows) / ideal if ideal > 0 else 0.0, rel=1e-5)
    elif fam == "ndcg_rel":
        K = int(e.summary[0].split(" ")[0])
        for r in rows:
            assert r["nDCG there"] == pytest.approx(r["DCG so far"] / r["IDCG there"])
        if e.value:
            dcg = e.tables[1].rows[-1]["running DCG"]
            idcg = float(e.summary[1].rpartition("= ")[2])
            rest = (K - len(rows)) * dcg / idcg
            assert e.value == pytest.approx((sum(r["nDCG there"] for r in rows) + rest) / K, rel=1e-3)
    elif fam == "Rndcg":
        points = e.tables[1].rows
        for r in points:
            assert r["nDCG"] == pytest.approx(r["DCG within the depth"] / r["IDCG at the depth"], nan_ok=True)
        mean = sum(r["nDCG"] for r in points) / len(points) if points else np.nan  # (trec_eval's 0 / 0)
        want = mean if q.num_rel else 0.0
        assert e.value == pytest.approx(want, nan_ok=True)
    elif fam in ("inst", "insq", "bpm", "sdcg", "nerr8", "nerr9", "nerr10", "nerr11"):
        for above, r in zip(rows, rows[1:]):
            assert r["reached"] == pytest.approx(above["reached"] * above["goes on"])
        for r in rows:
            assert r["W"] == pytest.approx(r["reached"] * rows[0]["W"]) and 0.0 <= r["gain"] <= 1.0
        assert e.value == pytest.approx(sum(r["W"] * r["gain"] for r in rows), abs=1e-12)
    elif fam == "compat":
        weights = sum(r["p^(depth-1)"] for r in rows)
        rbo = sum(r["p^(depth-1)"] * r["overlap"] / r["depth"] for r in rows) / weights if rows else 0.0
        ideal = sum(r["p^(depth-1)"] * r["best overlap"] / r["depth"] for r in rows) / weights if rows else 0.0
        normalize = dict(m.options).get("normalize", "true") == "true"
        assert e.value == pytest.approx(rbo / ideal if normalize and ideal > 0 else rbo)
        assert all(r["overlap"] <= r["best overlap"] for r in rows)
    else:
        raise AssertionError(f"no check of the rows of {fam}")


#: the EXPLAINED measures that trec_eval computes, in its -m syntax (a family's first parameters win)
TREC_EVAL_M = ["map", "recip_rank", "P.5,20", "recall.5,30", "Rprec", "success.1,10", "set_P", "set_recall"]
TREC_EVAL_M += ["set_F", "bpref", "infAP", "iprec_at_recall.0.00,0.30,1.00", "ndcg", "ndcg_cut.5,20"]
TREC_EVAL_M += ["map_cut.10,100", "relative_P.5", "Rprec_mult.0.20,1.00,2.00", "unj.5,20", "binG", "11pt_avg"]
TREC_EVAL_M += ["rbp", "rbp_resid", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
TREC_EVAL_M += ["set_relative_P", "set_map", "utility", "G", "ndcg_rel", "Rndcg"]


@pytest.mark.skipif(BIN is None, reason=REASON or "trec_eval not found")
@pytest.mark.parametrize("config", ["default", "level 2", "-J", "-M 7"])
def test_value_is_trec_evals_own(config, tmp_path):
    """trec_eval 10.0 stops at a qrels query the run lacks: -c always."""
    options = {**CONFIGS[config], "complete": True}
    qrels, run = random_collection(4)
    paths = write_trec(qrels, run, tmp_path)
    argv = [BIN, "-q", *[a for n in TREC_EVAL_M for a in ("-m", n)], *flags(options), *paths]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    reference = {(line.split("\t")[0].strip(), line.split("\t")[1]): line for line in out.splitlines()}
    prep = Prepared(*paths, settings=Settings(**options))
    measures = [m for m in EXPLAINED if "(" not in m]
    assert {_measure(n).family for n in measures} == {n.split(".")[0] for n in TREC_EVAL_M}
    for name in measures:
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained and e.line == reference[(e.measure, qid)], (name, qid)
        assert prep.explain(name, "all").line == reference[(_measure(name).trec_name, "all")]
    for name in TREC_SYNTAX:  # one run of trec_eval each: its -m keeps a family's first parameters
        if name.startswith(("dcg", "ideal_dcg")):
            continue  # (not trec_eval's)
        argv = [BIN, "-q", "-m", name, *flags(options), *paths]
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        reference = {(line.split("\t")[0].strip(), line.split("\t")[1]): line for line in out.splitlines()}
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained and e.line == reference[(e.measure, qid)], (name, qid)


def test_a_measure_without_working_says_so():
    qrels, run = random_collection(0)
    for name in UNEXPLAINED + ["gm_map"]:
        e = explain(qrels, run, name, "q2")
        assert not e.explained and "cannot be explained yet" in e.reason
        assert not e.tables and "cannot be explained yet" in e.to_text()
    e = explain(qrels, run, "gm_map", "q2")  # (no per-query line: trec_eval prints none)
    assert e.line == "" and e.value == explain(qrels, run, "map", "q2").value
    assert explain(qrels, run, "gm_map", "all").explained  # its summary is: a geometric mean


def test_unknown_query_and_several_measures_are_errors():
    qrels, run = random_collection(0)
    prep = Prepared(qrels, run)
    from metrics.explain import UnknownQuery

    with pytest.raises(UnknownQuery, match="not in the qrels"):
        prep.explain("map", "nope")
    with pytest.raises(UnknownQuery, match="no results"):
        prep.explain("map", "q4")  # a qrels-only query, without -c
    assert Prepared(qrels, run, settings=Settings(complete=True)).explain("map", "q4").explained
    with pytest.raises(ValueError, match="explain one at a time"):
        prep.explain("P", "q2")
    with pytest.raises(ValueError, match="unknown measure"):
        prep.explain("nonsense", "q2")


def test_summary_under_c_names_the_queries_the_run_lacks():
    qrels, run = random_collection(1)
    e = explain(qrels, run, "map", "all", settings=Settings(complete=True))
    lacking = [r for r in e.rows if r["note"]]
    assert lacking and all(r["value"] == 0.0 for r in lacking)
    assert any("-c: the mean is over all" in s for s in e.summary)
    e = explain(qrels, run, "map", "all")
    assert any("left out" in s for s in e.summary)


def test_documents_of_the_rows_are_the_rankings_with_ties_broken_by_docid_descending():
    qrels = qrels_frame([("q", "a", 1), ("q", "b", 0), ("q", "c", 2), ("q", "u", -1)])
    run = run_frame([("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "u", 2.0), ("q", "x", 0.5)])
    e = explain(qrels, run, "P_5", "q")
    assert [r["docid"] for r in e.rows] == ["u", "c", "b", "a", "x"]
    assert [r["grade"] for r in e.rows] == ["unjudged (negative grade)", 2, 0, 1, "not in qrels"]
    e = explain(qrels, run, "P_5", "q", settings=Settings(judged_only=True))
    assert [r["docid"] for r in e.rows] == ["c", "b", "a"]
    assert any("-J" in c for c in e.conventions)
    e = explain(qrels, run, "P_5", "q", settings=Settings(max_docs=2))
    assert [r["docid"] for r in e.rows] == ["u", "c"] and any("-M 2" in c for c in e.conventions)


def test_gain_curve_marks_relevant_documents_and_unjudged_ranks():
    grades = [3, 2, 3, 0, 1, 2]
    rows = [("q", f"d{i + 1}", g) for i, g in enumerate(grades)] + [("q", "x1", 3), ("q", "x2", 0)]
    qrels = qrels_frame(rows)
    run = run_frame([("q", f"d{i + 1}", 10.0 - i) for i in range(6)] + [("q", "new", 1.0)])
    curve = gain_curve(qrels, run, "q", "ndcg_cut_6")
    assert curve.k == [1, 2, 3, 4, 5, 6]
    assert round(curve.dcg[5], 3) == 6.861 and round(curve.ideal[5], 3) == 8.384
    marks = {m.docid: (m.run_rank, m.ideal_rank) for m in curve.relevant}
    assert marks["d1"] == (1, 1) and marks["d3"] == (3, 2) and marks["x1"] == (None, 3)
    assert marks["d2"] == (2, 4) and marks["d5"] == (5, 6) and "d4" not in marks
    assert curve.unjudged == []
    longer = gain_curve(qrels, run, "q", "ndcg", k_max=8)
    assert longer.unjudged == [7] and longer.dcg[7] == longer.dcg[6]
    assert longer.ideal[7] == longer.ideal[6]  # the ideal ranking has 7 documents with a gain
    exp = gain_curve(qrels, run, "q", "nDCG(gain=exp)@5")
    assert exp.dcg[0] == 7.0 and "2^grade - 1" in exp.variant


def test_explanation_as_json_has_the_rows():
    import json

    qrels, run = random_collection(2)
    e = explain(qrels, run, "ndcg_cut_10", "q2")
    data = json.loads(json.dumps(e.to_dict()))
    assert data["rows"] == [dict(r) for r in e.rows] and len(data["tables"]) == 2
    assert data["value"] == e.value and data["line"] == e.line and data["explained"]


def _small():
    """One query ranked u (unjudged), c (grade 2), b (0), a (1), x (not in the qrels)."""
    qrels = qrels_frame([("q", "a", 1), ("q", "b", 0), ("q", "c", 2), ("q", "u", -1)])
    run = run_frame([("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "u", 2.0), ("q", "x", 0.5)])
    return qrels, run


def test_map_cut_text_names_the_precisions_and_the_divisor():
    e = explain(*_small(), "map_cut_2", "q")
    assert [(r["rank"], r["docid"], r["precision"]) for r in e.rows] == [(2, "c", "1/2")]
    assert "AP@2 = (1/2) / 2 = 0.5000 / 2 = 0.2500" in e.summary
    assert e.formula == "map_cut_2 = (sum of the precision at each relevant rank <= 2) / R"
    assert e.to_text().splitlines()[-1] == "map_cut_2             \tq\t0.2500"


def test_err_text_shows_the_stopping_and_reaching_probabilities():
    e = explain(*_small(), "ERR", "q")
    got = [(r["docid"], r["stop probability"], r["reached"], r["term"]) for r in e.rows]
    assert got == [
        ("u", 0.0, 1.0, 0.0),
        ("c", 3 / 16, 1.0, 3 / 32),
        ("b", 0.0, 13 / 16, 0.0),
        ("a", 1 / 16, 13 / 16, 13 / 1024),
        ("x", 0.0, 13 / 16 * 15 / 16, 0.0),
    ]
    assert e.value == 3 / 32 + 13 / 1024 and e.summary == ("ERR = 0.1064",)
    text = e.to_text()
    assert "| 2 | c | 2 | 0.1875 | 1.0000 | 0.0938 | 0.0938 |" in text
    assert "(2^grade - 1) / 2^4" in text


def test_count_text_says_what_is_taken_away():
    e = explain(*_small(), "num_nonrel_judged_ret", "q")
    assert [r["docid"] for r in e.rows] == ["b"]
    assert e.summary == ("num_nonrel_judged_ret = 5 retrieved - 1 not in the qrels - 1 unjudged - 2 relevant = 1",)
    e = explain(*_small(), "num_rel", "q")
    assert [(r["docid"], r["retrieved at rank"]) for r in e.rows] == [("c", 2), ("a", 4)]


def test_rbp_text_states_the_rescaling_of_the_grades():
    e = explain(*_small(), "rbp", "q")
    assert [r["gain"] for r in e.rows] == [0.0, 1.0, 0.0, 0.5, 0.0]
    assert any("(gain - 0) / (2 - 0)" in c for c in e.conventions)
    assert e.summary == ("RBP = (1 - 0.9) * 1.2645 = 0.1264",)
    e = explain(*_small(), "rbp_resid", "q")
    assert [r["docid"] for r in e.rows] == ["u", "x"]
    assert e.value == pytest.approx(0.9**5 + (1 - 0.9) * (1.0 + 0.9**4))
    assert e.summary[-1] == "rbp_resid = 0.9^5 + (1 - 0.9) * 1.6561 = 0.7561"


def test_eleven_point_average_text_walks_the_recall_levels():
    e = explain(*_small(), "11pt_avg", "q")
    levels = e.tables[1].rows
    assert [r["relevant documents"] for r in levels] == [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2]
    assert levels[0]["note"] == "recall 0: the highest precision anywhere in the ranking"
    assert levels[-1]["note"] == "the highest precision at or below relevant document 2 (rank 4)"
    assert e.summary[-1] == "11pt_avg = 5.5000 / 11 = 0.5000"


@pytest.mark.parametrize("config", list(CONFIGS))
def test_relstring_is_explained_rank_by_rank(config, tmp_path, capsys):
    options = CONFIGS[config]
    qrels, run = random_collection(1)
    paths = write_trec(qrels, run, tmp_path)
    lines = q_lines(paths, TEXT[:1], options, capsys)
    for name in TEXT[1:]:  # (one -m each: ir-eval's -m keeps a family's first parameters)
        lines.update(q_lines(paths, [name], options, capsys))
    prep = Prepared(*paths, settings=Settings(**options))
    for name in TEXT:
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained and isinstance(e.value, str) and e.worked == e.value, (name, qid)
            assert e.value == "".join(r["character"] for r in e.rows)
            assert e.line in lines[(e.measure, qid)] and e.to_text().splitlines()[-1] == e.line
        assert not prep.explain(name, "all").explained
    small = explain(*_small(), "relstring", "q")
    assert small.value == ".201-" and [r["character"] for r in small.rows] == [".", "2", "0", "1", "-"]
    assert small.summary[-1] == "relstring = '.201-'"


@pytest.mark.skipif(BIN is None, reason=REASON or "trec_eval not found")
def test_relstring_is_trec_evals_own(tmp_path):
    qrels, run = random_collection(4)
    paths = write_trec(qrels, run, tmp_path)
    for name in ("relstring", "relstring.20"):
        argv = [BIN, "-q", "-c", "-m", name, *paths]
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        reference = {(line.split("\t")[0].strip(), line.split("\t")[1]): line for line in out.splitlines()}
        prep = Prepared(*paths, settings=Settings(complete=True))
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained and e.line == reference[(e.measure, qid)], (name, qid)
