"""The drill-down joins the same document across the lists shown (each row says where its document is in
the other runs; a click selects it in every list and scrolls it into view), and lists the unjudged
documents of the top k, copied as qrels lines to judge."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from workbench.state.drilldown import NOT_RETRIEVED  # noqa: E402

TIMEOUT = 30000
MEASURES = ("map", "P.10")
N = 30  # documents per list, and the drill-down's depth
# alpha ranks d1 ... d30; beta the reverse (d1 last); gamma d5, d1, g1, g2 (g1, g2: only gamma has them)
ORDERS = {
    "alpha": [f"d{i}" for i in range(1, N + 1)],
    "beta": [f"d{i}" for i in range(N, 0, -1)],
    "gamma": ["d5", "d1", "g1", "g2"],
}
GRADES = {"d1": 2, "d2": 0, "d3": 1, "d5": 1, "d6": -1}  # d6: pooled, not judged


@pytest.fixture
def files(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "qrels.txt").write_text("".join(f"q1 0 {d} {g}\n" for d, g in GRADES.items()) + "q2 0 d1 1\n")
    paths = []
    for i, (tag, order) in enumerate(ORDERS.items()):
        path = folder / f"{i}_{tag}.txt"
        lines = [f"q1 Q0 {d} {r + 1} {100 - r} {tag}\n" for r, d in enumerate(order)] + [f"q2 Q0 d1 1 1 {tag}\n"]
        path.write_text("".join(lines))
        paths.append(path)
    return folder / "qrels.txt", paths


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1024, 700))
    yield w
    close_window(w)


def open_query(qtbot, window, files):
    qrels, runs = files
    with qtbot.waitSignal(window.session.sigIdle, timeout=TIMEOUT):
        window.parts.files.open_files([str(qrels), *map(str, runs)])
    view = window.parts.views.drilldown
    view.depth_box.setValue(N)
    window.session.model.select_query("q1")
    qtbot.waitUntil(lambda: set(view.columns) == set(ORDERS) and len(view.table_frame("beta")) == N, timeout=TIMEOUT)
    return view


def click_row(qtbot, view, run, row):
    table = view.columns[run].view
    rect = table.visualRect(table.model().index(row, 1))
    view.body.ensureVisible(0, 0)  # (a click is on what can be seen)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def selected_docs(view, run) -> list[str]:
    frame = view.table_frame(run)
    return [frame["doc_id"].iloc[i.row()] for i in view.columns[run].view.selectionModel().selectedRows()]


def test_each_row_says_where_its_document_is_in_the_other_lists(qtbot, window, files):
    view = open_query(qtbot, window, files)
    alpha = view.table_frame("alpha")
    # three lists: the ranks in each other list, in the order shown (beta, gamma)
    assert list(alpha["in others"][:6]) == [
        f"{N} 2",
        f"{N - 1} {NOT_RETRIEVED}",
        f"{N - 2} {NOT_RETRIEVED}",
        f"{N - 3} {NOT_RETRIEVED}",
        f"{N - 4} 1",
        f"{N - 5} {NOT_RETRIEVED}",
    ]
    gamma = view.table_frame("gamma")
    assert list(gamma["in others"]) == [f"5 {N - 4}", f"1 {N}", f"{NOT_RETRIEVED} {NOT_RETRIEVED}"] + [
        f"{NOT_RETRIEVED} {NOT_RETRIEVED}"
    ]
    model = view.columns["gamma"].model
    assert model.data(model.index(2, 0), Qt.ItemDataRole.ToolTipRole).endswith(
        "not retrieved by alpha; not retrieved by beta"
    )
    # two lists: the rank in the other run, its column named after it
    view.set_run_shown("gamma", False)
    qtbot.waitUntil(lambda: "gamma" not in view.columns, timeout=TIMEOUT)
    assert list(view.table_frame("alpha")["in beta"][:3]) == [str(N), str(N - 1), str(N - 2)]
    assert list(view.table_frame("beta")["in alpha"][:2]) == [str(N), str(N - 1)]
    assert "in others" not in view.table_frame("alpha")


def test_the_lists_tables_are_made_in_the_drill_downs_worker_not_on_the_windows_thread(
    qtbot, window, files, monkeypatch
):
    """Selecting a query: the tables of the lists shown (each run's rows, their tooltips and the joins
    across the lists) are made with the drill-down in its worker; the window's thread only shows them."""
    import threading

    from workbench.state import drilldown as dm

    threads = []
    made = dm.ranking_table

    def noted(*args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return made(*args, **kwargs)

    monkeypatch.setattr(dm, "ranking_table", noted)
    view = open_query(qtbot, window, files)
    assert threads and not any(threads)  # every list's table made, none on the window's thread
    assert view.session.drilldown.tables.lists == tuple(view.shown_runs())
    assert view.table_frame("alpha").equals(made(view.session.drilldown, "alpha", view.shown_runs())[0])


def test_a_run_shown_in_place_of_another_takes_its_list_and_shows_its_own_rows(qtbot, window, files):
    """The runs shown change (the best runs differ from query to query among many): the list of a run no
    longer shown serves the run now shown, with that run's rows, caption and joins."""
    from workbench.state import drilldown as dm

    view = open_query(qtbot, window, files)
    view.set_run_shown("gamma", False)
    qtbot.waitUntil(lambda: set(view.columns) == {"alpha", "beta"}, timeout=TIMEOUT)
    beta = view.columns["beta"]
    window.session.followups.show_drilldown_runs(["alpha", "gamma"])
    qtbot.waitUntil(lambda: set(view.columns) == {"alpha", "gamma"}, timeout=TIMEOUT)
    assert view.columns["gamma"] is beta  # (reused, not made anew)
    drill = window.session.drilldown
    assert view.table_frame("gamma").equals(dm.ranking_table(drill, "gamma", ["alpha", "gamma"])[0])
    assert beta.caption.text().startswith("gamma") and list(view.table_frame("alpha").columns)[-1] == "in gamma"


def test_a_click_selects_the_document_in_every_list_and_scrolls_it_into_view(qtbot, window, files):
    view = open_query(qtbot, window, files)
    view.set_run_shown("gamma", False)
    qtbot.waitUntil(lambda: "gamma" not in view.columns, timeout=TIMEOUT)
    assert not view.row_in_view("beta", "d1")  # (beta's last row: below the pane's height)
    click_row(qtbot, view, "alpha", 0)  # d1, first of alpha, last of beta
    qtbot.waitUntil(lambda: selected_docs(view, "beta") == ["d1"], timeout=TIMEOUT)
    assert selected_docs(view, "alpha") == ["d1"]
    qtbot.waitUntil(lambda: view.row_in_view("beta", "d1"), timeout=TIMEOUT)
    # a document the other list holds near the clicked row's: both in view
    click_row(qtbot, view, "beta", 14)  # d16, at 15 in beta and 16 in alpha
    qtbot.waitUntil(lambda: selected_docs(view, "alpha") == ["d16"], timeout=TIMEOUT)
    assert view.row_in_view("alpha", "d16") and view.row_in_view("beta", "d16")


def test_the_unjudged_of_the_top_k_are_listed_and_copied_as_qrels_lines(qtbot, window, files):
    view = open_query(qtbot, window, files)
    unjudged = [f"d{i}" for i in range(1, N + 1) if i not in (1, 2, 3, 5)] + ["g1", "g2"]
    assert view.unjudged_button.text() == f"Unjudged: {len(unjudged)}…"
    dialog = view.show_unjudged()
    qtbot.waitExposed(dialog)
    frame = dialog.frame()
    # by best rank, a tie by the order of the lists: d30 (1 in beta), d29, d28 (3 in beta), g1 (3 in gamma),
    # d4 (4 in alpha) ...; d6's grade -1 is no judgment
    assert list(frame["doc_id"][:7]) == ["d30", "d29", "d28", "g1", "d4", "d27", "g2"]
    assert "d6" in list(frame["doc_id"])
    assert sorted(frame["doc_id"]) == sorted(unjudged)
    by = dict(zip(frame["doc_id"], frame["retrieved by"]))
    assert by["d4"] == f"alpha 4, beta {N - 3}" and by["g1"] == "gamma 3"
    assert f"{len(unjudged)} unjudged documents in the top {N} of 3 lists" in dialog.caption.text()
    QApplication.clipboard().clear()
    dialog.copy_button.click()
    lines = QApplication.clipboard().text().splitlines()
    assert lines[:5] == ["q1 0 d30 -1", "q1 0 d29 -1", "q1 0 d28 -1", "q1 0 g1 -1", "q1 0 d4 -1"]
    assert len(lines) == len(unjudged)
    # it follows the lists shown
    view.set_run_shown("gamma", False)
    qtbot.waitUntil(lambda: "g1" not in list(dialog.frame()["doc_id"]), timeout=TIMEOUT)
    assert view.unjudged_button.text() == f"Unjudged: {len(unjudged) - 2}…"
    assert "of 2 lists (alpha, beta)" in dialog.caption.text()
    # no query: nothing to list
    window.session.model.select_query(None)
    qtbot.waitUntil(lambda: dialog.caption.text() == "No query selected.", timeout=TIMEOUT)
    assert not dialog.copy_button.isEnabled() and not view.unjudged_button.isEnabled()
    assert view.unjudged_button.text() == "Unjudged…"
    dialog.close()
