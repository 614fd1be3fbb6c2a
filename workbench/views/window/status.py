"""The window's message area (errors and warnings until dismissed) and the bar that says what is out of date."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QToolBar, QToolButton


class MessageArea(QFrame):
    """Non-modal messages above the tables: errors stay until closed, notices (a qrels file replaced, a file
    opened twice) until the user's next action; View > Messages shows every one told again."""

    MAX_LINES = 6
    _STYLES = {
        "error": "#messageArea { background: #fdecea; border: 1px solid #e6a5a0; border-radius: 3px; }"
        " QLabel { color: #611a15; }",
        "notice": "#messageArea { background: #e8f1fb; border: 1px solid #9fbfe0; border-radius: 3px; }"
        " QLabel { color: #0d3a63; }",
    }

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("messageArea")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.label = QLabel(self)
        self.label.setWordWrap(False)  # one line per message (wrapping labels size badly in a toolbar)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.messages: list[str] = []  # errors
        self.notices: list[str] = []

    def add(self, text: str) -> None:
        """An error: shown until closed (the same one again moves to the end instead of repeating)."""
        if text in self.messages:
            self.messages.remove(text)
        self.messages.append(text)
        self.messages = self.messages[-self.MAX_LINES :]
        self._show()

    def add_notice(self, text: str) -> None:
        """A notice: shown until the user's next action (:meth:`clear_notices`)."""
        if text in self.notices:
            self.notices.remove(text)
        self.notices.append(text)
        self.notices = self.notices[-self.MAX_LINES :]
        self._show()

    def clear_notices(self) -> None:
        if self.notices:
            self.notices = []
            self._show()

    def keep_only(self, wanted) -> None:
        """Drop the errors not in ``wanted``."""
        kept = [m for m in self.messages if m in wanted]
        if kept != self.messages:
            self.messages = kept
            self._show()

    def clear(self) -> None:
        self.messages = []
        self.notices = []
        self._show()

    def _show(self) -> None:
        lines = self.messages + [n for n in self.notices if n not in self.messages]
        self.label.setText("\n".join(lines))
        self.label.setToolTip("\n".join(lines))
        self.setStyleSheet(self._STYLES["error" if self.messages else "notice"])
        self._set_shown(bool(lines))

    def _set_shown(self, shown: bool) -> None:
        bar = self.parentWidget()
        if isinstance(bar, QToolBar):  # a banner across the window: the toolbar shows and hides it
            bar.setVisible(shown)
        else:
            self.setVisible(shown)

    def text(self) -> str:
        return self.label.text()


class StaleBar(QFrame):
    """Says when what is shown does not match what is loaded, and offers to compute it again."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.setObjectName("staleBar")
        self.setStyleSheet("#staleBar { background: #fff3c4; border: 1px solid #e0c060; border-radius: 3px; }")
        self.label = QLabel(self)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.recompute_button = QPushButton("Recompute", self)
        self.recompute_button.setToolTip("Evaluate and compare the loaded files again")
        self.recompute_button.clicked.connect(session.recompute)
        self.reload_button = QPushButton("Read again", self)
        self.reload_button.setToolTip("Read the files that changed on disk again")
        self.reload_button.clicked.connect(self._reload)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 4, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reload_button)
        layout.addWidget(self.recompute_button)
        # said once a turn of the event loop: a folder of 500 runs read tells of a change 500 times at once
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self.refresh)
        session.sigStateChanged.connect(self._later.start)

    def refresh(self) -> None:
        reasons = self.session.stale_reasons()
        ws = self.session.workspace
        changed = ws.changed_on_disk() if reasons else []
        self.label.setText("Out of date: " + "; ".join(reasons) + "." if reasons else "")
        self.label.setToolTip("\n".join(reasons))
        self.reload_button.setVisible(bool(changed))
        self.recompute_button.setVisible(bool(reasons) and len(reasons) > len(changed) + len(ws.deleted_from_disk()))
        bar = self.parentWidget()
        if isinstance(bar, QToolBar):
            bar.setVisible(bool(reasons))

    def _reload(self) -> None:
        for e in self.session.workspace.changed_on_disk():
            self.session.reading.reload(e.path)
