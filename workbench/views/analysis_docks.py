"""The "why runs differ" views as docks of the window, tabbed with the per-query differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from workbench.views.agreement_view import AgreementView
from workbench.views.coverage_view import CoverageView
from workbench.views.overlap_view import OverlapView
from workbench.views.queries_view import QueriesView
from workbench.views.versus_view import VersusView

#: (dock name, title, view class), in the order of their tabs
VIEWS = (
    ("overlap", "Overlap", OverlapView),
    ("coverage", "Coverage", CoverageView),
    ("versus", "A against B", VersusView),
    ("queries", "Queries", QueriesView),
    ("agreement", "Measure agreement", AgreementView),
)

if TYPE_CHECKING:
    from workbench.session import Session


def add_analysis_docks(
    window: QMainWindow,
    session: Session,
    add_dock: Callable[[str, str, QWidget, Qt.DockWidgetArea], QDockWidget],
    docks: dict[str, QDockWidget],
    beside: str = "diffChart",
) -> dict[str, QWidget]:
    """Make the views on ``session``, add each as a dock of ``window`` (with ``add_dock``; ``docks`` by
    name) tabbed with the dock named ``beside``, which stays in front; returns the views by dock name."""
    views: dict[str, QWidget] = {}
    for name, title, cls in VIEWS:
        views[name] = cls(session, window)
        add_dock(name, title, views[name], Qt.DockWidgetArea.RightDockWidgetArea)
        docks[name].hide()
    # (tabbed while hidden: docks tabbed while shown into a new group beside another group leave the
    # group's first tab bar on the window, over the views, in Qt 6.11)
    for name in views:
        window.tabifyDockWidget(docks[beside], docks[name])
    for name in views:
        docks[name].show()
        dock = docks[name]
        dock.visibilityChanged.connect(
            lambda shown, dock=dock: shown and QTimer.singleShot(0, window, lambda: _give_room(window, dock))
        )
    docks[beside].raise_()
    return views


#: the height an analysis dock is given when it comes forward, as a share of the window's (at most)
ROOM = 0.55


def _give_room(window, dock) -> None:
    """An analysis brought forward in a short dock (the window's default layout gives the tabs beside the
    per-query differences a third of its height) is given more of the window's height, taken from the
    docks below it; one the user made taller keeps its height."""
    if dock.isFloating() or dock.visibleRegion().isEmpty():
        return
    wanted = int(window.height() * ROOM)
    if dock.height() < wanted:
        window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)
