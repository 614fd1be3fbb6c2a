"""The judged ranking does not depend on how a run is laid out: id columns
in one or many arrow chunks, query blocks in any order, lines in any order.
And the block-wise segment kernels equal plain left-to-right sums."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import trec_eval_ref
from conftest import random_collection, run_frame, write_trec

import metrics
from metrics.measures import _kernels
from metrics.ranking import judged as ranking
from metrics.ranking import qrels_index
from metrics.ranking.judged import build_ranking

RANK_ARRAYS = (
    "offsets",
    "rel",
    "qidx",
    "rank",
    "relcum",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonpool",
    "num_unjudged",
    "rel_levels",
    "num_rel_levels",
    "placeholder",
)


def _chunked(run: pd.DataFrame, n_chunks: int) -> pd.DataFrame:
    """The same run with its id columns split into ``n_chunks`` arrow chunks."""
    bounds = np.linspace(0, len(run), n_chunks + 1).astype(int)

    def split(column):
        values = pa.array(run[column].tolist(), type=pa.large_string())
        return pd.Series(pa.chunked_array([values[a:b] for a, b in zip(bounds[:-1], bounds[1:])]), dtype="str")

    out = pd.DataFrame({"query_id": split("query_id"), "doc_id": split("doc_id"), "score": run["score"].to_numpy()})
    out.attrs.update(run.attrs)
    return out


def _grouped(run: pd.DataFrame, reverse_blocks: bool = False) -> pd.DataFrame:
    """Each query's lines together, best score first (the usual run file),
    queries in order of first appearance (or the reverse)."""
    first = {q: i for i, q in reversed(list(enumerate(run["query_id"])))}
    block = run["query_id"].map(first).to_numpy()
    if reverse_blocks:
        block = -block
    order = np.lexsort((-run["score"].to_numpy(), block))
    out = run.iloc[order].reset_index(drop=True)
    out.attrs.update(run.attrs)
    return out


def _layouts(run: pd.DataFrame, seed: int):
    shuffled = run.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    shuffled.attrs.update(run.attrs)
    yield "grouped", _grouped(run)
    yield "grouped, blocks reversed", _grouped(run, reverse_blocks=True)
    yield "grouped, 7 chunks", _chunked(_grouped(run), 7)
    yield "shuffled, 5 chunks", _chunked(shuffled, 5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "options", [{}, {"complete": True}, {"max_docs": 9, "relevance_level": 2}, {"judged_only": True}]
)
def test_layout_does_not_change_the_ranking(seed, options):
    qrels, run = random_collection(seed, n_queries=15, n_docs=80, depth=70)
    expected = build_ranking(qrels, run, **options)
    values = metrics.evaluate(qrels, run, "all_trec", **options).per_query["value"].to_numpy()
    for name, other in _layouts(run, seed):
        got = build_ranking(qrels, other, **options)
        assert list(got.query_ids) == list(expected.query_ids), name
        for field in RANK_ARRAYS:
            np.testing.assert_array_equal(getattr(got, field), getattr(expected, field), err_msg=f"{name}: {field}")
        other_values = metrics.evaluate(qrels, other, "all_trec", **options).per_query["value"]
        np.testing.assert_array_equal(other_values.to_numpy(), values, err_msg=name)


def test_grouped_run_takes_the_block_order_and_keeps_ties_for_the_doc_ids():
    # three queries in blocks out of query order, a tie in the second block
    qcode = np.array([2, 2, 0, 0, 0, 1], dtype=np.int32)
    score = np.array([5.0, 4.0, 3.0, 3.0, 1.0, 7.0])
    order = ranking._grouped_order(qcode, score)
    np.testing.assert_array_equal(order, [2, 3, 4, 5, 0, 1])
    assert ranking._grouped_order(np.array([0, 1, 0], dtype=np.int32), np.ones(3)) is None
    assert ranking._grouped_order(np.array([0, 0], dtype=np.int32), np.array([1.0, 2.0])) is None
    for docs in (
        np.array([b"a", b"b", b"c", b"z", b"y", b"x"]),
        np.array([b"a", b"b", b"c", b"z", b"y", b"x"], object),
    ):
        # the tie (rows 2 and 3: docs "c" and "z") is settled by descending doc id
        np.testing.assert_array_equal(ranking.rank_order(qcode, score, docs), [3, 2, 4, 5, 0, 1])
    # equal scores in neighbouring queries are no tie
    qcode = np.array([0, 0, 1, 1], dtype=np.int32)
    score = np.array([2.0, 1.0, 1.0, 0.0])
    docs = np.array([b"a", b"b", b"z", b"c"])
    np.testing.assert_array_equal(ranking.rank_order(qcode, score, docs), [0, 1, 2, 3])


def test_ties_are_broken_by_unsigned_bytes_as_strcmp_does():
    # strcmp compares unsigned chars: "\xc3\xa9" (é) sorts after "z"; shorter prefixes first
    docs = np.array(["é", "z", "za", "Z", "a"], dtype=object)
    ids = np.array([d.encode() for d in docs])
    order = ranking.rank_order(np.zeros(5, dtype=np.int32), np.ones(5), ids)
    assert docs[order].tolist() == sorted(docs.tolist(), key=lambda d: d.encode(), reverse=True)
    assert docs[order].tolist() == ["é", "za", "z", "a", "Z"]


def test_id_hash_does_not_depend_on_the_width_of_the_array():
    from metrics.io.ids import id_hash

    ids = [b"a", b"doc-12345678", b"x" * 17, b"\xc3\xa9t\xc3\xa9"]
    narrow = id_hash(np.array(ids))
    wide = id_hash(np.array(ids, dtype="S40"))
    boxed = id_hash(np.array(ids, dtype=object))
    np.testing.assert_array_equal(narrow, wide)
    assert len(set(narrow.tolist())) == len(ids) and len(set(boxed.tolist())) == len(ids)


def test_colliding_keys_give_the_same_ranking_through_exact_codes(tmp_path, monkeypatch):
    """Should 64-bit keys ever collide, the join falls back to exact document codes: forced here
    by hashing every id to the same value."""
    from metrics.io import ids

    qrels, run = random_collection(5, n_queries=14)
    expected = build_ranking(qrels, run, complete=True)
    monkeypatch.setattr(ids, "id_hash", lambda values: np.zeros(len(values), dtype=np.uint64))
    got = build_ranking(qrels, run, complete=True)
    assert ranking.encode_qrels(qrels).collide
    for name in RANK_ARRAYS:
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)


def _sequential(x, offsets):
    sums, prefix = [], []
    for a, b in zip(offsets[:-1], offsets[1:]):
        total = 0.0
        for v in x[a:b]:
            total += v
            prefix.append(total)
        sums.append(total)
    return np.array(sums), np.array(prefix)


@pytest.mark.parametrize("lengths", [[3, 0, 1, 17, 5, 0, 64, 2, 9], [6] * 11])
def test_segment_kernels_add_left_to_right_in_every_block(lengths, monkeypatch):
    monkeypatch.setattr(_kernels, "_BLOCK", 16)  # many blocks for a small input
    rng = np.random.default_rng(3)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    # magnitudes far apart make the order of the additions visible
    x = rng.normal(size=offsets[-1]) * 10.0 ** rng.integers(-8, 9, size=offsets[-1])
    sums, prefix = _sequential(x, offsets)
    np.testing.assert_array_equal(_kernels.segment_sum(x, offsets), sums)
    np.testing.assert_array_equal(_kernels.segment_cumsum(x, offsets), prefix)
    rev = _kernels.segment_accumulate(x, offsets, reverse=True)
    for a, b in zip(offsets[:-1], offsets[1:]):
        np.testing.assert_array_equal(rev[a:b], _sequential(x[a:b][::-1], [0, b - a])[1][::-1])


@pytest.mark.parametrize("top, dtype", [(3, np.int8), (127, np.int8), (128, np.int16), (40000, np.int32)])
def test_relevance_codes_take_the_smallest_type_that_holds_the_grades(top, dtype):
    qrels, run = random_collection(1)
    qrels.loc[qrels.index[0], "relevance"] = top
    assert build_ranking(qrels, run).rel.dtype == dtype


TREC_EVAL_BIN = trec_eval_ref.BIN


@pytest.mark.skipif(not TREC_EVAL_BIN, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("top", [200])
@pytest.mark.parametrize(
    "flags, options", [([], {}), (["-l150"], {"relevance_level": 150}), (["-c"], {"complete": True})]
)
def test_wide_grades_match_trec_eval_10_binary(top, flags, options, tmp_path):
    qrels, run = random_collection(4, n_queries=10, n_docs=50, depth=40)
    qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))].reset_index(drop=True)
    qrels.loc[qrels.index[::5], "relevance"] = top
    qpath, rpath = write_trec(qrels, run, tmp_path)
    measures = ["all_trec", f"ndcg.{top}=2.5,-1=1", f"rbp.{top}=-1"]
    args = [TREC_EVAL_BIN, "-q", *[a for m in measures for a in ("-m", m)], *flags, qpath, rpath]
    expected = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    ev = metrics.evaluate(qrels, run, metrics.parse_measures(measures, trec_rules=True), **options)
    assert ev.trec_lines(queries=True) == expected


@pytest.mark.parametrize("options", [{}, {"complete": True, "max_docs": 7}, {"judged_only": True}])
def test_blocks_of_any_size_give_the_same_ranking(options, monkeypatch):
    """The join, the hashes, the rank order and the layout work a block of rows at a time."""
    from metrics.io import ids
    from metrics.ranking import qrels_index, rank_order

    qrels, run = random_collection(6, n_queries=14)
    expected = build_ranking(qrels, run, **options)
    for module, name, size in [(qrels_index, "_JOIN_BLOCK", 7), (ids, "_HASH_BLOCK", 5), (rank_order, "_BLOCK", 3)]:
        monkeypatch.setattr(module, name, size)
    got = build_ranking(qrels, run, **options)
    for name in RANK_ARRAYS:
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)


def test_the_key_filter_passes_every_judged_pair():
    qrels, _ = random_collection(2, n_queries=30, n_docs=400)
    enc = ranking.encode_qrels(qrels)
    found = qrels_index._maybe_judged(enc.key_filter(), enc.key_sorted)
    np.testing.assert_array_equal(found, np.arange(len(enc.key_sorted)))
    assert enc.key_filter().nbytes == 1 << 19


def test_a_run_pair_sharing_its_key_with_a_judged_pair_is_told_apart_on_the_ids(monkeypatch):
    """A retrieved document whose key equals that of a judged one (forced here) is not taken for it:
    the join confirms every match on the ids and then joins on exact codes."""
    from metrics.io import ids

    qrels, run = random_collection(5, n_queries=14)
    query, twin = qrels["query_id"].iloc[0], qrels["doc_id"].iloc[0]  # a judged pair
    lines = list(zip(run["query_id"], run["doc_id"], run["score"]))
    run = run_frame([(q, d, s) for q, d, s in lines if (q, d) != (query, twin)] + [(query, "stranger", 0.5)], "rnd")
    expected = build_ranking(qrels, run, complete=True)
    stranger, twin = b"stranger", twin.encode()
    real = ids.id_hash

    def hash_twice(values):
        h = real(values)
        h[np.asarray(values == stranger)] = real(np.array([twin], dtype=values.dtype))[0]
        return h

    monkeypatch.setattr(ids, "id_hash", hash_twice)
    enc = ranking.encode_qrels(qrels)
    assert not enc.collide  # the qrels' own keys are distinct: the clash is found in the join
    got = build_ranking(enc, run, complete=True)
    for name in RANK_ARRAYS:
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)


def test_encoded_qrels_are_the_same_from_the_reader_and_from_a_frame(tmp_path):
    qrels, run = random_collection(9, n_queries=20)
    qpath, _ = write_trec(qrels, run, tmp_path)
    from metrics.io.columns import read_columns

    a = ranking.encode_qrels(read_columns(qpath, "qrels"))
    b = ranking.encode_qrels(qrels)
    for name in ("query_keys", "qcode", "rel", "key_sorted", "doc_sorted"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.rel.dtype == np.int8 and (a.queries, a.num_positive, a.collide) == (b.queries, b.num_positive, False)
    cols = read_columns(qpath, "qrels")
    c = ranking.encode_qrels(cols, consume=True)  # the columns' arrays let go as they are encoded
    assert cols.qid is None and cols.doc is None and cols.value is None and cols.key_order is None
    np.testing.assert_array_equal(c.doc_sorted, a.doc_sorted)


def test_the_bucket_search_finds_what_a_binary_search_finds():
    qrels, _ = random_collection(4, n_queries=30, n_docs=400)
    enc = ranking.encode_qrels(qrels)
    rng = np.random.default_rng(4)
    probes = np.concatenate(
        [
            enc.key_sorted,
            enc.key_sorted + np.uint64(1),
            rng.integers(0, 2**63, size=2000, dtype=np.uint64) * np.uint64(2),
            np.array([0, 2**64 - 1], dtype=np.uint64),
        ]
    )
    np.testing.assert_array_equal(qrels_index._find(enc, probes), np.searchsorted(enc.key_sorted, probes))


def test_the_memo_keeps_what_consecutive_families_share_and_small_values():
    qrels, run = random_collection(1)
    r = build_ranking(qrels, run)
    made = []

    def make(name, size):
        made.append(name)
        return np.zeros(size)

    big, small = 1 << 14, 3  # 128 KiB of float64, and a few values
    assert r.memo.get("big", lambda: make("big", big)) is r.memo.get("big", lambda: make("big", big))
    r.memo.get("small", lambda: make("small", small))
    r.memo.sweep()  # both used since the last sweep: kept
    r.memo.get("big", lambda: make("big", big))
    assert made == ["big", "small"]
    r.memo.sweep()
    r.memo.sweep()  # not used by the last family: the large value goes, the small one stays
    r.memo.get("big", lambda: make("big", big))
    value = r.memo.get("small", lambda: make("small", small))
    assert made == ["big", "small", "big"] and not value.flags.writeable
    assert r.with_relevance_level(2).memo is not r.memo


def test_logs_of_whole_numbers_come_from_a_table_equal_to_the_c_librarys():
    import math

    from metrics.measures.gains import _log2_of

    values = np.concatenate([np.arange(1.0, 3000.0), np.arange(1.0, 3000.0)[::-7]])
    np.testing.assert_array_equal(_log2_of(values), [math.log2(v) for v in values])
    mixed = np.concatenate([values, [2.5]])  # not all whole: one by one
    np.testing.assert_array_equal(_log2_of(mixed), [math.log2(v) for v in mixed])
