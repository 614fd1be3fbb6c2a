"""The runs x runs matrix of an all-pairs comparison, for the measure shown per query.

Row run minus column run: the mean difference and the corrected p-value,
green where the row run is significantly better, red where it is significantly
worse.  Clicking a cell makes the column run the baseline and shows the row
run's per-query differences against it in the difference chart.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from metrics.presentation import format_pvalue_cell

BETTER, WORSE, SAME = QColor(198, 239, 206), QColor(255, 199, 206), QColor(245, 245, 245)


class PairsView(QWidget):
    """Every pair of runs compared on every measure (All pairs), a pair chosen shown against the baseline."""

    sigPairChosen = Signal(str, str)  # (run, baseline): show run against baseline

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.table = QTableWidget(0, 0, self)
        self.table.setTabKeyNavigation(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.caption)
        layout.addWidget(self.table, 1)
        self.table.cellClicked.connect(self._on_cell)
        session.sigComparisonChanged.connect(lambda _: self.refresh())
        session.sigFocusMeasureChanged.connect(lambda _: self.refresh())
        self.refresh()

    def runs(self) -> list[str]:
        c = self.session.comparison
        return [] if c is None or c.pairs is None else list(c.request.paired)

    def refresh(self) -> None:
        c = self.session.comparison
        if c is None or c.pairs is None:
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.caption.setText("Choose “all pairs” in the Significance toolbar to compare every pair of runs.")
            return
        from metrics.compare.allpairs import letter

        measures = list(dict.fromkeys(str(m) for m in c.pairs["measure"]))
        measure = self.session.focus_measure if self.session.focus_measure in measures else (measures or [""])[0]
        self.measure = measure
        runs = self.runs()
        labels = [f"({letter(i)}) {r}" for i, r in enumerate(runs)]
        self.table.setRowCount(len(runs))
        self.table.setColumnCount(len(runs))
        self.table.setHorizontalHeaderLabels([f"({letter(i)})" for i in range(len(runs))])
        self.table.setVerticalHeaderLabels(labels)
        for i, a in enumerate(runs):
            for j, b in enumerate(runs):
                item = QTableWidgetItem("")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if i != j:
                    row = c.pair(a, b, measure)
                    if row is not None and not math.isnan(row["difference"]):
                        diff = row["difference"] if row["a"] == a else -row["difference"]
                        p = row["p_corrected"]
                        item.setText(f"{diff:+.4f}\n{format_pvalue_cell(p)}")
                        sig = bool(row["significant"])
                        item.setBackground(QBrush(BETTER if sig and diff > 0 else WORSE if sig and diff < 0 else SAME))
                        low, high = row.get("ci_low", math.nan), row.get("ci_high", math.nan)
                        if row["a"] != a:  # the interval of b - a is that of a - b, negated
                            low, high = -high, -low
                        interval = "" if math.isnan(low) else f", 95% interval [{low:+.4f}, {high:+.4f}]"
                        item.setToolTip(
                            f"{a} − {b} on {measure}: Δ {diff:+.6f}{interval}, p = {row['p_value']:.4g}, "
                            f"corrected p = {p:.4g} over {row['n_queries']} queries "
                            f"({'significant' if sig else 'not significant'}); click to see the "
                            "per-query differences"
                        )
                self.table.setItem(i, j, item)
        from metrics.compare.allpairs import describe
        from workbench.state.significance import paired_note

        self.caption.setText(f"<b>{measure}</b>: row run − column run. {describe(c.pairs)}{paired_note(c)}")

    def cell_text(self, a: str, b: str) -> str:
        runs = self.runs()
        item = self.table.item(runs.index(a), runs.index(b))
        return "" if item is None else item.text()

    def cell_tooltip(self, a: str, b: str) -> str:
        runs = self.runs()
        item = self.table.item(runs.index(a), runs.index(b))
        return "" if item is None else item.toolTip()

    def _on_cell(self, row: int, column: int) -> None:
        runs = self.runs()
        if row != column and row < len(runs) and column < len(runs):
            self.sigPairChosen.emit(runs[row], runs[column])
