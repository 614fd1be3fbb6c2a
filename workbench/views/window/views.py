"""The views of the main window, each made with the session it shows, and their places: the per-query
table in the middle, the other views as docks around it, the message and out-of-date bars above."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolBar, QVBoxLayout, QWidget

from workbench.views.window.late_view import LateView, in_dock
from workbench.views.window.layout import bring_forward, tab_hidden
from workbench.views.window.status import MessageArea, StaleBar

if TYPE_CHECKING:
    from workbench.qt.session import Session
    from workbench.state.analyses import ContrastSettings
    from workbench.views.panels.explain import ExplainPanel


class WindowViews:
    """Every view of ``window`` (made with ``session``), placed as docks (``docks``, by the name their
    layout is saved under), and the bars for messages and for what is out of date."""

    def __init__(self, window: QMainWindow, session: Session):
        from workbench.views.panels.files import FilesPanel
        from workbench.views.panels.inspect import InspectView
        from workbench.views.panels.measures import MeasurePanel
        from workbench.views.plots.curves import NdcgAtKPlot, PrecisionRecallPlot
        from workbench.views.plots.diffchart import DifferenceChart
        from workbench.views.tables.drilldown import QueryDrilldownView
        from workbench.views.tables.pairs import PairsView
        from workbench.views.tables.scores import PerQueryView, SummaryView

        self.window = window
        window.setDockNestingEnabled(True)
        window.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        window.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)

        # central: the per-query table; the summary spans the window's top, above it and the plots
        self.summary = SummaryView(session, window)
        self.per_query = PerQueryView(session, window)
        central = QWidget(window)
        box = QVBoxLayout(central)
        box.setContentsMargins(2, 2, 2, 0)
        box.setSpacing(2)
        box.addWidget(self.per_query)
        window.setCentralWidget(central)

        left, top, right = (
            Qt.DockWidgetArea.LeftDockWidgetArea,
            Qt.DockWidgetArea.TopDockWidgetArea,
            Qt.DockWidgetArea.RightDockWidgetArea,
        )
        self.files = FilesPanel(session, window)
        self.measures = MeasurePanel(session, window)
        self.pr_plot = PrecisionRecallPlot(session, window)
        self.ndcg_plot = NdcgAtKPlot(session, window)
        self.docks: dict[str, QDockWidget] = {}
        self._add_dock("files", "Files", self.files, left)
        self._add_dock("measures", "Measures", self.measures, left)
        self._add_dock("summary", "Summary", self.summary, top)
        self._add_dock("prCurves", "Precision-recall", self.pr_plot, right)
        self._add_dock("ndcgAtK", "NDCG@k", self.ndcg_plot, right)
        self.diff_chart = DifferenceChart(session, window)
        self.drilldown = QueryDrilldownView(session, window)
        self._add_dock("diffChart", "Per-query differences", self.diff_chart, right)
        self._add_dock("drilldown", "Query drill-down", self.drilldown, right)
        self.inspect_view = InspectView(session, window)
        self._add_dock("inspect", "Inspect file", self.inspect_view, right)
        self.pairs_view = PairsView(session, window)
        self._add_dock("pairs", "All pairs", self.pairs_view, right)
        self._add_dock("explain", "Explain", QWidget(window), right)
        # right area: a column of curves (precision-recall over NDCG@k), then the comparison column
        d = self.docks
        window.splitDockWidget(d["prCurves"], d["diffChart"], Qt.Orientation.Horizontal)
        window.splitDockWidget(d["prCurves"], d["ndcgAtK"], Qt.Orientation.Vertical)
        window.splitDockWidget(d["diffChart"], d["drilldown"], Qt.Orientation.Vertical)
        tab_hidden(window, d["drilldown"], [d["inspect"], d["pairs"], d["explain"]])
        # the Explain view (behind the drill-down) is made when its dock first comes forward or an explanation
        # arrives: its modules and its plot are not needed for the first paint
        self.explain: LateView[ExplainPanel] = in_dock(window, d["explain"], lambda: _explain_panel(window))
        # why runs differ: where to look first, overlap, coverage, run against run, queries, measure agreement,
        # and the judgments: qrels agreement, systems by qrels, pool bias (one dock tabbed with the per-query
        # differences, a chooser of the view at its top; each view made when it first comes forward)
        from workbench.views.window.analysis_docks import AnalysisViews

        self.analysis_views = AnalysisViews(window, session, self._add_dock, self.docks)
        bring_forward(d["drilldown"])
        window.setCorner(Qt.Corner.TopRightCorner, Qt.DockWidgetArea.TopDockWidgetArea)
        window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)

    @property
    def explain_view(self) -> ExplainPanel:
        """The Explain view (made now if it is not yet)."""
        return self.explain.view()

    def contrast_settings(self) -> ContrastSettings | None:
        """The settings of "Where to look first" while the dock of why runs differ is open and the view is
        made (None otherwise)."""
        if "contrast" not in self.analysis_views.built() or self.analysis_views.dock.isHidden():
            return None
        view = self.analysis_views["contrast"]
        return view.settings()  # type: ignore[attr-defined]

    def _add_dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        """Add a view as a dock (its layout is saved under ``name``)."""
        dock = QDockWidget(title, self.window)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.window.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock


def _explain_panel(window: QMainWindow) -> ExplainPanel:
    from workbench.views.panels.explain import ExplainPanel

    return ExplainPanel(window)


class WindowBars:
    """The bars of ``window`` above its status bar: messages (shown only while there is one), then what is
    out of date in what ``session`` shows.  At the bottom, a bar that opens moves no panel's top: above the
    panels it pushed them down under the mouse."""

    AREA = Qt.ToolBarArea.BottomToolBarArea

    def __init__(self, window: QMainWindow, session: Session):
        self.window = window
        self.message_bar = self._bar("Messages", "messageBar")
        self.messages = MessageArea(self.message_bar)
        self.message_bar.addWidget(self.messages)
        window.addToolBarBreak(self.AREA)
        self.stale_toolbar = self._bar("Out of date", "staleBar")
        self.stale_bar = StaleBar(session, self.stale_toolbar)
        self.stale_toolbar.addWidget(self.stale_bar)

    def _bar(self, title: str, name: str) -> QToolBar:
        bar = QToolBar(title, self.window)
        bar.setObjectName(name)
        bar.setMovable(False)
        bar.setFloatable(False)
        bar.toggleViewAction().setVisible(False)
        self.window.addToolBar(self.AREA, bar)
        bar.hide()
        return bar

    def after_restore(self) -> None:
        """A restored layout shows the message bar only with messages, and the stale bar as it should be."""
        self.message_bar.setVisible(bool(self.messages.messages or self.messages.notices))
        self.stale_bar.refresh()
