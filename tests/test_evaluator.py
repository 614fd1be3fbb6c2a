"""The reusable evaluator: qrels encoded once, the same numbers as evaluate, call after call."""

from __future__ import annotations

import pandas as pd
from conftest import random_collection

import metrics


def test_evaluator_gives_evaluates_numbers_for_every_run_and_call():
    qrels, run_a = random_collection(1)
    _, run_b = random_collection(2)
    ev = metrics.evaluator(qrels, ["map", "P.5,10", "ndcg_cut.10", "bpref"], relevance_level=1)
    encoded = ev.qrels
    for _ in range(2):
        got = ev.evaluate({"a": run_a, "b": run_b})
        expected = metrics.evaluate(qrels, {"a": run_a, "b": run_b}, ["map", "P.5,10", "ndcg_cut.10", "bpref"])
        pd.testing.assert_frame_equal(got.per_query, expected.per_query)
        pd.testing.assert_frame_equal(got.aggregate, expected.aggregate)
    assert ev.qrels is encoded  # encoded once, reused


def test_evaluator_keeps_the_options():
    qrels, run = random_collection(3)
    ev = metrics.evaluator(qrels, "official", complete=True, max_docs=5)
    expected = metrics.evaluate(qrels, run, "official", complete=True, max_docs=5)
    pd.testing.assert_frame_equal(ev.evaluate(run).aggregate, expected.aggregate)
