"""Diagnostics of the window: a log file in the platform's standard place, and no lost exceptions.

Worker failures are logged with their traceback by :mod:`workbench.jobs`; an
exception raised in a slot on the GUI thread goes to the same log through
:func:`setup`'s ``sys.excepthook``, and the user sees one line about it in the
window instead of a traceback on the terminal.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys

log = logging.getLogger("workbench")


def log_dir() -> str:
    """Where the log file lives (Qt's AppLocalDataLocation: ~/.local/share/ir-workbench on Linux)."""
    from PySide6.QtCore import QStandardPaths

    return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)


_state: dict = {"report": None, "path": None, "done": False}


def set_report(report) -> None:
    """``report(text)`` tells the user about an unexpected error from now on (the window's messages)."""
    _state["report"] = report


def setup(report=None) -> str | None:
    """Log to a rotating file (called once, before any file is read: a failure's traceback never goes
    to the terminal); ``report(text)`` tells the user about an unexpected error (see :func:`set_report`).

    Returns the log file's path (None if it cannot be written: then only standard error).
    """
    if report is not None:
        set_report(report)
    if _state["done"]:
        return _state["path"]
    _state["done"] = True
    path = None
    handler: logging.Handler
    try:
        folder = log_dir()
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "ir-workbench.log")
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1 << 20, backupCount=2, encoding="utf-8")
    except OSError:
        handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)

    def excepthook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        log.error("unexpected error", exc_info=(kind, value, tb))
        if _state["report"] is not None:
            where = f" (details in {path})" if path else ""
            _state["report"](f"Unexpected error: {kind.__name__}: {value}{where}")

    sys.excepthook = excepthook
    _state["path"] = path
    return path
