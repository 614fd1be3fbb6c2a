"""The window's status bar: the message, the progress bar of the work under way and its Cancel button;
a mixin of :class:`~workbench.views.main_window.MainWindow`."""

from __future__ import annotations

import contextlib
import time

from PySide6.QtWidgets import (
    QLabel,
    QProgressBar,
    QPushButton,
)


class ProgressActions:
    """The status bar and progress (a mixin of MainWindow)."""

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.sample_label = QLabel("", self)
        self.sample_label.setStyleSheet("QLabel { background: #fff3c4; padding: 1px 6px; border-radius: 3px; }")
        self.sample_label.hide()
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop loading or evaluating")
        self.cancel_button.clicked.connect(self.session.cancel)
        self.cancel_button.hide()
        self.reopen_button = QPushButton("Reopen last session", self)
        self.reopen_button.setToolTip("Open again the files, labels, baseline and settings of the last session")
        self.reopen_button.clicked.connect(self.reopen_last_session)
        self.reopen_button.hide()
        bar.addPermanentWidget(self.reopen_button)
        bar.addPermanentWidget(self.sample_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            with self._progress_painted_later():
                self.progress.setRange(0, 0)

    @contextlib.contextmanager
    def _progress_painted_later(self):
        """Changes of the progress bar painted with the window's next paint: QProgressBar repaints at once
        when its range or value changes, and that paints every other part of the window waiting to be
        painted (the plots) there and then, while files are still arriving."""
        self.progress.setUpdatesEnabled(False)
        try:
            yield
        finally:
            self.progress.setUpdatesEnabled(True)  # (which asks for the paint)

    def _on_progress(self, fraction: float, what: str) -> None:
        now = time.monotonic()
        shown = (fraction < 0, int(round(fraction * 100)), what)
        if shown == getattr(self, "_progress_shown", None) or (
            now - getattr(self, "_progress_at", 0.0) < 0.05 and fraction not in (-1.0, 1.0)
        ):
            return  # a progress bar repaint costs milliseconds: at most twenty a second
        self._progress_shown, self._progress_at = shown, now
        with self._progress_painted_later():
            if fraction < 0:
                self.progress.setRange(0, 0)
            else:
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(round(fraction * 1000)))
            self.progress.setFormat(f"{what} %p%")
        self.progress.setToolTip(what)
