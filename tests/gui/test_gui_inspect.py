"""The Inspect view: what a dropped file holds, shown before and without any evaluation."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from qt_support import close_window, collected_as_in_the_window, open_window  # noqa: E402

from workbench.qt.paint import AFTER_PAINT_MS  # noqa: E402
from workbench.views.panels.inspect import inspection_html, sparkline  # noqa: E402

TIMEOUT = 20000


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    yield w
    close_window(w)


def test_a_run_dropped_alone_is_described_not_scored(qtbot, window, tmp_path):
    run = tmp_path / "bm25.run"
    run.write_text("".join(f"{q} Q0 d{d} {d} {10 - d / 10:.2f} bm25\n" for q in (1, 2, 3) for d in range(1, 41)))
    window.parts.files.open_files([str(run)])
    qtbot.waitUntil(lambda: window.session.inspection is not None and not window.session.busy, timeout=TIMEOUT)
    assert window.session.results is None
    text = window.parts.views.inspect_view.text()
    assert "bm25.run" in text and "run — line 1 has 6 fields" in text
    assert "120 data, 0 comment" in text and "40 / 40 / 40" in text and "bm25 (120 lines)" in text
    assert window.parts.views.docks["inspect"].isVisible()


def test_with_qrels_loaded_a_selected_run_shows_its_coverage(qtbot, window, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 d{d} {d % 2}\n" for q in (1, 2) for d in range(1, 11)))
    run = tmp_path / "r.run"
    run.write_text("".join(f"{q} Q0 d{d} {d} {1 / d:.4f} r\n" for q in (1, 2, 9) for d in range(1, 21)))
    window.parts.files.open_files([str(qrels), str(run)])
    qtbot.waitUntil(lambda: window.session.results is not None and not window.session.busy, timeout=TIMEOUT)
    window.parts.views.files.select_path(str(run))
    qtbot.waitUntil(lambda: (window.session.inspection or {}).get("against_qrels") is not None, timeout=TIMEOUT)
    d = window.session.inspection
    assert d["against_qrels"]["queries_only_in_run"] == ["9"] and d["against_qrels"]["shared_queries"] == 2
    text = window.parts.views.inspect_view.text()
    assert "queries only in the run" in text and "judged in the top 10 / top 100" in text
    assert "1 of the run's 3 queries are not in the qrels" in text
    window.parts.views.files.select_path(str(qrels))
    qtbot.waitUntil(lambda: (window.session.inspection or {}).get("kind") == "qrels", timeout=TIMEOUT)
    assert (
        "grades" in window.parts.views.inspect_view.text() and "0: 10, 1: 10" in window.parts.views.inspect_view.text()
    )


def test_a_bad_file_shows_its_error_with_the_line(qtbot, window, tmp_path):
    bad = tmp_path / "broken.run"
    bad.write_text("# header\n1 Q0 a 1 1.5 r\n1 Q0 b 2 abc r\n")
    window.parts.files.open_files([str(bad)])
    qtbot.waitUntil(lambda: window.session.inspection is not None and not window.session.busy, timeout=TIMEOUT)
    text = window.parts.views.inspect_view.text()
    assert "broken.run, line 3: found score 'abc'" in text
    assert text.count("line 3") == 1  # said once
    assert "documents" not in text  # no empty figures for a file that could not be read


def test_sparkline_and_html_are_safe():
    assert sparkline([0, 1, 2, 4]) == " ▂▄█"
    page = inspection_html(
        {"path": "<x>", "kind": None, "problems": [{"line": None, "severity": "error", "message": "<b>bad</b>"}]}
    )
    assert "<x>" not in page and "&lt;b&gt;bad&lt;/b&gt;" in page


def test_a_file_opened_while_runs_are_scored_is_inspected_after_and_never_shows_another(
    qtbot, window, tmp_path, monkeypatch
):
    """The inspection of a file waits for the scores (it reads the file again and joins it with the
    qrels); meanwhile the Inspect view says so instead of showing the file inspected before."""
    import threading

    from workbench.scoring import evaluation as analysis

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 d{d} {d % 2}\n" for q in (1, 2) for d in range(1, 11)))
    first, second = tmp_path / "first.run", tmp_path / "second.run"
    first.write_text("".join(f"{q} Q0 d{d} {d} {1 / d:.4f} a\n" for q in (1, 2) for d in range(1, 21)))
    second.write_text("".join(f"{q} Q0 d{d} {d} {d:.4f} b\n" for q in (1, 2, 7) for d in range(1, 31)))
    window.parts.files.open_files([str(qrels), str(first)])
    qtbot.waitUntil(lambda: window.session.results is not None and not window.session.busy, timeout=TIMEOUT)
    assert "first.run" in window.parts.views.inspect_view.text()

    release = threading.Event()
    real = analysis.compute
    monkeypatch.setattr(analysis, "compute", lambda *a, **k: (release.wait(TIMEOUT / 1000), real(*a, **k))[1])
    window.parts.files.open_files([str(second)])
    qtbot.waitUntil(lambda: window.session.jobs.running("evaluate"), timeout=TIMEOUT)
    qtbot.wait(200)
    assert window.session.inspection["path"].endswith("first.run")  # not yet computed again...
    assert window.parts.views.inspect_view.text() == ""  # ...and not shown under the new file's name
    assert window.parts.views.inspect_view.placeholder.text() == "Inspecting second.run once the runs are scored..."
    release.set()
    qtbot.waitUntil(lambda: "second.run" in window.parts.views.inspect_view.text(), timeout=TIMEOUT)
    assert window.session.results.runs == ["a", "b"]
    assert "1 of the run's 3 queries are not in the qrels" in window.parts.views.inspect_view.text()


@pytest.mark.alone  # (a timer of 150 ms must fire within the paint's 400)
def test_an_inspection_put_off_for_the_scores_starts_once_they_are_painted(qtbot, window, tmp_path, monkeypatch):
    """New scores are painted before the inspection of a file starts (in a thread of the window's process it
    would slow the painting down); meanwhile the window counts as busy, and is idle only once it is done."""
    import time

    from PySide6.QtCore import QTimer

    from workbench.qt import paint as session_paint

    monkeypatch.setattr(session_paint, "AFTER_PAINT_MS", 400)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 d{d} {d % 2}\n" for q in (1, 2) for d in range(1, 11)))
    run = tmp_path / "r.run"
    run.write_text("".join(f"{q} Q0 d{d} {d} {1 / d:.4f} r\n" for q in (1, 2) for d in range(1, 21)))
    s = window.session
    shown, asked, idle, busy_meanwhile = [], [], [], []
    real = s.model.followups.inspection_job
    monkeypatch.setattr(s.model.followups, "inspection_job", lambda: (asked.append(time.monotonic()), real())[1])
    s.sigResultsChanged.connect(lambda r: r is not None and shown.append(time.monotonic()))
    s.sigResultsChanged.connect(
        lambda _: QTimer.singleShot(150, lambda: busy_meanwhile.append((s.busy, s.jobs.running("inspect"))))
    )
    s.sigIdle.connect(lambda: idle.append(time.monotonic()))
    with collected_as_in_the_window():  # (no collection of the tests run before it in the 150 ms)
        window.parts.files.open_files([str(qrels), str(run)])
        qtbot.waitUntil(lambda: "r.run" in window.parts.views.inspect_view.text() and not s.busy, timeout=TIMEOUT)
    assert shown and asked and idle
    assert asked[-1] - shown[-1] >= 0.35  # not before the scores had their time to be painted
    assert busy_meanwhile[-1] == (True, False)  # waiting for the paint, not inspecting
    assert idle[-1] >= asked[-1]  # idle only once the inspection is done
    assert not [t for t in idle if shown[-1] <= t < asked[-1]]


def _scores_just_shown(qtbot, tmp_path):
    """A window that has just shown the scores of two runs (the work put off for the paint still waiting),
    and the list of the keys of the jobs it submits."""
    # the quick comparison comes with the scores only once scipy.special is imported (Request.quick):
    # without this, the test passed only after another test had imported it
    import scipy.special  # noqa: F401

    w = open_window(qtbot, tmp_path, ("map",))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 d{d} {d % 2}\n" for q in (1, 2) for d in range(1, 11)))
    runs = []
    for tag in ("a", "b"):
        runs.append(tmp_path / f"{tag}.run")
        runs[-1].write_text("".join(f"{q} Q0 d{d} {d} {1 / d:.4f} {tag}\n" for q in (1, 2) for d in range(1, 21)))
    submitted = []
    real = w.session.jobs.submit
    w.session.jobs.submit = lambda key, *a, **k: (submitted.append(key), real(key, *a, **k))[1]
    with qtbot.waitSignal(w.session.sigResultsChanged, timeout=TIMEOUT):
        w.parts.files.open_files([str(qrels), *map(str, runs)])
    return w, submitted


def test_work_put_off_for_the_paint_never_starts_once_the_session_is_shut_down(qtbot, tmp_path):
    """Closing the window while the inspection waits for the paint: it does not start afterwards (a job
    would report to a session that is gone)."""
    w, submitted = _scores_just_shown(qtbot, tmp_path)
    s = w.session
    assert s.after_paint.waiting and s.after_paint.work  # the inspection waits
    s.shutdown()
    before = list(submitted)
    qtbot.wait(600)
    assert submitted == before and not s.after_paint.work
    close_window(w)


def test_cancel_drops_the_work_put_off_for_the_paint(qtbot, tmp_path):
    """Cancel while the inspection waits for the paint: it does not start (it would once the user acts
    again), nothing is computed for the comparison, and its marks shown stay."""
    w, submitted = _scores_just_shown(qtbot, tmp_path)
    s = w.session
    assert s.after_paint.waiting and s.comparison is not None
    s.cancel()
    # the views' refreshes for the scores still come, a turn each (slow on a loaded machine); the put-off
    # work would start AFTER_PAINT_MS after the scores, so once they are done and that time has passed
    # again, work not dropped would have been submitted
    qtbot.waitUntil(lambda: not s.after_paint.waiting, timeout=TIMEOUT)
    qtbot.wait(AFTER_PAINT_MS + 200)
    assert "compare" not in submitted and "inspect" not in submitted and not s.after_paint.waiting
    assert s.comparison is not None and not s.comparison.intervals  # its marks still shown
    close_window(w)
