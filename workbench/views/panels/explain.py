"""The explain panel: how the selected value was computed, and where the gain was lost.

It shows a :class:`metrics.explain.Explanation` (the conventions, the formula, the tables of the
working, the sentences that end it and trec_eval's ``-q`` line) and a
:class:`metrics.explain.GainCurve` (the run's DCG@k against the ideal ranking's, each document with
a gain marked at its rank in the run and in the ideal ranking, unjudged ranks marked).  Both are
computed off the GUI thread (:class:`metrics.explain.Prepared`; a diversity measure's explanation by
:class:`metrics.explain.PreparedDiversity`, without a gain curve); this widget only displays them.

Clicking a row that names a document emits :attr:`ExplainPanel.documentActivated` (query, document),
for the drill-down to select it.  "Copy as text" puts the explanation's text on the clipboard.
"""

from __future__ import annotations

import html

import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from metrics.explain import Explanation, GainCurve, Table
from metrics.explain.model import number_text
from workbench.views.common.copy_image import install_copy_image

__all__ = ["ExplainPanel", "RowsModel"]

RUN_COLOUR = (0, 114, 178)  # blue (Okabe & Ito), as the first run of the plots
IDEAL_COLOUR = (120, 120, 120)
UNJUDGED_COLOUR = (213, 94, 0)  # vermillion
RELEVANT_TONE = QColor(220, 240, 208)
UNJUDGED_TONE = QColor(255, 236, 179)


class RowsModel(QAbstractTableModel):
    """The rows of one :class:`~metrics.explain.Table`, as text cells (numbers right-aligned)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._table = Table("", (), ())

    def set_table(self, table: Table) -> None:
        self.beginResetModel()
        self._table = table
        self.endResetModel()

    @property
    def table(self) -> Table:
        return self._table

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._table.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._table.columns)

    def cell(self, row: int, column: int):
        return self._table.rows[row].get(self._table.columns[column])

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        value = self.cell(index.row(), index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return number_text(value)
        if (
            role == Qt.ItemDataRole.TextAlignmentRole
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
        ):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            row = self._table.rows[index.row()]
            grade = row.get("grade")
            if (isinstance(grade, str) and grade) or row.get("grades") == "not in qrels":
                return QBrush(UNJUDGED_TONE)
            if row.get("relevant") is True or row.get("relevant to"):  # (a diversity row: relevant to an intent)
                return QBrush(RELEVANT_TONE)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self._table.columns[section]
        return None

    def docid(self, row: int) -> str:
        return str(self._table.rows[row].get("docid") or "") if 0 <= row < len(self._table.rows) else ""


class _TableBlock(QWidget):
    """A caption over the table of one :class:`~metrics.explain.Table`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.caption = QLabel(self)
        self.model = RowsModel(self)
        self.view = QTableView(self)
        self.view.setTabKeyNavigation(False)  # Tab moves on to the next control
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 4)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)

    #: rows a table shows before it scrolls (the panel scrolls as a whole: every table shows this many)
    ROWS_SHOWN = 12

    def set_table(self, table: Table) -> None:
        self.caption.setText(table.title + ("" if table.rows else ": none"))
        self.model.set_table(table)
        rows = min(len(table.rows), self.ROWS_SHOWN)
        header = self.view.horizontalHeader().sizeHint().height()
        scroll = self.view.horizontalScrollBar().sizeHint().height()
        self.view.setFixedHeight(
            header + rows * self.view.verticalHeader().defaultSectionSize() + 2 * self.view.frameWidth() + scroll
        )


class ExplainPanel(QWidget):
    """The working of one value beside the cumulative gain of its query (see the module docstring)."""

    #: (query id, document id) of a row clicked
    documentActivated = Signal(str, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.explanation: Explanation | None = None
        self.curve: GainCurve | None = None
        self.heading = QLabel(self)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.copy_button = QPushButton("Copy as text", self)
        self.copy_button.setToolTip("Put the explanation on the clipboard as text (Markdown tables)")
        self.copy_button.clicked.connect(self.copy_text)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.working = QLabel(self)  # conventions and formula
        self.working.setWordWrap(True)
        self.working.setTextFormat(Qt.TextFormat.RichText)
        self.working.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result = QLabel(self)  # the sentences that end the working, and the -q line
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.RichText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.blocks: list[_TableBlock] = []
        self.tables = QWidget(self)  # the tables of the working, one under the other
        self.tables_layout = QVBoxLayout(self.tables)
        self.tables_layout.setContentsMargins(0, 0, 0, 0)
        self.conventions = QLabel(self)  # what trec_eval's measure assumes, under the working
        self.conventions.setWordWrap(True)
        self.conventions.setTextFormat(Qt.TextFormat.RichText)
        self.conventions.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.textbook = _TableBlock(self)  # the textbooks' conventions side by side with trec_eval's
        self.textbook.hide()
        self.plot = pg.PlotWidget(self, background="w")
        self.copy_image_action = install_copy_image(self.plot)  # its menu and Ctrl+C
        self.plot.setMinimumHeight(200)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setLabel("bottom", "rank k")
        self.plot.setLabel("left", "DCG@k")
        self.plot.addLegend(offset=(10, 5), labelTextSize="8pt", verSpacing=-6)
        self._items: list = []
        self.picture = ""  # what the plot pictures ("" when hidden)

        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.copy_button)
        # the working scrolls as a whole, in the order it is read: the formula, its tables (each showing
        # a dozen rows), the sentences that end it, the conventions, the textbooks' side by side, the
        # picture; docked in a corner of the window, the formula and the first rows are what shows
        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 4, 0)
        body_layout.addWidget(self.working)
        body_layout.addWidget(self.tables)
        body_layout.addWidget(self.result)
        body_layout.addWidget(self.conventions)
        body_layout.addWidget(self.textbook)
        body_layout.addWidget(self.plot)
        body_layout.addStretch(1)
        self.split = QScrollArea(self)
        self.split.setWidgetResizable(True)
        self.split.setFrameShape(QFrame.Shape.NoFrame)
        self.split.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.split, 1)
        self.clear()

    # ------------------------------------------------------------------ showing
    def clear(self, message: str = "Select a cell of the per-query table to see how its value was computed.") -> None:
        """No explanation: only ``message``."""
        self.explanation, self.curve = None, None
        self.heading.setText("")
        self.copy_button.setEnabled(False)
        self.message.setText(message)
        self.message.show()
        self.split.hide()

    def show_explanation(
        self, explanation: Explanation, gain_curve: GainCurve | None = None, textbook: pd.DataFrame | None = None
    ) -> None:
        """Show ``explanation`` and, when given, the cumulative gain of its query and the textbooks'
        conventions side by side with trec_eval's value (all made off the window's thread)."""
        self.explanation, self.curve = explanation, gain_curve
        self._show_textbook(textbook)
        self.heading.setText(f"<b>{html.escape(explanation.heading())}</b>")
        self.copy_button.setEnabled(True)
        if not explanation.explained:
            line = f"\n\n{explanation.line}" if explanation.line else ""
            self.message.setText(f"Not explained: {explanation.reason}{line}")
            self.message.show()
            self.split.hide()
            return
        self.message.hide()
        self.split.show()
        self.working.setText(f"<b>{html.escape(explanation.formula)}</b>")
        parts = [f"<li>{html.escape(c)}</li>" for c in explanation.conventions]
        self.conventions.setText(f"Conventions:<ul style='margin:0'>{''.join(parts)}</ul>" if parts else "")
        self.conventions.setVisible(bool(parts))
        self._show_tables(explanation.tables)
        lines = [html.escape(s) for s in explanation.summary]
        if explanation.line:
            lines.append(f"<tt>{html.escape(explanation.line).replace(chr(9), ' &nbsp; ')}</tt>")
        self.result.setText("<br>".join(lines))
        if gain_curve is not None:
            self._show_curve(gain_curve)
        else:
            self._show_picture(explanation)

    def _show_textbook(self, frame: pd.DataFrame | None) -> None:
        """The textbooks' conventions: each one's value, its difference from trec_eval's, where it differs."""
        if frame is None or frame.empty:
            self.textbook.hide()
            return
        rows = tuple(
            {
                "convention": str(r["convention"]),
                "value": float(r["value"]),
                "difference": float(r["difference"]),
                "where it differs from trec_eval's": str(r["note"]),
            }
            for _, r in frame.iterrows()
        )
        columns = ("convention", "value", "difference", "where it differs from trec_eval's")
        self.textbook.set_table(Table("The textbooks' conventions side by side", columns, rows))
        self.textbook.show()

    def _show_tables(self, tables) -> None:
        while len(self.blocks) < len(tables):
            block = _TableBlock(self.tables)
            index = len(self.blocks)
            block.view.clicked.connect(lambda i, n=index: self._clicked(n, i.row()))
            self.tables_layout.addWidget(block)
            self.blocks.append(block)
        for i, block in enumerate(self.blocks):
            if i < len(tables):
                block.set_table(tables[i])
                block.show()
            else:
                block.hide()

    def _clicked(self, block: int, row: int) -> None:
        docid = self.blocks[block].model.docid(row)
        if docid and self.explanation is not None and self.explanation.query_id != "all":
            self.documentActivated.emit(self.explanation.query_id, docid)

    def _clear_plot(self) -> None:
        for item in self._items:
            self.plot.removeItem(item)
        self._items = []
        legend = self.plot.getPlotItem().legend
        if legend is not None:
            legend.clear()

    def _rank_axis(self, K: int) -> None:
        """Ranks 1..K along the bottom, ticks on whole numbers."""
        step = next((step for step, most in ((1, 10), (2, 20), (5, 50), (10, 100)) if K <= most), None)
        axis = self.plot.getAxis("bottom")
        axis.setTickSpacing(step, step) if step else axis.setTickSpacing()
        self.plot.setXRange(0.5, K + 0.5, padding=0)

    def _show_picture(self, explanation: Explanation) -> None:
        """Each measure's own picture, drawn from its working's first table: the precision at each relevant
        rank (average precision), the ranks down to the first relevant document (reciprocal rank), the
        relevant documents counted down to the cut (P@k, R-precision, recall@k). None for the others."""
        self._clear_plot()
        self.picture = ""
        table = explanation.tables[0] if explanation.tables else None
        rows = list(table.rows) if table is not None else []
        ranks = [int(r["rank"]) for r in rows if isinstance(r.get("rank"), int)]
        if not rows or len(ranks) != len(rows) or explanation.query_id == "all":
            self.plot.hide()
            return
        columns = set(table.columns) if table is not None else set()
        add = self._add
        if "precision (decimal)" in columns:  # average precision and its kin
            self.picture = "precision at each relevant rank"
            y = [float(r["precision (decimal)"]) for r in rows]
            add(pg.BarGraphItem(x=ranks, height=y, width=0.15, brush=pg.mkBrush(*RUN_COLOUR, 90), pen=None))
            add(pg.ScatterPlotItem(ranks, y, symbol="o", size=8, brush=pg.mkBrush(*RUN_COLOUR), name="precision"))
            self.plot.setLabel("left", "precision at the rank")
            self.plot.setYRange(0, 1.05, padding=0)
            title = "Precision at each relevant rank (never retrieved: + 0)"
        elif "relevant so far" in columns and "relevant" in columns:  # a cut: P@k, R-precision, recall@k
            self.picture = "relevant documents down to the cut"
            y = [int(r["relevant so far"]) for r in rows]
            add(pg.PlotDataItem(ranks, y, stepMode=None, pen=pg.mkPen(RUN_COLOUR, width=2), name="relevant so far"))
            hits = [(k, v) for k, v, r in zip(ranks, y, rows) if r["relevant"] is True]
            if hits:
                x, v = zip(*hits)
                add(pg.ScatterPlotItem(x, v, symbol="o", size=7, brush=pg.mkBrush(*RUN_COLOUR), name="relevant"))
            add(pg.InfiniteLine(pos=max(ranks), angle=90, pen=pg.mkPen(IDEAL_COLOUR, style=Qt.PenStyle.DashLine)))
            self.plot.setLabel("left", "relevant documents")
            self.plot.enableAutoRange(axis="y")
            title = f"Relevant documents down to the cut at {max(ranks)}"
        elif "relevant" in columns:  # reciprocal rank: down to the first relevant document
            self.picture = "the first relevant rank"
            first = next((k for k, r in zip(ranks, rows) if r["relevant"] is True), None)
            y = [1.0 if r["relevant"] is True else 0.0 for r in rows]
            add(pg.BarGraphItem(x=ranks, height=y, width=0.6, brush=pg.mkBrush(*RUN_COLOUR, 160), pen=None))
            if first is not None:
                add(pg.InfiniteLine(pos=first, angle=90, pen=pg.mkPen(UNJUDGED_COLOUR, width=2)))
            self.plot.setLabel("left", "relevant")
            self.plot.setYRange(0, 1.2, padding=0)
            title = f"First relevant at rank {first}: 1/{first}" if first else "No relevant document retrieved: 0"
        else:
            self.plot.hide()
            return
        self.plot.setLabel("bottom", "rank")
        self.plot.setTitle(f"{html.escape(title)}; query {html.escape(explanation.query_id)}")
        self.plot.show()
        self._rank_axis(max(ranks))

    def _show_curve(self, curve: GainCurve | None) -> None:
        self._clear_plot()
        self.picture = ""
        if curve is None or not curve.k:
            self.plot.hide()
            return
        self.picture = "cumulative gain against the ideal"
        self.plot.setLabel("left", "DCG@k")
        self.plot.setLabel("bottom", "rank k")
        self.plot.show()
        self.plot.setTitle(f"Cumulative gain, query {html.escape(curve.query_id)}: the run against the ideal ranking")
        k = curve.k
        add = self._add
        add(
            pg.PlotDataItem(
                k, curve.ideal, pen=pg.mkPen(IDEAL_COLOUR, width=2, style=Qt.PenStyle.DashLine), name="ideal DCG@k"
            )
        )
        add(pg.PlotDataItem(k, curve.dcg, pen=pg.mkPen(RUN_COLOUR, width=2), name=f"{curve.run or 'run'} DCG@k"))
        K = len(k)
        at_run = [(m.run_rank, curve.dcg[m.run_rank - 1]) for m in curve.relevant if m.run_rank and m.run_rank <= K]
        at_ideal = [
            (m.ideal_rank, curve.ideal[m.ideal_rank - 1]) for m in curve.relevant if m.ideal_rank and m.ideal_rank <= K
        ]
        if at_run:
            x, y = zip(*at_run)
            add(
                pg.ScatterPlotItem(
                    x, y, symbol="o", size=8, brush=pg.mkBrush(*RUN_COLOUR), name="gain, at its run rank"
                )
            )
        if at_ideal:
            x, y = zip(*at_ideal)
            add(
                pg.ScatterPlotItem(
                    x, y, symbol="o", size=8, pen=pg.mkPen(IDEAL_COLOUR), brush=None, name="gain, at its ideal rank"
                )
            )
        if curve.unjudged:
            add(
                pg.ScatterPlotItem(
                    curve.unjudged,
                    [curve.dcg[r - 1] for r in curve.unjudged],
                    symbol="x",
                    size=10,
                    brush=pg.mkBrush(*UNJUDGED_COLOUR),
                    pen=pg.mkPen(UNJUDGED_COLOUR),
                    name="unjudged",
                )
            )
        self._rank_axis(K)
        self.plot.enableAutoRange(axis="y")

    def _add(self, item) -> None:
        self.plot.addItem(item)
        self._items.append(item)

    # ------------------------------------------------------------------ reading back
    def text(self) -> str:
        """The explanation as text (what "Copy as text" copies); empty without one."""
        return self.explanation.to_text() if self.explanation is not None else ""

    def copy_text(self) -> None:
        if self.explanation is not None:
            QGuiApplication.clipboard().setText(self.text())
