"""Rank overlap (metrics.analysis.overlap) against the formulas of Webber, Moffat and Zobel (2010) written
out here, one pair of lists at a time, on generated runs with ties, short lists, queries one run does not
answer, run-only and qrels-only queries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import random_collection, run_frame

from metrics.analysis import mean_overlap, overlap_matrix, rank_overlap
from metrics.analysis import overlap as overlap_module


def trec_order(run: pd.DataFrame, query: str) -> list[str]:
    """The query's documents in trec_eval's order: score descending, ties by document id in descending
    byte order."""
    sub = run[run["query_id"] == query]
    pairs = sorted(zip(sub["score"], sub["doc_id"]), key=lambda t: (t[0], t[1].encode()), reverse=True)
    return [doc for _, doc in pairs]


def rbo_ext(a: list[str], b: list[str], p: float) -> float:
    """RBO_ext of two lists (equation 32 of the paper; equation 30 when they are as long), by its sums."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, n = len(short), len(long)

    def x(d: int) -> int:  # overlap at depth d: the shorter list whole beyond its length
        return len(set(short[: min(d, s)]) & set(long[:d]))

    first = sum(x(d) / d * p**d for d in range(1, n + 1))
    second = sum(x(s) * (d - s) / (s * d) * p**d for d in range(s + 1, n + 1))
    return (1 - p) / p * (first + second) + ((x(n) - x(s)) / n + x(s) / s) * p**n


def jaccard(a: list[str], b: list[str]) -> float:
    return len(set(a) & set(b)) / len(set(a) | set(b))


def generated_runs(seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    qrels, _ = random_collection(seed)
    runs = {name: random_collection(seed + 10 * i, name=name)[1] for i, name in enumerate("abcd")}
    runs["b"] = runs["b"][runs["b"]["query_id"] != "q3"]  # a query run b does not answer
    runs["d"] = runs["a"].assign(score=runs["a"]["score"].round(0))  # a's documents, more ties, another order
    return qrels, runs


def expected(runs: dict[str, pd.DataFrame], depth: int, p: float, queries=None) -> pd.DataFrame:
    rows = []
    names = list(runs)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = sorted(set(runs[a]["query_id"]) & set(runs[b]["query_id"]), key=str.encode)
            for q in both:
                if queries is not None and q not in queries:
                    continue
                la, lb = trec_order(runs[a], q)[:depth], trec_order(runs[b], q)[:depth]
                rows.append((a, b, q, jaccard(la, lb), rbo_ext(la, lb, p)))
    return pd.DataFrame(rows, columns=["run_a", "run_b", "query_id", "jaccard", "rbo"])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("depth, p", [(5, 0.9), (10, 0.5), (50, 0.98), (1, 0.9)])
def test_overlap_matches_the_papers_formulas(seed, depth, p):
    qrels, runs = generated_runs(seed)
    got = rank_overlap(runs, depth, p, qrels=qrels)
    want = expected(runs, depth, p, queries=set(qrels["query_id"]))
    assert list(got.columns) == ["run_a", "run_b", "query_id", "shared", "jaccard", "rbo"]
    assert got[["run_a", "run_b", "query_id"]].values.tolist() == want[["run_a", "run_b", "query_id"]].values.tolist()
    np.testing.assert_allclose(got["jaccard"], want["jaccard"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(got["rbo"], want["rbo"], rtol=0, atol=1e-13)
    assert not (got["query_id"] == "zz_run_only").any()
    assert ((got["run_a"] != "b") & (got["run_b"] != "b") | (got["query_id"] != "q3")).all()


def test_without_qrels_every_query_is_compared():
    _, runs = generated_runs(1)
    got = rank_overlap(runs, 10)
    want = expected(runs, 10, 0.9)
    assert "zz_run_only" in set(got["query_id"])
    np.testing.assert_allclose(got["rbo"], want["rbo"], rtol=0, atol=1e-13)


def test_the_same_documents_in_another_order():
    run = run_frame([("q1", f"d{i}", float(10 - i)) for i in range(10)], "a")
    reverse = run_frame([("q1", f"d{i}", float(i)) for i in range(10)], "b")
    disjoint = run_frame([("q1", f"x{i}", float(i)) for i in range(10)], "c")
    got = rank_overlap({"a": run, "same": run, "b": reverse, "c": disjoint}, 10).set_index(["run_a", "run_b"])
    assert got.loc[("a", "same"), "rbo"] == pytest.approx(1.0, abs=1e-15)
    assert got.loc[("a", "same"), "jaccard"] == 1.0
    assert got.loc[("a", "b"), "jaccard"] == 1.0
    assert got.loc[("a", "b"), "rbo"] < 1.0
    assert got.loc[("a", "c"), "rbo"] == 0.0 and got.loc[("a", "c"), "jaccard"] == 0.0


def test_documents_sharing_a_hash_are_told_apart(monkeypatch):
    """Should two documents share a 64-bit hash, the rows are grouped by exact codes of their ids."""
    qrels, runs = generated_runs(2)
    want = rank_overlap(runs, 10, qrels=qrels)
    monkeypatch.setattr(overlap_module, "id_hash", lambda ids: np.zeros(len(ids), dtype=np.uint64))
    got = rank_overlap(runs, 10, qrels=qrels)
    pd.testing.assert_frame_equal(got, want)


def test_many_shared_documents_are_taken_a_block_at_a_time(monkeypatch):
    qrels, runs = generated_runs(0)
    want = rank_overlap(runs, 20, qrels=qrels)
    monkeypatch.setattr(overlap_module, "_ITEMS", 7)
    pd.testing.assert_frame_equal(rank_overlap(runs, 20, qrels=qrels), want)


def test_means_and_matrix():
    qrels, runs = generated_runs(0)
    table = rank_overlap(runs, 10, qrels=qrels)
    means = mean_overlap(table)
    grouped = table.groupby(["run_a", "run_b"], sort=False)
    assert means["queries"].tolist() == grouped.size().tolist()
    np.testing.assert_allclose(means["rbo"], grouped["rbo"].mean().to_numpy())
    matrix = overlap_matrix(table, list(runs))
    assert list(matrix.index) == list(matrix.columns) == list(runs)
    np.testing.assert_array_equal(matrix.to_numpy(), matrix.to_numpy().T)
    assert (np.diag(matrix.to_numpy()) == 1.0).all()
    first = means.iloc[0]
    assert matrix.loc[first["run_a"], first["run_b"]] == first["rbo"]


@pytest.mark.parametrize("p", [0.0, 1.0, -0.5, 1.5])
def test_persistence_outside_the_open_interval_is_refused(p):
    _, runs = generated_runs(0)
    with pytest.raises(ValueError, match="persistence"):
        rank_overlap(runs, 10, p)
