"""Help > Worked examples: the gallery lists every example with the numbers its text prints beside the exact
ones, and opens one as an ordinary session whose first number the Explain dock explains, the textbooks'
convention beside trec_eval's value."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from metrics.examples import example_names, open_example  # noqa: E402

TIMEOUT = 30000


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, ["map", "P_10"])
    yield w
    close_window(w)


def _cells(model) -> list[list[str]]:
    return [[str(model.index(r, c).data()) for c in range(model.columnCount())] for r in range(model.rowCount())]


def test_the_gallery_lists_every_example_and_opens_one_as_a_session(qtbot, window):
    dialog = window.parts.menus.show_examples()
    qtbot.waitUntil(lambda: dialog.names.count() == len(example_names()), timeout=TIMEOUT)
    row = example_names().index("interpolated-ap")
    dialog.names.setCurrentRow(row)
    assert "0.675" in dialog.about.text()
    cells = _cells(dialog.model)
    assert cells[0][:4] == ["AP with interpolated precision", "1", "0.675", "0.6750"]
    assert "0.6500" in cells[0]  # trec_eval's map under its own convention

    dialog.open_button.click()
    s = window.session
    qtbot.waitUntil(lambda: s.model.explainer.explained is not None and not s.busy, timeout=TIMEOUT)
    example = open_example("interpolated-ap")
    assert [e.path for e in s.workspace.entries] == [str(example.qrels_path), str(example.run_path)]
    assert list(s.results.runs) == ["interpolated-ap"]
    assert s.results.summary.loc["interpolated-ap", "map"] == pytest.approx(0.65, abs=1e-12)
    explained = s.model.explainer.explained
    assert (explained.explanation.measure, explained.explanation.query_id) == ("map", "1")
    textbook = dict(zip(explained.textbook["convention"], explained.textbook["value"]))
    assert textbook["interpolated AP"] == pytest.approx(0.675, abs=1e-12)
    shown = _cells(window.parts.views.explain_view.textbook.model)
    assert any(r[0] == "interpolated AP" and r[1] == "0.6750" for r in shown)


@pytest.mark.parametrize(("name", "measure"), [("map", "map"), ("mrr", "recip_rank"), ("ndcg-gain", "ndcg_cut_5")])
def test_an_example_opens_with_its_own_settings_whatever_the_session_had(qtbot, window, name, measure):
    """After the user set grade 2 and exponential nDCG gain, an example still shows its own numbers (MAP
    0.0000 beside its 0.6418 before), says so, and its first number is explained (the nDCG examples named
    ndcg_cut.10 where the results name ndcg_cut_10, and opened with nothing explained)."""
    s = window.session
    s.model.set_relevance_level(2)
    s.model.set_ndcg_option("gain", "exp")
    dialog = window.parts.menus.show_examples()
    qtbot.waitUntil(lambda: dialog.names.count() == len(example_names()), timeout=TIMEOUT)
    dialog.names.setCurrentRow(example_names().index(name))
    dialog.open_button.click()
    qtbot.waitUntil(lambda: s.model.explainer.explained is not None and not s.busy, timeout=TIMEOUT)
    example = open_example(name)
    assert s.model.settings.relevance_level == example.level and s.model.settings.gain == "linear"
    expected = metrics_summary(example, measure)
    assert s.results.summary.loc[name, measure] == pytest.approx(expected, abs=1e-12)
    assert s.model.explainer.explained.explanation.measure == measure
    told = s.model.messages.text()  # (View > Messages; the status bar said it)
    assert f"Worked example {name}" in told and "its own settings: relevance from grade 1" in told


def metrics_summary(example, measure: str) -> float:
    import metrics

    ev = metrics.evaluate(str(example.qrels_path), str(example.run_path), [measure], relevance_level=example.level)
    return float(ev.summary().iloc[0][measure])


def test_the_gallery_shows_trec_eval_s_columns_at_its_own_size(qtbot, window):
    """At the dialog's own size the table shows trec_eval's convention and what trec_eval prints (a long
    text column pushed them out of view)."""
    dialog = window.parts.menus.show_examples()
    qtbot.waitUntil(lambda: dialog.names.count() == len(example_names()), timeout=TIMEOUT)
    for row in range(dialog.names.count()):
        dialog.names.setCurrentRow(row)
        columns = [dialog.model.headerData(c, Qt.Orientation.Horizontal) for c in range(dialog.model.columnCount())]
        view = dialog.table
        for name in ("exact", "trec_eval convention", "trec_eval prints"):
            c = columns.index(name)
            right = view.columnViewportPosition(c) + view.columnWidth(c)
            assert right <= view.viewport().width(), (example_names()[row], name)
