"""``ir-eval --explain``: the seeds' worked examples reproduced through the command line, the JSON
rows, and clear errors."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest

from metrics.cli import ir_eval as cli
from tests.conftest import write_trec
from tests.test_metrics.measures.test_worked_examples import graded, qrels_frame, ranked


def printed(text: str):
    decimals = -Decimal(text).as_tuple().exponent
    return pytest.approx(float(text), abs=0.5 * 10.0**-decimals)


def files(tmp_path, qrels, run):
    return write_trec(qrels, run, tmp_path)


def explain(paths, measure, query, capsys, *options):
    code = cli.main(["--explain", measure, "--query", query, *options, *map(str, paths)])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(paths, measure, query, capsys, *options) -> dict:
    code, out, err = explain(paths, measure, query, capsys, "--format", "json", *options)
    assert code == 0, err
    return json.loads(out)


def q_line(paths, measure, query, capsys, *options) -> str:
    assert cli.main(["-q", "-m", measure, *options, *map(str, paths)]) == 0
    out = capsys.readouterr().out
    return next(line for line in out.splitlines() if line.split("\t")[1] == query)


@pytest.fixture
def two_topics(tmp_path):
    qrels = qrels_frame(
        [("t1", f"r{i}", 1) for i in range(1, 5)]
        + [("t1", f"n{i}", 0) for i in range(1, 7)]
        + [("t2", f"r{i}", 1) for i in range(1, 6)]
        + [("t2", f"n{i}", 0) for i in range(1, 7)]
    )
    run = ranked(
        {
            "t1": ["r1", "r2", "n1", "r3", "n2", "n3", "r4", "n4", "n5", "n6"],
            "t2": ["r1", "n1", "r2", "n2", "r3", "n3", "n4", "n5", "n6"],
        }
    )
    return files(tmp_path, qrels, run)


def test_average_precision_of_two_topics(two_topics, capsys):
    """Topic 1: relevant at ranks 1, 2, 4 and 7 of 4: AP = (1/1 + 2/2 + 3/4 + 4/7) / 4 = 0.83;
    topic 2: ranks 1, 3, 5 of 5 relevant, 2 never retrieved: 0.45."""
    code, out, err = explain(two_topics, "map", "t1", capsys)
    assert code == 0 and not err
    assert "AP = (1/1 + 2/2 + 3/4 + 4/7) / 4 = 3.3214 / 4 = 0.8304" in out
    assert "| 7 | r4 | 1 | 4 | 4/7 | 0.5714 | 3.3214 |" in out
    assert out.splitlines()[-1] == q_line(two_topics, "map", "t1", capsys) == "map                   \tt1\t0.8304"
    data = as_json(two_topics, "AP", "t2", capsys)
    assert [r["rank"] for r in data["rows"]] == [1, 3, 5]
    assert [r["precision"] for r in data["rows"]] == ["1/1", "2/3", "3/5"]
    assert data["value"] == printed("0.45") and data["measure"] == "map" and data["asked"] == "AP"
    assert any("5 relevant judged documents" in s and "2 of them never retrieved" in s for s in data["summary"])
    data = as_json(two_topics, "map", "all", capsys)
    assert [r["value"] for r in data["rows"]] == [printed("0.8304"), printed("0.4533")]
    assert data["value"] == printed("0.6418")


def test_mean_reciprocal_rank(tmp_path, capsys):
    """RR 1/4, 0, 0, 1/5 over four queries: MRR = 0.1125."""
    qrels = qrels_frame([(q, "rel", 1) for q in ("a", "b", "c", "d")])
    other = [f"n{i}" for i in range(6)]
    run = ranked({"a": other[:3] + ["rel"] + other[3:], "b": other, "c": other[:2], "d": other[:4] + ["rel"]})
    paths = files(tmp_path, qrels, run)
    data = as_json(paths, "RR", "all", capsys)
    assert [r["value"] for r in data["rows"]] == [0.25, 0.0, 0.0, 0.2]
    assert data["value"] == printed("0.1125")
    code, out, _ = explain(paths, "MRR", "a", capsys)
    assert "First relevant document rel at rank 4: RR = 1/4 = 0.2500" in out
    assert out.splitlines()[-1] == "recip_rank            \ta\t0.2500"
    code, out, _ = explain(paths, "recip_rank", "b", capsys)
    assert "No relevant document among the 6 retrieved: RR = 0" in out


def _table(data, i) -> list[dict]:
    return data["tables"][i]["rows"]


def test_dcg_tables_with_both_discounts(tmp_path, capsys):
    """Grades 3,2,3,0,1,2.  log2(i) (Järvelin-Kekäläinen, base 2): DCG 8.10, IDCG 8.69, nDCG 0.932.
    log2(i + 1) with two more judged documents (grades 3, 0): DCG 6.86, IDCG 8.38 (8.37 in texts that
    round every term first), nDCG@6 0.82."""
    qrels, run = graded([3, 2, 3, 0, 1, 2])
    (tmp_path / "six").mkdir()
    paths = files(tmp_path / "six", qrels, run)
    data = as_json(paths, "nDCG(discount=jk,base=2)@6", "q", capsys)
    rows, ideal = _table(data, 0), _table(data, 1)
    assert [r["discount"] for r in rows[:2]] == [1.0, 1.0] and rows[2]["discount"] == np.log2(3)
    assert rows[-1]["running DCG"] == printed("8.10") and ideal[-1]["running IDCG"] == printed("8.69")
    assert [r["grade"] for r in ideal] == [3, 3, 2, 2, 1, 0][:5]  # grade 0 gains nothing: not in the ideal
    assert data["value"] == printed("0.932")
    assert data["line"] == "ndcg_ext_6            \tq\t0.9315"

    qrels8, _ = graded([3, 2, 3, 0, 1, 2], extra={"x1": 3, "x2": 0})
    paths = files(tmp_path, qrels8, run)
    code, out, _ = explain(paths, "nDCG@6", "q", capsys)
    assert "DCG@6 = 6.8611" in out and "IDCG@6 = 8.3841" in out and "nDCG@6 = 6.8611 / 8.3841 = 0.8184" in out
    assert "| 3 | x1 | 3 | 3.0000 | 2.0000 | 1.5000 | 6.3928 |" in out  # the ideal's third: x1, not retrieved
    assert out.splitlines()[-1] == q_line(paths, "ndcg_cut.6", "q", capsys)
    data = as_json(paths, "ndcg_cut_6", "q", capsys)
    assert [r["rank"] for r in data["rows"]] == [1, 2, 3, 4, 5, 6]
    assert [round(r["contribution"], 2) for r in data["rows"]] == [3.0, 1.26, 1.5, 0.0, 0.39, 0.71]


def test_ndcg_at_5_with_linear_and_exponential_gain(tmp_path, capsys):
    """Grades 7,2,5,10,1: nDCG@5 0.85 with the grade as gain, 0.52 with 2^grade - 1
    (DCG 585.36 over IDCG 1120.31)."""
    qrels, run = graded([7, 2, 5, 10, 1])
    paths = files(tmp_path, qrels, run)
    data = as_json(paths, "nDCG@5", "q", capsys)
    assert data["value"] == printed("0.8509")
    data = as_json(paths, "nDCG(gain=exp)@5", "q", capsys)
    rows, ideal = _table(data, 0), _table(data, 1)
    assert [r["gain"] for r in rows] == [127.0, 3.0, 31.0, 1023.0, 1.0]
    assert rows[-1]["running DCG"] == printed("585.36") and ideal[-1]["running IDCG"] == printed("1120.31")
    assert data["value"] == printed("0.5225")
    assert any("2^grade - 1" in c for c in data["conventions"])


def test_options_are_honoured_and_the_last_line_is_ir_eval_q(tmp_path, capsys):
    qrels = qrels_frame([("q", "a", 2), ("q", "b", 1), ("q", "c", -1), ("q", "d", 0), ("p", "z", 1)])
    run = ranked({"q": ["c", "x", "b", "a", "d"]})
    paths = files(tmp_path, qrels, run)
    for options in ([], ["-l", "2"], ["-J"], ["-M", "3"], ["-c"], ["-c", "-l", "2", "-M", "2"]):
        for measure in ("map", "P.5", "bpref", "infAP", "ndcg_cut.5", "Rprec"):
            code, out, err = explain(paths, measure, "q", capsys, *options)
            assert code == 0, err
            assert out.splitlines()[-1] == q_line(paths, measure, "q", capsys, *options), (measure, options)
    code, out, _ = explain(paths, "map", "p", capsys, "-c")
    assert (
        "ceci_nest_pas_un_docno" not in out.split("\n\n")[0]
        and out.splitlines()[-1] == "map                   \tp\t0.0000"
    )
    code, out, _ = explain(paths, "map", "all", capsys, "-c")
    assert "not in the run" in out and "-c: the mean is over all 2 queries" in out


def test_gain_curve_on_the_command_line(tmp_path, capsys):
    qrels, run = graded([3, 2, 3, 0, 1, 2], extra={"x1": 3})
    paths = files(tmp_path, qrels, run)
    data = as_json(paths, "ndcg_cut.6", "q", capsys, "--gain-curve")
    curve = data["gain_curve"]
    assert curve["k"] == [1, 2, 3, 4, 5, 6] and curve["dcg"][-1] == printed("6.861")
    assert {m["docid"]: m["ideal_rank"] for m in curve["relevant"]}["x1"] == 3
    code, out, _ = explain(paths, "ndcg_cut.6", "q", capsys, "--gain-curve", "--depth", "3")
    assert "| 3 | 5.7619 | 6.3928 |" in out and out.splitlines()[-1].startswith("ndcg_cut_6")


def test_errors_are_one_line(two_topics, capsys):
    code, out, err = explain(two_topics, "map", "t9", capsys)
    assert (
        code == 1 and not out and err == "ir-eval: query 't9' is not evaluated for this run: it is not in the qrels\n"
    )
    code, out, err = explain(two_topics, "nonsense", "t1", capsys)
    assert code == 1 and err == "ir-eval: unknown measure 'nonsense'\n"
    code, out, err = explain(two_topics, "P", "t1", capsys)
    assert code == 1 and "explain one at a time" in err and "Traceback" not in err
    code, out, err = explain(two_topics, "gm_map", "t1", capsys)
    assert code == 0 and "Not explained: gm_map cannot be explained yet" in out
    code, out, err = explain(["missing.txt", two_topics[1]], "map", "t1", capsys)
    assert code == 2 and "missing.txt" in err and "Traceback" not in err
