"""Diagnostics of the window: a log file in the platform's standard place, and no lost exceptions.

Worker failures are logged with their traceback by :mod:`workbench.qt.jobs`; an
exception raised in a slot on the GUI thread goes to the same log through
:func:`setup`'s ``sys.excepthook``, and the user sees one line about it in the
window instead of a traceback on the terminal.

Records are written to the file by a thread of their own (:class:`logging.handlers.QueueListener`): whoever
logs, the GUI thread included, only puts the record on a queue.  :func:`stop` writes what is queued (the app
calls it as it leaves; at exit it runs anyway).
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import os
import queue
import sys

log = logging.getLogger("workbench")


def log_dir() -> str:
    """Where the log file lives (Qt's AppLocalDataLocation, the organisation and the application both named
    ir-workbench: ~/.local/share/ir-workbench/ir-workbench on Linux)."""
    from PySide6.QtCore import QStandardPaths

    return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)


_state: dict = {"report": None, "path": None, "done": False, "listener": None, "queued": None}


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
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    listener = logging.handlers.QueueListener(records, handler)
    queued = logging.handlers.QueueHandler(records)
    root = logging.getLogger()
    root.addHandler(queued)
    root.setLevel(logging.INFO)
    listener.start()
    _state["listener"], _state["queued"] = listener, queued
    atexit.unregister(stop)
    atexit.register(stop)  # (the app stops it as it leaves; this is for a caller that does not)

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


def stop() -> None:
    """Write every record queued so far and stop the thread that writes them; records logged later go to
    the file directly (on the thread that logs them: by then the window is gone).  Afterwards
    :func:`setup` starts again."""
    listener, queued = _state["listener"], _state["queued"]
    if listener is None:
        return
    _state.update(listener=None, queued=None, done=False)
    listener.stop()  # (its thread writes what is queued, then ends)
    root = logging.getLogger()
    root.removeHandler(queued)
    for handler in listener.handlers:
        root.addHandler(handler)
