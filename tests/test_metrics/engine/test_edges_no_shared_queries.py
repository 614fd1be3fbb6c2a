"""No query in common between the qrels and the run(s): ``metrics.evaluate`` raises the library's input
error (as ``ir-eval`` exits with 2 for it), not num_q 0 and map 0.0000 with a line in ``.warnings``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import metrics
from metrics.errors import InputError, NoSharedQueries

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
RUN = {"x1": {"a": 1.0}, "x2": {"c": 0.5}}


def test_evaluate_raises_the_input_error():
    with pytest.raises(InputError, match="no queries with both results and relevance info") as told:
        metrics.evaluate(QRELS, RUN, ["map", "num_q"])
    assert isinstance(told.value, NoSharedQueries)
    ev = told.value.evaluation  # what was computed, for whoever wants to look
    assert ev.query_ids["run"] == [] and any("without results skipped" in w for w in ev.warnings)


def test_the_evaluator_raises_it_too():
    with pytest.raises(NoSharedQueries):
        metrics.evaluator(QRELS, ["map"]).evaluate(RUN)


def test_one_run_with_queries_among_several_is_scored():
    ev = metrics.evaluate(QRELS, {"none": RUN, "some": {"q1": {"a": 1.0}}}, ["map", "num_q"])
    assert ev.summary().loc["some", "num_q"] == 1 and ev.summary().loc["none", "num_q"] == 0
    assert any("no queries with both results" in w for w in ev.warnings)


def test_complete_scores_every_qrels_query():
    ev = metrics.evaluate(QRELS, RUN, ["map", "num_q"], complete=True)
    assert ev.summary().loc["run", "num_q"] == 2 and ev.summary().loc["run", "map"] == 0


def test_ir_eval_exits_with_2(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 c 1\n")
    (tmp_path / "run").write_text("x1 Q0 a 1 1.0 t\n")
    done = subprocess.run(
        [sys.executable, "-m", "metrics", str(tmp_path / "qrels"), str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.endswith("ir-eval: no queries with both results and relevance info\n")
