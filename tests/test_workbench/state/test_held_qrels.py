"""Qrels held beside the qrels in use (kind "held"): opened, swapped, held and kept by workspaces, without Qt."""

from __future__ import annotations

import shutil

import pytest

from workbench.state import workspace_file
from workbench.state.loading import SAMPLE_DIR, load_file
from workbench.state.session import SessionModel


def _open(model: SessionModel, paths, kind=None) -> list[str]:
    """Open files and read them in line, as the window's workers would."""
    started = []
    out = model.files.open_files([str(p) for p in paths], kind, start=started.append)
    for e in started:
        if model.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None)) is not None:
            model.files.announce_loaded()
    return out


def stricter(source, target) -> None:
    """A second assessor's qrels (as docs/judgments.md makes them): odd 1s become 0, 3s become 2."""
    with open(source) as inp, open(target, "w") as out:
        for line in inp:
            qid, it, doc, grade = line.split()
            g = int(grade)
            g = 0 if g == 1 and int(doc[-1]) % 2 else (2 if g == 3 else g)
            out.write(f"{qid} {it} {doc} {g}\n")


@pytest.fixture
def sample(tmp_path):
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, folder, ignore=shutil.ignore_patterns("*.tsv"))
    stricter(folder / "qrels.txt", tmp_path / "qrels_b.txt")
    return folder


def _told(model: SessionModel) -> list[str]:
    """Every notice ``model`` tells from now on (read at the end of the test)."""
    told: list[str] = []
    model.events.notice.connect(told.append)
    return told


def test_qrels_opened_to_compare_are_held_beside_and_score_nothing(sample):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    other = str(sample.parent / "qrels_b.txt")
    _open(model, [other], kind="held")
    ws = model.workspace
    assert ws.qrels_entry().path == str(sample / "qrels.txt")
    assert [e.path for e in ws.held_entries()] == [other] and ws.entry(other).kind == "held"
    assert list(ws.held_qrels()) == [other] and ws.held_qrels()[other] is ws.entry(other).qrels
    assert model.evaluation_request().qrels_name == str(sample / "qrels.txt")


def test_a_second_qrels_dropped_still_replaces_the_first_and_says_how_to_hold_one_beside(sample):
    model = SessionModel()
    told = _told(model)
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    _open(model, [sample.parent / "qrels_b.txt"])
    ws = model.workspace
    assert ws.qrels_entry().name == "qrels_b.txt" and ws.entry(str(sample / "qrels.txt")) is None
    assert ws.held_entries() == []
    assert any("qrels_b.txt replaces qrels.txt" in m and "Open qrels to compare" in m for m in told)


def test_choosing_qrels_for_a_held_file_swaps_them_without_reading_and_undo_swaps_back(sample):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    other = str(sample.parent / "qrels_b.txt")
    _open(model, [other], kind="held")
    held = model.workspace.entry(other)
    version = held.version
    told = _told(model)
    assert model.files.choose_kind(other, "qrels") is None  # (nothing to read again)
    ws = model.workspace
    assert ws.qrels_entry() is held and held.version == version
    assert [e.name for e in ws.held_entries()] == ["qrels.txt"]
    assert model.evaluation_request().qrels_name == other
    assert any("qrels_b.txt is the qrels in use; qrels.txt is held beside" in m for m in told)
    assert model.undo_stack.undo() == "qrels swapped back"
    assert ws.qrels_entry().name == "qrels.txt" and [e.name for e in ws.held_entries()] == ["qrels_b.txt"]


def test_the_qrels_in_use_held_beside_leaves_none_in_use_until_undo(sample):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    path = str(sample / "qrels.txt")
    assert model.files.choose_kind(path, "held") is None
    assert model.workspace.qrels_entry() is None and model.workspace.entry(path).kind == "held"
    assert model.evaluation_request() is None  # (nothing to score with)
    assert model.undo_stack.undo() == "qrels.txt is the qrels in use again"
    assert model.workspace.qrels_entry().path == path


def test_a_run_chosen_as_other_qrels_is_read_again_as_qrels(sample):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    e = model.files.choose_kind(str(sample / "run_bm25.txt"), "held")
    assert e is not None  # (read again, as qrels: the reader says what is wrong with it)
    with pytest.raises(Exception, match="qrels"):
        load_file(e.path, "held", None)


def test_a_workspace_keeps_the_held_qrels_and_opens_them_held(sample, tmp_path):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    other = str(sample.parent / "qrels_b.txt")
    _open(model, [other], kind="held")
    doc = model.snapshot()
    item = next(f for f in doc.files if f.path == other)
    assert item.kind == "held" and item.kind_chosen
    where = tmp_path / "w.irwb"
    workspace_file.write(doc, str(where))
    read = workspace_file.read(str(where))
    assert read == doc

    again = SessionModel()
    started = []
    again.open_workspace(read, start=started.append)
    assert {e.path: e.forced_kind for e in started}[other] == "held"
    for e in started:
        again.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None))
    assert [e.path for e in again.workspace.held_entries()] == [other]
    assert again.workspace.qrels_entry().path == str(sample / "qrels.txt")


def test_a_workspace_naming_held_qrels_without_kind_chosen_still_holds_them(sample, tmp_path):
    other = sample.parent / "qrels_b.txt"
    where = tmp_path / "w.irwb"
    where.write_text(
        '{"format": "ir-workbench workspace", "version": 1, "files": ['
        f'{{"path": "{sample / "qrels.txt"}", "kind": "qrels"}}, {{"path": "{other}", "kind": "held"}}]}}'
    )
    model = SessionModel()
    started = []
    model.open_workspace(workspace_file.read(str(where)), start=started.append)
    assert [e.forced_kind for e in started] == [None, "held"]
