"""A stand-in for the window's Qt session where a dialog is tested on its own: what it opens is recorded
(``opened``: (paths, kind) pairs, in order), and its jobs run at once, on the test's thread."""

from __future__ import annotations


class OpeningSession:
    """The parts of :class:`workbench.qt.session.Session` a dialog uses: ``reading.open_files`` and
    ``run_job``."""

    def __init__(self) -> None:
        self.opened: list[tuple[list[str], str | None]] = []
        self.reading = self  # (the session's reading part: open_files)

    def open_files(self, paths, kind=None) -> None:
        self.opened.append((list(paths), kind))

    def run_job(self, fn, what, on_finished, on_failed=None, key=None):  # (the worker's body, at once)
        on_finished(fn(lambda _: True))
