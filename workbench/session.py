"""The session: single owner of what the window has loaded, chosen and computed.

Views read the session and subscribe to its signals; they never talk to each
other.  All reading and evaluating runs in workers (:mod:`workbench.jobs.workers`)
through ``metrics``; the session only starts them, keeps them alive until they
report, and drops results that a newer request has superseded.

Signals
-------
sigFilesChanged()            files, kinds, labels, order or load status changed
sigBaselineChanged(object)   baseline run label (or None)
sigMeasuresChanged()         measure set or an evaluation option changed
sigResultsChanged(object)    new :class:`workbench.model.analysis.Results` (or None)
sigQueryChanged(object)      selected query id (None: the mean over queries)
sigFocusMeasureChanged(str)  measure shown per query
sigBusyChanged(bool)         a job started / the last job ended
sigProgress(float, str)      progress of the current job (fraction < 0: unknown)
sigStateChanged()            whether what is shown is current may have changed (see :meth:`Session.stale_reasons`)
sigError(str)                something failed (message for the user)
sigMessage(str)              something worth telling in the status bar
sigFileLoaded(str)           a file was loaded (path)
sigFileChangedOnDisk(str, int)  a loaded file changed on disk (path, size in bytes)
sigIdle()                    no job is running any more
sigCompareSettingsChanged()  test, alpha or correction of the comparison changed
sigComparisonChanged(object) new :class:`workbench.model.significance.Comparison` (or None)
sigDrilldownChanged(object)  new :class:`metrics.drilldown.QueryDrilldown` (or None)
sigInspectionChanged(object) new inspection of :attr:`Session.inspected_path` (a dict, see metrics.inspect) or None
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

import metrics.readers
from metrics.errors import Cancelled, InputError
from workbench.jobs import Jobs
from workbench.model import analysis, state
from workbench.model import drilldown as drilldown_model
from workbench.model import significance as significance_model
from workbench.model.workspace import FileEntry, Workspace, expand, normalize
from workbench.system import qtcompat

qtcompat.protect_singletons()  # some PySide6 builds lose references to None/True (see qtcompat)

DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100")
SAMPLE_DIR = Path(__file__).resolve().parent / "resources" / "sample"


def sample_files() -> list[str]:
    return [str(p) for p in sorted(SAMPLE_DIR.glob("*.txt"))]


def describe_error(path: str, exc: BaseException) -> str:
    """A message naming the file, the line and what was expected, when known."""
    if isinstance(exc, InputError):
        text = str(exc)
        name = os.path.basename(path)
        return text if (name in text or path in text) else f"{name}: {text}"
    if isinstance(exc, MemoryError):
        return f"{os.path.basename(path)}: not enough memory to read this file"
    if isinstance(exc, OSError):
        return f"{os.path.basename(path)}: {exc.strerror or exc}"
    return f"{os.path.basename(path)}: cannot be read ({type(exc).__name__}: {exc})"


@dataclasses.dataclass
class QueriesFile:
    """A file of query texts (:mod:`metrics.topics`), loaded beside qrels and runs."""

    path: str
    queries: dict
    kind: str = "queries"
    run: None = None
    qrels: None = None
    warnings: list = dataclasses.field(default_factory=list)


def _head(path: str, size: int = 65536) -> bytes:
    import gzip

    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        try:
            return (gzip.GzipFile(fileobj=raw) if gz else raw).read(size)
        except (OSError, EOFError):
            return b""  # the reader reports the corrupt file


def _load_file(path: str, kind: str | None, progress):
    """Worker body: the file's size and time as read, and its content."""
    import metrics.topics

    try:
        st = os.stat(path)
    except OSError:
        st = None
    stat = (st.st_size, st.st_mtime) if st is not None else (0, 0.0)
    if kind == "queries" or (kind is None and metrics.topics.sniff(_head(path))):
        return stat, QueriesFile(path, metrics.topics.read_queries(path))
    return stat, metrics.readers.read_file(path, kind=kind, progress=progress)


class Session(QObject):
    sigFilesChanged = Signal()
    sigBaselineChanged = Signal(object)
    sigMeasuresChanged = Signal()
    sigResultsChanged = Signal(object)
    sigQueryChanged = Signal(object)
    sigFocusMeasureChanged = Signal(str)
    sigBusyChanged = Signal(bool)
    sigProgress = Signal(float, str)
    sigStateChanged = Signal()
    sigError = Signal(str)
    sigMessage = Signal(str)
    sigFileLoaded = Signal(str)
    sigFileChangedOnDisk = Signal(str, int)
    sigIdle = Signal()
    sigCompareSettingsChanged = Signal()
    sigComparisonChanged = Signal(object)
    sigDrilldownChanged = Signal(object)
    sigInspectionChanged = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.workspace = Workspace()
        self.measures: tuple[str, ...] = DEFAULT_MEASURES
        self.relevance_level = 1
        self.k_max = 100
        self.ndcg_options: dict[str, object] = {}
        self.results: analysis.Results | None = None
        self.selected_query: str | None = None
        self.focus_measure: str | None = None
        self.is_sample = False
        self._removed: list[tuple[int, FileEntry, bool]] = []  # undo stack of removed files
        self.chosen_kinds: dict[str, str] = {}  # path -> kind the user chose for it
        self._folders: dict[str, dict] = {}  # folder being opened -> files read and left out
        self._pending_query: str | None = None  # query to select once evaluated (from a workspace)

        self.jobs = Jobs(self)
        self.jobs.sigBusyChanged.connect(self.sigBusyChanged.emit)
        self.jobs.sigProgress.connect(self.sigProgress.emit)
        self.jobs.sigFinished.connect(lambda _: self._after_job())
        self._ids = itertools.count(1)
        self._eval_timer = QTimer(self)
        self._eval_timer.setSingleShot(True)
        self._eval_timer.setInterval(0)
        self._eval_timer.timeout.connect(self._start_evaluation)

        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._changed: set[str] = set()
        self._change_timer = QTimer(self)
        self._change_timer.setSingleShot(True)
        self._change_timer.setInterval(400)
        self._change_timer.timeout.connect(self._report_changes)

        # comparison with the baseline and the drill-down of the selected query,
        # both computed again in a worker whenever what they depend on changes
        self.compare_settings = significance_model.Settings()
        self.comparison: significance_model.Comparison | None = None
        self.drilldown = None
        self.drilldown_depth = drilldown_model.DEFAULT_DEPTH
        self.sigResultsChanged.connect(lambda _: (self.request_comparison(), self.request_drilldown()))
        self.sigBaselineChanged.connect(self._on_baseline_for_comparison)
        self.sigQueryChanged.connect(lambda _: self.request_drilldown())

        # the inspection of one file (the one selected, or the last one opened)
        self.inspected_path: str | None = None
        self.inspection: dict | None = None
        self._inspection_key = None
        self.sigFilesChanged.connect(self.request_inspection)
        self.sigMeasuresChanged.connect(self.request_inspection)

    # ------------------------------------------------------------------
    # loading
    def open_sample(self) -> None:
        """Show the bundled sample (made-up data) instead of whatever is loaded."""
        self.clear()
        self.open_files(sample_files())
        self.is_sample = True

    def clear(self) -> None:
        """Forget every file (loads under way are dropped)."""
        for e in list(self.workspace.entries):
            self._unwatch(e.path)
            self.jobs.discard(("load", e.path))
        self.workspace.entries.clear()
        self.workspace.baseline_path = None
        self.is_sample = False
        self._pending_query = None
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(None)
        self.request_evaluation()

    def snapshot(self):
        """What the session holds, as a :class:`~workbench.model.workspace_file.WorkspaceDoc` (not the layout)."""
        from workbench.model.workspace_file import FileItem, WorkspaceDoc

        ws = self.workspace
        files = [
            FileItem(e.path, e.kind or e.forced_kind, e.label if e.is_run else None, e.forced_kind is not None)
            for e in ws.entries
        ]
        baseline = ws.baseline_entry()
        return WorkspaceDoc(
            files=files,
            baseline=baseline.path if baseline is not None else None,
            measures=self.measures,
            relevance_level=self.relevance_level,
            k_max=self.k_max,
            ndcg_options=dict(self.ndcg_options),
            significance=dataclasses.asdict(self.compare_settings),
            selected_query=self.selected_query,
            focus_measure=self.focus_measure,
        )

    def open_workspace(self, doc) -> None:
        """Replace everything with what a workspace document holds; files it names that are missing are reported."""
        self.clear()
        self.measures = tuple(doc.measures) or DEFAULT_MEASURES
        self.relevance_level, self.k_max = doc.relevance_level, doc.k_max
        self.ndcg_options = dict(doc.ndcg_options)
        try:
            settings = dataclasses.replace(
                significance_model.Settings(),
                **{k: v for k, v in doc.significance.items() if k in significance_model.Settings.__dataclass_fields__},
            )
        except (TypeError, ValueError) as exc:
            self.sigError.emit(f"Workspace significance settings ignored: {exc}")
            settings = significance_model.Settings()
        self.compare_settings = settings
        self.focus_measure = doc.focus_measure
        self._pending_query = doc.selected_query
        for f in doc.files:
            self._submit_load(self.workspace.begin_load(f.path, f.kind if f.kind_chosen else None, f.label))
        if doc.baseline:
            self.workspace.baseline_path = normalize(doc.baseline)
        for path in doc.missing:  # listed in the Files panel as errors, so the user sees what is missing
            e = FileEntry(
                path=normalize(path),
                status="error",
                error=f"{os.path.basename(path)}: not found (named in the workspace as {path})",
            )
            self.workspace.entries.append(e)
            self.sigError.emit(e.error)
        self.sigMeasuresChanged.emit()
        self.sigCompareSettingsChanged.emit()
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        self.request_evaluation()

    def open_files(self, paths, kind: str | None = None) -> list[str]:
        """Load files (a folder stands for the files in it and its subfolders); returns the paths being loaded.

        A file found in a folder that turns out to be neither qrels nor a run is left out quietly;
        once the folder is read, one message says what was found and what was not.
        """
        found = expand(paths)
        paths = found.files
        for note in found.notes:
            self.sigMessage.emit(note)
        if not paths:
            self.sigError.emit(
                "Nothing to open: no file found" + (f" ({'; '.join(found.notes)})" if found.notes else "")
            )
            return []
        if self.is_sample:  # the user's own files replace the sample
            self.is_sample = False
            sample = {normalize(p) for p in sample_files()}
            for e in list(self.workspace.entries):
                if e.path in sample and e.path not in paths:
                    self._unwatch(e.path)
                    self.workspace.remove(e.path)
        for p in paths:
            e = self.workspace.begin_load(p, kind or self.chosen_kinds.get(normalize(p)))
            folder = found.folder_of.get(p)
            if folder is not None and e.status == "loading":
                e.folder = folder
                self._folders.setdefault(folder, {"read": 0, "skipped": []})
            self._submit_load(e)
        self.inspected_path = normalize(paths[-1])  # what was just opened is shown on its own
        self.sigFilesChanged.emit()
        return [normalize(p) for p in paths]

    def _submit_load(self, e: FileEntry) -> None:
        """Read one file in a worker; a newer load of the same file supersedes this one."""
        path, kind, gen = e.path, e.forced_kind, e.generation
        self.jobs.submit(
            ("load", path),
            lambda progress: _load_file(path, kind, progress),
            f"Loading {os.path.basename(path)}",
            lambda outcome: self._on_loaded(path, gen, outcome),
            lambda exc: self._on_load_failed(path, gen, exc),
            lambda: self._on_load_cancelled(path, gen),
        )

    def reload(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is not None:
            self.open_files([e.path], kind=e.forced_kind)

    def set_kind(self, path: str, kind: str) -> None:
        """Correct the detected kind of a file; it is read again as that kind."""
        if kind not in ("qrels", "run", "ranked", "queries"):
            raise ValueError(kind)
        e = self.workspace.entry(path)
        if e is None:
            return
        self.chosen_kinds[e.path] = kind  # remembered for this file (the window keeps it across restarts)
        if e.kind == kind and e.status == "ok":
            e.forced_kind = kind
            return
        self.open_files([e.path], kind=kind)

    def _on_loaded(self, path: str, gen: int, outcome) -> None:
        stat, loaded = outcome
        e = self.workspace.finish_load(path, gen, loaded.kind, loaded.run, loaded.qrels, stat=stat)
        if e is None:
            return
        e.queries = getattr(loaded, "queries", None)
        if e.folder is not None and e.folder in self._folders:
            self._folders[e.folder]["read"] += 1
            folder, e.folder = e.folder, None
            self._folder_done(folder)
        self._watch(e.path)
        e.warnings = list(loaded.warnings)
        self.sigFileLoaded.emit(e.path)
        for warning in loaded.warnings:
            self.sigMessage.emit(warning)
        # a qrels file replaced by a newer one is no longer watched
        present = {x.path for x in self.workspace.entries}
        for p in self._watcher.files():
            if normalize(p) not in present:
                self._watcher.removePath(p)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        self.request_evaluation()

    def _on_load_failed(self, path: str, gen: int, exc: BaseException) -> None:
        msg = describe_error(path, exc)
        e = self.workspace.entry(path)
        if e is not None and e.folder is not None and e.status == "loading" and e.generation == gen:
            # found in a folder, and not a qrels or run file: left out, counted for the folder's message
            self.workspace.entries.remove(e)
            self._folders[e.folder]["skipped"].append(e.name)
            self._folder_done(e.folder)
            self.sigFilesChanged.emit()
            return
        if self.workspace.fail_load(path, gen, msg) is not None:
            self.sigError.emit(msg)
            self.sigFilesChanged.emit()

    def _folder_done(self, folder: str) -> None:
        """Once every file of an opened folder is read, say what it held."""
        if any(x.folder == folder and x.status == "loading" for x in self.workspace.entries):
            return
        tally = self._folders.pop(folder, None)
        if tally is None:
            return
        skipped = tally["skipped"]
        names = ", ".join(skipped[:4]) + (" …" if len(skipped) > 4 else "")
        if tally["read"] == 0:
            self.sigError.emit(
                f"No qrels or run file recognised in {folder}"
                + (f" ({len(skipped)} file(s) looked at: {names})" if skipped else "")
            )
        else:
            self.sigMessage.emit(
                f"{os.path.basename(folder)}: {tally['read']} file(s) opened"
                + (f"; {len(skipped)} not recognised ({names})" if skipped else "")
            )

    def _on_load_cancelled(self, path: str, gen: int) -> None:
        e = self.workspace.entry(path)
        folder = e.folder if e is not None else None
        if self.workspace.cancel_load(path, gen) is not None:
            if folder is not None:
                self._folder_done(folder)
            self.sigMessage.emit(f"Loading {os.path.basename(path)} cancelled")
            self.sigFilesChanged.emit()
            self.sigBaselineChanged.emit(self.workspace.baseline_label())

    # ------------------------------------------------------------------
    # editing the list of files
    def remove(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is None:
            return
        self._unwatch(e.path)
        self.jobs.discard(("load", e.path))  # a load still under way stops and is dropped
        index = self.workspace.entries.index(e)
        was_baseline = self.workspace.baseline_path == e.path
        self.workspace.remove(e.path)
        if e.status == "ok":  # what was loaded can come back with undo_remove
            self._removed.append((index, e, was_baseline))
            self.sigMessage.emit(f"Removed {e.label or e.name} (Edit > Undo remove, Ctrl+Z, brings it back)")
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        self.request_evaluation()

    @property
    def can_undo_remove(self) -> bool:
        return bool(self._removed)

    def undo_remove(self) -> str | None:
        """Put the last removed file back, with its data, kind, label and baseline role; returns its path."""
        while self._removed:
            index, e, was_baseline = self._removed.pop()
            if self.workspace.entry(e.path) is not None:
                continue  # opened again since
            self.workspace.entries.insert(min(index, len(self.workspace.entries)), e)
            if e.kind == "qrels":  # one qrels file in use: it replaces the one opened since
                self.workspace.entries = [
                    x for x in self.workspace.entries if x is e or not (x.kind == "qrels" and x.status == "ok")
                ]
            if was_baseline:
                self.workspace.baseline_path = e.path
            e.label = self.workspace.unique_label(e.label, exclude=e) if e.is_run else e.label
            self._watch(e.path)
            self.sigFilesChanged.emit()
            self.sigBaselineChanged.emit(self.workspace.baseline_label())
            self.request_evaluation()
            return e.path
        return None

    def rename(self, path: str, label: str) -> str:
        e = self.workspace.entry(path)
        if e is None or e.label == label.strip():
            return e.label if e else label
        used = self.workspace.rename(path, label)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        self.request_evaluation()
        return used

    def move(self, path: str, delta: int) -> None:
        if self.workspace.move(path, delta):
            self.sigFilesChanged.emit()
            self.request_evaluation()

    def set_baseline(self, path: str | None) -> None:
        self.workspace.set_baseline(path)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())

    def baseline_label(self) -> str | None:
        return self.workspace.baseline_label()

    # ------------------------------------------------------------------
    # measures and options
    def set_measures(self, measures) -> None:
        measures = tuple(m.strip() for m in measures if m and m.strip())
        if measures != self.measures:
            self.measures = measures
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    def set_relevance_level(self, level: int) -> None:
        if int(level) != self.relevance_level:
            self.relevance_level = int(level)
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    def set_k_max(self, k: int) -> None:
        if int(k) != self.k_max:
            self.k_max = int(k)
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    def set_ndcg_option(self, name: str, value) -> None:
        if self.ndcg_options.get(name) != value:
            self.ndcg_options[name] = value
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    # ------------------------------------------------------------------
    # selection
    def select_query(self, query_id) -> None:
        query_id = None if query_id in (None, "", analysis.MEAN) else str(query_id)
        if query_id != self.selected_query:
            self.selected_query = query_id
            self.sigQueryChanged.emit(query_id)

    def set_focus_measure(self, name: str) -> None:
        if name and name != self.focus_measure:
            self.focus_measure = name
            self.sigFocusMeasureChanged.emit(name)

    # ------------------------------------------------------------------
    # evaluation
    def request_evaluation(self) -> None:
        """Evaluate again soon (several changes in a row give one evaluation)."""
        self._eval_timer.start()
        self.sigStateChanged.emit()

    def recompute(self) -> None:
        """Evaluate, compare and drill down again, whatever is shown now."""
        self._eval_timer.start()
        self.request_comparison()
        self.request_drilldown()

    def evaluation_key(self) -> tuple | None:
        """What an evaluation of the current files and options is computed from (see :mod:`workbench.model.state`)."""
        return state.evaluation_key(self.workspace, self.measures, self.relevance_level, self.k_max, self.ndcg_options)

    @property
    def evaluating(self) -> bool:
        return self._eval_timer.isActive() or self.jobs.running("evaluate")

    def evaluation_state(self) -> str:
        """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
        return state.evaluation_state(self.results, self.evaluation_key(), self.evaluating)

    def comparison_current(self) -> bool:
        """Whether :attr:`comparison` belongs to the results, baseline and settings shown now."""
        return state.comparison_current(self.comparison, self.results, self.baseline_label(), self.compare_settings)

    def stale_reasons(self) -> list[str]:
        """Why what the window shows does not match what is loaded (empty: it matches, or work is under way)."""
        if self.jobs.busy or self._eval_timer.isActive():
            return []
        return state.stale_reasons(
            self.evaluation_state(),
            self.results,
            self.comparison,
            self.comparison_current(),
            self.workspace.changed_on_disk(),
        )

    def _start_evaluation(self) -> None:
        if self.workspace.loading():
            # files still being read: one evaluation once the last arrives (each arrival asks again),
            # not one per file superseding the one before
            self.sigStateChanged.emit()
            return
        key = self.evaluation_key()
        if key is None:
            self.jobs.discard("evaluate")
            if self.results is not None:
                self.results = None
                self.sigResultsChanged.emit(None)
            if not self.workspace.loading():
                need = "a qrels file" if self.workspace.qrels_entry() is None else "a run"
                self.sigMessage.emit(f"Load {need} to see scores")
            self.sigStateChanged.emit()
            if not self.busy:
                self.sigIdle.emit()
            return
        runs = self.workspace.runs()
        request = analysis.Request(
            qrels=tuple(self.workspace.qrels_parts()),  # merged in the worker
            runs=runs,
            measures=self.measures,
            relevance_level=self.relevance_level,
            k_max=self.k_max,
            ndcg_options=tuple(sorted(self.ndcg_options.items())),
            qrels_name=self.workspace.qrels_name(),
            key=key,
        )
        self.jobs.submit(
            "evaluate",
            lambda progress: analysis.compute(request, progress),
            f"Evaluating {len(runs)} run{'s' if len(runs) != 1 else ''}",
            self._on_evaluated,
            self._on_evaluation_failed,
            lambda: self.sigMessage.emit("Evaluation cancelled: the scores shown are out of date"),
        )

    def _on_evaluated(self, results: analysis.Results) -> None:
        self.results = results
        if self._pending_query is not None and self._pending_query in set(results.query_ids):
            self.selected_query, self._pending_query = self._pending_query, None
            self.sigQueryChanged.emit(self.selected_query)
        if self.focus_measure not in results.measures and results.measures:
            self.focus_measure = results.measures[0]
            self.sigFocusMeasureChanged.emit(self.focus_measure)
        if self.selected_query is not None and self.selected_query not in set(results.query_ids):
            self.selected_query = None
            self.sigQueryChanged.emit(None)
        self.sigResultsChanged.emit(results)
        if results.query_ids:
            for problem in results.problems:
                self.sigError.emit(problem)
        else:
            self.sigError.emit(
                "No query of the qrels has results in the runs: the runs and the qrels do not match "
                "(is the right qrels file loaded?)"
            )
            self.sigMessage.emit("")
            return
        note = ""
        warnings = getattr(results.evaluation, "warnings", None) or []
        if warnings:  # e.g. qrels queries without results, skipped as trec_eval skips them
            note = " — " + "; ".join(warnings[:2]) + (f" (+{len(warnings) - 2} more)" if len(warnings) > 2 else "")
        self.sigMessage.emit(
            f"Evaluated {len(results.runs)} run(s) on {len(results.query_ids)} queries, "
            f"{len(results.measures)} measure(s){note}"
        )

    def _on_evaluation_failed(self, exc: BaseException) -> None:
        self.sigError.emit(f"Evaluation failed: {exc}")

    # ------------------------------------------------------------------
    # comparison with the baseline, and the drill-down of the selected query
    def set_compare_settings(self, **changes) -> None:
        """Change the test, alpha or correction (keyword arguments of :class:`significance_model.Settings`)."""
        settings = dataclasses.replace(self.compare_settings, **changes)
        if settings != self.compare_settings:
            self.compare_settings = settings
            self.sigCompareSettingsChanged.emit()
            self.request_comparison()

    def _on_baseline_for_comparison(self, baseline) -> None:
        if self.comparison is None or self.comparison.baseline != baseline:
            self.request_comparison()
        if self.drilldown is None or self.drilldown.baseline != baseline:
            self.request_drilldown()

    def request_comparison(self) -> None:
        """Compare the runs with the baseline again (in a worker)."""
        results = self.results
        baseline = self.baseline_label()
        if (
            results is None
            or baseline not in results.runs
            or len(results.runs) < 2
            or results.evaluation.per_query.empty
        ):
            # nothing to compare: no baseline, a single run, or no query judged and retrieved
            self.jobs.discard("compare")
            if self.comparison is not None:
                self.comparison = None
                self.sigComparisonChanged.emit(None)
            return
        request = significance_model.Request(
            per_query=results.evaluation.per_query,
            runs=tuple(results.runs),
            baseline=baseline,
            settings=self.compare_settings,
        )
        self.jobs.submit(
            "compare",
            lambda progress: significance_model.compute(request, progress),
            "Comparing with the baseline",
            self._on_compared,
            lambda exc: self.sigError.emit(f"Comparison failed: {exc}"),
            lambda: self.sigMessage.emit("Comparison cancelled: significance marks are out of date"),
        )

    def _on_compared(self, comparison) -> None:
        self.comparison = comparison
        self.sigComparisonChanged.emit(comparison)

    def set_drilldown_depth(self, depth: int) -> None:
        if int(depth) != self.drilldown_depth:
            self.drilldown_depth = int(depth)
            self.request_drilldown()

    def request_drilldown(self) -> None:
        """Rank the selected query's documents for every run again (in a worker)."""
        results = self.results
        query = self.selected_query
        if results is None or query is None:
            self.jobs.discard("drilldown")
            if self.drilldown is not None:
                self.drilldown = None
                self.sigDrilldownChanged.emit(None)
            return
        baseline = self.baseline_label()
        request = drilldown_model.Request(
            qrels=results.request.qrels,
            runs=results.request.runs,
            query_id=query,
            depth=self.drilldown_depth,
            baseline=baseline if baseline in results.runs else None,
            relevance_level=results.request.relevance_level,
        )
        self.jobs.submit(
            "drilldown",
            lambda progress: drilldown_model.compute(request, progress),
            f"Ranking query {query}",
            self._on_drilled,
            lambda exc: self.sigError.emit(f"Query drill-down failed: {exc}"),
        )

    def _on_drilled(self, drill) -> None:
        self.drilldown = drill
        self.sigDrilldownChanged.emit(drill)

    # ------------------------------------------------------------------
    # inspection of one file
    def inspect(self, path: str | None) -> None:
        """Show ``path`` in the Inspect view (computed in a worker once the file is read)."""
        self.inspected_path = normalize(path) if path else None
        self.request_inspection()

    def request_inspection(self) -> None:
        e = self.workspace.entry(self.inspected_path) if self.inspected_path else None
        if e is None:
            self.jobs.discard("inspect")
            self._inspection_key = None
            if self.inspection is not None:
                self.inspection = None
                self.sigInspectionChanged.emit(None)
            return
        if e.status == "loading":
            return  # asked again when the file is read
        q = self.workspace.qrels_entry()
        qrels = q.qrels if q is not None and q is not e and e.kind in ("run", "ranked", None) else None
        key = (
            e.path,
            e.version,
            e.status,
            e.kind,
            None if qrels is None else (q.path, q.version),
            self.relevance_level,
        )
        if key == self._inspection_key:
            return
        self._inspection_key = key
        level = self.relevance_level
        if e.kind == "queries" and e.status == "ok":
            queries = dict(e.queries or {})

            def work(progress):
                return {
                    "path": e.path,
                    "kind": "queries",
                    "queries": len(queries),
                    "kind_reason": "one query text per line ('qid<TAB>text') or TREC topics",
                    "size": e.size,
                    "columns": ["qid", "text"],
                    "head": [{"line": None, "fields": [q, t]} for q, t in list(queries.items())[:10]],
                    "problems": [],
                }
        elif e.status == "ok":
            loaded = metrics.readers.LoadedFile(e.kind, e.path, e.run, e.qrels, list(e.warnings))

            def work(progress):
                import metrics.inspect

                return metrics.inspect.inspect_loaded(loaded, qrels=qrels, relevance_level=level).to_dict()
        else:
            path, kind = e.path, e.forced_kind

            def work(progress):
                import metrics.inspect

                return metrics.inspect.inspect_file(
                    path, kind, qrels=qrels, relevance_level=level, progress=progress
                ).to_dict()

        def done(inspection):
            self.inspection = inspection
            self.sigInspectionChanged.emit(inspection)

        def failed(exc):
            self._inspection_key = None
            self.sigError.emit(f"Inspecting {e.name} failed: {exc}")

        self.jobs.submit(
            "inspect", work, f"Inspecting {e.name}", done, failed, lambda: setattr(self, "_inspection_key", None)
        )

    # ------------------------------------------------------------------
    # jobs
    @property
    def busy(self) -> bool:
        return self.jobs.busy or self._eval_timer.isActive()

    def run_job(self, fn, what: str, on_finished, on_failed=None, key=None):
        """Run ``fn(progress)`` in a worker like loads and evaluations (progress bar, Cancel).

        ``on_finished(result)`` / ``on_failed(exception)`` run on the GUI thread;
        without ``on_failed`` a failure is reported through ``sigError``.  A job
        with the ``key`` of one still running supersedes it (default: a new key).
        """
        return self.jobs.submit(
            key if key is not None else ("job", next(self._ids)),
            fn,
            what,
            on_finished,
            on_failed or (lambda exc: self.sigError.emit(f"{what}: {exc}")),
            lambda: on_failed(Cancelled("cancelled")) if on_failed else self.sigMessage.emit(f"{what}: cancelled"),
        )

    start_job = run_job

    def cancel(self) -> None:
        """Stop every job.  Each owner hears that its job was cancelled; what it showed is then out of date."""
        if self._eval_timer.isActive():
            self._eval_timer.stop()
        self.jobs.cancel()
        self.sigStateChanged.emit()

    def shutdown(self, timeout_ms: int = 10000) -> None:
        self._eval_timer.stop()
        self.jobs.shutdown(timeout_ms)

    def _after_job(self) -> None:
        self.sigStateChanged.emit()
        if not self.busy:
            self.sigIdle.emit()

    # ------------------------------------------------------------------
    # files changing on disk
    def _watch(self, path: str) -> None:
        if path not in self._watcher.files() and os.path.exists(path):
            self._watcher.addPath(path)

    def _unwatch(self, path: str) -> None:
        if path in self._watcher.files():
            self._watcher.removePath(path)

    def _on_file_changed(self, path: str) -> None:
        self._changed.add(normalize(path))
        self._change_timer.start()

    def _report_changes(self) -> None:
        changed, self._changed = self._changed, set()
        for path in sorted(changed):
            e: FileEntry | None = self.workspace.entry(path)
            if e is None:
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue  # deleted (or being replaced); keep what was loaded
            self._watch(path)  # editors that replace the file drop it from the watcher
            if (st.st_size, st.st_mtime) != (e.size, e.mtime):
                self.sigFileChangedOnDisk.emit(path, int(st.st_size))
        self.sigStateChanged.emit()
