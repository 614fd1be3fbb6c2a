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
]
#: measures of trec_eval's syntax with parameters (one measure each)
TREC_SYNTAX = ["ndcg.1=3,2=9,0=1", "set_F.0.5"]
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


def test_every_family_explained_is_tested():
    families = set()
    from metrics.explain import resolve_measure

    for name in EXPLAINED + TREC_SYNTAX + VARIANTS:
        families.add(resolve_measure(name).family)
    assert families == set(explained_families())


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_working_reproduces_the_value_and_the_q_line(seed, config, tmp_path, capsys):
    options = CONFIGS[config]
    qrels, run = random_collection(seed)
    paths = write_trec(qrels, run, tmp_path)
    measures = EXPLAINED + TREC_SYNTAX + VARIANTS
    lines = q_lines(paths, EXPLAINED + VARIANTS, options, capsys)
    for name in TREC_SYNTAX:  # (ir-eval's -m takes a family's first parameters only, as trec_eval)
        for key, found in q_lines(paths, [name], options, capsys).items():
            lines.setdefault(key, []).extend(found)
    prep = Prepared(*paths, settings=Settings(**options))
    ev = evaluate(qrels, run, measures, keep_names=False, **options)
    pq = ev.per_query
    checked = 0
    for name in measures:
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained, (name, qid, e.reason)
            assert e.worked == pytest.approx(e.value, rel=1e-12, abs=1e-15, nan_ok=True)
            want = pq.loc[(pq["query_id"] == qid) & (pq["measure"] == str(_measure(name))), "value"].item()
            assert e.value == want or (np.isnan(want) and np.isnan(e.value))
            assert e.line in lines[(e.measure, qid)]
            assert e.to_text().splitlines()[-1] == e.line
            _rows_add_up(e, prep)
            checked += 1
        s = prep.explain(name, "all")
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


#: the EXPLAINED measures that trec_eval computes, in its -m syntax (a family's first parameters win)
TREC_EVAL_M = ["map", "recip_rank", "P.5,20", "recall.5,30", "Rprec", "success.1,10", "set_P", "set_recall"]
TREC_EVAL_M += ["set_F", "bpref", "infAP", "iprec_at_recall.0.00,0.30,1.00", "ndcg", "ndcg_cut.5,20"]


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
    for name in measures:
        for qid in prep.query_ids:
            e = prep.explain(name, qid)
            assert e.explained and e.line == reference[(e.measure, qid)]
        assert prep.explain(name, "all").line == reference[(_measure(name).trec_name, "all")]


def test_a_measure_without_working_says_so():
    qrels, run = random_collection(0)
    for name in ("num_ret", "ERR@10", "rbp", "map_cut_10", "gm_map"):
        e = explain(qrels, run, name, "q2")
        assert not e.explained and "cannot be explained yet" in e.reason
        assert not e.tables and "cannot be explained yet" in e.to_text()
    e = explain(qrels, run, "num_ret", "q2")
    assert e.to_text().splitlines()[-1] == e.line == f"num_ret               \tq2\t{int(e.value)}"
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
