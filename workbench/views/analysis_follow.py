"""What every "why runs differ" view shares: an :class:`AnalysisFollower` that keeps the view in step with
the session (its analysis computed in a worker whenever the results or the view's settings change while
the view is shown, marked out of date in its own pane otherwise), and the view's CSV and PNG export, each
stating how its numbers were made (:func:`workbench.model.analyses.export_header`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

import pandas as pd
from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDockWidget, QFileDialog, QLabel, QMenu, QSplitter, QToolButton, QWidget

from metrics.errors import Cancelled
from workbench.model import analyses

if TYPE_CHECKING:
    from workbench.session import Session

#: the banner of a view whose analysis is not that of the scores and settings shown
STALE_STYLE = "QLabel { background: #fff3cd; color: #5c4400; padding: 3px 6px; border-radius: 3px; }"
#: a warning that concerns the numbers shown (a run whose scores are likely underestimated)
WARNING_STYLE = "QLabel { background: #f8d7da; color: #721c24; padding: 3px 6px; border-radius: 3px; }"


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
    needed); the outcome arrives through ``sigOutcome`` (None when there is nothing to show).  While the
    view is hidden (a tab behind another) nothing is computed: the banner says it is out of date, and it
    is computed once shown."""

    sigOutcome = Signal(object)

    def __init__(
        self, session: Session, view: QWidget, kind: str, title: str, settings: Callable[[], object], banner: QLabel
    ):
        super().__init__(view)
        self.session, self.view, self.kind, self.title = session, view, kind, title
        self.settings = settings
        self.banner = banner
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(STALE_STYLE)
        self.outcome: analyses.Outcome | None = None
        self.running = False
        self.error = ""
        self._dock: QDockWidget | None = None
        view.installEventFilter(self)
        session.sigResultsChanged.connect(lambda _: self.changed())
        session.sigStateChanged.connect(self.show_state)
        session.sigFilesChanged.connect(self.show_state)

    # -- what the view shows ----------------------------------------------------------------
    def state(self) -> str:
        if self.error:
            return "failed"
        return analyses.state(
            self.outcome,
            self.session.results,
            self.settings(),
            evaluation_state=self.session.evaluation_state(),
            running=self.running,
        )

    def show_state(self) -> None:
        st = self.state()
        text = analyses.STATE_TEXT[st]
        if st == "failed":
            text = f"{text}: {self.error}"
        elif st == "outdated" and self.outcome is None and self.settings() is None:
            text = "Nothing to show with these runs and measures."
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
        inputs = analyses.inputs_of(results, self.session.workspace.queries())
        if inputs is None or settings is None:
            self.outcome = None
            self.sigOutcome.emit(None)
            self.show_state()
            return
        kind = self.kind
        self.running = True
        self.session.run_job(
            lambda progress: analyses.compute(kind, inputs, settings, progress),
            f"Computing {self.title}",
            self._done,
            self._failed,
            key=("analysis", kind),
        )
        self.show_state()

    def _done(self, outcome: analyses.Outcome) -> None:
        self.running = False
        if outcome.inputs.results is not self.session.results or outcome.settings != self.settings():
            self.changed()  # superseded while it was computed: the one wanted now
            return
        self.outcome = outcome
        self.sigOutcome.emit(outcome)
        self.show_state()

    def _failed(self, exc: BaseException) -> None:
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
        if not path:
            return
        try:
            (self.export_csv if fmt == "csv" else self.export_png)(path)
        except (OSError, ValueError) as exc:
            self.follower.session.sigError.emit(f"Export failed: {exc}")
            return
        self.follower.session.sigMessage.emit(f"Saved {os.path.basename(path)}")

    def _header(self) -> list[str]:
        outcome = self.follower.outcome
        if outcome is None:
            raise ValueError("nothing computed yet")
        return analyses.export_header(outcome, self.follower.title)

    def _inputs(self) -> list[str]:
        return [e.path for e in self.follower.session.workspace.entries]

    def export_csv(self, path: str) -> None:
        """The table the view shows, as CSV with its settings in ``# `` lines."""
        from workbench.model.export import write_csv

        frame = self.table()
        if frame is None:
            raise ValueError("nothing computed yet")
        write_csv(path, frame, self._header(), protect=self._inputs())

    def export_png(self, path: str) -> None:
        """The view's picture as drawn, its settings in the PNG's Description text."""
        from metrics.io import fileio

        header = self._header()
        image = self.picture.grab().toImage()
        image.setText("Description", "\n".join(header))
        image.setText("Software", "ir-workbench")
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  (the stubs say bytes; PySide6 takes str)
            raise ValueError("the picture could not be encoded")
        fileio.write_bytes(path, bytes(data.data()), overwrite=True, protect=self._inputs())


def fill_table(table, frame: pd.DataFrame, digits: int = 4) -> None:
    """Show ``frame`` in a QTableWidget: its columns as headers, numbers to ``digits`` places (sorting by
    the number, not the text), NaN as a dash."""
    import numpy as np
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QTableWidgetItem

    table.setSortingEnabled(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    table.clear()
    table.setRowCount(len(frame))
    table.setColumnCount(len(frame.columns))
    table.setHorizontalHeaderLabels([str(c) for c in frame.columns])
    for j, column in enumerate(frame.columns):
        values = frame[column].to_numpy()
        for i, v in enumerate(values):
            item = QTableWidgetItem()
            if isinstance(v, (bool, np.bool_)):
                item.setText("yes" if v else "")
            elif isinstance(v, (int, np.integer)):
                item.setData(Qt.ItemDataRole.DisplayRole, int(v))
            elif isinstance(v, (float, np.floating)):
                if v != v:
                    item.setText("–")
                else:
                    item.setData(Qt.ItemDataRole.DisplayRole, round(float(v), digits))
            else:
                item.setText(str(v))
            table.setItem(i, j, item)
    table.resizeColumnsToContents()


class AdaptiveSplitter(QSplitter):
    """A splitter whose two parts lie side by side when it is wider than tall (a dock along the window's
    side, a short wide pane), one above the other otherwise; the first part gets ``share`` of the room
    whenever the orientation changes."""

    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None, share: float = 0.5) -> None:
        super().__init__(orientation, parent)
        self.share = share

    def resizeEvent(self, event) -> None:
        size = event.size()
        wide = size.width() > 1.3 * size.height()
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        super().resizeEvent(event)
        if orientation != self.orientation() or not getattr(self, "_placed", False):
            self._placed = True
            self.setOrientation(orientation)
            room = size.width() if wide else size.height()
            first = int(room * self.share)
            self.setSizes([first, room - first])
