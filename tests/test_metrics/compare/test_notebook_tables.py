"""Results in Jupyter: a short repr, one compact table per evaluation or comparison (runs by measures in the
order asked, marks or letters, the settings in the caption), letters as a table, columns in the order asked."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from ir_measures import AP, nDCG

import metrics
from metrics.compare import compare
from metrics.compare.allpairs import compare_all_pairs, significance_letters


@pytest.fixture(scope="module")
def evaluation():
    """Three runs over 40 queries: 'good' ranks the relevant documents first, 'bad' last, 'mid' between."""
    rng = np.random.default_rng(2)
    qrels, runs = {}, {"bad": {}, "mid": {}, "good": {}}
    for q in range(40):
        grades = {f"d{d}": int(g) for d, g in enumerate(rng.integers(0, 3, size=20))}
        qrels[f"q{q}"] = grades
        for name, sign in (("bad", -1.0), ("mid", 0.0), ("good", 1.0)):
            noise = rng.normal(scale=1.0, size=20)
            runs[name][f"q{q}"] = {d: sign * g + noise[i] for i, (d, g) in enumerate(grades.items())}
    return metrics.evaluate(qrels, runs, ["P@5", nDCG @ 10, "map", AP(rel=2)], relevance_level=1)


def _headers(html: str) -> list[str]:
    head = html[html.index("<thead>") : html.index("</thead>")]
    return re.findall(r"<th[^>]*>([^<]*)</th>", head)


def test_columns_come_in_the_order_asked(evaluation):
    assert list(evaluation.summary().columns) == ["P@5", "nDCG@10", "map", "AP(rel=2)"]
    assert _headers(evaluation._repr_html_()) == ["run", "P@5", "nDCG@10", "map", "AP(rel=2)"]


def test_sets_expand_in_trec_order_where_they_are_asked():
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": 1.0, "b": 2.0}}
    ev = metrics.evaluate(qrels, run, ["ndcg_cut.10", "P.5,10", "map"])
    assert list(ev.summary().columns) == ["ndcg_cut_10", "P_5", "P_10", "map"]
    official = metrics.evaluate(qrels, run)
    assert list(official.summary().columns)[:4] == ["num_q", "num_ret", "num_rel", "num_rel_ret"]


def test_repr_is_short_and_says_what_was_evaluated(evaluation):
    text = repr(evaluation)
    assert text == (
        "<Evaluation: 3 runs, 40 queries, 4 measures; trec_eval's defaults; runs bad, mid, good; "
        "measures P@5, nDCG@10, map, AP(rel=2)>"
    )
    big = metrics.evaluate(
        {f"q{q}": {f"d{d}": d % 2 for d in range(50)} for q in range(300)},
        {f"q{q}": {f"d{d}": float(d) for d in range(50)} for q in range(300)},
        "all_trec",
    )
    assert len(repr(big)) < 250 and "(98 in all)" in repr(big)


def test_evaluation_table_is_compact_with_the_best_in_bold_and_settings_in_the_caption(evaluation):
    html = evaluation._repr_html_()
    assert "<caption" in html and "Evaluation: 3 runs, 40 queries, 4 measures; trec_eval&#x27;s defaults" in html
    assert html.count("<tr>") == 4  # the header and three runs
    best = evaluation.summary().loc["good", "map"]
    assert f"<b>{best:.4f}</b>" in html


def test_comparison_shows_means_with_marks(evaluation):
    c = compare(evaluation, "mid", bootstrap=0)
    assert list(pd.unique(c["measure"])) == ["P@5", "nDCG@10", "map", "AP(rel=2)"]  # the order asked
    html = c._repr_html_()
    assert _headers(html) == ["run", "P@5", "nDCG@10", "map", "AP(rel=2)"]
    assert "mid (baseline)" in html and "baseline mid" in html and "correction holm" in html
    good = re.search(r"<th[^>]*>good</th>(.*?)</tr>", html).group(1)
    bad = re.search(r"<th[^>]*>bad</th>(.*?)</tr>", html).group(1)
    assert good.count("\u2020") == 4 and bad.count("\u2021") == 4
    assert f"{c.loc[(c['run'] == 'good') & (c['measure'] == 'map'), 'mean'].iloc[0]:.4f}" in good
    assert html.count("<tr>") == 4 and "23 columns" in html  # (correction_family added)


def test_all_pairs_show_letters_and_letters_are_a_table(evaluation):
    pairs = compare_all_pairs(evaluation, bootstrap=0)
    html = pairs._repr_html_()
    assert "(a) bad" in html and "(c) good" in html
    good = re.search(r"<th[^>]*>\(c\) good</th>(.*?)</tr>", html).group(1)
    assert good.count("<sup>ab</sup>") == 4
    letters = significance_letters(pairs)
    assert letters[("good", "map")] == "ab" and letters.get(("bad", "map"), "") == ""  # still a dict
    table = letters.to_frame()
    assert list(table.index) == ["bad", "mid", "good"] and list(table.columns) == [
        "letter",
        "P@5",
        "nDCG@10",
        "map",
        "AP(rel=2)",
    ]
    assert table.loc["good", "map"] == "ab" and table.loc["bad", "map"] == "" and table.loc["mid", "letter"] == "b"
    assert "<table" in letters._repr_html_()


def test_other_frames_still_show_as_frames(evaluation):
    c = compare(evaluation, "mid", bootstrap=0)
    assert "<table" in c[["run", "measure"]]._repr_html_()  # a plain DataFrame once selected from
    empty = compare(evaluation.per_query[evaluation.per_query["run"] == "mid"], "mid", bootstrap=0)
    assert "Comparison" in empty._repr_html_()
