"""Rank overlap between runs: a run-by-run matrix of the mean RBO_ext (or Jaccard index) over the
queries both runs answer, and, for one query, the runs' top documents side by side with the documents
two neighbouring runs share linked (the idea of NIST's BeadPlot).

A bead is a document: filled green when the qrels judge it relevant, grey when judged non-relevant,
hollow orange when unjudged; large when another run shown retrieved it too.  The query is the one
selected in the session (the first evaluated when none is); a click on a cell of the matrix puts that
pair side by side, "All runs" every run again (at most :data:`MAX_COLUMNS`).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from metrics.ranking.qrels_index import NONPOOL
from workbench.state import analyses
from workbench.views.analysis.follow import AdaptiveSplitter, AnalysisFollower, ExportButton, matrix_view, pane
from workbench.views.common.copy_image import install_copy_image

if TYPE_CHECKING:
    from workbench.qt.session import Session

#: runs drawn side by side at most (the first ones, in the order of the files)
MAX_COLUMNS = 12
RELEVANT, NON_RELEVANT, UNJUDGED = (46, 160, 67), (150, 150, 150), (230, 120, 20)


class OverlapView(QWidget):
    """The overlap matrix over the beads of one query."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.value_box = QComboBox(self)
        self.value_box.addItem("RBO", "rbo")
        self.value_box.addItem("Jaccard", "jaccard")
        self.value_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.value_box.setMinimumContentsLength(3)
        self.value_box.setToolTip("RBO_ext (top-weighted, persistence p) or the Jaccard index of the top-K sets")
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, 1000)
        self.depth_box.setValue(10)
        self.depth_box.setToolTip("K: the top documents of each run compared")
        self.p_box = QDoubleSpinBox(self)
        self.p_box.setRange(0.01, 0.99)
        self.p_box.setSingleStep(0.05)
        self.p_box.setDecimals(2)
        self.p_box.setValue(0.9)
        self.p_box.setToolTip("RBO's persistence p: the chance of looking at the next document (0.9: about 10 deep)")
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "overlap", "rank overlap", settings=self.settings, banner=self.banner
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(self.value_box)
        for label, widget in (("K:", self.depth_box), ("p:", self.p_box)):
            bar.addWidget(QLabel(label, self))
            bar.addWidget(widget)
        bar.addStretch(1)

        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.matrix, self.matrix_model = matrix_view(self)
        self.matrix_model.tip = self._tip
        self.matrix.setToolTip("Click a cell to put the two runs side by side below")

        self.bead_caption = QLabel(self)
        self.bead_caption.setWordWrap(True)
        self.all_button = QPushButton("All", self)
        self.all_button.setToolTip(f"Every run side by side (the first {MAX_COLUMNS})")
        self.plot = pg.PlotWidget(self, background="w")
        self.copy_image_action = install_copy_image(self.plot)
        self.plot.setMinimumSize(120, 60)
        item = self.plot.getPlotItem()
        item.hideButtons()
        item.setMenuEnabled(False)
        item.getAxis("left").setLabel("rank")
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(60, 60, 60))
            item.getAxis(axis).setTextPen(pg.mkPen(40, 40, 40))
        self.links = pg.PlotCurveItem(pen=pg.mkPen(90, 110, 200, 140, width=1.2))
        self.plot.addItem(self.links)
        self.beads = pg.ScatterPlotItem(hoverable=True, tip=lambda x, y, data: data)
        self.beads.setZValue(5)
        self.plot.addItem(self.beads)

        lower = QWidget(self)
        box = QVBoxLayout(lower)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.bead_caption, 1)
        row.addWidget(self.all_button)
        row.addWidget(self.export)
        box.addLayout(row)
        box.addWidget(self.plot, 1)
        self.legend = QLabel(
            "<span style='color:#2ea043'>●</span> relevant <span style='color:#969696'>●</span> judged "
            "<span style='color:#e67814'>○</span> unjudged; large: shared",
            self,
        )
        self.legend.setWordWrap(True)
        box.addWidget(self.legend)
        upper = QWidget(self)
        box = QVBoxLayout(upper)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.caption)
        box.addWidget(self.matrix, 1)
        self.split = split = AdaptiveSplitter(
            Qt.Orientation.Vertical,
            self,
            share=0.55,
            needs=lambda: self.matrix.minimumSizeHint().width(),
            tall=lambda: self.caption.sizeHint().height() + self.matrix.sizeHint().height() + 8,
        )
        split.addWidget(upper)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        pane(self, [bar], self.banner, split)

        self.pair: tuple[str, str] | None = None
        self._means = pd.DataFrame(columns=["run_a", "run_b", "queries", "jaccard", "rbo"]).set_index(
            ["run_a", "run_b"]
        )
        self.value_box.activated.connect(lambda _: self.refresh())
        self.depth_box.valueChanged.connect(lambda _: self.follower.changed())
        self.p_box.valueChanged.connect(lambda _: self.follower.changed())
        self.matrix.clicked.connect(lambda index: self._on_cell(index.row(), index.column()))
        self.all_button.clicked.connect(lambda: self._show_pair(None))
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        session.sigQueryChanged.connect(lambda _: self.refresh_beads())
        self.refresh()

    def settings(self) -> analyses.OverlapSettings | None:
        results = self.session.results
        if results is None or len(results.runs) < 2:
            return None
        return analyses.OverlapSettings(self.depth_box.value(), round(self.p_box.value(), 4))

    @property
    def value(self) -> str:
        return self.value_box.currentData()

    # -- the matrix ------------------------------------------------------------------------------
    def runs(self) -> list[str]:
        o = self.follower.outcome
        return [] if o is None else list(o.tables["rbo"].index)

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self.matrix_model.set_matrix(np.zeros((0, 0)), [])
            self.caption.setText("Rank overlap needs at least two runs." if self.session.results else "")
            self.refresh_beads()
            return
        frame = o.tables[self.value]
        self._means = o.tables["means"].set_index(["run_a", "run_b"])
        name = "RBO" if self.value == "rbo" else "Jaccard"
        self.matrix_model.set_matrix(frame.to_numpy(dtype=float), list(frame.index))
        self.split.refit()  # (beside the beads, or above them when the matrix's numbers need the width)
        s = o.settings
        self.caption.setText(f"<b>Mean {name}</b>, top {s.depth}" + (f", p = {s.p:g}" if self.value == "rbo" else ""))
        self.caption.setToolTip(
            f"The mean {name} of the top {s.depth} documents of two runs over the queries both answer "
            "(1: the same ranking, 0: no document in common)"
        )
        self.refresh_beads()

    def _tip(self, i: int, j: int) -> str | None:
        runs, means = self.runs(), self._means
        if i == j or not (0 <= i < len(runs) and 0 <= j < len(runs)):
            return None
        a, b = runs[i], runs[j]
        key = (a, b) if (a, b) in means.index else (b, a)
        if key not in means.index:
            return f"{a} and {b} answer no query in common"
        # (a whole label of the (run_a, run_b) index picks one row; pandas-stubs read the pair as (row, column))
        m = cast(pd.Series, means.loc[key])
        return (
            f"{a} and {b}: mean RBO {m['rbo']:.4f}, mean Jaccard {m['jaccard']:.4f} over the {int(m['queries'])} "
            "queries both answer; click to see them side by side"
        )

    def cell_text(self, a: str, b: str) -> str:
        runs = self.runs()
        return str(self.matrix_model.index(runs.index(a), runs.index(b)).data())

    def table_frame(self) -> pd.DataFrame | None:
        """What the CSV export holds: a row per pair and query, then each pair's mean (query ``all``), as
        ``ir-eval --overlap --format csv`` writes them."""
        o = self.follower.outcome
        if o is None:
            return None
        cols = ["run_a", "run_b", "query_id", "jaccard", "rbo"]
        rows = o.tables["overlap"][cols]
        alls = o.tables["means"].assign(query_id="all")[cols]
        return pd.concat([rows, alls], ignore_index=True).rename(columns={"query_id": "query"})

    # -- one query's beads ---------------------------------------------------------------------
    def _on_cell(self, row: int, column: int) -> None:
        runs = self.runs()
        if row != column and row < len(runs) and column < len(runs):
            self._show_pair((runs[row], runs[column]))

    def _show_pair(self, pair: tuple[str, str] | None) -> None:
        self.pair = pair
        self.refresh_beads()

    def bead_query(self) -> str | None:
        o, results = self.follower.outcome, self.session.results
        if o is None or results is None:
            return None
        q = self.session.selected_query
        return str(q) if q is not None else (results.query_ids[0] if results.query_ids else None)

    def refresh_beads(self) -> analyses.Beads | None:
        o, query = self.follower.outcome, self.bead_query()
        if o is None or query is None:
            self.links.setData([], [])
            self.beads.setData([], [])
            self.bead_caption.setText("")
            self.current_beads = None
            return None
        runs = list(self.pair) if self.pair is not None else self.runs()[:MAX_COLUMNS]
        b = analyses.beads(o.extra["top"], query, runs)
        self.current_beads = b
        level = o.inputs.settings.relevance_level
        xs, ys, brushes, pens, sizes, tips = [], [], [], [], [], []
        for i, (docs, rels, shared) in enumerate(zip(b.docs, b.rels, b.shared)):
            for rank, (doc, rel, common) in enumerate(zip(docs, rels, shared)):
                xs.append(i)
                ys.append(rank + 1)
                hollow = rel == NONPOOL  # (a document listed with a negative grade is judged: grey)
                colour = UNJUDGED if hollow else RELEVANT if rel >= level else NON_RELEVANT
                brushes.append(pg.mkBrush(255, 255, 255) if hollow else pg.mkBrush(*colour))
                pens.append(pg.mkPen(*colour, width=1.5))
                sizes.append(11 if common else 6)
                tips.append(f"{b.runs[i]}, rank {rank + 1}: {doc}")
        self.beads.setData(x=xs, y=ys, brush=brushes, pen=pens, size=sizes, data=tips)
        lx, ly = [], []
        for i, ra, j, rb in b.links:
            lx += [i, j]
            ly += [ra + 1, rb + 1]
        self.links.setData(np.asarray(lx, dtype=float), np.asarray(ly, dtype=float), connect="pairs")
        item = self.plot.getPlotItem()
        # each run by its number in the matrix (names side by side overlapped: "bm25bm25_rm3"), named below
        numbers = {r: str(k + 1) for k, r in enumerate(self.matrix_model.labels)}
        item.getAxis("bottom").setTicks([[(i, numbers.get(r, _short(r))) for i, r in enumerate(b.runs)]])
        item.getViewBox().invertY(True)
        item.setXRange(-0.5, max(len(b.runs) - 0.5, 0.5), padding=0.02)
        item.setYRange(0.5, o.settings.depth + 0.5, padding=0.02)
        first = "" if self.session.selected_query is not None else " (no query selected: the first evaluated)"
        named = " · ".join(f"{numbers[r]} {html.escape(_short(r))}" for r in b.runs if r in numbers)
        self.bead_caption.setText(f"Query <b>{query}</b>" + (f": {named}" if named else ""))
        self.bead_caption.setToolTip(
            f"Query {query}{first}: the top {o.settings.depth} documents of each run, best first; a line joins a "
            "document two neighbouring runs share; a large bead is a document another run shown retrieved too"
        )
        return b


def _short(label: str, n: int = 14) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"
