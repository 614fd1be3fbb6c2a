"""What kind of file this is, from its first data line."""

from __future__ import annotations

import os

from ..errors import InputError
from ..textfile import check_text as _check_text
from ..textfile import gzip_errors as _gzip_errors
from ..textfile import open_stream as _open_stream
from ..textfile import without_bom as _without_bom
from .formats import _columns, _empty_error

_DETECT_BYTES = 64 << 10
_DETECT_LIMIT = 1 << 20


def detect_kind(path) -> str:
    """Tell from its first data line whether a file is a run or qrels.

    6 or more fields: "run"; 4 fields: "qrels", whatever the second field
    holds (``0``, ``Q0`` as in TREC Deep Learning and MS MARCO qrels, ``0.5``).
    Ranked judgments (``qid Q0 docid rel`` in ranked order) share that layout
    and are never guessed: they are read only when asked for by kind.  Reads
    only the start of the file (64 KiB unless comments fill it). Raises
    :class:`InputError` for other shapes, binary content and files without
    data lines.
    """
    return detect_kind_with_reason(path)[0]


def detect_kind_with_reason(path) -> tuple[str, str]:
    """(kind, one sentence saying why), as :func:`detect_kind` decides it."""
    display = os.fspath(path)
    head, line_no = _first_data_line(display)
    if head is None:
        raise _empty_error(display, None)
    n = len(head)
    if n >= 6:
        return "run", (f"line {line_no} has {n} fields (qid Q0 docid rank score tag): a run")
    if n == 4:
        return "qrels", (
            f"line {line_no} has 4 fields (qid iter docid grade): qrels; a ranked-judgments "
            "file ('qid Q0 docid grade' in ranked order) has the same layout and is read as one "
            "only when chosen"
        )
    raise InputError(
        f"found {_columns(n)}",
        path=display,
        line=line_no,
        expected=("4 columns (qrels 'qid iter docid rel') or 6 columns (run 'qid Q0 docid rank score tag')"),
    )


def _first_data_line(display: str):
    """(tokens, line number) of the first data line, or (None, None).

    Reads 64 KiB at a time, at most 1 MiB.
    """
    with open(display, "rb") as raw:
        gz, stream = _open_stream(raw)
        data = b""
        while True:
            with _gzip_errors(gz, display):
                block = stream.read(_DETECT_BYTES)
            data += block
            eof = len(block) < _DETECT_BYTES
            found = _scan_head(data, eof, len(data) >= _DETECT_LIMIT, display)
            if found is not None or eof or len(data) >= _DETECT_LIMIT:
                return found if found is not None else (None, None)


def _scan_head(data: bytes, eof: bool, limit: bool, display: str):
    """Look for the first data line among the complete lines of ``data``.

    At the end of the file the last line counts even without a newline; at
    the size limit, so does the cut-off line (not checked for UTF-8 then: the
    cut may split a character).
    """
    data = _without_bom(data, display)
    start, number = 0, 0
    while True:  # line by line: the first data line is near the start of the 64 KiB read
        end = data.find(b"\n", start)
        number += 1
        if end < 0:  # after the last newline
            if not (eof or limit):
                return None
            line = data[start:]
            if eof or b"\0" in line:
                _check_text(line, number, display)
        else:
            line = data[start:end]
            _check_text(line, number, display)
        tokens = line.split()
        if tokens and tokens[0][:1] != b"#":
            return tokens, number
        if end < 0:
            return None
        start = end + 1
