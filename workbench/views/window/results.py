"""What the main window does as scores, the query and the comparison change: the query box follows, the
summary gets the height its rows need, the dock of what the user asked for comes forward."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDockWidget, QMainWindow, QStyle

if TYPE_CHECKING:
    from workbench.qt.session import Session
    from workbench.scoring.evaluation import Results
    from workbench.state.significance import Comparison
    from workbench.views.plots.diffchart import DifferenceChart
    from workbench.views.tables.scores import SummaryView
    from workbench.views.window.status import MessageArea


class ResultsFollower:
    """New scores and a new query in ``window``: the ``query_box`` lists the queries scored and shows the
    selected one, the ``summary`` dock is as high as its rows need, errors that no longer describe what is
    shown leave ``messages``, a selected query brings the drill-down forward."""

    def __init__(
        self,
        window: QMainWindow,
        session: Session,
        *,
        query_box: QComboBox,
        summary: SummaryView,
        docks: dict[str, QDockWidget],
        messages: MessageArea,
    ):
        self.window = window
        self.session = session
        self.query_box = query_box
        self.summary = summary
        self.docks = docks
        self.messages = messages
        self._summary_rows: int | None = None  # the number of runs the summary dock's height was fitted to
        query_box.activated.connect(lambda i: session.model.select_query(query_box.itemData(i)))
        session.sigResultsChanged.connect(self.on_results)
        session.sigQueryChanged.connect(self.on_query)

    def _fit_summary(self, results: Results) -> None:
        """Give the summary dock the height its rows need (up to 40% of the window) when the number of
        runs changes, so that a small window does not hide a run's row."""
        n = len(results.runs)
        dock = self.docks["summary"]
        if n == self._summary_rows or not dock.isVisible():
            return
        self._summary_rows = n
        need = self.summary.height_for_rows(n)
        need += 2 * dock.style().pixelMetric(QStyle.PixelMetric.PM_TitleBarHeight)
        need += 16
        self.window.resizeDocks([dock], [min(need, int(self.window.height() * 0.4))], Qt.Orientation.Vertical)

    def on_results(self, results: Results | None) -> None:
        if results is not None:
            self._fit_summary(results)
            # errors of earlier evaluations no longer describe what is shown; those of files still in error do
            self.messages.keep_only({e.error for e in self.session.workspace.entries if e.error})
        self.query_box.clear()
        self.query_box.addItem("mean over queries", None)
        if results is not None:
            for q in results.query_ids:
                self.query_box.addItem(q, q)
        self.on_query(self.session.selected_query)

    def on_query(self, query_id: str | None) -> None:
        if query_id is not None:  # a query chosen: its ranked lists come forward
            self.docks["drilldown"].raise_()
        i = self.query_box.findData(query_id) if query_id is not None else 0
        if i >= 0 and i != self.query_box.currentIndex():
            self.query_box.setCurrentIndex(i)


class DocksForward:
    """The dock of what the user asked for comes forward: Inspect for a file selected in Files (or when
    nothing can be scored), the per-query differences for a cell of the all-pairs matrix (``diff_chart``
    then shows that run), the all-pairs matrix with its first result."""

    def __init__(self, session: Session, docks: dict[str, QDockWidget], diff_chart: DifferenceChart):
        self.session = session
        self.docks = docks
        self.diff_chart = diff_chart
        self._show_inspection = False  # a file was selected: its inspection comes forward
        self._pair_to_show: str | None = None  # the run of the all-pairs cell chosen, once compared
        self._pairs_shown = False  # the all-pairs matrix came forward once
        session.sigInspectionChanged.connect(self._on_inspection)
        session.sigComparisonChanged.connect(self.on_comparison)

    def _raise(self, name: str) -> None:
        self.docks[name].show()
        self.docks[name].raise_()

    def inspect_selected(self, path: str) -> None:
        self.session.followups.inspect(path)
        self._show_inspection = True

    def _on_inspection(self, inspection: dict | None) -> None:
        """Bring the Inspect view forward for a file the user selected, or when nothing can be scored
        (a run dropped without qrels, a qrels file alone, a file that could not be read)."""
        if inspection is None:
            return
        s = self.session
        nothing_to_score = s.model.evaluation_key() is None and not s.workspace.loading()
        if self._show_inspection or nothing_to_score:
            self._show_inspection = False
            self._raise("inspect")

    def show_pair(self, run: str, baseline: str) -> None:
        """A cell of the all-pairs matrix: ``run`` against ``baseline``, query by query."""
        e = self.session.workspace.entry_by_label(baseline)
        if e is not None:
            self.session.model.files.set_baseline(e.path)
        self._pair_to_show = run
        self._raise("diffChart")

    def on_comparison(self, comparison: Comparison | None) -> None:
        run = self._pair_to_show
        if comparison is not None and run is not None and run != comparison.request.baseline:
            self._pair_to_show = None
            self.diff_chart.set_run(run)
        if comparison is not None and comparison.pairs is not None and not self._pairs_shown:
            self._pairs_shown = True  # the first all-pairs result brings its matrix forward
            self._raise("pairs")
