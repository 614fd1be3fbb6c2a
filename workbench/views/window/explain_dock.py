"""The main window's explain dock: a cell of the summary or per-query table, or a bar of the difference
chart, explained (how its value was computed, from the ranked list it came from)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QDockWidget

if TYPE_CHECKING:
    from workbench.qt.session import Session
    from workbench.state.explaining import Explained
    from workbench.views.panels.explain import ExplainPanel
    from workbench.views.plots.diffchart import DifferenceChart
    from workbench.views.tables.drilldown import QueryDrilldownView
    from workbench.views.tables.scores import PerQueryView, SummaryView
    from workbench.views.window.late_view import LateView


class ExplainActions:
    """What opens the Explain view ``panel`` (in ``dock``; made when first needed): clicks on the cells of
    ``summary`` and ``per_query`` and on the bars of ``diff_chart``; a document of an explanation chosen is
    selected in ``drilldown``.  The explanation itself is the session's (computed in a worker)."""

    def __init__(
        self,
        session: Session,
        *,
        panel: LateView[ExplainPanel],
        dock: QDockWidget,
        summary: SummaryView,
        per_query: PerQueryView,
        diff_chart: DifferenceChart,
        drilldown: QueryDrilldownView,
    ):
        self.session = session
        self.panel = panel
        self.dock = dock
        self.summary = summary
        self.per_query = per_query
        self.drilldown = drilldown
        self._doc_to_select: str | None = None  # selected once the drill-down of its query arrives
        session.sigExplanationChanged.connect(self._on_explanation)
        session.sigDrilldownChanged.connect(self._select_waiting_document)
        per_query.view.clicked.connect(self._explain_per_query_cell)
        summary.view.clicked.connect(self._explain_summary_cell)
        # from the keyboard: Enter on a cell (activated), or Edit > Explain the current value (Ctrl+E)
        per_query.view.activated.connect(self._explain_per_query_cell)
        summary.view.activated.connect(self._explain_summary_cell)
        diff_chart.sigBarClicked.connect(self.explain)
        panel.when_made(lambda made: made.documentActivated.connect(self._document_chosen))

    def explain_current(self) -> None:
        """Explain the current cell of the table that has the focus (the per-query table otherwise), and
        bring the Explain view forward: what a click does, from the keyboard."""
        if self.summary.view.hasFocus() and self.summary.view.currentIndex().isValid():
            self._explain_summary_cell(self.summary.view.currentIndex())
        elif self.per_query.view.currentIndex().isValid():
            self._explain_per_query_cell(self.per_query.view.currentIndex())
        self.dock.show()
        self.dock.raise_()

    def _select_waiting_document(self, drill: object) -> None:
        doc = self._doc_to_select
        if drill is not None and doc is not None:
            self._doc_to_select = None
            self.drilldown.select_doc(doc)

    def _explain_per_query_cell(self, index: QModelIndex) -> None:
        from workbench.state.tables import DIFF_PREFIX  # (with pandas: not before the window shows)

        view = self.per_query
        column = str(view.proxy.headerData(index.column(), Qt.Orientation.Horizontal))
        run = column[len(DIFF_PREFIX) :] if column.startswith(DIFF_PREFIX) else column
        if self.session.results is None or run not in self.session.results.runs:
            return  # the query id or text
        query = str(view.model.frame()["query_id"].iloc[view.proxy.mapToSource(index).row()])
        self.explain(run, query, view.shown_measure())

    def _explain_summary_cell(self, index: QModelIndex) -> None:
        view = self.summary
        measure = str(view.proxy.headerData(index.column(), Qt.Orientation.Horizontal))
        run = str(view.model.frame()["run"].iloc[view.proxy.mapToSource(index).row()])  # (not as marked)
        results = self.session.results
        if results is not None and measure in results.measures and run in results.runs:
            self.explain(run, None, measure)

    def explain(self, run: str, query: str | None, measure: str) -> None:
        """Explain ``measure`` of ``run`` on ``query`` (None: the mean over queries)."""
        self.session.followups.explain(run, query, measure)
        if self.dock.isHidden():
            self.dock.show()

    def _on_explanation(self, explained: Explained | None) -> None:
        if explained is None:
            if self.panel.made:  # (one not made yet shows nothing already)
                self.panel.view().clear()
            return
        self.panel.view().show_explanation(explained.explanation, explained.gain_curve, explained.textbook)
        self.dock.raise_()

    def _document_chosen(self, query: str, doc: str) -> None:
        """A row of the explanation: its document in the drill-down's lists."""
        if self.session.selected_query != query:
            self.session.model.select_query(query)
            self._doc_to_select = doc  # once the drill-down of the query arrives
        else:
            self.drilldown.select_doc(doc)
