"""The window's state and its rules, in plain Python (no Qt), as napari keeps its ``ViewerModel``.

:class:`SessionModel` holds what is loaded, chosen and computed, decides what every change means
(labels, baseline, the query and measure in focus, which evaluation, comparison, drill-down and
inspection are wanted) and announces it through :class:`~workbench.state.session_state.Event`
callbacks.  It starts no thread and no timer: :class:`workbench.qt.session.Session`, the thin Qt
adapter, turns each event into a Qt signal, runs the jobs the model describes
(:meth:`SessionModel.evaluation_request` and friends) and hands their outcomes back
(:meth:`SessionModel.apply_results` ...).  Tested without a QApplication
(``tests/test_workbench/state/test_session_model.py``).

Events (arguments in brackets)
------------------------------
files_changed, baseline_changed [label or None], measures_changed, results_changed [Results or None],
query_changed [query id or None], focus_measure_changed [name], error [message],
message [message], file_loaded [path], compare_settings_changed, comparison_changed [Comparison or
None], drilldown_changed [QueryDrilldown or None], inspection_changed [dict or None],
explanation_changed [workbench.state.explaining.Explained or None], and evaluation_wanted
(something an evaluation depends on changed: evaluate again soon).
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Generic, TypeVar, overload

from metrics.engine.settings import Settings
from workbench.scoring import evaluation as analysis
from workbench.scoring import intents as diversity
from workbench.scoring.defaults import DEFAULT_MEASURES
from workbench.state import currency as state
from workbench.state import drilldown as drilldown_model
from workbench.state import significance as significance_model
from workbench.state.explaining import ExplainRules
from workbench.state.files import FileRules, Start
from workbench.state.followups import FollowUpRules
from workbench.state.listing import Listing, look_at
from workbench.state.messages import MessageLog
from workbench.state.session_state import SessionEvents, SessionState, UserTurn, user_action
from workbench.state.undo import UndoStack
from workbench.state.workspace import FileEntry, Workspace, normalize

#: the files of a workspace that are not found told one by one; more are counted in one message
MISSING_TOLD = 5

if TYPE_CHECKING:
    from workbench.state.workspace_file import WorkspaceDoc

T = TypeVar("T")


class OfState(Generic[T]):
    """An attribute of the model's :class:`~workbench.state.session_state.SessionState`, read and set
    through the model: ``model.workspace`` is ``model.state.workspace``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> OfState[T]: ...
    @overload
    def __get__(self, obj: SessionModel, owner: type | None = None) -> T: ...
    def __get__(self, obj: SessionModel | None, owner: type | None = None) -> T | OfState[T]:
        return self if obj is None else getattr(obj.state, self._name)

    def __set__(self, obj: SessionModel, value: T) -> None:
        setattr(obj.state, self._name, value)


class SessionModel:
    """What the window has loaded, chosen and computed, and the rules of every change (no Qt).

    The state is one :class:`workbench.state.session_state.SessionState` (:attr:`state`; its attributes
    are read through the model too: ``model.workspace``, ``model.results``...).  The rules come in parts
    made with that state: :attr:`files` (:class:`workbench.state.files.FileRules`: opening, reading,
    removing, labels, baseline), :attr:`followups` (:class:`workbench.state.followups.FollowUpRules`:
    the comparison, drill-down and inspection) and :attr:`explainer`
    (:class:`workbench.state.explaining.ExplainRules`); here are the workspace documents, the measures
    and options, and the evaluation."""

    events = OfState[SessionEvents]()
    turn = OfState[UserTurn]()
    messages = OfState[MessageLog]()
    workspace = OfState[Workspace]()
    measures = OfState[tuple[str, ...]]()
    settings = OfState[Settings]()
    results = OfState[analysis.Results | None]()
    run_cache = OfState[analysis.RunCache]()
    selected_query = OfState[str | None]()
    focus_measure = OfState[str | None]()
    is_sample = OfState[bool]()
    undo_stack = OfState[UndoStack]()
    chosen_kinds = OfState[dict[str, str]]()
    diversity_offered = OfState[bool]()
    folders = OfState[dict[str, dict]]()
    pending_query = OfState[str | None]()
    compare_settings = OfState[significance_model.Settings]()
    comparison = OfState[significance_model.Comparison | None]()
    drilldown = OfState[drilldown_model.QueryDrilldown | None]()
    drilldown_depth = OfState[int]()
    inspected_path = OfState[str | None]()
    inspection = OfState[dict | None]()
    inspection_key = OfState[tuple | None]()
    drilldown_choices = OfState[dict[str, bool]]()

    def __init__(self) -> None:
        self.state = SessionState()
        self.files = FileRules(self.state, intents_arrived=lambda: diversity.offer_defaults(self))
        self.followups = FollowUpRules(self.state)
        self.explainer = ExplainRules(self.state)

    # ------------------------------------------------------------------
    # workspace documents
    def snapshot(self):
        """What the session holds, as a :class:`~workbench.state.workspace_file.WorkspaceDoc` (not the layout)."""
        from workbench.state.workspace_file import FileItem, WorkspaceDoc

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
            settings=self.settings,
            significance=dataclasses.asdict(self.compare_settings),
            selected_query=self.selected_query,
            focus_measure=self.focus_measure,
        )

    def open_workspace(self, doc: WorkspaceDoc, *, start: Start | None = None) -> None:
        """:meth:`open_workspace_listed` with the files the document names looked at here, on the caller's
        thread (the Qt session looks at them in a worker instead: the window's thread makes no file
        system call)."""
        self.open_workspace_listed(doc, look_at(f.path for f in doc.files), start=start)

    def open_workspace_listed(self, doc: WorkspaceDoc, found: Listing, *, start: Start | None = None) -> None:
        """Take everything a workspace document holds (after :meth:`clear`), its files as ``found`` lists
        them (:func:`~workbench.state.listing.look_at`); ``start(entry)`` reads each file that is there.
        Runs are held in memory by the sizes found, as when files are opened
        (:meth:`~workbench.state.files.FileRules.hold`).  Files it names that are not there are listed as
        errors in their place, so the user sees what is missing (Locate… finds them)."""
        self.measures = tuple(doc.measures) or DEFAULT_MEASURES
        self.settings = doc.settings
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
        begun: list[FileEntry] = []
        missing: list[FileEntry] = []
        for f in doc.files:
            path = normalize(f.path)
            chosen = f.kind if f.kind_chosen or f.kind == "held" else None  # (a qrels held beside stays held)
            if path not in found.absent:
                begun.append(self.workspace.begin_load(path, chosen, f.label))
                continue
            e = FileEntry(
                path=path,
                status="error",
                error=f"{os.path.basename(path)}: not found (named in the workspace as {f.path}); "
                "Locate… in its menu finds it",
                wanted_label=f.label,
                forced_kind=chosen,
            )
            e.missing = True
            self.workspace.entries.append(e)
            missing.append(e)
        # each missing file says so in its row; the messages name a few and count the rest (10,000 files
        # gone gave 10,000 messages)
        for e in missing[:MISSING_TOLD]:
            self.events.error.emit(e.error)
        if len(missing) > MISSING_TOLD:
            self.events.error.emit(
                f"{len(missing) - MISSING_TOLD} more files named in the workspace are not found "
                f"({len(missing)} in all; each is listed in Files, where Locate… finds it)"
            )
        self.files.hold(begun, found.sizes)
        if start is not None:
            for e in begun:
                start(e)
        if doc.baseline:
            self.workspace.baseline_path = normalize(doc.baseline)
        self.events.measures_changed.emit()
        self.events.compare_settings_changed.emit()
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())
        self.events.evaluation_wanted.emit()

    # ------------------------------------------------------------------
    # measures, options and selection
    @user_action
    def set_measures(self, measures) -> None:
        measures = tuple(m.strip() for m in measures if m and m.strip())
        if measures != self.measures:
            old = self.measures
            self.undo_stack.push("measure change", lambda: self._back("measures", self.set_measures, old))
            self.measures = measures
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    @user_action
    def set_relevance_level(self, level: int) -> None:
        if int(level) != self.settings.relevance_level:
            old = self.settings.relevance_level
            self.undo_stack.push(
                f"relevance level {level}", lambda: self._back("relevance level", self.set_relevance_level, old)
            )
            self.settings = self.settings.replace(relevance_level=int(level))
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    @user_action
    def use_settings(self, settings: Settings) -> None:
        """Score with ``settings`` as a whole (a worked example's own), one step for Undo."""
        if settings != self.settings:
            old = self.settings
            self.undo_stack.push("settings", lambda: self._back("settings", self.use_settings, old))
            self.settings = settings
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    @user_action
    def set_k_max(self, k: int) -> None:
        if int(k) != self.settings.k_max:
            old = self.settings.k_max
            self.undo_stack.push(f"k up to {k}", lambda: self._back("largest k", self.set_k_max, old))
            self.settings = self.settings.replace(k_max=int(k))
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    @user_action
    def set_ndcg_option(self, name: str, value) -> None:
        """Set one option of the nDCG variant (``gain``, ``discount``, ``base``, ``ideal``; None: trec_eval's)."""
        changed = self.settings.with_ndcg({name: value})
        if changed != self.settings:
            old = getattr(self.settings, name)
            self.undo_stack.push(f"nDCG {name}", lambda: self._back(f"nDCG {name}", self._ndcg_back(name), old))
            self.settings = changed
            self.events.measures_changed.emit()
            self.events.evaluation_wanted.emit()

    def _ndcg_back(self, name: str):
        return lambda value: self.set_ndcg_option(name, value)

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
        """What an evaluation of the current files and options is computed from (:mod:`workbench.state.currency`)."""
        return state.evaluation_key(self.workspace, self.measures, self.settings)

    def evaluation_state(self, evaluating: bool) -> str:
        """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
        return state.evaluation_state(self.results, self.evaluation_key(), evaluating)

    def comparison_current(self) -> bool:
        """Whether :attr:`comparison` belongs to the results, baseline and settings shown now."""
        return state.comparison_current(
            self.comparison, self.results, self.workspace.baseline_label(), self.compare_settings
        )

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
        runs, qrels = state.identities(self.workspace)
        return analysis.Request(
            qrels=tuple(self.workspace.qrels_parts()),  # merged in the worker
            runs={label: run for label, run in self.workspace.runs().items() if label not in gone},
            measures=self.measures,
            settings=self.settings,
            qrels_name=self.workspace.qrels_name() or getattr(self.workspace.intents_entry(), "path", None),
            key=key,
            cache=self.run_cache,
            identities=runs,
            qrels_identity=qrels,
            intents_identity=state.intents_identity(self.workspace),
            intents=diversity.intents_frame(self.workspace),
            intents_name=getattr(self.workspace.intents_entry(), "path", None)
            if diversity.split(self.measures)[1]
            else None,
        )

    def prescore_request(self) -> analysis.Request | None:
        """While files are still being read: the runs on disk already opened, to be scored ahead by the
        scoring service (their results are not shown; the evaluation once every file is read submits the
        same keys and finds them scored or under way).  None when there is nothing to score ahead (no qrels
        yet, no run on disk)."""
        if self.workspace.qrels_entry() is None:
            return None
        from workbench.scoring.run_on_disk import RunOnDisk

        on_disk = {label: run for label, run in self.workspace.runs().items() if isinstance(run, RunOnDisk)}
        if not on_disk:
            return None
        return analysis.Request(
            qrels=tuple(self.workspace.qrels_parts()),
            runs=on_disk,
            measures=self.measures,
            settings=self.settings,
            cache=self.run_cache,
            qrels_identity=state.identities(self.workspace)[1],
        )

    def use_scoring(self, service) -> None:
        """Score with ``service`` (:class:`workbench.scoring.service.ScoringService`) from now on: the one made
        before the window (:func:`workbench.scoring.service.start`); the scores kept so far are let go."""
        old, self.run_cache = self.run_cache, analysis.RunCache(service)
        old.close()

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
        elif not results.runs:  # no run scored: each that failed said why, the stale bar says which are left out
            self.events.message.emit("")  # (until they are read again), and nothing mismatches
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
