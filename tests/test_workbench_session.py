"""Background jobs of the window: the worker and the file-loading job, on their own."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QThreadPool  # noqa: E402

from metrics.errors import Cancelled, InputError  # noqa: E402
from workbench.session import _load_files, describe_error  # noqa: E402
from workbench.workers import Worker  # noqa: E402


def _files(tmp_path):
    good = tmp_path / "good.run"
    good.write_text("".join(f"1 Q0 D{i} {i} {10 - i} tag\n" for i in range(1, 6)))
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 D1 1 0.5 tag\n1 Q0 D2\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 D1 1\n1 0 D2 0\n")
    return good, bad, qrels


def test_load_job_reads_every_file_and_reports_failures_per_file(tmp_path):
    good, bad, qrels = _files(tmp_path)
    seen = []
    out = _load_files([(str(good), 1, None), (str(bad), 1, None), (str(qrels), 3, None)], seen.append)
    assert [(p, g) for p, g, _ in out] == [(str(good), 1), (str(bad), 1), (str(qrels), 3)]
    assert out[0][2].kind == "run" and len(out[0][2].run) == 5
    assert isinstance(out[1][2], InputError) and "line 2" in str(out[1][2])
    assert out[2][2].kind == "qrels"
    assert seen == sorted(seen) and 0 <= seen[0] and seen[-1] == 1.0


def test_load_job_stops_at_cancel_and_cancels_the_rest(tmp_path):
    good, _, qrels = _files(tmp_path)
    out = _load_files([(str(good), 1, None), (str(qrels), 1, None)], lambda fraction: False)
    assert all(isinstance(outcome, Cancelled) for _, _, outcome in out)


def test_load_job_reads_as_the_kind_asked_for(tmp_path):
    good, _, _ = _files(tmp_path)
    ((_, _, outcome),) = _load_files([(str(good), 1, "qrels")], lambda f: None)
    assert isinstance(outcome, InputError)
    assert "good.run" in describe_error(str(good), outcome)


def test_error_messages_name_the_file(tmp_path):
    missing = str(tmp_path / "nope.txt")
    ((_, _, outcome),) = _load_files([(missing, 1, None)], lambda f: None)
    assert describe_error(missing, outcome).startswith("nope.txt: ")
    assert describe_error("/x/run.txt", RuntimeError("boom")) == "run.txt: cannot be read (RuntimeError: boom)"


def test_worker_emits_result_failure_and_progress(qtbot):
    pool = QThreadPool()
    ok = Worker(lambda progress: (progress(0.5), 42)[1])
    with qtbot.waitSignal(ok.signals.sigFinished, timeout=5000) as done, qtbot.waitSignal(
        ok.signals.sigProgress, timeout=5000
    ) as prog:
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
