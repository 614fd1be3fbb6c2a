"""A view of the window made the first time its dock comes forward (its tab chosen, the dock shown or
floated) or the view is asked for, rather than with the window: the views that do not show at the
first paint (the analyses, the Explain view) stay out of the window's start.

The dock is made with the window, holding an empty pane, so that a saved layout or a workspace puts it
where it was.  A view made late shows what one made early would: it holds nothing of the session's
until the session gives it something (an explanation, an analysis computed once shown)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDockWidget, QWidget

V = TypeVar("V", bound=QWidget)


class LateView(Generic[V]):
    """The view ``make()`` gives, put in ``dock`` (of ``window``) the first time the dock comes forward
    or :meth:`view` is called; ``when_forward()``, if given, each time the dock comes forward after that."""

    def __init__(
        self,
        window: QWidget,
        dock: QDockWidget,
        make: Callable[[], V],
        when_forward: Callable[[], None] | None = None,
    ) -> None:
        self._window, self._dock, self._make = window, dock, make
        self._when_forward = when_forward
        self._view: V | None = None
        self._forward = False
        self._when_made: list[Callable[[V], object]] = []
        if dock.widget() is None:
            dock.setWidget(QWidget(window))  # (the empty pane, until the view is made)
        dock.visibilityChanged.connect(self._came_forward)

    @property
    def made(self) -> bool:
        return self._view is not None

    def view(self) -> V:
        """The view, made now if it is not yet."""
        if self._view is None:
            view = self._view = self._make()
            empty = self._dock.widget()
            self._dock.setWidget(view)  # (shown with the dock)
            if empty is not None and empty is not view:
                empty.deleteLater()
            waiting, self._when_made = self._when_made, []
            for work in waiting:
                work(view)
        return self._view

    def when_made(self, work: Callable[[V], object]) -> None:
        """Run ``work(view)`` once the view is made (now if it is)."""
        if self._view is not None:
            work(self._view)
        else:
            self._when_made.append(work)

    def _came_forward(self, shown: bool) -> None:
        """The dock came forward (or went behind another tab, or was closed): the view is made once the
        window's layout is done with this change (the window's own arrangements bring a dock forward and
        put it behind again within one turn of the event loop)."""
        self._forward = shown
        if shown:
            QTimer.singleShot(0, self._window, self._still_forward)

    def _still_forward(self) -> None:
        if not self._forward:
            return
        self.view()
        if self._when_forward is not None:
            self._when_forward()
