"""Comparing runs in the window: significance marks, difference chart, query drill-down, report export."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import base64  # noqa: E402
import re  # noqa: E402
import threading  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPointF, Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics  # noqa: E402
import metrics.compare  # noqa: E402
import metrics.io.readers  # noqa: E402
from metrics.presentation import format_pvalue  # noqa: E402
from workbench.state import significance as significance_model  # noqa: E402
from workbench.views.dialogs.report import ReportDialog  # noqa: E402
from workbench.views.plots.diffchart import GAIN, LOSS  # noqa: E402

TIMEOUT = 30000
MEASURES = ("map", "P.10")
N_QUERIES = 30

# one query's documents, in the baseline's order: r* relevant, n* judged non-relevant,
# x* not in the qrels; r4 is relevant and retrieved by no run
BASE_ORDER = ["n0", "n1", "r0", "n2", "n3", "r1", "n4", "n5", "r2", "x0", "x1", "r3", "x2", "x3"]
GRADES = {"r0": 2, "r1": 1, "r2": 1, "r3": 1, "r4": 2, "n0": 0, "n1": 0, "n2": 0, "n3": 0, "n4": 0, "n5": 0}


def good_order(q: int) -> list[str]:
    """Relevant documents first: better than the baseline on every query."""
    rel = [d for d in BASE_ORDER if d.startswith("r")]
    return rel + [d for d in BASE_ORDER if d not in rel]


def noise_order(q: int) -> list[str]:
    """r0 one place up on even queries, two places down on odd ones: no consistent difference."""
    order = [d for d in BASE_ORDER if d != "r0"]
    order.insert(1 if q % 2 == 0 else 4, "r0")
    return order


def write_run(path, tag, order_of):
    lines = []
    for q in range(1, N_QUERIES + 1):
        order = order_of(q)
        for rank, d in enumerate(order, start=1):
            lines.append(f"q{q} Q0 q{q}-{d} {rank} {100 - rank}.0 {tag}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def collection(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 q{q}-{d} {g}\n" for q in range(1, N_QUERIES + 1) for d, g in GRADES.items()))
    runs = [
        write_run(folder / "a_base.txt", "base", lambda q: BASE_ORDER),
        write_run(folder / "b_good.txt", "good", good_order),
        write_run(folder / "c_noise.txt", "noise", noise_order),
    ]
    return qrels, runs


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1600, 1000))
    yield w
    close_window(w)


def load(qtbot, window, collection):
    qrels, runs = collection
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        window.parts.files.open_files([str(qrels), *map(str, runs)])
    assert window.session.comparison is not None


def wait_idle(qtbot, window, action):
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        action()


def choose(box, data):
    """Pick an item of a combo box as a user does (the current item changes, then activated)."""
    i = box.findData(data)
    assert i >= 0
    box.setCurrentIndex(i)
    box.activated.emit(i)


def expected_comparison(collection, **settings):
    qrels, runs = collection
    q = metrics.io.readers.read_qrels(str(qrels))
    rs = {name: metrics.io.readers.read_run(str(p)) for name, p in zip(("base", "good", "noise"), runs)}
    ev = metrics.evaluate(q, rs, list(MEASURES))
    return ev, metrics.compare.compare(ev, "base", family="all", **settings)  # (the window's family, as ir-eval's)


def summary_cells(window):
    """{(run, measure): (text shown, tooltip)} of the summary table."""
    model = window.parts.views.summary.model
    cols = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    out = {}
    for r in range(model.rowCount()):
        run = model.index(r, 0).data(Qt.ItemDataRole.UserRole + 2)
        for c, name in enumerate(cols[1:], start=1):
            index = model.index(r, c)
            out[(run, name)] = (index.data(), index.data(Qt.ItemDataRole.ToolTipRole))
    return out


# ---------------------------------------------------------------- significance marks


def test_marks_follow_the_comparison_and_its_settings(qtbot, window, collection):
    load(qtbot, window, collection)
    _, expected = expected_comparison(collection, test="t", correction="holm", alpha=0.05)
    cells = summary_cells(window)
    assert cells[("good", "map")][0].endswith(significance_model.HIGHER)
    assert not cells[("noise", "map")][0].endswith((significance_model.HIGHER, significance_model.LOWER))
    for _, row in expected.iterrows():
        text, tip = cells[(row["run"], row["measure"])]
        marked = text.endswith((significance_model.HIGHER, significance_model.LOWER))
        assert marked == bool(row["significant"]), (row["run"], row["measure"], text)
        assert "paired t-test" in tip and "Holm" in tip
        assert f"p = {format_pvalue(row['p_value'])} (paired t-test" in tip
    assert not cells[("base", "map")][0].endswith((significance_model.HIGHER, significance_model.LOWER))
    assert window.parts.views.summary.legend.isVisible()
    assert "Holm" in window.parts.views.summary.legend.text() and "base" in window.parts.views.summary.legend.text()

    # the panel's choices reach the computation
    panel = window.parts.toolbars.significance
    wait_idle(qtbot, window, lambda: choose(panel.correction_box, "bonferroni"))
    wait_idle(qtbot, window, lambda: choose(panel.test_box, "wilcoxon"))
    settings = window.session.compare_settings
    assert (settings.test, settings.correction, settings.alpha) == ("wilcoxon", "bonferroni", 0.05)
    table = window.session.comparison.table
    assert set(table["test"]) == {"wilcoxon"} and set(table["correction"]) == {"bonferroni"}
    _, expected = expected_comparison(collection, test="wilcoxon", correction="bonferroni", alpha=0.05)
    pd.testing.assert_series_equal(table["p_corrected"], expected["p_corrected"])
    cells = summary_cells(window)
    for _, row in expected.iterrows():
        text, tip = cells[(row["run"], row["measure"])]
        assert text.endswith((significance_model.HIGHER, significance_model.LOWER)) == bool(row["significant"])
        assert "Wilcoxon" in tip and "Bonferroni" in tip
        assert f"corrected p = {format_pvalue(row['p_corrected'])}" in tip


def test_comparison_runs_in_a_worker_and_follows_the_baseline(qtbot, window, collection, monkeypatch):
    threads = []
    original = significance_model.compute

    def spy(request, progress=None, **options):
        threads.append(threading.current_thread())
        return original(request, progress, **options)

    monkeypatch.setattr(significance_model, "compute", spy)
    load(qtbot, window, collection)
    assert threads and all(t is not threading.main_thread() for t in threads)
    good = next(e.path for e in window.session.workspace.run_entries() if e.label == "good")
    wait_idle(qtbot, window, lambda: window.session.model.files.set_baseline(good))
    assert window.session.comparison.request.baseline == "good"
    cells = summary_cells(window)
    assert cells[("base", "map")][0].endswith(significance_model.LOWER)
    assert all(t is not threading.main_thread() for t in threads)


# ---------------------------------------------------------------- difference chart


def bar_heights(chart):
    return np.asarray(chart.bars.opts["height"], dtype=float)


def test_difference_chart_shows_the_cores_deltas_and_clicks_select_queries(qtbot, window, collection):
    load(qtbot, window, collection)
    chart = window.parts.views.diff_chart
    window.session.model.set_focus_measure("map")
    chart.set_run("noise")
    ev, _ = expected_comparison(collection)
    expected = metrics.compare.per_query_differences(ev, "base", "map")
    expected = expected.loc[expected["run"] == "noise"].reset_index(drop=True)
    shown = chart.data()
    assert shown["query_id"].tolist() == expected["query_id"].tolist()
    np.testing.assert_array_equal(shown["delta"].to_numpy(dtype=float), expected["delta"].to_numpy())
    np.testing.assert_array_equal(bar_heights(chart), expected["delta"].to_numpy())
    assert np.all(np.diff(bar_heights(chart)) <= 0)  # sorted, largest gain first
    assert (expected["delta"] > 0).any() and (expected["delta"] < 0).any()
    brushes = chart.bars.opts["brushes"]
    for d, brush in zip(bar_heights(chart), brushes):
        colour = brush.color().getRgb()[:3]
        assert colour == (GAIN if d > 0 else LOSS)

    # a real mouse click on the last bar (the largest loss)
    last = shown.iloc[-1]
    vb = chart.plot.getPlotItem().getViewBox()
    scene_pos = vb.mapViewToScene(QPointF(float(last["x"]), float(last["delta"]) / 2))
    pos = chart.plot.mapFromScene(scene_pos)
    wait_idle(qtbot, window, lambda: qtbot.mouseClick(chart.plot.viewport(), Qt.MouseButton.LeftButton, pos=pos))
    assert window.session.selected_query == last["query_id"]
    # the click reached every view: the per-query table's selection and the highlighted bar
    assert window.parts.views.per_query._current_query() == last["query_id"]
    assert list(chart.highlight.opts["x"]) == [float(last["x"])]

    # arrow keys walk along the bars
    wait_idle(qtbot, window, lambda: qtbot.keyClick(chart.plot, Qt.Key.Key_Left))
    assert window.session.selected_query == shown.iloc[-2]["query_id"]
    wait_idle(qtbot, window, lambda: chart.step(-100))
    assert window.session.selected_query == shown.iloc[0]["query_id"]

    # all runs side by side: one bar per (run, query), grouped by query
    chart.set_run(None)
    both = chart.data()
    assert set(both["run"]) == {"good", "noise"}
    assert len(both) == 2 * N_QUERIES
    for _, group in both.groupby("slot"):
        assert group["query_id"].nunique() == 1 and len(group) == 2
    assert chart.query_at(float(both["slot"].iloc[0])) == both["query_id"].iloc[0]


def shown_ticks(chart) -> list[tuple[float, str]]:
    return list(chart.plot.getPlotItem().getAxis("bottom")._tickLevels[0])


def test_difference_charts_query_ids_thin_out_as_it_narrows(qtbot, window, collection):
    """Under the bars, the query id of each bar's slot, as many as fit: fewer when the chart narrows, all of
    them when it is wide again."""
    load(qtbot, window, collection)
    chart = window.parts.views.diff_chart
    window.session.model.set_focus_measure("map")
    chart.set_run("noise")
    slot_query = dict(zip(chart.data()["slot"], chart.data()["query_id"]))

    def ticks_at(width: int) -> list[tuple[float, str]]:
        window.resize(width, 1000)
        qtbot.waitUntil(lambda: abs(window.width() - width) <= 1, timeout=TIMEOUT)
        QApplication.processEvents()
        ticks = shown_ticks(chart)
        assert all(label == str(slot_query[int(x)]) for x, label in ticks)
        return ticks

    wide, narrow = ticks_at(4000), ticks_at(1100)
    assert len(wide) == N_QUERIES
    assert 1 <= len(narrow) < N_QUERIES / 2
    assert len(ticks_at(4000)) == N_QUERIES  # widened again: every id back


# ---------------------------------------------------------------- drill-down


def test_drilldown_of_a_selected_query(qtbot, window, collection):
    load(qtbot, window, collection)
    with qtbot.waitSignal(window.session.sigDrilldownChanged, timeout=TIMEOUT):
        window.session.model.select_query("q3")
    view = window.parts.views.drilldown
    assert view.shown_runs() == ["base", "good", "noise"]
    base = view.table_frame("base")
    assert base["doc_id"].tolist() == [f"q3-{d}" for d in BASE_ORDER]
    assert base["rank"].tolist() == [str(i) for i in range(1, len(BASE_ORDER) + 1)]
    assert base["grade"].tolist() == [str(GRADES[d]) if d in GRADES else "?" for d in BASE_ORDER]
    assert "moved" not in base.columns
    noise = view.table_frame("noise")  # q3 is odd: r0 two places down, n2 and n3 one up
    moved = dict(zip(noise["doc_id"], noise["moved"]))
    assert moved["q3-r0"] == "\u25bc2"
    assert moved["q3-n2"] == "\u25b21" and moved["q3-n3"] == "\u25b21"
    assert moved["q3-r1"] == "="
    good = view.table_frame("good")
    assert dict(zip(good["doc_id"], good["moved"]))["q3-r3"] == "\u25b28"
    score = window.session.results.per_query[window.session.focus_measure].at["q3", "noise"]
    assert view.columns["noise"].caption.text().startswith(f"noise: {window.session.focus_measure} {score:.4f};")
    missing = view.missing_frame()
    assert missing.to_dict("list") == {"doc_id": ["q3-r4"], "grade": ["2"]}
    # rows are coloured by grade, unjudged rows differently
    model = view.columns["base"].model
    colours = [model.index(r, 0).data(Qt.ItemDataRole.BackgroundRole).color().name() for r in range(model.rowCount())]
    assert colours[BASE_ORDER.index("r0")] != colours[BASE_ORDER.index("n0")] != colours[BASE_ORDER.index("x0")]
    assert colours[BASE_ORDER.index("x0")] == colours[BASE_ORDER.index("x1")]

    # fewer ranks, fewer runs
    with qtbot.waitSignal(window.session.sigDrilldownChanged, timeout=TIMEOUT):
        view.depth_box.setValue(5)
    assert len(view.table_frame("good")) == 5
    view.set_run_shown("good", False)
    assert view.shown_runs() == ["base", "noise"] and "good" not in view.columns
    # a click on a document selects it in every list
    view.select_doc("q3-r0")
    for run in ("base", "noise"):
        rows = view.columns[run].view.selectionModel().selectedRows()
        assert [view.table_frame(run)["doc_id"].iloc[i.row()] for i in rows] == ["q3-r0"]
    # back to the mean: nothing to drill into
    with qtbot.waitSignal(window.session.sigDrilldownChanged, timeout=TIMEOUT):
        window.session.model.select_query(None)
    assert view.placeholder.isVisibleTo(view)


# ---------------------------------------------------------------- report export


@pytest.fixture
def dialog(qtbot, window):
    answers = []
    d = ReportDialog(window.session, confirm_overwrite=lambda path: answers.pop(0), parent=window)
    d.answers = answers
    return d


def export(qtbot, dialog, path, fmt, **options):
    with qtbot.waitSignal(dialog.sigWritten, timeout=TIMEOUT) as blocker:
        assert dialog.export(str(path), fmt, **options)
    assert blocker.args == [str(path)]


def test_report_formats_written_and_read_back(qtbot, window, dialog, collection, tmp_path):
    load(qtbot, window, collection)
    table = window.session.comparison.table

    export(qtbot, dialog, tmp_path / "cmp.csv", "csv")
    back = pd.read_csv(tmp_path / "cmp.csv", comment="#")
    assert back["run"].tolist() == table["run"].tolist()
    np.testing.assert_array_equal(back["p_value"].to_numpy(), table["p_value"].to_numpy())
    assert back["significant"].tolist() == table["significant"].tolist()

    export(qtbot, dialog, tmp_path / "cmp.md", "markdown")
    md = (tmp_path / "cmp.md").read_text()
    good_map = [line for line in md.splitlines() if line.startswith("| ") and "| good |" in line][0]
    assert "\u2020" in good_map and "paired t-test" in md and "Holm" in md

    export(qtbot, dialog, tmp_path / "summary.tex", "latex", table="summary")
    tex = (tmp_path / "summary.tex").read_text()
    assert r"\begin{tabular}" in tex and r"\textsuperscript{\dag}" in tex
    assert re.search(r"good & .*\\textsuperscript\{\\dag\}", tex)

    export(qtbot, dialog, tmp_path / "report.html", "html", per_query=True, title="Runs on test data")
    html = (tmp_path / "report.html").read_text()
    assert "<h1>Runs on test data</h1>" in html
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == 3  # differences, precision-recall, NDCG@k: drawn for the report
    pngs = [QImage.fromData(base64.b64decode(data), "PNG") for data in images]
    assert all(not p.isNull() and (p.width(), p.height()) == (2400, 1560) for p in pngs)
    # figure captions say what the figures show: every run, the mean, whatever is selected in the window
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", html)
    others = [r for r in window.session.results.runs if r != "base"]
    assert captions[0].startswith("Per-query differences in map: " + ", ".join(others) + " minus the baseline base")
    assert all(
        "mean over 30 queries" in c and "runs " + ", ".join(window.session.results.runs) in c for c in captions[1:]
    )
    assert "Comparison with the baseline" in html
    assert "Per-query values" in html and "q17" in html


def test_an_export_computes_the_intervals_and_the_window_keeps_them(
    qtbot, window, dialog, collection, tmp_path, monkeypatch
):
    """The window's comparison has its marks and no bootstrap intervals (no view shows them); an export
    computes them, the very intervals of the whole comparison, and the window keeps them: the next export
    writes them again without computing them, and nothing the views show is told of a change."""
    from workbench.state import significance

    load(qtbot, window, collection)
    shown = window.session.comparison
    assert not shown.intervals and shown.table[["ci_low", "ci_high"]].isna().all().all()
    _, expected = expected_comparison(collection, test="t", correction="holm", alpha=0.05, seed=0)
    changes, completed = [], []
    window.session.sigComparisonChanged.connect(changes.append)
    real = significance.with_intervals
    monkeypatch.setattr(significance, "with_intervals", lambda c, *a: completed.append(c) or real(c, *a))
    export(qtbot, dialog, tmp_path / "cmp.csv", "csv")
    back = pd.read_csv(tmp_path / "cmp.csv", comment="#").set_index(["run", "measure"]).sort_index()
    want = expected.set_index(["run", "measure"]).sort_index()
    assert back["ci_low"].notna().all() and back["ci_high"].notna().all()
    np.testing.assert_allclose(back[["ci_low", "ci_high"]].to_numpy(), want[["ci_low", "ci_high"]].to_numpy())
    kept = window.session.comparison
    assert completed == [shown] and kept.intervals and kept.request.same_as(shown.request) and not changes
    export(qtbot, dialog, tmp_path / "again.csv", "csv")
    assert completed == [shown]  # (not computed again)
    again = pd.read_csv(tmp_path / "again.csv", comment="#").set_index(["run", "measure"]).sort_index()
    pd.testing.assert_frame_equal(again[["ci_low", "ci_high"]], back[["ci_low", "ci_high"]])


def test_report_never_overwrites_without_confirmation(qtbot, window, dialog, collection, tmp_path):
    load(qtbot, window, collection)
    path = tmp_path / "report.md"
    path.write_text("keep me\n")
    dialog.answers.append(False)
    with qtbot.waitSignal(dialog.sigKept, timeout=TIMEOUT):
        assert dialog.export(str(path), "markdown")  # (the target is looked at in a worker)
    assert path.read_text() == "keep me\n" and not dialog.answers
    dialog.answers.append(True)
    export(qtbot, dialog, path, "markdown")
    assert "| good |" in path.read_text()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


# ---------------------------------------------------------------- pure parts (no window)


def comparison_of(collection, **settings):
    ev, _ = expected_comparison(collection)
    request = significance_model.Request(
        per_query=ev.per_query, runs=tuple(ev.runs), baseline="base", settings=significance_model.Settings(**settings)
    )
    return ev, significance_model.compute(request)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation"])
def test_a_comparison_without_intervals_completed_equals_the_whole_comparison(collection, test):
    """The quick comparison (marks, no bootstrap) completed with ``with_intervals`` is the comparison computed
    at once: the same table to the last digit, the per-query differences kept rather than made again."""
    ev, whole = comparison_of(collection, test=test, permutations=2000)
    quick = significance_model.compute(whole.request, intervals=False)
    assert not quick.intervals and quick.table[["ci_low", "ci_high"]].isna().all().all()
    done = significance_model.with_intervals(quick)
    assert done.intervals and done.differences is quick.differences
    pd.testing.assert_frame_equal(done.table, whole.table)
    assert significance_model.with_intervals(done) is done


def test_summary_marks_tooltips_and_legend(collection):
    ev, comparison = comparison_of(
        collection, test="permutation", correction="bh", alpha=0.01, permutations=2000, bootstrap=0
    )
    table = ev.summary().reset_index()
    marks, tips = significance_model.summary_marks(comparison, table)
    rows = {run: i for i, run in enumerate(table["run"])}
    assert marks.at[rows["good"], "map"] == significance_model.HIGHER
    assert marks.at[rows["noise"], "map"] == significance_model.PAD
    assert marks.at[rows["base"], "map"] == significance_model.PAD and tips.at[rows["base"], "map"] == ""
    assert marks.at[rows["base"], "run"] == " (baseline)"
    tip = tips.at[rows["noise"], "map"]
    assert "not significantly different" in tip and "paired randomization test" in tip
    assert "Benjamini-Hochberg over 4 tests" in tip and "α = 0.01" in tip
    legend = significance_model.legend(comparison)
    assert "baseline base" in legend and "α = 0.01" in legend and "of 4 differences significant" in legend
    assert significance_model.summary_marks(None, table)[0].eq("").all().all()
    # per-query differences of every measure come with the comparison
    assert set(comparison.differences) == {"map", "P_10"}
    pd.testing.assert_frame_equal(
        comparison.differences_for("map", "noise"),
        metrics.compare.per_query_differences(ev, "base", "map").query("run == 'noise'").reset_index(drop=True),
    )


def test_settings_are_checked():
    with pytest.raises(ValueError, match="test"):
        significance_model.Settings(test="sign")
    with pytest.raises(ValueError, match="correction"):
        significance_model.Settings(correction="sidak-holm-bh")
    with pytest.raises(ValueError, match="alpha"):
        significance_model.Settings(alpha=1.5)


def test_bar_layout():
    from workbench.views.plots.diffchart import layout_bars

    diffs = pd.DataFrame(
        {
            "query_id": ["a", "b", "c", "a", "b", "c"],
            "run": ["x", "x", "x", "y", "y", "y"],
            "delta": [0.3, 0.1, -0.2, -0.4, 0.5, 0.0],
            "baseline_value": 0.5,
            "value": 0.5,
        }
    )
    one = layout_bars(diffs, ["y"])
    assert one["query_id"].tolist() == ["a", "b", "c"] and one["x"].tolist() == [0.0, 1.0, 2.0]
    both = layout_bars(diffs, ["x", "y"])
    # mean differences: b 0.3, a -0.05, c -0.1
    assert both["query_id"].tolist() == ["b", "b", "a", "a", "c", "c"]
    assert both["run"].tolist() == ["x", "y"] * 3
    np.testing.assert_allclose(both["x"], [-0.2, 0.2, 0.8, 1.2, 1.8, 2.2])
    assert layout_bars(diffs, []).empty


def test_all_pairs_mode_shows_letters_and_the_matrix(qtbot, window, collection):
    load(qtbot, window, collection)
    s = window.session
    with qtbot.waitSignal(s.sigComparisonChanged, timeout=TIMEOUT):
        window.parts.toolbars.significance.mode_box.activated.emit(
            window.parts.toolbars.significance.mode_box.findData("pairs")
        )
    qtbot.waitUntil(lambda: s.comparison is not None and s.comparison.pairs is not None and not s.busy, timeout=TIMEOUT)
    c = s.comparison
    runs = list(c.request.runs)
    letters = c.letters()
    from metrics.compare.allpairs import letter

    model = window.parts.views.summary.model
    frame = model.frame()
    for i, run in enumerate(runs):
        row = list(frame["run"]).index(run)
        assert model.index(row, 0).data().endswith(f"({letter(i)})")
        col = list(frame.columns).index("map")
        shown = model.index(row, col).data()
        assert shown.replace("\u2002", "").strip().endswith(letters.get((run, "map"), "")) or not letters.get(
            (run, "map")
        )
    assert "Letters: the runs a value is significantly better than" in window.parts.views.summary.legend.text()
    # the matrix: row minus column, coloured by significance
    s.model.set_focus_measure("map")
    a, b = runs[0], runs[1]
    row = c.pair(a, b, "map")
    diff = row["difference"] if row["a"] == a else -row["difference"]
    assert window.parts.views.pairs_view.cell_text(a, b).startswith(f"{diff:+.4f}")
    # the pair's bootstrap interval (row run minus column run) is in the cell's tooltip
    low, high = (row["ci_low"], row["ci_high"]) if row["a"] == a else (-row["ci_high"], -row["ci_low"])
    assert low <= diff <= high
    assert f"95% interval [{low:+.4f}, {high:+.4f}]" in window.parts.views.pairs_view.cell_tooltip(a, b)
    # a Tukey HSD keeps the pairs mode and needs no correction
    with qtbot.waitSignal(s.sigComparisonChanged, timeout=TIMEOUT):
        window.parts.toolbars.significance.test_box.activated.emit(
            window.parts.toolbars.significance.test_box.findData("tukey")
        )
    qtbot.waitUntil(
        lambda: s.comparison is not None and s.comparison.request.settings.test == "tukey" and not s.busy,
        timeout=TIMEOUT,
    )
    assert (
        set(s.comparison.pairs["correction"]) == {"none"}
        and not window.parts.toolbars.significance.correction_box.isEnabled()
    )
    # clicking a cell shows that pair in the difference chart
    with qtbot.waitSignal(s.sigComparisonChanged, timeout=TIMEOUT):
        window.parts.views.pairs_view.table.cellClicked.emit(0, 1)
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert s.model.workspace.baseline_label() == b and window.parts.views.diff_chart.chosen_runs() == [a]


def test_letter_tooltips_list_every_other_run_with_its_pair(collection):
    ev, comparison = comparison_of(collection, test="t", correction="holm", alpha=0.05, mode="pairs", bootstrap=0)
    table = ev.summary().reset_index()
    marks, tips = significance_model.summary_marks(comparison, table)
    runs = list(comparison.request.runs)
    from metrics.compare.allpairs import letter

    for i, run in enumerate(table["run"]):
        assert marks.at[i, "run"] == f" ({letter(runs.index(run))})"
        lines = tips.at[i, "map"].split("\n")
        others = [r for r in runs if r != run]
        assert len(lines) == len(others)
        for line, other in zip(lines, others):
            row = comparison.pair(run, other, "map")
            diff = row["difference"] if row["a"] == run else -row["difference"]
            assert line.startswith(f"vs ({letter(runs.index(other))}) {other}: Δ {diff:+.4f}, corrected p = ")
            assert line.endswith(("better" if diff > 0 else "worse") if row["significant"] else "not different"), line
    # the pair looked up either way round is the same row
    assert comparison.pair(runs[0], runs[1], "map") is comparison.pair(runs[1], runs[0], "map")
    assert comparison.pair(runs[0], runs[1], "nope") is None


def test_the_quick_comparison_comes_with_the_scores_and_a_slow_one_after(qtbot, window, collection, monkeypatch):
    """The t-test against the baseline is computed in the evaluation's job (no job of its own, no wait
    while the window draws the scores), without the bootstrap intervals (no view shows them; an export
    computes them), and nothing is computed for it once the scores are painted.  A comparison of another
    kind has its own job, as before."""
    submitted, shown = [], []
    real = window.session.jobs.submit
    monkeypatch.setattr(window.session.jobs, "submit", lambda key, *a, **k: (submitted.append(key), real(key, *a, **k)))
    window.session.sigComparisonChanged.connect(lambda c: c is not None and shown.append((c, list(submitted))))
    load(qtbot, window, collection)
    assert [c.intervals for c, _ in shown] == [False]  # the views are told once
    (quick, before), comparison = shown[0], window.session.comparison
    assert "compare" not in before and "evaluate" in before  # with the scores
    assert "compare" not in submitted and comparison is quick  # and nothing after the paint
    assert comparison.is_for(window.session.results) and comparison.request.baseline == "base"
    _, expected = expected_comparison(collection, test="t", correction="holm", alpha=0.05, seed=0)
    got = comparison.table.set_index(["run", "measure"]).sort_index()
    want = expected.set_index(["run", "measure"]).sort_index()
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=1e-12)
    pd.testing.assert_frame_equal(
        got.drop(columns=["ci_low", "ci_high"]), want.drop(columns=["ci_low", "ci_high"]), check_like=True
    )
    assert summary_cells(window)[("good", "map")][0].endswith("†")  # its mark is shown
    submitted.clear()
    wait_idle(qtbot, window, lambda: window.session.followups.set_compare_settings(test="wilcoxon"))
    assert submitted == ["compare"] and window.session.comparison.request.settings.test == "wilcoxon"
    submitted.clear()
    wait_idle(qtbot, window, window.session.recompute)
    assert "compare" in submitted  # the Wilcoxon test is not computed with the scores
