"""Qrels held beside the qrels in use, and the judgments' views, checked on what the window shows: the
Files panel's kind and status, the swap and its undo, workspaces; the agreement of two qrels, the runs
ranked under each and the pool's bias, each number as :mod:`metrics.judgments` computes it; out of
date while hidden, computed when in front; the exports state their settings; what cannot be computed
said in words."""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from metrics.judgments import compare, leave_one_out, system_agreement  # noqa: E402
from tests.gui.test_gui_analysis_views import shown  # noqa: E402
from tests.test_workbench.state.test_held_qrels import stricter  # noqa: E402
from workbench.state.export import read_csv  # noqa: E402
from workbench.state.loading import SAMPLE_DIR  # noqa: E402

TIMEOUT = 30000
RUNS = ("run_bm25.txt", "run_bm25_rm3.txt", "run_tfidf_title.txt")
LABELS = {"run_bm25.txt": "bm25", "run_bm25_rm3.txt": "bm25_rm3", "run_tfidf_title.txt": "tfidf_title"}


@pytest.fixture
def sample(tmp_path):
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, folder, ignore=shutil.ignore_patterns("*.tsv"))
    stricter(folder / "qrels.txt", folder / "qrels_b.txt")
    return folder


def _idle(qtbot, w):
    qtbot.waitUntil(lambda: not w.session.busy and w.session.results is not None, timeout=TIMEOUT)


def _open(qtbot, w, folder, runs=RUNS, held=("qrels_b.txt",)):
    w.parts.files.open_files([str(folder / "qrels.txt"), *(str(folder / r) for r in runs)])
    _idle(qtbot, w)
    if held:
        w.parts.files.open_held([str(folder / h) for h in held])
        qtbot.waitUntil(lambda: len(w.session.workspace.held_entries()) == len(held), timeout=TIMEOUT)
        _idle(qtbot, w)


@pytest.fixture
def window(qtbot, tmp_path, sample):
    w = open_window(qtbot, tmp_path, ("map", "P.10"), size=(1400, 900))
    yield w
    close_window(w)


def _row(window, name):
    table = window.parts.views.files.table
    for r in range(table.rowCount()):
        if table.item(r, 0).text() == name:
            return r, table.item(r, 1).text(), table.item(r, 2).text()
    raise AssertionError(f"{name} is not listed")


def test_the_files_panel_holds_qrels_beside_swaps_them_and_undo_swaps_back(qtbot, window, sample):
    _open(qtbot, window, sample)
    s = window.session
    assert _row(window, "qrels.txt")[1:] == ("qrels", "in use")
    row, kind, status = _row(window, "qrels_b.txt")
    assert (kind, status) == ("other qrels", "held beside")
    assert s.results.request.qrels_name.endswith(os.sep + "qrels.txt")
    box = window.parts.views.files.kind_box(row)
    index = box.findData("qrels")
    assert box.itemText(index) == "use as the qrels (swap)"
    box.activated.emit(index)
    qtbot.waitUntil(lambda: _row(window, "qrels_b.txt")[1:] == ("qrels", "in use"), timeout=TIMEOUT)
    assert _row(window, "qrels.txt")[1:] == ("other qrels", "held beside")
    qtbot.waitUntil(lambda: s.results.request.qrels_name.endswith("qrels_b.txt") and not s.busy, timeout=TIMEOUT)
    expected = system_agreement([str(sample / r) for r in RUNS], sample / "qrels.txt", sample / "qrels_b.txt")
    assert s.results.summary.loc["bm25", "map"] == pytest.approx(expected.scores.loc[0, "score_b"], abs=1e-12)
    window.parts.menus.undo_action.trigger()
    qtbot.waitUntil(lambda: _row(window, "qrels.txt")[1:] == ("qrels", "in use"), timeout=TIMEOUT)
    assert _row(window, "qrels_b.txt")[1:] == ("other qrels", "held beside")


def test_a_workspace_saved_with_held_qrels_opens_them_held(qtbot, tmp_path, sample):
    (tmp_path / "a").mkdir()
    w = open_window(qtbot, tmp_path / "a", ("map",))
    try:
        _open(qtbot, w, sample)
        path = sample / "study.irwb"
        with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):
            assert w.parts.workspaces.write(str(path))
    finally:
        close_window(w)
    (tmp_path / "b").mkdir()
    w2 = open_window(qtbot, tmp_path / "b", ("map",))
    try:
        w2.parts.files.open_files([str(path)])
        _idle(qtbot, w2)
        qtbot.waitUntil(lambda: w2.session.workspace.held_entries() != [], timeout=TIMEOUT)
        assert _row(w2, "qrels_b.txt")[1:] == ("other qrels", "held beside")
        assert _row(w2, "qrels.txt")[1:] == ("qrels", "in use")
    finally:
        close_window(w2)


def test_the_agreement_view_shows_the_cores_numbers_and_exports_them_with_its_settings(qtbot, window, sample, tmp_path):
    _open(qtbot, window, sample)
    view = shown(qtbot, window, "qrelsAgreement")
    expected = compare(sample / "qrels.txt", sample / "qrels_b.txt", top=10)
    assert view.held_box.currentText() == "qrels_b.txt"
    assert view.summary_text("pairs judged by both") == str(expected.pairs)
    assert view.summary_text("Cohen's kappa") == f"{expected.kappa:.4f}"
    assert view.summary_text("kappa, linearly weighted") == f"{expected.weighted_kappa:.4f}"
    assert view.summary_text("Krippendorff's alpha (ordinal)") == f"{expected.alpha:.4f}"
    assert view.summary_text("judged by a only") == str(expected.only_a)
    assert f"Cohen's kappa {expected.kappa:.4f}" in view.caption.text()
    confusion = view.confusion_table
    grades = list(expected.confusion.index)
    for i, g in enumerate(grades):
        assert confusion.text(i, "a \\ b") == f"a: {g}"
        for h in expected.confusion.columns:
            assert confusion.text(i, f"b: {h}") == str(int(expected.confusion.loc[g, h]))
    disputed = view.disputed_table
    assert disputed.frame()["query_id"].tolist() == expected.most_disputed["query_id"].tolist()
    assert disputed.text(0, "agreement") == f"{expected.most_disputed.loc[0, 'agreement']:.4f}"

    csv = tmp_path / "agreement.csv"
    view.export.export_csv(str(csv))
    text = csv.read_text(encoding="utf-8-sig")
    assert "qrels_b.txt (b)" in text and "Krippendorff's alpha, ordinal" in text
    back = read_csv(csv)
    assert back.loc[0, "query_id"] == "all"
    assert back.loc[0, "kappa"] == pytest.approx(expected.kappa, abs=1e-12)
    assert back.loc[0, "pairs"] == expected.pairs
    errors: list[str] = []
    window.session.sigError.connect(errors.append)
    view.export.export("csv", str(sample / "qrels_b.txt"))  # a qrels held beside is an input too: never written
    qtbot.waitUntil(lambda: bool(errors), timeout=TIMEOUT)
    assert errors[-1].startswith("Export failed:") and "loaded as input" in errors[-1]
    assert (sample / "qrels_b.txt").read_text().startswith((sample / "qrels.txt").read_text()[:3])
    per_query = back.iloc[1:].set_index("query_id")
    mine = expected.per_query.set_index("query_id")
    assert per_query["alpha"].to_numpy() == pytest.approx(mine["alpha"].to_numpy(), abs=1e-12, nan_ok=True)


def test_the_systems_view_ranks_the_runs_under_each_qrels_and_follows_the_measure(qtbot, window, sample, tmp_path):
    _open(qtbot, window, sample)
    view = shown(qtbot, window, "systems")
    runs = {LABELS[r]: str(sample / r) for r in RUNS}
    for measure in ("map", "P_10"):
        if measure != "map":
            view.measure_box.setCurrentText(measure)
            view.measure_box.activated.emit(view.measure_box.currentIndex())
            qtbot.waitUntil(
                lambda: view.follower.state() == "current" and view.follower.outcome.settings.measure == measure,
                timeout=TIMEOUT,
            )
        expected = system_agreement(runs, sample / "qrels.txt", sample / "qrels_b.txt", measure)
        for _, row in expected.scores.iterrows():
            assert view.cell(row["run"], "score_a") == f"{row['score_a']:.4f}"
            assert view.cell(row["run"], "score_b") == f"{row['score_b']:.4f}"
            assert view.cell(row["run"], "rank_a") == str(row["rank_a"])
            assert view.cell(row["run"], "rank_b") == str(row["rank_b"])
        assert f"Kendall's tau {expected.tau:.4f}" in view.caption.text()
        assert f"tau_AP {expected.tau_ap:.4f}" in view.caption.text()
        assert view.flips_table.frame().shape[0] == len(expected.flips)
    assert "no pair of runs flips" in view.caption.text() and not view.flips_table.view.isVisibleTo(view)

    csv = tmp_path / "systems.csv"
    view.export.export_csv(str(csv))
    text = csv.read_text(encoding="utf-8-sig")
    assert f"tau: {expected.tau:.4f}" in text and "P_10; Kendall's tau-b and tau_AP" in text
    back = read_csv(csv)
    assert back["score_b"].to_numpy() == pytest.approx(expected.scores["score_b"].to_numpy(), abs=1e-12)


def test_a_hidden_judgments_view_is_out_of_date_after_a_swap_and_computed_again_in_front(qtbot, window, sample):
    _open(qtbot, window, sample)
    view = shown(qtbot, window, "systems")
    window.parts.views.analysis_views.show("overlap")
    qtbot.waitUntil(lambda: not view.follower.shown(), timeout=TIMEOUT)
    s = window.session
    s.reading.set_kind(str(sample / "qrels_b.txt"), "qrels")  # (the swap: qrels_b.txt in use, qrels.txt held beside)
    qtbot.waitUntil(lambda: s.results.request.qrels_name.endswith("qrels_b.txt") and not s.busy, timeout=TIMEOUT)
    assert view.follower.state() == "outdated"
    assert view.banner.isVisibleTo(view) and "Out of date" in view.banner.text()
    view = shown(qtbot, window, "systems")
    assert not view.banner.isVisibleTo(view)
    assert view.held_box.currentText() == "qrels.txt"
    runs = {LABELS[r]: str(sample / r) for r in RUNS}
    expected = system_agreement(runs, sample / "qrels_b.txt", sample / "qrels.txt", "map")
    assert view.cell("bm25", "score_a") == f"{expected.scores.loc[0, 'score_a']:.4f}"


def test_what_cannot_be_computed_is_said_in_words(qtbot, window, sample):
    elsewhere = sample / "qrels_other.txt"  # judgments of other queries: no pair in common
    elsewhere.write_text("".join(f"x{q} 0 d{q} {q % 3}\n" for q in range(20)))
    shutil.copy(sample / "qrels.txt", sample / "qrels_copy.txt")
    _open(qtbot, window, sample, runs=RUNS[:1], held=("qrels_other.txt", "qrels_copy.txt"))
    view = shown(qtbot, window, "qrelsAgreement")
    assert view.held_box.currentText() == "qrels_other.txt"
    assert "No (query, document) pair is judged by both" in view.caption.text()
    kappa = view.summary_text("Cohen's kappa")
    assert kappa == "n/a (not computable: no (query, document) pair is judged by both qrels)"
    assert "nan" not in view.summary.text().lower()
    view.held_box.setCurrentText("qrels_copy.txt")
    view.held_box.activated.emit(view.held_box.currentIndex())
    qtbot.waitUntil(
        lambda: view.follower.state() == "current" and view.follower.outcome.settings.held.endswith("qrels_copy.txt"),
        timeout=TIMEOUT,
    )
    assert "are identical" in view.caption.text()
    assert view.summary_text("Cohen's kappa") == "1.0000"

    systems = shown(qtbot, window, "systems")
    assert "Kendall's tau is n/a (not computable: it needs two runs" in systems.caption.text()
    assert systems.cell("bm25", "score_a") != ""


def test_without_qrels_held_beside_the_views_say_how_to_hold_some(qtbot, window, sample):
    _open(qtbot, window, sample, held=())
    view = window.parts.views.analysis_views["qrelsAgreement"]
    window.parts.views.analysis_views.show("qrelsAgreement")
    qtbot.waitUntil(lambda: "Open qrels to compare" in view.caption.text(), timeout=TIMEOUT)
    assert "Open qrels to compare" in view.banner.text() and view.banner.isVisibleTo(view)
    assert view.summary.text() == "" and view.confusion_table.frame().empty
    # a qrels file held beside now: the view shown computes at once
    window.parts.files.open_held([str(sample / "qrels_b.txt")])
    qtbot.waitUntil(lambda: view.follower.state() == "current" and view.follower.outcome is not None, timeout=TIMEOUT)
    assert view.summary_text("pairs judged by both") == str(compare(sample / "qrels.txt", sample / "qrels_b.txt").pairs)


def test_the_pool_bias_view_leaves_each_run_out_at_the_depth_chosen(qtbot, window, sample, tmp_path):
    _open(qtbot, window, sample, held=())
    view = shown(qtbot, window, "poolBias")
    view.depth_box.setValue(20)
    qtbot.waitUntil(
        lambda: view.follower.state() == "current" and view.follower.outcome.settings.depth == 20, timeout=TIMEOUT
    )
    runs = {LABELS[r]: str(sample / r) for r in RUNS}
    expected = leave_one_out(runs, sample / "qrels.txt", "map", depth=20).runs
    for _, row in expected.iterrows():
        assert view.cell(row["run"], "unique_relevant") == str(row["unique_relevant"])
        assert view.cell(row["run"], "score_loo") == f"{row['score_loo']:.4f}"
        assert view.cell(row["run"], "change") == f"{row['change']:.4f}"
        assert view.cell(row["run"], "rank_loo") == str(row["rank_loo"])
    assert "No run changes rank" in view.caption.text()
    csv = tmp_path / "pool.csv"
    view.export.export_csv(str(csv))
    assert "first 20 documents of each run" in csv.read_text(encoding="utf-8-sig")
    back = read_csv(csv)
    assert back["score_loo"].to_numpy() == pytest.approx(expected["score_loo"].to_numpy(), abs=1e-12)
    assert "group" not in list(view.table.frame().columns)  # (each run alone: its own group)

    # the two BM25 runs left out together, as one team's
    view.group_box.setText("_")
    view.group_box.editingFinished.emit()
    qtbot.waitUntil(
        lambda: view.follower.state() == "current" and view.follower.outcome.settings.group_sep == "_", timeout=TIMEOUT
    )
    teams = leave_one_out(runs, sample / "qrels.txt", "map", depth=20, groups=lambda run: run.split("_")[0]).runs
    for _, row in teams.iterrows():
        assert view.cell(row["run"], "group") == row["group"]
        assert view.cell(row["run"], "removed") == str(row["removed"])
        assert view.cell(row["run"], "score_loo") == f"{row['score_loo']:.4f}"
        assert view.cell(row["run"], "rank_loo") == str(row["rank_loo"])
    assert view.cell("bm25_rm3", "group") == "bm25" and teams["rank_loo"].tolist() != expected["rank_loo"].tolist()
    view.export.export_csv(str(csv))
    assert "runs whose labels agree up to '_'" in csv.read_text(encoding="utf-8-sig")


def test_two_qrels_are_compared_without_any_run_and_a_swap_makes_the_view_compute_again(qtbot, window, sample):
    s = window.session
    window.parts.files.open_files([str(sample / "qrels.txt")])
    qtbot.waitUntil(lambda: s.workspace.qrels_entry() is not None and not s.busy, timeout=TIMEOUT)
    window.parts.files.open_held([str(sample / "qrels_b.txt")])
    qtbot.waitUntil(lambda: s.workspace.held_entries() != [] and not s.busy, timeout=TIMEOUT)
    assert s.results is None
    window.parts.views.analysis_views.show("qrelsAgreement")
    view = window.parts.views.analysis_views["qrelsAgreement"]
    qtbot.waitUntil(lambda: view.follower.state() == "current" and view.follower.outcome is not None, timeout=TIMEOUT)
    expected = compare(sample / "qrels.txt", sample / "qrels_b.txt")
    assert view.summary_text("Cohen's kappa") == f"{expected.kappa:.4f}"
    assert not view.banner.isVisibleTo(view)
    # swapped: b is in use, a held beside; the confusion matrix turns over
    s.reading.set_kind(str(sample / "qrels_b.txt"), "qrels")
    qtbot.waitUntil(
        lambda: view.follower.state() == "current" and view.held_box.currentText() == "qrels.txt", timeout=TIMEOUT
    )
    turned = compare(sample / "qrels_b.txt", sample / "qrels.txt")
    assert view.confusion_table.text(0, "b: 1") == str(int(turned.confusion.loc[0, 1])) != "0"
    # the runs' views need runs, and say so
    window.parts.views.analysis_views.show("systems")
    systems = window.parts.views.analysis_views["systems"]
    qtbot.waitUntil(lambda: "load qrels and at least one run" in systems.banner.text(), timeout=TIMEOUT)


def test_the_pairs_that_flip_are_listed_with_their_tests(qtbot, window, tmp_path):
    """Generated runs (ties, unjudged documents, a query one run does not answer) and a second assessor who
    judges relevant the documents only the run "fresh" retrieves: fresh rises above the others."""
    from tests.test_workbench.state.test_analysis_views_model import collection

    qrels, runs = collection()
    folder = tmp_path / "gen"
    folder.mkdir()

    def write_qrels(path, frame):
        path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in frame.itertuples(index=False)))

    write_qrels(folder / "qrels.txt", qrels[["query_id", "doc_id", "relevance"]])
    fresh = runs["fresh"]
    new = fresh[fresh["doc_id"].str.startswith("new")][["query_id", "doc_id"]].assign(relevance=2)
    write_qrels(folder / "qrels_b.txt", pd.concat([qrels[["query_id", "doc_id", "relevance"]], new]))
    paths = {}
    for name, run in runs.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text(
            "".join(
                f"{q} Q0 {d} {i} {s!r} {name}\n"
                for i, (q, d, s) in enumerate(run[["query_id", "doc_id", "score"]].itertuples(index=False))
            )
        )
    window.parts.files.open_files([str(folder / "qrels.txt"), *map(str, paths.values())])
    _idle(qtbot, window)
    window.parts.files.open_held([str(folder / "qrels_b.txt")])
    qtbot.waitUntil(lambda: window.session.workspace.held_entries() != [] and not window.session.busy, timeout=TIMEOUT)
    view = shown(qtbot, window, "systems")
    expected = system_agreement({k: str(v) for k, v in paths.items()}, folder / "qrels.txt", folder / "qrels_b.txt")
    assert len(expected.flips) > 0 and expected.tau < 1
    flips = view.flips_table
    assert view.flips_table.view.isVisibleTo(view)
    assert f"<b>{len(expected.flips)}</b> pairs of runs whose order flips" in view.flips_title.text()
    for i, row in expected.flips.iterrows():
        assert flips.text(i, "run_a") == row["run_a"] and flips.text(i, "run_b") == row["run_b"]
        assert flips.text(i, "diff_b") == f"{row['diff_b']:.4f}" and flips.text(i, "p_b") == f"{row['p_b']:.4f}"
        assert flips.text(i, "significant_b") == str(bool(row["significant_b"]))
    assert f"Kendall's tau {expected.tau:.4f}" in view.caption.text()
    assert f"{len(expected.flips)} of {len(runs) * (len(runs) - 1) // 2} pairs of runs flip" in view.caption.text()
    # b does not answer every query: said in a note, its whole in the sentence's tooltip
    assert "Note: the runs are scored on different sets of queries." in view.caption.text()
    assert view.caption.toolTip() == "\n".join(expected.notes) and "t-test over the queries" in view.caption.toolTip()
