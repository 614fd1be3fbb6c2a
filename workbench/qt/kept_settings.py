"""The window's kept settings (its layout, the recent files, the kinds chosen for files, the last export's
folder): read on the window's thread, written to disk from a thread of their own.

A ``QSettings`` set on the window's thread writes its file there, from the event loop: a lock file and a
new copy of the file, each synced to disk, which waited up to half a second on a disk busy with another
large write. Calling ``QSettings.sync`` from another Python thread does not help: PySide6 keeps Python's
lock through the call, and the window's thread waited for the lock as long. Here a thread of its own
runs a Qt event loop with a ``QSettings`` of its own on the same file (``QSettings`` objects are
reentrant: one per thread); a value set is handed to it, and that ``QSettings`` writes it from that
loop, in Qt's own code, Python's lock free meanwhile (many values set at once are written once). The
window's thread reads back what it set at once, from memory."""

from __future__ import annotations

import logging
import threading
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, QSettings, Qt, Signal, Slot

log = logging.getLogger(__name__)

#: seconds :meth:`KeptSettings.close` waits, at most, for the values set to be on disk (the window
#: closing): a disk that hangs does not keep the window open
FLUSH_SECONDS = 5.0


class KeptSettings(QObject):
    """``settings`` read on the window's thread and written from a thread of their own (started on the first
    value set, stopped by :meth:`close`); what was set is what is read back, on disk or not yet."""

    _put = Signal(str, object)
    _sync = Signal(object)
    _stop = Signal()

    def __init__(self, settings: QSettings) -> None:
        super().__init__()
        self._read = settings
        self._file, self._format = settings.fileName(), settings.format()
        self._set: dict[str, object] = {}  # every value set here: read back as set (never removed)
        self._writer: _Writer | None = None
        self._loop: QEventLoop | None = None  # the writer thread's
        self._thread: threading.Thread | None = None

    def file_name(self) -> str:
        """The settings' file (on Windows, the registry key)."""
        return self._file

    def value(self, key: str, default: object = None) -> Any:  # (as QSettings.value: what was kept)
        if key in self._set:
            return self._set[key]
        return self._read.value(key, default)

    def set_value(self, key: str, value: object) -> None:
        """Keep ``value`` under ``key``: read back at once, on disk once the writer's loop has written it."""
        self._set[key] = value
        given = {key: value}
        if self._writer is None:
            self._start_writer()
            given = dict(self._set)  # (a new writer is given all: some may have been set while none could be)
        if self._writer is not None:
            for name, kept in given.items():
                self._put.emit(name, kept)

    def flush(self, timeout: float = FLUSH_SECONDS) -> bool:
        """Wait, at most ``timeout`` seconds, for what was set to be on disk; whether it is."""
        if self._writer is None:
            return True
        done = threading.Event()
        self._sync.emit(done)
        return done.wait(timeout)

    def close(self, timeout: float = FLUSH_SECONDS) -> bool:
        """:meth:`flush`, then stop the writer's thread (a value set later starts another)."""
        written = self.flush(timeout)
        if self._writer is not None and self._loop is not None and self._thread is not None:
            self._stop.emit()
            self._thread.join(timeout)
            self._put.disconnect(self._writer.put)
            self._sync.disconnect(self._writer.sync)
            self._stop.disconnect(self._loop.quit)
            self._writer = self._loop = self._thread = None
        return written

    def _start_writer(self) -> None:
        made: list[tuple[_Writer, QEventLoop]] = []
        ready = threading.Event()

        def run() -> None:
            try:
                loop = QEventLoop()
                made.append((_Writer(self._file, self._format), loop))  # (both of this thread)
            except Exception as exc:  # (said by the window's thread below; the reason logged here)
                log.debug("no writer of the window's settings: %s", exc)
                return
            finally:
                ready.set()
            loop.exec()

        thread = threading.Thread(target=run, name="settings writer", daemon=True)
        thread.start()
        if not ready.wait(FLUSH_SECONDS) or not made:  # (kept in memory meanwhile; the next value tries again)
            log.warning("the window's settings could not be written to %s: no writer", self._file)
            return
        self._thread = thread
        self._writer, self._loop = made[0]
        queued = Qt.ConnectionType.QueuedConnection
        self._put.connect(self._writer.put, queued)
        self._sync.connect(self._writer.sync, queued)
        self._stop.connect(self._loop.quit, queued)


class _Writer(QObject):
    """The writer thread's ``QSettings`` on the file: a value set here is written to disk by ``QSettings``
    itself, from this thread's event loop."""

    def __init__(self, file: str, fmt: QSettings.Format) -> None:
        super().__init__()
        self._settings = QSettings(file, fmt)

    @Slot(str, object)
    def put(self, key: str, value: object) -> None:
        self._settings.setValue(key, value)

    @Slot(object)
    def sync(self, done: threading.Event) -> None:
        self._settings.sync()
        if self._settings.status() != QSettings.Status.NoError:
            log.warning("the window's settings could not be written to %s", self._settings.fileName())
        done.set()
