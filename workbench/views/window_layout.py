"""The main window's layout: a first size and dock sizes, kept across runs and restored, and Reset layout."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

LAYOUT_VERSION = 4  # bump when the docks change, so that an older saved layout is not applied


class LayoutActions:
    """Part of :class:`workbench.views.main_window.MainWindow`: its layout (before QMainWindow in the bases)."""

    def restore_layout(self) -> None:
        geometry = self.settings.value("geometry")
        state = self.settings.value("windowState")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self._restored = self.restoreState(state, LAYOUT_VERSION)
        self.message_bar.setVisible(bool(self.messages.messages))
        self.stale_bar.refresh()

    def _fit_to_screen(self) -> None:
        """A first size that shows every view: up to 1800 x 1050, within the screen."""
        w, h = 1800, 1050
        screen = QApplication.primaryScreen()
        if screen is not None:
            room = screen.availableGeometry()
            if room.width() >= 1200 and room.height() >= 800:
                w, h = min(w, int(room.width() * 0.92)), min(h, int(room.height() * 0.92))
            else:
                w, h = 1400, 900
        self.resize(w, h)

    def _default_sizes(self) -> None:
        """Columns: files and measures | summary over the per-query table | curves | comparison."""
        d = self.docks
        w, h = self.width(), self.height()
        left = min(260, int(w * 0.18))
        self.resizeDocks([d["files"]], [left], Qt.Orientation.Horizontal)
        self.resizeDocks([d["files"], d["measures"]], [int(h * 0.3), int(h * 0.7)], Qt.Orientation.Vertical)
        self.resizeDocks([d["summary"]], [int(h * 0.2)], Qt.Orientation.Vertical)
        self.resizeDocks([d["prCurves"], d["ndcgAtK"]], [int(h * 0.5), int(h * 0.5)], Qt.Orientation.Vertical)
        self.resizeDocks([d["prCurves"]], [int(w * 0.22)], Qt.Orientation.Horizontal)
        self._default_compare_sizes()

    def _default_compare_sizes(self) -> None:
        """Right column: the difference chart over the query drill-down."""
        d = self.docks
        self.resizeDocks([d["diffChart"]], [int(self.width() * 0.27)], Qt.Orientation.Horizontal)
        h = self.height()
        self.resizeDocks([d["diffChart"], d["drilldown"]], [int(h * 0.36), int(h * 0.64)], Qt.Orientation.Vertical)

    def resizeEvent(self, event) -> None:
        """The plot and comparison columns keep their share of the width as the window grows or shrinks
        (Qt gives every change to the central table, so a window made small once stayed cramped)."""
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        if (
            getattr(self, "_first_show", True)
            or not old.isValid()
            or old.width() <= 0
            or abs(new.width() - old.width()) < 40
        ):
            return
        factor = new.width() / old.width()
        columns = [d for d in (self.docks["prCurves"], self.docks["diffChart"]) if d.isVisible() and not d.isFloating()]
        if columns:
            self.resizeDocks(columns, [max(120, int(d.width() * factor)) for d in columns], Qt.Orientation.Horizontal)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._first_show:
            self._first_show = False
            if not self._restored:
                self._default_sizes()

    def save_layout(self) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState(LAYOUT_VERSION))
        self.settings.sync()

    def reset_layout(self) -> None:
        self.restoreState(self._initial_state, LAYOUT_VERSION)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        self._default_sizes()
