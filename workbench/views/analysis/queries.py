"""Queries: traits and difficulty.  A scatter of a trait of each query (its relevant or judged documents,
its length in terms when query texts are loaded) against the mean of a measure over the runs, with
Spearman's rho; and the hardest, easiest and most disputed queries.  A click on a point or a listed
query selects it in the session (its drill-down opens).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.state import analyses
from workbench.views.analysis.follow import AdaptiveSplitter, AnalysisFollower, ExportButton, controls, pane
from workbench.views.analysis.versus import _combo, set_items
from workbench.views.common.copy_image import install_copy_image

TRAIT_TEXT = {"relevant": "relevant documents", "judged": "judged documents", "length": "length (terms)"}
LISTS = (
    ("hardest", "Hardest", "the lowest mean over the runs"),
    ("easiest", "Easiest", "the highest mean over the runs"),
    ("disputed", "Disputed", "the largest spread (standard deviation) over the runs"),
)

if TYPE_CHECKING:
    from workbench.qt.session import Session


class QueriesView(QWidget):
    """The queries by difficulty over the runs, beside their traits (relevant, judged, length)."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.measure_box = _combo(self, "Measure whose mean over the runs is a query's difficulty")
        self.trait_box = _combo(self, "Trait of the query plotted across")
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "queries", "query traits", settings=self.settings, banner=self.banner
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        bar = controls(self, "Measure:", self.measure_box, self.export, top=True)
        row2 = controls(self, "Trait:", self.trait_box)
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
        self.points = pg.ScatterPlotItem(
            size=8,
            brush=pg.mkBrush(31, 119, 180, 180),
            pen=pg.mkPen(31, 119, 180),
            hoverable=True,
            tip=lambda x, y, data: f"{data}: {x:g}, mean {y:.4f}",
        )
        self.plot.addItem(self.points)
        self.ring = pg.ScatterPlotItem(size=16, brush=pg.mkBrush(0, 0, 0, 0), pen=pg.mkPen(20, 20, 20, width=2))
        self.ring.setZValue(10)
        self.plot.addItem(self.ring)
        self.lists: dict[str, QListWidget] = {}
        lists = QWidget(self)
        row = QHBoxLayout(lists)
        row.setContentsMargins(0, 0, 0, 0)
        for kind, title, tip in LISTS:
            column = QVBoxLayout()
            label = QLabel(f"<b>{title}</b>", self)
            label.setToolTip(f"{title}: {tip}")
            column.addWidget(label)
            widget = QListWidget(self)
            widget.setToolTip(f"{title} queries ({tip}); click one to select it (its drill-down opens)")
            widget.setMinimumSize(40, 36)
            widget.itemClicked.connect(lambda it: self.session.model.select_query(it.data(Qt.ItemDataRole.UserRole)))
            column.addWidget(widget, 1)
            row.addLayout(column)
            self.lists[kind] = widget
        split = AdaptiveSplitter(Qt.Orientation.Vertical, self, share=0.6)
        split.addWidget(self.plot)
        split.addWidget(lists)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        pane(self, [bar, row2], self.banner, self.caption, split)

        self.measure_box.activated.connect(lambda _: self.follower.changed())
        self.trait_box.activated.connect(lambda _: self.refresh())
        self.points.sigClicked.connect(self._on_click)
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        session.sigFilesChanged.connect(self.follower.changed)  # (query texts loaded: their length)
        session.sigQueryChanged.connect(lambda _: self._ring())
        self._xy = pd.DataFrame(columns=["query_id", "x", "y"])
        self.refresh()

    def settings(self) -> analyses.QueriesSettings | None:
        results = self.session.results
        if results is None or not results.runs or not results.measures:
            return None
        measures = list(results.measures)
        current = self.measure_box.currentText()
        set_items(self.measure_box, measures, current if current in measures else self.session.focus_measure)
        return analyses.QueriesSettings(
            self.measure_box.currentText(), texts=analyses.query_texts(self.session.workspace)
        )

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self.points.setData([], [])
            self.ring.setData([], [])
            for widget in self.lists.values():
                widget.clear()
            self.caption.setText("")
            return
        traits = o.tables["traits"]
        present = [t for t in TRAIT_TEXT if t in traits.columns]
        current = self.trait_box.currentData()
        self.trait_box.blockSignals(True)
        self.trait_box.clear()
        for t in present:
            self.trait_box.addItem(TRAIT_TEXT[t], t)
        self.trait_box.setCurrentIndex(max(0, present.index(current)) if current in present else 0)
        self.trait_box.blockSignals(False)
        trait = self.trait_box.currentData()
        xy = pd.DataFrame({"query_id": traits["query_id"], "x": traits[trait], "y": traits["mean"]}).dropna()
        self._xy = xy
        self.points.setData(x=xy["x"].to_numpy(dtype=float), y=xy["y"].to_numpy(dtype=float), data=list(xy["query_id"]))
        item = self.plot.getPlotItem()
        item.setLabel("bottom", TRAIT_TEXT[trait])
        item.setLabel("left", f"mean {o.settings.measure} over the runs")
        corr = o.tables["correlations"].set_index("trait")
        rho, p, n = corr.loc[trait, "rho"], corr.loc[trait, "p_value"], int(corr.loc[trait, "queries"])
        said = "–" if rho != rho else f"{rho:+.3f} (p = {p:.3g})"
        no_texts = "" if "length" in present else " Load query texts for their length."
        self.caption.setText(f"Spearman's rho <b>{said}</b>, {n} queries.{no_texts}")
        self.caption.setToolTip(
            f"Spearman's rho of {TRAIT_TEXT[trait]} against the mean {o.settings.measure} over the runs, "
            f"over the {n} queries where both are known"
        )
        extremes = o.tables["extremes"]
        for kind, widget in self.lists.items():
            widget.clear()
            for _, r in extremes[extremes["kind"] == kind].iterrows():
                spread = "" if r["std"] != r["std"] else f", spread {r['std']:.3f}"
                shown = r["std"] if kind == "disputed" else r["mean"]
                entry = QListWidgetItem(f"{r['query_id']}  {shown:.3f}")
                entry.setToolTip(f"{r['query_id']}: mean {r['mean']:.4f}{spread} over the runs")
                entry.setData(Qt.ItemDataRole.UserRole, str(r["query_id"]))
                widget.addItem(entry)
        self._ring()

    def listed(self, kind: str) -> list[str]:
        widget = self.lists[kind]
        return [widget.item(i).data(Qt.ItemDataRole.UserRole) for i in range(widget.count())]

    def _ring(self) -> None:
        q = self.session.selected_query
        rows = self._xy[self._xy["query_id"] == q] if q is not None else self._xy.iloc[0:0]
        self.ring.setData(x=rows["x"].to_numpy(dtype=float), y=rows["y"].to_numpy(dtype=float))

    def _on_click(self, _item, points, *_) -> None:
        if len(points):
            self.session.model.select_query(str(points[0].data()))

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: one row per query, as ``ir-eval --traits --format csv`` writes it."""
        o = self.follower.outcome
        return None if o is None else o.tables["traits"]
