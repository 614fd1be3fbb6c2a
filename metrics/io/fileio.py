"""The one way files are written: atomically, with the usual permissions, never over an input.

:func:`write_bytes` writes to a temporary file next to the target (same
directory, so the final move never crosses file systems), flushes it to disk
and moves it into place: ``os.replace`` when replacing, otherwise a hard link
that fails if the target appeared meanwhile.  So a reader never sees half a
file, and a failed write leaves an existing file as it was.

* The file gets the permissions of any new file (``0666`` less the umask),
  not the ``0600`` of :func:`tempfile.mkstemp`.
* ``protect``: paths that must never be replaced (the files loaded as input);
  a target that is one of them, by name or as the same file, is refused.
* Temporary files left by an interrupted write of the same target (older than
  a minute) are removed, so they do not pile up.
* Errors name the file the user chose, never the temporary one, and carry it as
  ``output_path`` (:func:`output_path`): a command line tells a file it could not write
  (exit 4) from one it could not read (exit 2).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import time
from pathlib import Path
from typing import Iterable

STALE_SECONDS = 60


def output_path(exc: BaseException) -> str | None:
    """The file the user chose that :func:`write_bytes` could not write, when ``exc`` says so; else None."""
    return getattr(exc, "output_path", None)


class ProtectedFileError(PermissionError):
    """The target is a file loaded as input."""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_not_input(path, protect: Iterable = ()) -> None:
    """Raise :class:`ProtectedFileError` when ``path`` is one of the ``protect`` paths."""
    target = os.fspath(path)
    for p in protect or ():
        if _same_file(target, os.fspath(p)):
            raise ProtectedFileError(
                errno.EPERM, "is loaded as input and is never written to; choose another file", target
            )


def _remove_leftovers(path: Path) -> None:
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{12}}\.tmp\Z")
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if pattern.match(entry.name):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > STALE_SECONDS:
                        os.unlink(entry.path)


def write_bytes(path, data: bytes, *, overwrite: bool = False, protect: Iterable = ()) -> Path:
    """Write ``data`` to ``path`` atomically; refuse to replace a file unless ``overwrite``."""
    path = Path(path)
    check_not_input(path, protect)
    if not overwrite and path.exists():
        raise FileExistsError(errno.EEXIST, "file exists; pass overwrite=True to replace it", str(path))
    _remove_leftovers(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    tmp = None
    try:
        while True:
            tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
            try:
                fd = os.open(tmp, flags, 0o666)  # the umask applies, as to any new file
                break
            except FileExistsError:
                continue
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise FileExistsError(
                    errno.EEXIST, "file exists; pass overwrite=True to replace it", str(path)
                ) from None
            except OSError as exc:
                if isinstance(exc, FileExistsError):
                    raise
                if path.exists():  # no hard links on this file system: check, then move
                    raise FileExistsError(
                        errno.EEXIST, "file exists; pass overwrite=True to replace it", str(path)
                    ) from None
                os.replace(tmp, path)
    except OSError as exc:
        if exc.filename is not None and tmp is not None and os.fspath(exc.filename) == os.fspath(tmp):
            named = type(exc)(exc.errno, exc.strerror, str(path))  # the user's file, not ours
            named.output_path = str(path)  # type: ignore[attr-defined]
            raise named from None
        exc.output_path = str(path)  # type: ignore[attr-defined]
        raise
    finally:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    return path


def write_text(path, text: str, *, overwrite: bool = False, protect: Iterable = ()) -> Path:
    """UTF-8 text (newlines as given) through :func:`write_bytes`."""
    return write_bytes(path, text.encode("utf-8"), overwrite=overwrite, protect=protect)
