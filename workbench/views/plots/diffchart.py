"""Per-query difference chart: one bar per query, run minus baseline, sorted.

Bars come from the comparison the session computed in a worker
(:func:`metrics.compare.per_query_differences` for every measure); the chart
only lays them out.  One run at a time (gains green, losses red) or all runs
side by side (one colour per run; with more than :data:`~workbench.views.common.run_styles.MAX_CURVES`, the best
ones by the measure shown, as the plots draw them).  Clicking a bar selects its query in the
session, and the selected query is outlined.
"""

from __future__ import annotations

from html import escape as esc

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from metrics.measures import is_count
from workbench.views.common.copy_image import install_copy_image
from workbench.views.common.run_styles import MAX_CURVES, coloured_runs, run_colour

GAIN = (46, 160, 67)
LOSS = (214, 39, 40)
ALL_RUNS = "\x00all"  # item data of the "all runs" choice
CLICK_HINT = "Click a bar to select its query in every view (then ← → for the neighbours)"


def layout_bars(differences: pd.DataFrame, runs: list[str]) -> pd.DataFrame:
    """Where each bar goes: columns ``query_id, run, delta, baseline_value, value, slot, x, width``.

    One run: the frame's order (largest gain first), ``slot`` 0, 1, 2...
    Several runs: queries ordered by their mean difference over the runs
    (largest first, then query id), the runs' bars side by side in each slot.
    """
    cols = ["query_id", "run", "delta", "baseline_value", "value", "slot", "x", "width"]
    frame = differences.loc[differences["run"].isin(runs)].reset_index(drop=True)
    if frame.empty:
        return pd.DataFrame(columns=cols)
    frame = frame.copy()
    if len(runs) == 1:
        frame["slot"] = np.arange(len(frame))
        frame["x"] = frame["slot"].astype(float)
        frame["width"] = 0.8
        return frame[cols]
    mean = frame.groupby("query_id", sort=False)["delta"].mean()
    order = sorted(mean.index, key=lambda q: (-mean[q], str(q)))
    slot = {q: i for i, q in enumerate(order)}
    have = set(pd.unique(frame["run"]))  # once: a set made per run took seconds for a thousand runs
    present = [r for r in runs if r in have]
    k = len(present)
    width = 0.8 / k
    pos = {r: i for i, r in enumerate(present)}
    frame["slot"] = frame["query_id"].map(slot).astype(np.int64)
    frame["x"] = frame["slot"] - 0.4 + width * (frame["run"].map(pos) + 0.5)
    frame["width"] = width
    frame = frame.sort_values(["slot", "x"], kind="stable").reset_index(drop=True)
    return frame[cols]


class DifferenceChart(QWidget):
    """Bars of (run - baseline) per query for the session's focus measure."""

    #: a bar was clicked: (run, query id, measure), for the explain view
    sigBarClicked = Signal(str, str, str)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.measure_box = QComboBox(self)
        self.measure_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.measure_box.setMinimumContentsLength(6)
        self.measure_box.setToolTip("Measure compared per query")
        self.run_box = QComboBox(self)
        self.run_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.run_box.setMinimumContentsLength(6)
        self.run_box.setToolTip("Run compared with the baseline (or all runs side by side)")
        self.caption = QLabel(self)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.caption.setWordWrap(True)  # a narrow chart: the caption on two lines rather than cut
        self.plot = pg.PlotWidget(self, background="w")
        self.copy_image_action = install_copy_image(self.plot)  # its menu and Ctrl+C
        self.plot.setMinimumSize(160, 120)
        self.plot.setToolTip(CLICK_HINT)
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.plot.installEventFilter(self)
        item = self.plot.getPlotItem()
        item.showGrid(x=False, y=True, alpha=0.25)
        item.setLabel("left", "Δ (run − baseline)")
        item.setLabel("bottom", "queries, largest gain first")
        item.getViewBox().setMouseEnabled(x=True, y=False)
        item.hideButtons()
        item.getAxis("left").enableAutoSIPrefix(False)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(60, 60, 60))
            item.getAxis(axis).setTextPen(pg.mkPen(40, 40, 40))
        self.zero = pg.InfiniteLine(pos=0, angle=0, movable=False, pen=pg.mkPen(80, 80, 80, width=1))
        self.plot.addItem(self.zero)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.plot.addItem(self.bars)
        self.highlight = pg.BarGraphItem(
            x=[], height=[], width=0.8, brush=pg.mkBrush(0, 0, 0, 0), pen=pg.mkPen(20, 20, 20, width=2)
        )
        self.highlight.setZValue(10)
        self.plot.addItem(self.highlight)
        self._frame: pd.DataFrame = layout_bars(
            pd.DataFrame(columns=["query_id", "run", "delta", "baseline_value", "value"]), []
        )
        #: the query id under each slot of the bars, and the width of the longest in the axis's font: found
        #: when the bars change, not at each resize (the ticks only thin out or fill in then)
        self._labels: dict[int, str] = {}
        self._longest = 0
        item.getViewBox().sigResized.connect(lambda _: self._set_ticks())
        self.legend = pg.LegendItem(colCount=4, labelTextColor=(30, 30, 30), labelTextSize="9pt")
        item.layout.addItem(self.legend, 4, 1)
        self._legend_items: list[pg.BarGraphItem] = []

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 0, 4, 0)
        bar.addWidget(QLabel("Measure:", self))
        bar.addWidget(self.measure_box)
        bar.addWidget(QLabel("Run:", self))
        bar.addWidget(self.run_box)
        bar.addStretch(1)
        self.caption.setContentsMargins(4, 0, 4, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot, 1)

        self.measure_box.activated.connect(lambda _: self._on_measure_chosen())
        self.run_box.activated.connect(lambda _: self.refresh())
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        self.plot.scene().sigMouseMoved.connect(self._on_hover)
        session.sigComparisonChanged.connect(lambda _: self.refresh())
        session.sigFocusMeasureChanged.connect(lambda _: session.after_paint.in_turn(self.refresh))
        session.sigQueryChanged.connect(lambda _: self._update_highlight())
        self.refresh()

    # -- what is shown ---------------------------------------------------
    def chosen_runs(self) -> list[str]:
        comparison = self.session.comparison
        if comparison is None:
            return []
        others = [r for r in comparison.request.runs if r != comparison.request.baseline]
        data = self.run_box.currentData()
        if data == ALL_RUNS:
            return self._side_by_side(others)
        if data not in others:
            return others[:1]
        return [data]

    def _side_by_side(self, others: list[str]) -> list[str]:
        """The runs side by side: every one when they are few, else those the plots draw in colour (the best
        :data:`MAX_CURVES` by the measure shown, the baseline among them or not), without the baseline: a
        thousand bars per query, and a legend of a thousand runs, say nothing and take seconds."""
        comparison = self.session.comparison
        drawn = coloured_runs(
            comparison.request.runs, self.session.results, self.measure_box.currentText(), comparison.request.baseline
        )
        return [r for r in drawn if r != comparison.request.baseline]

    def set_run(self, run: str | None) -> None:
        """Show one run against the baseline (None: all runs)."""
        i = self.run_box.findData(ALL_RUNS if run is None else run)
        if i >= 0:
            self.run_box.setCurrentIndex(i)
            self.refresh()

    def data(self) -> pd.DataFrame:
        """The bars shown: query_id, run, delta, baseline_value, value, slot, x, width."""
        return self._frame.copy()

    def query_at(self, x: float) -> str | None:
        """Query of the bar slot nearest to ``x`` (in data coordinates), or None."""
        if self._frame.empty:
            return None
        slot = int(np.floor(x + 0.5))
        hit = self._frame.loc[self._frame["slot"] == slot]
        if hit.empty or abs(x - slot) > 0.5:
            return None
        return str(hit["query_id"].iloc[0])

    def bar_at(self, x: float) -> tuple[str, str] | None:
        """(run, query) of the bar under ``x`` (in data coordinates), or None."""
        if self._frame.empty:
            return None
        hit = self._frame.loc[(self._frame["x"] - x).abs() <= self._frame["width"] / 2]
        if hit.empty:
            return None
        return str(hit["run"].iloc[0]), str(hit["query_id"].iloc[0])

    # -- session -> view -------------------------------------------------
    def _sync_boxes(self, comparison) -> None:
        measures = [] if comparison is None else list(comparison.differences)
        measures = [m for m in measures if not is_count(m)] or measures
        focus = self.session.focus_measure
        self.measure_box.blockSignals(True)
        if [self.measure_box.itemText(i) for i in range(self.measure_box.count())] != measures:
            self.measure_box.clear()
            self.measure_box.addItems(measures)
        if focus in measures:
            self.measure_box.setCurrentText(focus)
        self.measure_box.blockSignals(False)
        others = [] if comparison is None else [r for r in comparison.request.runs if r != comparison.request.baseline]
        side_by_side = "all runs" if len(others) <= MAX_CURVES else "best runs"
        wanted = [(r, r) for r in others] + ([(side_by_side, ALL_RUNS)] if len(others) > 1 else [])
        current = [(self.run_box.itemText(i), self.run_box.itemData(i)) for i in range(self.run_box.count())]
        if current != wanted:
            keep = self.run_box.currentData()
            self.run_box.blockSignals(True)
            self.run_box.clear()
            for text, data in wanted:
                self.run_box.addItem(text, data)
            i = self.run_box.findData(keep)
            self.run_box.setCurrentIndex(i if i >= 0 else 0)
            self.run_box.blockSignals(False)

    def refresh(self) -> None:
        comparison = self.session.comparison
        self._sync_boxes(comparison)
        measure = self.measure_box.currentText()
        runs = self.chosen_runs()
        if comparison is None or not measure or not runs:
            self._use_frame(
                layout_bars(pd.DataFrame(columns=["query_id", "run", "delta", "baseline_value", "value"]), [])
            )
            self.bars.setOpts(x=[], height=[], width=0.8)
            self._set_legend([])
            self._set_ticks()  # no query id of earlier data stays under the axis
            self.caption.setText("Per-query differences need a baseline and another run")
            self._update_highlight()
            return
        self._use_frame(layout_bars(comparison.differences_for(measure), runs))
        f = self._frame
        delta = f["delta"].to_numpy(dtype=float)
        if len(runs) == 1:
            brushes = [pg.mkBrush(*(GAIN if d > 0 else LOSS if d < 0 else (150, 150, 150))) for d in delta]
            self._set_legend([])
            wins, losses = int((delta > 0).sum()), int((delta < 0).sum())
            ties = len(delta) - wins - losses
            mean = float(delta.mean()) if len(delta) else float("nan")
            self.caption.setText(
                f"<b>{esc(runs[0])}</b> − {esc(comparison.request.baseline)}, {esc(measure)}: "
                f"<span style='color:#2e7d32'>{wins} better</span>, {ties} equal, "
                f"<span style='color:#c62828'>{losses} worse</span>, mean Δ {mean:+.4f}"
            )
        else:
            # each run in its colour in the plots: by its place among the runs they draw in colour
            shown = set(runs) | {comparison.request.baseline}
            place = {r: i for i, r in enumerate(r for r in comparison.request.runs if r in shown)}
            colour = {r: run_colour(place[r]) for r in runs}
            brush = {r: pg.mkBrush(*c) for r, c in colour.items()}
            brushes = [brush[r] for r in f["run"]]
            self._set_legend(list(colour.items()))
            others = len(comparison.request.runs) - 1
            which = "All runs" if len(runs) == others else f"Best {len(runs)} of {others} runs"
            self.caption.setText(
                f"{which} − {esc(comparison.request.baseline)} on <b>{esc(measure)}</b>, queries by mean Δ"
            )
        self.plot.getPlotItem().setLabel(
            "bottom", "queries, largest gain first" if len(runs) == 1 else "queries, largest mean gain first"
        )
        self.bars.setOpts(
            x=f["x"].to_numpy(dtype=float),
            height=delta,
            width=f["width"].to_numpy(dtype=float),
            brushes=brushes or None,
            pens=[None] * len(f) or None,
        )  # pyqtgraph fails on empty per-bar lists
        n = int(f["slot"].max()) + 1 if len(f) else 0
        self._set_ticks()
        self.plot.setXRange(-0.7, max(n, 1) - 0.3, padding=0)
        span = float(np.max(np.abs(delta))) if len(delta) else 1.0
        span = span if span > 0 else 1.0
        self.plot.setYRange(-span * 1.05, span * 1.05, padding=0)
        self._update_highlight()

    def _use_frame(self, frame: pd.DataFrame) -> None:
        """Bars laid out (:func:`layout_bars`), with the query id under each of their slots and the widest of them."""
        self._frame = frame
        if not len(frame):
            self._labels, self._longest = {}, 0
            return
        slots = frame.drop_duplicates("slot")
        self._labels = dict(zip(slots["slot"].tolist(), slots["query_id"].astype(str)))
        axis = self.plot.getPlotItem().getAxis("bottom")
        metrics = QFontMetrics(axis.style.get("tickFont") or self.plot.font())
        self._longest = max(metrics.horizontalAdvance(s) for s in self._labels.values())

    def _set_ticks(self) -> None:
        """Query ids under the bars, as many as fit."""
        axis = self.plot.getPlotItem().getAxis("bottom")
        if not self._labels:
            axis.setTicks([[]])
            return
        n = max(self._labels) + 1
        width = max(self.plot.getPlotItem().getViewBox().width(), 50)
        step = max(1, int(np.ceil(n * (self._longest + 10) / width)))
        axis.setTicks([[(float(s), self._labels[s]) for s in range(0, n, step) if s in self._labels], []])

    def _set_legend(self, entries) -> None:
        self.legend.clear()
        self._legend_items = []
        for run, colour in entries:
            sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=pg.mkBrush(*colour))
            self._legend_items.append(sample)
            self.legend.addItem(sample, run)
        self.legend.setVisible(bool(entries))

    def _update_highlight(self) -> None:
        query = self.session.selected_query
        f = self._frame
        hit = f.loc[f["query_id"] == query] if query is not None and len(f) else f.iloc[0:0]
        self.highlight.setOpts(
            x=hit["x"].to_numpy(dtype=float),
            height=hit["delta"].to_numpy(dtype=float),
            width=hit["width"].to_numpy(dtype=float) if len(hit) else 0.8,
            brush=pg.mkBrush(0, 0, 0, 0),
            pen=pg.mkPen(20, 20, 20, width=2),
        )

    # -- view -> session -------------------------------------------------
    def _on_measure_chosen(self) -> None:
        name = self.measure_box.currentText()
        if name:
            self.session.model.set_focus_measure(name)
        self.refresh()

    def step(self, delta: int) -> None:
        """Select the query ``delta`` bars to the right (negative: left) of the selected one."""
        f = self._frame
        if f.empty:
            return
        slots = f.drop_duplicates("slot").sort_values("slot")
        queries = slots["query_id"].astype(str).tolist()
        current = self.session.selected_query
        if current in queries:
            i = min(max(queries.index(current) + delta, 0), len(queries) - 1)
        else:
            i = 0 if delta > 0 else len(queries) - 1
        self.session.model.select_query(queries[i])

    def eventFilter(self, obj, event) -> bool:
        if obj is self.plot and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right):
                self.step(-1 if event.key() == Qt.Key.Key_Left else 1)
                return True
        return super().eventFilter(obj, event)

    def click_query(self, query_id) -> None:
        """What a click on a bar does: select its query everywhere."""
        if query_id is not None:
            self.session.model.select_query(query_id)

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        x = vb.mapSceneToView(event.scenePos()).x()
        self.click_query(self.query_at(x))
        bar = self.bar_at(x)
        measure = self.measure_box.currentText()
        if bar is not None and measure:
            self.sigBarClicked.emit(bar[0], bar[1], measure)

    def _on_hover(self, pos) -> None:
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            self.plot.setToolTip(CLICK_HINT)
            return
        query = self.query_at(vb.mapSceneToView(pos).x())
        if query is None:
            self.plot.setToolTip(CLICK_HINT)
            return
        rows = self._frame.loc[self._frame["query_id"] == query]
        lines = [f"query {query} (click to select it)"] + [
            f"{r.run}: {r.value:.4f} vs {r.baseline_value:.4f} (Δ {r.delta:+.4f})" for r in rows.itertuples()
        ]
        self.plot.setToolTip("\n".join(lines))
