"""What every "why runs differ" view shares: an :class:`AnalysisFollower` that keeps the view in step with
the session (its analysis computed in a worker whenever the results or the view's settings change while
the view is shown, marked out of date in its own pane otherwise), and the view's CSV and PNG export, each
stating how its numbers were made (:func:`workbench.state.analyses.export_header`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

import numpy as np
import pandas as pd
from PySide6.QtCore import (
    QAbstractTableModel,
    QBuffer,
    QByteArray,
    QEvent,
    QIODevice,
    QModelIndex,
    QObject,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLayout,
    QMenu,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from metrics.errors import Cancelled
from workbench.state import analyses
from workbench.views.common.qtable import DataFrameModel, DataFrameProxy, fit_columns, install_copy

if TYPE_CHECKING:
    from workbench.qt.session import Session

#: the banner of a view whose analysis is not that of the scores and settings shown
STALE_STYLE = "QLabel { background: #fff3cd; color: #5c4400; padding: 3px 6px; border-radius: 3px; }"
#: a warning that concerns the numbers shown (a run whose scores are likely underestimated)
WARNING_STYLE = "QLabel { background: #f8d7da; color: #721c24; padding: 3px 6px; border-radius: 3px; }"


def pane(view: QWidget, rows: list[QLayout], *widgets: QWidget) -> QVBoxLayout:
    """The layout of an analysis view: its rows of controls, then ``widgets`` one under the other (the banner
    that says whether it is current first), the last taking the height left."""
    layout = QVBoxLayout(view)
    layout.setContentsMargins(2, 2, 2, 2)
    layout.setSpacing(2)
    for row in rows:
        layout.addLayout(row)
    for i, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if i == len(widgets) - 1 else 0)
    return layout


def controls(view: QWidget, *parts: str | QWidget, top: bool = False) -> QHBoxLayout:
    """A row of an analysis view's controls: a text is the label of the box after it, which takes the width
    left (shared among the boxes); other widgets keep their own width.  ``top``: the view's first row."""
    row = QHBoxLayout()
    row.setContentsMargins(4, 2 if top else 0, 4, 0)
    labelled = False
    for part in parts:
        if isinstance(part, str):
            row.addWidget(QLabel(part, view))
            labelled = True
        else:
            row.addWidget(part, 1 if labelled else 0)
            labelled = False
    return row


def colour_scale(value: float, low: float = 0.0, high: float = 1.0) -> QColor:
    """White (``low``) to a deep blue (``high``), for the cells of a matrix; light grey for NaN."""
    if value != value:
        return QColor(235, 235, 235)
    t = min(1.0, max(0.0, (value - low) / (high - low) if high > low else 0.0))
    return QColor(int(255 - t * (255 - 33)), int(255 - t * (255 - 102)), int(255 - t * (255 - 172)))


def text_colour(value: float, low: float = 0.0, high: float = 1.0) -> QColor:
    t = (value - low) / (high - low) if high > low and value == value else 0.0
    return QColor("white") if t > 0.6 else QColor(20, 20, 20)


class AnalysisFollower(QObject):
    """Keeps one analysis view in step with the session.

    ``settings()`` gives the view's settings now (None: nothing to compute, e.g. one run where two are
    needed; ``nothing()`` says why in the banner); the outcome arrives through ``sigOutcome`` (None when
    there is nothing to show).  While the
    view is hidden (a tab behind another) nothing is computed: the banner says it is out of date, and it
    is computed once shown."""

    sigOutcome = Signal(object)

    def __init__(
        self,
        session: Session,
        view: QWidget,
        kind: str,
        title: str,
        *,
        settings: Callable[[], object],
        banner: QLabel,
        nothing: Callable[[], str] | None = None,
        without_scores: Callable[[], analyses.Inputs | None] | None = None,
    ):
        super().__init__(view)
        self.session, self.view, self.kind, self.title = session, view, kind, title
        self.settings = settings
        #: why there is nothing to show where ``settings()`` is None (by default: the runs and measures)
        self.nothing = nothing or (lambda: "Nothing to show with these runs and measures.")
        #: the inputs of an analysis that needs no scores, while there are none (two qrels compared)
        self.without_scores = without_scores
        self.banner = banner
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(STALE_STYLE)
        self.outcome: analyses.Outcome | None = None
        self.running = False
        self.error = ""
        self._dock: QDockWidget | None = None
        self._token = 0  # the latest job's number: outcomes of earlier ones are dropped
        self._pending: tuple = (None, None)  # the results and settings the job under way computes
        view.installEventFilter(self)
        session.sigResultsChanged.connect(lambda _: self.changed())
        session.sigStateChanged.connect(self.show_state)
        session.sigFilesChanged.connect(self.show_state)

    # -- what the view shows ----------------------------------------------------------------
    def state(self) -> str:
        if self.error:
            return "failed"
        settings = self.settings()
        st = analyses.state(
            self.outcome,
            self.session.results,
            settings,
            evaluation_state=self.session.evaluation_state(),
            running=self.running,
        )
        if st == "empty" and self.without_scores is not None and settings is not None:
            return "outdated"  # (something to compute without scores: not computed yet)
        return st

    def show_state(self) -> None:
        st = self.state()
        text = analyses.STATE_TEXT[st]
        if st == "failed":
            text = f"{text}: {self.error}"
        elif st == "outdated" and self.outcome is None and self.settings() is None:
            text = self.nothing()
        self.banner.setText(text)
        self.banner.setVisible(bool(text))

    # -- computing ----------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        if watched is self.view and event.type() == QEvent.Type.Show:
            self.changed()
        elif watched is self.view and event.type() == QEvent.Type.ParentChange:
            self._follow_dock()
        return False

    def _follow_dock(self) -> None:
        """In a dock, the view is in front when its dock's tab is: a dock behind another tab is moved off
        the window, not hidden, so the dock's ``visibilityChanged`` is what says it came forward."""
        parent = self.view.parentWidget()
        while parent is not None and not isinstance(parent, QDockWidget):
            parent = parent.parentWidget()
        if parent is not None and parent is not self._dock:
            self._dock = parent
            parent.visibilityChanged.connect(lambda on: on and QTimer.singleShot(0, self, self._if_shown))

    def shown(self) -> bool:
        """Whether the view can be seen: shown, and not behind another tab."""
        return self.view.isVisible() and not self.view.visibleRegion().isEmpty()

    def _if_shown(self) -> None:
        if self.shown() and not self.running and self.state() != "current":
            self.changed()

    def changed_if_other(self) -> None:
        """:meth:`changed` when the view's settings now differ from those of the outcome shown (a file read
        again, one held beside or let go: what the view compares may or may not have changed)."""
        o = self.outcome
        if (o.settings if o is not None else None) != self.settings():
            self.changed()

    def changed(self) -> None:
        """The results or the settings changed: compute again if the view is shown, else say it is out of date."""
        self.error = ""
        if self.shown():
            self.request()
        else:
            self.show_state()

    def request(self) -> None:
        results, settings = self.session.results, self.settings()
        if self.outcome is not None and analyses.state(self.outcome, results, settings) == "current":
            self.show_state()
            return
        workspace = self.session.workspace
        inputs = analyses.inputs_of(results, workspace.queries(), workspace.held_qrels())
        if inputs is None and results is None and self.without_scores is not None:
            inputs = self.without_scores()
        if inputs is None or settings is None:
            self.outcome = None
            self.sigOutcome.emit(None)
            self.show_state()
            return
        if self.running and self._pending == (results, settings):
            return  # (the job under way computes just that)
        kind = self.kind
        self.running = True
        self._pending = (results, settings)
        self._token += 1
        token = self._token
        self.session.run_job(
            lambda progress: analyses.compute(kind, inputs, settings, progress),
            f"Computing {self.title}",
            lambda outcome: self._done(token, outcome),
            lambda exc: self._failed(token, exc),
            key=("analysis", kind),
        )
        self.show_state()

    def _done(self, token: int, outcome: analyses.Outcome) -> None:
        if token != self._token:
            return  # a job superseded by a later request
        self.running = False
        if outcome.inputs.results is not self.session.results or outcome.settings != self.settings():
            self.changed()  # what is wanted changed while it was computed
            return
        self.outcome = outcome
        self.sigOutcome.emit(outcome)
        self.show_state()

    def _failed(self, token: int, exc: BaseException) -> None:
        if token != self._token:
            return
        self.running = False
        if not isinstance(exc, Cancelled):
            self.error = str(exc)
        self.show_state()


class ExportButton(QToolButton):
    """ "Export" with CSV and PNG: the CSV of ``table()`` (a frame, or None) and a picture of ``picture``,
    both stating the settings of the outcome the view shows."""

    def __init__(
        self, parent: QWidget, follower: AnalysisFollower, table: Callable[[], pd.DataFrame | None], picture: QWidget
    ):
        super().__init__(parent)
        self.follower, self.table, self.picture = follower, table, picture
        self.setText("Export")
        self.setToolTip("Save what this view shows as CSV or PNG (the settings are stated in the file)")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        menu.addAction("CSV…", lambda: self._ask("csv"))
        menu.addAction("PNG…", lambda: self._ask("png"))
        self.setMenu(menu)

    def _ask(self, fmt: str) -> None:
        name = f"{self.follower.kind}.{fmt}"
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.follower.title}", name, f"{fmt.upper()} (*.{fmt})")
        if path:
            self.export(fmt, path)

    def export(self, fmt: str, path: str) -> None:
        """Write the CSV or PNG (``fmt``) of what the view shows to ``path`` in a worker (what to write is
        taken here, the file written there); the session says when it is saved or why not."""
        session = self.follower.session
        try:
            write = self._csv(path) if fmt == "csv" else self._png(path)
        except ValueError as exc:
            session.sigError.emit(f"Export failed: {exc}")
            return
        session.run_job(
            lambda progress: write(),
            f"Exporting {os.path.basename(path)}",
            lambda _: session.sigMessage.emit(f"Saved {os.path.basename(path)}"),
            lambda exc: session.sigError.emit(f"Export failed: {exc}"),
        )

    def _header(self) -> list[str]:
        outcome = self.follower.outcome
        if outcome is None:
            raise ValueError("nothing computed yet")
        return analyses.export_header(outcome, self.follower.title)

    def _inputs(self) -> list[str]:
        return [e.path for e in self.follower.session.workspace.entries]

    def export_csv(self, path: str) -> None:
        """The table the view shows, as CSV with its settings in ``# `` lines (written here: :meth:`export`
        writes in a worker)."""
        self._csv(path)()

    def export_png(self, path: str) -> None:
        """The view's picture as drawn, its settings in the PNG's Description text (written here:
        :meth:`export` writes in a worker)."""
        self._png(path)()

    def _csv(self, path: str) -> Callable[[], object]:
        """The writing of the CSV, with what it writes taken now (the table shown, its header, the inputs)."""
        from workbench.state.export import write_csv

        frame = self.table()
        if frame is None:
            raise ValueError("nothing computed yet")
        header, inputs = self._header(), self._inputs()
        return lambda: write_csv(path, frame, header, protect=inputs)

    def _png(self, path: str) -> Callable[[], object]:
        """The writing of the PNG, its picture grabbed and encoded now (a widget is drawn on the window's
        thread only)."""
        from metrics.io import fileio

        header = self._header()
        image = self.picture.grab().toImage()
        image.setText("Description", "\n".join(header))
        image.setText("Software", "ir-workbench")
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        # (the stubs say bytes; PySide6 takes str)
        if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
            raise ValueError("the picture could not be encoded")
        encoded, inputs = bytes(data.data()), self._inputs()
        return lambda: fileio.write_bytes(path, encoded, overwrite=True, protect=inputs)


class MatrixModel(QAbstractTableModel):
    """A square matrix of values between two labelled axes (runs by runs, measures by measures): each cell
    shows ``text(value)`` on ``colour(value)``, with ``tip(i, j)`` as its tooltip.  Cells are made when Qt
    asks for them (the visible ones): a hundred runs make ten thousand cells."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.values = np.zeros((0, 0))
        self.labels: list[str] = []
        self.text: Callable[[float], str] = lambda v: "" if v != v else f"{v:.3f}"
        self.colour: Callable[[float], QColor] = colour_scale
        self.ink: Callable[[float], QColor] = text_colour
        self.tip: Callable[[int, int], str | None] = lambda i, j: None

    def set_matrix(self, values: np.ndarray, labels: list[str]) -> None:
        self.beginResetModel()
        self.values = np.asarray(values, dtype=float)
        self.labels = list(labels)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.labels)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.labels)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        v = float(self.values[index.row(), index.column()])
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(v)
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(self.colour(v))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(self.ink(v))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tip(index.row(), index.column())
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        """Rows are numbered and named ("1 bm25"), columns numbered only ("1"): the numbers stay readable at
        any width, however long the names (a DL19 run's name filled the pane); tooltips give the names."""
        if not 0 <= section < len(self.labels):
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.labels[section]
        if role == Qt.ItemDataRole.DisplayRole:
            number = str(section + 1)
            return number if orientation == Qt.Orientation.Horizontal else f"{number} {self.labels[section]}"
        return None


class MatrixView(QTableView):
    """The table of a :class:`MatrixModel`: it asks for the room its row names and a few columns need, so
    that the splitter it stands in puts it above the rest when beside it the numbers would be cut off."""

    #: columns shown whole before the view scrolls
    COLUMNS = 4

    def sizeHint(self) -> QSize:
        """As tall as its rows (at most a dozen shown before it scrolls)."""
        model = self.model()
        rows = min(model.rowCount() if model is not None else 0, 12)
        height = self.horizontalHeader().sizeHint().height() + rows * self.verticalHeader().defaultSectionSize()
        return QSize(super().sizeHint().width(), height + 2 * self.frameWidth() + 4)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        model = self.model()
        columns = min(model.columnCount() if model is not None else 0, self.COLUMNS)
        header = self.verticalHeader()
        needed = header.sizeHint().width() + columns * self.horizontalHeader().defaultSectionSize()
        return QSize(max(hint.width(), needed + 2 * self.frameWidth()), hint.height())


def matrix_view(parent: QWidget, widest: str = "0.000") -> tuple[QTableView, MatrixModel]:
    """A table view of a :class:`MatrixModel`, its columns as wide as the text ``widest``."""
    view = MatrixView(parent)
    model = MatrixModel(view)
    view.setModel(model)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setTabKeyNavigation(False)
    view.setMinimumHeight(36)
    view.horizontalHeader().setMinimumSectionSize(8)
    view.horizontalHeader().setDefaultSectionSize(view.fontMetrics().horizontalAdvance(widest) + 12)
    view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideMiddle)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
    # the names beside the rows take at most 16 characters' room (elided in the middle, whole in tooltips)
    view.verticalHeader().setMaximumWidth(view.fontMetrics().horizontalAdvance("0" * 16) + 12)
    view.verticalHeader().setTextElideMode(Qt.TextElideMode.ElideMiddle)
    return view, model


class WholeNumbersModel(DataFrameModel):
    """The window's table model, with integer columns (counts of documents, of queries) shown whole."""

    def _counts(self, block, numbers: list[int]) -> list[bool]:
        dtypes = self._frame.dtypes
        return [
            pd.api.types.is_integer_dtype(dtypes.iloc[c]) or count
            for c, count in enumerate(super()._counts(block, numbers))
        ]


class FrameTable:
    """A read-only sortable table of a DataFrame (the window's :class:`~workbench.views.common.qtable.DataFrameModel`
    behind its proxy): ``view`` to lay out, :meth:`show` a frame, :meth:`row` the frame's row of a click."""

    def __init__(self, parent: QWidget, decimals: int = 4) -> None:
        self.view = QTableView(parent)
        self.model = WholeNumbersModel(self.view, decimals=decimals)
        self.proxy = DataFrameProxy(self.view)
        self.proxy.setSourceModel(self.model)
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # the frame's order first
        self.proxy._sort = None
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setTabKeyNavigation(False)
        self.view.setWordWrap(False)
        self.view.setMinimumHeight(36)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        install_copy(self.view)

    def show(self, frame: pd.DataFrame) -> None:
        self.model.set_frame(frame.reset_index(drop=True))
        fit_columns(self.view)

    def frame(self) -> pd.DataFrame:
        """The frame in the order shown (a sort reorders the model's frame)."""
        return self.model.frame()

    def row(self, index) -> pd.Series | None:
        """The frame's row of a cell of the view (a ``clicked`` index)."""
        r = self.proxy.mapToSource(index).row()
        frame = self.model.frame()
        return frame.iloc[r] if 0 <= r < len(frame) else None

    def text(self, row: int, column: str) -> str:
        frame = self.model.frame()
        return self.model.display_text(row, list(frame.columns).index(column))


class AdaptiveSplitter(QSplitter):
    """A splitter whose two parts lie side by side when it is wider than tall (a dock along the window's
    side, a short wide pane), one above the other otherwise; the first part gets ``share`` of the room
    whenever the orientation changes."""

    def __init__(
        self,
        orientation: Qt.Orientation,
        parent: QWidget | None = None,
        share: float = 0.5,
        needs: Callable[[], int] = lambda: 0,
        tall: Callable[[], int] | None = None,
    ) -> None:
        super().__init__(orientation, parent)
        self.share = share
        self.needs = needs  # the width the first part needs beside the second (a matrix's row names and columns)
        self.tall = tall  # how tall the first part is at most above the second (a matrix of few rows), if known
        self._placed = False  # (the parts are given their shares at the first resize)

    def minimumSizeHint(self) -> QSize:
        """The widest and the tallest of the parts: the splitter turns to fit (side by side, the parts' sum
        would widen the whole window)."""
        hints = [w.minimumSizeHint() for i in range(self.count()) if (w := self.widget(i)) is not None]
        if not hints:
            return super().minimumSizeHint()
        return QSize(max(h.width() for h in hints), max(h.height() for h in hints))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.refit(event.size())

    def refit(self, size: QSize | None = None) -> None:
        """Turn to fit ``size`` (the splitter's own by default: call it when a part's needs changed)."""
        size = self.size() if size is None else size
        # side by side only when the first part's share holds what it needs (a matrix's columns)
        wide = size.width() > 1.3 * size.height() and size.width() * self.share >= self.needs()
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if orientation != self.orientation() or not self._placed:
            self._placed = True
            self.setOrientation(orientation)
            room = size.width() if wide else size.height()
            first_room = int(room * self.share)
            if not wide and self.tall is not None:
                first_room = min(first_room, self.tall())
            self.setSizes([first_room, room - first_room])
