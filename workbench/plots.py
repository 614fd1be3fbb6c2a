"""Precision-recall and NDCG@k plots (pyqtgraph).

One curve item per run, made when the run first appears and afterwards only
updated with ``setData``.  A plot shows the mean over queries, or the curves of
the query selected in the session.
"""

from __future__ import annotations

import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QAction, QColor, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QSpinBox, QVBoxLayout, QWidget

from workbench import analysis
from workbench.export import atomic_path

# Colour-blind friendly palette (Okabe & Ito), then tab10 colours.
PALETTE = [
    (0, 114, 178), (213, 94, 0), (0, 158, 115), (204, 121, 167), (230, 159, 0),
    (86, 180, 233), (120, 120, 120), (240, 228, 66), (148, 103, 189), (140, 86, 75),
]


def run_colour(i: int):
    return PALETTE[i % len(PALETTE)]


class CurvePlot(QWidget):
    """Base of both plots: a PlotWidget with a legend and one curve per run."""

    sigExportRequested = Signal()  # "Export…" chosen in the plot's context menu

    title = ""
    x_label = ""
    y_label = ""
    symbol: str | None = None

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.plot = pg.PlotWidget(self, background="w")
        self.plot.setMinimumSize(220, 180)
        # the context menu's export goes through the window (confirmation, atomic write)
        # instead of pyqtgraph's own export dialog
        export_action = QAction("Export PNG or SVG…", self.plot.scene())
        export_action.triggered.connect(self.sigExportRequested.emit)
        self.plot.scene().contextMenu = [export_action]
        item = self.plot.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLabel("bottom", self.x_label)
        item.setLabel("left", self.y_label)
        item.getViewBox().setMouseEnabled(x=True, y=False)
        item.disableAutoRange()  # fixed ranges (set_ranges): curves of different queries compare at a glance
        self._ranged_for = None
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(60, 60, 60))
            item.getAxis(axis).setTextPen(pg.mkPen(40, 40, 40))
        item.getAxis("left").setStyle(hideOverlappingLabels=False)  # keep the "1.0" at the top
        # legend in its own row under the plot, so it never hides a curve (and is part of exports)
        self.legend = pg.LegendItem(colCount=4, labelTextColor=(30, 30, 30), labelTextSize="9pt")
        item.layout.addItem(self.legend, 4, 1)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bar = QHBoxLayout()
        self.bar.setContentsMargins(4, 0, 4, 0)
        self.caption = QLabel(self)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar.addWidget(self.caption, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(self.bar)
        layout.addWidget(self.plot, 1)
        session.sigResultsChanged.connect(lambda _: self.refresh())
        session.sigQueryChanged.connect(lambda _: self.refresh())

    # -- to be given by subclasses ------------------------------------------
    def table(self, results) -> analysis.CurveTable:
        raise NotImplementedError

    def set_ranges(self, results) -> None:
        self.plot.setXRange(0.0, 1.0, padding=0.04)
        self.plot.setYRange(0.0, 1.0, padding=0.05)

    # -- shared -------------------------------------------------------------
    def _curve(self, run: str, i: int) -> pg.PlotDataItem:
        item = self.curves.get(run)
        colour = run_colour(i)
        if item is None:
            item = self.plot.plot(
                [], [], name=run, pen=pg.mkPen(colour, width=2),
                symbol=self.symbol, symbolSize=5, symbolBrush=colour, symbolPen=None,
            )
            self.curves[run] = item
        else:
            item.setPen(pg.mkPen(colour, width=2))
            item.setSymbolBrush(colour)
        return item

    def refresh(self) -> None:
        results = self.session.results
        runs = [] if results is None else list(results.runs)
        for run in list(self.curves):
            if run not in runs:  # a run that went away
                item = self.curves.pop(run)
                self.plot.removeItem(item)
        if results is None:
            self.caption.setText("")
            self.legend.clear()  # no entry may outlive its run
            return
        query = self.session.selected_query
        table = self.table(results)
        key = analysis.MEAN if query is None else query
        for i, run in enumerate(runs):
            item = self._curve(run, i)
            xy = table.get(key, run)
            if xy is None:
                item.setData([], [])
            else:
                item.setData(xy[0], xy[1])
        self._reorder_legend(runs)
        what = f"mean over {len(results.query_ids)} queries" if query is None else f"query <b>{query}</b>"
        self.caption.setText(f"{self.title} — {what}")
        if self._ranged_for is not results:  # a new result resets the view; a new query keeps the zoom
            self._ranged_for = results
            self.set_ranges(results)

    def _reorder_legend(self, runs) -> None:
        current = [label.text for _, label in self.legend.items]
        if current == runs:
            return
        self.legend.clear()
        for run in runs:
            self.legend.addItem(self.curves[run], run)
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As many legend columns as fit the plot's width (the legend must not widen the plot)."""
        items = self.legend.items
        if not items:
            return
        room = self.plot.width() - self.plot.getPlotItem().getAxis("left").width() - 24
        for columns in range(len(items), 0, -1):
            if columns != self.legend.columnCount:
                self.legend.setColumnCount(columns)
            if columns == 1 or self.legend.layout.preferredWidth() <= room:
                break

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_legend()

    def data(self, run: str):
        """The (x, y) arrays the curve of ``run`` shows (for tests and export)."""
        item = self.curves.get(run)
        return None if item is None else item.getData()

    def export_image(self, path: str) -> None:
        """PNG (or other raster format by suffix) or SVG, written atomically."""
        item = self.plot.getPlotItem()
        if path.lower().endswith(".svg"):
            # pyqtgraph's SVGExporter cannot parse the paths this Qt version writes;
            # Qt's own SVG generator renders the scene faithfully.
            source = item.sceneBoundingRect()
            with atomic_path(path) as tmp:
                generator = QSvgGenerator()
                generator.setFileName(tmp)
                generator.setSize(source.size().toSize())
                generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
                generator.setTitle(self.title)
                painter = QPainter(generator)
                try:
                    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                    painter.fillRect(QRectF(0, 0, source.width(), source.height()), QColor("white"))
                    self.plot.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
                finally:
                    painter.end()
            return
        exporter = pg.exporters.ImageExporter(item)
        exporter.parameters()["width"] = max(800, int(self.plot.width() * 2))
        image = exporter.export(toBytes=True)
        fmt = path.rsplit(".", 1)[-1].upper() if "." in path else "PNG"
        with atomic_path(path) as tmp:
            if not image.save(tmp, fmt):
                raise OSError(f"could not write {path}")


class PrecisionRecallPlot(CurvePlot):
    title = "Interpolated precision vs recall"
    x_label = "Recall"
    y_label = "Precision"
    symbol = "o"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.set_ranges(None)

    def table(self, results):
        return results.pr


class NdcgAtKPlot(CurvePlot):
    title = "NDCG at every cutoff k"
    x_label = "k (rank cutoff)"
    y_label = "NDCG@k"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.k_box = QSpinBox(self)
        self.k_box.setRange(1, 10000)
        self.k_box.setValue(session.k_max)
        self.k_box.setPrefix("K = ")
        self.k_box.setKeyboardTracking(False)
        self.k_box.setToolTip("Largest cutoff k shown (computed again on change)")
        self.bar.addWidget(self.k_box)
        self.k_box.valueChanged.connect(session.set_k_max)
        session.sigMeasuresChanged.connect(self._sync_k)
        self.set_ranges(None)

    def _sync_k(self) -> None:
        if self.k_box.value() != self.session.k_max:
            self.k_box.blockSignals(True)
            self.k_box.setValue(self.session.k_max)
            self.k_box.blockSignals(False)

    def table(self, results):
        return results.ndcg

    def set_ranges(self, results) -> None:
        k = self.session.k_max if results is None else results.request.k_max
        self.plot.setXRange(1, max(2, k), padding=0.02)
        self.plot.setYRange(0.0, 1.0, padding=0.05)
