"""``ir-eval``: output formats, several runs, comparisons, exit codes and errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

import metrics
from metrics.cli import ir_eval as cli

QRELS = """\
q1 0 d1 1
q1 0 d2 0
q1 0 d3 2
q2 0 d4 1
q2 0 d5 1
q3 0 d9 1
"""

RUN_A = """\
q1 Q0 d1 1 3.0 runA
q1 Q0 d2 2 2.0 runA
q1 Q0 d7 3 1.0 runA
q2 Q0 d5 1 5.0 runA
q2 Q0 d8 2 4.0 runA
q2 Q0 d4 3 3.0 runA
"""

RUN_B = """\
q1 Q0 d3 1 9.0 runB
q1 Q0 d1 2 8.0 runB
q2 Q0 d8 1 5.0 runB
q2 Q0 d4 2 4.0 runB
"""


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"qrels": QRELS, "a": RUN_A, "b": RUN_B}.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text)
    return paths


def run_cli(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_trec_output_matches_evaluate(files, capsys):
    code, out, err = run_cli(["-m", "map", "-m", "P.1,2", files["qrels"], files["a"]], capsys)
    assert code == 0
    ev = metrics.evaluate(metrics.read_qrels(files["qrels"]), metrics.read_run(files["a"]), ["map", "P.1,2"])
    expected = {m: v for m, v in zip(ev.aggregate["measure"], ev.aggregate["value"])}
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0].strip() for r in rows] == ["map", "P_1", "P_2"]
    for name, qid, value in rows:
        assert qid == "all"
        assert value == f"{expected[name.strip()]:6.4f}"
    # q3 is judged but not retrieved: skipped with a warning (trec_eval 9.x rule)
    assert "q3" in err and "warning" in err


def test_complete_counts_missing_query(files, capsys):
    _, out, _ = run_cli(["-c", "-m", "num_q", files["qrels"], files["a"]], capsys)
    assert out == "num_q                 \tall\t3\n"
    _, out, _ = run_cli(["-m", "num_q", files["qrels"], files["a"]], capsys)
    assert out == "num_q                 \tall\t2\n"


def test_several_runs_one_block_each(files, capsys):
    code, out, _ = run_cli(["-m", "runid", "-m", "map", files["qrels"], files["a"], files["b"]], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "runid                 \tall\trunA"
    assert lines[2] == "runid                 \tall\trunB"
    assert lines[1].startswith("map") and lines[3].startswith("map")


def test_csv_full_precision(files, capsys):
    _, out, _ = run_cli(["--format", "csv", "-q", "-m", "map", files["qrels"], files["a"]], capsys)
    table = pd.read_csv(io.StringIO(out), dtype={"query_id": str})
    ev = metrics.evaluate(metrics.read_qrels(files["qrels"]), metrics.read_run(files["a"]), "map")
    per_q = dict(zip(ev.per_query["query_id"], ev.per_query["value"]))
    for q, v in zip(table["query_id"], table["value"]):
        if q == "all":
            assert v == ev.aggregate["value"].iloc[0]
        else:
            assert v == per_q[q]  # exact, not rounded


def test_json_output(files, capsys):
    _, out, _ = run_cli(["--format", "json", "-q", "-m", "P.1", files["qrels"], files["a"], files["b"]], capsys)
    doc = json.loads(out)
    assert set(doc["runs"]) == {"runA", "runB"}
    assert doc["runs"]["runA"]["queries"]["q1"]["P_1"] == 1.0
    assert doc["runs"]["runB"]["queries"]["q2"]["P_1"] == 0.0
    assert doc["runs"]["runB"]["all"]["P_1"] == 0.5


def test_no_summary_flag(files, capsys):
    _, out, _ = run_cli(["-n", "-q", "-m", "P.1", files["qrels"], files["a"]], capsys)
    assert [line.split("\t")[1] for line in out.splitlines()] == ["q1", "q2"]


def test_compare_prints_table(files, capsys):
    code, out, _ = run_cli(
        ["--compare", files["a"], "-m", "P.1", "-m", "map", files["qrels"], files["a"], files["b"]], capsys
    )
    assert code == 0
    assert "runB" in out and "P_1" in out
    assert "holm" in out.lower()


def test_compare_unknown_baseline(files, capsys):
    code, _, err = run_cli(["--compare", "nope", files["qrels"], files["a"], files["b"]], capsys)
    assert code == cli.EXIT_USAGE
    assert "nope" in err


def test_bad_run_names_file_and_line(files, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 3.0 x\nq1 Q0 d2 2 high x\n")
    code, out, err = run_cli([files["qrels"], bad], capsys)
    assert code == cli.EXIT_INPUT
    assert out == ""
    assert "bad.txt" in err and "line 2" in err


def test_qrels_given_as_run(files, capsys):
    code, _, err = run_cli([files["qrels"], files["qrels"]], capsys)
    assert code == cli.EXIT_INPUT
    assert "qrels" in err


def test_unknown_measure_is_usage_error(files, capsys):
    code, _, err = run_cli(["-m", "nonsense_measure", files["qrels"], files["a"]], capsys)
    assert code == cli.EXIT_USAGE
    assert "nonsense_measure" in err


def test_missing_file(files, tmp_path, capsys):
    code, _, err = run_cli([files["qrels"], tmp_path / "absent.txt"], capsys)
    assert code == cli.EXIT_INPUT
    assert "absent.txt" in err


def test_run_from_stdin(files):
    proc = subprocess.run(
        [sys.executable, "-m", "metrics.cli.ir_eval", "-m", "P.1", str(files["qrels"]), "-"],
        input=RUN_A.encode(),
        capture_output=True,
        check=True,
    )
    assert proc.stdout.decode() == "P_1                   \tall\t1.0000\n"


def test_runid_is_the_last_lines_tag_as_in_trec_eval(files, tmp_path, capsys):
    """trec_eval keeps the run_id of the last line read (get_trec_results.c)."""
    mixed = tmp_path / "mixed.txt"
    mixed.write_text(RUN_A.replace("q2 Q0 d4 3 3.0 runA", "q2 Q0 d4 3 3.0 other"))
    code, out, _ = run_cli(["-m", "runid", files["qrels"], mixed], capsys)
    assert code == 0
    assert out == "runid                 \tall\tother\n"
    run = metrics.read_run(mixed)
    assert run.attrs["name"] == "runA"  # the label shown for the run
    assert run.attrs["run_id"] == "other"


def test_ranked_judgments_are_scored_in_line_order_only_when_asked(files, tmp_path, capsys):
    ranked = tmp_path / "ranked.txt"
    ranked.write_text("q1 Q0 d3 2\nq1 Q0 d1 1\nq1 Q0 d2 0\nq2 Q0 d5 1\n")  # best first, as listed
    code, out, err = run_cli(["-m", "P.1", "-m", "recip_rank", files["qrels"], ranked], capsys)
    assert code == 2 and "ranked-judgments" in err and "add --ranked" in err
    code, out, err = run_cli(["-m", "P.1", "-m", "recip_rank", "--ranked", files["qrels"], ranked], capsys)
    assert code == 0
    # same as a run listing d3, d1, d2 for q1 and d5 for q2 with falling scores
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d3 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d2 3 1 r\nq2 Q0 d5 1 1 r\n")
    code2, expected, _ = run_cli(["-m", "P.1", "-m", "recip_rank", files["qrels"], run], capsys)
    assert code2 == 0 and out == expected
