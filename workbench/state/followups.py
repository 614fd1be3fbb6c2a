"""What follows the scores, in plain Python (no Qt): the comparison of the runs with the baseline, the
drill-down of the selected query and the inspection of one file.

:class:`FollowUpRules` is a part of :class:`workbench.state.session.SessionModel` (``model.followups``),
made with the :class:`~workbench.state.session_state.SessionState` it reads and changes: each rule says
which job is wanted now (a request the Qt session runs in a worker) and takes its outcome back
(``apply_...``).
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any, Callable, cast

from workbench.state import drilldown as drilldown_model
from workbench.state import significance as significance_model
from workbench.state.loading import inspection_work
from workbench.state.session_state import SessionState
from workbench.state.workspace import normalize

if TYPE_CHECKING:
    import pandas as pd


@dataclasses.dataclass(frozen=True)
class InspectionJob:
    """What to compute for the Inspect view: ``work(progress)`` in a worker, then :meth:`apply_inspection`."""

    key: tuple
    what: str
    work: Callable[[Any], dict]


class FollowUpRules:
    """The comparison, drill-down and inspection rules, on ``state``."""

    def __init__(self, state: SessionState):
        self.state = state

    def comparison_request(self) -> significance_model.Request | None:
        """The comparison of the results with the baseline; None (and the comparison dropped) when there is
        nothing to compare: no baseline, a single run, or no query judged and retrieved."""
        request = self.comparison_request_for(self.state.results)
        if request is None:
            self.apply_comparison(None)
        return request

    def comparison_request_for(self, results, baseline: str | None = None) -> significance_model.Request | None:
        """The comparison of ``results`` with the baseline (``baseline``: its label, else the current one),
        with the current settings; None when there is nothing to compare."""
        baseline = self.state.workspace.baseline_label() if baseline is None else baseline
        if (
            results is None
            or baseline is None
            or baseline not in results.runs
            or len(results.runs) < 2
            or results.evaluation.per_query.empty
        ):
            return None
        pair_runs = None
        if self.state.compare_settings.mode == "pairs" and len(results.runs) > significance_model.MAX_PAIR_RUNS:
            # every pair of a thousand runs is half a million tests: the best runs by the measure in focus
            pair_runs = tuple(
                drilldown_model.best_by(
                    results.runs, results, self.state.focus_measure, baseline, significance_model.MAX_PAIR_RUNS
                )
            )
        return significance_model.Request(
            per_query=results.evaluation.per_query,
            runs=tuple(results.runs),
            baseline=baseline,
            settings=self.state.compare_settings,
            pair_runs=pair_runs,
        )

    def apply_comparison(self, comparison) -> None:
        if comparison is None and self.state.comparison is None:
            return
        self.state.comparison = comparison
        self.state.events.comparison_changed.emit(comparison)

    def complete_comparison(self, comparison) -> None:
        """Keep ``comparison``, with its bootstrap intervals (an export computed them), in place of the one
        shown without them, when it is the same comparison (no event: the views show no interval); a
        comparison of anything else is dropped (the one shown has changed since)."""
        shown = self.state.comparison
        if (
            shown is not None
            and not shown.intervals
            and comparison is not None
            and comparison.request.same_as(shown.request)
        ):
            self.state.comparison = comparison

    def comparison_outdated_by(self, baseline) -> tuple[bool, bool]:
        """Whether the comparison and the drill-down are of another baseline than ``baseline``."""
        return (
            self.state.comparison is None or self.state.comparison.request.baseline != baseline,
            self.state.drilldown is None or self.state.drilldown.baseline != baseline,
        )

    def drilldown_runs(self) -> list[str]:
        """The runs whose lists the drill-down shows: those the user chose, else all of them up to
        :data:`drilldown_model.MAX_LISTS`, else the best on the selected query by the measure in focus
        and the baseline."""
        results = self.state.results
        if results is None:
            return []
        runs = [r for r in results.runs if r in results.request.runs]
        if len(runs) <= drilldown_model.MAX_LISTS:
            default = set(runs)
        else:
            scores = {}
            wide = results.per_query.get(self.state.focus_measure or "")
            if wide is not None and self.state.selected_query in wide.index:
                # (the index holds each query once: a row; pandas-stubs allow for several, a frame)
                row = cast("pd.Series", wide.loc[self.state.selected_query])
                scores = {r: float(v) for r, v in row.items()}
            default = set(drilldown_model.best_runs(runs, scores, self.state.workspace.baseline_label()))
        return [r for r in runs if self.state.drilldown_choices.get(r, r in default)]

    def choose_drilldown_run(self, run: str, shown: bool) -> bool:
        """Show or hide one run's list in the drill-down; whether it must be computed again (a run shown
        that the drill-down does not have)."""
        self.state.drilldown_choices[run] = bool(shown)
        return bool(shown) and (self.state.drilldown is None or run not in self.state.drilldown.runs)

    def show_only_drilldown_runs(self, runs) -> bool:
        """Show the lists of ``runs`` in the drill-down and hide the others' (two runs compared, side by
        side); whether it must be computed again (a run shown that the drill-down does not have)."""
        results = self.state.results
        wanted = set(runs)
        again = False
        for run in results.runs if results is not None else []:
            again = self.choose_drilldown_run(run, run in wanted) or again
        return again

    def drilldown_request(self) -> drilldown_model.Request | None:
        """The drill-down of the selected query; None (and the drill-down dropped) without one.  Only the
        runs it shows are ranked (:meth:`drilldown_runs`; runs scored from disk are read for it)."""
        results = self.state.results
        query = self.state.selected_query
        if results is None or query is None:
            self.apply_drilldown(None)
            return None
        baseline = self.state.workspace.baseline_label()
        lists = self.drilldown_runs()
        wanted = set(lists) | ({baseline} if baseline in results.request.runs else set())
        qrels = results.request.qrels
        assert not isinstance(qrels, tuple)  # (the request of Results holds its qrels merged)
        return drilldown_model.Request(
            qrels=qrels,
            runs={label: run for label, run in results.request.runs.items() if label in wanted},
            query_id=query,
            depth=self.state.drilldown_depth,
            baseline=baseline if baseline in results.runs else None,
            settings=results.request.settings,
            documents=self.state.workspace.documents(),
            query_text=self.state.workspace.queries().get(str(query), ""),
            lists=tuple(lists),
        )

    def apply_drilldown(self, drill) -> None:
        if drill is None and self.state.drilldown is None:
            return
        self.state.drilldown = drill
        self.state.events.drilldown_changed.emit(drill)

    # ------------------------------------------------------------------
    # inspection of one file
    def inspect(self, path: str | None) -> None:
        self.state.inspected_path = normalize(path) if path else None

    def inspection_job(self) -> InspectionJob | None:
        """What to compute to inspect :attr:`inspected_path`; None when nothing is to be done now (no file:
        the inspection is dropped; a file still loading or already inspected as it is: nothing)."""
        e = self.state.workspace.entry(self.state.inspected_path) if self.state.inspected_path else None
        if e is None:
            self.state.inspection_key = None
            if self.state.inspection is not None:
                self.state.inspection = None
                self.state.events.inspection_changed.emit(None)
            return None
        if e.status == "loading":
            return None  # asked again when the file is read
        q = self.state.workspace.qrels_entry()
        against = q if q is not None and q is not e and e.kind in ("run", "ranked", None) else None
        qrels = against.qrels if against is not None else None
        key = (
            e.path,
            e.version,
            e.status,
            e.kind,
            None if against is None or qrels is None else (against.path, against.version),
            self.state.settings.relevance_level,
        )
        if key == self.state.inspection_key:
            return None
        self.state.inspection_key = key
        return InspectionJob(key, f"Inspecting {e.name}", inspection_work(e, qrels, self.state.settings))

    def apply_inspection(self, inspection: dict) -> None:
        self.state.inspection = inspection
        self.state.events.inspection_changed.emit(inspection)

    def inspection_cancelled(self) -> None:
        """The inspection under way stopped: the next request computes it again."""
        self.state.inspection_key = None

    def inspection_failed(self, path: str, exc: BaseException) -> None:
        self.state.inspection_key = None
        e = self.state.workspace.entry(path)
        name = e.name if e is not None else os.path.basename(path)
        self.state.events.error.emit(f"Inspecting {name} failed: {exc}")
