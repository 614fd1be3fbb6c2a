"""An Evaluation and its comparisons in Jupyter: tables headed by the settings that made them; the
frames keep their column names when written with pandas."""

from __future__ import annotations

import pandas as pd
import pytest

import metrics
from metrics.compare import compare
from metrics.compare.allpairs import compare_all_pairs


@pytest.fixture()
def evaluation(tmp_path):
    (tmp_path / "q").write_text("".join(f"{q} 0 d{d} {(q + d) % 3}\n" for q in range(1, 6) for d in range(8)))
    runs = {}
    for name, shift in (("bm25", 0), ("dense", 3), ("rerank", 5)):
        path = tmp_path / name
        path.write_text(
            "".join(f"{q} Q0 d{d} {d} {((d + shift) * 7) % 11} {name}\n" for q in range(1, 6) for d in range(8))
        )
        runs[name] = path
    return metrics.evaluate(tmp_path / "q", runs, ["map", "P@5", "nDCG@10"], relevance_level=2, complete=True)


def test_evaluation_shows_as_a_table_with_its_settings(evaluation):
    html = evaluation._repr_html_()
    assert "<table" in html and "P@5" in html and "bm25" in html
    assert "3 runs, 5 queries, 3 measures" in html
    assert "(-l 2)" in html and "(-c)" in html
    assert f"{evaluation.summary().loc['dense', 'map']:.4f}" in html


def test_comparisons_show_their_settings(evaluation):
    c = compare(evaluation, "bm25", test="permutation", permutations=200, bootstrap=0)
    assert isinstance(c, pd.DataFrame)
    html = c._repr_html_()
    assert "baseline bm25" in html and "test permutation" in html and "<table" in html
    assert type(c[c["run"] == "dense"]) is pd.DataFrame  # what is made from it is a plain frame
    pairs = compare_all_pairs(evaluation, permutations=200, bootstrap=0)
    assert "runs bm25, dense, rerank" in pairs._repr_html_()


def test_frames_keep_their_column_names_when_written(evaluation, tmp_path):
    summary = evaluation.summary()
    summary.to_csv(tmp_path / "s.csv")
    back = pd.read_csv(tmp_path / "s.csv", index_col=0)
    assert list(back.columns) == ["map", "P@5", "nDCG@10"] and back.index.name == "run"
    pytest.importorskip("pyarrow")
    summary.to_parquet(tmp_path / "s.parquet")
    assert list(pd.read_parquet(tmp_path / "s.parquet").columns) == ["map", "P@5", "nDCG@10"]
    wide = evaluation.per_query_wide("P@5")
    wide.to_parquet(tmp_path / "w.parquet")
    back = pd.read_parquet(tmp_path / "w.parquet")
    assert list(back.columns) == ["bm25", "dense", "rerank"] and back.index.name == "query_id"
    evaluation.per_query.to_csv(tmp_path / "pq.csv", index=False)
    assert list(pd.read_csv(tmp_path / "pq.csv").columns) == ["run", "query_id", "measure", "value"]
