"""The session's Qt face: :class:`workbench.state.session.SessionModel` as signals, and its jobs in workers.

The state and the rules live in the plain-Python model (:attr:`Session.model`); this adapter
turns the model's events into Qt signals and runs the jobs the model asks for through
:class:`workbench.qt.jobs.Jobs`, with parts it makes: :attr:`Session.reading` (listing, reading and
watching files, :mod:`workbench.qt.reading`), :attr:`Session.evaluation` (evaluation requests
batched with a timer, :mod:`workbench.qt.evaluation`) and :attr:`Session.followups` (comparing,
drilling down, explaining, inspecting, :mod:`workbench.qt.followups`).  Views read the session and
subscribe to its signals; they never talk to each other.

Signals
-------
sigFilesChanged()            files, kinds, labels, order or load status changed
sigBaselineChanged(object)   baseline run label (or None)
sigMeasuresChanged()         measure set or an evaluation option changed
sigResultsChanged(object)    new :class:`workbench.scoring.evaluation.Results` (or None)
sigQueryChanged(object)      selected query id (None: the mean over queries)
sigFocusMeasureChanged(str)  measure shown per query
sigBusyChanged(bool)         a job started / the last job ended
sigProgress(float, str)      progress of the current job (fraction < 0: unknown)
sigStateChanged()            whether what is shown is current may have changed (see :meth:`Session.stale_reasons`)
sigError(str)                something failed (message for the user)
sigMessage(str)              something worth telling in the status bar
sigNotice(str)               a message to keep in view until the user's next action (also a sigMessage)
sigUserActed()               the user asked for something: notices told before are no longer news
sigFileLoaded(str)           a file was loaded (path)
sigFileChangedOnDisk(str, int)  a loaded file changed on disk (path, size in bytes)
sigIdle()                    no job is running any more
sigCompareSettingsChanged()  test, alpha or correction of the comparison changed
sigComparisonChanged(object) new :class:`workbench.state.significance.Comparison` (or None)
sigDrilldownChanged(object)  new :class:`metrics.engine.drilldown.QueryDrilldown` (or None)
sigExplanationChanged(object) new :class:`workbench.state.explaining.Explained` (or None)
sigInspectionChanged(object) new inspection of :attr:`Session.inspected_path` (a dict, see metrics.inspect) or None
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from metrics.errors import Cancelled
from workbench.qt.evaluation import EvaluationJobs
from workbench.qt.followups import FollowUpJobs
from workbench.qt.jobs import Jobs
from workbench.qt.paint import AfterPaint
from workbench.qt.reading import ReadingJobs
from workbench.qt.reads import FromModel
from workbench.scoring.failures import describe_error
from workbench.state.disk_watch import DiskWatch, weak_report
from workbench.state.loading import SAMPLE_DIR, QueriesFile, sample_files
from workbench.state.session import DEFAULT_MEASURES, SessionModel
from workbench.system import qtcompat

if TYPE_CHECKING:
    from workbench.state.workspace_file import WorkspaceDoc

qtcompat.protect_singletons()  # some PySide6 builds lose references to None/True (see qtcompat)


__all__ = ["Session", "DEFAULT_MEASURES", "SAMPLE_DIR", "QueriesFile", "describe_error", "sample_files"]


def by_user(method):
    """A method the user calls (a file opened, a measure ticked...): after Cancel, work starts again."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self._stopped = False
        self.sigUserActed.emit()  # (the notices told before are no longer news)
        return method(self, *args, **kwargs)

    return wrapper


class Session(QObject):
    """The session as Qt sees it: the plain-Python model's events as signals, the user's actions, and the jobs run for
    it."""

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
    sigNotice = Signal(str)
    sigUserActed = Signal()
    sigFileLoaded = Signal(str)
    sigFileChangedOnDisk = Signal(str, int)
    sigIdle = Signal()
    sigCompareSettingsChanged = Signal()
    sigComparisonChanged = Signal(object)
    sigDrilldownChanged = Signal(object)
    sigInspectionChanged = Signal(object)
    sigExplanationChanged = Signal(object)
    _sigDiskNews = Signal(object)  # what the disk watch found (a list of DiskState), from its thread

    # what the session holds is the model's, read here, changed through the methods below
    workspace = FromModel(lambda m: m.workspace)
    measures = FromModel(lambda m: m.measures)
    relevance_level = FromModel(lambda m: m.relevance_level)
    k_max = FromModel(lambda m: m.k_max)
    ndcg_options = FromModel(lambda m: m.ndcg_options)
    results = FromModel(lambda m: m.results)
    selected_query = FromModel(lambda m: m.selected_query)
    focus_measure = FromModel(lambda m: m.focus_measure)
    is_sample = FromModel(lambda m: m.is_sample)
    chosen_kinds = FromModel(lambda m: m.chosen_kinds)
    compare_settings = FromModel(lambda m: m.compare_settings)
    comparison = FromModel(lambda m: m.comparison)
    drilldown = FromModel(lambda m: m.drilldown)
    drilldown_depth = FromModel(lambda m: m.drilldown_depth)
    inspected_path = FromModel(lambda m: m.inspected_path)
    inspection = FromModel(lambda m: m.inspection)

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
            (events.notice, self.sigNotice),
            (events.file_loaded, self.sigFileLoaded),
            (events.compare_settings_changed, self.sigCompareSettingsChanged),
            (events.comparison_changed, self.sigComparisonChanged),
            (events.drilldown_changed, self.sigDrilldownChanged),
            (events.inspection_changed, self.sigInspectionChanged),
            (events.explanation_changed, self.sigExplanationChanged),
        ):
            event.connect(signal.emit)
        events.evaluation_wanted.connect(self.request_evaluation)
        # every message told, whoever told it, is kept to be read back (View > Messages)
        log = self.model.messages
        self.sigError.connect(lambda text: log.add("error", text))
        self.sigNotice.connect(lambda text: log.add("notice", text))
        self.sigMessage.connect(lambda text: log.add("status", text) if text not in self._noticed else None)
        self._noticed: set[str] = set()  # (a notice is told as a message too: kept once, as a notice)
        self.sigNotice.connect(self._noticed.add)
        self.sigUserActed.connect(self._noticed.clear)

        self.jobs = Jobs(self)
        self.jobs.sigBusyChanged.connect(self.sigBusyChanged.emit)
        self.jobs.sigProgress.connect(self._on_job_progress)
        self.jobs.sigFinished.connect(self._after_job)
        self._ids = itertools.count(1)

        # the files are listed and read in jobs, and looked at on disk by a thread of their own (never by
        # the window's)
        self._stopped = False  # Cancel was pressed: no work starts by itself until the user asks for some
        self._disk = DiskWatch(weak_report(self, "_sigDiskNews"))
        self.reading = r = ReadingJobs(
            self.model,
            self.jobs,
            self._disk,
            parent=self,
            stopped=lambda: self._stopped,
            state_changed=self.sigStateChanged.emit,
            changed_on_disk=self.sigFileChangedOnDisk.emit,
            error=self.sigError.emit,
            message=self.sigMessage.emit,
        )
        self._sigDiskNews.connect(self._on_disk_news)  # (queued: emitted by that thread)
        # evaluations asked for in a row are batched, and run as the model describes them
        self.evaluation = EvaluationJobs(
            self.model,
            self.jobs,
            r,
            parent=self,
            stopped=lambda: self._stopped,
            state_changed=self.sigStateChanged.emit,
            settled=self._idle_if_done,
            error=self.sigError.emit,
            message=self.sigMessage.emit,
        )

        # work put off until the window has painted what it was given (the inspection, the intervals)
        self.after_paint = AfterPaint(self)
        self.after_paint.sigDone.connect(self._after_paint)
        # the comparison with the baseline and the drill-down of the selected query are computed again
        # whenever what they depend on changes; so is the inspection of one file
        self.followups = f = FollowUpJobs(
            self.model,
            self.jobs,
            later=self.after_paint.later,
            scores_coming=lambda: r.loading() or self.evaluating or self.after_paint.waiting,
            stopped=lambda: self._stopped,
            error=self.sigError.emit,
            message=self.sigMessage.emit,
        )
        self.sigResultsChanged.connect(lambda _: self._follow_results())
        self.sigBaselineChanged.connect(f.on_baseline)
        self.sigQueryChanged.connect(lambda _: f.request_drilldown())
        self.sigFileLoaded.connect(self._texts_loaded)
        self.sigFocusMeasureChanged.connect(lambda _: f.drilldown_complete())
        self.sigFocusMeasureChanged.connect(lambda _: f.pairs_follow_focus())
        # (after the evaluation these changes call for is scheduled, so that the inspection waits for it)
        self.sigFilesChanged.connect(lambda: QTimer.singleShot(0, self, f.request_inspection))
        self.sigMeasuresChanged.connect(lambda: QTimer.singleShot(0, self, f.request_inspection))
        # (an inspection put off while the runs were read and scored is computed then, once the window
        # has painted the scores)
        self.sigResultsChanged.connect(lambda _: self.after_paint.later(f.request_inspection))
        self.sigIdle.connect(f.inspect_when_idle)

    # ------------------------------------------------------------------
    # loading
    @by_user
    def open_sample(self) -> None:
        """Show the bundled sample (made-up data) instead of whatever is loaded."""
        self.reading.open_sample()

    def clear(self) -> None:
        """Forget every file (loads under way are dropped)."""
        self.reading.drop_files()
        self.model.files.clear()

    def remember_kinds(self, kinds: dict[str, str]) -> None:
        """The kinds the user chose for files before (path -> kind), kept across runs by the window."""
        self.model.files.remember_kinds(kinds)

    def snapshot(self):
        """What the session holds, as a :class:`~workbench.state.workspace_file.WorkspaceDoc` (not the layout)."""
        return self.model.snapshot()

    @by_user
    def open_workspace(self, doc) -> None:
        """Replace everything with what a workspace document holds, once the files it names are looked at in
        a worker (their sizes decide which runs are held in memory); files it names that are missing are
        reported."""
        self.reading.open_workspace(doc)

    @by_user
    def open_workspace_file(
        self, path: str, opened: Callable[[WorkspaceDoc], object], failed: Callable[[BaseException], object]
    ) -> None:
        """:meth:`open_workspace` with the document read from the workspace file at ``path`` in a worker;
        ``opened(doc)`` once it is taken, ``failed(exception)`` if the file cannot be read (neither when
        the opening is cancelled: nothing of it is taken then)."""
        self.reading.open_workspace_file(path, opened, failed)

    @by_user
    def open_files(self, paths, kind: str | None = None) -> None:
        """Load files (a folder stands for the files in it and its subfolders), listed in a worker first.

        A file found in a folder that turns out to be neither qrels nor a run is left out quietly;
        once the folder is read, one message says what was found and what was not.
        """
        self.reading.open_files(paths, kind)

    @by_user
    def locate(self, path: str, found: str) -> None:
        """Read ``found`` in place of ``path``, a file named by the workspace but missing."""
        self.reading.locate(path, found)

    @by_user
    def reload(self, path: str) -> None:
        self.reading.reload(path)

    @by_user
    def set_kind(self, path: str, kind: str) -> None:
        """Correct the detected kind of a file; it is read again as that kind."""
        self.reading.set_kind(path, kind)

    def _on_disk_news(self, states) -> None:
        self.reading.on_disk_news(states)

    # ------------------------------------------------------------------
    # editing the list of files
    @by_user
    def remove(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is None:
            return
        self.reading.stop_reading(e.path)  # (a load still under way stops and is dropped)
        self.model.files.remove(e.path)

    @property
    def can_undo(self) -> bool:
        return self.model.files.can_undo

    @property
    def undo_text(self) -> str | None:
        """What Edit > Undo would take back (None: nothing)."""
        return self.model.undo_stack.next_text

    @by_user
    def undo(self) -> str | None:
        """Take back the last change (a removal, a qrels file replaced, measures or options, a rename); what
        to tell the user."""
        told = self.model.files.undo()
        for e in self.workspace.entries:  # a file back in the list is watched again
            self.reading.watch(e.path)
        self.sigStateChanged.emit()
        return told

    can_undo_remove = can_undo

    @by_user
    def undo_remove(self) -> str | None:
        """Take back the last change; the path of the file that came back, if it was a removal."""
        path = self.model.files.undo_remove()
        if path is not None:
            self.reading.watch(path)
        self.sigStateChanged.emit()
        return path

    @by_user
    def rename(self, path: str, label: str) -> str:
        return self.model.files.rename(path, label)

    @by_user
    def move(self, path: str, delta: int) -> None:
        self.model.files.move(path, delta)

    def set_baseline(self, path: str | None) -> None:
        self.model.files.set_baseline(path)

    def baseline_label(self) -> str | None:
        return self.model.baseline_label()

    # ------------------------------------------------------------------
    # measures, options and selection
    @by_user
    def set_measures(self, measures) -> None:
        self.model.set_measures(measures)

    @by_user
    def set_relevance_level(self, level: int) -> None:
        self.model.set_relevance_level(level)

    @by_user
    def set_k_max(self, k: int) -> None:
        self.model.set_k_max(k)

    @by_user
    def set_ndcg_option(self, name: str, value) -> None:
        self.model.set_ndcg_option(name, value)

    @by_user
    def inspect(self, path: str | None) -> None:
        """Show ``path`` in the Inspect view (computed in a worker once the file is read)."""
        self.followups.inspect(path)

    def select_query(self, query_id) -> None:
        self.model.select_query(query_id)

    def set_focus_measure(self, name: str) -> None:
        self.model.set_focus_measure(name)

    # ------------------------------------------------------------------
    # evaluation
    def request_evaluation(self) -> None:
        """Evaluate again soon (several changes in a row give one evaluation)."""
        self.evaluation.request()

    @by_user
    def recompute(self) -> None:
        """Evaluate, compare and drill down again, whatever is shown now."""
        self.evaluation.request()
        self.followups.request_comparison()
        self.followups.request_drilldown()

    def evaluation_key(self) -> tuple | None:
        """What an evaluation of the current files and options is computed from (:mod:`workbench.state.currency`)."""
        return self.model.evaluation_key()

    @property
    def evaluating(self) -> bool:
        return self.evaluation.evaluating

    def evaluation_state(self) -> str:
        """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
        return self.model.evaluation_state(self.evaluating)

    def comparison_current(self) -> bool:
        """Whether :attr:`comparison` belongs to the results, baseline and settings shown now."""
        return self.model.comparison_current()

    def stale_reasons(self) -> list[str]:
        """Why what the window shows does not match what is loaded (empty: it matches, or work is under way,
        including work put off until the window has painted)."""
        if self.busy:
            return []
        return self.model.stale_reasons(self.evaluating)

    def use_scoring(self, service, ahead=None) -> None:
        """Score with ``service`` (a :class:`~workbench.scoring.service.ScoringService` made before the session,
        :mod:`workbench.app`) and hold ``ahead``, the :class:`~workbench.scoring.service.Lease` of the runs it
        is scoring already, until the first evaluation is applied.  Before any file is opened."""
        self.model.use_scoring(service)
        self.reading.hold_scored_ahead(ahead)

    def _texts_loaded(self, path: str) -> None:
        """A collection or query texts read: the drill-down shown looks its documents up again."""
        e = self.model.workspace.entry(path)
        if e is not None and e.kind in ("collection", "queries") and self.model.drilldown is not None:
            self.followups.request_drilldown()

    def _follow_results(self) -> None:
        """New scores: the comparison (once painted), the drill-down and the explanation follow them."""
        self.followups.request_comparison(after_paint=True)
        self.followups.request_drilldown()
        self.followups.request_explanation()

    def _after_paint(self) -> None:
        """The work put off until the window painted is done (:class:`~workbench.qt.paint.AfterPaint`)."""
        self.sigStateChanged.emit()  # (what is stale is said once no work waits: see stale_reasons)
        self._idle_if_done()  # (nothing to do after all: the wait for the paint was the last work)

    # ------------------------------------------------------------------
    # jobs
    @property
    def busy(self) -> bool:
        return self.jobs.busy or self.reading.busy or self.after_paint.waiting or self.evaluation.waiting

    def _idle_if_done(self) -> None:
        if not self.busy:
            self.sigIdle.emit()

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
        self.evaluation.stop()
        self.after_paint.clear()  # (an export computes the intervals the comparison shown lacks)
        self._stopped = True  # (the inspection put off for the scores does not start once they stop)
        self.reading.drop_queued_loads()
        self.jobs.cancel()  # (an evaluation's runs nobody else holds stop with it)
        self.reading.let_go_of_scoring_ahead()  # (and those scored ahead: nothing holds them any more)
        self.sigStateChanged.emit()

    def shutdown(self, timeout_ms: int = 10000) -> None:
        self.evaluation.stop()  # no work starts after this
        self.reading.shutdown()
        self.after_paint.close()
        self._disk.close()
        self.jobs.shutdown(timeout_ms)
        self.model.run_cache.close()

    def _on_job_progress(self, fraction: float, what: str) -> None:
        """The progress of the jobs (while several files are read, of all of them: ReadingJobs.progress)."""
        self.sigProgress.emit(*self.reading.progress(fraction, what))

    def _after_job(self, key=None) -> None:
        if self.reading.job_ended(key):
            self._on_job_progress(-1.0, "")
        self.sigStateChanged.emit()
        self._idle_if_done()
