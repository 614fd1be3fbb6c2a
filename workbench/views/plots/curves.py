"""Precision-recall and NDCG@k plots (pyqtgraph).

One curve item per run, made when the run first appears and afterwards only
updated with ``setData``.  A plot shows the mean over queries, or the curves of
the query selected in the session.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QImage
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from metrics.io import fileio
from workbench.scoring import evaluation as analysis
from workbench.scoring.defaults import K_LIMIT
from workbench.state.drilldown import best_by
from workbench.views.common.copy_image import install_copy_image
from workbench.views.common.run_styles import DASH_TEXT, MAX_CURVES, QUIET, QUIET_HOVERED, coloured_runs, run_style


class CurvePlot(QWidget):
    """Base of both plots: a PlotWidget with a legend and one curve per run."""

    sigExportRequested = Signal()  # "Export…" chosen in the plot's context menu

    title = ""
    kind = ""  # "pr" or "ndcg": which curves (metrics.engine.curves)
    x_label = ""
    y_label = ""
    symbol: str | None = None

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.plot = pg.PlotWidget(self, background="w")
        self.copy_image_action = install_copy_image(self.plot)  # its menu and Ctrl+C
        self.plot.setMinimumSize(160, 120)
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
            item.getAxis(axis).enableAutoSIPrefix(False)  # never "Precision (x0.001)" after a zoom
        item.getAxis("left").setStyle(hideOverlappingLabels=False)  # keep the "1.0" at the top
        # legend: a line of text under the plot that wraps, so it never hides a curve nor takes the
        # plot's room in a small window; clicking a run hides or shows its curve
        self.legend = QLabel(self)
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.legend.setMinimumWidth(10)  # wraps instead of widening the plot
        self.legend.setToolTip("Click a run to hide or show its curve")
        self.legend.linkActivated.connect(self._toggle_run)
        self._legend_runs: list[str] = []  # the runs the legend names, in order
        self.hidden: set[str] = set()
        self.curves: dict[str, pg.PlotDataItem] = {}
        # what refresh drew from (it draws again only when that changes)
        self._drawn_from, self._drawn_for = None, None
        self.bar = QHBoxLayout()
        self.bar.setContentsMargins(4, 0, 4, 0)
        self.caption = QLabel(self)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.caption.setWordWrap(True)
        self.caption.setContentsMargins(4, 0, 4, 0)
        self._many = False  # the controls sit on a line of their own (many runs, or a narrow plot)
        self._many_runs = False  # more runs than MAX_CURVES
        self.extra_controls: list[QWidget] = []  # a plot's own controls, placed with the others
        self.bar.addWidget(self.caption, 1)
        self.all_runs_box = QCheckBox("all runs", self)
        self.all_runs_box.setToolTip(
            f"With more than {MAX_CURVES} runs only the best {MAX_CURVES} by the "
            "chosen measure and the baseline are drawn; tick to draw every run"
        )
        self.all_runs_box.hide()
        self.all_runs_box.toggled.connect(lambda _: self.refresh())
        self.bar.addWidget(self.all_runs_box)
        self.find_box = QLineEdit(self)
        self.find_box.setPlaceholderText("Find runs…")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.setToolTip("Draw only the runs whose label contains this text (and the baseline)")
        self.find_box.setMaximumWidth(160)
        self.find_box.hide()
        self.find_box.textChanged.connect(lambda _: self.refresh())
        self.bar.addWidget(self.find_box)
        self.legend_button = QToolButton(self)
        self.legend_button.setText("Legend")
        self.legend_button.setCheckable(True)
        self.legend_button.setChecked(True)
        self.legend_button.setToolTip("Show or hide the legend under the plot")
        self.bar.addWidget(self.legend_button)
        # the legend scrolls past a few lines: the plot keeps its room whatever the number of runs
        self.legend_area = QScrollArea(self)
        self.legend_area.setWidget(self.legend)
        self.legend_area.setWidgetResizable(True)
        self.legend_area.setFrameShape(QFrame.Shape.NoFrame)
        self.legend_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend_button.toggled.connect(self.legend_area.setVisible)
        self._hovered: str | None = None
        self.plot.scene().sigMouseMoved.connect(self._on_hover)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.controls = QHBoxLayout()  # with many runs, the controls under the caption (it stays readable)
        self.controls.setContentsMargins(4, 0, 4, 0)
        self.controls.addStretch(1)  # (the controls keep their sizes, at the left)
        layout.addLayout(self.bar)
        layout.addLayout(self.controls)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend_area)
        session.sigResultsChanged.connect(lambda _: session.after_paint.in_turn(self.refresh))
        session.sigQueryChanged.connect(lambda _: self.refresh())
        session.sigFocusMeasureChanged.connect(lambda _: session.after_paint.in_turn(self.refresh))

    # -- to be given by subclasses ------------------------------------------
    def table(self, results) -> analysis.CurveTable:
        raise NotImplementedError

    def set_ranges(self, results) -> None:
        self.plot.setXRange(0.0, 1.0, padding=0.04)
        self.plot.setYRange(0.0, 1.0, padding=0.05)

    # -- shared -------------------------------------------------------------
    def _pen(self, i: int, width: float = 2.0, quiet: bool = False):
        if quiet:  # one of many runs drawn: grey and thin, so that the emphasised ones stand out
            return pg.mkPen(QUIET if width <= 2.0 else QUIET_HOVERED, width=width / 2)
        colour, dash, _ = run_style(i)
        return pg.mkPen(colour, width=width, style=dash)

    def _curve(self, run: str, i: int, quiet: bool = False) -> pg.PlotDataItem | pg.PlotCurveItem:
        item = self.curves.get(run)
        if item is not None and item.quiet != quiet:  # into colour or out of it: made again
            self.plot.removeItem(item)
            item = None
        colour, _, symbol = run_style(i)
        if item is None:
            if quiet:
                # a grey line without markers: a PlotCurveItem, which takes a seventh of the time of a
                # PlotDataItem to make (that carries a scatter item for the markers); ticking "all runs" in a
                # plot of 1,000 runs took 1.3 s on the window's thread, 0.57 s now; gaps at NaN, as PlotDataItem
                item = pg.PlotCurveItem(pen=self._pen(i, quiet=True), connect="finite")
                self.plot.addItem(item)
            else:
                item = self.plot.plot(
                    [],
                    [],
                    name=run,
                    pen=self._pen(i),
                    symbol=symbol if self.symbol else None,
                    symbolSize=6,
                    symbolBrush=colour,
                    symbolPen=None,
                )
            self.curves[run] = item  # (a run made again keeps its place among the others)
        elif item.run_index != i:  # its style follows its place: set again only when that changed (each setter
            # updates the curve and its markers: half of a plot's refresh for a query selected among 500 runs)
            item.setPen(self._pen(i, quiet=quiet))
            if not quiet:
                item.setSymbolBrush(colour)
                if self.symbol:
                    item.setSymbol(symbol)
        item.run_index, item.quiet = i, quiet  # (every curve drawn has them: its colour, and grey or not)
        item.setZValue(-1 if quiet else 0)
        return item

    def emphasised_runs(self, results, runs: list[str]) -> list[str]:
        """Of the runs drawn, those drawn in colour: all of them when they are few (the palette's eight and
        the baseline); else the best by the chosen measure (among those found, when the find box has a text)
        and the baseline; the others are drawn thin and grey (emphasis rather than hue for many runs)."""
        return coloured_runs(runs, results, self.session.focus_measure, self.session.model.workspace.baseline_label())

    #: narrower than this, the controls go under the caption (beside it, it wrapped a word per line)
    NARROW = 420

    def _place_controls(self, many: bool) -> None:
        """The run controls beside the caption, or on a line of their own under it when there are many runs
        or the plot is narrow (the caption then says which runs are drawn, and the controls would cut it)."""
        self._many_runs = many
        under = many or self.width() < self.NARROW
        if under == self._many:
            return
        self._many = under
        widgets = [self.all_runs_box, self.find_box, self.legend_button, *self.extra_controls]
        for w in widgets:
            (self.bar if under else self.controls).removeWidget(w)
        if under:
            for i, w in enumerate(widgets):
                self.controls.insertWidget(i, w, 1 if w is self.find_box else 0)
        else:
            index = self.bar.indexOf(self.caption) + 1
            for i, w in enumerate(widgets):
                self.bar.insertWidget(index + i, w)

    def found_runs(self, results) -> list[str] | None:
        """The runs whose label contains the text of the find box, in order (None without a text)."""
        text = self.find_box.text().strip().lower()
        if not text:
            return None
        return [r for r in results.runs if text in str(r).lower()]

    def drawn_runs(self, results) -> list[str]:
        """The runs drawn now: those found by the find box and the baseline; else all, or the best ones
        and the baseline when there are many."""
        runs = list(results.runs)
        many = len(runs) > MAX_CURVES
        self._place_controls(many)
        self.all_runs_box.setVisible(many)
        self.find_box.setVisible(many or bool(self.find_box.text()))
        found = self.found_runs(results)
        if found is not None:
            baseline = self.session.model.workspace.baseline_label()
            chosen = set(found)
            return [r for r in runs if r in chosen or r == baseline]
        if not many or self.all_runs_box.isChecked():
            return runs
        if self.session.focus_measure not in results.summary.columns:
            return runs
        return best_by(
            runs, results, self.session.focus_measure, self.session.model.workspace.baseline_label(), MAX_CURVES
        )

    def refresh(self) -> None:
        results = self.session.results
        # new scores change the measure in focus and then the scores (two signals): drawn once
        drawn_for = (
            self.session.selected_query,
            self.session.focus_measure,
            self.session.model.workspace.baseline_label(),
            self.find_box.text(),
            self.all_runs_box.isChecked(),
        )
        if results is not None and self._drawn_from is results and self._drawn_for == drawn_for:
            return
        self._drawn_from, self._drawn_for = results, drawn_for
        runs = [] if results is None else self.drawn_runs(results)
        for run in list(self.curves):
            if run not in runs:  # a run that went away (or is not drawn now)
                item = self.curves.pop(run)
                self.plot.removeItem(item)
        if results is None:
            self.caption.setText("")
            self.legend.clear()  # no entry may outlive its run
            self.hidden.clear()
            return
        query = self.session.selected_query
        table = self.table(results)
        key = analysis.MEAN if query is None else query
        emphasised = self.emphasised_runs(results, runs)
        if len(results.runs) <= MAX_CURVES:
            order = {r: i for i, r in enumerate(results.runs)}  # a run keeps its style when others are hidden
        else:  # styles by place among the runs in colour: none of them shares a colour and a dash
            order = {r: i for i, r in enumerate(emphasised)}
        for run in runs:
            item = self._curve(run, order.get(run, 0), quiet=run not in order)
            xy = table.get(key, run)
            if xy is None:
                item.setData([], [])
            else:
                item.setData(xy[0], xy[1])
        self._reorder_legend(runs)
        what = f"mean over {len(results.query_ids)} queries" if query is None else f"query <b>{query}</b>"
        hidden = len(results.runs) - len(runs)
        found = self.found_runs(results)
        if found is not None:
            text = html.escape(self.find_box.text().strip())
            more = f" — {len(found)} of {len(results.runs)} runs match “{text}”"
        elif hidden:
            best = min(len(runs), MAX_CURVES)  # and the baseline, when it is not among them
            more = f" — best {best} of {len(results.runs)} runs by {self.session.focus_measure}" + (
                " and the baseline" if len(runs) > best else ""
            )
        else:
            more = ""
        if not len(table) and not results.runs:  # every run failed, or is left out until it is read again
            more = " — none: no run is scored"
        elif not len(table):  # intent qrels alone: the diversity measures are scored, no curve is
            more = " — none: the curves need ad hoc qrels (qid iter docid grade)"
        self.caption.setText(f"{self.title} — {what}{more}")
        if self._ranged_for is not results:  # a new result resets the view; a new query keeps the zoom
            self._ranged_for = results
            self.set_ranges(results)

    def _on_hover(self, pos) -> None:
        """Name the curve under the mouse (and its value there), and draw it thicker."""
        vb = self.plot.getPlotItem().getViewBox()
        if not self.plot.sceneBoundingRect().contains(pos):
            return
        mouse = vb.mapSceneToView(pos)
        pw, ph = vb.viewPixelSize()  # data units per pixel
        best, best_d, best_xy = None, 8.0, (0.0, 0.0)  # within 8 pixels
        for run, item in self.curves.items():
            x, y = item.getData()
            if not item.isVisible() or x is None or len(x) == 0:
                continue
            d = np.hypot((np.asarray(x, dtype=float) - mouse.x()) / pw, (np.asarray(y, dtype=float) - mouse.y()) / ph)
            j = int(np.nanargmin(d)) if np.isfinite(d).any() else -1
            if j >= 0 and d[j] < best_d:
                best, best_d, best_xy = run, float(d[j]), (float(x[j]), float(y[j]))
        self.highlight(best)
        if best is not None:
            view = self.plot.mapToGlobal(self.plot.mapFromScene(pos).toPoint())
            QToolTip.showText(
                view, f"{best}: {self.y_label} {best_xy[1]:.4f} at {self.x_label} {best_xy[0]:g}", self.plot
            )

    def highlight(self, run: str | None) -> None:
        if run == self._hovered:
            return
        for name, item in self.curves.items():
            item.setPen(self._pen(item.run_index, 4.0 if name == run else 2.0, item.quiet))
            if item.quiet:
                item.setZValue(1 if name == run else -1)  # a grey run hovered comes to the front
        self._hovered = run

    def _reorder_legend(self, runs) -> None:
        self.hidden &= set(runs)
        self._legend_runs = list(runs)
        entries = []
        for run in runs:
            item = self.curves[run]
            item.setVisible(run not in self.hidden)
            colour, dash, _ = run_style(item.run_index)
            if item.quiet:
                colour, dash = QUIET, Qt.PenStyle.SolidLine
            line = DASH_TEXT[dash]
            if run in self.hidden:
                style = "color:#999;text-decoration:line-through"
                line_style = "color:#bbb"
            else:
                style, line_style = "color:#1e1e1e;text-decoration:none", "color:#%02x%02x%02x" % colour
            entries.append(
                f"<a href='{html.escape(run, quote=True)}' style='{style}'><span style='{line_style}'>"
                f"<b>{line}</b></span>&nbsp;{html.escape(run)}</a>"
            )
        self.legend.setText("&nbsp;&nbsp; ".join(entries))
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As tall as the legend's lines, at most four (it scrolls beyond)."""
        width = max(50, self.legend_area.viewport().width() or self.width())
        lines = self.legend.fontMetrics().lineSpacing()
        need = self.legend.heightForWidth(width) if self.legend.text() else 0
        self.legend_area.setFixedHeight(min(max(need, 0), 4 * lines + 4) + 2)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_legend()  # a narrower plot wraps the legend on more lines
        self._place_controls(self._many_runs)

    def _toggle_run(self, run: str) -> None:
        (self.hidden.discard if run in self.hidden else self.hidden.add)(run)
        self._reorder_legend([r for r in self.curves])

    def legend_runs(self) -> list[str]:
        """The runs the legend names, in order (kept when the legend is written, not read back from its text)."""
        return list(self._legend_runs)

    def data(self, run: str):
        """The (x, y) arrays the curve of ``run`` shows (for tests and export)."""
        item = self.curves.get(run)
        return None if item is None else item.getData()

    def export_image(self, path: str, protect=()) -> None:
        """The plot as it is shown (the same runs, the mean or the selected query), drawn for a file:
        PNG (or another raster format by suffix) at 2400 x 1560 pixels, or SVG; written atomically."""
        from workbench.views.plots import figures

        results = self.session.results
        if results is None:
            raise ValueError("nothing to draw yet")
        fmt = image_format(path)
        drawn = self.drawing_for_file(fmt)(file_description(results, self.kind))
        fileio.write_bytes(path, figures.encode(drawn, fmt), overwrite=True, protect=protect)

    def drawing_for_file(self, fmt: str) -> Callable[[str], QImage | bytes]:
        """The plot as it is shown now (its results, runs, query and colours taken now), to be drawn for a
        file in format ``fmt``: a function of the file's description (:func:`file_description`) that draws
        it (GUI work) for :func:`workbench.views.plots.figures.encode`."""
        from workbench.views.plots import figures

        results = self.session.results
        if results is None:
            raise ValueError("nothing to draw yet")
        kind, query, runs = self.kind, self.session.selected_query, self.drawn_runs(results)
        styles = {run: None if item.quiet else item.run_index for run, item in self.curves.items()}

        def draw(described: str) -> QImage | bytes:
            scale = 1.0 if fmt == "svg" else figures.SCALE
            figure = figures.curve_figure(results, kind, query=query, runs=runs, styles=styles, scale=scale)
            return figures.draw(figure, fmt, described)

        return draw


def file_description(results, kind: str) -> str:
    """What a plot's file states of how its numbers were made (its metadata); the program's version is
    looked up on disk the first time: a worker's job."""
    from workbench.state.export import settings_of

    return "\n".join(f"{k}: {v}" for k, v in settings_of(results, curves=kind != "pr"))


def image_format(path: str) -> str:
    """The image format a file's suffix asks for (PNG without one)."""
    return path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else "png"


class PrecisionRecallPlot(CurvePlot):
    """The interpolated precision-recall curves of the runs shown, per query or averaged."""

    kind = "pr"
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
    """The runs' NDCG at every cutoff k from 1 to the settings' k, per query or averaged."""

    kind = "ndcg"
    title = "NDCG at every cutoff k"
    x_label = "k (rank cutoff)"
    y_label = "NDCG@k"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.k_box = QSpinBox(self)
        self.k_box.setRange(1, K_LIMIT)
        self.k_box.setValue(session.settings.k_max)
        self.k_box.setPrefix("K = ")
        self.k_box.setKeyboardTracking(False)
        self.k_box.setToolTip("Largest cutoff k shown (computed again on change)")
        self.bar.addWidget(self.k_box)
        self.extra_controls.append(self.k_box)
        self.k_box.valueChanged.connect(session.model.set_k_max)
        session.sigMeasuresChanged.connect(self._sync_k)
        self.set_ranges(None)

    def _sync_k(self) -> None:
        if self.k_box.value() != self.session.settings.k_max:
            self.k_box.blockSignals(True)
            self.k_box.setValue(self.session.settings.k_max)
            self.k_box.blockSignals(False)

    def table(self, results):
        return results.ndcg

    def set_ranges(self, results) -> None:
        k = self.session.settings.k_max if results is None else results.request.k_max
        self.plot.setXRange(1, max(2, k), padding=0.02)
        self.plot.setYRange(0.0, 1.0, padding=0.05)
