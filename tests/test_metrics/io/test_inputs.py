"""Qrels and runs as users already hold them: dicts, records, PyTerrier and ranx frames, ranx objects."""

from __future__ import annotations

import collections

import pandas as pd
import pytest
from conftest import random_collection

import metrics
from metrics.errors import InputError


@pytest.fixture
def collection():
    qrels, run = random_collection(4)
    qrels = qrels[qrels["relevance"] >= 0].reset_index(drop=True)
    return qrels, run, metrics.evaluate(qrels, run, ["map", "P.10", "ndcg_cut.10"]).aggregate


def _nested(frame, value):
    out = {}
    for q, d, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        out.setdefault(q, {})[d] = v
    return out


def test_dicts_of_dicts_as_pytrec_eval_and_ranx_hold_them(collection):
    qrels, run, expected = collection
    got = metrics.evaluate(_nested(qrels, "relevance"), _nested(run, "score"), ["map", "P.10", "ndcg_cut.10"])
    pd.testing.assert_frame_equal(got.aggregate.drop(columns="run"), expected.drop(columns="run"))


def test_records_as_ir_measures_and_ir_datasets_give_them_lazily(collection):
    qrels, run, expected = collection
    Qrel = collections.namedtuple("Qrel", "query_id doc_id relevance iteration")
    ScoredDoc = collections.namedtuple("ScoredDoc", "query_id doc_id score")
    consumed = []

    def scored():
        for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]):
            consumed.append(q)
            yield ScoredDoc(q, d, s)

    records = (Qrel(q, d, g, "0") for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]))
    lazy = scored()
    assert not consumed  # nothing read until evaluated
    got = metrics.evaluate(records, lazy, ["map", "P.10", "ndcg_cut.10"])
    pd.testing.assert_frame_equal(got.aggregate.drop(columns="run"), expected.drop(columns="run"))


def test_pyterrier_and_ranx_frames_with_integer_ids():
    qrels = pd.DataFrame({"qid": [1, 1, 2], "docno": [10, 11, 20], "label": [1, 0, 2]})
    run = pd.DataFrame({"qid": [1, 1, 2], "docno": [11, 10, 20], "score": [2.0, 1.0, 5.0], "rank": [0, 1, 0]})
    ranx_run = pd.DataFrame({"q_id": ["1", "1", "2"], "doc_id": ["11", "10", "20"], "score": [2.0, 1.0, 5.0]})
    a = metrics.evaluate(qrels, run, ["recip_rank"]).aggregate["value"].tolist()
    b = metrics.evaluate(qrels, ranx_run, ["recip_rank"]).aggregate["value"].tolist()
    assert a == b == [pytest.approx((0.5 + 1.0) / 2)]
    assert list(metrics.read_qrels(qrels).columns) == ["query_id", "doc_id", "relevance"]


def test_ranx_objects_where_installed(collection):
    ranx = pytest.importorskip("ranx")
    qrels, run, expected = collection
    q = ranx.Qrels({k: {d: int(v) for d, v in docs.items()} for k, docs in _nested(qrels, "relevance").items()})
    r = ranx.Run(_nested(run, "score"))
    got = metrics.evaluate(q, r, ["map", "P.10", "ndcg_cut.10"])
    pd.testing.assert_frame_equal(got.aggregate.drop(columns="run"), expected.drop(columns="run"), check_exact=False)


def test_an_unknown_form_names_the_forms_accepted():
    with pytest.raises(InputError) as info:
        metrics.read_qrels(42)
    assert "cannot read qrels from a int" in str(info.value) and "{qid: {docid: grade}}" in str(info.value)
    with pytest.raises(InputError, match="a ranx Run"):
        metrics.read_run(3.5)


@pytest.mark.parametrize("suffix", [".txt", ".gz"])
def test_a_run_written_in_python_reads_back_and_scores_the_same(collection, tmp_path, suffix):
    qrels, run, expected = collection
    path = tmp_path / f"fused{suffix}"
    metrics.write_run(_nested(run, "score"), path, tag="fused")
    qpath = metrics.write_qrels(qrels, tmp_path / f"qrels{suffix}")
    back = metrics.read_run(path)
    assert back.attrs["name"] == "fused" and len(back) == len(run)
    got = metrics.evaluate(metrics.read_qrels(qpath), back, ["map", "P.10", "ndcg_cut.10"])
    pd.testing.assert_frame_equal(got.aggregate.drop(columns="run"), expected.drop(columns="run"))
    first = (path.read_bytes() if suffix == ".txt" else __import__("gzip").decompress(path.read_bytes())).split(b"\n")[
        0
    ]
    assert first.split()[1] == b"Q0" and first.split()[3] == b"1"
    with pytest.raises(FileExistsError):
        metrics.write_run(run, path)
