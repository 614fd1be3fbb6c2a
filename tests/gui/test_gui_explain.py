"""The explain panel shows what it is given: the tables' cells, the working, the copy text, the signal."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402

from metrics.explain import Prepared  # noqa: E402
from workbench.views.panels.explain import ExplainPanel  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "workbench", "resources", "sample")


@pytest.fixture(scope="module")
def prepared():
    return Prepared(os.path.join(SAMPLE, "qrels.txt"), os.path.join(SAMPLE, "run_bm25.txt"))


@pytest.fixture
def panel(qtbot):
    w = ExplainPanel()
    qtbot.addWidget(w)
    w.resize(1000, 700)
    w.show()
    return w


def cells(block) -> list[list[str]]:
    m = block.model
    return [[m.index(r, c).data() for c in range(m.columnCount())] for r in range(m.rowCount())]


def test_average_precision_is_shown_row_by_row(panel, prepared, qtbot):
    e = prepared.explain("map", "401")
    panel.show_explanation(e, prepared.gain_curve("401", "map", 20))
    block = panel.blocks[0]
    assert block.isVisible() and not panel.message.isVisible()
    rows = cells(block)
    assert rows[0] == ["2", "DOC-000-0106", "3", "1", "1/2", "0.5000", "0.5000"]
    assert len(rows) == 28 and rows[-1][-1] == "13.9264"
    assert [block.model.headerData(c, Qt.Orientation.Horizontal) for c in range(2)] == ["rank", "docid"]
    assert "AP = (sum of the precision" in panel.working.text()
    assert "13.9264 / 43 = 0.3239" in panel.result.text() and "15 of them never retrieved" in panel.result.text()
    assert "map" in panel.heading.text() and "401" in panel.heading.text()
    assert panel.plot.isVisible()

    with qtbot.waitSignal(panel.documentActivated) as signal:
        index = block.model.index(2, 0)
        rect = block.view.visualRect(index)
        qtbot.mouseClick(block.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == ["401", "DOC-000-0312"]

    panel.copy_button.click()
    text = QGuiApplication.clipboard().text()
    assert text == e.to_text() and text.splitlines()[-1] == "map                   \t401\t0.3239"
    assert "| 2 | DOC-000-0106 | 3 | 1 | 1/2 | 0.5000 | 0.5000 |" in text


def test_ndcg_shows_the_run_and_the_ideal_ranking_and_the_gain_curve(panel, prepared):
    e = prepared.explain("nDCG@10", "401")
    curve = prepared.gain_curve("401", "nDCG@10")
    panel.show_explanation(e, curve)
    run, ideal = cells(panel.blocks[0]), cells(panel.blocks[1])
    assert run[0][:3] == ["1", "DOC-000-0040", "not in qrels"] and run[-1][-1] == "7.0851"
    assert ideal[0] == ["1", "DOC-000-0106", "3", "3.0000", "1.0000", "3.0000", "3.0000"] and ideal[-1][-1] == "13.0406"
    assert "nDCG@10 = 7.0851 / 13.0406 = 0.5433" in panel.result.text()
    assert "discount = log2(rank + 1)" in panel.conventions.text()  # (under the working, the formula above it)
    assert curve.unjudged == [1, 7] and len(curve.k) == 10
    names = [item.name() for item in panel._items]
    assert names == ["ideal DCG@k", "bm25 DCG@k", "gain, at its run rank", "gain, at its ideal rank", "unjudged"]
    assert panel.picture == "cumulative gain against the ideal"
    # one explanation after another reuses the tables: a one-table explanation hides the second; P@10's
    # picture is its own (the cut), not a gain curve
    panel.show_explanation(prepared.explain("P_10", "402"))
    assert panel.blocks[0].isVisible() and not panel.blocks[1].isVisible()
    assert panel.picture == "relevant documents down to the cut" and panel.plot.isVisible()


def test_a_measure_without_working_is_a_message(panel, prepared):
    panel.show_explanation(prepared.explain("gm_map", "401"))  # (its per-query value has no working of its own)
    assert panel.message.isVisible() and not panel.split.isVisible()
    assert "cannot be explained yet" in panel.message.text()
    panel.copy_button.click()
    assert "Not explained" in QGuiApplication.clipboard().text()
    panel.clear()
    assert panel.text() == "" and not panel.copy_button.isEnabled()


def test_summary_rows_name_queries_and_emit_nothing(panel, prepared, qtbot):
    panel.show_explanation(prepared.explain("map", "all"))
    rows = cells(panel.blocks[0])
    assert rows[0][0] == "401" and len(rows) == len(prepared.query_ids)
    with qtbot.assertNotEmitted(panel.documentActivated):
        panel._clicked(0, 0)


def test_the_textbooks_conventions_are_shown_beside_trec_eval_s(panel, prepared):
    e = prepared.explain("map", "401")
    panel.show_explanation(e, None, prepared.side_by_side("map", "401"))
    rows = cells(panel.textbook)
    assert panel.textbook.isVisible()
    assert rows[0][:3] == ["trec_eval's map", "0.3239", "0.0000"]
    over = next(r for r in rows if r[0] == "AP over the relevant documents retrieved")
    assert over[1] == "0.4974" and over[2] == "0.1735" and "instead of all R" in over[3]
    assert "0.3424" in next(r for r in rows if r[0] == "interpolated AP")
    panel.show_explanation(prepared.explain("P_10", "402"))  # (nothing to compare given: none shown)
    assert not panel.textbook.isVisible()


def test_the_formula_and_a_dozen_rows_show_in_a_docked_panel(qtbot, prepared):
    """Docked in a corner of a 1400x900 window the panel is about 380 by 380: the formula is shown whole and
    the working's first table shows a dozen rows (the panel scrolls as a whole, never a table to nothing)."""
    w = ExplainPanel()
    qtbot.addWidget(w)
    w.resize(380, 380)
    w.show()
    w.show_explanation(prepared.explain("map", "401"), None, prepared.side_by_side("map", "401"))
    block = w.blocks[0]
    qtbot.waitUntil(lambda: block.view.height() >= block.view.verticalHeader().defaultSectionSize() * 12, timeout=5000)
    viewport = w.split.viewport().rect()
    top_of_table = block.view.mapTo(w.split.widget(), block.view.rect().topLeft()).y()
    assert w.working.height() >= w.working.heightForWidth(w.working.width())  # the formula is not cut
    assert top_of_table + block.view.verticalHeader().defaultSectionSize() * 10 < viewport.height() + 40


@pytest.mark.parametrize(
    "measure, picture, title",
    [
        ("map", "precision at each relevant rank", "Precision at each relevant rank"),
        ("recip_rank", "the first relevant rank", "First relevant at rank 2: 1/2"),
        ("P_10", "relevant documents down to the cut", "down to the cut at 10"),
        ("Rprec", "relevant documents down to the cut", "down to the cut at 43"),
        ("bpref", "", ""),
    ],
)
def test_each_measure_is_taught_with_its_own_picture(panel, prepared, measure, picture, title):
    e = prepared.explain(measure, "401")
    panel.show_explanation(e)
    assert panel.picture == picture and panel.plot.isVisible() == bool(picture)
    if picture:
        assert title in panel.plot.getPlotItem().titleLabel.text
        ticks = panel.plot.getAxis("bottom").tickValues(0.5, 10.5, 400)
        assert all(float(v).is_integer() for _, values in ticks for v in values)  # ranks: whole numbers
