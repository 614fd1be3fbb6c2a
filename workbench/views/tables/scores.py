"""The summary table (runs x measures) and the per-query table views."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from PySide6.QtCore import QEvent, QItemSelectionModel, QRegularExpression, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.scoring import intents as diversity
from workbench.state import significance as significance_model
from workbench.state import tables as table_model
from workbench.views.common.qtable import DataFrameModel, DataFrameProxy, fit_columns, install_copy

MANY_RUNS = 8  # more runs than this: the summary offers a filter by run name


_TIPS: dict[str, str] = {}


def measure_tips(names) -> dict[str, str]:
    """Each measure's definition (from the measure registry's reference), for the tables' header tooltips."""
    from metrics.measures import parse_measures
    from workbench.views.dialogs.help import measure_tooltip

    out = {}
    for name in names:
        if name not in _TIPS:
            try:
                family = parse_measures([name])[0].family
            except (ValueError, IndexError):
                family = name
            _TIPS[name] = diversity.tip(name) or measure_tooltip(family, _entries())  # (the registry's tip)
            if "(" in name:  # a variant: its options say how it differs from trec_eval's
                _TIPS[name] += f" Variant: {name[name.index('(') + 1 : name.rindex(')')]}."
        out[name] = _TIPS[name]
    return out


def _entries():
    from metrics.measures import reference

    if "entries" not in _TIPS_ENTRIES:
        _TIPS_ENTRIES["entries"] = reference.entries()
    return _TIPS_ENTRIES["entries"]


_TIPS_ENTRIES: dict = {}


def _make_table(parent) -> QTableView:
    view = QTableView(parent)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setTabKeyNavigation(False)  # Tab moves on to the next control instead of the next cell
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(False)
    view.horizontalHeader().setHighlightSections(False)
    install_copy(view)
    return view


class SummaryView(QWidget):
    """Runs x measures; the best value of every measure is highlighted.

    Clicking a cell makes its measure the one shown per query.
    """

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.model = DataFrameModel(self)
        self.proxy = DataFrameProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = _make_table(self)
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.placeholder = QLabel("Load a qrels file and one or more runs (drop them on the window).", self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setEnabled(False)
        self.run_filter = QLineEdit(self)
        self.run_filter.setPlaceholderText("Filter runs by name…")
        self.run_filter.setClearButtonEnabled(True)
        self.run_filter.setToolTip("Show only the runs whose label contains this text (shown with many runs)")
        self.run_filter.textChanged.connect(
            lambda text: self.proxy.setFilterRegularExpression(
                QRegularExpression(
                    QRegularExpression.escape(text), QRegularExpression.PatternOption.CaseInsensitiveOption
                )
            )
        )
        self.run_filter.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.run_filter)
        layout.addWidget(self.view)
        layout.addWidget(self.placeholder)
        self.legend = QLabel(self)
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet("QLabel { color: #444; padding: 2px 4px; }")
        self.legend.hide()
        layout.addWidget(self.legend)
        self.view.clicked.connect(self._on_clicked)
        session.sigResultsChanged.connect(self.on_results)
        session.sigComparisonChanged.connect(lambda _: self.on_results(self.session.results))
        session.sigStateChanged.connect(self._update_placeholder)
        self._shown = None  # (results, comparison) laid out
        self.on_results(session.results)

    def _update_placeholder(self) -> None:
        ws = self.session.workspace
        if self.session.evaluation.evaluating or (ws.loading() and self.session.results is None):
            text = "Evaluating…" if self.session.evaluation.evaluating else "Loading…"
        elif (
            ws.qrels_entry() is None
            and ws.intents_entry() is None
            and not any(e.kind == "ranked" for e in ws.run_entries())
        ):
            text = (
                "Load a qrels file"
                + ("" if ws.run_entries() else " and one or more runs")
                + " (drop them on the window)."
            )
        elif not ws.run_entries():
            text = "Load one or more runs (drop them on the window)."
        else:
            text = "Not evaluated: press Recompute."
        self.placeholder.setText(text)

    def on_results(self, results) -> None:
        # new results with their comparison arrive as two signals (results, then the marks computed with
        # them); a hundred runs take this thread tens of milliseconds to lay out, so the same pair is not
        # laid out twice
        shown = (results, self.session.comparison)
        if results is not None and self._shown is not None and all(a is b for a, b in zip(shown, self._shown)):
            return
        self._shown = shown if results is not None else None
        if results is None:
            self.model.set_frame(pd.DataFrame())
            self.view.hide()
            self._update_placeholder()
            self.placeholder.show()
            self.legend.hide()
            return
        frame, tones = table_model.summary_table(results.summary)
        order = {r: i for i, r in enumerate(results.runs)}
        compared = self.session.comparison
        if compared is not None and not compared.is_for(results):
            compared = None  # computed for earlier results; a new comparison is on its way
        marks, tips = significance_model.summary_marks(compared, frame)
        unscored = set(results.unscored())
        if unscored:  # their zeros are not scores: say so in the row itself
            rows = frame["run"].isin(unscored)
            marks = marks if marks is not None else pd.DataFrame("", index=frame.index, columns=frame.columns)
            tips = tips if tips is not None else pd.DataFrame("", index=frame.index, columns=frame.columns)
            marks.loc[rows, "run"] = marks.loc[rows, "run"].astype(str) + " — not scored"
            tips.loc[rows, "run"] = "This run shares no query with the qrels; no measure can be computed."
        self.model.header_tips = measure_tips(results.measures)
        self.model.set_frame(
            frame, tones, sort_keys={"run": frame["run"].map(order).to_numpy()}, marks=marks, tips=tips
        )
        self.legend.setText(significance_model.legend(compared))
        self.legend.setVisible(compared is not None)
        self.placeholder.hide()
        self.view.show()
        self.run_filter.setVisible(len(results.runs) > MANY_RUNS or bool(self.run_filter.text()))
        fit_columns(self.view)

    def _on_clicked(self, index) -> None:
        name = str(self.model.headerData(self.proxy.mapToSource(index).column(), Qt.Orientation.Horizontal))
        if name != "run":
            self.session.model.set_focus_measure(name)

    def height_for_rows(self, n: int) -> int:
        """The height that shows ``n`` rows of runs, the header and the legend."""
        need = self.view.horizontalHeader().height() + n * self.view.verticalHeader().defaultSectionSize() + 8
        return need + self.legend.sizeHint().height()


class PerQueryView(QWidget):
    """One row per query: the chosen measure for every run and the difference to the baseline."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.model = DataFrameModel(self)
        self.proxy = DataFrameProxy(self, filter_column=0)
        self.proxy.setSourceModel(self.model)
        self.measure_box = QComboBox(self)
        self.measure_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.measure_box.setMinimumContentsLength(8)
        self.measure_box.setToolTip("Measure shown per query")
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText("Query ids (2, 13, 5) or part of one…")
        self.filter_edit.setToolTip(
            "Show only these queries: ids separated by commas or spaces match exactly; "
            "a single text that is no whole id matches the ids containing it (Ctrl+F)"
        )
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMinimumWidth(90)
        self.filter_status = QLabel(self)
        # the view's heading, which names the baseline of the Δ columns (on its own line: never cut)
        self.baseline_label = QLabel("Per query", self)
        self.baseline_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.baseline_label.setMinimumWidth(0)
        self.baseline_label.setWordWrap(True)
        self.view = _make_table(self)
        self.view.setModel(self.proxy)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        # scrolled to the right, the query ids stay in sight at the left, in the row header
        self.model.row_label_column = 0
        self.view.horizontalScrollBar().valueChanged.connect(
            lambda value: self.view.verticalHeader().setVisible(value > 0)
        )
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel("Measure:", self))
        bar.addWidget(self.measure_box)
        bar.addWidget(self.filter_edit, 2)
        bar.addWidget(self.filter_status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.baseline_label)
        layout.addLayout(bar)
        layout.addWidget(self.view)

        self.measure_box.currentTextChanged.connect(self._on_measure_chosen)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)
        # the keyboard entering the table (Tab) makes its first row current: that is not a choice of query
        self._entering = False
        self.view.installEventFilter(self)
        # (new scores are taken in on a turn of the event loop of their own: a thousand columns of 500 runs)
        session.sigResultsChanged.connect(lambda _: session.after_paint.in_turn(self._take_results))
        session.sigBaselineChanged.connect(lambda _: self.rebuild())
        session.sigFilesChanged.connect(self._on_files_changed)
        session.sigFocusMeasureChanged.connect(self._on_focus_measure)
        session.sigQueryChanged.connect(self.on_query)
        self._built = None  # what the table was built from (rebuild)
        self.on_results(session.results)

    def _take_results(self) -> None:
        self.on_results(self.session.results)

    def shown_measure(self) -> str:
        """The measure whose per-query values are shown."""
        return self.measure_box.currentText()

    def focus_filter(self) -> None:
        """Put the keyboard in the query filter, its text selected (Find)."""
        self.filter_edit.setFocus()
        self.filter_edit.selectAll()

    # -- session -> view ------------------------------------------------
    def on_results(self, results) -> None:
        self.measure_box.blockSignals(True)
        self.measure_box.clear()
        if results is not None:
            self.measure_box.addItems(results.measures)
            if self.session.focus_measure in results.measures:
                self.measure_box.setCurrentText(self.session.focus_measure)
        self.measure_box.blockSignals(False)
        self.rebuild()

    def _on_files_changed(self) -> None:
        has_text = "query" in self.model.frame().columns
        if bool(self.session.workspace.queries()) != has_text:  # a queries file came or went
            self.rebuild()

    def _on_focus_measure(self, name: str) -> None:
        if self.measure_box.currentText() != name and self.measure_box.findText(name) >= 0:
            self.measure_box.blockSignals(True)
            self.measure_box.setCurrentText(name)
            self.measure_box.blockSignals(False)
        self.rebuild()

    def rebuild(self) -> None:
        results = self.session.results
        measure = self.measure_box.currentText()
        if results is None or measure not in results.per_query:
            self._built = None
            self.model.set_frame(pd.DataFrame())
            self.baseline_label.setText("Per query")
            return
        baseline = self.session.model.workspace.baseline_label()
        texts = self.session.workspace.queries()
        # new results change the measure in focus and then the results (two signals): built once
        built = (results, measure, baseline, texts)
        if self._built is not None and self._built[0] is results and self._built[1:] == built[1:]:
            return
        self._built = built
        wide = results.per_query[measure]
        frame, tones = table_model.per_query_table(wide, baseline if baseline in wide.columns else None)
        if texts:  # the query's text beside its id (a queries or topics file is loaded)
            frame.insert(1, "query", frame["query_id"].map(lambda q: texts.get(str(q), "")))
            tones.insert(1, "query", "")
        header = self.view.horizontalHeader()
        sort_col, sort_order = header.sortIndicatorSection(), header.sortIndicatorOrder()
        # rows arrive in natural query order (sorted by the worker): that order is the sort key
        self.model.set_frame(frame, tones, sort_keys={"query_id": np.arange(len(frame))})
        if 0 <= sort_col < len(frame.columns):
            self.proxy.sort(sort_col, sort_order)
        self.baseline_label.setText(
            f"Per query — baseline: {baseline} (Δ = run − baseline)" if baseline in wide.columns else "Per query"
        )
        fit_columns(self.view)
        self._on_filter(self.filter_edit.text())  # the count and the id list apply to the new rows
        self.on_query(self.session.selected_query)

    def on_query(self, query_id) -> None:
        sel = self.view.selectionModel()
        current = self._current_query()
        if query_id == current:
            return
        sel.blockSignals(True)
        try:
            if query_id is None:
                self.view.clearSelection()
                sel.setCurrentIndex(self.proxy.index(-1, -1), QItemSelectionModel.SelectionFlag.NoUpdate)
                return
            rows = (
                self.model.frame().index[self.model.frame()["query_id"] == query_id] if len(self.model.frame()) else []
            )
            if len(rows) == 0:
                self.view.clearSelection()
                return
            index = self.proxy.mapFromSource(self.model.index(int(rows[0]), 0))
            if index.isValid():
                sel.setCurrentIndex(
                    index,
                    QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
                )
                self.view.scrollTo(index)
        finally:
            sel.blockSignals(False)
            self.view.viewport().update()

    # -- view -> session ------------------------------------------------
    def _current_query(self):
        index = self.view.selectionModel().currentIndex()
        if not index.isValid() or not self.view.selectionModel().isRowSelected(index.row(), index.parent()):
            return None
        return self.proxy.index(index.row(), 0).data()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if obj is self.view and event.type() == QEvent.Type.FocusIn:
            self._entering = True
            QTimer.singleShot(0, self, lambda: setattr(self, "_entering", False))
        return super().eventFilter(obj, event)

    def _on_current_row(self, current, previous) -> None:
        if current.isValid() and not self._entering:
            self.session.model.select_query(self.proxy.index(current.row(), 0).data())

    def _on_measure_chosen(self, name: str) -> None:
        if name:
            self.session.model.set_focus_measure(name)

    def _on_filter(self, text: str) -> None:
        """Query ids: one id or a list (``2, 13, 5``) match exactly; a single text matching no id whole
        matches ids containing it.  The box says how many queries are shown, or that none is."""
        tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
        ids = set(self.model.frame()["query_id"].astype(str)) if "query_id" in self.model.frame() else set()
        if not tokens:
            self.proxy.set_exact_filter(None)
            self.proxy.setFilterRegularExpression(QRegularExpression())
        elif len(tokens) > 1 or tokens[0] in ids:
            self.proxy.set_exact_filter(tokens)
        else:
            self.proxy.set_exact_filter(None)
            self.proxy.setFilterRegularExpression(
                QRegularExpression(
                    QRegularExpression.escape(tokens[0]), QRegularExpression.PatternOption.CaseInsensitiveOption
                )
            )
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        if not tokens:
            self.filter_status.setText("")
        elif shown == 0:
            self.filter_status.setText(f"<span style='color:#c62828'>no query matches “{text.strip()}”</span>")
        else:
            missing = [t for t in tokens if t not in ids] if len(tokens) > 1 else []
            note = f"; not found: {', '.join(missing[:5])}" if missing else ""
            self.filter_status.setText(f"{shown} of {total} queries{note}")
