"""How the window comes up: its first paint before the heavy modules are imported, the imports in a
thread, the session made once they are in, and what happened before it (early files, messages)."""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QMainWindow, QWidget

if TYPE_CHECKING:
    from workbench.qt.session import Session

#: what the session imports (pandas, pyarrow and its models), then what the views add (pyqtgraph):
#: about 0.6 s in all
SESSION_MODULES = ("pandas", "pyarrow", "metrics.io.readers", "workbench.state.session", "workbench.scoring.evaluation")
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


class Startup:
    """When the parts of ``window`` are there: the work waiting for its session and for its views, what
    the session said before the views could show it, the first paint held for the first scores, and the
    imports of the heavy modules in a thread."""

    def __init__(self, window: QMainWindow, first_paint_wait_ms: int):
        self._window = window
        self._first_paint_wait_ms = first_paint_wait_ms
        self._ready: list[Callable[[], object]] | None = []  # work waiting for the views; None once built
        self._session_waiting: list[Callable[[], object]] | None = []  # None once the session is made
        self._early: list[tuple[str, str]] = []  # what the session said before the views were there to show it
        self._session: Session | None = None
        self._paint_held = False  # the views wait for the first scores to be painted (paint_with_first_scores)
        self._shield: _InputShield | None = None  # takes the input meanwhile
        self._imports_started = False
        self.closed = False  # the window closed (its views, if not built yet, never will be)

    @property
    def views_built(self) -> bool:
        return self._ready is None

    def when_ready(self, work: Callable[[], object]) -> None:
        """Run ``work()`` now if the views are built, else as soon as they are."""
        if self._ready is None:
            work()
        else:
            self._ready.append(work)

    def when_session_ready(self, work: Callable[[], object]) -> None:
        """Run ``work()`` (which needs the session, not the views) as soon as the session is made: files
        given on the command line are read while the views are still being built."""
        if self._session_waiting is None:
            work()
        else:
            self._session_waiting.append(work)

    def session_made(self, session: Session) -> None:
        """The session is there: what it says is kept until the views can show it; the work waiting for it runs."""
        self._session = session
        if self._ready is not None:  # views to come: keep errors and loaded files for them
            session.sigError.connect(self._keep_early_error)
            session.sigFileLoaded.connect(self._keep_early_file)
            session.sigMessage.connect(self._show_early_message)
        waiting, self._session_waiting = self._session_waiting or [], None
        for work in waiting:
            work()

    def views_made(self, show_error: Callable[[str], None], remember_file: Callable[[str], None]) -> None:
        """The views are built: they are told what the session said meanwhile; the work waiting for them runs."""
        s = self._session
        if s is not None:
            s.sigError.disconnect(self._keep_early_error)
            s.sigFileLoaded.disconnect(self._keep_early_file)
            s.sigMessage.disconnect(self._show_early_message)
        for kind, value in self._early:
            (show_error if kind == "error" else remember_file)(value)
        self._early = []
        waiting, self._ready = self._ready or [], None
        for work in waiting:
            work()

    def _keep_early_error(self, text: str) -> None:
        self._early.append(("error", text))

    def _keep_early_file(self, path: str) -> None:
        self._early.append(("loaded", path))

    def _show_early_message(self, text: str) -> None:
        self._window.statusBar().showMessage(text, 8000)

    # ------------------------------------------------------------------
    # the first paint
    def paint_with_first_scores(self) -> None:
        """Paint the views once, with the scores of the files being opened, rather than empty and then again
        as each fills in: drawn while the runs were scored, the empty views took a quarter of a second of
        CPU from the start of a window on a hundred runs (Qt's advice: updates off during large changes).

        Until then the window shows what it showed (its frame, "Starting…").  Painting resumes when every
        view has taken the scores in, when the session has nothing left to do (no run to score, files that
        cannot be read), or ``first_paint_wait_ms`` after the views are built, whichever comes first: a
        long start shows its files and progress.

        Meanwhile clicks, keys and the wheel over the window are dropped (:class:`_InputShield`; shortcuts and
        closing still work)."""
        s = self._session
        if s is None or self._paint_held:
            return
        self._paint_held = True
        self._window.setUpdatesEnabled(False)
        self._shield = _InputShield(self._window)
        self.when_ready(self._raise_shield)  # over the views made since
        s.sigResultsChanged.connect(self._paint_after_scores)
        s.sigIdle.connect(self._paint_again)
        self.when_ready(lambda: QTimer.singleShot(self._first_paint_wait_ms, self._window, self._paint_again))

    def _raise_shield(self) -> None:
        if self._shield is not None:
            self._shield.raise_()

    def _paint_after_scores(self, results: object) -> None:
        if results is not None:  # once every view has taken them (they hear the signal after this)
            QTimer.singleShot(0, self._window, self._paint_again)

    def _paint_again(self) -> None:
        if not self._paint_held or self._session is None:
            return
        if self._ready is not None:
            # scored (or nothing left to do) before the views are built: they take the scores as they are
            # made, so paint once they are; painting them while they are laid out drew the per-query table
            # six times over (10,000 calls of its model instead of 1,700 with a hundred runs)
            self.when_ready(lambda: QTimer.singleShot(0, self._window, self._paint_again))
            return
        if self._session.after_paint.turns_pending:
            # the views take new scores in on turns of the event loop of their own (the plots, the per-query
            # table): paint after them, once, rather than with the summary alone and again after each view
            # (with a hundred runs the per-query table, the central view, took them in last, about 0.13 s after
            # that first paint, the NDCG@k plot and the table drawn empty in it)
            self._session.after_paint.in_turn(self._paint_now)
            return
        self._paint_now()

    def _paint_now(self) -> None:
        if not self._paint_held or self._session is None:
            return
        self._paint_held = False
        if self._shield is not None:
            self._shield.lift()
            self._shield = None
        self._session.sigResultsChanged.disconnect(self._paint_after_scores)
        self._session.sigIdle.disconnect(self._paint_again)
        self._window.setUpdatesEnabled(True)  # (which asks for the paint)

    # ------------------------------------------------------------------
    # the imports
    def start_imports(self, make_session: Callable[[], None], build: Callable[[], None]) -> None:
        """Import the session's modules, then the views', in a thread while the window stays responsive;
        ``make_session()`` as soon as the session's are in (it starts reading files), ``build()`` once
        the views' are."""
        if self.closed or self._imports_started or self.views_built:
            return  # closed, started already, or built meanwhile
        self._imports_started = True
        session_ready = threading.Event()
        loader = threading.Thread(target=_import_modules, args=(session_ready,), name="imports", daemon=True)
        loader.start()
        self._wait_for_imports(loader, session_ready, make_session, build)

    def _wait_for_imports(
        self,
        loader: threading.Thread,
        session_ready: threading.Event,
        make_session: Callable[[], None],
        build: Callable[[], None],
    ) -> None:
        if self.closed:
            return  # closed before its views were built
        if session_ready.is_set() and self._session is None:
            make_session()
        if loader.is_alive():
            QTimer.singleShot(
                15, self._window, lambda: self._wait_for_imports(loader, session_ready, make_session, build)
            )
        else:
            build()


class _InputShield(QWidget):
    """A child of the window, over all of it, that takes the clicks, the wheel and the keys while the window's
    painting is held (:meth:`Startup.paint_with_first_scores`): they would act on rows and columns the
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

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize and isinstance(obj, QWidget):
            self.setGeometry(obj.rect())
        return False

    def _drop(self, event) -> None:
        event.accept()

    mousePressEvent = mouseReleaseEvent = mouseDoubleClickEvent = wheelEvent = _drop  # noqa: N815
    keyPressEvent = keyReleaseEvent = _drop  # noqa: N815

    def lift(self) -> None:
        """Gone: the input goes to the views again, the keyboard where it was."""
        window = self.parentWidget()
        if window is not None:
            window.removeEventFilter(self)
        focus = self._focus
        self.hide()
        self.deleteLater()
        if focus is not None:
            with contextlib.suppress(RuntimeError):  # the widget was deleted since (views rebuilt)
                focus.setFocus()
