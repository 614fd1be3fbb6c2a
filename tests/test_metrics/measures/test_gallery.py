"""The gallery of worked examples (metrics.examples, ``ir-eval --example``) and the conventions side by side
(metrics.explain.side_by_side, ``ir-eval --explain --conventions``).

Every number of every example is recomputed and held to the exact value its manifest states; where the
text's arithmetic holds, the text's printed number is that value rounded to the text's precision, and
where the text rounded early or slipped (its manifest says why) it is not, and both are asserted.
trec_eval's number is asserted as the manifest states it, against the trec_eval 10.0 binary when there
is one.  The literal numbers of the issue's seven examples are asserted once more below, by hand.
"""

from __future__ import annotations

import fnmatch
import json
import subprocess
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

import metrics
from metrics.cli import ir_eval as cli
from metrics.examples import EXAMPLES_DIR, UnknownExample, example_names, open_example
from metrics.explain import Prepared, explain, side_by_side
from metrics.explain.textbook import COLUMNS, positional_ranking
from metrics.measures import Measure
from tests import trec_eval_ref
from tests.conftest import random_collection, write_trec
from tests.test_metrics.measures.test_worked_examples import graded, qrels_frame, ranked

NAMES = ["map", "mrr", "ap-positional", "interpolated-ap", "ndcg-jk", "ndcg-gain", "ndcg-ideal"]


def printed(text: str):
    decimals = -Decimal(text).as_tuple().exponent
    return pytest.approx(float(text), abs=0.5 * 10.0**-decimals)


def numbers():
    return [(name, i) for name in example_names() for i in range(len(open_example(name).numbers))]


def test_the_gallery_holds_the_seven_examples_in_order():
    assert example_names() == NAMES
    for name in NAMES:
        ex = open_example(name)
        assert ex.title and ex.source and ex.convention and ex.numbers
        assert ex.qrels_path.is_file() and ex.run_path.is_file()
        assert json.loads((ex.directory / "example.json").read_text(encoding="utf-8"))["name"] == name


def test_the_examples_are_package_data():
    """pyproject's package-data patterns take every file of the gallery (installed with metrics)."""
    tomllib = pytest.importorskip("tomllib")
    root = Path(metrics.__file__).resolve().parent
    with open(root.parent / "pyproject.toml", "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]["metrics"]
    files = [p.relative_to(root).as_posix() for p in EXAMPLES_DIR.rglob("*") if p.is_file()]
    assert len(files) == 3 * len(NAMES)
    assert all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files)


def test_an_example_opens_as_ordinary_files():
    ex = open_example("map")
    qrels, run = metrics.read_qrels(ex.qrels_path), metrics.read_run(ex.run_path)
    assert metrics.evaluate(qrels, run, "AP").aggregate["value"].item() == printed("0.6418")


def test_an_unknown_example_names_those_there_are():
    with pytest.raises(UnknownExample, match="there are: map, mrr"):
        open_example("nope")
    with pytest.raises(UnknownExample):
        open_example("../map")


@pytest.mark.parametrize("name, i", numbers())
def test_every_number_is_the_exact_value_and_the_text_agrees_where_its_arithmetic_holds(name, i):
    ex = open_example(name)
    n = ex.numbers[i]
    exact, trec = ex.computed(n)
    assert exact == pytest.approx(n.exact, rel=1e-12, abs=1e-15)
    if n.printed is not None:
        if n.note:  # the text rounded early or slipped: its number is not the exact one, rounded
            assert not n.agrees(exact)
            assert n.printed_value != printed(f"{exact:.{n.decimals}f}")
        else:
            assert n.agrees(exact)
            assert exact == printed(f"{n.printed_value:.{n.decimals}f}")
    if n.trec_eval is not None:
        table = ex.side_by_side(n.measure, n.query)
        assert f"{table['value'].iloc[0]:.4f}" == n.trec_eval  # trec_eval's convention, as it prints it


def _trec_eval_prints(ex, measure: str, query: str) -> str:
    args = [trec_eval_ref.BIN, "-q", f"-l{ex.level}", "-m", measure, str(ex.qrels_path), str(ex.run_path)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    (line,) = [x for x in out.splitlines() if x.split("\t")[1] == query]
    return line.split("\t")[2]


@pytest.mark.skipif(not trec_eval_ref.BIN, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("name", NAMES)
def test_trec_eval_prints_the_manifests_numbers(name):
    ex = open_example(name)
    stated = [n for n in ex.numbers if n.trec_eval is not None]
    assert stated
    for n in stated:
        assert _trec_eval_prints(ex, n.measure, n.query) == n.trec_eval, n.label


# ------------------------------------------------------------------ the seven examples, by hand


def _number(name: str, label: str):
    ex = open_example(name)
    (n,) = [n for n in ex.numbers if n.label == label]
    return n, ex.computed(n)[0]


def test_example_1_map_writes_the_zero_terms():
    for label, text in (("AP of topic 1", "0.83"), ("AP of topic 2", "0.45"), ("MAP", "0.64")):
        n, exact = _number("map", label)
        assert n.printed == text and exact == printed(text)
    assert _number("map", "AP of topic 1")[1] == printed("0.830357")
    ex = open_example("map")
    e = explain(ex.qrels_path, ex.run_path, "map", "2")
    assert "AP = (1/1 + 2/3 + 3/5 + 0 + 0) / 5 = 2.2667 / 5 = 0.4533" in e.summary
    never = e.tables[1]
    assert never.title.startswith("Relevant documents never retrieved")
    assert [r["docid"] for r in never.rows] == ["r4", "r5"]
    assert e.value == pytest.approx((1 + 2 / 3 + 3 / 5) / 5)
    assert e.rows == e.tables[0].rows and len(e.rows) == 3  # the first table stays the ranked documents


def test_example_2_mrr():
    n, exact = _number("mrr", "MRR")
    assert exact == (1 / 4 + 0 + 0 + 1 / 5) / 4 == printed("0.1125")


def test_example_3_both_readings_and_the_divisor_alone():
    ex = open_example("ap-positional")
    t = ex.side_by_side("map", "2")
    value = dict(zip(t["variant"], t["value"]))
    assert value["positional"] == 0.5  # b and d match: (1/2 + 2/4) / 2
    assert value["trec_eval"] == 1.0  # every ground-truth item relevant, all retrieved
    t1 = ex.side_by_side("map", "1")
    v1 = dict(zip(t1["variant"], t1["value"]))
    assert v1["positional"] == pytest.approx((1 / 2 + 2 / 4 + 3 / 15) / 3) == printed("0.4")
    assert v1["over_retrieved"] == 1.0 and v1["trec_eval"] == 15 / 16  # only the divisor differs
    t_all = ex.side_by_side("map", "all")
    v_all = dict(zip(t_all["variant"], t_all["value"]))
    assert v_all["positional"] == pytest.approx((0.4 + 0.5 + 0.6 + 0.9) / 4) == printed("0.6")
    assert v_all["trec_eval"] == pytest.approx((15 / 16 + 3) / 4) == printed("0.9844")


def test_example_4_interpolated_ap():
    n, exact = _number("interpolated-ap", "AP with interpolated precision")
    assert exact == pytest.approx((1 + 0.6 + 0.6 + 0.5) / 4) == printed("0.675")
    assert n.trec_eval == "0.6500"  # (1 + 0.5 + 0.6 + 0.5) / 4


def test_example_5_jk_discount():
    assert _number("ndcg-jk", "DCG[10]")[1] == pytest.approx(2 + 3 / 2 + 5 / np.log2(5) + 4 / 3) == printed("6.99")
    assert _number("ndcg-jk", "IDCG[10]")[1] == pytest.approx(5 + 4 + 3 / np.log2(3) + 2 / 2) == printed("11.89")
    n, exact = _number("ndcg-jk", "nDCG[10] (not printed by the text)")
    assert exact == printed("0.5875") and n.trec_eval == "0.6564"


def test_example_6_the_texts_slip():
    assert _number("ndcg-gain", "DCG@5, linear gain")[1] == printed("15.46")
    assert _number("ndcg-gain", "IDCG@5, linear gain")[1] == printed("18.16")
    assert _number("ndcg-gain", "nDCG@5, linear gain")[1] == printed("0.85")
    assert _number("ndcg-gain", "DCG@5, gain 2^g - 1")[1] == printed("585.36")
    assert _number("ndcg-gain", "IDCG@5, gain 2^g - 1")[1] == printed("1120.31")
    n, exact = _number("ndcg-gain", "nDCG@5, gain 2^g - 1")
    assert exact == printed("0.5225") and n.printed == "0.53" and exact != printed("0.53")
    assert "slip" in n.note


def test_example_7_early_rounding():
    assert _number("ndcg-ideal", "DCG@6")[1] == printed("6.861")
    n, exact = _number("ndcg-ideal", "IDCG@6")
    assert exact == printed("8.384") and n.printed == "8.37" and exact != printed("8.37")
    n, exact = _number("ndcg-ideal", "nDCG@6")
    assert exact == printed("0.8184") and n.printed_value == 0.8196 and 6.86 / 8.37 == printed("0.8196")
    assert n.decimals == 4 and not n.agrees(exact)


# ------------------------------------------------------------------ the conventions side by side


def test_the_table_states_trec_eval_first_and_marks_the_measure_asked():
    ex = open_example("interpolated-ap")
    t = side_by_side(ex.qrels_path, ex.run_path, "AP(interpolated)", "1")
    assert tuple(t.columns) == COLUMNS
    assert t["variant"].iloc[0] == "trec_eval" and t["measure"].iloc[0] == "map"
    assert (t["trec_eval"] == 0.65).all()
    asked = t.loc[t["asked"]]
    assert asked["measure"].tolist() == ["map_ext(precision=interpolated)"]
    assert asked["difference"].item() == pytest.approx(0.025)
    assert t["note"].str.len().min() > 20  # every row says where it differs


@pytest.mark.parametrize("seed", range(3))
def test_ap_over_the_relevant_retrieved_only_changes_the_divisor(seed):
    """On generated data (ties, unjudged and negative grades): AP over relevant retrieved x retrieved
    relevant = trec_eval's map x R, query by query."""
    qrels, run = random_collection(seed)
    ev = metrics.evaluate(qrels, run, ["map", "AP(over=retrieved)", "num_rel", "num_rel_ret"], keep_names=False)
    pq = ev.per_query.pivot(index="query_id", columns="measure", values="value")
    got = pq["map_ext(over=retrieved)"] * pq["num_rel_ret"]
    assert np.allclose(got, pq["map"] * pq["num_rel"], rtol=1e-12, atol=1e-12)
    assert (pq["map_ext(over=retrieved)"] >= pq["map"] - 1e-15).all()


@pytest.mark.parametrize("seed", range(3))
def test_ap_over_the_relevant_retrieved_is_scikit_learns_average_precision_of_the_ranking(seed):
    """scikit-learn's average_precision_score over the retrieved list (relevant = grade >= 1, the ranks as
    distinct scores) is AP divided by the relevant documents retrieved."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = random_collection(seed)
    r = metrics.build_ranking(qrels, run)
    ev = metrics.evaluate(qrels, run, "AP(over=retrieved)", keep_names=False)
    got = dict(zip(ev.per_query["query_id"], ev.per_query["value"]))
    checked = 0
    for i, q in enumerate(r.query_ids.tolist()):
        lo, hi = int(r.offsets[i]), int(r.offsets[i + 1])
        y_true = np.asarray(r.rel[lo:hi]) >= 1
        if not y_true.any():
            assert got[str(q)] == 0.0
            continue
        expected = sklearn_metrics.average_precision_score(y_true, -np.arange(hi - lo, dtype=float))
        assert got[str(q)] == pytest.approx(expected, rel=1e-12)
        checked += 1
    assert checked >= 5


def test_ap_over_retrieved_has_an_ir_measures_name():
    (m,) = metrics.parse_measures(["AP(rel=2, over=retrieved)"])
    assert m == Measure("map_ext", (), 2, (("over", "retrieved"),))
    from metrics.measures.irm_names import ir_measures_name

    assert ir_measures_name(m) == "AP(rel=2,over=retrieved)"
    with pytest.raises(ValueError, match="over must be all or retrieved"):
        metrics.parse_measures(["AP(over=some)"])


def test_positional_relevance_needs_a_ground_truth_order():
    """Grades that tie give no order: the positional row is left out; distinct ones give it."""
    qrels = qrels_frame([("q", d, g) for d, g in zip("abcde", (5, 4, 3, 2, 1))] + [("t", "a", 1), ("t", "b", 1)])
    run = ranked({"q": list("ebadc"), "t": ["b", "a"]})
    prep = Prepared(qrels, run)
    assert "positional" in prep.side_by_side("map", "q")["variant"].tolist()
    assert "positional" not in prep.side_by_side("map", "t")["variant"].tolist()
    assert "positional" not in prep.side_by_side("map", "all")["variant"].tolist()
    r, applies = positional_ranking(prep.ranking)
    assert applies.tolist() == [True, False]
    assert r.rel[:5].tolist() == [0, 1, 0, 1, 0] and r.num_rel_ret.tolist() == [2, 0]


def test_ndcg_variants_carry_their_dcg_and_ideal_dcg():
    qrels, run = graded([3, 2, 3, 0, 1, 2], extra={"x1": 3, "x2": 0})
    t = Prepared(qrels, run).side_by_side("nDCG@6", "q")
    row = t.set_index("variant")
    assert row.loc["trec_eval", "value"] == pytest.approx(
        row.loc["trec_eval", "dcg"] / row.loc["trec_eval", "ideal_dcg"]
    )
    assert row.loc["trec_eval", "ideal_dcg"] == printed("8.384")
    # the ideal of the retrieved documents leaves out the unretrieved grade 3: 3, 3, 2, 2, 1, 0
    assert row.loc["ideal_retrieved", "value"] > row.loc["trec_eval", "value"]
    assert row.loc["jk", "dcg"] == printed("8.097")
    assert row.loc["level_2", "value"] == row.loc["trec_eval", "value"]  # -l leaves nDCG alone
    assert "rel=2" in row.loc["level_2", "measure"]


@pytest.mark.skipif(not trec_eval_ref.BIN, reason=trec_eval_ref.REASON)
def test_the_level_rows_are_trec_eval_with_l(tmp_path):
    qrels, run = random_collection(4)
    qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]  # trec_eval 10.0 stops at a query the run lacks
    qpath, rpath = write_trec(qrels, run, tmp_path)
    prep = Prepared(qpath, rpath)
    for measure, family in (("map", "map"), ("P@5", "P_5"), ("ndcg_cut.10", "ndcg_cut_10")):
        t = prep.side_by_side(measure, "all")
        levels = t.loc[t["variant"].str.startswith("level_")]
        assert len(levels)
        for variant, value in zip(levels["variant"], levels["value"]):
            args = [trec_eval_ref.BIN, f"-l{variant.split('_')[1]}", "-m", measure.replace("P@5", "P.5"), qpath, rpath]
            out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
            assert out.split()[0] == family
            assert f"{value:.4f}" == out.split()[2], (measure, variant)


# ------------------------------------------------------------------ Explain's texts


def test_one_query_not_one_queries(tmp_path):
    qrels = qrels_frame([("a", "d1", 1), ("b", "d1", 1)])
    run = ranked({"a": ["d1", "d2"]})
    e = explain(qrels, run, "map", "all")
    assert "1 query evaluated" in e.summary
    assert "1 query of the qrels the run lacks is left out (with -c it would count)" in e.summary
    assert not any("1 queries" in s for s in e.summary)
    one = explain(qrels_frame([("a", "d1", 1)]), ranked({"a": ["d1"]}), "P@5", "a")
    assert "Only 1 document retrieved: the 4 missing ranks count as non-relevant" in one.summary
    assert (
        "R = 1 relevant judged document (grade >= 1), 0 of them never retrieved"
        in explain(qrels_frame([("a", "d1", 1)]), ranked({"a": ["d1"]}), "map", "a").summary
    )


# ------------------------------------------------------------------ the command line


def test_ir_eval_example_list(capsys):
    assert cli.main(["--example", "list"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == NAMES


def test_ir_eval_example_prints_the_numbers_side_by_side(capsys):
    assert cli.main(["--example", "interpolated-ap"]) == 0
    out = capsys.readouterr().out
    assert "| AP with interpolated precision | 1 | 0.675 | 0.675 | yes | 0.65 | 0.6500 |" in out
    assert "Conventions side by side: map, query 1" in out
    assert str(open_example("interpolated-ap").qrels_path) in out
    assert cli.main(["--example", "ndcg-gain"]) == 0
    out = capsys.readouterr().out
    assert "| nDCG@5, gain 2^g - 1 | 1 | 0.53 | 0.522501 | no | 0.850852 | 0.8509 |" in out
    assert "A slip in the text" in out


def test_ir_eval_example_json(capsys):
    assert cli.main(["--example", "ndcg-ideal", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "ndcg-ideal" and Path(data["qrels"]).is_file()
    ndcg = data["numbers"][-1]
    assert ndcg["printed"] == "81.96%" and ndcg["agrees"] is False and ndcg["trec_eval_prints"] == "0.8184"
    rows = data["conventions"][0]["rows"]
    assert rows[0]["variant"] == "trec_eval" and rows[0]["dcg"] == pytest.approx(6.861127, abs=1e-6)


def test_ir_eval_example_unknown(capsys):
    assert cli.main(["--example", "nope"]) == 1
    assert "no worked example 'nope'" in capsys.readouterr().err


def test_ir_eval_explain_conventions_keeps_trec_eval_line_last(capsys):
    ex = open_example("map")
    assert cli.main(["--explain", "map", "--query", "2", "--conventions", str(ex.qrels_path), str(ex.run_path)]) == 0
    out = capsys.readouterr().out
    assert "Conventions side by side: map, query 2" in out
    assert "| AP over the relevant documents retrieved | map_ext(over=retrieved) | 0.7556 |" in out
    assert out.rstrip("\n").splitlines()[-1] == "map                   \t2\t0.4533"
    args = ["--explain", "map", "--query", "all", "--conventions", "--format", "json"]
    assert cli.main([*args, str(ex.qrels_path), str(ex.run_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["variant"] for r in data["conventions_side_by_side"]] == ["trec_eval", "over_retrieved", "interpolated"]
