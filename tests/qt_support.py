"""Shared set-up for the tests that drive the real window (offscreen)."""

from __future__ import annotations

import contextlib
import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.views.window.main_window import MainWindow  # noqa: E402


def open_window(qtbot, tmp_path, measures, size=None):
    """A main window with its own settings file and measure set, shown and
    registered with qtbot; call ``close_window`` when done."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings=settings)
    w.session.model.set_measures(measures)
    w.session.model.undo_stack.clear()  # (the set-up is not a change the user could take back)
    qtbot.addWidget(w)
    if size is not None:
        w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


def window_on(qtbot, ini, size=(1400, 900)):
    """A main window kept in the settings file ``ini`` (as a second start of the program finds it), at
    ``size``, shown and registered with qtbot; call ``close_window`` when done."""
    w = MainWindow(settings=QSettings(str(ini), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


@contextlib.contextmanager
def collected_as_in_the_window():
    """Every object of this process frozen out of the collector's sight meanwhile, as ir-workbench's
    process freezes what exists once its views are built (:func:`workbench.system.process.started`): a
    collection on the window's thread (pyqtgraph's timer) then traces what the window made since, not
    every object of the tests run before in this process. A full collection of those took 1.17 s on the
    window's thread in a heartbeat test, and failed it."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def close_window(w) -> None:
    w.session.shutdown()


def drop(window, paths):
    """``paths`` dropped on ``window`` as a file manager drops them (a drag entering, then the drop)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = window.rect().center()
    enter = QDragEnterEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    event = QDropEvent(
        QPointF(pos), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, event)
    assert event.isAccepted()
