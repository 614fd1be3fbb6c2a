"""Query drill-down: the selected query's ranked lists of the chosen runs, side by side.

Each row is coloured by the document's grade; unjudged documents show ``?``.
Runs other than the baseline show how far each document moved against the
baseline (``▲3``, ``▼12``, ``new``).  A last column lists the relevant
documents that no run retrieved.  With two lists or more, each row says where
its document is in the other lists (its rank in each other run, ``—`` when
that run did not retrieve it), and clicking a document selects it in every
list, scrolled into view.  "Unjudged…" lists the unjudged documents of the
lists shown, to copy as qrels lines to judge.  With a collection loaded, each row shows the document's title and a
snippet with the query's words in bold, and its text as the tooltip.  The
rankings and the texts are computed in a worker (see :mod:`workbench.state.drilldown`).
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
from PySide6.QtCore import QItemSelectionModel, QRectF, Qt
from PySide6.QtGui import QColor, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.state import drilldown as dm
from workbench.views.common.qtable import DataFrameModel, fit_columns, install_copy

GRADE_COLOURS = {
    dm.UNJUDGED_TONE: QColor(255, 236, 179),
    "grade0": QColor(238, 238, 238),
    "grade1": QColor(220, 240, 208),
    "grade2": QColor(178, 223, 160),
    "grade3": QColor(129, 199, 112),
}


def _table(parent) -> QTableView:
    view = QTableView(parent)
    view.setTabKeyNavigation(False)  # Tab moves on to the next control
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 4)
    view.horizontalHeader().setHighlightSections(False)
    # (widths set from the texts by fit_columns: sized by Qt, every cell was asked for its text, font and
    # colour on each new list, twice, which held the window's thread for a third of a second with 500 runs)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    install_copy(view)
    return view


#: the widest a title and a snippet column are drawn (the tooltip holds the text)
TITLE_WIDTH = 180
SNIPPET_WIDTH = 380


class MarkedDelegate(QStyledItemDelegate):
    """Draws the snippet column (``column``; None: none) as rich text, the query's words in bold (``html``,
    each row's rich text); the other cells as usual."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.column: int | None = None
        self.html: list[str] = []

    def paint(self, painter, option, index) -> None:
        if index.column() != self.column or not 0 <= index.row() < len(self.html):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)  # background, selection
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(0)
        doc.setHtml(self.html[index.row()])
        rect = opt.rect.adjusted(3, 0, -3, 0)
        painter.save()
        painter.translate(rect.left(), rect.top() + max(0.0, (rect.height() - doc.size().height()) / 2))
        doc.drawContents(painter, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()


class _Column(QWidget):
    """One list: a caption over a table."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.model = DataFrameModel(self, colours=GRADE_COLOURS)
        self.view = _table(self)
        self.view.setModel(self.model)
        self.marked = MarkedDelegate(self.view)  # (the snippet column's only: Qt's own draws the other cells)
        # the whole drill-down scrolls, so that equal ranks stay side by side across the lists
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)

    def set_rows(
        self, frame: pd.DataFrame, tones: list[str], tips: list[str] | None = None, snippets: list[str] | None = None
    ) -> None:
        """The rows shown; ``snippets``: the rich text of the ``snippet`` column, drawn with its marks."""
        shape = frame.shape  # (a row's tone and tip in each of its cells)
        tone_cells = np.broadcast_to(np.asarray(tones, dtype=object)[:, None], shape) if len(frame) else None
        tip_cells = np.broadcast_to(np.asarray(tips, dtype=object)[:, None], shape) if tips and len(frame) else None
        marked = snippets is not None and "snippet" in frame.columns
        if self.marked.column is not None:
            self.view.setItemDelegateForColumn(self.marked.column, self.view.itemDelegate())  # (Qt's own)
        self.marked.column = list(frame.columns).index("snippet") if marked else None
        self.marked.html = list(snippets or []) if marked else []
        if self.marked.column is not None:
            self.view.setItemDelegateForColumn(self.marked.column, self.marked)
        self.model.set_frame(frame, tone_cells, tips=tip_cells)
        fit_columns(self.view, max_header_chars=40)
        for name, widest in (("title", TITLE_WIDTH), ("snippet", SNIPPET_WIDTH)):
            if name in frame.columns:
                c = list(frame.columns).index(name)
                self.view.setColumnWidth(c, min(self.view.columnWidth(c), widest))
        frame_width = 2 * self.view.frameWidth()
        width = self.view.horizontalHeader().length() + frame_width
        height = self.view.horizontalHeader().sizeHint().height() + frame_width
        height += self.view.verticalHeader().defaultSectionSize() * len(frame)
        self.view.setFixedHeight(height)
        self.setFixedWidth(max(width, 120))

    def set_caption(self, text: str) -> None:
        self.caption.setText(text)
        self.caption.setToolTip(text)

    def snippet_html(self) -> list[str]:
        """The rich text of each row's snippet as drawn (empty without a collection)."""
        return list(self.marked.html)

    def doc_ids(self) -> list[str]:
        frame = self.model.frame()
        return [] if "doc_id" not in frame.columns else [str(d) for d in frame["doc_id"]]


class StickyMenu(QMenu):
    """A menu of check boxes that stays open while they are ticked."""

    def mouseReleaseEvent(self, event) -> None:
        action = self.activeAction()
        if action is not None and action.isCheckable() and action.isEnabled():
            action.trigger()
            event.accept()
            return
        super().mouseReleaseEvent(event)


class QueryDrilldownView(QWidget):
    """The drill-down of the session's selected query."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel(self)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setWordWrap(True)  # (beside the Unjudged button: a long query's text wraps, never cut)
        self.runs_button = QToolButton(self)
        self.runs_button.setText("Runs ▾")
        self.runs_button.setToolTip("Runs whose ranked lists are shown")
        self.runs_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.runs_menu = StickyMenu(self)
        self._menu_runs: list[str] = []  # the runs the menu offers, its boxes made when it opens
        self.runs_menu.aboutToShow.connect(self._make_menu)
        self.runs_button.setMenu(self.runs_menu)
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, 10000)
        self.depth_box.setValue(session.drilldown_depth)
        self.depth_box.setPrefix("top ")
        self.depth_box.setKeyboardTracking(False)
        self.depth_box.setToolTip("Ranks shown per run")
        self.legend = QLabel(self)
        self.legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.legend.setMinimumWidth(40)
        self.legend.setText(self._legend_html())
        self.legend.setToolTip(
            "Row colour: the document's judged grade; ? not judged. "
            "▲n / ▼n: n ranks higher / lower than in the baseline; new: not retrieved by the baseline"
        )
        self.placeholder = QLabel(
            "Select a query (in the per-query table, the difference chart or the Query box) to see its ranked lists.",
            self,
        )
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setEnabled(False)

        self.title.setContentsMargins(4, 0, 4, 0)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 0, 4, 0)
        bar.addWidget(self.legend)
        self.find_edit = QLineEdit(self)
        self.find_edit.setPlaceholderText("Find document…")
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.setToolTip("Select this document id in every ranked list that holds it")
        self.find_edit.setMaximumWidth(180)
        self.find_edit.textChanged.connect(self._find)
        self.find_status = QLabel(self)
        self.unjudged_button = QToolButton(self)
        self.unjudged_button.setText("Unjudged…")
        self.unjudged_button.setToolTip(
            "The unjudged documents of the lists shown (their top k), to copy as qrels lines to judge"
        )
        self.unjudged_button.clicked.connect(self.show_unjudged)
        self.unjudged_dialog: UnjudgedDialog | None = None
        bar.addStretch(1)
        bar.addWidget(self.find_edit)
        bar.addWidget(self.find_status)
        bar.addWidget(self.runs_button)
        bar.addWidget(self.depth_box)
        self.columns_box = QHBoxLayout()
        self.columns_box.setContentsMargins(0, 0, 0, 0)
        self.columns_box.setSpacing(6)
        self.columns_box.addStretch(1)
        self.body = QScrollArea(self)
        self.body.setWidgetResizable(True)
        self.body.setFrameShape(QScrollArea.Shape.NoFrame)
        inner = QWidget(self.body)
        inner.setLayout(self.columns_box)
        self.body.setWidget(inner)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        head = QHBoxLayout()  # the title above the controls, with only the Unjudged button beside it
        head.setContentsMargins(0, 0, 4, 0)
        head.addWidget(self.title, 1)
        head.addWidget(self.unjudged_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(head)
        layout.addLayout(bar)
        layout.addWidget(self.placeholder, 1)
        layout.addWidget(self.body, 1)

        self.columns: dict[str, _Column] = {}
        self.missing = _Column(self.body.widget())  # inside the scroll area: never drawn over the legend
        self.missing.view.clicked.connect(lambda index: self._on_doc_clicked(self.missing, index))
        self.depth_box.valueChanged.connect(session.followups.set_drilldown_depth)
        session.sigDrilldownChanged.connect(lambda _: self.refresh())
        session.sigFocusMeasureChanged.connect(lambda _: self.refresh())
        self.refresh()

    @staticmethod
    def _legend_html() -> str:
        cells = []
        for tone, text in (("grade3", "3"), ("grade2", "2"), ("grade1", "1"), ("grade0", "0"), (dm.UNJUDGED_TONE, "?")):
            cells.append(f"<span style='background:{GRADE_COLOURS[tone].name()}'>&nbsp;{text}&nbsp;</span>")
        return "grade " + "".join(cells) + "&nbsp;"

    # -- what is shown ---------------------------------------------------
    def shown_runs(self) -> list[str]:
        """The runs whose lists are shown: those the session's drill-down has, among those wanted
        (:meth:`workbench.state.followups.FollowUpRules.drilldown_runs`)."""
        drill = self.session.drilldown
        if drill is None:
            return []
        wanted = set(self.session.model.followups.drilldown_runs())
        return [r for r in drill.runs if r in wanted]

    def set_run_shown(self, run: str, shown: bool) -> None:
        self.session.followups.choose_drilldown_run(run, shown)  # ranked in a worker when not yet there
        self.refresh()

    def table_frame(self, run: str) -> pd.DataFrame:
        """The rows shown for ``run`` (columns rank, doc_id, score, grade[, move][, title, snippet])."""
        return self.columns[run].model.frame()

    def missing_frame(self) -> pd.DataFrame:
        return self.missing.model.frame()

    # -- session -> view -------------------------------------------------
    def _fill_menu(self, runs) -> None:
        """Offer ``runs`` in the menu of runs shown; its boxes are made when it opens (with 500 runs,
        making them at every query selected held the window's thread)."""
        self._menu_runs = list(runs)
        if self.runs_menu.isVisible():
            self._make_menu()

    def _make_menu(self) -> None:
        self.runs_menu.clear()
        wanted = set(self.session.model.followups.drilldown_runs())
        for run in self._menu_runs:
            act = self.runs_menu.addAction(run)
            act.setCheckable(True)
            act.setChecked(run in wanted)
            act.toggled.connect(lambda on, r=run: self.set_run_shown(r, on))

    def refresh(self) -> None:
        drill = self.session.drilldown
        if self.depth_box.value() != self.session.drilldown_depth:
            self.depth_box.blockSignals(True)
            self.depth_box.setValue(self.session.drilldown_depth)
            self.depth_box.blockSignals(False)
        if drill is None:
            self.title.setText("")
            self.unjudged_button.setText("Unjudged…")
            self.unjudged_button.setEnabled(False)
            if self.unjudged_dialog is not None and self.unjudged_dialog.isVisible():
                self.unjudged_dialog.refresh()
            self.body.hide()
            self.placeholder.show()
            self._fill_menu([])
            return
        self._fill_menu(self.session.results.runs if self.session.results is not None else drill.runs)
        shown = self.shown_runs()
        # the lists of runs no longer shown serve the runs now shown (with 500 runs, the best runs differ from
        # one query to the next: making ten lists anew at each query selected held the window's thread)
        gone = [self.columns.pop(run) for run in list(self.columns) if run not in shown]
        coming = len([run for run in shown if run not in self.columns])
        spare = gone[:coming]
        for col in gone[coming:]:
            self.columns_box.removeWidget(col)
            col.deleteLater()
        self.columns_box.removeWidget(self.missing)
        tables = dm.tables_for(drill, shown)  # (made in the drill-down's worker for the lists it shows)
        for i, run in enumerate(shown):
            found = self.columns.get(run)
            if found is not None:
                col = found
            elif spare:
                col = self.columns[run] = spare.pop(0)
            else:
                col = _Column(self.body.widget())
                col.view.clicked.connect(lambda index, c=col: self._on_doc_clicked(c, index))
                self.columns[run] = col
            self.columns_box.removeWidget(col)
            self.columns_box.insertWidget(i, col, 0, Qt.AlignmentFlag.AlignTop)
            col.set_rows(*tables.runs[run])
            score = dm.query_score(self.session.results, self.session.focus_measure, drill.query_id, run)
            col.set_caption(dm.caption(drill, run, score))
        frame, tones, tips, snippets = tables.missing
        self.missing.set_rows(frame, tones, tips, snippets)
        every = self.session.results is None or set(self.session.results.runs) <= set(drill.runs)
        self.missing.set_caption(f"Relevant, retrieved by {'no run' if every else 'none of these runs'}: {len(frame)}")
        self.columns_box.insertWidget(len(shown), self.missing, 0, Qt.AlignmentFlag.AlignTop)
        judged = "" if drill.judged_query else " (not in the qrels)"
        text = self.session.workspace.queries().get(str(drill.query_id))
        said = f" “{html.escape(text)}”" if text else ""
        self.title.setText(f"Query <b>{html.escape(drill.query_id)}</b>{said}{judged}: {drill.num_rel} relevant judged")
        self.title.setToolTip(text or "")
        unjudged = len(dm.unjudged_in_top(drill, shown))
        self.unjudged_button.setText(f"Unjudged: {unjudged}…")
        self.unjudged_button.setEnabled(True)
        if self.unjudged_dialog is not None and self.unjudged_dialog.isVisible():
            self.unjudged_dialog.refresh()
        self.placeholder.hide()
        self.body.show()

    def show_unjudged(self) -> UnjudgedDialog:
        """The list of the unjudged documents of the lists shown (made once, then brought forward)."""
        if self.unjudged_dialog is None:
            self.unjudged_dialog = UnjudgedDialog(self.session, self.shown_runs, self)
        self.unjudged_dialog.refresh()
        self.unjudged_dialog.show()
        self.unjudged_dialog.raise_()
        return self.unjudged_dialog

    # -- one document in every list ------------------------------------------
    def _find(self, text: str) -> None:
        doc = text.strip()
        if not doc:
            self.find_status.setText("")
            return
        found = self.select_doc(doc)
        lists = len(self.columns)
        depth = self.session.drilldown_depth
        self.find_status.setText(
            f"in {found} of {lists} lists"
            if found
            else f"<span style='color:#c62828'>not in the top {depth} of any list</span>"
        )

    def select_doc(self, doc_id: str, clicked: _Column | None = None) -> int:
        """Select ``doc_id`` in every list that holds it (and clear the others), and scroll its rows into
        view (the row ``clicked`` stays in view if the others fit with it); in how many lists it is."""
        found = 0
        rows: list[tuple[_Column, int]] = []
        for col in [*self.columns.values(), self.missing]:
            docs = col.doc_ids()
            sel = col.view.selectionModel()
            if doc_id in docs:
                index = col.model.index(docs.index(doc_id), 0)
                sel.setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                )
                rows.append((col, index.row()))
                found += col is not self.missing
            else:
                col.view.clearSelection()
        # the row clicked first, then the others: each brought into view moving as little as it can
        rows.sort(key=lambda cr: cr[0] is not clicked)
        for col, row in rows:
            self.scroll_to(col, row)
        return found

    def scroll_to(self, col: _Column, row: int) -> None:
        """Scroll the drill-down (its lists scroll together) so that ``row`` of ``col`` is in view."""
        index = col.model.index(row, min(1, col.model.columnCount() - 1))  # (the document id's cell)
        rect = col.view.visualRect(index)
        if rect.isEmpty():
            return
        inner = self.body.widget()
        if inner is None:
            return
        centre = col.view.viewport().mapTo(inner, rect.center())
        self.body.ensureVisible(centre.x(), centre.y(), rect.width() // 2 + 4, rect.height() // 2 + 2)

    def row_in_view(self, run: str, doc_id: str) -> bool:
        """Whether ``doc_id``'s row in ``run``'s list can be seen in the drill-down's scrolled pane."""
        col = self.columns[run]
        docs = col.doc_ids()
        if doc_id not in docs:
            return False
        rect = col.view.visualRect(col.model.index(docs.index(doc_id), 1))
        top_left = col.view.viewport().mapTo(self.body.viewport(), rect.topLeft())
        bottom_right = col.view.viewport().mapTo(self.body.viewport(), rect.bottomRight())
        area = self.body.viewport().rect()
        return area.contains(top_left) and area.contains(bottom_right)

    def _on_doc_clicked(self, col: _Column, index) -> None:
        docs = col.doc_ids()
        if 0 <= index.row() < len(docs):
            self.select_doc(docs[index.row()], col)


class UnjudgedDialog(QDialog):
    """The unjudged documents of the first k of the lists shown (``lists()``: their runs) for the query of
    the session's drill-down, each once with the runs that list it and where; "Copy as qrels lines" puts
    them on the clipboard as ``qid 0 docid -1`` lines to judge (:func:`workbench.state.drilldown.qrels_lines`).
    It follows the drill-down while open."""

    def __init__(self, session, lists, parent=None):
        super().__init__(parent)
        self.session = session
        self.lists = lists
        self.setWindowTitle("Unjudged in the top k")
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.model = DataFrameModel(self)
        self.table = _table(self)
        self.table.setModel(self.model)
        self.copy_button = QPushButton("Copy as qrels lines", self)
        self.copy_button.setToolTip(
            f"Copy 'qid 0 docid {dm.TO_JUDGE_GRADE}' lines (TREC qrels) to judge elsewhere: replace "
            f"{dm.TO_JUDGE_GRADE} with each document's grade ({dm.TO_JUDGE_GRADE}, a negative grade, reads as "
            "pooled but not judged)"
        )
        self.copy_button.clicked.connect(self.copy_lines)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.resize(560, 360)
        self._items: list[dm.Unjudged] = []
        session.sigDrilldownChanged.connect(lambda _: self._follow())

    def _follow(self) -> None:
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        drill = self.session.drilldown
        lists = self.lists() if drill is not None else []
        self._items = dm.unjudged_in_top(drill, lists) if drill is not None else []
        frame = dm.unjudged_table(drill, self._items) if drill is not None else pd.DataFrame()
        self.model.set_frame(frame)
        fit_columns(self.table, max_header_chars=40)
        for name, widest in (("title", TITLE_WIDTH), ("snippet", SNIPPET_WIDTH)):
            if name in frame.columns:
                c = list(frame.columns).index(name)
                self.table.setColumnWidth(c, min(self.table.columnWidth(c), widest))
        if drill is None:
            self.caption.setText("No query selected.")
        else:
            depth = self.session.drilldown_depth
            self.caption.setText(
                f"Query {drill.query_id}: {len(self._items)} unjudged documents in the top {depth} of "
                f"{len(lists)} lists ({', '.join(lists)})"
            )
        self.copy_button.setEnabled(bool(self._items))

    def frame(self) -> pd.DataFrame:
        return self.model.frame()

    def copy_lines(self) -> None:
        drill = self.session.drilldown
        if drill is None or not self._items:
            return
        QApplication.clipboard().setText(dm.qrels_lines(drill.query_id, self._items))
