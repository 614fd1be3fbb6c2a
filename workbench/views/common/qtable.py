"""One generic read-only table model over a DataFrame, and its sort/filter proxy.

* DisplayRole: numbers rounded for reading (``decimals``), missing values as "–".
* ``SORT_ROLE``: the raw number (or a given sort key), so 10 sorts after 9;
  missing values are invalid and sort last.
* ``RAW_ROLE`` / ToolTipRole: the full-precision value.
* BackgroundRole / FontRole from a frame of tones (see :mod:`workbench.state.tables`).
* Optional ``marks`` (text appended to the shown value, e.g. a significance
  marker) and ``tips`` (ToolTipRole instead of the full-precision value).

Sorting is done by the model with numpy (:meth:`DataFrameModel.sort`, on the
values ``SORT_ROLE`` returns, missing values last in either order); the proxy
hands its sort requests to the model and only filters.  Letting
QSortFilterProxyModel compare rows itself would call ``data()`` twice per
comparison, which takes seconds for tables of tens of thousands of queries.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics

from metrics.measures import is_count

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
RAW_ROLE = Qt.ItemDataRole.UserRole + 2

TONE_COLOURS = {
    "best": QColor(255, 236, 160),
    "better": QColor(198, 239, 206),
    "worse": QColor(255, 199, 206),
}


class DataFrameModel(QAbstractTableModel):
    """A frame shown by a QTableView: its cells as text, colours and tooltips, read column by column."""

    def __init__(self, parent=None, decimals: int = 4, colours: Mapping[str, QColor] | None = None):
        super().__init__(parent)
        self.decimals = decimals
        self._frame = pd.DataFrame()
        self._rows = 0  # len(self._frame), which Qt asks for thousands of times
        self._names: list[str] = []  # the columns' names, as the headers show them
        self._columns: list[np.ndarray] = []
        self._numeric: list[bool] = []
        self._integer: list[bool] = []
        self._sort_keys: dict[int, np.ndarray] = {}
        self._tones: np.ndarray | None = None
        self._brushes = {k: QBrush(c) for k, c in {**TONE_COLOURS, **(colours or {})}.items()}
        self._marks: np.ndarray | None = None
        self._tips: np.ndarray | None = None
        self._bold = QFont()
        self._bold.setBold(True)
        self.row_label_column: int | None = None  # a column whose value labels each row (vertical header)
        self.header_tips: dict[str, str] = {}  # column name -> a line under it in its tooltip

    # -- data in --------------------------------------------------------
    def set_frame(
        self,
        frame: pd.DataFrame,
        tones: pd.DataFrame | np.ndarray | None = None,
        sort_keys: Mapping[str, np.ndarray] | None = None,
        marks: pd.DataFrame | None = None,
        tips: pd.DataFrame | np.ndarray | None = None,
    ) -> None:
        """Show ``frame``; ``tones``, ``marks`` and ``tips`` by cell, as frames (their columns matched to
        ``frame``'s by name) or as arrays of ``frame``'s shape."""
        self.beginResetModel()
        self._frame = frame
        self._rows = len(frame)
        dtypes = list(frame.dtypes)
        self._numeric = [pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in dtypes]
        numbers = [j for j, numeric in enumerate(self._numeric) if numeric]
        # the numeric columns as one float block (a table of a hundred runs has hundreds: a Series each
        # took longer than the rest of this), the others as text
        block = frame.iloc[:, numbers].to_numpy(dtype=float, na_value=np.nan) if numbers else None
        at = {j: k for k, j in enumerate(numbers)}
        self._columns = [
            block[:, at[j]] if j in at else frame.iloc[:, j].astype(str).to_numpy(dtype=object)  # type: ignore[index]
            for j in range(len(dtypes))
        ]
        cols = self._names = [str(c) for c in frame.columns]  # (a header asks for its name often)
        self._sort_keys = {cols.index(k): np.asarray(v) for k, v in (sort_keys or {}).items() if k in cols}
        self._integer = self._counts(block, numbers)
        self._tones, self._marks, self._tips = (_cells(t, frame) for t in (tones, marks, tips))
        self.endResetModel()

    def frame(self) -> pd.DataFrame:
        return self._frame

    def sort_order(self, column: int, order=Qt.SortOrder.AscendingOrder) -> np.ndarray:
        """Row permutation that sorts by ``column`` (stable; missing values last in both orders)."""
        n = len(self._frame)
        descending = order == Qt.SortOrder.DescendingOrder
        if column in self._sort_keys or self._numeric[column]:
            keys = self._sort_keys[column] if column in self._sort_keys else self._columns[column]
            keys = np.asarray(keys, dtype=float)
            present = np.flatnonzero(~np.isnan(keys))
            ordered = present[np.argsort(-keys[present] if descending else keys[present], kind="stable")]
            return np.concatenate([ordered, np.flatnonzero(np.isnan(keys))]).astype(np.int64)
        values = self._columns[column]
        return np.array(sorted(range(n), key=values.__getitem__, reverse=descending), dtype=np.int64)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not (0 <= column < len(self._columns)) or len(self._frame) < 2:
            return
        perm = self.sort_order(column, order)
        if np.array_equal(perm, np.arange(len(perm))):
            return
        self.layoutAboutToBeChanged.emit()
        new_row = np.empty_like(perm)
        new_row[perm] = np.arange(len(perm))
        old = self.persistentIndexList()
        self.changePersistentIndexList(old, [self.index(int(new_row[i.row()]), i.column()) for i in old])
        self._frame = self._frame.iloc[perm].reset_index(drop=True)
        self._columns = [c[perm] for c in self._columns]
        self._sort_keys = {c: k[perm] for c, k in self._sort_keys.items()}
        for name in ("_tones", "_marks", "_tips"):
            table = getattr(self, name)
            if table is not None:
                setattr(self, name, table[perm])
        self.layoutChanged.emit()

    # -- Qt model -------------------------------------------------------
    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < self._rows and 0 <= c < len(self._columns)):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.display_text(r, c)
        value = self._columns[c][r]
        numeric = self._numeric[c]
        if role == SORT_ROLE:
            if c in self._sort_keys:
                return int(self._sort_keys[c][r])
            if numeric:
                return None if math.isnan(value) else float(value)
            return value
        if role == RAW_ROLE:
            if numeric:
                return None if math.isnan(value) else float(value)
            return value
        if role == Qt.ItemDataRole.ToolTipRole and self._tips is not None and self._tips[r, c]:
            return self._tips[r, c]
        if role == Qt.ItemDataRole.ToolTipRole:
            if numeric and not math.isnan(value):
                return repr(float(value))
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if numeric:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and self._tones is not None:
            return self._brushes.get(self._tones[r, c])
        if role == Qt.ItemDataRole.FontRole and self._tones is not None:
            return self._bold if self._tones[r, c] == "best" else None
        return None

    def display_text(self, r: int, c: int) -> str:
        """The text a cell shows: numbers rounded for reading, counts whole, missing values as "–", then its mark."""
        value = self._columns[c][r]
        mark = "" if self._marks is None else self._marks[r, c]
        if self._numeric[c]:
            return self._number_text(c, value) + mark
        return value + mark if mark else value

    def _number_text(self, c: int, value: float) -> str:
        """A number of column ``c`` as its cells show it, without a mark."""
        if math.isnan(value):
            return "–"
        if self._shows_whole(c, value):
            return str(int(value))
        return f"{value:.{self.decimals}f}"

    def longest_texts(self, c: int, rows: int, keep: int = 3) -> list[str]:
        """The ``keep`` longest texts (in characters) of column ``c`` among its first ``rows`` rows, for sizing
        the column (:meth:`longest_texts_of_all` for one column)."""
        return self.longest_texts_of_all(rows, keep, columns=[c])[0]

    def longest_texts_of_all(self, rows: int, keep: int = 3, columns: list[int] | None = None) -> list[list[str]]:
        """:meth:`longest_texts` of every column (or of ``columns``): formatted here rather than through
        :meth:`data` (a Qt call per cell takes seconds for the hundreds of columns of a table with many
        runs). A number's text is longest for the largest value or the most negative (with its sign), or
        is "–", "inf" or "-0.0000": the candidates of every column of numbers are found at once, and only
        those few are formatted."""
        n = min(rows, len(self._frame))
        chosen = list(range(len(self._columns))) if columns is None else list(columns)
        plain = [c for c in chosen if self._numeric[c] and (self._marks is None or not self._marks[:n, c].any())]
        found: dict[int, list[float]] = {}
        if plain and n:
            values = np.column_stack([self._columns[c][:n] for c in plain])
            finite = np.isfinite(values)
            some = finite.any(axis=0)
            top = np.where(finite, values, -np.inf).max(axis=0)
            low = np.where(finite, values, np.inf).min(axis=0)
            flags = [
                (np.inf, (values == np.inf).any(axis=0)),
                (-np.inf, (values == -np.inf).any(axis=0)),
                (-0.0, ((values == 0) & np.signbit(values)).any(axis=0)),
                (np.nan, np.isnan(values).any(axis=0)),
            ]
            for k, c in enumerate(plain):
                found[c] = ([float(top[k]), float(low[k])] if some[k] else []) + [v for v, f in flags if f[k]]
        elif plain:
            found = {c: [] for c in plain}
        texts = []
        for c in chosen:
            if c in found:
                shown = {self._number_text(c, v) for v in found[c]}
            else:
                shown = {self.display_text(r, c) for r in range(n)}
            texts.append(sorted(shown, key=len)[-keep:])
        return texts

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and not 0 <= section < len(self._names):
            return None
        if role == Qt.ItemDataRole.InitialSortOrderRole and horizontal:
            # the first click on a score column puts the best (highest) value on top
            return Qt.SortOrder.DescendingOrder if self._numeric[section] else Qt.SortOrder.AscendingOrder
        if role == Qt.ItemDataRole.ToolTipRole and horizontal:
            name = self._names[section]  # the whole name where the header is elided
            tip = self.header_tips.get(name)
            return f"{name}\n{tip}" if tip else name
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if horizontal:
            return self._names[section]
        if self.row_label_column is not None and 0 <= section < self._rows:
            return str(self._columns[self.row_label_column][section])  # e.g. the query id of the row
        return str(section + 1)

    def cell_value(self, row: int, column: int):
        """The value of a cell at full precision (a float, an int for counts, or text)."""
        value = self._columns[column][row]
        if not self._numeric[column]:
            return value
        if math.isnan(value):
            return None
        return int(value) if self._shows_whole(column, value) else float(value)

    def _shows_whole(self, c: int, value: float) -> bool:
        """Whether ``value`` of column ``c`` is a count shown without decimals (an infinity is not)."""
        return self._integer[c] and math.isfinite(value)

    def _counts(self, block: np.ndarray | None, numbers: list[int]) -> list[bool]:
        """For each column, whether it shows no decimals: a column of whole numbers named by a count measure
        (num_rel..., kind "long").  ``block``: the numeric columns ``numbers``, tested at once (a table of
        hundreds of runs has hundreds), and only the names of whole columns parsed (parsing one that is not a
        measure is slow)."""
        counts = [False] * len(self._columns)
        if block is None or not numbers:
            return counts
        finite = np.isfinite(block)
        safe = np.where(finite, block, 0.0)
        whole = np.all((safe == np.round(safe)) & (np.abs(safe) < 1e15), axis=0)
        for k in np.flatnonzero(whole):
            counts[numbers[k]] = is_count(self._names[numbers[k]])
        return counts

    def header_texts(self) -> list[str]:
        """The columns' names as the horizontal header shows them."""
        return list(self._names)


def _cells(table: pd.DataFrame | np.ndarray | None, frame: pd.DataFrame) -> np.ndarray | None:
    """A table of text by cell of ``frame``: a frame's columns matched by name (missing cells empty), or an
    array of ``frame``'s shape as it is."""
    if table is None or isinstance(table, np.ndarray):
        return table
    return table.reindex(columns=frame.columns, fill_value="").astype(object).fillna("").to_numpy(dtype=object)


def selection_as_tsv(view) -> str:
    """The selected cells of a table view as tab-separated text with a header row.

    Numbers at full precision, without display marks (significance markers,
    thin spaces), so they paste into a spreadsheet as numbers; rows and columns
    in the order shown.  Without a selection, the whole table.
    """
    proxy = view.model()
    model = proxy.sourceModel() if isinstance(proxy, QSortFilterProxyModel) else proxy
    indexes = view.selectionModel().selectedIndexes() if view.selectionModel() else []
    if indexes:
        rows = sorted({i.row() for i in indexes})
        cols = sorted({i.column() for i in indexes})
        chosen = {(i.row(), i.column()) for i in indexes}
    else:
        rows, cols = list(range(proxy.rowCount())), list(range(proxy.columnCount()))
        chosen = None
    header = view.horizontalHeader()
    cols.sort(key=header.visualIndex)

    def text(value) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return repr(value)
        return str(value).replace("\t", " ").replace("\n", " ")

    lines = ["\t".join(text(model.headerData(c, Qt.Orientation.Horizontal)) for c in cols)]
    for r in rows:
        source_row = proxy.mapToSource(proxy.index(r, 0)).row() if proxy is not model else r
        cells = []
        for c in cols:
            if chosen is not None and (r, c) not in chosen:
                cells.append("")
            elif isinstance(model, DataFrameModel):
                cells.append(text(model.cell_value(source_row, c)))
            else:
                cells.append(text(proxy.index(r, c).data()))
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def install_copy(view) -> None:
    """Ctrl+C (the platform's Copy) copies the view's selection as :func:`selection_as_tsv`."""
    from PySide6.QtGui import QAction, QGuiApplication, QKeySequence

    action = QAction("Copy", view)
    action.setShortcut(QKeySequence.StandardKey.Copy)
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    action.triggered.connect(lambda: QGuiApplication.clipboard().setText(selection_as_tsv(view)))
    view.addAction(action)


def fit_columns(view, max_header_chars: int = 18) -> None:
    """Widths that show every value whole; a long header is elided (its tooltip has the whole name).

    ``resizeColumnsToContents`` makes a column as wide as its header: with a
    long run name the numbers end up off-screen at the right edge.
    """
    header = view.horizontalHeader()
    header.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    cap = view.fontMetrics().horizontalAdvance("M" * max_header_chars)
    model = view.model()
    fm = view.fontMetrics()
    rows = min(model.rowCount(), 200) if model is not None else 0
    source = model.sourceModel() if isinstance(model, QSortFilterProxyModel) else model
    columns = model.columnCount() if model is not None else 0
    heads = header_widths(header, model, columns)
    # the widest of the first rows as shown (sizeHintForColumn lays out every cell: seconds for hundreds of
    # columns); a DataFrameModel formats its texts without a Qt call per cell, and only the longest few
    # of each column are measured
    longest = source.longest_texts_of_all(rows) if isinstance(source, DataFrameModel) else None
    for c in range(columns):
        if longest is not None:
            texts = longest[c]
        else:
            texts = [model.index(r, c).data() for r in range(rows)]
        content = max([fm.horizontalAdvance(str(t)) for t in texts if t is not None] + [0]) + 16
        header.resizeSection(c, max(content, min(heads[c], cap), 40))


def header_widths(header, model, columns: int) -> list[int]:
    """What ``header.sectionSizeFromContents(c).width()`` gives for each of the first ``columns`` sections
    of a header of text alone: the style's margins (sort indicator included), measured on the first
    section, plus each name's width in bold (the header measures its names in bold, as it may show
    them).  One style call rather than one per section: hundreds for a table of many runs."""
    if columns <= 0:
        return []
    font = QFont(header.font())
    font.setBold(True)
    metrics = QFontMetrics(font)

    source = model.sourceModel() if isinstance(model, DataFrameProxy) else model
    if isinstance(source, DataFrameModel):  # (a proxy of ours filters rows only: its columns are the model's)
        texts = source.header_texts()[:columns]
    else:
        names = (model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) for c in range(columns))
        texts = ["" if name is None else str(name) for name in names]
    margin = header.sectionSizeFromContents(0).width() - metrics.size(0, texts[0]).width()
    return [metrics.size(0, t).width() + margin for t in texts]


class DataFrameProxy(QSortFilterProxyModel):
    """Filters rows whose ``filter_column`` contains the filter text; sorting is the model's.

    A sort request (a click on a header) goes to :meth:`DataFrameModel.sort`
    and is applied again whenever the model gets a new frame.
    """

    def __init__(self, parent=None, filter_column: int = 0):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterKeyColumn(filter_column)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._exact: frozenset[str] | None = None

    def set_exact_filter(self, values) -> None:
        """Keep only rows whose filter column is one of ``values`` (None: no such filter)."""
        exact = None if values is None else frozenset(str(v) for v in values)
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.9
            self.beginFilterChange()
            self._exact = exact
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._exact = exact
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row: int, parent) -> bool:
        if self._exact is not None:
            model = self.sourceModel()
            return str(model.index(row, self.filterKeyColumn(), parent).data()) in self._exact
        return super().filterAcceptsRow(row, parent)

    def setSourceModel(self, model) -> None:
        old = self.sourceModel()
        if isinstance(old, DataFrameModel):
            old.modelReset.disconnect(self._sort_again)
        super().setSourceModel(model)
        if isinstance(model, DataFrameModel):
            model.modelReset.connect(self._sort_again)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        model = self.sourceModel()
        if not isinstance(model, DataFrameModel):
            super().sort(column, order)
            return
        self._sort = (column, order)
        model.sort(column, order)

    def _sort_again(self) -> None:
        if self._sort is not None:
            self.sourceModel().sort(*self._sort)
