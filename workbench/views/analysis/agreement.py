"""Do the measures agree?  Kendall's tau between the orderings of the runs by every two of the measures
shown, as a matrix (blue: the same order, red: the reverse), and the pairs of runs whose order flips
between two measures; a click on a cell lists that pair of measures' flips only."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.state import analyses
from workbench.views.analysis.follow import (
    AdaptiveSplitter,
    AnalysisFollower,
    ExportButton,
    FrameTable,
    matrix_view,
    pane,
)

if TYPE_CHECKING:
    from workbench.qt.session import Session


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
    """Whether the measures rank the runs alike: Kendall's tau between the orderings, and the pairs that flip."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "agreement", "measure agreement", settings=self.settings, banner=self.banner
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        self.all_button = QPushButton("All flips", self)
        self.all_button.setToolTip("List the flips of every pair of measures")
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        bar.addWidget(self.caption, 1)
        bar.addWidget(self.export)
        self.matrix, self.matrix_model = matrix_view(self, "+0.00")
        self.matrix_model.text = lambda v: "–" if v != v else f"{v:+.2f}"
        self.matrix_model.colour = tau_colour
        self.matrix_model.ink = lambda v: QColor("white") if v == v and abs(v) > 0.6 else QColor(20, 20, 20)
        self.matrix_model.tip = self._tip
        self.matrix.setToolTip("Click a cell to list the pairs of runs the two measures order differently")
        self.flips_caption = QLabel(self)
        self.flips_caption.setWordWrap(True)
        self.flips_table = FrameTable(self)
        self.flips = self.flips_table.view
        lower = QWidget(self)
        box = QVBoxLayout(lower)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.flips_caption, 1)
        row.addWidget(self.all_button)
        box.addLayout(row)
        box.addWidget(self.flips, 1)
        self.split = split = AdaptiveSplitter(
            Qt.Orientation.Vertical, self, share=0.5, needs=lambda: self.matrix.minimumSizeHint().width()
        )
        split.addWidget(self.matrix)
        split.addWidget(lower)
        pane(self, [bar], self.banner, split)
        self.pair: tuple[str, str] | None = None
        self._p = pd.DataFrame(columns=["measure_a", "measure_b", "runs", "tau", "p_value"]).set_index(
            ["measure_a", "measure_b"]
        )
        self.matrix.clicked.connect(lambda index: self._on_cell(index.row(), index.column()))
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
            self.matrix_model.set_matrix(np.zeros((0, 0)), [])
            self.flips_table.show(pd.DataFrame())
            self.caption.setText("Two runs and two measures are needed." if self.session.results else "")
            self.flips_caption.setText("")
            return
        tau = o.tables["tau"]
        names = list(tau.index)
        self._p = o.tables["tau_p"].set_index(["measure_a", "measure_b"])
        self.matrix_model.set_matrix(tau.to_numpy(dtype=float), names)
        self.split.refit()
        n = len(o.inputs.summary)
        self.caption.setText(f"Kendall's tau-b, {n} runs")
        self.caption.setToolTip(
            f"Kendall's tau-b between the orders of the {n} runs by each two measures (1: the same order, "
            "-1: the reverse); click a cell to list the pairs of runs the two order differently"
        )
        self._show_flips(self.pair if self.pair and set(self.pair) <= set(names) else None)

    def _tip(self, i: int, j: int) -> str | None:
        names, p = self.measures(), self._p
        if i == j or not (0 <= i < len(names) and 0 <= j < len(names)):
            return None
        a, b = names[i], names[j]
        key = (a, b) if (a, b) in p.index else (b, a)
        if key not in p.index:
            return None
        # (a whole label of the (measure_a, measure_b) index picks one row; pandas-stubs read the pair as
        # (row, column))
        r = cast(pd.Series, p.loc[key])
        return f"{a} and {b}: tau = {r['tau']:+.4f} over {int(r['runs'])} runs (p = {r['p_value']:.3g})"

    def cell_text(self, a: str, b: str) -> str:
        names = self.measures()
        return str(self.matrix_model.index(names.index(a), names.index(b)).data())

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
        self.flips_table.show(flips)
        which = "every two measures" if pair is None else f"{pair[0]} and {pair[1]}"
        self.flips_caption.setText(f"<b>{len(flips)}</b> flips by {which}")

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: tau and its p-value for every two measures, as ``ir-eval --agreement --format csv``."""
        o = self.follower.outcome
        return None if o is None else o.tables["tau_p"]
