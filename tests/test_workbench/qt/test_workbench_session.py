"""Background jobs of the window: the worker and the file-loading job, on their own."""

from __future__ import annotations

import logging
import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QThreadPool  # noqa: E402

from metrics.errors import Cancelled, InputError  # noqa: E402
from workbench.qt.jobs import Jobs  # noqa: E402
from workbench.qt.workers import Worker  # noqa: E402
from workbench.scoring.failures import describe_error  # noqa: E402
from workbench.state.loading import load_file  # noqa: E402


def _files(tmp_path):
    good = tmp_path / "good.run"
    good.write_text("".join(f"1 Q0 D{i} {i} {10 - i} tag\n" for i in range(1, 6)))
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 D1 1 0.5 tag\n1 Q0 D2\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 D1 1\n1 0 D2 0\n")
    return good, bad, qrels


def test_load_job_reads_the_file_and_reports_its_size_and_time(tmp_path):
    good, bad, qrels = _files(tmp_path)
    seen = []
    stat, loaded = load_file(str(good), None, seen.append)
    assert loaded.kind == "run" and len(loaded.run) == 5
    assert stat == (os.stat(good).st_size, os.stat(good).st_mtime)
    assert load_file(str(qrels), None, seen.append)[1].kind == "qrels"
    with pytest.raises(InputError, match="line 2"):
        load_file(str(bad), None, seen.append)


def test_load_job_stops_at_cancel(tmp_path):
    good, _, _ = _files(tmp_path)
    with pytest.raises(Cancelled):
        load_file(str(good), None, lambda fraction: False)


def test_load_job_reads_as_the_kind_asked_for(tmp_path):
    good, _, _ = _files(tmp_path)
    with pytest.raises(InputError) as info:
        load_file(str(good), "qrels", lambda f: None)
    assert "good.run" in describe_error(str(good), info.value)


def test_error_messages_name_the_file(tmp_path):
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(OSError) as info:
        load_file(missing, None, lambda f: None)
    assert describe_error(missing, info.value).startswith("nope.txt: ")
    assert describe_error("/x/run.txt", RuntimeError("boom")) == "run.txt: cannot be read (RuntimeError: boom)"


class _Gate:
    """A job body that waits until released (or cancelled), then returns its value."""

    def __init__(self, value):
        self.value, self.event = value, threading.Event()

    def __call__(self, progress):
        while not self.event.wait(0.01):
            if progress(0.5) is False:
                raise Cancelled("stopped")
        return self.value


def _outcomes(jobs, key, body, log):
    return jobs.submit(
        key,
        body,
        f"job {key}",
        lambda v: log.append(("done", key, v)),
        lambda e: log.append(("failed", key, str(e))),
        lambda: log.append(("cancelled", key)),
    )


def test_jobs_a_request_supersedes_the_older_one_of_its_kind(qtbot):
    jobs, log = Jobs(), []
    first, second = _Gate("old"), _Gate("new")
    a = _outcomes(jobs, "evaluate", first, log)
    _outcomes(jobs, "evaluate", second, log)
    assert a.worker.cancelled  # the older one is asked to stop...
    first.event.set()
    second.event.set()
    qtbot.waitUntil(lambda: not jobs.busy, timeout=5000)
    jobs.shutdown()
    assert log == [("done", "evaluate", "new")]  # ...and its outcome is never applied


def test_jobs_of_other_kinds_run_side_by_side(qtbot):
    jobs, log = Jobs(), []
    for key in (("load", "a"), ("load", "b"), "evaluate"):
        gate = _Gate(key)
        gate.event.set()
        _outcomes(jobs, key, gate, log)
    qtbot.waitUntil(lambda: not jobs.busy, timeout=5000)
    jobs.shutdown()
    assert sorted(map(str, log)) == sorted(
        map(
            str,
            [
                ("done", ("load", "a"), ("load", "a")),
                ("done", ("load", "b"), ("load", "b")),
                ("done", "evaluate", "evaluate"),
            ],
        )
    )


def test_jobs_cancel_keeps_the_job_so_its_owner_hears_how_it_ended(qtbot):
    jobs, log = Jobs(), []
    _outcomes(jobs, "evaluate", _Gate("x"), log)
    busy = []
    jobs.sigBusyChanged.connect(busy.append)
    jobs.cancel()
    qtbot.waitUntil(lambda: not jobs.busy, timeout=5000)
    jobs.shutdown()
    assert log == [("cancelled", "evaluate")] and busy == [False]


def test_jobs_discard_forgets_a_job_and_stops_its_worker(qtbot):
    jobs, log = Jobs(), []
    job = _outcomes(jobs, ("load", "r"), _Gate("x"), log)
    jobs.discard(("load", "r"))
    assert not jobs.busy and job.worker.cancelled
    jobs.shutdown()
    qtbot.wait(50)
    assert log == []


def test_jobs_failures_reach_the_owner_and_the_log(qtbot, caplog):
    jobs, log = Jobs(), []

    def fails(progress):
        raise ValueError("bad input")

    with caplog.at_level(logging.ERROR, logger="workbench.qt.jobs"):
        _outcomes(jobs, "compare", fails, log)
        qtbot.waitUntil(lambda: not jobs.busy, timeout=5000)
    jobs.shutdown()
    assert log == [("failed", "compare", "bad input")]
    assert "Traceback" in caplog.text and "ValueError: bad input" in caplog.text


def test_worker_emits_result_failure_and_progress(qtbot):
    pool = QThreadPool()
    ok = Worker(lambda progress: (progress(0.5), 42)[1])
    with (
        qtbot.waitSignal(ok.signals.sigFinished, timeout=5000) as done,
        qtbot.waitSignal(ok.signals.sigProgress, timeout=5000) as prog,
    ):
        pool.start(ok)
    assert done.args == [42] and prog.args == [0.5]

    def fails(progress):
        raise ValueError("bad input")

    bad = Worker(fails)
    with qtbot.waitSignal(bad.signals.sigFailed, timeout=5000) as failed:
        pool.start(bad)
    assert isinstance(failed.args[0], ValueError)
    pool.waitForDone(5000)


def test_cancelled_worker_tells_the_job_to_stop(qtbot):
    answers = []
    worker = Worker(lambda progress: answers.append(progress(0.1)))
    worker.cancel()
    worker.run()  # in this thread: the job sees the cancellation through its progress callback
    assert answers == [False] and worker.cancelled


def test_the_session_reads_its_model_and_changes_it_only_through_its_rules(qtbot, tmp_path):
    """What the Qt session holds is its model's, read through it and never written around its rules: an
    assignment raises, and the sample is opened (and the kinds chosen before remembered) by the model."""
    from workbench.qt.session import Session
    from workbench.state.loading import sample_files

    s = Session()
    try:
        assert s.workspace is s.model.workspace and s.measures == s.model.measures
        for name, value in (("results", None), ("is_sample", True), ("measures", ("map",)), ("selected_query", "1")):
            with pytest.raises(AttributeError, match="changed through its methods"):
                setattr(s, name, value)
        assert not s.model.is_sample and s.model.selected_query is None
        with qtbot.waitSignal(s.sigIdle, timeout=20000):
            s.reading.open_sample()
        assert s.is_sample and s.model.is_sample
        assert {e.path for e in s.workspace.entries} == {os.path.normpath(str(p)) for p in sample_files()}
        assert s.results is not None and s.results is s.model.results
        # a file the user chose to read as a run in an earlier session is read as a run, though it looks like qrels
        mine = tmp_path / "mine.txt"
        mine.write_text("1 Q0 d1 1\n1 Q0 d2 0\n")
        s.model.chosen_kinds.update({os.path.normpath(str(mine)): "run"})
        s.reading.open_files([str(mine)])
        qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert not s.is_sample  # the user's own file replaces the sample
        assert [e.path for e in s.workspace.entries] == [os.path.normpath(str(mine))]
        assert s.workspace.entries[0].forced_kind == "run"
    finally:
        s.shutdown()


def test_opening_a_folder_and_files_looks_at_the_disk_only_in_workers(qtbot, tmp_path, monkeypatch):
    """The window's thread makes no file system call while files and a folder are opened and read: the
    folder is walked and the files' sizes looked at in a worker, and the model decides with what it found
    (which runs are held, the folder's tally, the sample replaced, a file already open read again)."""
    from workbench.qt.session import Session
    from workbench.scoring import disk_runs
    from workbench.state.loading import sample_files

    study = tmp_path / "study"
    (study / "runs").mkdir(parents=True)
    (study / "qrels.txt").write_text("".join(f"{q} 0 D{d} {d % 2}\n" for q in (1, 2) for d in range(6)))
    for name, n in (("bm25", 6), ("dense", 40)):
        (study / "runs" / f"{name}.run").write_text(
            "".join(f"{q} Q0 D{d} {d} {10 - d / 7:.4f} {name}\n" for q in (1, 2) for d in range(n))
        )
    (study / "notes.txt").write_text("what these runs are\n")
    (study / "README.md").write_text("# a study\n")  # never a qrels or run file: left out at once
    extra = tmp_path / "extra.run"
    extra.write_text("1 Q0 D1 1 2.0 extra\n1 Q0 D2 2 1.0 extra\n")
    sizes = {p.name: p.stat().st_size for p in (extra, *study.rglob("*.run"), study / "qrels.txt")}
    # the files held in memory while they fit in the budget, by the sizes found: not the second run
    budget = sizes["qrels.txt"] + sizes["bm25.run"] + sizes["extra.run"] + len("what these runs are\n")
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", budget)

    gui = threading.current_thread()
    on_gui: list[tuple[str, object]] = []

    def spy(name, real):
        def call(*args, **kwargs):
            if threading.current_thread() is gui:
                on_gui.append((name, args[0] if args else None))
            return real(*args, **kwargs)

        return call

    s = Session()
    notices: list[str] = []
    s.sigNotice.connect(notices.append)
    try:
        with qtbot.waitSignal(s.sigIdle, timeout=20000):
            s.reading.open_sample()
        assert s.is_sample
        with monkeypatch.context() as m:
            for module, name in ((os, "stat"), (os, "scandir"), (os, "walk"), (os.path, "getsize"), (os.path, "isdir")):
                m.setattr(module, name, spy(name, getattr(module, name)))
            s.reading.open_files([str(study), str(extra)])
            assert s.busy  # (listed in a worker: nothing is opened yet)
            qtbot.waitUntil(lambda: not s.busy, timeout=20000)
            s.reading.open_files([str(extra)])  # already open: read again
            qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert on_gui == [], on_gui
        entries = {os.path.basename(e.path): e for e in s.workspace.entries}
        assert set(entries) == {"qrels.txt", "bm25.run", "dense.run", "extra.run"}  # the sample replaced
        assert not s.is_sample and not set(map(os.path.normpath, sample_files())) & {e.path for e in entries.values()}
        assert {name: e.size for name, e in entries.items()} == sizes
        held = [entries[n].hold for n in ("qrels.txt", "bm25.run", "dense.run", "extra.run")]
        assert held == [True, True, False, True]
        assert "study: 3 file(s) opened; 1 not recognised (notes.txt)" in notices
        assert "study: 1 file(s) that are not qrels or runs left out" in notices
        assert notices[-1] == "Already open, read again: extra.run"
        assert sorted(s.results.runs) == ["bm25", "dense", "extra"]
    finally:
        s.shutdown()


def test_files_opened_one_after_another_come_in_the_order_asked_and_cancel_stops_their_listing(
    qtbot, tmp_path, monkeypatch
):
    """What the user opens is listed in a worker; files asked for later wait for those asked before (a
    slow folder does not let the next drop pass it), and Cancel during the listing opens nothing."""
    import workbench.qt.reading as session_reading
    from workbench.qt.session import Session

    paths = {}
    for name in ("slow_a", "b", "slow_c"):
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text(f"1 Q0 D1 1 2.0 {name}\n1 Q0 D2 2 1.0 {name}\n")
    gate = threading.Event()
    real = session_reading.list_files

    def list_files(names):
        if any(os.path.basename(n).startswith("slow") for n in names):
            assert gate.wait(20)
        return real(names)

    monkeypatch.setattr(session_reading, "list_files", list_files)
    s = Session()
    said: list[str] = []
    s.sigMessage.connect(said.append)
    try:
        s.reading.open_files([str(paths["slow_a"])])
        s.reading.open_files([str(paths["b"])])
        qtbot.waitUntil(lambda: len(s.jobs.keys()) == 1, timeout=20000)  # b listed, slow_a not yet
        assert s.workspace.entries == [] and s.busy
        gate.set()
        qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert [os.path.basename(e.path) for e in s.workspace.entries] == ["slow_a.run", "b.run"]

        gate.clear()
        s.reading.open_files([str(paths["slow_c"])])
        s.cancel()
        gate.set()
        qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert [os.path.basename(e.path) for e in s.workspace.entries] == ["slow_a.run", "b.run"]
        assert "Opening slow_c.run: cancelled" in said
    finally:
        gate.set()
        s.shutdown()


def test_a_workspace_is_looked_at_in_a_worker_and_its_runs_held_by_their_sizes(qtbot, tmp_path, monkeypatch):
    """The files a workspace names are looked at in a worker, never by the window's thread, and the runs
    are held in memory by the sizes found (the rest scored from disk), as when files are dropped; a file it
    names that is gone is reported in its place; a file opened just after the workspace is opened after it."""
    from workbench.qt.session import Session
    from workbench.scoring import disk_runs
    from workbench.scoring.run_on_disk import RunOnDisk
    from workbench.state.workspace_file import FileItem, WorkspaceDoc

    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 D{d} {d % 2}\n" for q in (1, 2) for d in range(6)))
    for name, n in (("bm25", 6), ("dense", 40), ("extra", 3)):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"{q} Q0 D{d} {d} {10 - d / 7:.4f} {name}\n" for q in (1, 2) for d in range(n))
        )
    sizes = {p.name: p.stat().st_size for p in tmp_path.iterdir()}
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", sizes["qrels.txt"] + sizes["bm25.run"])
    names = ("qrels.txt", "bm25.run", "gone.run", "dense.run")
    doc = WorkspaceDoc(files=[FileItem(str(tmp_path / n), None) for n in names], measures=("map", "P.5"))

    gui = threading.current_thread()
    on_gui: list[tuple[str, object]] = []

    def spy(name, real):
        def call(*args, **kwargs):  # (the user's files only: a module imported for the first time is looked at)
            if threading.current_thread() is gui and args and str(args[0]).startswith(str(tmp_path)):
                on_gui.append((name, args[0]))
            return real(*args, **kwargs)

        return call

    s = Session()
    errors: list[str] = []
    s.sigError.connect(errors.append)
    try:
        with monkeypatch.context() as m:
            for module, name in ((os, "stat"), (os, "scandir"), (os.path, "isfile"), (os.path, "getsize")):
                m.setattr(module, name, spy(name, getattr(module, name)))
            s.reading.open_workspace(doc)
            s.reading.open_files([str(tmp_path / "extra.run")])
            assert s.busy
            qtbot.waitUntil(lambda: not s.busy and s.results is not None, timeout=20000)
        assert on_gui == [], on_gui
        entries = {os.path.basename(e.path): e for e in s.workspace.entries}
        assert list(entries) == ["qrels.txt", "bm25.run", "gone.run", "dense.run", "extra.run"]
        assert {n: entries[n].size for n in sizes} == sizes
        assert [entries[n].hold for n in ("qrels.txt", "bm25.run", "dense.run", "extra.run")] == [
            True,
            True,
            False,
            False,
        ]
        assert isinstance(entries["dense.run"].run, RunOnDisk) and not isinstance(entries["bm25.run"].run, RunOnDisk)
        assert entries["gone.run"].missing and any(e.startswith("gone.run: not found") for e in errors)
        assert s.measures == ("map", "P.5") and sorted(s.results.runs) == ["bm25", "dense", "extra"]
    finally:
        s.shutdown()


def test_a_workspace_file_is_read_in_a_worker_and_its_owner_hears_only_of_one_taken_or_unreadable(
    qtbot, tmp_path, monkeypatch
):
    """``Session.open_workspace_file`` reads and parses the workspace file in the worker that looks at the
    files it names; ``opened(doc)`` once it is taken (a file opened just after comes after it), ``failed``
    with the reason naming the file if it cannot be read, and neither when Cancel is pressed meanwhile."""
    import json

    import workbench.qt.reading as session_reading
    from workbench.qt.session import Session
    from workbench.state import workspace_file

    (tmp_path / "qrels.txt").write_text("1 0 D1 1\n1 0 D2 0\n")
    for name in ("bm25", "extra"):
        (tmp_path / f"{name}.run").write_text(f"1 Q0 D1 1 2.0 {name}\n1 Q0 D2 2 1.0 {name}\n")
    path = tmp_path / "study.irwb"
    files = [{"path": "qrels.txt", "kind": "qrels"}, {"path": "bm25.run", "kind": "run", "label": "BM25"}]
    path.write_text(json.dumps({"format": workspace_file.FORMAT, "version": 1, "files": files}))
    (tmp_path / "bad.irwb").write_text('{"format": "ir-workbench workspace", "version": 1, "files": 3}')
    gui, read_by = threading.current_thread(), []
    real_read, real_look = workspace_file.read, session_reading.look_at
    gate = threading.Event()
    gate.set()

    def read(p):
        read_by.append(threading.current_thread())
        return real_read(p)

    def look_at(names):
        assert gate.wait(20)
        return real_look(names)

    monkeypatch.setattr(workspace_file, "read", read)
    monkeypatch.setattr(session_reading, "look_at", look_at)
    s = Session()
    opened: list = []
    failed: list[BaseException] = []
    said: list[str] = []
    s.sigMessage.connect(said.append)
    try:
        s.reading.open_workspace_file(str(path), opened.append, failed.append)
        s.reading.open_files([str(tmp_path / "extra.run")])
        assert opened == [] and s.busy
        qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert [f.label for f in opened[0].files] == [None, "BM25"] and failed == []
        assert [e.label or e.name for e in s.workspace.entries] == ["qrels.txt", "BM25", "extra"]
        assert read_by and gui not in read_by

        s.reading.open_workspace_file(str(tmp_path / "bad.irwb"), opened.append, failed.append)
        qtbot.waitUntil(lambda: bool(failed), timeout=20000)
        assert str(failed[0]) == 'bad.irwb: "files" must be a list' and len(opened) == 1

        gate.clear()
        s.reading.open_workspace_file(str(path), opened.append, failed.append)
        s.cancel()
        gate.set()
        qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert len(opened) == 1 and len(failed) == 1 and "Opening the workspace: cancelled" in said
        assert [e.label or e.name for e in s.workspace.entries] == ["qrels.txt", "BM25", "extra"]
    finally:
        gate.set()
        s.shutdown()
