"""Readers for TREC-format qrels, runs and ranked-judgment files.

File formats
------------
qrels
    ``qid iter docid rel``: exactly four fields; ``iter`` is ignored, ``rel``
    is an integer (negative grades are kept as they are).
run
    ``qid Q0 docid rank score tag``: at least six fields; ``Q0`` and ``rank``
    are ignored (trec_eval ranks by score, never by the rank column), fields
    after the tag are ignored, ``score`` is a C double.
ranked judgments
    ``qid Q0 docid rel``: one line per retrieved document, in ranked order,
    with the relevance grade inline. Read as a run whose scores reproduce the
    file order plus the qrels of the inline grades.

Line rules (the shapes trec_eval 10.0 accepts, ``get_trec_results.c`` and
``get_qrels.c``):

* Fields are separated by any run of whitespace (space, tab, CR, vertical
  tab, form feed); leading and trailing whitespace is ignored, so CRLF files
  read like LF files. Lines end at LF only: as in trec_eval, a lone CR is a
  blank inside a line.
* Blank lines and lines whose first non-blank character is ``#`` are
  skipped. (trec_eval 10.0 rejects blank lines in qrels and only recognises
  ``#`` in column 0 there; here both formats follow the run rules.) A ``#``
  anywhere else is data: document ids such as ``doc_50_22#13_30`` are fine.
* A score is read as C ``strtod`` reads it (``12.5``, ``-3``, ``1e-4``,
  ``.5``, ``inf``, hexadecimal ``0x1p-3``), but the whole field must be a
  number: where trec_eval's ``atof`` silently reads ``abc`` as 0 or ``1.5x``
  as 1.5, this is an error here, and so is ``nan`` (it cannot be ranked).
* A relevance grade is a decimal integer with optional sign (trec_eval's
  ``atol`` would truncate ``1.5`` to 1 and read ``x`` as 0; both are errors
  here).
* A document id may appear only once per query, in a run as in qrels
  (trec_eval refuses such input as well, with "duplicate docs").
* The file is text, plain or gzip compressed (recognised by content, not by
  name). Ids are bytes, as trec_eval reads them: UTF-8, or old collections'
  Latin-1, are scored as they are (frames keep bytes that are not UTF-8 as
  lone surrogates, PEP 383's ``surrogateescape``, so a frame scores as its
  file does). A UTF-8 byte-order mark is dropped (trec_eval
  keeps it as part of the first query id); NUL bytes and a UTF-16
  byte-order mark are errors.
* The run tag reported for a run is the tag of its first line (trec_eval
  reports the last line's; a warning says when the two differ).

Every problem raises :class:`metrics.errors.InputError` naming the file, the
1-based line and what was expected; nothing is returned half-loaded. Files are
only ever opened for reading.

Output
------
qrels: DataFrame ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64).
run: DataFrame ``query_id`` (str), ``doc_id`` (str), ``score`` (float64),
``attrs["name"]`` the run tag of the first line (or the name given),
``attrs["run_id"]`` the tag of the last line (what trec_eval's ``runid``
reports), ``attrs["path"]``. Rows are in file order. String columns are arrow-backed (pandas ``str``).

Implementation
--------------
Every path is read by the one reader, :func:`metrics.io.columns.read_columns`
(numpy columns of the ids' bytes, the scores or grades): the core's one
in-memory form, which :func:`read_file_columns` gives as it is; the frames are
made from its columns (:func:`metrics.io.frames.frame_from_columns`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from metrics.io.detect import detect_kind, detect_kind_with_reason
from metrics.io.formats import _FORMATS, _RANKED, Progress, _is_frame

# .frames (pyarrow, pandas) and the reader are imported by the functions that read: the rules of the
# formats (.formats) and detection stay light for ir-eval, which reads into columns without frames

if TYPE_CHECKING:
    import pandas as pd

    from metrics.io.table import Columns

__all__ = [
    "LoadedColumns",
    "LoadedFile",
    "detect_kind",
    "detect_kind_with_reason",
    "read_file",
    "read_file_columns",
    "read_qrels",
    "read_ranked_judgments",
    "read_run",
    "use_jemalloc_pool",
]

KINDS = ("qrels", "run", "ranked")


def read_qrels(source, *, progress: Progress = None) -> pd.DataFrame:
    """Read qrels (``qid iter docid rel``) from a path or a DataFrame.

    A DataFrame needs columns ``query_id``, ``doc_id``, ``relevance`` (or
    PyTerrier's ``qid``, ``docno``, ``label``, or ranx's ``q_id``); it is
    validated like a file and returned as a new frame with exactly those
    columns and dtypes. ``{qid: {docid: grade}}``, iterables of records and
    ranx's ``Qrels`` are read too (:mod:`metrics.io.inputs`). See the module
    docstring for the file rules. Raises :class:`InputError`.
    """
    if _is_frame(source):
        from metrics.io.frames import _qrels_from_frame

        return _qrels_from_frame(source)
    if _is_columns(source):  # the core's own form (read_file_columns): its frame
        from metrics.io.frames import frame_from_columns

        return frame_from_columns(source)
    if not isinstance(source, (str, os.PathLike)):  # dicts, records, ranx objects (metrics.io.inputs)
        from metrics.io.frames import _qrels_from_frame
        from metrics.io.inputs import qrels_frame

        return _qrels_from_frame(qrels_frame(source))
    qrels = read_file(source, "qrels", progress).qrels
    assert qrels is not None  # (a file read as qrels has them)
    return qrels


def read_run(source, name: Optional[str] = None, *, progress: Progress = None, queries=None) -> pd.DataFrame:
    """Read a run (``qid Q0 docid rank score tag``) from a path or DataFrame.

    ``queries``: keep only the lines of these query ids (the file is read and checked whole, but only
    their rows become a frame: one query of a run of millions of lines for its drill-down).

    ``attrs["name"]`` is ``name`` if given, else the tag of the first line
    (for a DataFrame: its ``attrs["name"]``, else "run"); ``attrs["run_id"]``
    is the tag of the last line, as trec_eval's ``runid``. A DataFrame needs
    columns ``query_id``, ``doc_id``, ``score`` (or ``qid``, ``docno``).
    See the module docstring for the file rules. Raises :class:`InputError`.
    """
    if _is_frame(source):
        from metrics.io.frames import _run_from_frame

        return _run_from_frame(source, name)
    if _is_columns(source):  # the core's own form (read_file_columns): its frame
        from metrics.io.frames import frame_from_columns

        frame = frame_from_columns(source)
        if name:
            frame.attrs["name"] = name
        return frame
    if not isinstance(source, (str, os.PathLike)):  # dicts, records, ranx objects (metrics.io.inputs)
        from metrics.io.frames import _run_from_frame
        from metrics.io.inputs import run_frame

        return _run_from_frame(run_frame(source), name)
    if queries is not None:
        from metrics.io.columns import read_columns
        from metrics.io.frames import frame_from_columns
        from metrics.io.table import rows_of_queries

        return frame_from_columns(
            rows_of_queries(read_columns(os.fspath(source), "run", name, progress=progress), queries)
        )
    run = _read(os.fspath(source), "run", progress, name).frames().run
    assert run is not None  # (a file read as a run has it)
    return run


def read_ranked_judgments(
    source, name: Optional[str] = None, *, progress: Progress = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read ranked judgments (``qid Q0 docid rel`` in ranked order).

    Returns ``(run, qrels)``. In the run, the document on the i-th line of a
    query with n lines (i from 0) gets score ``n - i``: sorting by score
    descending gives back the file order exactly, with no ties. The qrels hold
    the inline grades. The run is named ``name``, else after the file: its
    name without ``.gz`` and without its (last) extension. A DataFrame
    source needs ``query_id``, ``doc_id``, ``relevance`` in ranked order.
    """
    if _is_frame(source):
        from metrics.io.frames import _qrels_from_frame, _ranked_run

        qrels = _qrels_from_frame(source, fmt=_RANKED)
        run = _ranked_run(qrels, name or source.attrs.get("name") or "ranked")
        return run, qrels
    loaded = _read(os.fspath(source), "ranked", progress, name).frames()
    assert loaded.run is not None and loaded.qrels is not None  # (a ranked file gives both)
    return loaded.run, loaded.qrels


def read_file(path, kind: Optional[str] = None, progress: Progress = None) -> LoadedFile:
    """Read a qrels, run or ranked-judgments file into a :class:`LoadedFile` (of frames).

    ``kind`` is "qrels", "run" or "ranked"; ``None`` asks :func:`detect_kind`.
    ``progress(fraction)`` is called a handful of times with a fraction in
    [0, 1] (once per 16 MiB of input and between phases, not per line); if
    it returns ``False``, reading stops with :class:`metrics.errors.Cancelled`
    within a fraction of a second. It is called in the caller's thread.
    """
    return read_file_columns(path, kind, progress).frames()


def read_file_columns(path, kind: Optional[str] = None, progress: Progress = None) -> LoadedColumns:
    """:func:`read_file`, the file's content kept as :class:`~metrics.io.table.Columns` (what the window
    holds and scores; :meth:`LoadedColumns.frames` makes the frames)."""
    display = os.fspath(path)
    if kind is None:  # an ir_datasets dataset (irds:<id>, metrics.io.datasets) gives its qrels
        kind = "qrels" if display.startswith("irds:") else detect_kind(display)
    if kind not in _FORMATS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return _read(display, kind, progress)


@dataclass
class LoadedFile:
    """What :func:`read_file` read.

    ``run`` is set for kinds "run" and "ranked", ``qrels`` for "qrels" and
    "ranked"; the other is ``None``. ``warnings`` holds plain sentences about
    things that were accepted but may surprise (e.g. differing run tags).
    """

    kind: str
    path: str
    run: Optional[pd.DataFrame] = None
    qrels: Optional[pd.DataFrame] = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class LoadedColumns:
    """What :func:`read_file_columns` read: as :class:`LoadedFile`, with columns for frames."""

    kind: str
    path: str
    run: Optional[Columns] = None
    qrels: Optional[Columns] = None
    warnings: list[str] = field(default_factory=list)

    def frames(self) -> LoadedFile:
        """The same content as frames (:func:`metrics.io.frames.frame_from_columns`)."""
        from metrics.io.frames import frame_from_columns

        loaded = LoadedFile(self.kind, self.path, warnings=list(self.warnings))
        loaded.run = None if self.run is None else frame_from_columns(self.run)
        loaded.qrels = None if self.qrels is None else frame_from_columns(self.qrels)
        return loaded


def _read(display: str, kind: str, progress: Progress, name: Optional[str] = None) -> LoadedColumns:
    """The file read by the one reader."""
    from metrics.io.columns import read_columns
    from metrics.io.table import ranked_run

    cols = read_columns(display, kind, name, progress=progress)
    loaded = LoadedColumns(kind, display, warnings=list(cols.warnings))
    if kind == "run":
        loaded.run = cols
    else:
        loaded.qrels = cols
        if kind == "ranked":
            loaded.run = ranked_run(cols)
    return loaded


def _is_columns(x) -> bool:
    from metrics.io.table import Columns

    return isinstance(x, Columns)


def use_jemalloc_pool() -> None:
    """Give pyarrow its jemalloc pool for this process, unless the user chose one with
    ``ARROW_DEFAULT_MEMORY_POOL``.  Called by ``ir-eval`` and the window at start-up; the library
    itself makes no allocator choice.  The default mimalloc pool hands freed pages back to the system
    at once, and the frames' string operations then fault every page in again; jemalloc reuses them."""
    import pyarrow as pa

    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:  # a pyarrow built without jemalloc
        pass
