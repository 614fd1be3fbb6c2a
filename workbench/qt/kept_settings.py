"""The window's kept settings (its layout, the recent files, the kinds chosen for files, the last export's
folder): read on the window's thread, written to disk by a thread of their own.

A ``QSettings`` written on the window's thread writes its file there too, from the event loop: a lock file
and a new copy of the file, each synced to disk. Behind a large write of another thread (the index of a
collection of 300,000 passages, synced) that sync waited a second on a slow disk, and the window with it.
Here the window's thread only reads: a value set is read back at once from memory, and the writer thread
puts it on disk with a ``QSettings`` of its own on the same file (``QSettings`` objects are reentrant: one
per thread)."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from PySide6.QtCore import QSettings

log = logging.getLogger(__name__)

#: seconds :meth:`KeptSettings.flush` waits, at most, for the writes asked for to be on disk (the window
#: closing): a disk that hangs does not keep the window open
FLUSH_SECONDS = 5.0


class KeptSettings:
    """``settings`` read on the window's thread and written by a thread of their own (started on the first
    write); what was set is what is read back, on disk or not yet."""

    def __init__(self, settings: QSettings) -> None:
        self._read = settings
        self._file, self._format = settings.fileName(), settings.format()
        self._set: dict[str, object] = {}  # every value set here: read back as set
        self._unwritten: dict[str, object] = {}  # those not yet given to the writer
        self._lock = threading.Lock()
        self._asks: queue.SimpleQueue[threading.Event | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None

    def file_name(self) -> str:
        """The settings' file (on Windows, the registry key)."""
        return self._file

    def value(self, key: str, default: object = None) -> Any:  # (as QSettings.value: what was kept)
        with self._lock:
            if key in self._set:
                return self._set[key]
        return self._read.value(key, default)

    def set_value(self, key: str, value: object) -> None:
        """Keep ``value`` under ``key``: read back at once, on disk once the writer thread has written it."""
        with self._lock:
            self._set[key] = self._unwritten[key] = value
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_asked, name="settings writer", daemon=True)
                self._writer.start()
        self._asks.put(None)

    def flush(self, timeout: float = FLUSH_SECONDS) -> bool:
        """Wait, at most ``timeout`` seconds, for what was set to be on disk; whether it is."""
        with self._lock:
            if self._writer is None:
                return True
        done = threading.Event()
        self._asks.put(done)
        return done.wait(timeout)

    def _write_asked(self) -> None:
        while True:
            ask = self._asks.get()
            if ask is not None:
                ask.set()  # (every write asked before it is done)
                continue
            with self._lock:
                batch, self._unwritten = self._unwritten, {}
            if batch:
                self._write(batch)

    def _write(self, batch: dict[str, object]) -> None:
        target = QSettings(self._file, self._format)  # (this thread's own, on the same file)
        for key, value in batch.items():
            target.setValue(key, value)
        target.sync()
        if target.status() != QSettings.Status.NoError:
            log.warning("the window's settings could not be written to %s (%s)", self._file, target.status())
        del target
