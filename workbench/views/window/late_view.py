"""A view of the window made the first time it comes forward (its dock's tab chosen, the dock shown or
floated; its page of the "why runs differ" dock chosen) or the view is asked for, rather than with the
window: the views that do not show at the first paint (the analyses, the Explain view) stay out of the
window's start.

The place of the view (a dock, a page) is made with the window, empty, so that a saved layout or a
workspace puts it where it was.  A view made late shows what one made early would: it holds nothing of
the session's until the session gives it something (an explanation, an analysis computed once shown)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDockWidget, QVBoxLayout, QWidget

V = TypeVar("V", bound=QWidget)


class Place(Protocol):
    """Where a view made late goes: a dock, or a :class:`Page` of a stack of views."""

    def widget(self) -> QWidget | None: ...

    def setWidget(self, widget: QWidget) -> None: ...  # noqa: N802 - Qt's name


class Page(QWidget):
    """One page of a stack of views: empty until its view is put in it, then holding that view alone, as
    large as the page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._view: QWidget | None = None

    def widget(self) -> QWidget | None:
        return self._view

    def setWidget(self, widget: QWidget) -> None:  # noqa: N802 - as QDockWidget's
        if self._view is not None:
            self._box.removeWidget(self._view)
        self._view = widget
        self._box.addWidget(widget)
        widget.show()  # (now, as a dock shows its widget: a layout would show it at the next turn)


class LateView(Generic[V]):
    """The view ``make()`` gives, put in ``place`` the first time the place comes forward
    (:meth:`came_forward`, once the window's layout is done with that change) or :meth:`view` is called.
    What says the place came forward is its owner's business (:func:`in_dock` for a dock)."""

    def __init__(self, window: QWidget, place: Place, make: Callable[[], V]) -> None:
        self._window, self._place, self._make = window, place, make
        self._view: V | None = None
        self._forward = False
        self._when_made: list[Callable[[V], object]] = []

    @property
    def made(self) -> bool:
        return self._view is not None

    def view(self) -> V:
        """The view, made now if it is not yet."""
        if self._view is None:
            view = self._view = self._make()
            empty = self._place.widget()
            self._place.setWidget(view)  # (shown with its place)
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

    def came_forward(self, shown: bool) -> None:
        """The place came forward (``shown``), or went behind another or was closed: the view is made once
        the window's layout is done with this change, if the place is still in front then (the window's
        own arrangements bring a dock forward and put it behind again within one turn of the event loop)."""
        self._forward = shown
        if shown:
            QTimer.singleShot(0, self._window, self._still_forward)

    def _still_forward(self) -> None:
        if self._forward:
            self.view()


def in_dock(window: QWidget, dock: QDockWidget, make: Callable[[], V]) -> LateView[V]:
    """The view ``make()`` gives, made late in ``dock`` (of ``window``): the dock holds an empty pane until
    it first comes forward."""
    if dock.widget() is None:
        dock.setWidget(QWidget(window))  # (the empty pane, until the view is made)
    late = LateView(window, dock, make)
    dock.visibilityChanged.connect(late.came_forward)
    return late
