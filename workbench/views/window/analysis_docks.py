"""The "why runs differ" views in one dock of the window, "Why runs differ", tabbed with the per-query
differences: a chooser of the views at its top ("View:"), the view chosen below it.

The dock is made with the window, its nine pages empty; a view is made the first time it is chosen while
the dock is in front, or the dock comes forward with it chosen
(:class:`~workbench.views.window.late_view.LateView`), which keeps the views (about 70 ms of the window's
thread for the first five, and a fifth of its first layout) out of the window's start.  A view made late
computes its analysis from the session as it is when shown
(:class:`~workbench.views.analysis.follow.AnalysisFollower`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.views.window.late_view import LateView, Page
from workbench.views.window.layout import tab_hidden

if TYPE_CHECKING:
    from workbench.qt.session import Session

#: the name the dock's layout is saved under, and its title
DOCK, TITLE = "whyRunsDiffer", "Why runs differ"

#: (name, title, module, class of the view), in the order the chooser lists them
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


class ViewChooser(QWidget):
    """The pane of the "Why runs differ" dock: "View:" and a box listing the views' ``titles`` at its top
    (reached by Tab, named for a screen reader), and below it the page of the view chosen (each page empty
    until its view is put in it)."""

    def __init__(self, titles: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = QComboBox(self)
        self.box.addItems(titles)
        self.box.setAccessibleName("Why runs differ: view shown")
        self.box.setToolTip("Which analysis of why the runs differ is shown below")
        self.box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        label = QLabel("View:", self)
        label.setBuddy(self.box)
        self.stack = QStackedWidget(self)
        self.pages = [Page(self.stack) for _ in titles]
        for page in self.pages:
            self.stack.addWidget(page)
        self.box.currentIndexChanged.connect(self.stack.setCurrentIndex)
        row = QHBoxLayout()
        row.setContentsMargins(4, 2, 4, 0)
        row.addWidget(label)
        row.addWidget(self.box)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.stack, 1)


class AnalysisViews(Mapping[str, QWidget]):
    """The analysis views of ``window`` on ``session``, by name (:data:`VIEWS`), in one dock (:attr:`dock`,
    added with ``add_dock``; ``docks`` holds the window's docks by name) tabbed with the dock named
    ``beside``, which stays in front.  A view is made when it is first chosen while the dock is in front
    (or the dock comes forward with it chosen), or when it is asked for (``views[name]``); :meth:`built`
    names the views made so far.  :meth:`choose` and :meth:`chosen` are the choice kept with the window's
    layout; :meth:`show` brings the dock forward with a view."""

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
        self._names = list(self._kinds)
        self.pane = ViewChooser([title for _, title, _, _ in VIEWS], window)
        self.dock = add_dock(DOCK, TITLE, self.pane, Qt.DockWidgetArea.RightDockWidgetArea)
        tab_hidden(window, docks[beside], [self.dock])
        self._late = {
            name: LateView(window, page, partial(self._make, name)) for name, page in zip(self._names, self.pane.pages)
        }
        self._forward = False  # the dock is in front (its tab chosen, shown, floated)
        self.dock.visibilityChanged.connect(self._dock_forward)
        self.pane.box.currentIndexChanged.connect(lambda _: self._follow())

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

    # -- the choice ---------------------------------------------------------------------------
    def chosen(self) -> str:
        """The name of the view chosen."""
        return self._names[self.pane.box.currentIndex()]

    def choose(self, name: str) -> None:
        """The view ``name`` chosen (made now if the dock is in front); a name that is not one of
        :data:`VIEWS` (kept by another version) leaves the choice as it is."""
        if name in self._kinds:
            self.pane.box.setCurrentIndex(self._names.index(name))

    def show(self, name: str) -> None:
        """The dock (opened if it was closed) in front of its tabs, with the view ``name`` chosen."""
        self.choose(name)
        self.dock.show()
        self.dock.raise_()

    # -- made when in front -------------------------------------------------------------------
    def _dock_forward(self, shown: bool) -> None:
        self._forward = shown
        self._follow()
        if shown:
            QTimer.singleShot(0, self._window, partial(give_room, self._window, self.dock))

    def _follow(self) -> None:
        """Each view is in front when the dock is and the view is chosen."""
        chosen = self.chosen()
        for name, late in self._late.items():
            late.came_forward(self._forward and name == chosen)

    def _make(self, name: str) -> QWidget:
        module, cls = self._kinds[name]
        view: QWidget = getattr(importlib.import_module(module), cls)(self._session, self._window)
        self._views[name] = view
        opened = getattr(view, "sigQueryOpened", None)
        if opened is not None and "drilldown" in self._docks:  # (a query opened from the view: its lists in front)
            opened.connect(lambda _: self._docks["drilldown"].raise_())
        return view  # (its follower computes its analysis once shown)


#: the height the dock is given when it comes forward, as a share of the window's (at most)
ROOM = 0.55


def give_room(window: QMainWindow, dock: QDockWidget) -> None:
    """The dock brought forward in a short place (the window's default layout gives the tabs beside the
    per-query differences a third of its height) is given more of the window's height, taken from the
    docks below it; one the user made taller keeps its height."""
    if dock.isFloating() or dock.visibleRegion().isEmpty():
        return
    wanted = int(window.height() * ROOM)
    if dock.height() < wanted:
        window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)
