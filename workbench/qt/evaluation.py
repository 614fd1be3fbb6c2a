"""How the session evaluates: requests batched by a timer, the evaluation the model describes run as a job
(with the quick comparison with the baseline computed beside the scores), and its results handed back.

Made by :class:`workbench.qt.session.Session` (``Session.evaluation``); what is evaluated is the model's
(:meth:`workbench.state.session.SessionModel.evaluation_request`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from metrics.errors import Cancelled
from workbench.scoring import evaluation as analysis
from workbench.state import significance as significance_model

if TYPE_CHECKING:
    from workbench.qt.jobs import Jobs
    from workbench.qt.reading import ReadingJobs
    from workbench.state.session import SessionModel


class EvaluationJobs:
    """The evaluation of a session's files, run in ``jobs`` as ``model`` asks.  ``reading`` says whether
    files are still being read (one evaluation follows the last) and holds the runs scored ahead, let go
    once an evaluation is applied.  ``parent`` owns the timer; after Cancel (the model's
    :class:`~workbench.state.session_state.UserTurn`) no evaluation starts until the user acts again;
    ``state_changed()`` says that what is current may
    have changed, ``settled()`` that no evaluation is wanted now; ``error(text)`` and ``message(text)``
    tell the user."""

    def __init__(
        self,
        model: SessionModel,
        jobs: Jobs,
        reading: ReadingJobs,
        *,
        parent: QObject,
        state_changed: Callable[[], None],
        settled: Callable[[], None],
        error: Callable[[str], None],
        message: Callable[[str], None],
    ):
        self.model = model
        self.jobs = jobs
        self.reading = reading
        self._state_changed = state_changed
        self._settled = settled
        self._error = error
        self._message = message
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._start)

    def request(self) -> None:
        """Evaluate again soon (several changes in a row give one evaluation)."""
        self._timer.start()
        self._state_changed()

    @property
    def waiting(self) -> bool:
        """Whether an evaluation was asked for and is not started yet."""
        return self._timer.isActive()

    @property
    def evaluating(self) -> bool:
        return self._timer.isActive() or self.jobs.running("evaluate")

    def stop(self) -> None:
        """No evaluation asked for starts (one under way is the jobs')."""
        self._timer.stop()

    def _start(self) -> None:
        if self.model.turn.stopped:
            # a file whose reading ended despite Cancel is kept, not scored: the stale bar offers to
            self._state_changed()
            return
        if self.model.workspace.loading():
            # files still being read: one evaluation once the last arrives (each arrival asks again),
            # not one per file superseding the one before
            self._state_changed()
            return
        if self.model.evaluation_key() is None:
            self.jobs.discard("evaluate")
        request = self.model.evaluation_request()
        if request is None:
            self.jobs.discard("prescore")
            self.reading.let_go_of_scoring_ahead()
            self._state_changed()
            self._settled()
            return
        n = len(request.runs)
        followups, baseline = self.model.followups, self.model.workspace.baseline_label()

        def work(progress):
            results = analysis.compute(request, progress)
            # the quick comparison with the baseline too, while the window waits for the scores rather
            # than while it draws them (the two would share one interpreter lock)
            ahead = followups.comparison_request_for(results, baseline)
            if ahead is None or not ahead.quick:
                return results
            try:  # (the marks only: the intervals follow once the scores are shown, see request_comparison)
                comparison = significance_model.compute(ahead, lambda _: progress(1.0), intervals=False)
                significance_model.prepare_marks(comparison, results.summary)  # (here, not on the window's thread)
                results.extra["comparison"] = comparison
            except Cancelled:
                raise
            except Exception:  # noqa: BLE001 - computed again by request_comparison, which reports it
                pass
            return results

        self.jobs.submit(
            "evaluate",
            work,
            f"Evaluating {n} run{'s' if n != 1 else ''}",
            self._apply,
            lambda exc: self._error(f"Evaluation failed: {_reason(exc)}"),
            lambda: self._message("Evaluation cancelled: the scores shown are out of date"),
        )

    def _apply(self, results: analysis.Results) -> None:
        try:
            self.model.apply_results(results)
        finally:
            results.extra.pop("comparison", None)  # (taken by request_comparison, if it was still wanted)
            self.reading.let_go_of_scoring_ahead()  # (what the evaluation did not want is stopped)


def _reason(exc: BaseException) -> str:
    """What went wrong, in words, even for an exception without a message (a MemoryError says nothing)."""
    if isinstance(exc, MemoryError):
        return "not enough memory for what was asked (fewer runs, or a smaller K for NDCG@k)"
    text = str(exc).strip()
    return (
        f"{type(exc).__name__}: {text}"
        if text and not isinstance(exc, (ValueError, OSError))
        else text or type(exc).__name__
    )
