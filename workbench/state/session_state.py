"""The state of the window's session (plain Python, no Qt): what is loaded, chosen and computed, and the
events that announce its changes.

:class:`SessionState` is the ground the rules stand on: :class:`workbench.state.session.SessionModel`
makes one and hands it to each of its parts, :class:`workbench.state.files.FileRules` (the list of
files), :class:`workbench.state.followups.FollowUpRules` (what follows the scores: the comparison, the
drill-down, the inspection) and :class:`workbench.state.explaining.ExplainRules`, which read and change
it.  :class:`UserTurn` and :func:`user_action` are the rule of what ends with the user's next action
(Cancel's stop, the notices in view).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from metrics.engine.settings import Settings
from workbench.scoring import evaluation as analysis
from workbench.scoring.defaults import DEFAULT_MEASURES, SETTINGS
from workbench.state import drilldown as drilldown_model
from workbench.state import significance as significance_model
from workbench.state.messages import MessageLog
from workbench.state.undo import UndoStack
from workbench.state.workspace import Workspace


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
    """The events of a session (listed in :mod:`workbench.state.session`)."""

    def __init__(self) -> None:
        self.files_changed = Event()
        self.baseline_changed = Event()
        self.measures_changed = Event()
        self.results_changed = Event()
        self.query_changed = Event()
        self.focus_measure_changed = Event()
        self.error = Event()
        self.message = Event()
        #: a status line that must stay until the user's next action (a qrels file replaced, a file opened
        #: twice, a folder's tally); it is told as a ``message`` too
        self.notice = Event()
        self.file_loaded = Event()
        self.compare_settings_changed = Event()
        self.comparison_changed = Event()
        self.drilldown_changed = Event()
        self.inspection_changed = Event()
        self.explanation_changed = Event()
        self.evaluation_wanted = Event()


class UserTurn:
    """What ends with the user's next action: after Cancel no work starts by itself (an inspection put off
    for the scores, a file changed on disk read again, runs scored ahead) until the user asks for
    something (:attr:`stopped`), and a notice stays in view until then (:attr:`acted` is emitted, with no
    arguments, each time the user acts).

    The methods of the session's parts that a user calls (a file opened, a measure ticked, a run renamed)
    are marked :func:`user_action`, the one place that rule is applied; what starts by itself (an evaluation
    the model asks for, the inspection once the window is idle) is not marked."""

    def __init__(self) -> None:
        self.stopped = False
        self.acted = Event()

    def cancel(self) -> None:
        """Cancel was pressed: nothing starts by itself until the user's next action."""
        self.stopped = True

    def act(self) -> None:
        """The user asked for something: the stop ends, and what was told before is no longer news."""
        self.stopped = False
        self.acted.emit()


class Acting(Protocol):
    """A part of the session with user actions: it knows the session's :class:`UserTurn`."""

    @property
    def turn(self) -> UserTurn: ...


P = ParamSpec("P")
R = TypeVar("R")
A = TypeVar("A", bound=Acting)


def user_action(method: Callable[Concatenate[A, P], R]) -> Callable[Concatenate[A, P], R]:
    """Mark ``method`` as one the user calls: :meth:`UserTurn.act` before it runs."""

    @functools.wraps(method)
    def acted(self: A, *args: P.args, **kwargs: P.kwargs) -> R:
        self.turn.act()
        return method(self, *args, **kwargs)

    return acted


class SessionState:
    """What the window has loaded, chosen and computed (see :class:`workbench.state.session.SessionModel`)."""

    def __init__(self) -> None:
        self.events = SessionEvents()
        self.turn = UserTurn()  # Cancel's stop, until the user acts again
        self.messages = MessageLog()  # every message told, to be read back (the Qt session fills it)
        self.workspace = Workspace()
        self.measures: tuple[str, ...] = DEFAULT_MEASURES
        self.settings: Settings = SETTINGS  # how the numbers are made: the level, the nDCG variant, k
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
        self.drilldown: drilldown_model.QueryDrilldown | None = None
        self.drilldown_depth = drilldown_model.DEFAULT_DEPTH
        self.drilldown_choices: dict[str, bool] = {}  # run -> shown in the drill-down, as the user chose
        self.inspected_path: str | None = None
        self.inspection: dict | None = None
        self.inspection_key: tuple | None = None

    def tell(self, text: str) -> None:
        """A notice: told in the status bar and kept in view until the user's next action."""
        self.events.notice.emit(text)
        self.events.message.emit(text)
