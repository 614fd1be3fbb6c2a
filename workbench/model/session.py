"""The window's state and its rules, in plain Python (no Qt), as napari keeps its ``ViewerModel``.

:class:`SessionModel` holds what is loaded, chosen and computed, decides what every change means
(labels, baseline, the query and measure in focus, which evaluation, comparison, drill-down and
inspection are wanted) and announces it through :class:`Event` callbacks.  It starts no thread and
no timer: :class:`workbench.session.Session`, the thin Qt adapter, turns each event into a Qt
signal, runs the jobs the model describes (:meth:`SessionModel.evaluation_request` and friends) and
hands their outcomes back (:meth:`SessionModel.apply_results` ...).  Tested without a QApplication
(``tests/test_session_model.py``).

Events (arguments in brackets)
------------------------------
files_changed, baseline_changed [label or None], measures_changed, results_changed [Results or None],
query_changed [query id or None], focus_measure_changed [name], error [message],
message [message], file_loaded [path], compare_settings_changed, comparison_changed [Comparison or
None], drilldown_changed [QueryDrilldown or None], inspection_changed [dict or None],
explanation_changed [workbench.model.explaining.Explained or None], and evaluation_wanted
(something an evaluation depends on changed: evaluate again soon).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable

from workbench.model import analysis, diversity, state
from workbench.model import drilldown as drilldown_model
from workbench.model import significance as significance_model
from workbench.model.defaults import DEFAULT_MEASURES, K_MAX, RELEVANCE_LEVEL
from workbench.model.explaining import ExplainRules
from workbench.model.files import FileRules
from workbench.model.loading import inspection_work
from workbench.model.undo import UndoStack
from workbench.model.workspace import FileEntry, Workspace, normalize


class Event:
    """Callbacks called in order with the event's arguments (a plain-Python signal)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args) -> None:
        for callback in list(self._callbacks):
            callback(*args)


class SessionEvents:
    """The events of a :class:`SessionModel` (see the module docstring)."""

    def __init__(self) -> None:
        self.files_changed = Event()
        self.baseline_changed = Event()
        self.measures_changed = Event()
        self.results_changed = Event()
        self.query_changed = Event()
        self.focus_measure_changed = Event()
        self.error = Event()
        self.message = Event()
        self.file_loaded = Event()
        self.compare_settings_changed = Event()
        self.comparison_changed = Event()
        self.drilldown_changed = Event()
        self.inspection_changed = Event()
        self.explanation_changed = Event()
        self.evaluation_wanted = Event()


@dataclasses.dataclass(frozen=True)
class InspectionJob:
    """What to compute for the Inspect view: ``work(progress)`` in a worker, then :meth:`apply_inspection`."""

    key: tuple
    what: str
    work: Callable[[Any], dict]


class SessionModel(FileRules, ExplainRules):
    """What the window has loaded, chosen and computed, and the rules of every change (no Qt).

    The rules of the list of files (opening, reading, removing, labels, baseline) are in
    :class:`workbench.model.files.FileRules`."""

    def __init__(self) -> None:
        self.events = SessionEvents()
        self.workspace = Workspace()
        self.measures: tuple[str, ...] = DEFAULT_MEASURES
        self.relevance_level = RELEVANCE_LEVEL
        self.k_max = K_MAX
        self.ndcg_options: dict[str, object] = {}
        self.results: analysis.Results | None = None
        self.run_cache = analysis.RunCache()  # runs scored, kept for the next evaluation
        self.selected_query: str | None = None
        self.focus_measure: str | None = None
        self.is_sample = False
        self.undo_stack = UndoStack()  # removals, qrels replaced, measures and options, renames
        self.chosen_kinds: dict[str, str] = {}  # path -> kind the user chose for it
        self.diversity_offered = False  # the diversity measures were added once intent qrels came (diversity.py)
        self.folders: dict[str, dict] = {}  # folder being opened -> files read and left out
        self.pending_query: str | None = None  # query to select once evaluated (from a workspace)
        self.compare_settings = significance_model.Settings()
        self.comparison: significance_model.Comparison | None = None
        self.drilldown = None
        self.drilldown_depth = drilldown_model.DEFAULT_DEPTH
        self.drilldown_choices: dict[str, bool] = {}  # run -> shown in the drill-down, as the user chose
        self.inspected_path: str | None = None
        self.inspection: dict | None = None
        self.inspection_key: tuple | None = None

    # ------------------------------------------------------------------
    # workspace documents
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

    def open_workspace(self, doc, *, start=None) -> None:
        """Take everything a workspace document holds (after :meth:`clear`); ``start(entry)`` reads each of its
        files.  Files it names that are missing are listed as errors, so the user sees what is missing."""
        self.measures = tuple(doc.measures) or DEFAULT_MEASURES
        self.relevance_level, self.k_max = doc.relevance_level, doc.k_max
        self.ndcg_options = dict(doc.ndcg_options)
        try:
            settings = dataclasses.replace(
                significance_model.Settings(),
                **{k: v for k, v in doc.significance.items() if k in significance_model.Settings.__dataclass_fields__},
            )
        except (TypeError, ValueError) as exc:
            self.events.error.emit(f"Workspace significance settings ignored: {exc}")
            settings = significance_model.Settings()
        self.compare_settings = settings
        self.focus_measure = doc.focus_measure
        self.pending_query = doc.selected_query
        self.diversity_offered = True  # (the workspace's measures stand, with or without diversity measures)
        for f in doc.files:
            e = self.workspace.begin_load(f.path, f.kind if f.kind_chosen else None, f.label)
            if start is not None:
                start(e)
        if doc.baseline:
            self.workspace.baseline_path = normalize(doc.baseline)
        items = {x.path: x for x in getattr(doc, "missing_items", [])}
        for path in doc.missing:
            item = items.get(path)
            e = FileEntry(
                path=normalize(path),
                status="error",
                error=f"{os.path.basename(path)}: not found (named in the workspace as {path}); "
                "Locate… in its menu finds it",
                wanted_label=item.label if item is not None else None,
                forced_kind=item.kind if item is not None and item.kind_chosen else None,
            )
            e.missing = True
            self.workspace.entries.append(e)
            self.events.error.emit(e.error)
        order = {normalize(p): i for i, p in enumerate(getattr(doc, "order", []))}
        if order:  # a missing file keeps its place among the others (and so does the one that replaces it)
            self.workspace.entries.sort(key=lambda x: order.get(x.path, len(order)))
        self.events.measures_changed.emit()
        self.events.compare_settings_changed.emit()
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())
        self.events.evaluation_wanted.emit()

    # ------------------------------------------------------------------
    # measures, options and selection
    def set_measures(self, measures) -> None:
        measures = tuple(m.strip() for m in measures if m and m.strip())
        if measures != self.measures:
            old = self.measures
            self.undo_stack.push("measure change", lambda: self._back("measures", self.set_measures, old))
            self.measures = measures
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    def set_relevance_level(self, level: int) -> None:
        if int(level) != self.relevance_level:
            old = self.relevance_level
            self.undo_stack.push(
                f"relevance level {level}", lambda: self._back("relevance level", self.set_relevance_level, old)
            )
            self.relevance_level = int(level)
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    def set_k_max(self, k: int) -> None:
        if int(k) != self.k_max:
            old = self.k_max
            self.undo_stack.push(f"k up to {k}", lambda: self._back("largest k", self.set_k_max, old))
            self.k_max = int(k)
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    def set_ndcg_option(self, name: str, value) -> None:
        if self.ndcg_options.get(name) != value:
            old = self.ndcg_options.get(name)
            self.undo_stack.push(f"nDCG {name}", lambda: self._back(f"nDCG {name}", self._ndcg_back(name), old))
            self.ndcg_options[name] = value
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    def _ndcg_back(self, name: str):
        def back(value) -> None:
            if value is None:
                if self.ndcg_options.pop(name, None) is not None:
                    self.events.measures_changed.emit()
                    self.events.evaluation_wanted.emit()
            else:
                self.set_ndcg_option(name, value)

        return back

    @staticmethod
    def _back(what: str, setter, old) -> str:
        setter(old)
        return f"{what[0].upper()}{what[1:]} back as it was"

    def select_query(self, query_id) -> None:
        query_id = None if query_id in (None, "", analysis.MEAN) else str(query_id)
        if query_id != self.selected_query:
            self.selected_query = query_id
            self.events.query_changed.emit(query_id)

    def set_focus_measure(self, name: str) -> None:
        if name and name != self.focus_measure:
            self.focus_measure = name
            self.events.focus_measure_changed.emit(name)

    def set_compare_settings(self, **changes) -> bool:
        """Change the test, alpha or correction (keyword arguments of :class:`significance_model.Settings`);
        whether they changed."""
        settings = dataclasses.replace(self.compare_settings, **changes)
        if settings == self.compare_settings:
            return False
        self.compare_settings = settings
        self.events.compare_settings_changed.emit()
        return True

    def set_drilldown_depth(self, depth: int) -> bool:
        if int(depth) == self.drilldown_depth:
            return False
        self.drilldown_depth = int(depth)
        return True

    # ------------------------------------------------------------------
    # evaluation
    def evaluation_key(self) -> tuple | None:
        """What an evaluation of the current files and options is computed from (see :mod:`workbench.model.state`)."""
        return state.evaluation_key(self.workspace, self.measures, self.relevance_level, self.k_max, self.ndcg_options)

    def evaluation_state(self, evaluating: bool) -> str:
        """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
        return state.evaluation_state(self.results, self.evaluation_key(), evaluating)

    def comparison_current(self) -> bool:
        """Whether :attr:`comparison` belongs to the results, baseline and settings shown now."""
        return state.comparison_current(self.comparison, self.results, self.baseline_label(), self.compare_settings)

    def stale_reasons(self, evaluating: bool) -> list[str]:
        """Why what is shown does not match what is loaded (empty: it matches)."""
        return state.stale_reasons(
            self.evaluation_state(evaluating),
            self.results,
            self.comparison,
            self.comparison_current(),
            self.workspace.changed_on_disk(),
            self.workspace.deleted_from_disk(),
            self.workspace.unscorable(),
        )

    def evaluation_request(self) -> analysis.Request | None:
        """The evaluation of the current files and options; None (and the results dropped) when there is nothing
        to evaluate."""
        key = self.evaluation_key()
        if key is None:
            if self.results is not None:
                self.results = None
                self.events.results_changed.emit(None)
            if not self.workspace.loading():
                self.events.message.emit(diversity.missing(self.workspace, self.measures))
            return None
        # a run scored from its file that changed (or went) since it was opened cannot be scored as it was
        # read: left out until it is read again, as the stale bar says (rather than marked as failed)
        gone = {e.label for e in self.workspace.unscorable()}
        return analysis.Request(
            qrels=tuple(self.workspace.qrels_parts()),  # merged in the worker
            runs={label: run for label, run in self.workspace.runs().items() if label not in gone},
            measures=self.measures,
            relevance_level=self.relevance_level,
            k_max=self.k_max,
            ndcg_options=tuple(sorted(self.ndcg_options.items())),
            qrels_name=self.workspace.qrels_name() or getattr(self.workspace.intents_entry(), "path", None),
            key=key,
            cache=self.run_cache,
            intents=diversity.intents_frame(self.workspace),
        )

    def prescore_request(self) -> analysis.Request | None:
        """While files are still being read: the runs on disk already opened, to be scored ahead into the
        run cache (their results are not shown; the evaluation once every file is read finds them
        scored).  None when there is nothing to score ahead (no qrels yet, no run on disk)."""
        if self.workspace.qrels_entry() is None:
            return None
        from workbench.model.run_on_disk import RunOnDisk

        on_disk = {label: run for label, run in self.workspace.runs().items() if isinstance(run, RunOnDisk)}
        if not on_disk:
            return None
        return analysis.Request(
            qrels=tuple(self.workspace.qrels_parts()),
            runs=on_disk,
            measures=self.measures,
            relevance_level=self.relevance_level,
            k_max=self.k_max,
            ndcg_options=tuple(sorted(self.ndcg_options.items())),
            cache=self.run_cache,
        )

    def apply_results(self, results: analysis.Results) -> None:
        """Show new results: the query and measure in focus follow, and the user hears what was evaluated.

        A run scored from disk whose file could not be read is then marked as failed, as a file that
        failed to load, and left out of the next evaluation."""
        self.results = results
        for label, message in results.failed.items():
            e = self.workspace.entry_by_label(label)
            if e is not None and results.request.runs.get(label) is e.run:
                e.status, e.error, e.run = "error", message, None
                self.events.error.emit(message)
        if results.failed:
            self.events.files_changed.emit()
            self.events.baseline_changed.emit(self.workspace.baseline_label())
            self.events.evaluation_wanted.emit()
        if self.pending_query is not None and self.pending_query in set(results.query_ids):
            self.selected_query, self.pending_query = self.pending_query, None
            self.events.query_changed.emit(self.selected_query)
        if self.focus_measure not in results.measures and results.measures:
            self.focus_measure = results.measures[0]
            self.events.focus_measure_changed.emit(self.focus_measure)
        if self.selected_query is not None and self.selected_query not in set(results.query_ids):
            self.selected_query = None
            self.events.query_changed.emit(None)
        self.events.results_changed.emit(results)
        if results.query_ids:
            for problem in results.problems:
                self.events.error.emit(problem)
        elif not results.runs and results.failed:  # no run could be read: each said why
            self.events.message.emit("")
            return
        else:
            self.events.error.emit(
                "No query of the qrels has results in the runs: the runs and the qrels do not match "
                "(is the right qrels file loaded?)"
            )
            self.events.message.emit("")
            return
        note = ""
        warnings = getattr(results.evaluation, "warnings", None) or []
        if warnings:  # e.g. qrels queries without results, skipped as trec_eval skips them
            note = " — " + "; ".join(warnings[:2]) + (f" (+{len(warnings) - 2} more)" if len(warnings) > 2 else "")
        qrels = results.request.qrels_name
        against = f" against {os.path.basename(qrels)}" if qrels else ""
        self.events.message.emit(
            f"Evaluated {len(results.runs)} run(s) on {len(results.query_ids)} queries{against}, "
            f"{len(results.measures)} measure(s){note}"
        )

    # ------------------------------------------------------------------
    # comparison with the baseline, and the drill-down of the selected query
    def comparison_request(self) -> significance_model.Request | None:
        """The comparison of the results with the baseline; None (and the comparison dropped) when there is
        nothing to compare: no baseline, a single run, or no query judged and retrieved."""
        request = self.comparison_request_for(self.results)
        if request is None:
            self.apply_comparison(None)
        return request

    def comparison_request_for(self, results, baseline: str | None = None) -> significance_model.Request | None:
        """The comparison of ``results`` with the baseline (``baseline``: its label, else the current one),
        with the current settings; None when there is nothing to compare."""
        baseline = self.baseline_label() if baseline is None else baseline
        if (
            results is None
            or baseline not in results.runs
            or len(results.runs) < 2
            or results.evaluation.per_query.empty
        ):
            return None
        pair_runs = None
        if self.compare_settings.mode == "pairs" and len(results.runs) > significance_model.MAX_PAIR_RUNS:
            # every pair of a thousand runs is half a million tests: the best runs by the measure in focus
            pair_runs = tuple(
                drilldown_model.best_by(
                    results.runs, results, self.focus_measure, baseline, significance_model.MAX_PAIR_RUNS
                )
            )
        return significance_model.Request(
            per_query=results.evaluation.per_query,
            runs=tuple(results.runs),
            baseline=baseline,
            settings=self.compare_settings,
            pair_runs=pair_runs,
        )

    def apply_comparison(self, comparison) -> None:
        if comparison is None and self.comparison is None:
            return
        self.comparison = comparison
        self.events.comparison_changed.emit(comparison)

    def complete_comparison(self, comparison) -> None:
        """``comparison`` with its bootstrap intervals: it replaces the quick one of the same request shown
        (:func:`workbench.model.significance.compute`) without an event, since nothing the views show
        changes (the intervals are in exports and reports); anything else is applied as a new comparison."""
        shown = self.comparison
        if (
            shown is not None
            and not shown.intervals
            and comparison is not None
            and comparison.request.same_as(shown.request)
        ):
            self.comparison = comparison
            return
        self.apply_comparison(comparison)

    def comparison_outdated_by(self, baseline) -> tuple[bool, bool]:
        """Whether the comparison and the drill-down are of another baseline than ``baseline``."""
        return (
            self.comparison is None or self.comparison.baseline != baseline,
            self.drilldown is None or self.drilldown.baseline != baseline,
        )

    def drilldown_runs(self) -> list[str]:
        """The runs whose lists the drill-down shows: those the user chose, else all of them up to
        :data:`drilldown_model.MAX_LISTS`, else the best on the selected query by the measure in focus
        and the baseline."""
        results = self.results
        if results is None:
            return []
        runs = [r for r in results.runs if r in results.request.runs]
        if len(runs) <= drilldown_model.MAX_LISTS:
            default = set(runs)
        else:
            scores = {}
            wide = results.per_query.get(self.focus_measure or "")
            if wide is not None and self.selected_query in wide.index:
                scores = {r: float(v) for r, v in wide.loc[self.selected_query].items()}
            default = set(drilldown_model.best_runs(runs, scores, self.baseline_label()))
        return [r for r in runs if self.drilldown_choices.get(r, r in default)]

    def choose_drilldown_run(self, run: str, shown: bool) -> bool:
        """Show or hide one run's list in the drill-down; whether it must be computed again (a run shown
        that the drill-down does not have)."""
        self.drilldown_choices[run] = bool(shown)
        return bool(shown) and (self.drilldown is None or run not in self.drilldown.runs)

    def drilldown_request(self) -> drilldown_model.Request | None:
        """The drill-down of the selected query; None (and the drill-down dropped) without one.  Only the
        runs it shows are ranked (:meth:`drilldown_runs`; runs scored from disk are read for it)."""
        results = self.results
        query = self.selected_query
        if results is None or query is None:
            self.apply_drilldown(None)
            return None
        baseline = self.baseline_label()
        wanted = set(self.drilldown_runs()) | ({baseline} if baseline in results.request.runs else set())
        return drilldown_model.Request(
            qrels=results.request.qrels,
            runs={label: run for label, run in results.request.runs.items() if label in wanted},
            query_id=query,
            depth=self.drilldown_depth,
            baseline=baseline if baseline in results.runs else None,
            relevance_level=results.request.relevance_level,
        )

    def apply_drilldown(self, drill) -> None:
        if drill is None and self.drilldown is None:
            return
        self.drilldown = drill
        self.events.drilldown_changed.emit(drill)

    # ------------------------------------------------------------------
    # inspection of one file
    def inspect(self, path: str | None) -> None:
        self.inspected_path = normalize(path) if path else None

    def inspection_job(self) -> InspectionJob | None:
        """What to compute to inspect :attr:`inspected_path`; None when nothing is to be done now (no file:
        the inspection is dropped; a file still loading or already inspected as it is: nothing)."""
        e = self.workspace.entry(self.inspected_path) if self.inspected_path else None
        if e is None:
            self.inspection_key = None
            if self.inspection is not None:
                self.inspection = None
                self.events.inspection_changed.emit(None)
            return None
        if e.status == "loading":
            return None  # asked again when the file is read
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
        if key == self.inspection_key:
            return None
        self.inspection_key = key
        return InspectionJob(key, f"Inspecting {e.name}", inspection_work(e, qrels, self.relevance_level))

    def apply_inspection(self, inspection: dict) -> None:
        self.inspection = inspection
        self.events.inspection_changed.emit(inspection)

    def inspection_failed(self, path: str, exc: BaseException) -> None:
        self.inspection_key = None
        e = self.workspace.entry(path)
        name = e.name if e is not None else os.path.basename(path)
        self.events.error.emit(f"Inspecting {name} failed: {exc}")
