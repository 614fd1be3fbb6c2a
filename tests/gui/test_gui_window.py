"""The workbench window driven as a user would: drops, selection, sorting, exports, bad files."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from qt_support import close_window, drop, open_window  # noqa: E402

import metrics  # noqa: E402
import metrics.engine.curves  # noqa: E402
import metrics.io.readers  # noqa: E402
from metrics.engine.settings import Settings  # noqa: E402
from metrics.io.table import Columns  # noqa: E402
from workbench.state.loading import SAMPLE_DIR  # noqa: E402
from workbench.views.common.qtable import RAW_ROLE  # noqa: E402
from workbench.views.window.main_window import MainWindow  # noqa: E402

MEASURES = ("map", "P.10", "recip_rank", "num_rel_ret")
TIMEOUT = 30000


# ---------------------------------------------------------------- helpers
@pytest.fixture
def sample(tmp_path):
    """A copy of the bundled sample (qrels and three runs; not its documents and query texts) in tmp_path."""
    out = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, out, ignore=shutil.ignore_patterns("*.tsv"))
    return out


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, MEASURES)
    yield w
    close_window(w)


def drop_and_wait(qtbot, window, paths):
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        drop(window, paths)


def export_and_wait(qtbot, window, what, path):
    """Export; tables are written by a worker, so wait until the file is announced."""
    with qtbot.waitSignal(window.sigExported, timeout=TIMEOUT) as blocker:
        assert window.parts.exports.export(what, str(path))
    assert blocker.args == [str(path)]


def expected_evaluation(qrels_path, run_paths, labels):
    qrels = metrics.io.readers.read_file(str(qrels_path)).qrels
    runs = {label: metrics.io.readers.read_file(str(p)).run for label, p in zip(labels, run_paths)}
    return metrics.evaluate(qrels, runs, list(MEASURES))


def table_values(view):
    """Source frame of a table as the model returns it for RAW_ROLE (full precision)."""
    model = view.model
    cols = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    rows = [[model.index(r, c).data(RAW_ROLE) for c in range(model.columnCount())] for r in range(model.rowCount())]
    return pd.DataFrame(rows, columns=cols)


def proxy_column(view, col):
    proxy = view.proxy
    return [proxy.index(r, col).data(RAW_ROLE) for r in range(proxy.rowCount())]


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------- loading
def test_drop_loads_files_and_tables_hold_evaluate_values(qtbot, window, sample):
    runs = [sample / "run_bm25.txt", sample / "run_bm25_rm3.txt", sample / "run_tfidf_title.txt"]
    drop_and_wait(qtbot, window, [sample / "qrels.txt", *runs])

    s = window.session
    kinds = {e.name: e.kind for e in s.workspace.entries}
    assert kinds == {
        "qrels.txt": "qrels",
        "run_bm25.txt": "run",
        "run_bm25_rm3.txt": "run",
        "run_tfidf_title.txt": "run",
    }
    labels = ["bm25", "bm25_rm3", "tfidf_title"]  # run tags
    assert list(s.workspace.runs()) == labels
    ev = expected_evaluation(sample / "qrels.txt", runs, labels)

    summary = table_values(window.parts.views.summary).set_index("run")
    expected = ev.summary()[ev.measure_names()]  # the window lists them in trec_eval's order, summary() as asked
    assert list(summary.index) == labels
    assert list(summary.columns) == list(expected.columns)
    np.testing.assert_array_equal(summary.to_numpy(dtype=float), expected.to_numpy(dtype=float))

    # per-query table: the chosen measure, one column per run, differences to the baseline
    window.parts.views.per_query.measure_box.setCurrentText("P_10")
    assert s.focus_measure in ("P_10", "recip_rank")
    table = table_values(window.parts.views.per_query).set_index("query_id")
    wide = ev.per_query_wide("P_10")
    assert sorted(table.index) == sorted(wide.index)
    for label in labels:
        np.testing.assert_array_equal(table.loc[wide.index, label].to_numpy(dtype=float), wide[label].to_numpy())
    assert s.model.workspace.baseline_label() == "bm25"
    np.testing.assert_array_equal(
        table.loc[wide.index, "Δ bm25_rm3"].to_numpy(dtype=float), (wide["bm25_rm3"] - wide["bm25"]).to_numpy()
    )
    assert "Sample data" not in window.windowTitle()


def test_drop_a_folder_and_best_value_is_highlighted(qtbot, window, sample):
    drop_and_wait(qtbot, window, [sample])
    s = window.session
    assert len(s.workspace.run_entries()) == 3
    model = window.parts.views.summary.model
    col = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index("map")
    best = [r for r in range(model.rowCount()) if model.index(r, col).data(Qt.ItemDataRole.FontRole) is not None]
    values = [model.index(r, col).data(RAW_ROLE) for r in range(model.rowCount())]
    assert best == [int(np.argmax(values))]
    assert model.index(best[0], col).data(Qt.ItemDataRole.BackgroundRole) is not None


def test_sample_is_labelled_and_replaced_by_own_files(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        window.parts.files.open_sample()
    assert "Sample data" in window.windowTitle()
    assert window.parts.progress.sample_label.isVisible()
    assert len(window.session.results.query_ids) >= 50
    assert list(window.session.workspace.runs()) == ["bm25", "bm25_rm3", "tfidf_title"]
    drop_and_wait(qtbot, window, small)  # the user's own files replace the sample
    assert list(window.session.workspace.runs()) == ["alpha", "beta"]
    assert "Sample data" not in window.windowTitle() and not window.parts.progress.sample_label.isVisible()


# ---------------------------------------------------------------- sorting, selection
@pytest.fixture
def small(tmp_path):
    """12 queries with ids 1..12, so that text order (10 < 2) and number order differ."""
    q, a, b = [], [], []
    rng = np.random.default_rng(3)
    for qid in range(1, 13):
        for d in range(8):
            q.append(f"{qid} 0 D{d} {int(rng.integers(0, 3))}")
        for tag, rows in (("alpha", a), ("beta", b)):
            scores = rng.random(8)
            for rank, d in enumerate(np.argsort(-scores)):
                rows.append(f"{qid} Q0 D{d} {rank + 1} {scores[d]:.5f} {tag}")
    return (
        write_lines(tmp_path / "qrels.txt", q),
        write_lines(tmp_path / "alpha.run", a),
        write_lines(tmp_path / "beta.run", b),
    )


def test_sorting_by_numeric_columns_orders_numerically(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    view = window.parts.views.per_query
    view.measure_box.setCurrentText("map")
    header = [view.model.headerData(c, Qt.Orientation.Horizontal) for c in range(view.model.columnCount())]
    assert header == ["query_id", "alpha", "beta", "Δ beta"]

    view.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert proxy_column(view, 0) == [str(i) for i in range(1, 13)]
    view.view.sortByColumn(3, Qt.SortOrder.AscendingOrder)
    diffs = [v for v in proxy_column(view, 3) if v is not None]
    assert diffs == sorted(diffs) and min(diffs) < 0 < max(diffs)
    view.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    values = proxy_column(view, 1)
    assert values == sorted(values, reverse=True)

    # counts in the summary sort as numbers too
    window.parts.views.summary.view.sortByColumn(4, Qt.SortOrder.AscendingOrder)
    counts = proxy_column(window.parts.views.summary, 4)
    assert counts == sorted(counts)

    view.filter_edit.setText("1")  # a whole id matches exactly ("1" is not "10", "11", "12")
    assert proxy_column(view, 0) == ["1"] and view.filter_status.text() == "1 of 12 queries"
    view.filter_edit.setText("2, 12 5")  # a list of ids
    assert sorted(proxy_column(view, 0), key=int) == ["2", "5", "12"]
    view.filter_edit.setText("2,99")
    assert proxy_column(view, 0) == ["2"] and "not found: 99" in view.filter_status.text()
    view.filter_edit.setText("99")  # nothing matches: the box says so
    assert proxy_column(view, 0) == [] and "no query matches" in view.filter_status.text()
    view.filter_edit.clear()
    assert len(proxy_column(view, 0)) == 12 and view.filter_status.text() == ""


def test_selecting_a_query_updates_the_plots(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    results = s.results
    mean = window.parts.views.pr_plot.data("alpha")
    np.testing.assert_array_equal(mean[1], results.pr.get("all", "alpha")[1])

    view = window.parts.views.per_query
    view.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    with qtbot.waitSignal(s.sigQueryChanged, timeout=TIMEOUT) as blocker:
        view.view.selectRow(6)
    assert blocker.args == ["7"] and s.selected_query == "7"
    for plot, table in ((window.parts.views.pr_plot, results.pr), (window.parts.views.ndcg_plot, results.ndcg)):
        for run in ("alpha", "beta"):
            x, y = plot.data(run)
            ex, ey = table.get("7", run)
            np.testing.assert_array_equal(x, ex)
            np.testing.assert_array_equal(y, ey)
    assert "7" in window.parts.views.pr_plot.caption.text()
    assert window.parts.toolbars.query_box.currentData() == "7"

    # choosing in the toolbar selects the row in the table; "mean" goes back to the mean
    window.parts.toolbars.query_box.setCurrentIndex(window.parts.toolbars.query_box.findData("3"))
    window.parts.toolbars.query_box.activated.emit(window.parts.toolbars.query_box.currentIndex())
    assert s.selected_query == "3" and view._current_query() == "3"
    s.model.select_query(None)
    np.testing.assert_array_equal(window.parts.views.ndcg_plot.data("beta")[1], results.ndcg.get("all", "beta")[1])
    assert view._current_query() is None


def test_measure_and_k_changes_recompute(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        window.parts.views.measures.extra.setText("P.5,20")
        window.parts.views.measures.apply()
    assert "P_5" in s.results.measures and "P_20" in s.results.measures
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        window.parts.views.ndcg_plot.k_box.setValue(25)
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)  # (the plots take new scores in on a turn of their own)
    x, _ = window.parts.views.ndcg_plot.data("alpha")
    assert x[-1] == 25


def test_ndcg_variant_recomputes_tables_and_plot(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        s.model.set_measures(("map", "ndcg_cut.10"))
    assert "ndcg_cut_10" in s.results.measures
    box = window.parts.views.measures.ndcg_boxes["gain"]
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        box.setCurrentIndex(box.findData("exp"))
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)  # (the plots take new scores in on a turn of their own)
    assert s.settings.ndcg_options()["gain"] == "exp"
    assert s.results.measures == ["map", "ndcg_ext_10(gain=exp)"]
    qrels = metrics.io.readers.read_file(str(small[0])).qrels
    runs = {label: metrics.io.readers.read_file(str(p)).run for label, p in zip(("alpha", "beta"), small[1:])}
    expected = metrics.evaluate(qrels, runs, ["ndcg_ext_10(gain=exp)"]).summary()
    summary = table_values(window.parts.views.summary).set_index("run")
    np.testing.assert_array_equal(
        summary["ndcg_ext_10(gain=exp)"].to_numpy(dtype=float), expected["ndcg_ext_10(gain=exp)"].to_numpy()
    )
    curve = metrics.engine.curves.at_k(qrels, runs, "NDCG", k_max=s.settings.k_max, settings=Settings(gain="exp"))
    mean = curve[(curve["run"] == "beta") & (curve["query_id"] == "all")]
    np.testing.assert_array_equal(window.parts.views.ndcg_plot.data("beta")[1], mean["value"].to_numpy())


def test_an_unknown_measure_is_reported_and_the_others_are_computed(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    with qtbot.waitSignal(s.sigError, timeout=TIMEOUT) as blocker:
        window.parts.views.measures.extra.setText("P.5 no_such_measure foo@3")
        window.parts.views.measures.apply()
    assert "no_such_measure" in blocker.args[0]
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert "P_5" in s.results.measures and "map" in s.results.measures
    assert window.parts.views.summary.model.rowCount() == 2 and "P_5" in list(
        window.parts.views.summary.model.frame().columns
    )
    assert "no_such_measure" in window.parts.bars.messages.text() and "foo@3" in window.parts.bars.messages.text()


def test_only_bad_measure_names_keep_the_earlier_scores(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    before = s.results
    for item in (window.parts.views.measures.list.item(i) for i in range(window.parts.views.measures.list.count())):
        item.setCheckState(Qt.CheckState.Unchecked)
    with qtbot.waitSignal(s.sigError, timeout=TIMEOUT) as blocker:
        window.parts.views.measures.extra.setText("no_such_measure")
        window.parts.views.measures.apply()
    assert "no_such_measure" in blocker.args[0]
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert s.results is before and window.parts.views.summary.model.rowCount() == 2


def test_rename_reorder_and_baseline(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    alpha = s.workspace.entry_by_label("alpha").path
    beta = s.workspace.entry_by_label("beta").path
    s.model.files.set_baseline(beta)
    header = [window.parts.views.per_query.model.headerData(c, Qt.Orientation.Horizontal) for c in range(4)]
    assert header[-1] == "Δ alpha"
    with qtbot.waitSignal(s.sigIdle, timeout=TIMEOUT):
        s.model.files.rename(alpha, "my system")
        s.model.files.move(beta, -5)
    assert s.results.runs == ["beta", "my system"]
    assert list(table_values(window.parts.views.summary)["run"]) == ["beta", "my system"]
    with qtbot.waitSignal(s.sigIdle, timeout=TIMEOUT):
        s.reading.remove(beta)
    assert s.results.runs == ["my system"] and s.model.workspace.baseline_label() == "my system"


# ---------------------------------------------------------------- export
def test_csv_exports_read_back_equal_to_the_core(qtbot, window, small, tmp_path, monkeypatch):
    drop_and_wait(qtbot, window, small)
    ev = window.session.results.evaluation

    path = tmp_path / "summary.csv"
    export_and_wait(qtbot, window, "summary", path)
    text = path.read_text()
    assert "qrels.txt" in text.split("\n", 4)[1] and "alpha" in text and "recip_rank" in text
    back = pd.read_csv(path, comment="#", dtype={"run": str}).set_index("run")
    expected = ev.summary()
    np.testing.assert_array_equal(back[list(expected.columns)].to_numpy(), expected.to_numpy())

    path = tmp_path / "per_query.csv"
    window.parts.views.per_query.measure_box.setCurrentText("map")
    export_and_wait(qtbot, window, "per_query_table", path)
    assert "# measure: map" in path.read_text()
    back = pd.read_csv(path, comment="#", dtype={"query_id": str}).set_index("query_id")
    wide = ev.per_query_wide("map")
    np.testing.assert_array_equal(back.loc[wide.index, "alpha"].to_numpy(), wide["alpha"].to_numpy())
    np.testing.assert_array_equal(back.loc[wide.index, "Δ beta"].to_numpy(), (wide["beta"] - wide["alpha"]).to_numpy())

    path = tmp_path / "all.csv"
    export_and_wait(qtbot, window, "per_query", path)
    back = pd.read_csv(path, comment="#", dtype={"run": str, "query_id": str})
    pq_map = ev.per_query[ev.per_query["measure"] == "map"]
    assert len(back) == len(pq_map)  # one row per (run, query)
    merged = back.set_index(["run", "query_id"])["map"]
    pq = pq_map.set_index(["run", "query_id"])["value"]
    np.testing.assert_array_equal(merged.loc[pq.index].to_numpy(), pq.to_numpy())

    # never overwritten silently
    asked: list[str] = []
    monkeypatch.setattr(window.parts.exports, "confirm_overwrite", lambda p: asked.append(p) or False)
    before = (tmp_path / "summary.csv").read_text()
    window.session.model.set_measures(("map",))
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        pass
    assert window.parts.exports.export(
        "summary", str(tmp_path / "summary.csv")
    )  # (the target is looked at in a worker)
    qtbot.waitUntil(lambda: asked == [str(tmp_path / "summary.csv")], timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)
    assert (tmp_path / "summary.csv").read_text() == before
    monkeypatch.setattr(window.parts.exports, "confirm_overwrite", lambda p: True)
    export_and_wait(qtbot, window, "summary", tmp_path / "summary.csv")
    assert (tmp_path / "summary.csv").read_text() != before


def test_plot_exports(qtbot, window, small, tmp_path):
    drop_and_wait(qtbot, window, small)
    png, svg = tmp_path / "pr.png", tmp_path / "ndcg.svg"
    export_and_wait(qtbot, window, "pr", png)
    export_and_wait(qtbot, window, "ndcg", svg)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:500]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "name, content",
    [
        ("binary.bin", bytes(range(256)) * 40),
        ("empty.txt", b""),
        ("short.run", b"1 Q0 D1 1 0.5 alpha\n1 Q0 D2 2\n"),
        ("text.txt", "this is not\na run file at all\n".encode()),
        # a run with one bad score, a tab after the query id: a run (TREC first), not query texts
        ("tabbed.run", b"q1\tQ0 d1 1 3.0 runA\nq1\tQ0 d2 2 abc runA\n"),
        # a picture: a binary file, as ir-eval says (the window said "found 1 column")
        ("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4),
    ],
)
def test_bad_file_shows_error_and_keeps_state(qtbot, window, small, tmp_path, name, content):
    drop_and_wait(qtbot, window, small)
    s = window.session
    before = s.results
    bad = tmp_path / name
    bad.write_bytes(content)
    with qtbot.waitSignal(s.sigError, timeout=TIMEOUT) as blocker:
        drop(window, [bad])
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    message = blocker.args[0]
    assert name in message
    assert window.parts.bars.messages.isVisible() and name in window.parts.bars.messages.text()
    assert s.results is before
    assert list(s.workspace.runs()) == ["alpha", "beta"]
    assert window.parts.views.summary.model.rowCount() == 2
    entry = s.workspace.entry(str(bad))
    assert entry.status == "error" and entry.error == message
    if name == "tabbed.run":
        assert "line 2" in message and entry.kind != "queries"
    if name == "picture.png":
        assert "binary" in message and "column" not in message


def test_qrels_and_runs_without_common_queries_are_explained(qtbot, window, small, tmp_path):
    other = write_lines(tmp_path / "other_qrels.txt", ["X1 0 D1 1", "X2 0 D2 1"])
    with qtbot.waitSignal(window.session.sigError, timeout=TIMEOUT) as blocker:
        drop(window, [other, small[1], small[2]])
    assert "do not match" in blocker.args[0]
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)
    assert window.parts.bars.messages.isVisible()
    # with no query to compare on, no comparison is attempted (and none fails)
    assert window.session.comparison is None
    assert "Comparison failed" not in window.parts.bars.messages.text()


def test_reading_a_file_as_the_wrong_kind_keeps_the_loaded_data(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    run = s.workspace.entry_by_label("alpha").path
    with qtbot.waitSignal(s.sigError, timeout=TIMEOUT) as blocker:
        s.reading.set_kind(run, "qrels")
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert "alpha.run" in blocker.args[0]
    e = s.workspace.entry(run)
    assert e.kind == "run" and e.status == "ok" and e.forced_kind == "qrels"
    assert list(s.workspace.runs()) == ["alpha", "beta"]


# ---------------------------------------------------------------- big files
@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """A run of 1.5 million lines (500 queries x 3000 documents)."""
    path = tmp_path_factory.mktemp("big") / "big.run"
    nq, nd = 500, 3000
    tails = [f" Q0 doc{d} {d} {1.0 / d:.6f} bigrun\n" for d in range(1, nd + 1)]  # the same for every query
    with open(path, "w") as fh:
        for q in range(nq):
            fh.write(str(q) + str(q).join(tails))  # (each line: the query id, then its tail)
    return path


def test_cancel_stops_a_long_load(qtbot, window, small, big_run, monkeypatch):
    drop_and_wait(qtbot, window, small)
    s = window.session
    before = s.results
    progress = []
    real_read = metrics.io.readers.read_file_columns

    def paced(path, kind=None, progress=None):
        # the real reader, with a pause after each progress report so that the
        # click on Cancel reaches the reader however fast the machine reads
        def report(fraction):
            answer = progress(fraction)
            time.sleep(0.05)
            return answer

        return real_read(path, kind=kind, progress=report)

    monkeypatch.setattr(metrics.io.readers, "read_file_columns", paced)

    def on_progress(fraction, what):
        progress.append(fraction)
        if fraction > 0:
            window.parts.progress.cancel_button.click()

    s.sigProgress.connect(on_progress)
    with qtbot.waitSignal(s.sigIdle, timeout=TIMEOUT):
        drop(window, [big_run])
    s.sigProgress.disconnect(on_progress)
    assert s.workspace.entry(str(big_run)) is None
    assert list(s.workspace.runs()) == ["alpha", "beta"]
    assert s.results is before
    assert any(0 < f < 1 for f in progress)
    assert not window.parts.progress.progress.isVisible()


@pytest.mark.alone  # (its gaps are wall-clock time)
def test_gui_thread_keeps_running_while_a_big_run_loads(qtbot, window, big_run, small):
    gaps = []
    last = [time.monotonic()]

    def tick():
        now = time.monotonic()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(tick)
    timer.start()
    try:
        with qtbot.waitSignal(window.session.sigIdle, timeout=120000):
            drop(window, [small[0], big_run])
    finally:
        timer.stop()
    assert "bigrun" in window.session.workspace.runs()
    # the window's thread kept handling events while the run was read and evaluated; how long its
    # longest pause is, is measured by benchmarks/gui_responsiveness.py (a speed, not a test)
    assert len(gaps) > 5


# ---------------------------------------------------------------- settings, disk changes
def test_layout_and_recent_files_are_remembered(qtbot, tmp_path, small):
    ini = str(tmp_path / "layout.ini")
    w = MainWindow(settings=QSettings(ini, QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.session.sigIdle, timeout=TIMEOUT):
        w.parts.files.open_files([small[0], small[1]])
    w.parts.views.docks["ndcgAtK"].hide()
    w.close()
    assert set(w.parts.recent.paths()) == {str(small[0]), str(small[1])}

    w2 = MainWindow(settings=QSettings(ini, QSettings.Format.IniFormat))
    qtbot.addWidget(w2)
    w2.show()
    assert not w2.parts.views.docks["ndcgAtK"].isVisible()
    assert w2.parts.views.docks["prCurves"].isVisible()
    assert set(w2.parts.recent.paths()) >= {str(small[0]), str(small[1])}
    w2.session.shutdown()


def test_file_changed_on_disk_is_reloaded(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    beta = small[2]
    lines = beta.read_text().splitlines()
    # beta now retrieves only its first document for every query
    kept = [line for line in lines if line.split()[3] == "1"]
    time.sleep(0.01)
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        beta.write_text("\n".join(kept) + "\n")
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert len(s.workspace.entry_by_label("beta").run) == len(kept)


# ---------------------------------------------------------------- command line
def test_screenshot_command(tmp_path, small):
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    proc = subprocess.run(
        [sys.executable, "-m", "workbench.app", "--screenshot", str(out), "--size", "900x600", *map(str, small)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert image.width() >= 900 and image.height() >= 600
    # a rendered window, not a blank picture: the plots draw several colours
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 50


# ---------------------------------------------------------------- superseded work, panels
def test_a_superseded_evaluation_is_never_shown(qtbot, window, small, monkeypatch):
    import threading

    from workbench.scoring import evaluation as analysis

    drop_and_wait(qtbot, window, small)
    s = window.session
    real = analysis.compute
    started, release = threading.Event(), threading.Event()

    def slow_first(request, progress=None):
        if request.measures == ("map",):
            started.set()
            release.wait(10)
        return real(request, progress)

    monkeypatch.setattr(analysis, "compute", slow_first)
    shown = []
    s.sigResultsChanged.connect(lambda r: shown.append(tuple(r.measures)))
    s.model.set_measures(("map",))
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT)
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        s.model.set_measures(("P.5",))
    release.set()
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    qtbot.wait(50)  # (time for the superseded evaluation to show, were it ever shown)
    assert shown == [("P_5",)]
    assert s.results.measures == ["P_5"]


def test_cancel_drops_a_running_evaluation(qtbot, window, small, monkeypatch):
    import threading

    from workbench.scoring import evaluation as analysis

    drop_and_wait(qtbot, window, small)
    s = window.session
    before = s.results
    real = analysis.compute
    started, release = threading.Event(), threading.Event()

    def slow(request, progress=None):
        started.set()
        release.wait(10)
        return real(request, progress)

    monkeypatch.setattr(analysis, "compute", slow)
    s.model.set_measures(("map",))
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT)
    assert window.parts.progress.cancel_button.isVisible()
    with qtbot.waitSignal(s.sigIdle, timeout=TIMEOUT):
        window.parts.progress.cancel_button.click()
        release.set()
    assert s.results is before
    assert not window.parts.progress.progress.isVisible()


def test_files_panel_renames_and_corrects_kinds(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    s = window.session
    table = window.parts.views.files.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "beta")
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        table.item(row, 0).setText("beta v2")
    assert s.results.runs == ["alpha", "beta v2"]
    assert table.item(row, 1).text() == "run"
    combo = window.parts.views.files.kind_box(row)
    index = combo.findData("ranked")
    with qtbot.waitSignal(s.sigError, timeout=TIMEOUT) as blocker:
        combo.activated.emit(index)
    assert "beta.run" in blocker.args[0]  # a 6-column run is no ranked-judgments file
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert s.workspace.entry_by_label("beta v2").kind == "run"


def test_a_click_on_a_kind_offers_the_other_kinds_and_rows_hold_no_widgets(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    table = window.parts.views.files.table
    kinds = [table.item(r, 1).text() for r in range(table.rowCount())]
    assert kinds == ["qrels", "run", "run"]
    assert all(table.cellWidget(r, 1) is None for r in range(table.rowCount()))  # drawn, not a box per row
    row = kinds.index("qrels")
    rect = table.visualRect(table.model().index(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    box = table.indexWidget(table.model().index(row, 1))
    assert box is not None and box.isVisible()
    assert [box.itemText(i) for i in range(box.count())] == [
        "qrels",
        "hold beside: other qrels",  # (kept as read: docs/window.md)
        "read as run",
        "read as ranked judgments",
        "read as query texts",
        "read as intent qrels",
        "read as collection",
    ]
    assert box.itemData(0) is None  # the kind it has: choosing it reads nothing again
    before = window.session.workspace.qrels_entry().qrels
    box.activated.emit(0)
    qtbot.waitUntil(lambda: table.indexWidget(table.model().index(row, 1)) is None, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)
    assert window.session.workspace.qrels_entry().qrels is before
    assert [table.item(r, 1).text() for r in range(table.rowCount())] == kinds


def test_a_large_changed_file_is_reloaded_only_when_confirmed(qtbot, window, small, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    import workbench.views.window.files as mw

    drop_and_wait(qtbot, window, small)
    s = window.session
    monkeypatch.setattr(mw, "LARGE_FILE", 10)
    asked = []
    monkeypatch.setattr(mw.QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    before = s.workspace.entry_by_label("beta").run
    with qtbot.waitSignal(s.sigFileChangedOnDisk, timeout=TIMEOUT):
        small[2].write_text(small[2].read_text() + "1 Q0 EXTRA 99 -1.0 beta\n")
    assert asked and "beta.run" in asked[0]
    assert not s.busy
    assert s.workspace.entry_by_label("beta").run is before


def test_ranked_judgment_files_without_qrels(qtbot, window, tmp_path):
    # "qid Q0 docid grade", in ranked order: runs that carry their own judgments
    a = write_lines(tmp_path / "sysA.txt", ["1 Q0 D1 2", "1 Q0 D2 0", "2 Q0 D5 1", "2 Q0 D6 1"])
    b = write_lines(tmp_path / "sysB.txt", ["1 Q0 D2 0", "1 Q0 D3 1", "1 Q0 D1 2", "2 Q0 D6 1"])
    s = window.session
    drop_and_wait(qtbot, window, [a])
    assert [e.kind for e in s.workspace.entries] == ["qrels"]  # four columns: qrels, never guessed as ranked
    with qtbot.waitSignal(s.sigIdle, timeout=TIMEOUT):
        box = window.parts.views.files.kind_box(0)
        box.activated.emit(box.findData("ranked"))
    with qtbot.waitSignal(s.sigIdle, timeout=TIMEOUT):
        s.reading.open_files([str(b)], kind="ranked")  # as the Files panel's "read as" does
    assert [e.kind for e in s.workspace.entries] == ["ranked", "ranked"]
    qrels = s.results.request.qrels
    assert isinstance(qrels, Columns)  # (the window holds columns)
    assert sorted(zip(qrels.qid.tolist(), qrels.doc.tolist())) == [
        (b"1", b"D1"),
        (b"1", b"D2"),
        (b"1", b"D3"),
        (b"2", b"D5"),
        (b"2", b"D6"),
    ]
    runs = {e.label: e.run for e in s.workspace.run_entries()}
    expected = metrics.evaluate(qrels, runs, list(MEASURES)).summary()
    summary = table_values(window.parts.views.summary).set_index("run")
    np.testing.assert_array_equal(summary[list(expected.columns)].to_numpy(dtype=float), expected.to_numpy())


def test_a_failed_export_is_reported(qtbot, window, small, tmp_path):
    drop_and_wait(qtbot, window, small)
    target = tmp_path / "missing_dir" / "summary.csv"
    assert window.parts.exports.export("summary", str(target))
    qtbot.waitUntil(lambda: "Export to" in window.parts.bars.messages.text(), timeout=TIMEOUT)
    assert str(target) in window.parts.bars.messages.text() and window.parts.bars.messages.isVisible()
    assert not target.exists()
    assert window.parts.exports.export("pr", str(tmp_path / "missing_dir" / "pr.png"))  # (written by a worker)
    qtbot.waitUntil(lambda: "pr.png" in window.parts.bars.messages.text(), timeout=TIMEOUT)
    assert not (tmp_path / "missing_dir").exists()


def test_plot_context_menu_exports_through_the_window(qtbot, window, monkeypatch):
    asked = []
    monkeypatch.setattr(window.parts.exports, "export_dialog", asked.append)
    for plot in (window.parts.views.pr_plot, window.parts.views.ndcg_plot):
        (action,) = plot.plot.scene().contextMenu  # pyqtgraph's own export dialog is replaced
        action.trigger()
    assert asked == ["pr", "ndcg"]


def test_clicking_a_summary_cell_shows_that_measure_per_query(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    model = window.parts.views.summary.model
    col = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index("recip_rank")
    window.parts.views.summary.view.clicked.emit(window.parts.views.summary.proxy.index(0, col))
    assert window.session.focus_measure == "recip_rank"
    assert window.parts.views.per_query.measure_box.currentText() == "recip_rank"
    wide = window.session.results.per_query["recip_rank"]
    table = table_values(window.parts.views.per_query).set_index("query_id")
    np.testing.assert_array_equal(table.loc[wide.index, "alpha"].to_numpy(dtype=float), wide["alpha"].to_numpy())


def test_recent_files_menu(qtbot, window, small):
    drop_and_wait(qtbot, window, small)
    window.parts.files.fill_recent_menu(window.parts.menus.recent_menu)
    texts = [a.text() for a in window.parts.menus.recent_menu.actions() if a.text()]
    assert set(map(str, small)) <= set(texts) and "Clear list" in texts
    reopen = next(a for a in window.parts.menus.recent_menu.actions() if a.text() == str(small[1]))
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        reopen.trigger()  # loads the file again
    assert list(window.session.workspace.runs()) == ["alpha", "beta"]


def test_reader_warnings_reach_the_status_bar(qtbot, window, small, tmp_path):
    lines = small[1].read_text().splitlines()
    lines[-1] = lines[-1].rsplit(" ", 1)[0] + " renamed_tag"
    changed = write_lines(tmp_path / "changing_tag.txt", lines)
    with qtbot.waitSignals(
        [window.session.sigMessage], timeout=TIMEOUT, check_params_cbs=[lambda text: "renamed_tag" in text]
    ):
        drop(window, [small[0], changed])
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)


def test_the_window_shows_itself_before_its_views_and_then_opens_what_it_was_asked(qtbot, tmp_path, sample):
    """``ir-workbench`` shows the window first (title and status, no views yet) and builds its views
    just after; work asked for meanwhile (opening files) runs once they are built, in order."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings, deferred=True)
    qtbot.addWidget(w)
    done = []
    w.startup.when_ready(lambda: done.append("first"))
    w.startup.when_ready(lambda: w.parts.files.open_files(sorted(str(p) for p in sample.iterdir())))
    w.startup.when_ready(lambda: done.append("second"))
    w.show()
    qtbot.waitExposed(w)
    assert not w.built and not done  # the frame is on the screen before the views
    qtbot.waitUntil(lambda: done == ["first", "second"], timeout=TIMEOUT)
    assert set(w.parts.views.docks) >= {"files", "summary", "prCurves", "ndcgAtK", "diffChart", "drilldown"}
    qtbot.waitUntil(
        lambda: all(w.parts.views.docks[name].isVisible() for name in ("summary", "prCurves", "ndcgAtK")), timeout=5000
    )
    s = w.session
    qtbot.waitUntil(lambda: s.results is not None and not s.busy, timeout=TIMEOUT)
    # the same numbers as the library gives for the same files
    qrels = metrics.read_qrels(sample / "qrels.txt")
    runs = [metrics.read_run(p) for p in sorted(sample.glob("run_*.txt"))]
    expected = metrics.evaluate(qrels, runs, ["map"]).summary()["map"]
    shown = s.results.summary["map"]
    assert {r: round(v, 12) for r, v in shown.items()} == {r: round(v, 12) for r, v in expected.items()}
    w.startup.when_ready(lambda: done.append("now"))  # once built, work runs at once
    assert done[-1] == "now"
    close_window(w)


def test_a_window_closed_before_its_views_are_built_closes_cleanly(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings, deferred=True)
    qtbot.addWidget(w)
    ran = []
    w.startup.when_ready(lambda: ran.append(1))
    w.close()
    qtbot.wait(100)
    assert ran == [] and not w.session_made


def test_files_panel_shows_the_label_used_when_a_rename_is_changed(qtbot, window, small):
    """A row is only made again when what it shows changed; the name typed in the cell is not what it shows
    when the session makes the label unique, so the row shows the label the session used."""
    drop_and_wait(qtbot, window, small)
    s = window.session
    table = window.parts.views.files.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "beta")
    others = [table.item(r, 0) for r in range(table.rowCount()) if r != row]
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        table.item(row, 0).setText("alpha")
    used = s.results.runs[1]
    assert used != "alpha" and used.startswith("alpha")
    assert table.item(row, 0).text() == used
    # the rows that did not change are the same items
    assert [table.item(r, 0) for r in range(table.rowCount()) if r != row] == others


def test_columns_are_as_wide_as_their_longest_text(qtbot, window):
    from workbench.views.common.qtable import DataFrameModel, DataFrameProxy, fit_columns

    frame = pd.DataFrame(
        {"query_id": ["1", "2", "a much longer query id than the others"], "x": [0.5, 123456.25, np.nan]}
    )
    model = DataFrameModel()
    proxy = DataFrameProxy()
    proxy.setSourceModel(model)
    model.set_frame(frame, marks=pd.DataFrame({"query_id": "", "x": ["", " †††", ""]}))
    view = window.parts.views.per_query.view
    view.setModel(proxy)
    fit_columns(view)
    fm = view.fontMetrics()
    assert view.columnWidth(0) >= fm.horizontalAdvance("a much longer query id than the others") + 16
    assert view.columnWidth(1) >= fm.horizontalAdvance("123456.2500 †††") + 16
    assert model.longest_texts(1, 200, keep=1) == ["123456.2500 †††"]
    assert [model.index(r, 1).data() for r in range(3)] == ["0.5000", "123456.2500 †††", "–"]


def test_the_longest_text_of_a_number_column_is_found_without_formatting_every_cell(qtbot):
    """The widths of a table's number columns come from a few of their values (the largest, the most
    negative, "–", "inf"): the longest of those is the longest text of the column, as every cell shows it."""
    from workbench.views.common.qtable import DataFrameModel

    rng = np.random.default_rng(5)
    columns = {
        "scores": rng.random(40),
        "differences": rng.normal(0, 3, 40),
        "signed zero": np.r_[np.zeros(39), -0.0],
        "gaps": np.r_[rng.random(38), np.nan, np.inf],
        "minus infinity": np.r_[rng.random(39) * 0.001, -np.inf],
        "all missing": np.full(40, np.nan),
        "num_rel_ret": rng.integers(-5, 1000, 40).astype(float),
        "big": np.r_[rng.random(39), 123456.25],
    }
    model = DataFrameModel()
    model.set_frame(pd.DataFrame(columns))
    for c, name in enumerate(columns):
        every = [model.display_text(r, c) for r in range(40)]
        longest = max(len(t) for t in every)
        texts = model.longest_texts(c, 200)
        assert set(texts) <= set(every), name
        assert max(len(t) for t in texts) == longest, name
    assert model.longest_texts(list(columns).index("signed zero"), 200, keep=1) == ["-0.0000"]
    assert model.longest_texts(list(columns).index("num_rel_ret"), 200)[-1].lstrip("-").isdigit()
    # every column at once (the table's widths), over its first rows only, a column of text and one with
    # marks among them: the longest of what every cell of those rows shows
    frame = pd.DataFrame({"query_id": [f"q{'x' * (r % 7)}" for r in range(40)], **columns})
    marks = pd.DataFrame("", index=frame.index, columns=frame.columns)
    marks.loc[3, "scores"] = " ††"
    model.set_frame(frame, marks=marks)
    for rows in (1, 3, 4, 40, 200):
        for c, texts in enumerate(model.longest_texts_of_all(rows)):
            every = [model.display_text(r, c) for r in range(min(rows, 40))]
            assert set(texts) <= set(every) and max(map(len, texts)) == max(map(len, every)), (rows, c)


def test_only_whole_columns_named_by_a_count_measure_show_no_decimals(qtbot):
    """Counts (num_rel, num_ret...) are shown whole, with their gaps and infinities; whole numbers under
    another name, and a count column holding a fraction, keep their decimals; text stays text."""
    from workbench.views.common.qtable import DataFrameModel

    frame = pd.DataFrame(
        {
            "query_id": ["a", "b", "c"],
            "num_rel": [3.0, np.nan, 12.0],
            "num_ret": [1000.0, -np.inf, 0.0],
            "num_rel_ret": [2.0, 2.5, 1.0],
            "map": [1.0, 0.0, 1.0],
            "run-7": [4.0, 5.0, 6.0],
        }
    )
    model = DataFrameModel()
    model.set_frame(frame)
    shown = {name: [model.display_text(r, c) for r in range(3)] for c, name in enumerate(frame.columns)}
    assert shown["query_id"] == ["a", "b", "c"]
    assert shown["num_rel"] == ["3", "–", "12"]
    assert shown["num_ret"] == ["1000", "-inf", "0"]  # (an infinity among counts once raised)
    assert shown["num_rel_ret"] == ["2.0000", "2.5000", "1.0000"]
    assert shown["map"] == ["1.0000", "0.0000", "1.0000"]
    assert shown["run-7"] == ["4.0000", "5.0000", "6.0000"]
    assert model.cell_value(0, 1) == 3 and isinstance(model.cell_value(0, 1), int)
    assert model.cell_value(1, 2) == -np.inf


@pytest.mark.parametrize("sortable", [True, False])
def test_header_widths_are_those_the_style_gives_each_section(qtbot, sortable):
    """The headers' widths are measured with one style call and the names' widths in bold: the same as a
    style call per section, for short, long, empty and non-ASCII names, with and without a sort indicator."""
    from PySide6.QtWidgets import QTableView

    from workbench.views.common.qtable import DataFrameModel, DataFrameProxy, header_widths

    names = ["run", "a", "map", "P_10", "a-very-long-run-name-that-goes-on", "Σ ñ é", "W" * 30, "", "dl19.17"]
    frame = pd.DataFrame({f"c{k}": np.arange(3.0) for k in range(len(names))})
    frame.columns = names
    model, proxy, view = DataFrameModel(), DataFrameProxy(), QTableView()
    qtbot.addWidget(view)
    model.set_frame(frame)
    proxy.setSourceModel(model)
    view.setModel(proxy)
    view.setSortingEnabled(sortable)
    header = view.horizontalHeader()
    expected = [header.sectionSizeFromContents(c).width() for c in range(len(names))]
    assert header_widths(header, proxy, len(names)) == expected
    assert len(set(expected)) > 5  # the names differ in width: a constant would not pass


def test_runs_past_the_memory_budget_are_scored_from_disk(qtbot, window, sample, monkeypatch):
    """A folder of runs larger than the window holds: the runs stay on disk, are scored by worker
    processes, and the window shows the same numbers as for runs it holds; the drill-down and the
    inspection read them when asked."""
    from workbench.scoring import disk_runs

    monkeypatch.setattr(disk_runs, "HOLD_BYTES", 0)
    runs = [sample / "run_bm25.txt", sample / "run_bm25_rm3.txt", sample / "run_tfidf_title.txt"]
    drop_and_wait(qtbot, window, [sample / "qrels.txt", *runs])
    s = window.session
    qtbot.waitUntil(lambda: s.results is not None and not s.busy, timeout=TIMEOUT)
    assert all(isinstance(e.run, disk_runs.RunOnDisk) for e in s.workspace.run_entries())
    table = window.parts.views.files.table
    statuses = [table.item(r, 2).text() for r in range(table.rowCount()) if table.item(r, 0).text() in s.results.runs]
    assert statuses and all(text.endswith(", on disk") for text in statuses)  # the Files panel says so
    labels = list(s.results.runs)
    expected = expected_evaluation(sample / "qrels.txt", runs, labels).summary()
    shown = table_values(window.parts.views.summary).set_index("run")
    assert sorted(shown.index) == sorted(labels)
    for measure in expected.columns:
        for run in labels:
            assert shown.at[run, measure] == expected.at[run, measure], (run, measure)
    # the drill-down of a query reads the runs it shows
    query = s.results.query_ids[0]
    with qtbot.waitSignal(s.sigDrilldownChanged, timeout=TIMEOUT):
        s.model.select_query(query)
    assert s.drilldown.runs == labels and len(window.parts.views.drilldown.table_frame(labels[1])) > 0
    # inspecting a run on disk reads the file
    window.session.followups.inspect(str(runs[1]))
    qtbot.waitUntil(lambda: (window.session.inspection or {}).get("kind") == "run", timeout=TIMEOUT)


def test_reading_many_files_reports_how_many_are_read(qtbot, window, sample):
    files = [sample / "qrels.txt", *sorted(sample.glob("run_*.txt"))]
    said = []
    window.session.sigProgress.connect(lambda fraction, what: said.append((fraction, what)))
    drop_and_wait(qtbot, window, files)
    reading = [(f, w) for f, w in said if w.startswith("Reading files:")]
    assert reading, said
    n = len(files)
    counts = [tuple(int(x) for x in what.split(": ")[1].split(" of ")) for _, what in reading]
    assert counts[-1][1] == n  # the files are counted as they are asked for, then read
    assert [c[1] for c in counts] == sorted(c[1] for c in counts)
    assert [c[0] for c in counts] == sorted(c[0] for c in counts) and counts[-1][0] >= 1
    assert all(fraction == done / total and 0 <= done < total for (fraction, _), (done, total) in zip(reading, counts))
    assert window.session.reading.reads == [0, 0]  # counted afresh for the next files


@pytest.fixture
def twelve(tmp_path):
    """12 runs (run00..run11) of 6 queries: more than the plots draw by default."""
    rng = np.random.default_rng(5)
    q = [f"{qid} 0 D{d} {int(rng.integers(0, 3))}" for qid in range(1, 7) for d in range(10)]
    paths = [write_lines(tmp_path / "qrels.txt", q)]
    for r in range(12):
        rows = []
        for qid in range(1, 7):
            scores = rng.random(10)
            rows += [f"{qid} Q0 D{d} {k + 1} {scores[d]:.5f} run{r:02d}" for k, d in enumerate(np.argsort(-scores))]
        paths.append(write_lines(tmp_path / f"run{r:02d}.txt", rows))
    return paths


def test_plots_find_runs_and_keep_the_legend_out_of_the_way(qtbot, window, twelve, tmp_path):
    drop_and_wait(qtbot, window, twelve)
    s = window.session
    plot = window.parts.views.pr_plot
    runs = list(s.results.runs)
    assert len(runs) == 12 and plot.find_box.isVisible() and plot.all_runs_box.isVisible()
    baseline = s.model.workspace.baseline_label()
    scores = s.results.summary[s.focus_measure]
    best = set(scores.sort_values(ascending=False, kind="stable").index[:8])
    assert set(plot.legend_runs()) == best | {baseline} and set(plot.curves) == best | {baseline}
    extra = "" if baseline in best else " and the baseline"
    assert f"best 8 of 12 runs by {s.focus_measure}{extra}" in plot.caption.text()
    assert plot.controls.indexOf(plot.find_box) >= 0  # on a line of their own: the caption stays whole
    plot.find_box.setText("RUN1")  # case does not matter
    found = ["run10", "run11"]
    assert plot.legend_runs() == [r for r in runs if r in found or r == baseline]
    assert set(plot.curves) == set(found) | {baseline}
    assert "2 of 12 runs match “RUN1”" in plot.caption.text()
    plot.find_box.setText("nothing like it")
    assert plot.legend_runs() == [baseline] and "0 of 12 runs match" in plot.caption.text()
    plot.find_box.clear()
    assert set(plot.legend_runs()) == best | {baseline}
    # every run drawn: the legend scrolls after four lines rather than taking the plot's room
    plot.all_runs_box.setChecked(True)
    assert plot.legend_runs() == runs
    # many runs drawn: the best and the baseline in colours that all differ, the others thin and grey
    emphasised = {r for r, item in plot.curves.items() if not item.quiet}
    assert emphasised == best | {baseline}
    styles = {
        (item.opts["pen"].color().getRgb(), item.opts["pen"].style())
        for r, item in plot.curves.items()
        if not item.quiet
    }
    assert len(styles) == len(emphasised)
    quiet = [item for item in plot.curves.values() if item.quiet]
    assert quiet and all(item.opts["pen"].color().getRgb()[:3] == (185, 185, 185) for item in quiet)
    from workbench.scoring import evaluation as analysis

    def drawn_as_computed():
        table = plot.table(s.results)
        for run in runs:
            x, y = table.get(analysis.MEAN, run)
            np.testing.assert_array_equal(plot.data(run)[0], x)
            np.testing.assert_array_equal(plot.data(run)[1], y)

    drawn_as_computed()
    first = s.focus_measure
    # another measure in focus: runs that come into colour get their markers, those that leave it lose them
    other = next(
        m
        for m in s.results.summary.columns
        if set(s.results.summary[m].sort_values(ascending=False, kind="stable").index[:8]) != best
    )
    s.model.set_focus_measure(other)
    # drawn on a turn of the event loop of its own, as new scores are: new scores change the measure in focus
    # too, and with 500 runs both plots were drawn in the event that applied the scores
    assert plot.refresh in s.after_paint.turns
    qtbot.waitUntil(lambda: not s.after_paint.waiting, timeout=TIMEOUT)
    now = set(s.results.summary[other].sort_values(ascending=False, kind="stable").index[:8]) | {baseline}
    assert {r for r, item in plot.curves.items() if not item.quiet} == now
    assert all(plot.curves[r].opts["symbol"] is not None for r in now)  # (the precision-recall plot marks points)
    assert all(plot.curves[r].quiet and "symbol" not in plot.curves[r].opts for r in set(runs) - now)
    assert list(plot.curves) == runs and len(plot.plot.getPlotItem().listDataItems()) == len(runs)
    drawn_as_computed()
    s.model.set_focus_measure(first)
    qtbot.waitUntil(lambda: not s.after_paint.waiting, timeout=TIMEOUT)  # (drawn on a turn of its own)
    picture = tmp_path / "curves.png"
    plot.export_image(str(picture))  # the file draws them the same way
    assert picture.stat().st_size > 1000
    lines = plot.legend.fontMetrics().lineSpacing()
    assert plot.legend_area.height() <= 4 * lines + 6 and plot.plot.height() > 100
    plot.legend_button.setChecked(False)
    assert not plot.legend_area.isVisible()
    plot.legend_button.setChecked(True)
    assert plot.legend_area.isVisible()


def test_files_given_at_start_are_read_while_the_views_are_built(qtbot, tmp_path, sample):
    """``ir-workbench FILES``: the session is made before the views and reads the files meanwhile; once
    built, the views show where it is (tables, curves) and what it said (a file that cannot be read)."""
    bad = write_lines(tmp_path / "bad.run", ["1 Q0 d1 1 high bad"])
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings, deferred=True)
    qtbot.addWidget(w)
    order = []
    files = [str(p) for p in sorted(sample.iterdir())] + [str(bad)]
    w.startup.when_session_ready(lambda: (order.append(("session", w.built)), w.session.reading.open_files(files)))
    w.startup.when_ready(lambda: order.append(("views", w.built)))
    w.show()
    qtbot.waitUntil(lambda: len(order) == 2, timeout=TIMEOUT)
    assert order == [("session", False), ("views", True)]
    s = w.session
    qtbot.waitUntil(lambda: s.results is not None and not s.busy, timeout=TIMEOUT)
    assert len(s.results.runs) == 3
    assert any("bad.run" in m and "line 1" in m for m in w.parts.bars.messages.messages)  # said before the views, shown
    assert set(w.parts.views.pr_plot.curves) == set(s.results.runs)
    assert w.parts.views.summary.model.rowCount() == 3
    close_window(w)


def test_the_difference_chart_shows_the_runs_the_plots_draw_in_colour_when_there_are_many(qtbot, window, twelve):
    """The runs side by side with 12 runs: those the plots draw in colour (the best 8 by the measure shown, the
    baseline aside), in their colours, with a legend of them and a caption that says so."""
    drop_and_wait(qtbot, window, twelve)
    s = window.session
    qtbot.waitUntil(lambda: s.comparison is not None and not s.busy, timeout=TIMEOUT)
    chart, plot = window.parts.views.diff_chart, window.parts.views.pr_plot
    baseline = s.model.workspace.baseline_label()
    assert chart.run_box.findText("best runs") >= 0 and chart.run_box.findText("all runs") < 0
    for measure in ("map", "P_10"):
        s.model.set_focus_measure(measure)
        qtbot.waitUntil(lambda: not s.after_paint.waiting, timeout=TIMEOUT)  # (drawn on a turn of its own)
        chart.set_run(None)
        coloured = {r for r, item in plot.curves.items() if not item.quiet} - {baseline}
        best = set(s.results.summary[measure].sort_values(ascending=False, kind="stable").index[:8]) - {baseline}
        assert set(chart.chosen_runs()) == coloured == best and len(best) in (7, 8)
        frame = chart._frame
        assert set(frame["run"]) == best
        assert chart.caption.text().startswith(f"Best {len(best)} of 11 runs − {baseline}")
        for run, brush in zip(frame["run"], chart.bars.opts["brushes"]):  # each bar in its run's colour there
            assert brush.color().getRgb()[:3] == plot.curves[run].opts["pen"].color().getRgb()[:3]
        assert len(chart._legend_items) == len(best)


def test_the_plots_draw_new_scores_once_and_again_for_each_change_of_what_they_show(qtbot, window, twelve):
    """New scores change the measure in focus and the scores (two signals): each plot draws them once; a
    query, the find box or the all-runs box draws again."""
    drop_and_wait(qtbot, window, twelve)
    s, plot = window.session, window.parts.views.pr_plot
    drawn = []
    original = plot.drawn_runs
    plot.drawn_runs = lambda results: drawn.append(results) or original(results)
    with qtbot.waitSignal(s.sigResultsChanged, timeout=TIMEOUT):
        s.model.set_measures(("P.10", "recip_rank"))  # map, the measure in focus, goes: another comes
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert s.focus_measure in ("P_10", "recip_rank")
    assert drawn == [s.results]
    assert set(plot.curves) == set(original(s.results)) and 8 <= len(plot.curves) <= 9  # the best 8, the baseline
    query = s.results.query_ids[2]
    s.model.select_query(query)
    assert len(drawn) == 2
    run = next(iter(plot.curves))
    x, y = plot.data(run)
    expected = plot.table(s.results).get(query, run)
    assert np.array_equal(x, expected[0]) and np.array_equal(y, expected[1])  # the query's curve
    plot.find_box.setText("run0")
    baseline = s.model.workspace.baseline_label()
    assert len(drawn) == 3 and set(plot.curves) == {r for r in s.results.runs if "run0" in r} | {baseline}
    plot.find_box.setText("")
    plot.all_runs_box.setChecked(True)
    assert len(drawn) == 5 and set(plot.curves) == set(s.results.runs)
    s.model.select_query(query)  # the same query again: nothing to draw
    assert len(drawn) == 5


def _window_opened_on(qtbot, tmp_path, files):
    """A window started as ``ir-workbench FILES`` starts it: shown first, the files opened by its session
    and its views painted with the first scores; and the paints of its precision-recall plot, each with
    whether the scores were there."""
    from PySide6.QtCore import QEvent, QObject

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings, deferred=True)
    qtbot.addWidget(w)
    painted = []

    class Paints(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                painted.append(w.session.results is not None)
            return False

    w.paints = Paints(w)
    w.startup.when_session_ready(
        lambda: (w.session.reading.open_files([str(f) for f in files]), w.startup.paint_with_first_scores())
    )
    w.startup.when_ready(lambda: w.parts.views.pr_plot.plot.viewport().installEventFilter(w.paints))
    w.show()
    return w, painted


def _slow_scores(monkeypatch):
    """Scores that wait for the event returned (at most TIMEOUT)."""
    import threading

    from workbench.scoring import evaluation as analysis

    release = threading.Event()
    compute = analysis.compute
    monkeypatch.setattr(analysis, "compute", lambda *a, **k: release.wait(TIMEOUT / 1000) and compute(*a, **k))
    return release


def test_a_window_opened_on_files_paints_its_views_once_the_scores_are_there(qtbot, tmp_path, sample, monkeypatch):
    release = _slow_scores(monkeypatch)
    w, painted = _window_opened_on(qtbot, tmp_path, sorted(sample.iterdir()))
    qtbot.waitUntil(lambda: w.built, timeout=TIMEOUT)
    qtbot.wait(300)  # time to paint, were the views painted while the runs are scored
    assert not w.updatesEnabled() and painted == []
    release.set()
    s = w.session
    qtbot.waitUntil(lambda: s.results is not None and not s.busy, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: bool(painted), timeout=TIMEOUT)
    assert w.updatesEnabled()
    assert all(painted)  # never drawn empty
    assert set(w.parts.views.pr_plot.curves) == set(s.results.runs)
    close_window(w)


def test_the_first_paint_of_a_window_opened_on_files_shows_the_scores_in_every_view(
    qtbot, tmp_path, sample, monkeypatch
):
    """The views take new scores in on turns of their own (the plots, the per-query table): the window's
    first paint waits for all of them, so that the central table and the NDCG@k plot are never drawn
    empty beside a summary already filled in."""
    from PySide6.QtCore import QEvent, QObject

    release = _slow_scores(monkeypatch)
    w, _ = _window_opened_on(qtbot, tmp_path, sorted(sample.iterdir()))
    qtbot.waitUntil(lambda: w.built, timeout=TIMEOUT)
    views = w.parts.views
    seen: list[tuple[str, bool]] = []  # (view, whether it showed the scores) at each of its paints

    def shows_scores(name: str) -> bool:
        results = w.session.results
        if results is None:
            return False
        if name == "per-query table":
            return views.per_query.model.rowCount() == len(results.query_ids) > 0
        if name == "summary":
            return views.summary.model.rowCount() == len(results.runs) > 0
        return set(views.ndcg_plot.curves) == set(results.runs)

    class Paints(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                seen.append((obj.objectName(), shows_scores(obj.objectName())))
            return False

    paints = Paints(w)
    for name, viewport in (
        ("per-query table", views.per_query.view.viewport()),
        ("summary", views.summary.view.viewport()),
        ("NDCG@k plot", views.ndcg_plot.plot.viewport()),
    ):
        viewport.setObjectName(name)
        viewport.installEventFilter(paints)
    release.set()
    s = w.session
    qtbot.waitUntil(lambda: s.results is not None and not s.busy, timeout=TIMEOUT)
    every = {"per-query table", "summary", "NDCG@k plot"}
    qtbot.waitUntil(lambda: {name for name, _ in seen} == every, timeout=TIMEOUT)
    assert all(shown for _, shown in seen), seen
    close_window(w)


def test_a_window_scored_before_its_views_are_built_paints_them_once_built(qtbot, tmp_path, sample, monkeypatch):
    """Scores in before the views exist (the views' modules slow to import): the window stays unpainted
    while the views are built and laid out with the scores, and paints once they are."""
    built, views_made = [], MainWindow._build

    def build_after_the_scores(self, *a, **k):
        if self.session.results is None or self.session.busy:
            QTimer.singleShot(15, self, lambda: build_after_the_scores(self, *a, **k))
            return
        built.append(self.updatesEnabled())  # as the views are made
        views_made(self, *a, **k)
        built.append(self.updatesEnabled())  # once they are (their layout still to come)

    monkeypatch.setattr(MainWindow, "_build", build_after_the_scores)
    w, painted = _window_opened_on(qtbot, tmp_path, sorted(sample.iterdir()))
    qtbot.waitUntil(lambda: w.built and w.updatesEnabled(), timeout=TIMEOUT)
    assert built == [False, False]
    qtbot.waitUntil(lambda: bool(painted), timeout=TIMEOUT)
    assert all(painted) and set(w.parts.views.pr_plot.curves) == set(w.session.results.runs)
    close_window(w)


def test_input_waits_for_the_first_paint_of_a_window_opened_on_files(qtbot, tmp_path, sample, monkeypatch):
    """While the views wait for their first scores (unpainted), clicks and keys do not reach them: the
    query filter under the mouse takes no click, focus or text; once painted, the same input does."""
    from PySide6.QtTest import QTest

    release = _slow_scores(monkeypatch)
    w, _ = _window_opened_on(qtbot, tmp_path, sorted(sample.iterdir()))
    qtbot.waitUntil(lambda: w.built, timeout=TIMEOUT)
    qtbot.waitExposed(w)
    edit = w.parts.views.per_query.filter_edit

    def type_into_filter():
        centre = edit.rect().center()
        under = QApplication.widgetAt(edit.mapToGlobal(centre))
        QTest.mouseClick(w.windowHandle(), Qt.MouseButton.LeftButton, pos=edit.mapTo(w, centre))
        for key in (Qt.Key.Key_1, Qt.Key.Key_2):
            QTest.keyClick(w.windowHandle(), key)
        return under

    under = type_into_filter()
    assert under is not edit and not edit.hasFocus() and edit.text() == ""
    release.set()
    qtbot.waitUntil(lambda: w.session.results is not None and w.updatesEnabled(), timeout=TIMEOUT)
    assert type_into_filter() is edit
    qtbot.waitUntil(lambda: edit.text() == "12", timeout=TIMEOUT)
    close_window(w)


def test_a_window_opened_on_files_paints_its_views_after_a_while_or_when_nothing_is_left(
    qtbot, tmp_path, sample, monkeypatch
):
    # scores slow to come: the views are painted (empty) once the wait is over, and again with the scores
    release = _slow_scores(monkeypatch)
    monkeypatch.setattr(MainWindow, "FIRST_PAINT_WAIT_MS", 50)
    w, painted = _window_opened_on(qtbot, tmp_path, sorted(sample.iterdir()))
    qtbot.waitUntil(lambda: w.updatesEnabled() and bool(painted), timeout=TIMEOUT)
    assert w.session.results is None and painted[0] is False
    release.set()
    qtbot.waitUntil(lambda: w.session.results is not None and not w.session.busy, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: painted[-1], timeout=TIMEOUT)
    close_window(w)

    # nothing to score (a qrels file alone): painted once the session is idle, long before the wait is over
    monkeypatch.setattr(MainWindow, "FIRST_PAINT_WAIT_MS", 600_000)
    w, painted = _window_opened_on(qtbot, tmp_path, [sample / "qrels.txt"])
    qtbot.waitUntil(lambda: w.built and not w.session.busy, timeout=TIMEOUT)
    qtbot.waitUntil(w.updatesEnabled, timeout=TIMEOUT)
    assert w.session.results is None
    close_window(w)


def test_report_figures_of_many_runs_draw_the_best_in_colour(qtbot, window, twelve):
    from workbench.views.dialogs.report import report_figures

    drop_and_wait(qtbot, window, twelve)
    s = window.session
    qtbot.waitUntil(lambda: s.comparison is not None and not s.busy, timeout=TIMEOUT)
    figures = report_figures(s)
    captions = [caption for caption, _ in figures]
    assert len(figures) == 3 and all(png.startswith(b"\x89PNG") for _, png in figures)
    scores = s.results.summary[s.focus_measure]
    best = list(scores.sort_values(ascending=False, kind="stable").index[:8])
    coloured = [r for r in s.results.runs if r in best or r == s.model.workspace.baseline_label()]
    assert captions[1].endswith(
        f"runs {', '.join(coloured)} (the best 8 by {s.focus_measure} and the baseline; "
        f"{12 - len(coloured)} more in grey)"
    )
    others = [r for r in coloured if r != s.model.workspace.baseline_label()]
    assert captions[0].startswith(f"Per-query differences in {s.focus_measure}: {', '.join(others)} minus")
    assert captions[0].endswith(f"({11 - len(others)} other runs not drawn)")


def test_report_figures_colour_the_runs_the_plots_colour(qtbot, window, twelve):
    """Nine runs (eight and the baseline): the plots draw all of them in colour, and so does the report's
    figure (it had taken the best eight alone and drawn one in grey)."""
    from workbench.views.dialogs.report import report_figures

    drop_and_wait(qtbot, window, twelve[:10])
    s = window.session
    qtbot.waitUntil(lambda: s.comparison is not None and not s.busy, timeout=TIMEOUT)
    runs = list(s.results.runs)
    assert len(runs) == 9 and not any(item.quiet for item in window.parts.views.pr_plot.curves.values())
    captions = [caption for caption, _ in report_figures(s)]
    assert captions[1].endswith(f"runs {', '.join(runs)}") and "grey" not in captions[1]


def test_new_results_lay_out_each_table_once(qtbot, window, sample, monkeypatch):
    """New results arrive as several signals (the measure in focus, the results, their marks); the summary
    and the per-query table are laid out once for them on the window's thread (the comparison's worker makes
    the summary's marks from the same table), and show what the results hold."""
    import threading

    from workbench.state import tables as table_model

    calls = {"summary_table": 0, "per_query_table": 0}
    for name in calls:
        real = getattr(table_model, name)

        def counting(*args, real=real, name=name, **kwargs):
            if threading.current_thread() is threading.main_thread():
                calls[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(table_model, name, counting)
    drop_and_wait(qtbot, window, [sample / "qrels.txt", sample / "run_bm25.txt", sample / "run_tfidf_title.txt"])
    assert calls == {"summary_table": 1, "per_query_table": 1}
    results = window.session.results
    shown = table_values(window.parts.views.summary)
    assert list(shown["run"]) == results.runs
    measure = window.parts.views.per_query.shown_measure()
    frame = table_values(window.parts.views.per_query)
    np.testing.assert_allclose(
        frame[results.runs[0]].to_numpy(float), results.per_query[measure][results.runs[0]].to_numpy(float)
    )


def test_the_window_has_its_icon(window):
    """The icon is found where the package keeps it (workbench/resources), wherever the window's module is."""
    assert not window.windowIcon().isNull()
    assert window.windowIcon().availableSizes() or window.windowIcon().pixmap(32, 32).width() == 32


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_dropped_is_refused_and_loading_goes_on(qtbot, window, small, tmp_path):
    """A FIFO dropped on the window blocked every later load (its open waited for a writer), and Cancel did
    not help: it is refused at once as not a regular file, and the files dropped after it are read."""
    fifo = tmp_path / "pipe.run"
    os.mkfifo(fifo)
    s = window.session
    with qtbot.waitSignal(s.sigError, timeout=TIMEOUT) as blocker:
        drop(window, [fifo])
    assert "pipe.run" in blocker.args[0] and "not a regular file: a FIFO" in blocker.args[0]
    drop_and_wait(qtbot, window, small)  # (read, scored and shown as ever)
    assert list(s.workspace.runs()) == ["alpha", "beta"]
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)  # (nothing left waiting on the FIFO)
