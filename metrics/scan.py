"""A TREC file's bytes read once more, for what the readers do not keep: line counts, comment lines, the
first data lines, and a run's rank column and run tags (:mod:`metrics.inspect` describes files with it).

Bytes are read in chunks; within a chunk, blank and comment lines are dropped and runs of spaces and
tabs become one space, so that pyarrow's CSV parser reads TREC's whitespace-separated fields.
"""

from __future__ import annotations

import io
import os
import re

import pyarrow as pa
import pyarrow.csv as pacsv

from .errors import Cancelled, InputError
from .textfile import open_stream

HEAD_LINES = 10
# bytes per step of the scan: small enough that the regular expressions and the parser, which hold
# Python's lock while they work, leave the window's thread a turn every few milliseconds
CHUNK = 1 << 20
_BLANK_OR_COMMENT = re.compile(rb"(?m)^[ \t]*(?:#[^\n]*)?\r?\n")
_SPACES = re.compile(rb"[ \t]+")
_EDGES = re.compile(rb"(?m)^ | (?=\r?\n)|\r")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _open(path: str):
    return open_stream(open(path, "rb"))[1]


def _scan(path: str, kind: str | None, progress) -> dict:
    """Line counts and the first data lines; for a run also its qid, docid, rank, score and tag columns.

    Bytes are read in chunks; within a chunk, blank and comment lines are dropped and runs of spaces and
    tabs become one space, so that pyarrow's CSV parser reads TREC's whitespace-separated fields.
    """
    size = max(_size(path), 1)
    lines = comments = 0
    head: list = []
    tables: list[pa.Table] = []
    carry = b""
    line_no = 0
    with _open(path) as fh:
        while True:
            block = fh.read(CHUNK)
            data = carry + block
            if block:
                cut = data.rfind(b"\n") + 1
                data, carry = data[:cut], data[cut:]
            else:
                carry = b""
                if data and not data.endswith(b"\n"):
                    data += b"\n"
            if data:
                if b"\0" in data:
                    raise InputError("binary data (a NUL byte)", path=path)
                total = data.count(b"\n")
                kept = _BLANK_OR_COMMENT.sub(b"", data)
                n_data = kept.count(b"\n")
                comments += len(re.findall(rb"(?m)^[ \t]*#", data))
                if len(head) < HEAD_LINES:
                    for i, line in enumerate(data[: 1 << 16].split(b"\n")[:-1], line_no + 1):
                        fields = line.split()
                        if fields and not fields[0].startswith(b"#"):
                            head.append({"line": i, "fields": [f.decode("utf-8", "replace") for f in fields]})
                            if len(head) >= HEAD_LINES:
                                break
                line_no += total
                lines += n_data
                if kind in ("run", "ranked") and n_data:
                    tables.append(_parse(kind, _EDGES.sub(b"", _SPACES.sub(b" ", kept))))
            if progress is not None and progress(min(1.0, fh.tell() / size if hasattr(fh, "tell") else 0.5)) is False:
                raise Cancelled("inspection cancelled")
            if not block:
                break
    out = {"lines": lines, "comment_lines": comments, "head": head}
    if tables:
        out["table"] = pa.concat_tables(tables)
    return out


def _parse(kind: str, data: bytes) -> pa.Table:
    n = 6 if kind == "run" else 4
    names = [f"f{i}" for i in range(n)]
    skipped = []

    def extra_fields(row):  # trec_eval ignores fields after the tag; so do the readers
        skipped.append(row.number)
        return "skip"

    table = pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, invalid_row_handler=extra_fields),
        convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in names}),
    )
    return table
