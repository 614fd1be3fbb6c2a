"""The three file formats, their rules for one value, and the sentences of their errors."""

from __future__ import annotations

import math
import os
import re
import sys
from typing import Callable, NamedTuple, Optional

import numpy as np

from metrics.errors import Cancelled, InputError

Progress = Optional[Callable[[float], Optional[bool]]]


class Ticker:
    """Calls a :data:`Progress` callback with fractions in [0, 1] and turns its ``False`` into
    :class:`~metrics.errors.Cancelled`."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.last = 0.0

    def __call__(self, fraction: Optional[float] = None) -> None:
        if self.progress is None:
            return
        if fraction is None:
            fraction = self.last
        self.last = fraction = min(max(float(fraction), 0.0), 1.0)
        if self.progress(fraction) is False:
            raise Cancelled()


def str_dtype():
    """pandas' ``str`` dtype (arrow-backed); pandas is imported when a frame is first made, so that
    parsing a file (the command line's path for large files) does not need it."""
    import pandas as pd

    try:  # pandas >= 2.3: the "str" dtype of pandas 3
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pragma: no cover - older pandas
        return pd.StringDtype("pyarrow")


def _is_frame(x) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.DataFrame)


class _Format(NamedTuple):
    """What a reader expects of one kind of file (a record: a named tuple, which costs a tenth of a frozen
    dataclass to define at import)."""

    kind: str
    columns: int  # required number of fields (the minimum, for runs)
    extra_ok: bool  # further fields ignored (runs) or an error
    value: int  # 0-based field holding the score / grade
    expected: str
    title: str


RUN = _Format("run", 6, True, 4, "6 columns 'qid Q0 docid rank score tag'", "a run")
_QRELS = _Format("qrels", 4, False, 3, "4 columns 'qid iter docid rel'", "a qrels file")
_RANKED = _Format("ranked", 4, False, 3, "4 columns 'qid Q0 docid rel'", "a ranked-judgments file")
_FORMATS = {f.kind: f for f in (RUN, _QRELS, _RANKED)}


_INT_RE = re.compile(rb"[+-]?[0-9]+\Z")
#: what strtod reads (``re.X``), compiled when a score is first not a plain number (re's cache)
_FLOAT_RE = rb"""[+-]?(?:
        (?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?
      | 0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?
      | [iI][nN][fF](?:[iI][nN][iI][tT][yY])?
      | [nN][aA][nN](?:\([0-9A-Za-z_]*\))?
    )\Z"""
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _strtod(token: bytes) -> Optional[float]:
    """The double C strtod reads from the whole token, None if it cannot."""
    if b"_" not in token:  # Python's float() also takes 1_000, strtod does not
        try:
            return float(token)
        except ValueError:
            pass
    if not re.match(_FLOAT_RE, token, re.X):
        return None
    low = token.lower()
    if b"x" in low:
        try:
            return float.fromhex(token.decode("ascii"))
        except OverflowError:  # strtod gives HUGE_VAL
            return -math.inf if token.startswith(b"-") else math.inf
    if b"nan" in low:
        return math.nan
    return float(token)


def _show(token: bytes, limit: int = 40) -> str:
    text = token.decode("utf-8", "replace")
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return repr(text)


def _columns(n: int) -> str:
    return f"{n} column" if n == 1 else f"{n} columns"


def _column_error(tokens, fmt, display, line_no, first_data_line, layout=None) -> InputError:
    n = len(tokens)
    message = f"found {_columns(n)}"
    if layout is not None and (not layout.trec or layout.shape):
        return InputError(message, path=display, line=line_no, expected=layout.expected(fmt))
    if first_data_line:
        if fmt is RUN and n == 4:
            if tokens[1].lower() == b"q0":
                message += ": this looks like a ranked-judgments file ('qid Q0 docid rel'), not a run"
            else:
                message += ": this looks like a qrels file, not a run"
        elif fmt is not RUN and n >= 6:
            message += f": this looks like a run, not {fmt.title}"
    return InputError(message, path=display, line=line_no, expected=fmt.expected)


def _value_error(token, fmt, display, line_no, first_data_line, layout=None) -> InputError:
    column = fmt.value + 1 if layout is None else layout.value + 1
    if fmt is RUN:
        message = f"found score {_show(token)} in column {column}"
        expected = "a number such as 12.5, -3 or 1e-4"
        if token.lower().lstrip(b"+-").startswith(b"nan"):
            expected = "a number that is not NaN"
    else:
        message = f"found relevance {_show(token)} in column {column}"
        expected = "an integer grade such as 0, 1, 2 or -1"
        if _INT_RE.match(token):
            message += " (out of the 64-bit range)"
    if first_data_line and _strtod(token) is None:
        message += ": a header line? start it with '#' to make it a comment"
    return InputError(message, path=display, line=line_no, expected=expected)


def _empty_error(display: str, fmt: Optional[_Format]) -> InputError:
    expected = f"lines of {fmt.expected}" if fmt is not None else "data lines"
    return InputError(
        "no data lines (the file is empty or holds only blank and comment lines)",
        path=display,
        expected=expected,
    )


def _stem(display: str) -> str:
    base = os.path.basename(display)
    if base.endswith(".gz"):
        base = base[:-3]
    stem, _ = os.path.splitext(base)
    return stem or base


# ------------------------------------------------------------------------------------------ layouts

#: the names a header may give each column (lower case), as the tools users hold write them: trec_eval's
#: own words, PyTerrier (``qid docno score rank``, ``label``), ir_measures (``query_id doc_id score``,
#: ``relevance``), ranx (``q_id doc_id score``) and BEIR (``query-id corpus-id score``, where ``score`` is
#: the grade)
HEADER_NAMES = {
    "qid": ("qid", "query_id", "q_id", "query-id", "queryid"),
    # PyTerrier's frames hold both ``docno`` (the collection's id) and ``docid`` (its index's number)
    "doc": ("docno", "doc_id", "corpus-id", "doc-id", "docid"),
    "grade": ("relevance", "label", "rel", "grade", "judgment", "judgement"),
    "score": ("score",),
    "rank": ("rank",),
    "tag": ("run_id", "runid", "tag", "system"),
}

_SEPARATORS = {None: "blanks", 9: "tabs", 44: "commas"}


class Layout(NamedTuple):
    """Where a file's fields are: the TREC columns, or the columns a header line names.

    ``delimiter`` is None for runs of blanks (TREC's rule), else the byte that separates fields (tab,
    comma); ``ncols`` the fields of a line (a TREC run's lines may have more); ``qid``, ``doc``,
    ``value`` (score or grade), ``rank`` and ``tag`` the 0-based fields (None: not in the file);
    ``header``: the first data line names the columns and is not data.  (A record: a named tuple, defined
    at every ``ir-eval`` start for a third of a frozen dataclass's cost.)"""

    name: str
    delimiter: Optional[int]
    ncols: int
    qid: int
    doc: int
    value: int
    rank: Optional[int] = None
    tag: Optional[int] = None
    header: tuple = ()
    extra_ok: bool = False
    #: not lines of fields: a JSON file, or an ir_datasets dataset (:mod:`metrics.io.datasets`)
    json: bool = False
    #: what a line should look like, when not the kind's TREC columns (intent qrels)
    shape: str = ""

    @property
    def trec(self) -> bool:
        return not self.header and self.delimiter is None and not self.json

    def expected(self, fmt: _Format) -> str:
        if self.shape:
            return self.shape
        if self.trec:
            return fmt.expected
        sep = {9: "\t", 44: ","}.get(self.delimiter, " ")  # type: ignore[arg-type]
        names = sep.join(self.header) if self.header else ""
        if self.header:
            return (
                f"{self.ncols} fields separated by {_SEPARATORS[self.delimiter]}, as the header names them ({names!r})"
            )
        return f"{fmt.expected}, separated by {_SEPARATORS[self.delimiter]}"

    def describe(self) -> str:
        """One sentence for inspection: the layout and where each column is."""
        if self.trec or self.json:
            return self.name
        return f"{self.name}: {self.ncols} fields separated by {_SEPARATORS[self.delimiter]}" + (
            f", header {' '.join(self.header)!r}" if self.header else ""
        )


TREC_RUN = Layout("TREC", None, 6, 0, 2, 4, rank=3, tag=5, extra_ok=True)
TREC_QRELS = Layout("TREC", None, 4, 0, 2, 3)
#: a JSON file ``{qid: {docid: score or grade}}`` (BEIR's saved results, pytrec_eval's and ranx's dicts)
JSON_LAYOUT = Layout("JSON {qid: {docid: value}}", None, 3, 0, 1, 2, json=True)


#: intent (diversity) qrels, ``qid intent docid grade`` (TREC Web track, ndeval): read as qrels whose
#: ``rank`` column holds the intent; a (query, document) pair comes once per intent
INTENTS_LAYOUT = Layout(
    "TREC intent qrels (qid intent docid grade)", None, 4, 0, 2, 3, rank=1, shape="4 columns 'qid intent docid grade'"
)


def trec_layout(kind: str) -> Layout:
    return TREC_RUN if kind == "run" else TREC_QRELS


def _who(names: tuple) -> str:
    """Which tool writes a header like ``names``."""
    lower = set(names)
    if "corpus-id" in lower or "query-id" in lower:
        return "BEIR"
    if "docno" in lower or "qid" in lower:
        return "PyTerrier"
    if "q_id" in lower:
        return "ranx"
    if "query_id" in lower:
        return "ir_measures"
    return "a header"


def header_layout(tokens: list, delimiter: Optional[int], kind: Optional[str]) -> Optional[Layout]:
    """The layout a header line's ``tokens`` (bytes) name for ``kind`` ("run", "qrels", "ranked"; None:
    whichever they name), or None when they are not a header (no query and document column).
    Raises :class:`InputError` (without a place: the caller adds it) for a header that names no
    column of the value ``kind`` needs."""
    names = tuple(t.decode("utf-8", "replace").strip().strip('"').strip() for t in tokens)
    lower = [n.lower() for n in names]

    def find(role: str) -> Optional[int]:
        for alias in HEADER_NAMES[role]:
            if alias in lower:
                return lower.index(alias)
        return None

    qid, doc = find("qid"), find("doc")
    if qid is None or doc is None:
        return None
    grade, score = find("grade"), find("score")
    beir = _who(tuple(lower)) == "BEIR"
    if kind is None:
        kind = "qrels" if grade is not None or beir else "run"
    if kind == "run":
        value = score
        if value is None:
            raise InputError(
                f"found a header naming {' '.join(names)!r}, with no score column",
                expected="a run's columns such as 'qid docno score' (or query_id, q_id; doc_id)",
            )
        return Layout(
            f"{_who(tuple(lower))} run with a header",
            delimiter,
            len(names),
            qid,
            doc,
            value,
            rank=find("rank"),
            tag=find("tag"),
            header=names,
        )
    value = grade if grade is not None else score
    if value is None:
        raise InputError(
            f"found a header naming {' '.join(names)!r}, with no relevance column",
            expected="qrels columns such as 'qid docno label' (or query_id, q_id; doc_id; relevance, or BEIR's score)",
        )
    return Layout(f"{_who(tuple(lower))} qrels with a header", delimiter, len(names), qid, doc, value, header=names)


def trec_line_kind(line: bytes) -> Optional[str]:
    """ "qrels" for a valid TREC qrels line (4 fields, the last an integer grade), "run" for a valid run
    line (6 fields or more, the fifth a number as C's ``strtod`` reads it; trec_eval ignores the fields
    after the sixth), None for any other line.  Fields are separated by runs of C's blanks (a lone CR
    is one), as trec_eval splits them.  A file whose first data line is valid TREC is read as TREC,
    whatever words or braces it holds (:func:`metrics.io.detect.sniff_layout`)."""
    fields = line.split()
    if len(fields) == 4 and _INT_RE.match(fields[3]):
        return "qrels"
    if len(fields) >= 6 and _strtod(fields[4]) is not None:
        return "run"
    return None
