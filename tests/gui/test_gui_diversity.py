"""Intent (diversity) qrels in the window: loaded as their own kind beside the ad hoc qrels, their measures
(alpha-nDCG@20, ERR-IA@20, NRBP, P-IA@20, StRecall@20) offered, computed in the worker and shown as columns
beside the ad hoc measures, gone with the file and back with Undo, kept by a saved workspace."""

from __future__ import annotations

import json
import os
import re
import threading

from metrics.engine.settings import Settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from intent_data import write_files  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics  # noqa: E402
from workbench.scoring import intents as diversity  # noqa: E402

TIMEOUT = 20000
DIVERSITY = ("alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@20", "StRecall@20")

MARKS = "[\u2002†‡]*"  # the significance mark (or the space that keeps a column aligned) after a number


@pytest.fixture
def data(tmp_path):
    return write_files(tmp_path / "data")


def _idle(qtbot, w):
    qtbot.waitUntil(lambda: not w.session.busy and w.session.results is not None, timeout=TIMEOUT)


def _runs(data):
    return {"sysA": str(data["runA"]), "sysB": str(data["runB"])}


def _summary_cells(w) -> dict:
    """(run, column) -> the text the summary table shows."""
    model = w.parts.views.summary.model
    frame = model.frame()
    columns = list(frame.columns)
    return {
        (str(frame["run"].iloc[r]), columns[c]): model.display_text(r, c)
        for r in range(len(frame))
        for c in range(1, len(columns))
    }


def _shows(text: str, value: float) -> bool:
    return re.fullmatch(re.escape(f"{value:.4f}") + MARKS, text) is not None


def _per_query_cells(qtbot, w, measure: str) -> dict:
    """(query, run) -> the text the per-query table shows for ``measure``."""
    w.session.model.set_focus_measure(measure)
    qtbot.waitUntil(lambda: w.parts.views.per_query.shown_measure() == measure, timeout=TIMEOUT)
    model = w.parts.views.per_query.model
    frame = model.frame()
    columns = list(frame.columns)
    return {
        (str(frame["query_id"].iloc[r]), columns[c]): model.display_text(r, c)
        for r in range(len(frame))
        for c in range(1, len(columns))
        if columns[c] in ("sysA", "sysB")
    }


def _status(w) -> dict:
    t = w.parts.views.files.table
    return {t.item(r, 0).text(): (t.item(r, 1).text(), t.item(r, 2).text()) for r in range(t.rowCount())}


def _assert_diversity_shown(qtbot, w, data, names=DIVERSITY, level: int = 1) -> None:
    """Every diversity cell of both tables is what metrics.evaluate_diversity gives, as the table formats it."""
    expected = metrics.evaluate_diversity(str(data["intents"]), _runs(data), list(names), relevance_level=level)
    cells = _summary_cells(w)
    summary = expected.summary()
    for run in ("sysA", "sysB"):
        for name in names:
            assert _shows(cells[(run, name)], float(summary.loc[run, name])), (run, name, cells[(run, name)])
    pq = expected.per_query
    for name in names:
        shown = _per_query_cells(qtbot, w, name)
        values = {(q, r): v for r, q, m, v in zip(pq["run"], pq["query_id"], pq["measure"], pq["value"]) if m == name}
        assert {q for q, _ in shown} == {"101", "102", "103", "104"}
        for (q, run), text in shown.items():
            if (q, run) in values:
                assert text == f"{values[(q, run)]:.4f}", (name, q, run, text)
            else:  # sysB retrieves nothing for 104
                assert (q, run, text) == ("104", "sysB", "–"), (name, q, run, text)


def test_intent_qrels_load_as_their_own_kind_and_their_measures_are_columns(qtbot, data, tmp_path, monkeypatch):
    threads = []
    scored = metrics.evaluate_diversity

    def watched(*args, **kwargs):
        threads.append(threading.current_thread())
        return scored(*args, **kwargs)

    monkeypatch.setattr(metrics, "evaluate_diversity", watched)
    w = open_window(qtbot, tmp_path, ("map", "P.10"))
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        window_threads, threads[:] = list(threads), []
        assert window_threads and all(t is not threading.main_thread() for t in window_threads)  # in the worker
        intents = s.workspace.entry(str(data["intents"]))
        assert (intents.kind, intents.status) == ("intents", "ok")
        assert s.workspace.qrels_entry().path == str(data["qrels"])  # the ad hoc qrels stay in use
        status = _status(w)
        assert status["intents.txt"] == ("intent qrels", "4 queries, 11 intents, 18 judgements")
        assert status["qrels.txt"] == ("qrels", "in use")
        # the TREC Web track's measures are offered, ticked, beside the ad hoc ones
        assert s.measures == ("map", "P.10", *DIVERSITY)
        panel = w.parts.views.measures.diversity
        assert panel.isVisible() and panel.list.isEnabled()
        assert panel.chosen() == list(DIVERSITY)
        assert w.parts.views.measures.extra.text() == ""
        assert list(w.parts.views.summary.model.frame().columns) == ["run", "map", "P_10", *DIVERSITY]

        _assert_diversity_shown(qtbot, w, data)
        cells = _summary_cells(w)
        # worked out by hand: subtopic recall 1, 1, 3/4, 0 (no relevant intent) and 2/3, 1, 3/4 (104 not
        # retrieved); P-IA@20 (5/60 + 2/40 + 4/80 + 0) / 4 and (2/60 + 3/40 + 4/80) / 3
        assert _shows(cells[("sysA", "StRecall@20")], 0.6875) and _shows(cells[("sysB", "StRecall@20")], 0.8056)
        assert _shows(cells[("sysA", "P_IA@20")], 0.0458) and _shows(cells[("sysB", "P_IA@20")], 0.0528)
        # the ad hoc measures are those of the ad hoc qrels, as before
        adhoc = metrics.evaluate(str(data["qrels"]), _runs(data), ["map"]).summary()
        for run in ("sysA", "sysB"):
            assert _shows(cells[(run, "map")], float(adhoc.loc[run, "map"]))
        # the comparison with the baseline covers them too
        qtbot.waitUntil(lambda: s.comparison is not None, timeout=TIMEOUT)
        assert set(DIVERSITY) <= set(s.comparison.table["measure"])
    finally:
        close_window(w)


def test_removing_the_intent_qrels_removes_their_columns_and_undo_brings_them_back(qtbot, data, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        before = s.results.summary.copy()
        s.reading.remove(str(data["intents"]))
        qtbot.waitUntil(lambda: not s.busy and "alpha_nDCG@20" not in s.results.measures, timeout=TIMEOUT)
        assert list(w.parts.views.summary.model.frame().columns) == ["run", "map"]
        assert w.parts.views.per_query.measure_box.findText("alpha_nDCG@20") < 0
        # still chosen: shown without a tick box to use, computed once intent qrels come back
        panel = w.parts.views.measures.diversity
        assert panel.isVisible() and not panel.list.isEnabled()
        assert "intents.txt" not in _status(w)
        w.parts.menus.undo_action.trigger()
        qtbot.waitUntil(lambda: not s.busy and "alpha_nDCG@20" in s.results.measures, timeout=TIMEOUT)
        assert s.workspace.entry(str(data["intents"])).kind == "intents"
        assert s.results.summary.equals(before)
        _assert_diversity_shown(qtbot, w, data)
        # unticked, a measure goes; the others stay
        item = next(panel.list.item(i) for i in range(panel.list.count()) if "[NRBP]" in panel.list.item(i).text())
        item.setCheckState(Qt.CheckState.Unchecked)
        qtbot.waitUntil(lambda: not s.busy and "NRBP" not in s.results.measures, timeout=TIMEOUT)
        assert "alpha_nDCG@20" in s.results.measures and "NRBP" not in s.measures
    finally:
        close_window(w)


def test_undo_takes_back_the_diversity_measures_added_with_the_intent_qrels(qtbot, data, tmp_path):
    """The five measures ticked when intent qrels first come are a change of the measures: Edit > Undo
    unticks them and their columns go, the intent qrels stay loaded."""
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        assert s.measures == ("map", *DIVERSITY) and w.parts.views.measures.diversity.chosen() == list(DIVERSITY)
        w.parts.menus.undo_action.trigger()
        qtbot.waitUntil(lambda: not s.busy and s.results.measures == ["map"], timeout=TIMEOUT)
        assert s.measures == ("map",) and w.parts.views.measures.diversity.chosen() == []
        assert list(w.parts.views.summary.model.frame().columns) == ["run", "map"]
        assert s.workspace.entry(str(data["intents"])).kind == "intents"
    finally:
        close_window(w)


def test_a_saved_workspace_reopens_the_intent_qrels(qtbot, data, tmp_path):
    (tmp_path / "a").mkdir()
    w = open_window(qtbot, tmp_path / "a", ("map",))
    try:
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        path = data["qrels"].parent / "study.irwb"
        with qtbot.waitSignal(w.sigWorkspaceSaved, timeout=TIMEOUT):  # (written by a job)
            assert w.parts.workspaces.write(str(path))
        summary = w.session.results.summary.copy()
    finally:
        close_window(w)
    saved = json.loads(path.read_text())
    assert {"path": "intents.txt", "kind": "intents"} in saved["files"]
    assert saved["measures"] == ["map", *DIVERSITY]

    (tmp_path / "b").mkdir()
    w2 = open_window(qtbot, tmp_path / "b", ("map",))
    try:
        w2.parts.files.open_files([str(path)])
        _idle(qtbot, w2)
        s2 = w2.session
        assert s2.workspace.entry(str(data["intents"])).kind == "intents"
        assert s2.measures == ("map", *DIVERSITY)
        assert s2.results.summary.equals(summary)
        _assert_diversity_shown(qtbot, w2, data)
    finally:
        close_window(w2)


def test_intent_qrels_without_ad_hoc_qrels_show_the_diversity_measures_alone(qtbot, data, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "runA", "runB")])
        _idle(qtbot, w)
        assert s.workspace.qrels_entry() is None
        assert list(w.parts.views.summary.model.frame().columns) == ["run", *DIVERSITY]
        _assert_diversity_shown(qtbot, w, data)
        # the drill-down shows each document's best grade over the query's intents
        with qtbot.waitSignal(s.sigDrilldownChanged, timeout=TIMEOUT):
            s.model.select_query("101")
        qtbot.waitUntil(lambda: s.drilldown is not None, timeout=TIMEOUT)
        ranking = s.drilldown.rankings["sysA"]
        grades = dict(zip(ranking["doc_id"], ranking["relevance"]))
        assert (grades["d1"], grades["d2"], grades["d5"], grades["d4"]) == (1, 2, 2, 1)  # d1: 1 for intents 1, 2
        assert s.drilldown.num_rel == 4  # d1, d2, d4, d5 (d6 is -1)
        assert "none: the curves need ad hoc qrels" in w.parts.views.pr_plot.caption.text()
    finally:
        close_window(w)


def test_intent_qrels_dropped_alone_and_selected_in_files_are_inspected_without_an_error(qtbot, data, tmp_path):
    """Intent qrels alone are described by the Inspect view (their queries and intents), once: the inspection
    calls the inspector that exists, so no failure asks for it again and again."""
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        errors: list[str] = []
        s.sigError.connect(errors.append)
        submitted: list = []
        submit = s.jobs.submit
        s.jobs.submit = lambda key, *a, **k: (submitted.append(key), submit(key, *a, **k))[1]
        w.parts.files.open_files([str(data["intents"])])
        qtbot.waitUntil(lambda: not s.busy and (s.inspection or {}).get("kind") == "intents", timeout=TIMEOUT)
        w.parts.views.files.select_path(str(data["intents"]))
        qtbot.wait(300)  # (a failed inspection asked again would be submitted again meanwhile)
        qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
        assert errors == []
        assert s.inspection["kind"] == "intents" and s.inspection["queries"] == 4
        assert submitted.count("inspect") <= 2  # dropped, then perhaps selected: never a loop
        assert "intents" in w.parts.views.inspect_view.text()
    finally:
        close_window(w)


def test_exports_name_both_qrels_the_numbers_were_computed_from(qtbot, data, tmp_path):
    """With ad hoc and intent qrels loaded and diversity measures shown, every export states both files;
    without diversity measures, only the ad hoc qrels (the intent qrels made none of its numbers)."""
    from workbench.state import report as report_model
    from workbench.state.export import intents_setting

    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        assert "alpha_nDCG@20" in s.results.measures

        def exported(what: str, name: str) -> list[str]:
            path = tmp_path / name
            with qtbot.waitSignal(w.sigExported, timeout=TIMEOUT):
                assert w.parts.exports.export(what, str(path))
            return [line for line in path.read_text().splitlines() if line.startswith("#")]

        both = [f"# qrels: {data['qrels']}", f"# intent qrels: {data['intents']} (the diversity measures)"]
        for what in ("summary", "per_query", "per_query_table"):
            header = exported(what, f"{what}.csv")
            assert [line for line in header if "qrels:" in line] == both, (what, header)
        report = tmp_path / "report.md"
        request = s.results.request
        report_model.write_report(
            report,
            "markdown",
            evaluation=s.results.evaluation,
            table="summary",
            qrels=request.qrels_name,
            extra=intents_setting(request),
        )
        text = report.read_text()
        assert f"intent qrels: {data['intents']}" in text and str(data["qrels"]) in text
        s.model.set_measures(("map",))  # no diversity measure: the intent qrels made none of the numbers
        qtbot.waitUntil(lambda: not s.busy and s.results.measures == ["map"], timeout=TIMEOUT)
        header = exported("summary", "adhoc.csv")
        assert [line for line in header if "qrels:" in line] == both[:1]
    finally:
        close_window(w)


def test_the_relevance_level_box_applies_to_the_diversity_measures(qtbot, data, tmp_path):
    """ "Relevant from grade" 2: the diversity columns are those of evaluate_diversity(relevance_level=2) (a
    document relevant to an intent from grade 2 on), not those of level 1, as the exports state."""
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        before = _summary_cells(w)
        s.model.set_relevance_level(2)
        qtbot.waitUntil(lambda: not s.busy and s.results.request.relevance_level == 2, timeout=TIMEOUT)
        _assert_diversity_shown(qtbot, w, data, level=2)
        after = _summary_cells(w)
        assert any(after[(r, n)] != before[(r, n)] for r in ("sysA", "sysB") for n in DIVERSITY)  # grade 2 tells
    finally:
        close_window(w)


def test_diversity_measures_typed_by_name(qtbot, data, tmp_path):
    w = open_window(qtbot, tmp_path, ("map",))
    errors = []
    w.session.sigError.connect(errors.append)
    try:
        s = w.session
        w.parts.files.open_files([str(data[n]) for n in ("intents", "qrels", "runA", "runB")])
        _idle(qtbot, w)
        w.parts.views.measures.extra.setText("alpha_nDCG@10 P-IA@5 NRBP(beta=0.8) alpha_nDCG")
        w.parts.views.measures.apply_button.click()
        names = ("alpha_nDCG@10", "P-IA@5", "NRBP(beta=0.8)")
        qtbot.waitUntil(lambda: not s.busy and "P-IA@5" in s.results.measures, timeout=TIMEOUT)
        _assert_diversity_shown(qtbot, w, data, names)
        assert any("'alpha_nDCG'" in e and "needs a cutoff" in e for e in errors), errors
        assert "alpha_nDCG" not in s.results.measures
    finally:
        close_window(w)


def test_the_intents_model_without_a_window():
    frame_names = diversity.split(("map", "alpha-nDCG@20", "ERR@20", "P.10", "P_IA@5", "strec@10", "NRBP"))
    assert frame_names == (("map", "ERR@20", "P.10"), ("alpha-nDCG@20", "P_IA@5", "strec@10", "NRBP"))
    assert diversity.label("alpha_nDCG@20") == "α-nDCG@20" and diversity.label("StRecall@20") == "Subtopic recall@20"


def test_what_an_evaluation_is_computed_from_names_the_intent_qrels():
    from workbench.state import currency as state
    from workbench.state.workspace import FileEntry, Workspace

    ws = Workspace()
    run = FileEntry("/data/run.txt", kind="run", status="ok", run=object(), label="run")
    intents = FileEntry("/data/intents.txt", kind="intents", status="ok", intents=object(), version=1)
    ws.entries = [run, intents]
    key = state.evaluation_key(ws, ("map", "alpha_nDCG@20"), Settings())
    assert key is not None  # the diversity measures alone can be scored
    assert state.evaluation_key(ws, ("map",), Settings()) is None  # no ad hoc judgments for map
    intents.version = 2  # the intent qrels read again: what was shown is out of date
    assert state.evaluation_key(ws, ("map", "alpha_nDCG@20"), Settings()) != key
    ws.entries = [run]
    assert state.evaluation_key(ws, ("map", "alpha_nDCG@20"), Settings()) is None


def test_workspace_files_keep_every_kind_of_file(tmp_path):
    from workbench.state import workspace_file

    for name in ("intents.txt", "queries.tsv", "qrels.txt"):
        (tmp_path / name).write_text("x\n")
    doc = workspace_file.WorkspaceDoc(
        files=[
            workspace_file.FileItem(str(tmp_path / "intents.txt"), "intents"),
            workspace_file.FileItem(str(tmp_path / "queries.tsv"), "queries"),  # (refused on reading before)
            workspace_file.FileItem(str(tmp_path / "qrels.txt"), "qrels"),
        ]
    )
    workspace_file.write(doc, str(tmp_path / "w.irwb"))
    back = workspace_file.read(str(tmp_path / "w.irwb"))
    assert [(os.path.basename(f.path), f.kind) for f in back.files] == [
        ("intents.txt", "intents"),
        ("queries.tsv", "queries"),
        ("qrels.txt", "qrels"),
    ]
