"""What the window shows follows the files on disk, and says nothing false meanwhile: a run deleted and
written again is read again; a declined reload leaves the run out and says so, never that the runs and the
qrels do not match."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics  # noqa: E402

TIMEOUT = 20000
MEASURES = ["map", "P_10", "ndcg_cut_10"]


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def _run_lines(tag: str, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    rows = []
    for qid in range(1, 11):
        scores = rng.random(10)
        for rank, d in enumerate(np.argsort(-scores)):
            rows.append(f"{qid} Q0 D{d} {rank + 1} {scores[d]:.5f} {tag}")
    return rows


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(3)
    qrels = [f"{qid} Q0 D{d} {int(rng.integers(0, 3))}" for qid in range(1, 11) for d in range(10)]
    return {
        "qrels": _write(tmp_path / "qrels.txt", qrels),
        "A": _write(tmp_path / "A.run", _run_lines("A", 1)),
        "B": _write(tmp_path / "B.run", _run_lines("B", 2)),
    }


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, MEASURES)
    yield w
    close_window(w)


def _idle(qtbot, window):
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)


def test_a_run_deleted_then_written_again_is_read_again(qtbot, window, data):
    s = window.session
    window.parts.files.open_files([str(p) for p in data.values()])
    _idle(qtbot, window)
    os.remove(data["B"])
    qtbot.waitUntil(lambda: "B.run was deleted from disk" in window.parts.bars.stale_bar.label.text(), timeout=TIMEOUT)
    assert not window.parts.bars.stale_bar.reload_button.isVisible()  # nothing to read

    before = s.workspace.entry(str(data["B"])).run
    _write(data["B"], _run_lines("B", 7))
    qtbot.waitUntil(lambda: s.workspace.entry(str(data["B"])).run is not before, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: s.evaluation_state() == "current" and not s.busy, timeout=TIMEOUT)
    want = metrics.evaluate(str(data["qrels"]), {"B": str(data["B"])}, MEASURES).summary().loc["B"]
    got = s.results.summary.loc["B"]
    np.testing.assert_array_equal(got[want.index].to_numpy(dtype=float), want.to_numpy(dtype=float))
    assert not window.parts.bars.stale_toolbar.isVisible()


def test_a_declined_reload_then_a_tick_says_the_run_is_left_out_not_that_nothing_matches(
    qtbot, window, data, monkeypatch
):
    from PySide6.QtWidgets import QMessageBox

    import workbench.views.window.files as window_files
    from workbench.scoring import disk_runs

    monkeypatch.setattr(disk_runs, "HOLD_BYTES", 0)  # the run is scored from its file
    monkeypatch.setattr(window_files, "LARGE_FILE", 10)  # and counts as large: its reload is asked for
    asked: list[str] = []
    monkeypatch.setattr(
        window_files.QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No
    )
    s = window.session
    window.parts.files.open_files([str(data["qrels"]), str(data["B"])])
    _idle(qtbot, window)
    assert list(s.results.runs) == ["B"]
    with open(data["B"], "a") as out:
        out.write("1 Q0 EXTRA 99 -1.0 B\n")
    qtbot.waitUntil(lambda: bool(asked), timeout=TIMEOUT)  # declined
    s.model.set_measures([*MEASURES, "recall_100"])  # a tick
    _idle(qtbot, window)
    qtbot.waitUntil(lambda: "B.run changed on disk" in window.parts.bars.stale_bar.label.text(), timeout=TIMEOUT)
    assert "left out" in window.parts.bars.stale_bar.label.text()
    assert "do not match" not in window.parts.bars.messages.text()
    for plot in (window.parts.views.pr_plot, window.parts.views.ndcg_plot):
        assert "need ad hoc qrels" not in plot.caption.text()


def test_a_notice_stays_until_the_user_acts_and_every_message_can_be_read_back(qtbot, window, data, tmp_path):
    s = window.session
    window.parts.files.open_files([str(p) for p in data.values()])
    _idle(qtbot, window)
    other = tmp_path / "qrels2.txt"
    other.write_text(data["qrels"].read_text())
    window.parts.files.open_files([str(other)])
    _idle(qtbot, window)
    told = "qrels2.txt replaces qrels.txt as the qrels"
    # the evaluation that followed says its line, and the notice stays
    qtbot.waitUntil(lambda: "Evaluated" in window.statusBar().currentMessage(), timeout=TIMEOUT)
    assert told in window.parts.bars.messages.text() and window.parts.bars.messages.isVisible()
    window.parts.files.open_files([str(data["A"])])  # the user's next action: an "already open" notice replaces it
    _idle(qtbot, window)
    assert told not in window.parts.bars.messages.text() and "Already open" in window.parts.bars.messages.text()
    log = s.model.messages.text()
    assert told in log and "Already open" in log and "Evaluated" in log
    dialog = window.parts.menus.show_messages()
    from PySide6.QtWidgets import QPlainTextEdit

    assert told in dialog.findChild(QPlainTextEdit).toPlainText()
    dialog.close()
