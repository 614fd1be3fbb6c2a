"""Lines of a chunk in their normal form (single spaces between fields, blank and comment lines empty),
comment lines counted, and data rows traced back to the file's line numbers for error messages."""

from __future__ import annotations

import contextlib
import re

import numpy as np

from metrics.io.textfile import _line_at, chunks


def comment_lines(chunk: bytes) -> int:
    """How many lines of ``chunk`` (whole lines) are comments (first non-blank byte ``#``)."""
    return len(re.findall(_COMMENT, chunk, re.MULTILINE))


_COMMENT = rb"^[ \t\r\x0b\x0c]*#"  # compiled when first used (re's cache)


# every whitespace byte but the newline, as a space
_BLANKS_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c\r", b"    ")


def normalise(chunk: bytes) -> bytes:
    """Single spaces between fields; no leading/trailing blanks, no comments.

    Blank and comment lines become empty lines.  ``chunk`` ends with a newline.
    """
    a = np.frombuffer(chunk.translate(_BLANKS_TO_SPACE), dtype=np.uint8)
    space = a == 32
    # drop a space that follows a space or a newline, or starts the chunk
    keep = np.empty_like(space)
    np.logical_or(a[:-1] == 10, space[:-1], out=keep[1:])
    np.logical_and(keep[1:], space[1:], out=keep[1:])
    np.logical_not(keep, out=keep)
    keep[0] = not space[0]
    b = a[keep]
    # what is left of a run of blanks before a newline is one space
    trailing = b[:-1] == 32
    trailing &= b[1:] == 10
    if trailing.any():
        keep = np.ones(len(b), dtype=bool)
        np.logical_not(trailing, out=keep[:-1])
        b = b[keep]
    if b"#" in chunk:
        ends = np.flatnonzero(b == 10)
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        comment = b[starts] == 35
        if comment.any():
            mark = np.zeros(len(b) + 1, dtype=np.int8)
            mark[starts[comment]] = 1
            mark[ends[comment]] = -1  # keep the newline
            b = b[np.cumsum(mark[:-1], dtype=np.int8) == 0]
    return b.tobytes()


def _without_empty_lines(chunk: bytes) -> bytes:
    b = np.frombuffer(chunk, dtype=np.uint8)
    newline = b == 10
    drop = newline.copy()
    drop[1:] &= newline[:-1]  # a newline right after a newline (or at the start) ends an empty line
    return b[~drop].tobytes() if drop.any() else chunk


def _has_comment(chunk: bytes) -> bool:
    return chunk.startswith(b"#") or b"\n#" in chunk


def data_lines(display: str, rows: list[int]) -> list[int]:
    """The file's line number of each data row in ``rows`` (0-based, in file order of data lines),
    counted by reading the file again: for errors, not on the way of a file that reads."""
    wanted = sorted(set(rows))
    found: dict[int, int] = {}
    before = 0  # data rows in the chunks before
    offset = 0
    with contextlib.closing(chunks(display, count_lines=False)) as source:  # type: ignore[type-var]
        for chunk, _, _, _ in source:
            # one byte per line in the normal form: empty for blank and comment lines
            lines = normalise(chunk).split(b"\n")[:-1]
            data = [i for i, line in enumerate(lines) if line]
            while wanted and wanted[0] < before + len(data):
                row = wanted.pop(0)
                found[row] = _line_at(display, offset) + data[row - before]
            if not wanted:
                break
            before += len(data)
            offset += len(chunk)
    return [found[r] for r in rows]
