"""The main window's layout: a first size and dock sizes, kept across runs and restored, and Reset layout."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow

LAYOUT_VERSION = 4  # bump when the docks change, so that an older saved layout is not applied


def fit_to_screen(window: QMainWindow) -> None:
    """A first size that shows every view: up to 1800 x 1050, within the screen."""
    w, h = 1800, 1050
    screen = QApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        if room.width() >= 1200 and room.height() >= 800:
            w, h = min(w, int(room.width() * 0.92)), min(h, int(room.height() * 0.92))
        else:
            w, h = 1400, 900
    window.resize(w, h)


class WindowLayout:
    """Where the docks of ``window`` (``docks``, by name) are and how large: saved in ``settings`` at exit
    and restored, shares of the width kept as the window is resized, and Reset layout.
    ``after_restore()`` shows again what a restored state may hide (the message bar with messages)."""

    def __init__(
        self,
        window: QMainWindow,
        settings: QSettings,
        docks: dict[str, QDockWidget],
        after_restore: Callable[[], None],
    ):
        self.window = window
        self.settings = settings
        self.docks = docks
        self._after_restore = after_restore
        self._first_show = True  # not laid out on the screen yet
        self._restored = False  # a saved layout was applied
        self._initial_state = QByteArray()  # the dock positions "Reset layout" goes back to

    def keep_initial(self) -> None:
        """The docks are all placed: this is what Reset layout goes back to."""
        self._initial_state = self.window.saveState(LAYOUT_VERSION)

    def restore(self) -> None:
        geometry = self.settings.value("geometry")
        state = self.settings.value("windowState")
        if geometry is not None:
            self.window.restoreGeometry(geometry)
        if state is not None:
            self._restored = self.window.restoreState(state, LAYOUT_VERSION)
        self._after_restore()

    def restore_state(self, state: QByteArray) -> None:
        """The dock positions a workspace saved."""
        self.window.restoreState(state, LAYOUT_VERSION)

    def state(self) -> QByteArray:
        return self.window.saveState(LAYOUT_VERSION)

    def built_while_shown(self) -> None:
        """The views were built after the first frame: lay the docks out once they have their places
        (the next turn of the event loop)."""
        from PySide6.QtCore import QTimer

        if self._first_show:
            self._first_show = False
            if not self._restored:
                QTimer.singleShot(0, self.window, self.default_sizes)

    def shown(self) -> None:
        """The window is shown (with its views)."""
        if self._first_show:
            self._first_show = False
            if not self._restored:
                self.default_sizes()

    def default_sizes(self) -> None:
        """Columns: files and measures | summary over the per-query table | curves | comparison."""
        d, window = self.docks, self.window
        w, h = window.width(), window.height()
        left = min(260, int(w * 0.18))
        window.resizeDocks([d["files"]], [left], Qt.Orientation.Horizontal)
        window.resizeDocks([d["files"], d["measures"]], [int(h * 0.3), int(h * 0.7)], Qt.Orientation.Vertical)
        window.resizeDocks([d["summary"]], [int(h * 0.2)], Qt.Orientation.Vertical)
        window.resizeDocks([d["prCurves"], d["ndcgAtK"]], [int(h * 0.5), int(h * 0.5)], Qt.Orientation.Vertical)
        window.resizeDocks([d["prCurves"]], [int(w * 0.22)], Qt.Orientation.Horizontal)
        self._default_compare_sizes()

    def _default_compare_sizes(self) -> None:
        """Right column: the difference chart over the query drill-down."""
        d, window = self.docks, self.window
        window.resizeDocks([d["diffChart"]], [int(window.width() * 0.27)], Qt.Orientation.Horizontal)
        h = window.height()
        window.resizeDocks([d["diffChart"], d["drilldown"]], [int(h * 0.36), int(h * 0.64)], Qt.Orientation.Vertical)

    def resized(self, old: QSize, new: QSize) -> None:
        """The plot and comparison columns keep their share of the width as the window grows or shrinks
        (Qt gives every change to the central table, so a window made small once stayed cramped)."""
        if self._first_show or not old.isValid() or old.width() <= 0 or abs(new.width() - old.width()) < 40:
            return
        factor = new.width() / old.width()
        columns = [d for d in (self.docks["prCurves"], self.docks["diffChart"]) if d.isVisible() and not d.isFloating()]
        if columns:
            self.window.resizeDocks(
                columns, [max(120, int(d.width() * factor)) for d in columns], Qt.Orientation.Horizontal
            )

    def save(self) -> None:
        self.settings.setValue("geometry", self.window.saveGeometry())
        self.settings.setValue("windowState", self.window.saveState(LAYOUT_VERSION))
        self.settings.sync()

    def reset(self) -> None:
        self.window.restoreState(self._initial_state, LAYOUT_VERSION)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        self.default_sizes()
