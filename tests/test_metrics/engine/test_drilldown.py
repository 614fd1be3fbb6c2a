"""Query drill-down: metrics.engine.drilldown (pure) and the window's text for it (workbench.state.drilldown)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import qrels_frame, random_collection, run_frame

import metrics
from metrics.engine.drilldown import MISSING_COLUMNS, RANKING_COLUMNS, query_drilldown
from metrics.engine.settings import Settings
from metrics.ranking.judged import NONPOOL, UNJUDGED, build_ranking
from workbench.state import drilldown as dm

QRELS = qrels_frame(
    [
        ("q1", "d1", 2),
        ("q1", "d2", 0),
        ("q1", "d3", 1),
        ("q1", "d4", -1),
        ("q1", "d7", 0),
        ("q1", "d8", 1),
        ("q1", "d9", 3),
        ("q2", "d1", 1),
    ]
)
# base ranks d1, d3, d2 (tie with d3: higher doc id first), d5, d4
BASE = run_frame(
    [
        ("q1", "d2", 2.0),
        ("q1", "d5", 1.0),
        ("q1", "d1", 3.0),
        ("q1", "d4", 0.5),
        ("q1", "d3", 2.0),
        ("q2", "d1", 1.0),
    ],
    "base",
)
# other ranks d3, d6, d4 (tie with d1: d4 first), d1, d2
OTHER = run_frame(
    [
        ("q1", "d1", 3.0),
        ("q1", "d2", 1.0),
        ("q1", "d3", 5.0),
        ("q1", "d4", 3.0),
        ("q1", "d6", 4.0),
    ],
    "other",
)


def test_rankings_follow_trec_eval_order_with_grades_and_movement():
    drill = query_drilldown(QRELS, {"base": BASE, "other": OTHER}, "q1", depth=None, baseline="base")
    assert drill.runs == ["base", "other"]
    base, other = drill.rankings["base"], drill.rankings["other"]
    assert list(base.columns) == RANKING_COLUMNS
    assert list(base["doc_id"]) == ["d1", "d3", "d2", "d5", "d4"]
    assert list(base["rank"]) == [1, 2, 3, 4, 5]
    assert list(other["doc_id"]) == ["d3", "d6", "d4", "d1", "d2"]
    assert list(other["score"]) == [5.0, 4.0, 3.0, 3.0, 1.0]
    # d5 and d6 are not in the qrels, d4 is pooled but not judged (negative grade)
    assert base["relevance"].tolist() == [2, 1, 0, pd.NA, pd.NA]
    assert base["judged"].tolist() == [True, True, True, False, False]
    assert other["relevance"].tolist() == [1, pd.NA, pd.NA, 2, 0]
    assert other["baseline_rank"].tolist() == [2, pd.NA, 5, 1, 3]
    assert other["moved"].tolist() == [1, pd.NA, 2, -3, -2]
    assert base["baseline_rank"].isna().all() and base["moved"].isna().all()
    # d8 and d9 are relevant and retrieved by neither run (d7 is judged non-relevant)
    assert list(drill.missing.columns) == MISSING_COLUMNS
    assert drill.missing.to_dict("list") == {"doc_id": ["d9", "d8"], "relevance": [3, 1]}
    assert drill.num_rel == 4
    assert drill.num_ret == {"base": 5, "other": 5}


def test_depth_cuts_the_lists_but_movement_uses_the_full_baseline_ranking():
    drill = query_drilldown(QRELS, [BASE, OTHER], "q1", depth=3, baseline="base")
    other = drill.rankings["other"]
    assert list(other["doc_id"]) == ["d3", "d6", "d4"]
    assert other["baseline_rank"].tolist() == [2, pd.NA, 5]  # d4 is below the baseline's cut
    assert len(drill.rankings["base"]) == 3
    assert drill.num_ret["base"] == 5
    # a document retrieved below the cut is still retrieved: not missing
    assert "d4" not in set(drill.missing["doc_id"])


def test_relevance_level_and_no_baseline():
    drill = query_drilldown(QRELS, {"base": BASE, "other": OTHER}, "q1", settings=Settings(relevance_level=2))
    assert drill.missing["doc_id"].tolist() == ["d9"]
    assert drill.num_rel == 2
    assert drill.rankings["other"]["moved"].isna().all()


def test_query_without_judgments_or_results():
    drill = query_drilldown(QRELS, {"base": BASE, "other": OTHER}, "q2", baseline="base")
    assert drill.rankings["other"].empty
    assert list(drill.rankings["other"].columns) == RANKING_COLUMNS
    assert drill.num_ret["other"] == 0
    unjudged = query_drilldown(QRELS, {"x": run_frame([("q9", "a", 1.0), ("q9", "b", 2.0)], "x")}, "q9")
    assert not unjudged.judged_query
    assert unjudged.rankings["x"]["doc_id"].tolist() == ["b", "a"]
    assert not unjudged.rankings["x"]["judged"].any()
    assert unjudged.missing.empty


def test_bad_arguments():
    with pytest.raises(ValueError, match="baseline"):
        query_drilldown(QRELS, {"base": BASE}, "q1", baseline="nope")
    with pytest.raises(ValueError, match="depth"):
        query_drilldown(QRELS, {"base": BASE}, "q1", depth=0)


@pytest.mark.parametrize("settings", [Settings(), Settings(max_docs=6), Settings(max_docs=9, judged_only=True)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grades_agree_with_the_engines_judged_ranking(seed, settings):
    """Ties, unjudged and non-pool documents, -M and -J: the drill-down shows the ranking the measures see."""
    qrels, run = random_collection(seed)
    ranking = build_ranking(qrels, run, **settings.trec_options())
    for i, q in enumerate(ranking.query_ids):
        codes = ranking.rel[ranking.offsets[i] : ranking.offsets[i + 1]]
        ranked = query_drilldown(qrels, {"r": run}, q, depth=None, settings=settings).rankings["r"]
        assert ranked["rank"].tolist() == list(range(1, len(ranked) + 1))
        assert len(ranked) == len(codes)
        grades = ranked["relevance"].to_numpy(dtype=float, na_value=np.nan)
        judged = codes >= 0
        np.testing.assert_array_equal(ranked["judged"].to_numpy(), judged)
        np.testing.assert_array_equal(grades[judged], codes[judged])
        assert set(codes[~judged]) <= {NONPOOL, UNJUDGED}
        scores = ranked["score"].to_numpy()
        assert np.all(np.diff(scores) <= 0)
        for a in range(len(ranked) - 1):  # equal scores: descending doc id (byte order)
            if scores[a] == scores[a + 1]:
                assert ranked["doc_id"].iloc[a] > ranked["doc_id"].iloc[a + 1]


def test_line_order_does_not_matter():
    shuffled = OTHER.sample(frac=1.0, random_state=4).reset_index(drop=True)
    a = query_drilldown(QRELS, {"base": BASE, "other": OTHER}, "q1", baseline="base")
    b = query_drilldown(QRELS, {"base": BASE, "other": shuffled}, "q1", baseline="base")
    pd.testing.assert_frame_equal(a.rankings["other"], b.rankings["other"])


# ---------------------------------------------------------------- the window's text


def test_move_text():
    assert dm.format_move(5, 3) == "\u25b23"
    assert dm.format_move(2, -12) == "\u25bc12"
    assert dm.format_move(4, 0) == "="
    assert dm.format_move(pd.NA, pd.NA) == "new"


def test_ranking_table_text_and_tones():
    drill = query_drilldown(QRELS, {"base": BASE, "other": OTHER}, "q1", baseline="base")
    frame, tones, tips = dm.ranking_table(drill, "other")
    assert frame.to_dict("list") == {
        "rank": ["1", "2", "3", "4", "5"],
        "doc_id": ["d3", "d6", "d4", "d1", "d2"],
        "score": [5.0, 4.0, 3.0, 3.0, 1.0],
        "grade": ["1", "?", "?", "2", "0"],
        "moved": ["\u25b21", "new", "\u25b22", "\u25bc3", "\u25bc2"],
    }
    assert tones == ["grade1", dm.UNJUDGED_TONE, dm.UNJUDGED_TONE, "grade2", "grade0"]
    assert "not judged" in tips[1] and "not retrieved by the baseline" in tips[1]
    base, _, _ = dm.ranking_table(drill, "base")
    assert "moved" not in base.columns
    missing, mtones, _, _ = dm.missing_table(drill)
    assert missing.to_dict("list") == {"doc_id": ["d9", "d8"], "grade": ["3", "1"]}
    assert mtones == ["grade3", "grade1"]
    assert dm.caption(drill, "base") == "base (baseline): 2 relevant in top 5 of 5"
    assert dm.caption(drill, "other", ("map", 0.25)) == "other: map 0.2500; 2 relevant in top 5 of 5"


def test_ids_that_are_not_utf8_are_drilled_down_as_their_bytes(tmp_path):
    """Latin-1 document ids (old collections): the drill-down of the frames and of the columns the window
    holds tell ``caf\\xe9`` and ``caf\\xe8`` apart and find their grades; the window's table shows them
    with replacement characters (Qt drops lone surrogates)."""
    from metrics.io.readers import read_file_columns
    from workbench.state.drilldown import missing_table, ranking_table

    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"1 0 caf\xe9 2\n1 0 caf\xe8 0\n1 0 b 1\n1 0 gone\xff 3\n")
    run = tmp_path / "run.txt"
    run.write_bytes(b"1 Q0 caf\xe8 1 3 t\n1 Q0 caf\xe9 2 2 t\n1 Q0 b 3 1 t\n")
    held = (read_file_columns(qrels).qrels, read_file_columns(run).run)
    for q, r in ((metrics.read_qrels(qrels), metrics.read_run(run)), held):
        drill = query_drilldown(q, {"t": r}, "1")
        ranking = drill.rankings["t"]
        assert ranking["doc_id"].tolist() == ["caf\udce8", "caf\udce9", "b"]
        assert ranking["relevance"].tolist() == [0, 2, 1]
        assert drill.missing["doc_id"].tolist() == ["gone\udcff"] and drill.num_rel == 3
        shown, _, _ = ranking_table(drill, "t")
        assert shown["doc_id"].tolist() == ["caf\ufffd", "caf\ufffd", "b"]
        assert missing_table(drill)[0]["doc_id"].tolist() == ["gone\ufffd"]


def test_diversity_measures_tell_latin1_documents_apart(tmp_path):
    """Two intents' documents that differ in a byte that is not UTF-8 stay two documents, from a path and
    from the run's frame alike."""
    qrels = tmp_path / "intents.txt"
    qrels.write_bytes(b"1 1 caf\xe9 1\n1 2 caf\xe8 1\n1 2 b 1\n")
    run = tmp_path / "run.txt"
    run.write_bytes(b"1 Q0 caf\xe9 1 3 t\n1 Q0 b 2 2 t\n1 Q0 caf\xe8 3 1 t\n")
    measures = ["alpha_nDCG@20", "P-IA@2"]
    for source in (str(run), metrics.read_run(run)):
        summary = metrics.evaluate_diversity(str(qrels), source, measures).summary()
        # P-IA@2: intent 1 has caf\xe9 in the top 2 (1/2), intent 2 has b (1/2): 0.5
        assert summary.loc["t", "P-IA@2"] == 0.5
