"""Help (generated from the measure registry), undo of a removal, keyboard access."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from metrics.measures import (
    FAMILIES,  # noqa: E402
    reference,  # noqa: E402
)
from metrics.measures.registry import INTENT_FAMILIES  # noqa: E402
from workbench.state.loading import sample_files  # noqa: E402

TIMEOUT = 20000


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, ("map", "P.10"))
    yield w
    close_window(w)


def test_reference_covers_every_registered_family_with_its_names():
    entries = {e.family: e for e in reference.entries()}
    assert set(entries) == set(FAMILIES) | set(INTENT_FAMILIES)  # the diversity families too
    assert entries["alpha_nDCG"].judged == "intents" and entries["alpha_nDCG"].trec_names == ("alpha_nDCG@20",)
    assert entries["ndcg_cut"].ir_measures[:2] == ("nDCG@5", "nDCG@10")
    assert entries["recip_rank"].ir_measures == ("RR",)
    assert entries["P"].parameters == "5,10,15,20,30,100,200,500,1000"
    assert entries["num_rel"].kind == "long" and "official" in entries["map"].sets
    for e in entries.values():
        assert e.doc, e.family  # every family documents what it computes


def test_f1_opens_the_measure_reference_and_search_narrows_it(qtbot, window):
    for action in window.findChildren(type(window.parts.menus.undo_action)):
        if action.shortcut().toString() == "F1":
            action.trigger()
            break
    dialog = window.help_dialog
    assert dialog.isVisible()
    text = dialog.text()
    for family in ("map", "ndcg_cut", "bpref", "rbp", "Judged"):
        assert family in text
    dialog.search.setText("reciprocal rank")
    text = dialog.text()
    assert "recip_rank" in text and "Binary preference" not in text and "Precision at cutoff k" not in text
    dialog.search.setText("zzzz")
    assert "No measure matches" in dialog.text()


def test_about_names_the_versions(qtbot, window):
    dialog = window.show_help("about")
    assert numpy.__version__ in dialog.text() and "Qt" in dialog.text()
    assert "Ctrl+C" in window.show_help("shortcuts").text()


def test_a_removed_run_comes_back_with_undo(qtbot, window):
    s = window.session
    window.parts.files.open_files(sample_files())
    qtbot.waitUntil(lambda: not s.busy and s.results is not None, timeout=TIMEOUT)
    labels = list(s.results.runs)
    second = s.workspace.entry_by_label(labels[1])
    s.model.files.set_baseline(second.path)
    s.reading.remove(second.path)
    assert "Ctrl+Z" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert labels[1] not in s.results.runs and window.parts.menus.undo_action.isEnabled()
    window.parts.menus.undo_action.trigger()
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    assert list(s.results.runs) == labels  # same place, same label
    assert s.model.workspace.baseline_label() == labels[1]  # and baseline again
    assert not window.parts.menus.undo_action.isEnabled()


def test_ctrl_f_goes_to_the_query_filter(qtbot, window):
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert (
        window.parts.views.per_query.filter_edit.hasFocus()
        or window.focusWidget() is window.parts.views.per_query.filter_edit
    )


def test_the_plot_columns_grow_back_with_the_window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",), size=(1024, 700))
    try:
        # small: the plots and the differences are tabs of one column, each at least 250 px wide
        qtbot.waitUntil(lambda: w.parts.views.docks["prCurves"].width() >= 250, timeout=5000)
        w.resize(1600, 1000)
        # grown: side by side again, each with its share of the width
        qtbot.waitUntil(
            lambda: (
                w.parts.views.docks["prCurves"].isVisible()
                and w.parts.views.docks["diffChart"].isVisible()
                and min(w.parts.views.docks["prCurves"].width(), w.parts.views.docks["diffChart"].width()) >= 0.2 * 1600
            ),
            timeout=5000,
        )
        assert w.centralWidget().width() < 1600 * 0.5  # the per-query table did not take it all
    finally:
        close_window(w)
