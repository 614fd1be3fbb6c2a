"""The session's Qt face: :class:`workbench.state.session.SessionModel` as signals, and its jobs in workers.

The state and the rules live in the plain-Python model (:attr:`Session.model`); this adapter
turns the model's events into Qt signals and runs the jobs the model asks for through
:class:`workbench.qt.jobs.Jobs`, with parts it makes: :attr:`Session.reading` (listing, reading and
watching files, :mod:`workbench.qt.reading`), :attr:`Session.evaluation` (evaluation requests
batched with a timer, :mod:`workbench.qt.evaluation`) and :attr:`Session.followups` (comparing,
drilling down, explaining, inspecting, :mod:`workbench.qt.followups`).  Views read the session and
subscribe to its signals; they never talk to each other.  What a view asks for, it asks of the part
that does it: the model (``session.model.set_measures``, ``session.model.files.rename``...),
``session.reading`` (``open_files``, ``remove``, ``undo``...) or ``session.followups`` (``inspect``,
``explain``...).  The methods a user calls are marked
:func:`~workbench.state.session_state.user_action` where they are defined: after Cancel, work starts
again with them, and the notices told before are retired (``sigUserActed``).

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

import itertools

from PySide6.QtCore import QObject, QTimer, Signal

from metrics.errors import Cancelled
from workbench.qt.evaluation import EvaluationJobs
from workbench.qt.followups import FollowUpJobs
from workbench.qt.jobs import Jobs
from workbench.qt.paint import AfterPaint
from workbench.qt.reading import ReadingJobs
from workbench.qt.reads import FromModel
from workbench.state.disk_watch import DiskWatch, weak_report
from workbench.state.session import SessionModel
from workbench.state.session_state import UserTurn, user_action
from workbench.system import qtcompat

qtcompat.protect_singletons()  # some PySide6 builds lose references to None/True (see qtcompat)


__all__ = ["Session"]


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
    settings = FromModel(lambda m: m.settings)
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
        self.turn: UserTurn = self.model.turn  # (what :func:`user_action` reads: the Session's recompute is one)
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
        self.model.turn.acted.connect(self.sigUserActed.emit)
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
        self._disk = DiskWatch(weak_report(self, "_sigDiskNews"))
        self.reading = r = ReadingJobs(
            self.model,
            self.jobs,
            self._disk,
            parent=self,
            state_changed=self.sigStateChanged.emit,
            changed_on_disk=self.sigFileChangedOnDisk.emit,
            error=self.sigError.emit,
            message=self.sigMessage.emit,
        )
        self._sigDiskNews.connect(r.on_disk_news)  # (queued: emitted by that thread)
        # evaluations asked for in a row are batched, and run as the model describes them
        self.evaluation = EvaluationJobs(
            self.model,
            self.jobs,
            r,
            parent=self,
            state_changed=self.sigStateChanged.emit,
            settled=self._idle_if_done,
            error=self.sigError.emit,
            message=self.sigMessage.emit,
        )
        events.evaluation_wanted.connect(self.evaluation.request)

        # work put off until the window has painted what it was given (the inspection, the first comparison)
        self.after_paint = AfterPaint(self)
        self.after_paint.sigDone.connect(self._after_paint)
        # the comparison with the baseline and the drill-down of the selected query are computed again
        # whenever what they depend on changes; so is the inspection of one file
        self.followups = f = FollowUpJobs(
            self.model,
            self.jobs,
            later=self.after_paint.later,
            scores_coming=lambda: r.loading() or self.evaluation.evaluating or self.after_paint.waiting,
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
    # what composes the parts (the user's actions are the parts' own: see the module's docstring)
    @user_action
    def recompute(self) -> None:
        """Evaluate, compare and drill down again, whatever is shown now."""
        self.evaluation.request()
        self.followups.request_comparison()
        self.followups.request_drilldown()

    def evaluation_state(self) -> str:
        """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
        return self.model.evaluation_state(self.evaluation.evaluating)

    def stale_reasons(self) -> list[str]:
        """Why what the window shows does not match what is loaded (empty: it matches, or work is under way,
        including work put off until the window has painted)."""
        if self.busy:
            return []
        return self.model.stale_reasons(self.evaluation.evaluating)

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
        self.after_paint.clear()  # (what was put off for the paint does not start)
        self.model.turn.cancel()  # (the inspection put off for the scores does not start once they stop)
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
