"""Where an export goes, looked at in a worker: the GUI thread never touches the disk for it.

Before an export is written, its target is checked in a job (:meth:`workbench.qt.session.Session.run_job`):
a file loaded as input is refused, and whether the file exists decides if the user is asked to replace it
(on the GUI thread, once the check is back); only then is the writing job started.  The folder a save
dialog opens in is checked the same way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from metrics.io import fileio

if TYPE_CHECKING:
    from workbench.qt.session import Session

T = TypeVar("T")


def target_exists(path: str, protect: Sequence[str]) -> bool:
    """Whether ``path`` exists (worker side); :class:`metrics.io.fileio.ProtectedFileError` if it is one of
    the files loaded as input (``protect``)."""
    fileio.check_not_input(path, protect)
    return os.path.exists(path)


def check_then_write(
    session: Session,
    path: str,
    protect: Sequence[str],
    confirm_overwrite: Callable[[str], bool],
    write: Callable[[bool, T], None],
    failed: Callable[[BaseException], None],
    declined: Callable[[], None] = lambda: None,
    prepare: Callable[[], T] = lambda: None,  # type: ignore[assignment,return-value]
) -> None:
    """Check ``path`` in a worker (:func:`target_exists`) and call ``prepare()`` there (what the file will
    state, when finding it reads a file); back on the GUI thread, ask ``confirm_overwrite(path)`` if it
    exists, then ``write(exists, prepared)`` (which starts the writing job), or ``declined()`` if the user
    keeps the file.  ``failed(exc)`` hears of a refused input file or a failed check."""
    protect = list(protect)

    def check(progress: object) -> tuple[bool, T] | fileio.ProtectedFileError:
        try:
            exists = target_exists(path, protect)
        except fileio.ProtectedFileError as exc:
            return exc  # (the user's choice refused, not a failure for the log)
        return exists, prepare()

    def checked(found: object) -> None:
        if isinstance(found, fileio.ProtectedFileError):
            failed(found)
            return
        exists, prepared = cast("tuple[bool, T]", found)
        if exists and not confirm_overwrite(path):
            declined()
            return
        write(exists, prepared)

    session.run_job(
        check,
        f"Checking {os.path.basename(path)}",
        checked,
        failed,
    )


def with_folder(session: Session, folder: str, fallback: Callable[[], str], use: Callable[[str], None]) -> None:
    """``use(folder)`` on the GUI thread if ``folder`` is a folder (looked at in a worker), else
    ``use(fallback())``."""

    def chosen(found: object) -> None:
        use(folder if found else fallback())

    session.run_job(
        lambda progress: bool(folder) and os.path.isdir(folder),
        "Finding the export folder",
        chosen,
        lambda exc: chosen(False),
    )
