"""The drill-down's rules without Qt: the same document joined across the lists shown, and the unjudged
documents of the top k listed and copied as qrels lines to judge (workbench.state.drilldown)."""

from __future__ import annotations

import pytest
from conftest import qrels_frame, run_frame

import metrics
from workbench.state import drilldown as dm

QRELS = qrels_frame([("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d4", -1), ("q1", "d9", 1), ("q2", "d1", 1)])
# a ranks d1 d2 d3 d4 d5 d6 d7 d8; b ranks d6 d1 x1 x2 x3 x4 x5 d2 (d2 below b's top 3); c ranks d3 d1
A = run_frame([("q1", f"d{i}", 10.0 - i) for i in range(1, 9)] + [("q2", "d1", 1.0)], "a")
B = run_frame([("q1", d, 10.0 - i) for i, d in enumerate(["d6", "d1", "x1", "x2", "x3", "x4", "x5", "d2"])], "b")
C = run_frame([("q1", "d3", 2.0), ("q1", "d1", 1.0)], "c")


def drill(depth=3, runs=None):
    runs = runs or {"a": A, "b": B, "c": C}
    return dm.compute(dm.Request(QRELS, runs, "q1", depth, "a"))


def test_two_lists_show_each_documents_rank_in_the_other_run():
    d = drill()
    frame, _, tips = dm.ranking_table(d, "a", ["a", "b"])
    assert list(frame["doc_id"]) == ["d1", "d2", "d3"]
    # d2 is below b's top 3 (rank 8 of its whole ranking); d3 b never retrieved
    assert list(frame["in b"]) == ["2", "8", dm.NOT_RETRIEVED]
    assert tips[1].endswith("rank 8 in b") and tips[2].endswith("not retrieved by b")
    frame, _, _ = dm.ranking_table(d, "b", ["a", "b"])
    assert list(frame["doc_id"]) == ["d6", "d1", "x1"]
    assert list(frame["in a"]) == ["6", "1", dm.NOT_RETRIEVED]
    assert "moved" in frame.columns  # (b is compared with the baseline too)


def test_more_lists_show_the_ranks_in_each_other_list_in_their_order():
    d = drill()
    frame, _, tips = dm.ranking_table(d, "a", ["a", "b", "c"])
    assert "in b" not in frame.columns
    assert list(frame["in others"]) == ["2 2", f"8 {dm.NOT_RETRIEVED}", f"{dm.NOT_RETRIEVED} 1"]
    assert tips[0].endswith("rank 2 in b; rank 2 in c")
    frame, _, _ = dm.ranking_table(d, "c", ["b", "c", "a"])  # (the order of the lists shown)
    assert list(frame["in others"]) == [f"{dm.NOT_RETRIEVED} 3", "2 1"]


def test_one_list_or_a_run_not_shown_has_no_join():
    d = drill()
    frame, _, _ = dm.ranking_table(d, "a", ["a"])
    assert not [c for c in frame.columns if c.startswith("in ")]
    assert dm.elsewhere(d, "c", ["a", "b"]) is None
    frame, _, _ = dm.ranking_table(d, "a")
    assert list(frame.columns) == ["rank", "doc_id", "score", "grade"]


def test_the_lists_are_cut_at_the_depth_and_the_rest_kept_as_places():
    d = drill(depth=2)
    assert d.depth == 2 and [len(r) for r in d.rankings.values()] == [2, 2, 2]
    assert d.num_ret == {"a": 8, "b": 8, "c": 2}
    assert d.places["b"] == {"d1": 2, "d2": 8, "d6": 1}
    assert d.places["a"]["d6"] == 6
    # the baseline's rank of a document is that of its whole ranking, as before
    assert list(d.rankings["b"]["baseline_rank"]) == [6, 1]


def test_unjudged_of_the_top_k_are_listed_once_with_where_each_run_has_them():
    d = drill(depth=4)
    items = dm.unjudged_in_top(d, ["a", "b", "c"])
    # d4 has a negative grade (pooled, not judged): unjudged; d3 is at rank 1 of c, 3 of a; a tie of ranks
    # (d4 at 4 in a, x2 at 4 in b) goes by the order of the lists
    assert [u.doc_id for u in items] == ["d6", "d3", "x1", "d4", "x2"]
    assert dict((u.doc_id, u.places) for u in items)["d3"] == (("a", 3), ("c", 1))
    frame = dm.unjudged_table(d, items)
    assert list(frame.columns) == ["doc_id", "retrieved by"]
    assert list(frame["retrieved by"])[:2] == ["b 1", "a 3, c 1"]
    # only the lists shown
    assert [u.doc_id for u in dm.unjudged_in_top(d, ["a"])] == ["d3", "d4"]


def test_qrels_lines_to_judge_are_valid_qrels_that_change_no_trec_eval_score(tmp_path):
    d = drill(depth=4)
    items = dm.unjudged_in_top(d, ["a", "b", "c"])
    text = dm.qrels_lines(d.query_id, items)
    assert text.splitlines()[:2] == ["q1 0 d6 -1", "q1 0 d3 -1"]
    assert len(text.splitlines()) == len(items)
    # read as qrels, the lines leave trec_eval's scores as they were until a grade replaces the -1 (a
    # negative grade: pooled, not judged); Judged@k counts a document the qrels list, whatever its grade
    (tmp_path / "to_judge.txt").write_text(text)
    added = metrics.read_qrels(str(tmp_path / "to_judge.txt"))
    assert list(added["relevance"]) == [dm.TO_JUDGE_GRADE] * len(items)
    both = qrels_frame(list(QRELS.itertuples(index=False, name=None)) + list(added.itertuples(index=False, name=None)))
    measures = ["map", "P.3", "ndcg_cut.3", "recip_rank", "bpref", "num_rel"]
    before = metrics.evaluate(QRELS, {"a": A, "b": B}, measures).per_query
    after = metrics.evaluate(both, {"a": A, "b": B}, measures).per_query
    assert before.equals(after)
    judged = [metrics.evaluate(q, {"b": B}, ["Judged@4"]).per_query["value"].iloc[0] for q in (QRELS, both)]
    assert judged == [0.25, 1.0]


@pytest.mark.parametrize("depth", [1, 3])
def test_the_join_of_a_drilldown_without_a_baseline(depth):
    d = dm.compute(dm.Request(QRELS, {"a": A, "b": B}, "q1", depth, None))
    frame, _, _ = dm.ranking_table(d, "b", ["a", "b"])
    assert frame["in a"].iloc[0] == "6" and "moved" not in frame.columns


def test_two_runs_compared_are_shown_alone_in_the_drilldown():
    from workbench.scoring import evaluation
    from workbench.state.session import SessionModel

    model = SessionModel()
    request = evaluation.Request(qrels=QRELS, runs={"a": A, "b": B, "c": C}, measures=("map",), qrels_name="q")
    model.results = evaluation.compute(request)
    model.selected_query = "q1"
    assert model.followups.drilldown_runs() == ["a", "b", "c"]
    model.drilldown = drill(runs={"a": A, "c": C})
    # b is not ranked yet: the drill-down is computed again, with a and b only
    assert model.followups.show_only_drilldown_runs(["b", "a"]) is True
    assert model.followups.drilldown_runs() == ["a", "b"]
    assert set(model.followups.drilldown_request().runs) == {"a", "b"}
    model.drilldown = drill()
    assert model.followups.show_only_drilldown_runs(["c", "a"]) is False  # (both ranked already)
    assert model.followups.drilldown_runs() == ["a", "c"]


def test_the_tables_of_the_lists_shown_are_made_with_the_drill_down_as_the_window_makes_them():
    """The drill-down's worker makes the tables of the lists the window will show (the window's thread only
    shows them), the very tables :func:`ranking_table`, :func:`snippets_html` and :func:`missing_table` give;
    lists other than those (a run chosen since) are made when asked for."""
    d = dm.compute(dm.Request(QRELS, {"a": A, "b": B, "c": C}, "q1", 3, "a", lists=("c", "a")))
    assert d.tables is not None and d.tables.lists == ("a", "c")  # (in the drill-down's order)
    assert dm.tables_for(d, ["a", "c"]) is d.tables
    for run in ("a", "c"):
        frame, tones, tips = dm.ranking_table(d, run, ["a", "c"])
        assert d.tables.runs[run][0].equals(frame) and d.tables.runs[run][1:] == (tones, tips, None)
    assert "in c" in d.tables.runs["a"][0].columns
    other = dm.tables_for(d, ["a", "b", "c"])
    assert other is not d.tables and other.lists == ("a", "b", "c") and "in others" in other.runs["a"][0].columns
