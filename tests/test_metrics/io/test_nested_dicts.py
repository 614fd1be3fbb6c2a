"""Dicts ``{qid: {docid: value}}`` go straight into numpy columns (metrics.io.nested): the same numbers as the
files they stand for, the same refusals; integer ids as their text; no pandas on the way."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import random_collection, write_trec

import metrics
from metrics.errors import InputError, NoSharedQueries
from metrics.io.nested import is_nested_run, nested_columns

MEASURES = ["official", "ndcg_cut.10", "P.5", "recall.100", "bpref", "infAP"]


def _nested(frame, value):
    out: dict = {}
    for q, d, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        out.setdefault(q, {})[d] = v
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dicts_give_the_files_numbers(tmp_path, seed):
    qrels, run = random_collection(seed)  # ties, negative grades, queries only on one side
    qpath, rpath = write_trec(qrels, run, tmp_path)
    expected = metrics.evaluate(qpath, rpath, MEASURES, complete=True)
    got = metrics.evaluate(_nested(qrels, "relevance"), _nested(run, "score"), MEASURES, complete=True)
    assert got.query_ids["run"] == expected.query_ids[expected.runs[0]]
    np.testing.assert_array_equal(got.results[0].values, expected.results[0].values)
    reused = metrics.evaluator(_nested(qrels, "relevance"), MEASURES, complete=True).evaluate(
        {"a": _nested(run, "score"), "b": _nested(run, "score")}
    )
    assert reused.runs == ["a", "b"]
    np.testing.assert_array_equal(reused.results[1].values, expected.results[0].values)


def test_integer_ids_unicode_and_empty_queries():
    qrels = {1: {10: 1, 11: 0}, "é": {"dé": 2}, "q": {}}
    run = {1: {10: 0.5, 12: 0.9}, "é": {"dé": 1.0, "x y": 2.0}, "empty": {}}
    cols = nested_columns(run, "run")
    assert cols.qid.tolist()[:2] == [b"1", b"1"] and cols.doc.tolist()[-1] == "x y".encode()
    ev = metrics.evaluate(qrels, run, ["map", "P.2"])
    assert ev.summary().loc["run", "map"] == pytest.approx((0.5 + 0.5) / 2)
    assert is_nested_run(run) and not is_nested_run({"a": run, "b": run})


@pytest.mark.parametrize(
    "qrels, run, message",
    [
        ({"q": {"d": 1}}, {"q": {"d": float("nan")}}, "found the score NaN"),
        ({"q": {"d": 1.5}}, {"q": {"d": 1.0}}, "found the grade 1.5"),
        ({"q": {"d": 1}}, {"q": {"d": "high"}}, "found the value 'high'"),
        ({"q": {"d": 1}}, {"q": {"d\0x": 1.0}}, "holds a NUL character"),
        ({"q": {"d": 1}}, {"q": {1: 1.0, "1": 2.0}}, "found document '1' twice for query 'q'"),
        ({1: {"d": 1}, "1": {"e": 1}}, {"q": {"d": 1.0}}, None),  # two queries of the same text, other documents
    ],
)
def test_bad_dicts_are_refused(qrels, run, message):
    if message is None:
        try:
            metrics.evaluate(qrels, run, ["map"])  # distinct pairs: fine
        except NoSharedQueries:  # read as distinct pairs, then refused for having no query in common
            pass
        return
    with pytest.raises(InputError, match=message):
        metrics.evaluate(qrels, run, ["map"])


def test_dicts_are_scored_without_pandas():
    code = (
        "import sys, metrics\n"
        "ev = metrics.evaluate({'q': {'a': 1}}, {'q': {'a': 2.0, 'b': 1.0}}, ['map', 'ndcg_cut.10'])\n"
        "print(ev.results[0].aggregates[0], 'pandas' in sys.modules, 'pyarrow' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1.0", "False", "False"]


def test_the_diversity_doors_take_dicts_too():
    import pandas as pd
    import ranx

    intents = pd.DataFrame(
        [("q", "1", "a", 1), ("q", "2", "b", 1)], columns=["query_id", "intent", "doc_id", "relevance"]
    )
    run = {"q": {"a": 1.0, "b": 0.5, "c": 2.0}}
    by_dict = metrics.evaluate_diversity(intents, run, ["alpha_nDCG@3", "NRBP"]).summary()
    by_ranx = metrics.evaluate_diversity(intents, ranx.Run(run, name="r"), ["alpha_nDCG@3", "NRBP"]).summary()
    np.testing.assert_array_equal(by_dict.to_numpy(), by_ranx.to_numpy())
    assert list(by_ranx.index) == ["r"]
    from metrics.explain import explain_diversity

    assert explain_diversity(intents, run, "NRBP", "q").explained
