"""The jobs that follow the scores: the comparison with the baseline (its marks; the bootstrap intervals
of its differences are computed by the export that writes them), the drill-down of the selected query,
the explanation of one value and the inspection of one file.

Made by :class:`workbench.qt.session.Session` (``Session.followups``); what each job computes is asked of
the model's parts (:class:`workbench.state.followups.FollowUpRules`, ``model.followups``, and
:class:`workbench.state.explaining.ExplainRules`, ``model.explainer``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench.state import drilldown as drilldown_model
from workbench.state import significance as significance_model
from workbench.state.session_state import user_action

if TYPE_CHECKING:
    from metrics.engine.drilldown import QueryDrilldown
    from workbench.qt.jobs import Jobs
    from workbench.state.session import SessionModel
    from workbench.state.session_state import UserTurn


class FollowUpJobs:
    """The comparison, drill-down, explanation and inspection jobs of a session: what they compute is
    asked of ``model``, and run in ``jobs``.  ``later(work)`` runs ``work()`` once the window has painted
    the scores; ``scores_coming()`` says whether scores are being read, computed or painted (an inspection
    waits for them); after Cancel (the model's :class:`~workbench.state.session_state.UserTurn`) the
    inspection put off starts only once the user acts again;
    ``error(text)`` and ``message(text)`` tell the user."""

    def __init__(
        self,
        model: SessionModel,
        jobs: Jobs,
        *,
        later: Callable[[Callable[[], None]], None],
        scores_coming: Callable[[], bool],
        error: Callable[[str], None],
        message: Callable[[str], None],
    ):
        self.model = model
        self.jobs = jobs
        self.turn: UserTurn = model.turn  # (after Cancel, the inspection put off waits for the user)
        self._later = later
        self._scores_coming = scores_coming
        self._error = error
        self._message = message
        #: a comparison computed with the scores (the evaluation's), until the results are applied
        self.ahead: significance_model.Comparison | None = None

    # ------------------------------------------------------------------
    # comparison with the baseline, and the drill-down of the selected query
    def set_compare_settings(self, **changes) -> None:
        """Change the test, alpha or correction (keyword arguments of :class:`significance_model.Settings`)."""
        if self.model.set_compare_settings(**changes):
            self.request_comparison()

    def on_baseline(self, baseline: str | None) -> None:
        compare, drill = self.model.followups.comparison_outdated_by(baseline)
        if compare:
            self.request_comparison()
        if drill:
            self.request_drilldown()

    def request_comparison(self, after_paint: bool = False) -> None:
        """Compare the runs with the baseline again (in a worker); with ``after_paint`` (new scores), a
        comparison that would import scipy waits until the scores are painted."""
        request = self.model.followups.comparison_request()
        if request is None:
            self.jobs.discard("compare")
            return
        # the quick comparison the evaluation computed with the scores, if it is the one wanted
        results = self.model.results
        ahead = results.extra.pop("comparison", None) if results is not None else None
        if ahead is not None and ahead.request.same_as(request):
            self.jobs.discard("compare")
            self.model.followups.apply_comparison(ahead)
            return
        if after_paint and not request.quick:
            # the first comparison imports scipy (scipy.special for the t-test, about 0.2 s of CPU holding the
            # interpreter; scipy.stats for the rank tests, 0.7 s): started with the scores, scipy.stats slowed
            # their paint by 0.6 s with 100 runs (2.7x ir-eval against 1.9x)
            self.jobs.discard("compare")
            self._later(self.request_comparison)
            return
        summary = results.summary if results is not None else None

        def work(progress: Callable[[float], None]) -> significance_model.Comparison:
            # without the intervals, which no view shows: with 500 runs they are 1.7 s of the interpreter's
            # lock, which the window's thread, drawing the scores, waited for at each call from Qt into Python
            comparison = significance_model.compute(request, progress, intervals=False)
            if summary is not None:  # (the summary's marks made here, not on the window's thread)
                significance_model.prepare_marks(comparison, summary)
            return comparison

        self.jobs.submit(
            "compare",
            work,
            "Comparing with the baseline",
            self.model.followups.apply_comparison,
            lambda exc: self._error(f"Comparison failed: {exc}"),
            lambda: self._message("Comparison cancelled: significance marks are out of date"),
        )

    def set_drilldown_depth(self, depth: int) -> None:
        if self.model.set_drilldown_depth(depth):
            self.request_drilldown()

    def pairs_follow_focus(self) -> None:
        """With more runs than all pairs compares, the runs compared are the best by the measure in focus."""
        c = self.model.comparison
        if c is not None and c.request.pair_runs is not None:
            request = self.model.followups.comparison_request()
            if request is not None and request.pair_runs != c.request.pair_runs:
                self.request_comparison()

    def drilldown_complete(self) -> None:
        """With many runs the drill-down shows the best on the query by the measure in focus."""
        drill: QueryDrilldown | None = self.model.drilldown
        if drill is not None and not set(self.model.followups.drilldown_runs()) <= set(drill.runs):
            self.request_drilldown()

    def choose_drilldown_run(self, run: str, shown: bool) -> None:
        """Show or hide one run's ranked list in the drill-down (ranked in a worker when needed)."""
        if self.model.followups.choose_drilldown_run(run, shown):
            self.request_drilldown()

    def show_drilldown_runs(self, runs) -> None:
        """Show only the ranked lists of ``runs`` in the drill-down (ranked in a worker when needed; else
        the drill-down shown is announced again, for its views to show those lists)."""
        if self.model.followups.show_only_drilldown_runs(runs):
            self.request_drilldown()
        elif self.model.drilldown is not None:
            self.model.followups.apply_drilldown(self.model.drilldown)

    def request_drilldown(self) -> None:
        """Rank the selected query's documents for every run again (in a worker)."""
        request = self.model.followups.drilldown_request()
        if request is None:
            self.jobs.discard("drilldown")
            return
        self.jobs.submit(
            "drilldown",
            lambda progress: drilldown_model.compute(request, progress),
            f"Ranking query {request.query_id}",
            self.model.followups.apply_drilldown,
            lambda exc: self._error(f"Query drill-down failed: {exc}"),
        )

    # ------------------------------------------------------------------
    # how one value was computed
    def explain(self, run: str, query_id: str | None, measure: str) -> None:
        """Show how ``measure`` of ``run`` on ``query_id`` (None: the mean) was computed (in a worker)."""
        self.model.explainer.explain(run, query_id, measure)
        self.request_explanation()

    def request_explanation(self) -> None:
        from workbench.state import explaining

        request = self.model.explainer.explain_request()
        if request is None:
            return
        self.jobs.submit(
            "explain",
            lambda progress: explaining.compute(request, progress),
            f"Explaining {request.measure} of {request.run}",
            self.model.explainer.apply_explanation,
            lambda exc: self._error(f"Explaining {request.measure} failed: {exc}"),
        )

    # ------------------------------------------------------------------
    # inspection of one file
    @user_action
    def inspect(self, path: str | None) -> None:
        """Show ``path`` in the Inspect view (computed in a worker once the file is read)."""
        self.model.followups.inspect(path)
        self.request_inspection()

    def inspect_when_idle(self) -> None:
        if not self.turn.stopped:
            self.request_inspection()

    def request_inspection(self) -> None:
        if self.model.inspected_path is None or self.model.workspace.entry(self.model.inspected_path) is None:
            self.jobs.discard("inspect")
        elif self._scores_coming():
            return  # the scores first: reading the file again and joining it with the qrels would slow them
        job = self.model.followups.inspection_job()
        if job is None:
            return
        path = job.key[0]
        self.jobs.submit(
            "inspect",
            job.work,
            job.what,
            self.model.followups.apply_inspection,
            lambda exc: self.model.followups.inspection_failed(path, exc),
            self.model.followups.inspection_cancelled,
        )
