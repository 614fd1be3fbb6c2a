"""Do the measures agree?  Kendall's tau between the orderings of the runs by every two of the measures
shown, as a matrix (blue: the same order, red: the reverse), and the pairs of runs whose order flips
between two measures; a click on a cell lists that pair of measures' flips only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.model import analyses
from workbench.views.analysis_follow import AdaptiveSplitter, AnalysisFollower, ExportButton, fill_table

if TYPE_CHECKING:
    from workbench.session import Session


def tau_colour(tau: float) -> QColor:
    """Blue for agreement, red for the reverse order, white for none; grey for NaN."""
    if tau != tau:
        return QColor(235, 235, 235)
    t = min(1.0, abs(tau))
    return (
        QColor(int(255 - t * 222), int(255 - t * 153), int(255 - t * 83))
        if tau >= 0
        else QColor(int(255 - t * 41), int(255 - t * 216), int(255 - t * 215))
    )


class AgreementView(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(session, self, "agreement", "measure agreement", self.settings, self.banner)
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        self.all_button = QPushButton("All flips", self)
        self.all_button.setToolTip("List the flips of every pair of measures")
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        bar.addWidget(self.caption, 1)
        bar.addWidget(self.export)
        self.matrix = QTableWidget(0, 0, self)
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix.setTabKeyNavigation(False)
        self.matrix.setMinimumHeight(36)
        self.matrix.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.matrix.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.matrix.setToolTip("Click a cell to list the pairs of runs the two measures order differently")
        self.flips_caption = QLabel(self)
        self.flips_caption.setWordWrap(True)
        self.flips = QTableWidget(0, 0, self)
        self.flips.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.flips.verticalHeader().hide()
        self.flips.setMinimumHeight(36)
        lower = QWidget(self)
        box = QVBoxLayout(lower)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.flips_caption, 1)
        row.addWidget(self.all_button)
        box.addLayout(row)
        box.addWidget(self.flips, 1)
        split = AdaptiveSplitter(Qt.Orientation.Vertical, self, share=0.5)
        split.addWidget(self.matrix)
        split.addWidget(lower)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)
        self.pair: tuple[str, str] | None = None
        self.matrix.cellClicked.connect(self._on_cell)
        self.all_button.clicked.connect(lambda: self._show_flips(None))
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        self.refresh()

    def settings(self) -> analyses.AgreementSettings | None:
        results = self.session.results
        if results is None or len(results.runs) < 2 or len(results.measures) < 2:
            return None
        return analyses.AgreementSettings(tuple(results.measures))

    def measures(self) -> list[str]:
        o = self.follower.outcome
        return [] if o is None else list(o.tables["tau"].index)

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            self.flips.setRowCount(0)
            self.caption.setText("Two runs and two measures are needed." if self.session.results else "")
            self.flips_caption.setText("")
            return
        tau = o.tables["tau"]
        names = list(tau.index)
        p = o.tables["tau_p"].set_index(["measure_a", "measure_b"])
        self.matrix.setRowCount(len(names))
        self.matrix.setColumnCount(len(names))
        self.matrix.setHorizontalHeaderLabels(names)
        self.matrix.setVerticalHeaderLabels(names)
        values = tau.to_numpy(dtype=float)
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                v = values[i, j]
                item = QTableWidgetItem("–" if v != v else f"{v:+.2f}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setBackground(tau_colour(v))
                item.setForeground(QColor("white") if v == v and abs(v) > 0.6 else QColor(20, 20, 20))
                key = (a, b) if (a, b) in p.index else (b, a)
                if i != j and key in p.index:
                    r = p.loc[key]
                    item.setToolTip(f"{a} and {b}: tau = {v:+.4f} over {int(r['runs'])} runs (p = {r['p_value']:.3g})")
                self.matrix.setItem(i, j, item)
        n = len(o.inputs.summary)
        self.caption.setText(f"Kendall's tau-b, {n} runs")
        self.caption.setToolTip(
            f"Kendall's tau-b between the orders of the {n} runs by each two measures (1: the same order, "
            "-1: the reverse); click a cell to list the pairs of runs the two order differently"
        )
        self._show_flips(self.pair if self.pair and set(self.pair) <= set(names) else None)

    def cell_text(self, a: str, b: str) -> str:
        names = self.measures()
        item = self.matrix.item(names.index(a), names.index(b))
        return "" if item is None else item.text()

    def _on_cell(self, row: int, column: int) -> None:
        names = self.measures()
        if row != column and row < len(names) and column < len(names):
            self._show_flips((names[min(row, column)], names[max(row, column)]))

    def shown_flips(self) -> pd.DataFrame:
        o = self.follower.outcome
        if o is None:
            return pd.DataFrame()
        flips = o.tables["flips"]
        if self.pair is not None:
            a, b = self.pair
            flips = flips[(flips["measure_a"] == a) & (flips["measure_b"] == b)]
        return flips.reset_index(drop=True)

    def _show_flips(self, pair: tuple[str, str] | None) -> None:
        self.pair = pair
        flips = self.shown_flips()
        fill_table(self.flips, flips)
        which = "every two measures" if pair is None else f"{pair[0]} and {pair[1]}"
        self.flips_caption.setText(f"<b>{len(flips)}</b> flips by {which}")

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: tau and its p-value for every two measures, as ``ir-eval --agreement --format csv``."""
        o = self.follower.outcome
        return None if o is None else o.tables["tau_p"]
