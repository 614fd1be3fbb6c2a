"""What the window shows always matches what is loaded, or says it is out of date.

Each test holds a job in the middle of its work (a read or an evaluation that
waits for a gate, checking for cancellation as the real ones do), then acts as
a user would: Cancel, remove, reload, drop again, replace the qrels.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import threading  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics.io.readers  # noqa: E402
from metrics.errors import Cancelled  # noqa: E402
from workbench.scoring import evaluation as analysis  # noqa: E402

TIMEOUT = 20000


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(5)
    q, runs = [], {"A": [], "B": [], "slow": []}
    for qid in range(1, 11):
        for d in range(10):
            q.append(f"{qid} Q0 D{d} {int(rng.integers(0, 3))}")  # the TREC DL layout
        for tag, rows in runs.items():
            scores = rng.random(10)
            for rank, d in enumerate(np.argsort(-scores)):
                rows.append(f"{qid} Q0 D{d} {rank + 1} {scores[d]:.5f} {tag}")
    paths = {"qrels": _write(tmp_path / "qrels.txt", q)}
    for tag, rows in runs.items():
        paths[tag] = _write(tmp_path / f"{tag}.run", rows)
    return paths


class Gate:
    """Holds every job it is given until released, asking ``progress`` as a real reader does."""

    def __init__(self):
        self.release = threading.Event()
        self.entered = threading.Event()
        self.cancelled = threading.Event()

    def hold(self, progress):
        self.entered.set()
        while not self.release.wait(0.005):
            if progress(0.5) is False:
                self.cancelled.set()
                raise Cancelled("cancelled")


@pytest.fixture
def gated_reads(monkeypatch):
    """Reads of files named ``slow*`` wait at the gate."""
    gate = Gate()
    real = metrics.io.readers.read_file_columns

    def read_file_columns(path, kind=None, progress=None):
        if os.path.basename(path).startswith("slow"):
            gate.hold(progress)
        return real(path, kind=kind, progress=progress)

    monkeypatch.setattr(metrics.io.readers, "read_file_columns", read_file_columns)
    yield gate
    gate.release.set()


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, ("map", "P.10"))
    yield w
    close_window(w)


def _idle(qtbot, window):
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)


def _load(qtbot, window, paths):
    window.parts.files.open_files([str(p) for p in paths])
    _idle(qtbot, window)


def test_cancel_during_an_evaluation_leaves_results_marked_out_of_date(qtbot, window, data, monkeypatch):
    s = window.session
    _load(qtbot, window, [data["qrels"], data["A"]])
    assert list(s.results.runs) == ["A"] and s.evaluation_state() == "current"
    assert not window.parts.bars.stale_toolbar.isVisible()

    gate, real = Gate(), analysis.compute

    def slow_compute(request, progress=None):
        gate.hold(progress)
        return real(request, progress)

    monkeypatch.setattr(analysis, "compute", slow_compute)
    window.parts.files.open_files([str(data["B"])])
    qtbot.waitUntil(gate.entered.is_set, timeout=TIMEOUT)
    assert window.parts.views.summary.placeholder.text() == "Evaluating…" or window.parts.views.summary.view.isVisible()
    window.parts.progress.cancel_button.click()
    _idle(qtbot, window)
    assert gate.cancelled.is_set()
    # B is loaded, the results hold only A: the window says so and offers to recompute
    assert [e.label for e in s.workspace.run_entries()] == ["A", "B"]
    assert list(s.results.runs) == ["A"]
    assert s.evaluation_state() == "outdated"
    qtbot.waitUntil(window.parts.bars.stale_toolbar.isVisible, timeout=TIMEOUT)  # (shown once the window has painted)
    assert "Out of date" in window.parts.bars.stale_bar.label.text()
    assert window.parts.bars.stale_bar.recompute_button.isVisible()
    assert "cancelled" in window.statusBar().currentMessage()

    monkeypatch.setattr(analysis, "compute", real)
    window.parts.bars.stale_bar.recompute_button.click()
    _idle(qtbot, window)
    assert list(s.results.runs) == ["A", "B"] and s.evaluation_state() == "current"
    assert not window.parts.bars.stale_toolbar.isVisible()


def test_reload_then_cancel_keeps_the_old_content_and_says_the_file_changed(qtbot, window, data, gated_reads):
    s = window.session
    slow = data["slow"]
    gated_reads.release.set()
    _load(qtbot, window, [data["qrels"], slow])
    before = s.results.summary.copy()
    gated_reads.release.clear()
    gated_reads.entered.clear()  # (set by the first read: wait for the reload's own)
    lines = slow.read_text().splitlines()
    _write(slow, lines[: len(lines) // 2])  # half the run
    os.utime(slow, (1_000_000_000, 1_000_000_000))
    s.reading.reload(str(slow))
    qtbot.waitUntil(gated_reads.entered.is_set, timeout=TIMEOUT)
    window.parts.progress.cancel_button.click()
    _idle(qtbot, window)
    assert gated_reads.cancelled.is_set()
    e = s.workspace.entry(str(slow))
    assert e.status == "ok" and len(e.run) == len(lines)  # the earlier content stays in use...
    assert s.results.summary.equals(before)
    # ...and is known to be old, once the disk watch (a thread of its own) has looked
    qtbot.waitUntil(lambda: [x.path for x in s.workspace.changed_on_disk()] == [e.path], timeout=TIMEOUT)
    # (the bar is refreshed at the next turn of the event loop after the watch's word: waited for, as a
    # user sees it a moment later)
    qtbot.waitUntil(lambda: "slow.run changed on disk" in window.parts.bars.stale_bar.label.text(), timeout=TIMEOUT)
    assert window.parts.bars.stale_bar.reload_button.isVisible()
    status = window.parts.views.files.table.item(1, 2).text()
    assert status == "changed on disk"

    gated_reads.release.set()
    window.parts.bars.stale_bar.reload_button.click()
    _idle(qtbot, window)
    assert len(s.workspace.entry(str(slow)).run) == len(lines) // 2
    assert not s.workspace.changed_on_disk() and not window.parts.bars.stale_toolbar.isVisible()


def test_removing_a_run_while_it_loads_stops_its_load(qtbot, window, data, gated_reads):
    s = window.session
    _load(qtbot, window, [data["qrels"], data["A"]])
    window.parts.files.open_files([str(data["slow"])])
    qtbot.waitUntil(gated_reads.entered.is_set, timeout=TIMEOUT)
    s.reading.remove(str(data["slow"]))
    qtbot.waitUntil(gated_reads.cancelled.is_set, timeout=TIMEOUT)  # the read itself stops
    _idle(qtbot, window)
    assert [e.name for e in s.workspace.entries] == ["qrels.txt", "A.run"]
    assert list(s.results.runs) == ["A"] and s.evaluation_state() == "current"


def test_cancel_then_reload_at_once_loads_the_file(qtbot, window, data, gated_reads):
    s = window.session
    _load(qtbot, window, [data["qrels"]])
    window.parts.files.open_files([str(data["slow"])])
    qtbot.waitUntil(gated_reads.entered.is_set, timeout=TIMEOUT)
    s.cancel()
    gated_reads.release.set()
    window.parts.files.open_files([str(data["slow"])])  # before the cancelled read has even reported
    _idle(qtbot, window)
    e = s.workspace.entry(str(data["slow"]))
    assert e is not None and e.status == "ok" and e.version == 1
    assert list(s.results.runs) == ["slow"] and s.evaluation_state() == "current"


def test_the_same_file_dropped_twice_is_loaded_once(qtbot, window, data, gated_reads):
    s = window.session
    _load(qtbot, window, [data["qrels"]])
    window.parts.files.open_files([str(data["slow"])])
    qtbot.waitUntil(gated_reads.entered.is_set, timeout=TIMEOUT)
    window.parts.files.open_files([str(data["slow"])])  # the second request supersedes the first
    # (once it is listed, in a worker: released before, the first read could be applied first)
    qtbot.waitUntil(lambda: not any(isinstance(k, tuple) and k[0] == "list" for k in s.jobs.keys()), timeout=TIMEOUT)
    gated_reads.release.set()
    _idle(qtbot, window)
    assert [e.name for e in s.workspace.entries] == ["qrels.txt", "slow.run"]
    assert s.workspace.entry(str(data["slow"])).version == 1  # one load was applied
    assert list(s.results.runs) == ["slow"]


def test_qrels_replaced_while_a_run_loads_scores_against_the_new_qrels(qtbot, window, data, gated_reads, tmp_path):
    s = window.session
    _load(qtbot, window, [data["qrels"]])
    window.parts.files.open_files([str(data["slow"])])
    qtbot.waitUntil(gated_reads.entered.is_set, timeout=TIMEOUT)
    # every document relevant: P@10 is 1 for every query
    all_rel = _write(tmp_path / "all_rel.txt", [f"{q} 0 D{d} 1" for q in range(1, 11) for d in range(10)])
    window.parts.files.open_files([str(all_rel)])
    gated_reads.release.set()
    _idle(qtbot, window)
    assert s.workspace.qrels_entry().name == "all_rel.txt"
    assert s.results.summary.loc["slow", "P_10"] == pytest.approx(1.0)
    assert s.evaluation_state() == "current"


def test_a_run_sharing_no_query_with_the_qrels_is_flagged_not_scored(qtbot, window, data, tmp_path):
    s = window.session
    other = _write(
        tmp_path / "robust.run", [f"30{q} Q0 X{d} {d + 1} {10 - d} robust" for q in range(3) for d in range(5)]
    )
    _load(qtbot, window, [data["qrels"], data["A"], other])
    assert s.results.unscored() == ["robust"]
    assert np.isnan(s.results.summary.loc["robust"]).all()  # no zeros presented as scores
    model = window.parts.views.summary.model
    row = list(model.frame()["run"]).index("robust")
    assert model.index(row, 0).data().endswith("not scored")
    assert model.index(row, 1).data() == "–"
    status = {
        window.parts.views.files.table.item(r, 0).text(): window.parts.views.files.table.item(r, 2).text()
        for r in range(window.parts.views.files.table.rowCount())
    }
    assert status["robust"] == "no shared query"
    assert any("robust" in m and "shares no query" in m for m in window.parts.bars.messages.messages)


def test_copy_gives_numbers_at_full_precision_without_marks(qtbot, window, data):
    s = window.session
    _load(qtbot, window, [data["qrels"], data["A"], data["B"]])
    qtbot.waitUntil(lambda: s.comparison is not None, timeout=TIMEOUT)
    view = window.parts.views.summary.view
    view.selectAll()
    view.setFocus()
    for action in view.actions():
        if action.text() == "Copy":
            action.trigger()
    lines = QGuiApplication.clipboard().text().splitlines()
    assert lines[0].split("\t") == ["run", "map", "P_10"]
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in lines[1:]}
    assert set(rows) == {"A", "B"}  # labels without "(baseline)" or markers
    assert float(rows["B"][0]) == s.results.summary.loc["B", "map"]  # repr round-trips exactly


def test_long_run_names_never_hide_the_numbers(qtbot, window, data, tmp_path):
    long = "trec-robust.xml-LMDirichlet1000.0-content-with-a-very-long-name"
    path = _write(
        tmp_path / "long.run", [line.rsplit(" ", 1)[0] + " " + long for line in data["B"].read_text().splitlines()]
    )
    _load(qtbot, window, [data["qrels"], data["A"], path])
    view = window.parts.views.per_query.view
    header = view.horizontalHeader()
    fm = view.fontMetrics()
    for c in range(1, view.model().columnCount()):
        text = view.model().index(0, c).data()
        assert header.sectionSize(c) >= fm.horizontalAdvance(text) + 6  # the value fits its column
        assert header.sectionSize(c) < fm.horizontalAdvance(long)  # the header is elided instead
    assert view.model().headerData(2, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == long


def test_plots_and_charts_hold_exactly_the_loaded_runs_after_a_switch(qtbot, window, data, tmp_path):
    from workbench.state.loading import sample_files

    s = window.session
    window.parts.files.open_sample()
    qtbot.waitUntil(lambda: not s.busy and s.comparison is not None, timeout=TIMEOUT)
    assert window.parts.views.pr_plot.legend_runs() == ["bm25", "bm25_rm3", "tfidf_title"]
    s.reading.clear()
    _load(qtbot, window, [data["qrels"], data["A"], data["B"]])
    qtbot.waitUntil(lambda: s.comparison is not None and not s.busy, timeout=TIMEOUT)
    for plot in (window.parts.views.pr_plot, window.parts.views.ndcg_plot):
        assert plot.legend_runs() == ["A", "B"] and set(plot.curves) == {"A", "B"}
    ticks = window.parts.views.diff_chart.plot.getPlotItem().getAxis("bottom")._tickLevels
    labels = {text for level in (ticks or []) for _, text in level}
    assert labels and labels <= {str(q) for q in range(1, 11)}  # no query id of the sample is left
    assert window.parts.views.diff_chart.chosen_runs() == ["B"]
    # one run only: nothing to compare, and nothing of the earlier data stays on the chart
    s.reading.remove(str(data["B"]))
    qtbot.waitUntil(lambda: not s.busy and s.comparison is None and list(s.results.runs) == ["A"], timeout=TIMEOUT)
    assert window.parts.views.pr_plot.legend_runs() == ["A"]
    ticks = window.parts.views.diff_chart.plot.getPlotItem().getAxis("bottom")._tickLevels
    assert not [text for level in (ticks or []) for _, text in level]
    assert sample_files()  # the sample is still there to open again


def test_query_ids_stay_in_sight_when_the_per_query_table_scrolls_right(qtbot, window, data, tmp_path):
    runs = []
    for i in range(12):  # many runs: the table is wider than the window
        path = tmp_path / f"run{i}.run"
        path.write_text(data["A"].read_text().replace(" A\n", f" a-rather-long-run-name-{i}\n"))
        runs.append(path)
    _load(qtbot, window, [data["qrels"], *runs])
    view = window.parts.views.per_query.view
    bar = view.horizontalScrollBar()
    assert bar.maximum() > 0 and not view.verticalHeader().isVisible()
    bar.setValue(bar.maximum())
    assert view.verticalHeader().isVisible()
    first = view.model().headerData(0, Qt.Orientation.Vertical)
    assert first == view.model().index(0, 0).data()  # the row's query id
