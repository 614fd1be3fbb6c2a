"""rbp with gains outside [0, 1]: trec_eval rescales only the codes of its
gain table; documents outside the qrels keep gain 0."""

from __future__ import annotations

import subprocess

import pytest
import trec_eval_ref
from conftest import qrels_frame, random_collection, run_frame, write_trec

import metrics

TREC_EVAL_BIN = trec_eval_ref.BIN


def test_unjudged_documents_keep_gain_zero_when_gains_are_rescaled():
    # grades 0..2 with grade 1 given gain -2: table gains {0, -2, 2}, rescaled
    # to {0.5, 0, 1}; the retrieved document outside the qrels gains 0
    qrels = qrels_frame([("q", "a", 2), ("q", "b", 1), ("q", "c", 0)])
    run = run_frame([("q", "x", 4.0), ("q", "a", 3.0), ("q", "c", 2.0), ("q", "b", 1.0)])
    ev = metrics.evaluate(qrels, run, "rbp.1=-2")
    p = 0.9
    expected = (1 - p) * (1.0 * p + 0.5 * p**2 + 0.0 * p**3)
    assert ev.per_query["value"].iloc[0] == pytest.approx(expected, abs=1e-15)


@pytest.mark.skipif(not TREC_EVAL_BIN, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("spec", ["rbp.1=-2", "rbp.0=-1,p=0.7", "rbp.-1=-0.5,3=4", "rbp.-2=1,1=-1", "rbp.-1=0.5,2=3"])
def test_rescaled_rbp_matches_trec_eval_10_binary(seed, spec, tmp_path):
    qrels, run = random_collection(seed, n_queries=12, n_docs=60, depth=50)
    qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]
    qpath, rpath = write_trec(qrels, run, tmp_path)
    args = [TREC_EVAL_BIN, "-q", "-m", spec, qpath, rpath]
    expected = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    ev = metrics.evaluate(qrels, run, metrics.parse_measures([spec], trec_rules=True))
    assert ev.trec_lines(queries=True) == expected
