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


def test_a_run_read_for_scoring_is_let_go_before_its_measures_are_computed(tmp_path):
    """Only the judged ranking is in memory while the measures are computed: the run's columns (and
    their arrays) are gone, whoever yielded them."""
    import weakref

    from conftest import write_trec

    from metrics.engine.evaluate import _evaluate, encoded
    from metrics.engine.settings import Settings
    from metrics.io.columns import read_columns
    from metrics.measures import parse_measures

    qrels, run = random_collection(3)
    qpath, rpath = write_trec(qrels, run, tmp_path)
    refs: list = []

    def tracked(cols):
        refs.append([weakref.ref(x) for x in (cols, cols.qid, cols.doc, cols.value, cols.pair_keys())])
        return cols

    def runs():
        for _ in range(2):
            yield tracked(read_columns(rpath, "run"))

    gone: list = []  # at each run's callback: whether its columns and their arrays are gone

    def check(label, ranking):
        gone.append([ref() is None for ref in refs[-1]])

    _evaluate(encoded(qpath), runs(), parse_measures(["map"]), {}, Settings(), also=check)
    assert gone == [[True] * 5, [True] * 5]
