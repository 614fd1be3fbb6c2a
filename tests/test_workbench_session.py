"""Background jobs of the window: the worker and the file-loading job, on their own."""

from __future__ import annotations

import logging
import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QThreadPool  # noqa: E402

from metrics.errors import Cancelled, InputError  # noqa: E402
from workbench.jobs import Jobs  # noqa: E402
from workbench.jobs.workers import Worker  # noqa: E402
from workbench.model.loading import describe_error, load_file  # noqa: E402


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

    with caplog.at_level(logging.ERROR, logger="workbench.jobs"):
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
    from workbench.model.loading import sample_files
    from workbench.session import Session

    s = Session()
    try:
        assert s.workspace is s.model.workspace and s.measures == s.model.measures
        for name, value in (("results", None), ("is_sample", True), ("measures", ("map",)), ("selected_query", "1")):
            with pytest.raises(AttributeError, match="changed through its methods"):
                setattr(s, name, value)
        assert not s.model.is_sample and s.model.selected_query is None
        with qtbot.waitSignal(s.sigIdle, timeout=20000):
            s.open_sample()
        assert s.is_sample and s.model.is_sample
        assert {e.path for e in s.workspace.entries} == {os.path.normpath(str(p)) for p in sample_files()}
        assert s.results is not None and s.results is s.model.results
        # a file the user chose to read as a run in an earlier session is read as a run, though it looks like qrels
        mine = tmp_path / "mine.txt"
        mine.write_text("1 Q0 d1 1\n1 Q0 d2 0\n")
        s.remember_kinds({os.path.normpath(str(mine)): "run"})
        s.open_files([str(mine)])
        qtbot.waitUntil(lambda: not s.busy, timeout=20000)
        assert not s.is_sample  # the user's own file replaces the sample
        assert [e.path for e in s.workspace.entries] == [os.path.normpath(str(mine))]
        assert s.workspace.entries[0].forced_kind == "run"
    finally:
        s.shutdown()
