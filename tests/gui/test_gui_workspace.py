"""Workspace files: everything the window holds, saved and opened again; remembered kinds."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from metrics.errors import InputError  # noqa: E402
from workbench.state import workspace_file  # noqa: E402
from workbench.state.loading import SAMPLE_DIR  # noqa: E402

TIMEOUT = 20000


@pytest.fixture
def project(tmp_path):
    """The usual layout: qrels/ and runs/ side by side, the workspace beside them."""
    (tmp_path / "qrels").mkdir()
    (tmp_path / "runs").mkdir()
    shutil.copy(SAMPLE_DIR / "qrels.txt", tmp_path / "qrels" / "qrels.txt")
    for name in ("run_bm25.txt", "run_bm25_rm3.txt", "run_tfidf_title.txt"):
        shutil.copy(SAMPLE_DIR / name, tmp_path / "runs" / name)
    return tmp_path


def _idle(qtbot, w):
    qtbot.waitUntil(lambda: not w.session.busy and w.session.results is not None, timeout=TIMEOUT)


def test_a_workspace_round_trips_everything_the_window_holds(qtbot, project, tmp_path):
    (tmp_path / "a").mkdir()
    w = open_window(qtbot, tmp_path / "a", ("map",))
    s = w.session
    runs = project / "runs"
    w.parts.files.open_files(
        [
            project / "qrels" / "qrels.txt",
            runs / "run_bm25.txt",
            runs / "run_bm25_rm3.txt",
            runs / "run_tfidf_title.txt",
        ]
    )
    _idle(qtbot, w)
    s.model.files.rename(str(runs / "run_bm25_rm3.txt"), "RM3 expansion")
    s.model.files.move(str(runs / "run_tfidf_title.txt"), -1)
    s.model.files.set_baseline(str(runs / "run_tfidf_title.txt"))
    s.model.set_measures(("map", "ndcg_cut.10", "P.5"))
    s.model.set_relevance_level(2)
    s.followups.set_compare_settings(test="wilcoxon", alpha=0.01, correction="bh")
    _idle(qtbot, w)
    s.model.select_query(s.results.query_ids[3])
    path = project / "study.irwb"
    with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):  # (written by a job)
        assert w.parts.workspaces.write(str(path))
    saved = json.loads(path.read_text())
    assert saved["files"][0] == {"path": "qrels/qrels.txt", "kind": "qrels"}  # relative to the workspace
    expected_runs = [e.label for e in s.workspace.run_entries()]
    expected_summary = s.results.summary.copy()
    query = s.selected_query
    close_window(w)

    (tmp_path / "b").mkdir()
    w2 = open_window(qtbot, tmp_path / "b", ("map",))
    try:
        w2.parts.files.open_files([str(path)])
        _idle(qtbot, w2)
        s2 = w2.session
        qtbot.waitUntil(lambda: s2.selected_query == query, timeout=TIMEOUT)
        assert [e.label for e in s2.workspace.run_entries()] == expected_runs
        assert "RM3 expansion" in expected_runs
        assert s2.model.workspace.baseline_label() == "tfidf_title"
        assert s2.measures == ("map", "ndcg_cut.10", "P.5") and s2.settings.relevance_level == 2
        cs = s2.compare_settings
        assert (cs.test, cs.alpha, cs.correction) == ("wilcoxon", 0.01, "bh")
        assert s2.results.summary.equals(expected_summary)
        assert "study.irwb" in w2.windowTitle()
        assert str(path) in w2.parts.recent.paths()
    finally:
        close_window(w2)


def test_a_missing_file_is_reported_and_the_rest_opens(qtbot, project, tmp_path):
    doc = {
        "format": workspace_file.FORMAT,
        "version": 1,
        "files": [
            {"path": "qrels/qrels.txt", "kind": "qrels"},
            {"path": "runs/run_bm25.txt", "kind": "run"},
            {"path": "runs/gone.txt", "kind": "run"},
        ],
    }
    path = project / "w.irwb"
    path.write_text(json.dumps(doc))
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        w.parts.files.open_files([str(path)])
        _idle(qtbot, w)
        assert list(w.session.results.runs) == ["bm25"]
        assert "gone.txt: not found (named in the workspace" in w.parts.bars.messages.text()
        rows = {
            w.parts.views.files.table.item(r, 0).text(): w.parts.views.files.table.item(r, 2).text()
            for r in range(w.parts.views.files.table.rowCount())
        }
        assert rows["gone.txt"] == "error"
    finally:
        close_window(w)


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "line 1: not a workspace file (JSON expected"),
        ('{"format": "something else"}', "not a workspace file"),
        ('{"format": "ir-workbench workspace", "version": 99}', "newer than this program reads"),
        (
            '{"format": "ir-workbench workspace", "version": 1, "files": [{"path": "x", "kind": "judgments"}]}',
            "file 1: kind 'judgments'",
        ),
        (
            '{"format": "ir-workbench workspace", "version": 1, "k_max": 0}',
            '"k_max" must be a whole number from 1 to 10000',
        ),
    ],
)
def test_a_bad_workspace_file_names_the_file_and_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "bad.irwb"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        workspace_file.read(str(path))
    assert str(info.value).startswith("bad.irwb") and message in str(info.value)


def test_a_chosen_kind_is_remembered_for_that_file(qtbot, project, tmp_path):
    (tmp_path / "a").mkdir()
    w = open_window(qtbot, tmp_path / "a", ("map",))
    ranked = project / "ranked.txt"
    ranked.write_text("".join(f"1 Q0 D{i} {i % 2}\n" for i in range(5)))
    w.parts.files.open_files([str(ranked)])
    qtbot.waitUntil(lambda: not w.session.busy, timeout=TIMEOUT)
    assert w.session.workspace.entry(str(ranked)).kind == "qrels"  # four columns: qrels unless told
    w.session.reading.set_kind(str(ranked), "ranked")
    qtbot.waitUntil(lambda: w.session.workspace.entry(str(ranked)).kind == "ranked", timeout=TIMEOUT)
    w.close()
    close_window(w)
    w2 = open_window(qtbot, tmp_path / "a", ("map",))  # same settings file
    try:
        w2.parts.files.open_files([str(ranked)])
        qtbot.waitUntil(lambda: not w2.session.busy, timeout=TIMEOUT)
        assert w2.session.workspace.entry(str(ranked)).kind == "ranked"
        assert w2.parts.menus.reopen_action.isEnabled()  # the closed window kept its session
    finally:
        close_window(w2)


def test_open_folder_finds_qrels_and_runs_in_subfolders_and_says_what_it_left_out(qtbot, project, tmp_path):
    (project / "NOTES.txt").write_text("Runs of the study, see the paper.\n")
    (project / "README.md").write_text("# study\n")
    w = open_window(qtbot, tmp_path, ("map",))
    messages = []
    w.session.sigMessage.connect(messages.append)
    try:
        w.parts.files.open_files([str(project)])
        _idle(qtbot, w)
        s = w.session
        assert s.workspace.qrels_entry().name == "qrels.txt"
        assert list(s.results.runs) == ["bm25", "bm25_rm3", "tfidf_title"]
        assert [e.name for e in s.workspace.entries if e.status == "error"] == []  # NOTES.txt left out quietly
        assert any("4 file(s) opened; 1 not recognised (NOTES.txt)" in m for m in messages)
    finally:
        close_window(w)


def test_a_folder_with_nothing_to_evaluate_says_so(qtbot, tmp_path):
    folder = tmp_path / "empty_study"
    folder.mkdir()
    (folder / "notes.txt").write_text("nothing here\n")
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        with qtbot.waitSignal(w.session.sigError, timeout=TIMEOUT) as blocker:
            w.parts.files.open_files([str(folder)])
        assert blocker.args[0].startswith(f"No qrels or run file recognised in {folder}")
        assert "notes.txt" in blocker.args[0] and not w.session.workspace.entries
    finally:
        close_window(w)


def test_query_texts_show_beside_the_scores_and_in_the_drill_down(qtbot, project, tmp_path):
    queries = project / "queries.tsv"
    queries.write_text("qid\tquery\n401\tforeign minorities germany\n402\tbehavioral genetics\n")
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        w.parts.files.open_files(
            [str(project / "qrels" / "qrels.txt"), str(project / "runs" / "run_bm25.txt"), str(queries)]
        )
        _idle(qtbot, w)
        s = w.session
        assert s.workspace.entry(str(queries)).kind == "queries"
        frame = w.parts.views.per_query.model.frame()
        assert list(frame.columns[:2]) == ["query_id", "query"]
        texts = dict(zip(frame["query_id"], frame["query"]))
        assert texts["401"] == "foreign minorities germany" and texts["403"] == ""
        status = {
            w.parts.views.files.table.item(r, 0).text(): w.parts.views.files.table.item(r, 2).text()
            for r in range(w.parts.views.files.table.rowCount())
        }
        assert status["queries.tsv"] == "2 queries"
        with qtbot.waitSignal(s.sigDrilldownChanged, timeout=TIMEOUT):
            s.model.select_query("402")
        assert "“behavioral genetics”" in w.parts.views.drilldown.title.text()
    finally:
        close_window(w)


def test_an_export_never_replaces_a_loaded_input(qtbot, project, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        run = project / "runs" / "run_bm25.txt"
        w.parts.files.open_files([str(project / "qrels" / "qrels.txt"), str(run)])
        _idle(qtbot, w)
        before = run.read_bytes()
        for what in ("summary", "pr"):
            assert w.parts.exports.export(what, str(run))  # (refused by the worker that looks at the target)
            qtbot.waitUntil(lambda: "is loaded as input" in w.parts.bars.messages.text(), timeout=TIMEOUT)
            w.parts.bars.messages.clear()
        assert run.read_bytes() == before
        out = tmp_path / "summary.csv"
        with qtbot.waitSignal(w.sigExported, timeout=TIMEOUT):
            assert w.parts.exports.export("summary", str(out))
        import pandas as pd

        back = pd.read_csv(out, comment="#")  # the one argument the first line names
        assert list(back["run"]) == ["bm25"]
        assert out.read_text().splitlines()[0].endswith("(read with pandas.read_csv(path, comment='#'))")
    finally:
        close_window(w)


class _DiskCalls:
    """The file system calls made on the files under ``folder``, and on which thread (a module imported for
    the first time is looked at too: not counted): :attr:`calls` are those the window's thread made."""

    NAMES = (
        (os, "stat"),
        (os, "scandir"),
        (os, "listdir"),
        (os, "open"),
        (os, "replace"),
        (os.path, "isfile"),
        (os.path, "isdir"),
        (os.path, "exists"),
        (os.path, "getsize"),
        (builtins, "open"),
    )

    def __init__(self, monkeypatch, folder):
        self.seen: list[tuple[str, str, threading.Thread]] = []
        self.gui, folder = threading.current_thread(), str(folder)

        def spy(name, real):
            def call(*args, **kwargs):
                if args and str(args[0]).startswith(folder):
                    self.seen.append((name, str(args[0]), threading.current_thread()))
                return real(*args, **kwargs)

            return call

        for module, name in self.NAMES:
            monkeypatch.setattr(module, name, spy(name, getattr(module, name)))

    @property
    def calls(self) -> list[tuple[str, str]]:
        return [(name, path) for name, path, thread in self.seen if thread is self.gui]

    def elsewhere(self, path) -> set[str]:
        """The calls made by other threads than the window's (by name) on ``path``, or on the files whose
        path holds ``path`` (a folder, or the part of a name that a temporary file is named with)."""
        return {name for name, p, thread in self.seen if str(path) in p and thread is not self.gui}


def test_the_title_and_the_reopen_button_follow_the_files_without_a_look_at_the_disk(
    qtbot, project, tmp_path, monkeypatch
):
    """Whether a last session is kept is looked at by a worker once: the title, the sample's Reopen button
    and the menu's action follow it while files change, and the window's thread looks at no file."""
    (tmp_path / "last-session.irwb").write_text(json.dumps({"format": workspace_file.FORMAT, "version": 1}))
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        assert w.parts.workspaces.last_session_path() == str(tmp_path / "last-session.irwb")
        with monkeypatch.context() as m:
            disk = _DiskCalls(m, tmp_path)
            w.parts.files.open_sample()
            reopen = w.parts.progress.reopen_button
            qtbot.waitUntil(lambda: not w.session.busy and reopen.isVisible(), timeout=TIMEOUT)
            assert w.windowTitle() == "ir-workbench — Sample data" and w.parts.menus.reopen_action.isEnabled()
            w.parts.files.open_files([str(project / "qrels" / "qrels.txt"), str(project / "runs" / "run_bm25.txt")])
            _idle(qtbot, w)
            assert w.windowTitle() == "ir-workbench — qrels.txt"
            assert not reopen.isVisible() and not w.parts.progress.sample_label.isVisible()
        assert disk.calls == []
    finally:
        close_window(w)


def test_a_workspace_opened_in_the_window_holds_runs_by_size_and_its_missing_file_is_located(
    qtbot, project, tmp_path, monkeypatch
):
    """The workspace file is read and the files it names are looked at by a worker: the runs beyond what is
    held in memory are scored from disk and say so, the missing file says so in its place, and Locate…
    hands the path named to the file dialog, which looks itself."""
    from PySide6.QtWidgets import QFileDialog

    from workbench.scoring import disk_runs

    runs = project / "runs"
    sizes = {p.name: p.stat().st_size for p in (project / "qrels" / "qrels.txt", *runs.iterdir())}
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", sizes["qrels.txt"] + sizes["run_bm25.txt"])
    moved = tmp_path / "moved"
    moved.mkdir()
    shutil.move(str(runs / "run_bm25_rm3.txt"), moved / "run_bm25_rm3.txt")
    doc = {
        "format": workspace_file.FORMAT,
        "version": 1,
        "files": [
            {"path": "qrels/qrels.txt", "kind": "qrels"},
            {"path": "runs/run_bm25.txt", "kind": "run"},
            {"path": "runs/run_bm25_rm3.txt", "kind": "run", "label": "RM3"},
            {"path": "runs/run_tfidf_title.txt", "kind": "run"},
        ],
    }
    path = project / "study.irwb"
    path.write_text(json.dumps(doc))
    asked = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *args: asked.append(args) or (str(moved / "run_bm25_rm3.txt"), "")
    )
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        with monkeypatch.context() as m:
            disk = _DiskCalls(m, tmp_path)
            w.parts.files.open_files([str(path)])
            _idle(qtbot, w)
            assert w.windowTitle() == "ir-workbench — study.irwb — qrels.txt"
            rows = {
                w.parts.views.files.table.item(r, 0).text(): w.parts.views.files.table.item(r, 2).text()
                for r in range(4)
            }
            assert rows == {
                "qrels.txt": "in use",
                "bm25": "baseline",
                "run_bm25_rm3.txt": "error",
                "tfidf_title": "ok, on disk",
            }
            assert {os.path.basename(e.path): e.size for e in s.workspace.entries if not e.missing} == {
                n: sizes[n] for n in ("qrels.txt", "run_bm25.txt", "run_tfidf_title.txt")
            }
            named = next(e.path for e in s.workspace.entries if e.missing)
            w.parts.views.files._locate(named)
            qtbot.waitUntil(lambda: "RM3" in (s.results.runs if s.results else ()), timeout=TIMEOUT)
            _idle(qtbot, w)
        assert disk.calls == []  # (the workspace file too is read by a worker)
        assert {"getsize", "open"} <= disk.elsewhere(path)
        assert asked[0][2] == named == str(runs / "run_bm25_rm3.txt")
        assert list(s.results.runs) == ["bm25", "RM3", "tfidf_title"]
        entry = s.workspace.entry(str(moved / "run_bm25_rm3.txt"))
        assert entry.size == sizes["run_bm25_rm3.txt"]
    finally:
        close_window(w)


def _rows(w) -> list[tuple[str, str, str]]:
    """The Files panel as shown: name (or label), kind, status."""
    table = w.parts.views.files.table
    return [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]


def _study(project, name="study.irwb", **more):
    doc = {
        "format": workspace_file.FORMAT,
        "version": 1,
        "files": [
            {"path": "qrels/qrels.txt", "kind": "qrels"},
            {"path": "runs/run_bm25.txt", "kind": "run", "label": "BM25"},
            {"path": "runs/run_bm25_rm3.txt", "kind": "run", "label": "RM3"},
        ],
        "baseline": "runs/run_bm25.txt",
        **more,
    }
    path = project / name
    path.write_text(json.dumps(doc))
    return path


def test_a_workspace_is_opened_saved_kept_and_reopened_by_workers_only(qtbot, project, tmp_path, monkeypatch):
    """Opening a workspace (File > Open, a drop), saving it, keeping the last session as the window closes,
    building the next window's menus and reopening the last session: the window's thread reads, writes
    and looks at no file; workers do."""
    path = _study(project)
    shown = [("qrels.txt", "qrels", "in use"), ("BM25", "run", "baseline"), ("RM3", "run", "ok")]
    w = open_window(qtbot, tmp_path, ("map",))
    w2 = None
    try:
        with monkeypatch.context() as m:
            disk = _DiskCalls(m, tmp_path)
            w.parts.files.open_files([str(path)])
            _idle(qtbot, w)
            assert w.windowTitle() == "ir-workbench — study.irwb — qrels.txt"
            assert _rows(w) == shown
            assert str(path) in w.parts.recent.paths()  # (with the files it named, read since)
            w.session.model.files.rename(str(project / "runs" / "run_bm25_rm3.txt"), "expansion")
            copy = project / "copy.irwb"
            with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT) as saved:
                assert w.parts.workspaces.write(str(copy))
            assert saved.args == [str(copy)]
            assert w.windowTitle() == "ir-workbench — copy.irwb — qrels.txt"
            assert w.parts.recent.paths()[0] == str(copy)
            assert [f.get("label") for f in json.loads(copy.read_text())["files"]] == [None, "BM25", "expansion"]
            w.close()  # the last session is kept (written before the window is gone)
            last = tmp_path / "last-session.irwb"
            kept = json.loads(last.read_text())
            assert [(f["path"], f.get("label")) for f in kept["files"]] == [
                ("qrels/qrels.txt", None),
                ("runs/run_bm25.txt", "BM25"),
                ("runs/run_bm25_rm3.txt", "expansion"),
            ]

            w2 = open_window(qtbot, tmp_path, ("map",))
            assert not w2.parts.menus.reopen_action.isEnabled()  # (until a worker has found the last session)
            qtbot.waitUntil(w2.parts.menus.reopen_action.isEnabled, timeout=TIMEOUT)
            w2.parts.menus.reopen_action.trigger()
            _idle(qtbot, w2)
            assert w2.windowTitle() == "ir-workbench — qrels.txt"  # (the last session is no workspace file)
            assert _rows(w2) == [*shown[:2], ("expansion", "run", "ok")]
            assert list(w2.session.results.runs) == ["BM25", "expansion"]
        assert disk.calls == []
        assert {"getsize", "open"} <= disk.elsewhere(path)  # (read, by a worker)
        assert {"getsize", "open"} <= disk.elsewhere(last)
        assert "replace" in disk.elsewhere(".copy.irwb.") and "replace" in disk.elsewhere(".last-session.irwb.")
        assert "isfile" in disk.elsewhere(last)  # (whether a last session is kept: LastSession)
    finally:
        close_window(w)
        if w2 is not None:
            close_window(w2)


def test_cancel_while_a_workspace_is_read_leaves_the_window_as_it_was(qtbot, project, tmp_path, monkeypatch):
    """The title, the recent files, the files shown and the layout follow a workspace once it is taken:
    Cancel pressed while it is read leaves them as they were; opened again, it is taken whole."""
    from PySide6.QtCore import Qt

    w = open_window(qtbot, tmp_path, ("map",))
    try:
        w.parts.files.open_files([str(project / "qrels" / "qrels.txt"), str(project / "runs" / "run_bm25.txt")])
        _idle(qtbot, w)
        curves = w.parts.views.docks["prCurves"]
        curves.hide()  # the workspace's layout: no precision-recall dock
        layout = bytes(w.parts.layout.state().toBase64().data()).decode("ascii")
        curves.show()
        path = _study(project, layout=layout)
        before = (w.windowTitle(), w.parts.recent.paths(), _rows(w))
        assert before[0] == "ir-workbench — qrels.txt" and str(path) not in before[1]

        read, reading, release = workspace_file.read, threading.Event(), threading.Event()

        def held(p):
            reading.set()
            release.wait(5)
            return read(p)

        monkeypatch.setattr(workspace_file, "read", held)
        w.parts.files.open_files([str(path)])
        qtbot.waitUntil(reading.is_set, timeout=TIMEOUT)
        cancel = w.parts.progress.cancel_button
        qtbot.waitUntil(cancel.isVisible, timeout=TIMEOUT)
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
        release.set()
        qtbot.waitUntil(lambda: not w.session.busy, timeout=TIMEOUT)
        assert (w.windowTitle(), w.parts.recent.paths(), _rows(w)) == before
        assert not curves.isHidden()

        w.parts.files.open_files([str(path)])  # (not cancelled: taken whole)
        _idle(qtbot, w)
        assert w.windowTitle() == "ir-workbench — study.irwb — qrels.txt"
        assert str(path) in w.parts.recent.paths()
        assert [r[0] for r in _rows(w)] == ["qrels.txt", "BM25", "RM3"]
        assert curves.isHidden()
    finally:
        close_window(w)


def test_a_workspace_that_cannot_be_read_is_reported_naming_it_and_nothing_changes(
    qtbot, project, tmp_path, monkeypatch
):
    """Bad JSON, a file gone (the last session deleted since the window started too) or one too large: the
    message area names the file and what is wrong, what is open stays, and the window's thread read none;
    a save that fails says so, and the title does not name the file."""
    (project / "bad.irwb").write_text("not json")
    big = _study(project, "big.irwb")
    size = big.stat().st_size
    monkeypatch.setattr(workspace_file, "MAX_BYTES", 100)
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        w.parts.files.open_files([str(project / "qrels" / "qrels.txt"), str(project / "runs" / "run_bm25.txt")])
        _idle(qtbot, w)
        before = (w.windowTitle(), w.parts.recent.paths(), _rows(w))
        with monkeypatch.context() as m:
            disk = _DiskCalls(m, tmp_path)
            for open_it, said in (
                (
                    lambda: w.parts.files.open_files([str(project / "bad.irwb")]),
                    "bad.irwb, line 1: not a workspace file (JSON",
                ),
                (
                    lambda: w.parts.files.open_files([str(project / "gone.irwb")]),
                    "gone.irwb: No such file or directory",
                ),
                (
                    lambda: w.parts.files.open_files([str(big)]),
                    f"big.irwb: {size} bytes is too large for a workspace file",
                ),
                (w.parts.workspaces.reopen_last_session, "last-session.irwb: No such file or directory"),
            ):
                open_it()
                qtbot.waitUntil(lambda said=said: said in w.parts.bars.messages.text(), timeout=TIMEOUT)
                qtbot.waitUntil(lambda: not w.session.busy, timeout=TIMEOUT)
                assert (w.windowTitle(), w.parts.recent.paths(), _rows(w)) == before
            nowhere = project / "no such folder" / "w.irwb"
            assert w.parts.workspaces.write(str(nowhere))  # (started: the job says how it ended)
            said = f"Saving the workspace to {nowhere} failed: No such file or directory"
            qtbot.waitUntil(lambda: said in w.parts.bars.messages.text(), timeout=TIMEOUT)
            assert (w.windowTitle(), w.parts.recent.paths()) == before[:2]
        assert disk.calls == []
        assert "getsize" in disk.elsewhere(big) and "open" in disk.elsewhere(nowhere.parent)
    finally:
        close_window(w)


def test_a_workspace_is_never_saved_over_a_file_it_names(qtbot, project, tmp_path):
    """Saving a workspace onto the loaded qrels' (or a run's) path is refused, the file kept byte for byte,
    through the window and through the writer itself."""
    (tmp_path / "a").mkdir()
    w = open_window(qtbot, tmp_path / "a", ("map",))
    try:
        qrels, run = project / "qrels" / "qrels.txt", project / "runs" / "run_bm25.txt"
        w.parts.files.open_files([qrels, run])
        _idle(qtbot, w)
        before = {p: p.read_bytes() for p in (qrels, run)}
        for target in (qrels, run):
            assert w.parts.workspaces.write(str(target))  # (started: the job says how it ended)
            said = f"Saving the workspace to {target} failed: is loaded as input and is never written to"
            qtbot.waitUntil(lambda said=said: said in w.parts.bars.messages.text(), timeout=TIMEOUT)
        assert {p: p.read_bytes() for p in (qrels, run)} == before
        doc = w.parts.workspaces.doc()
        with pytest.raises(PermissionError, match="is loaded as input"):
            workspace_file.write(doc, str(qrels))
        assert qrels.read_bytes() == before[qrels]
        workspace_file.write(doc, str(project / "study.irwb"))  # anywhere else: written
        assert json.loads((project / "study.irwb").read_text())["files"][0]["path"] == "qrels/qrels.txt"
    finally:
        close_window(w)
