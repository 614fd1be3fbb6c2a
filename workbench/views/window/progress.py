"""The window's status bar: the message, the progress bar of the work under way and its Cancel button,
the "Sample data" label and the button that reopens the last session."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget


class ProgressDisplay:
    """The permanent widgets of the window's status bar ``bar`` (made children of ``parent``): ``cancel()``
    stops the work under way, ``reopen()`` opens the last session again."""

    def __init__(self, bar: QStatusBar, parent: QWidget, *, cancel: Callable[[], None], reopen: Callable[[], object]):
        self.bar = bar
        self.sample_label = QLabel("", parent)
        self.sample_label.setStyleSheet("QLabel { background: #fff3c4; padding: 1px 6px; border-radius: 3px; }")
        self.sample_label.hide()
        self.progress = QProgressBar(parent)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", parent)
        self.cancel_button.setToolTip("Stop loading or evaluating")
        self.cancel_button.clicked.connect(cancel)
        self.cancel_button.hide()
        self.reopen_button = QPushButton("Reopen last session", parent)
        self.reopen_button.setToolTip("Open again the files, labels, baseline and settings of the last session")
        self.reopen_button.clicked.connect(lambda: reopen())
        self.reopen_button.hide()
        bar.addPermanentWidget(self.reopen_button)
        bar.addPermanentWidget(self.sample_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self._shown: tuple[bool, int, str] | None = None  # what the progress bar shows
        self._shown_at = 0.0  # since when (time.monotonic)

    def show_sample(self, sample: bool, can_reopen: bool) -> None:
        """Say that the sample (made-up data) is shown, and offer the last session instead."""
        if sample:
            self.sample_label.setText("Sample data (made up, for a first look)")
        self.sample_label.setVisible(sample)
        self.reopen_button.setVisible(sample and can_reopen)

    def on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            with self._painted_later():
                self.progress.setRange(0, 0)

    @contextlib.contextmanager
    def _painted_later(self) -> Iterator[None]:
        """Changes of the progress bar painted with the window's next paint: QProgressBar repaints at once
        when its range or value changes, and that paints every other part of the window waiting to be
        painted (the plots) there and then, while files are still arriving."""
        self.progress.setUpdatesEnabled(False)
        try:
            yield
        finally:
            self.progress.setUpdatesEnabled(True)  # (which asks for the paint)

    def on_progress(self, fraction: float, what: str) -> None:
        now = time.monotonic()
        shown = (fraction < 0, int(round(fraction * 100)), what)
        if shown == self._shown or (now - self._shown_at < 0.05 and fraction not in (-1.0, 1.0)):
            return  # a progress bar repaint costs milliseconds: at most twenty a second
        self._shown, self._shown_at = shown, now
        with self._painted_later():
            if fraction < 0:
                self.progress.setRange(0, 0)
            else:
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(round(fraction * 1000)))
            self.progress.setFormat(f"{what} %p%")
        self.progress.setToolTip(what)
