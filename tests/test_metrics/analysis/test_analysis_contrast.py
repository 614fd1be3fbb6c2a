"""tau_AP against the paper's definition written out, with ties; its sign against Kendall's tau; and the
contrast of two runs by rbo, tau_ap and a measure."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau

import metrics
from metrics.analysis.contrast import tau_ap

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"


def paper_tau_ap(reference: list[float], ranking: list[float]) -> float:
    """Yilmaz, Aslam and Robertson's tau_AP, O(n^2): each item of the ranking against the items it puts
    strictly above it, 1 for each the reference also puts above, 1/2 for each the reference ties with it;
    twice the mean of those fractions over the items with something above them, less one."""
    n = len(ranking)
    if n < 2:
        return 1.0
    fractions = []
    for j in range(n):
        above = [i for i in range(n) if ranking[i] > ranking[j]]
        if not above:
            continue
        credit = sum(
            1.0 if reference[i] > reference[j] else 0.5 if reference[i] == reference[j] else 0.0 for i in above
        )
        fractions.append(credit / len(above))
    if not fractions:
        return math.nan
    return 2.0 * sum(fractions) / len(fractions) - 1.0


def strict_paper_tau_ap(reference_order: list[str], ranking_order: list[str]) -> float:
    """The paper's formula as printed: 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1."""
    n = len(ranking_order)
    place = {d: k for k, d in enumerate(reference_order)}
    total = 0.0
    for i in range(1, n):
        c = sum(1 for k in range(i) if place[ranking_order[k]] < place[ranking_order[i]])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def test_tau_ap_is_the_paper_formula_on_strict_rankings():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 30))
        items = [f"d{i}" for i in range(n)]
        ref = list(rng.permutation(items))
        ran = list(rng.permutation(items))
        x = [-ref.index(d) for d in items]
        y = [-ran.index(d) for d in items]
        assert tau_ap(x, y) == pytest.approx(strict_paper_tau_ap(ref, ran), abs=1e-12)


def test_tau_ap_with_ties_is_the_definition_written_out():
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 25))
        x = rng.integers(0, 5, size=n).astype(float)  # few values: many ties
        y = rng.integers(0, 5, size=n).astype(float)
        expected = paper_tau_ap(list(x), list(y))
        got = tau_ap(x, y)
        assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)
        assert math.isnan(got) or -1.0 <= got <= 1.0


def test_tau_ap_agrees_in_sign_with_kendall_tau_on_simple_cases():
    cases = [
        ([5, 4, 3, 2, 1], [5, 4, 3, 2, 1]),
        ([5, 4, 3, 2, 1], [1, 2, 3, 4, 5]),
        ([5, 4, 3, 2, 1], [5, 4, 3, 1, 2]),
        ([5, 4, 3, 2, 1], [2, 1, 3, 4, 5]),
        ([6, 5, 4, 3, 2, 1], [6, 5, 1, 2, 3, 4]),
    ]
    for x, y in cases:
        assert np.sign(tau_ap(x, y)) == np.sign(kendalltau(x, y).statistic)
    assert tau_ap([5, 4, 3, 2, 1], [5, 4, 3, 2, 1]) == 1.0 and tau_ap([1, 2, 3], [3, 2, 1]) == -1.0
    # a swap at the top costs more than one at the bottom (Kendall's tau counts them the same)
    assert tau_ap([5, 4, 3, 2, 1], [4, 5, 3, 2, 1]) < tau_ap([5, 4, 3, 2, 1], [5, 4, 3, 1, 2])


def _run(rows):
    return {q: {d: float(len(docs) - k) for k, d in enumerate(docs)} for q, docs in rows.items()}


def test_contrast_ranks_the_most_different_query_first():
    a = _run({"1": ["d1", "d2", "d3"], "2": ["d1", "d2", "d3"], "3": ["d1", "d2", "d3"]})
    b = _run({"1": ["d1", "d2", "d3"], "2": ["d9", "d8", "d7"], "3": ["d1", "d3", "d2"], "4": ["d1"]})
    for by in ("rbo", "tau_ap"):
        frame = metrics.contrast(a, b, by=by, depth=3)
        assert list(frame.columns) == ["query_id", "value", "rank"]
        assert list(frame["query_id"]) == ["2", "3", "1"] and list(frame["rank"]) == [1, 2, 3]
        assert frame["value"].iloc[-1] == pytest.approx(1.0)
    assert metrics.contrast(a, b, by="tau_ap", depth=3)["value"].iloc[0] < 0  # nothing shared: below 0


def test_contrast_by_a_measure_is_b_less_a_largest_first():
    qrels = {"1": {"d1": 1}, "2": {"d1": 1}, "3": {"d1": 1}}
    a = _run({"1": ["d1", "d2"], "2": ["d1", "d2"], "3": ["d2", "d1"]})
    b = _run({"1": ["d1", "d2"], "2": ["d9", "d8"], "3": ["d1", "d2"]})
    frame = metrics.contrast(a, b, qrels, by="P@1")
    assert list(frame["query_id"]) == ["2", "3", "1"]
    assert list(frame["value"]) == [-1.0, 1.0, 0.0]
    assert list(frame["a"]) == [1.0, 0.0, 1.0] and list(frame["b"]) == [0.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="qrels"):
        metrics.contrast(a, b, by="P@1")


def test_contrast_by_a_measure_of_an_evaluation_made_already():
    from metrics.analysis.contrast import measure_contrast

    runs = {
        "bm25": SAMPLE / "run_bm25.txt",
        "rm3": SAMPLE / "run_bm25_rm3.txt",
        "tfidf": SAMPLE / "run_tfidf_title.txt",
    }
    evaluation = metrics.evaluate(SAMPLE / "qrels.txt", runs, ["map", "P@10"])
    frame = measure_contrast(evaluation, "bm25", "rm3", "P@10")
    alone = metrics.contrast(runs["bm25"], runs["rm3"], SAMPLE / "qrels.txt", by="P@10")
    assert frame.equals(alone)
    assert list(frame.columns) == ["query_id", "value", "rank", "a", "b"]
    assert np.all(np.diff(np.abs(frame["value"])) <= 0)


def test_contrast_on_the_sample_agrees_with_rank_overlap():
    a, b = SAMPLE / "run_bm25.txt", SAMPLE / "run_bm25_rm3.txt"
    frame = metrics.contrast(a, b, SAMPLE / "qrels.txt", by="rbo", depth=10)
    overlap = metrics.rank_overlap([a, b], 10, qrels=SAMPLE / "qrels.txt").set_index("query_id")["rbo"]
    assert len(frame) == 60 and frame["value"].is_monotonic_increasing
    assert np.allclose(frame.set_index("query_id")["value"], overlap.loc[frame["query_id"]])
