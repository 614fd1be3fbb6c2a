"""The session's Qt face: :class:`workbench.model.session.SessionModel` as signals, and its jobs in workers.

The state and the rules live in the plain-Python model (:attr:`Session.model`); this adapter
turns the model's events into Qt signals, runs the jobs the model asks for through
:class:`workbench.jobs.Jobs` (reading, evaluating, comparing, drilling down, inspecting), batches
evaluation requests with a timer and watches the loaded files on disk.  Views read the session and
subscribe to its signals; they never talk to each other.

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
sigDrilldownChanged(object)  new :class:`metrics.engine.drilldown.QueryDrilldown` (or None)
sigExplanationChanged(object) new :class:`workbench.model.explaining.Explained` (or None)
sigInspectionChanged(object) new inspection of :attr:`Session.inspected_path` (a dict, see metrics.inspect) or None
"""

from __future__ import annotations

import functools
import itertools
import os

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from metrics.errors import Cancelled
from workbench.jobs import Jobs
from workbench.model import analysis, disk_runs
from workbench.model import drilldown as drilldown_model
from workbench.model import significance as significance_model
from workbench.model.loading import SAMPLE_DIR, QueriesFile, _load_file, describe_error, sample_files
from workbench.model.session import DEFAULT_MEASURES, SessionModel
from workbench.model.workspace import FileEntry, normalize
from workbench.system import qtcompat

qtcompat.protect_singletons()  # some PySide6 builds lose references to None/True (see qtcompat)

#: how long after new scores are shown the work put off for them starts (the inspection of a file, the
#: bootstrap intervals of the comparison with the baseline): long enough for the window to paint them
#: first (a hundred runs take about a quarter of a second), since that work, in a thread of this process,
#: would slow the painting down
AFTER_PAINT_MS = 300

__all__ = ["Session", "DEFAULT_MEASURES", "SAMPLE_DIR", "QueriesFile", "describe_error", "sample_files"]


def _delegate(name: str, doc: str = "") -> property:
    """An attribute of the session that is the model's."""
    return property(lambda self: getattr(self.model, name), lambda self, v: setattr(self.model, name, v), doc=doc)


def _by_user(method):
    """A method the user calls (a file opened, a measure ticked...): after Cancel, work starts again."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self._stopped = False
        return method(self, *args, **kwargs)

    return wrapper


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
    sigExplanationChanged = Signal(object)

    # what the session holds is the model's
    workspace = _delegate("workspace")
    measures = _delegate("measures")
    relevance_level = _delegate("relevance_level")
    k_max = _delegate("k_max")
    ndcg_options = _delegate("ndcg_options")
    results = _delegate("results")
    selected_query = _delegate("selected_query")
    focus_measure = _delegate("focus_measure")
    is_sample = _delegate("is_sample")
    chosen_kinds = _delegate("chosen_kinds")
    compare_settings = _delegate("compare_settings")
    comparison = _delegate("comparison")
    drilldown = _delegate("drilldown")
    drilldown_depth = _delegate("drilldown_depth")
    inspected_path = _delegate("inspected_path")
    inspection = _delegate("inspection")

    def __init__(self, parent=None, model: SessionModel | None = None):
        super().__init__(parent)
        self.model = model if model is not None else SessionModel()
        events = self.model.events
        for event, signal in (
            (events.files_changed, self.sigFilesChanged),
            (events.baseline_changed, self.sigBaselineChanged),
            (events.measures_changed, self.sigMeasuresChanged),
            (events.results_changed, self.sigResultsChanged),
            (events.query_changed, self.sigQueryChanged),
            (events.focus_measure_changed, self.sigFocusMeasureChanged),
            (events.error, self.sigError),
            (events.message, self.sigMessage),
            (events.file_loaded, self.sigFileLoaded),
            (events.compare_settings_changed, self.sigCompareSettingsChanged),
            (events.comparison_changed, self.sigComparisonChanged),
            (events.drilldown_changed, self.sigDrilldownChanged),
            (events.inspection_changed, self.sigInspectionChanged),
            (events.explanation_changed, self.sigExplanationChanged),
        ):
            event.connect(signal.emit)
        events.evaluation_wanted.connect(self.request_evaluation)

        self.jobs = Jobs(self)
        self.jobs.sigBusyChanged.connect(self.sigBusyChanged.emit)
        self.jobs.sigProgress.connect(self._on_job_progress)
        self.jobs.sigFinished.connect(self._after_job)
        self._reads = [0, 0]  # files read and to read since the last time none was being read
        self._unannounced = False  # files read whose arrival the model has not announced yet
        self._workers_warm = False
        self._ahead = None  # a comparison computed with the scores, until the results are applied
        self._announce_timer = QTimer(self)
        self._announce_timer.setSingleShot(True)
        self._announce_timer.setInterval(100)
        self._announce_timer.timeout.connect(self._announce_loaded)
        self._ids = itertools.count(1)
        self._eval_timer = QTimer(self)
        self._eval_timer.setSingleShot(True)
        self._eval_timer.setInterval(0)
        self._eval_timer.timeout.connect(self._start_evaluation)
        self._load_queue: list[tuple[FileEntry, int]] = []  # files to read, started a batch at a time
        self._load_timer = QTimer(self)
        self._load_timer.setSingleShot(True)
        self._load_timer.setInterval(0)
        self._load_timer.timeout.connect(self._start_loads)

        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._changed: set[str] = set()
        self._change_timer = QTimer(self)
        self._change_timer.setSingleShot(True)
        self._change_timer.setInterval(400)
        self._change_timer.timeout.connect(self._report_changes)

        # the comparison with the baseline and the drill-down of the selected query are computed again
        # whenever what they depend on changes; so is the inspection of one file
        self.sigResultsChanged.connect(
            lambda _: (self.request_comparison(), self.request_drilldown(), self.request_explanation())
        )
        self.sigBaselineChanged.connect(self._on_baseline_for_comparison)
        self.sigQueryChanged.connect(lambda _: self.request_drilldown())
        # with many runs the drill-down shows the best on the query by the measure in focus
        self.sigFocusMeasureChanged.connect(lambda _: self._drilldown_complete())
        self.sigFocusMeasureChanged.connect(lambda _: self._pairs_follow_focus())
        # (after the evaluation these changes call for is scheduled, so that the inspection waits for it)
        self.sigFilesChanged.connect(lambda: QTimer.singleShot(0, self, self.request_inspection))
        self.sigMeasuresChanged.connect(lambda: QTimer.singleShot(0, self, self.request_inspection))
        # (an inspection put off while the runs were read and scored is computed then, once the window
        # has painted the scores)
        self._paint_timer = QTimer(self)
        self._paint_timer.setSingleShot(True)
        self._paint_timer.timeout.connect(self._after_paint)
        self._after_paint_work: list = []
        self.sigResultsChanged.connect(lambda _: self._later(self.request_inspection))
        self.sigIdle.connect(self._inspect_when_idle)
        self._stopped = False  # Cancel was pressed: no work starts by itself until the user asks for some

    # ------------------------------------------------------------------
    # loading
    @_by_user
    def open_sample(self) -> None:
        """Show the bundled sample (made-up data) instead of whatever is loaded."""
        self.clear()
        self.open_files(sample_files())
        self.is_sample = True

    def clear(self) -> None:
        """Forget every file (loads under way are dropped)."""
        self._load_queue = []
        for e in list(self.workspace.entries):
            self._unwatch(e.path)
            self.jobs.discard(("load", e.path))
        self.model.clear()

    def snapshot(self):
        """What the session holds, as a :class:`~workbench.model.workspace_file.WorkspaceDoc` (not the layout)."""
        return self.model.snapshot()

    @_by_user
    def open_workspace(self, doc) -> None:
        """Replace everything with what a workspace document holds; files it names that are missing are reported."""
        self.clear()
        self.model.open_workspace(doc, start=self._submit_load)

    @_by_user
    def open_files(self, paths, kind: str | None = None) -> list[str]:
        """Load files (a folder stands for the files in it and its subfolders); returns the paths being loaded.

        A file found in a folder that turns out to be neither qrels nor a run is left out quietly;
        once the folder is read, one message says what was found and what was not.
        """
        return self.model.open_files(paths, kind, start=self._submit_load, forget=self._unwatch)

    #: files whose reading starts per turn of the event loop: starting 500 at once (a worker, its signals)
    #: kept the window's thread from painting for 0.7 s
    LOAD_BATCH = 50

    def _submit_load(self, e: FileEntry) -> None:
        """Read one file in a worker, soon (a batch per turn of the event loop); a newer load of the same
        file supersedes this one."""
        self._load_queue.append((e, e.generation))
        if not self._load_timer.isActive():
            self._load_timer.start()

    def _start_loads(self) -> None:
        batch, self._load_queue = self._load_queue[: self.LOAD_BATCH], self._load_queue[self.LOAD_BATCH :]
        for e, gen in batch:
            if self.workspace.entry(e.path) is e and e.generation == gen:  # (not removed nor read again since)
                self._start_load(e)
        if self._load_queue:
            self._load_timer.start()

    def _drop_queued_loads(self) -> None:
        queued, self._load_queue = self._load_queue, []
        self._load_timer.stop()
        for e, gen in queued:
            self.model.cancel_load(e.path, gen)

    def _start_load(self, e: FileEntry) -> None:
        path, kind, gen, hold = e.path, e.forced_kind, e.generation, e.hold
        if not self.jobs.running(("load", path)):
            self._reads[1] += 1
        if not hold and not self._workers_warm:  # runs on disk to score soon: start their processes now
            self._workers_warm = True
            self.model.run_cache.workers.warm()
        self.jobs.submit(
            ("load", path),
            lambda progress: _load_file(path, kind, progress, hold),
            f"Loading {os.path.basename(path)}",
            lambda outcome: self._on_loaded(path, gen, outcome),
            lambda exc: self.model.fail_load(path, gen, exc),
            lambda: self.model.cancel_load(path, gen),
        )

    @_by_user
    def locate(self, path: str, found: str) -> str | None:
        """Read ``found`` in place of ``path``, a file named by the workspace but missing."""
        return self.model.locate(path, found, start=self._submit_load)

    @_by_user
    def reload(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is not None:
            self.open_files([e.path], kind=e.forced_kind)

    @_by_user
    def set_kind(self, path: str, kind: str) -> None:
        """Correct the detected kind of a file; it is read again as that kind."""
        e = self.model.choose_kind(path, kind)
        if e is not None:
            self.open_files([e.path], kind=kind)

    def _on_loaded(self, path: str, gen: int, outcome) -> None:
        e = self.model.finish_load(path, gen, outcome)
        if e is None:
            return
        self._watch(e.path)
        if e.kind in ("qrels", "intents"):  # a (intent) qrels file replaced by this one is no longer watched
            present = {x.path for x in self.workspace.entries}
            for p in self._watcher.files():
                if normalize(p) not in present:
                    self._watcher.removePath(p)
        # while files are still being read, what they change is said at most ten times a second (the
        # views, the state and the evaluation follow each announcement; a folder of a thousand runs
        # would otherwise redo them a thousand times); the last file read is announced at once
        self._unannounced = True
        if not self._reading():
            self._announce_loaded()
        elif not self._announce_timer.isActive():
            self._announce_timer.start()

    def _announce_loaded(self) -> None:
        self._announce_timer.stop()
        if self._unannounced:
            self._unannounced = False
            self.model.announce_loaded()
        if self._reading():
            self._prescore()

    def _prescore(self) -> None:
        """While files are read, the worker processes score the runs on disk already opened (results
        kept for the evaluation that follows the last file, not shown): a folder of many runs is scored
        while the runs held are still being read."""
        if self.jobs.running("prescore") or self.jobs.running("evaluate"):
            return
        request = self.model.prescore_request()
        if request is None:
            return
        self.jobs.submit(
            "prescore",
            lambda progress: analysis.compute(request, progress),
            f"Scoring {len(request.runs)} runs",
            lambda _: None,  # kept in the run cache: the evaluation shows them
            lambda exc: None,  # the evaluation scores them again and says what went wrong
        )

    # ------------------------------------------------------------------
    # editing the list of files
    @_by_user
    def remove(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is None:
            return
        self._unwatch(e.path)
        self.jobs.discard(("load", e.path))  # a load still under way stops and is dropped
        self.model.remove(e.path)

    @property
    def can_undo(self) -> bool:
        return self.model.can_undo

    @property
    def undo_text(self) -> str | None:
        """What Edit > Undo would take back (None: nothing)."""
        return self.model.undo_stack.next_text

    @_by_user
    def undo(self) -> str | None:
        """Take back the last change (a removal, a qrels file replaced, measures or options, a rename); what
        to tell the user."""
        told = self.model.undo()
        for e in self.workspace.entries:  # a file back in the list is watched again
            self._watch(e.path)
        self.sigStateChanged.emit()
        return told

    can_undo_remove = can_undo

    @_by_user
    def undo_remove(self) -> str | None:
        """Take back the last change; the path of the file that came back, if it was a removal."""
        path = self.model.undo_remove()
        if path is not None:
            self._watch(path)
        self.sigStateChanged.emit()
        return path

    @_by_user
    def rename(self, path: str, label: str) -> str:
        return self.model.rename(path, label)

    @_by_user
    def move(self, path: str, delta: int) -> None:
        self.model.move(path, delta)

    def set_baseline(self, path: str | None) -> None:
        self.model.set_baseline(path)

    def baseline_label(self) -> str | None:
        return self.model.baseline_label()

    # ------------------------------------------------------------------
    # measures, options and selection
    @_by_user
    def set_measures(self, measures) -> None:
        self.model.set_measures(measures)

    @_by_user
    def set_relevance_level(self, level: int) -> None:
        self.model.set_relevance_level(level)

    @_by_user
    def set_k_max(self, k: int) -> None:
        self.model.set_k_max(k)

    @_by_user
    def set_ndcg_option(self, name: str, value) -> None:
        self.model.set_ndcg_option(name, value)

    def select_query(self, query_id) -> None:
        self.model.select_query(query_id)

    def set_focus_measure(self, name: str) -> None:
        self.model.set_focus_measure(name)

    # ------------------------------------------------------------------
    # evaluation
    def request_evaluation(self) -> None:
        """Evaluate again soon (several changes in a row give one evaluation)."""
        self._eval_timer.start()
        self.sigStateChanged.emit()

    @_by_user
    def recompute(self) -> None:
        """Evaluate, compare and drill down again, whatever is shown now."""
        self._eval_timer.start()
        self.request_comparison()
        self.request_drilldown()

    def evaluation_key(self) -> tuple | None:
        """What an evaluation of the current files and options is computed from (see :mod:`workbench.model.state`)."""
        return self.model.evaluation_key()

    @property
    def evaluating(self) -> bool:
        return self._eval_timer.isActive() or self.jobs.running("evaluate")

    def evaluation_state(self) -> str:
        """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
        return self.model.evaluation_state(self.evaluating)

    def comparison_current(self) -> bool:
        """Whether :attr:`comparison` belongs to the results, baseline and settings shown now."""
        return self.model.comparison_current()

    def stale_reasons(self) -> list[str]:
        """Why what the window shows does not match what is loaded (empty: it matches, or work is under way)."""
        if self.jobs.busy or self._eval_timer.isActive():
            return []
        return self.model.stale_reasons(self.evaluating)

    def _start_evaluation(self) -> None:
        if self._stopped:
            # a file whose reading ended despite Cancel is kept, not scored: the stale bar offers to
            self.sigStateChanged.emit()
            return
        if self.workspace.loading():
            # files still being read: one evaluation once the last arrives (each arrival asks again),
            # not one per file superseding the one before
            self.sigStateChanged.emit()
            return
        if self.model.evaluation_key() is None:
            self.jobs.discard("evaluate")
        request = self.model.evaluation_request()
        if request is None:
            self.jobs.discard("prescore")
            self.sigStateChanged.emit()
            if not self.busy:
                self.sigIdle.emit()
            return
        n = len(request.runs)
        model, baseline = self.model, self.model.baseline_label()

        def work(progress):
            results = analysis.compute(request, progress)
            # the quick comparison with the baseline too, while the window waits for the scores rather
            # than while it draws them (the two would share one interpreter lock)
            ahead = model.comparison_request_for(results, baseline)
            if ahead is None or not ahead.quick:
                return results, None
            try:  # (the marks only: the intervals follow once the scores are shown, see request_comparison)
                return results, significance_model.compute(ahead, lambda _: progress(1.0), intervals=False)
            except Cancelled:
                raise
            except Exception:  # noqa: BLE001 - computed again by request_comparison, which reports it
                return results, None

        self.jobs.submit(
            "evaluate",
            work,
            f"Evaluating {n} run{'s' if n != 1 else ''}",
            self._apply_evaluation,
            lambda exc: self.sigError.emit(f"Evaluation failed: {exc}"),
            lambda: self.sigMessage.emit("Evaluation cancelled: the scores shown are out of date"),
        )
        # what the scoring during the reading of files scored is kept, and the runs it is scoring are
        # awaited by the evaluation (analysis._DiskScorer); dropped once the evaluation is under way, so
        # that the window is never idle in between (the inspection waits for the scores)
        self.jobs.discard("prescore")

    def _apply_evaluation(self, outcome) -> None:
        results, self._ahead = outcome
        disk_runs.drop_early()  # what was scored before the session and not taken is not wanted any more
        try:
            self.model.apply_results(results)
        finally:
            self._ahead = None

    # ------------------------------------------------------------------
    # comparison with the baseline, and the drill-down of the selected query
    def set_compare_settings(self, **changes) -> None:
        """Change the test, alpha or correction (keyword arguments of :class:`significance_model.Settings`)."""
        if self.model.set_compare_settings(**changes):
            self.request_comparison()

    def _on_baseline_for_comparison(self, baseline) -> None:
        compare, drill = self.model.comparison_outdated_by(baseline)
        if compare:
            self.request_comparison()
        if drill:
            self.request_drilldown()

    def request_comparison(self) -> None:
        """Compare the runs with the baseline again (in a worker)."""
        request = self.model.comparison_request()
        if request is None:
            self.jobs.discard("compare")
            return
        ahead = self._ahead
        if ahead is not None and ahead.request.same_as(request):
            self._ahead = None
            self.jobs.discard("compare")
            self.model.apply_comparison(ahead)
            if not ahead.intervals:  # the marks are shown; with its intervals, it replaces them once painted
                self._later(self._complete_comparison)
            return
        self._submit_comparison(
            lambda progress: significance_model.compute(request, progress), self.model.apply_comparison
        )

    def _submit_comparison(self, work, on_done) -> None:
        self.jobs.submit(
            "compare",
            work,
            "Comparing with the baseline",
            on_done,
            lambda exc: self.sigError.emit(f"Comparison failed: {exc}"),
            lambda: self.sigMessage.emit("Comparison cancelled: significance marks are out of date"),
        )

    def _complete_comparison(self) -> None:
        """The comparison shown, with its bootstrap intervals (exports and reports show them), unless a
        newer one is wanted or under way meanwhile."""
        shown = self.model.comparison
        if shown is not None and not shown.intervals and not self.jobs.running("compare"):
            request = self.model.comparison_request_for(self.model.results)
            if request is not None and request.same_as(shown.request):
                work = lambda progress: significance_model.with_intervals(shown, progress)  # noqa: E731
                self._submit_comparison(work, self.model.complete_comparison)

    def set_drilldown_depth(self, depth: int) -> None:
        if self.model.set_drilldown_depth(depth):
            self.request_drilldown()

    def _pairs_follow_focus(self) -> None:
        """With more runs than all pairs compares, the runs compared are the best by the measure in focus."""
        c = self.model.comparison
        if c is not None and c.request.pair_runs is not None:
            request = self.model.comparison_request()
            if request is not None and request.pair_runs != c.request.pair_runs:
                self.request_comparison()

    def _drilldown_complete(self) -> None:
        drill = self.model.drilldown
        if drill is not None and not set(self.model.drilldown_runs()) <= set(drill.runs):
            self.request_drilldown()

    def choose_drilldown_run(self, run: str, shown: bool) -> None:
        """Show or hide one run's ranked list in the drill-down (ranked in a worker when needed)."""
        if self.model.choose_drilldown_run(run, shown):
            self.request_drilldown()

    def request_drilldown(self) -> None:
        """Rank the selected query's documents for every run again (in a worker)."""
        request = self.model.drilldown_request()
        if request is None:
            self.jobs.discard("drilldown")
            return
        self.jobs.submit(
            "drilldown",
            lambda progress: drilldown_model.compute(request, progress),
            f"Ranking query {request.query_id}",
            self.model.apply_drilldown,
            lambda exc: self.sigError.emit(f"Query drill-down failed: {exc}"),
        )

    # ------------------------------------------------------------------
    # how one value was computed
    def explain(self, run: str, query_id, measure: str) -> None:
        """Show how ``measure`` of ``run`` on ``query_id`` (None: the mean) was computed (in a worker)."""
        self.model.explain(run, query_id, measure)
        self.request_explanation()

    def request_explanation(self) -> None:
        from workbench.model import explaining

        request = self.model.explain_request()
        if request is None:
            return
        self.jobs.submit(
            "explain",
            lambda progress: explaining.compute(request, progress),
            f"Explaining {request.measure} of {request.run}",
            self.model.apply_explanation,
            lambda exc: self.sigError.emit(f"Explaining {request.measure} failed: {exc}"),
        )

    # ------------------------------------------------------------------
    # inspection of one file
    @_by_user
    def inspect(self, path: str | None) -> None:
        """Show ``path`` in the Inspect view (computed in a worker once the file is read)."""
        self.model.inspect(path)
        self.request_inspection()

    def _inspect_when_idle(self) -> None:
        if not self._stopped:
            self.request_inspection()

    def request_inspection(self) -> None:
        if self.model.inspected_path is None or self.workspace.entry(self.model.inspected_path) is None:
            self.jobs.discard("inspect")
        elif self.workspace.loading() or self.evaluating or self._paint_timer.isActive():
            return  # the scores first: reading the file again and joining it with the qrels would slow them
        job = self.model.inspection_job()
        if job is None:
            return
        path = job.key[0]
        self.jobs.submit(
            "inspect",
            job.work,
            job.what,
            self.model.apply_inspection,
            lambda exc: self.model.inspection_failed(path, exc),
            lambda: setattr(self.model, "inspection_key", None),
        )

    def _later(self, work) -> None:
        """Run ``work()`` once the window has painted what it was just given (:data:`AFTER_PAINT_MS`)."""
        if work not in self._after_paint_work:
            self._after_paint_work.append(work)
        self._paint_timer.start(AFTER_PAINT_MS)

    def _after_paint(self) -> None:
        work, self._after_paint_work = self._after_paint_work, []
        for w in work:
            w()
        if not self.busy:
            self.sigIdle.emit()  # (nothing to do after all: the wait for the paint was the last work)

    # ------------------------------------------------------------------
    # jobs
    @property
    def busy(self) -> bool:
        timers = (self._eval_timer, self._announce_timer, self._paint_timer, self._load_timer)
        return self.jobs.busy or bool(self._load_queue) or any(timer.isActive() for timer in timers)

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

    def cancel(self) -> None:
        """Stop every job.  Each owner hears that its job was cancelled; what it showed is then out of date."""
        if self._eval_timer.isActive():
            self._eval_timer.stop()
        self._paint_timer.stop()  # (an export computes the intervals the comparison shown lacks)
        self._after_paint_work.clear()
        self._stopped = True  # (the inspection put off for the scores does not start once they stop)
        self._drop_queued_loads()
        self.jobs.cancel()
        disk_runs.drop_early()  # the runs scored since the window started, not taken yet, stop too
        self.sigStateChanged.emit()

    def shutdown(self, timeout_ms: int = 10000) -> None:
        for timer in (self._eval_timer, self._announce_timer, self._paint_timer, self._load_timer):
            timer.stop()  # no work starts after this
        self._load_queue = []
        self._after_paint_work.clear()
        disk_runs.drop_early()
        self.jobs.shutdown(timeout_ms)
        self.model.run_cache.close()

    def _reading(self) -> bool:
        return bool(self._load_queue) or any(isinstance(k, tuple) and k[0] == "load" for k in self.jobs.keys())

    def _on_job_progress(self, fraction: float, what: str) -> None:
        """The progress of the jobs; while several files are read, of all of them: a folder of a thousand
        runs says how many of them are read, not how far the latest one is."""
        done, total = self._reads
        if total > 1 and self._reading():
            self.sigProgress.emit(done / total, f"Reading files: {done} of {total}")
        else:
            self.sigProgress.emit(fraction, what)

    def _after_job(self, key=None) -> None:
        if isinstance(key, tuple) and key[0] == "load":
            if self._reading():
                self._reads[0] += 1
                self._on_job_progress(-1.0, "")
            else:
                self._reads = [0, 0]
        self.sigStateChanged.emit()
        if not self.busy:
            self.sigIdle.emit()

    # ------------------------------------------------------------------
    # files changing on disk
    def _watch(self, path: str) -> None:
        if os.path.exists(path):
            self._watcher.addPath(path)  # False (and nothing else) when already watched

    def _unwatch(self, path: str) -> None:
        self._watcher.removePath(path)  # False when not watched

    def _on_file_changed(self, path: str) -> None:
        self.workspace.disk_changed()
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
