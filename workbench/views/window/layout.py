"""The main window's layout: a first size and dock sizes, kept across runs and restored, and Reset layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QTabBar, QWidget

if TYPE_CHECKING:
    from workbench.qt.kept_settings import KeptSettings

LAYOUT_VERSION = 6  # bump when the docks or bars change, so that an older saved layout is not applied

#: below this window width the views of the right are one column of two groups of tabs, each view as wide
#: as the column: the curves, the per-query differences and the views tabbed with them over the drill-down
#: and the views tabbed with it (1024 px wide, side by side, each plot had 162-183 px, and the right
#: column's views stacked asked for more height than 700 px); at or above it, side by side
COMPACT_BELOW = 1300
#: the left column (files, measures) never takes more than this share of the width when the window is laid out
LEFT_SHARE = 0.3
#: the left column widens to show the files' names, kinds and statuses whole, up to this share of the width
LEFT_FIT = 0.22
#: narrow, the column of tabs takes half the width beside the left column, more if its tabs need it to show
#: every title, but never more than this share
COLUMN_SHARE, COLUMN_MOST = 0.5, 0.62
#: pixels a bar of tabs is given beyond what its titles need (a frame, a font that rounds up)
TAB_SLACK = 8


def closed(dock: QDockWidget) -> bool:
    """Whether ``dock`` was closed (hidden on purpose); a dock added to a window shown already is not
    visible yet (Qt shows it at the next turn of the event loop), but not closed."""
    return dock.isHidden() and dock.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide)


def bring_forward(dock: QDockWidget) -> None:
    """``dock`` in front of the docks tabbed with it, unless it was closed.  Just after docks are tabbed in a
    window shown already (a start whose views are built after its first frame, a layout arranged anew for
    the window's width), Qt brings forward the dock shown first and ignores a raise until the window's
    layout is applied: the dock is shown again, which brings it forward."""
    if closed(dock):
        return
    if dock.window().isVisible() and not dock.isFloating():
        dock.hide()
        dock.show()
    dock.raise_()


def tab_hidden(window: QMainWindow, first: QDockWidget, others: list[QDockWidget]) -> None:
    """``others`` tabbed with ``first`` (in front), each hidden while it is tabbed: in a window shown already,
    docks tabbed while shown, or before Qt has shown them, form a group of their own or leave a tab bar
    on the window over the views (Qt 6.11)."""
    for dock in others:
        dock.hide()
    for dock in others:
        window.tabifyDockWidget(first, dock)
    for dock in others:
        dock.show()
    bring_forward(first)


def whole_titles(bar: QTabBar) -> None:
    """The tabs of docks tabbed together show their whole titles: never elided ("Ov…", "A agai…" told
    nothing apart); when they do not all fit, the bar scrolls instead."""
    bar.setElideMode(Qt.TextElideMode.ElideNone)
    bar.setUsesScrollButtons(True)
    bar.setExpanding(False)


class WholeTabTitles(QObject):
    """Every tab bar the window makes for its tabbed docks gets :func:`whole_titles` (Qt makes them as docks
    are tabbed, restored or moved by the user, each a child of the window)."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        for bar in window.findChildren(QTabBar):
            whole_titles(bar)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ChildPolished:
            child = event.child()  # type: ignore[attr-defined]
            if isinstance(child, QTabBar):
                whole_titles(child)
        return False


def tabs_width(window: QWidget, titles: list[str]) -> int:
    """The width a bar of tabs titled ``titles`` needs in ``window`` to show every title whole (as Qt draws
    the tabs of docks tabbed together)."""
    bar = QTabBar()
    bar.setFont(window.font())
    whole_titles(bar)
    for title in titles:
        bar.addTab(title)
    return bar.sizeHint().width()


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


class KeptChoice(Protocol):
    """A choice of the window's kept with its layout (the view the "Why runs differ" dock shows): its name,
    and choosing by name (a name no longer offered leaves the choice as it is)."""

    def chosen(self) -> str: ...

    def choose(self, name: str) -> None: ...


class WindowLayout:
    """Where the docks of ``window`` (``docks``, by name) are and how large, and ``choice`` (the view of
    why runs differ): saved in ``settings`` at exit and restored, shares of the width kept as the window is
    resized, and Reset layout.  ``after_restore()`` shows again what a restored state may hide (the message
    bar with messages)."""

    #: the key of ``settings`` the choice is kept under
    CHOICE_KEY = "analysisView"
    #: the key of the width the left column was given for the files' texts
    LEFT_KEY = "filesWidthGiven"

    def __init__(
        self,
        window: QMainWindow,
        settings: KeptSettings,
        docks: dict[str, QDockWidget],
        after_restore: Callable[[], None],
        choice: KeptChoice | None = None,
    ):
        self.window = window
        self.settings = settings
        self.docks = docks
        self._after_restore = after_restore
        self._choice = choice
        self._titles = WholeTabTitles(window)  # (the tab bars of tabbed docks, whenever Qt makes them)
        self._first_show = True  # not laid out on the screen yet
        self._restored = False  # a saved layout was applied
        self._initial_state = QByteArray()  # the dock positions "Reset layout" goes back to
        self.compact: bool | None = None  # the plots and the comparison as tabs of one column (None: not arranged)
        self._initial_compact: bool | None = None  # how the initial state was arranged
        self._initial_choice: str | None = None  # the view of why runs differ chosen then
        #: the two groups of tabs of the narrow window's column, as :meth:`arrange` placed them (Qt lists the
        #: docks tabbed together only once the window has shown them; None: as Qt lists them)
        self._column: list[list[QDockWidget]] | None = None
        self._left_need = 0  # the width the files panel asks for to show its texts whole (fit_left)
        #: the largest of those the left column was given (kept with the layout): a column the user narrowed
        #: since stays so, at the next start too, until the files need more
        self._left_granted = 0
        window.tabifiedDockWidgetActivated.connect(self._keep_column_split)

    def _keep_column_split(self, dock: QDockWidget) -> None:
        """A view brought forward in a group of tabs gets at least half of its column (more if its group had
        more), and the views over or under it keep the rest, as they were shared.  Qt fits the column to the
        size hint of the view brought forward instead: with "Why runs differ" in front, the drill-down under
        it lost a third of its height, and kept one row of its lists at 1024x700.  (Kept to its group's
        height alone, a scatter of why runs differ was 60 pixels high at 1400x900; its size hint, asked for
        as it is brought forward, is not yet that of the analysis it is about to show.)"""
        if dock.isFloating() or closed(dock):
            return
        area = self.window.dockWidgetArea(dock)
        group = set(self.window.tabifiedDockWidgets(dock))
        span = dock.geometry()
        # the docks shown over or under it in its column: in the same area, beside none of its tabs, the same width
        column = [
            other
            for other in self.window.findChildren(QDockWidget)  # (the analyses' docks too)
            if other is not dock
            and other not in group
            and other.isVisible()
            and not other.isFloating()
            and self.window.dockWidgetArea(other) == area
            and other.geometry().left() == span.left()
            and other.geometry().width() == span.width()
        ]
        if not column:
            return
        had, before = [d.height() for d in column], dock.height()  # (as laid out before the view's size hint is taken)
        total = before + sum(had)
        mine = max(before, total // 2)
        heights = [mine, *((total - mine) * h // max(sum(had), 1) for h in had)]
        docks = [dock, *column]
        QTimer.singleShot(0, self.window, lambda: self.window.resizeDocks(docks, heights, Qt.Orientation.Vertical))

    def arranged_compact(self) -> bool:
        """Whether the right column is now one column of tabs (the plots and the per-query differences as
        tabs of one group, over the drill-down's), as :meth:`arrange` or a restored layout left it."""
        return self.docks["diffChart"] in self.window.tabifiedDockWidgets(self.docks["prCurves"])

    def keep_initial(self) -> None:
        """The docks are all placed (and arranged for the window's width): this is what Reset layout goes
        back to."""
        self.compact = self.arranged_compact()  # (as the views were placed: arranged anew only if narrow)
        self.arrange()
        self._initial_state = self.window.saveState(LAYOUT_VERSION)
        self._initial_compact = self.compact
        self._initial_choice = self._choice.chosen() if self._choice is not None else None

    def restore(self) -> None:
        geometry = self.settings.value("geometry")
        state = self.settings.value("windowState")
        if geometry is not None:
            self.window.restoreGeometry(geometry)
        if state is not None:
            self._restored = self.window.restoreState(state, LAYOUT_VERSION)
        if self._restored:
            given = self.settings.value(self.LEFT_KEY, 0)
            self._left_granted = int(given) if isinstance(given, (int, str)) and str(given).isdigit() else 0
        choice = self.settings.value(self.CHOICE_KEY)
        if self._choice is not None and isinstance(choice, str):
            self._choice.choose(choice)
        if self._restored:
            self.compact = self.arranged_compact()  # (as it was saved: arranged anew below if the width asks)
            self._column = None  # (its groups as Qt lists them)
        self._after_restore()

    def arrange(self) -> None:
        """Side by side or as tabs, as the window's width asks (:data:`COMPACT_BELOW`): narrow, the precision-
        recall and NDCG@k plots become tabs of the per-query differences' group, over the drill-down's group
        in one column; wide again, they go back side by side at their default sizes.  The views tabbed with
        the per-query differences or with the drill-down stay with them."""
        compact = self.window.width() < COMPACT_BELOW
        if compact == self.compact:
            return
        self.compact = compact
        d, window = self.docks, self.window
        right = [d["prCurves"], d["ndcgAtK"], d["diffChart"], d["drilldown"]]
        if any(dock.isFloating() for dock in right):
            return  # the user placed them: left as they are
        # the groups of tabs (a view the user moved included): those tabbed with the drill-down, and those
        # tabbed with the per-query differences (why runs differ), with the plots too when narrow
        lower = [x for x in window.tabifiedDockWidgets(d["drilldown"]) if not x.isFloating() and x not in right]
        upper = [
            x
            for x in window.tabifiedDockWidgets(d["prCurves"] if self.arranged_compact() else d["diffChart"])
            if not x.isFloating() and x not in right + lower
        ]
        # (a dock split from one in a group of tabs would join the tabs: every dock of the right is taken out
        # and put back, the precision-recall plot alone first, the others beside it or as its tabs)
        area = Qt.DockWidgetArea.RightDockWidgetArea
        shown = {dock: not closed(dock) for dock in right + lower + upper}
        for dock in right + lower + upper:
            window.removeDockWidget(dock)
        window.addDockWidget(area, d["prCurves"])
        self._column = (
            [[d["prCurves"], d["ndcgAtK"], d["diffChart"], *upper], [d["drilldown"], *lower]] if compact else None
        )
        if compact:  # one column of two groups of tabs, each view as wide as the column
            window.splitDockWidget(d["prCurves"], d["drilldown"], Qt.Orientation.Vertical)
            for dock in [d["ndcgAtK"], d["diffChart"], *upper]:
                window.tabifyDockWidget(d["prCurves"], dock)
            for dock in lower:
                window.tabifyDockWidget(d["drilldown"], dock)
        else:
            window.splitDockWidget(d["prCurves"], d["diffChart"], Qt.Orientation.Horizontal)
            window.splitDockWidget(d["prCurves"], d["ndcgAtK"], Qt.Orientation.Vertical)
            window.splitDockWidget(d["diffChart"], d["drilldown"], Qt.Orientation.Vertical)
            for dock in lower:
                window.tabifyDockWidget(d["drilldown"], dock)
            for dock in upper:
                window.tabifyDockWidget(d["diffChart"], dock)
        for dock, visible in shown.items():
            dock.setVisible(visible)
        for dock in [d["prCurves"], d["drilldown"]] if compact else [d["diffChart"], d["drilldown"]]:
            bring_forward(dock)
        self.default_sizes()

    def restore_state(self, state: QByteArray) -> None:
        """The dock positions a workspace saved."""
        self.window.restoreState(state, LAYOUT_VERSION)

    def state(self) -> QByteArray:
        return self.window.saveState(LAYOUT_VERSION)

    def built_while_shown(self) -> None:
        """The views were built after the first frame: lay the docks out once they have their places
        (the next turn of the event loop)."""
        if self._first_show:
            self._first_show = False
            if not self._restored:
                QTimer.singleShot(0, self.window, self._lay_out)
            else:
                QTimer.singleShot(0, self.window, self._lay_out_restored)

    def shown(self) -> None:
        """The window is shown (with its views)."""
        if self._first_show:
            self._first_show = False
            if not self._restored:
                self.arrange()
                self.default_sizes()
            else:
                self.arrange()
                self._keep_left_in_bounds()

    def _lay_out(self) -> None:
        self.arrange()
        self.default_sizes()

    def _lay_out_restored(self) -> None:
        self.arrange()
        self._keep_left_in_bounds()
        if self._left_need > self._left_granted:
            self._widen_left()

    def _keep_left_in_bounds(self) -> None:
        """A restored layout whose left column takes more than :data:`LEFT_SHARE` of the width (saved by a
        window of another size, or placed before a window manager sized it) gets the default sizes."""
        if self.docks["files"].width() > self.window.width() * LEFT_SHARE:
            self.default_sizes()

    def default_sizes(self) -> None:
        """Columns: files and measures | summary over the per-query table | curves | comparison (narrow: the
        curves and the comparison are one column of tabs, half the width beside the table, more if its tabs
        need it)."""
        d, window = self.docks, self.window
        w, h = window.width(), window.height()
        left = max(min(260, int(w * 0.18)), min(self._left_need + self._dock_frame(), int(w * LEFT_FIT)))
        self._left_granted = self._left_need
        window.resizeDocks([d["files"]], [left], Qt.Orientation.Horizontal)
        window.resizeDocks([d["files"], d["measures"]], [int(h * 0.3), int(h * 0.7)], Qt.Orientation.Vertical)
        window.resizeDocks([d["summary"]], [int(h * 0.2)], Qt.Orientation.Vertical)
        if self.compact:
            window.resizeDocks([d["prCurves"]], [self._column_width(w - left)], Qt.Orientation.Horizontal)
            window.resizeDocks([d["prCurves"], d["drilldown"]], [int(h * 0.5), int(h * 0.5)], Qt.Orientation.Vertical)
            return
        window.resizeDocks([d["prCurves"], d["ndcgAtK"]], [int(h * 0.5), int(h * 0.5)], Qt.Orientation.Vertical)
        window.resizeDocks([d["prCurves"]], [int(w * 0.22)], Qt.Orientation.Horizontal)
        self._default_compare_sizes()

    def fit_left(self, need: int) -> None:
        """The files panel needs ``need`` pixels to show every name, kind and status whole: when that is
        more than the column was given, it widens to it (up to :data:`LEFT_FIT` of the width); it never
        narrows (a column the user narrowed stays so, at the next start too, until a file needs more or
        the window grows)."""
        self._left_need = need
        if need > self._left_granted:
            self._widen_left()

    def _widen_left(self) -> None:
        """The left column as wide as the files panel asked (up to :data:`LEFT_FIT` of the width), if it is
        narrower."""
        dock = self.docks["files"]
        if self._first_show or dock.isFloating() or closed(dock):
            return  # (laid out with it: default_sizes)
        want = min(self._left_need + self._dock_frame(), int(self.window.width() * LEFT_FIT))
        if want > dock.width():
            self.window.resizeDocks([dock], [want], Qt.Orientation.Horizontal)
        self._left_granted = max(self._left_granted, self._left_need)

    def _dock_frame(self) -> int:
        """What the files dock adds around its panel's width."""
        dock = self.docks["files"]
        panel = dock.widget()
        return max(dock.width() - panel.width(), 0) if panel is not None and dock.isVisible() else 4

    def _default_compare_sizes(self) -> None:
        """Right column: the difference chart over the query drill-down."""
        d, window = self.docks, self.window
        window.resizeDocks([d["diffChart"]], [int(window.width() * 0.27)], Qt.Orientation.Horizontal)
        h = window.height()
        window.resizeDocks([d["diffChart"], d["drilldown"]], [int(h * 0.36), int(h * 0.64)], Qt.Orientation.Vertical)

    def _column_width(self, room: int) -> int:
        """The width of the narrow window's column of tabs, of ``room`` beside the left column: its share, or
        what its widest bar of tabs needs to show every title (:data:`COLUMN_MOST` of ``room`` at most)."""
        return max(int(room * COLUMN_SHARE), self._column_need(room))

    def _column_need(self, room: int) -> int:
        """The width the widest bar of tabs of the narrow window's column needs (within :data:`COLUMN_MOST` of
        ``room``)."""
        groups = self._column or [
            [group, *self.window.tabifiedDockWidgets(group)]
            for group in (self.docks["prCurves"], self.docks["drilldown"])
        ]
        need = max(tabs_width(self.window, [x.windowTitle() for x in group if not closed(x)]) for group in groups)
        return min(need + TAB_SLACK, int(room * COLUMN_MOST))

    def resized(self, old: QSize, new: QSize) -> None:
        """The plot and comparison columns keep their share of the width as the window grows or shrinks
        (Qt gives every change to the central table, so a window made small once stayed cramped)."""
        if self._first_show or not old.isValid() or old.width() <= 0 or abs(new.width() - old.width()) < 40:
            return
        if (new.width() < COMPACT_BELOW) != (old.width() < COMPACT_BELOW):
            self.arrange()  # (laid out anew at the default sizes)
            return
        factor = new.width() / old.width()
        columns = [d for d in (self.docks["prCurves"], self.docks["diffChart"]) if d.isVisible() and not d.isFloating()]
        widths = [max(120, int(d.width() * factor)) for d in columns]
        if self.compact and columns and columns[0] is self.docks["prCurves"]:  # (its tabs' titles kept whole)
            widths[0] = max(widths[0], self._column_need(new.width() - self.docks["files"].width()))
        if columns:
            self.window.resizeDocks(columns, widths, Qt.Orientation.Horizontal)
        if new.width() > old.width():
            self._widen_left()  # (the names it elided may fit now)

    def save(self) -> None:
        self.settings.set_value("geometry", self.window.saveGeometry())
        self.settings.set_value(self.LEFT_KEY, self._left_granted)
        self.settings.set_value("windowState", self.window.saveState(LAYOUT_VERSION))
        if self._choice is not None:
            self.settings.set_value(self.CHOICE_KEY, self._choice.chosen())

    def reset(self) -> None:
        """Reset layout: every dock back where the window first placed it, shown and docked, at the default
        sizes, with the view of why runs differ chosen then."""
        self.window.restoreState(self._initial_state, LAYOUT_VERSION)
        if self._choice is not None and self._initial_choice is not None:
            self._choice.choose(self._initial_choice)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        self.compact = bool(self._initial_compact)  # (as the initial state was arranged: again for this width)
        self.arrange()
        self.default_sizes()
