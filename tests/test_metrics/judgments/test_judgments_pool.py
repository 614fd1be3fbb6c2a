"""metrics.judgments.leave_one_out against leave-one-out written out here: the pool of the first
``depth`` documents in trec_eval's order, each group's own relevant documents taken out of the qrels,
the run scored again (metrics.evaluate, and trec_eval itself where it is built)."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest
from judgments_data import collection_of, write_qrels, write_run

from metrics import evaluate
from metrics.errors import Cancelled
from metrics.judgments import leave_one_out
from tests.trec_eval_ref import BIN, REASON


@pytest.fixture
def collection():
    """The generated collection of tests/judgments_data.py."""
    return collection_of()


def trec_top(run: pd.DataFrame, depth: int) -> set:
    """The (query, doc) pairs of the first ``depth`` of each query: score highest first, a tie by doc id
    in reverse byte order (trec_eval's)."""
    out = set()
    for qid, part in run.groupby("query_id"):
        rows = sorted(zip(part["score"], part["doc_id"]), key=lambda r: (r[0], r[1].encode()), reverse=True)
        out |= {(qid, doc) for _, doc in rows[:depth]}
    return out


def by_hand(runs: dict, qrels: pd.DataFrame, depth: int, group_of) -> dict:
    relevant = {(q, d) for q, d, g in qrels.itertuples(index=False) if g >= 1}
    tops = {name: trec_top(run, depth) & relevant for name, run in runs.items()}
    groups = {group_of(n) for n in runs}
    out = {}
    for g in groups:
        mine = set().union(*(tops[n] for n in runs if group_of(n) == g))
        others = set().union(*(tops[n] for n in runs if group_of(n) != g))
        own = mine - others
        keep = [(q, d) not in own for q, d in zip(qrels["query_id"], qrels["doc_id"])]
        reduced = qrels[keep]
        for n in runs:
            if group_of(n) == g:
                value = evaluate(reduced, {n: runs[n]}, ["map"]).summary().loc[n, "map"]
                out[n] = (value, len(own), len(tops[n] & own), reduced)
    return out


@pytest.mark.parametrize("grouped", [False, True])
def test_against_leave_one_out_written_out(collection, grouped):
    qrels, _, runs = collection
    group_of = (lambda n: n.split("_")[0]) if grouped else (lambda n: n)
    found = leave_one_out(runs, qrels, "map", depth=20, groups=group_of if grouped else None).runs.set_index("run")
    expected = by_hand(runs, qrels, 20, group_of)
    full = evaluate(qrels, runs, ["map", "Judged@10"]).summary()
    for n in runs:
        value, removed, unique, _ = expected[n]
        assert found.loc[n, "score_loo"] == pytest.approx(value, abs=1e-12)
        assert (found.loc[n, "removed"], found.loc[n, "unique_relevant"]) == (removed, unique)
        assert found.loc[n, "score"] == pytest.approx(full.loc[n, "map"], abs=1e-12)
        assert found.loc[n, "Judged@10"] == pytest.approx(full.loc[n, "Judged@10"], abs=1e-12)
        others = full["map"].drop(n)
        assert found.loc[n, "rank_loo"] == 1 + int((others > value).sum())
        assert found.loc[n, "change"] == pytest.approx(value - full.loc[n, "map"], abs=1e-12)
    assert (found["removed"] > 0).all()


def test_groups_as_a_dict_equal_the_prefix_function(collection):
    qrels, _, runs = collection
    as_dict = leave_one_out(runs, qrels, depth=15, groups={n: n.split("_")[0] for n in runs}).runs
    as_function = leave_one_out(runs, qrels, depth=15, groups=lambda n: n.split("_")[0]).runs
    pd.testing.assert_frame_equal(as_dict, as_function)


@pytest.mark.skipif(BIN is None, reason=REASON)
def test_one_run_against_trec_eval(collection, tmp_path):
    qrels, _, runs = collection
    name = "team1_a"
    value, _, _, reduced = by_hand(runs, qrels, 20, lambda n: n)[name]
    reduced = reduced[reduced["query_id"].isin(set(runs[name]["query_id"]))]  # trec_eval 10.0 aborts otherwise
    out = subprocess.run(
        [
            BIN,
            "-m",
            "map",
            write_qrels(tmp_path / "q.txt", reduced),
            write_run(tmp_path / "r.txt", runs[name]),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = leave_one_out(runs, qrels, depth=20).runs.set_index("run")
    assert abs(found.loc[name, "score_loo"] - float(out.split()[-1])) < 5e-5
    assert round(found.loc[name, "score_loo"], 4) == float(out.split()[-1])


def test_one_run_and_cancel(collection):
    qrels, _, runs = collection
    one = {"team0_a": runs["team0_a"]}
    found = leave_one_out(one, qrels, depth=10)
    assert found.notes and found.runs.loc[0, "rank_loo"] == 1
    assert np.isfinite(found.runs.loc[0, "score_loo"])
    with pytest.raises(Cancelled):
        leave_one_out(runs, qrels, progress=lambda f: f < 0.3)
