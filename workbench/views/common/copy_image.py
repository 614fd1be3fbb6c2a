"""Copy image: every plot of the window puts what it shows on the clipboard (its menu, or Ctrl+C)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence


def copy_image(widget) -> None:
    """Put ``widget`` as it is drawn on the clipboard (a picture at the screen's resolution)."""
    QGuiApplication.clipboard().setPixmap(widget.grab())


def install_copy_image(plot) -> QAction:
    """Add "Copy image" to a pyqtgraph plot: to the menu of its view (right click) and as Ctrl+C while the
    plot has the keyboard.  Returns the action."""
    action = QAction("Copy image", plot)
    action.setShortcut(QKeySequence.StandardKey.Copy)
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    action.setToolTip("Put the plot on the clipboard as a picture")
    action.triggered.connect(lambda: copy_image(plot))
    plot.addAction(action)
    menu = plot.getPlotItem().getViewBox().menu
    if menu is not None:
        menu.addSeparator()
        menu.addAction(action)
    return action
