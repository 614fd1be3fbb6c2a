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
* The file is UTF-8, with or without a byte-order mark, plain or gzip
  compressed (recognised by content, not by name). NUL bytes and bytes that
  are not UTF-8 are errors.
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
The file is read in chunks of whole lines (16 MiB; a thread reads and
decompresses the next chunk meanwhile). Each chunk goes to ``pyarrow.csv``
split on single spaces, or on tabs when it has no spaces, CRLF line ends
included. The result is accepted only if no field is empty (an empty field
means a doubled, leading or trailing blank), no score is NaN and no line
starts with ``#``. Otherwise the chunk's blanks are normalised with numpy
(single spaces, comment lines emptied) and it is parsed again; if that fails
too, a line-by-line pass finds the first offending line and raises a precise
error, or, for lines trec_eval accepts that pyarrow does not (a varying
number of extra run columns, ``+1`` grades, hexadecimal scores), produces the
columns. Duplicate documents are found with a 64-bit hash per (query,
document) and one sort; candidates are confirmed on the strings themselves.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from .detect import detect_kind, detect_kind_with_reason
from .formats import _FORMATS, _QRELS, _RANKED, _RUN, LoadedFile, Progress, _is_frame

# .text and .frames (pyarrow, pandas when a frame is made) are imported by the functions that read:
# the rules of the formats (.formats) and detection stay light for the numpy reader of ir-eval

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LoadedFile",
    "detect_kind",
    "detect_kind_with_reason",
    "read_file",
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
    ranx's ``Qrels`` are read too (:mod:`metrics.inputs`). See the module
    docstring for the file rules. Raises :class:`InputError`.
    """
    if _is_frame(source):
        from .frames import _qrels_from_frame

        return _qrels_from_frame(source)
    if not isinstance(source, (str, os.PathLike)):  # dicts, records, ranx objects (metrics.inputs)
        from ..inputs import as_qrels

        return as_qrels(source)
    display = os.fspath(source)
    from .text import _read_path

    result = _read_path(display, _QRELS, progress)
    return result.qrels


def read_run(source, name: Optional[str] = None, *, progress: Progress = None) -> pd.DataFrame:
    """Read a run (``qid Q0 docid rank score tag``) from a path or DataFrame.

    ``attrs["name"]`` is ``name`` if given, else the tag of the first line
    (for a DataFrame: its ``attrs["name"]``, else "run"); ``attrs["run_id"]``
    is the tag of the last line, as trec_eval's ``runid``. A DataFrame needs
    columns ``query_id``, ``doc_id``, ``score`` (or ``qid``, ``docno``).
    See the module docstring for the file rules. Raises :class:`InputError`.
    """
    if _is_frame(source):
        from .frames import _run_from_frame

        return _run_from_frame(source, name)
    if not isinstance(source, (str, os.PathLike)):  # dicts, records, ranx objects (metrics.inputs)
        from ..inputs import as_run

        return as_run(source, name)
    display = os.fspath(source)
    from .text import _read_path

    result = _read_path(display, _RUN, progress, name=name)
    return result.run


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
        from .frames import _qrels_from_frame, _ranked_run

        qrels = _qrels_from_frame(source, fmt=_RANKED)
        run = _ranked_run(qrels, name or source.attrs.get("name") or "ranked")
        return run, qrels
    display = os.fspath(source)
    from .text import _read_path

    result = _read_path(display, _RANKED, progress, name=name)
    return result.run, result.qrels


def read_file(path, kind: Optional[str] = None, progress: Progress = None) -> LoadedFile:
    """Read a qrels, run or ranked-judgments file into a :class:`LoadedFile`.

    ``kind`` is "qrels", "run" or "ranked"; ``None`` asks :func:`detect_kind`.
    ``progress(fraction)`` is called a handful of times with a fraction in
    [0, 1] (once per 16 MiB of input and between phases, not per line); if
    it returns ``False``, reading stops with :class:`metrics.errors.Cancelled`
    within a fraction of a second. It is called in the caller's thread.
    """
    display = os.fspath(path)
    if kind is None:
        kind = detect_kind(display)
    if kind not in _FORMATS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    from .text import _read_path

    return _read_path(display, _FORMATS[kind], progress)


def use_jemalloc_pool() -> None:
    """Give pyarrow its jemalloc pool for this process (see :func:`metrics.readers.text.use_jemalloc_pool`)."""
    from .text import use_jemalloc_pool as use

    use()
