"""The "why runs differ" views as docks of the window, tabbed with the per-query differences.

Their docks are made with the window, each holding an empty pane; a view is made the first time its dock
comes forward (:class:`~workbench.views.window.late_view.LateView`), which keeps the views (about 70 ms of
the window's thread for the first five, and a fifth of its first layout) out of the window's start.  A
view made late computes its analysis from the session as it is when shown
(:class:`~workbench.views.analysis.follow.AnalysisFollower`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from workbench.views.window.late_view import LateView
from workbench.views.window.layout import tab_hidden

if TYPE_CHECKING:
    from workbench.qt.session import Session

#: (dock name, title, module, class of the view), in the order of their tabs
VIEWS = (
    ("contrast", "Where to look first", "workbench.views.analysis.contrast", "ContrastView"),
    ("overlap", "Overlap", "workbench.views.analysis.overlap", "OverlapView"),
    ("coverage", "Coverage", "workbench.views.analysis.coverage", "CoverageView"),
    ("versus", "A against B", "workbench.views.analysis.versus", "VersusView"),
    ("queries", "Queries", "workbench.views.analysis.queries", "QueriesView"),
    ("agreement", "Measure agreement", "workbench.views.analysis.agreement", "AgreementView"),
    ("qrelsAgreement", "Qrels agreement", "workbench.views.analysis.qrels_agreement", "QrelsAgreementView"),
    ("systems", "Systems by qrels", "workbench.views.analysis.systems", "SystemsView"),
    ("poolBias", "Pool bias", "workbench.views.analysis.pool_bias", "PoolBiasView"),
)


class AnalysisViews(Mapping[str, QWidget]):
    """The analysis views of ``window`` on ``session``, by dock name: each dock is added (with
    ``add_dock``; ``docks`` by name) tabbed with the dock named ``beside``, which stays in front, and its
    view is made when the dock first comes forward, or when the view is asked for (``views[name]``).
    :meth:`built` names the views made so far."""

    def __init__(
        self,
        window: QMainWindow,
        session: Session,
        add_dock: Callable[[str, str, QWidget, Qt.DockWidgetArea], QDockWidget],
        docks: dict[str, QDockWidget],
        beside: str = "diffChart",
    ) -> None:
        self._window, self._session, self._docks = window, session, docks
        self._views: dict[str, QWidget] = {}  # (in the order they were made)
        self._kinds = {name: (module, cls) for name, _, module, cls in VIEWS}
        for name, title, _, _ in VIEWS:
            add_dock(name, title, QWidget(window), Qt.DockWidgetArea.RightDockWidgetArea)
        tab_hidden(window, docks[beside], [docks[name] for name in self._kinds])
        self._late = {
            name: LateView(window, docks[name], partial(self._make, name), partial(_give_room, window, docks[name]))
            for name in self._kinds
        }

    # -- the mapping --------------------------------------------------------------------------
    def __getitem__(self, name: str) -> QWidget:
        if name not in self._kinds:
            raise KeyError(name)
        return self._late[name].view()

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)

    def built(self) -> list[str]:
        """The names of the views made so far."""
        return list(self._views)

    def _make(self, name: str) -> QWidget:
        module, cls = self._kinds[name]
        view: QWidget = getattr(importlib.import_module(module), cls)(self._session, self._window)
        self._views[name] = view
        opened = getattr(view, "sigQueryOpened", None)
        if opened is not None and "drilldown" in self._docks:  # (a query opened from the view: its lists in front)
            opened.connect(lambda _: self._docks["drilldown"].raise_())
        return view  # (its follower computes its analysis once shown)


#: the height an analysis dock is given when it comes forward, as a share of the window's (at most)
ROOM = 0.55


def _give_room(window: QMainWindow, dock: QDockWidget) -> None:
    """An analysis brought forward in a short dock (the window's default layout gives the tabs beside the
    per-query differences a third of its height) is given more of the window's height, taken from the
    docks below it; one the user made taller keeps its height."""
    if dock.isFloating() or dock.visibleRegion().isEmpty():
        return
    wanted = int(window.height() * ROOM)
    if dock.height() < wanted:
        window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)
