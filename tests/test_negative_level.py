"""A negative relevance level (-l -1, -l -2): trec_eval counts only judged
documents in num_rel_ret, while its per-rank loops take every code >= the
level (documents outside the qrels too) as relevant."""

from __future__ import annotations

import os
import subprocess

import pytest

import metrics

from conftest import random_collection, write_trec

TREC_EVAL_BIN = os.environ.get("TREC_EVAL_BIN")

# measures that follow num_rel_ret or the per-rank loops; bpref, infAP,
# iprec_at_recall, 11pt_avg and Rprec_mult have their own rules at negative
# levels and are not matched yet
MEASURES = ["num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall", "set_F",
            "set_map", "set_relative_P", "utility", "P.5,10", "recall.5,10", "map", "Rprec",
            "recip_rank", "ndcg", "success.5"]


@pytest.mark.skipif(not TREC_EVAL_BIN, reason="TREC_EVAL_BIN (trec_eval 10.0 binary) not set")
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", [-1, -2])
def test_negative_level_matches_trec_eval_10_binary(seed, level, tmp_path):
    qrels, run = random_collection(seed, n_queries=12, n_docs=60, depth=50)
    qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]
    qpath, rpath = write_trec(qrels, run, tmp_path)
    args = [TREC_EVAL_BIN, "-q", f"-l{level}", *[a for m in MEASURES for a in ("-m", m)],
            qpath, rpath]
    expected = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    ev = metrics.evaluate(qrels, run, metrics.parse_measures(MEASURES, trec_rules=True),
                          relevance_level=level)
    assert ev.trec_lines(queries=True) == expected
