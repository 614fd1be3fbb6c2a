"""One run against another, per query: a scatter of run A's value (up) against run B's (across) for a
measure, the diagonal drawn, each query a point coloured by A's win (above the diagonal), loss or tie.
Clicking a point selects its query in the session (its drill-down opens); the selected query is ringed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QLabel, QSizePolicy, QWidget

from workbench.state import analyses
from workbench.views.analysis.follow import AnalysisFollower, ExportButton, controls, pane
from workbench.views.common.copy_image import install_copy_image

if TYPE_CHECKING:
    from workbench.qt.session import Session

OUTCOME_COLOURS = {"win": (46, 160, 67), "loss": (214, 39, 40), "tie": (140, 140, 140)}


def _combo(parent: QWidget, tip: str) -> QComboBox:
    box = QComboBox(parent)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(4)
    box.setToolTip(tip)
    return box


def set_items(box: QComboBox, items: list[str], wanted: str | None) -> None:
    """Fill ``box`` with ``items`` (unless it holds them already), choosing ``wanted`` when it is one."""
    if [box.itemText(i) for i in range(box.count())] != items:
        box.blockSignals(True)
        box.clear()
        box.addItems(items)
        box.blockSignals(False)
    if wanted in items:
        box.setCurrentText(wanted)


class VersusView(QWidget):
    """Run A against run B on one measure, query by query: wins, losses and ties."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.measure_box = _combo(self, "Measure compared per query")
        self.a_box = _combo(self, "Run A (up): its wins lie above the diagonal")
        self.b_box = _combo(self, "Run B (across)")
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "versus", "run against run", settings=self.settings, banner=self.banner
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        bar = controls(self, "Measure:", self.measure_box, self.export, top=True)
        pair = controls(self, "A:", self.a_box, "B:", self.b_box)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.plot = pg.PlotWidget(self, background="w")
        self.copy_image_action = install_copy_image(self.plot)
        self.plot.setMinimumSize(120, 60)
        self.plot.setToolTip("Click a point to select its query (its drill-down opens)")
        item = self.plot.getPlotItem()
        item.hideButtons()
        item.showGrid(x=True, y=True, alpha=0.2)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(60, 60, 60))
            item.getAxis(axis).setTextPen(pg.mkPen(40, 40, 40))
            item.getAxis(axis).enableAutoSIPrefix(False)
        self.diagonal = pg.InfiniteLine(pos=(0, 0), angle=45, movable=False, pen=pg.mkPen(90, 90, 90, width=1))
        self.plot.addItem(self.diagonal)
        self._tips: dict[str, str] = {}
        self.points = pg.ScatterPlotItem(size=9, hoverable=True, tip=lambda x, y, data: self._tips.get(data, ""))
        self.plot.addItem(self.points)
        self.ring = pg.ScatterPlotItem(size=17, brush=pg.mkBrush(0, 0, 0, 0), pen=pg.mkPen(20, 20, 20, width=2))
        self.ring.setZValue(10)
        self.plot.addItem(self.ring)
        pane(self, [bar, pair], self.banner, self.caption, self.plot)

        for box in (self.measure_box, self.a_box, self.b_box):
            box.activated.connect(lambda _: self.follower.changed())
        self.points.sigClicked.connect(self._on_click)
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        session.sigQueryChanged.connect(lambda _: self._ring())
        self._frame = pd.DataFrame(columns=["query_id", "a", "b", "difference", "outcome"])
        self.refresh()

    def _sync_choices(self) -> None:
        """The measures and runs of the results shown; A the first run, B the baseline (or the second)."""
        results = self.session.results
        if results is None:
            return
        measures, runs = list(results.measures), list(results.runs)
        focus = self.session.focus_measure
        current = self.measure_box.currentText()
        set_items(self.measure_box, measures, current if current in measures else focus)
        a, b = self.a_box.currentText(), self.b_box.currentText()
        baseline = self.session.model.workspace.baseline_label()
        if a not in runs:
            a = next((r for r in runs if r != baseline), runs[0] if runs else "")
        if b not in runs or b == a:
            b = baseline if baseline is not None and baseline in runs and baseline != a else ""
            b = b or next((r for r in runs if r != a), "")
        set_items(self.a_box, runs, a)
        set_items(self.b_box, runs, b)

    def settings(self) -> analyses.VersusSettings | None:
        self._sync_choices()
        results = self.session.results
        m, a, b = self.measure_box.currentText(), self.a_box.currentText(), self.b_box.currentText()
        if results is None or len(results.runs) < 2 or not m or not a or not b or a == b:
            return None
        return analyses.VersusSettings(m, a, b)

    def choose(self, measure: str | None = None, a: str | None = None, b: str | None = None) -> None:
        """Show ``a`` against ``b`` on ``measure`` (each left as it is when None)."""
        for box, value in ((self.measure_box, measure), (self.a_box, a), (self.b_box, b)):
            if value is not None:
                box.setCurrentText(value)
        self.follower.changed()

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self._frame = self._frame.iloc[0:0]
            self.points.setData([], [])
            self.ring.setData([], [])
            self.caption.setText("Two runs are needed to compare them." if self.session.results else "")
            return
        s = o.settings
        frame = o.tables["versus"]
        self._frame = frame
        self.points.setData(
            x=frame["b"].to_numpy(dtype=float),
            y=frame["a"].to_numpy(dtype=float),
            brush=[pg.mkBrush(*OUTCOME_COLOURS[v], 200) for v in frame["outcome"]],
            pen=[pg.mkPen(*OUTCOME_COLOURS[v]) for v in frame["outcome"]],
            data=list(frame["query_id"]),
        )
        self._tips = {
            q: f"{q}: {s.run_a} {a:.4f}, {s.run_b} {b:.4f}"
            for q, a, b in zip(frame["query_id"], frame["a"], frame["b"])
        }
        item = self.plot.getPlotItem()
        item.setLabel("left", f"A: {s.run_a}")
        item.setLabel("bottom", f"B: {s.run_b}")
        values = pd.concat([frame["a"], frame["b"]]).to_numpy(dtype=float)
        low = float(min(0.0, values.min())) if len(values) else 0.0
        high = float(max(1.0, values.max())) if len(values) else 1.0
        item.setXRange(low, high, padding=0.05)
        item.setYRange(low, high, padding=0.05)
        c = o.extra["counts"]
        self.caption.setText(
            f"<b>{s.measure}</b>: A <span style='color:#2ea043'>wins {c['win']}</span>, "
            f"<span style='color:#d62728'>loses {c['loss']}</span>, ties {c['tie']} of {len(frame)} queries"
        )
        self.caption.setToolTip(
            f"{s.measure} per query both runs answer ({len(frame)}): A = {s.run_a} against B = {s.run_b}. "
            "Above the diagonal A is better; click a point to select its query"
        )
        self._ring()

    def _ring(self) -> None:
        q = self.session.selected_query
        rows = self._frame[self._frame["query_id"] == q] if q is not None else self._frame.iloc[0:0]
        self.ring.setData(x=rows["b"].to_numpy(dtype=float), y=rows["a"].to_numpy(dtype=float))

    def _on_click(self, _item, points, *_) -> None:
        if len(points):
            self.session.model.select_query(str(points[0].data()))

    def point_of(self, query_id: str) -> tuple[float, float, str] | None:
        """Where ``query_id``'s point is drawn (B's value, A's value) and its outcome."""
        rows = self._frame[self._frame["query_id"] == query_id]
        if rows.empty:
            return None
        r = rows.iloc[0]
        return float(r["b"]), float(r["a"]), str(r["outcome"])

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export, as ``ir-eval --versus --format csv`` writes it."""
        o = self.follower.outcome
        if o is None:
            return None
        s, f = o.settings, o.tables["versus"]
        return pd.DataFrame(
            {
                "query": f["query_id"],
                "run_a": s.run_a,
                "value_a": f["a"],
                "run_b": s.run_b,
                "value_b": f["b"],
                "difference": f["difference"],
                "outcome": f["outcome"],
            }
        )
