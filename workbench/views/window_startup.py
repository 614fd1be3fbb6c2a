"""How the window comes up: its first paint before the heavy modules are imported, the imports in a
thread, the session made once they are in, and what happened before it (early files, messages); a
mixin of :class:`~workbench.views.main_window.MainWindow`."""

from __future__ import annotations

import contextlib
import importlib
import threading

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QWidget

#: what the session imports (pandas, pyarrow and its models), then what the views add (pyqtgraph):
#: about 0.6 s in all
SESSION_MODULES = ("pandas", "pyarrow", "metrics.io.readers", "workbench.model.session", "workbench.model.analysis")
VIEW_MODULES = ("pyqtgraph",)


def _import_modules(session_ready: threading.Event) -> None:
    """Import :data:`SESSION_MODULES`, set ``session_ready``, then import :data:`VIEW_MODULES` (in a
    thread: a failure is left for the imports on the window's thread to report, with its traceback)."""
    try:
        for name in SESSION_MODULES:
            importlib.import_module(name)
        session_ready.set()
        for name in VIEW_MODULES:
            importlib.import_module(name)
    except Exception:  # noqa: BLE001 - see above
        return
    finally:
        session_ready.set()


class StartupActions:
    """The window's start (a mixin of MainWindow)."""

    def paint_with_first_scores(self) -> None:
        """Paint the views once, with the scores of the files being opened, rather than empty and then again
        as each fills in: drawn while the runs were scored, the empty views took a quarter of a second of
        CPU from the start of a window on a hundred runs (Qt's advice: updates off during large changes).

        Until then the window shows what it showed (its frame, "Starting…").  Painting resumes when the
        scores are shown, when the session has nothing left to do (no run to score, files that cannot be
        read), or :data:`FIRST_PAINT_WAIT_MS` after the views are built, whichever comes first: a long
        start shows its files and progress.

        Meanwhile clicks, keys and the wheel over the window are dropped (:class:`_InputShield`; shortcuts and
        closing still work)."""
        if not hasattr(self, "session") or self._paint_held:
            return
        self._paint_held = True
        self.setUpdatesEnabled(False)
        self._shield = _InputShield(self)
        self.when_ready(lambda: self._shield is not None and self._shield.raise_())  # over the views made since
        s = self.session
        s.sigResultsChanged.connect(self._paint_after_scores)
        s.sigIdle.connect(self._paint_again)
        self.when_ready(lambda: QTimer.singleShot(self.FIRST_PAINT_WAIT_MS, self, self._paint_again))

    def _paint_after_scores(self, results) -> None:
        if results is not None:  # once every view has taken them (they hear the signal after this)
            QTimer.singleShot(0, self, self._paint_again)

    def _paint_again(self) -> None:
        if not self._paint_held:
            return
        if self._ready is not None:
            # scored (or nothing left to do) before the views are built: they take the scores as they are
            # made, so paint once they are; painting them while they are laid out drew the per-query table
            # six times over (10,000 calls of its model instead of 1,700 with a hundred runs)
            self.when_ready(lambda: QTimer.singleShot(0, self, self._paint_again))
            return
        self._paint_held = False
        if self._shield is not None:
            self._shield.lift()
            self._shield = None
        self.session.sigResultsChanged.disconnect(self._paint_after_scores)
        self.session.sigIdle.disconnect(self._paint_again)
        self.setUpdatesEnabled(True)  # (which asks for the paint)

    def when_ready(self, work) -> None:
        """Run ``work()`` now if the views are built, else as soon as they are."""
        if self._ready is None:
            work()
        else:
            self._ready.append(work)

    def when_session_ready(self, work) -> None:
        """Run ``work()`` (which needs :attr:`session`, not the views) as soon as the session is made: files
        given on the command line are read while the views are still being built."""
        if self._session_waiting is None:
            work()
        else:
            self._session_waiting.append(work)

    def _keep_early_error(self, text: str) -> None:
        self._early.append(("error", text))

    def _keep_early_file(self, path: str) -> None:
        self._early.append(("loaded", path))

    def _show_early_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _start_imports(self) -> None:
        if getattr(self, "_closed", False) or hasattr(self, "docks"):
            return  # closed, or built meanwhile
        session_ready = threading.Event()
        loader = threading.Thread(target=_import_modules, args=(session_ready,), name="imports", daemon=True)
        loader.start()
        self._wait_for_imports(loader, session_ready)

    def _wait_for_imports(self, loader: threading.Thread, session_ready: threading.Event) -> None:
        if getattr(self, "_closed", False):
            return  # closed before its views were built
        if session_ready.is_set() and not hasattr(self, "session"):
            self._make_session(self._pending_session)
        if loader.is_alive():
            QTimer.singleShot(15, lambda: self._wait_for_imports(loader, session_ready))
        else:
            self._build(self._pending_session)


class _InputShield(QWidget):
    """A child of the window, over all of it, that takes the clicks, the wheel and the keys while the window's
    painting is held (:meth:`MainWindow.paint_with_first_scores`): they would act on rows and columns the
    window does not show yet.  Transparent: nothing paints it, and a widget over the others receives their
    input without a filter on every event of the application (thousands in a start)."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._focus = window.focusWidget()
        self.setGeometry(window.rect())
        window.installEventFilter(self)  # to follow the window's size
        self.show()
        self.raise_()
        self.setFocus()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(obj.rect())
        return False

    def _drop(self, event) -> None:
        event.accept()

    mousePressEvent = mouseReleaseEvent = mouseDoubleClickEvent = wheelEvent = _drop  # noqa: N815
    keyPressEvent = keyReleaseEvent = _drop  # noqa: N815

    def lift(self) -> None:
        """Gone: the input goes to the views again, the keyboard where it was."""
        self.parentWidget().removeEventFilter(self)
        focus = self._focus
        self.hide()
        self.deleteLater()
        if focus is not None:
            with contextlib.suppress(RuntimeError):  # the widget was deleted since (views rebuilt)
                focus.setFocus()
