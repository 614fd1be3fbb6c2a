"""The window's state and rules without Qt: :class:`workbench.state.session.SessionModel` on its own.

The jobs the Qt session would run in workers are run here in line, in the order the window runs them.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys

import pytest

from workbench.scoring import evaluation as analysis
from workbench.state import significance as significance_model
from workbench.state.loading import SAMPLE_DIR, load_file
from workbench.state.session import DEFAULT_MEASURES, SessionModel


class Recorder:
    """Every event of a model, in order, with its arguments."""

    def __init__(self, model: SessionModel):
        self.seen: list[tuple] = []
        for name, event in vars(model.events).items():
            event.connect(lambda *args, name=name: self.seen.append((name, *args)))

    def names(self) -> list[str]:
        return [s[0] for s in self.seen]

    def of(self, name: str) -> list[tuple]:
        return [s[1:] for s in self.seen if s[0] == name]


def _open(model: SessionModel, paths, kind=None) -> list[str]:
    """Open files and read them in line, as the window's workers would, in the order asked."""
    started = []
    out = model.files.open_files([str(p) for p in paths], kind, start=started.append)
    for e in started:
        try:
            outcome = load_file(e.path, e.forced_kind, None)
        except Exception as exc:  # noqa: BLE001 - every failure goes to the model, as in the window
            model.files.fail_load(e.path, e.generation, exc)
            continue
        if model.files.finish_load(e.path, e.generation, outcome) is not None:
            model.files.announce_loaded()
    return out


def _evaluate(model: SessionModel):
    request = model.evaluation_request()
    assert request is not None
    model.apply_results(analysis.compute(request))
    comparison = model.followups.comparison_request()
    if comparison is not None:
        model.followups.apply_comparison(significance_model.compute(comparison))


@pytest.fixture
def sample(tmp_path):
    shutil.copytree(SAMPLE_DIR, tmp_path / "sample", ignore=shutil.ignore_patterns("*.tsv"))  # runs and qrels
    return tmp_path / "sample"


@pytest.mark.parametrize("floor", ["workbench.state", "workbench.scoring"])
def test_the_plain_floors_import_no_qt(floor):
    code = (
        f"import importlib, pkgutil, sys, {floor} as m\n"
        f"for info in pkgutil.iter_modules(m.__path__): importlib.import_module('{floor}.' + info.name)\n"
        "print(any(n.split('.')[0] in ('PySide6', 'pyqtgraph') for n in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_measures_and_options_announce_a_change_once():
    model = SessionModel()
    rec = Recorder(model)
    assert model.measures == DEFAULT_MEASURES
    model.set_measures([" map ", "", "P.10", None])
    assert model.measures == ("map", "P.10")
    assert rec.names() == ["measures_changed", "evaluation_wanted"]
    model.set_measures(["map", "P.10"])  # the same: nothing happens
    model.set_relevance_level(1)
    model.set_ndcg_option("gain", "exp")
    model.set_ndcg_option("gain", "exp")
    assert rec.names() == ["measures_changed", "evaluation_wanted"] * 2
    assert model.set_compare_settings(alpha=0.01) and not model.set_compare_settings(alpha=0.01)
    with pytest.raises(ValueError, match="alpha"):
        model.set_compare_settings(alpha=2.0)


def test_nothing_to_evaluate_without_qrels_and_a_run(sample):
    model = SessionModel()
    rec = Recorder(model)
    assert model.evaluation_request() is None
    assert rec.of("message") == [("Load a qrels file to see scores",)]
    _open(model, [sample / "qrels.txt"])
    assert model.evaluation_request() is None and rec.of("message")[-1] == ("Load a run to see scores",)
    assert model.evaluation_state(evaluating=False) == "empty"


def test_loading_evaluating_and_comparing_in_plain_python(sample):
    model = SessionModel()
    rec = Recorder(model)
    paths = _open(model, [sample / "qrels.txt", sample / "run_bm25.txt", sample / "run_bm25_rm3.txt"])
    assert [e.path for e in model.workspace.entries] == paths
    assert [e.label for e in model.workspace.run_entries()] == ["bm25", "bm25_rm3"]
    assert model.workspace.baseline_label() == "bm25" and ("bm25",) in rec.of("baseline_changed")
    assert model.inspected_path == paths[-1]
    assert model.evaluation_state(evaluating=False) == "outdated"

    _evaluate(model)
    assert model.evaluation_state(evaluating=False) == "current" and model.stale_reasons(False) == []
    assert model.focus_measure == model.results.measures[0] == "map"
    assert model.comparison is not None and model.comparison_current()
    assert rec.of("message")[-1][0].startswith("Evaluated 2 run(s) on ")

    model.set_measures(["map", "P.5"])
    assert model.evaluation_state(evaluating=False) == "outdated"
    assert model.stale_reasons(False) == ["the scores shown are not those of the files and options now loaded"]

    # a query selected that the new results lack falls back to the mean
    model.select_query("no such query")
    assert rec.of("query_changed")[-1] == ("no such query",)
    _evaluate(model)
    assert model.selected_query is None and rec.of("query_changed")[-1] == (None,)
    # the drill-down is wanted only with a query selected
    assert model.followups.drilldown_request() is None
    model.select_query(model.results.query_ids[0])
    assert model.followups.drilldown_request().query_id == model.results.query_ids[0]


def test_a_run_with_the_label_of_another_gets_a_number_and_comes_back_after_undo(sample, tmp_path):
    twin = tmp_path / "again"
    twin.mkdir()
    shutil.copy(sample / "run_bm25.txt", twin / "run_bm25.txt")
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt", twin / "run_bm25.txt"])
    labels = [e.label for e in model.workspace.run_entries()]
    assert labels[0] == "bm25" and labels[1] != "bm25" and len(set(labels)) == 2
    model.files.set_baseline(model.workspace.run_entries()[1].path)
    removed = model.workspace.run_entries()[1]
    model.files.remove(removed.path)
    assert model.workspace.baseline_label() == "bm25" and model.files.can_undo_remove
    assert model.files.undo_remove() == removed.path
    assert [e.label for e in model.workspace.run_entries()] == labels
    assert model.workspace.baseline_label() == labels[1] and not model.files.can_undo_remove
    assert model.files.rename(removed.path, "bm25") == "bm25 (2)"  # one uniquing rule for every label


def test_a_folder_says_what_it_held(sample):
    (sample / "notes.txt").write_text("just some words\nand more\n")
    model = SessionModel()
    rec = Recorder(model)
    _open(model, [sample])
    assert sorted(e.name for e in model.workspace.entries) == [
        "qrels.txt",
        "run_bm25.txt",
        "run_bm25_rm3.txt",
        "run_tfidf_title.txt",
    ]
    assert rec.of("message")[-1] == ("sample: 4 file(s) opened; 1 not recognised (notes.txt)",)
    assert rec.of("error") == [] and model.folders == {}


def test_a_workspace_round_trips_and_selects_its_query_once_evaluated(sample):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt", sample / "run_tfidf_title.txt"])
    model.set_measures(["map", "P.10"])
    model.set_compare_settings(test="wilcoxon")
    _evaluate(model)
    model.select_query(model.results.query_ids[1])
    model.set_focus_measure("P_10")
    doc = model.snapshot()

    other = SessionModel()
    rec = Recorder(other)
    started = []
    other.open_workspace(doc, start=started.append)
    assert [e.path for e in started] == [f.path for f in doc.files]
    assert other.measures == ("map", "P.10") and other.compare_settings.test == "wilcoxon"
    assert rec.names()[-5:] == [
        "measures_changed",
        "compare_settings_changed",
        "files_changed",
        "baseline_changed",
        "evaluation_wanted",
    ]
    for e in started:
        other.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None))
    _evaluate(other)
    assert other.selected_query == doc.selected_query and other.focus_measure == "P_10"
    assert other.snapshot() == doc


def test_an_inspection_is_computed_once_per_state_of_the_file(sample):
    model = SessionModel()
    _open(model, [sample / "qrels.txt", sample / "run_bm25.txt"])
    job = model.followups.inspection_job()
    assert job is not None and job.what == "Inspecting run_bm25.txt"
    inspection = job.work(None)
    assert inspection["kind"] == "run"
    model.followups.apply_inspection(inspection)
    assert model.followups.inspection_job() is None  # the same file, version and qrels: nothing to do
    model.set_relevance_level(2)
    assert model.followups.inspection_job() is not None
    model.followups.inspect(None)
    assert model.followups.inspection_job() is None and model.inspection is None


def test_the_file_rules_open_files_as_listed_with_their_sizes_without_looking_at_the_disk(monkeypatch):
    """The rules take files already listed (in the window, by a worker): which runs are held in memory is
    decided by the sizes the listing found, and the disk is not looked at."""
    import os

    from workbench.scoring import disk_runs
    from workbench.state.listing import Listing

    monkeypatch.setattr(disk_runs, "HOLD_BYTES", 100)
    folder = os.path.abspath("nowhere")
    files = [os.path.join(folder, name) for name in ("qrels.txt", "a.run", "b.run", "c.run")]
    listing = Listing(
        files,
        folder_of={f: folder for f in files[1:]},
        notes=["nowhere: 1 file(s) that are not qrels or runs left out"],
        sizes=dict(zip(files, (40, 50, 20, 10))),
    )
    model = SessionModel()
    rec = Recorder(model)
    started = []

    with _no_disk(monkeypatch):
        assert model.files.open_listed(listing, start=started.append) == files
    assert [(e.size, e.hold) for e in started] == [(40, True), (50, True), (20, False), (10, True)]
    assert rec.of("notice") == [("nowhere: 1 file(s) that are not qrels or runs left out",)]
    assert model.folders == {folder: {"read": 0, "skipped": []}} and model.inspected_path == files[-1]


def test_a_workspace_opens_its_files_as_listed_held_by_their_sizes_without_looking_at_the_disk(monkeypatch):
    """A workspace's files come looked at (in the window, by a worker): runs are held in memory by the
    sizes found, as files opened are, and a file that is not there is listed as missing in its place."""
    import os

    from workbench.scoring import disk_runs
    from workbench.state.listing import Listing
    from workbench.state.workspace_file import FileItem, WorkspaceDoc

    monkeypatch.setattr(disk_runs, "HOLD_BYTES", 100)
    folder = os.path.abspath("nowhere")
    qrels, a, gone, b, c = (os.path.join(folder, n) for n in ("qrels.txt", "a.run", "gone.run", "b.run", "c.run"))
    doc = WorkspaceDoc(
        files=[
            FileItem(qrels, "qrels"),
            FileItem(a, "run", "A"),
            FileItem(gone, "run", "Gone", True),
            FileItem(b, "run"),
            FileItem(c, "run"),
        ],
        baseline=b,
        measures=("map",),
    )
    listing = Listing([qrels, a, gone, b, c], sizes={qrels: 40, a: 50, b: 20, c: 10}, absent=frozenset({gone}))
    model = SessionModel()
    rec = Recorder(model)
    started = []

    with _no_disk(monkeypatch):
        model.open_workspace_listed(doc, listing, start=started.append)
    assert [(e.path, e.size, e.hold) for e in started] == [
        (qrels, 40, True),
        (a, 50, True),
        (b, 20, False),
        (c, 10, True),
    ]
    assert [e.path for e in model.workspace.entries] == [qrels, a, gone, b, c]  # the missing file in its place
    missing = model.workspace.entry(gone)
    assert missing.missing and missing.status == "error" and missing.hold
    assert (missing.wanted_label, missing.forced_kind) == ("Gone", "run")
    assert rec.of("error") == [
        (f"gone.run: not found (named in the workspace as {gone}); Locate… in its menu finds it",)
    ]
    assert model.workspace.baseline_path == b and model.measures == ("map",)


def test_a_workspace_opened_in_line_looks_at_its_files_itself(tmp_path, monkeypatch):
    """:meth:`SessionModel.open_workspace` looks at the files itself (without the window): the same sizes and
    holds as the window's worker finds."""
    from workbench.scoring import disk_runs
    from workbench.state.workspace_file import FileItem, WorkspaceDoc

    shutil.copy(SAMPLE_DIR / "qrels.txt", tmp_path / "qrels.txt")
    for name in ("run_bm25.txt", "run_tfidf_title.txt"):
        shutil.copy(SAMPLE_DIR / name, tmp_path / name)
    (tmp_path / "a folder.run").mkdir()  # not a file: missing
    sizes = {p.name: p.stat().st_size for p in tmp_path.iterdir() if p.is_file()}
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", sizes["qrels.txt"] + sizes["run_bm25.txt"])
    names = ("qrels.txt", "run_bm25.txt", "a folder.run", "run_tfidf_title.txt")
    doc = WorkspaceDoc(files=[FileItem(str(tmp_path / n), None) for n in names])
    model = SessionModel()
    started = []
    model.open_workspace(doc, start=started.append)
    assert [(e.name, e.size, e.hold) for e in started] == [
        ("qrels.txt", sizes["qrels.txt"], True),
        ("run_bm25.txt", sizes["run_bm25.txt"], True),
        ("run_tfidf_title.txt", sizes["run_tfidf_title.txt"], False),
    ]
    assert [e.name for e in model.workspace.entries if e.missing] == ["a folder.run"]


def test_the_model_reads_every_attribute_of_its_state_and_nothing_else():
    """``model.workspace`` and the others are the state's (``OfState``): the forwards name exactly the
    attributes a SessionState holds, so that one added to the state is not read past, nor a forward left
    pointing at nothing."""
    from workbench.state.session import OfState
    from workbench.state.session_state import SessionState

    forwarded = {name for name, value in vars(SessionModel).items() if isinstance(value, OfState)}
    assert forwarded == set(vars(SessionState()))
    model = SessionModel()
    for name in forwarded:
        assert getattr(model, name) is getattr(model.state, name)


@contextlib.contextmanager
def _no_disk(monkeypatch):
    """Looking at the disk (stat, scandir, getsize, isfile, isdir) fails the test while in this context."""
    import os

    def no_disk(*args, **kwargs):
        raise AssertionError(f"the disk looked at: {args}")

    with monkeypatch.context() as m:
        for module, name in (
            (os, "stat"),
            (os, "scandir"),
            (os.path, "getsize"),
            (os.path, "isfile"),
            (os.path, "isdir"),
        ):
            m.setattr(module, name, no_disk)
        yield


def test_a_users_action_ends_cancels_stop_where_it_is_defined():
    """After Cancel, what the user asks of the model's parts (a measure ticked, a run renamed, moved or
    the level changed) ends the stop and says the user acted; what the model does by itself (a query
    selected from a workspace, the evaluation it asks for) does not."""
    model = SessionModel()
    _open(model, [SAMPLE_DIR / "qrels.txt", SAMPLE_DIR / "run_bm25.txt", SAMPLE_DIR / "run_tfidf_title.txt"])
    acted = []
    model.turn.acted.connect(lambda: acted.append(True))
    run = model.workspace.run_entries()[1]
    for action in (
        lambda: model.set_measures(("map", "P_10")),
        lambda: model.set_relevance_level(2),
        lambda: model.set_k_max(50),
        lambda: model.set_ndcg_option("gain", "exp"),
        lambda: model.files.rename(run.path, "mine"),
        lambda: model.files.move(run.path, -1),
    ):
        model.turn.cancel()
        before = len(acted)
        action()
        assert not model.turn.stopped and len(acted) == before + 1
    model.turn.cancel()
    model.select_query("401")
    model.files.set_baseline(run.path)
    model.events.evaluation_wanted.emit()
    assert model.turn.stopped and len(acted) == 6
