"""The window's plain-Python logic: workspace, tables, exports, curve lookup (no Qt needed)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from workbench.scoring.evaluation import CurveTable, ndcg_variant, query_sort_key, sort_queries
from workbench.state import export
from workbench.state import tables as table_model
from workbench.state.workspace import Workspace, expand, expand_paths


def _run(name: str) -> pd.DataFrame:
    df = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "score": [1.0]})
    df.attrs["name"] = name
    return df


def _qrels() -> pd.DataFrame:
    return pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [1]})


# ---------------------------------------------------------------- workspace
def test_labels_default_to_run_tag_and_a_repeated_tag_gives_the_file_name(tmp_path):
    ws = Workspace()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    for p in (a, b):
        e = ws.begin_load(p)
        ws.finish_load(str(p), e.generation, "run", _run("bm25"), None)
    assert [e.label for e in ws.run_entries()] == ["bm25", "b"]
    assert list(ws.runs()) == ["bm25", "b"]
    assert ws.baseline_label() == "bm25"


def test_generic_tags_give_the_file_name_and_labels_stay_unique(tmp_path):
    ws = Workspace()
    for name, tag in (
        ("bm25.run.gz", "Anserini"),
        ("rm3.txt", "Anserini"),
        ("x/rm3.txt", "run"),
        ("d.trec", "ranked-list"),
    ):
        p = tmp_path / name
        p.parent.mkdir(exist_ok=True)
        e = ws.begin_load(p)
        ws.finish_load(str(p), e.generation, "run", _run(tag), None)
    assert [e.label for e in ws.run_entries()] == ["bm25", "rm3", "rm3 (2)", "d"]


def test_label_falls_back_to_file_name(tmp_path):
    ws = Workspace()
    e = ws.begin_load(tmp_path / "my_run.txt")
    ws.finish_load(e.path, e.generation, "run", _run(""), None)
    assert e.label == "my_run"


def test_superseded_load_is_dropped(tmp_path):
    ws = Workspace()
    first = ws.begin_load(tmp_path / "r.txt").generation
    second = ws.begin_load(tmp_path / "r.txt").generation
    assert ws.finish_load(str(tmp_path / "r.txt"), first, "run", _run("old"), None) is None
    e = ws.finish_load(str(tmp_path / "r.txt"), second, "run", _run("new"), None)
    assert e is not None and e.label == "new"
    assert len(ws.entries) == 1


def test_failed_reload_keeps_loaded_data(tmp_path):
    ws = Workspace()
    e = ws.begin_load(tmp_path / "r.txt")
    ws.finish_load(e.path, e.generation, "run", _run("r"), None)
    e2 = ws.begin_load(e.path, kind="qrels")
    ws.fail_load(e.path, e2.generation, "r.txt, line 1: bad")
    assert e.status == "ok" and e.error == "r.txt, line 1: bad"
    assert list(ws.runs()) == ["r"]


def test_new_file_failing_is_listed_as_error_and_cancelled_new_file_disappears(tmp_path):
    ws = Workspace()
    bad = ws.begin_load(tmp_path / "bad.txt")
    ws.fail_load(bad.path, bad.generation, "bad.txt: empty")
    gone = ws.begin_load(tmp_path / "gone.txt")
    ws.cancel_load(gone.path, gone.generation)
    assert [(e.name, e.status) for e in ws.entries] == [("bad.txt", "error")]
    assert ws.runs() == {}


def test_one_qrels_in_use_and_ranked_judgments_as_fallback(tmp_path):
    ws = Workspace()
    ranked_q = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    e = ws.begin_load(tmp_path / "ranked.txt")
    ws.finish_load(e.path, e.generation, "ranked", _run("sys"), ranked_q)
    held = ws.qrels()  # the frame given is held as columns, as the reader gives them to the window
    assert (held.qid.tolist(), held.doc.tolist(), held.value.tolist()) == ([b"1", b"1"], [b"a", b"b"], [1, 0])
    assert ws.qrels() is held
    q1 = ws.begin_load(tmp_path / "q1.txt")
    ws.finish_load(q1.path, q1.generation, "qrels", None, _qrels())
    q2 = ws.begin_load(tmp_path / "q2.txt")
    ws.finish_load(q2.path, q2.generation, "qrels", None, _qrels())
    assert [x.name for x in ws.entries] == ["ranked.txt", "q2.txt"]
    assert ws.qrels_entry() is q2


def test_rename_move_baseline_remove(tmp_path):
    ws = Workspace()
    paths = []
    for name in ("a", "b", "c"):
        e = ws.begin_load(tmp_path / f"{name}.txt")
        ws.finish_load(e.path, e.generation, "run", _run(name), None)
        paths.append(e.path)
    assert ws.rename(paths[0], "b") == "b (2)"
    assert ws.move(paths[2], -2)
    assert list(ws.runs()) == ["c", "b (2)", "b"]
    ws.set_baseline(paths[1])
    assert ws.baseline_label() == "b"
    ws.remove(paths[1])
    assert ws.baseline_label() == "c"
    with pytest.raises(KeyError):
        ws.set_baseline(str(tmp_path / "nope.txt"))


def test_expand_paths_lists_visible_files_of_a_folder_and_its_subfolders(tmp_path):
    (tmp_path / "b.txt").write_text("x")
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "bm25.run.gz").write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("x")
    got = expand_paths([tmp_path, tmp_path / "a.txt"])
    assert [os.path.relpath(p, tmp_path) for p in got] == ["a.txt", "b.txt", os.path.join("runs", "bm25.run.gz")]


def test_expand_stops_at_its_limits_and_says_so(tmp_path):
    deep = tmp_path / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    (deep / "too_deep.txt").write_text("x")
    for i in range(5):
        (tmp_path / f"r{i}.txt").write_text("x")
    (tmp_path / "notes.pdf").write_text("x")
    found = expand([tmp_path], max_files=3)
    assert [os.path.basename(p) for p in found.files] == ["r0.txt", "r1.txt", "r2.txt"]
    assert found.folder_of[found.files[0]] == str(tmp_path)
    assert any("only the first 3 files" in n for n in found.notes)
    assert any("1 file(s) that are not qrels or runs" in n for n in found.notes)
    assert "too_deep.txt" not in [os.path.basename(p) for p in expand([tmp_path]).files]


# ---------------------------------------------------------------- tables
def test_summary_table_marks_best_value_per_measure():
    summary = pd.DataFrame(
        {"map": [0.2, 0.5, 0.5], "P_10": [0.3, 0.3, 0.3], "num_ret": [10.0, 20.0, 5.0]},
        index=["a", "b", "c"],
    )
    table, tones = table_model.summary_table(summary)
    assert list(table.columns) == ["run", "map", "P_10", "num_ret"]
    assert list(table["run"]) == ["a", "b", "c"]
    assert list(tones["map"]) == ["", "best", "best"]
    assert list(tones["P_10"]) == ["", "", ""]  # all tie: nothing stands out
    assert list(tones["num_ret"]) == ["", "", ""]  # a count, not a quality


def test_per_query_table_differences_and_tones():
    wide = pd.DataFrame({"base": [0.5, 0.2, np.nan], "new": [0.7, 0.1, 0.3]}, index=["10", "9", "2"])
    wide = wide.reindex(sort_queries(wide.index))  # as the evaluation worker gives it
    table, tones = table_model.per_query_table(wide, "base")
    assert list(table["query_id"]) == ["2", "9", "10"]  # natural order kept
    assert list(table.columns) == ["query_id", "base", "new", "Δ new"]
    np.testing.assert_allclose(table["Δ new"].to_numpy(), [np.nan, 0.1 - 0.2, 0.7 - 0.5])
    assert list(tones["Δ new"]) == ["", "worse", "better"]


def test_per_query_table_without_baseline_has_no_differences():
    wide = pd.DataFrame({"a": [0.5]}, index=["1"])
    table, _ = table_model.per_query_table(wide, None)
    assert list(table.columns) == ["query_id", "a"]


def test_query_order_is_natural():
    assert sort_queries(["10", "9", "b", "a", "100", "1.5"]) == ["1.5", "9", "10", "100", "a", "b"]
    assert query_sort_key("7") < query_sort_key("10")
    np.testing.assert_array_equal(table_model.query_rank(["10", "9", "a"]), [1, 0, 2])


# ---------------------------------------------------------------- curves lookup
def test_curve_table_lookup():
    frame = pd.DataFrame(
        {
            "run": ["r", "r", "s", "r"],
            "query_id": ["1", "1", "1", "all"],
            "recall": [0.5, 0.0, 0.0, 0.0],
            "precision": [0.25, 1.0, 0.5, 0.75],
        }
    )
    t = CurveTable(frame, "recall", "precision")
    x, y = t.get("1", "r")
    np.testing.assert_array_equal(x, [0.0, 0.5])
    np.testing.assert_array_equal(y, [1.0, 0.25])
    assert t.get("2", "r") is None
    assert ("all", "r") in t


# ---------------------------------------------------------------- export
def test_csv_round_trips_at_full_precision(tmp_path):
    frame = pd.DataFrame({"query_id": ["001", "2"], "a": [1 / 3, np.pi], "Δ a": [-1e-17, np.nan]})
    path = tmp_path / "out.csv"
    export.write_csv(path, frame, ["measure: map", "runs: a"])
    text = path.read_text(encoding="utf-8")
    # a byte-order mark (the header has a "Δ"), then the lines that say what the table is and how to read it
    assert text.startswith("\ufeff# measure: map (read with pandas.read_csv(path, comment='#'))\n# runs: a\n")
    back = export.read_csv(path)
    assert list(back["query_id"]) == ["001", "2"]
    assert back["a"].tolist() == frame["a"].tolist()
    assert back["Δ a"].iloc[0] == -1e-17 and np.isnan(back["Δ a"].iloc[1])


def test_atomic_write_leaves_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "keep.csv"
    path.write_text("old")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        export.write_csv(path, pd.DataFrame({"a": [1.0]}))
    assert path.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["keep.csv"]


# ---------------------------------------------------------------- nDCG variants
def test_ndcg_measures_follow_the_chosen_variant():
    spec = ("map", "ndcg_cut.10,20", "ndcg", "nDCG@5", "nDCG", "P.10")
    assert ndcg_variant(spec, {"gain": "linear", "discount": "log", "ideal": "all"}) == spec
    assert ndcg_variant(spec, {"gain": "exp", "ideal": "retrieved"}) == (
        "map",
        "ndcg_ext_10(gain=exp,ideal=retrieved)",
        "ndcg_ext_20(gain=exp,ideal=retrieved)",
        "ndcg_ext(gain=exp,ideal=retrieved)",
        "ndcg_ext_5(gain=exp,ideal=retrieved)",
        "P.10",
    )


def test_ranked_judgments_are_merged_later_part_winning():
    from metrics.io.columns import columns_from_frame
    from workbench.scoring.evaluation import merge_qrels

    a = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["x", "y"], "relevance": [1, 0]})
    b = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["y", "z"], "relevance": [2, 1]})
    merged = merge_qrels([a, b])
    got = {(q, d): r for q, d, r in zip(merged.qid.tolist(), merged.doc.tolist(), merged.value.tolist())}
    assert got == {(b"1", b"x"): 1, (b"1", b"y"): 2, (b"2", b"z"): 1}
    assert (merged.qid.tolist(), merged.doc.tolist()) == ([b"1", b"1", b"2"], [b"x", b"y", b"z"])  # in order
    one = columns_from_frame(a, "qrels")
    assert merge_qrels([one]) is one
