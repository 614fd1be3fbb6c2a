"""The main window's explain dock: a cell of the summary or per-query table, or a bar of the difference
chart, explained (how its value was computed, from the ranked list it came from)."""

from __future__ import annotations

from PySide6.QtCore import Qt


class ExplainActions:
    """Part of :class:`workbench.views.main_window.MainWindow`: the explain dock and what opens it."""

    def _build_explain(self) -> None:
        from workbench.views.explain import ExplainPanel

        self.explain_view = ExplainPanel(self)
        self.add_dock("explain", "Explain", self.explain_view, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.docks["drilldown"], self.docks["explain"])
        s = self.session
        s.sigExplanationChanged.connect(self._on_explanation)
        self.per_query.view.clicked.connect(self._explain_per_query_cell)
        self.summary.view.clicked.connect(self._explain_summary_cell)
        self.diff_chart.sigBarClicked.connect(self._explain_bar)
        self.explain_view.documentActivated.connect(self._document_chosen)
        s.sigDrilldownChanged.connect(self._select_waiting_document)

    def _select_waiting_document(self, drill) -> None:
        doc = getattr(self, "_doc_to_select", None)
        if drill is not None and doc is not None:
            self._doc_to_select = None
            self.drilldown.select_doc(doc)

    def _explain_per_query_cell(self, index) -> None:
        from workbench.model.tables import DIFF_PREFIX  # (with pandas: not before the window shows)

        view = self.per_query
        column = str(view.proxy.headerData(index.column(), Qt.Orientation.Horizontal))
        run = column[len(DIFF_PREFIX) :] if column.startswith(DIFF_PREFIX) else column
        if self.session.results is None or run not in self.session.results.runs:
            return  # the query id or text
        query = str(view.model.frame()["query_id"].iloc[view.proxy.mapToSource(index).row()])
        self._explain(run, query, view.shown_measure())

    def _explain_summary_cell(self, index) -> None:
        view = self.summary
        measure = str(view.proxy.headerData(index.column(), Qt.Orientation.Horizontal))
        run = str(view.model.frame()["run"].iloc[view.proxy.mapToSource(index).row()])  # (not as marked)
        results = self.session.results
        if results is not None and measure in results.measures and run in results.runs:
            self._explain(run, None, measure)

    def _explain_bar(self, run: str, query: str, measure: str) -> None:
        self._explain(run, query, measure)

    def _explain(self, run: str, query, measure: str) -> None:
        self.session.explain(run, query, measure)
        dock = self.docks["explain"]
        if dock.isHidden():
            dock.show()

    def _on_explanation(self, explained) -> None:
        if explained is None:
            self.explain_view.clear()
            return
        self.explain_view.show_explanation(explained.explanation, explained.gain_curve, explained.textbook)
        self.docks["explain"].raise_()

    def _document_chosen(self, query: str, doc: str) -> None:
        """A row of the explanation: its document in the drill-down's lists."""
        if self.session.selected_query != query:
            self.session.select_query(query)
            self._doc_to_select = doc  # once the drill-down of the query arrives
        else:
            self.drilldown.select_doc(doc)
