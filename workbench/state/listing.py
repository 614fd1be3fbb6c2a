"""What the user asked to open, looked at on disk: the files a folder holds and every file's size.

The window's thread makes no file system call: the Qt session runs :func:`list_files` in a worker and
hands the :class:`Listing` to :meth:`workbench.state.files.FileRules.open_listed`, which decides from
the sizes given which runs are held in memory; the files a workspace names are looked at the same way
(:func:`look_at`, then :meth:`workbench.state.session.SessionModel.open_workspace_listed`).  Plain
Python, no Qt.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.state.loading import SAMPLE_DIR
from workbench.state.workspace import expand, normalize


@dataclass(frozen=True)
class Listing:
    """The files named by the paths a user opened, each once and normalised (a folder stands for the files in
    it and its subfolders, :func:`workbench.state.workspace.expand`)."""

    files: list[str]
    #: file -> the folder it was found in (files named directly are not in it)
    folder_of: dict[str, str] = field(default_factory=dict)
    #: what was left out, in words (a folder's documents and pictures, the files beyond the most taken)
    notes: list[str] = field(default_factory=list)
    #: file -> its size in bytes; 0 when it cannot be looked at (reading it says what is wrong)
    sizes: dict[str, int] = field(default_factory=dict)
    #: the files named that are not there (:func:`look_at` only: a workspace offers to locate them)
    absent: frozenset[str] = frozenset()


def list_files(paths: Iterable[str | os.PathLike]) -> Listing:
    """The files ``paths`` name and their sizes (in a worker: this walks folders and looks at every file)."""
    found = expand(paths)
    return Listing(found.files, found.folder_of, found.notes, {p: _size(p) for p in found.files})


def look_at(paths: Iterable[str | os.PathLike]) -> Listing:
    """The files ``paths`` name, as named (a folder is not walked: a workspace names files), each once and
    normalised, with their sizes, and which of them are not there or not a file (in a worker: this looks
    at every file)."""
    files = list(dict.fromkeys(normalize(p) for p in paths))
    sizes: dict[str, int] = {}
    absent: set[str] = set()
    for path in files:
        try:
            st = os.stat(path)
        except OSError:  # (gone, or a folder on the way cannot be looked into)
            absent.add(path)
            continue
        if stat.S_ISREG(st.st_mode):
            sizes[path] = st.st_size
        else:
            absent.add(path)
    return Listing(files, sizes=sizes, absent=frozenset(absent))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # (gone, no permission, an irds: dataset)
        return 0


def in_sample(path: str) -> bool:
    """Whether ``path`` (normalised) is one of the bundled sample's files (decided from the path alone)."""
    return os.path.dirname(path) == os.path.abspath(SAMPLE_DIR)
