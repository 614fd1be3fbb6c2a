"""A negative relevance level (-l -1, -l -2): trec_eval counts only judged
documents in num_rel_ret, its per-rank loops take every code >= the level
(documents outside the qrels too) as relevant, and bpref/infAP skip the
documents outside the qrels before looking at the level."""

from __future__ import annotations

import subprocess

import pytest
import trec_eval_ref
from conftest import random_collection, write_trec

import metrics

TREC_EVAL_BIN = trec_eval_ref.BIN

MEASURES = ["all_trec", "Rprec_mult.0.3,0.7,1.5", "iprec_at_recall.0.15,0.55", "ndcg.-1=1"]


@pytest.mark.skipif(not TREC_EVAL_BIN, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", [-1, -2])
@pytest.mark.parametrize("flags, options", [([], {}), (["-c"], {"complete": True}), (["-J"], {"judged_only": True})])
def test_negative_level_matches_trec_eval_10_binary(seed, level, flags, options, tmp_path):
    qrels, run = random_collection(seed, n_queries=12, n_docs=60, depth=50)
    if not options.get("complete"):
        qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]
    qpath, rpath = write_trec(qrels, run, tmp_path)
    args = [TREC_EVAL_BIN, "-q", f"-l{level}", *flags, *[a for m in MEASURES for a in ("-m", m)], qpath, rpath]
    expected = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    ev = metrics.evaluate(
        qrels, run, metrics.parse_measures(MEASURES, trec_rules=True), relevance_level=level, **options
    )
    assert ev.trec_lines(queries=True) == expected
